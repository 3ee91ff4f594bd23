"""Reductions with MindSpore's signatures (``ops.sum(input, dim, keepdim)``,
``ops.mean(x, axis, keep_dims)``, ``ops.max`` returning ``(values, indices)`` ...)."""
from __future__ import annotations

import numpy as np

from .._prims import math as M
from .._prims import reduce as R
from .._prims.array import cast_p, reshape_p
from ._utils import to_np_dtype, as_tensor, normalize_dim


def _axis(name, x, axis):
    return R.normalize_axis(name, axis, len(x.shape))


def sum(input, dim=None, keepdim=False, *, dtype=None):
    x = as_tensor(input)
    d = to_np_dtype(dtype) if dtype is not None else None
    return R.sum_p(x, axis=_axis("sum", x, dim), keepdims=bool(keepdim), dtype=d)


def reduce_sum(x, axis=None, keep_dims=False):
    return sum(x, axis, keep_dims)


def mean(x, axis=None, keep_dims=False):
    x = as_tensor(x)
    return R.mean_p(x, axis=_axis("mean", x, axis), keepdims=bool(keep_dims))


def reduce_mean(x, axis=None, keep_dims=False):
    return mean(x, axis, keep_dims)


def prod(input, axis=None, keep_dims=False, dtype=None):
    x = as_tensor(input)
    r = R.prod_p(x, axis=_axis("prod", x, axis), keepdims=bool(keep_dims))
    return cast_p(r, dtype=to_np_dtype(dtype)) if dtype is not None else r


def amax(input, axis=None, keepdims=False):
    x = as_tensor(input)
    if axis == ():
        axis = None
    return R.amax_p(x, axis=_axis("amax", x, axis), keepdims=bool(keepdims))


def amin(input, axis=None, keepdims=False):
    x = as_tensor(input)
    if axis == ():
        axis = None
    return R.amin_p(x, axis=_axis("amin", x, axis), keepdims=bool(keepdims))


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """``(values, indices)`` along ``axis``; with ``axis=None`` the index is ``Tensor(0)``
    (MindSpore's convention)."""
    x = as_tensor(input)
    values = amax(x, axis, keepdims)
    if axis is None:
        return values, _zero_index()
    return values, argmax(x, axis, keepdims)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    x = as_tensor(input)
    values = amin(x, axis, keepdims)
    if axis is None:
        return values, _zero_index()
    return values, argmin(x, axis, keepdims)


def _zero_index():
    from .._core.primitive import wrap
    return wrap(np.zeros((), np.int64))


def argmax(input, dim=None, keepdim=False):
    x = as_tensor(input)
    if dim is None:
        return R.argmax_p(x, axis=None, keepdims=bool(keepdim))
    return R.argmax_p(x, axis=normalize_dim("argmax", dim, len(x.shape)), keepdims=bool(keepdim))


def argmin(input, axis=None, keepdims=False):
    x = as_tensor(input)
    if axis is None:
        return R.argmin_p(x, axis=None, keepdims=bool(keepdims))
    return R.argmin_p(x, axis=normalize_dim("argmin", axis, len(x.shape)),
                      keepdims=bool(keepdims))


def all(input, axis=None, keep_dims=False):
    x = as_tensor(input)
    return R.all_p(x, axis=_axis("all", x, axis), keepdims=bool(keep_dims))


def any(input, axis=None, keep_dims=False):
    x = as_tensor(input)
    return R.any_p(x, axis=_axis("any", x, axis), keepdims=bool(keep_dims))


def logsumexp(input, axis, keep_dims=False):
    """``log(sum(exp(x)))`` computed stably around the maximum."""
    x = as_tensor(input)
    ax = _axis("logsumexp", x, axis)
    from .._prims.special import stop_gradient_p
    m = stop_gradient_p(R.amax_p(x, axis=ax, keepdims=True))
    m = M.where_p(M.isfinite_p(m), m, 0.0)
    s = R.sum_p(M.exp_p(M.sub_p(x, m)), axis=ax, keepdims=True)
    out = M.add_p(M.log_p(s), m)
    if not keep_dims:
        out = R_squeeze(out, ax, len(x.shape))
    return out


def R_squeeze(t, axes, ndim):
    from .._prims.reduce import reduced_shape
    return reshape_p(t, shape=reduced_shape(tuple(t.shape), axes, False)) if axes is not None \
        else reshape_p(t, shape=())


def var(input, axis=None, ddof=0, keepdims=False):
    """Variance with ``ddof`` (MindSpore's default is the population variance)."""
    x = as_tensor(input)
    ax = _axis("var", x, axis)
    mu = R.mean_p(x, axis=ax, keepdims=True)
    d = M.sub_p(x, mu)
    ss = R.sum_p(M.mul_p(d, d), axis=ax, keepdims=bool(keepdims))
    n = _count(x, ax)
    if isinstance(ddof, bool):
        ddof = int(ddof)
    return M.div_p(ss, float(n - ddof))


def std(input, axis=None, ddof=0, keepdims=False):
    return M.sqrt_p(var(input, axis, ddof, keepdims))


def var_mean(input, axis=None, ddof=0, keepdims=False):
    return var(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    return std(input, axis, ddof, keepdims), mean(input, axis, keepdims)


def _count(x, axes):
    n = 1
    for i, s in enumerate(x.shape):
        if axes is None or i in axes:
            n *= s
    return n


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector/matrix norms: 2-norm by default, ``ord`` in {int, float, inf, 'fro', 'nuc'}."""
    x = as_tensor(A)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    ax = _axis("norm", x, dim)
    if ord is None or ord == "fro" or ord == 2 and (dim is None or isinstance(dim, int)):
        sq = M.square_p(M.abs_p(x)) if x._data.dtype.kind == "c" else M.mul_p(x, x)
        return M.sqrt_p(R.sum_p(sq, axis=ax, keepdims=bool(keepdim)))
    if ord == float("inf"):
        return R.amax_p(M.abs_p(x), axis=ax, keepdims=bool(keepdim))
    if ord == float("-inf"):
        return R.amin_p(M.abs_p(x), axis=ax, keepdims=bool(keepdim))
    if ord == 0:
        return R.sum_p(cast_p(M.not_equal_p(x, 0), dtype=x._data.dtype), axis=ax,
                       keepdims=bool(keepdim))
    if isinstance(ord, (int, float)):
        p = float(ord)
        s = R.sum_p(M.pow_p(M.abs_p(x), p), axis=ax, keepdims=bool(keepdim))
        return M.pow_p(s, 1.0 / p)
    raise ValueError(f"For 'norm', unsupported 'ord' {ord!r}.")


def cumsum(x, axis, dtype=None):
    x = as_tensor(x)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    return R.cumsum_p(x, axis=normalize_dim("cumsum", axis, len(x.shape)))


def cumprod(input, dim, dtype=None):
    x = as_tensor(input)
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    return R.cumprod_p(x, axis=normalize_dim("cumprod", dim, len(x.shape)))


def count_nonzero(x, axis=(), keep_dims=False, dtype=None):
    x = as_tensor(x)
    ax = None if axis == () else axis
    r = R.sum_p(M.not_equal_p(x, 0), axis=_axis("count_nonzero", x, ax), keepdims=keep_dims)
    return cast_p(r, dtype=to_np_dtype(dtype)) if dtype is not None else r


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
