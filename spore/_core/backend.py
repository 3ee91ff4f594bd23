"""Backends: where arrays live and which array module computes on them.

A backend is named by its device ("CPU", "GPU") and carries its array module
(``numpy``; ``cupy`` once the GPU issue lands). Kernels are written once as
*factories* ``make(xp) -> kernel``, so adding a backend never touches an op
definition: the registry asks each factory for the new backend's kernel.
"""
from __future__ import annotations

import ctypes
import os
import sys

import numpy as np


class Backend:
    __slots__ = ("name", "xp", "array_type")

    def __init__(self, name, xp, array_type):
        self.name = name
        self.xp = xp
        self.array_type = array_type

    def __repr__(self):
        return f"Backend({self.name})"


CPU = Backend("CPU", np, np.ndarray)

_BY_ARRAY_TYPE = {np.ndarray: CPU}
_BY_NAME = {"CPU": CPU}


def register(backend: Backend):
    """Make a backend known; primitives build its kernels lazily on first use."""
    _BY_ARRAY_TYPE[backend.array_type] = backend
    _BY_NAME[backend.name] = backend


def of_array(arr) -> Backend:
    try:
        return _BY_ARRAY_TYPE[type(arr)]
    except KeyError:
        for t, b in _BY_ARRAY_TYPE.items():
            if isinstance(arr, t):
                return b
        refuse = getattr(type(arr), "refuse_host_read", None)
        if refuse is not None:       # a value without data (a dynamic-shape declaration)
            refuse(arr, "an op")
        raise TypeError(f"no Spore backend handles arrays of type {type(arr).__name__}") from None


def by_name(name) -> Backend:
    return _BY_NAME[name]


def available():
    return tuple(_BY_NAME)


# NOTE: [Allocator tuning]
# glibc serves allocations above its mmap threshold with fresh mappings and unmaps
# them on free; it also trims freed memory at the top of the heap back to the OS.
# A training step allocates and frees the same multi-megabyte arrays every step,
# so by default each step pays page faults for memory it just gave back (LeNet-5:
# ~550 faults, 1.2 ms of a 5.8 ms step; the ViT block: ~2,400 faults, 14 ms).
# Fixed thresholds keep those arrays in the heap for reuse: arrays up to
# MMAP_THRESHOLD come from the heap (above it, faults are a small part of the work
# done on an array that size), and at most TRIM_THRESHOLD of free memory is kept at
# the top of the heap, so what the process holds beyond its live arrays is bounded.
# Set SPORE_MALLOC_TUNING=0 to keep glibc's defaults; glibc's own MALLOC_*_
# environment variables or GLIBC_TUNABLES, when set, win as well.
MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 128 << 20
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def _user_tuned_malloc():
    env = os.environ
    return (env.get("SPORE_MALLOC_TUNING", "1") == "0" or "MALLOC_MMAP_THRESHOLD_" in env
            or "MALLOC_TRIM_THRESHOLD_" in env or "malloc" in env.get("GLIBC_TUNABLES", ""))


def tune_malloc():
    """Apply the allocator thresholds above on glibc; returns whether they were set."""
    if not sys.platform.startswith("linux") or _user_tuned_malloc():
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version      # glibc only (musl has no mallopt thresholds)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


MALLOC_TUNED = tune_malloc()


