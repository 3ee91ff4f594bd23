"""Padding layers: Pad (MindSpore's pair-per-dimension form) and the ConstantPad,
ZeroPad2d, ReflectionPad and ReplicationPad families (PyTorch's last-dimension-first form,
as ``ops.pad`` takes it)."""
from __future__ import annotations

from ... import ops
from ...ops._array import mirror_pad
from ..cell import Cell

__all__ = ["Pad", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d"]


class Pad(Cell):
    """Pad with ``paddings`` ((before, after) for every dimension, first dimension first).

    Args:
        paddings (tuple): one (before, after) pair per input dimension (at most 4).
        mode (str): ``'CONSTANT'`` (zeros, default), ``'REFLECT'`` (mirror without the
            edge) or ``'SYMMETRIC'`` (mirror including the edge).
    """

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', the 'mode' must be str and must be in "
                             f"['CONSTANT', 'REFLECT', 'SYMMETRIC'], but got {mode}.")
        if not isinstance(paddings, tuple):
            raise TypeError(f"For 'Pad', the type of 'paddings' must be tuple, but got "
                            f"{type(paddings).__name__}.")
        if any(len(item) != 2 for item in paddings):
            raise ValueError(f"For 'Pad', the dimension of 'paddings' must be (n, 2), but got "
                             f"{paddings}.")
        if len(paddings) > 4:
            raise ValueError(f"For 'Pad', only 'paddings' up to 4 dims is supported, but got "
                             f"{len(paddings)}.")
        self.paddings = paddings
        self.mode = mode

    def construct(self, x):
        if self.mode == "CONSTANT":
            flat = tuple(v for before_after in reversed(self.paddings) for v in before_after)
            return ops.pad(x, flat)
        return mirror_pad(x, self.paddings, self.mode)


def _expand_int(padding, n_dims):
    """An int pads every side of the last ``n_dims`` dimensions."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding,) * (2 * n_dims)
    return padding


def _check_padding_tuple(owner, padding, max_len, exact=False):
    if not isinstance(padding, tuple):
        raise TypeError(f"For '{owner}', the type of parameter 'padding' must be in [int, tuple], "
                        f"but got {type(padding)}")
    if len(padding) % 2:
        raise ValueError(f"For '{owner}', the length of parameter 'padding' with tuple type must "
                         f"be a multiple of 2, but got {len(padding)}")
    if (exact and len(padding) != max_len) or len(padding) > max_len:
        raise ValueError(f"For '{owner}', the length of parameter 'padding' with tuple type must "
                         f"{'equal to' if exact else 'no more than'} {max_len}, but got "
                         f"{len(padding)}")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in padding):
        raise TypeError(f"For '{owner}', every element in 'padding' must be integer, but got "
                        f"{padding}.")
    return padding


class _PadNd(Cell):
    """``ops.pad(x, padding, mode)`` over the last ``_dims`` dimensions."""

    _dims = 1
    _mode = "constant"

    def __init__(self, padding, value=0):
        super().__init__()
        owner = type(self).__name__
        padding = _expand_int(padding, self._dims)
        self.padding = _check_padding_tuple(owner, padding, 2 * self._dims,
                                            exact=owner == "ConstantPad1d")
        if self._mode == "reflect" and any(v < 0 for v in self.padding):
            raise ValueError(f"For '{owner}' every element in 'padding' must be >= 0. but got "
                             f"{self.padding}. ")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{owner}', the type of parameter 'value' must be in [int, "
                            f"float], but got {type(value)}")
        self.value = value

    def construct(self, x):
        return ops.pad(x, self.padding, mode=self._mode, value=self.value)

    def extend_repr(self):
        return f"padding={self.padding}" + (f", value={self.value}" if self._mode == "constant"
                                            else "")


class ConstantPad1d(_PadNd):
    """Pad the last dimension with ``value``: ``padding`` int or (left, right)."""
    _dims = 1

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad2d(_PadNd):
    """Pad the last two dimensions with ``value``: ``padding`` int or up to
    (left, right, top, bottom)."""
    _dims = 2

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ConstantPad3d(_PadNd):
    """Pad the last three dimensions with ``value``: ``padding`` int or up to
    (left, right, top, bottom, front, back)."""
    _dims = 3

    def __init__(self, padding, value):
        super().__init__(padding, value)


class ZeroPad2d(_PadNd):
    """ConstantPad2d with zeros."""
    _dims = 2

    def __init__(self, padding):
        super().__init__(padding, 0)


class ReflectionPad1d(_PadNd):
    """Mirror-pad (without the edge) the last dimension."""
    _dims, _mode = 1, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad2d(_PadNd):
    """Mirror-pad (without the edge) the last two dimensions."""
    _dims, _mode = 2, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReflectionPad3d(_PadNd):
    """Mirror-pad (without the edge) the last three dimensions."""
    _dims, _mode = 3, "reflect"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad1d(_PadNd):
    """Repeat the edge values of the last dimension."""
    _dims, _mode = 1, "replicate"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad2d(_PadNd):
    """Repeat the edge values of the last two dimensions."""
    _dims, _mode = 2, "replicate"

    def __init__(self, padding):
        super().__init__(padding)


class ReplicationPad3d(_PadNd):
    """Repeat the edge values of the last three dimensions."""
    _dims, _mode = 3, "replicate"

    def __init__(self, padding):
        super().__init__(padding)
