"""``ms.jit``: compile a Python function (or a Cell's construct) on first call, run the
generated code on later calls.

NOTE: [Compiled calls]
A call flattens its arguments into tensors and a static *spec* (the structure, each
tensor's shape and dtype, the values of Python scalars and strings, the identity of
other objects, which arguments are the same object, the Python scalars the function's
globals and closure hold, the context's mode and jit_level). The spec is the cache key.
An entry is reused while the global epoch (NOTE: [Epoch]) is unchanged; when it moved,
the function is traced again and the entry is reused only if the new graph is the
same. A function that cannot be captured runs in PyNative, decided once per key, with
one warning naming the file, line and construct (an error under ``fullgraph=True``).
Calls made while a gradient tape records (``grad`` of a compiled function) and calls
nested in another trace run the Python function itself, so gradients are never lost.
"""
from __future__ import annotations

import functools
import inspect
import linecache
import os
import threading
import time
import types
import warnings

import numpy as np

from .. import _context as C
from .. import _random as R
from .._autodiff import tape as T
from .._autodiff import vmap as V
from .._core import primitive as P
from . import codegen, dump, dynamic, passes
from .capture import Capture, GraphBreak, user_frame, user_location
from .convert import convert_callable
from .mutable import MUTABLE_SCALARS, as_tensor
from .ir import signature
from .hints import check_dynamic_args

# One lock per cache key: a thread compiling one key does not hold up another key (the
# trace itself is per thread: spore/_core/primitive.py keeps the capture thread-local).
_locks_guard = threading.Lock()
# SPORE_JIT_VERIFY=1 runs the IR verifier on the captured graph and after every pass (the
# test suite sets it)
_VERIFY = os.environ.get("SPORE_JIT_VERIFY", "") not in ("", "0")
_RECOMPILE_WARN = 8
_SCALARS = (bool, int, float, complex, str, type(None))


class CompileError(RuntimeError):
    """A function that must compile (``fullgraph=True``) could not be captured."""


# --------------------------------------------------------------------------- arguments
def _flatten(x, tensors, objects):
    """The static spec of one argument; tensors are appended to ``tensors``."""
    if isinstance(x, P._Tensor):
        d = x._data
        for j, t in enumerate(tensors):
            if t is x:
                return ("T", j)          # the same object again: one input
        tensors.append(x)
        return ("T", d.shape, d.dtype.str)
    if isinstance(x, MUTABLE_SCALARS):       # ms.mutable: a tensor input, not a constant
        tensors.append(as_tensor(x))
        return ("T", (), type(x).__name__)
    if isinstance(x, _SCALARS):
        return ("S", type(x), x)
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_flatten(e, tensors, objects) for e in x))
    if isinstance(x, dict):
        keys = tuple(x)
        return (dict, keys, tuple(_flatten(x[k], tensors, objects) for k in keys))
    if isinstance(x, np.generic):
        return ("S", type(x), x.item())
    objects.append(x)      # compared by identity: the entry keeps it alive, so ids stay unique
    return ("O", id(x), len(objects) - 1)


def _rebuild(spec, tensors, objects):
    """An argument rebuilt from its spec with ``tensors`` (an iterator over the distinct
    tensors, with ``.seen`` the ones already taken) and ``objects``."""
    tag = spec[0]
    if tag == "T":
        if len(spec) == 2:
            return tensors.seen[spec[1]]
        t = next(tensors.it)
        tensors.seen.append(t)
        return t
    if tag == "S":
        return spec[2]
    if tag == "O":
        return objects[spec[2]]
    if tag is dict:
        return {k: _rebuild(s, tensors, objects) for k, s in zip(spec[1], spec[2])}
    return tag(_rebuild(s, tensors, objects) for s in spec[1])


def _guard_names(fn):
    """(global names, closure cells) of ``fn`` that hold Python scalars or strings at its
    first call; () when there are none."""
    fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return ()
    g = getattr(fn, "__globals__", {})
    names = tuple(n for n in code.co_names
                  if isinstance(g.get(n, _missing), (bool, int, float, str)))
    cells = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            if isinstance(cell.cell_contents, (bool, int, float, str)):
                cells.append(cell)
        except ValueError:
            continue
    if not names and not cells:
        return ()
    return names, tuple(cells)


def _fast_key(args):
    """Shapes and dtypes of ``args`` when they are distinct plain tensors, else None."""
    key = []
    for a in args:
        t = type(a)
        if t is not _Tensor and t is not _Parameter:
            return None
        d = a._data
        key.append(d.shape)
        key.append(d.dtype)
    if len(args) > 1 and len({id(a) for a in args}) != len(args):
        return None
    return tuple(key)


