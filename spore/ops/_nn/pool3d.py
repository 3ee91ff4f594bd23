"""max_pool3d and avg_pool3d (MindSpore 2.10 signatures) over NCDHW inputs.

Max pooling is the MaxPool3D primitive (``spore/_prims/nn/pool3d.py``). Average pooling
is a depthwise Conv3D with a kernel of ones (so its gradient is the convolution's),
divided by each window's divisor: the window clipped to the padded input (and, without
``count_include_pad``, to the input itself), or ``divisor_override``. Ceil mode adds
end padding that no divisor counts, as in MindSpore and PyTorch.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._prims.math import div_p
from ..._prims.nn.conv3d import conv3d_p, output_dhw
from ..._prims.nn.pool3d import max_pool3d_p
from .._utils import public_functions
from ._args import ceil_extension, int_tuple, positive, same_pads


def _triple(op, arg, value, allow_five=True):
    if allow_five and isinstance(value, (tuple, list)) and len(value) == 5:
        value = tuple(value)[2:]
    return int_tuple(op, arg, value, 3)


def _check_rank(op, x):
    if not isinstance(x, P._Tensor):
        raise TypeError(f"For '{op}', the input x must be a Tensor, but got "
                        f"{type(x).__name__}.")
    if x.ndim != 5:
        raise ValueError(f"For primitive[{op}], the input x rank must be equal to 5, but got "
                         f"{x.ndim}.")


def window_pads(op, x, kernel, stride, padding, dilation, ceil_mode, pad_mode="pad"):
    """(pads with ceil mode's extra end padding, pads without it) as 6-tuples."""
    if pad_mode == "same":
        pads = same_pads(x.shape[2:], kernel, stride, dilation)
    elif pad_mode == "valid":
        pads = (0,) * 6
    else:
        if isinstance(padding, (tuple, list)) and len(padding) == 6:
            pads = tuple(int(p) for p in padding)
        else:
            pd, ph, pw = int_tuple(op, "padding", padding, 3)
            pads = (pd, pd, ph, ph, pw, pw)
        if any(p < 0 for p in pads):
            raise ValueError(f"For '{op}', the 'padding' must be non-negative, but got {padding}.")
        for i in range(3):
            if 2 * max(pads[2 * i], pads[2 * i + 1]) > kernel[i] * dilation[i]:
                raise ValueError(f"For '{op}', the padding {pads} must be at most half of the "
                                 f"kernel size {kernel}.")
    full = list(pads)
    if ceil_mode:
        for i, size in enumerate(x.shape[2:]):
            full[2 * i + 1] += ceil_extension(size, kernel[i], stride[i], pads[2 * i],
                                              pads[2 * i + 1], dilation[i])
    return tuple(full), tuple(pads)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling of a (N, C, D, H, W) input; with ``return_indices`` also the flat
    index (over D·H·W) of each maximum. ``stride`` defaults to ``kernel_size``;
    ``padding`` (int or (d, h, w), both sides) is -inf padding."""
    op = "MaxPool3D"
    _check_rank(op, x)
    kernel = positive(op, "kernel_size", _triple(op, "kernel_size", kernel_size))
    stride = kernel if stride is None else positive(op, "stride", _triple(op, "stride", stride))
    dilation = positive(op, "dilation", _triple(op, "dilation", dilation))
    return max_pool3d_ms(x, kernel, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d_ms(x, kernel, stride, padding, dilation, ceil_mode, return_indices,
                  pad_mode="pad"):
    pads, _ = window_pads("MaxPool3D", x, kernel, stride, padding, dilation, ceil_mode,
                          pad_mode)
    values, indices = max_pool3d_p(x, kernel=kernel, stride=stride, pads=pads,
                                   dilation=dilation)
    return (values, indices) if return_indices else values


def _divisors(in_dhw, kernel, stride, pads, out, include_pad):
    """(oD, oH, oW) window sizes that average pooling divides by."""
    per_axis = []
    for i, size in enumerate(in_dhw):
        start = np.arange(out[i]) * stride[i] - pads[2 * i]
        end = np.minimum(start + kernel[i], size + pads[2 * i + 1])
        if not include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        per_axis.append(np.maximum(end - start, 1))
    return per_axis[0][:, None, None] * per_axis[1][None, :, None] * per_axis[2][None, None, :]


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """3-D average pooling of a (N, C, D, H, W) input. ``padding``: int, (d, h, w) or
    (front, back, top, bottom, left, right) zeros, counted in the divisor when
    ``count_include_pad``; ``divisor_override`` (nonzero) replaces the divisor."""
    op = "AvgPool3D"
    _check_rank(op, input_x)
    kernel = positive(op, "kernel_size", _triple(op, "kernel_size", kernel_size))
    stride = positive(op, "stride", _triple(op, "stride", stride))
    return avg_pool3d_ms(input_x, kernel, stride, padding, ceil_mode, count_include_pad,
                         divisor_override)


def avg_pool3d_ms(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
                  pad_mode="pad"):
    op = "AvgPool3D"
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, type(None))):
        raise TypeError(f"For '{op}', the 'divisor_override' must be an int, but got "
                        f"{type(divisor_override).__name__}.")
    pads, base = window_pads(op, x, kernel, stride, padding, (1, 1, 1), ceil_mode, pad_mode)
    channels = x.shape[1]
    ones = P.wrap(np.ones((channels, 1) + tuple(kernel), np.dtype(x._data.dtype)))
    sums = conv3d_p(x, ones, stride=stride, pads=pads, dilation=(1, 1, 1), groups=channels)
    out = output_dhw(x.shape[2:], kernel, stride, pads, (1, 1, 1))
    if divisor_override:
        divisor = np.full(out, float(divisor_override))
    else:
        divisor = _divisors(x.shape[2:], kernel, stride, base, out, count_include_pad)
    return div_p(sums, P.wrap(divisor.astype(np.dtype(x._data.dtype))))


__all__ = public_functions(globals(), __name__)
for _name in ("max_pool3d_ms", "avg_pool3d_ms", "window_pads"):
    __all__.remove(_name)
