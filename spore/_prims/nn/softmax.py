"""Softmax and log-softmax: fused, numerically stable kernels with fused gradients.

They are primitives (not composites of exp/sum/div) because they run on large
attention scores: a fused, row-tiled kernel (NOTE: [Row tiles]) makes fewer and
cheaper passes than the composite's five, each of which allocates. Their
gradients are primitives too, for the same reason, with rules written in
primitives (grad of grad).
"""
from __future__ import annotations

import math

import numpy as np

from ... import _native
from ..._core import primitive as P
from ..._core.aval import ShapedArray
from .. import math as M
from ..reduce import sum_p
from ..._native import jit
from ..vecmath import exp_into, rows_kernel, softmax_grad_rows, softmax_rows
from ._common import check_float, compute_dtype
from ._tiles import map_rows


def check_axis(op, axis, ndim):
    lo, hi = -max(ndim, 1), max(ndim, 1)
    if ndim == 0 or not lo <= axis < hi:
        raise ValueError(f"For primitive[{op}], the axis must be in [{-ndim},{ndim}), "
                         f"but got {axis}.")


def _rowwise(name, rows, block_axis, loop=None):
    """Kernel factory: along the last axis ``rows`` runs tile by tile (see NOTE: [Row
    tiles]), or the vectorised ``loop`` where it serves (NOTE: [Softmax rows] in
    spore/_prims/vecmath.py); along any other axis ``block_axis`` runs once over the
    whole arrays. Half-precision data is computed in float32."""
    def make(xp):
        def kernel(*arrays, axis):
            x = arrays[0]
            check_float(name, "x", x.dtype)
            check_axis(name, axis, x.ndim)
            dt = x.dtype
            cdt = compute_dtype(dt)
            arrays = [a.astype(cdt, copy=False) for a in arrays]
            out = xp.empty(x.shape, cdt)
            if x.size and axis % x.ndim == x.ndim - 1:
                fast = loop is not None and rows_kernel(loop, xp, arrays[0])
                map_rows(xp, fast or (lambda *a: rows(xp, *a)), out, *arrays,
                         rowwise=bool(fast))
            elif x.size:
                block_axis(xp, *arrays, out, axis=axis)
            return out if cdt == dt else out.astype(dt)
        return kernel
    return make


def _same_infer(name):
    def infer(attrs, x, *rest):
        check_float(name, "x", x.dtype)
        check_axis(name, attrs["axis"], len(x.shape))
        for r in rest:
            if tuple(r.shape) != tuple(x.shape):
                raise ValueError(f"For '{name}', the inputs must have the same shape, but got "
                                 f"{list(x.shape)} and {list(r.shape)}.")
        return ShapedArray(x.shape, x.dtype)
    return infer


def _primitive(name, rows, block, n_inputs, loop=None):
    """``rows(xp, *blocks, out)`` (or the compiled ``loop(*blocks, out)``) runs on row
    tiles of the last axis, ``block(xp, *arrays, out, axis)`` on whole arrays along any
    other axis."""
    return P.Primitive(name, _rowwise(name, rows, block, loop), kind="opaque",
                       n_inputs=n_inputs, infer=_same_infer(name))


# ----------------------------------------------------------------- blocks
# NOTE: [Softmax without the max pass]
# softmax(x) = exp(x - m) / sum(exp(x - m)) for any m; the row max is the usual
# m, but finding it costs a pass as slow as exp itself. When the whole block is
# at most EXP_SAFE, exp(x) cannot overflow (even summed over 10^12 entries), so
# the rows use m = 0; a row whose sum underflows below TINY (its largest entry
# is below about -69) loses precision that way and is recomputed exactly. Row
# sums are matrix-vector products with a ones vector (BLAS beats a ufunc reduction
# over short rows by about 7x).
EXP_SAFE = 60.0
TINY = 1e-30


def _row_sums(xp, a):
    return xp.matmul(a, xp.ones(a.shape[-1], a.dtype))[:, None]


def _fast_rows(xp, x):
    """Whether the rows of block ``x`` may skip the max pass (NaN fails the test)."""
    return bool(xp.max(x) <= EXP_SAFE)


