"""Convolution layers: Conv1d, Conv2d, Conv3d, Conv1dTranspose, Conv2dTranspose.

MindSpore's conventions: weight (out, in/group, kh, kw) — (in, out/group, kh, kw) for
the transposed layers —, ``pad_mode`` 'same' (the default), 'valid' or 'pad' with
``padding`` an int or (top, bottom, left, right), no bias by default. The 1-D layers run
as 2-D ones over a height-1 image, so their weights are (out, in/group, 1, k) as in
MindSpore.
"""
from __future__ import annotations

import math

from ... import _context
from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ...common.initializer import HeUniform, Uniform, initializer
from ...ops._nn.conv3d import conv3d_ms
from ..cell import Cell
from . import _checks as C

__all__ = ["Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose"]

_PAD_MODES = ("valid", "same", "pad")


def _pair(value, arg, owner, n=2):
    """An int or an ``n``-tuple of positive ints as an ``n``-tuple."""
    items = (value,) * n if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(items, tuple) or len(items) != n:
        raise TypeError(f"For '{owner}', the '{arg}' must be an int or a tuple of {n} ints, but "
                        f"got {value!r}.")
    for v in items:
        C.positive_int(v, f"{arg} item", owner)
    return tuple(items)


def _check_padding(padding, pad_mode, owner, prim, size=4):
    if isinstance(padding, int) and not isinstance(padding, bool):
        C.non_negative_int(padding, "padding", owner)
    elif isinstance(padding, tuple):
        for p in padding:
            C.non_negative_int(p, "padding item", owner)
        if len(padding) != size:
            raise ValueError(f"For '{prim if size == 4 else owner}', the "
                             f"'{'pad' if size == 4 else 'padding'} size' must be int and must = "
                             f"{size}, but got '{len(padding)}' with type 'int'.")
    else:
        raise TypeError(f"For '{owner}', the type of 'padding' must be int or tuple(int), but got "
                        f"{type(padding).__name__}.")
    if not isinstance(pad_mode, str) or pad_mode not in _PAD_MODES:
        raise ValueError(f"For '{prim}', the 'pad_mode' must be str and must be in "
                         f"'{list(_PAD_MODES)}', but got '{pad_mode}'.")
    if pad_mode != "pad" and padding not in (0, (0,) * size):
        if size == 6:
            raise ValueError(f"For '{prim}', the 'pad' must be zero or (0, 0, 0, 0, 0, 0) when "
                             f"'pad_mode' is not \"pad\", but got 'pad' is {padding} and "
                             f"'pad_mode' is {pad_mode}.")
        raise ValueError(f"For '{prim}', the 'pad' must be zero when 'pad_mode' is not 'pad', but "
                         f"got 'pad': {padding} and 'pad_mode': {pad_mode}.")
    return padding


def _four(padding):
    """(top, bottom, left, right) from an int or a 4-tuple."""
    return (padding,) * 4 if isinstance(padding, int) else tuple(padding)


class _Conv(Cell):
    """Parameters, checks and repr shared by the convolution layers."""

    _prim = "Conv2D"
    _formats = ("NCHW", "NHWC")
    _pad_size = 4

    def __init__(self, in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                 dilation, group, has_bias, weight_init, bias_init, data_format, transposed,
                 dtype):
        super().__init__()
        owner = type(self).__name__
        self.in_channels = C.positive_int(in_channels, "in_channels", owner)
        self.out_channels = C.positive_int(out_channels, "out_channels", owner)
        if data_format not in self._formats:
            raise ValueError(f"For '{owner}', the 'format' must be str and must be in "
                             f"'{list(self._formats)}', but got '{data_format}'.")
        if data_format == "NHWC":
            raise ValueError(f"For '{owner}', the \"NHWC\" format only support in GPU target, but "
                             f"got the 'format' is NHWC and the platform is "
                             f"{_context.get_context('device_target')}.")
        self.padding = _check_padding(padding, pad_mode, owner, self._prim, self._pad_size)
        self.pad_mode = pad_mode
        self.kernel_size = kernel_size
        self.stride = stride
        self.dilation = dilation
        self.group = C.positive_int(group, "group", owner)
        if in_channels % group or out_channels % group:
            raise ValueError(f"The argument 'group' should be divisible by 'in_channels' and "
                             f"'out_channels', but got group:{group}, in_channels:{in_channels}, "
                             f"out_channels:{out_channels}.")
        self.has_bias = C.boolean(has_bias, "has_bias", owner)
        self.data_format = data_format
        if transposed:
            shape = [in_channels, out_channels // group, *self._kernel_hw()]
        else:
            shape = [out_channels, in_channels // group, *self._kernel_hw()]
        self.weight_init = HeUniform(math.sqrt(5)) if weight_init is None else weight_init
        self.weight = Parameter(initializer(self.weight_init, shape, dtype=dtype), name="weight")
        self.bias_init = bias_init
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in = shape[1] * math.prod(shape[2:])
                self.bias_init = Uniform(1 / math.sqrt(fan_in)) if fan_in else "zeros"
            self.bias = Parameter(initializer(self.bias_init, [out_channels], dtype=dtype),
                                  name="bias")

    def _kernel_hw(self):
        return self.kernel_size

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}, weight_init={self.weight_init}, "
                f"bias_init={self.bias_init}, format={self.data_format}")

    def _check_input(self, x, ndim):
        if x.ndim != ndim:
            raise ValueError(f"For primitive[{self._prim}], the x shape size must be equal to "
                             f"{ndim}, but got {x.ndim}.")


