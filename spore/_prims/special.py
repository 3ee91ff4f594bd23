"""Primitives that carry no arithmetic: identity, stop_gradient, depend and print.

They matter to the machinery rather than to the numbers: ``identity`` makes a
distinct value sharing memory (gradient sources), ``copy`` a distinct value with its
own memory (``Tensor.clone``, ``ops.identity``), ``stop_gradient`` cuts the tape, ``depend``
orders side effects in a graph, ``print`` is a runtime effect.
"""
from __future__ import annotations

import sys

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray

Primitive = P.Primitive


def _same_infer(attrs, x, *rest):
    return ShapedArray(tuple(x.shape), x.dtype)


identity_p = Primitive("Identity", lambda xp: lambda x: x, kind="elementwise", n_inputs=1,
                       infer=_same_infer, aliases=(0,))


@identity_p.def_grad()
def _identity_grad(attrs, inputs, out, dout):
    return (dout,)


def _make_copy(xp):
    return lambda x: xp.array(x, copy=True, order="C")


copy_p = Primitive("Copy", _make_copy, kind="elementwise", n_inputs=1, infer=_same_infer)


@copy_p.def_grad()
def _copy_grad(attrs, inputs, out, dout):
    return (dout,)


stop_gradient_p = Primitive("StopGradient", lambda xp: lambda x: x, kind="elementwise",
                            n_inputs=1, nondiff=True, infer=_same_infer, aliases=(0,))


def _make_depend(xp):
    def depend(value, *deps):
        return value
    return depend


depend_p = Primitive("Depend", _make_depend, kind="opaque", infer=_same_infer, aliases=(0,))


@depend_p.def_grad()
def _depend_grad(attrs, inputs, out, dout):
    return (dout,) + (None,) * (len(inputs) - 1)


# ----------------------------------------------------------------- print
def format_print_args(spec, tensors, graph_style=False):
    """Lines printed by ops.Print: strings as-is, tensors in repr form, one per line."""
    from .._tensor import format_repr
    lines = []
    for kind, value in spec:
        if kind == "str":
            lines.append(value)
        else:
            arr = tensors[value]
            arr = arr if isinstance(arr, np.ndarray) else np.asarray(arr.get())
            if graph_style:
                lines.append(str(arr.item()) if arr.ndim == 0 else
                             format_repr(arr, separator=" ").replace("value= ", "value="))
            else:
                lines.append(format_repr(arr))
    return lines


def _make_print(xp):
    def print_(*tensors, spec, graph_style=False):
        for line in format_print_args(spec, tensors, graph_style):
            sys.stdout.write(line + "\n")
        sys.stdout.flush()
        return np.zeros((), np.bool_)
    return print_


def _print_infer(attrs, *tensors):
    return ShapedArray((), np.bool_)


print_p = Primitive("Print", _make_print, kind="opaque", effect="print", nondiff=True,
                    infer=_print_infer)


# ----------------------------------------------------------------- runtime checks
class CheckError(P.SporeError, RuntimeError):
    """A runtime check of a Spore primitive failed (raised as it is, in both modes)."""


def _make_check(xp):
    def check(failed, *values, message):
        if bool(xp.any(failed)):
            raise CheckError(message.format(*[v.tolist() for v in values]))
        return np.zeros((), np.bool_)
    return check


def _check_infer(attrs, failed, *values):
    return ShapedArray((), np.bool_)


# ``Check(failed, *values; message)`` raises RuntimeError(message.format(*values)) when any
# element of ``failed`` is true: an error condition that must hold in compiled code too
# (a check effect: never removed, merged or moved).
check_p = Primitive("Check", _make_check, kind="opaque", effect="check", nondiff=True,
                    infer=_check_infer)


# ----------------------------------------------------------------- Python's print, compiled
def _make_py_print(xp):
    def py_print(*tensors, pieces, sep, end):
        from .._tensor import _format_str
        parts = []
        for kind, value in pieces:
            if kind == "tensor":
                arr = tensors[value]
                parts.append(_format_str(arr if isinstance(arr, np.ndarray)
                                         else np.asarray(arr.get())))
            elif kind == "concat":
                parts.append("".join(
                    _format_str(tensors[v]) if k == "tensor" else v for k, v in value))
            else:
                parts.append(value)
        sys.stdout.write(sep.join(parts) + end)
        sys.stdout.flush()
        return np.zeros((), np.bool_)
    return py_print


# Builtin ``print`` of tensors inside a compiled function (source conversion rewrites it):
# prints at every call, in PyNative's format. ``pieces``: ("str", text), ("tensor", i) or
# ("concat", pieces of an f-string).
py_print_p = Primitive("PyPrint", _make_py_print, kind="opaque", effect="print", nondiff=True,
                       infer=_print_infer)


# ``Tensor.contiguous()`` of a traced tensor: its layout is known only at run time, where
# the kernel returns the array itself when it is C-contiguous (as PyNative returns self).
contiguous_p = Primitive("Contiguous", lambda xp: xp.ascontiguousarray, kind="opaque",
                         n_inputs=1, infer=_same_infer, aliases=(0,))


@contiguous_p.def_grad()
def _contiguous_grad(attrs, inputs, out, dout):
    return (dout,)
