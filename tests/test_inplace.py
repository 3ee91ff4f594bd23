"""In-place semantics: Tensor methods ending in ``_`` and ``assign`` write into the
tensor's own memory (MindSpore's CPU build returns new values instead; Spore is truly in
place), augmented assignment (``a += 1``) makes a new Tensor as MindSpore 2.10's PyNative
does, and under ``ops.grad`` they give the right gradient or a clear error.
"""
import operator

import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor


def _t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype=dtype))


@pytest.mark.parametrize("call, want", [
    (lambda t: t.fill_(7.0), [7, 7, 7]),
    (lambda t: t.zero_(), [0, 0, 0]),
    (lambda t: t.add_(1.0), [2, 3, 4]),
    (lambda t: t.add_(_t([1, 1, 1])), [2, 3, 4]),
    (lambda t: t.sub_(1.0), [0, 1, 2]),
    (lambda t: t.mul_(2.0), [2, 4, 6]),
    (lambda t: t.div_(2.0), [0.5, 1, 1.5]),
    (lambda t: t.clamp_(1.5, 2.5), [1.5, 2, 2.5]),
    (lambda t: t.clamp_(max=2.0), [1, 2, 2]),
    (lambda t: t.copy_(_t([9, 8, 7])), [9, 8, 7]),
    (lambda t: t.copy_(_t([5])), [5, 5, 5]),
    (lambda t: t.masked_fill_(_t([True, False, True], bool), 0.0), [0, 2, 0]),
    (lambda t: t.neg_(), [-1, -2, -3]),
])
def test_inplace_methods_write_into_the_same_memory(call, want):
    t = _t([1, 2, 3])
    data = t.asnumpy()
    alias = t
    view = t[1:]
    out = call(t)
    assert out is t
    assert t.asnumpy() is data
    np.testing.assert_allclose(alias.asnumpy(), want)
    np.testing.assert_allclose(view.asnumpy(), want[1:])


F, I = np.float32, np.int32
M22 = [[3, 4], [5, 6]]


# (operator, dtype, operand, MindSpore 2.10 result, its dtype), probed with b = a; a op= v
@pytest.mark.parametrize("op, dtype, other, want, want_dtype", [
    (operator.iadd, F, 2.0, [[5, 6], [7, 8]], ms.float32),
    (operator.iadd, I, 2, [[5, 6], [7, 8]], ms.int32),
    (operator.isub, F, 2.0, [[1, 2], [3, 4]], ms.float32),
    (operator.isub, I, 2, [[1, 2], [3, 4]], ms.int32),
    (operator.imul, F, 2.0, [[6, 8], [10, 12]], ms.float32),
    (operator.imul, I, 2, [[6, 8], [10, 12]], ms.int32),
    (operator.itruediv, F, 2.0, [[1.5, 2], [2.5, 3]], ms.float32),
    (operator.itruediv, I, 2, [[1.5, 2], [2.5, 3]], ms.float32),
    (operator.ifloordiv, F, 2.0, [[1, 2], [2, 3]], ms.float32),
    (operator.ifloordiv, I, 2, [[1, 2], [2, 3]], ms.int32),
    (operator.imod, F, 2.0, [[1, 0], [1, 0]], ms.float32),
    (operator.imod, I, 2, [[1, 0], [1, 0]], ms.int32),
    (operator.ipow, F, 2.0, [[9, 16], [25, 36]], ms.float32),
    (operator.ipow, I, 2, [[9, 16], [25, 36]], ms.int32),
    (operator.iand, I, 2, [[2, 0], [0, 2]], ms.int32),
    (operator.ior, I, 2, [[3, 6], [7, 6]], ms.int32),
    (operator.ixor, I, 2, [[1, 6], [7, 4]], ms.int32),
    (operator.imatmul, F, "m", [[15, 10], [23, 16]], ms.float32),
    (operator.imatmul, I, "m", [[15, 10], [23, 16]], ms.int32),
])
def test_augmented_assignment_makes_a_new_tensor(op, dtype, other, want, want_dtype):
    a = _t(M22, dtype)
    b = a
    data = a.asnumpy().copy()
    if isinstance(other, str):
        other = _t([[1, 2], [3, 1]], dtype)
    a = op(a, other)
    assert a is not b
    np.testing.assert_array_equal(b.asnumpy(), data)       # the alias is unchanged
    np.testing.assert_allclose(a.asnumpy(), want)
    assert a.dtype == want_dtype


def test_augmented_assignment_of_bool_tensors():
    flags = _t([[True, False], [True, True]], bool)
    alias = flags
    flags |= True
    assert alias.asnumpy().tolist() == [[True, False], [True, True]]
    assert flags.dtype == ms.bool_ and flags.asnumpy().all()
    flags = alias
    flags ^= True
    assert flags.asnumpy().tolist() == [[False, True], [False, False]]