# NOTE: [BLAS vector routines]
# NumPy runs its elementwise loops on one thread, while the BLAS it links runs its
# level-1 routines (y += a*x, x *= a) on its own worker threads, which matrix
# products keep warm during a training step. A parameter update written as those
# routines is one pass per routine, without temporaries, on every core: the momentum
# update of a 1024 x 1024 float32 weight right after a matmul takes 0.6-0.9 ms
# instead of 1.2-1.4 ms with NumPy (2-core EPYC, median of 200).
# ``blas_vector_routines(dtype)`` gives ``(axpy, scal)`` for contiguous float32 or
# float64 arrays of NumPy's own BLAS (found among the libraries already loaded), or
# None where it cannot be found (other platforms, other BLAS builds): callers then
# compute with NumPy. ``axpy(a, x, y)``: y += a * x in place; ``scal(a, x)``: x *= a
# in place. How ``axpy`` rounds is the kernel's choice (OpenBLAS's Haswell kernels
# multiply and add, others fuse them): callers may rely on IEEE rounding of each
# element (once or twice), never on one of the two.
# Why ctypes on NumPy's library and not ``scipy.linalg.blas``: SciPy's wheels bring a
# second OpenBLAS with its own thread pool, which is cold and competes for the cores
# with NumPy's busy-waiting pool; the same update after a matmul took 2.7-2.8 ms
# through SciPy (3-4x slower than here), and SciPy is only an optional extra. SciPy's
# binding is quicker per call (0.4 us against ~4 us), so small arrays stay on NumPy
# (``BLAS_MIN_SIZE`` in ``nn/optim/_updates.py``).
_BLAS_NAMES = (("scipy_cblas_{}{}64_", ctypes.c_int64), ("cblas_{}{}64_", ctypes.c_int64),
               ("cblas_{}{}", ctypes.c_int))
_vector_routines = {}


def _numpy_blas_library():
    """Path of the OpenBLAS library NumPy loaded (Linux), or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line}
    except OSError:
        return None
    numpy_dir = os.path.dirname(os.path.dirname(np.__file__))
    mine = sorted(p for p in paths if p.startswith(numpy_dir) and os.path.isfile(p))
    return mine[0] if mine else None


_UNLOADED = object()
_numpy_blas_lib = _UNLOADED


def _numpy_blas():
    """NumPy's OpenBLAS (``_numpy_blas_library``) as a ctypes library, loaded once; None
    where it cannot be found or loaded. The BLAS vector routines, the batched GEMM
    (spore/_prims/linalg.py), the GEMM epilogues (spore/_jit/gemm.py) and the BLAS spin
    (spore/_core/threads.py) all bind it."""
    global _numpy_blas_lib
    if _numpy_blas_lib is _UNLOADED:
        path = _numpy_blas_library()
        try:
            _numpy_blas_lib = ctypes.CDLL(path) if path is not None else None
        except OSError:
            _numpy_blas_lib = None
    return _numpy_blas_lib


def _blas_config(lib):
    """OpenBLAS's build configuration string (b"" where the library has none): an
    unsuffixed name takes 64-bit integers in a USE64BITINT build."""
    for name in ("scipy_openblas_get_config64_", "openblas_get_config64_",
                 "openblas_get_config"):
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = ctypes.c_char_p
            return fn() or b""
    return b""


def _bind(lib, kind, real):
    for pattern, index in _BLAS_NAMES:
        try:
            axpy = getattr(lib, pattern.format(kind, "axpy"))
            scal = getattr(lib, pattern.format(kind, "scal"))
        except AttributeError:
            continue
        ptr = ctypes.c_void_p
        axpy.argtypes = (index, real, ptr, index, ptr, index)
        scal.argtypes = (index, real, ptr, index)
        axpy.restype = scal.restype = None
        return (lambda a, x, y: axpy(x.size, a, x.ctypes.data, 1, y.ctypes.data, 1),
                lambda a, x: scal(x.size, a, x.ctypes.data, 1))
    return None


def _load_vector_routines():
    lib = _numpy_blas() if os.environ.get("SPORE_BLAS_VECTOR", "1") != "0" else None
    for dtype, kind, real in ((np.float32, "s", ctypes.c_float),
                              (np.float64, "d", ctypes.c_double)):
        _vector_routines[np.dtype(dtype)] = _bind(lib, kind, real) if lib is not None else None


def blas_vector_routines(dtype):
    """``(axpy, scal)`` of NumPy's BLAS for ``dtype`` (float32/float64), else None."""
    if not _vector_routines:
        _load_vector_routines()
    return _vector_routines.get(np.dtype(dtype))
