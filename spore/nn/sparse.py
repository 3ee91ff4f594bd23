"""``mindspore.nn.sparse``: the sparse layers' module path."""
from .layer.sparse import SparseTensorDenseMatmul, SparseToDense

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]
