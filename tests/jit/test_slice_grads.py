"""At O1 the gradients of ``x[0], x[1], ...`` summed back into ``x``'s gradient become one
stack of them; at O0 a stack plus ``0.0`` where each slice has one gradient, with
PyNative's bits (NOTE: [Slice gradients as a stack] in spore/_jit/slice_grads.py)."""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor


def prims(fn):
    return [n.prim.name for g in ms.jit_report(fn).graphs for n in g.nodes]


def data(shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def attention_like(x):
    q, k, v = x[0], x[1], x[2]
    return (ops.matmul(q, ops.transpose(k, (0, 2, 1))).sum(-1, keepdims=True) * v).sum()


def test_unpacked_slices_differentiate_into_one_stack_at_o1():
    x = data((3, 2, 5, 4), seed=1)
    g = ops.grad(attention_like)
    want = g(x).asnumpy()
    o1 = ms.jit(g, jit_level="O1")
    np.testing.assert_allclose(o1(x).asnumpy(), want, rtol=1e-6, atol=1e-6)
    assert "GetitemGrad" not in prims(o1) and "Concat" in prims(o1)
    o0 = ms.jit(g, jit_level="O0")               # O0: PyNative's bits
    np.testing.assert_array_equal(o0(x).asnumpy(), want)
    assert "GetitemGrad" not in prims(o0) and "Concat" in prims(o0)
    y = data((3, 2, 5, 4), seed=2)              # the compiled stack serves new inputs
    np.testing.assert_allclose(o1(y).asnumpy(), g(y).asnumpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn, stacked", [
    (lambda x: (x[0] * x[1]).sum(), False),                     # x[2] not used: zeros
    (lambda x: (x[0] * x[0] + x[1] * x[2]).sum(), True),        # x[0] read twice, one grad
    (lambda x: (x[0] + x[-1] * 2.0 + x[1] * 3.0).sum(), True),  # -1 is 2
    (lambda x: (x[0] * 2.0 + x[0] * x[1] + x[2]).sum(), True),
])
def test_only_a_sum_covering_the_axis_once_becomes_a_stack(fn, stacked):
    x = data((3, 4, 6), seed=3)
    g = ops.grad(fn)
    o1 = ms.jit(g, jit_level="O1")
    np.testing.assert_allclose(o1(x).asnumpy(), g(x).asnumpy(), rtol=1e-6, atol=1e-6)
    assert ("GetitemGrad" not in prims(o1)) == stacked


@pytest.mark.parametrize("fn, stacked", [
    (lambda x: (x[0] * x[1] * x[2]).sum(), True),
    (lambda x: (x[0] * x[1]).sum(), False),                     # x[2] not used: zeros
    (lambda x: (x[0] * 2.0 + x[0] * x[1] + x[2]).sum(), False),  # x[0] twice: reordered
])
def test_o0_stacks_only_one_gradient_per_slice_with_pynative_bits(fn, stacked):
    x = data((3, 4, 6), seed=5)
    g = ops.grad(fn)
    o0 = ms.jit(g, jit_level="O0")
    np.testing.assert_array_equal(o0(x).asnumpy(), g(x).asnumpy())
    assert ("GetitemGrad" not in prims(o0)) == stacked


def test_a_piece_read_elsewhere_keeps_the_sum():
    x = data((2, 3), seed=4)

    def grads_and_piece(x):
        def loss(x):
            return (x[0] * x[1]).sum()
        gx = ops.grad(loss)(x)
        return gx, gx * 2.0
    o1 = ms.jit(grads_and_piece, jit_level="O1")
    for got, want in zip(o1(x), grads_and_piece(x)):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)


def test_negative_zero_gradients_keep_their_sign_at_o1():
    x = Tensor(np.array([[1.0, -2.0], [0.0, 3.0]], np.float32))
    g = ops.grad(lambda x: (x[0] * -0.0 + x[1] * 1.0).sum())
    got = ms.jit(g, jit_level="O1")(x).asnumpy()
    assert np.signbit(got[0]).all()              # -0.0: the slice's gradient as it is
    assert not np.signbit(g(x).asnumpy()[0]).any()   # PyNative: 0.0 + -0.0 is 0.0
    np.testing.assert_array_equal(got, g(x).asnumpy())


def test_negative_zero_gradients_become_zero_at_o0_as_in_pynative():
    x = Tensor(np.array([[1.0, -2.0], [0.0, 3.0]], np.float32))
    g = ops.grad(lambda x: (x[0] * -0.0 + x[1] * np.float32(np.nan)).sum())
    got = ms.jit(g, jit_level="O0")(x).asnumpy()
    assert "GetitemGrad" not in prims(ms.jit(g, jit_level="O0"))
    assert not np.signbit(got[0]).any() and np.isnan(got[1]).all()
    np.testing.assert_array_equal(got.view(np.uint32), g(x).asnumpy().view(np.uint32))
