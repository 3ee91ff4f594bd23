"""Cell backward hooks in PyNative: identity primitives whose gradient rules call the hook.

NOTE: [Backward hooks]
``hook_fn(cell, grad_input, grad_output)`` must see the gradients w.r.t. the
cell's *inputs* (``grad_input``) and w.r.t. its *outputs* (``grad_output``), and
may replace ``grad_input``. So one call of a hooked cell puts two identity
primitives on the tape, sharing one ``_HookCall`` record:

* ``CellBackwardHookInputs`` on the tensor inputs, before ``construct``;
* ``CellBackwardHookOutputs`` on the tensor outputs, after it.

Backward runs in reverse: the output rule first passes the output cotangents
through the backward *pre* hooks (``hook_fn(cell, grad_output)``, which may replace
them; the cell's backward then starts from what they return) and stores the result as
``grad_output``; then the input rule calls the backward hooks and passes on what they
return. When no input is
being differentiated (gradients w.r.t. weights only) the input rule never runs,
so the output rule calls the hooks itself with ``grad_input`` all None, as
MindSpore does. Missing cotangents are passed to the hook as None.
"""
from __future__ import annotations

from .._core import primitive as P
from .._prims.hook import identity_many_infer, make_identity_many
from .._tensor import Tensor


class _HookCall:
    """One call of a hooked cell: pairs its grad_output with its grad_input."""

    __slots__ = ("cell", "n_inputs", "inputs_tracked", "grad_output")

    def __init__(self, cell, n_inputs):
        self.cell = cell
        self.n_inputs = n_inputs
        self.inputs_tracked = False
        self.grad_output = ()


hook_inputs_p = P.Primitive("CellBackwardHookInputs", make_identity_many, kind="opaque",
                            multiple_results=True, infer=identity_many_infer)
hook_outputs_p = P.Primitive("CellBackwardHookOutputs", make_identity_many, kind="opaque",
                             multiple_results=True, infer=identity_many_infer)


def _as_tuple(dout):
    return dout if isinstance(dout, tuple) else (dout,)


@hook_outputs_p.def_grad()
def _hook_outputs_grad(attrs, inputs, out, dout):
    call = attrs["call"]
    douts = _run_pre_hooks(call.cell, _as_tuple(dout))
    call.grad_output = douts
    if not call.inputs_tracked:
        _run_hooks(call, (None,) * call.n_inputs)
    return douts


@hook_inputs_p.def_grad()
def _hook_inputs_grad(attrs, inputs, out, dout):
    return _run_hooks(attrs["call"], _as_tuple(dout))


def _run_pre_hooks(cell, grad_output):
    for hook in list(cell._backward_pre_hooks.values()):
        new = hook(cell, grad_output)
        if new is None:
            continue
        new = new if isinstance(new, tuple) else (new,)
        if len(new) != len(grad_output):
            raise TypeError(f"The backward pre hook return value size is {len(new)} not equal "
                            f"to expect output size {len(grad_output)}")
        grad_output = new
    return grad_output


def _run_hooks(call, grad_input):
    cell = call.cell
    for hook in list(cell._backward_hooks.values()):
        new = hook(cell, grad_input, call.grad_output)
        if new is None:
            continue
        new = new if isinstance(new, tuple) else (new,)
        if len(new) != len(grad_input):
            raise TypeError(f"The backward hook return value size is {len(new)} not equal to "
                            f"expect grad input size {len(grad_input)}")
        grad_input = new
    return grad_input


def hook_inputs(cell, args):
    """Pass the tensor arguments through the input hook; returns (call, new args)."""
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    call = _HookCall(cell, len(positions))
    if not positions:
        return call, args
    outs = hook_inputs_p(*[args[i] for i in positions], call=call)
    call.inputs_tracked = any(o._tape_ref is not None for o in outs)
    new_args = list(args)
    for i, o in zip(positions, outs):
        new_args[i] = o
    return call, tuple(new_args)


def attach_backward_hooks(call, out):
    """Pass the cell's tensor output(s) through the output hook of ``call``."""
    if isinstance(out, Tensor):
        return hook_outputs_p(out, call=call)[0]
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, Tensor) for o in out):
        return type(out)(hook_outputs_p(*out, call=call))
    return out


# ----------------------------------------------------------------- forward hooks
def set_hook_options(cell, registry, key, prepend, with_kwargs, always_call):
    """Record a forward hook's options: ``prepend`` moves it first in ``registry``;
    ``with_kwargs`` hooks also receive (and may replace) the keyword arguments;
    ``always_call`` hooks also run when ``construct`` raises."""
    if prepend:
        registry.move_to_end(key, last=False)
    if with_kwargs:
        cell.__dict__.setdefault("_hooks_with_kwargs", set()).add(key)
    if always_call:
        cell.__dict__.setdefault("_hooks_always_called", set()).add(key)


def _with_kwargs(cell):
    return cell.__dict__.get("_hooks_with_kwargs", ())


def run_forward_pre_hooks(cell, args, kwargs):
    """(args, kwargs) after the cell's forward pre hooks."""
    keyed = _with_kwargs(cell)
    for key, hook in list(cell._forward_pre_hooks.items()):
        if key in keyed:
            new = hook(cell, args, kwargs)
            if new is None:
                continue
            if not (isinstance(new, tuple) and len(new) == 2 and isinstance(new[1], dict)):
                raise RuntimeError(f"forward pre hook with kwargs must return None or a tuple "
                                   f"of (new_args, new_kwargs), but got {new}")
            args, kwargs = new
            args = args if isinstance(args, tuple) else (args,)
            continue
        new = hook(cell, args)
        if new is not None:
            args = new if isinstance(new, tuple) else (new,)
    return args, kwargs


def run_forward_hooks(cell, args, kwargs, out, always_only=False):
    """The output after the cell's forward hooks (only the ``always_call`` ones, with
    output None, when ``construct`` raised)."""
    keyed = _with_kwargs(cell)
    always = cell.__dict__.get("_hooks_always_called", ())
    for key, hook in list(cell._forward_hooks.items()):
        if always_only and key not in always:
            continue
        new = hook(cell, args, kwargs, out) if key in keyed else hook(cell, args, out)
        if new is not None:
            out = new
    return out
