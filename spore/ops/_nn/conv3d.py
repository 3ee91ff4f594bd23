"""conv3d (MindSpore 2.10 signature) over the Conv3D primitive (``spore/_prims/nn/conv3d.py``).

``pad_mode`` is 'valid' | 'same' | 'pad'; ``ops.conv3d`` takes ``padding`` as an int or
(pad_d, pad_h, pad_w), the primitive class and ``nn.Conv3d`` as an int or (front, back,
top, bottom, left, right). The padding is resolved here; the primitive sees explicit pads.
"""
from __future__ import annotations

from ..._prims.array import reshape_p
from ..._prims.math import add_p
from ..._prims.nn.conv3d import conv3d_p
from .._utils import public_functions
from ._args import (check_pad_mode, int_tuple, is_int, non_negative, positive, require_tensor,
                    same_pads)


def conv3d_pads(op, pad_mode, pads, in_dhw, kernel, stride, dilation):
    """(front, back, top, bottom, left, right) pads for MindSpore's pad_mode semantics."""
    check_pad_mode(op, pad_mode)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{op}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when "
                         f"'pad_mode' is not \"pad\", but got 'pad' is "
                         f"{pads[0] if len(set(pads)) == 1 else pads} and 'pad_mode' is "
                         f"{pad_mode}.")
    if pad_mode == "same":
        return same_pads(in_dhw, kernel, stride, dilation)
    return tuple(pads)


def conv3d_ms(input, weight, bias, stride, pad_mode, pads, dilation, groups, op="Conv3D"):
    """Conv3D with explicit 6-tuple ``pads`` (or 'same'/'valid'), shared by ``ops.conv3d``,
    ``ops.Conv3D`` and ``nn.Conv3d``."""
    for arg, x in (("x", input), ("weight", weight)):
        require_tensor(op, arg, x)
        if x.ndim != 5:
            raise ValueError(f"For primitive[Conv3D], the {arg} shape size must be equal to 5, "
                             f"but got {x.ndim}.")
    stride = positive(op, "stride", int_tuple(op, "stride", stride, 3))
    dilation = positive(op, "dilation", int_tuple(op, "dilation", dilation, 3))
    if not is_int(groups) or groups <= 0:
        raise ValueError(f"For '{op}', the 'group' must be a positive int, but got {groups}.")
    pads = non_negative(op, "pad", int_tuple(op, "pad", pads, 6))
    pads = conv3d_pads(op, pad_mode, pads, input.shape[2:], weight.shape[2:], stride, dilation)
    out = conv3d_p(input, weight, stride=stride, pads=pads, dilation=dilation,
                   groups=int(groups))
    if bias is None:
        return out
    return add_p(out, reshape_p(bias, shape=(1, bias.shape[0], 1, 1, 1)))


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    r"""3-D cross-correlation of a (N, C_in, D, H, W) input with a
    (C_out, C_in/groups, kd, kh, kw) weight.

    Args:
        input (Tensor), weight (Tensor), bias (Tensor, optional): shape (C_out,).
        stride (int or tuple): Default ``1``.
        pad_mode (str): ``'valid'``, ``'same'`` (output ``ceil(in / stride)``, the odd pixel
            at the end) or ``'pad'`` (use ``padding``). Default ``'valid'``.
        padding (int or tuple): int or (pad_d, pad_h, pad_w), added on both sides; only with
            ``pad_mode='pad'``.
        dilation (int or tuple): Default ``1``.
        groups (int): Default ``1``.

    Returns:
        Tensor (N, C_out, D_out, H_out, W_out).

    Examples:
        >>> import numpy as np
        >>> import spore as ms
        >>> x = ms.Tensor(np.ones((1, 2, 4, 4, 4), np.float32))
        >>> ms.ops.conv3d(x, ms.Tensor(np.ones((3, 2, 2, 2, 2), np.float32))).shape
        (1, 3, 3, 3, 3)
    """
    op = "conv3d"
    if isinstance(padding, (tuple, list)) and len(padding) != 3:
        raise ValueError(f"For '{op}', 'padding' must be a tuple or list of 3 integers, but got "
                         f"{padding}.")
    pd, ph, pw = int_tuple(op, "padding", padding, 3)
    return conv3d_ms(input, weight, bias, stride, pad_mode, (pd, pd, ph, ph, pw, pw), dilation,
                     groups, op="Conv3D")


__all__ = public_functions(globals(), __name__)
__all__.remove("conv3d_ms")
__all__.remove("conv3d_pads")
