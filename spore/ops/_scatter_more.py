"""The scatter families of ``mindspore.ops`` beyond add/update: ``tensor_scatter_mul/div/
max/min`` (functional), ``scatter_nd_add/sub/update/mul/div/max/min`` (in place on
``input_x``, a Parameter, which they also return) and ``scatter_mul/div/max/min`` (in place,
indices into the first dimension). Over the TensorScatterReduce primitive
(``spore/_prims/scatter_reduce.py``) and the Index-put ones of ``tensor_scatter_add``."""
from __future__ import annotations

from .. import _dtype as D
from .._prims import array as A
from .._prims.scatter_reduce import scatter_reduce_p
from ._extra import _tensor
from ._utils import public_functions


def _ops():
    from .. import ops
    return ops


def _reduce(name, op, input_x, indices, updates):
    x = _tensor(name, "input_x", input_x)
    idx = _tensor(name, "indices", indices)
    upd = _tensor(name, "updates", updates)
    if upd.dtype != x.dtype:
        raise TypeError(f"For '{name}', 'updates' must have the dtype of 'input_x', but got "
                        f"{upd.dtype} and {x.dtype}.")
    if idx.dtype not in (D.int32, D.int64):
        raise TypeError(f"For '{name}', the 'indices' must be Int32 or Int64, but got "
                        f"{idx.dtype}.")
    return scatter_reduce_p(x, idx, upd, op=op)


def tensor_scatter_mul(input_x, indices, updates):
    """A copy of ``input_x`` whose slices at the rows of ``indices`` are multiplied by
    ``updates`` (repeated rows multiply in turn)."""
    return _reduce("tensor_scatter_mul", "mul", input_x, indices, updates)


def tensor_scatter_div(input_x, indices, updates):
    """A copy of ``input_x`` whose slices at the rows of ``indices`` are divided by
    ``updates``."""
    return _reduce("tensor_scatter_div", "div", input_x, indices, updates)


def tensor_scatter_max(input_x, indices, updates):
    """A copy of ``input_x`` with the maximum of each addressed slice and ``updates``."""
    return _reduce("tensor_scatter_max", "max", input_x, indices, updates)


def tensor_scatter_min(input_x, indices, updates):
    """A copy of ``input_x`` with the minimum of each addressed slice and ``updates``."""
    return _reduce("tensor_scatter_min", "min", input_x, indices, updates)


def _in_place(input_x, new):
    return A.assign_p(input_x, new)


def scatter_nd_add(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] += updates`` in place; returns ``input_x``."""
    return _in_place(input_x, _ops().tensor_scatter_add(input_x, indices, updates))


def scatter_nd_sub(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] -= updates`` in place; returns ``input_x``."""
    return _in_place(input_x, _ops().tensor_scatter_sub(input_x, indices, updates))


def scatter_nd_update(input_x, indices, updates, use_locking=True):
    """``input_x[indices rows] = updates`` in place; returns ``input_x``."""
    return _in_place(input_x, _ops().tensor_scatter_update(input_x, indices, updates))


def scatter_nd_mul(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] *= updates`` in place; returns ``input_x``."""
    return _in_place(input_x, tensor_scatter_mul(input_x, indices, updates))


def scatter_nd_div(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] /= updates`` in place; returns ``input_x``."""
    return _in_place(input_x, tensor_scatter_div(input_x, indices, updates))


def scatter_nd_max(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] = max(input_x[...], updates)`` in place; returns ``input_x``."""
    return _in_place(input_x, tensor_scatter_max(input_x, indices, updates))


def scatter_nd_min(input_x, indices, updates, use_locking=False):
    """``input_x[indices rows] = min(input_x[...], updates)`` in place; returns ``input_x``."""
    return _in_place(input_x, tensor_scatter_min(input_x, indices, updates))


def _rows(name, op, input_x, indices, updates):
    """First-dimension scatter: each index of ``indices`` (any shape) names a row of
    ``input_x``; ``updates`` is indices.shape + input_x.shape[1:]."""
    x = _tensor(name, "input_x", input_x)
    idx = _tensor(name, "indices", indices).expand_dims(-1)
    return _in_place(x, _reduce(name, op, x, idx, updates))


def scatter_mul(input_x, indices, updates):
    """``input_x[indices] *= updates`` along the first dimension, in place."""
    return _rows("scatter_mul", "mul", input_x, indices, updates)


def scatter_div(input_x, indices, updates):
    """``input_x[indices] /= updates`` along the first dimension, in place."""
    return _rows("scatter_div", "div", input_x, indices, updates)


def scatter_max(input_x, indices, updates):
    """``input_x[indices] = max(input_x[indices], updates)``, in place."""
    return _rows("scatter_max", "max", input_x, indices, updates)


def scatter_min(input_x, indices, updates):
    """``input_x[indices] = min(input_x[indices], updates)``, in place."""
    return _rows("scatter_min", "min", input_x, indices, updates)


__all__ = public_functions(globals(), __name__)
