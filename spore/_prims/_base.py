"""Building blocks for defining primitives: elementwise families and shared rules."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core import threads as _threads
from .._core.aval import ShapedArray, is_scalar, shape_of

Primitive = P.Primitive


def dtype_name(npd):
    return str(D.dtype_of(npd))


def broadcast_shapes(name, *shapes):
    """NumPy broadcasting with MindSpore's error text."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shown = " and ".join(f"{list(s)}" for s in shapes)
        raise ValueError(f"For '{name}', the input shapes need to broadcast, but got {shown}: each "
                         "pair of dimensions must be equal or one of them must be 1.") from None


def common_dtype(xs):
    """Promotion over inputs: arrays/avals are strong, Python scalars weak."""
    return D.result_type(*[x if is_scalar(x) else D.dtype_of(x.dtype) for x in xs]).np


def elementwise_infer(out_dtype=None):
    """Shape rule of an elementwise primitive: broadcast; dtype from the policy."""
    def infer(prim, attrs, *xs):
        shape = broadcast_shapes(prim.name, *[shape_of(x) for x in xs])
        compute = np.dtype(prim.policy(prim, common_dtype(xs)))
        return ShapedArray(shape, out_dtype if out_dtype is not None else compute)
    return infer


def _bind_infer(prim, rule):
    prim.infer = lambda attrs, *xs: rule(prim, attrs, *xs)
    return prim


def unary(name, make, policy="all", *, out_dtype=None, nondiff=False, doc="", chunks="auto"):
    p = Primitive(name, make, kind="elementwise", policy=policy, n_inputs=1,
                  nondiff=nondiff, doc=doc)
    return _chunks(_bind_infer(p, elementwise_infer(out_dtype)), chunks)


def binary(name, make, policy="all", *, out_dtype=None, nondiff=False, doc="", chunks="auto"):
    p = Primitive(name, make, kind="elementwise", policy=policy, n_inputs=2,
                  nondiff=nondiff, doc=doc)
    return _chunks(_bind_infer(p, elementwise_infer(out_dtype)), chunks)


# NOTE: [Chunked elementwise] (spore/_core/threads.py). Ufuncs whose loops cost much
# more than the memory traffic they make start chunking at MIN_COSTLY elements, the
# others at MIN_CHEAP; kernels of several passes at MIN_COMPOSITE or MIN_CHEAP.
_COSTLY_UFUNCS = frozenset((
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2",
    "hypot", "power", "float_power", "cbrt", "fmod", "floor_divide", "sqrt",
    "reciprocal", "divide", "remainder"))


def _chunks(prim, chunks):
    """Declare how eager calls of an elementwise primitive run on the thread pool:
    ``"auto"`` (ufunc kernels: by their cost; other kernels: never), ``"cheap"`` or
    ``"costly"`` (a kernel of several passes, without ``out=``), or None (never)."""
    kernel = prim._cpu
    if chunks == "auto":
        if not isinstance(kernel, np.ufunc) or kernel.nout != 1:
            return prim
        costly = kernel.__name__ in _COSTLY_UFUNCS
        return prim.chunked(_threads.MIN_COSTLY if costly else _threads.MIN_CHEAP)
    if chunks is None:
        return prim
    return prim.chunked(_threads.MIN_COMPOSITE if chunks == "costly" else _threads.MIN_CHEAP,
                        composite=True)


def ufunc(fname):
    """Kernel factory for a ufunc of the backend's array module."""
    return lambda xp: getattr(xp, fname)


def unbroadcast(g, x):
    """Sum ``g`` down to the shape of input ``x`` (a Tensor, aval or scalar)."""
    shape = shape_of(x)
    gshape = tuple(g.shape)
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    if axes:
        g = sum_p(g, axis=axes, keepdims=False)
    if tuple(g.shape) != shape:
        g = reshape_p(g, shape=shape)
    return g


def cast_like(g, x):
    """Cast a cotangent to the dtype of input ``x`` (weak scalars take no cotangent)."""
    if is_scalar(x):
        return None
    want = np_dtype(x)
    if g._data.dtype != want:
        return cast_p(g, dtype=want)
    return g


def np_dtype(x):
    """NumPy dtype of a Tensor, array or aval."""
    data = getattr(x, "_data", x)
    return np.dtype(data.dtype)


def composite_grad(composite):
    """A gradient rule: the vjp of ``composite(*inputs, **attrs)``, a function written with
    primitives that computes the primitive's outputs (for gradients of gradients)."""
    def rule(attrs, inputs, out, douts):
        if not isinstance(douts, tuple):    # the backward pass unwraps a single output
            douts = (douts,)
        outs, pullback = P.composite_vjp(lambda *a: composite(*a, **attrs), *inputs)
        sens = tuple(d if d is not None else _zeros_like(o) for d, o in zip(douts, outs))
        return tuple(pullback(*sens))
    return rule


def _zeros_like(t):
    from .math import mul_p
    return mul_p(t, 0)


def grad_for(x, g):
    """Unbroadcast and cast ``g`` to input ``x``; None for weak scalars."""
    if x is None or is_scalar(x):
        return None
    want, got = getattr(x, "_data", x), getattr(g, "_data", g)
    if want.shape == got.shape and want.dtype == got.dtype:
        return g                      # the common case: nothing to sum or cast
    return cast_like(unbroadcast(g, x), x)


# Imported last: these families build their primitives with the helpers above.
from .reduce import sum_p  # noqa: E402
from .array import reshape_p, cast_p  # noqa: E402
