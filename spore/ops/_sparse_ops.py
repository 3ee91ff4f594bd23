"""Sparse-tensor functions and primitive classes of ``mindspore.ops`` (see spore/_sparse.py,
NOTE: [Sparse tensors])."""
from .. import _sparse as S
from .operations import Primitive

globals().update(S.FUNCTIONS)
_to_dense = S._named(S.sparse_to_dense, "SparseToDense")
_matmul = S._named(S.sparse_tensor_dense_matmul, "SparseTensorDenseMatmul")


class SparseToDense(Primitive):
    """``SparseToDense()(indices, values, sparse_shape)``: the dense tensor of COO data."""

    def __call__(self, indices, values, sparse_shape):
        return _to_dense(indices, values, sparse_shape)


class SparseTensorDenseMatmul(Primitive):
    """``SparseTensorDenseMatmul(adjoint_st, adjoint_dt)(indices, values, sparse_shape,
    dense)``: a COO matrix times a dense matrix."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        if not isinstance(adjoint_st, bool) or not isinstance(adjoint_dt, bool):
            raise TypeError("For 'SparseTensorDenseMatmul', 'adjoint_st' and 'adjoint_dt' "
                            "must be bool.")
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def __call__(self, indices, values, sparse_shape, dense):
        return _matmul(indices, values, sparse_shape, dense, self.adjoint_st,
                       self.adjoint_dt)


__all__ = sorted(S.FUNCTIONS) + ["SparseToDense", "SparseTensorDenseMatmul"]
