"""Abstract values: what shape/dtype rules and graph capture see of a tensor.

Anything with ``.shape`` and ``.dtype`` (a NumPy dtype) is an abstract value, so a
concrete NumPy array can be passed wherever an aval is expected. Python scalars
are *weak* inputs: shape ``()``, dtype decided by promotion.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D

_SCALARS = (bool, int, float, complex)


class ShapedArray:
    """Shape and dtype of a value, without data."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __eq__(self, other):
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def __repr__(self):
        return f"{D.dtype_of(self.dtype)}{list(self.shape)}"


class Placeholder(ShapedArray):
    """The data of ``Tensor(shape=[None, 3], dtype=...)``: a shape whose unknown axes are
    -1, and no values. It declares the inputs a Cell accepts (``Cell.set_inputs``);
    reading it fails as MindSpore's does."""

    __slots__ = ("symbols",)

    def __init__(self, shape, dtype, symbols=None):
        super().__init__(shape, dtype)
        self.symbols = symbols            # a Symbol or None per axis (``ms.Symbol``)

    def __array__(self, *args, **kwargs):
        raise ValueError("negative dimensions are not allowed")

    def refuse_host_read(self, what, hint=None):
        raise ValueError("negative dimensions are not allowed")


def conforms(declared, shape):
    """Whether ``shape`` fits a declared input shape: ``(-2,)`` any rank, -1 any size."""
    declared, shape = tuple(declared), tuple(shape)
    return declared == (-2,) or (len(declared) == len(shape) and all(
        d == -1 or d == n for d, n in zip(declared, shape)))


def aval_of(x):
    """ShapedArray of an array-like input (array, aval or scalar)."""
    if isinstance(x, _SCALARS):
        return ShapedArray((), D.result_type(x).np)
    return ShapedArray(x.shape, x.dtype)


def shape_of(x):
    return () if isinstance(x, _SCALARS) else tuple(x.shape)


def is_scalar(x):
    return isinstance(x, _SCALARS)
