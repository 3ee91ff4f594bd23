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

NOTE: [Background compilation]
``import spore`` does not import Numba. The first kernel that could use the loops
on a float dtype (``ready(dtype)``) starts one background thread that compiles every
loop for that dtype, with the signature each loop declares (``@jit(signature=...)``);
until it is done, ``ready`` says no and the kernels take their NumPy paths, so the
first training step does not wait 4-7 s for the compiler (nor 0.3-0.5 s for Numba's
import and its disk cache, which ``cache=True`` fills: ``NUMBA_CACHE_DIR`` moves it).
Numba's compiler is Python code: run in this process it would hold the GIL for
seconds and stall the steps meanwhile, so the thread first has a child interpreter
compile the loops into the disk cache, then imports Numba and loads them (Python
hands the GIL back every COMPILE_SWITCH_INTERVAL meanwhile). Where the child cannot
run, the thread compiles. ``SPORE_NATIVE=sync`` compiles in the first call instead
(the test suite's setting: a test of the compiled path must not run the NumPy one).
Results differ between the two paths only as the direct convolution's documented
rounding does (docs/architecture.md).
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import subprocess
import sys
import threading
import warnings

_MODE = os.environ.get("SPORE_NATIVE", "1").strip().lower()
_installed = importlib.util.find_spec("numba") is not None
_enabled = _installed and _MODE != "0"
_background = _MODE != "sync"

# While the compiler thread runs, Python hands the GIL over after this long (instead of
# 5 ms) when another thread asks: a training step's ~100 kernels each re-take the GIL.
COMPILE_SWITCH_INTERVAL = 2e-4
CHILD_TIMEOUT = 600         # seconds the compiling child interpreter may take
_LOOPS = []                 # every loop with a declared signature, in definition order
_ready = {}                 # numpy dtype -> True once its loops are compiled, else False
_ready_lock = threading.Lock()
_threads = {}               # numpy dtype -> the thread compiling its loops


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


def set_background(flag):
    """Compile in a background thread (True, the default) or in the first call."""
    global _background
    _background = bool(flag)


@contextlib.contextmanager
def disabled():
    """Run the NumPy paths inside the block (tests compare the two)."""
    before = _enabled
    set_enabled(False)
    try:
        yield
    finally:
        set_enabled(before)


def ready(dtype):
    """Whether the loops are compiled for ``dtype`` (a NumPy float dtype). The first
    call starts compiling them: in a background thread (then this call and those
    until it finishes say False) or, with ``set_background(False)``, right here."""
    state = _ready.get(dtype)
    if state is None:
        with _ready_lock:
            if dtype not in _ready:
                _ready[dtype] = False
                if _background:
                    t = threading.Thread(target=_compile_all, args=(dtype,), daemon=True,
                                         name=f"spore-numba-{dtype}")
                    _threads[dtype] = t
                    t.start()
                else:
                    _compile_all(dtype)
        state = _ready[dtype]
    return state


def _after_fork_in_child():
    """A compilation running in the parent has no thread here: start again if asked."""
    global _ready_lock
    _ready_lock = threading.Lock()
    for dtype in [d for d, done in _ready.items() if not done]:
        del _ready[dtype]
    _threads.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def wait(dtype, timeout=None):
    """Block until the background compilation for ``dtype`` (if any) has finished;
    returns ``ready(dtype)``."""
    t = _threads.get(dtype)
    if t is not None:
        t.join(timeout)
    return bool(_ready.get(dtype))


def _compile_all(dtype):
    """Compile every declared loop for ``dtype`` (the background thread's job)."""
    loop = None
    if _background:
        _compile_in_child(dtype)
    interval = sys.getswitchinterval()
    if _background:
        sys.setswitchinterval(min(interval, COMPILE_SWITCH_INTERVAL))
    try:
        for loop in _LOOPS:
            loop.compile_for(dtype)          # after the child: loads its cached code
    except Exception as exc:       # a broken install, or a loop Numba cannot compile
        _disable_after(loop, exc, stacklevel=2)
        return
    finally:
        if sys.getswitchinterval() == min(interval, COMPILE_SWITCH_INTERVAL):
            sys.setswitchinterval(interval)
    _ready[dtype] = True


def _compile_in_child(dtype):
    """Run Numba's compiler in a child interpreter, which fills the disk cache: the
    compiler is Python code, and in this process it would hold the GIL for seconds.
    Best effort: where the child cannot run, this process compiles."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, SPORE_NATIVE="sync")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    code = "import sys; from spore import _native; _native.compile_here(sys.argv[1])"
    try:
        subprocess.run([sys.executable, "-c", code, str(dtype)], env=env, timeout=CHILD_TIMEOUT,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        pass


def compile_here(dtype):
    """Compile every declared loop for ``dtype`` in this process (the child's entry)."""
    import numpy as np
    from ._prims.nn import _loops  # noqa: F401  (defines the loops)
    for loop in _LOOPS:
        loop.compile_for(np.dtype(dtype))


def _disable_after(loop, exc, stacklevel):
    """Numba cannot serve: warn once, switch every kernel to its NumPy path."""
    set_enabled(False)
    name = getattr(loop, "__name__", "?")
    warnings.warn(f"Spore's compiled loops are off: Numba failed on "
                  f"'{name}' ({type(exc).__name__}: {exc}); the NumPy "
                  f"kernels are used instead (SPORE_NATIVE=0 silences this).",
                  RuntimeWarning, stacklevel=stacklevel + 1)


class _Lazy:
    """A Numba function compiled at its first call, or ahead of it for its declared
    signature (``compile_for``)."""

    def __init__(self, fn, fastmath=False, signature=None):
        self._fn = fn
        self._fastmath = fastmath
        self._signature = signature
        self._dispatcher = None
        self._compiled = None
        self._lock = threading.Lock()
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        if signature is not None:
            _LOOPS.append(self)

    def _numba_dispatcher(self):
        with self._lock:
            if self._dispatcher is None:
                import numba
                self._dispatcher = numba.njit(cache=True, boundscheck=False,
                                              error_model="numpy",
                                              fastmath=self._fastmath)(self._fn)
            return self._dispatcher

    def compile_for(self, dtype):
        """Compile (or load from Numba's disk cache) the declared signature for the
        float ``dtype``; later calls with those argument types run it at once."""
        sig = "(" + self._signature.format(f=str(dtype)) + ")"
        dispatcher = self._numba_dispatcher()
        dispatcher.compile(sig)
        self._compiled = dispatcher

    def __call__(self, *args):
        f = self._compiled
        if f is not None:
            return f(*args)
        try:
            from numba.core.errors import NumbaError
            compiled = self._numba_dispatcher()
        except Exception as exc:            # a broken install: numba present, not importable
            return self._give_up(exc, args)
        try:
            out = compiled(*args)             # compiles for these argument types
        except NumbaError as exc:
            return self._give_up(exc, args)
        self._compiled = compiled
        return out

    def _give_up(self, exc, args):
        """Warn once, switch every kernel to its NumPy path, and finish this call with
        the uncompiled loop (same values, just slow)."""
        _disable_after(self, exc, stacklevel=3)
        return self._fn(*args)

    def py_func(self, *args):
        """The uncompiled loop (what the tests' coverage of the loop logic runs)."""
        return self._fn(*args)


# The only fastmath flags a loop may ask for: "contract" (fused multiply-add) and
# "reassoc" (reordered sums, so reductions vectorise). Both change rounding only;
# the flags that would drop IEEE semantics (NaN, infinities, signed zeros) are refused.
FASTMATH_ALLOWED = frozenset({"contract", "reassoc"})


def jit(fn=None, *, fastmath=frozenset(), signature=None):
    """``@jit`` or ``@jit(fastmath={"contract", ...}, signature="{f}[::1], int64")``: a
    loop compiled at its first call, or with every declared loop when ``ready(dtype)``
    is first asked (``{f}`` in the signature stands for the float type)."""
    flags = frozenset(fastmath)
    if not flags <= FASTMATH_ALLOWED:
        raise ValueError(f"fastmath flags {sorted(flags - FASTMATH_ALLOWED)} would change "
                         f"IEEE semantics; allowed: {sorted(FASTMATH_ALLOWED)}")
    options = set(flags) or False               # Numba's spelling of "no fastmath"
    if fn is None:
        return lambda f: _Lazy(f, options, signature)
    return _Lazy(fn, options, signature)
