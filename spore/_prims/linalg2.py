"""Linear-algebra primitives behind MindSpore's LU, Householder-QR and matrix-logarithm
ops. Everything else of that family (lu_solve, lu_unpack, orgqr, ormqr, MatrixSolveLs,
NuclearNorm, TridiagonalMatMul, the MatrixDiag*V3 ops) is a composite of differentiable
primitives in ``spore/ops/_linalg_more.py``; these three hold what has no such form.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from ._base import dtype_name

Primitive = P.Primitive


# ----------------------------------------------------------------- LU pivots
def _permutation_infer(attrs, pivots):
    dtype = np.dtype(pivots.dtype)
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"For 'LuUnpack', the 'LU_pivots' must be Int32 or Int64 (or any int), "
                        f"but got {dtype_name(dtype)}.")
    if len(shape_of(pivots)) < 1:
        raise ValueError("For 'LuUnpack', the 'LU_pivots' must have at least 1 dimension.")
    return ShapedArray(tuple(shape_of(pivots)[:-1]) + (attrs["rows"],), np.dtype(np.int64))


def _make_permutation(xp):
    def permutation(pivots, rows):
        """Rows of A in the order of L U: LAPACK's pivots are 1-based row swaps, applied
        in turn to 0..rows-1."""
        piv = np.asarray(pivots, np.int64)
        if piv.size and (piv.min() < 1 or piv.max() > rows):
            raise ValueError(f"For 'LuUnpack', the 'LU_pivots' must be in [1, {rows}], but got "
                             f"values from {piv.min()} to {piv.max()}.")
        flat = piv.reshape(-1, piv.shape[-1]) - 1
        perm = np.broadcast_to(np.arange(rows), (flat.shape[0], rows)).copy()
        rows_idx = np.arange(flat.shape[0])
        for i in range(flat.shape[1]):
            j = flat[:, i]
            a, b = perm[rows_idx, i].copy(), perm[rows_idx, j].copy()
            perm[rows_idx, i], perm[rows_idx, j] = b, a
        return xp.asarray(perm.reshape(piv.shape[:-1] + (rows,)))
    return permutation


lu_permutation_p = Primitive("LuPermutation", _make_permutation, kind="opaque", n_inputs=1,
                             nondiff=True, infer=_permutation_infer,
                             doc="The row order 0..rows-1 that LAPACK's LU pivots give.")


# ----------------------------------------------------------------- Householder QR
_GEQRF_TYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                           np.complex128))


def _geqrf_infer(attrs, x):
    shape = tuple(shape_of(x))
    dtype = np.dtype(x.dtype)
    if dtype not in _GEQRF_TYPES:
        raise TypeError(f"For 'Geqrf', the 'input' must be Float32, Float64, Complex64 or "
                        f"Complex128, but got {dtype_name(dtype)}.")
    if len(shape) < 2:
        raise ValueError(f"For 'Geqrf', the rank of 'input' must be at least 2, but got "
                         f"{len(shape)}.")
    return ShapedArray(shape, dtype), ShapedArray(shape[:-2] + (min(shape[-2:]),), dtype)


def householder_qr(a):
    """geqrf on a stack of matrices ``[B, M, N]`` (float64 or complex128): for column j, the
    reflector H = I - tau v v^H with v[0] = 1 that maps A[j:, j] to (beta, 0, ...), beta =
    -sign(Re alpha) |A[j:, j]|, applied (as H^H) to the columns right of j.

    Written out rather than taken from LAPACK (NumPy's ``qr(mode="raw")``) for one case:
    where alpha is exactly 0 MindSpore takes beta = +|x| and LAPACK -|x|, which changes R's
    signs and every later column.
    """
    a = a.copy()
    b, m, n = a.shape
    k = min(m, n)
    tau = np.zeros((b, k), a.dtype)
    for j in range(k):
        x = a[:, j:, j]
        alpha = x[:, 0].copy()
        tail = np.sqrt(np.sum(np.abs(x[:, 1:]) ** 2, axis=1))
        reflect = (tail > 0) | (np.imag(alpha) != 0)
        norm = np.sqrt(np.abs(alpha) ** 2 + tail ** 2)
        beta = np.where(np.real(alpha) > 0, -norm, norm)
        safe_beta = np.where(reflect, beta, 1.0)
        denom = np.where(reflect, alpha - beta, 1.0)
        v = x / denom[:, None]
        v[:, 0] = 1.0
        t = np.where(reflect, (beta - alpha) / safe_beta, 0.0)
        tau[:, j] = t
        if j + 1 < n:
            rest = a[:, j:, j + 1:]
            w = np.einsum("bi,bij->bj", np.conj(v), rest)             # v^H A
            rest -= np.conj(t)[:, None, None] * v[:, :, None] * w[:, None, :]
        a[:, j, j] = np.where(reflect, beta, alpha)
        a[:, j + 1:, j] = np.where(reflect[:, None], v[:, 1:], x[:, 1:])
    return a, tau


def _make_geqrf(xp):
    def geqrf(x):
        arr = np.asarray(x)
        m, n = arr.shape[-2:]
        work = arr.reshape(-1, m, n).astype(np.complex128 if arr.dtype.kind == "c" else
                                            np.float64)
        h, tau = householder_qr(work)
        return (xp.asarray(h.reshape(arr.shape).astype(arr.dtype)),
                xp.asarray(tau.reshape(arr.shape[:-2] + (-1,)).astype(arr.dtype)))
    return geqrf


geqrf_p = Primitive("Geqrf", _make_geqrf, kind="opaque", n_inputs=1, multiple_results=True,
                    nondiff=True, infer=_geqrf_infer,
                    doc="Householder QR: R above the diagonal, reflectors below, and tau.")


# ----------------------------------------------------------------- matrix logarithm
def _logm_infer(attrs, x):
    shape = tuple(shape_of(x))
    dtype = np.dtype(x.dtype)
    if dtype not in (np.dtype(np.complex64), np.dtype(np.complex128)):
        raise TypeError(f"For primitive[MatrixLogarithm], the input argument[x] must be a type "
                        f"of {{Tensor[Complex128], Tensor[Complex64]}}, but got "
                        f"Tensor[{dtype_name(dtype)}].")
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'MatrixLogarithm', the input must be square matrices [..., N, N], "
                         f"but got shape {list(shape)}.")
    return ShapedArray(shape, dtype)


def _logm_one(a):
    """The principal logarithm of one matrix: SciPy's inverse scaling and squaring when
    installed, otherwise through the eigendecomposition A = V diag(w) V^-1 (exact for the
    diagonalizable matrices that are almost every matrix)."""
    try:
        from scipy.linalg import logm
    except ImportError:  # pragma: no cover - exercised by the no-SciPy test
        logm = None
    if logm is not None:
        return logm(a)
    return logm_eig(a)


def logm_eig(a):
    w, v = np.linalg.eig(a)
    return v @ np.diag(np.log(w.astype(np.complex128))) @ np.linalg.inv(v)


def _make_logm(xp):
    def matrix_logarithm(x):
        a = np.asarray(x)
        n = a.shape[-1]
        flat = a.reshape(-1, n, n).astype(np.complex128)
        out = np.stack([_logm_one(m) for m in flat]) if flat.shape[0] else flat
        return xp.asarray(out.reshape(a.shape).astype(a.dtype))
    return matrix_logarithm


matrix_logarithm_p = Primitive("MatrixLogarithm", _make_logm, kind="opaque", n_inputs=1,
                               nondiff=True, infer=_logm_infer,
                               doc="The principal matrix logarithm of complex matrices.")
