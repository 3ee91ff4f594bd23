"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d.

MindSpore's layer conventions: ``stride`` defaults to 1 (not to the kernel size);
``pad_mode`` 'valid' (default), 'same' (output ceil(in/stride), padding excluded from
averages) or 'pad' (``padding`` per dimension, with ``ceil_mode`` / ``dilation`` /
``return_indices``; for max pooling those are only allowed with 'pad').
"""
from __future__ import annotations

from ... import _context
from ... import ops
from ..cell import Cell

__all__ = ["MaxPool3d", "AvgPool3d", "LPPool1d", "LPPool2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
           "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d"]


def _int_or_tuple(value, arg, owner):
    """A positive int or a tuple of positive ints (a 1-tuple collapses to its element)."""
    bad = ValueError(f"For '{owner}', the '{arg}' must be an positive int number or a tuple, but "
                     f"got {value}")
    if isinstance(value, bool) or not isinstance(value, (int, tuple)):
        raise TypeError(f"For '{owner}', the '{arg}' must be int or tuple, but got "
                        f"{type(value).__name__}.")
    if isinstance(value, int):
        if value <= 0:
            raise bad
        return value
    if not value or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value):
        raise bad
    return value[0] if len(value) == 1 else value


def _padding(padding, nd, owner):
    """A non-negative int or a tuple of 1 or ``nd`` ints (one per spatial dimension)."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        items = (padding,) * nd
    elif isinstance(padding, (tuple, list)) and len(padding) in (1, nd):
        items = tuple(padding) * (nd if len(padding) == 1 else 1)
    elif isinstance(padding, (tuple, list)):
        counts = "one int" if nd == 1 else f"1 or {nd} int"
        raise ValueError(f"For {owner}, the padding must be a int or tuple/list contains "
                         f"{counts}, but got tuple/list with length:{len(padding)}.")
    else:
        raise TypeError(f"For '{owner}', the 'padding' must be int, tuple or list, but got "
                        f"{type(padding).__name__}.")
    if any(isinstance(p, bool) or not isinstance(p, int) or p < 0 for p in items):
        raise ValueError(f"For '{owner}', the 'padding' must be non-negative ints, but got "
                         f"{padding}.")
    return items


class _Pool(Cell):
    """pad_mode / kernel / stride handling and the repr shared by the pooling layers."""

    def __init__(self, kernel_size, stride, pad_mode, data_format="NCHW"):
        super().__init__()
        owner = type(self).__name__
        if not isinstance(pad_mode, str):
            raise TypeError(f"For '{owner}', the 'pad_mode' must be str, but got "
                            f"{type(pad_mode).__name__}.")
        if pad_mode.upper() not in ("VALID", "SAME", "PAD"):
            raise ValueError(f"For '{owner}', the 'pad_mode' must be str and must be in "
                             f"'['VALID', 'SAME', 'PAD']', but got '{pad_mode.upper()}'.")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"For '{owner}', the 'format' must be str and must be in "
                             f"'['NCHW', 'NHWC']', but got '{data_format}'.")
        if data_format == "NHWC":
            raise ValueError(f"For '{owner}, the 'NHWC' format only support in GPU target, but "
                             f"got device target {_context.get_context('device_target')}.")
        self.pad_mode = pad_mode.upper()
        self.format = data_format
        self.kernel_size = _int_or_tuple(kernel_size, "kernel_size", owner)
        self.stride = _int_or_tuple(stride, "stride", owner)

    def _functional_mode(self):
        """'same' goes to the functional op's pad_mode; 'valid'/'pad' are its PyTorch form."""
        return "same" if self.pad_mode == "SAME" else None

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"

    def _check_rank(self, x, ranks):
        if x.ndim not in ranks:
            want = " or ".join(f"{r}-D" for r in ranks)
            raise ValueError(f"For '{type(self).__name__}', the input must be {want}, but got "
                             f"{x.ndim}-D (shape {tuple(x.shape)}).")


