"""The bad-input table: every public ``spore.ops`` name and Tensor operator, each argument
in turn replaced by a bad value (None, a string, wrong dtype or rank, bad and duplicate
axes, empty and 0-d tensors, NaN/inf, overflowing ints).

A call may return (bad for one op is fine for another: ``exp(nan)`` is nan) or raise
TypeError / ValueError / IndexError / RuntimeError whose message names the op: its public
name, one of its aliases or a primitive it dispatched. Anything else (AttributeError,
OverflowError, a NumPy exception class, a message that names nothing) is a failure.

The table is deterministic and built from the signatures, so a new op is covered the day
it is added. ``python -m tests.helpers.badinput`` prints the failures and counts.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import io
import math
import re
import signal
import threading
import types
import warnings

import numpy as np

import spore as ms
from spore import ops, Tensor
from spore._core import primitive as P

CLEAR = (TypeError, ValueError, IndexError, RuntimeError)


def _t(shape, dtype=np.float32, fill=None):
    if fill is not None:
        return Tensor(np.full(shape, fill, dtype))
    return Tensor((np.arange(int(np.prod(shape))) % 5 + 1).reshape(shape).astype(dtype))


def bad_values():
    """``(label, value)`` pairs; fresh tensors each call (some ops write in place)."""
    special = np.array([[np.nan, np.inf, -np.inf], [1.0, -2.0, 0.0]], np.float32)
    return [
        ("None", None),
        ("str", "abc"),
        ("bool-tensor", _t((2, 3), np.bool_)),
        ("int32-tensor", _t((2, 3), np.int32)),
        ("complex-tensor", _t((2, 3), np.complex64)),
        ("0d-tensor", Tensor(np.float32(1.5))),
        ("4d-tensor", _t((1, 2, 1, 3))),
        ("empty-tensor", _t((0,))),
        ("empty-2d-tensor", _t((2, 0))),
        ("nan-inf-tensor", Tensor(special)),
        ("int-2**70", 2 ** 70),
        ("int--2**70", -2 ** 70),
        ("int-2**63", 2 ** 63),
        ("axis-5", 5),
        ("axis--5", -5),
        ("axes-dup", (0, 0)),
        ("axes-dup-neg", (1, -1)),
        ("float-1.5", 1.5),
        ("nan", math.nan),
        ("empty-list", []),
        ("ndarray", np.ones((2, 3), np.float32)),
    ]


# Base values by parameter name; anything else (input, x, other, ...) gets a float tensor.
_BASE = {
    "shape": (2, 3), "size": (2, 3), "sizes": (2, 3), "output_size": (2, 3),
    "dtype": ms.float32, "type": ms.float32, "axis": 0, "dim": 0, "dims": 0, "axes": 0,
    "dim0": 0, "dim1": 1, "dim2": 1, "axis0": 0, "axis1": 1, "axis2": 1,
    "equation": "ij->ji", "expr": "ij->ji", "n": 2, "k": 1, "chunks": 2, "steps": 3,
    "start": 0, "end": 3, "step": 1, "num_segments": 2, "kernel_size": 1,
    "indices_or_sections": 2, "split_size_or_sections": 1, "repeats": 2, "seed": 0,
    "fill_value": 1.0, "value": 1.0, "norm_type": 2.0, "max_norm": 1.0, "alpha": 1.0,
    "low": 0, "high": 3, "mean": 0.0, "row": 2, "col": 3, "begin": (0, 0),
    "source": 0, "destination": 1, "multiples": (1, 2), "perm": (1, 0),
}


def _base(name):
    if name in ("fn", "fun", "func"):
        return lambda *a: a[0]
    if name in ("tensors", "inputs", "operands", "input_x") :
        return (_t((2, 3)), _t((2, 3)))
    if name in ("indices", "index", "segment_ids", "labels", "target"):
        return _t((2, 3), np.int64) - 1
    if name == "mask":
        return _t((2, 3), np.bool_)
    if name in _BASE:
        return _BASE[name]
    return _t((2, 3))


# Names the table does not call: higher-order functions take callables, not data.
SKIP = {"grad", "value_and_grad", "GradOperation", "vjp", "jvp", "jacrev", "jacfwd",
        "HyperMap", "Map", "MultitypeFuncGraph", "partial", "stop_gradient", "depend",
        "print_", "Print", "custom", "Custom", "prim_attr_register",
        "tensordump", "TensorDump"}   # (these two write .npy files into the working folder)


def public_ops():
    """``(names, object)`` for every public function and primitive class of ``spore.ops``
    (aliases grouped)."""
    seen = {}
    for name in sorted(dir(ops)):
        obj = getattr(ops, name)
        if name.startswith("_") or isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        seen.setdefault(id(obj), (obj, []))[1].append(name)
    return [(tuple(names), obj) for obj, names in seen.values()
            if not set(names) & SKIP]


def _parameters(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [p for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _takes_varargs(fn):
    return any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values())


def _calls_of_function(fn):
    """``(argument, thunk-maker)``: each parameter replaced by each bad value."""
    params = _parameters(fn)
    if params is None:
        return
    required = [p for p in params if p.default is p.empty]
    if not params and not _takes_varargs(fn):   # is_initialized(): its one call
        yield "()", fn
        return
    if _takes_varargs(fn):                 # block_diag(*inputs): a good and a bad one
        for label, _ in bad_values():
            def call(label=label):
                return fn(_t((2, 3)), dict(bad_values())[label])
            yield f"*args={label}", call
    for target in params:
        for label, _ in bad_values():
            def call(target=target, label=label):
                value = dict(bad_values())[label]
                args, kwargs = [], {}
                for p in required:
                    v = value if p is target else _base(p.name)
                    if p.kind == p.KEYWORD_ONLY:
                        kwargs[p.name] = v
                    else:
                        args.append(v)
                if target.default is not target.empty:
                    kwargs[target.name] = value
                return fn(*args, **kwargs)
            yield f"{target.name}={label}", call


def _calls_of_class(cls):
    """Primitive classes: constructed with defaults, then each input replaced."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            inst = cls()
    except Exception:
        return
    params = _parameters(getattr(inst, "__call__", None))
    if params is None:
        return
    required = [p for p in params if p.default is p.empty]
    if not required:
        required = params[:2]
    for target in required:
        for label, _ in bad_values():
            def call(target=target, label=label):
                value = dict(bad_values())[label]
                return inst(*[value if p is target else _base(p.name) for p in required])
            yield f"{target.name}={label}", call


