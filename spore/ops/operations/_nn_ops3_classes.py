"""Primitive classes of MindSpore's resize, pooling-with-argmax, data-format, dropout and
fused-normalisation operators (adapters over ``ops/_nn_ops3.py`` and the public ops)."""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .. import _nn_ops3 as F
from . import Primitive, _ops
from ._optim_classes import _bool

__all__ = ["AdaptiveAvgPool3D", "AdaptiveMaxPool3D", "LogSoftmaxExt", "RmsNorm", "Dropout2D",
           "Dropout3D", "SpaceToBatch", "BatchToSpace", "BatchToSpaceNDV2", "DataFormatDimMap",
           "DataFormatVecPermute", "ResizeBilinearV2", "ResizeNearestNeighborV2",
           "ResizeBicubic", "ResizeArea", "ResizeLinear1D", "UpsampleNearest3D",
           "UpsampleTrilinear3D", "GridSampler3D", "Im2Col", "Col2Im", "MaxPoolWithArgmax",
           "MaxPoolWithArgmaxV2", "MaxPool3DWithArgmax"]


def _ints(op, arg, value, n=None):
    """A tuple of ints from an int, a sequence or an integer Tensor."""
    if isinstance(value, Tensor):
        value = value.asnumpy().reshape(-1).tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (int(value),) * (n or 1)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value) or \
            (n is not None and len(value) != n):
        want = f"{n} ints" if n else "ints"
        raise TypeError(f"For '{op}', the '{arg}' must be an int or a tuple of {want}, but got "
                        f"{value!r}.")
    return tuple(int(v) for v in value)


def _tensor(op, arg, x, ndim=None):
    return F._tensor(op, arg, x, ndim)


# ----------------------------------------------------------------- pooling
class AdaptiveAvgPool3D(Primitive):
    """``AdaptiveAvgPool3D(output_size)(x)``: ``ops.adaptive_avg_pool3d``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size if isinstance(output_size, int) else tuple(output_size)

    def __call__(self, x):
        return F.adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool3D(Primitive):
    """``AdaptiveMaxPool3D()(x, output_size)``: the window maxima and their flat (D*H*W)
    indices (Int32); ``output_size`` is a 1-D integer Tensor of three sizes."""

    def __call__(self, x, output_size):
        return F.adaptive_max_pool3d(x, _ints("AdaptiveMaxPool3D", "output_size", output_size,
                                              3), True)


def _argmax_type(op, dtype):
    if dtype not in (D.int32, D.int64):
        raise TypeError(f"For '{op}', the 'argmax_type' must be int32 or int64, but got "
                        f"{dtype}.")
    return dtype


def _pool_indices(values, index, dtype):
    return values, index.astype(dtype)


class MaxPoolWithArgmax(Primitive):
    """``MaxPoolWithArgmax(kernel_size=1, strides=1, pad_mode='valid')(x)``: 2-D max pooling
    of NCHW ``x`` with the flat (H*W) index (Int32) of each maximum."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__()
        if data_format != "NCHW":
            raise ValueError(f"For 'MaxPoolWithArgmax', only the 'NCHW' format is supported, "
                             f"but got {data_format!r}.")
        if str(pad_mode).lower() not in ("valid", "same"):
            raise ValueError(f"For 'MaxPoolWithArgmax', the 'pad_mode' must be 'valid' or "
                             f"'same', but got {pad_mode!r}.")
        self.kernel_size = _pool_window("MaxPoolWithArgmax", "kernel_size", kernel_size)
        self.strides = _pool_window("MaxPoolWithArgmax", "strides", strides)
        self.pad_mode = str(pad_mode).lower()

    def __call__(self, x):
        _tensor("MaxPoolWithArgmax", "x", x, (4,))
        out = _ops().max_pool2d(x, self.kernel_size, self.strides, return_indices=True,
                                pad_mode=self.pad_mode)
        return _pool_indices(*out, D.int32)


