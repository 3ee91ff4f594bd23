"""General transforms (``mindspore.dataset.transforms``): type casts, one-hot, padding,
composition and random application."""
from __future__ import annotations

import enum
import numbers
import operator

import numpy as np

from ... import _dtype as D
from .base import TensorOperation, UnaryOperation, check_operations, run_operation


def _np_dtype(op, data_type):
    try:
        return D.to_numpy_dtype(data_type)
    except (TypeError, ValueError, KeyError) as exc:
        raise TypeError(f"For '{op}', 'data_type' must be a MindSpore or NumPy dtype, but got "
                        f"{data_type!r} ({exc}).") from None


class TypeCast(UnaryOperation):
    """Cast to ``data_type`` (``ms.int32``, ``np.float16``, ``'float32'``...)."""

    def __init__(self, data_type):
        self.data_type = _np_dtype("TypeCast", data_type)

    def _apply(self, array, rand):
        return array.astype(self.data_type)


class OneHot(UnaryOperation):
    """One-hot vectors of integer labels (last axis ``num_classes``); with
    ``smoothing_rate`` s: ``1 - s + s/n`` for the label, ``s/n`` elsewhere (float64)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"For 'OneHot', 'num_classes' must be a positive int, but got "
                             f"{num_classes!r}.")
        if not isinstance(smoothing_rate, numbers.Real) or not 0 <= smoothing_rate <= 1:
            raise ValueError(f"For 'OneHot', 'smoothing_rate' must be in [0, 1], but got "
                             f"{smoothing_rate!r}.")
        self.num_classes, self.smoothing_rate = num_classes, float(smoothing_rate)

    def _apply(self, array, rand):
        if array.dtype.kind not in "iu":
            raise self._error(f"the input must hold integer labels, but got {array.dtype}.",
                              TypeError)
        if array.size and (array.min() < 0 or array.max() >= self.num_classes):
            raise self._error(f"labels must be in [0, {self.num_classes}), but got values "
                              f"from {array.min()} to {array.max()}.")
        hot = np.arange(self.num_classes) == array[..., None]
        if self.smoothing_rate:
            off = self.smoothing_rate / self.num_classes
            return np.where(hot, 1.0 - self.smoothing_rate + off, off)
        return hot.astype(array.dtype)


class Fill(UnaryOperation):
    """An array of the input's shape and dtype filled with ``fill_value``."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (numbers.Number, str, bytes, np.generic)):
            raise TypeError(f"For 'Fill', 'fill_value' must be a number or string, but got "
                            f"{type(fill_value).__name__}.")
        self.fill_value = fill_value

    def _apply(self, array, rand):
        return np.full(array.shape, self.fill_value).astype(array.dtype)


class Duplicate(TensorOperation):
    """Two outputs: the input and a copy of it."""

    def _run(self, arrays, rand):
        if len(arrays) != 1:
            raise self._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
        return (arrays[0], arrays[0].copy())


class Concatenate(UnaryOperation):
    """``prepend``, the input, ``append`` joined along the (only) axis of 1-D arrays."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError(f"For 'Concatenate', 'axis' must be 0 or -1, but got {axis!r}.")
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def _apply(self, array, rand):
        parts = [p for p in (self.prepend, array, self.append) if p is not None]
        if any(p.ndim != 1 for p in parts):
            raise self._error("only 1-D arrays can be concatenated.")
        if len({p.dtype.kind for p in parts}) > 1:
            raise self._error(f"prepend/append must have the input's type, but got "
                              f"{[str(p.dtype) for p in parts]}.", TypeError)
        return np.concatenate(parts).astype(array.dtype)


class Relational(enum.IntEnum):
    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_RELATIONS = {Relational.EQ: operator.eq, Relational.NE: operator.ne,
              Relational.GT: operator.gt, Relational.GE: operator.ge,
              Relational.LT: operator.lt, Relational.LE: operator.le}


class Mask(UnaryOperation):
    """``input <operator> constant`` elementwise, as ``dtype`` (bool by default)."""

    def __init__(self, operator, constant, dtype=D.bool_):
        if not isinstance(operator, Relational):
            raise TypeError(f"For 'Mask', 'operator' must be a Relational, but got "
                            f"{operator!r}.")
        self.relation, self.constant = _RELATIONS[operator], constant
        self.dtype = _np_dtype("Mask", dtype)

    def _apply(self, array, rand):
        return self.relation(array, self.constant).astype(self.dtype)


class PadEnd(UnaryOperation):
    """Pad at the end of each axis (or cut) to ``pad_shape`` with ``pad_value``."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, (list, tuple)) or \
                not all(isinstance(s, int) and s >= 0 for s in pad_shape):
            raise TypeError(f"For 'PadEnd', 'pad_shape' must be a list of non-negative int, "
                            f"but got {pad_shape!r}.")
        self.pad_shape, self.pad_value = list(pad_shape), pad_value

    def _apply(self, array, rand):
        if array.ndim != len(self.pad_shape):
            raise self._error(f"pad_shape {self.pad_shape} must have the input's rank "
                              f"{array.ndim}.")
        value = self.pad_value
        if value is None:
            value = "" if array.dtype.kind in "US" else 0
        cut = array[tuple(slice(0, s) for s in self.pad_shape)]
        out = np.full(self.pad_shape, value, dtype=np.result_type(array.dtype, np.asarray(value))
                      if array.dtype.kind in "US" else array.dtype)
        out[tuple(slice(0, s) for s in cut.shape)] = cut
        return out


