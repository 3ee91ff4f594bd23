"""mindspore.rewrite: parse a network's construct into nodes, edit them, regenerate the
network (behaviour probed on MindSpore 2.10)."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.demo import LeNet
from spore.rewrite import Node, NodeType, ScopedValue, SymbolTree, ValueType


def _x(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).random(shape).astype(np.float32))


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, 3)

    def construct(self, x):
        x = self.conv(x)
        x = self.flatten(x)
        x = self.fc(x)
        return x


class Residual(nn.Cell):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, pad_mode="same")
        self.bn = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(ch, ch, 3, pad_mode="same")

    def construct(self, x):
        identity = x
        out = self.relu(self.bn(self.conv1(x)))
        out = self.conv2(out)
        return self.relu(out + identity)


class ResNetLike(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 4, 3, pad_mode="same")
        self.block = Residual(4)
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        x = self.stem(x)
        x = self.block(x)
        x = self.pool(x)
        return self.fc(ops.reshape(x, (x.shape[0], -1)))


class Branchy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x, n=2):
        y = self.fc(x)
        if self.training:
            y = y * 2
        else:
            y = y - 1
        for _ in range(n):
            y = y + x
        return y


def _names(tree, **kw):
    return [n.get_name() for n in tree.nodes(**kw)]


# ---------------------------------------------------------------------- ScopedValue
def test_scoped_value_kinds_and_text():
    cases = [(1, ValueType.ConstantValue, "1"), (1.5, ValueType.ConstantValue, "1.5"),
             ("a", ValueType.ConstantValue, "a"), (None, ValueType.ConstantValue, "None"),
             ((1, 2), ValueType.TupleValue, "Illegal ValueType: ValueType.TupleValue"),
             ([1], ValueType.ListValue, "Illegal ValueType: ValueType.ListValue"),
             ({"a": 1}, ValueType.DictValue, "Illegal ValueType: ValueType.DictValue"),
             (np.int32(1), ValueType.CustomObjValue, "CustomObj: 1")]
    for value, kind, text in cases:
        sv = ScopedValue.create_variable_value(value)
        assert (sv.type, str(sv), sv.scope) == (kind, text, "")
    named = ScopedValue.create_naming_value("x", "self")
    assert (str(named), named.type, named.scope, named.value) == \
        ("self.x", ValueType.NamingValue, "self", "x")
    assert named == ScopedValue.create_naming_value("x", "self")
    assert [str(v) for v in ScopedValue.create_name_values(["a", "b"], ["", "self"])] == \
        ["a", "self.b"]
    assert [e.value for e in ValueType] == [0, 20, 21, 22, 40, 41, 50]
    assert [e.value for e in NodeType] == list(range(13))


def test_scoped_value_errors():
    with pytest.raises(ValueError, match="Length of names should be equal"):
        ScopedValue.create_name_values(["a", "b"], ["x"])
    with pytest.raises(TypeError, match="'name' should be 'str'"):
        ScopedValue.create_naming_value(1)


# ---------------------------------------------------------------------- parsing
def test_nested_calls_are_pulled_into_nodes_and_network_is_unchanged():
    net = LeNet()
    tree = SymbolTree.create(net)
    assert _names(tree) == ["input_x", "features", "flatten", "classifier", "return"]
    types = [n.get_node_type() for n in tree.nodes()]
    assert types == [NodeType.Input, NodeType.CellContainer, NodeType.CallCell,
                     NodeType.CellContainer, NodeType.Output]
    assert "flatten_var = self.flatten(features_var)" in tree.get_code()
    assert [str(a) for a in tree.get_node("return").get_args()] == ["classifier_var"]
    x = _x(2, 1, 8, 8)
    new = tree.get_network()
    assert type(new).__name__ == "LeNetOpt" and isinstance(new, LeNet)
    np.testing.assert_array_equal(new(x).asnumpy(), net(x).asnumpy())


def test_node_kinds_arguments_and_data_flow():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 4)
            self.relu = ops.ReLU()

        def construct(self, x, y=2):
            x = self.relu(self.fc(x))
            a, b = ops.split(x, 2, axis=1)
            z = ops.cat((a, b), 1) + y
            return z.reshape(2, 4), a

    tree = SymbolTree.create(Net())
    rows = {n.get_name(): n for n in tree.nodes()}
    assert list(rows) == ["input_x", "input_y", "fc", "relu", "split", "tuple", "cat",
                          "binop_add", "reshape", "tuple_1", "return"]
    kinds = {k: n.get_node_type().name for k, n in rows.items()}
    assert kinds == {"input_x": "Input", "input_y": "Input", "fc": "CallCell",
                     "relu": "CallPrimitive", "split": "CallFunction", "tuple": "CallMethod",
                     "cat": "CallFunction", "binop_add": "MathOps", "reshape": "CallMethod",
                     "tuple_1": "CallMethod", "return": "Output"}
    split = rows["split"]
    assert [str(t) for t in split.get_targets()] == ["a", "b"]
    assert [str(a) for a in split.get_args()] == ["x", "2"]
    assert {k: str(v) for k, v in split.get_kwargs().items()} == {"axis": "1"}
    assert [n.get_name() for n in split.get_inputs()] == ["relu"]
    assert [n.get_name() for n in split.get_users()] == ["tuple", "tuple_1"]
    assert split.get_arg_providers() == {0: (rows["relu"], 0)}
    assert split.get_target_users() == {0: [(rows["tuple"], 0), (rows["tuple_1"], 1)],
                                        1: [(rows["tuple"], 1)]}
    assert rows["binop_add"].get_inputs() == [rows["cat"], rows["input_y"]]
    assert rows["relu"].get_instance_type() is ops.ReLU
    assert rows["fc"].get_instance() is tree.get_origin_network().fc
    assert rows["input_y"].get_users() == [rows["binop_add"]]
    x = _x(2, 4)
    out, a = tree.get_network()(x)
    ref_out, ref_a = tree.get_origin_network()(x)
    np.testing.assert_allclose(out.asnumpy(), ref_out.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), ref_a.asnumpy(), rtol=1e-6)


# ---------------------------------------------------------------------- editing
def test_insert_relu_after_conv():
    net = ConvNet()
    tree = SymbolTree.create(net)
    conv = tree.get_node("conv")
    relu = Node.create_call_cell(nn.ReLU(), targets=["x"],
                                 args=[ScopedValue.create_naming_value("x")])
    assert relu.get_name() == ""
    assert tree.insert(tree.after(conv), relu) is relu
    assert relu.get_name() == "ReLU" and relu.get_symbol_tree() is tree
    assert _names(tree) == ["input_x", "conv", "ReLU", "flatten", "fc", "return"]
    assert [n.get_name() for n in conv.get_users()] == ["ReLU"]
    assert "x = self.ReLU(x)" in tree.get_code()
    new = tree.get_network()
    x = _x(2, 1, 8, 8)
    expect = net.fc(net.flatten(ops.relu(net.conv(x))))
    np.testing.assert_allclose(new(x).asnumpy(), expect.asnumpy(), rtol=1e-6)
    assert not hasattr(net, "ReLU")                       # the original is left as it was
    second = Node.create_call_cell(nn.ReLU(), ["x"], [ScopedValue.create_naming_value("x")])
    tree.insert(tree.before("flatten"), second)
    assert second.get_name() == "ReLU_1"


def test_replace_dense_and_erase():
    net = ConvNet()
    tree = SymbolTree.create(net)
    dense = nn.Dense(4 * 6 * 6, 5)
    new_fc = Node.create_call_cell(dense, ["x"], [ScopedValue.create_naming_value("x")],
                                   name="fc2")
    assert tree.replace(tree.get_node("fc"), [new_fc]) is new_fc
    assert _names(tree) == ["input_x", "conv", "flatten", "fc2", "return"]
    assert tree.get_node("fc") is None
    new = tree.get_network()
    x = _x(2, 1, 8, 8)
    assert new(x).shape == (2, 5)
    assert new.fc2 is dense and "fc2.weight" in [p.name for p in new.trainable_params()]
    np.testing.assert_allclose(new(x).asnumpy(), dense(net.flatten(net.conv(x))).asnumpy(),
                               rtol=1e-6)
    erased = tree.erase("conv")
    assert erased.get_name() == "conv" and erased.get_symbol_tree() is None
    assert "self.conv(" not in tree.get_code()
    with pytest.raises(RuntimeError, match="not belong to current SymbolTree"):
        tree.before("conv")


def test_create_call_function_and_set_arg():
    def scale(a, factor=1.0):
        return a * factor

    net = ConvNet()
    tree = SymbolTree.create(net)
    node = Node.create_call_function(scale, ["y"], [ScopedValue.create_naming_value("x")],
                                     {"factor": ScopedValue.create_variable_value(3.0)})
    assert node.get_name() == "scale" and node.get_node_type() == NodeType.CallFunction
    tree.insert(tree.before(tree.get_node("return")), node)
    tree.set_output(0, "y")
    assert "y = scale(x, factor=3.0)" in tree.get_code()
    x = _x(1, 1, 8, 8)
    np.testing.assert_allclose(tree.get_network()(x).asnumpy(), 3 * net(x).asnumpy(),
                               rtol=1e-6)
    fc = tree.get_node("fc")
    fc.set_arg(0, "x")
    fc.set_arg_by_node(0, tree.get_node("flatten"))
    assert fc.get_args() == [ScopedValue.create_naming_value("x")]
    with pytest.raises(RuntimeError, match="Input kwargs invalid"):
        Node.create_call_function(scale, ["y"], kwargs={"nope": ScopedValue.create_variable_value(1)})


def test_bad_input():
    tree = SymbolTree.create(ConvNet())
    with pytest.raises(TypeError, match="'network' should be 'Cell'"):
        SymbolTree.create(1)
    with pytest.raises(TypeError, match="'cell' should be one of"):
        Node.create_call_cell(1, ["x"])
    with pytest.raises(TypeError, match="'targets' should be one of"):
        Node.create_call_cell(nn.ReLU(), "x")
    with pytest.raises(TypeError, match="'args' should be ScopedValue"):
        Node.create_call_cell(nn.ReLU(), ["x"], args=["x"])
    with pytest.raises(TypeError, match="'function' should be one of"):
        Node.create_call_function(1, ["x"])
    with pytest.raises(ValueError, match="cannot be inserted into SymbolTree again: fc"):
        tree.insert(tree.after("conv"), tree.get_node("fc"))
    other = SymbolTree.create(ConvNet())
    with pytest.raises(RuntimeError, match="not belong to current SymbolTree"):
        tree.erase(other.get_node("fc"))


# ---------------------------------------------------------------------- sub-trees
def test_user_cells_become_sub_trees_and_edits_reach_the_network():
    net = ResNetLike()
    net.set_train(False)
    tree = SymbolTree.create(net)
    block = tree.get_node("block")
    assert block.get_node_type() == NodeType.Tree
    sub = block.get_sub_tree()
    assert _names(sub) == ["input_x", "Assign", "conv1", "bn", "relu", "conv2", "binop_add",
                           "relu_1", "return"]
    assert set(_names(sub)) <= set(_names(tree, all_nodes=True))
    x = _x(2, 1, 8, 8)
    np.testing.assert_allclose(tree.get_network()(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    # drop the skip connection inside the block: the regenerated parent uses the edit
    add = sub.get_node("binop_add")
    add.set_arg(1, ScopedValue.create_variable_value(0.0))
    new = tree.get_network()
    assert type(new.block).__name__ == "ResidualOpt"
    assert new.block.conv1 is net.block.conv1
    b = net.block
    expect = net.fc(ops.reshape(net.pool(b.relu(b.conv2(b.relu(b.bn(b.conv1(net.stem(x))))))),
                                (2, -1)))
    np.testing.assert_allclose(new(x).asnumpy(), expect.asnumpy(), rtol=1e-5)
    assert [p.name for p in new.trainable_params()] == [p.name for p in net.trainable_params()]
    assert "class ResidualOpt(Residual)" in tree.get_code()


def test_rewritten_network_trains_the_same_parameters():
    net = ResNetLike()
    new = SymbolTree.create(net).get_network()
    x = _x(2, 1, 8, 8)
    g_new = ms.grad(lambda v: new(v).sum(), None, new.trainable_params())(x)
    g_old = ms.grad(lambda v: net(v).sum(), None, net.trainable_params())(x)
    for a, b in zip(g_new, g_old):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------- control flow
def test_if_and_for_are_control_flow_nodes():
    net = Branchy()
    tree = SymbolTree.create(net)
    assert _names(tree) == ["input_x", "input_n", "fc", "if_node", "range", "for_node",
                            "return"]
    assert [str(a) for a in tree.get_node("if_node").get_args()] == ["self.training"]
    assert [str(a) for a in tree.get_node("for_node").get_args()] == ["range_var"]
    assert {"binop_mult", "binop_sub", "binop_add"} <= set(_names(tree, all_nodes=True))
    x = _x(2, 3)
    for mode in (True, False):
        net.set_train(mode)
        new = tree.get_network()
        new.set_train(mode)
        np.testing.assert_allclose(new(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(new(x, 3).asnumpy(), net(x, 3).asnumpy(), rtol=1e-6)
    # edit a node inside the loop body
    tree.get_node("binop_add").set_arg(1, "y")
    net.set_train(False)
    new = tree.get_network()
    y = net.fc(x) - 1
    np.testing.assert_allclose(new(x).asnumpy(), (y * 4).asnumpy(), rtol=1e-6)


def test_flatten_static_if_takes_the_branch():
    net = Branchy()
    net.set_train(True)
    tree = SymbolTree.create(net)
    tree.flatten_static_if_control_flow()
    assert "if " not in tree.get_code() and "y = y * 2" in tree.get_code()
    x = _x(2, 3)
    new = tree.get_network()
    new.set_train(False)          # the branch was fixed when flattening
    np.testing.assert_allclose(new(x).asnumpy(), (net.fc(x) * 2 + 2 * x).asnumpy(), rtol=1e-6)


# ---------------------------------------------------------------------- output helpers
def test_tabulate_unique_name_and_saving(tmp_path, capsys):
    tree = SymbolTree.create(ConvNet())
    tree.print_node_tabulate()
    out = capsys.readouterr().out
    assert "CallCell" in out and "x = self.conv(x)" in out and "arg providers" in out
    assert tree.unique_name("x") == "x_1" and tree.unique_name() == "output"
    tree.set_saved_file_name(str(tmp_path / "net"))
    assert tree.get_saved_file_name().endswith("net.py")
    tree.save_network_to_file()
    assert "class ConvNetOpt(ConvNet)" in (tmp_path / "net.py").read_text()
    assert ms.SymbolTree is SymbolTree and ms.Node is Node and ms.rewrite.NodeType is NodeType


class _Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        return self.fc(x)


class _Child(_Base):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.ReLU(), nn.Tanh()])

    def construct(self, x, *args, scale=1.0, **kw):
        y = super().construct(x)
        y = self.layers[0](y)
        y += 1
        z = y * 2 if self.training else y
        return z * scale, len(args), kw.get("q", 0)


def test_statements_kept_as_python_still_run_the_same():
    net = _Child()
    tree = SymbolTree.create(net)
    names = _names(tree)
    assert names[:4] == ["input_x", "input_args", "input_scale", "input_kw"]
    assert {"Assign", "AugAssign"} <= set(names)
    assert "super(_rewrite_owner, self).construct(x)" in tree.get_code()
    new = tree.get_network()
    x = _x(2, 3)
    got, want = new(x, 1, 2, scale=3.0, q=5), net(x, 1, 2, scale=3.0, q=5)
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
    assert got[1:] == want[1:] == (2, 5)


def test_subscripts_become_nodes_and_data_flow_stays_in_its_block():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            y = self.fc(x[:, :2])
            if x.shape[0] > 1:
                y = y + 1
            w = x.shape
            return y * w[0]

    net = Net()
    tree = SymbolTree.create(net)
    rows = [(n.get_name(), n.get_node_type().name, [str(t) for t in n.get_targets()])
            for n in tree.nodes()]
    assert rows == [("input_x", "Input", ["x"]),
                    ("subscript_var", "CallMethod", ["subscript_var"]),
                    ("fc", "CallCell", ["y"]),
                    ("subscript_var_1", "CallMethod", ["subscript_var_1"]),
                    ("compare_gt", "MathOps", ["compare_var"]),
                    ("if_node", "ControlFlow", []),
                    ("attribute_assign", "CallMethod", ["w"]),
                    ("subscript_var_2", "CallMethod", ["subscript_var_2"]),
                    ("binop_mult", "MathOps", ["mult_var"]),
                    ("return", "Output", [])]
    assert "subscript_var = x[:, :2]" in tree.get_code()
    fc = tree.get_node("fc")
    assert [n.get_name() for n in fc.get_users()] == ["binop_mult"]   # not the `if` body's
    assert tree.get_node("input_x").get_users() == []                  # x only in subscripts
    x = _x(3, 4)
    np.testing.assert_allclose(tree.get_network()(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
