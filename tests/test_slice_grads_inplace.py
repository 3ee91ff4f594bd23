"""Eager backward passes add slice gradients in place (NOTE: [Slice gradients in place]
in spore/_autodiff/slice_sums.py): the same bits as the additions of zero arrays they
replace, -0.0 and NaN included, and the zero arrays are not built."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from spore._autodiff import slice_sums
from spore._core import primitive as P


def _weights(shape, dtype, seed):
    """Cotangents with -0.0, 0.0, NaN and ordinary values mixed."""
    r = np.random.default_rng(seed)
    w = r.standard_normal(shape).astype(dtype)
    pick = r.random(shape)
    w[pick < 0.2] = -0.0
    w[(pick >= 0.2) & (pick < 0.3)] = 0.0
    w[(pick >= 0.3) & (pick < 0.33)] = np.nan
    return ms.Tensor(w)


def _unpack(x, ws):
    a, b, c = x[0], x[1], x[2]
    return (a * ws[0]).sum() + (b * ws[1]).sum() + (c * ws[2]).sum()


def _overlapping(x, ws):
    return (x[0:2] * ws[0][:2]).sum() + (x[1:] * ws[1][1:]).sum() + (x[::2] * ws[2][::2]).sum()


def _repeated(x, ws):
    return (x[1] * ws[0][1]).sum() + (x[1] * ws[1][1]).sum() + (x[0] * ws[2][0]).sum()


def _indices(x, ws):
    return ((x[..., 1] * ws[0][..., 1]).sum() + (x[None, 2] * ws[1][None, 2]).sum()
            + (x[:, 0, 1:] * ws[2][:, 0, 1:]).sum())


def _mixed(x, ws):
    # a dense use of x between slices: the sum goes on in a new array from there
    return (x[0] * ws[0][0]).sum() + (x * ws[1]).sum() + (x[2] * ws[2][2]).sum()


def _gather(x, ws):
    idx = ms.Tensor(np.array([2, 0], np.int32))
    return (x[idx] * ws[0][:2]).sum() + (x[1] * ws[1][1]).sum() + (x[0] * ws[2][0]).sum()


def _single(x, ws):
    return (x[1] * ws[0][1]).sum()


def _elements(x, ws):
    # all-integer indices: 0-d slices
    return x[0, 1, 2] * ws[0][0, 1, 2] + x[2, 0, 4] * ws[1][2, 0, 4] + x[0, 1, 2] * 2.0


CASES = [_unpack, _overlapping, _repeated, _indices, _mixed, _gather, _single, _elements]


def _grad(fn, x, ws, in_place):
    saved = slice_sums.applies
    if not in_place:
        slice_sums.applies = lambda: False
    try:
        return ms.grad(lambda t: fn(t, ws))(x).asnumpy()
    finally:
        slice_sums.applies = saved


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__.strip("_"))
def test_same_bits_as_adding_zero_arrays(fn, dtype):
    x = ms.Tensor(np.random.default_rng(1).standard_normal((3, 4, 5)).astype(dtype))
    ws = [_weights((3, 4, 5), dtype, seed) for seed in (2, 3, 4)]
    fast = _grad(fn, x, ws, True)
    slow = _grad(fn, x, ws, False)
    assert fast.dtype == slow.dtype == dtype
    np.testing.assert_array_equal(_bits(fast), _bits(slow))


def test_overlapping_negative_zeros_stay_negative():
    # -0.0 + -0.0 is -0.0: a second slice gradient overlapping the first must not meet
    # the first one's "+ 0.0" (it takes the usual addition)
    x = ms.Tensor(np.ones((4, 3), np.float32))
    w = ms.Tensor(np.array([-0.0, 1.0, -0.0], np.float32))

    def f(t, ws):
        return (t[1:3] * w).sum() + (t[2:] * w).sum()

    fast = _grad(f, x, None, True)
    np.testing.assert_array_equal(_bits(fast), _bits(_grad(f, x, None, False)))
    assert np.signbit(fast[2, 0]) and np.signbit(fast[2, 2])       # in both slices
    assert not np.signbit(fast[1]).any() and not np.signbit(fast[3]).any()


def test_single_slice_keeps_negative_zero():
    # one slice gradient is the rule's own zero array: -0.0 stays as the rule wrote it
    x = ms.Tensor(np.ones((3, 2), np.float32))
    w = ms.Tensor(np.array([-0.0, 2.0], np.float32))
    g = ms.grad(lambda t: (t[1] * w).sum())(x).asnumpy()
    assert np.signbit(g[1, 0]) and g[1, 1] == 2.0 and not np.signbit(g[0]).any()


def test_later_slices_build_no_zero_arrays(monkeypatch):
    made = []
    original = P.Primitive.__call__

    def spy(self, *args, **attrs):
        if self.name == "GetitemGrad":
            made.append(attrs.get("spec"))
        return original(self, *args, **attrs)
    monkeypatch.setattr(P.Primitive, "__call__", spy)
    x = ms.Tensor(np.random.default_rng(0).standard_normal((3, 2, 4, 8)).astype(np.float32))
    g = ms.grad(lambda t: ops.matmul(t[0], t[1].swapaxes(-1, -2)).sum() + t[2].sum())(x)
    assert len(made) == 1               # the first slice's; the other two add in place
    xn = x.asnumpy()
    np.testing.assert_allclose(g.asnumpy()[2], np.ones((2, 4, 8)))
    np.testing.assert_allclose(g.asnumpy()[0], np.broadcast_to(xn[1].sum(-2, keepdims=True),
                                                                 (2, 4, 8)), rtol=1e-5)


def test_second_order_gradients_use_the_usual_additions():
    # under an outer tape the gradient arrays are recorded values: nothing in place
    x = ms.Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32))

    def f(t):
        return (t[0] * t[0] * t[1]).sum() + (t[2] ** 3).sum()

    gg = ms.grad(lambda t: ms.grad(f)(t).sum())(x).asnumpy()
    xn = x.asnumpy()
    expected = np.stack([2 * xn[1] + 2 * xn[0], 2 * xn[0], 6 * xn[2]])
    np.testing.assert_allclose(gg, expected, rtol=1e-6)


@pytest.mark.parametrize("fn", [_unpack, _overlapping, _mixed], ids=lambda f: f.__name__)
def test_graph_mode_gives_the_eager_bits(fn):
    x = ms.Tensor(np.random.default_rng(5).standard_normal((3, 4, 5)).astype(np.float32))
    ws = [_weights((3, 4, 5), np.float32, seed) for seed in (6, 7, 8)]
    eager = _grad(fn, x, ws, True)
    compiled = ms.jit(ms.grad(lambda t: fn(t, ws)))(x).asnumpy()
    np.testing.assert_array_equal(_bits(compiled), _bits(eager))


def test_float16_slices_take_the_usual_path():
    x = ms.Tensor(np.ones((3, 4), np.float16))
    g = ms.grad(lambda t: (t[0] * 2).sum() + (t[1] * 3).sum() + t[2].sum())(x).asnumpy()
    np.testing.assert_array_equal(g, np.array([[2] * 4, [3] * 4, [1] * 4], np.float16))