class Slice(UnaryOperation):
    """Index the input with ``slices`` (one per axis: int, slice, list, None or Ellipsis)."""

    def __init__(self, *slices):
        self.slices = tuple(slices)

    def _apply(self, array, rand):
        index = tuple(list(s) if isinstance(s, (list, tuple)) else s for s in self.slices)
        return np.array(array[index])


class Compose(TensorOperation):
    """The transforms applied in order (each may be a Python callable)."""

    def __init__(self, transforms):
        self.transforms = check_operations("Compose", transforms)
        self.random = any(getattr(t, "random", False) for t in self.transforms)

    def _run(self, arrays, rand):
        for t in self.transforms:
            arrays = run_operation(t, arrays, rand)
        return arrays


class RandomApply(TensorOperation):
    """With probability ``prob``, all the transforms in order; otherwise none."""

    random = True

    def __init__(self, transforms, prob=0.5):
        self.transforms = check_operations("RandomApply", transforms)
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError(f"For 'RandomApply', 'prob' must be in [0, 1], but got {prob!r}.")
        self.prob = float(prob)

    def _run(self, arrays, rand):
        if rand.generator.random() < self.prob:
            for t in self.transforms:
                arrays = run_operation(t, arrays, rand)
        return arrays


class RandomChoice(TensorOperation):
    """One of the transforms, chosen uniformly."""

    random = True

    def __init__(self, transforms):
        self.transforms = check_operations("RandomChoice", transforms)

    def _run(self, arrays, rand):
        chosen = self.transforms[int(rand.generator.integers(len(self.transforms)))]
        return run_operation(chosen, arrays, rand)


class RandomOrder(TensorOperation):
    """All the transforms, in a random order."""

    random = True

    def __init__(self, transforms):
        self.transforms = check_operations("RandomOrder", transforms)

    def _run(self, arrays, rand):
        for i in rand.generator.permutation(len(self.transforms)):
            arrays = run_operation(self.transforms[i], arrays, rand)
        return arrays


class Unique(TensorOperation):
    """The distinct values of an array (at least 2-D, flattened, as MindSpore requires) in
    order of first appearance, each element's index into them (int32) and their counts
    (int32): three output columns."""

    def _run(self, arrays, rand):
        if len(arrays) != 1:
            raise self._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
        array = arrays[0]
        if array.ndim < 2:
            raise self._error(f"input must be at least 2-D in order to do unique op, got rank: "
                              f"{array.ndim}.", RuntimeError)
        flat = array.reshape(-1)
        values, first, inverse, counts = np.unique(flat, return_index=True,
                                                   return_inverse=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32))


def not_random(function):
    """Mark a Python function as deterministic (``function.random = False``), as MindSpore
    does so a cache may keep its results; returns the function."""
    if not callable(function):
        raise TypeError(f"not_random: the argument must be callable, but got "
                        f"{type(function).__name__}.")
    function.random = False
    return function


class Implementation(enum.IntEnum):
    """Which implementation a MindSpore transform runs (C++ or Python); Spore's transforms
    are all NumPy, so this only names the choice."""
    C = 0
    PY = 1
