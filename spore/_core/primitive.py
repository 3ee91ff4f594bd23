"""The primitive registry and the one dispatch point every op call goes through.

NOTE: [Dispatch]
Every public op name (``ops.add``, ``ops.Add()(x, y)``, ``Tensor.add``,
``Tensor.__add__``) ends in ``Primitive.__call__``. It looks at the current
thread's *handler*:

* ``None`` (the common case): run the kernel now (``Primitive.eager``);
* otherwise the handler decides: the gradient tape records the call and then
  runs it; a graph capture adds a node to the graph being built.

Ops never look at the execution mode themselves; whoever installs a handler
(``ops.grad``, ``jit``) chooses what a call means. Handlers nest: a handler
receives the handler below it and calls it to compute the value.

NOTE: [Primitive]
A primitive is defined once, with everything about it on one screen:
kernel factory (``make(xp) -> kernel(*arrays, **attrs)``, so each backend gets
its own kernel), dtype policy, shape/dtype rule (``infer``), gradient rule,
fusion kind and effect flag. Inputs are positional (tensors or weak Python
scalars); attributes are keywords and are static (hashable) values.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from .. import _dtype as D
from . import backend as B
from . import threads as _threads

# ---------------------------------------------------------------------------
# The handler slot
# ---------------------------------------------------------------------------
# Handlers are per thread (a dataset worker thread computing with ops while the main
# thread is inside ops.grad must not record on the main thread's tape). `_scopes`
# counts active scopes in all threads, so the common case costs one global read.
_scopes = 0
_tls = threading.local()


class handler_scope:
    """Install ``make(below)`` as this thread's handler for the duration of a ``with``.

    ``make`` receives the handler below (a callable ``(prim, args, attrs)``) and
    returns the new handler.
    """

    def __init__(self, make):
        self._make = make

    def __enter__(self):
        global _scopes
        current = getattr(_tls, "handler", None)
        below = current if current is not None else _eager_handler
        stack = _tls.__dict__.setdefault("stack", [])
        stack.append(current)
        _tls.handler = self._make(below)
        _scopes += 1
        return _tls.handler

    def __exit__(self, *exc):
        global _scopes
        _tls.handler = _tls.stack.pop()
        _scopes -= 1
        return False


def current_handler():
    """This thread's active handler (None when ops run eagerly)."""
    return getattr(_tls, "handler", None)


# NOTE: [Epoch]
# Bumped by every change a compiled graph may depend on (Cell attributes, set_train,
# Parameter.set_data, hooks, set_context): a compiled function's cache hit compares one
# int, and re-checks what its graph read only when the epoch moved.
epoch = 0


def bump_epoch():
    global epoch
    epoch += 1


# The reverse-mode ``vjp(fn, *inputs) -> (outputs, pullback)`` of spore._autodiff, which
# installs it on import: a primitive whose gradient is itself written with primitives
# (LayerNormGrad, BatchNormGrad) differentiates that composite with it, without the
# primitives importing the layer above them.
composite_vjp = None


def active_capture():
    """The graph capture running in this thread (None outside ``jit`` tracing).

    Code below the compiler that must act differently while a graph is captured (random
    keys, snapshots of values an in-place write would clobber) asks here instead of
    importing the compiler.
    """
    return getattr(_tls, "capture", None)


def set_capture(capture):
    """Install ``capture`` as this thread's graph capture; returns the previous one."""
    prev = getattr(_tls, "capture", None)
    _tls.capture = capture
    return prev


class paused:
    """Run ops eagerly inside a capture (Cells and Parameters built while a function is
    traced are built once, with real values, as MindSpore builds them at compile time)."""

    def __enter__(self):
        self._capture = set_capture(None)
        self._scope = handler_scope(lambda below: _eager_handler)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)
        set_capture(self._capture)
        return False


def snapshot(t):
    """A Tensor holding ``t``'s current value that later in-place writes to ``t`` leave
    unchanged (a copy in PyNative; a ``Copy`` node while a graph is captured)."""
    capture = active_capture()
    if capture is not None:
        return capture.snapshot(t)
    return wrap(t._data.copy())


def _eager_handler(prim, args, attrs):
    return prim.eager(args, attrs)


# ---------------------------------------------------------------------------
# Tensor wrapping (the Tensor class registers itself here to avoid an import cycle)
# ---------------------------------------------------------------------------
_Tensor = None
_Parameter = None     # the Parameter subclass, also taken by the fast paths
_ndarray = np.ndarray


def _set_tensor_class(cls):
    global _Tensor
    _Tensor = cls


