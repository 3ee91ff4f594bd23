"""Primitive classes that forward to existing functional ops, with MindSpore's attributes:
FastGelu, PReLU, Bucketize, Histogram, UnravelIndex, DiagPart, SegmentSum/Max/Min/Mean/Prod,
AdaptiveAvgPool2D, AdaptiveMaxPool2D, MatrixTriangularSolve, ScalarToTensor, TupleToArray,
ScalarCast, Padding, FillDiagonal and MultiMarginLoss."""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .._extra import _tensor
from . import Primitive, _forward, _ops

__all__ = []

for _cls, _op in {"FastGelu": "fast_gelu", "PReLU": "prelu", "ScalarToTensor":
                  "scalar_to_tensor", "ScalarCast": "scalar_cast"}.items():
    globals()[_cls] = _forward(_cls, _op)
    __all__.append(_cls)
del _cls, _op


def _export(cls):
    __all__.append(cls.__name__)
    return cls


@_export
class Bucketize(Primitive):
    """The bucket of each value: the number of ``boundaries`` at most equal to it
    (``boundaries[i-1] <= x < boundaries[i]``; the functional ``ops.bucketize`` counts the
    boundaries below it)."""

    def __init__(self, boundaries):
        super().__init__()
        self.boundaries = boundaries

    def __call__(self, input):
        return _ops().bucketize(input, self.boundaries, right=True)


@_export
class Histogram(Primitive):
    """``ops.histc(x, bins, min, max)``."""

    def __init__(self, bins=100, min=0.0, max=0.0):
        super().__init__()
        self.bins, self.min, self.max = bins, min, max

    def __call__(self, x):
        return _ops().histc(x, self.bins, self.min, self.max)


@_export
class UnravelIndex(Primitive):
    """The coordinates of the flat ``indices`` in an array of shape ``dims``: one row per
    dimension (``(len(dims), N)``, the dtype of ``indices``)."""

    def __call__(self, indices, dims):
        ops = _ops()
        idx = _tensor("UnravelIndex", "indices", indices)
        shape = _tensor("UnravelIndex", "dims", dims)
        if idx.dtype not in (D.int32, D.int64) or shape.dtype not in (D.int32, D.int64):
            raise TypeError("For 'UnravelIndex', 'indices' and 'dims' must be Int32 or Int64.")
        sizes = [int(v) for v in shape.asnumpy().reshape(-1)]
        if min(sizes, default=1) < 1:
            raise ValueError(f"For 'UnravelIndex', the 'dims' must be positive, but got "
                             f"{sizes}.")
        flat = idx.reshape(-1).astype(D.int64)
        total = math.prod(sizes)
        if bool(((flat < 0) | (flat >= total)).any().asnumpy()):
            raise ValueError(f"For 'UnravelIndex', the indices must be in [0, {total}).")
        rows = []
        for n in reversed(sizes):
            rows.append(ops.remainder(flat, n))
            flat = ops.floor_divide(flat, n)
        return ops.stack(rows[::-1], 0).astype(idx.dtype)


@_export
class DiagPart(Primitive):
    """The diagonal of a (d1, ..., dk, d1, ..., dk) tensor, of shape (d1, ..., dk)."""

    def __call__(self, input_x):
        x = _tensor("DiagPart", "input_x", input_x)
        k = x.ndim // 2
        if x.ndim % 2 or x.ndim == 0 or tuple(x.shape[:k]) != tuple(x.shape[k:]):
            raise ValueError(f"For 'DiagPart', the input must have shape (d1, ..., dk, d1, "
                             f"..., dk), but got {list(x.shape)}.")
        n = math.prod(x.shape[:k])
        return _ops().diagonal(x.reshape((n, n)), 0, 0, 1).reshape(tuple(x.shape[:k]))


