"""Tensor indexing: ``__getitem__`` / ``__setitem__`` against NumPy, views, dtype conversion,
errors and gradients.

Error texts and the ``t[True]`` / ``t[[True, False]]`` shapes were taken from the reference
MindSpore 2.10 (CPU, /work/venvs/ms) on ``t = arange(24).reshape(2, 3, 4)``.
"""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor

BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

GETITEM = [
    0, -1, (0, 1, 2), (-1, 1), (slice(None), 0), (Ellipsis, 1), None, (slice(None), None, 0),
    (slice(None, None, 2), slice(1, None), slice(None, None, -1)), (slice(-1, None, -2),),
    (slice(2, 1),), ([1, 0],), ([0, 1], [1, 2]), (slice(None), [0, 2], [1, 3]),
    ([0, 1], slice(None), [1, 3]), (0, [0, 2], slice(None), None), (None, Ellipsis, None),
    (np.array([[0, 1], [1, 0]]),), (Ellipsis, [3, 0, 3]), (1, slice(None), -1), True, ([True, False],),
    (np.array([1, 0]),), (slice(None), np.array([True, False, True])),
]


def _index_for_spore(index):
    """The same index with NumPy arrays as Tensors (lists stay lists)."""
    if isinstance(index, tuple):
        return tuple(_index_for_spore(i) for i in index)
    if isinstance(index, np.ndarray):
        return Tensor(index)
    return index


@pytest.mark.parametrize("index", GETITEM, ids=repr)
def test_getitem_matches_numpy(index):
    got = Tensor(BASE)[_index_for_spore(index)]
    want = BASE[index]
    assert isinstance(got, Tensor)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_getitem_with_tensors_and_masks():
    t = Tensor(BASE)
    np.testing.assert_array_equal(t[Tensor([1, 0])].asnumpy(), BASE[[1, 0]])
    np.testing.assert_array_equal(t[Tensor(np.array([1, 0], np.int32))].asnumpy(), BASE[[1, 0]])
    np.testing.assert_array_equal(t[t > 20].asnumpy(), [21, 22, 23])
    np.testing.assert_array_equal(t[Tensor(1)].asnumpy(), BASE[1])
    np.testing.assert_array_equal(t[Tensor(1):].asnumpy(), BASE[1:])
    assert t[0, 1, 2].shape == () and t[0, 1, 2].asnumpy() == 6
    assert t[True].shape == (1, 2, 3, 4)
    assert t[[True, False]].shape == (1, 3, 4)


def test_lists_of_index_parts_read_as_tuples():
    # Reference MindSpore 2.10 on t = arange(24).reshape(2, 3, 4): t[[[0, 1], [1, 0]]] has
    # shape (2, 4), t[[0, slice(None)]] (3, 4), t[[Tensor(0), 1]] (4,), t[[1, 0]] (2, 3, 4).
    t = Tensor(BASE)
    assert t[[[0, 1], [1, 0]]].shape == (2, 4)
    assert t[[0, slice(None)]].shape == (3, 4)
    assert t[[0, None]].shape == (1, 3, 4)
    np.testing.assert_array_equal(t[[Tensor(0), 1]].asnumpy(), BASE[0, 1])
    assert t[[1, 0]].shape == (2, 3, 4)


def test_basic_indexing_returns_a_view():
    a = Tensor(np.zeros((2, 3), np.float32))
    v = a[0]
    v[0] = 100.0
    assert a.asnumpy()[0, 0] == 100.0
    col = a[:, 1]
    a[1, 1] = 5.0
    assert col.asnumpy()[1] == 5.0


def test_advanced_indexing_returns_a_copy():
    a = Tensor(np.zeros((2, 3), np.float32))
    c = a[[0, 1]]
    c[0, 0] = 7.0
    assert a.asnumpy()[0, 0] == 0.0


SETITEM = [
    (0, 1.0), ((slice(None), 1), np.array([5.0, 6.0])), ((0, 0), 7.0), (Ellipsis, 0.0),
    (([0, 1], [2, 0]), np.array([8.0, 9.0])), ((slice(None), None, 2), -1.0),
    ((slice(None, None, -1), 0), np.array([1.0, 2.0])), ((1, [True, False, True]), 4.0),
]


@pytest.mark.parametrize("index, value", SETITEM, ids=repr)
def test_setitem_matches_numpy(index, value):
    want = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = Tensor(want.copy())
    t[index] = Tensor(value.astype(np.float32)) if isinstance(value, np.ndarray) else value
    want[index] = value
    np.testing.assert_array_equal(t.asnumpy(), want)


def test_setitem_is_in_place_and_aliases_see_it():
    a = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    data = a.asnumpy()
    b = a
    b[1] = 9.0
    assert a.asnumpy() is data
    np.testing.assert_array_equal(a.asnumpy()[1], [9, 9, 9])
    a[a > 8] = -1.0
    np.testing.assert_array_equal(a.asnumpy()[1], [-1, -1, -1])
    a[0, 0] = Tensor(7.0)
    a[:, 1] = [5.0, 6.0]
    np.testing.assert_array_equal(a.asnumpy(), [[7, 5, 2], [-1, 6, -1]])


