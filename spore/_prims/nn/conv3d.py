"""3-D convolution (NCDHW) and its two gradient primitives.

    y  = Conv3D(x, w)             dx = Conv3DBackpropInput(dy, w)
                                  dw = Conv3DBackpropFilter(x, dy)

Like the 2-D family (``conv.py``) the three are linear in each argument and close under
differentiation, so gradients of any order are these primitives again. The kernels use
a strided view of the padded input, (N, C, oD, oH, oW, kd, kh, kw) — every output
position's window, with stride and dilation in the view's strides — and one tensor
contraction per group: the forward pass and the filter gradient contract the view, the
input gradient adds each tap's contribution into a padded buffer (kd·kh·kw strided adds).
No im2col copy is kept beyond what ``tensordot`` makes of the view.

Attributes: ``stride`` (sd, sh, sw), ``pads`` (front, back, top, bottom, left, right),
``dilation`` (dd, dh, dw), ``groups``; the gradients also carry the shape they produce
(``input_shape`` / ``filter_shape``).
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ._common import check_float, check_same_dtype, validated
from .conv import def_gradient_grads

_OP = "Conv3D"


def output_dhw(dhw, kernel, stride, pads, dilation):
    """Output depth, height and width of a 3-D window op (floor mode)."""
    return tuple((size + pads[2 * i] + pads[2 * i + 1] - dilation[i] * (kernel[i] - 1) - 1)
                 // stride[i] + 1 for i, size in enumerate(dhw))


def _pad(xp, x, pads):
    if not any(pads):
        return x
    return xp.pad(x, ((0, 0), (0, 0)) + tuple((pads[2 * i], pads[2 * i + 1]) for i in range(3)))


def _windows(x, kernel, stride, dilation, out):
    """(N, C, oD, oH, oW, kd, kh, kw) read-only view of the padded input ``x``."""
    n, c = x.shape[:2]
    s = x.strides
    shape = (n, c) + tuple(out) + tuple(kernel)
    strides = s[:2] + tuple(s[2 + i] * stride[i] for i in range(3)) + \
        tuple(s[2 + i] * dilation[i] for i in range(3))
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)


def _groups(groups, *sizes):
    return [tuple(slice(g * k, (g + 1) * k) for k in sizes) for g in range(groups)]


def _make_conv3d(xp):
    def conv3d(x, w, *, stride, pads, dilation, groups):
        out = output_dhw(x.shape[2:], w.shape[2:], stride, pads, dilation)
        cols = _windows(xp.ascontiguousarray(_pad(xp, x, pads)), w.shape[2:], stride, dilation,
                        out)
        og, cg = w.shape[0] // groups, w.shape[1]
        parts = [xp.tensordot(cols[:, sc], w[so], axes=((1, 5, 6, 7), (1, 2, 3, 4)))
                 for so, sc in _groups(groups, og, cg)]
        y = parts[0] if groups == 1 else xp.concatenate(parts, axis=-1)
        return xp.ascontiguousarray(xp.moveaxis(y, -1, 1))        # (N, O, oD, oH, oW)
    return conv3d


def _make_filter_grad(xp):
    def conv3d_filter_grad(x, dy, *, filter_shape, stride, pads, dilation, groups):
        cols = _windows(xp.ascontiguousarray(_pad(xp, x, pads)), filter_shape[2:], stride,
                        dilation, dy.shape[2:])
        og, cg = filter_shape[0] // groups, filter_shape[1]
        parts = [xp.tensordot(dy[:, so], cols[:, sc], axes=((0, 2, 3, 4), (0, 2, 3, 4)))
                 for so, sc in _groups(groups, og, cg)]
        gw = parts[0] if groups == 1 else xp.concatenate(parts, axis=0)
        return gw.astype(x.dtype, copy=False)
    return conv3d_filter_grad


def _make_input_grad(xp):
    def conv3d_input_grad(dy, w, *, input_shape, stride, pads, dilation, groups):
        n, c, d, h, wd = input_shape
        padded = xp.zeros((n, c, d + pads[0] + pads[1], h + pads[2] + pads[3],
                           wd + pads[4] + pads[5]), dy.dtype)
        od, oh, ow = dy.shape[2:]
        og, cg = w.shape[0] // groups, w.shape[1]
        for so, sc in _groups(groups, og, cg):
            dyg, wg = dy[:, so], w[so]
            for i, j, k in np.ndindex(*w.shape[2:]):
                a, b, e = i * dilation[0], j * dilation[1], k * dilation[2]
                target = padded[:, sc, a:a + stride[0] * (od - 1) + 1:stride[0],
                                b:b + stride[1] * (oh - 1) + 1:stride[1],
                                e:e + stride[2] * (ow - 1) + 1:stride[2]]
                # (Cg, N, oD, oH, oW) -> (N, Cg, ...)
                target += xp.moveaxis(xp.tensordot(wg[:, :, i, j, k], dyg, axes=((0,), (1,))),
                                      0, 1)
        return padded[:, :, pads[0]:pads[0] + d, pads[2]:pads[2] + h, pads[4]:pads[4] + wd]
    return conv3d_input_grad


# ----------------------------------------------------------------- shape rules
def _check_5d(op, arg, x):
    if len(x.shape) != 5:
        raise ValueError(f"For primitive[{op}], the {arg} shape size must be equal to 5, but got "
                         f"{len(x.shape)}.")


def _check_channels(op, channels, w_shape, groups):
    if channels != w_shape[1] * groups:
        raise ValueError(f"For '{op}', 'C_in' of input 'x' shape divide by parameter 'group' must "
                         f"be equal to 'C_in' of input 'weight' shape: {w_shape[1]}, but got "
                         f"'C_in' of input 'x' shape: {channels}, and 'group': {groups}.")
    if w_shape[0] % groups:
        raise ValueError(f"For '{op}', 'C_out' ({w_shape[0]}) must be divisible by 'group' "
                         f"({groups}).")


def _checked_out(op, dhw, kernel, attrs):
    out = output_dhw(dhw, kernel, attrs["stride"], attrs["pads"], attrs["dilation"])
    if min(out) <= 0:
        raise ValueError(f"For '{op}', the padded input {list(dhw)} is smaller than the "
                         f"(dilated) kernel {list(kernel)}: the output would be {list(out)}.")
    return out


def _conv3d_infer(attrs, x, w):
    _check_5d(_OP, "x", x)
    _check_5d(_OP, "weight", w)
    check_float(_OP, "x", x.dtype)
    check_same_dtype(_OP, "x", x, "weight", w)
    _check_channels(_OP, x.shape[1], w.shape, attrs["groups"])
    out = _checked_out(_OP, x.shape[2:], w.shape[2:], attrs)
    return ShapedArray((x.shape[0], w.shape[0]) + out, x.dtype)


def _check_dout(op, dy, want):
    if tuple(dy.shape) != tuple(want):
        raise ValueError(f"For '{op}', the 'dout' must have shape {list(want)}, but got "
                         f"{list(dy.shape)}.")


def _input_grad_infer(attrs, dy, w):
    op = "Conv3DBackpropInput"
    _check_5d(op, "dout", dy)
    _check_5d(op, "weight", w)
    check_float(op, "dout", dy.dtype)
    check_same_dtype(op, "dout", dy, "weight", w)
    shape = tuple(attrs["input_shape"])
    _check_channels(op, shape[1], w.shape, attrs["groups"])
    _check_dout(op, dy, (shape[0], w.shape[0]) + _checked_out(op, shape[2:], w.shape[2:], attrs))
    return ShapedArray(shape, dy.dtype)


def _filter_grad_infer(attrs, x, dy):
    op = "Conv3DBackpropFilter"
    _check_5d(op, "x", x)
    _check_5d(op, "dout", dy)
    check_float(op, "x", x.dtype)
    check_same_dtype(op, "x", x, "dout", dy)
    shape = tuple(attrs["filter_shape"])
    _check_channels(op, x.shape[1], shape, attrs["groups"])
    _check_dout(op, dy, (x.shape[0], shape[0]) + _checked_out(op, x.shape[2:], shape[2:], attrs))
    return ShapedArray(shape, x.dtype)


conv3d_p = P.Primitive("Conv3D", validated(_make_conv3d, _conv3d_infer), kind="opaque",
                       n_inputs=2, infer=_conv3d_infer)
conv3d_input_grad_p = P.Primitive("Conv3DBackpropInput",
                                  validated(_make_input_grad, _input_grad_infer),
                                  kind="opaque", n_inputs=2, infer=_input_grad_infer)
conv3d_filter_grad_p = P.Primitive("Conv3DBackpropFilter",
                                   validated(_make_filter_grad, _filter_grad_infer),
                                   kind="opaque", n_inputs=2, infer=_filter_grad_infer)


# ----------------------------------------------------------------- gradient rules
@conv3d_p.def_grad(inputs=(0, 1), needed=True)
def _conv3d_grad(attrs, inputs, out, dout, needed):
    x, w = inputs
    gx = conv3d_input_grad_p(dout, w, input_shape=tuple(x.shape), **attrs) if needed[0] else None
    gw = conv3d_filter_grad_p(x, dout, filter_shape=tuple(w.shape), **attrs) if needed[1] \
        else None
    return gx, gw


def_gradient_grads(conv3d_p, conv3d_input_grad_p, conv3d_filter_grad_p)
