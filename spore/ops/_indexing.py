"""Tensor indexing: Python index expressions -> a static spec plus index tensors.

Ints, slices, None, Ellipsis and Python bools are static (part of the spec);
Tensors, lists and NumPy arrays are dynamic index inputs, so a compiled graph
indexes with runtime values. Semantics are NumPy's (which MindSpore follows):
basic indexing gives a view, advanced indexing a copy.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._prims.array import getitem_p, setitem_p, index_put_p

_SUPPORTED = ("Only support integers, slices(`:`), ellipsis(`...`), None, bool, tensor, int, "
              "list and tuple as index")


def _int(v):
    if isinstance(v, P._Tensor):
        return int(v.item())
    return None if v is None else int(v)


def _tensor_entry(e):
    if e._data.dtype.kind not in "biu":
        raise _bad_index(f"The tensor index must be int or bool type, but got {e.dtype}.")
    return e


def _sequence_entry(e):
    if isinstance(e, (list, tuple)) and len(e) == 0:
        raise _bad_index("When tensor is indexed by list, the list can't be empty.")
    arr = np.asarray(e)
    if arr.dtype.kind not in "biu":
        raise _bad_index(f"The tensor index must be int or bool type, but got a "
                         f"{type(e).__name__} of {arr.dtype}.")
    return P.wrap(arr)


def _is_index_part(e):
    """Whether a list element only makes sense as one entry of a multi-dimensional index."""
    return e is None or e is Ellipsis or isinstance(e, (slice, list, tuple, P._Tensor))


def normalize_index(index):
    """-> (spec, index tensors)."""
    if type(index) is int:
        return (("int", index),), []
    if isinstance(index, list) and any(_is_index_part(e) for e in index):
        index = tuple(index)    # as MindSpore (and NumPy before 1.23) read such lists
    if not isinstance(index, tuple):
        index = (index,)
    spec, tensors = [], []
    ellipses = 0
    for e in index:
        if e is None:
            spec.append(("none",))
        elif e is Ellipsis:
            ellipses += 1
            if ellipses > 1:
                raise _bad_index("An index can only have a single ellipsis('...')")
            spec.append(("ellipsis",))
        elif isinstance(e, (bool, np.bool_)):
            if not e:
                raise _bad_index("When tensor is indexed by a bool object, the value only "
                                 "support 'True'.")
            spec.append(("const", True))
        elif isinstance(e, (int, np.integer)):
            spec.append(("int", int(e)))
        elif isinstance(e, slice):
            spec.append(("slice", _int(e.start), _int(e.stop), _int(e.step)))
        elif isinstance(e, P._Tensor):
            spec.append(("tensor", len(tensors)))
            tensors.append(_tensor_entry(e))
        elif isinstance(e, (list, tuple, np.ndarray)):
            spec.append(("tensor", len(tensors)))
            tensors.append(_sequence_entry(e))
        else:
            raise _bad_index(f"{_SUPPORTED}, but got {e!r} with type {type(e)}")
    return tuple(spec), tensors


def _bad_index(message):
    """MindSpore's indexing message, prefixed with the op the user called (``getitem``,
    ``Tensor.__setitem__``, ...)."""
    from ._utils import calling_op
    return IndexError(f"For '{calling_op()[0]}', {message}")


def getitem(x, index):
    """``x[index]``: a view for basic indexing, a copy for advanced indexing."""
    spec, tensors = normalize_index(index)
    return getitem_p(x, *tensors, spec=spec)


def _value(value):
    if isinstance(value, (list, tuple, np.ndarray)):
        return P._Tensor(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def setitem(x, index, value):
    """In-place ``x[index] = value`` (truly in place: views of ``x`` see it). The value is
    converted to ``x``'s dtype (1.7 into an Int32 tensor stores 1)."""
    spec, tensors = normalize_index(index)
    setitem_p(x, _value(value), *tensors, spec=spec)


def index_put(x, index, value):
    """Out-of-place ``x[index] = value`` (returns a new tensor)."""
    spec, tensors = normalize_index(index)
    return index_put_p(x, _value(value), *tensors, spec=spec)