_missing = object()
_Tensor = P._Tensor          # set by spore._tensor / spore._parameter, imported before this
_Parameter = P._Parameter


# --------------------------------------------------------------------------- entries
class _Entry:
    __slots__ = ("compiled", "objects", "object_ids", "aliases", "n_draws", "uses_rng",
                 "rng_dynamic", "out_spec",
                 "epoch", "signature", "graph", "fallback", "compile_ms", "static_objects",
                 "peak_bytes", "generic", "dims")


class Fallback:
    """Why a function runs in PyNative instead (one per cache key)."""

    def __init__(self, filename, line, construct, source="", is_break=True):
        self.filename = filename
        self.line = line
        self.construct = construct
        self.source = source
        self.is_break = is_break      # a construct capture cannot represent (vs. an error)

    def __repr__(self):
        return f"{self.filename}:{self.line}: {self.construct}"


class JitReport:
    """What ``jit`` did with one function: its compiled entries and fallbacks."""

    def __init__(self, name, entries, fallbacks):
        self.name = name
        self.entries = entries
        self.fallbacks = fallbacks
        programs = {}                   # the sizes of a dynamic axis share one program
        for e in entries:
            if e.compiled is not None:
                programs.setdefault(id(e.compiled), e)
        live = list(programs.values())
        self.compiled = len(live)
        self.kernel_count = sum(_count_nodes(e.graph) for e in live)
        self.peak_bytes = max((e.peak_bytes for e in live), default=0)
        self.compile_ms = sum(e.compile_ms for e in live)

    @property
    def graphs(self):
        return [e.graph for e in self.entries if e.compiled is not None]

    def __repr__(self):
        lines = [f"jit report for {self.name}: {self.compiled} compiled entr"
                 f"{'y' if self.compiled == 1 else 'ies'}, {self.kernel_count} kernels, "
                 f"peak {self.peak_bytes} bytes, compile {self.compile_ms:.1f} ms"]
        for f in self.fallbacks:
            lines.append(f"  fallback to PyNative at {f!r}")
        return "\n".join(lines)

    __str__ = __repr__


