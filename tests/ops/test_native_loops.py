"""The compiled loops (spore._native, NOTE: [Native loops]) against the NumPy paths.

Both paths must give the same bits: every case runs the kernel twice, once with
the compiled loops and once inside ``_native.disabled()``, and compares with
``array_equal``. The NumPy paths themselves are checked against references in
test_conv_pool.py; this file pins that switching paths changes nothing.
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
]


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
    y, y0 = both_paths(lambda: fwd(x, w, b, **g))
    assert_same(y, y0)
    assert_same(*both_paths(lambda: fwd(x, w, **g)))
    dy = rng.standard_normal(y.shape).astype(dtype)
    assert_same(*both_paths(lambda: dgrad(dy, w, input_shape=xs, **g)))
    assert_same(*both_paths(lambda: wgrad(x, dy, filter_shape=ws, **g)))


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
    assert_same(compiled, plain)


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
