"""LU, Householder QR, least squares, nuclear norm, tridiagonal products and the
MatrixDiag*V3 family of ``mindspore.ops``, plus the functions behind the primitive classes
NthElement, HistogramFixedWidth, CompareAndBitpack and Quantile.

Most are composites of differentiable primitives (gathers with index maps computed from
static shapes, triangular solves, products of Householder reflectors), so their gradients
follow; ``spore/_prims/linalg2.py`` holds the three that need kernels of their own.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as D
from .._prims import linalg2 as L2
from .._tensor import Tensor as _Tensor
from ._extra import _ops, _tensor
from ._utils import public_functions


def _float_or_complex(name, arg, x, allowed=(D.float32, D.float64, D.complex64, D.complex128)):
    _tensor(name, arg, x)
    if x.dtype not in allowed:
        raise TypeError(f"For '{name}', the '{arg}' must be one of "
                        f"{', '.join(str(a) for a in allowed)}, but got {x.dtype}.")
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the '{arg}' must be at least 2-D, but got {x.ndim}-D.")
    return x


def _mT(x):
    return x.swapaxes(-1, -2)


def _mH(x):
    t = _mT(x)
    return _ops().conj(t) if t.dtype in (D.complex64, D.complex128) else t


def _eye_like(n, x):
    return _ops().eye(n, n, x.dtype)


# --------------------------------------------------------------------------- LU
def _lu_parts(lu):
    """(L with a unit diagonal, U) of a packed [..., M, N] LU factorization."""
    ops = _ops()
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = ops.tril(lu, -1)[..., :, :k] + ops.eye(m, k, lu.dtype)
    upper = ops.triu(lu)[..., :k, :]
    return lower, upper


def _permutation(name, pivots, rows):
    _tensor(name, "LU_pivots", pivots)
    if pivots.dtype not in D.int_type:
        raise TypeError(f"For '{name}', the 'LU_pivots' must be an int tensor, but got "
                        f"{pivots.dtype}.")
    return L2.lu_permutation_p(pivots, rows=rows)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` with ``A = P @ L @ U`` from the packed LU factors (``[..., M, N]``)
    and LAPACK's 1-based pivots (``[..., min(M, N)]``). Parts not unpacked are None."""
    ops = _ops()
    lu = _float_or_complex("lu_unpack", "LU_data", LU_data,
                           (D.float16, D.float32, D.float64, D.int8, D.int16, D.int32,
                            D.int64, D.uint8))
    _tensor("lu_unpack", "LU_pivots", LU_pivots)
    m, n = lu.shape[-2:]
    if LU_pivots.ndim < 1 or LU_pivots.shape[-1] != min(m, n):
        raise ValueError(f"For 'lu_unpack', the last dimension of 'LU_pivots' must be "
                         f"min(M, N) = {min(m, n)}, but got {LU_pivots.shape[-1]}.")
    perm = _permutation("lu_unpack", LU_pivots, m)
    p = None
    if unpack_pivots:
        # row i of P^T picks row perm[i] of A, so P[:, i] is the one-hot of perm[i]
        p = _mT(ops.one_hot(perm, m, ops.ones((), lu.dtype), ops.zeros((), lu.dtype)))
    lower = upper = None
    if unpack_data:
        lower, upper = _lu_parts(lu)
    return p, lower, upper


def lu_solve(b, LU_data, LU_pivots):
    """The solution X of ``A X = b`` from A's LU factorization (``lu_factor``'s packed
    factors and 1-based pivots); batch dimensions broadcast."""
    ops = _ops()
    lu = _float_or_complex("lu_solve", "LU_data", LU_data, (D.float16, D.float32, D.float64))
    _tensor("lu_solve", "b", b)
    if b.dtype != lu.dtype:
        raise TypeError(f"For 'lu_solve', 'b' and 'LU_data' must have one dtype, but got "
                        f"{b.dtype} and {lu.dtype}.")
    m, n = lu.shape[-2:]
    if m != n or b.ndim < 2 or b.shape[-2] != m:
        raise ValueError(f"For 'lu_solve', 'LU_data' must be square [..., M, M] and 'b' "
                         f"[..., M, K], but got {list(lu.shape)} and {list(b.shape)}.")
    perm = _permutation("lu_solve", LU_pivots, m)
    batch = tuple(np.broadcast_shapes(b.shape[:-2], lu.shape[:-2], perm.shape[:-1]))
    b = ops.broadcast_to(b, batch + tuple(b.shape[-2:]))
    lu = ops.broadcast_to(lu, batch + (m, m))
    perm = ops.broadcast_to(perm, batch + (m,))
    rows = ops.broadcast_to(perm.expand_dims(-1), batch + (m, b.shape[-1]))
    permuted = ops.gather_elements(b, b.ndim - 2, rows)
    work = lu.astype(D.float32) if lu.dtype == D.float16 else lu
    lower, upper = _lu_parts(work)
    y = ops.matrix_solve(lower, permuted.astype(work.dtype))
    return ops.matrix_solve(upper, y).astype(lu.dtype)


