"""Reductions, scans and norms with MindSpore's signatures and output dtypes.

Output dtypes (MindSpore 2.10, probed): ``sum``/``prod`` of bool or integers give
Int64; ``mean`` keeps an integer dtype (truncating); ``max``/``min`` return
``(values, Int64 indices)``; ``argmax`` gives Int64 and ``argmin`` Int32;
``count_nonzero`` Int32; ``norm``/``std``/``var`` of integers give Float32.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims import linalg as L
from .._prims import math as M
from .._prims import reduce as R
from .._prims.array import cast_p, gather_d_p, reshape_p, transpose_p
from .._prims.special import stop_gradient_p
from ._utils import as_tensor, normalize_dim, static_int, to_np_dtype

_FLOAT32 = np.dtype(np.float32)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


def _axis(name, x, axis):
    return R.normalize_axis(name, axis, len(x.shape))


def _dtype_or_none(dtype):
    return to_np_dtype(dtype) if dtype is not None else None


def _is_float(x):
    d = x._data.dtype
    return d.kind in "fc" or d == D.bfloat16.np


def _as_float(name, input, dtype=None):
    """The input as a floating tensor: ``dtype`` if given, integers and bool as Float32."""
    x = as_tensor(input)
    if dtype is not None:
        return cast_p(x, dtype=to_np_dtype(dtype))
    return x if _is_float(x) else cast_p(x, dtype=_FLOAT32)


def _require_float(name, x):
    if not _is_float(x):
        raise TypeError(f"For '{name}', the input must be a floating-point tensor, but got "
                        f"{x.dtype}.")


def _squeeze_axes(t, axis):
    """Drop the (size-1) reduced dimensions of a keepdims result."""
    return reshape_p(t, shape=R.reduced_shape(tuple(t.shape), axis, False))


# ----------------------------------------------------------------- sums and means
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (int, tuple or None for all). Bool and integer inputs give Int64.

    Args:
        input (Tensor): The input.
        dim (Union[int, tuple(int), list(int)], optional): Axes to reduce. Default: ``None``.
        keepdim (bool): Keep the reduced axes as size 1. Default: ``False``.
        dtype (mindspore.dtype, optional): Output (and accumulation) dtype.

    Returns:
        Tensor.

    Examples:
        >>> ops.sum(Tensor([[1., 2.], [3., 4.]]), 1)
        Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  7.00000000e+00])
    """
    x = as_tensor(input)
    return R.sum_p(x, axis=_axis("sum", x, dim), keepdims=bool(keepdim),
                   dtype=_dtype_or_none(dtype))


def reduce_sum(x, axis=(), keep_dims=False):
    """``ops.ReduceSum(keep_dims)(x, axis)`` as a function; ``axis=()`` reduces all."""
    return sum(x, axis, keep_dims)


def mean(x, axis=None, keep_dims=False):
    """Mean over ``axis``. Integer inputs keep their dtype (the quotient is truncated)."""
    x = as_tensor(x)
    return R.mean_p(x, axis=_axis("mean", x, axis), keepdims=bool(keep_dims))


def reduce_mean(x, axis=(), keep_dims=False):
    """``ops.ReduceMean(keep_dims)(x, axis)`` as a function; ``axis=()`` reduces all."""
    return mean(x, axis, keep_dims)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """Product over ``axis``. Bool and integer inputs give Int64."""
    x = as_tensor(input)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    return R.prod_p(x, axis=_axis("prod", x, axis), keepdims=bool(keep_dims))


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """Sum treating NaN as zero. Integer inputs keep their dtype; bool gives Int64."""
    x = as_tensor(input)
    d = _dtype_or_none(dtype)
    if _is_float(x):
        x = M.where_p(M.isnan_p(x), 0, x)
    elif d is None and x._data.dtype != np.bool_:
        d = x._data.dtype
    return R.sum_p(x, axis=_axis("nansum", x, axis), keepdims=bool(keepdims), dtype=d)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """Mean of the non-NaN elements (floating-point inputs only)."""
    x = as_tensor(input)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    _require_float("nanmean", x)
    ax = _axis("nanmean", x, axis)
    keep = M.logical_not_p(M.isnan_p(x))
    total = R.sum_p(M.where_p(keep, x, 0), axis=ax, keepdims=bool(keepdims))
    count = R.sum_p(cast_p(keep, dtype=x._data.dtype), axis=ax, keepdims=bool(keepdims))
    return M.div_p(total, count)


