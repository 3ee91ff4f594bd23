"""Elementwise math, reductions and products (``mindspore.numpy.exp``, ``sum``, ``dot``, ...).

Thin wrappers over ``spore.ops``: inputs may be tensors, lists or scalars, and the
NumPy-style ``dtype=`` argument casts the result.
"""
from __future__ import annotations

from .. import _dtype as D
from .. import ops
from .._core import primitive as P
from ._creation import asarray


def _tensor(x):
    return x if isinstance(x, P._Tensor) else asarray(x)


def _operand(x):
    """Tensors and Python scalars pass through (scalars stay weak); lists become tensors."""
    return x if isinstance(x, (P._Tensor, bool, int, float)) else asarray(x)


def _cast(out, dtype):
    return ops.cast(out, dtype) if dtype is not None else out


def _unary(op):
    def fn(x, dtype=None):
        return _cast(op(_tensor(x)), dtype)
    fn.__doc__ = f"Elementwise ``{op.__name__}``; ``dtype`` casts the result."
    return fn


def _binary(op):
    def fn(x1, x2, dtype=None):
        return _cast(op(_operand(x1), _operand(x2)), dtype)
    fn.__doc__ = f"Elementwise ``{op.__name__}`` with broadcasting; ``dtype`` casts the result."
    return fn


exp = _unary(ops.exp)
exp2 = _unary(ops.exp2)
expm1 = _unary(ops.expm1)
log = _unary(ops.log)
log2 = _unary(ops.log2)
log10 = _unary(ops.log10)
log1p = _unary(ops.log1p)
sqrt = _unary(ops.sqrt)
square = _unary(ops.square)
reciprocal = _unary(ops.reciprocal)
sin = _unary(ops.sin)
cos = _unary(ops.cos)
tan = _unary(ops.tan)
arcsin = _unary(ops.asin)
arccos = _unary(ops.acos)
arctan = _unary(ops.atan)
sinh = _unary(ops.sinh)
cosh = _unary(ops.cosh)
tanh = _unary(ops.tanh)
arcsinh = _unary(ops.asinh)
arccosh = _unary(ops.acosh)
arctanh = _unary(ops.atanh)
abs = _unary(ops.abs)
absolute = abs
negative = _unary(ops.neg)
positive = _unary(ops.identity)
sign = _unary(ops.sign)
floor = _unary(ops.floor)
ceil = _unary(ops.ceil)
trunc = _unary(ops.trunc)
rint = _unary(ops.round)
isnan = _unary(ops.isnan)
isinf = _unary(ops.isinf)
isfinite = _unary(ops.isfinite)
logical_not = _unary(ops.logical_not)

add = _binary(ops.add)
subtract = _binary(ops.sub)
multiply = _binary(ops.mul)
divide = _binary(ops.div)
true_divide = divide
floor_divide = _binary(ops.floor_divide)
power = _binary(ops.pow)
mod = _binary(ops.remainder)
remainder = mod
fmod = _binary(ops.fmod)
maximum = _binary(ops.maximum)
minimum = _binary(ops.minimum)
fmax = _binary(ops.fmax)
fmin = _binary(ops.fmin)
arctan2 = _binary(ops.atan2)
equal = _binary(ops.equal)
not_equal = _binary(ops.not_equal)
greater = _binary(ops.greater)
greater_equal = _binary(ops.greater_equal)
less = _binary(ops.less)
less_equal = _binary(ops.less_equal)
logical_and = _binary(ops.logical_and)
logical_or = _binary(ops.logical_or)
logical_xor = _binary(ops.logical_xor)


def float_power(x1, x2, dtype=None):
    """``x1 ** x2`` computed in Float64."""
    return _cast(ops.pow(ops.cast(_tensor(x1), D.float64), _operand(x2)), dtype)


def round(a, decimals=0):
    """Round half to even; ``decimals`` rounds to that many decimal places."""
    return ops.round(_tensor(a), decimals=decimals)


around = round