class _MaxPool(_Pool):
    def __init__(self, kernel_size, stride, pad_mode, padding, dilation, return_indices,
                 ceil_mode, nd, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        owner = type(self).__name__
        self.padding = _padding(padding, nd, owner)
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode
        non_default = padding != 0 or dilation != 1 or return_indices or ceil_mode
        if self.pad_mode != "PAD" and non_default:
            raise ValueError(f"For {owner}, the parameter 'padding', 'dilation', "
                             f"'return_indices', 'ceil_mode' can not be set to non-default value "
                             f"when pad_mode is not 'pad', but got pad_mode:{pad_mode.lower()}.")


class MaxPool2d(_MaxPool):
    """2-D max pooling of (N, C, H, W) or (C, H, W) inputs.

    Args:
        kernel_size (int, tuple): Default ``1``.
        stride (int, tuple): Default ``1`` (not the kernel size).
        pad_mode (str): ``'valid'`` (default), ``'same'`` or ``'pad'`` (case-insensitive).
        padding (int, tuple): with 'pad': int or (pad_h, pad_w).
        dilation (int, tuple), return_indices (bool), ceil_mode (bool): with 'pad' only.
        data_format (str): ``'NCHW'`` only on CPU.

    Outputs:
        Tensor, or (Tensor, Int64 flat indices) with ``return_indices``.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices,
                         ceil_mode, 2, data_format)

    def construct(self, x):
        self._check_rank(x, (3, 4))
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.return_indices, self.ceil_mode,
                              pad_mode=self._functional_mode())


class MaxPool1d(_MaxPool):
    """1-D max pooling of (N, C, L) or (C, L) inputs (arguments as MaxPool2d, ints)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        for arg, v in (("kernel_size", kernel_size), ("stride", stride)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'MaxPool1d', the '{arg}' must be int, but got "
                                f"{type(v).__name__}.")
        super().__init__((1, kernel_size), (1, stride), pad_mode, padding, dilation,
                         return_indices, ceil_mode, 1)

    def construct(self, x):
        self._check_rank(x, (2, 3))
        return ops.max_pool1d(x, self.kernel_size[1], self.stride[1], self.padding[0],
                              self.dilation, self.return_indices, self.ceil_mode,
                              pad_mode=self._functional_mode())


class AvgPool2d(_Pool):
    """2-D average pooling of (N, C, H, W) or (C, H, W) inputs.

    Args:
        kernel_size (int, tuple): Default ``1``. stride (int, tuple): Default ``1``.
        pad_mode (str): ``'valid'`` (default), ``'same'`` or ``'pad'``.
        padding (int, tuple): with 'pad': int or (pad_h, pad_w).
        ceil_mode (bool): keep partial windows at the end. Default ``False``.
        count_include_pad (bool): padding counts in the divisor. Default ``True``.
        divisor_override (int): divide by this instead. Default ``None``.
        data_format (str): ``'NCHW'`` only on CPU.
    """

    _nd = 2

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__(kernel_size, stride, pad_mode, data_format)
        self.padding = _padding(padding, self._nd, type(self).__name__)
        if self.pad_mode != "PAD" and any(self.padding):
            raise ValueError(f"For '{type(self).__name__}', the 'pad' must be zero when "
                             f"'pad_mode' is not \"PAD\", but got 'pad' is {padding} and "
                             f"'pad_mode' is {pad_mode}.")
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def construct(self, x):
        self._check_rank(x, (3, 4))
        return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override or 0,
                              pad_mode=self._functional_mode())


class AvgPool1d(AvgPool2d):
    """1-D average pooling of (N, C, L) or (C, L) inputs (arguments as AvgPool2d, ints)."""

    _nd = 1

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        for arg, v in (("kernel_size", kernel_size), ("stride", stride)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'AvgPool1d', the '{arg}' must be int, but got "
                                f"{type(v).__name__}.")
        super().__init__((1, kernel_size), (1, stride), pad_mode, padding, ceil_mode,
                         count_include_pad)

    def construct(self, x):
        self._check_rank(x, (2, 3))
        x4 = ops.expand_dims(x, -2)
        y = ops.avg_pool2d(x4, self.kernel_size, self.stride, (0, self.padding[0]),
                           self.ceil_mode, self.count_include_pad, 0,
                           pad_mode=self._functional_mode())
        return ops.squeeze(y, -2)


