"""Linear algebra ops: matmul (broadcasting batch), bmm, dense, outer, dot, einsum."""
from __future__ import annotations

from .._prims.linalg import matmul_p

__all__ = ["matmul"]


def matmul(input, other):
    """Matrix product with NumPy's rules (1-D operands, broadcast batch dimensions)."""
    return matmul_p(input, other)
