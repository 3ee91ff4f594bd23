"""Vectorised float32 tanh, exp and sigmoid (spore/_prims/vecmath.py, NOTE: [Vectorised
unary kernels]): within the stated 2 ulp over special values and every binade, the
bits of one call when chunked, the same bits in PyNative and O0, and the NumPy kernels
below the threshold, for other dtypes and without Numba."""
import math
import os
import subprocess
import sys
import threading
import types

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops, _native
from spore._core import threads
from spore._prims import math as M
from spore._prims import vecmath as V

from .test_threads import two_threads  # noqa: F401  (a fixture)
from tests.helpers.row_loops import recording

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not _native.enabled(), reason="Numba loops are off")

F32 = np.float32
ULP_BOUND = 2                       # the stated bound (the approximations give 1)


def _sigmoid64(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _erf64(x):
    """libm's double erf, element by element (NumPy has none)."""
    return np.frompyfunc(math.erf, 1, 1)(x).astype(np.float64)


CASES = {"tanh": (V.tanh_loop, np.tanh, ops.tanh, M.tanh_p),
         "exp": (V.exp_loop, np.exp, ops.exp, M.exp_p),
         "sigmoid": (V.sigmoid_loop, _sigmoid64, ops.sigmoid, M.sigmoid_p),
         "erf": (V.erf_loop, _erf64, ops.erf, M.erf_p)}


@pytest.fixture(autouse=True)
def _compiled(monkeypatch):
    assert _native.wait(np.dtype(F32), 600) and V.usable()
    monkeypatch.setattr(threads, "_backoff", [0, 0])


def _special_and_stratified():
    """Signed zeros, infinities, NaN, denormals, the largest floats, the edges where
    the results overflow, underflow or switch formula, and 64 random mantissas in
    every binade of both signs."""
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -1e-38,
               np.finfo(F32).tiny, np.finfo(F32).max, -np.finfo(F32).max,
               88.72283, 88.72284, 89.0, -87.33654, -103.27893, -103.97208, -104.0,
               0.0625, -0.0625, 0.06249999, 9.0, 9.01, 20.0, -20.0, 100.0, -120.0,
               1.0, -1.0, 0.5, 0.693147, 16.635532, -16.635532]
    rng = np.random.default_rng(7)
    exponent = np.repeat(np.arange(256, dtype=np.uint32), 64)
    mantissa = rng.integers(0, 1 << 23, exponent.size, dtype=np.uint32)
    bits = (exponent << 23) | mantissa
    positive = bits.view(F32)
    return np.concatenate([np.array(special, F32), positive, -positive])


def _ulps(got, want):
    """ULP distance of float32 arrays (NaN only matches NaN)."""
    def ordered(a):
        b = a.view(np.int32).astype(np.int64)
        return np.where(b >= 0, b, -(b & 0x7FFFFFFF))
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    assert np.array_equal(nan_got, nan_want)
    d = np.abs(ordered(got) - ordered(want))
    d[nan_got] = 0
    return d


@pytest.mark.parametrize("name", CASES)
def test_within_the_stated_ulps_of_the_correctly_rounded_value(name):
    loop, ref64, _, _ = CASES[name]
    x = _special_and_stratified()
    got = V.run(loop, x)
    with np.errstate(all="ignore"):
        want = ref64(x.astype(np.float64)).astype(F32)
    d = _ulps(got, want)
    worst = int(np.argmax(d))
    assert d.max() <= ULP_BOUND, f"{name}({x[worst]!r}) = {got[worst]!r}, want {want[worst]!r}"
    # exact where the value is exactly representable
    assert got[0] == want[0] and np.signbit(got[1]) == np.signbit(want[1])