_OPERATORS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__and__",
              "__or__", "__xor__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__"]
_UNARY = ["__neg__", "__abs__", "__invert__", "__pos__"]


def cases():
    """``(op names, argument label, thunk)`` for the whole table."""
    out = []
    for names, obj in public_ops():
        gen = _calls_of_class(obj) if inspect.isclass(obj) else _calls_of_function(obj)
        for arg, call in gen:
            out.append((names, arg, call))
    for op in _OPERATORS:
        for label, _ in bad_values():
            def call(op=op, label=label):
                return getattr(_t((2, 3)), op)(dict(bad_values())[label])
            out.append((("Tensor." + op,), f"other={label}", call))
    for op in _UNARY:
        for label, _ in bad_values():
            if not isinstance(dict(bad_values())[label], Tensor):
                continue
            def call(op=op, label=label):
                return getattr(dict(bad_values())[label], op)()
            out.append((("Tensor." + op,), f"self={label}", call))
    return out


class _Recorder:
    """A dispatch handler that notes the primitives a call reaches."""

    def __init__(self, below):
        self.below = below
        self.names = []

    def __call__(self, prim, args, attrs):
        self.names.append(prim.name)
        return self.below(prim, args, attrs)


# Names MindSpore 2.10 itself gives an op in its messages (kept for compatibility).
ALSO_NAMED = {"cross_entropy": "cross_entropy_loss",
              "SparseSoftmaxCrossEntropyWithLogits": "cross_entropy_loss"}


def _op_names(names):
    """A public name and the spellings a message may use for it (``Tensor.__add__`` is
    the ``add`` operator)."""
    out = set()
    for n in names:
        out.add(n)
        if n in ALSO_NAMED:
            out.add(ALSO_NAMED[n])
        if n.startswith("Tensor.__"):
            out.add(n[len("Tensor.__"):].strip("_").lstrip("r"))
    return out


LIMIT_S = 5.0


class _Slow(BaseException):
    """Raised by the alarm: a call that loops in Python on a bad size never finishes."""


@contextlib.contextmanager
def _time_limit(seconds):
    if not hasattr(signal, "setitimer") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return

    def alarm(signum, frame):
        raise _Slow()
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run_case(names, call):
    """``(outcome, detail)``: outcome "returned", "clear" (an error naming the op or a
    primitive it reached), "constituent" (naming a public op it is built from) or "fail"."""
    holder = {}

    def make(below):
        holder["rec"] = _Recorder(below)
        return holder["rec"]
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                _time_limit(LIMIT_S):
            warnings.simplefilter("ignore")
            with P.handler_scope(make):
                call()
        return "returned", None
    except _Slow:
        return "fail", f"took more than {LIMIT_S} s"
    except CLEAR as e:
        exc = e
    except Exception as e:           # noqa: BLE001 (the point: anything else is a failure)
        return "fail", f"{type(e).__module__}.{type(e).__name__}: {str(e)[:200]}"
    if type(exc).__module__.split(".")[0] not in ("builtins", "spore"):
        return "fail", f"{type(exc).__module__}.{type(exc).__name__}: {str(exc)[:200]}"
    message = str(exc)
    named = _op_names(names) | set(holder["rec"].names if "rec" in holder else ())
    if _names_one_of(message, named):
        return "clear", message
    if _names_one_of(message, _all_op_names()):
        return "constituent", message
    return "fail", f"{type(exc).__name__} names no op: {message[:200]}"


def _names_one_of(message, names):
    return _pattern(tuple(sorted(names))).search(message) is not None


@functools.lru_cache(maxsize=None)
def _pattern(names):
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])", re.I)


@functools.lru_cache(maxsize=None)
def _all_op_names():
    """Every public op, primitive class and primitive name: a composite may report the op
    it is built from (``norm`` -> ``vector_norm``)."""
    from spore._core.primitive import REGISTRY
    return frozenset(n for n in dir(ops) if not n.startswith("_")) | frozenset(REGISTRY)


def run_table():
    """Run every case; returns (counts by outcome, failures as (op, argument, problem))."""
    counts = {"tried": 0, "returned": 0, "clear": 0, "constituent": 0, "fail": 0}
    failures = []
    for names, arg, call in cases():
        counts["tried"] += 1
        outcome, detail = run_case(names, call)
        counts[outcome] += 1
        if outcome == "fail":
            failures.append((names[0], arg, detail))
    return counts, failures


if __name__ == "__main__":
    import collections
    import sys
    import time
    t0 = time.perf_counter()
    counts, failures = run_table()
    print(f"{counts}, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    by_op = collections.defaultdict(list)
    for op, arg, problem in failures:
        by_op[op].append((arg, problem))
    for op, items in sorted(by_op.items()):
        print(f"== {op} ({len(items)})")
        for arg, problem in items[:4]:
            print(f"   {arg}: {problem}")
