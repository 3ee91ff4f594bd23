"""Primitive classes of the spatial and normalisation ops of ``ops/_nn_more.py``:
``ops.LRN``, ``ops.MaxUnpool2D/3D``, ``ops.Conv3DTranspose``, ``ops.GridSampler2D``,
``ops.AffineGrid`` and ``ops.MultilabelMarginLoss``."""
from __future__ import annotations

from . import Primitive, _ops
from .._nn_more import check_norm_region

__all__ = ["LRN", "MaxUnpool2D", "MaxUnpool3D", "Conv3DTranspose", "GridSampler2D",
           "AffineGrid", "MultilabelMarginLoss"]


class LRN(Primitive):
    """``ops.lrn`` with the attributes stored."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        check_norm_region(norm_region)
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def __call__(self, x):
        return _ops().lrn(x, self.depth_radius, self.bias, self.alpha, self.beta,
                          self.norm_region)


class _MaxUnpool(Primitive):
    _fn, _nd, _format = None, 0, ""

    def __init__(self, ksize, strides=0, pads=0, output_shape=(), data_format=None):
        super().__init__()
        if data_format not in (None, self._format):
            raise ValueError(f"For '{type(self).__name__}', only the '{self._format}' format is "
                             f"supported, but got {data_format!r}.")
        self.ksize, self.strides, self.pads = ksize, strides, pads
        self.output_shape = tuple(output_shape)

    def __call__(self, x, argmax):
        strides = None if self.strides in (0, None) else self.strides
        return getattr(_ops(), self._fn)(x, argmax, self.ksize, strides, self.pads,
                                         self.output_shape or None)


class MaxUnpool2D(_MaxUnpool):
    """``ops.max_unpool2d`` of (N, C, H, W) values and flat argmax indices."""
    _fn, _nd, _format = "max_unpool2d", 2, "NCHW"


class MaxUnpool3D(_MaxUnpool):
    """``ops.max_unpool3d`` of (N, C, D, H, W) values and flat argmax indices."""
    _fn, _nd, _format = "max_unpool3d", 3, "NCDHW"


class Conv3DTranspose(Primitive):
    """``ops.conv3d_transpose`` with MindSpore's primitive attributes (``pad`` an int or
    6-tuple; ``in_channel``/``out_channel``/``kernel_size`` checked against the weight)."""

    def __init__(self, in_channel, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1, output_padding=0, data_format="NCDHW"):
        super().__init__()
        if data_format != "NCDHW":
            raise ValueError(f"For 'Conv3DTranspose', only 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        self.in_channel, self.out_channel = in_channel, out_channel
        self.kernel_size = (kernel_size,) * 3 if isinstance(kernel_size, int) else \
            tuple(kernel_size)
        self.pad_mode, self.pad, self.stride, self.dilation = pad_mode, pad, stride, dilation
        self.group, self.output_padding = group, output_padding

    def __call__(self, dout, weight):
        if tuple(weight.shape[2:]) != self.kernel_size or weight.shape[0] != self.in_channel:
            raise ValueError(f"For 'Conv3DTranspose', the weight must be (in_channel="
                             f"{self.in_channel}, out_channel/group, *{self.kernel_size}), but "
                             f"got {list(weight.shape)}.")
        return _ops().conv3d_transpose(dout, weight, self.pad_mode, self.pad, self.stride,
                                       self.dilation, self.group, self.output_padding)


class GridSampler2D(Primitive):
    """``ops.grid_sample`` of 4-D inputs with the attributes stored."""

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros",
                 align_corners=False):
        super().__init__()
        self.interpolation_mode, self.padding_mode = interpolation_mode, padding_mode
        self.align_corners = bool(align_corners)

    def __call__(self, input_x, grid):
        return _ops().grid_sample(input_x, grid, self.interpolation_mode, self.padding_mode,
                                  self.align_corners)


class AffineGrid(Primitive):
    """``ops.affine_grid(theta, output_size, align_corners)``."""

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = bool(align_corners)

    def __call__(self, theta, output_size):
        return _ops().affine_grid(theta, output_size, self.align_corners)


class MultilabelMarginLoss(Primitive):
    """``(loss, is_target)``: ``ops.multilabel_margin_loss`` and the (N, C) mask of the
    target classes (Int32), as MindSpore's primitive returns."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def __call__(self, x, target):
        ops = _ops()
        loss = ops.multilabel_margin_loss(x, target, self.reduction)
        c = x.shape[-1]
        t = target.reshape((-1, c)).astype("int64")
        valid = ops.cumprod((t >= 0).astype("int32"), 1)
        hot = ops.one_hot(ops.clamp(t, 0, c - 1), c, 1, 0).astype("int32")
        is_target = ops.clamp((hot * valid.expand_dims(-1)).sum(1), 0, 1)
        return loss, is_target.reshape(x.shape).astype("int32")
