"""COOTensor / CSRTensor / RowTensor and the sparse functions of ops (NOTE: [Sparse
tensors]): each against the same computation on the dense matrix."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor, COOTensor, CSRTensor, RowTensor


def f32(a):
    return Tensor(np.array(a, np.float32))


def i32(a):
    return Tensor(np.array(a, np.int32))


def _csr():
    return CSRTensor(i32([0, 1, 2, 2]), i32([1, 2]), f32([1., -2.]), (3, 4))


def _coo():
    return COOTensor(i32([[0, 1], [1, 2]]), f32([1., -2.]), (3, 4))


DENSE = np.array([[0, 1, 0, 0], [0, 0, -2, 0], [0, 0, 0, 0]], np.float32)


def test_coo_tensor_properties_and_conversions():
    c = _coo()
    assert (c.shape, c.dtype, c.ndim, c.size, c.itemsize) == ((3, 4), ms.float32, 2, 2, 4)
    np.testing.assert_array_equal(c.to_dense().asnumpy(), DENSE)
    indptr, indices, values, shape = c.to_csr().to_tuple()
    assert indptr.asnumpy().tolist() == [0, 1, 2, 2] and indices.asnumpy().tolist() == [1, 2]
    np.testing.assert_array_equal(c.abs().values.asnumpy(), [1, 2])
    assert c.astype(ms.float64).dtype == ms.float64
    assert COOTensor(coo_tensor=c).shape == (3, 4)
    dup = COOTensor(i32([[2, 0], [0, 1], [0, 1]]), f32([3., 1., 2.]), (3, 4)).coalesce()
    assert dup.indices.asnumpy().tolist() == [[0, 1], [2, 0]]
    np.testing.assert_array_equal(dup.values.asnumpy(), [3, 3])


def test_csr_tensor_properties_and_products():
    c = _csr()
    np.testing.assert_array_equal(c.to_dense().asnumpy(), DENSE)
    assert c.to_coo().indices.asnumpy().tolist() == [[0, 1], [1, 2]]
    v = np.arange(4, dtype=np.float32).reshape(4, 1)
    np.testing.assert_allclose(c.mv(Tensor(v)).asnumpy(), DENSE @ v)
    m = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(c.mm(Tensor(m)).asnumpy(), DENSE @ m)
    np.testing.assert_allclose(c.sum(1).asnumpy(), DENSE.sum(1, keepdims=True))
    other = CSRTensor(i32([0, 1, 1, 2]), i32([1, 0]), f32([3., 5.]), (3, 4))
    right = CSRTensor(i32([0, 1, 1, 2, 2]), i32([0, 1]), f32([1., 2.]), (4, 2))
    np.testing.assert_allclose(ops.csr_mm(c, right).to_dense().asnumpy(),
                               DENSE @ np.array([[1, 0], [0, 0], [0, 2], [0, 0]], np.float32))
    total = c.add(other, f32(1.0), f32(2.0))
    np.testing.assert_allclose(total.to_dense().asnumpy(), DENSE + 2 * other.to_dense().asnumpy())


def test_elementwise_functions_apply_to_the_stored_values():
    c, r = _coo(), _csr()
    np.testing.assert_array_equal(ops.coo_relu(c).values.asnumpy(), [1, 0])
    np.testing.assert_array_equal(ops.csr_relu(r).values.asnumpy(), [1, 0])
    np.testing.assert_allclose(ops.coo_inv(c).values.asnumpy(), [1, -0.5])
    np.testing.assert_allclose(ops.csr_tanh(r).values.asnumpy(), np.tanh([1, -2]), rtol=1e-6)
    assert ops.coo_isnan(c).values.dtype == ms.bool_
    weights = np.array([[1., 2., 3., 4.]], np.float32)
    np.testing.assert_allclose(ops.csr_mul(r, Tensor(weights)).to_dense().asnumpy(),
                               DENSE * weights)
    np.testing.assert_allclose(ops.csr_div(r, Tensor(weights)).values.asnumpy(), [0.5, -2 / 3],
                               rtol=1e-6)
    full = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(
        ops.csr_gather(i32([0, 1, 2, 2]), i32([1, 2]), Tensor(full), (3, 4)).asnumpy(), [1, 6])


def test_softmax_reduce_and_index_conversions():
    r = CSRTensor(i32([0, 2, 3, 3]), i32([0, 3, 1]), f32([1., 2., 5.]), (3, 4))
    sm = ops.csr_softmax(r, ms.float32).values.asnumpy()
    np.testing.assert_allclose(sm, [np.exp(1) / (np.exp(1) + np.exp(2)),
                                    np.exp(2) / (np.exp(1) + np.exp(2)), 1.0], rtol=1e-6)
    np.testing.assert_allclose(ops.csr_reduce_sum(r, 1).asnumpy().ravel(), [3, 5, 0])
    with pytest.raises(ValueError, match="`axis` should be 1"):
        ops.csr_reduce_sum(r, 0)
    assert ops.csr2coo(i32([0, 2, 3, 3]), 3).asnumpy().tolist() == [0, 0, 1]
    assert ops.coo2csr(i32([0, 0, 1]), 3).asnumpy().tolist() == [0, 2, 3, 3]


def test_coo_add_concat_and_dense_conversions():
    a, b = _coo(), COOTensor(i32([[0, 1], [2, 0]]), f32([3., 5.]), (3, 4))
    np.testing.assert_array_equal(ops.coo_add(a, b, f32(0.0)).to_dense().asnumpy(),
                                  DENSE + b.to_dense().asnumpy())
    dropped = ops.coo_add(a, b, f32(4.5))                    # |4|, |-2| < 4.5: dropped
    assert dropped.indices.asnumpy().tolist() == [[2, 0]]
    cat = ops.coo_concat((a, b), 1)
    np.testing.assert_array_equal(cat.to_dense().asnumpy(),
                                  np.concatenate([DENSE, b.to_dense().asnumpy()], 1))
    d = np.array([[0, 1.], [2, 0]], np.float32)
    coo = ops.dense_to_sparse_coo(Tensor(d))
    assert coo.indices.asnumpy().tolist() == [[0, 1], [1, 0]]
    np.testing.assert_array_equal(ops.dense_to_sparse_csr(Tensor(d)).to_dense().asnumpy(), d)
    assert ops.coo_tensor_get_dense_shape(a) == (3, 4)
    assert ops.csr_tensor_get_indptr(_csr()).asnumpy().tolist() == [0, 1, 2, 2]


def test_sparse_primitives_cells_and_row_tensor():
    idx, vals = i32([[0, 1], [1, 2]]), f32([1., 2.])
    want = np.zeros((3, 4), np.float32)
    want[0, 1], want[1, 2] = 1, 2
    np.testing.assert_array_equal(ops.SparseToDense()(idx, vals, (3, 4)).asnumpy(), want)
    dense = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_allclose(
        ops.SparseTensorDenseMatmul()(idx, vals, (3, 4), Tensor(dense)).asnumpy(), want @ dense)
    np.testing.assert_allclose(
        nn.SparseTensorDenseMatmul(adjoint_st=True)(idx, vals, (3, 4),
                                                    Tensor(np.ones((3, 2), np.float32))).asnumpy(),
        want.T @ np.ones((3, 2), np.float32))
    np.testing.assert_array_equal(nn.SparseToDense()(_coo()).asnumpy(), DENSE)
    rows = RowTensor(i32([2, 0]), f32([[1., 2.], [3., 4.]]), (3, 2))
    np.testing.assert_array_equal(rows.to_dense().asnumpy(), [[3, 4], [0, 0], [1, 2]])


def test_values_carry_gradients():
    v = f32([1., -2.])
    vec = np.arange(4, dtype=np.float32).reshape(4, 1)
    g = ms.grad(lambda val: ops.csr_mv(CSRTensor(i32([0, 1, 2, 2]), i32([1, 2]), val, (3, 4)),
                                       Tensor(vec)).sum())(v)
    np.testing.assert_array_equal(g.asnumpy(), [1, 2])          # d/dv of v0*vec[1] + v1*vec[2]
    g = ms.grad(lambda val: (COOTensor(i32([[0, 1], [1, 2]]), val, (3, 4)).to_dense() ** 2)
                .sum())(v)
    np.testing.assert_array_equal(g.asnumpy(), [2, -4])


def test_bad_input():
    with pytest.raises(ValueError, match="within 'shape'"):
        COOTensor(i32([[0, 5]]), f32([1.]), (3, 4))
    with pytest.raises(TypeError, match="integer Tensor"):
        COOTensor(f32([[0, 1]]), f32([1.]), (3, 4))
    with pytest.raises(ValueError, match="indptr"):
        CSRTensor(i32([0, 1]), i32([1]), f32([1.]), (3, 4))
    with pytest.raises(TypeError, match="must be a COOTensor"):
        ops.coo_relu(_csr())
