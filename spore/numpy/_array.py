"""Shape and joining functions (``mindspore.numpy.concatenate``, ``reshape``, ``where``, ...)."""
from __future__ import annotations

from .. import ops
from .._core import primitive as P
from ._creation import asarray


def _tensor(x):
    return x if isinstance(x, P._Tensor) else asarray(x)


def _tensors(arrays):
    return [_tensor(a) for a in arrays]


def concatenate(arrays, axis=0):
    """Join along ``axis``; ``axis=None`` flattens the inputs first."""
    xs = _tensors(arrays)
    if axis is None:
        xs, axis = [ops.reshape(x, (x.size,)) for x in xs], 0
    return ops.concat(xs, axis)


def stack(arrays, axis=0):
    """Join along a new axis ``axis``."""
    return ops.stack(_tensors(arrays), axis)


def hstack(tup):
    """Join along the second axis (the first for 1-D inputs)."""
    return ops.hstack(_tensors(tup))


def vstack(tup):
    """Join along the first axis (1-D inputs become rows)."""
    return ops.vstack(_tensors(tup))


def where(condition, x=None, y=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y``; a scalar next to a tensor
    is weak (it takes the tensor's dtype where it fits)."""
    cond = _tensor(condition)
    if x is None and y is None:
        return ops.where(cond)
    if not isinstance(x, P._Tensor) and not isinstance(y, P._Tensor):
        # two Python scalars: mindspore.numpy's defaults (Int32, Float32) decide the dtype
        x, y = asarray(x), asarray(y)
    pick = [v if isinstance(v, (P._Tensor, bool, int, float)) else asarray(v) for v in (x, y)]
    return ops.where(cond, *pick)


def reshape(x, new_shape):
    """Reshape to ``new_shape`` (one dimension may be -1)."""
    return ops.reshape(_tensor(x), (new_shape,) if isinstance(new_shape, int) else new_shape)


def ravel(x):
    """The elements as a 1-D tensor."""
    x = _tensor(x)
    return ops.reshape(x, (x.size,))


def transpose(a, axes=None):
    """Permute dimensions (reverse them when ``axes`` is None)."""
    a = _tensor(a)
    return ops.transpose(a, tuple(range(a.ndim - 1, -1, -1)) if axes is None else tuple(axes))


def swapaxes(x, axis1, axis2):
    """Exchange two dimensions."""
    return ops.swapaxes(_tensor(x), axis1, axis2)


def moveaxis(a, source, destination):
    """Move dimensions ``source`` to positions ``destination``."""
    return ops.movedim(_tensor(a), source, destination)


def expand_dims(a, axis):
    """Insert size-1 dimensions at ``axis`` (an int or a tuple of positions in the result)."""
    a = _tensor(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = a.ndim + len(axes)
    shape = list(a.shape)
    for pos in sorted(p % ndim for p in axes):
        shape.insert(pos, 1)
    return ops.reshape(a, tuple(shape))


def squeeze(a, axis=None):
    """Remove size-1 dimensions (all, or those of ``axis`` that have size 1)."""
    return ops.squeeze(_tensor(a), axis)


def tile(a, reps):
    """Repeat the whole tensor ``reps`` times along each dimension."""
    return ops.tile(_tensor(a), (reps,) if isinstance(reps, int) else tuple(reps))


def broadcast_to(array, shape):
    """Broadcast ``array`` to ``shape``."""
    return ops.broadcast_to(_tensor(array), shape)


def split(x, indices_or_sections, axis=0):
    """``indices_or_sections`` an int (equal parts) or the split positions."""
    x = _tensor(x)
    if isinstance(indices_or_sections, int):
        n = x.shape[axis]
        if n % indices_or_sections:
            raise ValueError(f"For 'split', {n} elements along axis {axis} cannot be split "
                             f"into {indices_or_sections} equal sections.")
        return tuple(ops.split(x, n // indices_or_sections, axis))
    return tuple(ops.tensor_split(x, list(indices_or_sections), axis))


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes when None)."""
    m = _tensor(m)
    axes = tuple(range(m.ndim)) if axis is None else (
        tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    return ops.flip(m, axes)


def diag(v, k=0):
    """The ``k``-th diagonal of a matrix, or a diagonal matrix from a vector."""
    v = _tensor(v)
    if k == 0:
        return ops.diag(v) if v.ndim == 1 else ops.diagonal(v)
    if v.ndim == 2:
        return ops.diagonal(v, k)
    raise ValueError("For 'diag', an offset 'k' is supported for 2-D inputs only.")


def triu(m, k=0):
    """Zero the elements below the ``k``-th diagonal."""
    return ops.triu(_tensor(m), k)


def tril(m, k=0):
    """Zero the elements above the ``k``-th diagonal."""
    return ops.tril(_tensor(m), k)


from ..ops._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
