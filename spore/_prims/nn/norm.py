"""Layer and batch normalisation: fused kernels and fused gradients.

LayerNorm's statistics run over the trailing axes from ``axis`` on (MindSpore's
``begin_norm_axis``); ``gamma``/``beta`` (optional, given together) have the
shape of those axes. It returns (y, mean, rstd) as MindSpore's primitive does;
mean and rstd keep the normalised axes as size 1. BatchNorm (training mode)
normalises each channel (axis 1) over all other axes and returns (y, mean,
biased variance) for the running statistics.

LayerNormGrad and BatchNormGrad compute (dx[, dgamma, dbeta]) in one fused
pass each. Their own gradients (grad of grad) are the vjps of the same
formulas written with primitives (``layer_norm_backward``,
``batch_norm_backward``), so the two can never disagree.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from .._base import composite_grad
from .. import math as M
from .. import vecmath
from ..array import reshape_p
from ..reduce import mean_p, sum_p
from ._common import check_float, check_same_dtype, compute_dtype, scratch, validated
from ._tiles import row_blocks, run_blocks


def _split(shape, axis):
    return math.prod(shape[:axis]), math.prod(shape[axis:])


def stats_shape(shape, axis):
    return tuple(shape[:axis]) + (1,) * (len(shape) - axis)


# ----------------------------------------------------------------- kernels
def _row_means(xp, a):
    """Row means as a BLAS matrix-vector product (several times a ufunc reduction's speed)."""
    return xp.matmul(a, xp.full(a.shape[1], 1.0 / a.shape[1], a.dtype))[:, None]


def _normalize_block(xp, x, out, eps):
    """out = (x - mean) * rstd over each row; returns (mean, rstd) of the rows."""
    mean = _row_means(xp, x)
    xp.subtract(x, mean, out=out)
    var = xp.einsum("ij,ij->i", out, out)[:, None]
    var *= 1.0 / x.shape[1]
    var += eps
    rstd = xp.sqrt(var, out=var)
    xp.reciprocal(rstd, out=rstd)
    out *= rstd
    return mean, rstd


def _fused(xp, x, *params):
    """Whether the compiled row loops run this call (NOTE: [Layer norm rows] in
    spore/_prims/vecmath.py): float32 NumPy data of MIN_FAST elements or more, float32
    gamma/beta, Numba on and loaded; decided once for the whole call."""
    return (xp is np and x.dtype == np.float32 and x.size >= vecmath.MIN_FAST
            and all(p.dtype == np.float32 for p in params) and vecmath.usable())


def _affine_args(gamma, beta, width):
    """The loops' (gamma, beta, affine) arguments: contiguous float32 rows."""
    if gamma is None:
        empty = np.zeros(width, np.float32)
        return empty, empty, False
    return np.ascontiguousarray(gamma), np.ascontiguousarray(beta), True


def _make_layer_norm(xp):
    def layer_norm(x, *affine, axis, eps):
        dt = x.dtype
        cdt = compute_dtype(dt)
        rows, width = _split(x.shape, axis)
        x2 = xp.ascontiguousarray(x, dtype=cdt).reshape(rows, width)
        gamma, beta = [a.astype(cdt, copy=False).reshape(width) for a in affine] or (None, None)
        out = xp.empty((rows, width), cdt)
        mean = xp.empty((rows, 1), cdt)
        rstd = xp.empty((rows, 1), cdt)
        if _fused(xp, x2, *affine):
            g, b, on = _affine_args(gamma, beta, width)

            def block(i, lo, hi):
                vecmath.layer_norm_rows(x2[lo:hi], g, b, on, float(eps), out[lo:hi],
                                        mean[lo:hi, 0], rstd[lo:hi, 0])
        else:
            def block(i, lo, hi):
                o = out[lo:hi]
                mean[lo:hi], rstd[lo:hi] = _normalize_block(xp, x2[lo:hi], o, eps)
                if gamma is not None:
                    o *= gamma
                    o += beta
        _run(xp, block, rows, width)
        stats = stats_shape(x.shape, axis)
        return (out.reshape(x.shape).astype(dt, copy=False),
                mean.reshape(stats).astype(dt, copy=False),
                rstd.reshape(stats).astype(dt, copy=False))
    return layer_norm


def _make_layer_norm_grad(xp):
    def layer_norm_grad(x, dy, *gamma, axis, eps):
        dt = x.dtype
        cdt = compute_dtype(dt)
        rows, width = _split(x.shape, axis)
        x2, dy2 = [xp.ascontiguousarray(a, dtype=cdt).reshape(rows, width) for a in (x, dy)]
        g = gamma[0].astype(cdt, copy=False).reshape(width) if gamma else None
        dx = xp.empty((rows, width), cdt)
        blocks = row_blocks(rows, width)
        fused = _fused(xp, x2, dy2, *gamma)
        acc = np.float64 if fused else cdt           # the loops sum dgamma in float64
        dgamma = xp.zeros((len(blocks), width), acc)
        dbeta = xp.zeros((len(blocks), width), acc)
        if fused:
            gw, _, on = _affine_args(g, g, width)

            def block(i, lo, hi):
                vecmath.layer_norm_grad_rows(x2[lo:hi], dy2[lo:hi], gw, on, float(eps),
                                             dx[lo:hi], dgamma[i], dbeta[i])
            _run(xp, block, rows, width, blocks)
            return _grad_results(xp, x, dx, dgamma, dbeta, gamma, dt)

        def block(i, lo, hi):
            xhat = xp.empty((hi - lo, width), cdt)
            _, rstd = _normalize_block(xp, x2[lo:hi], xhat, eps)
            d = dy2[lo:hi]
            if g is not None:
                dgamma[i] = xp.einsum("ij,ij->j", d, xhat)
                dbeta[i] = xp.matmul(xp.ones(hi - lo, cdt), d)
                d = d * g
            o = dx[lo:hi]
            proj = xp.einsum("ij,ij->i", d, xhat)[:, None]
            proj *= 1.0 / width
            xp.multiply(xhat, proj, out=o)
            o += _row_means(xp, d)
            xp.subtract(d, o, out=o)
            o *= rstd
        _run(xp, block, rows, width, blocks)
        return _grad_results(xp, x, dx, dgamma, dbeta, gamma, dt)
    return layer_norm_grad


def _grad_results(xp, x, dx, dgamma, dbeta, gamma, dt):
    """(dx[, dgamma, dbeta]) from the tiles' partial sums, added in tile order."""
    dx = dx.reshape(x.shape).astype(dt, copy=False)
    if not gamma:
        return (dx,)
    shape = tuple(gamma[0].shape)
    return (dx, dgamma.sum(axis=0).reshape(shape).astype(dt, copy=False),
            dbeta.sum(axis=0).reshape(shape).astype(dt, copy=False))


def _run(xp, block, rows, width, blocks=None):
    blocks = blocks or row_blocks(rows, width)
    if xp is np:
        run_blocks(block, blocks)
    else:
        block(0, 0, rows)


# ----------------------------------------------------------------- shape rules
def _check_axis(op, axis, ndim):
    if not 0 <= axis < max(ndim, 1):
        raise ValueError(f"For '{op}', the 'begin_norm_axis' must be in [0, {ndim}), "
                         f"but got {axis}.")


def _check_affine(op, x, axis, affine):
    if len(affine) not in (0, 2):
        raise ValueError(f"For '{op}', 'gamma' and 'beta' must be given together.")
    for name, a in zip(("gamma", "beta"), affine):
        if tuple(a.shape) != tuple(x.shape[axis:]):
            raise ValueError(f"For '{op}', gamma or beta shape must match input shape, but got "
                             f"input shape: {list(x.shape)}, {name} shape: {list(a.shape)} "
                             f"(normalising from axis {axis}).")
        check_same_dtype(op, "x", x, name, a)


def _layer_norm_infer(attrs, x, *affine):
    check_float("LayerNorm", "x", x.dtype)
    _check_axis("LayerNorm", attrs["axis"], len(x.shape))
    _check_affine("LayerNorm", x, attrs["axis"], affine)
    stats = ShapedArray(stats_shape(x.shape, attrs["axis"]), x.dtype)
    return ShapedArray(x.shape, x.dtype), stats, stats


def _layer_norm_grad_infer(attrs, x, dy, *gamma):
    check_float("LayerNormGrad", "x", x.dtype)
    axis = attrs["axis"]
    _check_axis("LayerNormGrad", axis, len(x.shape))
    if tuple(dy.shape) != tuple(x.shape):
        raise ValueError(f"For 'LayerNormGrad', 'dy' must have the shape of 'x' "
                         f"{list(x.shape)}, but got {list(dy.shape)}.")
    _check_affine("LayerNormGrad", x, axis, gamma + gamma)
    out = (ShapedArray(x.shape, x.dtype),)
    if gamma:
        out += (ShapedArray(gamma[0].shape, x.dtype),) * 2
    return out


layer_norm_p = P.Primitive("LayerNorm", validated(_make_layer_norm, _layer_norm_infer),
                           kind="opaque", multiple_results=True, infer=_layer_norm_infer)
layer_norm_grad_p = P.Primitive("LayerNormGrad",
                                validated(_make_layer_norm_grad, _layer_norm_grad_infer),
                                kind="opaque", multiple_results=True,
                                infer=_layer_norm_grad_infer)


# ----------------------------------------------------------------- gradient rules
def _normalization_grad(grad_p):
    """The rule of a normalisation (x, [gamma, beta]) -> (y, statistics...): its gradient
    primitive takes (x, dy, [gamma]). Only ``y`` carries a gradient; when only the
    statistics were used (LayerNorm's mean/rstd, BatchNorm's running-stat updates)
    nothing is trained through them."""
    def rule(attrs, inputs, out, douts):
        x, *affine = inputs
        dy = douts[0]
        if dy is None:
            return (None,) * len(inputs)
        return tuple(grad_p(x, dy, *affine[:1], **attrs))
    return rule


layer_norm_p.def_grad(inputs=(0, 1))(_normalization_grad(layer_norm_grad_p))


def layer_norm_backward(x, dy, *gamma, axis, eps):
    """What LayerNormGrad computes, written with primitives."""
    axes = tuple(range(axis, len(x.shape)))
    xc = M.sub_p(x, mean_p(x, axis=axes, keepdims=True))
    rstd = M.rsqrt_p(M.add_p(mean_p(M.mul_p(xc, xc), axis=axes, keepdims=True), eps))
    xhat = M.mul_p(xc, rstd)
    g = M.mul_p(dy, gamma[0]) if gamma else dy
    centred = M.sub_p(g, mean_p(g, axis=axes, keepdims=True))
    proj = M.mul_p(xhat, mean_p(M.mul_p(g, xhat), axis=axes, keepdims=True))
    dx = M.mul_p(rstd, M.sub_p(centred, proj))
    if not gamma:
        return (dx,)
    lead = tuple(range(axis))
    return (dx, sum_p(M.mul_p(dy, xhat), axis=lead, keepdims=False),
            sum_p(dy, axis=lead, keepdims=False))


# the second-order rule: the vjp of the composite backward
layer_norm_grad_p.def_grad(inputs="all")(composite_grad(layer_norm_backward))


# ----------------------------------------------------------------- batch norm (training)
# BatchNorm normalises each channel (axis 1) over the batch and every other axis with
# the batch statistics, and returns (y, mean, var) with the biased variance, so the
# caller can update running statistics; BatchNormGrad returns (dx[, dgamma, dbeta]).
# The channel sums are BLAS matrix-vector products over rows of the (N*C, S) view.
def _channel_sum(xp, x3):
    """Per-channel sums of an (N, C, S) array."""
    n, c, s = x3.shape
    return xp.matmul(x3.reshape(n * c, s), xp.ones(s, x3.dtype)).reshape(n, c).sum(axis=0)


def _channel_dot(xp, a3, b3):
    """Per-channel sums of a * b over (N, C, S) arrays."""
    n, c, s = a3.shape
    return xp.einsum("ij,ij->i", a3.reshape(n * c, s), b3.reshape(n * c, s)).reshape(n, c).sum(0)


def _as_ncs(xp, x, cdt):
    n, c = x.shape[:2]
    return xp.ascontiguousarray(x, dtype=cdt).reshape(n, c, math.prod(x.shape[2:]))


def _batch_stats(xp, x3, eps, centred):
    """Fill ``centred`` with x - mean; return (mean, biased var, rstd) per channel."""
    count = x3.shape[0] * x3.shape[2]
    mean = _channel_sum(xp, x3) / count
    xp.subtract(x3, mean[:, None], out=centred)
    var = _channel_dot(xp, centred, centred) / count
    return mean, var, 1.0 / xp.sqrt(var + eps)


def _make_batch_norm(xp):
    def batch_norm(x, *affine, eps):
        dt = x.dtype
        cdt = compute_dtype(dt)
        x3 = _as_ncs(xp, x, cdt)
        out = xp.empty(x3.shape, cdt)
        mean, var, rstd = _batch_stats(xp, x3, eps, out)
        scale = rstd if not affine else rstd * affine[0].astype(cdt, copy=False)
        out *= scale[:, None]
        if affine:
            out += affine[1].astype(cdt, copy=False)[:, None]
        return (out.reshape(x.shape).astype(dt, copy=False), mean.astype(dt, copy=False),
                var.astype(dt, copy=False))
    return batch_norm


def _make_batch_norm_grad(xp):
    def batch_norm_grad(x, dy, *gamma, eps):
        dt = x.dtype
        cdt = compute_dtype(dt)
        x3, d3 = _as_ncs(xp, x, cdt), _as_ncs(xp, dy, cdt)
        count = x3.shape[0] * x3.shape[2]
        xhat = scratch(xp, "bn-xhat", x3.shape, cdt)
        _, _, rstd = _batch_stats(xp, x3, eps, xhat)
        xhat *= rstd[:, None]
        dbeta = _channel_sum(xp, d3)
        dgamma = _channel_dot(xp, d3, xhat)
        dx = xp.multiply(xhat, (dgamma / count)[:, None])
        xp.subtract(d3, dx, out=dx)
        dx -= (dbeta / count)[:, None]
        g = gamma[0].astype(cdt, copy=False) if gamma else 1.0
        dx *= (rstd * g)[:, None]
        dx = dx.reshape(x.shape).astype(dt, copy=False)
        if not gamma:
            return (dx,)
        return dx, dgamma.astype(dt, copy=False), dbeta.astype(dt, copy=False)
    return batch_norm_grad


def _check_channels(op, x, params):
    if len(x.shape) < 2:
        raise ValueError(f"For '{op}', the input must have at least 2 dimensions (N, C), but "
                         f"got shape {list(x.shape)}.")
    if len(params) not in (0, 2):
        raise ValueError(f"For '{op}', 'weight' and 'bias' must be given together.")
    for name, a in zip(("weight", "bias"), params):
        if tuple(a.shape) != (x.shape[1],):
            raise ValueError(f"For '{op}', the '{name}' must have shape [{x.shape[1]}] (the "
                             f"channels of input shape {list(x.shape)}), but got "
                             f"{list(a.shape)}.")
        check_same_dtype(op, "x", x, name, a)


def _batch_norm_infer(attrs, x, *affine):
    check_float("BatchNorm", "x", x.dtype)
    _check_channels("BatchNorm", x, affine)
    stats = ShapedArray((x.shape[1],), x.dtype)
    return ShapedArray(x.shape, x.dtype), stats, stats


def _batch_norm_grad_infer(attrs, x, dy, *gamma):
    check_float("BatchNormGrad", "x", x.dtype)
    _check_channels("BatchNormGrad", x, gamma + gamma)
    if tuple(dy.shape) != tuple(x.shape):
        raise ValueError(f"For 'BatchNormGrad', 'dy' must have the shape of 'x' "
                         f"{list(x.shape)}, but got {list(dy.shape)}.")
    channel = ShapedArray((x.shape[1],), x.dtype)
    return (ShapedArray(x.shape, x.dtype),) + ((channel, channel) if gamma else ())


batch_norm_p = P.Primitive("BatchNorm", validated(_make_batch_norm, _batch_norm_infer),
                           kind="opaque", multiple_results=True, infer=_batch_norm_infer)
batch_norm_grad_p = P.Primitive("BatchNormGrad",
                                validated(_make_batch_norm_grad, _batch_norm_grad_infer),
                                kind="opaque", multiple_results=True,
                                infer=_batch_norm_grad_infer)


batch_norm_p.def_grad(inputs=(0, 1))(_normalization_grad(batch_norm_grad_p))


def batch_norm_backward(x, dy, *gamma, eps):
    """What BatchNormGrad computes, written with primitives."""
    axes = (0,) + tuple(range(2, len(x.shape)))
    channel = (1, x.shape[1]) + (1,) * (len(x.shape) - 2)
    xc = M.sub_p(x, mean_p(x, axis=axes, keepdims=True))
    rstd = M.rsqrt_p(M.add_p(mean_p(M.mul_p(xc, xc), axis=axes, keepdims=True), eps))
    xhat = M.mul_p(xc, rstd)
    centred = M.sub_p(dy, mean_p(dy, axis=axes, keepdims=True))
    proj = M.mul_p(xhat, mean_p(M.mul_p(dy, xhat), axis=axes, keepdims=True))
    scale = rstd if not gamma else M.mul_p(rstd, reshape_p(gamma[0], shape=channel))
    dx = M.mul_p(scale, M.sub_p(centred, proj))
    if not gamma:
        return (dx,)
    return (dx, sum_p(M.mul_p(dy, xhat), axis=axes, keepdims=False),
            sum_p(dy, axis=axes, keepdims=False))


batch_norm_grad_p.def_grad(inputs="all")(composite_grad(batch_norm_backward))