def count_nonzero(x, axis=(), keep_dims=False, dtype=D.int32):
    """Number of non-zero elements over ``axis`` (``()`` for all), as ``dtype`` (Int32)."""
    x = as_tensor(x)
    return R.sum_p(M.not_equal_p(x, 0), axis=_axis("count_nonzero", x, axis),
                   keepdims=bool(keep_dims), dtype=to_np_dtype(dtype))


# ----------------------------------------------------------------- extrema
def _masked(name, x, initial, where):
    """``x`` with positions outside ``where`` replaced by ``initial`` (NumPy's semantics)."""
    if where is None:
        return x
    if initial is None:
        raise ValueError(f"For '{name}', 'initial' must be given when 'where' is used: it is "
                         "the value of a reduction over no elements.")
    return M.where_p(as_tensor(where), x, initial)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Maximum over ``axis`` (int, tuple or None for all); ``initial`` is a lower bound and
    ``where`` (with ``initial``) masks elements out."""
    x = _masked("amax", as_tensor(input), initial, where)
    out = R.amax_p(x, axis=_axis("amax", x, axis), keepdims=bool(keepdims))
    return M.maximum_p(out, initial) if initial is not None else out


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    """Minimum over ``axis``; see :func:`amax` for ``initial`` and ``where``."""
    x = _masked("amin", as_tensor(input), initial, where)
    out = R.amin_p(x, axis=_axis("amin", x, axis), keepdims=bool(keepdims))
    return M.minimum_p(out, initial) if initial is not None else out


def reduce_max(x, axis=(), keep_dims=False):
    """``ops.ReduceMax(keep_dims)(x, axis)`` as a function; ``axis=()`` reduces all."""
    return amax(x, axis, keep_dims)


def reduce_min(x, axis=(), keep_dims=False):
    """``ops.ReduceMin(keep_dims)(x, axis)`` as a function; ``axis=()`` reduces all."""
    return amin(x, axis, keep_dims)


def _with_index(name, arg_prim, bound, input, axis, keepdims, initial, where):
    x = _masked(name, as_tensor(input), initial, where)
    if axis is not None and x.ndim == 0:
        normalize_dim(name, axis, 0)
        axis = None
    if axis is None:
        # MindSpore: the values of the whole tensor and the constant index Tensor(0)
        values = (R.amax_p if arg_prim is R.argmax_p else R.amin_p)(x, axis=None,
                                                                     keepdims=False)
        index = P.wrap(np.zeros((), np.int64))
    else:
        ax = normalize_dim(name, axis, len(x.shape))
        index = arg_prim(x, axis=ax, keepdims=True)
        values = gather_d_p(x, index, axis=ax)
        if not keepdims:
            values, index = _squeeze_axes(values, (ax,)), _squeeze_axes(index, (ax,))
    if initial is not None:
        values = bound(values, initial)
    return values, index


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """``(values, indices)`` of the maximum along ``axis``.

    With ``axis=None`` the values are the maximum of the whole tensor and the index is
    the constant ``Tensor(0)`` (MindSpore's convention). Indices are Int64; ties take
    the first position, which is the one the gradient flows to.
    """
    return _with_index("max", R.argmax_p, M.maximum_p, input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """``(values, indices)`` of the minimum along ``axis``; see :func:`max`."""
    return _with_index("min", R.argmin_p, M.minimum_p, input, axis, keepdims, initial, where)


def aminmax(input, *, axis=0, keepdims=False):
    """``(amin, amax)`` along ``axis``."""
    x = as_tensor(input)
    return amin(x, axis, keepdims), amax(x, axis, keepdims)


def _arg(name, prim, input, axis, keepdims, dtype):
    x = as_tensor(input)
    if axis is None:
        return prim(x, axis=None, keepdims=False, dtype=dtype)
    return prim(x, axis=normalize_dim(name, axis, len(x.shape)), keepdims=bool(keepdims),
                dtype=dtype)


def argmax(input, dim=None, keepdim=False):
    """Index of the maximum along ``dim`` (flat index when ``None``), Int64."""
    return _arg("argmax", R.argmax_p, input, dim, keepdim, _INT64)


def argmin(input, axis=None, keepdims=False):
    """Index of the minimum along ``axis`` (flat index when ``None``), Int32 as MindSpore."""
    return _arg("argmin", R.argmin_p, input, axis, keepdims, _INT32)


def median(input, axis=-1, keepdims=False):
    """``(values, Int64 indices)`` of the lower median along ``axis``."""
    x = as_tensor(input)
    ax = normalize_dim("median", axis, len(x.shape))
    return R.median_p(x, axis=ax, keepdims=bool(keepdims))


def all(input, axis=None, keep_dims=False):
    """Whether all elements along ``axis`` are true (non-zero); Bool."""
    x = as_tensor(input)
    return R.all_p(x, axis=_axis("all", x, axis), keepdims=bool(keep_dims))


def any(input, axis=None, keep_dims=False):
    """Whether any element along ``axis`` is true (non-zero); Bool."""
    x = as_tensor(input)
    return R.any_p(x, axis=_axis("any", x, axis), keepdims=bool(keep_dims))


# ----------------------------------------------------------------- log-sum-exp, statistics
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x), dim))``, computed around the maximum so it cannot overflow."""
    x = as_tensor(input)
    ax = _axis("logsumexp", x, dim)
    m = stop_gradient_p(R.amax_p(x, axis=ax, keepdims=True))
    m = M.where_p(M.isfinite_p(m), m, 0)
    s = R.sum_p(M.exp_p(M.sub_p(x, m)), axis=ax, keepdims=True)
    out = M.add_p(M.log_p(s), m)
    return out if keepdim else _squeeze_axes(out, ax)


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance over ``axis`` with ``ddof`` (default 0: the population variance).

    Integer inputs are computed in Float32; ``ddof=True`` means 1.
    """
    x = _as_float("var", input)
    ax = _axis("var", x, axis)
    d = M.sub_p(x, R.mean_p(x, axis=ax, keepdims=True))
    ss = R.sum_p(M.mul_p(d, d), axis=ax, keepdims=bool(keepdims))
    return M.div_p(ss, float(R.reduced_count(tuple(x.shape), ax) - _ddof("var", ddof)))


def _ddof(name, ddof):
    """``ddof`` as an int (``True`` is 1, as MindSpore)."""
    return int(ddof) if isinstance(ddof, bool) else static_int(name, "ddof", ddof)


def std(input, axis=None, ddof=0, keepdims=False):
    """Standard deviation: ``sqrt(var(input, axis, ddof, keepdims))``."""
    return M.sqrt_p(var(input, axis, ddof, keepdims))


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``(var, mean)`` over ``axis``."""
    x = _as_float("var_mean", input)
    return var(x, axis, ddof, keepdims), mean(x, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``(std, mean)`` over ``axis``."""
    x = _as_float("std_mean", input)
    return std(x, axis, ddof, keepdims), mean(x, axis, keepdims)


# ----------------------------------------------------------------- norms
def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):
    """Vector ``ord``-norm over ``axis`` (all elements when None): ``ord`` is a number,
    ``inf`` (max |x|), ``-inf`` (min |x|) or 0 (count of non-zeros)."""
    x = _as_float("vector_norm", x, dtype)
    ax = _axis("vector_norm", x, axis)
    keep = bool(keepdims)
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(f"For 'vector_norm', 'ord' must be a number, but got {ord!r}.")
    if ord == float("inf"):
        return R.amax_p(M.abs_p(x), axis=ax, keepdims=keep)
    if ord == float("-inf"):
        return R.amin_p(M.abs_p(x), axis=ax, keepdims=keep)
    if ord == 0:
        return R.sum_p(cast_p(M.not_equal_p(x, 0), dtype=_real(x)), axis=ax, keepdims=keep)
    if ord == 1:
        return R.sum_p(M.abs_p(x), axis=ax, keepdims=keep)
    if ord == 2:
        a = M.abs_p(x) if x._data.dtype.kind == "c" else x
        return _safe_sqrt(R.sum_p(M.mul_p(a, a), axis=ax, keepdims=keep))
    s = R.sum_p(M.pow_p(M.abs_p(x), float(ord)), axis=ax, keepdims=keep)
    return M.pow_p(s, 1.0 / float(ord))


def _safe_sqrt(s):
    """``sqrt(s)`` whose gradient at ``s == 0`` is 0 rather than NaN (the zero subgradient
    at a zero vector, as PyTorch and MindSpore's ``LpNorm``; see docs/compatibility.md).

    Only exact zeros are guarded: a NaN sum stays NaN, and so does its gradient, as in
    MindSpore (a ``s > 0`` guard would turn NaN into 0).
    """
    zero = M.equal_p(s, 0)
    return M.where_p(zero, 0, M.sqrt_p(M.where_p(zero, 1, s)))


def _real(x):
    d = x._data.dtype
    return {np.dtype(np.complex64): _FLOAT32,
            np.dtype(np.complex128): np.dtype(np.float64)}.get(d, d)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """Matrix norm over the two ``axis`` dimensions: ``'fro'``, ``'nuc'`` (sum of singular
    values), ``2``/``-2`` (largest/smallest singular value), ``1``/``-1`` (max/min column
    sum of |A|) or ``inf``/``-inf`` (max/min row sum of |A|)."""
    x = _as_float("matrix_norm", A, dtype)
    nd = len(x.shape)
    if not isinstance(axis, (tuple, list)) or len(axis) != 2:
        raise ValueError(f"For 'matrix_norm', 'axis' must be a pair of dimensions, but got "
                         f"{axis!r}.")
    rows, cols = (normalize_dim("matrix_norm", a, nd) for a in axis)
    if rows == cols:
        raise ValueError(f"For 'matrix_norm', the two 'axis' entries must differ, got {axis}.")
    both = tuple(sorted((rows, cols)))
    if not isinstance(ord, (str, int, float)):
        raise ValueError(f"For 'matrix_norm', unsupported 'ord' {ord!r}; expected 'fro', 'nuc', "
                         "inf, -inf, 1, -1, 2 or -2.")
    if ord == "fro":
        return vector_norm(x, 2, both, keepdims)
    if ord in ("nuc", 2, -2):
        return _spectral_norm(x, ord, rows, cols, keepdims)
    inner, outer = {1: (rows, cols), -1: (rows, cols),
                    float("inf"): (cols, rows), float("-inf"): (cols, rows)}.get(ord, (None, None))
    if inner is None:
        raise ValueError(f"For 'matrix_norm', unsupported 'ord' {ord!r}; expected 'fro', 'nuc', "
                         "inf, -inf, 1, -1, 2 or -2.")
    sums = R.sum_p(M.abs_p(x), axis=(inner,), keepdims=True)
    pick = R.amax_p if ord in (1, float("inf")) else R.amin_p
    out = pick(sums, axis=(outer,), keepdims=True)
    return out if keepdims else _squeeze_axes(out, both)


def _spectral_norm(x, ord, rows, cols, keepdims):
    nd = len(x.shape)
    rest = tuple(i for i in range(nd) if i not in (rows, cols))
    s = L.svdvals_p(transpose_p(x, perm=rest + (rows, cols)))
    last = (len(rest),)
    if ord == "nuc":
        out = R.sum_p(s, axis=last, keepdims=False)
    else:
        out = (R.amax_p if ord == 2 else R.amin_p)(s, axis=last, keepdims=False)
    if keepdims:
        out = reshape_p(out, shape=R.reduced_shape(tuple(x.shape), (rows, cols), True))
    return out


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector or matrix norm (``torch.linalg.norm`` rules, as MindSpore's ``ops.norm``).

    ``dim`` an int: a vector norm along it. ``dim`` a pair: a matrix norm over it. ``dim``
    None: the 2-norm of all elements when ``ord`` is None, otherwise the input must be 1-D
    (vector norm) or 2-D (matrix norm). Integer inputs give Float32.
    """
    x = _as_float("norm", A, dtype)
    nd = len(x.shape)
    if dim is None:
        if ord is None:
            return vector_norm(x, 2, None, keepdim)
        if nd == 1:
            return vector_norm(x, ord, None, keepdim)
        if nd == 2:
            return matrix_norm(x, ord, (0, 1), keepdim)
        raise ValueError(f"For 'norm', a {nd}-D input needs 'dim' when 'ord' is given "
                         "(only 1-D and 2-D inputs have a default).")
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) == 1:
        if isinstance(ord, str):
            raise ValueError(f"For 'norm', 'ord' {ord!r} needs a matrix (a pair of dims).")
        return vector_norm(x, 2 if ord is None else ord, dims, keepdim)
    if len(dims) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dims, keepdim)
    raise ValueError(f"For 'norm', 'dim' must be an int or a pair of ints, but got {dim!r}.")


# ----------------------------------------------------------------- scans
def cumsum(x, axis, dtype=None):
    """Cumulative sum along ``axis``; integer inputs keep their dtype."""
    x = as_tensor(x)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    return R.cumsum_p(x, axis=normalize_dim("cumsum", axis, len(x.shape)))


def cumprod(input, dim, dtype=None):
    """Cumulative product along ``dim``; bool and integer inputs give Int64."""
    x = as_tensor(input)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    elif x._data.dtype.kind in "biu":
        x = cast_p(x, dtype=_INT64)
    return R.cumprod_p(x, axis=normalize_dim("cumprod", dim, len(x.shape)))


def cummax(input, axis):
    """``(values, Int64 indices)`` of the running maximum along ``axis`` (ties: last)."""
    x = as_tensor(input)
    return R.cummax_p(x, axis=normalize_dim("cummax", axis, len(x.shape)), index_dtype=_INT64)


def cummin(input, axis):
    """``(values, Int32 indices)`` of the running minimum along ``axis`` (ties: last)."""
    x = as_tensor(input)
    return R.cummin_p(x, axis=normalize_dim("cummin", axis, len(x.shape)), index_dtype=_INT32)


def logcumsumexp(input, axis):
    """``log(cumsum(exp(x)))`` along ``axis``, computed without overflow."""
    x = as_tensor(input)
    return R.logcumsumexp_p(x, axis=normalize_dim("logcumsumexp", axis, len(x.shape)))


# ----------------------------------------------------------------- Tensor methods
def _tensor_cumsum(self, axis=None, dtype=None, *, dim=None):
    """``Tensor.cumsum``: bool and integers narrower than 32 bits accumulate in Int32."""
    axis = dim if dim is not None else (0 if axis is None else axis)
    if dtype is None and self._data.dtype.kind in "biu" and self._data.dtype.itemsize < 4:
        dtype = D.int32
    return cumsum(self, axis, dtype)


def _tensor_logsumexp(self, dim=None, keepdim=False, *, axis=None, keep_dims=None):
    dim = axis if dim is None else dim
    return logsumexp(self, dim, keepdim if keep_dims is None else keep_dims)


def _tensor_median(self, axis=-1, keepdims=False, *, dim=None, keepdim=None):
    return median(self, axis if dim is None else dim, keepdims if keepdim is None else keepdim)


TENSOR_METHODS = {
    "cumsum": _tensor_cumsum, "logsumexp": _tensor_logsumexp, "median": _tensor_median,
    "nansum": nansum, "nanmean": nanmean, "cummax": cummax, "cummin": cummin,
    "aminmax": aminmax, "logcumsumexp": logcumsumexp,
}


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