# --------------------------------------------------------------------------- jit
class JitFunction:
    """A function compiled on first call (see NOTE: [Compiled calls])."""

    def __init__(self, fn, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False,
                 backend="", options=None):
        if capture_mode not in ("ast", "bytecode", "trace"):
            raise ValueError(f"For 'jit', the 'capture_mode' must be one of ['ast', "
                             f"'bytecode', 'trace'], but got {capture_mode!r}.")
        if jit_level not in (None, "", "O0", "O1", "O2"):
            raise ValueError(f"For 'jit', the 'jit_level' must be one of ['O0', 'O1', 'O2'], "
                             f"but got {jit_level!r}.")
        self.fn = fn
        self.capture_mode = capture_mode
        self.jit_level = jit_level or None
        self.dynamic = dynamic
        self.fullgraph = bool(fullgraph)
        self.backend = backend
        self.options = dict(options or {})
        self.name = getattr(fn, "__qualname__", getattr(fn, "__name__", type(fn).__name__))
        self._cache = {}           # spec -> list of entries (one per distinct graph)
        self._fast = {}            # shapes and dtypes of plain tensor arguments -> entry
        self._current = {}         # spec -> the entry used last
        self._locks = {}           # spec -> the lock its compile holds
        self._call_infos = {}      # spec -> the jitcall.CallInfo of its entry (under a tape)
        self._joints = {}          # the joint functions of its calls under a tape (dynamic)
        self._splits = {}          # a joint function's shared program -> its residuals.Split
        self._warned = False
        self._keys_seen = []
        self.declared_args = None  # ``enable_dynamic``: argument index -> declared Tensor
        self._families = []        # calls differing in sizes only (NOTE: [Dynamic axes])
        self._family_lock = threading.RLock()
        self.silent_trace = False  # a joint graph's trace: its forward's prints were shown
        functools.update_wrapper(self, fn, updated=())

    # methods: ``@jit def construct(self, x)`` binds like a function
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __call__(self, *args, **kwargs):
        if self.declared_args is not None:
            check_dynamic_args(self.declared_args, args)
        if P._scopes:
            if P.active_capture() is not None or V.is_batching():
                # nested in another trace: inlined; under vmap: batched op by op
                return self.fn(*args, **kwargs)
            if T.is_recording():
                return self._call_under_tape(args, kwargs)
        fast = None
        if not kwargs:
            # the common call: distinct tensors only (shapes and dtypes are the whole key)
            fast = _fast_key(args)
            if fast is not None:
                if self._guard_names:
                    fast = (fast, self._guard_values())
                entry = self._fast.get(fast)
                if entry is not None and entry.epoch == P.epoch and not entry.aliases \
                        and entry.fallback is None and (not entry.object_ids or not any(
                            id(a) in entry.object_ids for a in args)):
                    return _run(entry, args)
        tensors, objects = [], []
        spec = self._spec(args, kwargs, tensors, objects)
        entry = self._current.get(spec)
        if entry is None or entry.epoch != P.epoch or (entry.fallback is None
                                                       and not _aliases_hold(entry, tensors)):
            return self._miss(spec, entry, args, kwargs, tensors, objects, fast)
        if fast is not None:
            self._fast[fast] = entry
        if entry.fallback is not None:
            return self.fn(*args, **kwargs)
        return _run(entry, tensors)

    def _call_under_tape(self, args, kwargs):
        """A gradient is being taken from outside: one JitCall on the tape (NOTE:
        [JitCall]), or the Python function itself where that cannot be recomputed."""
        from .jitcall import call_under_tape
        tensors, objects = [], []
        spec = self._spec(args, kwargs, tensors, objects)
        entry = self._current.get(spec)
        if entry is None or entry.epoch != P.epoch:
            with T.suspended():                # the program shared by sizes may serve
                entry = self._lookup(spec, entry, args, kwargs, tensors, objects)
        if entry.fallback is not None:
            return self._run_fallback(entry, args, kwargs)
        if not _aliases_hold(entry, tensors):
            with T.suspended():
                entry = self._lookup(spec, None, args, kwargs, tensors, objects, False)
        if entry.fallback is not None:
            return self._run_fallback(entry, args, kwargs)
        out = call_under_tape(self, entry, spec, tensors)
        if out is NotImplemented:              # effects that a recompute would repeat
            return self.fn(*args, **kwargs)
        return out

    def entry_for(self, *args, **kwargs):
        """The compiled entry for these arguments, compiled if needed but not run (the
        joint graph of a JitCall must not repeat its forward's writes and prints). With
        dynamic axes it may be the program shared by the sizes (``entry.generic``)."""
        tensors, objects = [], []
        spec = self._spec(args, kwargs, tensors, objects)
        entry = self._current.get(spec)
        if self._dynamic_on():
            if entry is not None and entry.epoch == P.epoch and entry.fallback is None:
                return entry
            return self._lookup(spec, entry, args, kwargs, tensors, objects)
        return self._lookup(spec, entry, args, kwargs, tensors, objects, False)

    def _spec(self, args, kwargs, tensors, objects):
        """The cache key of a call; fills ``tensors`` and ``objects`` with its leaves."""
        return (_flatten(args, tensors, objects), _flatten(kwargs, tensors, objects),
                self._guard_values(), C._context["mode"], self._level())

    def _traced_fn(self):
        """The function to trace: source-converted under capture_mode="ast"."""
        if self.capture_mode != "ast":
            return self.fn
        fn = self.__dict__.get("_converted")
        if fn is None:
            fn = self.__dict__["_converted"] = convert_callable(self.fn)
        return fn

    @property
    def _guard_names(self):
        names = self.__dict__.get("_guards_cache")
        if names is None:
            names = self.__dict__["_guards_cache"] = _guard_names(self.fn)
        return names

    def _guard_values(self):
        """The Python scalars the function reads from its globals and closure (part of the
        key: MindSpore treats them as compile-time constants)."""
        names = self._guard_names
        if not names:
            return ()
        g, cells = names
        out = [self.fn.__globals__.get(n, _missing) for n in g]
        out += [c.cell_contents for c in cells]
        return tuple(out)

    def _level(self):
        return self.jit_level or C._context.get("jit_config", {}).get("jit_level") or "O0"

    # -- compile ---------------------------------------------------------------------
    def _miss(self, spec, entry, args, kwargs, tensors, objects, fast=None):
        entry = self._lookup(spec, entry, args, kwargs, tensors, objects)
        if fast is not None and entry.fallback is None:
            self._fast[fast] = entry
        if entry.fallback is not None:
            return self._run_fallback(entry, args, kwargs)
        return _run(entry, tensors)

    def _lookup(self, spec, entry, args, kwargs, tensors, objects, shared=True):
        """The entry for ``spec`` after the epoch moved or on a first call: traced again,
        reused when the graph is the same, compiled otherwise. ``shared``: the program
        shared by the sizes of a dynamic axis may serve (not under a gradient tape)."""
        if shared and self._dynamic_on():
            with self._family_lock:
                return self._lookup_sized(spec, entry, args, kwargs, tensors, objects)
        with self._key_lock(spec):
            return self._lookup_one(spec, entry, args, kwargs, tensors, objects)

    def _lookup_one(self, spec, entry, args, kwargs, tensors, objects, new=None):
        if entry is not None and entry.fallback is not None:
            entry.epoch = P.epoch
            return entry
        if new is None:
            new = self._capture(spec, args, kwargs, tensors, objects)
        if new.fallback is not None:
            return self._store(spec, new)
        for old in self._cache.get(spec, ()):
            if old.compiled is not None and old.signature == new.signature \
                    and _same_objects(old, new):
                old.epoch = P.epoch
                self._current[spec] = old
                return old
        self._compile(new)
        self._note_key(spec)
        return self._store(spec, new)

    def _store(self, spec, entry):
        self._cache.setdefault(spec, []).append(entry)
        self._current[spec] = entry
        return entry

    # -- dynamic axes (NOTE: [Dynamic axes]) ------------------------------------------
    def _dynamic_on(self):
        return bool(self.dynamic or self.declared_args is not None)

    def _lookup_sized(self, spec, entry, args, kwargs, tensors, objects):
        if entry is not None and entry.fallback is not None:
            entry.epoch = P.epoch
            return entry
        family = self._family_of(spec)
        if family is not None and family.verified:
            return self._store(spec, self._instance(family, tensors, objects))
        new = self._capture(spec, args, kwargs, tensors, objects)
        if new.fallback is None and family is not None:
            shared = self._join(family, spec, new, tensors, objects)
            if shared is not None:
                return self._store(spec, shared)
        captured = new.graph
        out = self._lookup_one(spec, None, args, kwargs, tensors, objects, new)
        if out is new and new.fallback is None and family is None:
            self._families.append(dynamic.Family(spec, new, captured, P.epoch))
            del self._families[:-4]                 # the newest few wait for a second size
        return out

    def _family_of(self, spec):
        """The family ``spec`` belongs to (or may join as its second size), if any."""
        self._families = [f for f in self._families if f.epoch == P.epoch and not f.dead]
        for f in self._families:
            if f.dims is not None:
                if dynamic.family_key(spec, f.dims) == f.key and dynamic.dims_hold(spec, f.dims):
                    return f
            elif dynamic.varying_dims(f.spec, spec) is not None:
                return f
        return None

    def _join(self, family, spec, new, tensors, objects):
        """``new`` (just traced) as the family's second size (its graph made symbolic and
        compiled as the shared program) or third (the guess verified); None, the family
        given up, when the graphs do not generalise."""
        if not dynamic.same_capture(family.first, new):
            family.dead = True
            return None
        dims = family.dims or dynamic.varying_dims(family.spec, spec)
        captured = new.graph
        try:
            undo = dynamic.generalise(family.graph, captured, dynamic.sizes_of(family.spec, dims),
                                      dynamic.sizes_of(spec, dims))
        except dynamic.NotGeneric:
            family.dead = True
            return None
        sig = signature(captured)
        if family.program is None:
            try:
                self._compile(new, [group[0] for group in dims])
            except Exception:                  # NotGeneric, or a pass that needs sizes
                dynamic.restore(undo)
                new.graph = captured
                family.dead = True
                return None
            new.signature = sig
            new.generic, new.dims = True, dims
            family.dims, family.key = dims, dynamic.family_key(spec, dims)
            family.program, family.signature = new, sig
            return new
        dynamic.restore(undo)
        if sig != family.signature:
            family.dead = True
            return None
        family.verified = True
        return self._instance(family, tensors, objects)

    def _instance(self, family, tensors, objects):
        """An entry of the family's shared program for one more size (no trace)."""
        p = family.program
        e = _Entry()
        for f in ("compiled", "objects", "object_ids", "n_draws", "uses_rng", "rng_dynamic",
                  "out_spec", "signature", "graph", "peak_bytes"):
            setattr(e, f, getattr(p, f))
        e.fallback, e.compile_ms, e.generic, e.dims = None, 0.0, True, p.dims
        e.static_objects, e.epoch = objects, P.epoch
        reachable = _reachable_tensor_ids(self.fn)
        e.aliases = {i: t for i, t in enumerate(tensors)
                     if id(t) in reachable or isinstance(t, _Parameter)}
        return e

    def _key_lock(self, spec):
        with _locks_guard:
            lock = self._locks.get(spec)
            if lock is None:
                lock = self._locks[spec] = threading.RLock()
            return lock

    def _capture(self, spec, args, kwargs, tensors, objects):
        entry = _Entry()
        entry.static_objects = objects
        entry.aliases = {}
        entry.object_ids = frozenset()
        entry.fallback = None
        entry.compiled = None
        entry.generic = False
        entry.dims = None
        entry.epoch = P.epoch
        cap = Capture(self.name.replace(".", "_").replace("<", "").replace(">", ""),
                      convert=self.capture_mode == "ast")
        fn = self._traced_fn()
        rng_state = R.get_state()
        epoch = P.epoch
        t0 = time.perf_counter()
        prev = P.set_capture(cap)
        try:
            for t in tensors:
                cap.bind_arg(t)
            it = _Leaves(tensors)
            args = _rebuild(spec[0], it, objects)
            kwargs = _rebuild(spec[1], it, objects)
            _refuse_generator(fn)
            with P.handler_scope(lambda below: cap.handle):
                out = fn(*args, **kwargs)
            out_spec = _output_spec(out, cap, tensors)
        except Exception as e:
            cap.unbind_args()
            P.set_capture(prev)
            R.set_state(rng_state)
            P.epoch = max(P.epoch, epoch)
            entry.fallback = _fallback_of(e)
            if self.fullgraph:
                raise CompileError(_compile_message(self.name, entry.fallback, e)) from e
            return entry
        finally:
            cap.unbind_args()
            P.set_capture(prev)
        if not self.silent_trace:
            for text, sep, end in cap.pending_prints:  # the trace succeeded: show them
                print(*text, sep=sep, end=end)
        graph = cap.finish(out_spec[1])
        entry.graph = graph
        entry.out_spec = out_spec[0]
        entry.objects = list(cap.objects)
        reachable = _reachable_tensor_ids(self.fn)
        entry.aliases = {i: t for i, t in enumerate(tensors)
                         if id(t) in reachable or isinstance(t, _Parameter)}
        entry.object_ids = frozenset(id(o) for o in entry.objects)
        entry.n_draws = cap.n_draws
        entry.uses_rng = cap.rng is not None
        entry.rng_dynamic = cap.rng_dynamic
        entry.signature = signature(graph)
        entry.compile_ms = (time.perf_counter() - t0) * 1e3
        # the capture made no change a graph depends on; Cells built inside it did
        entry.epoch = P.epoch
        return entry

    def _compile(self, entry, axes=None):
        t0 = time.perf_counter()
        level = self._level()
        dumper = dump.Dumper.from_context(entry.graph.name)
        if dumper is not None:
            dumper("capture", entry.graph)
        graph = passes.run_pipeline(entry.graph, level, on_pass=dumper, check=_VERIFY)
        if dumper is not None:
            dumper.final(graph)
        entry.graph = graph
        entry.compiled = codegen.generate(graph, axes=axes)
        entry.peak_bytes = entry.compiled.peak_bytes
        entry.compile_ms += (time.perf_counter() - t0) * 1e3

    def _run_fallback(self, entry, args, kwargs):
        """Run the Python function (PyNative). A construct that cannot be captured warns
        first; an error the trace hit is re-raised by the PyNative run when it is the
        user's (a bad argument raises there too), and warns only when PyNative succeeds."""
        f = entry.fallback
        if not f.is_break:
            out = self.fn(*args, **kwargs)
            self._warn_fallback(f)
            return out
        self._warn_fallback(f)
        try:
            return self.fn(*args, **kwargs)
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(f"(ms.jit ran '{self.name}' in PyNative mode because it could not "
                           f"be compiled: {f.filename}:{f.line}: {f.construct})")
            raise

    def _warn_fallback(self, f):
        if not self._warned:
            self._warned = True
            _warn_at_user(f"ms.jit could not compile '{self.name}' ({f.filename}:{f.line}: "
                          f"{f.construct}); it runs in PyNative mode instead (same results, "
                          "eager speed).")

    def _note_key(self, spec):
        self._keys_seen.append(spec)
        if len(self._keys_seen) == _RECOMPILE_WARN and not self.dynamic:
            _warn_at_user(f"ms.jit: '{self.name}' was compiled {_RECOMPILE_WARN} times for "
                          f"different arguments ({_changing(self._keys_seen)}); each new "
                          "shape, dtype or Python value of an argument compiles it again.")

    def report(self):
        entries = [e for es in self._cache.values() for e in es]
        return JitReport(self.name, entries, [e.fallback for e in entries if e.fallback])


