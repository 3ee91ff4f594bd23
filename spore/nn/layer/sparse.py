"""``nn.SparseToDense`` and ``nn.SparseTensorDenseMatmul`` (NOTE: [Sparse tensors])."""
from ..cell import Cell
from ... import _sparse as S


class SparseToDense(Cell):
    """The dense tensor of a ``COOTensor``."""

    def construct(self, sparse_tensor):
        if not isinstance(sparse_tensor, S.COOTensor):
            raise TypeError(f"For 'SparseToDense', the input must be a COOTensor, but got "
                            f"{type(sparse_tensor).__name__}.")
        return sparse_tensor.to_dense()


class SparseTensorDenseMatmul(Cell):
    """``construct(indices, values, sparse_shape, dense)``: a COO matrix times a dense one."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt

    def construct(self, indices, values, sparse_shape, dense):
        return S.sparse_tensor_dense_matmul(indices, values, sparse_shape, dense,
                                            self.adjoint_st, self.adjoint_dt)
