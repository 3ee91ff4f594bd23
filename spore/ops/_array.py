"""Shape, indexing and array ops with MindSpore's signatures.

Thin adapters: each normalises its MindSpore signature and calls array
primitives (``spore/_prims/array.py``) or composes them. Composites (stack, tile,
flip, one_hot, tril, diag, ...) need no gradient rule of their own.
"""
from __future__ import annotations

import builtins

import numpy as np

from .._core import primitive as P
from .._prims import array as A
from .._prims import math as M
from ._utils import as_tensor, static_shape, normalize_dim, static_int, to_np_dtype

_FULL = ("slice", None, None, None)


# --------------------------------------------------------------------------- helpers
def _dim(name, dim, ndim, arg="axis"):
    """``normalize_dim`` with a fast path for plain in-range ints (the common case)."""
    if type(dim) is int and -ndim <= dim < ndim:
        return dim + ndim if dim < 0 else dim
    return normalize_dim(name, dim, ndim, arg)


def _int_tuple(name, value, arg="shape"):
    """``static_shape`` with a fast path for tuples of plain ints."""
    if type(value) is tuple and all(type(v) is int for v in value):
        return value
    return static_shape(name, value, arg)


def _tensor_arg(name, arg, x):
    if not isinstance(x, P._Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    return x


def _index_tensor(name, arg, index):
    """An integer index tensor (lists and ints are converted; floats are rejected)."""
    if not isinstance(index, P._Tensor):
        index = P._Tensor(index) if isinstance(index, (list, tuple, int, np.ndarray)) else index
    if not isinstance(index, P._Tensor) or index._data.dtype.kind not in "iu":
        got = index.dtype if isinstance(index, P._Tensor) else type(index).__name__
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor of Int32 or Int64, but got "
                        f"{got}.")
    return index


def _tensor_list(name, tensors, arg="tensors"):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"For '{name}', the '{arg}' must be a list or tuple of Tensors, but got "
                        f"{type(tensors).__name__}.")
    for i, t in enumerate(tensors):
        if not isinstance(t, P._Tensor):
            raise TypeError(f"For '{name}', every element of '{arg}' must be a Tensor, but "
                            f"element {i} is {type(t).__name__}.")
    return list(tensors)


def _axis_spec(axis, entry):
    """An index spec selecting ``entry`` in dimension ``axis`` and everything elsewhere."""
    return (_FULL,) * axis + (entry,)


def _int_range(start, stop):
    return A.arange_p(start=start, stop=stop, step=1, dtype=np.dtype(np.int64))


def _indexed(name, prim, *args, **attrs):
    """Run an indexing primitive so that an out-of-range index error names the public op."""
    try:
        return prim(*args, **attrs)
    except IndexError as e:
        raise IndexError(f"For '{name}', {e}") from None


# --------------------------------------------------------------------------- reshaping
def reshape(input, shape):
    """Reshape; one dimension may be -1."""
    x = as_tensor(input)
    shape = _int_tuple("reshape", shape)
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


def ravel(input):
    """The tensor flattened to 1-D."""
    return reshape(input, (-1,))


def transpose(input, dims):
    """Permute dimensions by the full permutation ``dims``."""
    x = as_tensor(input)
    perm = _int_tuple("transpose", dims, "dims")
    nd = len(x.shape)
    if len(perm) != nd:
        raise ValueError(f"For 'Transpose', size of perm should equal to rank of x, but got "
                         f"{len(perm)} and {nd}!")
    perm = tuple(_dim("transpose", p, nd, "dims") for p in perm)
    return A.transpose_p(x, perm=perm)


def permute(input, axis):
    """Reorder the dimensions by ``axis``, a permutation (``transpose``)."""
    return transpose(input, axis)


def swapaxes(input, axis0, axis1):
    """Swap two dimensions (also ``swapdims``)."""
    x = as_tensor(input)
    nd = len(x.shape)
    a = _dim("swapaxes", axis0, nd)
    b = _dim("swapaxes", axis1, nd)
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    return A.transpose_p(x, perm=tuple(perm))


swapdims = swapaxes