@pytest.mark.parametrize("name", CASES)
def test_chunks_and_single_elements_give_the_bits_of_one_call(two_threads, name):
    loop = CASES[name][0]
    n = 3 * V.MIN_SPLIT + 123                      # several chunks and a ragged tail
    x = (np.random.default_rng(1).standard_normal(n) * 6).astype(F32)
    x[::1001] = np.nan
    whole = np.empty_like(x)
    loop(x, whole)                                 # one call on one thread
    seen = set()
    real = loop

    def recording(src, dst):
        seen.add(threading.get_ident())
        real(src, dst)
    chunked = V.run(recording, x)
    assert chunked.tobytes() == whole.tobytes()
    assert len(seen) >= 1
    inplace = x.copy()                             # NOTE: [In-place loops]
    assert V.run(loop, inplace, inplace) is inplace
    assert inplace.tobytes() == whole.tobytes()
    # an element alone (the loop's scalar tail) gives what the vector body gave
    idx = np.arange(0, n, 997)
    alone = np.empty(1, F32)
    for i in idx:
        loop(x[i:i + 1], alone)
        assert alone.tobytes() == whole[i:i + 1].tobytes()


@pytest.mark.parametrize("name", CASES)
def test_pynative_and_O0_give_the_same_bits(name):
    loop, _, op, _ = CASES[name]
    x = (np.random.default_rng(2).standard_normal((512, 600)) * 4).astype(F32)
    eager = op(Tensor(x)).asnumpy()
    graph = ms.jit(lambda t: op(t) * 1.0, jit_level="O0")(Tensor(x)).asnumpy()
    assert eager.tobytes() == graph.tobytes() == V.run(loop, x).tobytes()


def test_tanh_of_a_large_array_differs_from_numpy_only_by_rounding():
    x = (np.random.default_rng(3).standard_normal(1 << 20) * 3).astype(F32)
    got = ops.tanh(Tensor(x)).asnumpy()
    assert got.tobytes() == V.run(V.tanh_loop, x).tobytes()
    assert _ulps(got, np.tanh(x)).max() <= 2 * ULP_BOUND


def test_gradients_use_the_vectorised_outputs():
    x = Tensor((np.random.default_rng(4).standard_normal((64, 128))).astype(F32))
    y, g = ms.value_and_grad(lambda t: ops.tanh(t).sum())(x)
    t = V.run(V.tanh_loop, x.asnumpy())
    np.testing.assert_array_equal(g.asnumpy(), 1 * (1 - t * t))


@pytest.mark.parametrize("name", CASES)
def test_numpy_kernels_below_the_threshold_for_other_dtypes_and_when_off(name, monkeypatch):
    loop, _, op, prim = CASES[name]
    numpy_kernel = prim._cpu
    small = np.linspace(-5, 5, V.MIN_SIZE[loop] - 1, dtype=F32)
    assert op(Tensor(small)).asnumpy().tobytes() == numpy_kernel(small).tobytes()
    wide = np.linspace(-5, 5, 2 * V.MIN_SIZE[loop], dtype=np.float64)
    assert op(Tensor(wide)).asnumpy().tobytes() == numpy_kernel(wide).tobytes()
    large = np.linspace(-5, 5, 2 * V.MIN_SIZE[loop], dtype=F32)
    assert prim.specializer({}, [types.SimpleNamespace(shape=small.shape, dtype=F32)]) is None
    assert prim.specializer({}, [types.SimpleNamespace(shape=large.shape, dtype=F32)]) \
        is prim.par_kernel
    with _native.disabled():
        eager = op(Tensor(large)).asnumpy()
        graph = ms.jit(lambda t: op(t) * 1.0, jit_level="O0")(Tensor(large)).asnumpy()
    assert eager.tobytes() == graph.tobytes() == numpy_kernel(large).tobytes()


def test_one_thread_runs_the_loop_on_the_caller(monkeypatch):
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")
    x = np.linspace(-9, 9, 2 * V.MIN_SPLIT + 5, dtype=F32)
    seen = set()

    def recording(src, dst):
        seen.add(threading.get_ident())
        V.tanh_loop(src, dst)
    got = V.run(recording, x)
    assert seen == {threading.get_ident()}
    whole = np.empty_like(x)
    V.tanh_loop(x, whole)
    assert got.tobytes() == whole.tobytes()


def test_out_buffers_and_layouts():
    x = (np.random.default_rng(5).standard_normal((300, 64)) * 2).astype(F32)
    want = V.run(V.tanh_loop, x)
    out = np.empty_like(x)
    assert V.run(V.tanh_loop, x, out) is out and out.tobytes() == want.tobytes()
    same = x.copy()
    V.run(V.tanh_loop, same, same)                   # in place (a reused buffer in O0)
    assert same.tobytes() == want.tobytes()
    strided = np.empty((300, 128), F32)[:, ::2]
    V.run(V.tanh_loop, x, strided)
    assert np.ascontiguousarray(strided).tobytes() == want.tobytes()
    xt = np.ascontiguousarray(x.T).T                 # a transposed view
    assert V.run(V.tanh_loop, xt).tobytes() == want.tobytes()
    assert ops.tanh(Tensor(xt)).asnumpy().tobytes() == want.tobytes()


