"""Array creation (``mindspore.numpy.array``, ``zeros``, ``arange``, ...).

``mindspore.numpy`` defaults Python integers to Int32 (``mnp.arange(3)``,
``mnp.array([1, 2])``) and Python floats to Float32; tensors keep their dtype.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import ops
from .._core import primitive as P

_PY_DEFAULTS = {"b": D.bool_, "i": D.int32, "u": D.int32, "f": D.float32, "c": D.complex64}


def _shape(shape):
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _default_dtype(obj):
    """The dtype ``mindspore.numpy`` gives Python data (lists, tuples, scalars)."""
    kind = np.asarray(obj).dtype.kind
    return _PY_DEFAULTS.get(kind, D.float32)


def _contains_tensor(obj):
    if isinstance(obj, (list, tuple)):
        return any(_contains_tensor(v) for v in obj)
    return isinstance(obj, P._Tensor)


def array(obj, dtype=None, copy=True, ndmin=0):
    """A tensor from a tensor, NumPy array, (nested) list/tuple or scalar.

    Python integers become Int32 and floats Float32 unless ``dtype`` is given;
    ``ndmin`` prepends size-1 dimensions.
    """
    if isinstance(obj, P._Tensor):
        out = obj if not copy else ops.identity(obj)
        if dtype is not None:
            out = ops.cast(out, dtype)
    elif isinstance(obj, np.ndarray):
        out = P._Tensor(obj.copy() if copy else obj, dtype)
    elif _contains_tensor(obj):
        out = P._Tensor(obj, dtype)
    else:
        out = P._Tensor(obj, dtype if dtype is not None else _default_dtype(obj))
    if out.ndim < ndmin:
        out = ops.reshape(out, (1,) * (ndmin - out.ndim) + tuple(out.shape))
    return out


def asarray(a, dtype=None):
    """Like :func:`array` without copying a tensor that already has ``dtype``."""
    return array(a, dtype, copy=False)


def asfarray(a, dtype=D.float32):
    """A floating-point tensor (integer ``dtype`` requests become Float32)."""
    if D.resolve(dtype).category != D.FLOAT:
        dtype = D.float32
    return array(a, dtype, copy=False)


def zeros(shape, dtype=D.float32):
    """Zeros of ``shape`` (Float32 by default)."""
    return ops.zeros(_shape(shape), dtype)


def ones(shape, dtype=D.float32):
    """Ones of ``shape`` (Float32 by default)."""
    return ops.ones(_shape(shape), dtype)


def empty(shape, dtype=D.float32):
    """A tensor of ``shape`` (Spore fills it with zeros)."""
    return ops.zeros(_shape(shape), dtype)


def full(shape, fill_value, dtype=None):
    """``fill_value`` (a number or a tensor broadcast to ``shape``) in ``shape``."""
    shape = _shape(shape)
    if isinstance(fill_value, P._Tensor):
        out = ops.broadcast_to(fill_value, shape)
        return ops.cast(out, dtype) if dtype is not None else out
    if dtype is None:
        dtype = _default_dtype(fill_value)
    return ops.full(shape, fill_value, dtype=dtype)


def _like(a, dtype, shape):
    a = asarray(a)
    return (a.dtype if dtype is None else dtype), (tuple(a.shape) if shape is None
                                                   else _shape(shape))


def zeros_like(a, dtype=None, shape=None):
    """Zeros with the shape and dtype of ``a`` (or ``dtype``/``shape``)."""
    dtype, shape = _like(a, dtype, shape)
    return ops.zeros(shape, dtype)


def ones_like(a, dtype=None, shape=None):
    """Ones with the shape and dtype of ``a`` (or ``dtype``/``shape``)."""
    dtype, shape = _like(a, dtype, shape)
    return ops.ones(shape, dtype)


def empty_like(prototype, dtype=None, shape=None):
    """A tensor like ``prototype`` (filled with zeros)."""
    dtype, shape = _like(prototype, dtype, shape)
    return ops.zeros(shape, dtype)


def full_like(a, fill_value, dtype=None, shape=None):
    """``fill_value`` in the shape and dtype of ``a`` (``full_like(int_tensor, 2.7)`` holds 2)."""
    dtype, shape = _like(a, dtype, shape)
    return full(shape, fill_value, dtype)


def arange(start, stop=None, step=None, dtype=None):
    """``[start, stop)`` in steps of ``step``: Int32 for integers, Float32 if any is a float."""
    numbers = [v for v in (start, stop, step) if v is not None]
    if dtype is None:
        dtype = D.float32 if any(isinstance(v, float) for v in numbers) else D.int32
    if stop is None:
        start, stop = 0, start
    return ops.arange(start, stop, 1 if step is None else step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values over ``[start, stop]`` (``[start, stop)`` without
    ``endpoint``); ``retstep`` also returns the spacing."""
    if axis != 0:
        raise ValueError("For 'linspace', only axis=0 is supported for scalar bounds.")
    start, stop, num = float(start), float(stop), int(num)
    divisions = (num - 1) if endpoint else num
    step = (stop - start) / divisions if divisions > 0 else float("nan")
    last = stop if endpoint else start + step * (num - 1)
    out = ops.linspace(start, last if num > 1 else start, num)
    if dtype is not None:
        out = ops.cast(out, dtype)
    if retstep:
        return out, P._Tensor(step, D.float32)
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    out = ops.pow(float(base), linspace(start, stop, num, endpoint, axis=axis))
    return ops.cast(out, dtype) if dtype is not None else out


def eye(N, M=None, k=0, dtype=D.float32):
    """Ones on the ``k``-th diagonal of an ``N x M`` matrix."""
    M = N if M is None else M
    if k > 0:
        return ops.eye(N + k, M, dtype)[k:, :]
    if k < 0:
        return ops.eye(N, M - k, dtype)[:, -k:]
    return ops.eye(N, M, dtype)


def identity(n, dtype=D.float32):
    """The ``n x n`` identity matrix."""
    return eye(n, dtype=dtype)


from ..ops._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