def _pool_window(op, arg, value):
    """MindSpore's int, (h, w) or (1, 1, h, w) windows and strides."""
    v = _ints(op, arg, value)
    if len(v) == 4:
        v = v[2:]
    if len(v) == 1:
        v = v * 2
    if len(v) != 2 or min(v) < 1:
        raise ValueError(f"For '{op}', the '{arg}' must be a positive int or a tuple of 2 (or "
                         f"4) positive ints, but got {value!r}.")
    return v


class MaxPoolWithArgmaxV2(Primitive):
    """``MaxPoolWithArgmaxV2(kernel_size, strides=None, pads=0, dilation=(1, 1),
    ceil_mode=False, argmax_type=int64)(x)``: ``ops.max_pool2d(..., return_indices=True)``
    with MindSpore's argument names."""

    def __init__(self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode=False,
                 argmax_type=D.int64):
        super().__init__()
        op = "MaxPoolWithArgmaxV2"
        self.kernel_size = _pool_window(op, "kernel_size", kernel_size)
        self.strides = self.kernel_size if strides is None else _pool_window(op, "strides",
                                                                              strides)
        self.pads = _ints(op, "pads", pads)
        self.dilation = _pool_window(op, "dilation", dilation)
        self.ceil_mode = _bool(op, "ceil_mode", ceil_mode)
        self.argmax_type = _argmax_type(op, argmax_type)

    def __call__(self, x):
        _tensor("MaxPoolWithArgmaxV2", "x", x, (4,))
        pads = self.pads * 2 if len(self.pads) == 1 else self.pads
        out = _ops().max_pool2d(x, self.kernel_size, self.strides, pads, self.dilation,
                                return_indices=True, ceil_mode=self.ceil_mode)
        return _pool_indices(*out, self.argmax_type)


class MaxPool3DWithArgmax(Primitive):
    """``MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
    data_format='NCDHW', argmax_type=int64)(x)``: 3-D max pooling with the flat (D*H*W)
    index of each maximum."""

    def __init__(self, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                 data_format="NCDHW", argmax_type=D.int64):
        super().__init__()
        op = "MaxPool3DWithArgmax"
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only the 'NCDHW' format is supported, but got "
                             f"{data_format!r}.")
        self.ksize, self.strides = _ints(op, "ksize", ksize), _ints(op, "strides", strides)
        self.pads, self.dilation = _ints(op, "pads", pads), _ints(op, "dilation", dilation)
        self.ceil_mode = _bool(op, "ceil_mode", ceil_mode)
        self.argmax_type = _argmax_type(op, argmax_type)

    def __call__(self, x):
        _tensor("MaxPool3DWithArgmax", "x", x, (5,))
        one = lambda v: v[0] if len(v) == 1 else v     # noqa: E731
        out = _ops().max_pool3d(x, one(self.ksize), one(self.strides), one(self.pads),
                                one(self.dilation), self.ceil_mode, return_indices=True)
        return _pool_indices(*out, self.argmax_type)


# ----------------------------------------------------------------- normalisation, dropout
class LogSoftmaxExt(Primitive):
    """``LogSoftmaxExt()(input, dim=None, dtype=None)``: log-softmax along ``dim`` in
    ``dtype``."""

    def __call__(self, input, dim=None, dtype=None):
        return F.log_softmax_ext(input, dim, dtype)


class RmsNorm(Primitive):
    """``RmsNorm(epsilon=1e-6)(x, gamma)``: ``ops.rms_norm`` (returns ``(y, rstd)``)."""

    def __init__(self, epsilon=1e-6):
        super().__init__()
        self.epsilon = F._epsilon("RmsNorm", epsilon)

    def __call__(self, x, gamma):
        return _ops().rms_norm(x, gamma, self.epsilon)


class _ChannelDropout(Primitive):
    _rank = 4

    def __init__(self, keep_prob=0.5):
        super().__init__()
        name = type(self).__name__
        if not isinstance(keep_prob, float):
            raise TypeError(f"For '{name}', the 'keep_prob' must be a float, but got "
                            f"{type(keep_prob).__name__}.")
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"For '{name}', the 'keep_prob' must be in [0.0, 1.0], but got "
                             f"{keep_prob}.")
        self.keep_prob = keep_prob

    def __call__(self, x):
        name = type(self).__name__
        ops = _ops()
        _tensor(name, "x", x, (self._rank,))
        keep = ops.rand(*(tuple(x.shape[:2]) + (1,) * (self._rank - 2))) < self.keep_prob
        mask = ops.broadcast_to(keep, tuple(x.shape))
        if self.keep_prob == 0.0:
            return ops.zeros_like(x), mask
        return x * mask.astype(x.dtype) / self.keep_prob, mask


