"""Creation ops with MindSpore's signatures and default dtypes.

Creation primitives take no tensor inputs: shape, dtype and values are static
attributes (``spore/_prims/array.py``), so a compiled graph holds them as nodes.
Tensor arguments standing for numbers (``ops.arange(Tensor(5))``) are read as
Python numbers here.
"""
from __future__ import annotations

import numbers

import math

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims import array as A
from .._prims import math as M
from ._utils import static_int, static_shape

_FLOAT32 = np.dtype(np.float32)
_INT64 = np.dtype(np.int64)


def _dtype(name, dtype, default):
    if dtype is None:
        return default
    try:
        d = D.resolve(dtype)
    except TypeError:
        raise TypeError(f"For '{name}', the 'dtype' must be a mindspore dtype, but got "
                        f"{dtype!r}.") from None
    if d.np is None:
        raise TypeError(f"For '{name}', the 'dtype' must be a concrete dtype, but got {d}.")
    return d.np


def _number(name, arg, value):
    """A Python number from a number or a one-element tensor."""
    if isinstance(value, P._Tensor):
        if value.size != 1:
            raise ValueError(f"For '{name}', the '{arg}' must hold one element, but got a "
                             f"tensor of shape {list(value.shape)}.")
        return value.item()
    if isinstance(value, np.generic):
        return value.item()
    if not isinstance(value, numbers.Number):
        raise TypeError(f"For '{name}', the '{arg}' must be a number, but got "
                        f"{type(value).__name__}.")
    return value


def _shape(name, size):
    if isinstance(size, (float, bool)):
        raise TypeError(f"For '{name}', the shape must be an int or a tuple/list of int, but "
                        f"got {type(size).__name__}.")
    shape = static_shape(name, size, "size")
    for i, s in enumerate(shape):
        if s < 0:
            raise ValueError(f"For '{name}', each dimension of the shape must be greater than or "
                             f"equal to 0, but got {s} at position {i}.")
    return shape


def _fill(shape, dtype, value):
    return A.full_p(shape=shape, dtype=dtype, value=value)


# --------------------------------------------------------------------------- filled tensors
def zeros(size, dtype=None):
    """A tensor of zeros (Float32 unless ``dtype`` is given)."""
    return _fill(_shape("zeros", size), _dtype("zeros", dtype, _FLOAT32), 0)


def ones(shape, dtype=None):
    """A tensor of ones (Float32 unless ``dtype`` is given)."""
    return _fill(_shape("ones", shape), _dtype("ones", dtype, _FLOAT32), 1)


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value``.

    As in MindSpore 2.10, the dtype defaults to Int64 whatever the value
    (``ops.full((2,), 1.2)`` holds 1s); pass ``dtype`` for floats.
    """
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"For 'ops.full', 'size' must be a tuple or list of ints, but got "
                        f"{type(size)}.")
    value = _number("full", "fill_value", fill_value)
    return _fill(_shape("full", size), _dtype("full", dtype, _INT64), value)


def fill(type, shape, value):
    """``full(shape, value, dtype=type)``; ``type=None`` takes the value's own type."""
    value = _number("fill", "value", value)
    default = D.result_type(value).np if isinstance(value, (bool, int, float, complex)) \
        else _FLOAT32
    return _fill(_shape("fill", shape), _dtype("fill", type, default), value)


def empty(*size, dtype=None, device=None):
    """A tensor of ``size`` (Float32 by default). Spore fills it with zeros, so programs that
    read it before writing behave deterministically."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, P._Tensor)):
        size = size[0]
    return _fill(_shape("empty", size), _dtype("empty", dtype, _FLOAT32), 0)


def _like(name, input, dtype, value):
    if not isinstance(input, P._Tensor):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    return _fill(tuple(input.shape), _dtype(name, dtype, input._data.dtype), value)


def zeros_like(input, *, dtype=None):
    """Zeros with the shape (and, unless ``dtype`` is given, the dtype) of ``input``."""
    return _like("zeros_like", input, dtype, 0)


def ones_like(input, *, dtype=None):
    """Ones with the shape (and, unless ``dtype`` is given, the dtype) of ``input``."""
    return _like("ones_like", input, dtype, 1)


def full_like(input, fill_value, *, dtype=None):
    """``fill_value`` in the shape (and, unless ``dtype`` is given, the dtype) of ``input``."""
    return _like("full_like", input, dtype, _number("full_like", "fill_value", fill_value))


def empty_like(input, *, dtype=None, device=None):
    """A tensor like ``input`` (filled with zeros, see ``empty``)."""
    return _like("empty_like", input, dtype, 0)


# --------------------------------------------------------------------------- Tensor.new_*
def _own_dtype(name, input):
    if not isinstance(input, P._Tensor):
        raise TypeError(f"For '{name}', the 'input' must be a Tensor, but got "
                        f"{type(input).__name__}.")
    return input._data.dtype


def new_zeros(input, size, dtype=None):
    """``Tensor.new_zeros(size, dtype=None)``: zeros with ``input``'s dtype by default."""
    return _fill(_shape("new_zeros", size),
                 _dtype("new_zeros", dtype, _own_dtype("new_zeros", input)),
                 0)