class _Segment(Primitive):
    """Reduction of the rows of ``input_x`` by the sorted ``segment_ids``; segments with no
    row give 0 (1 for the product)."""
    kind = None

    def __call__(self, input_x, segment_ids):
        ops = _ops()
        name = type(self).__name__
        x = _tensor(name, "input_x", input_x)
        ids = _tensor(name, "segment_ids", segment_ids)
        if ids.dtype not in (D.int32, D.int64) or ids.ndim != 1 or x.ndim < 1 \
                or ids.shape[0] != x.shape[0]:
            raise ValueError(f"For '{name}', the 'segment_ids' must be a 1-D integer tensor of "
                             f"length {x.shape[0] if x.ndim else 0}, but got {ids.dtype} of "
                             f"shape {list(ids.shape)}.")
        values = ids.asnumpy()
        if values.size and (values.min() < 0 or np.any(np.diff(values) < 0)):
            raise ValueError(f"For '{name}', the 'segment_ids' must be sorted and "
                             f"non-negative.")
        n = int(values[-1]) + 1 if values.size else 0
        counts = ops.unsorted_segment_sum(ops.ones((x.shape[0],), x.dtype), ids, n)
        present = (counts > 0).reshape((n,) + (1,) * (x.ndim - 1))
        if self.kind == "sum":
            return ops.unsorted_segment_sum(x, ids, n)
        if self.kind == "mean":
            total = ops.unsorted_segment_sum(x, ids, n)
            safe = ops.maximum(counts, 1).reshape((n,) + (1,) * (x.ndim - 1))
            return total / safe
        reduce = getattr(ops, f"unsorted_segment_{self.kind}")
        out = reduce(x, ids, n)
        empty = ops.full_like(out, 1 if self.kind == "prod" else 0)
        return ops.where(present, out, empty)


for _kind in ("sum", "max", "min", "mean", "prod"):
    _name = f"Segment{_kind.capitalize()}"
    globals()[_name] = type(_name, (_Segment,), {"kind": _kind,
                                                 "__doc__": f"Segment {_kind} by sorted ids."})
    __all__.append(_name)
del _kind, _name


@_export
class AdaptiveAvgPool2D(Primitive):
    """``ops.adaptive_avg_pool2d(x, output_size)``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return _ops().adaptive_avg_pool2d(x, self.output_size)


@_export
class AdaptiveMaxPool2D(Primitive):
    """``(output, argmax)`` of ``ops.adaptive_max_pool2d(x, output_size)``."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def __call__(self, x):
        return _ops().adaptive_max_pool2d(x, self.output_size, True)


@_export
class MatrixTriangularSolve(Primitive):
    """X with T X = rhs for the lower (or upper) triangle T of ``matrix`` (T^H with
    ``adjoint``)."""

    def __init__(self, lower=True, adjoint=False):
        super().__init__()
        self.lower, self.adjoint = bool(lower), bool(adjoint)

    def __call__(self, matrix, rhs):
        ops = _ops()
        a = _tensor("MatrixTriangularSolve", "matrix", matrix)
        t = ops.tril(a) if self.lower else ops.triu(a)
        return ops.matrix_solve(t, rhs, self.adjoint)


@_export
class TupleToArray(Primitive):
    """A 1-D tensor from a tuple of numbers of one type (ints Int32, floats Float32)."""

    def __call__(self, input_x):
        if not isinstance(input_x, (tuple, list)) or not input_x:
            raise TypeError("For 'TupleToArray', the 'input_x' must be a non-empty tuple.")
        kinds = {type(v) for v in input_x}
        if len(kinds) != 1 or kinds.pop() not in (int, float, bool):
            raise TypeError("For 'TupleToArray', all elements of 'input_x' must be have same "
                            "type.")
        first = input_x[0]
        dtype = D.bool_ if isinstance(first, bool) else (
            D.int32 if isinstance(first, int) else D.float32)
        return Tensor(list(input_x), dtype)


@_export
class Padding(Primitive):
    """``ops.padding(x, pad_dim_size)``."""

    def __init__(self, pad_dim_size=8):
        super().__init__()
        self.pad_dim_size = pad_dim_size

    def __call__(self, x):
        return _ops().padding(x, self.pad_dim_size)


@_export
class FillDiagonal(Primitive):
    """A copy of a matrix with its main diagonal set to ``fill_value`` (restarting every
    columns + 1 rows of a tall matrix when ``wrap``)."""

    def __init__(self, fill_value, wrap=False):
        super().__init__()
        self.fill_value, self.wrap = float(fill_value), bool(wrap)

    def __call__(self, input_x):
        x = _tensor("FillDiagonal", "input_x", input_x)
        if x.ndim < 2:
            raise ValueError(f"For 'FillDiagonal', the input must be at least 2-D, but got "
                             f"{x.ndim}-D.")
        return x.clone().fill_diagonal_(self.fill_value, self.wrap)


@_export
class MultiMarginLoss(Primitive):
    """``ops.multi_margin_loss(x, target, p, margin, weight, reduction)``."""

    def __init__(self, p=1, margin=1.0, reduction="mean"):
        super().__init__()
        self.p, self.margin, self.reduction = p, margin, reduction

    def __call__(self, x, target, weight=None):
        return _ops().multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)