class Dropout2D(_ChannelDropout):
    """``Dropout2D(keep_prob=0.5)(x)``: zero whole channels of NCHW ``x`` with probability
    ``1 - keep_prob`` and scale the rest by ``1 / keep_prob``; returns ``(output, mask)``
    (``mask`` Bool, the shape of ``x``)."""
    _rank = 4


class Dropout3D(_ChannelDropout):
    """``Dropout3D(keep_prob=0.5)(x)``: ``Dropout2D`` for NCDHW ``x``."""
    _rank = 5


# ----------------------------------------------------------------- space / batch
class SpaceToBatch(Primitive):
    """``SpaceToBatch(block_size, paddings)(x)``: ``ops.space_to_batch_nd`` with one block
    size for H and W (MindSpore's deprecated name)."""

    def __init__(self, block_size, paddings):
        super().__init__()
        if not isinstance(block_size, int) or block_size < 2:
            raise ValueError(f"For 'SpaceToBatch', the 'block_size' must be an int >= 2, but "
                             f"got {block_size!r}.")
        self.block_size, self.paddings = block_size, tuple(tuple(p) for p in paddings)

    def __call__(self, x):
        _tensor("SpaceToBatch", "input_x", x, (4,))
        return _ops().space_to_batch_nd(x, (self.block_size,) * 2, self.paddings)


class BatchToSpace(Primitive):
    """``BatchToSpace(block_size, crops)(x)``: the inverse of ``SpaceToBatch``."""

    def __init__(self, block_size, crops):
        super().__init__()
        if not isinstance(block_size, int) or block_size < 2:
            raise ValueError(f"For 'BatchToSpace', the 'block_size' must be an int >= 2, but "
                             f"got {block_size!r}.")
        self.block_size, self.crops = block_size, tuple(tuple(c) for c in crops)

    def __call__(self, x):
        _tensor("BatchToSpace", "input_x", x, (4,))
        return _ops().batch_to_space_nd(x, (self.block_size,) * 2, self.crops)


class BatchToSpaceNDV2(Primitive):
    """``BatchToSpaceNDV2()(input_x, block_shape, crops)``: ``ops.batch_to_space_nd`` with
    the block shape (and crops) given as tensors."""

    def __call__(self, input_x, block_shape, crops):
        if isinstance(crops, Tensor):
            crops = crops.asnumpy().tolist()
        return _ops().batch_to_space_nd(input_x, _ints("BatchToSpaceNDV2", "block_shape",
                                                       block_shape),
                                        tuple(tuple(int(v) for v in c) for c in crops))


# ----------------------------------------------------------------- data formats
def _formats(op, src, dst):
    for arg, f in (("src_format", src), ("dst_format", dst)):
        if not isinstance(f, str):
            raise TypeError(f"For '{op}', the '{arg}' must be a str, but got "
                            f"{type(f).__name__}.")
    if len(src) != 4 or sorted(src) != sorted(dst) or len(set(src)) != 4:
        raise ValueError(f"For '{op}', the 'src_format' and 'dst_format' must be permutations "
                         f"of 4 distinct letters, but got {src!r} and {dst!r}.")
    return src, dst