def new_ones(input, size, dtype=None):
    """``Tensor.new_ones(size, dtype=None)``: ones with ``input``'s dtype by default."""
    return _fill(_shape("new_ones", size),
                 _dtype("new_ones", dtype, _own_dtype("new_ones", input)),
                 1)


def new_full(input, size, fill_value, *, dtype=None):
    """``Tensor.new_full(size, fill_value, *, dtype=None)``: ``input``'s dtype by default."""
    value = _number("new_full", "fill_value", fill_value)
    return _fill(_shape("new_full", size),
                 _dtype("new_full", dtype, _own_dtype("new_full", input)),
                 value)


def new_empty(input, size, *, dtype=None, device=None):
    """``Tensor.new_empty(size, *, dtype=None)``: ``input``'s dtype by default (zeros)."""
    return _fill(_shape("new_empty", size),
                 _dtype("new_empty", dtype, _own_dtype("new_empty", input)),
                 0)


# --------------------------------------------------------------------------- ranges
def arange(start=0, end=None, step=1, *, dtype=None):
    """``[start, end)`` in steps of ``step``: Int64 when all are ints, else Float32."""
    start = _number("arange", "start", start)
    step = _number("arange", "step", step)
    if end is None:
        start, end = 0, start
    else:
        end = _number("arange", "end", end)
    numbers_ = (start, end, step)
    if any(isinstance(v, complex) for v in numbers_):
        raise TypeError("For 'arange', 'start', 'end' and 'step' must be real numbers.")
    integral = all(isinstance(v, int) for v in numbers_)
    default = _INT64 if integral else _FLOAT32
    return A.arange_p(start=start, stop=end, step=step, dtype=_dtype("arange", dtype, default))


def linspace(start, end, steps):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (Float32, or the
    dtype of floating-point tensor bounds)."""
    dtype = _FLOAT32
    for v in (start, end):
        if isinstance(v, P._Tensor) and v._data.dtype.kind == "f":
            dtype = v._data.dtype
    lo = _number("linspace", "start", start)
    hi = _number("linspace", "end", end)
    num = static_int("linspace", "steps", steps)
    return A.linspace_p(start=float(lo), stop=float(hi), num=num, dtype=dtype)


def eye(n, m=None, dtype=None):
    """An ``n x m`` matrix with ones on the diagonal (Float32 by default)."""
    n = static_int("eye", "n", n)
    m = n if m is None else static_int("eye", "m", m)
    return A.eye_p(n=n, m=m, dtype=_dtype("eye", dtype, _FLOAT32))


def logspace(start, end, steps, base=10, *, dtype=None):
    """``base ** linspace(start, end, steps)`` (Float32 by default)."""
    exponents = linspace(start, end, steps)
    base = _number("logspace", "base", base)
    values = M.pow_p(float(base), exponents)
    return A.cast_p(values, dtype=_dtype("logspace", dtype, _FLOAT32))


def range(start, end, step, maxlen=1000000):  # noqa: A001  (MindSpore's name)
    """``[start, end)`` in steps of ``step``, in the inputs' common dtype (Python ints give
    Int64, floats Float32); at most ``maxlen`` values."""
    kinds = {type(_number("range", "start", v)) for v in (start, end, step)}
    tensors = [v for v in (start, end, step) if isinstance(v, P._Tensor)]
    if len({t._data.dtype for t in tensors}) > 1 or len(kinds) > 1:
        got = tuple(str(t.dtype) if isinstance(t, P._Tensor) else type(t).__name__
                    for t in (start, end, step))
        raise TypeError(f"For Range, the dtypes of inputs must be the same, but got {got}.")
    dtype = tensors[0]._data.dtype if tensors else (_INT64 if kinds == {int} else _FLOAT32)
    lo, hi, delta = (_number("range", n, v) for n, v in (("start", start), ("end", end),
                                                           ("step", step)))
    if delta == 0 or (hi - lo) * delta < 0:
        raise ValueError(f"For 'range', the 'step' must move from 'start' ({lo}) towards 'end' "
                         f"({hi}), but got {delta}.")
    maxlen = static_int("range", "maxlen", maxlen)
    if not all(math.isfinite(v) for v in (lo, hi, delta)):
        raise ValueError(f"For 'range', 'start', 'end' and 'step' must be finite, but got "
                         f"{lo}, {hi} and {delta}.")
    count = int(np.ceil((hi - lo) / delta))
    if count > maxlen:
        raise ValueError(f"For 'range', the number of values {count} exceeds 'maxlen' {maxlen}.")
    return A.arange_p(start=lo, stop=hi, step=delta, dtype=dtype)


def _triangle_indices(name, row, col, offset, dtype, lower):
    row, col = static_int(name, "row", row), static_int(name, "col", col)
    offset = static_int(name, "offset", offset)
    offset = max(-row, min(col, offset))    # beyond these every (or no) element is taken
    pick = np.tril_indices if lower else np.triu_indices
    return P._Tensor(np.stack(pick(row, offset, col)).astype(_dtype(name, dtype, _INT64)))


def tril_indices(row, col, offset=0, *, dtype=None):
    """The (2, N) row/column indices of the lower triangle of a ``row x col`` matrix
    (``offset`` diagonals above the main one included); Int64 by default."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(row, col, offset=0, *, dtype=None):
    """The (2, N) row/column indices of the upper triangle from diagonal ``offset``."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
