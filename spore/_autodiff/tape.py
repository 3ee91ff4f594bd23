"""The gradient tape: PyNative's recorded graph, with values attached.

NOTE: [Tape]
While ``ops.grad`` / ``value_and_grad`` run a function, a tape handler sits at
the dispatch point (see ``_core/primitive.py``). Each op call whose inputs
depend on a watched tensor appends a ``Record`` (primitive, attributes, value
ids of its inputs and outputs, and only the forward values its gradient rule
declared it needs). Value ids live on the tensors (``Tensor._tape_ref``, a dict
``{tape serial: value id}``), so the tape never keeps a tensor alive that no
rule needs. Tapes nest (grad of grad): every active tape records, and the ops
a rule runs while an outer tape is active are recorded on the outer tape.

In-place writes (``assign``, ``__setitem__``, ``add_`` ...) are recorded as
their functional form producing a *new* value id for the same tensor object.
Saved values a write would clobber are copied first (copy on write); writes
through aliases the tape cannot follow (views) raise instead of giving a
silently wrong gradient.
"""
from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray

_serials = itertools.count(1)
_tls = threading.local()   # per thread: .tapes, the tapes recording, outermost first


def _active():
    tapes = getattr(_tls, "tapes", None)
    if tapes is None:
        tapes = _tls.tapes = []
    return tapes


class Record:
    __slots__ = ("prim", "attrs", "in_ids", "inputs", "out_ids", "output", "out_avals",
                 "packed")

    def __init__(self, prim, attrs, in_ids, inputs, out_ids, output, out_avals,
                 packed=False):
        self.prim = prim
        self.attrs = attrs
        self.in_ids = in_ids
        self.inputs = inputs
        self.out_ids = out_ids
        self.output = output
        self.out_avals = out_avals
        self.packed = packed      # saved tensors went through ``saved_tensors_hooks``

    def unpacked(self):
        """(inputs, output) with packed saved tensors restored by their unpack hooks."""
        with suspended():
            inputs = tuple(x.unpack() if type(x) is Packed else x for x in self.inputs)
            out = self.output
            if type(out) is tuple:
                out = tuple(o.unpack() if type(o) is Packed else o for o in out)
            elif type(out) is Packed:
                out = out.unpack()
        return inputs, out


# NOTE: [Saved-tensor hooks]
# ``ms.saved_tensors_hooks(pack, unpack)``: while active in this thread, every tensor a
# record saves for its gradient rule (the inputs the rule reads, the output it reads)
# is stored as ``pack(tensor)``; the backward pass hands the rule ``unpack(packed)``
# instead. The hooks run with recording paused. ``_hooks_users`` counts active hook
# scopes in any thread, so a recording with none pays one global read.
_hooks_users = 0


class Packed:
    """A saved tensor in the form its pack hook returned, with the hook to restore it."""

    __slots__ = ("value", "unpack_hook")

    def __init__(self, value, unpack_hook):
        self.value = value
        self.unpack_hook = unpack_hook

    def unpack(self):
        return self.unpack_hook(self.value)


def _current_hooks():
    stack = getattr(_tls, "saved_hooks", None)
    return stack[-1] if stack else None


