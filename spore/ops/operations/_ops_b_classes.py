"""Primitive classes of issue #17's second half of ``mindspore.ops`` (names I-Z): array
and sparse bookkeeping (StridedSlice, SplitV, PadV3, ListDiff, RaggedRange, SparseSlice,
...), the view primitives (TransposeView, SelectView, ...) and the control helpers
(Merge, Partial, MoveTo). Adapters over the functional ops and ``spore/_prims/ops_b.py``.
"""
from __future__ import annotations

import functools

import numpy as np

from ... import _dtype as D
from ..._prims import ops_b as OB
from ..._tensor import Tensor
from .. import _ops_b as F
from .._array import select_dim as _select_dim
from . import Primitive, _ops, _tensor_input


def _int_attr(prim, arg, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{prim}', the '{arg}' must be an int, but got "
                        f"{type(value).__name__}.")
    return value


class StridedSlice(Primitive):
    """``StridedSlice(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
    shrink_axis_mask=0)(input_x, begin, end, strides)``: ``ops.strided_slice`` with the bit
    masks fixed at construction."""

    def __init__(self, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0):
        super().__init__()
        masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                     new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
        for arg, value in masks.items():
            if _int_attr("StridedSlice", arg, value) < 0:
                raise ValueError(f"For 'StridedSlice', the '{arg}' must be >= 0, but got "
                                 f"{value}.")
        if bin(ellipsis_mask).count("1") > 1:
            raise ValueError(f"For 'StridedSlice', only one bit of 'ellipsis_mask' may be set, "
                             f"but got {ellipsis_mask}.")
        self.masks = masks
        self.attrs.update(masks)

    def __call__(self, input_x, begin, end, strides):
        return _ops().strided_slice(_tensor_input(self, input_x, "input_x"), begin, end,
                                    strides, **self.masks)


class SplitV(Primitive):
    """``SplitV(size_splits, split_dim, num_split)(input_x)``: split along ``split_dim`` into
    pieces of the sizes in ``size_splits`` (one entry may be -1: the rest)."""

    def __init__(self, size_splits, split_dim, num_split):
        super().__init__()
        if not isinstance(size_splits, (tuple, list)):
            raise TypeError(f"For 'SplitV', the 'size_splits' must be a tuple or list, but got "
                            f"{type(size_splits).__name__}.")
        self.size_splits = tuple(_int_attr("SplitV", "size_splits", s) for s in size_splits)
        self.split_dim = _int_attr("SplitV", "split_dim", split_dim)
        self.num_split = _int_attr("SplitV", "num_split", num_split)
        if self.num_split < 1 or len(self.size_splits) != self.num_split:
            raise ValueError(f"For 'SplitV', the 'num_split' must be positive and equal the "
                             f"length of 'size_splits', but got {num_split} and "
                             f"{len(self.size_splits)}.")
        if self.size_splits.count(-1) > 1 or any(s < -1 for s in self.size_splits):
            raise ValueError(f"For 'SplitV', the 'size_splits' may hold one -1 and otherwise "
                             f"non-negative sizes, but got {self.size_splits}.")

    def __call__(self, input_x):
        x = _tensor_input(self, input_x, "input_x")
        if not -x.ndim <= self.split_dim < x.ndim:
            raise ValueError(f"For 'SplitV', the 'split_dim' must be in [{-x.ndim}, {x.ndim}), "
                             f"but got {self.split_dim}.")
        dim = self.split_dim % x.ndim
        sizes = list(self.size_splits)
        known = sum(s for s in sizes if s != -1)
        if -1 in sizes:
            sizes[sizes.index(-1)] = x.shape[dim] - known
        if sum(sizes) != x.shape[dim] or min(sizes) < 0:
            raise ValueError(f"For 'SplitV', the 'size_splits' {self.size_splits} must sum to "
                             f"the size {x.shape[dim]} of dimension {dim}.")
        return tuple(_ops().split(x, sizes, dim))


