"""MindIR files: ``ms.load`` + ``nn.GraphCell`` read MindSpore's exports, ``ms.export``
writes files that Spore and MindSpore both run (NOTE: [MindIR])."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from spore.train import _mindir_proto as MP

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
MS_PYTHON = next((p for p in map(pathlib.Path, (os.environ.get("SPORE_MS_PYTHON", ""),
                                                 "/work/msref/bin/python",
                                                 "/work/venvs/ms/bin/python"))
                  if str(p) != "." and p.exists()), pathlib.Path("/nonexistent"))


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_mindspore_lenet_export_runs_with_mindspores_numbers(mode):
    graph = ms.load(str(DATA / "golden_lenet.mindir"))
    net = nn.GraphCell(graph)
    x = Tensor((np.sin(np.arange(2 * 32 * 32)) * 2).reshape(2, 1, 32, 32).astype(np.float32))
    want = np.load(DATA / "golden_lenet_out.npz")["arr_0"]
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-7)
    names = {p.name for p in net.get_parameters()}
    assert {"conv1.weight", "bn.moving_mean", "fc2.bias"} <= names


def test_a_mindspore_export_of_many_operators_runs_with_mindspores_numbers(mode):
    """Scalar operands, axis tuples, dtype ids (Cast), tuples (Concat, ArgMaxWithValue),
    PRIMITIVE_FUNCTION inputs (AvgPool, LayerNorm, StridedSlice, Gather)."""
    net = nn.GraphCell(ms.load(str(DATA / "golden_ops.mindir")))
    x = Tensor((np.cos(np.arange(64)) * 1.5).reshape(2, 4, 8).astype(np.float32))
    idx = Tensor(np.array([[1, 2], [3, 9]], np.int32))
    got = net(x, idx)
    want = np.load(DATA / "golden_ops_out.npz")
    assert len(got) == len(want.files)
    for k, g in enumerate(got):
        w = want[f"arr_{k}"]
        assert g.shape == w.shape
        np.testing.assert_allclose(g.asnumpy(), w, rtol=2e-5, atol=1e-5)


def test_a_mindspore_export_of_convolution_variants_runs_with_mindspores_numbers(mode):
    """Same padding, groups, depthwise, transposed convolution, SiLU/HSwish operators,
    ClampScalar, Select, AdaptiveAvgPool2D, Argmax, ResizeNearestNeighbor."""
    net = nn.GraphCell(ms.load(str(DATA / "golden_cnn.mindir")))
    x = Tensor((np.sin(np.arange(2 * 3 * 16 * 16) * 0.3)).reshape(2, 3, 16, 16)
               .astype(np.float32))
    got = net(x)
    want = np.load(DATA / "golden_cnn_out.npz")
    assert len(got) == len(want.files) == 3
    for k, g in enumerate(got):
        w = want[f"arr_{k}"]
        assert g.shape == w.shape and g.asnumpy().dtype == w.dtype
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="pad", padding=1, has_bias=True)
        self.pool = nn.MaxPool2d(2, 2)
        self.avg = nn.AvgPool2d(2, 2)
        self.fc1 = nn.Dense(576, 32)
        self.fc2 = nn.Dense(32, 10, has_bias=False)
        self.ln = nn.LayerNorm((32,))
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        x = self.pool(ops.relu(self.bn(self.conv1(x))))
        x = self.avg(ops.sigmoid(self.conv2(x)))
        x = x.reshape(x.shape[0], -1)
        h = self.ln(ops.tanh(self.fc1(x)))
        out = ops.softmax(self.fc2(self.drop(h)), -1) * 2 + 1
        return out, h.mean(axis=1), ops.cast(h, ms.float16)


class _Attention(nn.Cell):
    """Embedding, split q/k/v, 3-D Dense, batched matmuls, GELU, residuals, pooling."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.qkv = nn.Dense(16, 48)
        self.proj = nn.Dense(16, 16)
        self.ln = nn.LayerNorm((16,))
        self.mlp = nn.SequentialCell(nn.Dense(16, 32), nn.GELU(), nn.Dense(32, 16))
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def construct(self, img, tok):
        f = self.pool(ops.relu(self.bn(self.conv(img))) + 1.0).reshape(img.shape[0], 4)
        x = self.emb(tok)
        q, k, v = ops.split(self.qkv(self.ln(x)), 16, axis=-1)
        a = ops.softmax(ops.matmul(q, k.swapaxes(-1, -2)) / 4.0, -1)
        x = x + self.proj(ops.matmul(a, v))
        x = x + self.mlp(self.ln(x))
        return x.mean(1), f