# --------------------------------------------------------------------------- Householder QR
def geqrf(input):
    """LAPACK's Householder QR: ``(y, tau)``, R on and above the diagonal of y, the
    reflectors' vectors (their leading 1 implied) below it."""
    x = _float_or_complex("geqrf", "input", input)
    return L2.geqrf_p(x)


def _reflectors(name, a, tau):
    """The Householder vectors v_i (``[..., M]`` each) stored below a's diagonal."""
    ops = _ops()
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    if k > n or k > m:
        raise ValueError(f"For '{name}', the last dimension of 'tau' ({k}) must not exceed "
                         f"the matrix's dimensions {m} x {n}.")
    below = ops.tril(a, -1) + ops.eye(m, n, a.dtype)
    return [below[..., :, i] for i in range(k)]


def _apply_reflector(v, t, c, left):
    """H c (left) or c H (right) for H = I - t v v^H, without forming H."""
    ops = _ops()
    if left:
        w = ops.matmul(ops.conj(v).expand_dims(-2) if v.dtype.is_complex else
                       v.expand_dims(-2), c)                     # v^H c: [..., 1, K]
        return c - (t.expand_dims(-1).expand_dims(-1) * v.expand_dims(-1)) * w
    w = ops.matmul(c, v.expand_dims(-1))                         # c v: [..., K, 1]
    vh = ops.conj(v) if v.dtype.is_complex else v
    return c - (t.expand_dims(-1).expand_dims(-1) * w) * vh.expand_dims(-2)


def _check_qr_inputs(name, a, tau):
    _float_or_complex(name, "input", a)
    _tensor(name, "tau", tau)
    if tau.dtype != a.dtype:
        raise TypeError(f"For '{name}', 'input' and 'tau' must have one dtype, but got "
                        f"{a.dtype} and {tau.dtype}.")
    if tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
        raise ValueError(f"For '{name}', the batch dimensions of 'tau' {list(tau.shape[:-1])} "
                         f"must match those of 'input' {list(a.shape[:-2])}.")


def orgqr(input, input2):
    """The first N columns of Q = H_1 ... H_k from geqrf's reflectors (``input``,
    ``[..., M, N]``, M >= N) and factors (``input2``, ``[..., k]``)."""
    _check_qr_inputs("orgqr", input, input2)
    m, n = input.shape[-2:]
    if m < n:
        raise ValueError(f"For 'orgqr', the 'input' must have M >= N, but got {m} x {n}.")
    ops = _ops()
    q = ops.broadcast_to(ops.eye(m, n, input.dtype), tuple(input.shape))
    vs = _reflectors("orgqr", input, input2)
    for i in reversed(range(len(vs))):
        q = _apply_reflector(vs[i], input2[..., i], q, left=True)
    return q


def ormqr(input, tau, other, left=True, transpose=False):
    """``Q @ other`` (``left``) or ``other @ Q``, with Q (or, with ``transpose``, its
    conjugate transpose) the product of geqrf's Householder reflectors."""
    _check_qr_inputs("ormqr", input, tau)
    _tensor("ormqr", "other", other)
    for arg, v in (("left", left), ("transpose", transpose)):
        if not isinstance(v, bool):
            raise TypeError(f"For 'ormqr', the '{arg}' must be bool, but got "
                            f"{type(v).__name__}.")
    m = input.shape[-2]
    side = other.shape[-2] if left else other.shape[-1]
    if other.dtype != input.dtype or side != m:
        raise ValueError(f"For 'ormqr', 'other' must have {m} {'rows' if left else 'columns'} "
                         f"and the dtype of 'input', but got {list(other.shape)} "
                         f"{other.dtype}.")
    vs = _reflectors("ormqr", input, tau)
    taus = [tau[..., i] for i in range(len(vs))]
    if transpose:
        taus = [_ops().conj(t) if t.dtype.is_complex else t for t in taus]
    # Q = H_1 ... H_k: Q c applies H_k first; Q^H c applies H_1 first (and mirrored on the right)
    order = list(range(len(vs)))
    if left != transpose:
        order.reverse()
    c = other
    for i in order:
        c = _apply_reflector(vs[i], taus[i], c, left)
    return c


