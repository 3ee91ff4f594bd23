"""SequentialCell, CellList and CellDict: construction forms, list/dict behaviour, naming
and renumbering. Expected names and messages were observed on MindSpore 2.10 (CPU) running
the same statements (reference notes §4.1 and §6.2, plus a container probe)."""
from collections import OrderedDict

import numpy as np
import pytest

import spore as ms
from spore import nn, Tensor


def names(cell):
    return [p.name for p in cell.get_parameters()]


def x_in(*shape):
    return Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


class Holder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lst = nn.CellList([nn.Dense(2, 3), nn.Dense(3, 4)])
        self.seq = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU()])


# ---------------------------------------------------------------- SequentialCell
def test_sequential_forms_and_names():
    assert names(nn.SequentialCell(nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 2))) == [
        "0.weight", "0.bias", "2.weight", "2.bias"]
    assert names(nn.SequentialCell([nn.Dense(2, 3), nn.ReLU()])) == ["0.weight", "0.bias"]
    assert names(nn.SequentialCell(nn.Dense(2, 3))) == ["0.weight", "0.bias"]
    od = OrderedDict([("a", nn.Dense(2, 3)), ("b", nn.Dense(3, 3))])
    assert names(nn.SequentialCell(od)) == ["a.weight", "a.bias", "b.weight", "b.bias"]