def test_augmented_assignment_of_a_parameter_gives_a_tensor():
    p = ms.Parameter(_t([1.0, 2.0]), name="p")
    q = p
    p += 1
    assert type(p) is Tensor and isinstance(q, ms.Parameter)
    np.testing.assert_array_equal(q.asnumpy(), [1, 2])
    np.testing.assert_array_equal(p.asnumpy(), [2, 3])


def test_copy_converts_dtype_and_assign_updates_in_place():
    t = _t([0, 0], np.int32)
    t.copy_(_t([1.7, -2.5]))
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [1, -2]
    p = ms.Parameter(_t([1.0, 2.0]), name="p")
    out = ops.assign(p, _t([3.0, 4.0]))
    np.testing.assert_array_equal(p.asnumpy(), [3, 4])
    np.testing.assert_array_equal(out.asnumpy(), [3, 4])


def test_writing_into_a_broadcast_view_is_an_error():
    expanded = ops.broadcast_to(_t([1, 2]), (3, 2))
    with pytest.raises(ValueError, match="broadcast"):
        expanded.add_(1.0)


# --------------------------------------------------------------------------- under ops.grad
def test_grad_of_inplace_add_on_an_intermediate():
    x = _t([1.0, 2.0, 3.0], np.float64)

    def f(t):
        y = t * 2
        y.add_(1)
        return (y * y).sum()

    g = ops.grad(f)(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * (2 * x.asnumpy() + 1) * 2)


def test_grad_of_a_chain_of_inplace_updates():
    x = _t([0.5, -1.0, 2.0], np.float64)

    def f(t):
        y = t * 1.0
        y.mul_(y)          # t^2
        y.sub_(t)          # t^2 - t
        y.clamp_(min=0.0)  # relu(t^2 - t)
        y *= 3.0
        return y.sum()

    xv = x.asnumpy()
    want = np.where(xv ** 2 - xv > 0, 3 * (2 * xv - 1), 0.0)
    np.testing.assert_allclose(ops.grad(f)(x).asnumpy(), want)


def test_grad_protects_values_saved_before_an_inplace_write():
    x = _t([1.0, 2.0], np.float64)

    def f(t):
        y = t * 1.0
        z = y * y          # saves y for its gradient
        y.add_(1.0)        # must not change what z's rule reads
        return z.sum() + y.sum()

    np.testing.assert_allclose(ops.grad(f)(x).asnumpy(), 2 * x.asnumpy() + 1)


def test_grad_of_fill_and_zero_cuts_the_old_value():
    x = _t([1.0, 2.0], np.float64)

    def f(t):
        y = t * 3.0
        z = y * 1.0
        z.zero_()
        z.add_(y)
        y.fill_(5.0)
        return (z * t).sum() + y.sum()

    # z = 3t (after the refill), y is constant: d/dt sum(3t * t) = 6t
    np.testing.assert_allclose(ops.grad(f)(x).asnumpy(), 6 * x.asnumpy())


def test_grad_of_setitem_and_masked_fill_inplace():
    x = _t([1.0, -2.0, 3.0], np.float64)

    def f(t):
        y = t * t
        y.masked_fill_(t < 0, 0.0)
        y[0] = t[2] * 10
        return y.sum()

    np.testing.assert_allclose(ops.grad(f)(x).asnumpy(), [0.0, 0.0, 6.0 + 10.0])


def test_grad_of_inplace_update_of_the_input_itself():
    x = _t([1.0, 2.0], np.float64)

    def f(t):
        t.mul_(3.0)
        return (t * t).sum()

    g = ops.grad(f)(Tensor(x.asnumpy().copy()))
    np.testing.assert_allclose(g.asnumpy(), 18 * x.asnumpy())


def test_writing_into_a_view_of_a_tensor_that_needs_grad_is_an_error():
    x = _t([1.0, 2.0, 3.0], np.float64)

    def f(t):
        y = t * 2
        v = y[1:]
        v.add_(1.0)
        return y.sum()

    with pytest.raises(RuntimeError, match="In-place update of a tensor that shares memory"):
        ops.grad(f)(x)


def test_writing_into_a_base_whose_view_is_used_later_is_an_error():
    x = _t([1.0, 2.0, 3.0], np.float64)

    def f(t):
        y = t * 2
        v = y.reshape(3, 1)
        y.mul_(2.0)
        return v.sum()

    with pytest.raises(RuntimeError, match="shares memory"):
        ops.grad(f)(x)


def test_writing_into_a_split_piece_is_an_error():
    x = _t([1.0, 2.0, 3.0, 4.0], np.float64)

    def f(t):
        y = t * 1.0
        first, _ = ops.split(y, 2)
        y.mul_(2.0)
        return first.sum()

    with pytest.raises(RuntimeError, match="shares memory"):
        ops.grad(f)(x)


