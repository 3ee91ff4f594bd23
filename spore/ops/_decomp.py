"""``mindspore.ops``' matrix decompositions and solvers: cholesky, cholesky_solve,
cholesky_inverse, matrix_solve, matrix_exp, lstsq, pinv, svd, qr, eig, eigvals.

Thin adapters over ``spore/_prims/decomp.py`` (and the Svd primitive of ``linalg.py``);
composites (cholesky_solve, cholesky_inverse, lstsq) differentiate through their parts.
"""
from __future__ import annotations

import numbers

from .. import _dtype as D


from .._core import primitive as P
from .._prims import decomp as K
from .._prims import linalg as L
from ._extra import _tensor as require_tensor
from ._utils import public_functions

_Tensor = P._Tensor


def _matrix(name, arg, x):
    return require_tensor(name, arg, x)


def _factor(name, x, upper):
    """The lower factor L of A = L L^T from a lower (or, when ``upper``, upper) factor."""
    x = _matrix(name, "input", x)
    return x.swapaxes(-1, -2) if upper else x


def _float_matrix(name, arg, x):
    x = _matrix(name, arg, x)
    if x.dtype not in (D.float32, D.float64):
        raise TypeError(f"For '{name}', the '{arg}' must be a Float32 or Float64 tensor, but "
                        f"got {x.dtype}.")
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the '{arg}' must be at least 2-D, but got {x.ndim}-D.")
    return x


def cholesky(input_x, upper=False):
    """The Cholesky factor of symmetric positive-definite ``input_x`` (batched): lower, or
    upper with ``upper=True``."""
    return K.cholesky_p(_matrix("cholesky", "input_x", input_x), upper=bool(upper))


def cholesky_solve(input, input2, upper=False):
    """X with A X = ``input`` where A = L L^T and ``input2`` is L (or U = L^T if ``upper``)."""
    b = _matrix("cholesky_solve", "input", input)
    lower = _factor("cholesky_solve", input2, upper)
    from .. import ops
    a = ops.matmul(lower, lower.swapaxes(-1, -2))
    return K.solve_p(a, b)


def cholesky_inverse(input_x, upper=False):
    """The inverse of A = L L^T from its Cholesky factor ``input_x`` (L, or U if ``upper``)."""
    lower = _factor("cholesky_inverse", input_x, upper)
    from .. import ops
    a = ops.matmul(lower, lower.swapaxes(-1, -2))
    return K.solve_p(a, ops.eye(a.shape[-1], a.shape[-1], a.dtype))


def matrix_solve(matrix, rhs, adjoint=False):
    """X with ``matrix`` X = ``rhs`` (``matrix``^H X = ``rhs`` when ``adjoint``)."""
    a = _matrix("matrix_solve", "matrix", matrix)
    b = _matrix("matrix_solve", "rhs", rhs)
    if adjoint:
        a = a.swapaxes(-1, -2)
    return K.solve_p(a, b)


def matrix_exp(input):
    """The matrix exponential of square ``input`` (batched)."""
    return K.matrix_exp_p(_matrix("matrix_exp", "input", input))


def _tolerance(name, arg, value):
    if value is None:
        return None
    if isinstance(value, _Tensor):
        if value.size != 1:
            raise ValueError(f"For '{name}', the '{arg}' must be a scalar, but got shape "
                             f"{list(value.shape)}.")
        value = value.item()
    if not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', the '{arg}' must be a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * s_max)``
    are dropped (``rtol`` defaults to ``eps * max(M, N)`` when ``atol`` is not given, else
    0)."""
    import numpy as np
    x = _float_matrix("pinv", "x", x)
    atol = _tolerance("pinv", "atol", atol)
    rtol = _tolerance("pinv", "rtol", rtol)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else \
            float(np.finfo(x.dtype.np).eps) * max(x.shape[-2:])
    return K.pinv_p(x, atol=0.0 if atol is None else atol, rtol=rtol,
                    hermitian=bool(hermitian))


def lstsq(input, A):
    """The least-squares (minimum-norm) solution X of ``input`` X = ``A``: ``pinv(input) @
    A`` (``A`` 1-D is one right-hand side)."""
    from .. import ops
    x = _float_matrix("lstsq", "input", input)
    b = _matrix("lstsq", "A", A)
    if x.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != x.shape[0]:
        raise ValueError(f"For 'lstsq', 'input' must be 2-D (M, N) and 'A' (M,) or (M, K), but "
                         f"got {list(x.shape)} and {list(b.shape)}.")
    return ops.matmul(pinv(x), b)


def svd(input, full_matrices=False, compute_uv=True):
    """``(s, u, v)`` with ``input = u @ diag(s) @ v^T`` (``v``, not its transpose), or ``s``
    alone; ``full_matrices`` gives square ``u`` and ``v``. Singular values (``compute_uv``
    False) have a gradient; the factors do not."""
    import numpy as np
    x = _matrix("svd", "input", input)
    if not compute_uv:
        return L.svdvals_p(x)
    if not full_matrices:
        s, u, vh = L.svd_p(x)
        return s, u, vh.swapaxes(-1, -2)
    u, s, vh = np.linalg.svd(x.asnumpy(), full_matrices=True)
    return (_Tensor(s.astype(x.dtype.np)), _Tensor(u.astype(x.dtype.np)),
            _Tensor(np.swapaxes(vh, -1, -2).astype(x.dtype.np)))


def qr(input, mode="reduced"):
    """``(Q, R)``: 'reduced' (Q is M x K, K = min(M, N)), 'complete' (Q is M x M) or 'r'
    (an empty Q and R)."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"For 'qr', the 'mode' must be 'reduced', 'complete' or 'r', but got "
                         f"{mode!r}.")
    q, r = K.qr_p(_matrix("qr", "input", input), mode=mode)
    return q, r


def eig(A):
    """``(eigenvalues, eigenvectors)`` of square ``A`` as Complex64 (Complex128 for
    Float64); no gradient."""
    return K.eig_p(_matrix("eig", "A", A))


def eigvals(A):
    """The (complex) eigenvalues of square ``A``."""
    return K.eig_p(_matrix("eigvals", "A", A))[0]


__all__ = public_functions(globals(), __name__)