def clip(x, xmin, xmax, dtype=None):
    """Clip to ``[xmin, xmax]`` (either may be None); the result keeps ``x``'s dtype."""
    x = _tensor(x)
    out = ops.clamp(x, xmin, xmax)
    return _cast(out if out.dtype == x.dtype else ops.cast(out, x.dtype), dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise (Bool)."""
    return ops.isclose(_tensor(a), _operand(b), rtol, atol, equal_nan)


# ----------------------------------------------------------------- reductions
def sum(a, axis=None, dtype=None, keepdims=False, initial=None):
    """Sum over ``axis``; bool and integer inputs give Int64 unless ``dtype`` is given."""
    out = ops.sum(_tensor(a), axis, keepdims, dtype=dtype)
    return out if initial is None else ops.add(out, initial)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating NaN as zero."""
    return ops.nansum(_tensor(a), axis, keepdims, dtype=dtype)


def mean(a, axis=None, keepdims=False, dtype=None):
    """Mean over ``axis``; integer inputs keep their dtype (the quotient is truncated)."""
    x = _tensor(a)
    return ops.mean(_cast(x, dtype), axis, keepdims)


def average(x, axis=None, weights=None, returned=False):
    """Weighted mean; ``returned`` also gives the sum of the weights."""
    x = _tensor(x)
    if weights is None:
        avg = ops.mean(x, axis)
        scale = ops.full_like(avg, x.size // max(avg.size, 1))
    else:
        w = _tensor(weights)
        if w.ndim == 1 and x.ndim > 1 and axis is not None:
            w = ops.reshape(w, tuple(-1 if i == axis % x.ndim else 1 for i in range(x.ndim)))
        scale = ops.sum(ops.broadcast_to(w, x.shape) if w.shape != x.shape else w, axis)
        avg = ops.div(ops.sum(ops.mul(x, w), axis), scale)
    return (avg, scale) if returned else avg


def std(x, axis=None, ddof=0, keepdims=False):
    """Standard deviation over ``axis`` with ``ddof``."""
    return ops.std(_tensor(x), axis, ddof, keepdims)


def var(x, axis=None, ddof=0, keepdims=False):
    """Variance over ``axis`` with ``ddof``."""
    return ops.var(_tensor(x), axis, ddof, keepdims)


def _no_mask(where):
    return None if where is True else where


def amax(a, axis=None, keepdims=False, initial=None, where=True):
    """Maximum over ``axis``; ``initial`` is a lower bound, ``where`` masks elements."""
    return ops.amax(_tensor(a), axis, keepdims, initial=initial, where=_no_mask(where))


def amin(a, axis=None, keepdims=False, initial=None, where=True):
    """Minimum over ``axis``; ``initial`` is an upper bound, ``where`` masks elements."""
    return ops.amin(_tensor(a), axis, keepdims, initial=initial, where=_no_mask(where))


max = amax
min = amin


def ptp(x, axis=None, keepdims=False):
    """Range (maximum minus minimum) over ``axis``."""
    x = _tensor(x)
    return ops.sub(ops.amax(x, axis, keepdims), ops.amin(x, axis, keepdims))


def argmax(a, axis=None):
    """Index of the maximum (flat when ``axis`` is None), Int64."""
    return ops.argmax(_tensor(a), axis)


def argmin(a, axis=None):
    """Index of the minimum (flat when ``axis`` is None), Int32 as MindSpore."""
    return ops.argmin(_tensor(a), axis)


def cumsum(a, axis=None, dtype=None):
    """Cumulative sum (of the flattened input when ``axis`` is None); bool and integers
    narrower than 32 bits accumulate in Int32."""
    x = _tensor(a)
    if axis is None:
        x, axis = ops.reshape(x, (x.size,)), 0
    return x.cumsum(axis, dtype=dtype)


def count_nonzero(x, axis=None, keepdims=False):
    """Number of non-zero elements over ``axis`` (Int32)."""
    return ops.count_nonzero(_tensor(x), () if axis is None else axis, keepdims)


def all(a, axis=None, keepdims=False):
    """Whether all elements along ``axis`` are true (non-zero); Bool."""
    return ops.all(_tensor(a), axis, keepdims)


def any(a, axis=None, keepdims=False):
    """Whether any element along ``axis`` is true (non-zero); Bool."""
    return ops.any(_tensor(a), axis, keepdims)


# ----------------------------------------------------------------- products
def dot(a, b):
    """NumPy's ``dot`` (both inputs must have the same dtype)."""
    return ops.dot(_tensor(a), _tensor(b))


def matmul(x1, x2, dtype=None):
    """Matrix product (NumPy's rules); ``dtype`` casts the result."""
    return _cast(ops.matmul(_tensor(x1), _tensor(x2)), dtype)


def tensordot(a, b, axes=2):
    """Sum of products over ``axes`` (an int or a pair of axis lists)."""
    return ops.tensor_dot(_tensor(a), _tensor(b), axes)


def outer(a, b):
    """Outer product of the flattened inputs."""
    return ops.outer(_tensor(a), _tensor(b))


def inner(a, b):
    """Sum of products over the last axes."""
    return ops.inner(_tensor(a), _tensor(b))


def kron(a, b):
    """Kronecker product."""
    return ops.kron(_tensor(a), _tensor(b))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum along the ``offset`` diagonal between ``axis1`` and ``axis2``."""
    return _tensor(a).trace(offset, axis1, axis2, dtype)


from ..ops._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
