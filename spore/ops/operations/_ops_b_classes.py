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
from ._optim_classes import _bool


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
        self.mode = mode
        self.paddings_contiguous = _bool("PadV3", "paddings_contiguous", paddings_contiguous)

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
        x = _tensor_input(self, input, "input")
        m = _tensor_input(self, mask, "mask")
        u = _tensor_input(self, updates, "updates")
        if m.dtype != D.bool_:
            raise TypeError(f"For 'MaskedScatter', the 'mask' must be a bool tensor, but got "
                            f"{m.dtype}.")
        try:
            selected = int(np.broadcast_to(m.asnumpy(), x.shape).sum())
        except ValueError:
            raise ValueError(f"For 'MaskedScatter', the 'mask' {list(m.shape)} must broadcast "
                             f"to the input {list(x.shape)}.") from None
        if u.size < selected:
            raise ValueError(f"For 'MaskedScatter', the 'updates' has {u.size} elements but the "
                             f"mask selects {selected}.")
        return x.masked_scatter(m, u)


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



# ----------------------------------------------------------------- spectral, debugging, losses
class STFT(Primitive):
    """``STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x,
    window)``: ``ops.stft`` without centring (the frames start at sample 0)."""

    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        super().__init__()
        self.n_fft = _int_attr("STFT", "n_fft", n_fft)
        self.hop_length = _int_attr("STFT", "hop_length", hop_length)
        self.win_length = _int_attr("STFT", "win_length", win_length)
        self.normalized = _bool("STFT", "normalized", normalized)
        self.onesided = _bool("STFT", "onesided", onesided)
        self.return_complex = _bool("STFT", "return_complex", return_complex)

    def __call__(self, x, window=None):
        return F.stft(x, self.n_fft, self.hop_length, self.win_length, window, center=False,
                      normalized=self.normalized, onesided=self.onesided,
                      return_complex=self.return_complex)


class TensorDump(Primitive):
    """``TensorDump(input_output='out')(file, input_x)``: ``ops.tensordump``."""

    def __init__(self, input_output="out"):
        super().__init__()
        if input_output not in ("out", "in"):
            raise ValueError(f"For 'TensorDump', the 'input_output' must be 'out' or 'in', but "
                             f"got {input_output!r}.")
        self.input_output = input_output

    def __call__(self, file, input_x):
        return F.tensordump(file, input_x, self.input_output)


class InsertGradientOf(Primitive):
    """``InsertGradientOf(f)(input_x)``: ``input_x`` unchanged; in the backward pass the
    gradient reaching it is replaced by ``f(gradient)``."""

    def __init__(self, f):
        super().__init__()
        if not callable(f):
            raise TypeError(f"For 'InsertGradientOf', the 'f' must be a function, but got "
                            f"{type(f).__name__}.")
        self.f = f
        self._hook = functools.partial(_apply_to_first, f)

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor):
            return input_x
        from ..._prims.hook import hook_backward_p
        return hook_backward_p(input_x, hook_fn=self._hook)[0]


def _apply_to_first(f, grads):
    return (f(grads[0]),)


class RNNTLoss(Primitive):
    """``RNNTLoss(blank_label=0)(acts, labels, input_lengths, label_lengths)``: ``(costs,
    grads)``: the RNN-transducer loss of each sequence of logits ``acts`` (B, T, U, V) and
    its gradient with respect to ``acts``."""

    def __init__(self, blank_label=0):
        super().__init__()
        self.blank_label = _int_attr("RNNTLoss", "blank_label", blank_label)

    def __call__(self, acts, labels, input_lengths, label_lengths):
        a = _tensor_input(self, acts, "acts")
        lab = _tensor_input(self, labels, "labels")
        t_len = _tensor_input(self, input_lengths, "input_lengths")
        u_len = _tensor_input(self, label_lengths, "label_lengths")
        if a.dtype not in (D.float16, D.float32):
            raise TypeError(f"For 'RNNTLoss', the 'acts' must be float16 or float32, but got "
                            f"{a.dtype}.")
        for arg, t in (("labels", lab), ("input_lengths", t_len), ("label_lengths", u_len)):
            if t.dtype != D.int32:
                raise TypeError(f"For 'RNNTLoss', the '{arg}' must be int32, but got {t.dtype}.")
        if a.ndim != 4:
            raise ValueError(f"For 'RNNTLoss', the 'acts' must be (B, T, U, V), but got shape "
                             f"{list(a.shape)}.")
        b, t, u, v = a.shape
        if lab.shape != (b, u - 1) or t_len.shape != (b,) or u_len.shape != (b,):
            raise ValueError(f"For 'RNNTLoss', expected labels (B, U-1) = {(b, u - 1)} and "
                             f"lengths ({b},), but got {lab.shape}, {t_len.shape}, "
                             f"{u_len.shape}.")
        if not 0 <= self.blank_label < v:
            raise ValueError(f"For 'RNNTLoss', the 'blank_label' must be in [0, {v}), but got "
                             f"{self.blank_label}.")
        tl, ul = t_len.asnumpy(), u_len.asnumpy()
        if np.any((tl < 1) | (tl > t)) or np.any((ul < 0) | (ul > u - 1)):
            raise ValueError(f"For 'RNNTLoss', the input lengths must be in [1, {t}] and the "
                             f"label lengths in [0, {u - 1}].")
        return tuple(OB.rnnt_loss_p(a, lab, t_len, u_len, blank_label=self.blank_label))