# --------------------------------------------------------------------------- solvers and norms
def matrix_solve_ls(matrix, rhs, l2_regularizer, fast=True):
    """Least-squares solutions of ``matrix @ X = rhs`` (batched). ``fast``: the regularized
    normal equations ``(A^H A + l2 I) X = A^H B`` (or ``X = A^H (A A^H + l2 I)^-1 B`` when A
    is wide); otherwise the minimum-norm solution by the pseudo-inverse, ignoring l2."""
    ops = _ops()
    name = "MatrixSolveLs"
    a = _float_or_complex(name, "matrix", matrix)
    b = _tensor(name, "rhs", rhs)
    if b.dtype != a.dtype or b.ndim != a.ndim or b.shape[-2] != a.shape[-2]:
        raise ValueError(f"For '{name}', 'rhs' must be [..., M, K] of the dtype of 'matrix' "
                         f"[..., M, N], but got {list(b.shape)} {b.dtype} and {list(a.shape)} "
                         f"{a.dtype}.")
    if isinstance(l2_regularizer, _Tensor) and l2_regularizer.size == 1:
        l2 = float(l2_regularizer.asnumpy().reshape(-1)[0])
    elif isinstance(l2_regularizer, (int, float)) and not isinstance(l2_regularizer, bool):
        l2 = float(l2_regularizer)
    else:
        raise TypeError(f"For '{name}', the 'l2' must be a scalar Tensor or a number, but got "
                        f"{l2_regularizer!r:.80}.")
    if not fast:
        return ops.matmul(ops.pinv(a), b)
    m, n = a.shape[-2:]
    ah = _mH(a)
    if m >= n:
        gram = ops.matmul(ah, a) + l2 * _eye_like(n, a)
        return ops.matrix_solve(gram, ops.matmul(ah, b))
    gram = ops.matmul(a, ah) + l2 * _eye_like(m, a)
    return ops.matmul(ah, ops.matrix_solve(gram, b))


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values of the matrices over the two axes ``dim`` (a 2-D
    input when None)."""
    ops = _ops()
    name = "NuclearNorm"
    x = _tensor(name, "input", input)
    if x.dtype not in (D.float32, D.float64):
        raise TypeError(f"For '{name}', the 'input' must be Float32 or Float64, but got "
                        f"{x.dtype}.")
    if dim is None:
        if x.ndim != 2:
            raise ValueError(f"For '{name}', when dim is not set, or dim is None, the "
                             f"input_size must be equal to 2, but got {x.ndim}.")
        dim = [0, 1]
    if not isinstance(dim, (list, tuple)) or len(dim) != 2:
        raise ValueError(f"For '{name}', the 'dim' must be a list of two ints, but got {dim}.")
    axes = [int(d) % x.ndim if -x.ndim <= int(d) < x.ndim else None for d in dim]
    if None in axes or axes[0] == axes[1]:
        raise ValueError(f"For '{name}', the 'dim' must hold two distinct axes of a "
                         f"{x.ndim}-D input, but got {dim}.")
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = ops.transpose(x, tuple(rest + axes))
    norm = ops.svd(moved, compute_uv=False).sum(-1)
    if keepdim:
        for a in sorted(axes):
            norm = norm.expand_dims(a)
    return norm


def tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
    """The product of the tridiagonal matrices given by their three diagonals
    (``[..., 1, M]`` each; superdiag's last and subdiag's first entries unused) with
    ``rhs`` (``[..., M, N]``)."""
    ops = _ops()
    name = "TridiagonalMatMul"
    diags = [_tensor(name, a, v) for a, v in (("superdiag", superdiag), ("maindiag", maindiag),
                                              ("subdiag", subdiag))]
    _tensor(name, "rhs", rhs)
    m = rhs.shape[-2] if rhs.ndim >= 2 else None
    for arg, d in zip(("superdiag", "maindiag", "subdiag"), diags):
        if d.ndim < 2:
            raise ValueError(f"For primitive[{name}], the dimension of '{arg}' must be greater "
                             f"than or equal to 2 , but got {d.ndim}.")
        if d.shape[-2] != 1 or d.shape[-1] != m or d.dtype != rhs.dtype:
            raise ValueError(f"For '{name}', '{arg}' must be [..., 1, {m}] of the dtype of "
                             f"'rhs', but got {list(d.shape)} {d.dtype}.")
    sup, main, sub = (_mT(d) for d in diags)                       # [..., M, 1]
    out = main * rhs
    if m > 1:
        above = sup[..., :-1, :] * rhs[..., 1:, :]
        below = sub[..., 1:, :] * rhs[..., :-1, :]
        zero = ops.zeros_like(rhs[..., :1, :])
        out = out + ops.concat([above, zero], -2) + ops.concat([zero, below], -2)
    return out


# --------------------------------------------------------------------------- MatrixDiag V3
_ALIGNS = ("LEFT_RIGHT", "LEFT_LEFT", "RIGHT_LEFT", "RIGHT_RIGHT")


def _static_int(name, arg, value):
    if isinstance(value, _Tensor):
        if value.size != 1 or value.dtype not in D.int_type:
            raise TypeError(f"For '{name}', the '{arg}' must be an int scalar Tensor, but got "
                            f"{value.dtype}{list(value.shape)}.")
        return int(value.asnumpy().reshape(-1)[0])
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{name}', the '{arg}' must be an int, but got "
                        f"{type(value).__name__}.")
    if not -2 ** 31 <= value < 2 ** 31:
        raise ValueError(f"For '{name}', the '{arg}' must fit in Int32, but got {value}.")
    return int(value)


def _diag_range(name, k):
    """(k_lower, k_upper, single) from an int or a tensor of one or two ints."""
    if isinstance(k, _Tensor):
        if k.dtype not in D.int_type or k.ndim > 1 or k.size not in (1, 2):
            raise ValueError(f"For '{name}', 'k' must be an int Tensor of one or two elements, "
                             f"but got {k.dtype}{list(k.shape)}.")
        values = [_static_int(name, "k", int(v)) for v in k.asnumpy().reshape(-1)]
    elif isinstance(k, (tuple, list)):
        values = [_static_int(name, "k", v) for v in k]
    else:
        values = [_static_int(name, "k", k)]
    low, high = values[0], values[-1]
    if low > high:
        raise ValueError(f"For '{name}', k[0] must not be greater than k[1], but got {values}.")
    return low, high, len(values) == 1 or low == high


def _check_align(name, align):
    if align not in _ALIGNS:
        raise ValueError(f"For '{name}', the 'align' must be one of {list(_ALIGNS)}, but got "
                         f"{align!r}.")
    return align


def _diag_length(m, n, d):
    return min(m + min(0, d), n - max(0, d))


def _diag_layout(m, n, low, high, align):
    """For each diagonal d (rows of the packed array, from ``high`` down to ``low``) and
    each slot j: the matrix position (r, c) it holds, or -1 where it is padding.

    Returns (max_len, rows, cols), rows/cols int arrays of shape (num_diags, max_len).
    """
    max_len = max(_diag_length(m, n, d) for d in range(low, high + 1))
    left_super, left_sub = align.startswith("LEFT"), align.endswith("LEFT")
    num = high - low + 1
    rows = np.full((num, max_len), -1, np.int64)
    cols = np.full((num, max_len), -1, np.int64)
    for i, d in enumerate(range(high, low - 1, -1)):
        length = _diag_length(m, n, d)
        if length <= 0:
            continue
        left = (d >= 0 and left_super) or (d <= 0 and left_sub)
        offset = 0 if left else max_len - length
        j = np.arange(length)
        rows[i, offset:offset + length] = j - min(0, d)
        cols[i, offset:offset + length] = j + max(0, d)
    return max_len, rows, cols


def _pad_value(name, value, dtype):
    if isinstance(value, _Tensor):
        if value.size != 1:
            raise ValueError(f"For '{name}', the 'padding_value' must be a scalar, but got shape "
                             f"{list(value.shape)}.")
        return value.reshape(()).astype(dtype)
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        raise TypeError(f"For '{name}', the 'padding_value' must be a number or a Tensor, but "
                        f"got {type(value).__name__}.")
    return _Tensor(value, dtype)


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """Batched matrices with the diagonals ``k`` (one int, or ``(low, high)``) taken from
    ``x`` (``[..., max_len]`` for one diagonal, ``[..., num_diags, max_len]`` for a band,
    highest diagonal first) and ``padding_value`` elsewhere. A ``num_rows``/``num_cols`` of
    -1 is inferred as the smallest that holds the diagonals (square when both are)."""
    ops = _ops()
    name = "MatrixDiagV3"
    _tensor(name, "x", x)
    _check_align(name, align)
    low, high, single = _diag_range(name, k)
    rows_req, cols_req = _static_int(name, "num_rows", num_rows), _static_int(name, "num_cols",
                                                                             num_cols)
    if not single and (x.ndim < 2 or x.shape[-2] != high - low + 1):
        raise ValueError(f"For '{name}', the 'x' must be [..., {high - low + 1}, max_len] for "
                         f"k = ({low}, {high}), but got {list(x.shape)}.")
    if x.ndim < 1:
        raise ValueError(f"For '{name}', the 'x' must be at least 1-D.")
    diags = x.expand_dims(-2) if single else x
    max_len = diags.shape[-1]
    min_rows, min_cols = max_len - min(high, 0), max_len + max(low, 0)
    if rows_req == -1 and cols_req == -1:
        rows_req = cols_req = max(min_rows, min_cols)
    elif rows_req == -1:
        rows_req = min_rows
    elif cols_req == -1:
        cols_req = min_cols
    if rows_req < min_rows or cols_req < min_cols:
        raise ValueError(f"For '{name}', num_rows and num_cols must be at least {min_rows} and "
                         f"{min_cols}, but got {rows_req} and {cols_req}.")
    length, rows, cols = _diag_layout(rows_req, cols_req, low, high, align)
    if length != max_len:
        raise ValueError(f"For '{name}', the last dimension of 'x' must be {length} for a "
                         f"{rows_req} x {cols_req} output, but got {max_len}.")
    source = np.full(rows_req * cols_req, -1, np.int64)
    valid = rows >= 0
    source[rows[valid] * cols_req + cols[valid]] = np.flatnonzero(valid)
    taken = ops.gather(diags.reshape(tuple(diags.shape[:-2]) + (-1,)),
                       _Tensor(np.maximum(source, 0)), diags.ndim - 2)
    mask = _Tensor((source >= 0).reshape(rows_req, cols_req))
    taken = taken.reshape(tuple(diags.shape[:-2]) + (rows_req, cols_req))
    return ops.where(mask, taken, _pad_value(name, padding_value, x.dtype))


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT"):
    """The diagonals ``k`` of batched matrices ``x``: ``[..., max_len]`` for one diagonal,
    ``[..., num_diags, max_len]`` (highest first) for a band; short diagonals are padded
    with ``padding_value`` on the side ``align`` says."""
    ops = _ops()
    name = "MatrixDiagPartV3"
    _tensor(name, "x", x)
    for arg, v in (("k", k), ("padding_value", padding_value)):
        if not isinstance(v, _Tensor):
            raise TypeError(f"For primitive[{name}], the input[{arg}] should be a Tensor, but "
                            f"got {type(v).__name__}.")
    _check_align(name, align)
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the 'x' must be at least 2-D, but got {x.ndim}-D.")
    low, high, single = _diag_range(name, k)
    m, n = x.shape[-2:]
    if not (-m < low <= high < n) and not (m == 0 or n == 0):
        raise ValueError(f"For '{name}', k must lie in ({-m}, {n}), but got ({low}, {high}).")
    _, rows, cols = _diag_layout(m, n, low, high, align)
    valid = rows >= 0
    flat_index = np.where(valid, rows * n + cols, 0)
    taken = ops.gather(x.reshape(tuple(x.shape[:-2]) + (m * n,)), _Tensor(flat_index),
                       x.ndim - 2)
    out = ops.where(_Tensor(valid), taken, _pad_value(name, padding_value, x.dtype))
    return out.squeeze(-2) if single else out


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """``x`` with its diagonals ``k`` replaced by ``diagonal`` (packed as
    ``matrix_diag_part`` returns them)."""
    ops = _ops()
    name = "MatrixSetDiagV3"
    _tensor(name, "x", x)
    _tensor(name, "diagonal", diagonal)
    _check_align(name, align)
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the 'x' must be at least 2-D, but got {x.ndim}-D.")
    low, high, single = _diag_range(name, k)
    m, n = x.shape[-2:]
    max_len, rows, cols = _diag_layout(m, n, low, high, align)
    diags = diagonal.expand_dims(-2) if single else diagonal
    want = tuple(x.shape[:-2]) + (high - low + 1, max_len)
    if tuple(diags.shape) != want:
        raise ValueError(f"For '{name}', the 'diagonal' must have shape "
                         f"{list(want[:-2] + want[-1:]) if single else list(want)}, but got "
                         f"{list(diagonal.shape)}.")
    source = np.full(m * n, -1, np.int64)
    valid = rows >= 0
    source[rows[valid] * n + cols[valid]] = np.flatnonzero(valid)
    taken = ops.gather(diags.reshape(tuple(diags.shape[:-2]) + (-1,)).astype(x.dtype),
                       _Tensor(np.maximum(source, 0)), diags.ndim - 2)
    taken = taken.reshape(tuple(x.shape[:-2]) + (m, n))
    return ops.where(_Tensor((source >= 0).reshape(m, n)), taken, x)


# --------------------------------------------------------------------------- selection, counts
def nth_element(input, n, reverse=False):
    """The ``n``-th smallest (``reverse``: largest) value along the last axis."""
    ops = _ops()
    name = "NthElement"
    x = _tensor(name, "input", input)
    n = _static_int(name, "n", n)
    if x.ndim < 1:
        raise ValueError(f"For primitive[{name}], the rank of input must be at least 1.")
    if not 0 <= n < x.shape[-1]:
        raise ValueError(f"For primitive[{name}], the n_value must be less than "
                         f"{x.shape[-1]}, but got {n}.")
    ordered = ops.sort(x, -1, descending=bool(reverse))[0]
    return ordered[..., n]


def histogram_fixed_width(x, range, nbins, dtype="int32"):
    """Int32 counts of ``x`` in ``nbins`` equal bins over ``[range[0], range[1])``; values
    below fall in the first bin, values at or above the upper end in the last."""
    ops = _ops()
    name = "HistogramFixedWidth"
    _tensor(name, "x", x)
    _tensor(name, "range", range)
    if isinstance(nbins, bool) or not isinstance(nbins, int) or nbins < 1:
        raise ValueError(f"For '{name}', the 'nbins' must be a positive int, but got {nbins!r}.")
    if dtype not in ("int32", D.int32):
        raise ValueError(f"For '{name}', the 'dtype' must be 'int32', but got {dtype!r}.")
    if range.dtype != x.dtype or tuple(range.shape) != (2,):
        raise ValueError(f"For '{name}', the 'range' must be a [2] tensor of the dtype of "
                         f"'x', but got {list(range.shape)} {range.dtype}.")
    values = x.astype(D.float64).reshape(-1)
    lo, hi = range.astype(D.float64)[0], range.astype(D.float64)[1]
    index = ops.floor((values - lo) / (hi - lo) * nbins).clip(0, nbins - 1).astype(D.int32)
    # a scatter-add into nbins counters: a fixed output shape, so it compiles under jit
    return ops.tensor_scatter_add(ops.zeros(nbins, D.int32), index.reshape(-1, 1),
                                  ops.ones(index.shape, D.int32))


def compare_and_bitpack(x, threshold):
    """``x > threshold`` packed eight to a UInt8 along the last axis, the first element in
    the highest bit (in the lowest for Bool ``x``, as MindSpore's kernel does)."""
    ops = _ops()
    name = "CompareAndBitpack"
    _tensor(name, "x", x)
    _tensor(name, "threshold", threshold)
    if threshold.ndim != 0 or threshold.dtype != x.dtype:
        raise ValueError(f"For '{name}', the 'threshold' must be a scalar of the dtype of 'x', "
                         f"but got {list(threshold.shape)} {threshold.dtype}.")
    if x.ndim < 1 or x.shape[-1] % 8:
        last = x.shape[-1] if x.ndim else 0
        raise ValueError(f"For primitive[{name}], the attribute[x innermost dimension % 8] must "
                         f"be equal to 0, but got {last % 8}.")
    bits = ops.greater(x, threshold) if x.dtype != D.bool_ else \
        ops.logical_and(x, ops.logical_not(threshold))
    bits = bits.astype(D.int32).reshape(tuple(x.shape[:-1]) + (x.shape[-1] // 8, 8))
    # MindSpore packs numbers first-element-highest but booleans first-element-lowest
    order = [1, 2, 4, 8, 16, 32, 64, 128] if x.dtype == D.bool_ else [128, 64, 32, 16, 8, 4, 2, 1]
    weights = _Tensor(np.array(order, np.int32))
    return (bits * weights).sum(-1).astype(D.uint8)


__all__ = [n for n in public_functions(globals(), __name__)
           if n in ("lu_unpack", "lu_solve", "geqrf", "orgqr", "ormqr", "matrix_diag",
                    "matrix_diag_part", "matrix_set_diag")]
