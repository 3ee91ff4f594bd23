"""2-D max and average pooling over strided window taps, with gradient primitives.

NOTE: [Pooling taps]
A kh x kw window is read as kh*kw *taps*: tap (i, j) is the strided slice of
the padded input that holds element (i, j) of every window, an array of the
output's shape. Pooling is then kh*kw elementwise steps over output-sized
arrays, with no window copy; the backward pass writes the same slices.

Max pooling also returns, for each output, the tap that won (the first
maximum), so its gradient never compares values again:

    y, tap = MaxPool2D(x)      dx   = MaxPoolScatter(dy, tap)
                               d dy = MaxPoolSelect(c, tap)   (and back again)

Average pooling is linear: AvgPool2D and AvgPool2DGrad are each other's
transposes.

Attributes: ``kernel`` (kh, kw), ``stride`` (sh, sw), ``pads`` (top, bottom,
left, right; bottom/right include the ceil-mode extension), ``dilation``
(max pooling); average pooling has ``count_pads`` (the part of ``pads`` that
counts toward the divisor) and ``divisor`` (an override, or 0). The gradients
carry ``input_shape``.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from .._base import dtype_name
from . import _loops
from ..math import _make_relu_grad
from ._common import check_float, compute_dtype, scratch, validated

MAX_GEOMETRY = ("kernel", "stride", "pads", "dilation")
AVG_GEOMETRY = ("kernel", "stride", "pads", "count_pads", "divisor")


def pool_output_hw(hw, attrs):
    (h, w), (kh, kw), (sh, sw) = hw, attrs["kernel"], attrs["stride"]
    dh, dw = attrs.get("dilation", (1, 1))
    pt, pb, pl, pr = attrs["pads"]
    return ((h + pt + pb - dh * (kh - 1) - 1) // sh + 1,
            (w + pl + pr - dw * (kw - 1) - 1) // sw + 1)


def _taps(attrs, ohw):
    """(row slice, column slice) of the padded input for every tap, in window order."""
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    dh, dw = attrs.get("dilation", (1, 1))
    oh, ow = ohw
    return [(slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
             slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
            for i in range(kh) for j in range(kw)]


def _overlapping(attrs):
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    dh, dw = attrs.get("dilation", (1, 1))
    return sh < dh * (kh - 1) + 1 or sw < dw * (kw - 1) + 1


def _pad(xp, x, pads, value=0):
    """The padded input, in scratch memory (NOTE: [Scratch buffers])."""
    if not any(pads):
        return x
    pt, pb, pl, pr = pads
    n, c, h, w = x.shape
    out = scratch(xp, "pool-pad", (n, c, h + pt + pb, w + pl + pr), x.dtype)
    out.fill(value)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _zero_grad(xp, input_shape, pads, dtype):
    """The zeroed gradient of the padded input: scratch when cropping copies it out."""
    n, c, h, w = input_shape
    shape = (n, c, h + pads[0] + pads[1], w + pads[2] + pads[3])
    if not any(pads):
        return xp.zeros(shape, dtype)
    out = scratch(xp, "pool-grad", shape, dtype)
    out.fill(0)
    return out


def _crop(xp, dxp, shape, pads):
    if not any(pads):
        return dxp
    _, _, h, w = shape
    return xp.ascontiguousarray(dxp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w])


def tap_dtype(attrs):
    kh, kw = attrs["kernel"]
    return np.dtype(np.int8) if kh * kw <= 127 else np.dtype(np.int32)


def _lowest(dtype):
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _geometry(attrs, names):
    return {k: attrs[k] for k in names}


# ----------------------------------------------------------------- max pooling
# NOTE: [Compiled 2x2 pooling]
# The common 2x2 window with stride 2 (no padding or dilation) runs as one compiled
# pass (NOTE: [Native loops]): the taps path makes about fifteen passes over strided
# 2-D views and pays NumPy's per-row cost in each (LeNet's first pooling: 0.19 ms
# forward and 0.19 ms backward, against 0.08 ms each compiled).
def _native_2x2(xp, kernel, stride, pads, dilation, dtype):
    return (_loops.usable(xp, dtype) and tuple(kernel) == (2, 2) and tuple(stride) == (2, 2)
            and not any(pads) and tuple(dilation) == (1, 1))


def _max_pool_2x2(x):
    n, c, h, w = x.shape
    y = np.empty((n, c, h // 2, w // 2), x.dtype)
    won = np.empty(y.shape, tap_dtype({"kernel": (2, 2)}))
    if y.size:
        _loops.max_pool_2x2(np.ascontiguousarray(x).reshape(-1), h, w, y.reshape(-1),
                            won.reshape(-1))
    return y, won


_NO_SUMS = np.empty(0, np.float64)


def _max_scatter_2x2(dy, won, input_shape, y=None, sums=None):
    """The compiled 2x2 scatter; with ``y``, masked by ReluGrad against it in the same
    pass, and with ``sums`` (float64, per channel) the masked result's channel sums
    added to them (MaxPoolScatterReluGrad: NOTE: [Conv epilogues])."""
    h, w = input_shape[2:]
    dx = (np.zeros if h % 2 or w % 2 else np.empty)(input_shape, dy.dtype)   # uncovered edge
    if dy.size:
        flat = (np.ascontiguousarray(dy).reshape(-1), np.ascontiguousarray(won).reshape(-1))
        if y is None:
            _loops.max_scatter_2x2(*flat, h, w, dx.reshape(-1))
        else:
            _loops.max_scatter_2x2_relu_grad(*flat, np.ascontiguousarray(y).reshape(-1), h, w,
                                             dx.reshape(-1), _NO_SUMS if sums is None else sums)
    return dx


def _make_max_pool(xp):
    def max_pool(x, *, kernel, stride, pads, dilation):
        attrs = dict(kernel=kernel, stride=stride, pads=pads, dilation=dilation)
        dt = x.dtype
        cdt = compute_dtype(dt)
        if _native_2x2(xp, kernel, stride, pads, dilation, cdt):
            y, won = _max_pool_2x2(x.astype(cdt, copy=False))
            return y.astype(dt, copy=False), won
        xpad = _pad(xp, x.astype(cdt, copy=False), pads, _lowest(cdt))
        taps = [xpad[:, :, rows, cols]
                for rows, cols in _taps(attrs, pool_output_hw(x.shape[2:], attrs))]
        y = taps[0].copy()
        for tap in taps[1:]:
            xp.maximum(y, tap, out=y)
        return y.astype(dt, copy=False), _first_winner(xp, taps, y, tap_dtype(attrs))
    return max_pool


def _first_winner(xp, taps, y, dtype):
    """Index of the first tap equal to the maximum ``y`` (the last tap if none is: NaN)."""
    won = xp.full(y.shape, len(taps) - 1, dtype)
    step = xp.empty(y.shape, dtype)
    hit = xp.empty(y.shape, bool)
    for k in range(len(taps) - 2, -1, -1):   # won = k where tap k wins, arithmetically
        xp.equal(taps[k], y, out=hit)
        xp.subtract(won, dtype.type(k), out=step)
        xp.multiply(step, hit, out=step)
        xp.subtract(won, step, out=won)
    return won


def _make_max_scatter(xp):
    def max_pool_scatter(dy, won, *, input_shape, kernel, stride, pads, dilation):
        if _native_2x2(xp, kernel, stride, pads, dilation, dy.dtype):
            return _max_scatter_2x2(dy, won, input_shape)
        attrs = dict(kernel=kernel, stride=stride, pads=pads, dilation=dilation)
        dxp = _zero_grad(xp, input_shape, pads, dy.dtype)
        overlap = _overlapping(attrs)
        for k, (rows, cols) in enumerate(_taps(attrs, dy.shape[2:])):
            target = dxp[:, :, rows, cols]
            if overlap:
                target += dy * (won == k)
            else:
                xp.multiply(dy, won == k, out=target)
        return _crop(xp, dxp, input_shape, pads)
    return max_pool_scatter


def _make_max_scatter_relu_grad(xp):
    """MaxPoolScatter then ReluGrad against ``y`` (the ReLU output the pooling read), the
    pair a ReLU before a max pooling leaves in the backward pass (NOTE: [Conv
    epilogues] in spore/_prims/nn/conv.py): the compiled 2x2 loop masks while it
    scatters; elsewhere the two kernels run one after the other."""
    scatter = _make_max_scatter(xp)
    relu_grad = _make_relu_grad(xp)

    def max_pool_scatter_relu_grad(dy, won, y, *, input_shape, kernel, stride, pads,
                                   dilation, sums=None):
        if _native_2x2(xp, kernel, stride, pads, dilation, dy.dtype) and y.dtype == dy.dtype:
            return _max_scatter_2x2(dy, won, input_shape, y, sums)
        dx = scatter(dy, won, input_shape=input_shape, kernel=kernel, stride=stride,
                     pads=pads, dilation=dilation)
        dx = relu_grad(dx, y)
        if sums is not None:
            sums += dx.sum(axis=(0, 2, 3), dtype=np.float64)
        return dx
    return max_pool_scatter_relu_grad


def _make_max_scatter_relu_grad_sum(xp):
    """MaxPoolScatterReluGrad and the sum of its result over all axes but the channels
    (the bias gradient of the convolution before the ReLU), taken in the same pass in
    float64 (NOTE: [Conv epilogues])."""
    fused = _make_max_scatter_relu_grad(xp)

    def max_pool_scatter_relu_grad_sum(dy, won, y, **attrs):
        sums = np.zeros(attrs["input_shape"][1], np.float64)
        dx = fused(dy, won, y, sums=sums, **attrs)
        return dx, sums.astype(dx.dtype)
    return max_pool_scatter_relu_grad_sum


def _make_max_select(xp):
    def max_pool_select(c, won, *, kernel, stride, pads, dilation):
        attrs = dict(kernel=kernel, stride=stride, pads=pads, dilation=dilation)
        cpad = _pad(xp, c, pads)
        out = xp.zeros(won.shape, c.dtype)
        for k, (rows, cols) in enumerate(_taps(attrs, won.shape[2:])):
            out += cpad[:, :, rows, cols] * (won == k)
        return out
    return max_pool_select


# ----------------------------------------------------------------- average pooling
def _window_counts(xp, n_out, size, k, s, pad_lo, count_lo, count_hi):
    """Per output position: how many window elements lie in the counted region."""
    start = xp.arange(n_out) * s - pad_lo
    lo = xp.maximum(start, -count_lo)
    hi = xp.minimum(start + k, size + count_hi)
    return hi - lo


def _inverse_divisor(xp, hw, ohw, attrs, dtype):
    if attrs["divisor"]:
        return 1.0 / attrs["divisor"]
    (kh, kw), (sh, sw) = attrs["kernel"], attrs["stride"]
    pads, counted = attrs["pads"], attrs["count_pads"]
    rows = _window_counts(xp, ohw[0], hw[0], kh, sh, pads[0], counted[0], counted[1])
    cols = _window_counts(xp, ohw[1], hw[1], kw, sw, pads[2], counted[2], counted[3])
    return (1.0 / (rows[:, None] * cols[None, :])).astype(dtype)


def _make_avg_pool(xp):
    def avg_pool(x, *, kernel, stride, pads, count_pads, divisor):
        attrs = dict(kernel=kernel, stride=stride, pads=pads, count_pads=count_pads,
                     divisor=divisor)
        dt = x.dtype
        cdt = compute_dtype(dt)
        xpad = _pad(xp, x.astype(cdt, copy=False), pads)
        ohw = pool_output_hw(x.shape[2:], attrs)
        taps = _taps(attrs, ohw)
        rows, cols = taps[0]
        acc = xpad[:, :, rows, cols].copy()
        for rows, cols in taps[1:]:
            acc += xpad[:, :, rows, cols]
        acc *= _inverse_divisor(xp, x.shape[2:], ohw, attrs, cdt)
        return acc.astype(dt, copy=False)
    return avg_pool


def _make_avg_pool_grad(xp):
    def avg_pool_grad(dy, *, input_shape, kernel, stride, pads, count_pads, divisor):
        attrs = dict(kernel=kernel, stride=stride, pads=pads, count_pads=count_pads,
                     divisor=divisor)
        g = dy * _inverse_divisor(xp, input_shape[2:], dy.shape[2:], attrs, dy.dtype)
        dxp = _zero_grad(xp, input_shape, pads, dy.dtype)
        overlap = _overlapping(attrs)
        for rows, cols in _taps(attrs, dy.shape[2:]):
            if overlap:
                dxp[:, :, rows, cols] += g
            else:
                dxp[:, :, rows, cols] = g
        return _crop(xp, dxp, input_shape, pads)
    return avg_pool_grad


# ----------------------------------------------------------------- shape rules
def _check_4d(op, arg, a):
    if len(a.shape) != 4:
        raise ValueError(f"For '{op}', the '{arg}' rank must be equal to 4, but got "
                         f"{len(a.shape)} (shape {list(a.shape)}).")


def _checked_output(op, x_shape, attrs):
    oh, ow = pool_output_hw(x_shape[2:], attrs)
    if oh < 1 or ow < 1:
        raise ValueError(f"For '{op}', the input's height and width with padding "
                         f"({list(x_shape[2:])}, pads {list(attrs['pads'])}) must be at least "
                         f"the kernel size {list(attrs['kernel'])}.")
    return tuple(x_shape[:2]) + (oh, ow)


def _check_tap(op, won, out_shape):
    if tuple(won.shape) != tuple(out_shape) or np.dtype(won.dtype).kind not in "iu":
        raise ValueError(f"For '{op}', the window argmax must be an integer tensor of shape "
                         f"{list(out_shape)}, but got {dtype_name(won.dtype)}"
                         f"{list(won.shape)}.")


def _max_pool_infer(attrs, x):
    _check_4d("MaxPool2D", "x", x)
    if np.dtype(x.dtype).kind not in "fiuV":
        raise TypeError(f"For 'MaxPool2D', the input 'x' must be a float or integer tensor, "
                        f"but got {dtype_name(x.dtype)}.")
    shape = _checked_output("MaxPool2D", x.shape, attrs)
    return ShapedArray(shape, x.dtype), ShapedArray(shape, tap_dtype(attrs))


def _max_scatter_infer(attrs, dy, won):
    _check_4d("MaxPoolScatter", "dout", dy)
    _check_tap("MaxPoolScatter", won, dy.shape)
    out = _checked_output("MaxPoolScatter", attrs["input_shape"], attrs)
    if tuple(dy.shape) != out:
        raise ValueError(f"For 'MaxPoolScatter', the 'dout' must have shape {list(out)}, but "
                         f"got {list(dy.shape)}.")
    return ShapedArray(tuple(attrs["input_shape"]), dy.dtype)


def _max_scatter_relu_grad_infer(attrs, dy, won, y):
    out = _max_scatter_infer(attrs, dy, won)
    if tuple(y.shape) != out.shape or y.dtype != dy.dtype:
        raise ValueError(f"For 'MaxPoolScatterReluGrad', the ReLU output 'y' must be "
                         f"{dtype_name(dy.dtype)}{list(out.shape)}, but got "
                         f"{dtype_name(y.dtype)}{list(y.shape)}.")
    return out


def _max_scatter_relu_grad_sum_infer(attrs, dy, won, y):
    out = _max_scatter_relu_grad_infer(attrs, dy, won, y)
    return out, ShapedArray((out.shape[1],), out.dtype)


def _max_select_infer(attrs, c, won):
    _check_4d("MaxPoolSelect", "x", c)
    out = _checked_output("MaxPoolSelect", c.shape, attrs)
    _check_tap("MaxPoolSelect", won, out)
    return ShapedArray(out, c.dtype)


def _avg_pool_infer(attrs, x):
    _check_4d("AvgPool2D", "x", x)
    check_float("AvgPool2D", "x", x.dtype)
    return ShapedArray(_checked_output("AvgPool2D", x.shape, attrs), x.dtype)


def _avg_pool_grad_infer(attrs, dy):
    _check_4d("AvgPool2DGrad", "dout", dy)
    check_float("AvgPool2DGrad", "dout", dy.dtype)
    out = _checked_output("AvgPool2DGrad", attrs["input_shape"], attrs)
    if tuple(dy.shape) != out:
        raise ValueError(f"For 'AvgPool2DGrad', the 'dout' must have shape {list(out)}, but "
                         f"got {list(dy.shape)}.")
    return ShapedArray(tuple(attrs["input_shape"]), dy.dtype)


def _primitive(name, make, infer, n_inputs, **kw):
    return P.Primitive(name, validated(make, infer), kind="opaque", n_inputs=n_inputs,
                       infer=infer, **kw)


max_pool2d_p = _primitive("MaxPool2D", _make_max_pool, _max_pool_infer, 1,
                          multiple_results=True)
max_pool_scatter_p = _primitive("MaxPoolScatter", _make_max_scatter, _max_scatter_infer, 2)
max_pool_select_p = _primitive("MaxPoolSelect", _make_max_select, _max_select_infer, 2)
# made by a compiler pass after differentiation only (spore/_jit/conv_epilogue.py)
max_pool_scatter_relu_grad_p = _primitive(
    "MaxPoolScatterReluGrad", _make_max_scatter_relu_grad, _max_scatter_relu_grad_infer, 3,
    nondiff=True, doc="MaxPoolScatterReluGrad(dout, argmax, y): ReluGrad(MaxPoolScatter("
    "dout, argmax), y) in one pass (jit_level O1).")
max_pool_scatter_relu_grad_sum_p = _primitive(
    "MaxPoolScatterReluGradSum", _make_max_scatter_relu_grad_sum,
    _max_scatter_relu_grad_sum_infer, 3, nondiff=True, multiple_results=True,
    doc="MaxPoolScatterReluGradSum(dout, argmax, y): MaxPoolScatterReluGrad's dx and its "
    "sum over (N, H, W) in one pass (jit_level O1).")
avg_pool2d_p = _primitive("AvgPool2D", _make_avg_pool, _avg_pool_infer, 1)
avg_pool2d_grad_p = _primitive("AvgPool2DGrad", _make_avg_pool_grad, _avg_pool_grad_infer, 1)


# ----------------------------------------------------------------- gradient rules
@max_pool2d_p.def_grad(inputs=(), output=True)
def _max_pool_grad(attrs, inputs, out, douts):
    (x,) = inputs
    dy = douts[0]
    if dy is None:
        return (None,)
    return (max_pool_scatter_p(dy, out[1], input_shape=tuple(x.shape), **attrs),)


@max_pool_scatter_p.def_grad(inputs=(1,))
def _max_scatter_grad(attrs, inputs, out, c):
    _, won = inputs
    return max_pool_select_p(c, won, **_geometry(attrs, MAX_GEOMETRY)), None


@max_pool_select_p.def_grad(inputs=(1,))
def _max_select_grad(attrs, inputs, out, c):
    x, won = inputs
    return max_pool_scatter_p(c, won, input_shape=tuple(x.shape), **attrs), None


@avg_pool2d_p.def_grad()
def _avg_pool_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (avg_pool2d_grad_p(dout, input_shape=tuple(x.shape), **attrs),)


@avg_pool2d_grad_p.def_grad()
def _avg_pool_grad_grad(attrs, inputs, out, c):
    return (avg_pool2d_p(c, **_geometry(attrs, AVG_GEOMETRY)),)