def _set_parameter_class(cls):
    global _Parameter
    _Parameter = cls


def wrap(arr):
    """A new Tensor around a backend array (NumPy scalars become 0-d arrays)."""
    if type(arr) is not _ndarray and not isinstance(arr, B.CPU.array_type):
        arr = _as_array(arr)
    t = _Tensor.__new__(_Tensor)
    t._data = arr
    t._tape_ref = None
    return t


def _as_array(x):
    if isinstance(x, np.generic):
        return np.asarray(x)
    try:
        B.of_array(x)
        return x
    except TypeError:
        return np.asarray(x)


def wrap_out(out):
    if type(out) is tuple:
        return tuple(wrap(o) for o in out)
    return wrap(out)


# ---------------------------------------------------------------------------
# dtype policies for elementwise primitives
# ---------------------------------------------------------------------------
class PrimitiveTypeError(TypeError):
    pass


def _dname(npd):
    return str(D.dtype_of(npd))


def allow_all(prim, common):
    return common


def allow_numeric(prim, common):
    """Any dtype except bool (bool is computed in the smallest int it fits)."""
    return common


def float_only(prim, common):
    """Floating/complex inputs only (MindSpore's CPU kernels reject integers)."""
    if common.kind in "fcV" or common == D.bfloat16.np:
        return common
    raise PrimitiveTypeError(
        f"For '{prim.name}', the input must be a floating-point tensor "
        f"(Float16, BFloat16, Float32, Float64), but got {_dname(common)}.")


def int_to_float32(prim, common):
    """Integers and bool are computed in float32 (MindSpore's true division)."""
    if common.kind in "biu":
        return np.dtype(np.float32)
    return common


def bool_or_int(prim, common):
    if common.kind in "biu":
        return common
    raise PrimitiveTypeError(
        f"For '{prim.name}', the input must be a bool or integer tensor, but got {_dname(common)}.")


POLICIES = {"all": allow_all, "float": float_only, "int_to_float": int_to_float32,
            "integer": bool_or_int}

_SCALAR_TYPES = (bool, int, float, complex)


# ---------------------------------------------------------------------------
# Primitive
# ---------------------------------------------------------------------------
REGISTRY = {}


class _EveryInput:
    """``grad_inputs`` of a rule that reads every input of a variadic primitive."""

    def __contains__(self, i):
        return True

    def __repr__(self):
        return "all"


EVERY_INPUT = _EveryInput()

KINDS = ("elementwise", "reduce", "opaque", "view")
EFFECTS = (None, "random", "state", "print", "check", "comm")


_NO_CHUNKS = 1 << 62        # Primitive.par_min of kernels that never run chunked


def _largest(arrays):
    return max((a.size for a in arrays if type(a) is _ndarray), default=0)


def _with_attrs(kernel, attrs):
    return functools.partial(kernel, **attrs)


