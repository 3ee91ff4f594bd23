"""Functional-op programs: values and gradients of ops.*."""
import numpy as np

from ._helpers import program, randn, input_grads, prefixed, run_all


@program
def interpolate(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = randn(rng, 1, 2, 3, 4)
    out = {}
    for align in (False, True):
        def up(t, align=align):
            return ops.interpolate(t, size=(5, 7), mode="bilinear", align_corners=align)

        def down(t, align=align):
            return ops.interpolate(t, size=(2, 3), mode="bilinear", align_corners=align)

        out.update(prefixed(f"up_align{int(align)}", input_grads(ms, up, rng, x)))
        out.update(prefixed(f"down_align{int(align)}", input_grads(ms, down, rng, x)))
    scaled = ops.interpolate(ms.Tensor(x), scale_factor=(2.0, 1.5), mode="bilinear",
                             recompute_scale_factor=True)
    out["scale_factor"] = scaled.asnumpy()
    out["nearest"] = ops.interpolate(ms.Tensor(x), size=(5, 7), mode="nearest").asnumpy()
    return out


@program
def pad(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x3, x4 = randn(rng, 2, 3, 4), randn(rng, 1, 2, 3, 4)
    cases = {
        "constant": (x3, (1, 2), "constant", 0.5),
        "constant_2d_negative": (x4, (1, -1, 2, 0), "constant", None),
        "reflect": (x3, (2, 1), "reflect", None),
        "reflect_2d": (x4, (1, 2, 2, 1), "reflect", None),
        "replicate": (x3, (2, 3), "replicate", None),
        "replicate_2d": (x4, (3, 1, 0, 2), "replicate", None),
        "circular": (x3, (1, 2), "circular", None),
        "circular_2d": (x4, (2, 1, 1, 2), "circular", None),
    }
    out = {}
    for name, (x, padding, mode, value) in cases.items():
        def padded(t, padding=padding, mode=mode, value=value):
            return ops.pad(t, padding, mode=mode, value=value)

        out.update(prefixed(name, input_grads(ms, padded, rng, x)))
    return out


@program
def shape_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(randn(rng, 2, 3, 4))
    y = ms.Tensor(randn(rng, 2, 3, 4))
    return run_all({
        "reshape": lambda: ops.reshape(x, (4, -1)),
        "transpose": lambda: ops.transpose(x, (2, 0, 1)),
        "permute": lambda: ops.permute(x, (1, 2, 0)),
        "swapaxes": lambda: ops.swapaxes(x, 0, 2),
        "movedim": lambda: ops.movedim(x, 0, -1),
        "flatten": lambda: ops.flatten(x),
        "flatten_dims": lambda: ops.flatten(x, start_dim=0, end_dim=1),
        "squeeze": lambda: ops.squeeze(ops.expand_dims(x, 1), 1),
        "unsqueeze": lambda: ops.unsqueeze(x, dim=-1),
        "broadcast_to": lambda: ops.broadcast_to(ops.expand_dims(x[:, :, 0], 0), (3, 2, 3)),
        "concat": lambda: ops.concat((x, y), axis=1),
        "stack": lambda: ops.stack([x, y], axis=-1),
        "hstack": lambda: ops.hstack((x, y)),
        "vstack": lambda: ops.vstack((x, y)),
        "split_int": lambda: ops.split(x, 2, axis=2),
        "split_sizes": lambda: ops.split(x, [1, 3], axis=2),
        "tensor_split": lambda: ops.tensor_split(x, 3, axis=2),
        "tensor_split_idx": lambda: ops.tensor_split(x, [1, 2], axis=1),
        "chunk": lambda: ops.chunk(x, 3, axis=2),
        "unbind": lambda: ops.unbind(x, dim=1),
        "unstack": lambda: ops.unstack(x, axis=0),
        "tile": lambda: ops.tile(x, (1, 2, 1)),
        "tile_short": lambda: ops.tile(x, (2,)),
        "repeat_interleave": lambda: ops.repeat_interleave(x, 2, axis=1),
        "repeat_interleave_counts": lambda: ops.repeat_interleave(
            x, ms.Tensor(np.array([1, 0, 2], np.int32)), axis=1),
        "repeat_elements": lambda: ops.repeat_elements(x, 2, axis=2),
        "flip": lambda: ops.flip(x, (0, 2)),
        "narrow": lambda: ops.narrow(x, 2, 1, 2),
        "select": lambda: ops.select(x > 0, x, y),
        "diag": lambda: ops.diag(x[0, 0]),
        "diagonal": lambda: ops.diagonal(x, 1, 1, 2),
        "tril": lambda: ops.tril(x, -1),
        "triu": lambda: ops.triu(x, 1),
        "meshgrid_ij": lambda: ops.meshgrid(x[0, 0], x[0, :, 0], indexing="ij"),
        "meshgrid_xy": lambda: ops.meshgrid(x[0, 0], x[0, :, 0]),
    })


@program
def gather_scatter_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(randn(rng, 3, 4))
    idx = ms.Tensor(np.array([2, 0, 2], np.int32))
    idx2 = ms.Tensor(np.array([[0, 3], [1, 1], [2, 0]], np.int64))
    upd = ms.Tensor(randn(rng, 3, 2))
    mask = ms.Tensor(rng.random((3, 4)) > 0.5)
    return run_all({
        "gather": lambda: ops.gather(x, idx, 1),
        "gather_batch_dims": lambda: ops.gather(x, idx2, 1, batch_dims=1),
        "gather_elements": lambda: ops.gather_elements(x, 1, idx2),
        "gather_d": lambda: ops.gather_d(x, 1, idx2),
        "gather_nd": lambda: ops.gather_nd(x, ms.Tensor(np.array([[0, 1], [2, 3]], np.int32))),
        "index_select": lambda: ops.index_select(x, 0, idx),
        "masked_fill": lambda: ops.masked_fill(x, mask, 9.0),
        "masked_select": lambda: ops.masked_select(x, mask),
        "nonzero": lambda: ops.nonzero(mask),
        "argwhere": lambda: ops.argwhere(mask),
        "scatter": lambda: ops.scatter(x, 1, idx2, upd),
        "tensor_scatter_elements": lambda: ops.tensor_scatter_elements(x, idx2, upd, 1, "add"),
        "scatter_add": lambda: ops.scatter_add(ms.Parameter(x.copy(), name="p"), idx,
                                               ms.Tensor(randn(rng, 3, 4))),
        "tensor_scatter_update": lambda: ops.tensor_scatter_update(
            x, ms.Tensor(np.array([[1], [0]], np.int32)), ms.Tensor(randn(rng, 2, 4))),
        "tensor_scatter_add": lambda: ops.tensor_scatter_add(
            x, ms.Tensor(np.array([[1, 1], [1, 1]], np.int32)), ms.Tensor(randn(rng, 2))),
        "scatter_nd": lambda: ops.scatter_nd(ms.Tensor(np.array([[1], [3], [1]], np.int32)),
                                             ms.Tensor(randn(rng, 3, 2)), (5, 2)),
        "index_add": lambda: ops.index_add(x, idx, ms.Tensor(randn(rng, 3, 3)), 1),
        "index_fill": lambda: ops.index_fill(x, 1, ms.Tensor(np.array([0, 2], np.int32)), -1.0),
        "one_hot": lambda: ops.one_hot(idx, 4, ms.Tensor(1.0), ms.Tensor(0.0)),
        "one_hot_axis0": lambda: ops.one_hot(idx, 4, ms.Tensor(2.0), ms.Tensor(-1.0), 0),
    })


@program
def sort_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(np.round(randn(rng, 3, 5), 1))      # ties: sort and argsort are stable
    distinct = ms.Tensor(randn(rng, 3, 5))             # topk's tie order is unspecified
    ints = ms.Tensor(rng.integers(0, 4, 8).astype(np.int32))
    return run_all({
        "sort": lambda: ops.sort(x),
        "sort_desc_axis0": lambda: ops.sort(x, axis=0, descending=True),
        "argsort": lambda: ops.argsort(x, axis=1, descending=True),
        "topk": lambda: ops.topk(distinct, 2),
        "topk_smallest_dim0": lambda: ops.topk(distinct, 2, dim=0, largest=False),
        "unique": lambda: ops.unique(ints),
        "argmax": lambda: ops.argmax(x, dim=1),
        "argmin": lambda: ops.argmin(x, axis=0),
        "max_dim": lambda: ops.max(x, 1),
        "min_keepdims": lambda: ops.min(x, 0, keepdims=True),
    })


@program
def creation_ops(ms, seed):
    ops = ms.ops
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    return run_all({
        "zeros": lambda: ops.zeros((2, 3)),
        "ones_int": lambda: ops.ones(3, ms.int32),
        "full_float": lambda: ops.full((2,), 1.5),
        "full_int": lambda: ops.full((2,), 3),
        "fill": lambda: ops.fill(ms.int32, (2, 2), 4),
        "zeros_like": lambda: ops.zeros_like(x),
        "ones_like_dtype": lambda: ops.ones_like(x, dtype=ms.int64),
        "full_like": lambda: ops.full_like(x, 7),
        "arange_int": lambda: ops.arange(5),
        "arange_float": lambda: ops.arange(0, 1, 0.25),
        "arange_mixed": lambda: ops.arange(1, 4.5),
        "linspace": lambda: ops.linspace(0, 1, 5),
        "eye": lambda: ops.eye(2, 3),
        "eye_int": lambda: ops.eye(3, dtype=ms.int32),
        "tensor_int_list": lambda: ms.Tensor([1, 2, 3]),
        "tensor_float_list": lambda: ms.Tensor([1, 2.5]),
        "tensor_float64_array": lambda: ms.Tensor(np.ones(2)),
        "tensor_scalar": lambda: ms.Tensor(1.5),
        "cast": lambda: ops.cast(x, ms.int32),
        "astype": lambda: x.astype(ms.float16),
    })


@program
def tensor_indexing(ms, seed):
    rng = np.random.default_rng(seed)
    x = ms.Tensor(randn(rng, 3, 4, 5))
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = run_all({
        "int": lambda: x[1],
        "negative_slice_step": lambda: x[::-2, 1:3, ::2],
        "ellipsis_none": lambda: x[..., None, 2],
        "int_list": lambda: x[[0, 2]],
        "two_lists": lambda: x[[0, 2], [1, 3]],
        "list_slice_list": lambda: x[[0, 1], :, [4, 0]],
        "tensor_index": lambda: x[ms.Tensor(np.array([2, 2, 0], np.int32))],
        "bool_mask": lambda: x[x > 1.0],
        "bool_row_mask": lambda: x[ms.Tensor(np.array([True, False, True]))],
        "scalar_tensor": lambda: x[ms.Tensor(1), 2],
    })
    writes = {
        "set_int": (1, 5.0),
        "set_slice_tensor": ((slice(None), 1), ms.Tensor(np.array([1.0, 2, 3], np.float32))),
        "set_mask": (ms.Tensor(m > 6), -1.0),
        "set_list": (([0, 2], [1, 3]), ms.Tensor(np.array([7.0, 8.0], np.float32))),
        "set_ellipsis": ((Ellipsis, 0), 0.5),
    }
    for name, (index, value) in writes.items():
        t = ms.Tensor(m.copy())
        t[index] = value
        out[name] = t.asnumpy()
    return out


@program
def pad_and_resize_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = randn(rng, 1, 2, 4, 5)
    out = {}
    cases = {
        "nearest_scale": lambda t: ops.interpolate(t, scale_factor=(2.0, 2.0), mode="nearest",
                                                   recompute_scale_factor=True),
        "bicubic_align": lambda t: ops.interpolate(t, size=(6, 7), mode="bicubic",
                                                   align_corners=True),
        "bicubic_half_pixel": lambda t: ops.interpolate(t, size=(3, 7), mode="bicubic"),
        "linear_1d": lambda t: ops.interpolate(t[0], size=7, mode="linear"),
        "pixel_shuffle": lambda t: ops.pixel_shuffle(ops.tile(t, (1, 2, 1, 1)), 2),
        "pad_constant_3d": lambda t: ops.pad(t, (1, 1, 0, 2, 1, 0), value=-1.0),
        "pad_replicate_negative": lambda t: ops.pad(t[0], (-1, 2), mode="replicate"),
    }
    for name, fn in cases.items():
        out.update(prefixed(name, input_grads(ms, fn, rng, x)))
    return out


@program
def more_array_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(randn(rng, 3, 4, 5))
    m = ms.Tensor(randn(rng, 4, 4))
    v = ms.Tensor(randn(rng, 3))
    ids = ms.Tensor(np.array([0, 2, 0, 3, 1, 2], np.int32))     # segment 4 stays empty
    seq = ms.Tensor(np.array([1, 1, 2, 2, 2, 3, 1, 1], np.int32))
    cases = {
        "strided_slice": lambda: ops.strided_slice(x, (0, 1, 0), (3, 4, 5), (2, 1, 2)),
        "strided_slice_masks": lambda: ops.strided_slice(x, (1, 0, 0), (2, 3, 4), (1, 1, -1),
                                                         begin_mask=0b010, end_mask=0b100,
                                                         shrink_axis_mask=0b001),
        "strided_slice_new_axis": lambda: ops.strided_slice(x, (0, 0, 1), (1, 2, 3), (1, 1, 1),
                                                            new_axis_mask=0b010),
        "strided_slice_new_axis_last": lambda: ops.strided_slice(x, (1, 1), (2, 3), (1, 1),
                                                                 new_axis_mask=0b10),
        "strided_slice_ellipsis": lambda: ops.strided_slice(x, (1, 0, 1), (2, 0, 3), (1, 1, 1),
                                                            ellipsis_mask=0b010),
        "slice": lambda: ops.slice(x, (1, 0, 2), (2, -1, 3)),
        "reverse": lambda: ops.reverse(x, (0, 2)),
        "vsplit": lambda: ops.vsplit(m, 2), "hsplit": lambda: ops.hsplit(m, [1, 3]),
        "dsplit": lambda: ops.dsplit(x, [2]),
        "atleast_1d": lambda: ops.atleast_1d(v[0]), "atleast_2d": lambda: ops.atleast_2d(v),
        "atleast_3d": lambda: ops.atleast_3d([v[0], v, m]),
        "dstack": lambda: ops.dstack([m, m * 2]), "row_stack": lambda: ops.row_stack([v, v]),
        "diag_embed": lambda: ops.diag_embed(x[0], 1), "diagflat": lambda: ops.diagflat(m, -1),
        "tril_indices": lambda: ops.tril_indices(3, 4, 1),
        "triu_indices": lambda: ops.triu_indices(4, 3, -1),
        "cartesian_prod": lambda: ops.cartesian_prod(v, v[:2]),
        "block_diag": lambda: ops.block_diag(m[:2], v.reshape(1, 3), m[0, 0]),
        "unique_consecutive": lambda: ops.unique_consecutive(seq, True, True),
        "sequence_mask": lambda: ops.sequence_mask(ms.Tensor(np.array([1, 3, 0], np.int32)), 4),
        "logspace": lambda: ops.logspace(0.0, 2.0, 5),
        "logspace_base2": lambda: ops.logspace(-1.0, 3.0, 4, base=2),
        "range_int": lambda: ops.range(ms.Tensor(1), ms.Tensor(9), ms.Tensor(3)),
        "range_float": lambda: ops.range(ms.Tensor(0.5), ms.Tensor(2.0), ms.Tensor(0.5)),
        "view_as": lambda: ops.view_as(m, ms.Tensor(np.zeros((2, 8), np.float32))),
        "select_scatter": lambda: ops.select_scatter(m, v[:1].broadcast_to((4,)), 1, 2),
        "slice_scatter": lambda: ops.slice_scatter(m, ms.Tensor(np.ones((4, 2), np.float32)),
                                                   1, 1, 4, 2),
        "matrix_band_part": lambda: ops.matrix_band_part(m, 1, 0),
        "unsorted_segment_sum": lambda: ops.unsorted_segment_sum(
            ms.Tensor(randn(rng, 6, 2)), ids, 5),
        "unsorted_segment_max": lambda: ops.unsorted_segment_max(
            ms.Tensor(randn(rng, 6, 2)), ids, 5),
        "unsorted_segment_min": lambda: ops.unsorted_segment_min(
            ms.Tensor(randn(rng, 6, 2)), ids, 5),
        "unsorted_segment_prod": lambda: ops.unsorted_segment_prod(
            ms.Tensor(randn(rng, 6, 2)), ids, 5),
        "tensor_scatter_sub": lambda: ops.tensor_scatter_sub(
            m, ms.Tensor(np.array([[1], [1]], np.int32)), ms.Tensor(randn(rng, 2, 4))),
    }
    return run_all(cases)
