"""Rows: tuples of column values, one per column, plus the pipeline's error messages.

A column value is a NumPy array or a Python ``dict``. Every value entering the
pipeline from user code (a source row, a map or per_batch_map result) goes
through ``to_value``: Python ``int`` becomes int64, ``float`` float64, ``str`` a
NumPy unicode array, as in MindSpore; a dict is MindSpore's "Python object"
column value: it travels through the pipeline untouched (a reference, whatever
it holds) and only the iterators convert what it holds (``to_output``).
"""
from __future__ import annotations

import traceback

import numpy as np

from ..._tensor import Tensor

_SCALARS = (int, float, bool, complex, str, bytes, np.ndarray, np.generic, Tensor)

USER_ERROR = "Exception thrown from user defined Python function in dataset."
PIPELINE_ERROR = "Exception thrown from dataset pipeline."


def to_array(value, copy=False):
    """One column value as a NumPy array (``copy`` detaches it from user-owned memory)."""
    if isinstance(value, Tensor):
        arr = value.asnumpy()
        return arr.copy() if copy else arr
    if isinstance(value, dict):
        raise TypeError("a dict column value cannot be used as an array here")
    try:
        arr = np.array(value, copy=True) if copy else np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"a column value could not become an array (ragged nested lists?): "
                         f"{exc}") from None
    if arr.dtype == object:
        raise TypeError("a column value must be an array, Tensor, number or string (or a "
                        f"non-ragged list of them), but got {type(value).__name__} that "
                        "converts to an object array")
    return arr


def to_value(value, copy=False):
    """One column value: a dict as it is (a Python-object column), anything else an array."""
    if isinstance(value, dict):
        return value
    return to_array(value, copy)


def to_output(value, numpy, copy=False):
    """What an iterator hands out for a value held in a dict column (MindSpore's rules):
    numbers, strings and arrays become NumPy arrays (Tensors unless ``numpy``; strings stay
    NumPy), dicts, lists and tuples are converted item by item, anything else is returned
    as it is."""
    if isinstance(value, (bool, int, float, str, bytes, np.ndarray, np.generic)):
        arr = np.array(value, copy=True) if copy else np.asarray(value)
        if numpy or arr.dtype.kind in "USO":
            return arr
        return Tensor(arr)
    if isinstance(value, dict):
        return {k: to_output(v, numpy, copy) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_output(v, numpy, copy) for v in value)
    return value


def value_shape(value):
    """``output_shapes`` of one column value (MindSpore reports [0] for a dict)."""
    return [0] if isinstance(value, dict) else list(value.shape)


def value_dtype(value):
    """``output_types`` of one column value (object for a dict, as MindSpore)."""
    return np.dtype(object) if isinstance(value, dict) else value.dtype


def to_row(value, copy=False):
    """A user's row (one value, or a tuple/list with one value per column) as a tuple."""
    if isinstance(value, _SCALARS):
        return (to_array(value, copy),)
    if isinstance(value, dict):
        return (value,)  # a dict is one column's value, never a row of its keys
    try:
        items = tuple(value)
    except TypeError:
        raise TypeError(f"a row must be an array, Tensor, number, string or a tuple of them, "
                        f"but got {type(value).__name__}") from None
    return tuple(_column_value(k, v, copy) for k, v in enumerate(items))


def _column_value(index, value, copy):
    try:
        return to_value(value, copy)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"column {index}: {exc}") from None


def check_width(row, names, who):
    if len(row) != len(names):
        raise RuntimeError(
            f"{USER_ERROR}\n{who} returned {len(row)} column(s) but column_names has "
            f"{len(names)} ({names}); each row must have one value per column name.")
    return row


def call_user(what, fn, *args):
    """``fn(*args)``; a failure becomes a RuntimeError naming ``what`` (op, source, row)
    and carrying the original traceback as text (it survives the trip from a worker)."""
    try:
        return fn(*args)
    except RuntimeError as exc:
        if str(exc).startswith((USER_ERROR, PIPELINE_ERROR)):
            raise  # already names the failing op and row
        raise user_error(what, exc) from exc
    except Exception as exc:
        raise user_error(what, exc) from exc


def user_error(what, exc):
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return RuntimeError(f"{USER_ERROR}\n{what} raised {type(exc).__name__}: {exc}\n\n"
                        f"Python call stack of the failure:\n{text}")


def pipeline_error(message):
    return RuntimeError(f"{PIPELINE_ERROR}\n{message}")
