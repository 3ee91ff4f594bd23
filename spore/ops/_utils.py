"""Argument normalisation shared by the public op adapters."""
from __future__ import annotations

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
    if isinstance(x, P._Tensor):
        return x
    return P._Tensor(x, dtype)


def static_int(name, arg, value):
    """A Python int from an int or a 0-d integer tensor (error naming the op otherwise)."""
    if isinstance(value, P._Tensor):
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
