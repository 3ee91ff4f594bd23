"""Layers of ``mindspore.nn`` that are thin wrappers of one op: the ``*Ext`` layers (which
are ``mint.nn``'s), 3-D adaptive pooling and unpooling, Dropout3d, matrix layers,
ReduceLogSumExp, the gamma functions, CentralCrop, ImageGradients and TimeDistributed."""
from __future__ import annotations

import numbers

from ... import ops
from ..cell import Cell

__all__ = ["AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "MaxPool2dExt", "Dropout2dExt",
           "DropoutExt", "EmbeddingExt", "L1LossExt", "LayerNormExt", "LogSoftmaxExt",
           "PReLUExt", "AdaptiveAvgPool3d", "MaxUnpool2d", "Dropout3d", "MatDet", "MatInverse",
           "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "ReduceLogSumExp", "DiGamma",
           "LGamma", "CentralCrop", "ImageGradients", "TimeDistributed"]


def __getattr__(name):
    """The ``*Ext`` layers, AdaptiveAvgPool3d and MaxUnpool2d are ``mint.nn``'s classes
    (MindSpore's are the same objects), looked up on use since ``mint`` imports ``nn``."""
    mint_names = {"AvgPool1dExt": "AvgPool1d", "AvgPool2dExt": "AvgPool2d",
                  "AvgPool3dExt": "AvgPool3d", "MaxPool2dExt": "MaxPool2d",
                  "Dropout2dExt": "Dropout2d", "DropoutExt": "Dropout",
                  "EmbeddingExt": "Embedding", "L1LossExt": "L1Loss",
                  "LayerNormExt": "LayerNorm", "LogSoftmaxExt": "LogSoftmax",
                  "PReLUExt": "PReLU", "AdaptiveAvgPool3d": "AdaptiveAvgPool3d",
                  "MaxUnpool2d": "MaxUnpool2d"}
    if name in mint_names:
        from ...mint import nn as mint_nn
        return getattr(mint_nn, mint_names[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Dropout3d(Cell):
    """Zero whole channels of (N, C, D, H, W) with probability ``p`` while training."""

    def __init__(self, p=0.5):
        super().__init__()
        if not isinstance(p, numbers.Real) or not 0 <= p <= 1:
            raise ValueError(f"For 'Dropout3d', the 'p' must be in range [0, 1], but got {p}.")
        self.p = float(p)

    def construct(self, x):
        return ops.dropout3d(x, self.p, self.training) if self.training else x


class MatDet(Cell):
    """Determinant of (a batch of) positive-definite matrices."""

    def construct(self, x):
        return ops.det(x)


class MatInverse(Cell):
    """Inverse of (a batch of) positive-definite matrices."""

    def construct(self, x):
        return ops.inverse(x)


class MatrixDiag(Cell):
    """(..., n) -> (..., n, n) matrices with the input on the diagonal."""

    def construct(self, x):
        return ops.diag_embed(x)


class MatrixDiagPart(Cell):
    """(..., m, n) -> (..., min(m, n)) main diagonals."""

    def construct(self, x):
        return ops.diagonal(x, 0, -2, -1)


class MatrixSetDiag(Cell):
    """(..., m, n) matrices with their main diagonal replaced by ``diagonal``."""

    def construct(self, x, diagonal):
        m, n = x.shape[-2:]
        k = min(m, n)
        eye = ops.eye(m, n, x.dtype)
        full = ops.pad(ops.diag_embed(diagonal), (0, n - k, 0, m - k))
        return ops.add(ops.mul(x, ops.sub(1, eye)), full)


class ReduceLogSumExp(Cell):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def construct(self, x):
        return ops.logsumexp(x, self.axis, self.keep_dims)


class DiGamma(Cell):
    """The digamma function (the derivative of log-gamma)."""

    def construct(self, x):
        return ops.digamma(x)


class LGamma(Cell):
    """The log of the absolute gamma function."""

    def construct(self, x):
        return ops.lgamma(x)


class CentralCrop(Cell):
    """The central ``central_fraction`` of (C, H, W) or (N, C, H, W) images (the border
    trimmed equally, ``int((size - size·fraction) / 2)`` on each side)."""

    def __init__(self, central_fraction):
        super().__init__()
        if not isinstance(central_fraction, numbers.Real) or not 0 < central_fraction <= 1:
            raise ValueError(f"For 'CentralCrop', the 'central_fraction' must be in range "
                             f"(0.0, 1.0], but got {central_fraction}.")
        self.central_fraction = float(central_fraction)

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"For 'CentralCrop', the dimension of 'image' must be 3 or 4, but "
                             f"got {image.ndim}.")
        h, w = image.shape[-2:]
        top = int((h - h * self.central_fraction) / 2)
        left = int((w - w * self.central_fraction) / 2)
        return image[..., top:h - top, left:w - left]


class ImageGradients(Cell):
    """(dy, dx) of (N, C, H, W) images: forward differences, 0 in the last row / column."""

    def construct(self, images):
        if images.ndim != 4:
            raise ValueError(f"For 'ImageGradients', the dimension of 'images' must be 4, but "
                             f"got {images.ndim}.")
        dy = ops.pad(ops.sub(images[:, :, 1:, :], images[:, :, :-1, :]), (0, 0, 0, 1))
        dx = ops.pad(ops.sub(images[:, :, :, 1:], images[:, :, :, :-1]), (0, 1))
        return dy, dx


class TimeDistributed(Cell):
    """Apply ``layer`` to every step along ``time_axis`` and stack the results there
    (``reshape_with_axis``: the axis the steps are folded into; the result is the same)."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, Cell):
            raise TypeError(f"For 'TimeDistributed', the 'layer' must be a Cell, but got "
                            f"{type(layer).__name__}.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        axis = self.time_axis % inputs.ndim
        steps = [self.layer(step) for step in ops.unbind(inputs, axis)]
        out_axis = axis if steps[0].ndim >= axis else steps[0].ndim
        return ops.stack(steps, out_axis)