class Conv2d(_Conv):
    r"""2-D convolution over (N, C_in, H, W) inputs.

    Args:
        in_channels (int), out_channels (int): channel counts.
        kernel_size (int, tuple): (kh, kw).
        stride (int, tuple): Default: ``1``.
        pad_mode (str): ``'same'`` (output H/stride, the default), ``'valid'`` or ``'pad'``.
        padding (int, tuple): with ``pad_mode='pad'``: all sides, or (top, bottom, left, right).
        dilation (int, tuple): Default: ``1``.
        group (int): channel groups. Default: ``1``.
        has_bias (bool): Default: ``False``.
        weight_init, bias_init: initializers (default HeUniform(√5) and U(±1/√fan_in)).
        data_format (str): only ``'NCHW'`` on CPU.
        dtype: parameter dtype. Default: ``mstype.float32``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCHW", dtype=float32):
        kernel_size = _pair(kernel_size, "kernel_size", "Conv2d")
        stride = _pair(stride, "stride", "Conv2d")
        dilation = _pair(dilation, "dilation", "Conv2d")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, False,
                         dtype)

    def construct(self, x):
        self._check_input(x, 4)
        return ops.conv2d(x, self._cast_weight(self.weight), self._cast_weight(self.bias),
                          self.stride, self.pad_mode, _four(self.padding), self.dilation,
                          self.group)


class Conv3d(_Conv):
    r"""3-D convolution over (N, C_in, D, H, W) inputs.

    Args:
        in_channels (int), out_channels (int): channel counts.
        kernel_size (int, tuple): (kd, kh, kw).
        stride (int, tuple): Default: ``1``.
        pad_mode (str): ``'same'`` (the default), ``'valid'`` or ``'pad'``.
        padding (int, tuple): with ``pad_mode='pad'``: all sides, or (front, back, top,
            bottom, left, right).
        dilation (int, tuple): Default: ``1``.
        group (int): channel groups. Default: ``1``.
        has_bias (bool): Default: ``False``.
        weight_init, bias_init: initializers (default HeUniform(√5) and U(±1/√fan_in)).
        data_format (str): only ``'NCDHW'``.
        dtype: parameter dtype. Default: ``mstype.float32``.

    Examples:
        >>> import numpy as np
        >>> import spore as ms
        >>> net = ms.nn.Conv3d(2, 4, 3)
        >>> net(ms.Tensor(np.ones((1, 2, 5, 6, 7), np.float32))).shape
        (1, 4, 5, 6, 7)
    """

    _prim = "Conv3D"
    _formats = ("NCHW", "NHWC", "NCDHW")
    _pad_size = 6

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 data_format="NCDHW", dtype=float32):
        kernel_size = _pair(kernel_size, "kernel_size", "Conv3d", 3)
        stride = _pair(stride, "stride", "Conv3d", 3)
        dilation = _pair(dilation, "dilation", "Conv3d", 3)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, False,
                         dtype)
        if data_format != "NCDHW":
            raise ValueError(f"For 'Conv3d', only the 'NCDHW' format is supported on CPU, but "
                             f"got '{data_format}'.")

    def construct(self, x):
        self._check_input(x, 5)
        pads = (self.padding,) * 6 if isinstance(self.padding, int) else self.padding
        return conv3d_ms(x, self._cast_weight(self.weight), self._cast_weight(self.bias),
                         self.stride, self.pad_mode, pads, self.dilation, self.group)


class Conv1d(_Conv):
    r"""1-D convolution over (N, C_in, L) inputs (run as a 2-D one of height 1).

    Args:
        in_channels (int), out_channels (int), kernel_size (int), stride (int),
        pad_mode (str): Default ``'same'``; padding (int, tuple): with 'pad', both ends or
        (left, right); dilation (int); group (int); has_bias (bool): Default ``False``;
        weight_init, bias_init, dtype as Conv2d.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=float32):
        for arg, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            C.positive_int(v, arg, "Conv1d")
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         _padding_1d(padding), (1, dilation), group, has_bias,
                         _weight_1d(weight_init, "Conv1d"), bias_init, "NCHW", False, dtype)

    def construct(self, x):
        self._check_input(x, 3)
        y = ops.conv2d(ops.expand_dims(x, 2), self._cast_weight(self.weight),
                       self._cast_weight(self.bias), self.stride, self.pad_mode,
                       _four(self.padding), self.dilation, self.group)
        return ops.squeeze(y, 2)


