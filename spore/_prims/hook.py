"""HookBackward: an identity primitive whose gradient rule shows the cotangents of its
inputs to a user function, which may replace them (``ops.HookBackward``).

The forward pass returns its tensor inputs unchanged; the gradient rule calls
``hook_fn(grads)`` with the tuple of incoming cotangents (None where an output got
none). A None result keeps them; a Tensor or a tuple of the same length replaces them.
"""
from __future__ import annotations

from .._core import primitive as P
from .._core.aval import ShapedArray


def make_identity_many(xp):
    """Kernel factory of the hook primitives: their inputs, unchanged (the attributes carry
    what the gradient rule needs)."""
    def identity_many(*xs, **attrs):
        return tuple(xs)
    return identity_many


def identity_many_infer(attrs, *xs):
    return tuple(ShapedArray(x.shape, x.dtype) for x in xs)


hook_backward_p = P.Primitive("HookBackward", make_identity_many, kind="opaque",
                              multiple_results=True, infer=identity_many_infer)


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


@hook_backward_p.def_grad()
def _hook_backward_grad(attrs, inputs, out, dout):
    douts = dout if isinstance(dout, tuple) else (dout,)
    new = attrs["hook_fn"](douts)
    if new is None:
        return douts
    if not isinstance(new, tuple):
        new = (new,)
    if len(new) != len(douts):
        raise TypeError(f"The output type of function: {_hook_name(attrs['hook_fn'])} should "
                        f"be a tensor but got tuple.")
    return new