class Primitive:
    """One primitive operation (see NOTE: [Primitive])."""

    __slots__ = ("name", "kind", "effect", "infer", "grad", "grad_inputs", "grad_output",
                 "grad_needed", "nondiff", "multiple_results", "policy", "_factory", "_kernels",
                 "_cpu", "eager", "doc", "inplace_of", "n_inputs", "_prepare", "writes",
                 "aliases", "returns_input", "specializer", "batch", "par_min",
                 "par_composite", "par_kernel", "__weakref__")

    def __init__(self, name, make, *, infer=None, kind="opaque", effect=None, policy=None,
                 multiple_results=False, nondiff=False, n_inputs=None, inplace_of=None,
                 prepare=None, writes=None, aliases=None, doc=""):
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is defined twice")
        if kind not in KINDS:
            raise ValueError(f"unknown fusion kind {kind!r}")
        if effect not in EFFECTS:
            raise ValueError(f"unknown effect {effect!r}")
        self.name = name
        self.kind = kind
        self.effect = effect
        self.infer = infer
        self.grad = None
        self.grad_inputs = ()      # indices of inputs whose *values* the rule needs
        self.grad_output = False   # whether the rule needs the output value
        self.grad_needed = False   # whether the rule takes the ``needed`` mask
        self.nondiff = nondiff
        self.multiple_results = multiple_results
        self.policy = POLICIES[policy] if isinstance(policy, str) else policy
        self.n_inputs = n_inputs
        self.inplace_of = inplace_of
        self.doc = doc
        self._prepare = prepare
        # NOTE: [Writes and aliases]
        # ``writes``: the input positions whose memory the kernel writes (state effects);
        # ``aliases``: for each output, the input it may share memory with (or None).
        # Graph capture, write-back and buffer reuse read only these declarations.
        if writes is None:
            writes = (0,) if effect == "state" else ()
        if effect != "state" and writes:
            raise ValueError(f"primitive {name!r} writes inputs but is not a state effect")
        self.writes = tuple(writes)
        if aliases is None:
            aliases = (0,) if kind == "view" else ()
        self.aliases = tuple(aliases)
        self.returns_input = False
        # specializer(attrs, input avals) -> a bare kernel for compiled code, or None: where
        # the eager kernel's run-time checks are decided by shapes and dtypes alone
        self.specializer = None
        # batch(size, attrs, values, dims) -> (out, out dims) or None: the vmap rule
        # (spore/_autodiff/vmap.py, NOTE: [Batching]); None means the loop fallback
        self.batch = None
        # NOTE: [Chunked elementwise] (spore/_core/threads.py): eager calls on arrays of at
        # least ``par_min`` elements run chunked on the thread pool (``parallel``)
        self.par_min = _NO_CHUNKS
        self.par_composite = False
        # a kernel of its own for those calls (spore/_prims/vecmath.py), or None
        self.par_kernel = None
        self._factory = make
        self._kernels = {}
        self._cpu = make(np)
        self._kernels["CPU"] = self._cpu
        if self.policy is not None and n_inputs == 2:
            self.eager = self._eager_binary
        elif self.policy is not None and n_inputs == 1:
            self.eager = self._eager_unary
        else:
            self.eager = self._eager_generic
        REGISTRY[name] = self

    def __repr__(self):
        return f"Prim[{self.name}]"

    # -- gradient rule registration ---------------------------------------
    def def_grad(self, inputs=(), output=False, needed=False):
        """Decorator: ``rule(attrs, inputs, output, dout) -> tuple of cotangents``.

        ``inputs``: the input positions whose values the rule reads ("all" for
        every one); other inputs reach the rule as shape/dtype-only avals.
        ``output``: whether the rule reads the forward output.
        ``needed``: the rule takes a fifth argument, a tuple of bools saying which
        inputs need a cotangent; it may return None for the others and so skip
        their work (the input gradient of a first layer, for example).
        """
        def deco(rule):
            self.grad = rule
            self.grad_inputs = (EVERY_INPUT if inputs == "all" and self.n_inputs is None
                                else tuple(range(self.n_inputs)) if inputs == "all"
                                else tuple(inputs))
            self.grad_output = output
            self.grad_needed = needed
            return rule
        return deco

    def def_batch(self, rule):
        """Decorator: ``rule(size, attrs, values, dims) -> (out, out_dims)`` runs the
        primitive once over a whole batch (see NOTE: [Batching] in ``_autodiff/vmap.py``);
        returning None hands the call to the loop fallback."""
        self.batch = rule
        return rule

    def chunked(self, min_elements, composite=False):
        """Let eager calls on ``min_elements`` or more run chunked on the thread pool
        (elementwise kernels only: each output element from the same input elements).
        ``composite``: the kernel makes several passes and has no ``out=``."""
        if self.kind != "elementwise":
            raise ValueError(f"primitive {self.name!r} is not elementwise")
        self.par_min = int(min_elements)
        self.par_composite = composite
        return self

    def parallel(self, arrays, attrs):
        """The CPU kernel on ``arrays`` in chunks (the same values as one call)."""
        if self.par_kernel is not None:
            return self.par_kernel(*arrays, **attrs)
        kernel = self._cpu if not attrs else _with_attrs(self._cpu, attrs)
        return _threads.elementwise(kernel, arrays, self.par_composite)

    def returns_written_input(self):
        """Make eager calls return the input Tensor they wrote into, the same object
        (``ops.assign`` and the fused optimizer updates return their Parameter)."""
        if not self.writes or self.writes[0] != 0:
            raise ValueError(f"primitive {self.name!r} does not write its first input")
        run = self._eager_generic

        def eager(args, attrs):
            run(args, attrs)
            return args[0]
        self.eager = eager
        self.returns_input = True
        return self

    # -- dispatch -----------------------------------------------------------
    def __call__(self, *args, **attrs):
        if _scopes == 0:
            return self.eager(args, attrs)
        handler = getattr(_tls, "handler", None)
        if handler is None:
            return self.eager(args, attrs)
        return handler(self, args, attrs)

    def kernel(self, backend):
        k = self._kernels.get(backend.name)
        if k is None:
            k = self._kernels[backend.name] = self._factory(backend.xp)
        return k

    # -- eager execution ------------------------------------------------------
    def _eager_binary(self, args, attrs):
        # Fast paths (no promotion needed): two same-dtype NumPy tensors, or a float
        # tensor with a weak Python int/float (NumPy keeps the tensor's dtype then).
        x, y = args
        tx, ty = type(x), type(y)
        if tx is _Tensor or tx is _Parameter:
            a = x._data
            if type(a) is _ndarray:
                if ty is _Tensor or ty is _Parameter:
                    b = y._data
                    if a.dtype is b.dtype and type(b) is _ndarray \
                            and self.policy(self, a.dtype) is a.dtype:
                        # _fast inlined: the commonest op call (W0: ~5% of its time)
                        try:
                            if a.size >= self.par_min:
                                out = self.parallel((a, b), attrs)
                            else:
                                out = self._cpu(a, b, **attrs) if attrs else self._cpu(a, b)
                        except Exception as e:
                            raise self._explain(e, (a, b), attrs) from None
                        t = _Tensor.__new__(_Tensor)
                        t._data = out if type(out) is _ndarray else np.asarray(out)
                        t._tape_ref = None
                        return t
                elif (ty is float or ty is int) and a.dtype.kind == "f" \
                        and self.policy(self, a.dtype) is a.dtype:
                    return self._fast(a, y, attrs)
        elif (tx is float or tx is int) and (ty is _Tensor or ty is _Parameter):
            b = y._data
            if type(b) is _ndarray and b.dtype.kind == "f" and self.policy(self, b.dtype) is b.dtype:
                return self._fast(x, b, attrs)
        return self._eager_generic(args, attrs)

    def _fast(self, a, b, attrs):
        try:
            if (a if type(a) is _ndarray else b).size >= self.par_min:
                out = self.parallel((a, b), attrs)
            else:
                out = self._cpu(a, b, **attrs) if attrs else self._cpu(a, b)
        except Exception as e:
            raise self._explain(e, (a, b), attrs) from None
        t = _Tensor.__new__(_Tensor)
        t._data = out if type(out) is _ndarray else np.asarray(out)
        t._tape_ref = None
        return t

    def _eager_unary(self, args, attrs):
        (x,) = args
        tx = type(x)
        if tx is _Tensor or tx is _Parameter:
            a = x._data
            if type(a) is _ndarray and self.policy(self, a.dtype) is a.dtype:
                try:
                    if a.size >= self.par_min:
                        out = self.parallel((a,), attrs)
                    else:
                        out = self._cpu(a, **attrs) if attrs else self._cpu(a)
                except Exception as e:
                    raise self._explain(e, (a,), attrs) from None
                t = _Tensor.__new__(_Tensor)
                t._data = out if type(out) is _ndarray else np.asarray(out)
                t._tape_ref = None
                return t
        return self._eager_generic(args, attrs)

    def _eager_generic(self, args, attrs):
        arrays = self._plain_arrays(args)
        if arrays is not None:
            kernel = self._cpu
        else:
            arrays = self.prepare(args)
            backend = _backend_of(arrays)
            kernel = self._cpu if backend is B.CPU else self.kernel(backend)
        try:
            if kernel is self._cpu and self.par_min is not _NO_CHUNKS \
                    and _largest(arrays) >= self.par_min:
                out = self.parallel(arrays, attrs)
            else:
                out = kernel(*arrays, **attrs)
        except Exception as e:
            raise self._explain(e, arrays, attrs) from None
        if self.multiple_results:
            return tuple(wrap(o) for o in out)
        return wrap(out)

    def _plain_arrays(self, args):
        """The NumPy arrays of ``args`` when every one is a NumPy-backed Tensor and the
        primitive has no preparation step (the common case, unwrapped without checks);
        None otherwise."""
        if self._prepare is not None or self.policy is not None:
            return None
        arrays = []
        for a in args:
            t = type(a)
            if t is not _Tensor and t is not _Parameter:
                return None
            d = a._data
            if type(d) is not _ndarray:
                return None
            arrays.append(d)
        return arrays

    def prepare(self, args):
        """Unwrap tensors and apply the dtype policy; returns the kernel's inputs."""
        if self._prepare is not None:
            return self._prepare(args)
        arrays = [_unwrap_input(self, a) for a in args]
        if self.policy is not None:
            try:
                arrays = self._apply_policy(arrays)
            except OverflowError as e:      # a Python int beyond the computing dtype
                raise ValueError(f"For '{self.name}', an input does not fit in the dtype it is "
                                 f"computed in: {e}.") from None
        return arrays

    def _apply_policy(self, arrays):
        compute, has_strong = self.policy_dtype(arrays)
        backend = None
        for a in arrays:
            if not isinstance(a, _SCALAR_TYPES):
                backend = B.of_array(a)
                break
        xp = (backend or B.CPU).xp
        out = []
        for a in arrays:
            if isinstance(a, _SCALAR_TYPES):
                out.append(convert_scalar(a, compute, has_strong, xp))
            elif a.dtype != compute:
                out.append(a.astype(compute))
            else:
                out.append(a)
        return out

    def policy_dtype(self, items):
        """(compute dtype, whether any input is a tensor) of an elementwise call on
        ``items`` (arrays or avals, and weak Python scalars): MindSpore's promotion, then
        the primitive's policy. Graph codegen asks this with avals."""
        strong = None
        weak = -1
        for a in items:
            if isinstance(a, _SCALAR_TYPES):
                weak = max(weak, D.scalar_category(a))
            else:
                d = D.dtype_of(a.dtype)
                strong = d if strong is None else D.promote_types(strong, d)
        if strong is None:
            common = D.result_type(*items).np
        elif weak >= 0:
            common = D.promote_with_scalar(strong, weak).np
        else:
            common = strong.np
        return np.dtype(self.policy(self, common)), strong is not None

    def _explain(self, exc, arrays, attrs):
        """Turn a kernel failure into an error that names the op (and, via infer, the argument)."""
        if isinstance(exc, (PrimitiveTypeError, SporeError)):
            return exc
        if self.infer is not None:
            try:
                self.infer(attrs, *arrays)
            except (TypeError, ValueError, IndexError) as good:
                return good
            except Exception:
                pass
        # the builtin class, not NumPy's subclass (whose constructor wants other arguments)
        cls = next((c for c in (TypeError, ValueError, IndexError) if isinstance(exc, c)),
                   RuntimeError)
        shapes = ", ".join(_describe(a) for a in arrays)
        if any(a is None for a in arrays):
            return TypeError(f"For '{self.name}', an input is None ({shapes}).")
        if cls is TypeError and "ufunc" in str(exc):
            return TypeError(f"For '{self.name}', the input dtypes are not supported: "
                             f"({shapes}).")
        return cls(f"For '{self.name}', the operation failed for inputs ({shapes}): {exc}")