def _redo_rows(xp, x, out, low, block):
    """Recompute the ``low`` rows (their sum of exponentials underflowed) with ``block``,
    the max-shifted form."""
    if low.any():
        exact = xp.empty((int(low.sum()), x.shape[1]), x.dtype)
        block(xp, x[low], exact, axis=-1)
        out[low] = exact


def _softmax_rows(xp, x, out):
    if not _fast_rows(xp, x):
        _softmax_block(xp, x, out, axis=-1)
        return
    exp_into(xp, x, out)
    s = _row_sums(xp, out)
    low = s[:, 0] < TINY
    with np.errstate(divide="ignore", invalid="ignore"):    # low rows are redone below
        xp.reciprocal(s, out=s)
        out *= s
    _redo_rows(xp, x, out, low, _softmax_block)


def _log_softmax_rows(xp, x, out):
    if not _fast_rows(xp, x):
        _log_softmax_block(xp, x, out, axis=-1)
        return
    exp_into(xp, x, out)
    s = _row_sums(xp, out)
    low = s[:, 0] < TINY
    with np.errstate(divide="ignore"):                       # low rows are redone below
        xp.log(s, out=s)
    xp.subtract(x, s, out=out)
    _redo_rows(xp, x, out, low, _log_softmax_block)


def _softmax_block(xp, x, out, axis):
    m = xp.max(x, axis=axis, keepdims=True)
    xp.subtract(x, m, out=out)
    exp_into(xp, out, out)
    s = xp.sum(out, axis=axis, keepdims=True)
    xp.divide(out, s, out=out)


def _log_softmax_block(xp, x, out, axis):
    m = xp.max(x, axis=axis, keepdims=True)
    xp.subtract(x, m, out=out)
    s = xp.sum(xp.exp(out), axis=axis, keepdims=True)
    xp.log(s, out=s)
    xp.subtract(out, s, out=out)


def _softmax_grad_rows(xp, y, g, out):
    """dx = y * (g - sum(g * y))"""
    xp.multiply(g, y, out=out)
    s = _row_sums(xp, out)
    xp.subtract(g, s, out=out)
    out *= y


def _softmax_grad_block(xp, y, g, out, axis):
    xp.multiply(g, y, out=out)
    s = xp.sum(out, axis=axis, keepdims=True)
    xp.subtract(g, s, out=out)
    out *= y


def _log_softmax_grad_rows(xp, y, g, out):
    """dx = g - exp(y) * sum(g)"""
    s = _row_sums(xp, g)
    exp_into(xp, y, out)
    out *= s
    xp.subtract(g, out, out=out)


def _log_softmax_grad_block(xp, y, g, out, axis):
    s = xp.sum(g, axis=axis, keepdims=True)
    exp_into(xp, y, out)
    out *= s
    xp.subtract(g, out, out=out)


# NOTE: [Log-softmax rows]
# LogSoftmax and its gradient on float32 rows (the last axis) as one compiled loop per
# row, its passes in L1 (the NumPy rows make five ufunc passes over a tile), for NumPy
# float32 inputs of vecmath.MIN_FAST elements or more with Numba on (the same test as
# softmax's rows, so PyNative and O0 take the same path and give the same bits).
# ``log_softmax_rows``: the row max ``m``; ``d = x - m`` exact in float64; the sum of
# e^d over the entries below the max, plus one for each further entry equal to it, is
# ``s - 1`` without rounding the 1 in, so ``log(s) = log1p(s - 1)`` keeps its relative
# precision when one entry dominates; the output ``d - log(s)`` is a sum of two
# non-positive float64 terms (no cancellation), rounded once to float32. With the
# float64 exp's relative error (< 3e-10, spore/_jit/approx.py) that is within 1 ulp of
# the exact log-softmax of the float32 input; stated and tested: 2 ulp. A row holding
# NaN or +inf is NaN, as the NumPy rows give. ``log_softmax_grad_rows``: ``g - e^y *
# sum(g)`` with the sum and the product in float64, rounded once: within 2 ulp of the
# exact formula plus the float64 exp's 3e-10 of ``|e^y * sum(g)|``, which shows only
# where the two terms cancel. "reassoc" lets the sums vectorise; the order is fixed by
# the compiled loop, so row tiles on the pool give the bits of one call.
exp64 = None            # approx.exp64, bound before the first compilation


def _bind_exp64():
    global exp64
    exp64 = _native.approximations().exp64