def test_nothing_changes_without_numba():
    stand_in = types.SimpleNamespace(par_min=7, par_kernel=None, specializer=None)
    real = _native._installed
    try:
        _native._installed = False
        assert V.install(stand_in, V.tanh_loop) is stand_in
    finally:
        _native._installed = real
    assert stand_in.par_min == 7 and stand_in.par_kernel is None
    code = ("import sys; sys.modules['numba'] = None\n"
            "from spore._prims import math as M\nfrom spore._core import threads as T\n"
            "assert M.tanh_p.par_kernel is None and M.tanh_p.specializer is None\n"
            "assert M.tanh_p.par_min == T.MIN_COSTLY\n"
            "assert M.sigmoid_p.par_min == M.erf_p.par_min == T.MIN_COMPOSITE\n"
            "assert M.erf_p.par_kernel is None\nprint('ok')")
    env = dict(os.environ, SPORE_NATIVE="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


def test_a_fused_numpy_tile_loop_gives_the_bits_of_pynative():
    # atan has no Numba form, so O1 runs this group tile by tile with the primitives'
    # kernels: the vectorised tanh serves every tile, the short last one included
    from spore._jit import fusion
    x = np.linspace(-4, 4, 3 * fusion.TILE + 5, dtype=F32)

    def f(t):
        return ops.tanh(ops.atan(t) * 3.0) * 2.0
    eager = f(Tensor(x)).asnumpy()
    o0 = ms.jit(f, jit_level="O0")(Tensor(x)).asnumpy()
    o1 = ms.jit(f, jit_level="O1")(Tensor(x)).asnumpy()
    assert eager.tobytes() == o0.tobytes() == o1.tobytes()
    want = V.run(V.tanh_loop, np.arctan(x) * F32(3.0)) * F32(2.0)
    assert eager.tobytes() == want.tobytes()


def _ulps64(got, ref):
    """|got - ref| for a float64 reference, in units of the last place of ref rounded
    to float32 (the softmaxes' bound counts the double rounding)."""
    return np.abs(got - ref) / np.spacing(np.abs(ref).astype(F32))


def _softmax64(x):
    x64 = x.astype(np.float64)
    ref = np.exp(x64 - x64.max(-1, keepdims=True))
    return ref / ref.sum(-1, keepdims=True)


def _recording(monkeypatch, loop):
    return recording(monkeypatch, loop, 3 if loop is V.softmax_grad_rows else 2)


def _tiles_on_the_pool(monkeypatch):
    """Row tiles shared with the pool on every call, never backing off from it (then a
    call runs as one loop call over every row: ``threads.for_each``'s ``whole``)."""
    monkeypatch.setattr(threads, "_cpus", lambda: 2)
    monkeypatch.setenv("SPORE_NUM_THREADS", "2")
    monkeypatch.setattr(threads, "_use_pool", threads.pool)


def test_softmax_rows_run_the_fused_loop_within_2_ulp(monkeypatch):
    # NOTE: [Softmax rows]: every row tile of a large float32 softmax is one loop call;
    # PyNative and O0 give the same bits; within 2 ulp of the exact softmax of the input
    x = (np.random.default_rng(6).standard_normal((4, 8, 197, 197)) * 3).astype(F32)
    _tiles_on_the_pool(monkeypatch)
    calls = _recording(monkeypatch, V.softmax_rows)
    eager = ops.softmax(Tensor(x), -1).asnumpy()
    assert sum(calls) == x.size and len(calls) > 1
    graph = ms.jit(lambda t: ops.softmax(t, -1), jit_level="O0")(Tensor(x)).asnumpy()
    assert eager.tobytes() == graph.tobytes()
    assert _ulps64(eager, _softmax64(x)).max() <= ULP_BOUND
    with _native.disabled():
        numpy_rows = ops.softmax(Tensor(x), -1).asnumpy()
    np.testing.assert_allclose(eager, numpy_rows, rtol=1e-6, atol=1e-12)


def test_softmax_rows_special_values_and_extremes():
    big = np.finfo(F32).max
    rows = np.array([[0.0, 1.0, np.nan, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0],      # NaN: all NaN
                     [np.inf, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],      # inf: all NaN
                     [-np.inf] * 9,                                         # all -inf: NaN
                     [-np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],     # -inf: 0
                     [big, -big, big, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],        # no overflow
                     [-1e30, -1e30 + 1e24, -1e30, -1e30, -1e30, -1e30, -1e30, -1e30,
                      -1e30],                                               # no underflow
                     [-200.0, 0.0, -90.0, -104.0, 88.0, 5.0, -1e-3, 1e-3, 3.0]], F32)
    out = np.empty_like(rows)
    V.softmax_rows(rows, out)
    with np.errstate(invalid="ignore"):
        want = _softmax64(rows)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    ok = ~np.isnan(want)
    assert _ulps64(out[ok], want[ok]).max() <= ULP_BOUND
    one = np.empty_like(rows[:1])
    V.softmax_rows(rows[4:5].copy(), one)
    np.testing.assert_array_equal(one, out[4:5])         # rows are independent


def test_softmax_grad_rows_fused_and_correctly_rounded(monkeypatch, two_threads):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((2, 8, 197, 197)) * 3).astype(F32)
    g = rng.standard_normal(x.shape).astype(F32)
    _tiles_on_the_pool(monkeypatch)
    calls = _recording(monkeypatch, V.softmax_grad_rows)
    y = ops.softmax(Tensor(x), -1)
    from spore._prims.nn import softmax as S
    eager = S.softmax_grad_p(y, Tensor(g), axis=-1).asnumpy()
    assert sum(calls) == x.size and len(calls) > 1
    one = np.empty_like(eager.reshape(-1, 197))
    V.softmax_grad_rows(y.asnumpy().reshape(-1, 197), g.reshape(-1, 197), one)
    assert one.tobytes() == eager.tobytes()              # tiles on the pool == one call
    graph = ms.jit(lambda a, b: S.softmax_grad_p(a, b, axis=-1),
                   jit_level="O0")(y, Tensor(g)).asnumpy()
    assert eager.tobytes() == graph.tobytes()
    y64 = y.asnumpy().astype(np.float64)
    ref = y64 * (g - (g * y64).sum(-1, keepdims=True))
    assert _ulps64(eager, ref).max() <= 0.5 + 1e-6
    with _native.disabled():
        numpy_rows = S.softmax_grad_p(y, Tensor(g), axis=-1).asnumpy()
    np.testing.assert_allclose(eager, numpy_rows, rtol=1e-4, atol=1e-7)


