"""Scalar/shape helpers, functional in-place methods and forwarding primitive classes
(SegmentSum..., UnravelIndex, DiagPart, MatrixTriangularSolve, FillDiagonal, ...): values
probed on MindSpore 2.10."""
import numpy as np
import pytest

import spore as ms
from spore import ops


def _v(t):
    return t.asnumpy().tolist()


def test_scalar_and_shape_helpers_match_mindspore():
    out = ops.scalar_to_tensor(3)
    assert out.dtype == ms.float32 and out.shape == () and out.asnumpy() == 3
    assert ops.scalar_to_tensor(3, ms.int32).dtype == ms.int32
    assert ops.scalar_cast(3.7, ms.int64) == 3 and ops.scalar_cast(3, ms.bool_) is True
    with pytest.raises(ValueError, match="ScalarCast"):
        ops.scalar_cast(3, ms.float32)
    out = ops.tensor_range(ms.Tensor(0), ms.Tensor(5), ms.Tensor(2))
    assert out.dtype == ms.int64 and _v(out) == [0, 2, 4]
    np.testing.assert_allclose(ops.tensor_range(ms.Tensor(0.), ms.Tensor(1.),
                                                ms.Tensor(0.3)).asnumpy(), [0, 0.3, 0.6, 0.9],
                               rtol=1e-6)
    assert _v(ops.padding(ms.Tensor([[8.], [10.]]), 4)) == [[8, 0, 0, 0], [10, 0, 0, 0]]
    assert ops.Padding(3)(ms.Tensor(np.ones((2, 1, 1), np.float32))).shape == (2, 1, 3)
    with pytest.raises(ValueError, match="last dimension"):
        ops.padding(ms.Tensor([[1., 2.]]))
    assert ops.dtype(ms.Tensor([1.])) == ms.float32
    assert ops.shape_(ms.Tensor([[1., 2.]])) == [1, 2]
    assert _v(ops.reshape_(ms.Tensor([[1., 2.]]), (2,))) == [1, 2]
    assert ops.ScalarToTensor()(2.5).asnumpy() == 2.5
    assert ops.TupleToArray()((1, 2)).dtype == ms.int32
    assert ops.TupleToArray()((1., 2.)).dtype == ms.float32
    with pytest.raises(TypeError, match="same type"):
        ops.TupleToArray()((1, 2.5))


def test_functional_in_place_methods_write_their_input():
    x = ms.Tensor([1., 2.])
    assert ops.zero_(x) is x and _v(x) == [0, 0]
    x = ms.Tensor([1., 5.])
    ops.clamp_(x, 2., 4.)
    assert _v(x) == [2, 4]
    x = ms.Tensor([0.5, 0.])
    ops.erfinv_(x)
    np.testing.assert_allclose(x.asnumpy(), [0.4769363, 0], rtol=1e-6)
    x = ms.Tensor([1., 2.])
    ops.tanh_(x)
    np.testing.assert_allclose(x.asnumpy(), np.tanh([1., 2.]), rtol=1e-6)
    x = ms.Tensor([1., 2., 3.])
    ops.put_(x, ms.Tensor([0, 2]), ms.Tensor([9., 8.]))
    assert _v(x) == [9, 2, 8]


def test_segment_reductions_match_mindspore():
    x = ms.Tensor([1., 2., 3., 4.])
    ids = ms.Tensor([0, 0, 2, 2], ms.int32)
    assert _v(ops.SegmentSum()(x, ids)) == [3, 0, 7]
    assert _v(ops.SegmentMax()(x, ids)) == [2, 0, 4]
    assert _v(ops.SegmentMin()(x, ids)) == [1, 0, 3]
    assert _v(ops.SegmentMean()(x, ids)) == [1.5, 0, 3.5]
    assert _v(ops.SegmentProd()(x, ids)) == [2, 1, 12]
    out = ops.SegmentSum()(ms.Tensor([[1., 2.], [3., 4.], [5., 6.]]), ms.Tensor([0, 1, 1]))
    assert _v(out) == [[1, 2], [8, 10]]
    with pytest.raises(ValueError, match="sorted"):
        ops.SegmentSum()(x, ms.Tensor([1, 0, 2, 2], ms.int32))
    g = ops.grad(lambda t: (ops.SegmentMean()(t, ids) * ms.Tensor([1., 5., 2.])).sum())(x)
    assert _v(g) == [0.5, 0.5, 1, 1]


def test_forwarding_classes_match_mindspore():
    x = ms.Tensor(np.arange(16.).reshape(1, 1, 4, 4).astype(np.float32))
    out, idx = ops.AdaptiveMaxPool2D((2, 2))(x)
    assert _v(out) == [[[[5, 7], [13, 15]]]] and _v(idx) == [[[[5, 7], [13, 15]]]]
    assert _v(ops.AdaptiveAvgPool2D((2, 2))(x)) == [[[[2.5, 4.5], [10.5, 12.5]]]]
    out = ops.FillDiagonal(2., True)(ms.Tensor(np.zeros((7, 3), np.float32)))
    assert _v(out)[4] == [2, 0, 0] and _v(out)[3] == [0, 0, 0]
    out = ops.FillDiagonal(2.)(ms.Tensor(np.zeros((7, 3), np.float32)))
    assert _v(out)[4] == [0, 0, 0]
    np.testing.assert_allclose(ops.MultiMarginLoss()(ms.Tensor([[0.1, 0.2, 0.4, 0.8]]),
                                                     ms.Tensor([3], ms.int64),
                                                     ms.Tensor([1., 1., 1., 1.])).asnumpy(),
                               0.325, rtol=1e-6)
    out = ops.DiagPart()(ms.Tensor(np.arange(16.).reshape(2, 2, 2, 2).astype(np.float32)))
    assert _v(out) == [[0, 5], [10, 15]]
    out = ops.PReLU()(ms.Tensor([[-1., 2.], [3., -4.]]), ms.Tensor([0.5, 0.1]))
    np.testing.assert_allclose(out.asnumpy(), [[-0.5, 2], [3, -0.4]], rtol=1e-6)
    np.testing.assert_allclose(ops.FastGelu()(ms.Tensor([1.])).asnumpy(), [0.845796],
                               rtol=1e-5)
    assert _v(ops.Bucketize([1., 3.])(ms.Tensor([0., 1., 3., 5.]))) == [0, 1, 2, 2]
    assert _v(ops.Histogram(4, 0., 4.)(ms.Tensor([0.5, 1.5, 1.7, 3.9]))) == [1, 2, 0, 1]
    out = ops.UnravelIndex()(ms.Tensor([5, 7], ms.int32), ms.Tensor([3, 4], ms.int32))
    assert out.dtype == ms.int32 and _v(out) == [[1, 1], [1, 3]]
    a, b = ms.Tensor([[2., 0.], [1., 4.]]), ms.Tensor([[2.], [9.]])
    assert _v(ops.MatrixTriangularSolve()(a, b)) == [[1], [2]]
    assert _v(ops.MatrixTriangularSolve(True, True)(a, b)) == [[-0.125], [2.25]]
