"""Value-dependent primitives of issue #17's second half of ``mindspore.ops`` (ListDiff,
RaggedRange, SparseSlice, SubAndFilter): integer bookkeeping whose output sizes depend on
the input values, so no gradient flows and the shape rule knows the sizes only for concrete
inputs (-1 under graph capture).

``_value_primitive`` builds each from one NumPy function that computes every output; the
shape rule calls it on concrete inputs, so rule and kernel cannot disagree.
"""
from __future__ import annotations

import numpy as np

from .._core.aval import ShapedArray, is_scalar
from .._core.primitive import Primitive


def _concrete(x):
    return not isinstance(x, ShapedArray) and not is_scalar(x)


def _value_primitive(name, compute, symbolic):
    """A nondiff primitive whose kernel is ``compute(*arrays, **attrs) -> tuple of arrays``;
    its shape rule runs ``compute`` on concrete inputs, else ``symbolic(attrs, *avals)``."""
    def make(xp):
        def kernel(*xs, **attrs):
            return compute(*(np.asarray(x) for x in xs), **attrs)
        return kernel

    def infer(attrs, *xs):
        if all(_concrete(x) for x in xs):
            return tuple(ShapedArray(o.shape, o.dtype) for o in compute(*xs, **attrs))
        return symbolic(attrs, *xs)
    return Primitive(name, make, kind="opaque", multiple_results=True, nondiff=True,
                     infer=infer)


# ----------------------------------------------------------------- ListDiff
def _list_diff(x, y, *, out_idx):
    keep = ~np.isin(x, y)
    return x[keep], np.flatnonzero(keep).astype(out_idx)


list_diff_p = _value_primitive(
    "ListDiff", _list_diff,
    lambda attrs, x, y: (ShapedArray((-1,), x.dtype), ShapedArray((-1,), attrs["out_idx"])))


# ----------------------------------------------------------------- RaggedRange
def _ragged_range(starts, limits, deltas, *, splits_dtype):
    starts, limits, deltas = np.broadcast_arrays(starts, limits, deltas)
    if np.any(deltas == 0):
        raise ValueError("For 'RaggedRange', the 'deltas' must not contain 0.")
    rows = [np.arange(s, l, d, dtype=starts.dtype)
            for s, l, d in zip(starts.ravel(), limits.ravel(), deltas.ravel())]
    splits = np.zeros(len(rows) + 1, splits_dtype)
    np.cumsum([len(r) for r in rows], out=splits[1:])
    values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype)
    return splits, values.astype(starts.dtype)


ragged_range_p = _value_primitive(
    "RaggedRange", _ragged_range,
    lambda attrs, s, l, d: (ShapedArray((-1,), attrs["splits_dtype"]),
                            ShapedArray((-1,), s.dtype)))


# ----------------------------------------------------------------- SparseSlice
def _sparse_slice(indices, values, shape, start, size):
    end = np.minimum(start + size, shape)
    inside = np.all((indices >= start) & (indices < end), axis=1)
    return ((indices[inside] - start).astype(indices.dtype), values[inside],
            np.maximum(end - start, 0).astype(shape.dtype))


sparse_slice_p = _value_primitive(
    "SparseSlice", _sparse_slice,
    lambda attrs, i, v, sh, st, sz: (ShapedArray((-1, i.shape[1]), i.dtype),
                                     ShapedArray((-1,), v.dtype), ShapedArray(sh.shape, sh.dtype)))


# ----------------------------------------------------------------- SubAndFilter
def _sub_and_filter(x, *, max_num, offset):
    shifted = x - np.asarray(offset, x.dtype)
    keep = (shifted >= 0) & (shifted < max_num)
    return shifted[keep], np.flatnonzero(keep).astype(x.dtype)


sub_and_filter_p = _value_primitive(
    "SubAndFilter", _sub_and_filter,
    lambda attrs, x: (ShapedArray((-1,), x.dtype), ShapedArray((-1,), x.dtype)))
