"""LogSoftmax and its gradient as one compiled loop per float32 row (NOTE: [Log-softmax
rows] in spore/_prims/nn/softmax.py): within the stated 2 ulp of float64 references,
row tiles on the pool give the bits of one call, PyNative and O0 the same bits, NaN and
infinities as the NumPy rows, and the NumPy rows below MIN_FAST elements, for float64,
other axes and without Numba."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, _native, ops
from spore._prims import vecmath as V
from spore._prims.nn import softmax as S

from ..test_threads import two_threads  # noqa: F401  (a fixture)
from tests.helpers.row_loops import recording

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not _native.enabled(), reason="Numba loops are off")

F32 = np.float32
ULP_BOUND = 2                        # the stated bound (the loop gives 1)


@pytest.fixture(autouse=True)
def _compiled():
    assert _native.wait(np.dtype(F32), 600) and V.usable()


def _ulps(got, ref):
    """|got - ref| for a float64 reference, in units of the last place of ref in float32."""
    with np.errstate(over="ignore"):                      # the spacing of float32's max
        return np.abs(got - ref) / np.spacing(np.abs(ref).astype(F32))


def _log_softmax64(x):
    """log_softmax in float64 without cancellation: log(s) as log1p(s - 1), the max's
    e^0 left out of the sum."""
    x64 = x.astype(np.float64)
    d = x64 - x64.max(-1, keepdims=True)
    e = np.exp(d)
    first = (d == 0).cumsum(-1).cumsum(-1) == 1              # the first max of each row
    rest = np.where(first, 0.0, e).sum(-1, keepdims=True)
    return d - np.log1p(rest)


def _recording(monkeypatch, loop):
    return recording(monkeypatch, loop, 3 if loop is S.log_softmax_grad_rows else 2)


@pytest.mark.parametrize("shape,scale", [((64, 1000), 3.0), ((8, 32000), 1.0),
                                         ((512, 10), 30.0), ((4, 8, 197, 197), 3.0)])
def test_log_softmax_runs_the_loop_within_2_ulp(shape, scale, monkeypatch, two_threads):
    x = (np.random.default_rng(1).standard_normal(shape) * scale).astype(F32)
    calls = _recording(monkeypatch, S.log_softmax_rows)
    eager = ops.log_softmax(Tensor(x), -1).asnumpy()
    assert sum(calls) == x.size
    assert _ulps(eager, _log_softmax64(x)).max() <= ULP_BOUND
    one = np.empty_like(x.reshape(-1, shape[-1]))
    S.log_softmax_rows(x.reshape(-1, shape[-1]), one)
    assert one.tobytes() == eager.tobytes()               # tiles on the pool == one call
    graph = ms.jit(lambda t: ops.log_softmax(t, -1), jit_level="O0")(Tensor(x)).asnumpy()
    assert eager.tobytes() == graph.tobytes()
    with _native.disabled():
        numpy_rows = ops.log_softmax(Tensor(x), -1).asnumpy()
    np.testing.assert_allclose(eager, numpy_rows, rtol=1e-5, atol=1e-5)


def test_a_dominant_entry_keeps_its_relative_precision():
    # one entry far above the others: its log-probability is -log(1 + tiny), which a sum
    # that rounds 1 + tiny would lose; NumPy's float32 rows give 0 or a rounded tiny
    x = np.full((4, 2048), -30.0, F32)
    x[:, 7] = 0.0
    x[1, 9] = 0.0                                          # a tie
    x[2, :100] = -10.0
    out = np.empty_like(x)
    S.log_softmax_rows(x, out)
    ref = _log_softmax64(x)
    assert _ulps(out, ref).max() <= ULP_BOUND
    assert out[0, 7] == F32(-np.log1p(2047 * np.exp(-30.0)))


def test_special_values_match_the_numpy_rows():
    big = np.finfo(F32).max
    rows = np.array([[0.0, 1.0, np.nan, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0],      # NaN: all NaN
                     [np.inf, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],      # inf: all NaN
                     [-np.inf] * 9,                                         # all -inf: NaN
                     [-np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],     # -inf: -inf
                     [big, -big, big, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],        # no overflow
                     [-1e30, -1e30 + 1e24, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30,
                      -1e30],
                     [-200.0, 0.0, -90.0, -104.0, 88.0, 5.0, -1e-3, 1e-3, 3.0]], F32)
    out = np.empty_like(rows)
    S.log_softmax_rows(rows, out)
    with np.errstate(invalid="ignore", over="ignore"):
        want = _log_softmax64(rows)
        numpy_rows = np.empty_like(rows)
        S._log_softmax_block(np, rows, numpy_rows, axis=-1)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(numpy_rows))
    np.testing.assert_array_equal(np.isneginf(out), np.isneginf(numpy_rows))
    ok = np.abs(want) <= np.finfo(F32).max                 # finite in float32
    assert _ulps(out[ok], want[ok]).max() <= ULP_BOUND
    assert out[4, 1] == -np.inf                            # -2 * max overflows float32


def test_log_softmax_grad_runs_the_loop_within_2_ulp(monkeypatch, two_threads):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((2, 8, 197, 197)) * 3).astype(F32)
    g = np.abs(rng.standard_normal(x.shape)).astype(F32)    # one sign: no cancellation
    y = ops.log_softmax(Tensor(x), -1)
    calls = _recording(monkeypatch, S.log_softmax_grad_rows)
    eager = S.log_softmax_grad_p(y, Tensor(-g), axis=-1).asnumpy()
    assert sum(calls) == x.size
    one = np.empty_like(eager.reshape(-1, 197))
    S.log_softmax_grad_rows(y.asnumpy().reshape(-1, 197), -g.reshape(-1, 197), one)
    assert one.tobytes() == eager.tobytes()
    graph = ms.jit(lambda a, b: S.log_softmax_grad_p(a, b, axis=-1),
                   jit_level="O0")(y, Tensor(-g)).asnumpy()
    assert eager.tobytes() == graph.tobytes()
    y64 = y.asnumpy().astype(np.float64)
    term = np.exp(y64) * (-g.astype(np.float64)).sum(-1, keepdims=True)
    ref = -g - term
    # 2 ulp of the result plus the float64 exp's relative error (3e-10) of the subtracted
    # term, which cancellation may expose
    assert (np.abs(eager - ref) <= ULP_BOUND * np.spacing(np.abs(ref).astype(F32))
            + 3e-10 * np.abs(term)).all()
    mixed = rng.standard_normal((64, 256)).astype(F32)          # sum ~ 0: little cancels
    y2 = ops.log_softmax(Tensor(mixed), -1).asnumpy()
    out = np.empty_like(mixed)
    S.log_softmax_grad_rows(y2, mixed, out)
    ref2 = mixed - np.exp(y2.astype(np.float64)) * mixed.astype(np.float64).sum(-1, keepdims=True)
    far = np.abs(ref2) > 1e-3 * np.abs(mixed).max()
    assert _ulps(out[far], ref2[far]).max() <= ULP_BOUND
    with _native.disabled():
        numpy_rows = S.log_softmax_grad_p(y, Tensor(-g), axis=-1).asnumpy()
    np.testing.assert_allclose(eager, numpy_rows, rtol=1e-4, atol=1e-5)


def test_cross_entropy_gradient_through_the_loops(monkeypatch):
    # ops.cross_entropy's log_softmax on (N, C) logits is the last axis: the loops serve
    # its forward and backward, PyNative and O0 alike
    rng = np.random.default_rng(4)
    logits = Tensor((rng.standard_normal((64, 1000)) * 2).astype(F32))
    labels = Tensor(rng.integers(0, 1000, 64).astype(np.int32))
    fwd = _recording(monkeypatch, S.log_softmax_rows)
    bwd = _recording(monkeypatch, S.log_softmax_grad_rows)
    f = ms.value_and_grad(lambda z: ops.cross_entropy(z, labels))
    loss, grad = f(logits)
    assert sum(fwd) == sum(bwd) == 64 * 1000
    loss_o0, grad_o0 = ms.jit(f, jit_level="O0")(logits)
    assert loss.asnumpy().tobytes() == loss_o0.asnumpy().tobytes()
    assert grad.asnumpy().tobytes() == grad_o0.asnumpy().tobytes()
    z = logits.asnumpy().astype(np.float64)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    want = p.copy()
    want[np.arange(64), labels.asnumpy()] -= 1
    np.testing.assert_allclose(grad.asnumpy(), want / 64, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("case", ["small", "float64", "axis0"])
def test_the_numpy_rows_serve_elsewhere(case, monkeypatch):
    fwd = _recording(monkeypatch, S.log_softmax_rows)
    x = np.random.default_rng(5).standard_normal((64, 63) if case == "small" else (64, 256))
    x = x.astype(np.float64 if case == "float64" else F32)
    axis = 0 if case == "axis0" else -1
    got = ops.log_softmax(Tensor(x), axis).asnumpy()
    assert fwd == []
    ref = _log_softmax64(np.moveaxis(x, axis, -1))
    np.testing.assert_allclose(np.moveaxis(got, axis, -1), ref, rtol=1e-5, atol=1e-6)
