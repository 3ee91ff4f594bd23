"""conv1d, conv2d, conv_transpose2d, unfold and fold (MindSpore 2.10 signatures).

``conv2d`` takes MindSpore's ``pad_mode`` ('valid' | 'same' | 'pad') with
``padding`` an int, (pad_h, pad_w) or (top, bottom, left, right); the padding
is resolved here and the Conv2D primitive always sees explicit pads.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._prims.array import reshape_p
from ..._prims.math import add_p
from ..._prims.nn import conv2d_input_grad_p, conv2d_p
from ..._prims.nn.conv import output_hw
from .._utils import public_functions
from ._args import (explicit_pads, int_tuple, is_int, mode_pads, non_negative, positive,
                    require_rank)


def conv2d_ms(input, weight, bias, stride, pad_mode, padding, dilation, groups, op="conv2d"):
    """Conv2D with MindSpore's pad_mode semantics (shared by ``ops.Conv2D`` and nn layers)."""
    require_rank(op, "input", input, (4,))
    require_rank(op, "weight", weight, (4,))
    stride = positive(op, "stride", int_tuple(op, "stride", stride, 2))
    dilation = positive(op, "dilation", int_tuple(op, "dilation", dilation, 2))
    if not is_int(groups) or groups <= 0:
        raise ValueError(f"For '{op}', the 'groups' must be a positive int, but got {groups}.")
    pads = mode_pads(op, pad_mode, padding, input.shape[2:], weight.shape[2:], stride, dilation)
    args = (input, weight) if bias is None else (input, weight, bias)
    return conv2d_p(*args, stride=stride, pads=pads, dilation=dilation, groups=int(groups))


def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    r"""2-D cross-correlation of a (N, C_in, H, W) input with a (C_out, C_in/groups, kh, kw)
    weight.

    Args:
        input (Tensor), weight (Tensor), bias (Tensor, optional): shape (C_out,).
        stride (int or tuple): Default ``1``.
        pad_mode (str): ``'valid'`` (no padding), ``'same'`` (output ``ceil(in / stride)``,
            the odd pixel at the bottom/right) or ``'pad'`` (use ``padding``).
        padding (int or tuple): int, (pad_h, pad_w) or (top, bottom, left, right); only with
            ``pad_mode='pad'``.
        dilation (int or tuple): Default ``1``.
        groups (int): Default ``1``.

    Returns:
        Tensor (N, C_out, H_out, W_out).
    """
    return conv2d_ms(input, weight, bias, stride, pad_mode, padding, dilation, groups)