class _Leaves:
    def __init__(self, tensors):
        self.it = iter(tensors)
        self.seen = []


def _count_nodes(graph):
    """Kernels a graph runs: its nodes (a fused group is one) and those of its branches
    and loop bodies."""
    from .ir import node_subgraphs
    from .fusion import fused_p
    inner = [g for n in graph.nodes if n.prim is not fused_p for g in node_subgraphs(n)]
    return len(graph.nodes) + sum(_count_nodes(g) for g in inner)


def _aliases_hold(entry, tensors):
    """Whether the arguments that were also reachable as closures (or are Parameters) at
    capture are the same objects now, and no argument is a tensor the graph reads from
    outside (either way the graph would read one object as two inputs, or two as one)."""
    if not all(tensors[i] is obj for i, obj in entry.aliases.items()):
        return False
    ids = entry.object_ids
    return not ids or not any(id(t) in ids for t in tensors)


def _same_objects(a, b):
    return (len(a.objects) == len(b.objects) and all(x is y for x, y in zip(a.objects, b.objects))
            and a.aliases.keys() == b.aliases.keys()
            and all(a.aliases[i] is b.aliases[i] for i in a.aliases))


def _output_spec(out, cap, tensors):
    """(template, graph outputs) of a traced function's result: a tensor argument comes
    back as the caller's object (writes to it happened in place), another concrete tensor
    as itself, a traced value as a graph output."""
    outputs = []
    arg_of = {id(t): i for i, t in enumerate(tensors)}

    def walk(x):
        if isinstance(x, P._Tensor):
            i = arg_of.get(id(x))
            if i is not None:
                return ("A", i)
            if type(x._data) is not np.ndarray:
                outputs.append(x._data.value)
                return ("V", len(outputs) - 1, None)
            return ("O", x)
        if isinstance(x, (tuple, list)):
            return (type(x), tuple(walk(e) for e in x))
        if isinstance(x, dict):
            return (dict, tuple(x), tuple(walk(v) for v in x.values()))
        return ("S", x)
    return walk(out), outputs