def test_sequential_runs_cells_in_order():
    d1, d2 = nn.Dense(4, 3), nn.Dense(3, 2)
    seq = nn.SequentialCell(d1, nn.ReLU(), d2)
    x = x_in(5, 4)
    w1, b1 = d1.weight.asnumpy(), d1.bias.asnumpy()
    w2, b2 = d2.weight.asnumpy(), d2.bias.asnumpy()
    want = np.maximum(x.asnumpy() @ w1.T + b1, 0) @ w2.T + b2
    np.testing.assert_allclose(seq(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_sequential_list_behaviour():
    seq = nn.SequentialCell(nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 2))
    seq.append(nn.Dense(2, 2))
    assert len(seq) == 4
    assert names(seq)[-2:] == ["3.weight", "3.bias"]
    assert type(seq[-1]).__name__ == "Dense" and seq[1] is list(seq)[1]
    part = seq[0:2]
    assert type(part) is nn.SequentialCell and len(part) == 2
    assert names(part) == ["0.weight", "0.bias"]
    seq[0] = nn.Dense(2, 5)
    assert seq[0].out_channels == 5 and names(seq)[:2] == ["0.weight", "0.bias"]
    del seq[1]
    assert len(seq) == 3 and [type(c).__name__ for c in seq] == ["Dense", "Dense", "Dense"]
    assert names(seq) == ["0.weight", "0.bias", "1.weight", "1.bias", "2.weight", "2.bias"]


def test_empty_sequential_returns_its_input():
    x = x_in(2)
    assert nn.SequentialCell()(x) is x


def test_sequential_errors():
    with pytest.raises(TypeError, match="must be 'Cell' if not None, but got type <class 'int'>"):
        nn.SequentialCell(nn.ReLU(), 3)
    with pytest.raises(TypeError, match="must be 'Cell' if not None"):
        nn.SequentialCell([1])
    seq = nn.SequentialCell(nn.ReLU())
    with pytest.raises(IndexError, match=r"must be a number in range \[-1, 1\), but got 10"):
        seq[10]
    with pytest.raises(TypeError, match="the type of 'index' must be int, but got str"):
        seq["a"]


def test_sequential_repr_uses_keys():
    od = OrderedDict([("a", nn.Dense(2, 3)), ("b", nn.ReLU())])
    assert repr(nn.SequentialCell(od)) == (
        "SequentialCell(\n"
        "  (a): Dense(input_channels=2, output_channels=3, has_bias=True)\n"
        "  (b): ReLU()\n"
        ")")


# ---------------------------------------------------------------- CellList
def test_celllist_names_follow_the_parent_prefix():
    net = Holder()
    assert names(net) == ["lst.0.weight", "lst.0.bias", "lst.1.weight", "lst.1.bias",
                          "seq.0.weight", "seq.0.bias"]
    net.lst.append(nn.Dense(4, 5))
    assert names(net)[4:6] == ["lst.2.weight", "lst.2.bias"]
    net.lst.insert(0, nn.Dense(1, 2))
    assert names(net)[:8] == ["lst.0.weight", "lst.0.bias", "lst.1.weight", "lst.1.bias",
                              "lst.2.weight", "lst.2.bias", "lst.3.weight", "lst.3.bias"]
    assert [c.in_channels for c in net.lst] == [1, 2, 3, 4]
    net.lst.extend([nn.Dense(5, 6)])
    assert names(net)[8:10] == ["lst.4.weight", "lst.4.bias"]
    net.seq.append(nn.Dense(3, 3))
    assert names(net)[-2:] == ["seq.2.weight", "seq.2.bias"]


def test_celllist_standalone_insert_renumbers():
    cl = nn.CellList([nn.Dense(2, 3)])
    assert names(cl) == ["0.weight", "0.bias"]
    first = cl[0]
    cl.insert(0, nn.Dense(1, 1))
    assert names(cl) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    assert cl[1] is first and cl[-1] is first
    del cl[0]
    assert names(cl) == ["0.weight", "0.bias"] and cl[0] is first


def test_celllist_is_not_callable_and_iterates():
    cl = nn.CellList([nn.ReLU(), nn.Tanh()])
    with pytest.raises(NotImplementedError):
        cl(x_in(2))
    assert [type(c).__name__ for c in cl] == ["ReLU", "Tanh"]
    assert len(cl) == 2 and type(cl[0:1]) is nn.CellList


def test_celllist_errors():
    with pytest.raises(TypeError, match="For 'CellList', each cell must be subclass of Cell, "
                                        "but got int"):
        nn.CellList([3])
    with pytest.raises(TypeError, match="should be instance of list"):
        nn.CellList().extend(nn.ReLU())
    with pytest.raises(IndexError):
        nn.CellList([nn.ReLU()]).insert(5, nn.ReLU())


def test_celllist_auto_prefix_false():
    cl = nn.CellList([nn.Dense(2, 2)], auto_prefix=False)
    assert names(cl) == ["weight", "bias"]


def test_celllist_repr():
    cl = nn.CellList([nn.ReLU(), nn.Dense(2, 3)])
    assert repr(cl) == ("CellList(\n  (0): ReLU()\n"
                        "  (1): Dense(input_channels=2, output_channels=3, has_bias=True)\n)")


# ---------------------------------------------------------------- CellDict
def test_celldict_names_and_mapping_api():
    d = nn.CellDict({"a": nn.Dense(2, 3), "b": nn.ReLU()})
    assert names(d) == ["a.weight", "a.bias"] and list(d.keys()) == ["a", "b"]
    assert "a" in d and len(d) == 2 and list(d) == ["a", "b"]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cd = nn.CellDict([("a", nn.Dense(2, 3)), ("b", nn.Dense(3, 3))])

    net = Net()
    assert names(net) == ["cd.a.weight", "cd.a.bias", "cd.b.weight", "cd.b.bias"]
    net.cd["c"] = nn.Dense(1, 1)
    assert names(net)[-2:] == ["cd.c.weight", "cd.c.bias"]
    popped = net.cd.pop("c")
    assert type(popped).__name__ == "Dense" and list(net.cd.keys()) == ["a", "b"]
    net.cd.clear()
    assert len(net.cd) == 0
    with pytest.raises(NotImplementedError):
        d(x_in(2))


def test_celldict_errors():
    d = nn.CellDict()
    with pytest.raises(TypeError, match="the type of key should be string"):
        d[1] = nn.ReLU()
    with pytest.raises(KeyError, match="can not contain"):
        d["a.b"] = nn.ReLU()
    with pytest.raises(KeyError, match="can not be same with the attributes of Cell"):
        d["training"] = nn.ReLU()
    with pytest.raises(TypeError, match="can not be CellDict, CellList or SequentialCell"):
        d["s"] = nn.SequentialCell()
    with pytest.raises(TypeError, match="cell can not be None"):
        d["n"] = None
    with pytest.raises(ValueError, match="length should be 2"):
        d.update([("a", nn.ReLU(), 3)])


def test_containers_propagate_set_train():
    net = Holder()
    net.set_train()
    assert all(c.training for c in net.lst) and all(c.training for c in net.seq)
    seq = nn.SequentialCell(nn.Dropout(p=0.5))
    seq.set_train()
    assert seq[0].training