class NoRepeatNGram(Primitive):
    """``NoRepeatNGram(ngram_size=1)(state_seq, log_probs)``: ``log_probs`` with -FLOAT_MAX
    for every word that would repeat an n-gram of ``state_seq`` (B, beam, m): the words
    that followed an earlier occurrence of the last ``ngram_size - 1`` words."""

    def __init__(self, ngram_size=1):
        super().__init__()
        self.ngram_size = _int_attr("NoRepeatNGram", "ngram_size", ngram_size)
        if self.ngram_size <= 0:
            raise ValueError(f"For 'NoRepeatNGram', the 'ngram_size' must be greater than 0, "
                             f"but got {ngram_size}.")

    def __call__(self, state_seq, log_probs):
        seq = _tensor_input(self, state_seq, "state_seq")
        lp = _tensor_input(self, log_probs, "log_probs")
        if np.dtype(seq._data.dtype).kind not in "iu":
            raise TypeError(f"For 'NoRepeatNGram', the 'state_seq' must be an integer tensor, "
                            f"but got {seq.dtype}.")
        if seq.ndim != 3 or lp.ndim != 3 or seq.shape[:2] != lp.shape[:2]:
            raise ValueError(f"For 'NoRepeatNGram', 'state_seq' and 'log_probs' must be 3-D with "
                             f"the same first two dimensions, but got {list(seq.shape)} and "
                             f"{list(lp.shape)}.")
        if self.ngram_size > seq.shape[2]:        # (MindSpore's message says shape[2] + 1)
            raise ValueError(f"For primitive[NoRepeatNGram], the ngram_size must be less than "
                             f"or equal to state_seq shape[2] + 1 which is {seq.shape[2]} , "
                             f"but got {self.ngram_size}.")
        banned = _banned_words(seq.asnumpy(), self.ngram_size, lp.shape[2])
        lowest = Tensor(np.array(np.finfo(lp._data.dtype).min, lp._data.dtype))
        return _ops().masked_fill(lp, Tensor(banned), lowest)


def _banned_words(seq, n, vocab):
    """(B, beam, vocab) mask of the words whose choice would repeat an n-gram."""
    mask = np.zeros(seq.shape[:2] + (vocab,), bool)
    m = seq.shape[2]
    for b, k in np.ndindex(*seq.shape[:2]):
        s = seq[b, k]
        prefix = s[m - n + 1:] if n > 1 else s[:0]
        for i in range(m - n + 1):
            if np.array_equal(s[i:i + n - 1], prefix) and 0 <= s[i + n - 1] < vocab:
                mask[b, k, s[i + n - 1]] = True
    return mask


class PyFunc(Primitive):
    """``PyFunc(fn, in_types, in_shapes, out_types, out_shapes, stateful=True)(*inputs)``:
    run the Python function ``fn`` on the inputs as NumPy arrays; its results (NumPy arrays
    or Python scalars) come back as a tuple of Tensors of ``out_types``."""

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful=True):
        super().__init__()
        if not callable(fn):
            raise TypeError(f"For 'PyFunc', the 'fn' must be callable, but got "
                            f"{type(fn).__name__}.")
        for arg, v in (("in_types", in_types), ("in_shapes", in_shapes),
                       ("out_types", out_types), ("out_shapes", out_shapes)):
            if not isinstance(v, (tuple, list)):
                raise TypeError(f"For 'PyFunc', the '{arg}' must be a list, but got "
                                f"{type(v).__name__}.")
        if len(in_types) != len(in_shapes) or len(out_types) != len(out_shapes):
            raise ValueError("For 'PyFunc', the types and shapes of the inputs (and of the "
                             "outputs) must have the same length.")
        self.fn, self.in_types, self.in_shapes = fn, list(in_types), list(in_shapes)
        self.out_types, self.out_shapes = list(out_types), list(out_shapes)
        self.stateful = _bool("PyFunc", "stateful", stateful)

    def __call__(self, *inputs):
        if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):
            raise RuntimeError("Custom operator with func_type=py_func, Tuple/List inputs are "
                               "not supported.")
        if len(inputs) != len(self.in_types):
            raise ValueError(f"For 'PyFunc', expected {len(self.in_types)} inputs, but got "
                             f"{len(inputs)}.")
        arrays = [_tensor_input(self, x, "input_x").asnumpy() for x in inputs]
        out = self.fn(*arrays)
        outs = out if isinstance(out, tuple) else (out,)
        if len(outs) != len(self.out_types):
            raise ValueError(f"For 'PyFunc', the function returned {len(outs)} outputs, but "
                             f"'out_types' lists {len(self.out_types)}.")
        result = []
        for o, dt, shape in zip(outs, self.out_types, self.out_shapes):
            arr = np.asarray(o, dtype=dt.np)
            if tuple(arr.shape) != tuple(shape):
                raise ValueError(f"For 'PyFunc', an output has shape {list(arr.shape)}, but "
                                 f"'out_shapes' says {list(shape)}.")
            result.append(Tensor(arr))
        return tuple(result)


