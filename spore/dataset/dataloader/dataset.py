"""Map-style (``__getitem__`` + ``__len__``) and iterable datasets."""
from __future__ import annotations

from ..._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")


class IterableDataset(Dataset):
    """A dataset read by iterating it: subclasses define ``__iter__``. With worker
    processes every worker iterates its own copy (split the work with
    ``get_worker_info()``)."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class TensorDataset(Dataset):
    """Rows of tensors of one first dimension: item ``i`` is ``(t[i] for t in tensors)``."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("For 'TensorDataset', give at least one tensor.")
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"For 'TensorDataset', the inputs must be Tensors, but got "
                                f"{type(t).__name__}.")
        if len({t.shape[0] for t in tensors}) != 1:
            raise ValueError("For 'TensorDataset', the tensors must have the same first "
                             f"dimension, but got {[t.shape[0] for t in tensors]}.")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]
