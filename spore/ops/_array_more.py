"""More array ops of ``mindspore.ops``: inplace_add/sub/update and inplace_index_add,
reverse_sequence, space_to_batch_nd/batch_to_space_nd, depth/space rearrangements, eps,
intopk, iou, bounding_box_encode/decode and check_valid (detection helpers), cumulative
logsumexp. Composites of existing primitives (differentiable where the maths is);
behaviour probed on MindSpore 2.10."""
from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from ._extra import _tensor, float_sequence, real_number
from ._utils import normalize_dim, static_int, public_functions

_Tensor = P._Tensor


def _ops():
    from .. import ops
    return ops


# ------------------------------------------------------------------ rows of a tensor
def _row_indices(name, indices, rows):
    if isinstance(indices, _Tensor):
        values = indices.asnumpy().reshape(-1).tolist()
    elif isinstance(indices, numbers.Integral):
        values = [int(indices)]
    elif isinstance(indices, (tuple, list)):
        values = [int(i) for i in indices]
    else:
        raise TypeError(f"For '{name}', the 'indices' must be an int, a tuple of ints or a "
                        f"Tensor, but got {type(indices).__name__}.")
    for i in values:
        if not -rows <= i < rows:
            raise ValueError(f"For '{name}', each index must be in [{-rows}, {rows}), but got "
                             f"{i}.")
    return _Tensor(np.asarray([i % rows for i in values], np.int64))


def _inplace(name, x, v, indices, how):
    ops = _ops()
    x = _tensor(name, "x", x)
    v = _tensor(name, "v", v)
    idx = _row_indices(name, indices, x.shape[0])
    want = (idx.shape[0],) + tuple(x.shape[1:])
    if tuple(v.shape) != want:
        raise ValueError(f"For '{name}', the 'v' must have the shape {list(want)}, but got "
                         f"{list(v.shape)}.")
    rows = idx.expand_dims(-1)
    if how == "update":
        return ops.tensor_scatter_update(x, rows, v.astype(x.dtype))
    v = v.astype(x.dtype)
    return ops.tensor_scatter_add(x, rows, v if how == "add" else -v)


def inplace_add(x, v, indices):
    """A copy of ``x`` with ``v`` added to the rows ``indices`` (MindSpore returns a new
    tensor)."""
    return _inplace("inplace_add", x, v, indices, "add")


def inplace_sub(x, v, indices):
    """A copy of ``x`` with ``v`` subtracted from the rows ``indices``."""
    return _inplace("inplace_sub", x, v, indices, "sub")


def inplace_update(x, v, indices):
    """A copy of ``x`` whose rows ``indices`` are ``v``."""
    return _inplace("inplace_update", x, v, indices, "update")


def inplace_index_add(var, indices, updates, axis):
    """``var[..., indices[i], ...] += updates[..., i, ...]`` along ``axis``, in place on the
    Parameter ``var``, which is returned."""
    return _ops().index_add(var, indices, updates, axis)