def _reachable_tensor_ids(fn, depth=4):
    """Ids of the tensors ``fn`` can reach without its arguments: its closure cells and
    the globals it names, following nested functions (``grad(f)`` holds ``f``) a few
    levels deep. An argument that is one of them is read as one input, so the compiled
    entry holds only while that argument is the same object."""
    ids = set()
    seen = set()

    def visit(f, d):
        f = getattr(f, "__func__", f)
        if d < 0 or id(f) in seen:
            return
        seen.add(id(f))
        if isinstance(f, functools.partial):
            for v in list(f.args) + list(f.keywords.values()) + [f.func]:
                leaf(v, d)
            return
        code = getattr(f, "__code__", None)
        if code is None:
            return
        g = getattr(f, "__globals__", {})
        for name in code.co_names:
            if name in g:
                leaf(g[name], d)
        for cell in getattr(f, "__closure__", None) or ():
            try:
                leaf(cell.cell_contents, d)
            except ValueError:
                continue

    def leaf(v, d):
        if isinstance(v, P._Tensor):
            ids.add(id(v))
        elif isinstance(v, (types.FunctionType, types.MethodType, functools.partial)):
            visit(v, d - 1)
    visit(fn, depth)
    return frozenset(ids)


def _run(entry, tensors):
    arrays = [t._data for t in tensors]
    arrays += [o._data for o in entry.objects]
    if entry.uses_rng:
        arrays.append(R.state_array())
    try:
        outs = entry.compiled.fn(*arrays)
    except Exception as e:
        node = entry.compiled.node_at(e.__traceback__)
        if node is not None and node.loc is not None and hasattr(e, "add_note"):
            e.add_note(f"(in the compiled graph: {node.prim.name} called at "
                       f"{node.loc[0]}:{node.loc[1]}: {node.loc[2]})")
        raise
    _advance_rng(entry, outs)
    return _build(entry.out_spec, outs, tensors)


