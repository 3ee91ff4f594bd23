"""Checks and helpers shared by the nn primitives."""
from __future__ import annotations

import math
import threading

import numpy as np

from ... import _dtype as D
from ..._core import primitive as P
from .._base import dtype_name

HALF = (np.dtype(np.float16), D.bfloat16.np)
FLOAT32 = np.dtype(np.float32)
FLOATS = "{BFloat16, Float16, Float32, Float64}"


class IndexOutOfRange(P.SporeError, ValueError):
    """A class or row index outside its table (found by the kernel, which sees the values)."""


def is_float(dtype):
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or dtype == D.bfloat16.np


def check_float(op, arg, dtype):
    if not is_float(dtype):
        raise TypeError(f"For '{op}', the input argument[{arg}] must be a type of {FLOATS}, "
                        f"but got {dtype_name(dtype)}.")


def check_same_dtype(op, arg, a, b_arg, b):
    if np.dtype(a.dtype) != np.dtype(b.dtype):
        raise TypeError(f"For '{op}', the input type must be same: '{arg}' is "
                        f"{dtype_name(a.dtype)} but '{b_arg}' is {dtype_name(b.dtype)}.")


def check_rank(op, arg, shape, ranks):
    if len(shape) not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"For '{op}', the rank of '{arg}' must be {want}, but got "
                         f"{len(shape)} (shape {list(shape)}).")


def compute_dtype(dtype):
    """Half-precision data is computed in float32 (NumPy has no fast half kernels)."""
    dtype = np.dtype(dtype)
    return FLOAT32 if dtype in HALF else dtype


def validated(make, infer):
    """Kernel factory whose kernels run the infer rule first.

    For ops where NumPy would quietly accept a bad input (mixed dtypes that it
    promotes, an int tensor it converts) and compute something plausible.
    """
    def make_checked(xp):
        kernel = make(xp)

        def checked(*arrays, **attrs):
            infer(attrs, *arrays)
            return kernel(*arrays, **attrs)
        return checked
    return make_checked


# NOTE: [Scratch buffers]
# A fresh multi-megabyte NumPy array is a fresh mapping from the allocator, and
# touching its pages for the first time can cost more than the work done in it
# (2 ms of page faults for LeNet's first im2col, against 0.07 ms for the copy).
# Temporaries a kernel never returns (im2col columns, padded copies, GEMM
# outputs that are copied out) come from one buffer per thread and purpose.
# Buffers above SCRATCH_LIMIT are not kept: for them the page faults are a small
# part of the work, and holding the memory would not be.
SCRATCH_LIMIT = 64 << 20
_scratch = threading.local()


def scratch(xp, slot, shape, dtype):
    """An uninitialised kernel-private array from the ``slot`` buffer of this thread.

    Valid until the next request for the same slot in the same thread: never
    return it (or a view of it) from a kernel, and use distinct slots for
    temporaries alive at the same time.
    """
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if xp is not np or nbytes > SCRATCH_LIMIT:
        return xp.empty(shape, dtype)
    buffers = _scratch.__dict__.setdefault("buffers", {})
    buf = buffers.get(slot)
    if buf is None or buf.nbytes < nbytes:
        buf = buffers[slot] = np.empty(max(nbytes, 1), np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)