def test_inplace_outside_grad_is_unaffected_by_tapes():
    x = _t([1.0, 2.0])
    ops.grad(lambda t: (t * t).sum())(x)
    v = x[0:1]
    v.add_(1.0)
    np.testing.assert_array_equal(x.asnumpy(), [2.0, 2.0])


# --------------------------------------------------------------------------- array in-place methods
def _zeros33():
    return Tensor(np.zeros((3, 3), np.float32))


def _np_ref(fn):
    out = np.zeros((3, 3), np.float32)
    fn(out)
    return out


@pytest.mark.parametrize("call, ref", [
    (lambda t: t.fill_diagonal_(5.0), lambda o: np.fill_diagonal(o, 5.0)),
    (lambda t: t.index_fill_(1, Tensor([0, 2]), 7.0), lambda o: o.__setitem__((..., [0, 2]), 7)),
    (lambda t: t.index_copy_(0, Tensor([2, 0]), Tensor(np.arange(6.0, dtype=np.float32)
                                                        .reshape(2, 3))),
     lambda o: o.__setitem__([2, 0], np.arange(6.0).reshape(2, 3))),
    (lambda t: t.masked_scatter_(Tensor(np.eye(3, dtype=bool)), Tensor(np.arange(1.0, 10.0))),
     lambda o: np.fill_diagonal(o, [1, 2, 3])),
    (lambda t: t.put_(Tensor([0, 4, 4]), Tensor([1.0, 2.0, 3.0]), accumulate=True),
     lambda o: np.add.at(o.reshape(-1), [0, 4, 4], [1, 2, 3])),
    (lambda t: t.scatter_(1, Tensor([[2], [1], [0]]), value=3.0),
     lambda o: o.__setitem__(([0, 1, 2], [2, 1, 0]), 3)),
    (lambda t: t.scatter_(1, Tensor([[0, 0]]), Tensor([[1.0, 2.0]]), reduce="add"),
     lambda o: o.__setitem__((0, 0), 3)),
    (lambda t: t.scatter_add_(1, Tensor([[0, 0], [1, 1], [2, 2]]), ops.ones((3, 2))),
     lambda o: np.fill_diagonal(o, 2)),
    (lambda t: t.index_add_(0, Tensor([0, 0]), ops.ones((2, 3)), alpha=2),
     lambda o: o.__setitem__(0, 4)),
])
def test_array_inplace_methods(call, ref):
    t = _zeros33()
    data = t.asnumpy()
    assert call(t) is t
    assert t.asnumpy() is data
    np.testing.assert_array_equal(t.asnumpy(), _np_ref(ref))


def test_fill_diagonal_wraps_tall_matrices():
    t = Tensor(np.zeros((7, 3), np.float32)).fill_diagonal_(1.0, wrap=True)
    want = np.zeros((7, 3))
    np.fill_diagonal(want, 1.0, wrap=True)
    np.testing.assert_array_equal(t.asnumpy(), want)


def test_writing_a_tracked_value_through_a_view_of_a_plain_buffer_is_an_error():
    # buf[0] is a view: the write lands in buf, which the tape never saw; a silent zero
    # gradient would be wrong, so this is refused
    def f(w):
        buf = ops.zeros((2, 3))
        buf[0][1] = w
        return (buf * 2).sum()

    with pytest.raises(RuntimeError, match="shares memory"):
        ops.grad(f)(Tensor(np.float32(1.5)))


def test_writing_a_tracked_value_into_a_plain_buffer_is_differentiable():
    def f(w):
        buf = ops.zeros((2, 3))
        buf[0, 1] = w
        buf[1] = w * 3
        return (buf * 2).sum()

    assert ops.grad(f)(Tensor(np.float32(1.5))).asnumpy() == pytest.approx(2 + 3 * 3 * 2)


def test_views_of_dead_tensors_do_not_block_later_writes():
    # NumPy may give a new array the id() of a dead one that was a view's base
    def f(x):
        total = 0
        for i in range(30):
            total = total + (x * float(i)).reshape(-1).sum()
            y = x * 2.0
            y.add_(1.0)
            total = total + y.sum()
        return total

    g = ops.grad(f)(Tensor(np.ones(4, np.float32)))
    np.testing.assert_allclose(g.asnumpy(), sum(range(30)) + 30 * 2.0)


def test_clone_and_identity_own_their_memory_and_pass_gradients():
    x = ms.Tensor([1.0, 2.0])
    for copy_fn in (lambda t: t.clone(), lambda t: t.copy(), ms.ops.identity):
        c = copy_fn(x)
        c[0] = 9.0
        assert x.tolist() == [1.0, 2.0]
        g = ms.ops.grad(lambda t: (copy_fn(t) * t).sum())(x)
        assert g.tolist() == [2.0, 4.0]