class PadV3(Primitive):
    """``PadV3(mode='constant', paddings_contiguous=True)(x, paddings, constant_value)``:
    pad the last ``len(paddings) // 2`` dimensions (the last one first). Contiguous
    paddings are (before, after) pairs; otherwise all befores, then all afters. Modes
    'constant', 'reflect', 'edge', 'circular' (the others need a 3-D to 5-D input whose
    rank is the number of padded dimensions + 2; 'reflect' at most 4-D)."""

    _MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate",
              "circular": "circular"}

    def __init__(self, mode="constant", paddings_contiguous=True):
        super().__init__()
        if mode not in self._MODES:
            raise ValueError(f"For 'PadV3', the 'mode' must be one of {list(self._MODES)}, but "
                             f"got {mode!r}.")
        if not isinstance(paddings_contiguous, bool):
            raise TypeError(f"For 'PadV3', the 'paddings_contiguous' must be bool, but got "
                            f"{type(paddings_contiguous).__name__}.")
        self.mode, self.paddings_contiguous = mode, paddings_contiguous

    def _pads(self, x, paddings):
        if isinstance(paddings, Tensor):
            paddings = paddings.asnumpy().reshape(-1).tolist()
        if not isinstance(paddings, (tuple, list)):
            raise TypeError(f"For 'PadV3', the 'paddings' must be a Tensor, tuple or list, but "
                            f"got {type(paddings).__name__}.")
        pads = [_int_attr("PadV3", "paddings", int(p) if isinstance(p, np.integer) else p)
                for p in paddings]
        n = len(pads)
        if n % 2 or n > 2 * max(x.ndim, 1):
            raise ValueError(f"For 'PadV3', the paddings_length must be even and less than or "
                             f"equal to {2 * max(x.ndim, 1)}, but got {n}.")
        if self.mode != "constant":
            if x.ndim < 3:
                raise ValueError(f"For 'PadV3', the input dims for edge, reflect or circular "
                                 f"mode must be greater than or equal to 3, but got {x.ndim}.")
            if self.mode == "reflect" and x.ndim > 4:
                raise ValueError(f"For 'PadV3', the input dims for reflect mode must be less "
                                 f"than or equal to 4, but got {x.ndim}.")
            if x.ndim != n // 2 + 2:
                raise ValueError(f"For 'PadV3', the input dims when padding's size equal {n} "
                                 f"must be equal to {n // 2 + 2}, but got {x.ndim}.")
        if not self.paddings_contiguous:
            pads = [p for pair in zip(pads[:n // 2], pads[n // 2:]) for p in pair]
        return tuple(pads)

    def __call__(self, x, paddings, constant_value=None):
        x = _tensor_input(self, x)
        pads = self._pads(x, paddings)
        if self.mode != "constant":
            return _ops().pad(x, pads, self._MODES[self.mode])
        value = 0 if constant_value is None else constant_value
        return _ops().pad(x, pads, "constant", value)


class LerpScalar(Primitive):
    """``LerpScalar()(input, end, weight)``: ``input + weight * (end - input)`` with a
    Python-float ``weight``."""

    def __call__(self, input, end, weight):
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise TypeError(f"For 'LerpScalar', the 'weight' must be a float, but got "
                            f"{type(weight).__name__}.")
        return _ops().lerp(_tensor_input(self, input, "input"), end, float(weight))


class MaskedScatter(Primitive):
    """``MaskedScatter()(input, mask, updates)``: the positions where ``mask`` is True take
    the elements of ``updates`` in order."""

    def __call__(self, input, mask, updates):
        return _tensor_input(self, input, "input").masked_scatter(mask, updates)


class ScatterAddWithAxis(Primitive):
    """``ScatterAddWithAxis(axis=0)(input_x, indices, updates)``: ``input_x`` with
    ``updates`` added at ``indices`` along ``axis`` (negative indices count from the end)."""

    def __init__(self, axis=0):
        super().__init__()
        self.axis = _int_attr("ScatterAddWithAxis", "axis", axis)

    def __call__(self, input_x, indices, updates):
        x = _tensor_input(self, input_x, "input_x")
        idx = _tensor_input(self, indices, "indices")
        if not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f"For 'ScatterAddWithAxis', the 'axis' must be in [{-x.ndim}, "
                             f"{x.ndim}), but got {self.axis}.")
        return _ops().tensor_scatter_elements(x, idx, updates, self.axis, "add")


class TransposeView(Primitive):
    """``TransposeView()(input, input_perm)``: ``input`` with its axes permuted."""

    def __call__(self, input, input_perm):
        return _ops().transpose(_tensor_input(self, input, "input"), input_perm)


class TransposeExtView(Primitive):
    """``TransposeExtView()(input, dim0, dim1)``: ``input`` with two axes swapped."""

    def __call__(self, input, dim0, dim1):
        return _ops().swapaxes(_tensor_input(self, input, "input"), dim0, dim1)


class SelectView(Primitive):
    """``SelectView()(input, dim, index)``: the slice ``index`` of dimension ``dim`` (that
    dimension removed)."""

    def __call__(self, input, dim, index):
        return _select_dim(_tensor_input(self, input, "input"), dim, index)


class TensorToTuple(Primitive):
    """``TensorToTuple()(input_tensor)``: the elements of a 1-D tensor as a tuple of Python
    numbers."""

    def __call__(self, input_tensor):
        x = _tensor_input(self, input_tensor, "input_tensor")
        if x.ndim != 1:
            raise ValueError(f"For 'TensorToTuple', the rank of 'input_tensor' must be 1, but "
                             f"got {x.ndim}.")
        return tuple(x.asnumpy().tolist())


class ParallelConcat(Primitive):
    """``ParallelConcat()(values)``: concatenate tensors of one shape whose first dimension
    is 1 along that dimension."""

    def __call__(self, values):
        if not isinstance(values, (tuple, list)) or not values:
            raise TypeError("For 'ParallelConcat', the 'values' must be a non-empty tuple or "
                            "list of Tensors.")
        for v in values:
            _tensor_input(self, v, "values")
        first = values[0]
        for v in values:
            if v.ndim < 1 or v.shape[0] != 1:
                raise ValueError(f"For 'ParallelConcat', each tensor must have rank >= 1 and "
                                 f"first dimension 1, but got shape {list(v.shape)}.")
            if v.shape != first.shape:
                raise ValueError(f"For 'ParallelConcat', the shapes of the tensors must be the "
                                 f"same, but got {list(first.shape)} and {list(v.shape)}.")
            if v.dtype != first.dtype:
                raise TypeError(f"For 'ParallelConcat', the dtypes of the tensors must be the "
                                f"same, but got {first.dtype} and {v.dtype}.")
        return _ops().concat(tuple(values), 0)


class UniqueWithPad(Primitive):
    """``UniqueWithPad()(x, pad_num)``: ``ops.unique_with_pad``."""

    def __call__(self, x, pad_num):
        return F.unique_with_pad(x, pad_num)


class ListDiff(Primitive):
    """``ListDiff(out_idx=mstype.int32)(x, y)``: ``(out, idx)``: the elements of the 1-D
    ``x`` not in ``y``, in order, and their positions in ``x`` (``out_idx`` dtype)."""

    def __init__(self, out_idx=D.int32):
        super().__init__()
        if out_idx not in (D.int32, D.int64):
            raise TypeError(f"For 'ListDiff', the 'out_idx' must be int32 or int64, but got "
                            f"{out_idx}.")
        self.out_idx = out_idx

    def __call__(self, x, y):
        x, y = _tensor_input(self, x, "x"), _tensor_input(self, y, "y")
        if x.ndim != 1 or y.ndim != 1:
            raise ValueError(f"For 'ListDiff', 'x' and 'y' must be 1-D, but got ranks {x.ndim} "
                             f"and {y.ndim}.")
        if x.dtype != y.dtype:
            raise TypeError(f"For 'ListDiff', 'x' and 'y' must have one dtype, but got "
                            f"{x.dtype} and {y.dtype}.")
        return tuple(OB.list_diff_p(x, y, out_idx=np.dtype(self.out_idx.np)))


class RaggedRange(Primitive):
    """``RaggedRange(Tsplits)(starts, limits, deltas)``: ``(rt_nested_splits,
    rt_dense_values)``: the ranges ``arange(starts[i], limits[i], deltas[i])`` one after
    another and the row offsets (``Tsplits``: int32 or int64)."""

    def __init__(self, Tsplits):
        super().__init__()
        if Tsplits not in (D.int32, D.int64):
            raise TypeError(f"For 'RaggedRange', the 'Tsplits' must be int32 or int64, but got "
                            f"{Tsplits}.")
        self.Tsplits = Tsplits

    def __call__(self, starts, limits, deltas):
        s = _tensor_input(self, starts, "starts")
        l = _tensor_input(self, limits, "limits")  # noqa: E741
        d = _tensor_input(self, deltas, "deltas")
        if not s.shape == l.shape == d.shape or s.ndim > 1:
            raise ValueError(f"For RaggedRange, starts, limits, and deltas must have the same "
                             f"shape of rank 0 or 1, but got starts {s.shape}, limits "
                             f"{l.shape}, deltas {d.shape}.")
        if not s.dtype == l.dtype == d.dtype:
            raise TypeError(f"For RaggedRange, starts, limits, and deltas must have one dtype, "
                            f"but got {s.dtype}, {l.dtype}, {d.dtype}.")
        return tuple(OB.ragged_range_p(s, l, d, splits_dtype=np.dtype(self.Tsplits.np)))


class SparseGatherV2(Primitive):
    """``SparseGatherV2()(input_params, input_indices, axis)``: the slices of
    ``input_params`` at ``input_indices`` along ``axis`` (``ops.gather``; the gradient with
    respect to ``input_params`` is scattered back densely)."""

    def __call__(self, input_params, input_indices, axis):
        return _ops().gather(_tensor_input(self, input_params, "input_params"),
                             input_indices, axis)


def _coo(prim, indices, values, shape):
    i = _tensor_input(prim, indices, "indices")
    v = _tensor_input(prim, values, "values")
    sh = _tensor_input(prim, shape, "shape")
    if i.ndim != 2 or v.ndim != 1 or sh.ndim != 1 or i.shape[0] != v.shape[0] \
            or i.shape[1] != sh.shape[0]:
        raise ValueError(f"For '{type(prim).__name__}', the indices must be (N, rank), the "
                         f"values (N,) and the shape (rank,), but got {list(i.shape)}, "
                         f"{list(v.shape)} and {list(sh.shape)}.")
    return i, v, sh


class SparseTensorDenseAdd(Primitive):
    """``SparseTensorDenseAdd()(x1_indices, x1_values, x1_shape, x2)``: the dense ``x2``
    plus the COO tensor ``(x1_indices, x1_values, x1_shape)`` (duplicates add up)."""

    def __call__(self, x1_indices, x1_values, x1_shape, x2):
        i, v, sh = _coo(self, x1_indices, x1_values, x1_shape)
        dense = _tensor_input(self, x2, "x2")
        if tuple(sh.asnumpy().tolist()) != dense.shape:
            raise ValueError(f"For 'SparseTensorDenseAdd', the 'x1_shape' {sh.asnumpy().tolist()} "
                             f"must equal the shape of 'x2' {list(dense.shape)}.")
        if v.dtype != dense.dtype:
            raise TypeError(f"For 'SparseTensorDenseAdd', 'x1_values' and 'x2' must have one "
                            f"dtype, but got {v.dtype} and {dense.dtype}.")
        return _ops().tensor_scatter_add(dense, i, v)


class SparseSlice(Primitive):
    """``SparseSlice()(indices, values, shape, start, size)``: the part of a COO tensor in
    the box ``[start, start + size)``: ``(indices, values, shape)`` relative to ``start``."""

    def __call__(self, indices, values, shape, start, size):
        i, v, sh = _coo(self, indices, values, shape)
        st = _tensor_input(self, start, "start")
        sz = _tensor_input(self, size, "size")
        if st.shape != sh.shape or sz.shape != sh.shape:
            raise ValueError(f"For 'SparseSlice', the 'start' and 'size' must have the shape "
                             f"of 'shape' {list(sh.shape)}, but got {list(st.shape)} and "
                             f"{list(sz.shape)}.")
        return tuple(OB.sparse_slice_p(i, v, sh, st, sz))


class SubAndFilter(Primitive):
    """``SubAndFilter()(input_x, max_num, offset)``: ``(filter_res, filter_idx)``: the
    elements ``x - offset`` lying in ``[0, max_num)`` and their positions."""

    def __call__(self, input_x, max_num, offset):
        x = _tensor_input(self, input_x, "input_x")
        return tuple(OB.sub_and_filter_p(x, max_num=_int_attr(self.name, "max_num", max_num),
                                         offset=_int_attr(self.name, "offset", offset)))


class MapUniform(Primitive):
    """``MapUniform()(input, per_group_size, group_num)``: each key mapped to
    ``key % group_num * per_group_size + key // group_num``."""

    def __call__(self, input, per_group_size, group_num):
        x = _tensor_input(self, input, "input")
        size = _int_attr("MapUniform", "per_group_size", per_group_size)
        groups = _int_attr("MapUniform", "group_num", group_num)
        if groups <= 0:
            raise ValueError(f"For 'MapUniform', the 'group_num' must be positive, but got "
                             f"{group_num}.")
        return x % groups * size + x // groups


class ScalarToArray(Primitive):
    """``ScalarToArray()(input_x)``: ``ops.scalar_to_array``."""

    def __call__(self, input_x):
        return F.scalar_to_array(input_x)


class MoveTo(Primitive):
    """``MoveTo()(input, to='CPU', blocking=True)``: ``ops.move_to``."""

    def __call__(self, input, to="CPU", blocking=True):
        return F.move_to(input, to, blocking)


class Merge(Primitive):
    """``Merge()(inputs)``: ``(data, output_index)``: the one input of a branch that ran.
    Run eagerly every input is available, so the first is chosen (index 0, Int32)."""

    def __call__(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            raise TypeError(f"For 'Merge', the 'inputs' must be a tuple or list, but got "
                            f"{type(inputs).__name__}.")
        if not inputs:
            raise ValueError("For 'Merge', the 'inputs' must not be empty.")
        for v in inputs:
            _tensor_input(self, v, "inputs")
            if v.dtype != inputs[0].dtype:
                raise TypeError(f"For 'Merge', all inputs must have one dtype, but got "
                                f"{inputs[0].dtype} and {v.dtype}.")
        return inputs[0], Tensor(np.int32(0))


class Partial(Primitive):
    """``Partial()(fn, *args)``: ``fn`` with its first arguments bound."""

    def __call__(self, *args):
        if not args or not callable(args[0]):
            raise TypeError("For 'Partial', the first input must be a function.")
        return functools.partial(args[0], *args[1:])


class Reusing(Primitive):
    """``Reusing()(fn)``: ``fn`` marked as a graph not to inline (the ``no_inline`` flag of
    ``ops.add_flags``); its results are unchanged."""

    def __call__(self, input_x):
        if not callable(input_x):
            raise TypeError(f"For 'Reusing', the input must be a function, but got "
                            f"{type(input_x).__name__}.")
        return F.add_flags(input_x, no_inline=True)