def test_small_and_other_softmaxes_keep_the_numpy_blocks(monkeypatch):
    # below MIN_FAST elements (a small softmax must not import Numba), float64, and
    # an axis other than the last take the NumPy blocks
    calls = _recording(monkeypatch, V.softmax_rows)
    rng = np.random.default_rng(9)
    small = rng.standard_normal((4, 100)).astype(F32)
    ops.softmax(Tensor(small), -1)
    ops.softmax(Tensor(rng.standard_normal((64, 197))), -1)
    ops.softmax(Tensor(rng.standard_normal((197, 64)).astype(F32)), 0)
    assert calls == []
    with _native.disabled():
        big = rng.standard_normal((64, 197)).astype(F32)
        ops.softmax(Tensor(big), -1)
    assert calls == []


def test_the_cached_loops_compute_approx_py_as_it_is_now():
    # Numba's disk cache keys the loops on vecmath.py alone: after an edit of approx.py
    # a stale cache would keep the old approximations (touch vecmath.py then)
    import numba
    approx = _native.approximations()
    x = _special_and_stratified()
    for name, f in (("tanh", approx.tanh_f32), ("exp", approx.exp_f32),
                    ("sigmoid", approx.sigmoid_f32), ("erf", approx.erf_f32)):
        def loop(src, dst):
            for i in range(src.size):
                dst[i] = f(src[i])
        fresh = np.empty_like(x)
        numba.njit(cache=False, error_model="numpy")(loop)(x, fresh)
        assert V.run(CASES[name][0], x).tobytes() == fresh.tobytes(), name


