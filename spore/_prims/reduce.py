"""Reduction primitives. ``axis`` is a normalised tuple of non-negative ints or None."""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from ._base import grad_for, np_dtype

Primitive = P.Primitive


def normalize_axis(name, axis, ndim):
    """``None`` | int | sequence -> sorted tuple of non-negative axes (or None)."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        axes = tuple(axis)
    else:
        axes = (axis,)
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"For '{name}', the 'axis' must be in range [{-max(ndim, 1)}, "
                             f"{max(ndim, 1)}), but got {a}.")
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"For '{name}', the 'axis' contains duplicate values: {axis}.")
    return tuple(sorted(out))


def reduced_shape(shape, axis, keepdims):
    if axis is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axis else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axis)


def _reduce_infer(out_dtype_fn):
    def infer(attrs, x):
        axis = attrs.get("axis")
        if axis is not None:
            for a in axis:
                if a >= max(x.ndim, 1):
                    raise ValueError(f"axis {a} is out of range for a {x.ndim}-D tensor")
        shape = reduced_shape(tuple(x.shape), axis, attrs.get("keepdims", False))
        return ShapedArray(shape, out_dtype_fn(np.dtype(x.dtype), attrs))
    return infer


def _int_to_int64(d, attrs):
    if attrs.get("dtype") is not None:
        return np.dtype(attrs["dtype"])
    return np.dtype(np.int64) if d.kind in "biu" else d


def _same(d, attrs):
    return d


def _reduce(name, make, out_dtype=_same, nondiff=False):
    return Primitive(name, make, kind="reduce", n_inputs=1, nondiff=nondiff,
                     infer=_reduce_infer(out_dtype))


def _make_sum(xp):
    def sum_(x, axis=None, keepdims=False, dtype=None):
        if dtype is None and x.dtype.kind in "biu":
            dtype = np.int64
        return xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return sum_


def _make_mean(xp):
    def mean(x, axis=None, keepdims=False):
        if x.dtype.kind in "biu":
            s = xp.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
            n = x.size // max(s.size, 1) if x.size else 1
            return (s // n).astype(x.dtype) if x.dtype.kind != "b" else (s // n).astype(np.int64)
        return xp.mean(x, axis=axis, keepdims=keepdims)
    return mean


def _make_prod(xp):
    def prod(x, axis=None, keepdims=False):
        dtype = np.int64 if x.dtype.kind in "biu" else None
        return xp.prod(x, axis=axis, keepdims=keepdims, dtype=dtype)
    return prod


def _make_amax(xp):
    def amax(x, axis=None, keepdims=False):
        return xp.max(x, axis=axis, keepdims=keepdims)
    return amax


def _make_amin(xp):
    def amin(x, axis=None, keepdims=False):
        return xp.min(x, axis=axis, keepdims=keepdims)
    return amin


def _make_all(xp):
    return lambda x, axis=None, keepdims=False: xp.all(x, axis=axis, keepdims=keepdims)


def _make_any(xp):
    return lambda x, axis=None, keepdims=False: xp.any(x, axis=axis, keepdims=keepdims)


_BOOL = np.dtype(np.bool_)
sum_p = _reduce("ReduceSum", _make_sum, _int_to_int64)
mean_p = _reduce("ReduceMean", _make_mean,
                 lambda d, a: np.dtype(np.int64) if d.kind == "b" else d)
prod_p = _reduce("ReduceProd", _make_prod, _int_to_int64)
amax_p = _reduce("ReduceMax", _make_amax)
amin_p = _reduce("ReduceMin", _make_amin)
all_p = _reduce("ReduceAll", _make_all, lambda d, a: _BOOL, nondiff=True)
any_p = _reduce("ReduceAny", _make_any, lambda d, a: _BOOL, nondiff=True)


def expand_to_input(g, x, axis, keepdims):
    """Broadcast a reduced cotangent back to the shape of ``x``."""
    from .array import broadcast_to_p, reshape_p
    shape = tuple(x.shape)
    if not keepdims:
        g = reshape_p(g, shape=reduced_shape(shape, axis, True))
    return broadcast_to_p(g, shape=shape)


@sum_p.def_grad()
def _sum_grad(attrs, inputs, out, dout):
    (x,) = inputs
    g = expand_to_input(dout, x, attrs.get("axis"), attrs.get("keepdims", False))
    return (grad_for(x, g),)


@mean_p.def_grad()
def _mean_grad(attrs, inputs, out, dout):
    from .math import div_p
    (x,) = inputs
    axis = attrs.get("axis")
    n = 1
    for i, s in enumerate(x.shape):
        if axis is None or i in axis:
            n *= s
    g = expand_to_input(div_p(dout, max(n, 1)), x, axis, attrs.get("keepdims", False))
    return (grad_for(x, g),)


def _extremum_grad(attrs, inputs, out, dout):
    """Spread the cotangent evenly over the positions that attain the extremum."""
    from .math import equal_p, mul_p, div_p
    from .array import cast_p
    (x,) = inputs
    axis, keepdims = attrs.get("axis"), attrs.get("keepdims", False)
    out_b = expand_to_input(out, x, axis, keepdims)
    mask = cast_p(equal_p(x, out_b), dtype=np_dtype(x))
    count = sum_p(mask, axis=axis, keepdims=True)
    g = expand_to_input(dout, x, axis, keepdims)
    return (grad_for(x, div_p(mul_p(g, mask), count)),)


amax_p.def_grad(inputs=(0,), output=True)(_extremum_grad)
amin_p.def_grad(inputs=(0,), output=True)(_extremum_grad)


@prod_p.def_grad(inputs=(0,))
def _prod_grad(attrs, inputs, out, dout):
    """Product of all *other* elements, zero-safe (exclusive cumulative products)."""
    from .array import transpose_p, reshape_p, cast_p
    from .math import mul_p
    (x,) = inputs
    shape = tuple(x.shape)
    axis = attrs.get("axis")
    axes = tuple(range(len(shape))) if axis is None else axis
    keep = tuple(i for i in range(len(shape)) if i not in axes)
    perm = keep + axes
    xt = transpose_p(x, perm=perm)
    kept_shape = tuple(shape[i] for i in keep)
    n = 1
    for a in axes:
        n *= shape[a]
    flat = reshape_p(xt, shape=kept_shape + (n,))
    left = cumprod_p(flat, axis=len(kept_shape), exclusive=True, reverse=False)
    right = cumprod_p(flat, axis=len(kept_shape), exclusive=True, reverse=True)
    others = mul_p(left, right)
    g = reshape_p(dout, shape=kept_shape + (1,))
    gflat = mul_p(others, g)
    gt = reshape_p(gflat, shape=tuple(xt.shape))
    inv = tuple(np.argsort(perm))
    gx = transpose_p(gt, perm=inv)
    if np_dtype(x).kind in "biu":
        gx = cast_p(gx, dtype=np_dtype(x))
    return (grad_for(x, gx),)


# ----------------------------------------------------------------- arg reductions
def _make_argmax(xp):
    def argmax(x, axis=None, keepdims=False):
        r = xp.argmax(x, axis=axis, keepdims=keepdims)
        return r.astype(np.int64)
    return argmax


def _make_argmin(xp):
    def argmin(x, axis=None, keepdims=False):
        r = xp.argmin(x, axis=axis, keepdims=keepdims)
        return r.astype(np.int64)
    return argmin


def _arg_infer(attrs, x):
    axis = attrs.get("axis")
    keepdims = attrs.get("keepdims", False)
    if axis is None:
        shape = tuple(1 for _ in x.shape) if keepdims else ()
    else:
        shape = reduced_shape(tuple(x.shape), (axis,), keepdims)
    return ShapedArray(shape, np.int64)


argmax_p = Primitive("Argmax", _make_argmax, kind="reduce", n_inputs=1, nondiff=True,
                     infer=_arg_infer)
argmin_p = Primitive("Argmin", _make_argmin, kind="reduce", n_inputs=1, nondiff=True,
                     infer=_arg_infer)


# ----------------------------------------------------------------- scans
def _make_cumsum(xp):
    def cumsum(x, axis=0, exclusive=False, reverse=False):
        if reverse:
            x = xp.flip(x, axis)
        dtype = np.int64 if x.dtype.kind == "b" else None
        r = xp.cumsum(x, axis=axis, dtype=dtype)
        if exclusive:
            r = r - x
        if reverse:
            r = xp.flip(r, axis)
        return xp.ascontiguousarray(r)
    return cumsum


def _make_cumprod(xp):
    def cumprod(x, axis=0, exclusive=False, reverse=False):
        if reverse:
            x = xp.flip(x, axis)
        if exclusive:
            pad = [(0, 0)] * x.ndim
            pad[axis] = (1, 0)
            x = xp.pad(x, pad, constant_values=1)
            x = xp.take(x, xp.arange(x.shape[axis] - 1), axis=axis)
        r = xp.cumprod(x, axis=axis)
        if reverse:
            r = xp.flip(r, axis)
        return xp.ascontiguousarray(r)
    return cumprod


def _scan_infer(attrs, x):
    d = np.dtype(x.dtype)
    return ShapedArray(tuple(x.shape), np.int64 if d.kind == "b" else d)


cumsum_p = Primitive("CumSum", _make_cumsum, kind="opaque", n_inputs=1, infer=_scan_infer)
cumprod_p = Primitive("CumProd", _make_cumprod, kind="opaque", n_inputs=1, infer=_scan_infer)


@cumsum_p.def_grad()
def _cumsum_grad(attrs, inputs, out, dout):
    (x,) = inputs
    g = cumsum_p(dout, axis=attrs.get("axis", 0), exclusive=attrs.get("exclusive", False),
                 reverse=not attrs.get("reverse", False))
    return (grad_for(x, g),)


@cumprod_p.def_grad(inputs=(0,))
def _cumprod_grad(attrs, inputs, out, dout):
    """d out_j / d x_i = prod_{k<=j, k!=i} x_k: zero-safe via an (n, n) mask on the axis."""
    from .array import transpose_p, reshape_p, broadcast_to_p
    from .math import mul_p, where_p
    (x,) = inputs
    axis = attrs.get("axis", 0)
    exclusive, reverse = attrs.get("exclusive", False), attrs.get("reverse", False)
    shape = tuple(x.shape)
    nd = len(shape)
    n = shape[axis]
    perm = tuple(i for i in range(nd) if i != axis) + (axis,)
    xt = transpose_p(x, perm=perm)                           # (..., n)
    lead = tuple(xt.shape[:-1])
    # P[..., i, j] = prod over k in window(j) except i
    idx = np.arange(n)
    if not reverse:
        window = (idx[None, :] >= idx[:, None]) if not exclusive else (idx[None, :] > idx[:, None])
        member = (idx[:, None] <= idx[None, :]) if not exclusive else (idx[:, None] < idx[None, :])
    else:
        window = (idx[None, :] <= idx[:, None]) if not exclusive else (idx[None, :] < idx[:, None])
        member = (idx[:, None] >= idx[None, :]) if not exclusive else (idx[:, None] > idx[None, :])
    # term[..., i, j, k] = x_k if k in window(j) and k != i else 1
    xk = broadcast_to_p(reshape_p(xt, shape=lead + (1, 1, n)), shape=lead + (n, n, n))
    k_in_j = member.T[None, :, :]                            # [i?, j, k]: k in window(j)
    not_i = ~np.eye(n, dtype=bool)[:, None, :]               # [i, j?, k]: k != i
    use = np.broadcast_to(k_in_j & not_i, (n, n, n))
    term = where_p(P.wrap(use), xk, 1)
    partial = prod_p(term, axis=(nd + 1,), keepdims=False)   # (..., i, j)
    partial = where_p(P.wrap(window), partial, 0)
    g = reshape_p(transpose_p(dout, perm=perm), shape=lead + (1, n))
    gx_t = sum_p(mul_p(partial, g), axis=(nd,), keepdims=False)
    inv = tuple(np.argsort(perm))
    return (grad_for(x, transpose_p(gx_t, perm=inv)),)