class _Convs(nn.Cell):
    """Same padding (pooling too), groups, depthwise, transposed convolution, clamps,
    selects, adaptive pooling, argmax, resizing."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.mp = nn.MaxPool2d(3, 2, pad_mode="same")
        self.c2 = nn.Conv2d(8, 8, 3, group=2, pad_mode="same")
        self.dw = nn.Conv2d(8, 8, 3, group=8, pad_mode="pad", padding=1)
        self.up = nn.Conv2dTranspose(8, 4, 2, stride=2)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Dense(4, 5)

    def construct(self, x):
        y = self.mp(ops.relu(self.bn(self.c1(x))))
        y = y + ops.silu(self.c2(y))
        y = ops.leaky_relu(self.dw(y), 0.1) + ops.hardswish(y)
        y = ops.clip(self.up(y), -1.0, 1.0)
        y = ops.where(y > 0, y, y * 0.5)
        out = ops.softmax(self.fc(ops.flatten(self.gap(y))), -1)
        return out, ops.argmax(out, 1), ops.ResizeNearestNeighbor((4, 4))(x)


class _Indexing(nn.Cell):
    def construct(self, x, i):
        return (x[:, 1:3], x[0], x[..., 2], x[:, None, ::2], x[1:, -1], x[i], x[:, i])


def _inputs(kind, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "cnn":
        return (rng.standard_normal((2, 1, 32, 32)).astype(np.float32),)
    if kind == "convs":
        return (rng.standard_normal((2, 3, 16, 16)).astype(np.float32),)
    if kind == "indexing":
        return (rng.standard_normal((4, 6)).astype(np.float32), np.array([0, 2], np.int32))
    return (rng.standard_normal((2, 3, 8, 8)).astype(np.float32),
            np.array([[1, 2, 3], [4, 5, 19]], np.int32))


_KINDS = ("cnn", "attention", "convs", "indexing")


def _model(kind):
    ms.set_seed(3)
    return {"cnn": _Net, "attention": _Attention, "convs": _Convs,
            "indexing": _Indexing}[kind]()


@pytest.mark.parametrize("kind", _KINDS)
def test_export_then_load_gives_the_networks_inference_outputs(tmp_path, mode, kind):
    net = _model(kind)
    net.set_train()
    xs = [Tensor(a) for a in _inputs(kind)]
    ms.export(net, *xs, file_name=str(tmp_path / "net"), file_format="MINDIR")
    assert net.training                          # the export ran in inference mode only
    net.set_train(False)
    want = net(*xs)
    loaded = nn.GraphCell(ms.load(str(tmp_path / "net.mindir")))
    got = loaded(*xs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_params_init_replaces_weights_by_name(tmp_path):
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "d.mindir"))
    graph = ms.load(str(tmp_path / "d.mindir"))
    zero_w = Tensor(np.zeros((2, 3), np.float32))
    cell = nn.GraphCell(graph, params_init={"weight": zero_w})
    np.testing.assert_allclose(cell(x).asnumpy(), net.bias.asnumpy()[None], rtol=1e-6)
    with pytest.raises(ValueError, match="does not have"):
        nn.GraphCell(graph, params_init={"nope": zero_w})
    with pytest.raises(ValueError, match="shape"):
        nn.GraphCell(graph, params_init={"weight": Tensor(np.zeros((3, 3), np.float32))})


def test_bad_input_errors(tmp_path):
    net = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="file_format"):
        ms.export(net, x, file_name=str(tmp_path / "a"), file_format="PNG")
    with pytest.raises(NotImplementedError, match="AIR is the Ascend model format"):
        ms.export(net, x, file_name=str(tmp_path / "a"), file_format="AIR")
    with pytest.raises(TypeError, match="Tensors"):
        ms.export(net, np.ones((1, 3)), file_name=str(tmp_path / "a"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))
    with pytest.raises(ValueError, match=".mindir"):
        ms.load(str(tmp_path / "model.onnx"))
    (tmp_path / "bad.mindir").write_bytes(b"\x0a\xff\xff")
    with pytest.raises(RuntimeError, match="not a valid MindIR"):
        ms.load(str(tmp_path / "bad.mindir"))
    with pytest.raises(TypeError, match="ms.load"):
        nn.GraphCell(object())
    ms.export(net, x, file_name=str(tmp_path / "d"))
    with pytest.raises(TypeError, match="takes 1 inputs"):
        nn.GraphCell(ms.load(str(tmp_path / "d.mindir")))(x, x)


def test_an_operator_without_an_export_rule_is_named(tmp_path):
    class Sorter(nn.Cell):
        def construct(self, x):
            return ops.sort(x)[0]
    with pytest.raises(NotImplementedError, match="Sort"):
        ms.export(Sorter(), Tensor(np.ones(4, np.float32)), file_name=str(tmp_path / "s"))


def test_the_wire_codec_round_trips_a_model():
    data = (DATA / "golden_lenet.mindir").read_bytes()
    model = MP.decode(data)
    again = MP.decode(MP.encode(model))
    assert [n.op_type for n in again.graph.node] == [n.op_type for n in model.graph.node]
    assert [p.raw_data for p in again.graph.parameter] == \
        [p.raw_data for p in model.graph.parameter]
    with pytest.raises(MP.DecodeError):
        MP.decode(data[:len(data) // 2])


@pytest.mark.skipif(not MS_PYTHON.exists(), reason="the reference MindSpore is not installed")
def test_mindspore_runs_spore_exports(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import sys, numpy as np, mindspore as ms\n"
        f"for kind in {_KINDS}:\n"
        "    cell = ms.nn.GraphCell(ms.load(f'{kind}.mindir'))\n"
        "    ins = np.load(f'{kind}_in.npz')\n"
        "    outs = cell(*[ms.Tensor(ins[k]) for k in sorted(ins.files)])\n"
        "    np.savez(f'{kind}_out.npz', *[o.asnumpy() for o in outs])\n")
    nets = {}
    for kind in _KINDS:
        net = nets[kind] = _model(kind)
        net.set_train(False)
        xs = _inputs(kind, seed=1)
        ms.export(net, *map(Tensor, xs), file_name=str(tmp_path / kind))
        np.savez(tmp_path / f"{kind}_in.npz", **{f"a{i}": x for i, x in enumerate(xs)})
    run = subprocess.run([str(MS_PYTHON), str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    for kind, net in nets.items():
        got = np.load(tmp_path / f"{kind}_out.npz")
        want = net(*map(Tensor, _inputs(kind, seed=1)))
        assert len(got.files) == len(want)
        for k, w in enumerate(want):
            np.testing.assert_allclose(got[f"arr_{k}"], w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_load_mindir_and_save_mindir_round_trip_the_model(tmp_path):
    model = ms.load_mindir(str(DATA / "golden_lenet.mindir"))
    assert model.producer_name == "MindSpore" and model.graph.parameter
    ms.save_mindir(model, str(tmp_path / "copy"))
    net = nn.GraphCell(ms.load(str(tmp_path / "copy.mindir")))
    x = Tensor((np.sin(np.arange(2 * 32 * 32)) * 2).reshape(2, 1, 32, 32).astype(np.float32))
    np.testing.assert_allclose(net(x).asnumpy(),
                               np.load(DATA / "golden_lenet_out.npz")["arr_0"],
                               rtol=1e-5, atol=1e-7)
    with pytest.raises(TypeError, match="must be ModelProto, but got <class 'int'>"):
        ms.save_mindir(3, str(tmp_path / "x"))
    with pytest.raises(ValueError, match="No such file"):
        ms.load_mindir(str(tmp_path / "none.mindir"))
