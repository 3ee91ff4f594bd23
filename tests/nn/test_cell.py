"""nn.Cell: registration and naming rules, accessors, modes, repr, to_float and hooks.

Expected names, orders, messages and hook values were observed on MindSpore 2.10 (CPU)
with the same networks (reference notes §4.1, §4.2, §6.1, plus probes of
update_parameters_name and register_backward_hook run with the reference install).
"""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor, Parameter


def names(cell):
    return [p.name for p in cell.get_parameters()]


def ones(*shape):
    return Tensor(np.ones(shape, np.float32))


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(ones(2), name="custom")
        self.q = Parameter(ones(2))


class Outer(nn.Cell):
    """The accessor probe: own params w, named (custom_name), frozen + children."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)
        self.w = Parameter(ones(2))
        self.named = Parameter(ones(2), name="custom_name")
        self.frozen = Parameter(ones(2), requires_grad=False)
        self.seq = nn.SequentialCell(nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 2))
        self.lst = nn.CellList([nn.Dense(2, 2), nn.Dense(2, 2)])


# ---------------------------------------------------------------- naming rules (§4.1)
def test_top_level_parameter_names():
    net = Outer()
    assert net.w.name == "w"                      # unnamed -> attribute name
    assert net.named.name == "custom_name"        # explicit name kept at top level


def test_child_parameters_are_prefixed_and_explicit_names_replaced():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

    assert names(Net()) == ["inner.p", "inner.q"]
    assert names(Inner()) == ["custom", "q"]


def test_nested_prefixes_accumulate():
    class Mid(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mid = Mid()

    assert names(Top()) == ["mid.inner.p", "mid.inner.q"]


def test_builtin_layer_parameter_names():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm2d(3)

    assert names(nn.Dense(2, 3)) == ["weight", "bias"]
    assert names(nn.BatchNorm2d(3)) == ["mean", "variance", "gamma", "beta"]
    assert names(Net()) == ["bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"]
    assert [p.requires_grad for p in Net().get_parameters()] == [False, False, True, True]


def test_container_names_in_parent():
    net = Outer()
    assert names(net) == ["w", "custom_name", "frozen", "fc.weight", "fc.bias",
                          "seq.0.weight", "seq.0.bias", "seq.2.weight", "seq.2.bias",
                          "lst.0.weight", "lst.0.bias", "lst.1.weight", "lst.1.bias"]


def test_cell_reachable_twice_last_assignment_names_it():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            d = nn.Dense(2, 2)
            self.a = d
            self.b = d

    net = Net()
    keys = [k for k, _ in net.parameters_and_names()]
    assert keys == ["a.weight", "a.bias"]          # first path wins for the key
    assert names(net) == ["b.weight", "b.bias"]    # the last assignment wins for .name


def test_auto_prefix_false_and_insert_child_do_not_prefix():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.inner = Inner()
            self.fc = nn.Dense(2, 2)

    # (probed: the reference notes' "fc.weight" here is a typo; MindSpore gives "weight")
    assert names(Net()) == ["custom", "q", "weight", "bias"]

    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Net()

    assert names(Top()) == ["net.inner.p", "net.inner.q", "net.fc.weight", "net.fc.bias"]
    net = nn.ReLU()
    net.insert_child_to_cell("extra", nn.Dense(2, 2))
    assert names(net) == ["weight", "bias"]


def test_python_list_of_parameters_is_not_registered():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ps = [Parameter(ones(1), name="a"), Parameter(ones(1), name="b")]

    assert names(Net()) == []


def test_duplicate_explicit_names_are_allowed_in_a_cell():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(ones(1), name="same")
            self.b = Parameter(ones(1), name="same")

    assert names(Net()) == ["same", "same"]


def test_parameter_tuple_registers_under_its_names():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ms.ParameterTuple([Parameter(ones(1), name="wa"),
                                         Parameter(ones(1), name="wb")])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.h = Holder()

    class Top(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Net()

    assert names(Holder()) == ["wa", "wb"]
    assert names(Top()) == ["net.h.wa", "net.h.wb"]
    with pytest.raises(ValueError, match="its name 'x' already exists"):
        Holder().ws2 = ms.ParameterTuple([Parameter(ones(1), name="x"),
                                          Parameter(ones(1), name="x")])


def test_update_parameters_name():
    net = Outer()
    net.update_parameters_name("pre.")
    assert names(net)[:5] == ["pre.w", "pre.named", "pre.frozen", "pre.fc.weight", "pre.fc.bias"]
    net.update_parameters_name("")          # the empty prefix renames to the attribute path
    assert names(net)[:2] == ["w", "named"]
    with pytest.raises(ValueError, match="is illegal"):
        net.update_parameters_name("a b")
    with pytest.raises(TypeError):
        net.update_parameters_name(1)


# ---------------------------------------------------------------- accessors (§4.2)
def test_trainable_and_untrainable_params_order():
    net = Outer()
    assert [p.name for p in net.trainable_params()][:5] == [
        "w", "custom_name", "fc.weight", "fc.bias", "seq.0.weight"]
    assert [p.name for p in net.untrainable_params()] == ["frozen"]


def test_get_parameters_is_a_generator_with_frozen():
    import types
    net = Outer()
    gen = net.get_parameters()
    assert isinstance(gen, types.GeneratorType)
    assert "frozen" in [p.name for p in gen]


def test_parameters_and_names_keys_and_options():
    net = Outer()
    pairs = list(net.parameters_and_names())
    assert pairs[1][0] == "named" and pairs[1][1].name == "custom_name"
    assert [k for k, _ in net.parameters_and_names(expand=False)] == ["w", "named", "frozen"]
    seq = nn.SequentialCell(nn.Dense(2, 2))
    assert [k for k, _ in seq.parameters_and_names(name_prefix="pre")] == [
        "pre.0.weight", "pre.0.bias"]


def test_parameters_dict_is_keyed_by_name():
    d = Outer().parameters_dict()
    assert list(d)[:3] == ["w", "custom_name", "frozen"]
    assert d["fc.weight"].shape == (2, 2)


# ---------------------------------------------------------------- Cell basics (§6.1)
def test_forgetting_super_init_names_the_problem():
    class NoSuper(nn.Cell):
        def __init__(self):
            self.x = 1

    with pytest.raises(AttributeError, match="'NoSuper' object has no attribute '_auto_prefix'"):
        NoSuper()


def test_missing_construct():
    class OnlyForward(nn.Cell):
        def forward(self, x):
            return x

    with pytest.raises(AttributeError, match="the method 'construct' is not defined"):
        OnlyForward()(ones(1))


def test_call_passes_kwargs():
    class Net(nn.Cell):
        def construct(self, x, scale=1.0):
            return x * scale

    np.testing.assert_allclose(Net()(ones(2), scale=3.0).asnumpy(), [3.0, 3.0])


def test_training_flag_and_set_train_recursion():
    net = Outer()
    assert net.training is False and net.seq[0].training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    assert net.phase == "train"
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    assert net.phase == "predict"
    assert not hasattr(net, "train") and not hasattr(net, "eval")


def test_cells_and_names_order_and_children():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(2, 2)
            self.act = nn.ReLU()
            self.seq = nn.SequentialCell(nn.Dense(2, 2), nn.Sigmoid())

    net = Net()
    got = [(n, type(c).__name__) for n, c in net.cells_and_names()]
    assert got == [("", "Net"), ("fc1", "Dense"), ("act", "ReLU"), ("seq", "SequentialCell"),
                   ("seq.0", "Dense"), ("seq.1", "Sigmoid")]
    assert list(net.name_cells()) == ["fc1", "act", "seq"]
    assert [type(c).__name__ for c in net.cells()] == ["Dense", "ReLU", "SequentialCell"]


def test_insert_child_to_cell_errors_and_replacement():
    net = nn.ReLU()
    with pytest.raises(KeyError, match="can not contain '.'"):
        net.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(TypeError, match="must be 'Cell' if not None"):
        net.insert_child_to_cell("a", 3)
    net.insert_child_to_cell("a", nn.ReLU())
    net.insert_child_to_cell("a", nn.Tanh())
    assert type(net.a).__name__ == "Tanh" and len(net.cells()) == 1


def test_attribute_assignment_rules():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(ones(2))
            self.sub = nn.ReLU()
            self.t = ones(2)

    net = Net()
    net.p = Tensor(np.array([3.0, 4.0], np.float32))     # keeps the Parameter, new value
    assert isinstance(net.p, Parameter) and net.p.name == "p"
    np.testing.assert_allclose(net.p.asnumpy(), [3.0, 4.0])
    with pytest.raises(TypeError, match="Parameter 'p' already exists in network"):
        net.p = 1
    with pytest.raises(TypeError, match="Sub cell 'sub' already exists in network"):
        net.sub = 1
    net.late = Parameter(ones(1))                          # registered after __init__ too
    assert "late" in names(net)
    assert names(net) == ["p", "late"]                     # plain tensors are not parameters


def test_repr_layout():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(4, 3)
            self.act = nn.ReLU()
            self.seq = nn.SequentialCell(nn.Dense(3, 2))

    assert repr(Net()) == (
        "Net(\n"
        "  (fc1): Dense(input_channels=4, output_channels=3, has_bias=True)\n"
        "  (act): ReLU()\n"
        "  (seq): SequentialCell(\n"
        "    (0): Dense(input_channels=3, output_channels=2, has_bias=True)\n"
        "  )\n"
        ")")
    assert repr(nn.Dense(2, 3, activation="relu")) == (
        "Dense(\n"
        "  input_channels=2, output_channels=3, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n"
        ")")
    assert Net().cls_name == "Net"


# ---------------------------------------------------------------- to_float
def test_to_float_casts_inputs_and_weights_but_keeps_master_weights():
    ms.set_seed(2)
    net = nn.Dense(2, 3)
    assert net.to_float(ms.float16) is net
    out = net(ones(4, 2))
    assert out.dtype == ms.float16
    assert net.weight.dtype == ms.float32
    w = net.weight.asnumpy().astype(np.float16).astype(np.float32)
    b = net.bias.asnumpy().astype(np.float16).astype(np.float32)
    np.testing.assert_allclose(out.asnumpy(), np.ones((4, 2)) @ w.T + b, rtol=2e-3, atol=1e-3)


def test_to_float_gradients_reach_float32_weights():
    net = nn.Dense(2, 1).to_float(ms.float16)
    grads = ms.grad(lambda x: net(x).sum(), grad_position=None,
                    weights=net.trainable_params())(ones(3, 2))
    assert [g.dtype for g in grads] == [ms.float32, ms.float32]
    np.testing.assert_allclose(grads[0].asnumpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(grads[1].asnumpy(), [3.0])


def test_to_float_rejects_other_dtypes():
    with pytest.raises(ValueError, match="'dst_type' must be mstype.float32"):
        nn.Dense(2, 2).to_float(ms.int32)


# ---------------------------------------------------------------- hooks
class Mul3(nn.Cell):
    def construct(self, x, y):
        return x * y * 3


def _hooked_net(hook, inner=None):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.m = inner or Mul3()
            self.m.register_backward_hook(hook)

        def construct(self, x, y):
            return self.m(x + 1, y) * 2

    return Net()


X = Tensor(np.array([1.0, 2.0], np.float32))
Y = Tensor(np.array([3.0, 4.0], np.float32))


def test_backward_hook_sees_input_and_output_gradients():
    seen = []

    def hook(cell, grad_input, grad_output):
        seen.append((cell, [g.asnumpy() for g in grad_input], [g.asnumpy() for g in grad_output]))

    net = _hooked_net(hook)
    dx, dy = ms.grad(net, grad_position=(0, 1))(X, Y)
    (cell, gin, gout), = seen
    assert cell is net.m
    np.testing.assert_allclose(gin[0], [18.0, 24.0])
    np.testing.assert_allclose(gin[1], [12.0, 18.0])
    np.testing.assert_allclose(gout[0], [2.0, 2.0])
    np.testing.assert_allclose(dx.asnumpy(), [18.0, 24.0])
    np.testing.assert_allclose(dy.asnumpy(), [12.0, 18.0])


def test_backward_hook_result_replaces_grad_input():
    net = _hooked_net(lambda cell, gin, gout: (gin[0] * 10, gin[1]))
    dx, dy = ms.grad(net, grad_position=(0, 1))(X, Y)
    np.testing.assert_allclose(dx.asnumpy(), [180.0, 240.0])
    np.testing.assert_allclose(dy.asnumpy(), [12.0, 18.0])


def test_backward_hook_single_tensor_result_and_no_call_without_grad():
    calls = []

    def hook(cell, gin, gout):
        calls.append(len(gin))
        return gin[0] * 10

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.r = nn.ReLU()
            self.r.register_backward_hook(hook)

        def construct(self, x):
            return self.r(x) * 2

    net = Net()
    np.testing.assert_allclose(net(X).asnumpy(), [2.0, 4.0])
    assert calls == []                       # a plain forward pass runs no backward hook
    np.testing.assert_allclose(ms.grad(net)(X).asnumpy(), [20.0, 20.0])
    assert calls == [1]


def test_backward_hook_when_only_weights_are_differentiated():
    seen = []
    dense = nn.Dense(2, 1, weight_init="ones")
    dense.register_backward_hook(lambda c, gin, gout: seen.append((gin, gout)))
    grads = ms.grad(lambda x: dense(x).sum(), grad_position=None,
                    weights=dense.trainable_params())(ones(1, 2))
    np.testing.assert_allclose(grads[0].asnumpy(), [[1.0, 1.0]])
    (gin, gout), = seen
    assert gin == (None,)
    np.testing.assert_allclose(gout[0].asnumpy(), [[1.0]])


def test_backward_hook_unused_output_gradient_is_none():
    class Two(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

    seen = []
    two = Two()
    two.register_backward_hook(lambda c, gin, gout: seen.append(gout))
    g = ms.grad(lambda x: two(x)[0].sum())(ones(1, 2))
    np.testing.assert_allclose(g.asnumpy(), [[2.0, 2.0]])
    assert seen[0][1] is None
    np.testing.assert_allclose(seen[0][0].asnumpy(), [[1.0, 1.0]])


def test_backward_hook_errors_and_removal():
    net = _hooked_net(lambda c, gin, gout: (gin[0], gin[0], gin[0]))
    with pytest.raises(TypeError, match="return value size is 3 not equal to expect grad input "
                                        "size 2"):
        ms.grad(net, grad_position=(0, 1))(X, Y)
    with pytest.raises(TypeError, match="Expected a callable hook function, but got int"):
        nn.ReLU().register_backward_hook(3)
    calls = []
    relu = nn.ReLU()
    handle = relu.register_backward_hook(lambda c, gin, gout: calls.append(1))
    handle.remove()
    ms.grad(lambda x: relu(x).sum())(X)
    assert calls == []


def test_forward_hooks():
    relu = nn.ReLU()
    relu.register_forward_pre_hook(lambda cell, inputs: (inputs[0] - 1,))
    relu.register_forward_hook(lambda cell, inputs, out: out * 10)
    np.testing.assert_allclose(relu(X).asnumpy(), [0.0, 10.0])


def test_hooked_cell_output_keeps_values():
    relu = nn.ReLU()
    relu.register_backward_hook(lambda c, gin, gout: None)
    out = relu(Tensor(np.array([-1.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [0.0, 2.0])


def test_graph_mode_cells_compile_without_warnings():
    import warnings
    ms.set_context(mode=ms.GRAPH_MODE)
    net = nn.Dense(2, 3)
    x = ms.Tensor([[1.0, 2.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = net(x)
        net(x)
    assert ms.jit_report(net).compiled == 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.asnumpy().tolist() == net(x).asnumpy().tolist()
