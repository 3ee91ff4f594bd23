"""ONNX export (NOTE: [ONNX export]): the models run in ONNX Runtime with Spore's outputs."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops

ort = pytest.importorskip("onnxruntime")     # a test dependency (pyproject's `test` extra)


def _run(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session, session.run(None, feeds)


def _check(net, *xs, tmp_path, rtol=1e-5, atol=1e-6, **kwargs):
    net.set_train(False)
    want = net(*[Tensor(x) for x in xs])
    want = [w.asnumpy() for w in (want if isinstance(want, tuple) else (want,))]
    ms.onnx.export(net, *[Tensor(x) for x in xs], file_name=str(tmp_path / "m"), **kwargs)
    names = kwargs.get("input_names") or (["x"] if len(xs) == 1 else
                                          [f"x{i}" for i in range(len(xs))])
    session, got = _run(tmp_path / "m.onnx", dict(zip(names, xs)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
    return session


class Attention(nn.Cell):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm((16,))
        self.qkv = nn.Dense(16, 48)
        self.proj = nn.Dense(16, 16)
        self.mlp = nn.SequentialCell(nn.Dense(16, 32), nn.GELU(), nn.Dense(32, 16))

    def construct(self, x):
        q, k, v = ops.split(self.qkv(self.ln(x)), 16, axis=-1)
        a = ops.softmax(ops.matmul(q, k.swapaxes(-1, -2)) / 4.0, axis=-1)
        x = x + self.proj(ops.matmul(a, v))
        return x + self.mlp(self.ln(x))


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2, 2)
        self.c2 = nn.Conv2d(8, 8, 3, pad_mode="pad", padding=(1, 0, 2, 1), has_bias=True,
                            group=2, dilation=1)
        self.avg = nn.AvgPool2d(2, 2)
        self.fc = nn.Dense(8 * 4 * 3, 10)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        y = self.pool(ops.relu(self.bn(self.c1(x))))
        y = self.avg(ops.sigmoid(self.c2(y)))
        return ops.log_softmax(self.fc(self.drop(ops.flatten(y))))


def test_a_transformer_block_runs_in_onnx_runtime(tmp_path):
    x = np.random.default_rng(0).standard_normal((2, 5, 16)).astype(np.float32)
    _check(Attention(), x, tmp_path=tmp_path)


def test_a_conv_net_with_batchnorm_and_dropout_runs_in_inference_mode(tmp_path):
    net = ConvNet()
    net.bn.moving_mean.set_data(Tensor(np.linspace(-1, 1, 8).astype(np.float32)))
    net.bn.moving_variance.set_data(Tensor(np.linspace(0.5, 2, 8).astype(np.float32)))
    x = np.random.default_rng(1).standard_normal((2, 3, 16, 16)).astype(np.float32)
    net.set_train(True)
    _check(net, x, tmp_path=tmp_path)
    net.set_train(True)
    ms.onnx.export(net, Tensor(x), file_name=str(tmp_path / "again"))
    assert net.training is True                                   # the flag is restored


class Indexing(nn.Cell):
    def construct(self, x, idx):
        a = x[1:, ::2] * 2
        b = x[..., ::-1][:, 0]
        c = x[-1, None, 1:3]
        g = x[idx]
        m = ops.where(x > 0, x, x * 0.1).sum(axis=1, keepdims=True)
        n = ops.concat([a, a], axis=1).mean(axis=(0, 1))
        arg = ops.argmax(x, dim=1).astype(ms.int32)
        mx = ops.maximum(x, 0.5) - ops.minimum(x, -0.5)
        cmp = ops.logical_not(ops.not_equal(x, x)).astype(ms.float32)
        return a, b, c, g, m, n, arg, mx, cmp, ops.rsqrt(ops.square(x) + 1), x.max(axis=0)


class Lookup(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.gelu = nn.GELU(approximate=False)

    def construct(self, i, x):
        return (self.gelu(self.emb(i)), ops.broadcast_to(x[:1], (3, 4)),
                ops.clamp(x, -0.5, 0.5), ops.pad(x, (1, 2), value=0.5), ops.tile(x, (2, 1)),
                ops.logical_and(x > 0, x < 1))


def test_embedding_gelu_broadcast_pad_and_logic(tmp_path):
    i = np.array([[1, 2, 9]], np.int32)
    x = np.random.default_rng(4).standard_normal((2, 4)).astype(np.float32)
    _check(Lookup(), i, x, tmp_path=tmp_path)


def test_indexing_reductions_and_comparisons(tmp_path):
    r = np.random.default_rng(2)
    x = r.standard_normal((4, 6)).astype(np.float32)
    idx = np.array([3, 0, 3], np.int32)
    _check(Indexing(), x, idx, tmp_path=tmp_path)


class TwoIn(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.eye(3, dtype=np.float32)), name="w")
        self.mm_bt = ops.MatMul(transpose_b=True)
        self.mm_at = ops.MatMul(transpose_a=True)

    def construct(self, a, b):
        return self.mm_bt(a, self.w), self.mm_at(a.T, b)


def test_names_and_parameters_as_inputs(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 2), np.float32)
    session = _check(TwoIn(), a, b, tmp_path=tmp_path, input_names=["a", "b"],
                     output_names=["y", "z"], keep_initializers_as_inputs=True)
    assert [i.name for i in session.get_inputs()] == ["a", "b"]
    assert [i.name for i in session.get_overridable_initializers()] == ["w"]
    assert [o.name for o in session.get_outputs()] == ["y", "z"]
    ms.onnx.export(TwoIn(), Tensor(a), Tensor(b), file_name=str(tmp_path / "p.onnx"),
                   export_params=False)
    w = np.full((3, 3), 2.0, np.float32)
    _, (y, _) = _run(tmp_path / "p.onnx", {"x0": a, "x1": b, "w": w})
    np.testing.assert_allclose(y, a @ w.T)


def test_ms_export_writes_onnx_too(tmp_path):
    net = nn.SequentialCell(nn.Dense(4, 3), nn.Tanh())
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    ms.export(net, Tensor(x), file_name=str(tmp_path / "model"), file_format="ONNX")
    _, (got,) = _run(tmp_path / "model.onnx", {"x": x})
    np.testing.assert_allclose(got, net(Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)


def test_errors_name_the_problem(tmp_path):
    x = Tensor(np.ones((2, 3), np.float32))
    net = nn.Dense(3, 2)
    with pytest.raises(ValueError, match="must be a Cell"):
        ms.onnx.export(lambda t: t, x, file_name=str(tmp_path / "a"))
    with pytest.raises(ValueError, match="'input_names' must be a list"):
        ms.onnx.export(net, x, file_name=str(tmp_path / "a"), input_names="x")
    with pytest.raises(ValueError, match="'dynamic_axes' must be a dict"):
        ms.onnx.export(net, x, file_name=str(tmp_path / "a"), dynamic_axes=[0])
    with pytest.raises(NotImplementedError, match="dynamic_axes"):
        ms.onnx.export(net, x, file_name=str(tmp_path / "a"), dynamic_axes={"x": {0: "n"}})

    class Sorter(nn.Cell):
        def construct(self, t):
            return ops.sort(t)[0]
    with pytest.raises(NotImplementedError, match="'Sort'.*test_onnx_export.py"):
        ms.onnx.export(Sorter(), x, file_name=str(tmp_path / "s"))