def _layer_norm64(x, g, b, dy, eps=1e-5):
    x64 = x.astype(np.float64)
    mu = x64.mean(-1, keepdims=True)
    rs = 1 / np.sqrt(((x64 - mu) ** 2).mean(-1, keepdims=True) + eps)
    xh = (x64 - mu) * rs
    d = dy * g.astype(np.float64)
    dx = (d - xh * (d * xh).mean(-1, keepdims=True) - d.mean(-1, keepdims=True)) * rs
    return xh * g + b, dx, (dy * xh).sum((0, 1)), dy.astype(np.float64).sum((0, 1))


def _layer_norm_case(seed=10, shape=(8, 197, 256)):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2 + 1).astype(F32)
    g, b = (rng.standard_normal(shape[-1:]).astype(F32) for _ in range(2))
    return x, g, b, rng.standard_normal(shape).astype(F32)


def test_layer_norm_rows_fused_and_within_bounds():
    # NOTE: [Layer norm rows]: the loops serve a large float32 LayerNorm and its gradient,
    # closer to the float64 formula than the NumPy path, and PyNative == O0 bits
    from spore._prims.nn import norm as N
    x, g, b, dy = _layer_norm_case()
    y, _, _ = N.layer_norm_p(Tensor(x), Tensor(g), Tensor(b), axis=2, eps=1e-5)
    dx, dg, db = N.layer_norm_grad_p(Tensor(x), Tensor(dy), Tensor(g), axis=2, eps=1e-5)
    assert V.layer_norm_rows._compiled is not None and V.layer_norm_grad_rows._compiled is not None
    y64, dx64, dg64, db64 = _layer_norm64(x, g, b, dy)
    assert _ulps64(y.asnumpy(), y64).max() <= ULP_BOUND
    np.testing.assert_allclose(dx.asnumpy(), dx64, rtol=0, atol=2e-6 * np.abs(dx64).max())
    np.testing.assert_allclose(dg.asnumpy(), dg64, rtol=1e-6, atol=1e-6 * np.abs(dg64).max())
    np.testing.assert_allclose(db.asnumpy(), db64, rtol=1e-6, atol=1e-6 * np.abs(db64).max())
    graph = ms.jit(lambda *a: N.layer_norm_grad_p(*a, axis=2, eps=1e-5), jit_level="O0")(
        Tensor(x), Tensor(dy), Tensor(g))
    for e, o in zip((dx, dg, db), graph):
        assert e.asnumpy().tobytes() == o.asnumpy().tobytes()
    with _native.disabled():
        y0 = N.layer_norm_p(Tensor(x), Tensor(g), Tensor(b), axis=2, eps=1e-5)[0].asnumpy()
        dx0 = N.layer_norm_grad_p(Tensor(x), Tensor(dy), Tensor(g), axis=2, eps=1e-5)[0]
    np.testing.assert_allclose(y.asnumpy(), y0, rtol=0, atol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), dx0.asnumpy(), rtol=0, atol=1e-5)


def test_layer_norm_rows_bits_do_not_depend_on_threads(monkeypatch):
    from spore._prims.nn import norm as N
    x, g, b, dy = _layer_norm_case(11, (4, 300, 96))
    runs = []
    for n in ("1", "2"):
        monkeypatch.setenv("SPORE_NUM_THREADS", n)
        monkeypatch.setattr(threads, "_cpus", lambda: 2)
        outs = N.layer_norm_p(Tensor(x), Tensor(g), Tensor(b), axis=2, eps=1e-5) \
            + N.layer_norm_grad_p(Tensor(x), Tensor(dy), Tensor(g), axis=2, eps=1e-5)
        runs.append(b"".join(o.asnumpy().tobytes() for o in outs))
    assert runs[0] == runs[1]
    one = np.empty((1200, 96), F32)
    V.layer_norm_rows(x.reshape(-1, 96), g, b, True, 1e-5, one, np.empty(1200, F32),
                      np.empty(1200, F32))
    assert one.tobytes() == N.layer_norm_p(Tensor(x), Tensor(g), Tensor(b), axis=2,
                                           eps=1e-5)[0].asnumpy().tobytes()