def _advance_rng(entry, outs):
    """Move the random counter past the call's draws: a fixed number, or, when tensor
    control flow drew, the counter of the state the graph returns last."""
    if entry.rng_dynamic:
        R.set_state((R.get_state()[0], int(outs[-1][1])))
    elif entry.n_draws:
        R.advance(entry.n_draws)


def _build(spec, outs, tensors, wrap=P.wrap):
    tag = spec[0]
    if tag == "V":
        if spec[2] is not None and outs[spec[1]] is tensors[spec[2]]._data:
            return tensors[spec[2]]
        return wrap(outs[spec[1]])
    if tag == "A":
        return tensors[spec[1]]
    if tag == "O":
        return spec[1]
    if tag == "S":
        return spec[1]
    if tag is dict:
        return {k: _build(s, outs, tensors, wrap) for k, s in zip(spec[1], spec[2])}
    items = [_build(s, outs, tensors, wrap) for s in spec[1]]
    return tag(*items) if hasattr(tag, "_fields") else tag(items)


def graph_output_tensors(spec, out):
    """The tensors of a function's result that are graph outputs, in graph-output order."""
    found = {}

    def walk(s, x):
        tag = s[0]
        if tag == "V":
            found[s[1]] = x
        elif tag is dict:
            for k, c in zip(s[1], s[2]):
                walk(c, x[k])
        elif isinstance(tag, type) and issubclass(tag, (tuple, list)):
            for c, e in zip(s[1], x):
                walk(c, e)
    walk(spec, out)
    return [found[i] for i in range(len(found))]


