"""Exchanging tensors with other libraries: DLPack and raw buffers (``ms.from_dlpack``,
``ms.to_dlpack``, ``ms.frombuffer``). Spore's tensors live in host memory, so DLPack
exchange shares that memory with the other side, as MindSpore's does on one device."""
from __future__ import annotations

import numpy as np

from ._dtype import dtype_to_nptype
from ._tensor import Tensor


class _Capsule:
    """A DLPack capsule presented as an object with ``__dlpack__``, which is what NumPy's
    importer takes."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)                         # kDLCPU, device 0


def from_dlpack(dlpack):
    """A Tensor sharing the memory of ``dlpack``: a capsule from ``to_dlpack`` (or another
    library's), or any object with ``__dlpack__`` (a NumPy array, a PyTorch CPU tensor)."""
    source = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    try:
        array = np.from_dlpack(source)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise TypeError(f"For 'from_dlpack', the input must be a DLPack capsule or an object "
                        f"with '__dlpack__' holding host memory, but got "
                        f"{type(dlpack).__name__}: {e}") from None
    return Tensor.from_numpy(array)


def to_dlpack(tensor):
    """A DLPack capsule (versioned, writable) sharing ``tensor``'s memory; it can be used
    once, by ``from_dlpack`` here or in another library."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"For 'to_dlpack', the input must be a Tensor, but got "
                        f"{type(tensor).__name__}.")
    array = tensor.asnumpy()
    try:
        return array.__dlpack__(max_version=(1, 0))
    except TypeError:                          # NumPy before 2.1: unversioned capsules only
        return array.__dlpack__()


def frombuffer(buffer, dtype, count=-1, offset=0):
    """A 1-D Tensor over the bytes of ``buffer`` (anything with the buffer protocol) read as
    ``dtype``: ``count`` items (-1: all) from byte ``offset``."""
    if isinstance(count, bool) or not isinstance(count, int) or count == 0 or count < -1:
        raise ValueError(f"For 'frombuffer', 'count' must be -1 or a positive int, but got "
                         f"{count!r}.")
    try:
        array = np.frombuffer(buffer, dtype=dtype_to_nptype(dtype), count=count, offset=offset)
    except (TypeError, ValueError) as e:
        raise ValueError(f"For 'frombuffer', cannot read {count} item(s) of {dtype} at byte "
                         f"offset {offset}: {e}") from None
    return Tensor.from_numpy(array)


def seed():
    """Seed Spore's random streams with a fresh non-deterministic seed and return it."""
    import secrets
    from ._random import set_seed
    value = secrets.randbits(31)
    set_seed(value)
    return value


def swap_tensors(t1, t2):
    """Swap the contents of two tensors in place (data, class, gradient bookkeeping and
    attributes); each Python object keeps its identity. As in MindSpore, tensors whose
    object layouts differ (a Tensor and a Parameter here) cannot be swapped."""
    from ._tensor import Tensor
    for t in (t1, t2):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'swap_tensors', both inputs must be Tensor, but got "
                            f"{type(t).__name__}.")
    if t1 is t2:
        return
    if type(t1) is not type(t2):
        try:
            t1.__class__, t2.__class__ = t2.__class__, t1.__class__
        except TypeError:
            raise RuntimeError(f"For 'swap_tensors', cannot swap a {type(t1).__name__} and "
                               f"a {type(t2).__name__}: their slots differ.") from None
    t1._data, t2._data = t2._data, t1._data
    t1._tape_ref, t2._tape_ref = t2._tape_ref, t1._tape_ref
    if hasattr(t1, "__dict__") and hasattr(t2, "__dict__"):
        d1, d2 = dict(t1.__dict__), dict(t2.__dict__)
        t1.__dict__.clear()
        t1.__dict__.update(d2)
        t2.__dict__.clear()
        t2.__dict__.update(d1)