def movedim(x, source, destination):
    """Move dimensions ``source`` to positions ``destination`` (ints or tuples)."""
    x = as_tensor(x)
    nd = len(x.shape)
    src = _int_tuple("movedim", source, "source")
    dst = _int_tuple("movedim", destination, "destination")
    if len(src) != len(dst):
        raise ValueError(f"For 'movedim', 'source' and 'destination' must have the same "
                         f"length, but got {len(src)} and {len(dst)}.")
    src = [_dim("movedim", s, nd, "source") for s in src]
    dst = [_dim("movedim", d, nd, "destination") for d in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("For 'movedim', repeated dimensions in 'source' or 'destination'.")
    rest = iter(d for d in range(nd) if d not in src)
    placed = dict(zip(dst, src))
    perm = tuple(placed[i] if i in placed else next(rest) for i in range(nd))
    return A.transpose_p(x, perm=perm)


moveaxis = movedim


def t(input):
    """Transpose a 2-D tensor; 0-D and 1-D tensors are returned as they are."""
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
    s = _dim("flatten", start_dim, nd, "start_dim")
    e = _dim("flatten", end_dim, nd, "end_dim")
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
        axes = {_dim("squeeze", a, len(shape)) for a in axes}
        new = tuple(d for i, d in enumerate(shape) if not (i in axes and d == 1))
    return A.reshape_p(x, shape=new)


def expand_dims(input_x, axis):
    """Insert a dimension of size 1 at ``axis``."""
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
    """Insert a dimension of size 1 at ``dim`` (``expand_dims``)."""
    return expand_dims(input, dim)


def broadcast_to(input, shape):
    """Broadcast to ``shape``; ``-1`` keeps the input's size in that dimension."""
    x = as_tensor(input)
    shape = _int_tuple("broadcast_to", shape)
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
    """Broadcast ``input`` to ``size`` (``-1`` keeps a dimension), as ``broadcast_to``."""
    return broadcast_to(input, size)


def expand_as(input, other):
    """Broadcast ``input`` to the shape of ``other``."""
    return broadcast_to(input, tuple(as_tensor(other).shape))


def broadcast_to_shape(x, shape):
    """``broadcast_to`` under its older MindSpore name."""
    return broadcast_to(x, shape)


def view_dtype(input, dtype):
    """Reinterpret the bits as ``dtype`` (``Tensor.view(ms.int32)``); when the element size
    changes, the last dimension shrinks or grows accordingly."""
    x = _tensor_arg("view_dtype", "input", input)
    return A.view_dtype_p(x, dtype=to_np_dtype(dtype))


# --------------------------------------------------------------------------- joining
def concat(tensors, axis=0):
    """Join tensors along an existing axis; mixed dtypes are promoted (MindSpore's CPU kernel
    rejects them; Spore follows the op's promotion rules)."""
    xs = _tensor_list("concat", tensors)
    return A.concat_p(*xs, axis=static_int("concat", "axis", axis))


cat = concat


def stack(tensors, axis=0):
    """Join equally-shaped tensors along a new axis."""
    xs = _tensor_list("stack", tensors)
    if not xs:
        raise ValueError("For 'stack', the number of input tensors must be greater than 0.")
    shape = tuple(xs[0].shape)
    for i, x in enumerate(xs):
        if tuple(x.shape) != shape:
            raise ValueError(f"For 'stack', all input shapes must be the same, but got "
                             f"{list(shape)} and {list(x.shape)} (tensor {i}).")
    nd = len(shape) + 1
    a = static_int("stack", "axis", axis)
    if not -nd <= a < nd:
        raise ValueError(f"For 'stack', the 'axis' must be in range [{-nd}, {nd}), but got {a}.")
    a %= nd
    new = shape[:a] + (1,) + shape[a:]
    return A.concat_p(*[A.reshape_p(x, shape=new) for x in xs], axis=a)


def hstack(tensors):
    """Join tensors along axis 1 (axis 0 for 1-D inputs; 0-D inputs count as 1-D)."""
    xs = _tensor_list("hstack", tensors)
    xs = [reshape(x, (1,)) if x.ndim == 0 else x for x in xs]
    return concat(xs, 0 if xs and xs[0].ndim == 1 else 1)


def vstack(inputs):
    """Join tensors along axis 0; 0-D and 1-D inputs become rows ``(1, n)``."""
    xs = _tensor_list("vstack", inputs, "inputs")
    return concat([reshape(x, (1, -1)) if x.ndim < 2 else x for x in xs], 0)


def column_stack(tensors):
    """Stack tensors as columns: 1-D inputs become ``(n, 1)``, then join along axis 1."""
    xs = _tensor_list("column_stack", tensors)
    return concat([reshape(x, (-1, 1)) if x.ndim < 2 else x for x in xs], 1)


def _split_sizes(name, n, split_size_or_sections):
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = tuple(static_int(name, "split_size_or_sections", s)
                      for s in split_size_or_sections)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ValueError(f"For '{name}', the sum of 'split_size_or_sections' should be equal "
                             f"to {n}, but got {sum(sizes)}.")
        return sizes
    if isinstance(split_size_or_sections, (bool, float)) or not isinstance(
            split_size_or_sections, (int, np.integer, P._Tensor)):
        raise TypeError(f"For '{name}', the 'split_size_or_sections' must be int, tuple(int) or "
                        f"list(int), but got {type(split_size_or_sections).__name__}.")
    size = static_int(name, "split_size_or_sections", split_size_or_sections)
    if size <= 0:
        raise ValueError(f"For '{name}', the value of 'split_size_or_sections' must be more than "
                         f"zero, but got {size}.")
    return (size,) * (n // size) + ((n % size,) if n % size else ()) or (0,)


def _at_least_1d(name, x):
    """Splitting needs a dimension to split (a 0-d input has none)."""
    if not x.shape:
        raise ValueError(f"For '{name}', the input must be at least 1-D, but got a 0-D tensor.")
    return x


def split(tensor, split_size_or_sections, axis=0):
    """Split into pieces of one size (the last may be smaller) or of the listed sizes."""
    x = _at_least_1d("split", as_tensor(tensor))
    a = _dim("split", axis, len(x.shape))
    sizes = _split_sizes("split", x.shape[a], split_size_or_sections)
    return A.split_p(x, sizes=sizes, axis=a)


# More sections than elements gives empty ones; beyond this many it is a mistake (2**63
# sections would never finish).
_MAX_EMPTY_SECTIONS = 1 << 16


def tensor_split(input, indices_or_sections, axis=0):
    """Split into ``n`` nearly equal pieces, or at the listed indices."""
    x = _at_least_1d("tensor_split", as_tensor(input))
    a = _dim("tensor_split", axis, len(x.shape))
    n = x.shape[a]
    if isinstance(indices_or_sections, (tuple, list)):
        cuts = []
        for i in indices_or_sections:
            i = static_int("tensor_split", "indices_or_sections", i)
            cuts.append(min(max(i + n if i < 0 else i, 0), n))
        if cuts != sorted(cuts):
            raise ValueError(f"For 'tensor_split', the split indices must be non-decreasing, "
                             f"but got {list(indices_or_sections)}.")
        bounds = [0] + cuts + [n]
        sizes = tuple(hi - lo for lo, hi in zip(bounds[:-1], bounds[1:]))
    else:
        k = static_int("tensor_split", "indices_or_sections", indices_or_sections)
        if k <= 0:
            raise ValueError(f"For 'tensor_split', the number of sections must be positive, "
                             f"but got {k}.")
        if k > max(n, _MAX_EMPTY_SECTIONS):
            raise ValueError(f"For 'tensor_split', the number of sections ({k}) exceeds both "
                             f"the dimension's size ({n}) and {_MAX_EMPTY_SECTIONS} (each "
                             "section is a tensor).")
        sizes = tuple(n // k + (1 if i < n % k else 0) for i in range(k))
    return A.split_p(x, sizes=sizes, axis=a)


def chunk(input, chunks, axis=0):
    """Split into ``chunks`` pieces of ``ceil(n / chunks)`` (fewer pieces if that covers it)."""
    x = as_tensor(input)
    chunks = static_int("chunk", "chunks", chunks)
    if chunks <= 0:
        raise ValueError(f"For 'chunk', the 'chunks' must be greater than 0, but got {chunks}.")
    a = _dim("chunk", axis, len(_at_least_1d("chunk", x).shape))
    n = x.shape[a]
    size = max(-(-n // chunks), 1)
    return A.split_p(x, sizes=_split_sizes("chunk", n, size), axis=a)


def unbind(input, dim=0):
    """The slices along ``dim``, as a tuple of tensors with that dimension removed."""
    x = _at_least_1d("unbind", as_tensor(input))
    a = _dim("unbind", dim, len(x.shape), "dim")
    n = x.shape[a]
    if n == 0:
        return ()
    shape = tuple(x.shape[:a] + x.shape[a + 1:])
    pieces = A.split_p(x, sizes=(1,) * n, axis=a)
    return tuple(A.reshape_p(p, shape=shape) for p in pieces)


def unstack(input_x, axis=0):
    """Split into a tuple of slices along ``axis``, removing it (``unbind``)."""
    return unbind(input_x, axis)


# --------------------------------------------------------------------------- repeating
def tile(input, dims):
    """Repeat the whole tensor ``dims[i]`` times along dimension ``i`` (composite:
    reshape, broadcast, reshape)."""
    x = as_tensor(input)
    reps = _int_tuple("tile", dims, "dims")
    for i, r in enumerate(reps):
        if r < 0:
            raise ValueError(f"For 'Tile', 'dims' cannot contain negative integer numbers, but "
                             f"got {r} in {i}th.")
    nd = max(len(reps), x.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - x.ndim) + tuple(x.shape)
    interleaved = tuple(v for pair in zip(reps, shape) for v in pair)
    spread = A.reshape_p(x, shape=tuple(v for s in shape for v in (1, s)))
    spread = A.broadcast_to_p(spread, shape=interleaved)
    return A.reshape_p(spread, shape=tuple(r * s for r, s in zip(reps, shape)))


def repeat_interleave(input, repeats, axis=None):
    """Repeat each element ``repeats`` times (an int, or one count per element) along
    ``axis`` (the flattened tensor when None)."""
    x = as_tensor(input)
    if axis is None:
        x = reshape(x, (-1,))
        axis = 0
    a = _dim("repeat_interleave", axis, x.ndim)
    counts = _repeat_counts(repeats)
    if isinstance(counts, int):
        if counts < 0:
            raise ValueError(f"For 'repeat_interleave', 'repeats' must be non-negative, but got "
                             f"{counts}.")
        shape = tuple(x.shape)
        spread = A.reshape_p(x, shape=shape[:a + 1] + (1,) + shape[a + 1:])
        spread = A.broadcast_to_p(spread, shape=shape[:a + 1] + (counts,) + shape[a + 1:])
        return A.reshape_p(spread, shape=shape[:a] + (shape[a] * counts,) + shape[a + 1:])
    if len(counts) != x.shape[a] or any(c < 0 for c in counts):
        raise ValueError(f"For 'repeat_interleave', 'repeats' must hold one non-negative count "
                         f"per element of dimension {a} ({x.shape[a]}), but got {counts}.")
    index = P.wrap(np.repeat(np.arange(len(counts), dtype=np.int64), counts))
    return A.getitem_p(x, index, spec=_axis_spec(a, ("tensor", 0)))


def _repeat_counts(repeats):
    if isinstance(repeats, P._Tensor):
        repeats = repeats.asnumpy().tolist()
    if isinstance(repeats, (list, tuple)):
        counts = [static_int("repeat_interleave", "repeats", r) for r in repeats]
        return counts[0] if len(counts) == 1 else counts
    return static_int("repeat_interleave", "repeats", repeats)


def repeat_elements(x, rep, axis=0):
    """Repeat each element ``rep`` times along ``axis`` (``repeat_interleave``)."""
    return repeat_interleave(x, static_int("repeat_elements", "rep", rep), axis)


# --------------------------------------------------------------------------- gathering
def gather(input_params, input_indices, axis, batch_dims=0):
    """``output[..., i, ...] = input_params[..., input_indices[i], ...]`` along ``axis``;
    the first ``batch_dims`` dimensions of params and indices are paired."""
    x = as_tensor(input_params)
    idx = _index_tensor("gather", "input_indices", input_indices)
    nd = x.ndim
    a = _dim("gather", axis, nd)
    b = static_int("gather", "batch_dims", batch_dims)
    if b == 0:
        return _indexed("gather", A.getitem_p, x, idx, spec=_axis_spec(a, ("tensor", 0)))
    return _batched_gather(x, idx, a, b + idx.ndim if b < 0 else b)


def _batched_gather(x, idx, axis, b):
    if b > axis or b > idx.ndim or tuple(x.shape[:b]) != tuple(idx.shape[:b]):
        raise ValueError(f"For 'gather', 'batch_dims' ({b}) must not exceed 'axis' or the rank "
                         f"of 'input_indices', and the first batch_dims dimensions of the input "
                         f"{list(x.shape)} and indices {list(idx.shape)} must agree.")
    moved = movedim(x, axis, b)
    grids = [reshape(_int_range(0, n), (1,) * d + (n,) + (1,) * (idx.ndim - d - 1))
             for d, n in enumerate(x.shape[:b])]
    spec = tuple(("tensor", k) for k in range(b + 1))
    picked = _indexed("gather", A.getitem_p, moved, *grids, idx, spec=spec)
    # picked: batch + idx.shape[b:] + x.shape[b:axis] + x.shape[axis + 1:]
    k, mid = idx.ndim - b, axis - b
    perm = (tuple(range(b)) + tuple(range(b + k, b + k + mid)) + tuple(range(b, b + k))
            + tuple(range(b + k + mid, picked.ndim)))
    return A.transpose_p(picked, perm=perm)


def gather_elements(input, dim, index):
    """``output[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and alike for other dims)."""
    x = as_tensor(input)
    idx = _index_tensor("gather_elements", "index", index)
    a = _dim("gather_elements", dim, x.ndim, "dim")
    return A.gather_d_p(x, idx, axis=a)


def gather_d(x, dim, index):
    """``gather_elements`` under its older MindSpore name."""
    return gather_elements(x, dim, index)


def _nd_indices(name, indices, x):
    """Split ``indices[..., k]`` into k index tensors (one per leading dimension of x)."""
    idx = _index_tensor(name, "indices", indices)
    if idx.ndim == 0:
        raise ValueError(f"For '{name}', the rank of 'indices' must be at least 1.")
    k = idx.shape[-1]
    if k > x.ndim:
        raise ValueError(f"For '{name}', the last dimension of 'indices' ({k}) must not exceed "
                         f"the rank of the input ({x.ndim}).")
    cols = [A.getitem_p(idx, spec=(("ellipsis",), ("int", i))) for i in range(k)]
    return cols, tuple(("tensor", i) for i in range(k))


def gather_nd(input_x, indices):
    """``output[i...] = input_x[indices[i..., 0], ..., indices[i..., k-1]]``."""
    x = as_tensor(input_x)
    cols, spec = _nd_indices("gather_nd", indices, x)
    return _indexed("gather_nd", A.getitem_p, x, *cols, spec=spec)


def index_select(input, axis, index):
    """Select entries of ``input`` along ``axis`` at the 1-D ``index``."""
    if not isinstance(input, P._Tensor) or not isinstance(index, P._Tensor):
        raise TypeError("For 'index_select', `input` and `index` must be all tensors.")
    idx = _index_tensor("index_select", "index", index)
    if idx.ndim != 1:
        raise ValueError(f"For 'index_select', the dimension of `index` must be 1, but got "
                         f"{idx.ndim}")
    a = _dim("index_select", axis, input.ndim)
    return _indexed("index_select", A.getitem_p, input, idx,
                    spec=_axis_spec(a, ("tensor", 0)))


def take(input, index):
    """Entries of the flattened ``input`` at ``index`` (output has the index's shape)."""
    x = reshape(as_tensor(input), (-1,))
    idx = _index_tensor("take", "index", index)
    return _indexed("take", A.getitem_p, x, idx, spec=(("tensor", 0),))


def narrow(input, axis, start, length):
    """``length`` entries of ``input`` along ``axis`` from ``start``: a view."""
    x = as_tensor(input)
    a = _dim("narrow", axis, x.ndim)
    n = x.shape[a]
    s = static_int("narrow", "start", start)
    ln = static_int("narrow", "length", length)
    if not -n <= s <= n:
        raise ValueError(f"For 'narrow', the 'start' must be in range [{-n}, {n}], but got {s}.")
    if s < 0:
        s += n
    if not 0 <= ln <= n - s:
        raise ValueError(f"For 'narrow', the 'length' must be in range [0, {n - s}], but got "
                         f"{ln}.")
    return A.getitem_p(x, spec=_axis_spec(a, ("slice", s, s + ln, None)))


def select_dim(input, dim, index):
    """``input`` at position ``index`` of ``dim``, that dimension removed (a view)."""
    x = as_tensor(input)
    a = _dim("select", dim, x.ndim, "dim")
    i = static_int("select", "index", index)
    return _indexed("select", A.getitem_p, x, spec=_axis_spec(a, ("int", i)))


# --------------------------------------------------------------------------- masks
def masked_fill(input_x, mask, value):
    """``value`` where ``mask`` is True, ``input_x`` elsewhere (broadcast; keeps the input's
    dtype)."""
    x = as_tensor(input_x)
    m = _bool_mask("masked_fill", mask)
    return M.where_p(m, _value_like(x, value), x)


def _bool_mask(name, mask):
    m = as_tensor(mask)
    if m._data.dtype != np.bool_:
        raise TypeError(f"For '{name}', the 'mask' must be a Bool tensor, but got {m.dtype}.")
    return m


def _value_like(x, value):
    """``value`` converted to ``x``'s dtype (a Python scalar stays weak)."""
    if isinstance(value, P._Tensor):
        return value if value._data.dtype == x._data.dtype else A.cast_p(value, dtype=x._data.dtype)
    if isinstance(value, (bool, int, float, np.generic)):
        return np.asarray(value).astype(x._data.dtype).item()
    raise TypeError(f"For 'masked_fill', the 'value' must be a number or a Tensor, but got "
                    f"{type(value).__name__}.")


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` is True, as a 1-D tensor (broadcast first)."""
    x = as_tensor(input)
    m = _bool_mask("masked_select", mask)
    try:
        shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(m.shape)))
    except ValueError:
        raise ValueError(f"For 'masked_select', the shapes of 'input' {list(x.shape)} and 'mask' "
                         f"{list(m.shape)} cannot be broadcast together.") from None
    if tuple(x.shape) != shape:
        x = A.broadcast_to_p(x, shape=shape)
    if tuple(m.shape) != shape:
        m = A.broadcast_to_p(m, shape=shape)
    return A.getitem_p(x, m, spec=(("tensor", 0),))


def nonzero(input, *, as_tuple=False):
    """Indices of the non-zero elements: an (N, ndim) Int64 tensor, or one 1-D tensor per
    dimension with ``as_tuple=True``."""
    x = as_tensor(input)
    idx = A.nonzero_p(x)
    if not as_tuple:
        return idx
    return unbind(idx, 1)


def argwhere(input):
    """Indices of the non-zero elements, one row per element (``nonzero``)."""
    return nonzero(input)


# --------------------------------------------------------------------------- scattering
def scatter(input, axis, index, src):
    """``out[i][index[i][j]] = src[i][j]`` for ``axis=1`` (alike for other axes); ``src`` may be
    a number or a tensor at least as large as ``index``."""
    return _scatter_elements("scatter", input, axis, index, src, "none")


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """A copy of ``input_x`` with ``updates`` written (or added, ``reduction='add'``) at
    ``indices`` along ``axis``, element by element."""
    if reduction not in ("none", "add"):
        raise ValueError(f"For 'tensor_scatter_elements', 'reduction' must be 'none' or 'add', "
                         f"but got {reduction!r}.")
    return _scatter_elements("tensor_scatter_elements", input_x, axis, indices, updates,
                             reduction)


def _scatter_elements(name, input, axis, index, src, reduction):
    x = as_tensor(input)
    idx = _index_tensor(name, "index", index)
    a = _dim(name, axis, x.ndim)
    if isinstance(src, P._Tensor):
        if src.ndim != idx.ndim:
            raise ValueError(f"For '{name}', 'src' and 'index' must have the same rank, but got "
                             f"{src.ndim} and {idx.ndim}.")
        if tuple(src.shape) != tuple(idx.shape):
            if any(i > s for i, s in zip(idx.shape, src.shape)):
                raise ValueError(f"For '{name}', 'index' {list(idx.shape)} may not be larger "
                                 f"than 'src' {list(src.shape)} in any dimension.")
            src = A.getitem_p(src, spec=tuple(("slice", 0, n, None) for n in idx.shape))
    else:
        src = A.full_p(shape=tuple(idx.shape), dtype=x._data.dtype, value=src)
    return A.scatter_elements_p(x, idx, src, axis=a, reduction=reduction)


def scatter_add_elements(input, dim, index, src):
    """PyTorch-style ``scatter_add``: ``out[i][index[i][j]] += src[i][j]`` (``dim=1``)."""
    return _scatter_elements("scatter_add", input, dim, index, src, "add")


def _rows_update(name, input_x, indices, updates, accumulate):
    """``input_x[indices] = updates`` (or ``+=``), written into ``input_x`` in place."""
    x = _tensor_arg(name, "input_x", input_x)
    idx = _index_tensor(name, "indices", indices)
    upd = _tensor_arg(name, "updates", updates)
    want = tuple(idx.shape) + tuple(x.shape[1:])
    if tuple(upd.shape) != want:
        raise ValueError(f"For '{name}', 'updates' must have shape indices.shape + "
                         f"input_x.shape[1:] = {list(want)}, but got {list(upd.shape)}.")
    new = _indexed(name, A.index_put_p, x, upd, idx, spec=(("tensor", 0),),
                   accumulate=accumulate)
    return A.assign_p(x, new)


def scatter_add(input_x, indices, updates):
    """``input_x[indices] += updates`` in place (duplicates accumulate); returns ``input_x``."""
    return _rows_update("scatter_add", input_x, indices, updates, True)


def scatter_update(input_x, indices, updates):
    """``input_x[indices] = updates`` in place; returns ``input_x``."""
    return _rows_update("scatter_update", input_x, indices, updates, False)


def _tensor_scatter(name, input_x, indices, updates, accumulate):
    x = as_tensor(input_x)
    indices = _index_tensor(name, "indices", indices)
    cols, spec = _nd_indices(name, indices, x)
    upd = as_tensor(updates)
    k = len(cols)
    want = tuple(indices.shape[:-1]) + tuple(x.shape[k:])
    if tuple(upd.shape) != want:
        raise ValueError(f"For '{name}', updates_shape = indices_shape[:-1] + "
                         f"x_shape[indices_shape[-1]:], but got x_shape: {tuple(x.shape)}, "
                         f"indices_shape: {tuple(indices.shape)}, updates_shape: "
                         f"{tuple(upd.shape)}.")
    if upd._data.dtype != x._data.dtype:
        raise TypeError(f"For '{name}', 'updates' must have the dtype of 'input_x', but got "
                        f"{upd.dtype} and {x.dtype}.")
    return _indexed(name, A.index_put_p, x, upd, *cols, spec=spec, accumulate=accumulate)


def tensor_scatter_update(input_x, indices, updates):
    """A copy of ``input_x`` with the slices addressed by the rows of ``indices`` replaced."""
    return _tensor_scatter("tensor_scatter_update", input_x, indices, updates, False)


def tensor_scatter_add(input_x, indices, updates):
    """A copy of ``input_x`` with ``updates`` added at the rows of ``indices`` (duplicates
    accumulate)."""
    return _tensor_scatter("tensor_scatter_add", input_x, indices, updates, True)


def scatter_nd(indices, updates, shape):
    """Zeros of ``shape`` with ``updates`` added at the rows of ``indices``."""
    upd = as_tensor(updates)
    shape = _int_tuple("scatter_nd", shape)
    zeros = A.full_p(shape=shape, dtype=upd._data.dtype, value=0)
    return _tensor_scatter("scatter_nd", zeros, indices, upd, True)


def _index_add(name, x, axis, index, source):
    idx = _index_tensor(name, "indices", index)
    if idx.ndim != 1:
        raise ValueError(f"For '{name}', the 'indices' must be 1-D, but got rank {idx.ndim}.")
    a = _dim(name, axis, x.ndim)
    want = tuple(x.shape[:a]) + (idx.shape[0],) + tuple(x.shape[a + 1:])
    if tuple(source.shape) != want:
        raise ValueError(f"For '{name}', the added tensor must have shape {list(want)}, but got "
                         f"{list(source.shape)}.")
    return _indexed(name, A.index_put_p, x, source, idx, spec=_axis_spec(a, ("tensor", 0)),
                    accumulate=True)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``x[..., indices[i], ...] += y[..., i, ...]`` along ``axis``, in place; returns ``x``."""
    x = _tensor_arg("index_add", "x", x)
    return A.assign_p(x, _index_add("index_add", x, axis, indices, as_tensor(y)))


def index_fill(x, axis, index, value):
    """A copy of ``x`` with the entries at ``index`` along ``axis`` set to ``value``."""
    x = as_tensor(x)
    idx = _index_tensor("index_fill", "index", index)
    a = _dim("index_fill", axis, x.ndim)
    return _indexed("index_fill", A.index_put_p, x, _value_like(x, value), reshape(idx, (-1,)),
                    spec=_axis_spec(a, ("tensor", 0)))


def index_put(input, indices, values, accumulate=False):
    """A copy of ``input`` with ``input[indices] = values`` (``+=`` when accumulating);
    ``indices`` is a tuple of index tensors, one per leading dimension."""
    x = as_tensor(input)
    if not isinstance(indices, (tuple, list)):
        indices = (indices,)
    idx = [i if isinstance(i, P._Tensor) and i._data.dtype == np.bool_
           else _index_tensor("index_put", "indices", i) for i in indices]
    spec = tuple(("tensor", k) for k in range(len(idx)))
    value = values if isinstance(values, P._Tensor) else _value_like(x, values)
    return _indexed("index_put", A.index_put_p, x, value, *idx, spec=spec,
                    accumulate=bool(accumulate))


# --------------------------------------------------------------------------- reordering
def flip(input, dims):
    """Reverse the order of elements along ``dims`` (a view)."""
    x = as_tensor(input)
    dims = (dims,) if isinstance(dims, (int, np.integer)) else dims
    axes = [_dim("flip", d, x.ndim, "dims") for d in _int_tuple("flip", dims, "dims")]
    if len(set(axes)) != len(axes):
        raise ValueError(f"For 'flip', the 'dims' cannot contain duplicate dimensions, but got "
                         f"{dims}.")
    spec = tuple(("slice", None, None, -1 if d in axes else None) for d in range(x.ndim))
    return A.getitem_p(x, spec=spec)


def fliplr(input):
    """Reverse the order along axis 1 (left/right); needs at least 2-D."""
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"For 'fliplr', the input must be at least 2-D, but got rank {x.ndim}.")
    return flip(x, (1,))


def flipud(input):
    """Reverse the order along axis 0 (up/down); needs at least 1-D."""
    x = as_tensor(input)
    if x.ndim < 1:
        raise ValueError("For 'flipud', the input must be at least 1-D, but got a 0-D tensor.")
    return flip(x, (0,))


def roll(input, shifts, dims=None):
    """Shift elements cyclically by ``shifts`` along ``dims`` (the flattened tensor if None)."""
    x = as_tensor(input)
    shifts = _int_tuple("roll", shifts, "shifts")
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"For 'roll', 'shifts' must be a single number when 'dims' is "
                             f"None, but got {list(shifts)}.")
        return A.roll_p(x, shifts=shifts, axes=None)
    axes = tuple(_dim("roll", d, x.ndim, "dims")
                 for d in _int_tuple("roll", dims, "dims"))
    if len(axes) != len(shifts):
        raise ValueError(f"For 'roll', 'shifts' and 'dims' must have the same length, but got "
                         f"{len(shifts)} and {len(axes)}.")
    return A.roll_p(x, shifts=shifts, axes=axes)


def rot90(input, k, dims):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the
    second)."""
    x = as_tensor(input)
    pair = _int_tuple("rot90", dims, "dims")
    if len(pair) != 2:
        raise ValueError(f"For 'rot90', the 'dims' must be a pair of dimensions, but got {dims}.")
    d0, d1 = (_dim("rot90", d, x.ndim, "dims") for d in pair)
    if d0 == d1:
        raise ValueError("For 'rot90', the two 'dims' must differ.")
    k = static_int("rot90", "k", k) % 4
    if k == 1:
        return swapaxes(flip(x, (d1,)), d0, d1)
    if k == 2:
        return flip(x, (d0, d1))
    if k == 3:
        return flip(swapaxes(x, d0, d1), (d1,))
    return x


def sort(input_x, axis=-1, descending=False):
    """``(values, indices)`` sorted along ``axis`` (stable); indices are Int32."""
    x = as_tensor(input_x)
    a = static_int("sort", "axis", axis)
    return A.sort_p(x, axis=a, descending=bool(descending))


def argsort(input, axis=-1, descending=False):
    """Int32 indices that sort ``input`` along ``axis`` (stable)."""
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):
    """The ``k`` largest (or smallest) entries along ``dim`` (default: last) and their Int32
    indices, in order; equal entries keep index order."""
    x = as_tensor(input)
    axis = -1 if dim is None else static_int("topk", "dim", dim)
    return A.topk_p(x, k=static_int("topk", "k", k), axis=axis, largest=bool(largest))


def top_k(input_x, k, sorted=True):
    """``topk`` under its older MindSpore name: ``(values, indices)`` of the ``k`` largest."""
    return topk(input_x, k, sorted=sorted)


def unique(input):
    """``(output, inverse)``: the distinct elements in order of first appearance, and for
    every input element the position of its value in ``output``."""
    x = as_tensor(input)
    inv = np.dtype(np.int64) if x._data.dtype == np.int64 else np.dtype(np.int32)
    values, inverse, _ = A.unique_p(x, sorted=False, axis=None, inverse_dtype=inv)
    return values, inverse


# --------------------------------------------------------------------------- construction
def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot encoding: ``on_value`` where the class equals the index. Python-number values
    give Int64 (ints) or Float32 (floats); tensor values keep their dtype."""
    idx = _index_tensor("one_hot", "indices", indices)
    depth = static_int("one_hot", "depth", depth)
    if depth < 0:
        raise ValueError(f"For 'one_hot', the 'depth' must be non-negative, but got {depth}.")
    nd = idx.ndim + 1
    a = static_int("one_hot", "axis", axis)
    if not -1 <= a < nd:
        raise ValueError(f"For 'one_hot', the 'axis' must be -1 or in range [0, {nd}), but got "
                         f"{a}.")
    a %= nd
    classes = reshape(_int_range(0, depth), (1,) * a + (depth,) + (1,) * (nd - a - 1))
    hot = M.equal_p(expand_dims(idx, a), classes)
    return M.where_p(hot, on_value, off_value)


def diag(input):
    """A tensor of rank 2k with ``input`` (rank k) on its diagonal."""
    x = as_tensor(input)
    if x.ndim == 0:
        raise ValueError("For 'diag', the input rank must be greater than or equal to 1, but "
                         "got 0.")
    shape = tuple(x.shape)
    n = x.size
    column = reshape(x, (n, 1))
    eye = A.eye_p(n=n, m=n, dtype=np.dtype(np.bool_))
    zero = False if x._data.dtype == np.bool_ else 0
    return reshape(M.where_p(eye, column, zero), shape + shape)


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal at ``offset`` of the planes spanned by ``dim1`` and ``dim2``, as the last
    dimension of the result."""
    x = as_tensor(input)
    nd = x.ndim
    d1 = _dim("diagonal", dim1, nd, "dim1")
    d2 = _dim("diagonal", dim2, nd, "dim2")
    if d1 == d2:
        raise ValueError(f"For 'Diagonal', dim1 and dim2 cannot be identical, but got : dim1 "
                         f"={d1} and dim2 = {d2}.")
    off = static_int("diagonal", "offset", offset)
    perm = tuple(d for d in range(nd) if d not in (d1, d2)) + (d1, d2)
    planes = A.transpose_p(x, perm=perm)
    r0, c0 = max(-off, 0), max(off, 0)
    length = max(0, min(x.shape[d1] - r0, x.shape[d2] - c0))
    rows = _int_range(r0, r0 + length)
    cols = _int_range(c0, c0 + length)
    return A.getitem_p(planes, rows, cols, spec=(("ellipsis",), ("tensor", 0), ("tensor", 1)))


def _triangle(name, input, diagonal, lower):
    x = as_tensor(input)
    if x.ndim < 2:
        raise ValueError(f"For '{name}', the input's rank must be greater than or equal to 2, "
                         f"but got {x.ndim}.")
    k = static_int(name, "diagonal", diagonal)
    n, m = x.shape[-2:]
    keep = A.tri_p(n=n, m=m, k=k, lower=lower)
    return M.where_p(keep, x, False if x._data.dtype == np.bool_ else 0)


def tril(input, diagonal=0):
    """The lower triangle (``col - row <= diagonal``) of the last two dimensions."""
    return _triangle("tril", input, diagonal, True)


def triu(input, diagonal=0):
    """The upper triangle (``col - row >= diagonal``) of the last two dimensions."""
    return _triangle("triu", input, diagonal, False)


def meshgrid(*inputs, indexing="xy"):
    """Coordinate grids from 1-D tensors ('xy': the first two output dims are swapped)."""
    if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
        inputs = tuple(inputs[0])
    xs = _tensor_list("meshgrid", list(inputs), "inputs")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', 'indexing' must be 'xy' or 'ij', but got "
                         f"{indexing!r}.")
    for i, x in enumerate(xs):
        if x.ndim > 1:
            raise ValueError(f"For 'meshgrid', every input must be 1-D, but input {i} has rank "
                             f"{x.ndim}.")
    sizes = [x.size for x in xs]
    order = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        order[0], order[1] = 1, 0
    shape = tuple(sizes[i] for i in order)
    grids = []
    for i, x in enumerate(xs):
        pos = order.index(i)
        placed = reshape(x, (1,) * pos + (sizes[i],) + (1,) * (len(xs) - pos - 1))
        grids.append(A.broadcast_to_p(placed, shape=shape))
    return tuple(grids)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "edge": "edge", "circular": "wrap"}


def pad(input_x, padding, mode="constant", value=None):
    """Pad (or crop, with negative amounts) the last dimensions. ``padding`` lists
    (before, after) pairs starting from the LAST dimension, as PyTorch does:
    ``(left, right, top, bottom, ...)``. Modes: 'constant', 'reflect', 'replicate',
    'circular'."""
    x = as_tensor(input_x)
    pads = _int_tuple("pad", padding, "padding")
    if len(pads) % 2:
        raise ValueError(f"For 'pad', the size of padding must be divisible by 2, but got "
                         f"{len(pads)}")
    if len(pads) // 2 > x.ndim:
        raise ValueError(f"For 'pad', the padding has {len(pads) // 2} (before, after) pairs, "
                         f"more than the input's rank {x.ndim}.")
    if mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', the 'mode' must be one of {sorted(_PAD_MODES)}, but got "
                         f"{mode!r}.")
    pairs = [(0, 0)] * x.ndim
    for j in range(len(pads) // 2):
        pairs[x.ndim - 1 - j] = (pads[2 * j], pads[2 * j + 1])
    fill = 0 if value is None else (value.item() if isinstance(value, P._Tensor) else value)
    return A.pad_p(x, pads=tuple(pairs), mode=_PAD_MODES[mode], value=fill)


def mirror_pad(input_x, paddings, mode):
    """MindSpore's ``MirrorPad``: ``paddings`` holds one (before, after) pair per dimension,
    FIRST dimension first; ``mode`` 'REFLECT' (the edge is not repeated) or 'SYMMETRIC' (it
    is). Used by ``nn.Pad``; not a public op."""
    x = as_tensor(input_x)
    pairs = tuple((int(b), int(a)) for b, a in paddings)
    if len(pairs) != x.ndim:
        raise ValueError(f"For 'MirrorPad', 'paddings' must have one (before, after) pair per "
                         f"dimension of the input ({x.ndim}), but got {len(pairs)}.")
    return A.pad_p(x, pads=pairs, mode=mode.lower(), value=0)


# --------------------------------------------------------------------------- more array ops
def numel(input):
    """The number of elements (a Python int)."""
    return int(np.prod(_tensor_arg("numel", "input", input).shape, dtype=np.int64))


size = numel


def shape(input_x):
    """The shape (a tuple of Python ints)."""
    return tuple(_tensor_arg("shape", "input_x", input_x).shape)


def rank(input_x):
    """The number of dimensions (a Python int)."""
    return _tensor_arg("rank", "input_x", input_x).ndim


def view_as(input, other):
    """``input`` reshaped to ``other``'s shape."""
    return reshape(input, _tensor_arg("view_as", "other", other).shape)


def reverse(x, axis):
    """``flip`` under MindSpore's older name."""
    return flip(x, axis)


def slice(input_x, begin, size):  # noqa: A001  (MindSpore's name)
    """The block starting at ``begin`` with extent ``size`` per dimension (-1: to the end)."""
    from ._indexing import getitem
    x = as_tensor(input_x)
    begin, size = _int_tuple("slice", begin, "begin"), _int_tuple("slice", size, "size")
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"For 'slice', the length of 'begin' and 'size' must equal the rank "
                         f"of 'input_x' ({x.ndim}), but got {len(begin)} and {len(size)}.")
    index = tuple(builtins.slice(b, None if n == -1 else b + n) for b, n in zip(begin, size))
    return getitem(x, index)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """``input_x[begin:end:strides]`` with MindSpore's (TensorFlow's) bit masks: bit i of
    ``begin_mask``/``end_mask`` ignores that bound, of ``ellipsis_mask`` makes entry i an
    ellipsis, of ``new_axis_mask`` inserts an axis, of ``shrink_axis_mask`` indexes with
    ``begin[i]`` (dropping the dimension)."""
    from ._indexing import getitem
    begin = _int_tuple("strided_slice", begin, "begin")
    end = _int_tuple("strided_slice", end, "end")
    strides = _int_tuple("strided_slice", strides, "strides")
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"For 'strided_slice', 'begin', 'end' and 'strides' must have the same "
                         f"length, but got {len(begin)}, {len(end)} and {len(strides)}.")
    if 0 in strides:
        raise ValueError("For 'strided_slice', the 'strides' can not contain 0.")
    index = []
    for i, (b, e, st) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(b)
        else:
            index.append(builtins.slice(None if begin_mask & bit else b,
                                        None if end_mask & bit else e, st))
    return getitem(as_tensor(input_x), tuple(index))


def _split_at_least(name, input, indices_or_sections, axis, min_rank):
    x = as_tensor(input)
    if x.ndim < min_rank:
        raise ValueError(f"For '{name}', the input must have at least {min_rank} dimensions, "
                         f"but got {x.ndim}.")
    return tensor_split(x, indices_or_sections, axis)


def vsplit(input, indices_or_sections):
    """``tensor_split`` along axis 0 of an input of at least 2 dimensions."""
    return _split_at_least("vsplit", input, indices_or_sections, 0, 2)


def hsplit(input, indices_or_sections):
    """``tensor_split`` along axis 1 (axis 0 of a 1-D input)."""
    x = as_tensor(input)
    return _split_at_least("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, 1)


def dsplit(input, indices_or_sections):
    """``tensor_split`` along axis 2 of an input of at least 3 dimensions."""
    return _split_at_least("dsplit", input, indices_or_sections, 2, 3)


def _at_least(inputs, n):
    """Each tensor with at least ``n`` dimensions: 0-d -> (1,)*n, (k,) -> (1, k)[, 1],
    (m, k) -> (m, k, 1) for n = 3."""
    def one(x):
        x = as_tensor(x)
        if x.ndim >= n:
            return x
        if x.ndim == 0:
            return reshape(x, (1,) * n)
        if x.ndim == 1:
            return reshape(x, (1, x.shape[0]) + (1,) * (n - 2))
        return reshape(x, x.shape + (1,))
    if isinstance(inputs, (tuple, list)):
        return tuple(one(x) for x in inputs)
    return one(inputs)


def atleast_1d(inputs):
    """A tensor (or each of a list of tensors) with at least 1 dimension."""
    return _at_least(inputs, 1)


def atleast_2d(inputs):
    """A tensor (or each of a list of tensors) with at least 2 dimensions."""
    return _at_least(inputs, 2)


def atleast_3d(inputs):
    """A tensor (or each of a list of tensors) with at least 3 dimensions."""
    return _at_least(inputs, 3)


def dstack(tensors):
    """Concatenate along axis 2 after ``atleast_3d``."""
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"For 'dstack', the 'tensors' must be a tuple or list of Tensors, but "
                        f"got {type(tensors).__name__}.")
    return concat(atleast_3d(list(tensors)), 2)


def row_stack(tensors):
    """``vstack`` under its other name."""
    return vstack(tensors)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Put the last dimension of ``input`` on the ``offset`` diagonal of new (dim1, dim2)
    planes; the result has one more dimension."""
    x = as_tensor(input)
    offset = static_int("diag_embed", "offset", offset)
    out_ndim = x.ndim + 1
    d1, d2 = _dim("diag_embed", dim1, out_ndim, "dim1"), _dim("diag_embed", dim2, out_ndim,
                                                                "dim2")
    if d1 == d2:
        raise ValueError("For 'diag_embed', 'dim1' and 'dim2' must be different.")
    m = x.shape[-1] if x.ndim else 1
    n = m + abs(offset)
    # column j of row i = j - offset holds x[j - max(offset, 0)]: pad x to n columns
    cols = pad(x, (max(offset, 0), max(-offset, 0)))
    eye_k = P._Tensor(np.eye(n, k=offset, dtype=x._data.dtype))
    planes = expand_dims(cols, -2) * eye_k
    return movedim(planes, (out_ndim - 2, out_ndim - 1), (min(d1, d2), max(d1, d2))) \
        if d1 < d2 else movedim(planes, (out_ndim - 2, out_ndim - 1), (d1, d2))


def diagflat(input, offset=0):
    """A 2-D matrix with the flattened ``input`` on its ``offset`` diagonal."""
    return diag_embed(reshape(as_tensor(input), (-1,)), offset)


def cartesian_prod(*inputs):
    """All combinations of the 1-D ``inputs`` as rows of a (N, len(inputs)) tensor."""
    grids = meshgrid(*inputs, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)


def block_diag(*inputs):
    """The inputs (0-, 1- or 2-D) placed along the diagonal of a 2-D tensor."""
    blocks = [reshape(t, (1, -1)) if as_tensor(t).ndim < 2 else as_tensor(t) for t in inputs]
    for t in blocks:
        if t.ndim != 2:
            raise ValueError(f"For 'block_diag', the inputs must have at most 2 dimensions, but "
                             f"got {t.ndim}.")
    width = sum(t.shape[1] for t in blocks)
    rows, left = [], 0
    for t in blocks:
        rows.append(pad(t, (left, width - left - t.shape[1])))
        left += t.shape[1]
    return concat(rows, 0)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (of ``dim`` slices, or of the flattened
    input); optionally the run number of every element (Int64) and each run's length."""
    x = as_tensor(input)
    if dim is None:
        x, axis = reshape(x, (-1,)), 0
    else:
        axis = _dim("unique_consecutive", dim, x.ndim, "dim")
    data = np.moveaxis(x.asnumpy(), axis, 0).reshape(x.shape[axis], -1)
    starts = np.ones(len(data), bool)
    starts[1:] = (data[1:] != data[:-1]).any(axis=1)
    first = np.flatnonzero(starts)
    out = index_select(x, axis, P._Tensor(first.astype(np.int64)))
    extras = []
    if return_inverse:
        extras.append(P._Tensor((np.cumsum(starts) - 1).astype(np.int64)))
    if return_counts:
        extras.append(P._Tensor(np.diff(np.append(first, len(data))).astype(np.int64)))
    return (out, *extras) if extras else out


def sequence_mask(lengths, maxlen=None):
    """``arange(maxlen) < lengths[..., None]`` (Bool); ``maxlen`` defaults to the largest
    length."""
    lengths = _tensor_arg("sequence_mask", "lengths", lengths)
    if maxlen is None:
        top = lengths.asnumpy().max() if lengths.size else 0
        if not np.isfinite(top):
            raise ValueError("For 'sequence_mask', the 'lengths' must be finite.")
        maxlen = int(top)
    maxlen = static_int("sequence_mask", "maxlen", maxlen)
    if maxlen <= 0:
        raise ValueError(f"For 'sequence_mask', the 'maxlen' must be positive, but got {maxlen}.")
    positions = A.arange_p(start=0, stop=maxlen, step=1, dtype=lengths._data.dtype)
    return M.less_p(positions, expand_dims(lengths, -1))


def _replace_along(name, x, src, axis, positions):
    """``x`` with the entries at ``positions`` along ``axis`` taken from ``src`` (which
    holds them in that order): one gather from the two joined."""
    n = x.shape[axis]
    source = np.arange(n)
    source[positions] = n + np.arange(len(positions))
    if tuple(src.shape) != x.shape[:axis] + (len(positions),) + x.shape[axis + 1:]:
        raise ValueError(f"For '{name}', the shape of 'src' {tuple(src.shape)} does not fit "
                         f"{len(positions)} entries along axis {axis} of {tuple(x.shape)}.")
    joined = concat((x, src.astype(x.dtype)), axis)
    return index_select(joined, axis, P._Tensor(source.astype(np.int64)))


def select_scatter(input, src, axis, index):
    """``input`` with entry ``index`` along ``axis`` replaced by ``src``."""
    x = as_tensor(input)
    a = _dim("select_scatter", axis, x.ndim)
    i = static_int("select_scatter", "index", index)
    if not -x.shape[a] <= i < x.shape[a]:
        raise IndexError(f"For 'select_scatter', the 'index' {i} is out of range for axis {a} "
                         f"of size {x.shape[a]}.")
    return _replace_along("select_scatter", x, expand_dims(as_tensor(src), a), a,
                          [i % x.shape[a]])


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """``input`` with ``input[start:end:step]`` along ``axis`` replaced by ``src``."""
    x = as_tensor(input)
    a = _dim("slice_scatter", axis, x.ndim)
    start, end, step = (None if v is None else static_int("slice_scatter", n, v)
                        for n, v in (("start", start), ("end", end), ("step", step)))
    if step == 0:
        raise ValueError("For 'slice_scatter', the 'step' cannot be 0.")
    positions = list(range(x.shape[a]))[builtins.slice(start, end, step)]
    return _replace_along("slice_scatter", x, as_tensor(src), a, positions)


def matrix_band_part(x, lower, upper):
    """Zero everything outside the band of ``lower`` sub- and ``upper`` super-diagonals of
    the last two dimensions (a negative count keeps that whole triangle)."""
    x = _tensor_arg("matrix_band_part", "x", x)
    if x.ndim < 2:
        raise ValueError(f"For 'matrix_band_part', the input must have at least 2 dimensions, "
                         f"but got {x.ndim}.")
    lower = static_int("matrix_band_part", "lower", lower)
    upper = static_int("matrix_band_part", "upper", upper)
    rows, cols = np.indices(x.shape[-2:])
    keep = ((lower < 0) | (rows - cols <= lower)) & ((upper < 0) | (cols - rows <= upper))
    return M.where_p(P._Tensor(keep), x, 0)


_SEGMENT_EMPTY = {"sum": lambda d: 0, "prod": lambda d: 1,
                  "max": lambda d: np.finfo(d).min if d.kind == "f" else np.iinfo(d).min,
                  "min": lambda d: np.finfo(d).max if d.kind == "f" else np.iinfo(d).max}


def _unsorted_segment(name, reduce, x, segment_ids, num_segments):
    """Reduce the rows of ``x`` (leading dims = ``segment_ids``' shape) sharing a segment id:
    the rows of each segment are gathered into a (num_segments, longest, ...) block padded
    with the reduction's identity, which an ordinary reduction then folds (so gradients are
    those of gather and the reduction)."""
    from ._reduce import amax, amin, prod, sum as reduce_sum
    x = _tensor_arg(name, "input_x", x)
    ids = _index_tensor(name, "segment_ids", segment_ids)
    num = static_int(name, "num_segments", num_segments)
    if not 0 <= num < 2 ** 62:
        raise ValueError(f"For '{name}', the 'num_segments' must be a non-negative int below "
                         f"2**62, but got {num}.")
    if tuple(x.shape[:ids.ndim]) != tuple(ids.shape):
        raise ValueError(f"For '{name}', the shape of 'segment_ids' {tuple(ids.shape)} must be "
                         f"a prefix of the shape of 'input_x' {tuple(x.shape)}.")
    flat_ids = ids.asnumpy().reshape(-1).astype(np.int64)
    if flat_ids.size and (flat_ids.min() < 0 or flat_ids.max() >= num):
        raise ValueError(f"For '{name}', segment_ids value should be [0, {num}), but got "
                         f"values in [{flat_ids.min()}, {flat_ids.max()}].")
    rows = reshape(x, (flat_ids.size,) + tuple(x.shape[ids.ndim:]))
    counts = np.bincount(flat_ids, minlength=num)
    longest = max(int(counts.max()) if counts.size else 0, 1)
    slots = np.full((num, longest), flat_ids.size, np.int64)     # the padding row
    order = np.argsort(flat_ids, kind="stable")
    rank_in_segment = np.arange(flat_ids.size) - np.repeat(np.cumsum(counts) - counts, counts)
    slots[flat_ids[order], rank_in_segment] = order
    filler = np.full((1,) + tuple(x.shape[ids.ndim:]), _SEGMENT_EMPTY[reduce](x._data.dtype),
                     x._data.dtype)
    padded = concat((rows, P._Tensor(filler)), 0)
    block = index_select(padded, 0, P._Tensor(slots.reshape(-1)))
    block = reshape(block, (num, longest) + tuple(x.shape[ids.ndim:]))
    fold = {"sum": reduce_sum, "prod": prod, "max": amax, "min": amin}[reduce]
    return fold(block, 1)


def unsorted_segment_sum(input_x, segment_ids, num_segments):
    """Sum of the rows of each segment (0 for an empty one)."""
    return _unsorted_segment("unsorted_segment_sum", "sum", input_x, segment_ids, num_segments)


def unsorted_segment_prod(input_x, segment_ids, num_segments):
    """Product of the rows of each segment (1 for an empty one)."""
    return _unsorted_segment("unsorted_segment_prod", "prod", input_x, segment_ids,
                             num_segments)


def unsorted_segment_max(x, segment_ids, num_segments):
    """Maximum of the rows of each segment (the dtype's lowest value for an empty one)."""
    return _unsorted_segment("unsorted_segment_max", "max", x, segment_ids, num_segments)


def unsorted_segment_min(x, segment_ids, num_segments):
    """Minimum of the rows of each segment (the dtype's highest value for an empty one)."""
    return _unsorted_segment("unsorted_segment_min", "min", x, segment_ids, num_segments)


def tensor_scatter_sub(input_x, indices, updates):
    """A copy of ``input_x`` with ``updates`` subtracted at the rows of ``indices``."""
    return _tensor_scatter("tensor_scatter_sub", input_x, indices, M.neg_p(as_tensor(updates)),
                           True)


# --------------------------------------------------------------------------- Tensor methods
def _tensor_gather(self, *args, **kwargs):
    """``gather(dim, index)`` (PyTorch style) or ``gather(input_indices, axis, batch_dims=0)``."""
    if "dim" in kwargs or "index" in kwargs or (
            args and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool)):
        dim = kwargs.pop("dim", args[0] if args else None)
        index = kwargs.pop("index", args[1] if len(args) > 1 else None)
        return gather_elements(self, dim, index)
    return gather(self, *args, **kwargs)


def _tensor_scatter_add(self, *args, **kwargs):
    """``scatter_add(dim, index, src)`` (out of place) or ``scatter_add(indices, updates)``."""
    if "dim" in kwargs or (args and isinstance(args[0], (int, np.integer))):
        dim = kwargs.pop("dim", args[0] if args else None)
        rest = list(args[1:])
        index = kwargs.pop("index", rest.pop(0) if rest else None)
        src = kwargs.pop("src", rest.pop(0) if rest else None)
        return scatter_add_elements(self, dim, index, src)
    return scatter_add(self, *args, **kwargs)


def _tensor_index_add(self, *args, alpha=1, **kwargs):
    """``index_add(dim, index, source, *, alpha=1)`` (out of place) or MindSpore's
    ``index_add(indices, y, axis)`` (in place)."""
    if "dim" in kwargs or (args and isinstance(args[0], (int, np.integer))):
        dim = kwargs.pop("dim", args[0] if args else None)
        rest = list(args[1:])
        index = kwargs.pop("index", rest.pop(0) if rest else None)
        source = as_tensor(kwargs.pop("source", rest.pop(0) if rest else None))
        if alpha != 1:
            source = M.mul_p(source, alpha)
        return _index_add("index_add", self, dim, index, source)
    return index_add(self, *args, **kwargs)


def _tensor_select(self, *args, **kwargs):
    """``select(dim, index)`` (a view) or the older ``select(condition, y)``."""
    if args and isinstance(args[0], P._Tensor):
        return M.where_p(args[0], self, args[1] if len(args) > 1 else kwargs["y"])
    return select_dim(self, *args, **kwargs)


def _tensor_where(self, condition, y):
    """``Tensor.where(condition, y)``: this tensor where ``condition`` holds, else ``y``
    (MindSpore's method order; ``ops.where`` takes the condition first)."""
    return M.where_p(condition, self, y)


def _dim_arg(dim, axis, default):
    return default if dim is None and axis is None else (dim if dim is not None else axis)


def _tensor_sort(self, dim=None, descending=False, stable=False, *, axis=None):
    return sort(self, _dim_arg(dim, axis, -1), descending)


def _tensor_argsort(self, axis=None, descending=False, stable=False, *, dim=None):
    return argsort(self, _dim_arg(dim, axis, -1), descending)


def _tensor_split(self, split_size_or_sections=None, dim=None, *, axis=None, split_size=None):
    sizes = split_size if split_size is not None else split_size_or_sections
    return split(self, sizes, _dim_arg(dim, axis, 0))


def _tensor_chunk(self, chunks, dim=None, *, axis=None):
    return chunk(self, chunks, _dim_arg(dim, axis, 0))


def _tensor_repeat_interleave(self, repeats, dim=None, *, output_size=None, axis=None):
    return repeat_interleave(self, repeats, _dim_arg(dim, axis, None))


def _tensor_unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """PyTorch-style ``unique``: values only, or a tuple with Int64 inverse/counts."""
    x = as_tensor(self)
    axis = None if dim is None else _dim("unique", dim, x.ndim, "dim")
    values, inverse, counts = A.unique_p(x, sorted=bool(sorted), axis=axis,
                                         inverse_dtype=np.dtype(np.int64))
    extra = ((inverse,) if return_inverse else ()) + ((counts,) if return_counts else ())
    return (values,) + extra if extra else values


def _tensor_take(self, indices, axis=None, mode="clip"):
    """``take(index)`` on the flattened tensor; with ``axis``, NumPy-style take."""
    if axis is None:
        return take(self, indices)
    idx = _index_tensor("take", "indices", indices)
    a = _dim("take", axis, self.ndim)
    n = self.shape[a]
    if mode == "clip":
        idx = M.minimum_p(M.maximum_p(idx, 0), n - 1)
    elif mode == "wrap":
        idx = M.mod_p(idx, n)
    elif mode != "raise":
        raise ValueError(f"For 'take', 'mode' must be 'raise', 'wrap' or 'clip', but got "
                         f"{mode!r}.")
    return _indexed("take", A.getitem_p, self, idx, spec=_axis_spec(a, ("tensor", 0)))


def _tensor_diagonal(self, offset=0, axis1=0, axis2=1, *, dim1=None, dim2=None):
    return diagonal(self, offset, axis1 if dim1 is None else dim1,
                    axis2 if dim2 is None else dim2)


def _method_scatter(self, dim, index, src=None, *, value=None):
    return scatter(self, dim, index, value if src is None else src)


def _tensor_index_put(self, indices, values, accumulate=False):
    return index_put(self, indices, values, accumulate)


def _tensor_nonzero(self, *, as_tuple=False):
    return nonzero(self, as_tuple=as_tuple)


def _index_copy(self, dim, index, tensor):
    """A copy with the slices at ``index`` along ``dim`` replaced by those of ``tensor``."""
    idx = _index_tensor("index_copy", "index", index)
    a = _dim("index_copy", dim, self.ndim, "dim")
    return _indexed("index_copy", A.index_put_p, self, as_tensor(tensor), idx,
                    spec=_axis_spec(a, ("tensor", 0)))


def _masked_scatter(self, mask, source):
    """A copy with the positions where ``mask`` is True filled, in order, from ``source``."""
    m = _bool_mask("masked_scatter", mask)
    if tuple(m.shape) != tuple(self.shape):
        m = broadcast_to(m, tuple(self.shape))
    count = int(np.count_nonzero(m.asnumpy()))    # the number of values taken is data-dependent
    src = reshape(as_tensor(source), (-1,))
    if src.size < count:
        raise ValueError(f"For 'masked_scatter', 'source' has {src.size} elements but the mask "
                         f"selects {count}.")
    picked = A.getitem_p(src, spec=(("slice", 0, count, None),))
    return A.index_put_p(self, picked, m, spec=(("tensor", 0),))


def _flat_put(name, x, index, values, accumulate=False):
    """``x.flatten()[index] = values`` (``+=`` when accumulating), reshaped back."""
    idx = _index_tensor(name, "index", index)
    flat = _indexed(name, A.index_put_p, reshape(x, (-1,)), values, idx, spec=(("tensor", 0),),
                    accumulate=accumulate)
    return A.reshape_p(flat, shape=tuple(x.shape))


def _put(self, index, source, accumulate=False):
    return _flat_put("put_", self, index, as_tensor(source), bool(accumulate))


def _fill_diagonal(self, fill_value, wrap=False):
    """Fill the main diagonal (all dims equal beyond 2-D); ``wrap`` restarts it every
    ``m + 1`` rows of a tall matrix, as PyTorch does."""
    shape = tuple(self.shape)
    if len(shape) < 2 or (len(shape) > 2 and len(set(shape)) != 1):
        raise ValueError(f"For 'fill_diagonal_', the input must be 2-D or have all dimensions "
                         f"equal, but got shape {list(shape)}.")
    step = sum(int(np.prod(shape[d + 1:])) for d in range(len(shape)))
    stop = self.size if wrap and len(shape) == 2 else min(shape) * step
    index = A.arange_p(start=0, stop=stop, step=step, dtype=np.dtype(np.int64))
    return _flat_put("fill_diagonal_", self, index, _value_like(self, fill_value))


def _scatter_inplace(self, dim, index, src=None, *, value=None, reduce=None):
    if reduce not in (None, "add"):
        raise ValueError(f"For 'scatter_', 'reduce' must be None or 'add', but got {reduce!r}.")
    source = value if src is None else src
    return _scatter_elements("scatter_", self, dim, index, source,
                             "add" if reduce == "add" else "none")


def _in_place(functional):
    """The ``x.name_(...)`` form of an out-of-place method: write the result into ``x``."""
    def method(self, *args, **kwargs):
        return A.assign_p(self, functional(self, *args, **kwargs))
    method.__doc__ = f"In-place form of ``{functional.__name__}`` (writes into this tensor)."
    return method


TENSOR_METHODS = {
    "gather": _tensor_gather, "scatter_add": _tensor_scatter_add, "index_add": _tensor_index_add,
    "select": _tensor_select, "where": _tensor_where, "sort": _tensor_sort, "argsort": _tensor_argsort,
    "split": _tensor_split, "chunk": _tensor_chunk,
    "repeat_interleave": _tensor_repeat_interleave, "unique": _tensor_unique,
    "take": _tensor_take, "diagonal": _tensor_diagonal, "scatter": _method_scatter,
    "index_put": _tensor_index_put, "nonzero": _tensor_nonzero,
    "movedim": movedim, "moveaxis": movedim, "ravel": ravel, "index_fill": index_fill,
    "masked_select": masked_select, "unbind": unbind, "narrow": narrow, "roll": roll,
    "flip": flip, "rot90": rot90, "tril": tril, "triu": triu, "diag": diag,
    "index_copy": _index_copy, "masked_scatter": _masked_scatter,
    "scatter_": _in_place(_scatter_inplace),
    "scatter_add_": _in_place(lambda self, dim, index, src:
                              scatter_add_elements(self, dim, index, src)),
    "index_add_": _in_place(lambda self, dim, index, source, *, alpha=1:
                            _tensor_index_add(self, dim, index, source, alpha=alpha)),
    "index_fill_": _in_place(index_fill), "index_copy_": _in_place(_index_copy),
    "masked_scatter_": _in_place(_masked_scatter), "put_": _in_place(_put),
    "fill_diagonal_": _in_place(_fill_diagonal),
}


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = [n for n in _public_functions(globals(), __name__)
           if n not in ("select_dim", "scatter_add_elements", "mirror_pad")]
