"""The compiled loops (spore._native, NOTE: [Native loops]) against the NumPy paths.

Every case runs the kernel twice, once with the compiled loops and once inside
``_native.disabled()``. Layout loops (pooling, im2col, crops) must give the same
bits (``array_equal``); the direct convolution loops (NOTE: [Direct
convolution]) sum in another order than the GEMM, so they must agree to
rounding, with NaN and infinities in the same places. The NumPy paths
themselves are checked against references in test_conv_pool.py.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore import _native, ops
from spore._prims.nn import _loops, conv, pool

numba = pytest.importorskip("numba", reason="the compiled loops need the 'fast' extra")

FLOATS = [np.float32, np.float64]


def both_paths(fn):
    """(compiled, NumPy) results of ``fn()``."""
    assert _native.enabled(), "numba is installed, so the compiled paths must be on"
    compiled = fn()
    with _native.disabled():
        assert not _native.enabled()
        plain = fn()
    assert _native.enabled()
    return compiled, plain


def assert_same(a, b, signed_zeros=True):
    """Equal values, NaN in the same places and (unless told) the same signed zeros."""
    a, b = (a if isinstance(a, tuple) else (a,)), (b if isinstance(b, tuple) else (b,))
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)
        if signed_zeros and x.dtype.kind == "f":
            zeros = x == 0
            assert np.array_equal(np.signbit(x[zeros]), np.signbit(y[zeros]))


def assert_rounding_close(a, b):
    """Equal to rounding (the direct loops' sums run in another order than the GEMM's),
    with NaN in the same places and infinities equal."""
    assert a.dtype == b.dtype and a.shape == b.shape
    tol = 2e-5 if a.dtype == np.float32 else 1e-12
    finite = np.isfinite(b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.array_equal(a[np.isinf(b)], b[np.isinf(b)])
    scale = np.abs(b[finite]).max(initial=1.0)
    np.testing.assert_allclose(a[finite], b[finite], rtol=tol, atol=tol * scale)


# ----------------------------------------------------------------- pooling
MAX = dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1))


def special_values(shape, dtype, rng):
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::7] = 0.0
    flat[1::11] = -0.0
    flat[2::13] = np.nan
    flat[3::17] = -np.inf
    flat[4::19] = np.inf
    flat[5::23] = flat[6::23]                       # ties inside windows
    return x


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (1, 2, 7, 9), (3, 1, 2, 2), (2, 2, 5, 4),
                                   (32, 6, 28, 28)])
def test_max_pool_2x2_matches_taps_path(shape, dtype):
    rng = np.random.default_rng(0)
    x = special_values(shape, dtype, rng)
    fwd = pool._make_max_pool(np)
    (y, won), (y0, won0) = both_paths(lambda: fwd(x, **MAX))
    # which zero np.maximum(0.0, -0.0) returns depends on NumPy's SIMD path, so the
    # taps path has no fixed answer for the sign of a tied zero maximum
    assert_same((y, won), (y0, won0), signed_zeros=False)
    assert won.dtype == np.int8
    dy = rng.standard_normal(y.shape).astype(dtype)
    dy.reshape(-1)[::5] = np.nan
    scatter = pool._make_max_scatter(np)
    dx, dx0 = both_paths(lambda: scatter(dy, won, input_shape=shape, **MAX))
    assert_same(dx, dx0)


def test_max_pool_2x2_first_maximum_and_nan():
    x = np.array([[[[1, 3, 2, 2],
                    [3, 0, 2, 2],
                    [np.nan, 5, -np.inf, -np.inf],
                    [9, 9, -np.inf, -np.inf]]]], np.float32)
    y, won = pool._make_max_pool(np)(x, **MAX)
    np.testing.assert_array_equal(y[0, 0], [[3, 2], [np.nan, -np.inf]])
    np.testing.assert_array_equal(won[0, 0], [[1, 0], [3, 0]])
    dx = pool._make_max_scatter(np)(np.ones((1, 1, 2, 2), np.float32), won,
                                    input_shape=x.shape, **MAX)
    np.testing.assert_array_equal(dx[0, 0], [[0, 1, 1, 0], [0, 0, 0, 0],
                                             [0, 0, 1, 0], [0, 1, 0, 0]])


def test_max_pool_other_geometries_and_dtypes_take_the_taps_path(monkeypatch):
    def fail(*args):
        raise AssertionError("the compiled loop must not run here")
    monkeypatch.setattr(_loops, "max_pool_2x2", fail)
    monkeypatch.setattr(_loops, "max_scatter_2x2", fail)
    x = np.arange(2 * 2 * 6 * 6, dtype=np.float32).reshape(2, 2, 6, 6)
    fwd = pool._make_max_pool(np)
    for attrs in (dict(MAX, kernel=(3, 3), stride=(3, 3)), dict(MAX, stride=(1, 1)),
                  dict(MAX, pads=(1, 1, 1, 1)), dict(MAX, dilation=(2, 2))):
        fwd(x, **attrs)
    fwd(x.astype(np.int32), **MAX)
    pool._make_max_scatter(np)(np.ones((2, 2, 3, 3), np.float16), np.zeros((2, 2, 3, 3), np.int8),
                               input_shape=x.shape, **MAX)     # half gradients: taps path


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_max_pool_layer_forward_and_gradient_agree_across_paths(dtype):
    net = ms.nn.MaxPool2d(kernel_size=2, stride=2)
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 3, 10, 9)).astype(dtype))
    grad = ms.grad(lambda t: (net(t) * net(t)).sum())
    (y, g), (y0, g0) = both_paths(lambda: (net(x).asnumpy(), grad(x).asnumpy()))
    assert_same(y, y0)
    assert_same(g, g0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_conv_epilogue_kernels_agree_across_paths(dtype):
    """Conv2DReLU and MaxPoolScatterReluGrad (NOTE: [Conv epilogues]; more in tests/jit/
    test_conv_epilogue.py): the compiled loops give the NumPy paths' bits."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 2, 9, 8)).astype(dtype)
    w, b = rng.standard_normal((4, 2, 3, 3)).astype(dtype), rng.standard_normal(4).astype(dtype)
    geo = dict(stride=(1, 1), pads=(1, 1, 0, 0), dilation=(1, 1), groups=1)
    for args in ((x, w, b), (x, w)):
        got, want = both_paths(lambda: conv.conv2d_relu_p._cpu(*args, **geo))
        assert_rounding_close(got, want)
        assert not np.signbit(got).any()             # ReLU: no -0.0, nothing negative
    y = np.maximum(x, 0)
    attrs = dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1))
    _, won = pool.max_pool2d_p._cpu(y, **attrs)
    dy = rng.standard_normal(won.shape).astype(dtype)
    got, want = both_paths(lambda: pool.max_pool_scatter_relu_grad_p._cpu(
        dy, won, y, input_shape=y.shape, **attrs))
    assert_same(got, want)


