"""Small functions of ``mindspore.ops`` over scalars, shapes and in-place Tensor methods:
scalar_to_tensor, scalar_cast, tensor_range, padding, dtype, shape_, reshape_, and the
functional spellings of in-place methods (zero_, clamp_, tanh_, erfinv_, put_)."""
from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from ._extra import _tensor, real_number
from ._utils import static_int, public_functions

_Tensor = P._Tensor


def _ops():
    from .. import ops
    return ops


def _number(name, arg, value):
    if isinstance(value, _Tensor) and value.size == 1:
        value = value.item()
    if not isinstance(value, (numbers.Number, np.generic)):
        raise TypeError(f"For '{name}', the '{arg}' must be a number, but got "
                        f"{type(value).__name__}.")
    return value


def scalar_to_tensor(input_x, dtype=D.float32):
    """A 0-d tensor of ``dtype`` holding the number ``input_x``."""
    return _Tensor(_number("scalar_to_tensor", "input_x", input_x), D.resolve(dtype))


_PY_TYPES = {D.int64: int, D.float64: float, D.bool_: bool}


def scalar_cast(input_x, input_y):
    """The Python number ``input_x`` converted to ``input_y`` (Int64, Float64 or Bool: a
    Python int, float or bool)."""
    value = _number("scalar_cast", "input_x", input_x)
    target = D.resolve(input_y)
    if target not in _PY_TYPES:
        raise ValueError(f"For 'ScalarCast', the supported type is in the list: "
                         f"[mindspore.int64, mindspore.float64, mindspore.bool], but got "
                         f"{target}.")
    return _PY_TYPES[target](value)


def tensor_range(start, end, step):
    """``arange(start, end, step)`` from three 0-d tensors (their dtype)."""
    ops = _ops()
    values = [_tensor("tensor_range", arg, v) for arg, v in
              (("start", start), ("end", end), ("step", step))]
    dtype = D.result_type(*[v.dtype for v in values])
    return ops.arange(*[real_number("tensor_range", arg, v) if dtype.is_floating_point
                        else static_int("tensor_range", arg, v)
                        for arg, v in zip(("start", "end", "step"), values)], dtype=dtype)


def padding(x, pad_dim_size=8):
    """``x`` (last dimension 1) widened to ``pad_dim_size`` along the last dimension, the
    new entries zero."""
    x = _tensor("padding", "x", x)
    size = static_int("padding", "pad_dim_size", pad_dim_size)
    if x.ndim < 1 or x.shape[-1] != 1:
        raise ValueError(f"For 'padding', the last dimension of 'x' must be 1, but got shape "
                         f"{list(x.shape)}.")
    if size < 1:
        raise ValueError(f"For 'padding', the 'pad_dim_size' must be positive, but got {size}.")
    return _ops().pad(x, (0, size - 1))


def dtype(x):
    """The dtype of ``x``."""
    return _tensor("dtype", "x", x).dtype


def shape_(x):
    """The shape of ``x`` as a list."""
    return list(_tensor("shape_", "x", x).shape)


def reshape_(input, shape):
    """``input`` reshaped (``ops.reshape``)."""
    return _ops().reshape(_tensor("reshape_", "input", input), shape)


def zero_(input):
    """Fill ``input`` with zeros in place; returns it."""
    return _tensor("zero_", "input", input).zero_()


def clamp_(input, min=None, max=None):
    """Clamp ``input`` to [min, max] in place; returns it."""
    return _tensor("clamp_", "input", input).clamp_(min, max)


def tanh_(input):
    """``tanh`` of ``input`` in place; returns it."""
    return _tensor("tanh_", "input", input).tanh_()


def erfinv_(input):
    """``erfinv`` of ``input`` in place; returns it."""
    x = _tensor("erfinv_", "input", input)
    return _ops().assign(x, _ops().erfinv(x))


def put_(input, index, source, accumulate=False):
    """Write (or add) ``source`` at the flat positions ``index`` of ``input``, in place."""
    return _tensor("put_", "input", input).put_(index, source, accumulate)


__all__ = public_functions(globals(), __name__)
