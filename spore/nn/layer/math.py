"""Small math cells from MindSpore's nn (most deprecated there in favour of ops, kept so
older programs run): Norm, Tril, Triu, OneHot, Range, MatMul, Moments, L1Regularizer."""
from __future__ import annotations

import math

import numpy as np

from ... import ops
from ..._dtype import float16, float32, int32
from ..._tensor import Tensor
from ..cell import Cell

__all__ = ["Norm", "Tril", "Triu", "OneHot", "Range", "MatMul", "Moments", "L1Regularizer"]


def _axes(axis):
    return axis if isinstance(axis, tuple) else (axis,)


class Norm(Cell):
    """sqrt(sum(x², axis)).

    Args:
        axis (int, tuple): Default: ``()`` (all axes).
        keep_dims (bool): Default: ``False``.
    """

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        if not isinstance(keep_dims, bool):
            raise TypeError(f"For 'Norm', the 'keep_dims' must be bool, but got "
                            f"{type(keep_dims).__name__}.")
        self.axis = axis
        self.keep_dims = keep_dims

    def construct(self, x):
        axis = _axes(self.axis) or None
        return ops.sqrt(ops.sum(ops.square(x), axis, keepdim=self.keep_dims))

    def extend_repr(self):
        return f"axis={self.axis}, keep_dims={self.keep_dims}"


class Tril(Cell):
    """The lower triangle of the last two dimensions (``k`` above the diagonal kept)."""

    def construct(self, x, k=0):
        return ops.tril(x, k)


class Triu(Cell):
    """The upper triangle of the last two dimensions (``k`` above the diagonal dropped)."""

    def construct(self, x, k=0):
        return ops.triu(x, k)


class OneHot(Cell):
    """One-hot vectors of ``depth`` with ``on_value``/``off_value`` along ``axis``.

    Args:
        axis (int): Default: ``-1``.
        depth (int): Default: ``1``.
        on_value, off_value (float): Default: ``1.0``, ``0.0``.
        dtype: Default: ``mstype.float32``.
    """

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=float32):
        super().__init__()
        self.axis = axis
        self.depth = depth
        self.on_value = on_value
        self.off_value = off_value
        self.dtype = dtype

    def construct(self, indices):
        return ops.one_hot(indices, self.depth, Tensor(self.on_value, self.dtype),
                           Tensor(self.off_value, self.dtype), self.axis)


class Range(Cell):
    """The constant ``arange(start, limit, delta)``: Float32 when any bound is a float,
    else Int32."""

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if delta == 0:
            raise ValueError("For 'Range', the 'delta' can not be zero.")
        data = np.arange(start, limit, delta)
        self.result_tensor = Tensor(data, float32 if data.dtype.kind == "f" else int32)

    def construct(self):
        return self.result_tensor


class MatMul(Cell):
    """``ops.matmul`` with optional transposes of the last two dimensions."""

    def __init__(self, transpose_x1=False, transpose_x2=False):
        super().__init__()
        for arg, v in (("transpose_x1", transpose_x1), ("transpose_x2", transpose_x2)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'MatMul', the '{arg}' must be bool, but got "
                                f"{type(v).__name__}.")
        self.transpose_x1 = transpose_x1
        self.transpose_x2 = transpose_x2

    def construct(self, x1, x2):
        if self.transpose_x1 and x1.ndim > 1:
            x1 = ops.swapaxes(x1, -1, -2)
        if self.transpose_x2 and x2.ndim > 1:
            x2 = ops.swapaxes(x2, -1, -2)
        return ops.matmul(x1, x2)


class Moments(Cell):
    """(mean, variance) over ``axis``; float16 inputs are reduced in float32.

    Args:
        axis (int, tuple): Default: ``None`` (all axes).
        keep_dims (bool): Default: ``None`` (False).
    """

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        dtype = x.dtype
        if dtype not in (float16, float32):
            raise TypeError(f"For 'Moments', the dtype of 'input x' must be float16 or "
                            f"float32, but got {dtype}.")
        x32 = ops.cast(x, float32)
        axis = _axes(self.axis) or None
        mean = ops.mean(x32, axis, keep_dims=True)
        # the variance does not pass a gradient through the mean, as MindSpore's
        variance = ops.mean(ops.square(x32 - ops.stop_gradient(mean)), axis, keep_dims=True)
        if not self.keep_dims:
            mean, variance = ops.squeeze(mean, axis), ops.squeeze(variance, axis)
        return ops.cast(mean, dtype), ops.cast(variance, dtype)


class L1Regularizer(Cell):
    """``scale * sum(|weights|)``.

    Args:
        scale (float): positive and finite.
    """

    def __init__(self, scale):
        super().__init__()
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            raise TypeError(f"For 'L1Regularizer', the 'scale' must be int or float, but got "
                            f"{type(scale).__name__}.")
        if scale <= 0:
            raise ValueError(f"For 'L1Regularizer', the 'scale' must be greater than 0, but got "
                             f"{scale}.")
        if math.isinf(scale) or math.isnan(scale):
            raise ValueError(f"For 'L1Regularizer', the 'scale' can not be INF or NAN, but got "
                             f"{scale}.")
        self.scale = Tensor(scale, float32)

    def construct(self, weights):
        return self.scale * ops.sum(ops.abs(weights))
