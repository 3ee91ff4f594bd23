"""Optional Numba-compiled CPU loops for kernels NumPy runs poorly.

NumPy pays a fixed cost per inner-loop row (tens of nanoseconds), so a kernel
that walks many short strided rows (max pooling's 2x2 windows, cropping a
convolution's padded GEMM output) spends most of its time on that cost. Numba
compiles such loops into a single pass, and runs small convolutions directly
instead of through im2col columns. It is an optional extra
(``pip install spore[fast]``): without it, or with ``SPORE_NATIVE=0`` in the
environment, every kernel takes its NumPy path, which computes the same values
(bit for bit for the layout loops, to rounding for the direct convolution; the
tests run both).

``jit(fn)`` defers both ``import numba`` and the compilation to the first call,
so ``import spore`` stays as fast as before; compiled code is cached on disk
(Numba's ``cache=True``; ``NUMBA_CACHE_DIR`` moves the cache).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import warnings

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

    def __init__(self, fn, fastmath=False):
        self._fn = fn
        self._fastmath = fastmath
        self._compiled = None
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args):
        f = self._compiled
        if f is not None:
            return f(*args)
        try:
            import numba
            from numba.core.errors import NumbaError
        except Exception as exc:            # a broken install: numba present, not importable
            return self._give_up(exc, args)
        compiled = numba.njit(cache=True, boundscheck=False, error_model="numpy",
                              fastmath=self._fastmath)(self._fn)
        try:
            out = compiled(*args)             # compiles for these argument types
        except NumbaError as exc:
            return self._give_up(exc, args)
        self._compiled = compiled
        return out

    def _give_up(self, exc, args):
        """Numba cannot serve: warn once, switch every kernel to its NumPy path, and
        finish this call with the uncompiled loop (same values, just slow)."""
        set_enabled(False)
        warnings.warn(f"Spore's compiled loops are off: Numba failed on "
                      f"'{self.__name__}' ({type(exc).__name__}: {exc}); the NumPy "
                      f"kernels are used instead (SPORE_NATIVE=0 silences this).",
                      RuntimeWarning, stacklevel=3)
        return self._fn(*args)

    def py_func(self, *args):
        """The uncompiled loop (what the tests' coverage of the loop logic runs)."""
        return self._fn(*args)


# The only fastmath flags a loop may ask for: "contract" (fused multiply-add) and
# "reassoc" (reordered sums, so reductions vectorise). Both change rounding only;
# the flags that would drop IEEE semantics (NaN, infinities, signed zeros) are refused.
FASTMATH_ALLOWED = frozenset({"contract", "reassoc"})


def jit(fn=None, *, fastmath=frozenset()):
    """``@jit`` or ``@jit(fastmath={"contract", ...})``: a loop compiled at its first call."""
    flags = frozenset(fastmath)
    if not flags <= FASTMATH_ALLOWED:
        raise ValueError(f"fastmath flags {sorted(flags - FASTMATH_ALLOWED)} would change "
                         f"IEEE semantics; allowed: {sorted(FASTMATH_ALLOWED)}")
    options = set(flags) or False               # Numba's spelling of "no fastmath"
    if fn is None:
        return lambda f: _Lazy(f, options)
    return _Lazy(fn, options)