def _weight_1d(weight_init, owner):
    """A Tensor initial value of a 1-D layer is (out, in/group, k): add the height axis."""
    if not isinstance(weight_init, Tensor):
        return weight_init
    if weight_init.ndim != 3:
        raise ValueError(f"For '{owner}', the 'weight_init_shape' must be int and must = 3, but "
                         f"got '{weight_init.ndim}' with type 'int'.")
    return ops.expand_dims(weight_init, 2)


def _padding_1d(padding):
    """Conv1d's int or (left, right) padding as the (top, bottom, left, right) of a 2-D one."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (0, 0, padding, padding)
    if isinstance(padding, tuple) and len(padding) == 2:
        return (0, 0) + padding
    return padding


class Conv2dTranspose(_Conv):
    r"""Transposed 2-D convolution (the gradient of Conv2d w.r.t. its input).

    Output size per spatial dimension: 'same' → in·stride; 'valid' → (in−1)·stride +
    dilation·(k−1) + 1; 'pad' → that minus the two paddings plus ``output_padding``.

    Args:
        in_channels, out_channels, kernel_size, stride, pad_mode (Default ``'same'``),
        padding, output_padding (only with 'pad'), dilation, group, has_bias (Default
        ``False``), weight_init, bias_init, dtype: as Conv2d; the weight is
        (in_channels, out_channels/group, kh, kw).
    """

    _prim = "Conv2DTranspose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=float32):
        kernel_size = _pair(kernel_size, "kernel_size", "Conv2dTranspose")
        stride = _pair(stride, "stride", "Conv2dTranspose")
        dilation = _pair(dilation, "dilation", "Conv2dTranspose")
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, "NCHW", True, dtype)
        self.output_padding = _output_padding(output_padding, pad_mode)

    def construct(self, x):
        self._check_input(x, 4)
        return _conv_transpose(self, x, self.output_padding)


class Conv1dTranspose(_Conv):
    r"""Transposed 1-D convolution over (N, C_in, L) inputs; weight (in, out/group, 1, k).

    Args: as Conv1d (pad_mode Default ``'same'``, has_bias Default ``False``).
    """

    _prim = "Conv2DTranspose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
                 dtype=float32):
        for arg, v in (("kernel_size", kernel_size), ("stride", stride), ("dilation", dilation)):
            C.positive_int(v, arg, "Conv1dTranspose")
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         _padding_1d(padding), (1, dilation), group, has_bias,
                         _weight_1d(weight_init, "Conv1dTranspose"), bias_init, "NCHW", True,
                         dtype)

    def construct(self, x):
        self._check_input(x, 3)
        return ops.squeeze(_conv_transpose(self, ops.expand_dims(x, 2), (0, 0)), 2)


def _output_padding(value, pad_mode):
    pads = (value, value) if isinstance(value, int) else tuple(value)
    if any(pads) and pad_mode != "pad":
        raise ValueError("when output_padding is not zero, pad_mode must be 'pad'")
    return pads


def _conv_transpose(layer, x, output_padding):
    """Full transposed convolution, then crop what 'same'/'pad' remove (padding may be
    asymmetric), then the bias."""
    full = ops.conv_transpose2d(x, layer._cast_weight(layer.weight), None, layer.stride, 0,
                                output_padding, layer.group, layer.dilation)
    top, bottom, left, right = _transpose_crop(layer, x.shape[2:])
    h, w = full.shape[2], full.shape[3]
    if top or bottom or left or right:
        full = full[:, :, top:h - bottom, left:w - right]
    if layer.bias is not None:
        full = full + ops.reshape(layer._cast_weight(layer.bias), (1, -1, 1, 1))
    return full


def _transpose_crop(layer, in_hw):
    if layer.pad_mode == "pad":
        return _four(layer.padding)
    if layer.pad_mode == "valid":
        return (0, 0, 0, 0)
    crops = []
    for size, k, s, d in zip(in_hw, layer.kernel_size, layer.stride, layer.dilation):
        total = max(0, d * (k - 1) + 1 - s)
        crops += [total // 2, total - total // 2]
    return tuple(crops)
