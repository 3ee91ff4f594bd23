"""Tensor indexing: Python index expressions -> a static spec plus index tensors.

Ints, slices, None, Ellipsis and Python bools are static (part of the spec);
Tensors, lists and NumPy arrays are dynamic index inputs, so a compiled graph
indexes with runtime values.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._prims.array import getitem_p, setitem_p, index_put_p


def _int(v):
    if isinstance(v, P._Tensor):
        return int(v.item())
    return None if v is None else int(v)


def normalize_index(index):
    """-> (spec, index tensors)."""
    if not isinstance(index, tuple):
        index = (index,)
    spec, tensors = [], []
    for e in index:
        if e is None:
            spec.append(("none",))
        elif e is Ellipsis:
            spec.append(("ellipsis",))
        elif isinstance(e, bool):
            spec.append(("const", e))
        elif isinstance(e, (int, np.integer)):
            spec.append(("int", int(e)))
        elif isinstance(e, slice):
            spec.append(("slice", _int(e.start), _int(e.stop), _int(e.step)))
        elif isinstance(e, P._Tensor):
            spec.append(("tensor", len(tensors)))
            tensors.append(e)
        elif isinstance(e, (list, tuple, np.ndarray)):
            arr = np.asarray(e)
            if arr.dtype.kind not in "biu":
                if arr.size == 0:
                    arr = arr.astype(np.int64)
                else:
                    raise IndexError(f"Tensor indices must be integers or bools, but got a "
                                     f"{type(e).__name__} of {arr.dtype}.")
            spec.append(("tensor", len(tensors)))
            tensors.append(P.wrap(arr))
        else:
            raise IndexError(f"Invalid tensor index of type {type(e).__name__}: only integers, "
                             "slices, None, Ellipsis, bools and integer/bool tensors are valid.")
    return tuple(spec), tensors


def getitem(x, index):
    spec, tensors = normalize_index(index)
    return getitem_p(x, *tensors, spec=spec)


def setitem(x, index, value):
    """In-place ``x[index] = value`` (truly in place: views of ``x`` see it)."""
    spec, tensors = normalize_index(index)
    if isinstance(value, (list, tuple)):
        value = P._Tensor(value)
    elif isinstance(value, np.ndarray):
        value = P._Tensor(value)
    setitem_p(x, value, *tensors, spec=spec)


def index_put(x, index, value):
    """Out-of-place ``x[index] = value`` (returns a new tensor)."""
    spec, tensors = normalize_index(index)
    return index_put_p(x, value, *tensors, spec=spec)