class DataFormatDimMap(Primitive):
    """``DataFormatDimMap(src_format='NHWC', dst_format='NCHW')(x)``: maps each axis index
    of ``x`` (in [-4, 4)) to ``src_format.index(dst_format[x])``, as MindSpore does."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        super().__init__()
        self.src_format, self.dst_format = _formats("DataFormatDimMap", src_format, dst_format)

    def __call__(self, x):
        _tensor("DataFormatDimMap", "input_x", x)
        if x.dtype not in (D.int32, D.int64):
            raise TypeError(f"For 'DataFormatDimMap', the 'input_x' must be int32 or int64, "
                            f"but got {x.dtype}.")
        table = Tensor(np.array([self.src_format.index(c) for c in self.dst_format] * 2,
                                x.dtype.np))
        return _ops().gather(table, x + 4, 0)


class DataFormatVecPermute(Primitive):
    """``DataFormatVecPermute(src_format='NHWC', dst_format='NCHW')(x)``: reorders the
    4 entries (or rows) of ``x`` from ``src_format`` to ``dst_format``."""

    def __init__(self, src_format="NHWC", dst_format="NCHW"):
        super().__init__()
        self.src_format, self.dst_format = _formats("DataFormatVecPermute", src_format,
                                                    dst_format)

    def __call__(self, x):
        op = "DataFormatVecPermute"
        _tensor(op, "input_x", x, (1, 2))
        if x.dtype not in (D.int32, D.int64):
            raise TypeError(f"For '{op}', the 'input_x' must be int32 or int64, but got "
                            f"{x.dtype}.")
        if tuple(x.shape) not in ((4,), (4, 2)):
            raise ValueError(f"For '{op}', the 'input_x' must have shape (4,) or (4, 2), but "
                             f"got {list(x.shape)}.")
        order = Tensor(np.array([self.src_format.index(c) for c in self.dst_format], np.int64))
        return _ops().gather(x, order, 0)


# ----------------------------------------------------------------- resize
def _size2(op, size):
    s = _ints(op, "size", size)
    if len(s) != 2 or min(s) < 1:
        raise ValueError(f"For '{op}', the 'size' must hold 2 positive ints, but got {size!r}.")
    return s


class _Resize2D(Primitive):
    _mode = "linear"

    def __init__(self, align_corners=False, half_pixel_centers=False):
        super().__init__()
        name = type(self).__name__
        self.align_corners = _bool(name, "align_corners", align_corners)
        self.half_pixel_centers = _bool(name, "half_pixel_centers", half_pixel_centers)
        if align_corners and half_pixel_centers:
            raise ValueError(f"For '{name}', the 'half_pixel_centers' must be False when "
                             f"'align_corners' is True.")

    def __call__(self, x, size):
        name = type(self).__name__
        _tensor(name, "x", x, (4,))
        return F.resize(x, (2, 3), _size2(name, size), self._mode, self.align_corners,
                        self.half_pixel_centers)


class ResizeBilinearV2(_Resize2D):
    """``ResizeBilinearV2(align_corners=False, half_pixel_centers=False)(x, size)``:
    bilinear resize of NCHW ``x`` to ``size`` (source ``i * in/out`` by default)."""
    _mode = "linear"


class ResizeNearestNeighborV2(_Resize2D):
    """``ResizeNearestNeighborV2(align_corners=False, half_pixel_centers=False)(x, size)``:
    nearest-neighbour resize of NCHW ``x`` (any dtype)."""
    _mode = "nearest"


class ResizeBicubic(_Resize2D):
    """``ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)``:
    bicubic resize (Keys' kernel, TensorFlow's weights) of NCHW ``images``; integer images
    give Float32."""
    _mode = "cubic"

    def __call__(self, images, size):
        if isinstance(images, Tensor) and not images.dtype.is_floating_point:
            images = images.astype(D.float32)
        return super().__call__(images, size)


class ResizeArea(Primitive):
    """``ResizeArea(align_corners=False)(images, size)``: area-weighted resize of NHWC
    ``images`` (each output pixel averages the input area it covers); Float32 output."""

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = _bool("ResizeArea", "align_corners", align_corners)

    def __call__(self, images, size):
        _tensor("ResizeArea", "images", images, (4,))
        return F.resize(images, (1, 2), _size2("ResizeArea", size), "area", self.align_corners,
                        dtype=D.float32)


class ResizeLinear1D(Primitive):
    """``ResizeLinear1D(coordinate_transformation_mode='align_corners')(x, size)``: linear
    resize of the last axis of (N, C, W) ``x``; modes 'align_corners' and 'half_pixel'."""

    def __init__(self, coordinate_transformation_mode="align_corners"):
        super().__init__()
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError(f"For 'ResizeLinear1D', the 'coordinate_transformation_mode' must "
                             f"be 'align_corners' or 'half_pixel', but got "
                             f"{coordinate_transformation_mode!r}.")
        self.coordinate_transformation_mode = coordinate_transformation_mode

    def __call__(self, x, size):
        _tensor("ResizeLinear1D", "x", x, (3,))
        (n,) = _ints("ResizeLinear1D", "size", size, 1)
        align = self.coordinate_transformation_mode == "align_corners"
        return F.resize(x, (2,), (n,), "linear", align, not align)


class _Upsample3D(Primitive):
    _mode = "nearest"

    def __call__(self, x, output_size=None, scales=None):
        name = type(self).__name__
        _tensor(name, "x", x, (5,))
        if (output_size is None) == (scales is None):
            raise ValueError(f"For '{name}', exactly one of 'output_size' and 'scales' must be "
                             f"given.")
        size = None if output_size is None else _ints(name, "output_size", output_size, 3)
        factors = None if scales is None else tuple(float(s) for s in scales)
        align = getattr(self, "align_corners", None) if self._mode != "nearest" else None
        return _ops().interpolate(x, size, factors, self._mode, align)


class UpsampleNearest3D(_Upsample3D):
    """``UpsampleNearest3D()(x, output_size=None, scales=None)``: nearest-neighbour
    upsampling of NCDHW ``x`` (source ``floor(i * in/out)``, or ``floor(i / scale)``)."""
    _mode = "nearest"


class UpsampleTrilinear3D(_Upsample3D):
    """``UpsampleTrilinear3D(align_corners=False)(x, output_size=None, scales=None)``:
    trilinear upsampling of NCDHW ``x``."""
    _mode = "trilinear"

    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = _bool("UpsampleTrilinear3D", "align_corners", align_corners)


class GridSampler3D(Primitive):
    """``GridSampler3D(interpolation_mode='bilinear', padding_mode='zeros',
    align_corners=False)(input_x, grid)``: trilinear / nearest sampling of NCDHW ``input_x``
    at the normalised (x, y, z) points of ``grid``."""

    def __init__(self, interpolation_mode="bilinear", padding_mode="zeros",
                 align_corners=False):
        super().__init__()
        self.interpolation_mode, self.padding_mode = interpolation_mode, padding_mode
        self.align_corners = _bool("GridSampler3D", "align_corners", align_corners)

    def __call__(self, input_x, grid):
        return F.grid_sample3d(input_x, grid, self.interpolation_mode, self.padding_mode,
                               self.align_corners)


# ----------------------------------------------------------------- im2col
class Im2Col(Primitive):
    """``Im2Col(ksizes, strides=1, dilations=1, pads=0)(x)``: the sliding windows of NCHW
    ``x`` as (N, C, kh*kw, L) columns."""

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        super().__init__()
        self.ksizes, self.strides = _ints("Im2Col", "ksizes", ksizes), _ints("Im2Col",
                                                                             "strides", strides)
        self.dilations, self.pads = (_ints("Im2Col", "dilations", dilations),
                                     _ints("Im2Col", "pads", pads))

    def __call__(self, x):
        _tensor("Im2Col", "x", x, (4,))
        one = lambda v: v[0] if len(v) == 1 else v     # noqa: E731
        pads = self.pads if len(self.pads) != 4 else self.pads[::2]
        cols = _ops().unfold(x, one(self.ksizes), one(self.dilations), one(pads),
                             one(self.strides))
        n, c = x.shape[:2]
        return cols.reshape((n, c, -1, cols.shape[-1]))


class Col2Im(Primitive):
    """``Col2Im(kernel_size, dilation=1, padding=0, stride=1)(x, output_size)``: the adjoint
    of ``Im2Col`` (``ops.col2im``)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def __call__(self, x, output_size):
        return F.col2im(x, output_size, self.kernel_size, self.dilation, self.padding,
                        self.stride)
