"""Optional Numba-compiled CPU loops for kernels NumPy runs poorly.

NumPy pays a fixed cost per inner-loop row (tens of nanoseconds), so a kernel
that walks many short strided rows (max pooling's 2x2 windows, cropping a
convolution's padded GEMM output) spends most of its time on that cost. Numba
compiles such loops into a single pass. It is an optional extra
(``pip install spore[fast]``): without it, or with ``SPORE_NATIVE=0`` in the
environment, every kernel takes its NumPy path, which computes the same values
bit for bit (the tests run both).

``jit(fn)`` defers both ``import numba`` and the compilation to the first call,
so ``import spore`` stays as fast as before; compiled code is cached on disk
(Numba's ``cache=True``; ``NUMBA_CACHE_DIR`` moves the cache).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os

_installed = importlib.util.find_spec("numba") is not None
_enabled = _installed and os.environ.get("SPORE_NATIVE", "1") != "0"


def installed():
    """Whether Numba can be imported."""
    return _installed


def enabled():
    """Whether kernels should take their compiled paths now."""
    return _enabled


def set_enabled(flag):
    """Turn the compiled paths on or off (on only where Numba is installed)."""
    global _enabled
    _enabled = bool(flag) and _installed


@contextlib.contextmanager
def disabled():
    """Run the NumPy paths inside the block (tests compare the two)."""
    before = _enabled
    set_enabled(False)
    try:
        yield
    finally:
        set_enabled(before)


class _Lazy:
    """A Numba function compiled at its first call."""

    def __init__(self, fn):
        self._fn = fn
        self._compiled = None
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args):
        f = self._compiled
        if f is None:
            import numba
            # no fastmath: the loops must keep IEEE semantics (NaN, signed zeros)
            f = self._compiled = numba.njit(cache=True, boundscheck=False,
                                            error_model="numpy")(self._fn)
        return f(*args)

    def py_func(self, *args):
        """The uncompiled loop (what the tests' coverage of the loop logic runs)."""
        return self._fn(*args)


def jit(fn):
    return _Lazy(fn)
