"""Shape, indexing and array ops: forward vs NumPy, shape/dtype rules, numerical gradients,
and hypothesis round trips for the shape ops.

Expected values that NumPy cannot give directly (tie order of sort/topk, unique's order,
one_hot's dtypes, pad's argument order) were generated with the reference MindSpore 2.10
(CPU, /work/venvs/ms) by calling the same op on the same inputs; each such test says so.
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import spore as ms
from spore import ops, Tensor
from spore.ops._array import mirror_pad
from spore._prims.special import contiguous_p
from spore._core import primitive as P
from tests.helpers.optable import _InferChecker, OpCase, make_inputs, table_tests


def _ints(*values, dtype=np.int64):
    arr = np.array(values, dtype=dtype)
    return lambda rng: arr


def _perm_rows(shape, axis):
    """Index arrays whose entries along ``axis`` are a permutation (no duplicate targets)."""
    def make(rng):
        return np.argsort(rng.uniform(size=shape), axis=axis).astype(np.int64)
    return make


def _mask(shape, p=0.5):
    return lambda rng: rng.uniform(size=shape) < p


def _np_tile(x, reps):
    return np.tile(x, reps)


def _np_scatter(x, axis, index, src):
    """out[..., index[p], ...] = src[p] (index at ``axis``) for every position p of index."""
    out = x.copy()
    for p in np.ndindex(*index.shape):
        target = list(p)
        target[axis] = index[p]
        out[tuple(target)] = src[p]
    return out


def _np_pad_torch_order(x, padding, mode="constant", value=0.0):
    pairs = [(0, 0)] * x.ndim
    for j in range(len(padding) // 2):
        pairs[x.ndim - 1 - j] = (padding[2 * j], padding[2 * j + 1])
    np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]
    crop = tuple(slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, x.shape))
    pos = [(max(b, 0), max(a, 0)) for b, a in pairs]
    if np_mode == "constant":
        return np.pad(x[crop], pos, constant_values=value)
    if np_mode == "wrap":
        return np.pad(x[crop], pos, mode=np_mode)
    # reflect / edge pad first and crop after (the reflection may reach cropped values)
    padded = np.pad(x, pos, mode=np_mode)
    return padded[tuple(slice(max(-b, 0), n - max(-a, 0))
                        for (b, a), n in zip(pairs, padded.shape))]


def _np_diagonal(x, offset=0, dim1=0, dim2=1):
    return np.diagonal(x, offset, dim1, dim2)


def _np_diag(x):
    n = x.size
    return (np.eye(n, dtype=x.dtype) * x.reshape(n, 1)).reshape(x.shape * 2)


def _np_gather_batched(x, idx, axis, batch_dims):
    """Reference for Gather with batch_dims, written as explicit loops over the batch."""
    out = [np.take(x[b], idx[b], axis=axis - 1) for b in range(x.shape[0])]
    return np.stack(out)


SHAPE = [
    OpCase("reshape", lambda x: ops.reshape(x, (2, 6)), lambda x: x.reshape(2, 6), (3, 4)),
    OpCase("reshape-minus1", lambda x: ops.reshape(x, (4, -1)), lambda x: x.reshape(4, -1),
           (2, 3, 4), id="reshape-minus1"),
    OpCase("transpose", lambda x: ops.transpose(x, (2, 0, 1)),
           lambda x: x.transpose(2, 0, 1), (2, 3, 4)),
    OpCase("permute-neg", lambda x: ops.permute(x, (-1, 0, 1)),
           lambda x: x.transpose(2, 0, 1), (2, 3, 4)),
    OpCase("swapaxes", lambda x: ops.swapaxes(x, 0, 2), lambda x: x.swapaxes(0, 2), (2, 3, 4)),
    OpCase("movedim", lambda x: ops.movedim(x, 0, -1), lambda x: np.moveaxis(x, 0, -1),
           (2, 3, 4)),
    OpCase("movedim-tuple", lambda x: ops.movedim(x, (0, 1), (2, 0)),
           lambda x: np.moveaxis(x, (0, 1), (2, 0)), (2, 3, 4)),
    OpCase("flatten", ops.flatten, lambda x: x.reshape(2, -1), (2, 3, 4)),
    OpCase("flatten-range", lambda x: ops.flatten(x, start_dim=0, end_dim=1),
           lambda x: x.reshape(6, 4), (2, 3, 4)),
    OpCase("squeeze", ops.squeeze, np.squeeze, (1, 3, 1)),
    OpCase("squeeze-axis", lambda x: ops.squeeze(x, 2), lambda x: np.squeeze(x, 2), (1, 3, 1)),
    OpCase("unsqueeze", lambda x: ops.unsqueeze(x, -1), lambda x: x[..., None], (2, 3)),
    OpCase("expand_dims", lambda x: ops.expand_dims(x, 1), lambda x: x[:, None], (2, 3)),
    OpCase("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)),
           lambda x: np.broadcast_to(x, (2, 3, 4)), (3, 1)),
    OpCase("broadcast_to-minus1", lambda x: ops.broadcast_to(x, (2, -1, 4)),
           lambda x: np.broadcast_to(x, (2, 3, 4)), (3, 1)),
    OpCase("ravel", ops.ravel, np.ravel, (2, 3)),
    OpCase("t", ops.t, np.transpose, (2, 3)),
]

JOIN = [
    OpCase("concat", lambda a, b: ops.concat([a, b]), lambda a, b: np.concatenate([a, b]),
           [(2, 3), (4, 3)]),
    OpCase("concat-neg-axis-tuple", lambda a, b, c: ops.concat((a, b, c), -1),
           lambda a, b, c: np.concatenate([a, b, c], -1), [(2, 1), (2, 3), (2, 2)]),
    OpCase("cat", lambda a, b: ops.cat([a, b], 1), lambda a, b: np.concatenate([a, b], 1),
           [(2, 3, 2), (2, 1, 2)]),
    OpCase("stack", lambda a, b: ops.stack([a, b]), lambda a, b: np.stack([a, b]),
           [(2, 3), (2, 3)]),
    OpCase("stack-neg", lambda a, b: ops.stack([a, b], -1), lambda a, b: np.stack([a, b], -1),
           [(2, 3), (2, 3)]),
    OpCase("hstack", lambda a, b: ops.hstack([a, b]), lambda a, b: np.hstack([a, b]),
           [(2, 3), (2, 1)]),
    OpCase("vstack", lambda a, b: ops.vstack([a, b]), lambda a, b: np.vstack([a, b]),
           [(3,), (2, 3)]),
    OpCase("split-int", lambda x: ops.split(x, 3), lambda x: np.split(x, [3, 6]), (7, 2)),
    OpCase("split-list-axis", lambda x: ops.split(x, [1, 3], axis=1),
           lambda x: np.split(x, [1], 1), (2, 4)),
    OpCase("tensor_split", lambda x: ops.tensor_split(x, 3), lambda x: np.array_split(x, 3),
           (7,)),
    OpCase("tensor_split-idx", lambda x: ops.tensor_split(x, [1, 4], 1),
           lambda x: np.split(x, [1, 4], 1), (2, 5)),
    OpCase("chunk", lambda x: ops.chunk(x, 3), lambda x: np.split(x, [3, 6]), (7,)),
    OpCase("chunk-axis", lambda x: ops.chunk(x, 2, 1), lambda x: np.split(x, [2], 1), (3, 4)),
    OpCase("unbind", lambda x: ops.unbind(x, 1), lambda x: tuple(np.moveaxis(x, 1, 0)),
           (2, 3, 4)),
    OpCase("unstack", ops.unstack, lambda x: tuple(x), (3, 2)),
]

REPEAT = [
    OpCase("tile", lambda x: ops.tile(x, (2, 3)), lambda x: _np_tile(x, (2, 3)), (2, 3)),
    OpCase("tile-short", lambda x: ops.tile(x, (2,)), lambda x: _np_tile(x, (2,)), (2, 3)),
    OpCase("tile-long", lambda x: ops.tile(x, (2, 1, 2)), lambda x: _np_tile(x, (2, 1, 2)),
           (2, 3)),
    OpCase("repeat_interleave", lambda x: ops.repeat_interleave(x, 2, 1),
           lambda x: np.repeat(x, 2, 1), (2, 3)),
    OpCase("repeat_interleave-flat", lambda x: ops.repeat_interleave(x, 3),
           lambda x: np.repeat(x, 3), (2, 3)),
    OpCase("repeat_interleave-counts", lambda x: ops.repeat_interleave(x, Tensor([1, 0, 2]), 0),
           lambda x: np.repeat(x, [1, 0, 2], 0), (3, 2)),
    OpCase("repeat_elements", lambda x: ops.repeat_elements(x, 2),
           lambda x: np.repeat(x, 2, 0), (2, 3)),
]

GATHER = [
    OpCase("gather-axis0", lambda x, i: ops.gather(x, i, 0), lambda x, i: np.take(x, i, 0),
           [(4, 3), _ints(3, 0, 3, -1)]),
    OpCase("gather-axis1-2d-idx", lambda x, i: ops.gather(x, i, 1),
           lambda x, i: np.take(x, i, 1), [(2, 4, 3), _ints([0, 1], [3, 3], dtype=np.int32)]),
    OpCase("gather-batch_dims", lambda x, i: ops.gather(x, i, 2, batch_dims=1),
           lambda x, i: _np_gather_batched(x, i, 2, 1),
           [(2, 3, 4), _ints([0, 3, 1], [2, 2, 0])]),
    OpCase("gather_elements", lambda x, i: ops.gather_elements(x, 1, i),
           lambda x, i: np.take_along_axis(x, i, 1),
           [(3, 4), _ints([0, 0, 3], [1, 2, 1], [3, 3, 0])]),
    OpCase("gather_elements-dim0-smaller", lambda x, i: ops.gather_elements(x, 0, i),
           lambda x, i: x[i, np.arange(3)[None]], [(3, 4), _ints([2, 0, 1])]),
    OpCase("gather_d-neg", lambda x, i: ops.gather_d(x, -1, i),
           lambda x, i: np.take_along_axis(x, i % 4, 1), [(2, 4), _ints([-1, 0], [1, -4])]),
    OpCase("gather_nd", ops.gather_nd, lambda x, i: x[i[..., 0], i[..., 1]],
           [(3, 4, 2), _ints([0, 1], [2, 3], [0, 1])]),
    OpCase("index_select", lambda x, i: ops.index_select(x, 1, i),
           lambda x, i: np.take(x, i, 1), [(2, 4), _ints(3, 0, 0, dtype=np.int32)]),
    OpCase("take", ops.take, lambda x, i: np.take(x, i), [(3, 4), _ints([0, 11], [-1, 5])]),
    OpCase("narrow", lambda x: ops.narrow(x, 1, 1, 2), lambda x: x[:, 1:3], (3, 4)),
    OpCase("select", lambda x: x.select(1, -1), lambda x: x[:, -1], (3, 4)),
    OpCase("masked_fill", lambda x, m: ops.masked_fill(x, Tensor(m), 0.5),
           lambda x, m: np.where(m, np.float32(0.5), x), [(3, 4), _mask((3, 4))]),
    OpCase("masked_fill-tensor-value", lambda x, m, v: ops.masked_fill(x, Tensor(m), v),
           lambda x, m, v: np.where(m, v, x), [(3, 4), _mask((4,)), ()]),
    OpCase("masked_select", lambda x, m: ops.masked_select(x, Tensor(m)),
           lambda x, m: x[m], [(3, 4), _mask((3, 4))]),
    OpCase("masked_select-broadcast", lambda x, m: ops.masked_select(x, Tensor(m)),
           lambda x, m: np.broadcast_to(x, (3, 4))[np.broadcast_to(m, (3, 4))],
           [(4,), _mask((3, 1), 0.7)]),
]

SCATTER = [
    OpCase("scatter", lambda x, i, s: ops.scatter(x, 1, i, s), lambda x, i, s:
           _np_scatter(x, 1, i, s), [(3, 4), _perm_rows((3, 4), 1), (3, 4)]),
    OpCase("scatter-small-index", lambda x, i, s: ops.scatter(x, 0, i, s),
           lambda x, i, s: _np_scatter(x, 0, i, s), [(3, 4), _ints([2, 0], [1, 2]), (3, 3)]),
    OpCase("scatter-scalar-src", lambda x, i: ops.scatter(x, 1, i, 2.0),
           lambda x, i: _np_scatter(x, 1, i, np.full(i.shape, 2.0, x.dtype)),
           [(3, 4), _ints([0, 2], [1, 3], [3, 0])]),
    OpCase("tensor_scatter_elements-add", lambda x, i, s:
           ops.tensor_scatter_elements(x, i, s, axis=1, reduction="add"),
           lambda x, i, s: _np_scatter_add(x, i, s), [(2, 4), _ints([0, 0, 3], [1, 1, 1]), (2, 3)]),
    OpCase("tensor_scatter_update", ops.tensor_scatter_update,
           lambda x, i, u: _np_nd_update(x, i, u), [(3, 4), _ints([0], [2]), (2, 4)]),
    OpCase("tensor_scatter_update-points", ops.tensor_scatter_update,
           lambda x, i, u: _np_nd_update(x, i, u), [(3, 4), _ints([0, 1], [2, 3]), (2,)]),
    OpCase("tensor_scatter_add", ops.tensor_scatter_add,
           lambda x, i, u: _np_nd_add(x, i, u), [(3, 4), _ints([0, 1], [2, 3], [0, 1]), (3,)]),
    OpCase("scatter_nd", lambda i, u: ops.scatter_nd(i, u, (4, 2)),
           lambda i, u: _np_nd_add(np.zeros((4, 2), u.dtype), i, u),
           [_ints([1], [3], [1]), (3, 2)]),
    OpCase("index_put", lambda x, i, v: ops.index_put(x, (i,), v),
           lambda x, i, v: _np_index_put(x, i, v), [(4, 3), _ints(3, 1), (2, 3)]),
    OpCase("index_put-accumulate", lambda x, i, v: ops.index_put(x, (i,), v, True),
           lambda x, i, v: _np_index_put(x, i, v, True), [(4, 3), _ints(1, 1, 0), (3, 3)]),
    OpCase("index_add-method", lambda x, i, v: x.index_add(1, i, v, alpha=2.0),
           lambda x, i, v: _np_index_add(x, 1, i, 2.0 * v), [(2, 4), _ints(3, 3, 0), (2, 3)]),
    OpCase("index_fill", lambda x, i: ops.index_fill(x, 1, i, -1.0),
           lambda x, i: _np_index_fill(x, 1, i, -1.0), [(2, 4), _ints(0, 2)]),
]


def _np_scatter_add(x, i, s):
    out = x.copy()
    np.add.at(out, (np.arange(i.shape[0])[:, None], i), s)
    return out


def _np_nd_update(x, i, u):
    out = x.copy()
    out[tuple(np.moveaxis(i, -1, 0))] = u
    return out


def _np_nd_add(x, i, u):
    out = x.copy()
    np.add.at(out, tuple(np.moveaxis(i, -1, 0)), u)
    return out


def _np_index_put(x, i, v, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, i, v)
    else:
        out[i] = v
    return out


def _np_index_add(x, axis, i, v):
    out = x.copy()
    np.add.at(out, (slice(None),) * axis + (i,), v)
    return out


def _np_index_fill(x, axis, i, value):
    out = x.copy()
    out[(slice(None),) * axis + (i,)] = value
    return out


ORDER = [
    OpCase("flip", lambda x: ops.flip(x, (0, -1)), lambda x: np.flip(x, (0, 2)), (2, 3, 4)),
    OpCase("fliplr", ops.fliplr, np.fliplr, (2, 3)),
    OpCase("flipud", ops.flipud, np.flipud, (2, 3)),
    OpCase("roll", lambda x: ops.roll(x, 1, 1), lambda x: np.roll(x, 1, 1), (2, 3)),
    OpCase("roll-multi", lambda x: ops.roll(x, (1, -2), (0, 1)),
           lambda x: np.roll(x, (1, -2), (0, 1)), (3, 4)),
    OpCase("roll-flat", lambda x: ops.roll(x, 2), lambda x: np.roll(x, 2), (2, 3)),
    OpCase("rot90", lambda x: ops.rot90(x, 1, (0, 1)), lambda x: np.rot90(x, 1, (0, 1)), (2, 3)),
    OpCase("rot90-k3", lambda x: ops.rot90(x, -1, (1, 2)), lambda x: np.rot90(x, -1, (1, 2)),
           (2, 3, 4)),
    OpCase("sort", ops.sort, lambda x: (np.sort(x), np.argsort(x).astype(np.int32)), (3, 5)),
    OpCase("sort-desc-axis0", lambda x: ops.sort(x, 0, True),
           lambda x: (-np.sort(-x, 0), np.argsort(-x, 0).astype(np.int32)), (4, 3)),
    OpCase("argsort", lambda x: ops.argsort(x, descending=True),
           lambda x: np.argsort(-x).astype(np.int32), (3, 5), grad=False),
    OpCase("topk", lambda x: ops.topk(x, 2), lambda x: _np_topk(x, 2, -1, True), (3, 5)),
    OpCase("topk-smallest-dim0", lambda x: ops.topk(x, 3, dim=0, largest=False),
           lambda x: _np_topk(x, 3, 0, False), (4, 2)),
    OpCase("topk-select-then-sort", lambda x: ops.topk(x, 3, dim=0),
           lambda x: _np_topk(x, 3, 0, True), (40, 2)),
]


def _np_topk(x, k, axis, largest):
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis), order.astype(np.int32)


MATRIX = [
    OpCase("diag", ops.diag, _np_diag, (3,)),
    OpCase("diag-2d", ops.diag, _np_diag, (2, 2)),
    OpCase("diagonal", ops.diagonal, _np_diagonal, (3, 4)),
    OpCase("diagonal-offset", lambda x: ops.diagonal(x, 1), lambda x: np.diagonal(x, 1),
           (3, 4)),
    OpCase("diagonal-neg-offset-3d", lambda x: ops.diagonal(x, -1, 1, 2),
           lambda x: np.diagonal(x, -1, 1, 2), (2, 3, 4)),
    OpCase("diagonal-empty", lambda x: ops.diagonal(x, 9), lambda x: np.diagonal(x, 9), (3, 4),
           grad=False),
    OpCase("tril", ops.tril, np.tril, (3, 4)),
    OpCase("tril-k", lambda x: ops.tril(x, 1), lambda x: np.tril(x, 1), (2, 3, 4)),
    OpCase("triu-k", lambda x: ops.triu(x, -1), lambda x: np.triu(x, -1), (4, 3)),
    OpCase("meshgrid-xy", lambda a, b: ops.meshgrid(a, b), lambda a, b: np.meshgrid(a, b),
           [(3,), (2,)]),
    OpCase("meshgrid-ij", lambda a, b, c: ops.meshgrid(a, b, c, indexing="ij"),
           lambda a, b, c: np.meshgrid(a, b, c, indexing="ij"), [(3,), (2,), (4,)]),
]

PAD = [
    OpCase("pad-constant", lambda x: ops.pad(x, (1, 2)),
           lambda x: _np_pad_torch_order(x, (1, 2)), (2, 3)),
    OpCase("pad-constant-value-2d", lambda x: ops.pad(x, (1, 0, 0, 1), value=9.0),
           lambda x: _np_pad_torch_order(x, (1, 0, 0, 1), value=9.0), (2, 3)),
    OpCase("pad-negative", lambda x: ops.pad(x, (-1, 1, 2, -1)),
           lambda x: _np_pad_torch_order(x, (-1, 1, 2, -1)), (3, 4)),
    OpCase("pad-reflect", lambda x: ops.pad(x, (2, 1, 1, 1), mode="reflect"),
           lambda x: _np_pad_torch_order(x, (2, 1, 1, 1), "reflect"), (1, 3, 4)),
    OpCase("pad-replicate", lambda x: ops.pad(x, (2, 1, 0, 3), mode="replicate"),
           lambda x: _np_pad_torch_order(x, (2, 1, 0, 3), "replicate"), (1, 3, 4)),
    OpCase("pad-circular", lambda x: ops.pad(x, (2, 1), mode="circular"),
           lambda x: _np_pad_torch_order(x, (2, 1), "circular"), (2, 3)),
    OpCase("pad-reflect-negative", lambda x: ops.pad(x, (-1, 3, 2, -2), mode="reflect"),
           lambda x: _np_pad_torch_order(x, (-1, 3, 2, -2), "reflect"), (1, 3, 4)),
    OpCase("pad-replicate-negative", lambda x: ops.pad(x, (-4, 1, -1, 2), mode="replicate"),
           lambda x: _np_pad_torch_order(x, (-4, 1, -1, 2), "replicate"), (1, 3, 4)),
    OpCase("pad-circular-negative", lambda x: ops.pad(x, (2, -2, -1, 1), mode="circular"),
           lambda x: _np_pad_torch_order(x, (2, -2, -1, 1), "circular"), (1, 3, 4)),
]



def _np_diag_embed(x, offset=0):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    for k in range(x.shape[-1]):
        out[..., k + max(-offset, 0), k + max(offset, 0)] = x[..., k]
    return out


def _np_block_diag(*blocks):
    blocks = [b.reshape(1, -1) if b.ndim < 2 else b for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)),
                   blocks[0].dtype)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _np_segment(x, ids, num, reduce, empty):
    out = np.full((num,) + x.shape[1:], empty, x.dtype)
    for s in range(num):
        rows = x[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


def _np_replace(x, src, axis, positions):
    out = np.moveaxis(x.copy(), axis, 0)
    out[positions] = np.moveaxis(src, axis, 0)
    return np.moveaxis(out, 0, axis)


SEGMENT_IDS = np.array([0, 2, 0, 3, 1, 2])
BAND = np.indices((4, 5))

MORE = [
    OpCase("strided_slice-masks", lambda x: ops.strided_slice(
        x, (1, 0, 0), (2, 3, 4), (1, 1, -1), begin_mask=0b010, end_mask=0b100,
        shrink_axis_mask=0b001), lambda x: x[1, :3, 0::-1], (3, 4, 5)),
    OpCase("strided_slice-ellipsis-new-axis", lambda x: ops.strided_slice(
        x, (0, 1, 0), (0, 4, 0), (1, 2, 1), ellipsis_mask=0b001, new_axis_mask=0b100),
        lambda x: x[..., 1:4:2, None], (3, 4, 5)),
    OpCase("slice", lambda x: ops.slice(x, (1, 0, 2), (2, -1, 3)), lambda x: x[1:3, 0:, 2:5],
           (3, 4, 5)),
    OpCase("diag_embed-offset", lambda x: ops.diag_embed(x, 1),
           lambda x: _np_diag_embed(x, 1), (2, 3)),
    OpCase("diag_embed-dims", lambda x: ops.diag_embed(x, -2, 0, 2),
           lambda x: np.moveaxis(_np_diag_embed(x, -2), (1, 2), (0, 2)), (2, 3)),
    OpCase("diagflat", lambda x: ops.diagflat(x), lambda x: np.diagflat(x), (2, 2)),
    OpCase("block_diag", lambda a, b, c: ops.block_diag(a, b, c), _np_block_diag,
           [(2, 3), (3,), ()]),
    OpCase("select_scatter", lambda x, s: ops.select_scatter(x, s, 1, -1),
           lambda x, s: _np_replace(x, s[:, None], 1, [3]), [(3, 4), (3,)]),
    OpCase("slice_scatter-step", lambda x, s: ops.slice_scatter(x, s, 0, 1, None, 2),
           lambda x, s: _np_replace(x, s, 0, [1, 3]), [(5, 2), (2, 2)]),
    OpCase("matrix_band_part", lambda x: ops.matrix_band_part(x, 1, 2),
           lambda x: np.where((BAND[0] - BAND[1] <= 1) & (BAND[1] - BAND[0] <= 2), x, 0),
           (2, 4, 5)),
    OpCase("unsorted_segment_sum", lambda x: ops.unsorted_segment_sum(
        x, Tensor(SEGMENT_IDS), 5), lambda x: _np_segment(x, SEGMENT_IDS, 5, np.sum, 0),
        (6, 2)),
    OpCase("unsorted_segment_max", lambda x: ops.unsorted_segment_max(
        x, Tensor(SEGMENT_IDS), 4), lambda x: _np_segment(x, SEGMENT_IDS, 4, np.max, 0),
        (6, 2)),
    OpCase("unsorted_segment_prod", lambda x: ops.unsorted_segment_prod(
        x, Tensor(SEGMENT_IDS), 5), lambda x: _np_segment(x, SEGMENT_IDS, 5, np.prod, 1),
        (6, 2)),
    OpCase("tensor_scatter_sub", lambda x, u: ops.tensor_scatter_sub(
        x, Tensor(np.array([[1], [1]], np.int32)), u),
        lambda x, u: x - np.stack([np.zeros_like(u[0]), u.sum(0), np.zeros_like(u[0])]),
        [(3, 4), (2, 4)]),
    OpCase("cartesian_prod", lambda a, b: ops.cartesian_prod(a, b),
           lambda a, b: np.stack([np.repeat(a, len(b)), np.tile(b, len(a))], 1), [(3,), (2,)]),
    OpCase("dstack", lambda a, b: ops.dstack([a, b]), lambda a, b: np.dstack([a, b]),
           [(2, 3), (2, 3)]),
    OpCase("atleast_3d", lambda x: ops.atleast_3d(x), np.atleast_3d, (2, 3)),
    OpCase("hsplit", lambda x: ops.hsplit(x, [1, 3]), lambda x: tuple(np.hsplit(x, [1, 3])),
           (2, 5)),
    OpCase("mirror_pad-symmetric", lambda x: mirror_pad(x, ((2, 1), (0, 3)), "SYMMETRIC"),
           lambda x: np.pad(x, ((2, 1), (0, 3)), mode="symmetric"), (3, 4)),
    # the primitive Tensor.contiguous() uses on traced tensors
    OpCase("contiguous-primitive", lambda x: contiguous_p(x.T),
           lambda x: np.ascontiguousarray(x.T), (3, 4)),
]

ALL = SHAPE + JOIN + REPEAT + GATHER + SCATTER + ORDER + MATRIX + PAD + MORE


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


def test_backward_primitives_infer_matches_kernel():
    """The primitives that gradient rules dispatch (GetitemGrad, PadGrad, scatters, ...)
    pass the same shape/dtype check as forward ones."""
    checker = _InferChecker()
    with P.handler_scope(checker):
        for case in [c for c in ALL if c.grad]:
            arrays = [Tensor(a) if isinstance(a, np.ndarray) else a for a in make_inputs(case)]
            argnums = tuple(i for i, a in enumerate(arrays)
                            if isinstance(a, Tensor) and a.dtype == ms.float32)

            def loss(*xs, case=case):
                out = case.fn(*xs, **case.kwargs)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                return sum(o.astype(ms.float32).sum() for o in outs if o.dtype == ms.float32)
            ops.grad(loss, argnums)(*arrays)
    for name in ("GetitemGrad", "TensorScatterElements", "GatherD", "PadGrad", "Concat",
                 "Split", "Roll", "IndexPut", "Fill"):
        assert name in checker.checked, name


# --------------------------------------------------------------------------- dtypes and values
def test_concat_promotes_mixed_dtypes():
    a = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    b = Tensor(np.arange(6).reshape(2, 3).astype(np.int32))
    out = ops.concat([a, b], 1)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.concatenate([a.asnumpy(), b.asnumpy()], 1))
    assert ops.concat([b, Tensor(np.ones((1, 3), np.int64))]).dtype == ms.int64


def test_split_returns_views_of_the_input():
    x = Tensor(np.arange(6.0, dtype=np.float32))
    first, second = ops.split(x, 3)
    x[0] = 100.0
    assert first.asnumpy()[0] == 100.0


def test_sort_and_topk_ties_follow_index_order():
    # Reference MindSpore 2.10: ops.sort(x) / ops.sort(x, descending=True) / ops.topk(x, 2)
    # on this x gave these (Int32) indices.
    x = Tensor(np.array([[3., 1., 2., 1.], [0., 5., 5., -1.]], np.float32))
    values, idx = ops.sort(x)
    assert idx.dtype == ms.int32
    np.testing.assert_array_equal(idx.asnumpy(), [[1, 3, 2, 0], [3, 0, 1, 2]])
    np.testing.assert_array_equal(ops.sort(x, descending=True)[1].asnumpy(),
                                  [[0, 2, 1, 3], [1, 2, 0, 3]])
    values, idx = ops.topk(x, 2)
    np.testing.assert_array_equal(values.asnumpy(), [[3, 2], [5, 5]])
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 2], [1, 2]])
    assert idx.dtype == ms.int32
    assert ops.argsort(x).dtype == ms.int32


def test_sort_keeps_integer_dtype():
    values, idx = ops.sort(Tensor([3, 1, 2]))
    assert values.dtype == ms.int64 and idx.dtype == ms.int32
    np.testing.assert_array_equal(values.asnumpy(), [1, 2, 3])


def test_unique_first_appearance_order_and_inverse_dtype():
    # Reference MindSpore 2.10: ops.unique keeps the order of first appearance; the inverse
    # is Int64 for Int64 input and Int32 otherwise.
    out, inv = ops.unique(Tensor([3, 1, 2, 1, 3]))
    np.testing.assert_array_equal(out.asnumpy(), [3, 1, 2])
    np.testing.assert_array_equal(inv.asnumpy(), [0, 1, 2, 1, 0])
    assert inv.dtype == ms.int64
    out, inv = ops.unique(Tensor([3.0, 1.0, 3.0]))
    assert out.dtype == ms.float32 and inv.dtype == ms.int32
    np.testing.assert_array_equal(inv.asnumpy(), [0, 1, 0])


def test_tensor_unique_is_sorted_with_counts():
    x = Tensor([3, 1, 2, 1, 3])
    np.testing.assert_array_equal(x.unique().asnumpy(), [1, 2, 3])
    values, inverse, counts = x.unique(return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(inverse.asnumpy(), [2, 0, 1, 0, 2])
    np.testing.assert_array_equal(counts.asnumpy(), [2, 1, 2])
    rows = Tensor([[1, 2], [0, 0], [1, 2]]).unique(dim=0)
    np.testing.assert_array_equal(rows.asnumpy(), [[0, 0], [1, 2]])


def test_one_hot_dtypes_and_axis():
    # Reference MindSpore 2.10: default on/off values give Int64, Python floats Float32,
    # tensor values keep their dtype; out-of-range indices give an all-off row.
    idx = Tensor(np.array([0, 2, -1, 5], np.int32))
    out = ops.one_hot(idx, 3)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    assert ops.one_hot(idx, 3, 1.0, 0.0).dtype == ms.float32
    half = ops.one_hot(idx, 3, Tensor(2.0, ms.float16), Tensor(0.0, ms.float16))
    assert half.dtype == ms.float16 and half.asnumpy()[1, 2] == 2.0
    cols = ops.one_hot(Tensor([[0, 1], [2, 0]]), 3, axis=1)
    np.testing.assert_array_equal(cols.asnumpy(), np.moveaxis(np.eye(3, dtype=np.int64)[
        [[0, 1], [2, 0]]], -1, 1))


def test_one_hot_gradient_reaches_tensor_values():
    idx = Tensor([0, 2, 1, 2])
    on, off = Tensor(1.0), Tensor(0.0)
    g_on, g_off = ops.grad(lambda a, b: ops.one_hot(idx, 3, a, b).sum(), (0, 1))(on, off)
    assert g_on.asnumpy() == 4.0 and g_off.asnumpy() == 8.0


def test_nonzero_and_as_tuple():
    x = Tensor([[0, 1], [2, 0]])
    out = ops.nonzero(x)
    assert out.dtype == ms.int64
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1], [1, 0]])
    rows, cols = ops.nonzero(x, as_tuple=True)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1])
    np.testing.assert_array_equal(cols.asnumpy(), [1, 0])
    assert ops.nonzero(Tensor([True, False, True])).shape == (2, 1)


def test_nonzero_infer_is_exact_on_values_and_dynamic_on_avals():
    from spore._core.aval import ShapedArray
    from spore._prims.array import nonzero_p
    assert nonzero_p.infer({}, np.array([[0, 1], [2, 0]])).shape == (2, 2)
    assert nonzero_p.infer({}, ShapedArray((2, 2), np.int64)).shape == (-1, 2)


def test_getitem_infer_marks_symbolic_mask_dimension_dynamic():
    from spore._core.aval import ShapedArray
    from spore._prims.array import getitem_p
    mask = ShapedArray((3,), np.bool_)
    spec = (("slice", None, None, None), ("tensor", 0))
    assert getitem_p.infer({"spec": spec}, ShapedArray((3, 3, 3), np.float32), mask).shape \
        == (3, -1, 3)


def test_pad_matches_reference_layout():
    # Reference MindSpore 2.10: ops.pad(x, (2, 1), mode='reflect') and mode='circular' on
    # arange(6).reshape(2, 3) gave these rows.
    x = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    np.testing.assert_array_equal(ops.pad(x, (2, 1), mode="reflect").asnumpy(),
                                  [[2, 1, 0, 1, 2, 1], [5, 4, 3, 4, 5, 4]])
    np.testing.assert_array_equal(ops.pad(x, (2, 1), mode="circular").asnumpy(),
                                  [[1, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3]])
    ints = ops.pad(Tensor([[1, 2]]), (1, 1), value=7)
    assert ints.dtype == ms.int64
    np.testing.assert_array_equal(ints.asnumpy(), [[7, 1, 2, 7]])


def test_more_array_ops_results_and_errors():
    # MindSpore 2.10: numel/size/rank are ints, shape a tuple; unique_consecutive's extras and
    # tril_indices are Int64; an empty max segment holds the dtype's lowest value
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert (ops.numel(x), ops.size(x), ops.rank(x), ops.shape(x)) == (6, 6, 2, (2, 3))
    out, inverse, counts = ops.unique_consecutive(Tensor(np.array([1, 1, 2, 1])), True, True)
    assert out.asnumpy().tolist() == [1, 2, 1] and inverse.dtype == ms.int64
    assert inverse.asnumpy().tolist() == [0, 0, 1, 2] and counts.asnumpy().tolist() == [2, 1, 1]
    assert ops.tril_indices(3, 3).dtype == ms.int64
    assert ops.range(1, 5, 2).asnumpy().tolist() == [1, 3]
    empty = ops.unsorted_segment_max(x, Tensor(np.array([0, 0])), 2).asnumpy()[1]
    np.testing.assert_array_equal(empty, np.finfo(np.float32).min)
    np.testing.assert_allclose(ops.logspace(0.0, 2.0, 3).asnumpy(), [1, 10, 100], rtol=1e-6)
    assert ops.sequence_mask(Tensor(np.array([1, 3])), 4).asnumpy().tolist() == [
        [True, False, False, False], [True, True, True, False]]
    with pytest.raises(ValueError, match=r"segment_ids value should be \[0, 2\)"):
        ops.unsorted_segment_sum(x, Tensor(np.array([0, 2])), 2)
    with pytest.raises(TypeError, match="dtypes of inputs must be the same"):
        ops.range(Tensor(1), Tensor(5.0), Tensor(2))
    with pytest.raises(ValueError, match="'strides' can not contain 0"):
        ops.strided_slice(x, (0, 0), (1, 1), (1, 0))
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        ops.dsplit(x, 2)


def test_pad_negative_amounts_in_every_mode():
    # Reference MindSpore 2.10: ops.pad(arange(5.).reshape(1, 1, 5), padding, mode=mode)
    x = Tensor(np.arange(5.0, dtype=np.float32).reshape(1, 1, 5))
    want = {
        ("replicate", (-1, 4)): [1, 2, 3, 4, 4, 4, 4, 4],
        ("replicate", (-5, 1)): [4],
        ("replicate", (3, -2)): [0, 0, 0, 0, 1, 2],
        ("reflect", (-1, 4)): [1, 2, 3, 4, 3, 2, 1, 0],
        ("reflect", (2, -1)): [2, 1, 0, 1, 2, 3],
        ("reflect", (-5, 1)): [3],
        ("circular", (-1, 2)): [1, 2, 3, 4, 1, 2],
        ("circular", (3, -2)): [0, 1, 2, 0, 1, 2],
        ("circular", (-4, 0)): [4],
    }
    for (mode, padding), values in want.items():
        got = ops.pad(x, padding, mode=mode).asnumpy().ravel()
        np.testing.assert_array_equal(got, values, err_msg=f"{mode} {padding}")
    with pytest.raises(ValueError, match="too large"):
        ops.pad(x, (-2, 4), mode="circular")       # wraps more than the 3 kept values


def test_pad_reflect_gradient_folds_borders():
    x = Tensor(np.arange(4.0))
    g = ops.grad(lambda t: ops.pad(t.reshape(1, 4), (2, 2), mode="reflect").sum())(x)
    # reflect (2, 2) of [a b c d] is [c b | a b c d | c b]: b and c appear 3 times
    np.testing.assert_array_equal(g.asnumpy(), [1, 3, 3, 1])


def test_pad_grad_of_grad():
    x = Tensor(np.arange(4.0))
    w = Tensor(np.arange(7.0))

    def inner(t):
        # d/du [sum(pad(u) * w) * sum(u)] = fold(w) * sum(u) + sum(pad(u) * w)
        return ops.grad(lambda u: (ops.pad(u.reshape(1, 4), (2, 1), mode="replicate") * w
                                   ).sum() * u.sum())(t)
    got = ops.grad(lambda t: inner(t).sum())(x)
    # replicate (2, 1) of [a b c d] is [a a a b c d d]; fold(w) sums w onto its sources
    fold = np.array([0 + 1 + 2, 3, 4, 5 + 6], np.float64)
    np.testing.assert_allclose(got.asnumpy(), fold.sum() + 4 * fold)


def test_view_dtype_reinterprets_bits():
    # Reference MindSpore 2.10: Tensor.view(ms.int32) / view(ms.int8) on float32 data.
    x = Tensor(np.array([[0.0, 1.0, 2.0]], np.float32))
    np.testing.assert_array_equal(x.view(ms.int32).asnumpy(), [[0, 1065353216, 1073741824]])
    assert x.view(ms.int8).shape == (1, 12)
    assert Tensor(np.zeros((2, 4), np.float32)).view(ms.float64).shape == (2, 2)
    assert ops.view_dtype(Tensor(np.array([1, 0], np.uint8)), ms.bool_).asnumpy().tolist() \
        == [True, False]


def test_masked_fill_keeps_input_dtype():
    b = Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    out = ops.masked_fill(b, b > 2, 7)
    assert out.dtype == ms.int32
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 2], [7, 7, 7]])
    f = Tensor(np.zeros(3, np.float32))
    assert ops.masked_fill(f, Tensor([True, False, True]), Tensor(np.float64(0.5))).dtype \
        == ms.float32


def test_scatter_add_and_index_add_write_in_place():
    # Reference MindSpore 2.10: ops.scatter_add and ops.index_add update input_x itself.
    x = ops.zeros((3, 4))
    out = ops.scatter_add(x, Tensor(np.array([0, 0, 2], np.int32)), ops.ones((3, 4)))
    assert out is x
    np.testing.assert_array_equal(x.asnumpy()[:, 0], [2, 0, 1])
    y = ops.zeros((3, 4))
    ops.index_add(y, Tensor(np.array([0, 2], np.int32)), ops.ones((3, 2)), 1)
    np.testing.assert_array_equal(y.asnumpy()[0], [1, 0, 1, 0])


def test_tensor_method_overloads():
    a = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(a.gather(Tensor([1, 0]), 0).asnumpy(), a.asnumpy()[::-1])
    np.testing.assert_array_equal(a.gather(1, Tensor([[0, 0], [2, 1]])).asnumpy(),
                                  [[0, 0], [5, 4]])
    z = ops.zeros((2, 3))
    np.testing.assert_array_equal(z.scatter_add(1, Tensor([[0, 0], [2, 2]]),
                                                ops.ones((2, 2))).asnumpy(),
                                  [[2, 0, 0], [0, 0, 2]])
    np.testing.assert_array_equal(z.asnumpy(), 0)   # the PyTorch-style form is out of place
    assert [p.shape for p in a.split(2, dim=1)] == [(2, 2), (2, 1)]
    assert [p.shape for p in a.chunk(2, axis=1)] == [(2, 2), (2, 1)]
    np.testing.assert_array_equal(a.sort(dim=0, descending=True)[0].asnumpy(),
                                  a.asnumpy()[::-1])
    np.testing.assert_array_equal(a.select(Tensor([True, False, True]), 9.0).asnumpy(),
                                  [[0, 9, 2], [3, 9, 5]])
    # MindSpore 2.10: m.where(m > 2, -m) keeps m where the condition holds
    np.testing.assert_array_equal(a.where(a > 2, -a).asnumpy(), [[0, -1, -2], [3, 4, 5]])
    np.testing.assert_array_equal(a.where(a > 2, 0.0).asnumpy(), [[0, 0, 0], [3, 4, 5]])
    np.testing.assert_array_equal(a.take(Tensor([7, -1]), axis=1, mode="clip").asnumpy(),
                                  np.take(a.asnumpy(), [7, -1], axis=1, mode="clip"))
    assert a.new_zeros((2,)).dtype == ms.float32
    assert Tensor([1, 2]).new_full((2,), 3.7).asnumpy().tolist() == [3, 3]


# --------------------------------------------------------------------------- round trips
_dims = st.lists(st.integers(1, 4), min_size=1, max_size=4)


def _array(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@given(_dims, st.randoms(use_true_random=False))
def test_reshape_round_trip(shape, rnd):
    x = _array(shape)
    flat = ops.reshape(Tensor(x), (-1,))
    back = ops.reshape(flat, tuple(shape))
    np.testing.assert_array_equal(back.asnumpy(), x)
    np.testing.assert_array_equal(flat.asnumpy(), x.ravel())


@given(_dims, st.randoms(use_true_random=False))
def test_transpose_round_trip(shape, rnd):
    perm = list(range(len(shape)))
    rnd.shuffle(perm)
    x = _array(shape)
    out = ops.transpose(Tensor(x), tuple(perm))
    np.testing.assert_array_equal(out.asnumpy(), x.transpose(perm))
    inverse = tuple(int(i) for i in np.argsort(perm))
    np.testing.assert_array_equal(ops.transpose(out, inverse).asnumpy(), x)


@given(_dims, st.integers(1, 5), st.data())
def test_split_concat_round_trip(shape, size, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = _array(shape)
    pieces = ops.split(Tensor(x), size, axis)
    n = shape[axis]
    assert [p.shape[axis] for p in pieces] == [size] * (n // size) + ([n % size] if n % size
                                                                        else [])
    np.testing.assert_array_equal(ops.concat(pieces, axis).asnumpy(), x)


@given(_dims, st.integers(1, 3), st.data())
def test_stack_unbind_round_trip(shape, count, data):
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    xs = [_array(shape) + i for i in range(count)]
    stacked = ops.stack([Tensor(x) for x in xs], axis)
    np.testing.assert_array_equal(stacked.asnumpy(), np.stack(xs, axis))
    for got, want in zip(ops.unbind(stacked, axis), xs):
        np.testing.assert_array_equal(got.asnumpy(), want)


@given(_dims, st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_tile_matches_numpy(shape, reps):
    x = _array(shape)
    np.testing.assert_array_equal(ops.tile(Tensor(x), tuple(reps)).asnumpy(), np.tile(x, reps))


@given(st.integers(1, 3), st.integers(16, 48), st.booleans(), st.booleans(), st.data())
def test_topk_matches_a_stable_sort_with_many_ties(rows, n, largest, integer, data):
    # few distinct values: the k-th value is usually tied, so equal entries must come
    # lowest position first, as a stable sort gives them
    k = data.draw(st.integers(1, n // 4))
    values = data.draw(st.lists(st.integers(-3, 3), min_size=rows * n, max_size=rows * n))
    x = np.array(values, np.int32 if integer else np.float32).reshape(n, rows)
    got_values, got_index = ops.topk(Tensor(x), k, dim=0, largest=largest)
    want_values, want_index = _np_topk(x, k, 0, largest)
    np.testing.assert_array_equal(got_index.asnumpy(), want_index)
    np.testing.assert_array_equal(got_values.asnumpy(), want_values)


def test_topk_with_nan_treats_nan_as_largest():
    x = np.arange(40, dtype=np.float32)
    x[7] = np.nan
    values, index = ops.topk(Tensor(x), 2)
    assert np.isnan(values.asnumpy()[0]) and index.asnumpy().tolist() == [7, 39]