def convert_scalar(a, compute, has_strong, xp):
    """A weak Python scalar as an elementwise kernel takes it, computing in ``compute``."""
    if not has_strong:
        return xp.asarray(a, dtype=compute)
    if compute.kind in "iu" and isinstance(a, float):
        return xp.asarray(a).astype(compute)
    if compute.kind == "b" and not isinstance(a, bool):
        return xp.asarray(a, dtype=compute)
    if compute.kind == "V":
        # ml_dtypes (bfloat16) would widen for a Python float: pin the scalar
        return xp.asarray(a, dtype=compute)
    return a


class SporeError(Exception):
    """Base of errors raised by Spore itself (never wrapped again)."""


def _describe(a):
    if isinstance(a, _SCALAR_TYPES):
        return f"{type(a).__name__} {a!r}"
    try:
        return f"Tensor[{D.dtype_of(a.dtype)}]{list(a.shape)}"
    except Exception:
        return type(a).__name__


def _backend_of(arrays):
    for a in arrays:
        if type(a) is _ndarray:
            return B.CPU
        if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, np.generic):
            return B.of_array(a)
    return B.CPU


def _unwrap_input(prim, a):
    if isinstance(a, _Tensor):
        return a._data
    if isinstance(a, np.generic):     # before the Python-scalar test: np.float64 is a float
        return a.item()
    if isinstance(a, _SCALAR_TYPES):
        return a
    if a is None:
        if prim.policy is None:
            return a            # an optional input (a bias, a weight) left out
        raise TypeError(f"For '{prim.name}', every input must be a Tensor or a number, "
                        f"but got None.")
    if isinstance(a, np.ndarray):
        raise TypeError(
            f"For '{prim.name}', a NumPy array cannot be an op input: got numpy.ndarray "
            f"with shape {a.shape}. Wrap it as ms.Tensor(array) first "
            f"(MindSpore rejects Tensor + numpy.ndarray too).")
    if isinstance(a, (list, tuple)):
        return _Tensor(a)._data
    raise TypeError(f"For '{prim.name}', unsupported input of type {type(a).__name__}.")


def get(name) -> Primitive:
    return REGISTRY[name]