# ------------------------------------------------------------------ sequences, blocks
def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For each batch entry b (along ``batch_dim``), the first ``seq_lengths[b]`` elements
    along ``seq_dim`` reversed; the rest unchanged."""
    ops = _ops()
    name = "reverse_sequence"
    x = _tensor(name, "x", x)
    lengths = _tensor(name, "seq_lengths", seq_lengths)
    sd = normalize_dim(name, seq_dim, x.ndim, "seq_dim")
    bd = normalize_dim(name, batch_dim, x.ndim, "batch_dim")
    if sd == bd:
        raise ValueError(f"For '{name}', 'seq_dim' and 'batch_dim' must differ.")
    if lengths.ndim != 1 or lengths.shape[0] != x.shape[bd]:
        raise ValueError(f"For '{name}', the 'seq_lengths' must be 1-D of length "
                         f"{x.shape[bd]}, but got shape {list(lengths.shape)}.")
    n = x.shape[sd]
    shape = [1] * x.ndim
    shape[sd] = n
    pos = _Tensor(np.arange(n, dtype=np.int64).reshape(shape))
    lshape = [1] * x.ndim
    lshape[bd] = x.shape[bd]
    length = ops.clamp(lengths.astype(D.int64), 0, n).reshape(tuple(lshape))
    source = ops.where(pos < length, length - 1 - pos, pos)
    source = ops.broadcast_to(source, tuple(x.shape))
    return ops.gather_elements(x, sd, source)


def _pairs(name, arg, value, n):
    pairs = [tuple(int(v) for v in p) for p in value]
    if len(pairs) != n or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f"For '{name}', the '{arg}' must be {n} pairs of non-negative ints, "
                         f"but got {value}.")
    return pairs


def _blocks(name, block, m):
    block = (int(block),) * m if isinstance(block, numbers.Integral) else \
        tuple(int(b) for b in block)
    if len(block) != m or min(block) < 1:
        raise ValueError(f"For '{name}', the block shape must hold {m} positive ints, but got "
                         f"{block}.")
    return block


def space_to_batch_nd(input_x, block_size, paddings):
    """Zero-pad the spatial dimensions of (N, C, *spatial) ``input_x`` and move each
    ``block_size`` block into the batch: (N * prod(block), C, *spatial / block)."""
    ops = _ops()
    name = "space_to_batch_nd"
    x = _tensor(name, "input_x", input_x)
    m = len(paddings)
    block = _blocks(name, block_size, m)
    pads = _pairs(name, "paddings", paddings, m)
    flat = []
    for b, a in reversed(pads):
        flat += [b, a]
    x = ops.pad(x, tuple(flat)) if any(flat) else x
    n, c = x.shape[0], x.shape[1]
    spatial = x.shape[2:]
    if any(s % b for s, b in zip(spatial, block)):
        raise ValueError(f"For '{name}', the padded spatial shape {list(spatial)} must be "
                         f"divisible by the block shape {list(block)}.")
    split = [n, c]
    for s, b in zip(spatial, block):
        split += [s // b, b]
    y = x.reshape(tuple(split))
    perm = [3 + 2 * k for k in range(m)] + [0, 1] + [2 + 2 * k for k in range(m)]
    y = y.transpose(tuple(perm))
    return y.reshape((n * int(np.prod(block)), c) + tuple(s // b for s, b in zip(spatial, block)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of ``space_to_batch_nd``: batch blocks back into space, then ``crops``
    removed from each spatial dimension."""
    name = "batch_to_space_nd"
    x = _tensor(name, "input_x", input_x)
    m = len(crops)
    block = _blocks(name, block_shape, m)
    crop = _pairs(name, "crops", crops, m)
    prod = int(np.prod(block))
    if x.shape[0] % prod:
        raise ValueError(f"For '{name}', the batch ({x.shape[0]}) must be divisible by the "
                         f"block size product ({prod}).")
    n, c = x.shape[0] // prod, x.shape[1]
    spatial = x.shape[2:]
    y = x.reshape(tuple(block) + (n, c) + tuple(spatial))
    perm = [m, m + 1]
    for k in range(m):
        perm += [m + 2 + k, k]
    y = y.transpose(tuple(perm))
    full = tuple(s * b for s, b in zip(spatial, block))
    y = y.reshape((n, c) + full)
    index = (slice(None), slice(None)) + tuple(slice(b, s - a) for (b, a), s in zip(crop, full))
    return y[index]