def test_small_float64_and_no_affine_layer_norms():
    from spore._prims.nn import norm as N
    x, g, b, dy = _layer_norm_case(12, (4, 8, 256))
    y, _, _ = N.layer_norm_p(Tensor(x), axis=2, eps=1e-5)      # no gamma/beta: the loops
    y64 = _layer_norm64(x, np.ones(256, F32), np.zeros(256, F32), dy)[0]
    assert _ulps64(y.asnumpy(), y64).max() <= ULP_BOUND
    (dx,) = N.layer_norm_grad_p(Tensor(x), Tensor(dy), axis=2, eps=1e-5)
    dx64 = _layer_norm64(x, np.ones(256, F32), np.zeros(256, F32), dy)[1]
    np.testing.assert_allclose(dx.asnumpy(), dx64, rtol=0, atol=2e-6 * np.abs(dx64).max())
    for case in (x[:1, :4], x.astype(np.float64)):              # small, float64: NumPy
        with _native.disabled():
            want = N.layer_norm_p(Tensor(case), axis=2, eps=1e-5)[0].asnumpy()
        got = N.layer_norm_p(Tensor(case), axis=2, eps=1e-5)[0].asnumpy()
        assert got.tobytes() == want.tobytes()


def test_gelu_runs_the_vectorised_erf_in_both_modes():
    x = (np.random.default_rng(13).standard_normal((256, 512)) * 3).astype(F32)
    eager = ops.gelu(Tensor(x)).asnumpy()
    graph = ms.jit(lambda t: ops.gelu(t), jit_level="O0")(Tensor(x)).asnumpy()
    assert eager.tobytes() == graph.tobytes()
    scaled = x * F32(1 / math.sqrt(2.0))
    want = x * F32(0.5) * (V.run(V.erf_loop, scaled) + F32(1.0))
    assert eager.tobytes() == want.tobytes()
    g = ms.grad(lambda t: ops.gelu(t).sum())(Tensor(x)).asnumpy()
    x64 = x.astype(np.float64)
    g64 = 0.5 * (1 + _erf64(x64 / math.sqrt(2))) + x64 * np.exp(-x64 * x64 / 2) / math.sqrt(
        2 * math.pi)
    np.testing.assert_allclose(g, g64, rtol=1e-5, atol=1e-6)


def test_w1a_sized_tanh_runs_the_loop_in_both_modes_with_the_same_bits():
    # the 1,024-element tanh after W1a's 32x32 matmul: the vectorised loop in PyNative
    # and in O0 (the same kernel for the same size), never NumPy's scalar-libm ufunc
    assert V.MIN_SIZE[V.tanh_loop] <= 1024
    rng = np.random.default_rng(12)
    z, y = (Tensor(rng.standard_normal((32, 32)).astype(F32) * 0.2) for _ in range(2))

    def step(z, y):
        return ops.tanh(ops.matmul(z, y))
    eager = step(z, y).asnumpy()
    graph = ms.jit(step, jit_level="O0")(z, y).asnumpy()
    want = V.run(V.tanh_loop, np.matmul(z.asnumpy(), y.asnumpy()))
    assert eager.tobytes() == graph.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [1, 7, 1024, 1025])
def test_the_short_path_handles_out_buffers_in_place_and_apart(n):
    x = np.linspace(-3, 3, n, dtype=F32).reshape(1, n)
    want = np.empty_like(x)
    V.tanh_loop(x.reshape(-1), want.reshape(-1))
    assert V.run(V.tanh_loop, x).tobytes() == want.tobytes()
    out = np.empty_like(x)
    assert V.run(V.tanh_loop, x, out) is out and out.tobytes() == want.tobytes()
    y = x.copy()
    assert V.run(V.tanh_loop, y, y) is y and y.tobytes() == want.tobytes()
    view = x.copy()
    assert V.run(V.tanh_loop, view, view.reshape(n)).tobytes() == want.reshape(n).tobytes()
    assert view.tobytes() == want.tobytes()                 # another view of the input
    strided = np.linspace(-3, 3, 2 * n, dtype=F32)[::2]
    assert V.run(V.tanh_loop, strided).tobytes() == V.run(V.tanh_loop, strided.copy()).tobytes()
