"""3-D max pooling (NCDHW) and its gradient primitive.

``MaxPool3D(x; kernel, stride, pads, dilation)`` returns the window maxima and, for each,
the flat index (over D·H·W of the unpadded input) of the first maximum, as MindSpore's
``return_indices`` gives them. ``pads`` (front, back, top, bottom, left, right) may
include ceil mode's extra end padding; padding is -inf, so it is never the maximum of
a window that holds an input element. The gradient routes each output's cotangent to
that first maximum (``MaxPool3DGrad``, a scatter-add, recomputing the indices).

Average pooling needs no primitive of its own: it is a depthwise ``Conv3D`` with a
constant kernel, divided by each window's divisor (``spore/ops/_nn/pool3d.py``).
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ..array import gather_d_p, reshape_p
from ._common import check_float, validated
from .conv3d import _windows, output_dhw


def _argmax_windows(x, kernel, stride, pads, dilation):
    """(values, flat padded index) of each window's first maximum."""
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = np.pad(x, ((0, 0), (0, 0)) + tuple((pads[2 * i], pads[2 * i + 1])
                                                 for i in range(3)), constant_values=fill)
    out = output_dhw(x.shape[2:], kernel, stride, pads, dilation)
    wins = _windows(np.ascontiguousarray(padded), kernel, stride, dilation, out)
    flat = wins.reshape(wins.shape[:5] + (-1,))
    nan = np.isnan(flat) if flat.dtype.kind == "f" else None
    if nan is not None and nan.any():           # NaN wins, as np.max would say
        pick = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))
    else:
        pick = flat.argmax(-1)
    values = np.take_along_axis(flat, pick[..., None], -1)[..., 0]
    return values, pick, padded.shape[2:], out


def _input_index(pick, kernel, stride, pads, dilation, out, in_dhw):
    """Flat index into the unpadded input (D·H·W) of each window's chosen tap."""
    taps = np.unravel_index(pick, kernel)
    coords = []
    for axis in range(3):
        grid = np.arange(out[axis]).reshape([-1 if a == axis else 1 for a in range(3)])
        coords.append(grid * stride[axis] + taps[axis] * dilation[axis] - pads[2 * axis])
    return np.ravel_multi_index(tuple(np.clip(c, 0, s - 1) for c, s in zip(coords, in_dhw)),
                                in_dhw)


def _make_max_pool3d(xp):
    def max_pool3d(x, *, kernel, stride, pads, dilation):
        values, pick, _, out = _argmax_windows(x, kernel, stride, pads, dilation)
        index = _input_index(pick, kernel, stride, pads, dilation, out, x.shape[2:])
        return values, index.astype(np.int64)
    return max_pool3d


def _make_max_pool3d_grad(xp):
    def max_pool3d_grad(x, dout, *, kernel, stride, pads, dilation):
        _, pick, _, out = _argmax_windows(x, kernel, stride, pads, dilation)
        index = _input_index(pick, kernel, stride, pads, dilation, out, x.shape[2:])
        n, c = x.shape[:2]
        grad = np.zeros((n * c, int(np.prod(x.shape[2:]))), dout.dtype)
        rows = np.repeat(np.arange(n * c), int(np.prod(out)))
        np.add.at(grad, (rows, index.reshape(-1)), dout.reshape(-1))
        return grad.reshape(x.shape)
    return max_pool3d_grad


def _check(op, x, attrs):
    if len(x.shape) != 5:
        raise ValueError(f"For primitive[{op}], the input x rank must be equal to 5, but got "
                         f"{len(x.shape)}.")
    out = output_dhw(x.shape[2:], attrs["kernel"], attrs["stride"], attrs["pads"],
                     attrs["dilation"])
    if min(out) <= 0:
        raise ValueError(f"For '{op}', the padded input {list(x.shape[2:])} is smaller than the "
                         f"(dilated) window {list(attrs['kernel'])}: the output would be "
                         f"{list(out)}.")
    return (x.shape[0], x.shape[1]) + out


def _max_pool3d_infer(attrs, x):
    shape = _check("MaxPool3D", x, attrs)
    return ShapedArray(shape, x.dtype), ShapedArray(shape, np.dtype(np.int64))


def _max_pool3d_grad_infer(attrs, x, dout):
    shape = _check("MaxPool3DGrad", x, attrs)
    check_float("MaxPool3DGrad", "dout", dout.dtype)
    if tuple(dout.shape) != shape:
        raise ValueError(f"For 'MaxPool3DGrad', the 'dout' must have shape {list(shape)}, but got "
                         f"{list(dout.shape)}.")
    return ShapedArray(tuple(x.shape), dout.dtype)


max_pool3d_p = P.Primitive("MaxPool3D", validated(_make_max_pool3d, _max_pool3d_infer),
                           kind="opaque", n_inputs=1, multiple_results=True,
                           infer=_max_pool3d_infer)
max_pool3d_grad_p = P.Primitive("MaxPool3DGrad",
                                validated(_make_max_pool3d_grad, _max_pool3d_grad_infer),
                                kind="opaque", n_inputs=2, infer=_max_pool3d_grad_infer)


@max_pool3d_p.def_grad(inputs=(0,))
def _max_pool3d_grad(attrs, inputs, out, dout):
    dy = dout[0] if isinstance(dout, tuple) else dout
    if dy is None:
        return (None,)
    return (max_pool3d_grad_p(inputs[0], dy, **attrs),)


@max_pool3d_grad_p.def_grad(inputs=(0,))
def _max_pool3d_grad_grad(attrs, inputs, out, c):
    """Linear in dout (a scatter to the maxima): its transpose gathers the cotangent at
    the maxima; piecewise constant in x."""
    x = inputs[0]
    _, index = max_pool3d_p(x, **attrs)
    n, ch = x.shape[:2]
    flat = reshape_p(c, shape=(n, ch, -1))
    picked = gather_d_p(flat, reshape_p(index, shape=(n, ch, -1)), axis=2)
    return (None, reshape_p(picked, shape=tuple(index.shape)))
