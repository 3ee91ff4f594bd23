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
``import spore`` does not import Numba. Every loop declares the one signature its
callers use (``@jit(signature=...)``), so all of them can be compiled for a dtype
ahead of their first call. The first kernel that could use the loops on a float
dtype asks ``ready(dtype)``. Where Numba's disk cache already indexes every loop (a
machine that ran them before: ``cache=True``, ``NUMBA_CACHE_DIR`` moves it), that
call imports Numba and says yes; each loop then loads from the cache at its own
first call (NOTE: [Lazy loading]). Otherwise compiling them would
stall that call for 4-7 s; instead a background thread runs a child interpreter that
compiles them into the disk cache, and until it is done ``ready`` says no and the
kernels take their NumPy paths; the calls after it load them. The compiler
runs in the child because it is Python code: in a thread of this process it would
hold the GIL for seconds and stall the steps running meanwhile. A script that ends
first leaves the child to finish the cache for the next run. Where the child cannot
run, each loop's first call compiles what the cache lacks. ``SPORE_NATIVE=sync``
compiles in the first call (the test suite's setting: a test of the compiled path must not
run the NumPy one). Results differ between the two paths only as the direct
convolution's documented rounding does (docs/architecture.md).

NOTE: [Lazy loading]
A first step pays for what it loads: importing Numba (~0.4 s), Numba's first load
(its compiler and type registries, ~0.5 s) and then 7-25 ms per loop read from the
cache. ``ready`` loads none of the loops: each loads its declared signature at its
own first call (``_Lazy.__call__``), so a step whose only loop is softmax's
vectorised exp loads that one, not every pooling and convolution loop. A loop that
fails to load switches every kernel to its NumPy path, as a failed compilation does.
"""
from __future__ import annotations

import contextlib
import glob
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
    """Whether the loops are compiled for ``dtype`` (a NumPy float dtype): True once
    they are loaded. The first call loads them here when Numba's disk cache has them
    (or with ``set_background(False)``: compiles them here); otherwise it starts a
    child interpreter compiling them into the cache and says False, and so do the
    calls until the child is done; the first call after that loads them."""
    state = _ready.get(dtype)
    if state:
        return True
    with _ready_lock:
        if _ready.get(dtype):
            return True
        if not _enabled:                     # a load failed meanwhile
            return False
        child = _threads.get(dtype)
        if child is None and _background and not _cache_indexed():
            child = _threads[dtype] = threading.Thread(
                target=_compile_in_child, args=(dtype,), daemon=True,
                name=f"spore-numba-{dtype}")
            child.start()
        if child is not None and child.is_alive():
            _ready[dtype] = False
            return False
        _ready[dtype] = _numba_importable()        # the loops load at their first calls
        return _ready[dtype]


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
    """Block until the background compilation for ``dtype`` (if any) has finished,
    then answer ``ready(dtype)`` (the loops load at their first calls)."""
    ready(dtype)                            # starts the compilation if none ran yet
    t = _threads.get(dtype)
    if t is not None:
        t.join(timeout)
    return ready(dtype)


def _numba_importable():
    """Import Numba, which every loop needs first; False, with one warning, where that
    fails (a broken install)."""
    try:
        import_numba()
    except Exception as exc:
        _disable_after(None, exc, stacklevel=3)
        return False
    return True


class _NoScipyLinalg:
    """A meta-path finder that refuses ``scipy.linalg`` to one thread (NOTE: [Numba
    without scipy.linalg])."""

    def __init__(self):
        self.thread = threading.get_ident()

    def find_spec(self, name, path=None, target=None):
        if threading.get_ident() == self.thread and (
                name == "scipy.linalg" or name.startswith("scipy.linalg.")):
            raise ImportError("spore: scipy.linalg deferred while Numba loads")
        return None


# NOTE: [Numba without scipy.linalg]
# Numba's first compilation or cache load imports ``numba.np.arraymath``, which probes
# for a BLAS by importing ``scipy.linalg.cython_blas`` where SciPy is installed: all of
# ``scipy.linalg`` (0.15-0.25 s, a fifth of a first step's start-up with a warm cache).
# No Spore loop calls BLAS from Numba, so ``import_numba`` imports that module with
# ``scipy.linalg`` refused to this thread: its probe then says "no BLAS", which only
# makes a Numba-compiled ``np.cov``/``np.corrcoef`` use a plain inner-product loop;
# ``np.dot`` and ``np.linalg`` in Numba code import SciPy's BLAS at their own
# compilation as before. Where ``scipy.linalg`` is already imported nothing changes.
def import_numba():
    """Import Numba and its NumPy support module (NOTE: [Numba without scipy.linalg])."""
    import numba  # noqa: F401
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    finder = _NoScipyLinalg()
    sys.meta_path.insert(0, finder)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        sys.meta_path.remove(finder)


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


def _cache_indexed():
    """Whether Numba's disk cache has an index for every loop (a machine that ran them
    before): then loading them here costs 0.3-1 s, and a child interpreter would
    double that. Looked for where Numba puts it: under ``NUMBA_CACHE_DIR``, else in
    ``__pycache__`` beside the loops' source. A loop cached for another dtype only
    compiles here, slower but correct."""
    if not _LOOPS:
        return True
    root = os.environ.get("NUMBA_CACHE_DIR")
    names = set()
    for source in {loop._fn.__code__.co_filename for loop in _LOOPS}:
        stem = os.path.splitext(os.path.basename(source))[0]
        if root:
            found = glob.glob(os.path.join(glob.escape(root), "**", stem + ".*.nbi"),
                              recursive=True)
        else:
            found = glob.glob(os.path.join(glob.escape(os.path.dirname(source)),
                                           "__pycache__", stem + ".*.nbi"))
        names.update(os.path.basename(p) for p in found)
    return all(any(n.startswith(f"{_stem(loop)}.{loop.__name__}-") for n in names)
               for loop in _LOOPS)


def _stem(loop):
    return os.path.splitext(os.path.basename(loop._fn.__code__.co_filename))[0]


def compile_here(dtype):
    """Compile every declared loop for ``dtype`` in this process (the child's entry)."""
    import numpy as np
    from ._prims.nn import _loops  # noqa: F401  (defines the loops)
    from ._prims import vecmath, optim_prims  # noqa: F401
    from .nn.optim import _updates  # noqa: F401
    for loop in _LOOPS:
        loop.compile_for(np.dtype(dtype))


def approximations():
    """The vectorisable float32 approximations of exp, tanh, sigmoid and erf
    (spore/_jit/approx.py: Numba functions and constants, no graph machinery), for the
    loops of spore/_prims/vecmath.py as for the O1 fusion kernels. Importing it imports
    Numba, so only a loop about to be compiled asks."""
    from ._jit import approx
    return approx


def _disable_after(loop, exc, stacklevel):
    """Numba cannot serve: warn once, switch every kernel to its NumPy path."""
    set_enabled(False)
    where = f" on '{loop.__name__}'" if loop is not None else ""
    warnings.warn(f"Spore's compiled loops are off: Numba failed{where} "
                  f"({type(exc).__name__}: {exc}); the NumPy "
                  f"kernels are used instead (SPORE_NATIVE=0 silences this).",
                  RuntimeWarning, stacklevel=stacklevel + 1)


class _Lazy:
    """A Numba function compiled at its first call, or ahead of it for its declared
    signature (``compile_for``)."""

    def __init__(self, fn, fastmath=False, signature=None, nogil=False, dtypes=None,
                 setup=None):
        self._fn = fn
        self._fastmath = fastmath
        self._signature = signature
        self._nogil = nogil
        self._dtypes = dtypes       # the float dtypes it compiles for (None: every one)
        self._setup = setup         # called once before compiling (binds Numba globals)
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
                if self._setup is not None:
                    self._setup()
                self._dispatcher = numba.njit(cache=True, boundscheck=False,
                                              error_model="numpy", nogil=self._nogil,
                                              fastmath=self._fastmath)(self._fn)
            return self._dispatcher

    def compile_for(self, dtype):
        """Compile (or load from Numba's disk cache) the declared signature for the
        float ``dtype``; later calls with those argument types run it at once. A loop
        declared for some dtypes only (``dtypes``) skips the others."""
        if self._dtypes is not None and dtype not in self._dtypes:
            return
        sig = "(" + self._signature.format(f=str(dtype)) + ",)"     # a tuple, even of one
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
            dtype = _float_dtype(args) if self._signature is not None else None
            if dtype is not None:             # NOTE: [Lazy loading]
                self.compile_for(dtype)       # the declared signature, from the cache
            out = compiled(*args)             # (else) compiles for these argument types
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


def _float_dtype(args):
    """The dtype of the first floating-point array among a loop's arguments (its
    declared signature's ``{f}``), or None."""
    for a in args:
        dtype = getattr(a, "dtype", None)
        if dtype is not None and dtype.kind == "f":
            return dtype
    return None


# The only fastmath flags a loop may ask for: "contract" (fused multiply-add) and
# "reassoc" (reordered sums, so reductions vectorise). Both change rounding only;
# the flags that would drop IEEE semantics (NaN, infinities, signed zeros) are refused.
FASTMATH_ALLOWED = frozenset({"contract", "reassoc"})


def jit(fn=None, *, fastmath=frozenset(), signature=None, nogil=False, dtypes=None,
        setup=None):
    """``@jit`` or ``@jit(fastmath={"contract", ...}, signature="{f}[::1], int64")``: a
    loop compiled at its first call, or with every declared loop when ``ready(dtype)``
    is first asked (``{f}`` in the signature stands for the float type). ``nogil``:
    the loop releases the GIL (the thread pool runs it in chunks); ``dtypes``: the
    float dtypes ``ready`` compiles it for (default every one); ``setup()``: runs once
    before the first compilation (binds globals that would import Numba)."""
    flags = frozenset(fastmath)
    if not flags <= FASTMATH_ALLOWED:
        raise ValueError(f"fastmath flags {sorted(flags - FASTMATH_ALLOWED)} would change "
                         f"IEEE semantics; allowed: {sorted(FASTMATH_ALLOWED)}")
    options = set(flags) or False               # Numba's spelling of "no fastmath"
    extra = dict(nogil=nogil, dtypes=dtypes, setup=setup)
    if fn is None:
        return lambda f: _Lazy(f, options, signature, **extra)
    return _Lazy(fn, options, signature, **extra)