# ----------------------------------------------------------------- convolution
CONV_CASES = [
    # x shape, w shape, stride, pads, dilation, groups
    ((32, 1, 32, 32), (6, 1, 5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1),      # LeNet conv1
    ((32, 6, 14, 14), (16, 6, 5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1),     # LeNet conv2
    ((3, 4, 9, 7), (5, 4, 3, 2), (1, 1), (1, 2, 0, 1), (1, 1), 1),         # padded
    ((3, 4, 9, 7), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),         # grouped
    ((3, 4, 9, 7), (5, 4, 3, 2), (2, 1), (1, 2, 0, 1), (1, 1), 1),         # strided
    ((2, 3, 9, 9), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (2, 2), 1),         # dilated
    ((2, 3, 6, 5), (4, 3, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),         # 1x1
    ((4, 8, 12, 12), (16, 8, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),      # one-GEMM grad
    ((2, 3, 20, 30), (5, 3, 3, 4), (1, 1), (1, 0, 2, 1), (1, 1), 1),       # direct, per sample
    ((1, 2, 6, 5), (3, 2, 2, 2), (1, 1), (0, 0, 0, 0), (1, 1), 1),         # direct, batch of 1
    ((3, 2, 4, 4), (80, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),        # GEMM (80 outputs)
    ((2, 20, 6, 6), (4, 20, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),       # GEMM (180 taps)
]


def direct_parts(case):
    """Which of (forward, filter gradient) take the direct loops for a CONV_CASES case."""
    xs, ws, stride, pads, dilation, groups = case
    return tuple(conv._direct(np, np.dtype(np.float32), ws, stride, dilation, groups, 1, limit)
                 for limit in (conv.DIRECT_FORWARD_CHANNELS, conv.DIRECT_FILTER_GRAD_CHANNELS))


def test_direct_convolution_covers_lenet_and_not_wide_layers():
    assert direct_parts(CONV_CASES[0]) == (True, True)       # LeNet conv1: 25 taps, 6 outputs
    assert direct_parts(CONV_CASES[1]) == (True, True)       # LeNet conv2: 150 taps, 16 outputs
    assert direct_parts(CONV_CASES[-2]) == (False, False)    # 80 output channels
    assert direct_parts(CONV_CASES[-1]) == (False, False)    # 180 taps
    for case in CONV_CASES[3:7]:                             # grouped, strided, dilated, 1x1
        assert direct_parts(case) == (False, False)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", CONV_CASES, ids=[str(c[0]) + str(c[2:]) for c in CONV_CASES])
def test_conv_kernels_match_numpy_path(case, dtype):
    xs, ws, stride, pads, dilation, groups = case
    rng = np.random.default_rng(2)
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    b = rng.standard_normal(ws[0]).astype(dtype)
    g = dict(stride=stride, pads=pads, dilation=dilation, groups=groups)
    fwd, dgrad, wgrad = conv._make_conv2d(np), conv._make_input_grad(np), conv._make_filter_grad(np)
    forward_direct, filter_direct = direct_parts(case)
    check_forward = assert_rounding_close if forward_direct else assert_same
    y, y0 = both_paths(lambda: fwd(x, w, b, **g))
    check_forward(y, y0)
    check_forward(*both_paths(lambda: fwd(x, w, **g)))
    dy = rng.standard_normal(y.shape).astype(dtype)
    assert_same(*both_paths(lambda: dgrad(dy, w, input_shape=xs, **g)))
    (assert_rounding_close if filter_direct else assert_same)(
        *both_paths(lambda: wgrad(x, dy, filter_shape=ws, **g)))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")    # NumPy path on NaN
@pytest.mark.parametrize("layout", ["per sample", "batch inner"])
def test_direct_convolution_runs_its_loops_and_propagates_nan_and_inf(layout, monkeypatch):
    calls = []
    for name in ("correlate_rows", "correlate_rows_filter_grad", "batch_inner_rows"):
        loop = getattr(_loops, name)
        monkeypatch.setattr(_loops, name, lambda *a, _loop=loop, _n=name: (calls.append(_n),
                                                                            _loop(*a))[1])
    n, hw = (3, (6, 7)) if layout == "batch inner" else (2, (24, 40))
    rng = np.random.default_rng(7)
    x = rng.standard_normal((n, 2) + hw).astype(np.float32)
    x[0, 1, 2, 3], x[1, 0, 4, 4], x[-1, 0, 0, 0] = np.nan, np.inf, -np.inf
    w = rng.standard_normal((5, 2, 3, 3)).astype(np.float32)            # odd channel count
    g = dict(stride=(1, 1), pads=(1, 0, 2, 1), dilation=(1, 1), groups=1)
    fwd, wgrad = conv._make_conv2d(np), conv._make_filter_grad(np)
    y, y0 = both_paths(lambda: fwd(x, w, **g))
    assert np.isnan(y).any() and np.isinf(y).any()
    assert_rounding_close(y, y0)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    dy[0, 0, 1, 1] = np.inf
    assert_rounding_close(*both_paths(lambda: wgrad(x, dy, filter_shape=w.shape, **g)))
    assert {"correlate_rows", "correlate_rows_filter_grad"} <= set(calls)
    assert ("batch_inner_rows" in calls) == (layout == "batch inner")


def test_direct_convolution_matches_a_float64_reference():
    """The direct loops against an independent sum over taps, in float64."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 2, 7, 6))
    w = rng.standard_normal((3, 2, 3, 2))
    b = rng.standard_normal(3)
    y = conv._make_conv2d(np)(x, w, b, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1),
                              groups=1)
    ref = np.zeros((3, 3, 5, 5)) + b[:, None, None]
    for i in range(3):
        for j in range(2):
            ref += np.einsum("nchw,oc->nohw", x[:, :, i:i + 5, j:j + 5], w[:, :, i, j])
    np.testing.assert_allclose(y, ref, rtol=1e-13, atol=1e-13)
    dy = rng.standard_normal(y.shape)
    dw = conv._make_filter_grad(np)(x, dy, filter_shape=w.shape, stride=(1, 1),
                                    pads=(0, 0, 0, 0), dilation=(1, 1), groups=1)
    ref_dw = np.stack([np.einsum("nohw,nchw->oc", dy, x[:, :, i:i + 5, j:j + 5])
                       for i in range(3) for j in range(2)], -1).reshape(w.shape)
    np.testing.assert_allclose(dw, ref_dw, rtol=1e-13, atol=1e-13)


def test_conv_layer_training_gradients_agree_across_paths():
    ms.set_seed(3)
    net = ms.nn.SequentialCell(ms.nn.Conv2d(1, 4, 3, pad_mode="valid", has_bias=True),
                               ms.nn.ReLU(), ms.nn.MaxPool2d(2, 2),
                               ms.nn.Conv2d(4, 8, 3, pad_mode="pad", padding=1))
    x = ms.Tensor(np.random.default_rng(4).standard_normal((5, 1, 12, 12)).astype(np.float32))
    grad = ms.value_and_grad(lambda t: ops.square(net(t)).mean(), None, net.trainable_params())

    def run():
        loss, grads = grad(x)
        return (loss.asnumpy(),) + tuple(g.asnumpy() for g in grads)
    compiled, plain = both_paths(run)
    for a, b in zip(compiled, plain):                        # both layers run direct loops
        assert_rounding_close(a, b)


# ----------------------------------------------------------------- the loops themselves
def test_loops_as_plain_python_give_the_compiled_results():
    """The loop bodies are ordinary Python: run uncompiled, they agree with Numba's."""
    rng = np.random.default_rng(5)
    x = special_values((2, 2, 4, 6), np.float32, rng)
    y, won = np.empty((2, 2, 2, 3), np.float32), np.empty((2, 2, 2, 3), np.int8)
    y1, won1 = np.empty_like(y), np.empty_like(won)
    _loops.max_pool_2x2(x.reshape(-1), 4, 6, y.reshape(-1), won.reshape(-1))
    _loops.max_pool_2x2.py_func(x.reshape(-1), 4, 6, y1.reshape(-1), won1.reshape(-1))
    assert_same((y, won), (y1, won1), signed_zeros=False)
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    cols = np.empty((2, 27, 3 * 7 + 5), np.float32)
    cols1 = np.empty_like(cols)
    _loops.im2col_rows(x, 3, 3, False, cols)
    _loops.im2col_rows.py_func(x, 3, 3, False, cols1)
    assert_same(cols, cols1)
    assert_same(cols[1, 5], x[1, 0].reshape(-1)[1 * 7 + 2:1 * 7 + 2 + cols.shape[2]])
    rows, rows1 = np.empty((3, 6 * 9 * 2), np.float32), np.empty((3, 6 * 9 * 2), np.float32)
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    _loops.batch_inner_rows(x, 9, rows)
    _loops.batch_inner_rows.py_func(x, 9, rows1)
    assert_same(rows, rows1)
    assert_same(rows.reshape(3, 6, 9, 2), np.pad(x.transpose(1, 2, 3, 0),
                                                  ((0, 0), (0, 0), (0, 2), (0, 0))))
    offs = conv._tap_offsets(2, 3, 9) * 2
    w = rng.standard_normal((3, 3, 6)).astype(np.float32)
    out, out1 = np.empty((1, 3, 100), np.float32), np.empty((1, 3, 100), np.float32)
    _loops.correlate_rows(rows[None], offs, w, 80, out)
    _loops.correlate_rows.py_func(rows[None], offs, w, 80, out1)
    assert_rounding_close(out[..., :80], out1[..., :80])
    dw, dw1 = np.empty((3, 3, 6), np.float32), np.empty((3, 3, 6), np.float32)
    _loops.correlate_rows_filter_grad(rows[None], out, offs, 80, dw)
    _loops.correlate_rows_filter_grad.py_func(rows[None], out, offs, 80, dw1)
    assert_rounding_close(dw, dw1)


def test_jit_refuses_fastmath_flags_that_change_ieee_semantics():
    with pytest.raises(ValueError, match="nnan"):
        _native.jit(fastmath={"nnan", "contract"})
    assert _native.jit(fastmath={"contract"})(lambda a: a)._fastmath == {"contract"}


# ----------------------------------------------------------------- the switch
def test_switch_and_environment_variable():
    assert _native.installed() and _native.enabled()
    _native.set_enabled(False)
    try:
        assert not _native.enabled()
    finally:
        _native.set_enabled(True)
    code = "from spore import _native; print(_native.installed(), _native.enabled())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, SPORE_NATIVE="0"), check=True).stdout.split()
    assert out == ["True", "False"]


def test_import_spore_does_not_import_numba():
    code = "import sys, spore; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


def test_a_numba_failure_falls_back_to_numpy_with_one_warning(monkeypatch):
    """A loop Numba cannot compile: a warning, the right values, NumPy paths afterwards."""
    from numba.core.errors import TypingError

    def broken_njit(**options):
        def compile_(fn):
            def run(*args):
                raise TypingError("simulated failure")
            return run
        return compile_
    monkeypatch.setattr(numba, "njit", broken_njit)
    loop = _native.jit(_loops.max_pool_2x2._fn)                # a fresh, uncompiled loop
    x = np.array([1, 5, 2, 3, 7, 0, 4, 4], np.float32)          # one 2x4 plane, two windows
    y, won = np.empty(2, np.float32), np.empty(2, np.int8)
    try:
        with pytest.warns(RuntimeWarning, match="compiled loops are off.*simulated failure"):
            loop(x, 2, 4, y, won)
        assert not _native.enabled()
    finally:
        _native.set_enabled(True)
    np.testing.assert_array_equal(y, [7, 4])
    np.testing.assert_array_equal(won, [2, 2])


# ----------------------------------------------------------------- background compilation
def test_declared_signatures_are_the_ones_the_kernels_call():
    """Compiling ahead (NOTE: [Background compilation]) compiles each loop's declared
    signature: every call the kernels make must match it, or it would compile again in
    the caller. After the conv cases, a training step and pooling in both dtypes, each
    loop holds only its declared signatures."""
    from numba.core import sigutils
    for dtype in FLOATS:
        assert _native.ready(np.dtype(dtype))
        test_conv_kernels_match_numpy_path(CONV_CASES[0], dtype)
        test_conv_kernels_match_numpy_path(CONV_CASES[-2], dtype)
        test_max_pool_layer_forward_and_gradient_agree_across_paths(dtype)
        test_conv_epilogue_kernels_agree_across_paths(dtype)
        patches = np.ones((2, 3, 8, 8), dtype)                   # a patch convolution
        ops.conv2d(ms.Tensor(patches), ms.Tensor(np.ones((4, 3, 4, 4), dtype)), stride=4)
    test_conv_layer_training_gradients_agree_across_paths()
    for loop in _native._LOOPS:
        if loop._fn.__module__ != _loops.__name__:      # loaded at first call: not run here
            continue
        declared = {sigutils.normalize_signature(
            "(" + loop._signature.format(f=np.dtype(d).name) + ",)")[0] for d in FLOATS}
        assert set(loop._compiled.signatures) == declared, loop.__name__


_COLD_START = """
import numpy as np, spore as ms
from spore import _native, ops, Tensor
from spore._prims.nn import _loops
rng = np.random.default_rng(0)
x = Tensor(rng.standard_normal((4, 1, 20, 20)).astype(np.float32))
w = Tensor(rng.standard_normal((6, 1, 5, 5)).astype(np.float32))
f32 = np.dtype(np.float32)
indexed_before = _native._cache_indexed()
first_ready = _native.ready(f32)                  # starts the compiler, answers at once
y_first = ops.conv2d(x, w).asnumpy()
with _native.disabled():
    y_numpy = ops.conv2d(x, w).asnumpy()
ok = _native.wait(f32, 600)
y_compiled = ops.conv2d(x, w).asnumpy()
scale = np.abs(y_numpy).max()
print(indexed_before, _native._cache_indexed(), first_ready, ok,
      _loops.correlate_rows._compiled is not None,
      np.array_equal(y_first, y_numpy),
      bool(np.allclose(y_compiled, y_numpy, rtol=2e-5, atol=2e-5 * scale)))
"""


def test_cold_start_serves_numpy_while_the_loops_compile(tmp_path):
    """With an empty Numba cache, the first calls take the NumPy path at once while a
    background thread (and its child interpreter) compiles; then the loops run, giving
    the NumPy path's values to the direct convolution's rounding."""
    env = dict(os.environ, SPORE_NATIVE="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", _COLD_START], capture_output=True, text=True,
                         env=env, check=True, timeout=900).stdout.split()
    assert out == ["False", "True", "False", "True", "True", "True", "True"]
    assert any(tmp_path.rglob("*.nbi")), "the child filled the disk cache"


_LAZY = """
import numpy as np, spore as ms
from spore import _native, ops, Tensor
from spore._prims import vecmath
f32 = np.dtype(np.float32)
assert _native.wait(f32, 600)
loaded = lambda: sorted(l.__name__ for l in _native._LOOPS if l._compiled is not None)
before = loaded()
x = Tensor(np.random.default_rng(0).standard_normal((64, 197)).astype(np.float32))
ops.softmax(x, -1)
print(before, loaded())
"""


def test_ready_loads_no_loop_and_a_call_loads_its_own():
    # NOTE: [Lazy loading]: ready() imports Numba only; softmax's first call loads its
    # row loop alone, not the pooling, convolution and unary loops
    out = subprocess.run([sys.executable, "-c", _LAZY], capture_output=True, text=True,
                         env=dict(os.environ, SPORE_NATIVE="1"), check=True,
                         timeout=900).stdout.strip()
    assert out == "[] ['softmax_rows']"


def test_synchronous_mode_compiles_in_the_first_call():
    assert not _native._background                    # the suite's SPORE_NATIVE=sync
    assert _native.ready(np.dtype(np.float32)) is True


def test_a_fork_during_compilation_starts_again_in_the_child(monkeypatch):
    f16 = np.dtype(np.float16)                        # never compiled: a stand-in state
    monkeypatch.setitem(_native._ready, f16, False)
    monkeypatch.setitem(_native._ready, np.dtype(np.float64), True)
    _native._after_fork_in_child()
    assert f16 not in _native._ready and _native._ready[np.dtype(np.float64)] is True


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, k", [((2, 3, 32, 48), (16, 16)), ((3, 2, 13, 11), (4, 3)),
                                      ((1, 1, 5, 5), (5, 5))])
def test_patch_convolutions_take_the_patch_loop(shape, k, dtype, monkeypatch):
    """A patch embedding's columns (NOTE: [Patch convolutions]) come from ``patch_rows``:
    the bits of the NumPy rearrangement, cropped inputs (13 x 11 in patches of 4 x 3)
    and an input with strided rows included, through the convolution and its filter
    gradient."""
    rng = np.random.default_rng(11)
    x = special_values(shape, dtype, rng)
    w = rng.standard_normal((5, shape[1]) + k).astype(dtype)
    calls = []
    original = _loops.patch_rows
    monkeypatch.setattr(_loops, "patch_rows", lambda *a: (calls.append(a[0].shape), original(*a)))

    def run(x):
        def loss(x, w):
            return (ops.conv2d(x, w, stride=k) ** 2).sum()
        y = ops.conv2d(ms.Tensor(x), ms.Tensor(w), stride=k).asnumpy()
        return y, ms.grad(loss, 1)(ms.Tensor(x), ms.Tensor(w)).asnumpy()

    compiled, plain = both_paths(lambda: run(x))
    assert calls, "the patch loop did not run"
    assert_same(compiled, plain)
    strided = np.pad(x, ((0, 0), (0, 0), (0, 0), (0, 3)))[..., :shape[3]]   # rows strided
    assert not strided.flags.c_contiguous
    assert_same(*both_paths(lambda: run(strided)))
    cols = np.empty((shape[0] * (shape[2] // k[0]) * (shape[3] // k[1]),
                     shape[1] * k[0] * k[1]), dtype)
    cols1 = np.empty_like(cols)
    original(x, k[0], k[1], cols)
    original.py_func(x, k[0], k[1], cols1)               # the body is plain Python
    assert_same(cols, cols1)
    assert_same(cols, conv._patch_view(x, k, (shape[2] // k[0], shape[3] // k[1]))
                .reshape(cols.shape))