def _warn_at_user(message):
    """A RuntimeWarning attributed to the innermost frame outside Spore (the user's call)."""
    import sys
    f = user_frame(sys._getframe(1))
    if f is None:
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        return
    warnings.warn_explicit(message, RuntimeWarning, f.f_code.co_filename, f.f_lineno,
                           module=f.f_globals.get("__name__"),
                           registry=f.f_globals.setdefault("__warningregistry__", {}))


def _refuse_generator(fn):
    """A generator function returns before it computes anything: it cannot be a graph."""
    if not inspect.isgeneratorfunction(fn):
        return
    code = inspect.unwrap(getattr(fn, "__func__", fn)).__code__
    fname, line = code.co_filename, code.co_firstlineno
    lines = linecache.getlines(fname)
    for k in range(line - 1, len(lines)):
        if "yield" in lines[k]:
            line = k + 1
            break
    raise GraphBreak("a generator function (`yield`)", loc=(
        fname, line, linecache.getline(fname, line).strip()), hint="Return the values "
        "instead (a list or tuple of tensors), or iterate outside the compiled function.")


def _fallback_of(exc):
    if isinstance(exc, GraphBreak) and exc.loc is not None:
        return Fallback(exc.loc[0], exc.loc[1], exc.construct, exc.loc[2])
    loc = _user_frame_of(exc.__traceback__)
    construct = f"{type(exc).__name__}: {exc}"
    if loc is None:
        return Fallback("<unknown>", 0, construct, is_break=isinstance(exc, GraphBreak))
    return Fallback(loc[0], loc[1], construct, loc[2], is_break=isinstance(exc, GraphBreak))


def _user_frame_of(tb):
    """The innermost frame outside Spore on the way to where ``tb`` was raised (the user's
    line that led there)."""
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return user_location(tb.tb_frame)


def _compile_message(name, f, exc):
    text = f"ms.jit could not compile '{name}': {f.filename}:{f.line}: {f.construct}"
    if f.source:
        text += f"\n    {f.source}"
    hint = getattr(exc, "hint", None)
    if hint:
        text += f"\n{hint}"
    return text


def _changing(keys):
    a, b = keys[-2], keys[-1]
    parts = []
    for i, (x, y) in enumerate(zip(a[0][1], b[0][1])):
        if x != y:
            parts.append(f"argument {i}")
    return ", ".join(parts) or "keyword arguments or globals"


def jit(function=None, *, capture_mode="ast", jit_level=None, dynamic=0, fullgraph=False,
        backend="", options=None, **kwargs):
    """Compile ``function`` (a function, a method, a Cell's ``construct`` or a Cell) into a
    graph on its first call; later calls with the same argument shapes, dtypes and
    Python values run the generated code.

    Examples:
        >>> import spore as ms
        >>> from spore import ops
        >>> @ms.jit
        ... def f(x):
        ...     return ops.tanh(x) * 2
        >>> f(ms.Tensor([0.0, 1.0]))
        Tensor(shape=[2], dtype=Float32, value= [ 0.00000000e+00,  1.52318871e+00])
    """
    config = kwargs.pop("jit_config", None)
    if kwargs:
        raise TypeError(f"jit() got unexpected keyword arguments {sorted(kwargs)}")
    if config is not None and jit_level is None:
        jit_level = getattr(config, "jit_level", None) or None

    def make(fn):
        from ..nn.cell import Cell
        if isinstance(fn, JitFunction):
            return fn
        if isinstance(fn, Cell):
            return _jit_cell(fn, capture_mode=capture_mode, jit_level=jit_level,
                             dynamic=dynamic, fullgraph=fullgraph, backend=backend,
                             options=options)
        if not callable(fn):
            raise TypeError(f"For 'jit', the 'function' must be callable, but got "
                            f"{type(fn).__name__}.")
        return JitFunction(fn, capture_mode=capture_mode, jit_level=jit_level,
                           dynamic=dynamic, fullgraph=fullgraph, backend=backend,
                           options=options)
    if function is None:
        return make
    return make(function)


