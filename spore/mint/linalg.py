"""``spore.mint.linalg`` (``mindspore.mint.linalg``): norms and inverse."""
from .. import ops as _ops
from .. import _absent


def inv(input):
    """Inverse of a square matrix (or a batch of them)."""
    return _ops.inverse(input)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over ``dim`` (all elements when None)."""
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm ('fro', 'nuc', ±1, ±2, ±inf) over the two dimensions ``dim``."""
    return _ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm`` by ``ord`` and ``dim``, as ``torch.linalg.norm``."""
    return _ops.norm(A, ord, dim, keepdim, dtype=dtype)


def qr(A, mode="reduced"):
    """``(Q, R)`` of ``A``: mode 'reduced', 'complete' or 'r' (``ops.qr``)."""
    return _ops.qr(A, mode)


def __getattr__(name):
    return _absent.missing(__name__, name)