def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """1-D cross-correlation of a (N, C_in, L) input with a (C_out, C_in/groups, k) weight
    (run as a 2-D one of height 1); ``padding`` is an int or (left, right)."""
    op = "conv1d"
    require_rank(op, "input", input, (3,))
    require_rank(op, "weight", weight, (3,))
    left, right = int_tuple(op, "padding", padding, 2)
    x = reshape_p(input, shape=input.shape[:2] + (1,) + input.shape[2:])
    w = reshape_p(weight, shape=weight.shape[:2] + (1,) + weight.shape[2:])
    y = conv2d_ms(x, w, bias, (1, int_tuple(op, "stride", stride, 1)[0]), pad_mode,
                  (0, 0, left, right), (1, int_tuple(op, "dilation", dilation, 1)[0]), groups,
                  op=op)
    return reshape_p(y, shape=y.shape[:2] + y.shape[3:])


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-D convolution (the input gradient of a conv2d) of a (N, C_in, H, W)
    input with a (C_in, C_out/groups, kh, kw) weight.

    ``H_out = (H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1``;
    ``padding`` is an int or (pad_h, pad_w).
    """
    op = "conv_transpose2d"
    require_rank(op, "input", input, (4,))
    require_rank(op, "weight", weight, (4,))
    stride = positive(op, "stride", int_tuple(op, "stride", stride, 2))
    dilation = positive(op, "dilation", int_tuple(op, "dilation", dilation, 2))
    pads = explicit_pads(op, padding)
    extra = int_tuple(op, "output_padding", output_padding, 2)
    if any(e < 0 or e >= s for e, s in zip(extra, stride)):
        raise ValueError(f"For '{op}', the 'output_padding' must be non-negative and smaller "
                         f"than the stride {stride}, but got {extra}.")
    n, _, h, w = input.shape
    kh, kw = weight.shape[2:]
    out_h = (h - 1) * stride[0] - pads[0] - pads[1] + dilation[0] * (kh - 1) + extra[0] + 1
    out_w = (w - 1) * stride[1] - pads[2] - pads[3] + dilation[1] * (kw - 1) + extra[1] + 1
    out = conv2d_input_grad_p(input, weight, input_shape=(n, weight.shape[1] * groups, out_h,
                                                           out_w),
                              stride=stride, pads=pads, dilation=dilation, groups=int(groups))
    if bias is None:
        return out
    return add_p(out, reshape_p(bias, shape=(1, bias.shape[0], 1, 1)))


# ----------------------------------------------------------------- unfold / fold
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks: (N, C, H, W) -> (N, C * kh * kw, L) with rows ordered (c, i, j)
    (im2col; a grouped convolution with one-hot kernels, so it is differentiable)."""
    op = "unfold"
    require_rank(op, "input", input, (4,))
    kernel, geo = _block_geometry(op, input.shape[1], kernel_size, dilation, padding, stride)
    eye = _one_hot_kernels(input, kernel)
    cols = conv2d_p(input, eye, **geo)
    n, k, oh, ow = cols.shape
    return reshape_p(cols, shape=(n, k, oh * ow))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The adjoint of ``unfold``: sum (N, C * kh * kw, L) blocks into (N, C, H, W)."""
    op = "fold"
    require_rank(op, "input", input, (3,))
    size = output_size.asnumpy().tolist() if isinstance(output_size, P._Tensor) else output_size
    h, w = int_tuple(op, "output_size", size, 2)
    n, ckk, length = input.shape
    kh, kw = int_tuple(op, "kernel_size", kernel_size, 2)
    if ckk % (kh * kw):
        raise ValueError(f"For '{op}', the second dimension of the input ({ckk}) must be "
                         f"divisible by the kernel size {kh} * {kw}.")
    c = ckk // (kh * kw)
    kernel, geo = _block_geometry(op, c, (kh, kw), dilation, padding, stride)
    oh, ow = output_hw((h, w), kernel, geo["stride"], geo["pads"], geo["dilation"])
    if oh * ow != length:
        raise ValueError(f"For '{op}', an output of size {[h, w]} has {oh * ow} blocks, but the "
                         f"input has {length}.")
    blocks = reshape_p(input, shape=(n, ckk, oh, ow))
    return conv2d_input_grad_p(blocks, _one_hot_kernels(input, kernel), input_shape=(n, c, h, w),
                               **geo)


def _block_geometry(op, channels, kernel_size, dilation, padding, stride):
    kernel = positive(op, "kernel_size", int_tuple(op, "kernel_size", kernel_size, 2))
    ph, pw = non_negative(op, "padding", int_tuple(op, "padding", padding, 2))
    return kernel, dict(stride=positive(op, "stride", int_tuple(op, "stride", stride, 2)),
                        pads=(ph, ph, pw, pw), groups=channels,
                        dilation=positive(op, "dilation", int_tuple(op, "dilation", dilation, 2)))


def _one_hot_kernels(x, kernel):
    """(C * kh * kw, 1, kh, kw) kernels: filter c * kh * kw + t picks tap t of channel c."""
    kh, kw = kernel
    channels = x.shape[1] if x.ndim == 4 else x.shape[1] // (kh * kw)
    taps = np.eye(kh * kw, dtype=np.dtype(x._data.dtype)).reshape(kh * kw, 1, kh, kw)
    return P.wrap(np.tile(taps, (channels, 1, 1, 1)))


__all__ = public_functions(globals(), __name__)
__all__.remove("conv2d_ms")