class _MorphCall:
    """The cell-like object ``call_with_bprop`` records: ``fn`` forward, ``bprop_fn``
    backward."""

    def __init__(self, fn, bprop_fn):
        self.construct, self.bprop = fn, bprop_fn


class Morph(Primitive):
    """``Morph(fn, infer_shape, infer_dtype, bprop_fn=None)(*args)``: ``fn(*args)``, checked
    against ``infer_shape``/``infer_dtype`` of the inputs' shapes and dtypes; with
    ``bprop_fn(*args, out, dout)`` that gives the gradients of the inputs, else autodiff goes
    through ``fn``."""

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        super().__init__()
        for arg, f in (("fn", fn), ("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise TypeError(f"For 'Morph', the '{arg}' must be a function, but got "
                                f"{type(f).__name__}.")
        if bprop_fn is not None and not callable(bprop_fn):
            raise TypeError(f"For 'Morph', the 'bprop_fn' must be a function, but got "
                            f"{type(bprop_fn).__name__}.")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = (fn, infer_shape,
                                                                      infer_dtype, bprop_fn)

    def __call__(self, *args):
        if self.bprop_fn is None:
            out = self.fn(*args)
        else:
            from ..._autodiff.custom import call_with_bprop
            out = call_with_bprop(_MorphCall(self.fn, self.bprop_fn), args, {})
        self._check(args, out)
        return out

    def _check(self, args, out):
        shapes = [list(a.shape) for a in args if isinstance(a, Tensor)]
        dtypes = [a.dtype for a in args if isinstance(a, Tensor)]
        want_shape, want_dtype = self.infer_shape(*shapes), self.infer_dtype(*dtypes)
        got = out if isinstance(out, tuple) else (out,)
        want_shape = [want_shape] if not isinstance(out, tuple) else list(want_shape)
        want_dtype = [want_dtype] if not isinstance(out, tuple) else list(want_dtype)
        for o, s, d in zip(got, want_shape, want_dtype):
            if isinstance(o, Tensor) and (list(o.shape) != list(s) or o.dtype != d):
                raise ValueError(f"For 'Morph', 'fn' returned {list(o.shape)} {o.dtype}, but "
                                 f"'infer_shape'/'infer_dtype' give {list(s)} {d}.")


class ScaleAndTranslate(Primitive):
    """``ScaleAndTranslate(kernel_type='lanczos3', antialias=True)(images, size, scale,
    translation)``: (N, H, W, C) images resampled to ``size`` (int32 (2,)) by the filter
    ``kernel_type``: output pixel (y, x) samples the input at ``((y, x) + 0.5 -
    translation) / scale``; ``antialias`` widens the filter when shrinking. Float32 out."""

    def __init__(self, kernel_type="lanczos3", antialias=True):
        super().__init__()
        if not isinstance(kernel_type, str):
            raise TypeError(f"For 'ScaleAndTranslate', the 'kernel_type' must be a str, but got "
                            f"{type(kernel_type).__name__}.")
        if kernel_type not in F._SAMPLING_KERNELS:
            raise ValueError(f"For 'ScaleAndTranslate', the 'kernel_type' must be one of "
                             f"{list(F._SAMPLING_KERNELS)}, but got {kernel_type!r}.")
        self.kernel_type = kernel_type
        self.antialias = _bool("ScaleAndTranslate", "antialias", antialias)

    def __call__(self, images, size, scale, translation):
        return F._scale_and_translate(images, size, scale, translation, self.kernel_type,
                                      self.antialias)


def _float_pair(prim, arg, value):
    if not isinstance(value, (tuple, list)) or len(value) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise TypeError(f"For '{prim}', the '{arg}' must be a tuple or list of 2 floats, but "
                        f"got {value!r}.")
    return (float(value[0]), float(value[1]))


class SampleDistortedBoundingBoxV2(Primitive):
    """``SampleDistortedBoundingBoxV2(seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33),
    area_range=(0.05, 1.0), max_attempts=100, use_image_if_no_bounding_boxes=False)(
    image_size, bounding_boxes, min_object_covered)``: ``(begin, size, bboxes)`` of a random
    crop whose aspect ratio and area fraction lie in the ranges and which covers at least
    ``min_object_covered`` of one of the ``bounding_boxes`` (batch, N, 4: ymin, xmin, ymax,
    xmax in [0, 1]); the whole image when ``max_attempts`` tries fail. ``begin`` and
    ``size`` feed ``ops.Slice``; a non-zero ``seed`` or ``seed2`` repeats the draws."""

    def __init__(self, seed=0, seed2=0, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 max_attempts=100, use_image_if_no_bounding_boxes=False):
        super().__init__()
        name = "SampleDistortedBoundingBoxV2"
        self.seed = _int_attr(name, "seed", seed)
        self.seed2 = _int_attr(name, "seed2", seed2)
        self.aspect_ratio_range = _float_pair(name, "aspect_ratio_range", aspect_ratio_range)
        self.area_range = _float_pair(name, "area_range", area_range)
        self.max_attempts = _int_attr(name, "max_attempts", max_attempts)
        self.use_image_if_no_bounding_boxes = _bool(
            name, "use_image_if_no_bounding_boxes", use_image_if_no_bounding_boxes)
        lo, hi = self.aspect_ratio_range
        if not 0 < lo <= hi:
            raise ValueError(f"For '{name}', the 'aspect_ratio_range' must be positive and "
                             f"increasing, but got {aspect_ratio_range}.")
        lo, hi = self.area_range
        if not 0 < lo <= hi <= 1:
            raise ValueError(f"For '{name}', the 'area_range' must lie in (0, 1] and be "
                             f"increasing, but got {area_range}.")
        if self.max_attempts < 1:
            raise ValueError(f"For '{name}', the 'max_attempts' must be positive, but got "
                             f"{max_attempts}.")

    def _key(self):
        from ... import _random
        if self.seed or self.seed2:       # a fixed stream: every call repeats (as PyNative)
            return Tensor(_random.key_array(_random.fixed_key(
                _random.mix(self.seed, self.seed2))))
        return _random.key_tensor()

    def __call__(self, image_size, bounding_boxes, min_object_covered):
        name = "SampleDistortedBoundingBoxV2"
        size = _tensor_input(self, image_size, "image_size")
        boxes = _tensor_input(self, bounding_boxes, "bounding_boxes")
        covered = _tensor_input(self, min_object_covered, "min_object_covered")
        if size.shape != (3,) or np.dtype(size._data.dtype).kind not in "iu":
            raise ValueError(f"For '{name}', the 'image_size' must be a 1-D integer tensor of 3 "
                             f"elements (height, width, channels), but got {size}.")
        if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.dtype != D.float32:
            raise ValueError(f"For '{name}', the 'bounding_boxes' must be float32 of shape "
                             f"(batch, N, 4), but got {boxes.dtype} {list(boxes.shape)}.")
        if covered.shape != (1,) or covered.dtype != D.float32:
            raise ValueError(f"For '{name}', the 'min_object_covered' must be a float32 tensor "
                             f"of shape (1,), but got {covered.dtype} {list(covered.shape)}.")
        h, w = (int(v) for v in size.asnumpy()[:2])
        if h <= 0 or w <= 0:
            raise ValueError(f"For '{name}', the image height and width must be positive, but "
                             f"got {h} and {w}.")
        b = boxes.asnumpy().reshape(-1, 4)
        if b.size and (np.any((b < 0) | (b > 1)) or np.any(b[:, 2] < b[:, 0])
                       or np.any(b[:, 3] < b[:, 1])):
            raise ValueError(f"For '{name}', each bounding box must be (ymin, xmin, ymax, xmax) "
                             f"in [0, 1] with ymin <= ymax and xmin <= xmax.")
        if not b.size and not self.use_image_if_no_bounding_boxes:
            raise ValueError(f"For '{name}', no bounding box was given; set "
                             f"'use_image_if_no_bounding_boxes' to use the whole image.")
        if not 0 <= float(covered.asnumpy().reshape(())) <= 1:
            raise ValueError(f"For '{name}', the 'min_object_covered' must be in [0, 1].")
        return tuple(OB.sample_distorted_bbox_p(
            self._key(), size, boxes, covered, aspect_ratio_range=self.aspect_ratio_range,
            area_range=self.area_range, max_attempts=self.max_attempts,
            use_image_if_no_bounding_boxes=self.use_image_if_no_bounding_boxes))