class saved_tensors_hooks:
    """``mindspore.saved_tensors_hooks(pack_hook, unpack_hook)``: a context manager that
    stores the tensors saved for the backward pass as ``pack_hook(tensor)`` and gives
    gradient rules ``unpack_hook(packed)`` (NOTE: [Saved-tensor hooks])."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("For 'saved_tensors_hooks', 'pack_hook' and 'unpack_hook' must be "
                            "callable.")
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self):
        global _hooks_users
        stack = getattr(_tls, "saved_hooks", None)
        if stack is None:
            stack = _tls.saved_hooks = []
        stack.append(self.hooks)
        _hooks_users += 1
        return self

    def __exit__(self, *exc):
        global _hooks_users
        _tls.saved_hooks.pop()
        _hooks_users -= 1
        return False


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    """``mindspore.register_saved_tensors_hooks``: a decorator running the function
    inside ``saved_tensors_hooks(pack_hook, unpack_hook)``."""
    import functools

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with saved_tensors_hooks(pack_hook, unpack_hook):
                return fn(*args, **kwargs)
        return wrapper
    return decorate


def _pack(x, hooks):
    if isinstance(x, P._Tensor):
        return Packed(hooks[0](x), hooks[1])
    return x


class Tape:
    def __init__(self):
        self.serial = next(_serials)
        self.records = []
        self._next_id = 0
        self._watched = []
        # arrays that recorded ops returned views of: id -> weak reference, so that a
        # new array reusing a dead array's id is not mistaken for it
        self._viewed = {}

    # -- values -------------------------------------------------------------
    def new_id(self, tensor):
        i = self._next_id
        self._next_id += 1
        ref = tensor._tape_ref
        if ref is None:
            tensor._tape_ref = {self.serial: i}
        else:
            ref[self.serial] = i
        return i

    def id_of(self, tensor):
        ref = tensor._tape_ref
        if ref is None:
            return None
        return ref.get(self.serial)

    def watch(self, tensor):
        """Make ``tensor`` a source; returns its value id."""
        self._watched.append(tensor)
        return self.new_id(tensor)

    def release(self):
        """Forget the value ids this tape put on long-lived source tensors."""
        for t in self._watched:
            ref = t._tape_ref
            if ref is not None:
                ref.pop(self.serial, None)
                if not ref:
                    t._tape_ref = None
        self._watched = []

    # -- recording ------------------------------------------------------------
    def record(self, prim, args, attrs, in_ids, out):
        needs = prim.grad_inputs
        inputs = tuple([_saved(a, i in needs) for i, a in enumerate(args)])
        if type(out) is tuple:
            out_ids = tuple([self.new_id(o) for o in out])
            out_avals = tuple([_aval(o._data) for o in out])
            if prim.kind == "view":
                for o in out:
                    self._note_view(o)
        else:
            out_ids = (self.new_id(out),)
            out_avals = (_aval(out._data),)
            if prim.kind == "view":
                self._note_view(out)
        saved_out = out if prim.grad_output else None
        if _hooks_users:
            hooks = _current_hooks()
            if hooks is not None:
                with suspended():
                    inputs = tuple([_pack(x, hooks) for x in inputs])
                    if type(saved_out) is tuple:
                        saved_out = tuple([_pack(o, hooks) for o in saved_out])
                    else:
                        saved_out = _pack(saved_out, hooks)
                self.records.append(Record(prim, attrs, in_ids, inputs, out_ids, saved_out,
                                           out_avals, True))
                return
        self.records.append(Record(prim, attrs, in_ids, inputs, out_ids, saved_out, out_avals))

    def _note_view(self, out):
        base = getattr(out._data, "base", None)
        if base is not None:
            self._viewed[id(base)] = weakref.ref(base)
            while getattr(base, "base", None) is not None:
                base = base.base
                self._viewed[id(base)] = weakref.ref(base)

    def _is_viewed(self, arr):
        ref = self._viewed.get(id(arr))
        return ref is not None and ref() is arr

    # -- in-place writes ------------------------------------------------------
    def before_write(self, target, writes_tracked_value=False):
        """Protect saved values from an in-place write to ``target``."""
        arr = target._data
        tracked = writes_tracked_value or self.id_of(target) is not None
        if tracked and (self._is_viewed(arr) or getattr(arr, "base", None) is not None):
            raise RuntimeError(
                "In-place update of a tensor that shares memory with another tensor (a view such "
                "as t[0], t.reshape(...), t.T) inside a gradient computation is not supported: "
                "the gradient could not follow the write. Use an out-of-place op instead, e.g. "
                "ops.tensor_scatter_update or ops.masked_fill.")
        for rec in self.records:
            out = rec.output
            if out is not None:
                if type(out) is tuple:       # a primitive with several results
                    if any(_shares(o, arr) for o in out):
                        rec.output = tuple(_protect(o, arr) for o in out)
                elif _shares(out, arr):
                    rec.output = _protect(out, arr)
            if any(isinstance(x, P._Tensor) and _shares(x, arr) for x in rec.inputs):
                rec.inputs = tuple(_protect(x, arr) if isinstance(x, P._Tensor) else x
                                   for x in rec.inputs)


def _shares(t, arr):
    d = t._data
    return d is arr or (type(d) is np.ndarray and type(arr) is np.ndarray
                        and np.may_share_memory(d, arr))


def _protect(t, arr):
    """A snapshot of ``t`` if the write to ``arr`` would change it."""
    d = t._data
    if d is arr or not isinstance(d, np.ndarray) or np.may_share_memory(d, arr):
        if d is arr or getattr(arr, "base", None) is d or d.base is None or d.base is arr:
            snap = P.snapshot(t)
            snap._tape_ref = t._tape_ref
            return snap
        raise RuntimeError(
            "In-place update of memory that a gradient computation still needs, through a "
            "different view of it. Use an out-of-place op instead.")
    return t


def _saved(a, needed):
    if isinstance(a, P._Tensor):
        return a if needed else _aval(a._data)
    return a


_new_aval = object.__new__


def _aval(data):
    """ShapedArray of an array (its shape is a tuple and its dtype a NumPy dtype already,
    so the constructor's conversions are skipped: this runs for every recorded value)."""
    a = _new_aval(ShapedArray)
    a.shape = data.shape
    a.dtype = data.dtype
    return a


# ---------------------------------------------------------------------------
# The tape handler
# ---------------------------------------------------------------------------
def _make_handler(below):
    active = _active()

    eager = below is P._eager_handler

    def tape_handler(prim, args, attrs):
        if prim.inplace_of is not None:
            return _inplace(prim, args, attrs, below, active)
        out = prim.eager(args, attrs) if eager else below(prim, args, attrs)
        if prim.nondiff:
            return out
        for tape in active:
            in_ids = None
            for i, a in enumerate(args):
                ref = getattr(a, "_tape_ref", None)
                if ref is not None:
                    vid = ref.get(tape.serial)
                    if vid is not None:
                        if in_ids is None:
                            in_ids = [None] * len(args)
                        in_ids[i] = vid
            if in_ids is not None:
                tape.record(prim, args, attrs, tuple(in_ids), out)
        return out
    return tape_handler


def _inplace(prim, args, attrs, below, active):
    target = args[0]
    fprim = P.get(prim.inplace_of)
    involved = []
    for tape in active:
        ids = [tape.id_of(a) if isinstance(a, P._Tensor) else None for a in args]
        # a tracked value written through a view would reach a base the tape cannot follow
        tape.before_write(target, any(i is not None for i in ids))
        if any(i is not None for i in ids):
            old = P.snapshot(target) if 0 in fprim.grad_inputs else target
            involved.append((tape, tuple(ids), old))
    out = below(prim, args, attrs)
    for tape, ids, old in involved:
        fargs = (old,) + tuple(args[1:])
        # the write produced a new value of the same tensor object: give it a new id
        tape.record(fprim, fargs, attrs, ids, target)
    return out


class recording:
    """Context manager: a tape is recording for the duration of the ``with``."""

    def __init__(self, tape):
        self.tape = tape
        self._scope = None

    def __enter__(self):
        active = _active()
        if not active:
            self._scope = P.handler_scope(_make_handler)
            self._scope.__enter__()
        active.append(self.tape)
        return self.tape

    def __exit__(self, *exc):
        _active().remove(self.tape)
        if self._scope is not None:
            self._scope.__exit__(*exc)
        return False


def is_recording():
    return bool(_active())


def active_tapes():
    """The tapes recording now, innermost last (more than one: a higher-order gradient)."""
    return tuple(_active())


class suspended:
    """No tape records for the duration of a ``with`` (a graph capture inside a gradient
    computation records its own tapes; the outer ones see one compiled call instead)."""

    def __enter__(self):
        tapes = _active()
        self._saved = tapes[:]
        tapes.clear()
        return self

    def __exit__(self, *exc):
        _active()[:] = self._saved
        return False


class separated:
    """Tapes started inside the ``with`` record above the handler installed next (vmap's
    batching handler): they get a list of their own, so ``grad`` inside installs its own
    tape handler on top; the tapes recording outside keep recording below, through the
    handler that holds their list."""

    def __enter__(self):
        self._saved = getattr(_tls, "tapes", None)
        _tls.tapes = []
        return self

    def __exit__(self, *exc):
        _tls.tapes = self._saved
        return False
