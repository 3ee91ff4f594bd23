"""``ms.UntypedStorage``: the bytes behind a tensor (``Tensor.untyped_storage()``)."""
from __future__ import annotations

import numpy as np

__all__ = ["UntypedStorage"]


class UntypedStorage:
    """The memory of a tensor as bytes: ``copy_`` writes through to the tensor, which
    keeps its own shape and dtype. ``resize_`` gives the storage a new byte buffer of the
    new size (its prefix kept), detached from the tensor, as MindSpore's CPU build leaves
    the tensor's values alone."""

    def __init__(self, array):
        if not isinstance(array, np.ndarray):
            raise TypeError("UntypedStorage is made by Tensor.untyped_storage().")
        self._array = array
        self._bytes = array.reshape(-1).view(np.uint8) if array.flags.c_contiguous \
            else np.ascontiguousarray(array).reshape(-1).view(np.uint8)

    def nbytes(self):
        return int(self._bytes.size)

    def size(self):
        return int(self._bytes.size)

    def element_size(self):
        return 1

    @property
    def dtype(self):
        from ._dtype import dtype_of
        return dtype_of(self._array.dtype)

    @property
    def device(self):
        return "CPU"

    def is_shared(self):
        return False

    def data_ptr(self):
        return int(self._bytes.ctypes.data)

    def copy_(self, src):
        """Copy ``src``'s bytes (an UntypedStorage of the same size) into this storage."""
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"For 'copy_', the source must be an UntypedStorage, but got "
                            f"{type(src).__name__}.")
        if src.nbytes() != self.nbytes():
            raise RuntimeError(f"For 'copy_', the storages must have one size, but got "
                               f"{self.nbytes()} and {src.nbytes()} bytes.")
        self._bytes[...] = src._bytes
        return self

    def resize_(self, nbytes):
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
            raise ValueError(f"For 'resize_', the size must be a non-negative int, but got "
                             f"{nbytes!r}.")
        if nbytes != self.nbytes():
            new = np.zeros(nbytes, np.uint8)
            keep = min(nbytes, self.nbytes())
            new[:keep] = self._bytes[:keep]
            self._bytes = new
        return self

    def __len__(self):
        return self.size()

    def __repr__(self):
        return f"UntypedStorage(nbytes={self.nbytes()}, device=CPU)"


def untyped_storage(self):
    """``Tensor.untyped_storage()``: the tensor's bytes."""
    return UntypedStorage(self._data)