class AdaptiveAvgPool2d(Cell):
    """Average pooling to a fixed (H_out, W_out); None keeps that input size.

    Args:
        output_size (int, tuple): H_out = W_out, or (H_out, W_out).
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool2d(x, self.output_size)


class AdaptiveMaxPool2d(Cell):
    """Max pooling to a fixed (H_out, W_out).

    Args:
        output_size (int, tuple): H_out = W_out, or (H_out, W_out); None keeps a size.
        return_indices (bool): also return flat Int64 indices. Default ``False``.
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def construct(self, x):
        return ops.adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(Cell):
    """Average pooling of (N, C, L) inputs to length ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_avg_pool1d(x, self.output_size)


class AdaptiveMaxPool1d(Cell):
    """Max pooling of (N, C, L) inputs to length ``output_size``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        return ops.adaptive_max_pool1d(x, self.output_size)


class LPPool2d(Cell):
    """Power-average pooling: ``(sum over the window of x**p) ** (1/p)`` on (N, C, H, W).

    Args:
        norm_type (float): ``p``.
        kernel_size (int, tuple): window size.
        stride (int, tuple): Default ``None`` (= ``kernel_size``).
        ceil_mode (bool): Default ``False``.
    """

    _op = "lp_pool2d"

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        return getattr(ops, self._op)(x, self.norm_type, self.kernel_size, self.stride,
                                      self.ceil_mode)


class LPPool1d(LPPool2d):
    """Power-average pooling on (N, C, L) inputs (see :class:`LPPool2d`)."""

    _op = "lp_pool1d"


def _pool3d_args(owner, kernel_size, stride, pad_mode, padding):
    from ...ops._nn.pool3d import _triple
    kernel = _triple(owner, "kernel_size", kernel_size)
    strides = _triple(owner, "stride", stride)
    if any(k <= 0 for k in kernel) or any(v <= 0 for v in strides):
        raise ValueError(f"For '{owner}', the 'kernel_size' and 'stride' must be positive, but "
                         f"got {kernel_size} and {stride}.")
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"For '{owner}', the 'pad_mode' must be 'valid', 'same' or 'pad', but "
                         f"got {pad_mode!r}.")
    pad_mode = pad_mode.lower()
    if pad_mode != "pad" and padding not in (0, (0, 0, 0), (0,) * 6):
        raise ValueError(f"For '{owner}', the 'padding' must be zero when 'pad_mode' is not "
                         f"'pad', but got padding {padding} and pad_mode {pad_mode}.")
    return kernel, strides, pad_mode


class MaxPool3d(Cell):
    """3-D max pooling over (N, C, D, H, W) inputs (``ops.max_pool3d``); ``stride``
    defaults to 1, as for the other MindSpore pooling layers.

    Args:
        kernel_size, stride (int or tuple): Defaults: ``1``.
        pad_mode (str): ``'valid'``, ``'same'`` or ``'pad'`` (use ``padding``).
        padding (int or tuple): (d, h, w) on both sides, or six values. Default: ``0``.
        dilation (int or tuple): Default: ``1``.
        return_indices (bool): also return the flat indices of the maxima.
        ceil_mode (bool): round the output size up.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.pad_mode = _pool3d_args(
            "MaxPool3d", kernel_size, stride, pad_mode, padding)
        from ...ops._nn.pool3d import _triple
        self.dilation = _triple("MaxPool3d", "dilation", dilation)
        self.padding, self.return_indices, self.ceil_mode = padding, return_indices, ceil_mode

    def construct(self, x):
        from ...ops._nn.pool3d import _check_rank, max_pool3d_ms
        _check_rank("MaxPool3D", x)
        return max_pool3d_ms(x, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices, self.pad_mode)


class AvgPool3d(Cell):
    """3-D average pooling over (N, C, D, H, W) inputs (``ops.avg_pool3d``); ``stride``
    defaults to 1.

    Args:
        kernel_size, stride (int or tuple): Defaults: ``1``.
        pad_mode (str): ``'valid'``, ``'same'`` or ``'pad'`` (use ``padding``).
        padding (int or tuple): (d, h, w) on both sides, or six values. Default: ``0``.
        ceil_mode (bool), count_include_pad (bool), divisor_override (int): as
            ``ops.avg_pool3d``.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.pad_mode = _pool3d_args(
            "AvgPool3d", kernel_size, stride, pad_mode, padding)
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def construct(self, x):
        from ...ops._nn.pool3d import _check_rank, avg_pool3d_ms
        _check_rank("AvgPool3D", x)
        return avg_pool3d_ms(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override or 0, self.pad_mode)
