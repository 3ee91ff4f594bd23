"""Random tensors (``mindspore.numpy.randn``, ``rand``, ``randint``) on Spore's global
random state (``spore.ops`` random ops)."""
from __future__ import annotations

from .. import _dtype as D
from .. import ops


def _size(shape):
    """``f(2, 3)`` or ``f((2, 3))``; no shape gives one element, as MindSpore."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(shape) or (1,)


def _float_dtype(name, dtype):
    if D.resolve(dtype) not in (D.float16, D.float32, D.float64):
        raise ValueError(f"For '{name}', the argument 'dtype' must be mindspore.float64, "
                         f"mindspore.float32 or mindspore.float16, but got {dtype}.")
    return dtype


def randn(*shape, dtype=D.float32):
    """Standard-normal samples: ``randn(3, 4)`` or ``randn((3, 4))``."""
    return ops.randn(_size(shape), dtype=_float_dtype("randn", dtype))


def rand(*shape, dtype=D.float32):
    """Uniform samples in ``[0, 1)``: ``rand(3, 4)`` or ``rand((3, 4))``."""
    return ops.rand(_size(shape), dtype=_float_dtype("rand", dtype))


def randint(minval, maxval=None, shape=None, dtype=D.int32):
    """Integers in ``[minval, maxval)`` (``[0, minval)`` when ``maxval`` is None)."""
    if maxval is None:
        minval, maxval = 0, minval
    size = (1,) if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    return ops.randint(minval, maxval, size, dtype=dtype)


from ..ops._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
