"""Collation: a list of samples into one batch, element type by element type."""
from __future__ import annotations

import collections.abc
import numbers

import numpy as np

from ..._tensor import Tensor

__all__ = ["default_collate", "default_convert"]


def default_collate(batch):
    """Stack a list of samples: tensors and arrays along a new first axis, numbers into
    a tensor (int64 / float64 / bool), strings and bytes kept as a list; tuples, lists,
    named tuples and mappings field by field."""
    if not isinstance(batch, (list, tuple)) or not batch:
        raise TypeError(f"default_collate: the batch must be a non-empty list, but got "
                        f"{batch!r}.")
    first = batch[0]
    if isinstance(first, Tensor):
        from ... import ops
        return ops.stack(list(batch))
    if isinstance(first, np.ndarray):
        if first.dtype.kind in "SUO":
            raise TypeError(f"default_collate: arrays of dtype {first.dtype} cannot be "
                            "batched.")
        return Tensor(np.stack(batch))
    if isinstance(first, np.generic):
        return Tensor(np.array(batch))
    if isinstance(first, bool):
        return Tensor(np.array(batch, np.bool_))
    if isinstance(first, numbers.Integral):
        return Tensor(np.array(batch, np.int64))
    if isinstance(first, numbers.Real):
        return Tensor(np.array(batch, np.float64))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, collections.abc.Mapping):
        return type(first)({k: default_collate([b[k] for b in batch]) for k in first}) \
            if type(first) is not dict else {k: default_collate([b[k] for b in batch])
                                             for k in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(list(f)) for f in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if len({len(b) for b in batch}) != 1:
            raise RuntimeError("default_collate: each element of the batch must be of equal "
                               "size.")
        return [default_collate(list(f)) for f in zip(*batch)]
    raise TypeError(f"default_collate: batch elements must be tensors, arrays, numbers, "
                    f"strings, mappings or sequences, but got {type(first).__name__}.")


def default_convert(data):
    """One sample as the DataLoader hands it without batching: arrays (not of strings)
    become tensors, containers are converted element by element, anything else stays."""
    if isinstance(data, np.ndarray):
        return data if data.dtype.kind in "SUO" else Tensor(data)
    if isinstance(data, (Tensor, str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data