def _jit_cell(cell, **config):
    """``ms.jit(cell)``: the cell's construct compiles in every mode; returns the cell."""
    jf = JitFunction(cell.construct, **config)
    jf.name = f"{type(cell).__name__}.construct"
    cell.__dict__["_jit_fn"] = jf
    return cell


def jit_report(fn):
    """The report of a compiled function: its entries, kernel count, peak bytes, compile
    time and every fallback to PyNative (``ms.jit_report(fn)``)."""
    from ..nn.cell import Cell
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if isinstance(fn, Cell):
        fn = fn.__dict__.get("_jit_fn") or fn.__dict__.get("_graph_construct")
        if fn is None:
            raise ValueError("this Cell has not been compiled (call it in GRAPH_MODE, or "
                             "through ms.jit, first)")
    if not isinstance(fn, JitFunction):
        raise TypeError(f"jit_report expects a function made by ms.jit, got "
                        f"{type(fn).__name__}")
    return fn.report()


# --------------------------------------------------------------------------- GRAPH_MODE cells
def run_cell(cell, args, kwargs):
    """Cell.__call__ in GRAPH_MODE: compile ``construct`` (nested cells are inlined)."""
    from .._autodiff import custom as _custom
    recording = T.is_recording()
    if recording and _custom.has_bprop(cell):
        return _custom.call_with_bprop(cell, args, kwargs)
    capture = P.active_capture()
    if capture is not None:                              # nested cells are inlined
        construct = cell.construct
        if capture.convert:
            construct = convert_callable(construct)
        return construct(*args, **kwargs)
    d = cell.__dict__
    jf = d.get("_jit_fn") or d.get("_graph_construct")
    if jf is None:
        construct = cell.construct
        if isinstance(getattr(construct, "__func__", None), JitFunction):
            return construct(*args, **kwargs)
        config = d.get("_jit_config")
        level = getattr(config, "jit_level", None) or None if config is not None else None
        jf = JitFunction(construct, jit_level=level)
        jf.name = f"{type(cell).__name__}.construct"
        if any(c.__dict__.get("_dynamic_inputs") is not None
               for _, c in cell.cells_and_names()):
            jf.dynamic = 1   # sizes along declared axes vary on purpose: NOTE: [Dynamic axes]
        d["_graph_construct"] = jf
    declared = d.get("_dynamic_inputs")
    if declared is not None:
        check_declared_inputs(declared, args)
    return jf(*args, **kwargs)


def check_declared_inputs(declared, args):
    """Check the arguments of a Cell call against ``Cell.set_inputs`` (MindSpore's Graph
    mode messages): their number, each tensor's rank, fixed sizes, Symbols and dtype."""
    from .._core.symbol import check_sizes
    if len(args) != len(declared):
        raise ValueError(f"For 'set_inputs', the number of inputs should be {len(declared)}, "
                         f"but got {len(args)}.")
    for i, (want, got) in enumerate(zip(declared, args)):
        if not isinstance(want, P._Tensor):
            continue
        if not isinstance(got, P._Tensor):
            raise TypeError(f"For set_inputs or tuple(list) in set_inputs, the {i + 1}th input "
                            f"should be a Tensor, but got {type(got).__name__}!")
        if got.dtype != want.dtype:
            raise TypeError(f"For set_inputs or tuple(list) in set_inputs, the {i + 1}th type "
                            f"should be Tensor[{want.dtype}], but got Tensor[{got.dtype}]!")
        ws, gs = want.shape, got.shape
        if ws == (-2,):                            # any rank
            continue
        if len(ws) != len(gs):
            raise ValueError(f"For set_inputs and tuple(list) in set_inputs, the dims of "
                             f"{i + 1}th input must be the same as expected, but got expected: "
                             f"{len(ws)}, and input: {len(gs)}!")
        for w, g in zip(ws, gs):
            if w != -1 and w != g:
                raise ValueError(f"For set_inputs and tuple(list) in set_inputs, the shape of "
                                 f"{i + 1}th input must be the same as expected, but got "
                                 f"expected: {w}, and input: {g}!")
        symbols = getattr(want._data, "symbols", None)
        if symbols is not None:
            check_sizes(symbols, gs, i)