def test_setitem_converts_to_the_tensor_dtype():
    # Reference MindSpore 2.10: 1.7 -> 1, -1.7 -> -1 in Int32; 2.5 -> True in Bool.
    t = Tensor(np.arange(3, dtype=np.int32))
    t[0] = 1.7
    t[1] = -1.7
    t[2] = Tensor(2.9)
    assert t.dtype == ms.int32
    np.testing.assert_array_equal(t.asnumpy(), [1, -1, 2])
    b = Tensor(np.zeros(3, bool))
    b[0] = 2.5
    assert b.asnumpy().tolist() == [True, False, False]
    f = Tensor(np.zeros(2, np.float32))
    f[0] = Tensor(np.float64(1.1))
    assert f.dtype == ms.float32 and np.isclose(f.asnumpy()[0], 1.1)


def test_setitem_duplicate_indices_last_write_wins():
    t = Tensor(np.zeros(3, np.float32))
    t[Tensor([0, 0])] = Tensor([1.0, 2.0])
    assert t.asnumpy().tolist() == [2.0, 0.0, 0.0]


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("index, err, match", [
    (5, IndexError, "index 5 is out of bounds for dimension with size 2"),
    (-3, IndexError, "index -3 is out of bounds for dimension with size 2"),
    ((0, 5), IndexError, "index 5 is out of bounds for dimension with size 3"),
    ((0, 0, 0, 0), IndexError, "too many indices for tensor of dimension 3"),
    ([0, 5], IndexError, "index 5 is out of bounds for dimension with size 2"),
    (1.5, IndexError, "Only support integers"),
    ("a", IndexError, "Only support integers"),
    (False, IndexError, "only support 'True'"),
    ((Ellipsis, Ellipsis), IndexError, "single ellipsis"),
    ([], IndexError, "can't be empty"),
    (slice(None, None, 0), ValueError, "step"),
])
def test_getitem_errors(index, err, match):
    with pytest.raises(err, match=match):
        Tensor(BASE)[index]


def test_getitem_tensor_index_errors():
    t = Tensor(BASE)
    with pytest.raises(IndexError, match="out of bounds for dimension with size 2"):
        t[Tensor([5])]
    with pytest.raises(IndexError, match="int or bool"):
        t[Tensor([1.0])]
    with pytest.raises(IndexError):
        t[Tensor([True, False, True])]


def test_setitem_errors():
    t = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        t[5] = 1.0
    with pytest.raises(ValueError, match="Setitem.*cannot be broadcast"):
        t[0] = Tensor([1.0, 2.0])
    expanded = ops.broadcast_to(Tensor([1.0, 2.0, 3.0]), (2, 3))
    with pytest.raises(ValueError, match="broadcast"):
        expanded[0] = 1.0


# --------------------------------------------------------------------------- gradients
def test_grad_through_getitem_accumulates_repeated_indices():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    g = ops.grad(lambda t: (t[:, [0, 2, 2]] * 2).sum() + t[1].sum() + t[t > 3].sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [[2, 0, 4], [3, 2, 6]])


def test_grad_through_basic_slices_and_none():
    x = Tensor(np.arange(12.0).reshape(3, 4))
    w = Tensor(np.arange(4.0).reshape(2, 1, 2))
    g = ops.grad(lambda t: (t[::2, None, 1::2] * w).sum())(x)
    want = np.zeros((3, 4))
    want[::2, 1::2] = w.asnumpy().reshape(2, 2)
    np.testing.assert_array_equal(g.asnumpy(), want)


def test_grad_through_setitem():
    x = Tensor(np.arange(1.0, 7.0).reshape(2, 3))
    v = Tensor(np.array([10.0, 20.0]))

    def f(t, val):
        y = t * 1.0
        y[:, 1] = val * 3.0
        return (y * y).sum()

    gx, gv = ops.grad(f, (0, 1))(x, v)
    want_x = 2 * x.asnumpy()
    want_x[:, 1] = 0
    np.testing.assert_allclose(gx.asnumpy(), want_x)
    np.testing.assert_allclose(gv.asnumpy(), 2 * 9 * v.asnumpy())


def test_grad_through_setitem_with_scalar_and_mask():
    x = Tensor(np.array([1.0, -2.0, 3.0, -4.0]))

    def f(t):
        y = t * 2.0
        y[y < 0] = 0.0
        return (y * t).sum()

    g = ops.grad(f)(x)
    # y = 2t where t >= 0 else 0; d/dt sum(y * t) = 4t where t >= 0 else 0
    np.testing.assert_allclose(g.asnumpy(), [4.0, 0.0, 12.0, 0.0])


def test_grad_through_index_put():
    x = Tensor(np.arange(4.0))
    v = Tensor(np.array(5.0))
    gx, gv = ops.grad(lambda t, val: (ops.index_put(t, (Tensor([1, 3]),), val) ** 2).sum(),
                      (0, 1))(x, v)
    np.testing.assert_allclose(gx.asnumpy(), [0, 0, 4, 0])
    np.testing.assert_allclose(gv.asnumpy(), 2 * 2 * 5.0)


def test_second_order_through_getitem():
    x = Tensor(np.array([1.0, 2.0, 3.0]))
    g2 = ops.grad(lambda t: ops.grad(lambda u: (u[[0, 0, 2]] ** 3).sum())(t).sum())(x)
    # first: 3u^2 at index 0 (twice) and 2; second derivative: 6u scaled likewise
    np.testing.assert_allclose(g2.asnumpy(), [12.0, 0.0, 18.0])