_F32_ROWS = dict(signature="float32[:, ::1], float32[:, ::1]", nogil=True,
                 dtypes=(np.dtype(np.float32),), setup=_bind_exp64, fastmath={"reassoc"})


@jit(**_F32_ROWS)
def log_softmax_rows(x, out):
    """out = log_softmax(x) along the last axis of C-contiguous float32 (rows, n) arrays."""
    n = x.shape[1]
    for r in range(x.shape[0]):
        xr = x[r]
        o = out[r]
        m = np.float64(xr[0])
        for k in range(1, n):
            v = np.float64(xr[k])
            m = v if v > m else m
        if m == np.inf:
            for k in range(n):
                o[k] = np.float32(np.nan)
            continue
        below = 0.0                                   # the sum of e^d over d < 0
        ties = 0                                      # entries equal to the max
        for k in range(n):
            d = np.float64(xr[k]) - m                 # <= 0, exact; NaN stays NaN
            e = exp64(-700.0 if d < -700.0 else d)
            top = d == 0.0
            below += 0.0 if top else e
            ties += 1 if top else 0
        ls = math.log1p(below + (ties - 1))           # log(s), s - 1 never rounded
        for k in range(n):
            o[k] = np.float32((np.float64(xr[k]) - m) - ls)


@jit(**dict(_F32_ROWS, signature="float32[:, ::1], float32[:, ::1], float32[:, ::1]"))
def log_softmax_grad_rows(y, g, out):
    """out = g - exp(y) * sum(g) along the last axis (log-softmax's gradient)."""
    n = y.shape[1]
    for r in range(y.shape[0]):
        yr = y[r]
        gr = g[r]
        o = out[r]
        s = 0.0
        for k in range(n):
            s += np.float64(gr[k])
        for k in range(n):
            t = np.float64(yr[k])
            t = 700.0 if t > 700.0 else (-700.0 if t < -700.0 else t)
            o[k] = np.float32(np.float64(gr[k]) - exp64(t) * s)


softmax_p = _primitive("Softmax", _softmax_rows, _softmax_block, 1, softmax_rows)
log_softmax_p = _primitive("LogSoftmax", _log_softmax_rows, _log_softmax_block, 1,
                           log_softmax_rows)
softmax_grad_p = _primitive("SoftmaxGrad", _softmax_grad_rows, _softmax_grad_block, 2,
                           softmax_grad_rows)
log_softmax_grad_p = _primitive("LogSoftmaxGrad", _log_softmax_grad_rows,
                                _log_softmax_grad_block, 2, log_softmax_grad_rows)


# ----------------------------------------------------------------- gradient rules
def _row_sum(t, axis):
    return sum_p(t, axis=(axis % len(t.shape),), keepdims=True)


@softmax_p.def_grad(inputs=(), output=True)
def _softmax_grad(attrs, inputs, out, dout):
    return (softmax_grad_p(out, dout, axis=attrs["axis"]),)


@log_softmax_p.def_grad(inputs=(), output=True)
def _log_softmax_grad(attrs, inputs, out, dout):
    return (log_softmax_grad_p(out, dout, axis=attrs["axis"]),)


@softmax_grad_p.def_grad(inputs=(0, 1))
def _softmax_grad_grad(attrs, inputs, out, c):
    """f(y, g) = y * (g - sum(g y)) is linear in g (with the same form) and bilinear in y."""
    y, g = inputs
    axis = attrs["axis"]
    ct_g = softmax_grad_p(y, c, axis=axis)
    ct_y = M.sub_p(M.mul_p(c, M.sub_p(g, _row_sum(M.mul_p(g, y), axis))),
                   M.mul_p(_row_sum(M.mul_p(c, y), axis), g))
    return ct_y, ct_g


@log_softmax_grad_p.def_grad(inputs=(0, 1))
def _log_softmax_grad_grad(attrs, inputs, out, c):
    """f(y, g) = g - exp(y) sum(g)."""
    y, g = inputs
    axis = attrs["axis"]
    c_exp = M.mul_p(c, M.exp_p(y))
    ct_g = M.sub_p(c, _row_sum(c_exp, axis))
    ct_y = M.neg_p(M.mul_p(c_exp, _row_sum(g, axis)))
    return ct_y, ct_g
