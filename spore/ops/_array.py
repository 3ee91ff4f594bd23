"""Shape and array ops with MindSpore's signatures (thin adapters over array primitives)."""
from __future__ import annotations

from .._prims import array as A
from ._utils import as_tensor, static_shape, normalize_dim, static_int


def reshape(input, shape):
    """Reshape; one dimension may be -1."""
    x = as_tensor(input)
    shape = static_shape("reshape", shape)
    return A.reshape_p(x, shape=_resolve_minus_one("reshape", shape, x))


def _resolve_minus_one(name, shape, x):
    size = 1
    for s in x.shape:
        size *= s
    if shape.count(-1) > 1:
        raise ValueError(f"For '{name}', only one dimension of the shape may be -1, "
                         f"but got {list(shape)}.")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or size % known:
            raise ValueError(f"For '{name}', the shape {list(shape)} is invalid for input of "
                             f"size {size}.")
        shape = tuple(size // known if s == -1 else s for s in shape)
    return shape


def transpose(input, dims):
    """Permute dimensions by the full permutation ``dims``."""
    x = as_tensor(input)
    perm = static_shape("transpose", dims, "dims")
    nd = len(x.shape)
    if len(perm) != nd:
        raise ValueError(f"For 'Transpose', size of perm should equal to rank of x, but got "
                         f"{len(perm)} and {nd}!")
    perm = tuple(normalize_dim("transpose", p, nd, "dims") for p in perm)
    return A.transpose_p(x, perm=perm)


def permute(input, axis):
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    x = as_tensor(input)
    nd = len(x.shape)
    a = normalize_dim("swapaxes", axis0, nd)
    b = normalize_dim("swapaxes", axis1, nd)
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    return A.transpose_p(x, perm=tuple(perm))


swapdims = swapaxes


def t(input):
    x = as_tensor(input)
    if len(x.shape) < 2:
        return x
    return swapaxes(x, 0, 1)


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """Merge dimensions ``start_dim..end_dim`` (default: all but the first)."""
    x = as_tensor(input)
    if order not in ("C", "F"):
        raise ValueError(f"For 'flatten', 'order' must be 'C' or 'F', but got {order!r}.")
    nd = len(x.shape)
    if nd == 0:
        return A.reshape_p(x, shape=(1,))
    s = normalize_dim("flatten", start_dim, nd, "start_dim")
    e = normalize_dim("flatten", end_dim, nd, "end_dim")
    if s > e:
        raise ValueError("For 'flatten', 'start_dim' cannot come after 'end_dim'.")
    if order == "F":
        x = A.transpose_p(x, perm=tuple(range(nd - 1, -1, -1)))
    shape = tuple(x.shape)
    merged = 1
    for d in shape[s:e + 1]:
        merged *= d
    return A.reshape_p(x, shape=shape[:s] + (merged,) + shape[e + 1:])


def squeeze(input, axis=None):
    """Remove size-1 dimensions (all, or those in ``axis``; others are left alone)."""
    x = as_tensor(input)
    shape = tuple(x.shape)
    if axis is None:
        new = tuple(d for d in shape if d != 1)
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        axes = {normalize_dim("squeeze", a, len(shape)) for a in axes}
        new = tuple(d for i, d in enumerate(shape) if not (i in axes and d == 1))
    return A.reshape_p(x, shape=new)


def expand_dims(input_x, axis):
    x = as_tensor(input_x)
    nd = len(x.shape) + 1
    a = static_int("expand_dims", "axis", axis)
    if not -nd <= a < nd:
        raise ValueError(f"For 'expand_dims', the 'axis' must be in range [{-nd}, {nd}), "
                         f"but got {a}.")
    a %= nd
    shape = tuple(x.shape)
    return A.reshape_p(x, shape=shape[:a] + (1,) + shape[a:])


def unsqueeze(input, dim):
    return expand_dims(input, dim)


def broadcast_to(input, shape):
    """Broadcast to ``shape``; ``-1`` keeps the input's size in that dimension."""
    x = as_tensor(input)
    shape = static_shape("broadcast_to", shape)
    xs = tuple(x.shape)
    lead = len(shape) - len(xs)
    if lead < 0:
        raise ValueError(f"For 'BroadcastTo', the target shape {list(shape)} has fewer dimensions "
                         f"than the input shape {list(xs)}.")
    resolved = []
    for i, s in enumerate(shape):
        if s == -1:
            if i < lead:
                raise ValueError(f"For 'BroadcastTo', -1 is not allowed in a leading (new) "
                                 f"dimension, but got shape {list(shape)}.")
            s = xs[i - lead]
        resolved.append(s)
    return A.broadcast_to_p(x, shape=tuple(resolved))


def expand(input, size):
    return broadcast_to(input, size)


def expand_as(input, other):
    return broadcast_to(input, tuple(other.shape))


def broadcast_to_shape(x, shape):
    return broadcast_to(x, shape)


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
