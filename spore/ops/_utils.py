"""Argument normalisation shared by the public op adapters."""
from __future__ import annotations

import sys

import numpy as np

from .. import _dtype as D
from .._core import primitive as P


def to_np_dtype(dtype):
    return D.to_numpy_dtype(dtype)


def dtype_arg(name, dtype, arg="dtype"):
    """The NumPy dtype of a ``dtype`` argument: a MindSpore dtype, NumPy dtype or type, or a
    dtype name. None and anything else raise MindSpore's TypeError naming the op (NumPy
    would read None as float64)."""
    if dtype is not None and not isinstance(dtype, bool):
        try:
            return D.to_numpy_dtype(dtype)
        except TypeError:
            pass
    raise TypeError(f"For '{name}', the input '{arg}' should be mindspore dtype, but got "
                    f"{dtype}.")


def is_tensor(x):
    return isinstance(x, P._Tensor)


def as_tensor(x, dtype=None):
    """``x`` as a Tensor; a value that cannot be one raises an error naming the op called."""
    if isinstance(x, P._Tensor):
        return x
    try:
        return P._Tensor(x, dtype)
    except TypeError as e:
        raise bad_input(x, e) from None


def bad_input(value, exc=None):
    """A TypeError/ValueError for an op input ``value`` that is no tensor, naming the public
    op the user called and the argument that held it (found on the stack: this runs only
    when a call has already failed, so the common path pays nothing)."""
    op, arg = calling_op(value)
    what = f"'{arg}'" if arg else "input"
    if isinstance(exc, ValueError):
        return ValueError(f"For '{op}', the {what} cannot be a tensor: {exc}")
    return TypeError(f"For '{op}', the {what} must be a Tensor or a number, but got "
                     f"{type(value).__name__}.")


def calling_op(value=None):
    """``(op name, argument name or None)``: the outermost Spore function of the run of
    Spore frames above this one (the op user code called; a user ``construct`` called by
    a Cell ends the run) and the name its frame gives ``value``."""
    frame = sys._getframe(1)
    outer = None
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module != "spore" and not module.startswith("spore."):
            if outer is not None:
                break           # user code (a dispatch handler may sit below an op: go on)
        elif not module.startswith(_MACHINERY) and _op_frame_name(frame) is not None:
            outer = frame
        frame = frame.f_back
    if outer is None:
        return "Tensor", None
    return _op_frame_name(outer), _argument_name(outer, value)


# Dispatch, primitives and autodiff: their functions are not what the user called.
_MACHINERY = ("spore._core", "spore._prims", "spore._autodiff", "spore._jit", "spore._dtype")


def _op_frame_name(frame):
    code = frame.f_code.co_name
    this = frame.f_locals.get("self")
    if isinstance(this, P._Tensor) and not code.startswith("_"):
        return f"Tensor.{code}"
    if code in ("__call__", "construct") and this is not None:
        return type(this).__name__
    if code.startswith("__") and code.endswith("__") and this is not None:
        return f"Tensor.{code}"
    if code.startswith("_tensor_"):
        return "Tensor." + code[len("_tensor_"):]
    if code.startswith(("_", "<")) or code in ("method", "call", "wrapper"):
        return None
    return code


def _argument_name(frame, value):
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    for name in names:
        if name != "self" and frame.f_locals.get(name, _MISSING) is value:
            return name
    return None


_MISSING = object()


def static_int(name, arg, value):
    """A Python int from an int or a 0-d integer tensor (error naming the op otherwise)."""
    if isinstance(value, P._Tensor):
        if value.size != 1:
            raise TypeError(f"For '{name}', the '{arg}' must be int (or a one-element integer "
                            f"tensor), but got a tensor of shape {value.shape}.")
        value = value.item()
    if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{name}', the '{arg}' must be int, but got "
                        f"{type(value).__name__}.")
    return int(value)


def static_shape(name, shape, arg="shape"):
    """Normalise a shape given as int, tuple/list (may hold 0-d tensors) or 1-D tensor."""
    if isinstance(shape, P._Tensor):
        shape = shape.asnumpy().tolist()
        if isinstance(shape, int):
            shape = [shape]
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"For '{name}', the '{arg}' must be a tuple or list of int, but got "
                        f"{type(shape).__name__}.")
    return tuple(static_int(name, arg, s) for s in shape)


def normalize_dim(name, dim, ndim, arg="axis"):
    dim = static_int(name, arg, dim)
    lo, hi = -max(ndim, 1), max(ndim, 1)
    if not lo <= dim < hi:
        raise ValueError(f"For '{name}', the '{arg}' must be in range [{lo}, {hi}), "
                         f"but got {dim}.")
    return dim % max(ndim, 1)


def ndim_of(x):
    return len(x.shape) if hasattr(x, "shape") else 0


def public_functions(namespace, module_name):
    """The public callables a module defines itself (its ``__all__``), aliases included."""
    return sorted(name for name, v in namespace.items()
                  if not name.startswith("_") and callable(v)
                  and getattr(v, "__module__", None) == module_name)
