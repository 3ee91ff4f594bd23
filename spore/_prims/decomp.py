"""Matrix decompositions and functions: Cholesky, MatrixSolve, MatrixExp, Pinv, Qr, Eig.

Kernels are ``numpy.linalg`` over the last two dimensions (batched). Gradient rules are the
standard matrix-calculus results, written with primitives so they differentiate again:

* Cholesky A = L L^T: dA = L^-T Phi(L^T dL) L^-1, symmetrised (Phi: lower triangle with a
  halved diagonal).
* MatrixSolve X = A^-1 B: dB = A^-T G, dA = -dB X^T.
* MatrixExp: the cotangent is the upper-right block of exp([[A^T, G], [0, A^T]]).
* Pinv (constant rank): Golub and Pereyra's derivative of the pseudo-inverse.
* Qr (reduced, rows >= columns): the rule of Walter and Lehmann; other shapes and modes
  refuse a gradient, as PyTorch's.
* Eig has no gradient (complex eigenvectors are defined up to a phase).
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from .._core.primitive import PrimitiveTypeError
from .array import transpose_p
from .linalg import matmul_p
from .math import mul_p, sub_p, add_p, neg_p
from .complexnum import complex_dtype
from ._base import np_dtype

Primitive = P.Primitive


def _float_matrix(name, x, square=True):
    d = np.dtype(x.dtype)
    if d.kind != "f" or d == np.float16:
        raise PrimitiveTypeError(f"For '{name}', the input must be a Float32 or Float64 tensor, "
                                 f"but got {d}.")
    shape = shape_of(x)
    if len(shape) < 2:
        raise ValueError(f"For '{name}', the input must be at least 2-D, but got shape "
                         f"{list(shape)}.")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"For '{name}', the input must be square matrices, but got shape "
                         f"{list(shape)}.")
    return shape


def mT(t):
    """Transpose of the last two dimensions."""
    n = len(t.shape)
    return transpose_p(t, perm=tuple(range(n - 2)) + (n - 1, n - 2))


def _eye_like(n, dtype):
    return P._Tensor(np.eye(n, dtype=dtype))


def _tril(xp_array_or_tensor, k=0):
    from .. import ops
    return ops.tril(xp_array_or_tensor, k)


# ------------------------------------------------------------------ Cholesky
def _chol_infer(attrs, x):
    return ShapedArray(_float_matrix("Cholesky", x), np.dtype(x.dtype))


def _make_cholesky(xp):
    def kernel(x, upper):
        lower = xp.linalg.cholesky(x)
        return xp.ascontiguousarray(xp.swapaxes(lower, -1, -2)) if upper else lower
    return kernel


cholesky_p = Primitive("Cholesky", _make_cholesky, kind="opaque", n_inputs=1,
                       infer=_chol_infer, doc="The Cholesky factor of symmetric positive-"
                       "definite matrices (lower, or upper with upper=True).")


@cholesky_p.def_grad(output=True)
def _cholesky_grad(attrs, inputs, out, dout):
    x = inputs[0]
    L, G = (mT(out), mT(dout)) if attrs["upper"] else (out, dout)
    n = L.shape[-1]
    dtype = np.dtype(x.dtype)
    phi = mul_p(matmul_p(mT(L), G), P._Tensor((np.tril(np.ones((n, n))) -
                                                0.5 * np.eye(n)).astype(dtype)))
    eye = P._Tensor(np.ascontiguousarray(np.broadcast_to(np.eye(n, dtype=dtype), L.shape)))
    L_inv = solve_p(L, eye)
    S = matmul_p(matmul_p(mT(L_inv), phi), L_inv)
    return (mul_p(add_p(S, mT(S)), 0.5),)


# ------------------------------------------------------------------ solve
def _solve_infer(attrs, a, b):
    _float_matrix("MatrixSolve", a)
    if np.dtype(a.dtype) != np.dtype(b.dtype):
        raise PrimitiveTypeError(f"For 'MatrixSolve', 'matrix' and 'rhs' must have one dtype, "
                                 f"but got {np.dtype(a.dtype)} and {np.dtype(b.dtype)}.")
    sa, sb = shape_of(a), shape_of(b)
    if len(sb) != len(sa) or sb[:-2] != sa[:-2] or sb[-2] != sa[-1]:
        raise ValueError(f"For 'MatrixSolve', 'rhs' must have the shape [..., {sa[-1]}, K] of "
                         f"'matrix' {list(sa)}, but got {list(sb)}.")
    return ShapedArray(sb, np.dtype(b.dtype))


solve_p = Primitive("MatrixSolve", lambda xp: lambda a, b: xp.linalg.solve(a, b),
                    kind="opaque", n_inputs=2, infer=_solve_infer,
                    doc="X with A X = B, for square A (batched).")


@solve_p.def_grad(inputs=(0,), output=True)
def _solve_grad(attrs, inputs, out, dout):
    a = inputs[0]
    db = solve_p(mT(a), dout)
    return neg_p(matmul_p(db, mT(out))), db


# ------------------------------------------------------------------ matrix exponential
def _expm(xp, a):
    """exp of each matrix: scaling and squaring with a degree-18 Taylor polynomial in
    float64 (accurate to round-off after scaling the norm below 1/2)."""
    work = a.astype(np.float64)
    norm = xp.abs(work).sum(axis=-2).max() if work.size else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm / 0.5)))) if norm > 0.5 else 0
    work = work / (2.0 ** squarings)
    eye = xp.broadcast_to(xp.eye(a.shape[-1]), work.shape)
    result, term = eye.copy(), eye.copy()
    for k in range(1, 19):
        term = term @ work / k
        result = result + term
    for _ in range(squarings):
        result = result @ result
    return result.astype(a.dtype)


def _mexp_infer(attrs, x):
    return ShapedArray(_float_matrix("MatrixExp", x), np.dtype(x.dtype))


matrix_exp_p = Primitive("MatrixExp", lambda xp: lambda x: _expm(xp, x), kind="opaque",
                         n_inputs=1, infer=_mexp_infer, doc="The matrix exponential.")


@matrix_exp_p.def_grad(inputs=(0,))
def _matrix_exp_grad(attrs, inputs, out, dout):
    from .array import concat_p
    x = inputs[0]
    n = x.shape[-1]
    at = mT(x)
    zeros = mul_p(at, 0)
    block = concat_p(concat_p(at, dout, axis=-1), concat_p(zeros, at, axis=-1), axis=-2)
    big = matrix_exp_p(block)
    from .. import ops
    return (ops.narrow(ops.narrow(big, -2, 0, n), -1, n, n),)


# ------------------------------------------------------------------ pseudo-inverse
def _pinv_infer(attrs, x):
    shape = _float_matrix("Pinv", x, square=False)
    return ShapedArray(tuple(shape[:-2]) + (shape[-1], shape[-2]), np.dtype(x.dtype))


def _make_pinv(xp):
    def kernel(x, atol, rtol, hermitian):
        u, s, vh = xp.linalg.svd(x, full_matrices=False, hermitian=hermitian)
        s_abs = xp.abs(s)
        top = s_abs.max(axis=-1, keepdims=True) if s.shape[-1] else s_abs
        cutoff = xp.maximum(atol, rtol * top)
        keep = s_abs > cutoff
        inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
        return xp.swapaxes(vh, -1, -2) @ (inv[..., None] * xp.swapaxes(u, -1, -2))
    return kernel


pinv_p = Primitive("Pinv", _make_pinv, kind="opaque", n_inputs=1, infer=_pinv_infer,
                   doc="The Moore-Penrose pseudo-inverse (singular values <= max(atol, "
                   "rtol * largest) dropped).")


@pinv_p.def_grad(inputs=(0,), output=True)
def _pinv_grad(attrs, inputs, out, dout):
    a, p, g = inputs[0], out, dout
    m, n = a.shape[-2], a.shape[-1]
    dtype = np_dtype(a)
    pt = mT(p)
    term1 = neg_p(matmul_p(matmul_p(pt, g), pt))
    left = sub_p(_eye_like(m, dtype), matmul_p(a, p))          # I - A A+
    right = sub_p(_eye_like(n, dtype), matmul_p(p, a))         # I - A+ A
    term2 = matmul_p(matmul_p(matmul_p(left, mT(g)), p), pt)
    term3 = matmul_p(matmul_p(matmul_p(pt, p), mT(g)), right)
    return (add_p(add_p(term1, term2), term3),)


# ------------------------------------------------------------------ QR
def _qr_infer(attrs, x):
    shape = _float_matrix("Qr", x, square=False)
    m, n = shape[-2:]
    batch = tuple(shape[:-2])
    k = m if attrs["mode"] == "complete" else min(m, n)
    dtype = np.dtype(x.dtype)
    r = ShapedArray(batch + (k, n), dtype)
    if attrs["mode"] == "r":
        return (ShapedArray(batch + (0,), dtype), r)
    return (ShapedArray(batch + (m, k), dtype), r)


def _make_qr(xp):
    def kernel(x, mode):
        if mode == "r":
            r = xp.linalg.qr(x, mode="r")
            return xp.zeros(x.shape[:-2] + (0,), x.dtype), r
        q, r = xp.linalg.qr(x, mode=mode)
        return q, r
    return kernel


qr_p = Primitive("Qr", _make_qr, kind="opaque", n_inputs=1, multiple_results=True,
                 infer=_qr_infer, doc="The QR decomposition (reduced, complete, or R only).")


@qr_p.def_grad(output=True)
def _qr_grad(attrs, inputs, out, douts):
    x = inputs[0]
    m, n = x.shape[-2], x.shape[-1]
    if attrs["mode"] == "r" or (attrs["mode"] == "complete" and m > n) or m < n:
        raise NotImplementedError(
            "The gradient of qr is defined for mode='reduced' with rows >= columns (and for "
            "square matrices in mode='complete'); R alone does not determine it.")
    q, r = out
    gq, gr = douts
    if gq is None:
        gq = mul_p(q, 0)
    if gr is None:
        gr = mul_p(r, 0)
    M = sub_p(matmul_p(r, mT(gr)), matmul_p(mT(gq), q))
    low = _tril(M, -1)
    copyltu = add_p(add_p(low, mT(low)), mul_p(M, P._Tensor(np.eye(n, dtype=np.dtype(x.dtype)))))
    b = add_p(gq, matmul_p(q, copyltu))
    # b R^-T: solve R X^T = b^T
    return (mT(solve_p(r, mT(b))),)


# ------------------------------------------------------------------ eigen-decomposition
def _eig_infer(attrs, x):
    shape = _float_matrix("Eig", x)
    c = complex_dtype(np.dtype(x.dtype))
    return (ShapedArray(tuple(shape[:-1]), c), ShapedArray(tuple(shape), c))


def _make_eig(xp):
    def kernel(x):
        w, v = xp.linalg.eig(x)
        c = complex_dtype(x.dtype)
        return w.astype(c), v.astype(c)
    return kernel


eig_p = Primitive("Eig", _make_eig, kind="opaque", n_inputs=1, multiple_results=True,
                  nondiff=True, infer=_eig_infer,
                  doc="Eigenvalues and right eigenvectors of square matrices (complex).")