def depth_to_space(x, block_size):
    """(N, C * b^2, H, W) to (N, C, H * b, W * b): each channel group becomes a b x b block."""
    name = "DepthToSpace"
    x = _tensor(name, "x", x)
    b = static_int(name, "block_size", block_size)
    n, c, h, w = x.shape
    if b < 2 or c % (b * b):
        raise ValueError(f"For '{name}', the channels ({c}) must be divisible by block_size^2 "
                         f"and block_size >= 2, but got block_size {b}.")
    y = x.reshape((n, b, b, c // (b * b), h, w)).transpose((0, 3, 4, 1, 5, 2))
    return y.reshape((n, c // (b * b), h * b, w * b))


def space_to_depth(x, block_size):
    """(N, C, H, W) to (N, C * b^2, H / b, W / b): the inverse of depth_to_space."""
    name = "SpaceToDepth"
    x = _tensor(name, "x", x)
    b = static_int(name, "block_size", block_size)
    n, c, h, w = x.shape
    if b < 2 or h % b or w % b:
        raise ValueError(f"For '{name}', the height and width ({h}, {w}) must be divisible by "
                         f"block_size >= 2, but got {b}.")
    y = x.reshape((n, c, h // b, b, w // b, b)).transpose((0, 3, 5, 1, 2, 4))
    return y.reshape((n, c * b * b, h // b, w // b))


# ------------------------------------------------------------------ numbers
def eps(x):
    """The machine epsilon of ``x``'s floating dtype, shaped like ``x``."""
    x = _tensor("eps", "x", x)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For 'eps', the 'x' must be a floating-point tensor, but got "
                        f"{x.dtype}.")
    return _ops().full_like(x, float(np.finfo(x.dtype.np).eps))


def cumulative_logsumexp(x, axis, exclusive=False, reverse=False):
    """``log(cumsum(exp(x)))`` along ``axis``, computed stably; ``exclusive`` leaves out
    each element itself (the first is the dtype's lowest value), ``reverse`` runs from the
    end."""
    ops = _ops()
    name = "CumulativeLogsumexp"
    x = _tensor(name, "x", x)
    ax = normalize_dim(name, axis, x.ndim)
    if reverse:
        x = ops.flip(x, (ax,))
    n = x.shape[ax]
    if exclusive:
        lowest = float(np.finfo(x.dtype.np).min)
        first = ops.full_like(ops.narrow(x, ax, 0, 1), lowest)
        x = ops.concat([first, ops.narrow(x, ax, 0, n - 1)], ax) if n > 1 else first
    top = ops.stop_gradient(x.max(ax, keepdims=True))
    out = ops.log(ops.cumsum(ops.exp(x - top), ax)) + top
    if exclusive:
        out = ops.where(out < float(np.finfo(x.dtype.np).min), ops.full_like(out, lowest), out)
    return ops.flip(out, (ax,)) if reverse else out


def intopk(x1, x2, k):
    """Whether each target class ``x2[i]`` is among the ``k`` largest of ``x1[i]`` (Bool)."""
    ops = _ops()
    x = _tensor("intopk", "x1", x1)
    t = _tensor("intopk", "x2", x2)
    k = static_int("intopk", "k", k)
    if x.ndim != 2 or t.ndim != 1 or t.shape[0] != x.shape[0]:
        raise ValueError(f"For 'intopk', 'x1' must be (N, C) and 'x2' (N,), but got "
                         f"{list(x.shape)} and {list(t.shape)}.")
    target = ops.gather_elements(x, 1, t.astype(D.int64).expand_dims(1))
    larger = (x > target).astype(D.int32).sum(1)
    return larger < k


# ------------------------------------------------------------------ boxes
def _corners(boxes):
    return [boxes[:, i] for i in range(4)]


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Overlap of every ground-truth box with every anchor, (M, N), for (x1, y1, x2, y2)
    boxes with inclusive pixel coordinates (+1 in widths): intersection over union
    ('iou') or over the ground-truth area ('iof')."""
    ops = _ops()
    a = _boxes("iou", "anchor_boxes", anchor_boxes)
    g = _boxes("iou", "gt_boxes", gt_boxes)
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', the 'mode' must be 'iou' or 'iof', but got {mode!r}.")
    ax1, ay1, ax2, ay2 = [c.expand_dims(0) for c in _corners(a)]
    gx1, gy1, gx2, gy2 = [c.expand_dims(1) for c in _corners(g)]
    w = ops.relu(ops.minimum(ax2, gx2) - ops.maximum(ax1, gx1) + 1)
    h = ops.relu(ops.minimum(ay2, gy2) - ops.maximum(ay1, gy1) + 1)
    inter = w * h
    area_a = (ax2 - ax1 + 1) * (ay2 - ay1 + 1)
    area_g = (gx2 - gx1 + 1) * (gy2 - gy1 + 1)
    return inter / (area_g if mode == "iof" else area_a + area_g - inter)


def _stats(name, arg, value):
    return float_sequence(name, arg, value, 4)


def _boxes(name, arg, value):
    b = _tensor(name, arg, value)
    if b.ndim != 2 or b.shape[1] != 4 or not b.dtype.is_floating_point:
        raise ValueError(f"For '{name}', the '{arg}' must be a float (N, 4) tensor, but got "
                         f"{b.dtype} of shape {list(b.shape)}.")
    return b


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The (dx, dy, dw, dh) deltas of ``groundtruth_box`` from ``anchor_box`` ((x1, y1, x2,
    y2) rows, +1 widths), normalised by ``means`` and ``stds``."""
    ops = _ops()
    a = _boxes("bounding_box_encode", "anchor_box", anchor_box)
    g = _boxes("bounding_box_encode", "groundtruth_box", groundtruth_box)
    means = _stats("bounding_box_encode", "means", means)
    stds = _stats("bounding_box_encode", "stds", stds)
    ax1, ay1, ax2, ay2 = _corners(a)
    gx1, gy1, gx2, gy2 = _corners(g)
    pw, ph = ax2 - ax1 + 1, ay2 - ay1 + 1
    gw, gh = gx2 - gx1 + 1, gy2 - gy1 + 1
    deltas = [((gx1 + gx2) / 2 - (ax1 + ax2) / 2) / pw, ((gy1 + gy2) / 2 - (ay1 + ay2) / 2) / ph,
              ops.log(gw / pw), ops.log(gh / ph)]
    return ops.stack([(d - m) / s for d, m, s in zip(deltas, means, stds)], 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """Boxes from ``anchor_box`` and ``deltas`` (the inverse of ``bounding_box_encode``),
    width/height deltas clipped to ``|log(wh_ratio_clip)|``, clipped to ``max_shape``
    (height, width)."""
    ops = _ops()
    name = "bounding_box_decode"
    a = _boxes(name, "anchor_box", anchor_box)
    d = _boxes(name, "deltas", deltas)
    means = _stats(name, "means", means)
    stds = _stats(name, "stds", stds)
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) < 2:
        raise TypeError(f"For '{name}', the 'max_shape' must be a (height, width) tuple, but "
                        f"got {max_shape!r}.")
    height, width = (real_number(name, "max_shape", v) for v in tuple(max_shape)[:2])
    ratio = real_number(name, "wh_ratio_clip", wh_ratio_clip)
    if ratio <= 0:
        raise ValueError(f"For '{name}', the 'wh_ratio_clip' must be positive, but got {ratio}.")
    limit = abs(float(np.log(ratio)))
    dx, dy, dw, dh = [d[:, i] * s + m for i, (m, s) in enumerate(zip(means, stds))]
    dw, dh = ops.clamp(dw, -limit, limit), ops.clamp(dh, -limit, limit)
    ax1, ay1, ax2, ay2 = _corners(a)
    pw, ph = ax2 - ax1 + 1, ay2 - ay1 + 1
    px, py = (ax1 + ax2) / 2, (ay1 + ay2) / 2
    gw, gh = pw * ops.exp(dw), ph * ops.exp(dh)
    gx, gy = px + pw * dx, py + ph * dy
    x1 = ops.clamp(gx - gw * 0.5 + 0.5, 0, width)
    y1 = ops.clamp(gy - gh * 0.5 + 0.5, 0, height)
    x2 = ops.clamp(gx + gw * 0.5 - 0.5, 0, width)
    y2 = ops.clamp(gy + gh * 0.5 - 0.5, 0, height)
    return ops.stack([x1, y1, x2, y2], 1)


def check_valid(bboxes, img_metas):
    """Whether each (x1, y1, x2, y2) box lies inside the image of ``img_metas`` (height,
    width, ratio): x1, y1 >= 0, x2 <= width * ratio - 1, y2 <= height * ratio - 1."""
    b = _boxes("check_valid", "bboxes", bboxes)
    meta = _tensor("check_valid", "img_metas", img_metas)
    if meta.shape != (3,):
        raise ValueError(f"For 'check_valid', the 'img_metas' must be (height, width, ratio), "
                         f"but got shape {list(meta.shape)}.")
    meta = meta.astype(b.dtype)
    x1, y1, x2, y2 = _corners(b)
    height, width, ratio = meta[0], meta[1], meta[2]
    return (x1 >= 0) & (y1 >= 0) & (x2 <= width * ratio - 1) & (y2 <= height * ratio - 1)


__all__ = [n for n in public_functions(globals(), __name__)
           if n not in ("depth_to_space", "space_to_depth", "cumulative_logsumexp")]
