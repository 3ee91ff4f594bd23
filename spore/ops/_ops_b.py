"""More of ``mindspore.ops``' functional surface (issue #17, names I-Z and the lowercase
functions): the ``*_ext`` spellings of existing ops, the in-place random fillers
(``normal_``, ``uniform_``, ...), ``bidense``, ``cond``, ``unique_with_pad``,
``sparse_segment_mean``, ``scalar_to_array``, ``move_to`` and the functional-programming
helpers (``tail``, ``array_reduce``, ``add_flags``).

Each is a thin adapter over existing primitives (so gradients and graph capture come from
them) or over a value-dependent primitive of ``spore/_prims/ops_b.py``. Behaviour and dtype
rules are MindSpore 2.10's, probed on its CPU build where it has a kernel and taken from its
documentation where it has none.
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from .. import _dtype as D
from .. import _random
from .._core import primitive as P
from .._prims import array as A
from .._prims import math as M
from . import _random as R
from ._extra import _tensor, real_number
from ._utils import as_tensor, public_functions, static_int

_Tensor = P._Tensor


def _ops():
    from .. import ops
    return ops


# ------------------------------------------------------------------ the *_ext spellings
def einsum_ext(equation, *operands):
    """``einsum`` under the name of MindSpore's pyboost kernel (same equation grammar)."""
    return _ops().einsum(equation, *operands)


def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` (``beta`` and ``alpha`` keyword-only)."""
    return _ops().baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)


def isnan_ext(tensor):
    """``isnan`` with MindSpore's ``tensor`` argument name: True where an element is NaN."""
    return _ops().isnan(tensor)


def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``diff`` with ``dim`` for ``axis``)."""
    return _ops().diff(input, n, dim, prepend, append)


def adaptive_avg_pool2d_ext(input, output_size):
    """Adaptive 2-D average pooling of a (C, H, W) or (N, C, H, W) input; a None entry of
    ``output_size`` keeps that size."""
    return _ops().adaptive_avg_pool2d(input, output_size)


# ------------------------------------------------------------------ in-place random fillers
def _drawing(name, generator):
    """``with`` block drawing from ``generator`` (None: the global stream)."""
    if generator is not None and not isinstance(generator, _random.Generator):
        raise TypeError(f"For '{name}', the 'generator' must be a mindspore.Generator, but got "
                        f"{type(generator).__name__}.")
    return _random.drawing_from(generator)


def _filled(name, input, sample, generator):
    """Write ``sample()`` (drawn from ``generator``, or the global stream) into ``input`` and
    return it: the in-place fillers of MindSpore 2.10."""
    _tensor(name, "input", input)
    with _drawing(name, generator):
        return A.assign_p(input, sample())


def normal_(input, mean=0, std=1, *, generator=None):
    """Fill ``input`` in place with samples of N(``mean``, ``std``**2); returns ``input``."""
    return _filled("normal_", input, lambda: R.normal_like(input, mean, std), generator)


def uniform_(input, from_=0, to=1, *, generator=None):
    """Fill ``input`` in place with samples uniform in [``from_``, ``to``); returns ``input``."""
    if real_number("uniform_", "from_", from_) > real_number("uniform_", "to", to):
        raise ValueError(f"For 'uniform_', 'from_' must be less than or equal to 'to', but got "
                         f"from_={from_} and to={to}.")
    return _filled("uniform_", input, lambda: R.uniform_like(input, from_, to), generator)


def exponential_(input, lambd=1, *, generator=None):
    """Fill ``input`` in place with exponential samples of rate ``lambd``; returns ``input``."""
    if real_number("exponential_", "lambd", lambd) <= 0:
        raise ValueError(f"For 'exponential_', the 'lambd' must be greater than 0, but got "
                         f"{lambd}.")
    return _filled("exponential_", input, lambda: R.exponential_like(input, lambd), generator)


def random_(input, from_=0, to=None, *, generator=None):
    """Fill ``input`` in place with integers uniform in [``from_``, ``to``) (without ``to``,
    up to the largest integer its dtype holds exactly); returns ``input``."""
    return _filled("random_", input, lambda: R.random_like(input, from_, to), generator)


def bernoulli_(input, p=0.5, *, generator=None):
    """Fill ``input`` in place with 1 at probability ``p`` (a number or a tensor
    broadcastable to ``input``), 0 otherwise; returns ``input``."""
    return _filled("bernoulli_", input, lambda: R.bernoulli(input, p), generator)


def bernoulli_ext(input, *, generator=None):
    """A new tensor of ``input``'s shape and dtype: 1 with the probability each element of
    ``input`` holds, 0 otherwise."""
    _tensor("bernoulli_ext", "input", input)
    with _drawing("bernoulli_ext", generator):
        return input.bernoulli()


# ------------------------------------------------------------------ other in-place ops
def inplace_sigmoid(input):
    """``input`` overwritten with ``sigmoid(input)``; returns ``input``."""
    _tensor("inplace_sigmoid", "input", input)
    return A.assign_p(input, _ops().sigmoid(input))


def stop_gradient_(input):
    """Stop the gradient at ``input`` in place: later uses of this tensor pass no gradient
    back to what computed it. Returns None, as MindSpore does."""
    _tensor("stop_gradient_", "input", input)
    A.assign_p(input, _ops().stop_gradient(input))


# ------------------------------------------------------------------ layers and linear algebra
def bidense(input1, input2, weight, bias=None):
    """The bilinear transform ``y[..., o] = sum_ij input1[..., i] weight[o, i, j]
    input2[..., j] + bias[o]`` (``nn.BiDense``'s function)."""
    ops = _ops()
    x1 = _tensor("bidense", "input1", input1)
    x2 = _tensor("bidense", "input2", input2)
    w = _tensor("bidense", "weight", weight)
    if w.ndim != 3 or x1.shape[-1] != w.shape[1] or x2.shape[-1] != w.shape[2]:
        raise ValueError(f"For 'bidense', the 'weight' must be (out, in1, in2) with in1 = "
                         f"input1.shape[-1] and in2 = input2.shape[-1], but got weight "
                         f"{list(w.shape)}, input1 {list(x1.shape)}, input2 {list(x2.shape)}.")
    if x1.shape[:-1] != x2.shape[:-1]:
        raise ValueError(f"For 'bidense', 'input1' and 'input2' must share their leading "
                         f"dimensions, but got {list(x1.shape)} and {list(x2.shape)}.")
    out, in1, in2 = w.shape
    lead = x1.shape[:-1]
    a = ops.reshape(x1, (-1, in1))
    b = ops.reshape(x2, (-1, in2))
    # (N, in1) @ (in1, out * in2) -> (N, out, in2), then contract in2 with input2
    t = ops.matmul(a, ops.reshape(ops.transpose(w, (1, 0, 2)), (in1, out * in2)))
    y = ops.sum(ops.reshape(t, (-1, out, in2)) * ops.expand_dims(b, 1), -1)
    if bias is not None:
        y = y + _tensor("bidense", "bias", bias)
    return ops.reshape(y, lead + (out,))


def cond(A, p=None):
    """The condition number of the square matrices in ``A`` (..., n, n) in the norm ``p``:
    None or 2 (largest over smallest singular value), -2 (the reverse), or 'fro', 'nuc',
    inf, -inf, 1, -1 (``norm(A, p) * norm(inv(A), p)``)."""
    ops = _ops()
    a = _tensor("cond", "A", A)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"For 'cond', the 'A' must be a batch of square matrices (..., n, n), "
                         f"but got shape {list(a.shape)}.")
    if p is None or (isinstance(p, numbers.Real) and not isinstance(p, bool) and abs(p) == 2):
        s = ops.svd(a, compute_uv=False)
        ratio = ops.amax(s, -1) / ops.amin(s, -1)
        return ratio if p != -2 else 1 / ratio
    if p not in ("fro", "nuc", float("inf"), float("-inf"), 1, -1):
        raise ValueError(f"For 'cond', the 'p' must be one of None, 'fro', 'nuc', inf, -inf, "
                         f"1, -1, 2, -2, but got {p!r}.")
    return ops.matrix_norm(a, p) * ops.matrix_norm(ops.inverse(a), p)


# ------------------------------------------------------------------ value-dependent ops
def unique_with_pad(x, pad_num):
    """``(y, idx)``: the distinct elements of the 1-D ``x`` in order of first appearance,
    padded with ``pad_num`` to ``x``'s length, and each element's position in ``y``
    (Int32 for Int32 and Float32 inputs, Int64 for Int64)."""
    x = _tensor("unique_with_pad", "x", x)
    if x.ndim != 1:
        raise ValueError(f"For 'unique_with_pad', the 'x' must be 1-D, but got rank {x.ndim}.")
    if x.dtype not in (D.int32, D.int64, D.float32):
        raise TypeError(f"For 'unique_with_pad', the 'x' must be Int32, Int64 or Float32, but "
                        f"got {x.dtype}.")
    pad = pad_num.item() if isinstance(pad_num, _Tensor) else pad_num
    inv = np.dtype(np.int64) if x.dtype == D.int64 else np.dtype(np.int32)
    values, inverse, _ = A.unique_p(x, sorted=False, axis=None, inverse_dtype=inv)
    fill = _ops().full((x.shape[0] - values.shape[0],), pad, dtype=x.dtype)
    return _ops().concat((values, fill)), inverse


def sparse_segment_mean(x, indices, segment_ids):
    """``out[s] = mean(x[indices[k]] for the k with segment_ids[k] == s)`` over the first
    axis; ``segment_ids`` sorted, empty segments 0; the output has ``segment_ids[-1] + 1``
    rows."""
    ops = _ops()
    x = _tensor("sparse_segment_mean", "x", x)
    idx = _tensor("sparse_segment_mean", "indices", indices)
    seg = _tensor("sparse_segment_mean", "segment_ids", segment_ids)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For 'sparse_segment_mean', the 'x' must be a floating-point tensor, "
                        f"but got {x.dtype}.")
    if idx.ndim != 1 or seg.ndim != 1 or idx.shape != seg.shape:
        raise ValueError(f"For 'sparse_segment_mean', 'indices' and 'segment_ids' must be 1-D "
                         f"of one length, but got {list(idx.shape)} and {list(seg.shape)}.")
    ids = seg.asnumpy()
    if ids.size and (np.any(np.diff(ids) < 0) or ids[0] < 0):
        raise ValueError("For 'sparse_segment_mean', the 'segment_ids' must be non-negative "
                         "and sorted.")
    rows = x.shape[0]
    if np.any((idx.asnumpy() < 0) | (idx.asnumpy() >= rows)):
        raise ValueError(f"For 'sparse_segment_mean', each of 'indices' must be in [0, {rows}).")
    n = int(ids[-1]) + 1 if ids.size else 0
    picked = ops.gather(x, idx, 0)
    total = ops.unsorted_segment_sum(picked, seg, n)
    count = np.bincount(ids, minlength=n).astype(np.float64)
    count = _Tensor(np.maximum(count, 1).astype(x._data.dtype))
    return total / ops.reshape(count, (n,) + (1,) * (x.ndim - 1))


# ------------------------------------------------------------------ conversions
def scalar_to_array(input_x):
    """A 0-D tensor holding the Python scalar ``input_x``. MindSpore deprecated this name
    for ``scalar_to_tensor``, whose behaviour (Float32 by default) it now has."""
    return _ops().scalar_to_tensor(input_x)


def move_to(input, to="CPU", blocking=True):
    """A copy of ``input`` (a Tensor, or a list/tuple of ints made one) on the device
    ``to``. Spore runs on the host, so "CPU" is the one device it copies to; "Ascend"
    raises ValueError."""
    if isinstance(input, (list, tuple)):
        input = _Tensor(np.asarray(input, dtype=np.int64))
    _tensor("move_to", "input", input)
    if to not in ("CPU", "Ascend"):
        raise ValueError(f"For 'move_to', the 'to' must be 'CPU' or 'Ascend', but got {to!r}.")
    if not isinstance(blocking, bool):
        raise TypeError(f"For 'move_to', the 'blocking' must be bool, but got "
                        f"{type(blocking).__name__}.")
    if to != "CPU":
        raise ValueError("For 'move_to', Spore runs on the CPU only: 'to' must be 'CPU'.")
    return _ops().identity(input)


# ------------------------------------------------------------------ functional helpers
def merge(inputs):
    """``ops.Merge()(inputs)``: ``(data, output_index)``; eagerly the first input."""
    return _ops().Merge()(inputs)


def tail(seq):
    """A tuple or list without its first element (MindSpore's ``tail`` meta-function)."""
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"For 'tail', the input must be a tuple or list, but got "
                        f"{type(seq).__name__}.")
    if not seq:
        raise ValueError("For 'tail', the input must not be empty.")
    return seq[1:]


def array_reduce(fn, input_x, axis):
    """Reduce ``input_x`` over ``axis`` (an int or a tuple) by folding the binary ``fn``
    over its slices, keeping no reduced dimension (``array_reduce(ops.add, x, (1,))`` is
    ``x.sum(1)``)."""
    ops = _ops()
    x = _tensor("array_reduce", "input_x", input_x)
    if not callable(fn):
        raise TypeError(f"For 'array_reduce', the 'fn' must be callable, but got "
                        f"{type(fn).__name__}.")
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = sorted({static_int("array_reduce", "axis", a) % max(x.ndim, 1) for a in axes},
                  reverse=True)
    for a in axes:
        x = functools.reduce(fn, ops.unbind(x, a))
    return x


def add_flags(fn=None, **flags):
    """Record boolean ``flags`` on ``fn`` (a function or Cell) in its ``_func_graph_flags``
    dict and return it; without ``fn``, a decorator doing so."""
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"For 'add_flags', the flag {key!r} must be bool, but got "
                            f"{type(value).__name__}.")

    def mark(f):
        if not callable(f):
            raise TypeError(f"For 'add_flags', the 'fn' must be a function or Cell, but got "
                            f"{type(f).__name__}.")
        merged = dict(getattr(f, "_func_graph_flags", {}))
        merged.update(flags)
        f._func_graph_flags = merged
        return f
    return mark if fn is None else mark(fn)


# ------------------------------------------------------------------ RowTensor helpers
def _row_tensor(name, x):
    from .._sparse import RowTensor
    if not isinstance(x, RowTensor):
        raise TypeError(f"For '{name}', input[0] should be RowTensor, but got "
                        f"{type(x).__name__}.")
    return x


def make_row_tensor_inner(indices, values, dense_shape):
    """The RowTensor whose rows ``indices`` hold ``values`` in a tensor of ``dense_shape``
    (the constructor MindSpore's graph parser calls for ``RowTensorInner``)."""
    from .._sparse import RowTensor
    try:
        return RowTensor(indices, values, dense_shape)
    except (TypeError, ValueError) as e:        # name the op, keep RowTensor's reason
        raise type(e)(f"For 'make_row_tensor_inner': {e}") from None


def row_tensor_get_values(x):
    """The ``values`` of the RowTensor ``x``."""
    return _row_tensor("row_tensor_get_values", x).values


def row_tensor_get_indices(x):
    """The row ``indices`` of the RowTensor ``x``."""
    return _row_tensor("row_tensor_get_indices", x).indices


def row_tensor_get_dense_shape(x):
    """The ``dense_shape`` (a tuple) of the RowTensor ``x``."""
    return _row_tensor("row_tensor_get_dense_shape", x).dense_shape


def row_tensor_add(x, y):
    """The RowTensor ``x`` plus the dense tensor ``y`` (broadcast to ``x``'s dense shape):
    a RowTensor of ``x``'s dtype holding every row of the sum."""
    from .._sparse import RowTensor
    x = _row_tensor("row_tensor_add", x)
    y = _tensor("row_tensor_add", "y", y)
    ops = _ops()
    try:
        out_shape = np.broadcast_shapes(tuple(x.dense_shape), y.shape)
    except ValueError:
        out_shape = None
    if out_shape != tuple(x.dense_shape):
        raise ValueError(f"For 'row_tensor_add', the 'y' must broadcast to the dense shape "
                         f"{list(x.dense_shape)}, but got shape {list(y.shape)}.")
    dense = x.to_dense() + y.astype(x.values.dtype)
    rows = ops.arange(x.dense_shape[0], dtype=x.indices.dtype)
    return RowTensor(rows, dense, x.dense_shape)


class _RecomputeBlock:
    """``ops.recompute_block(block, output_recompute=False)``: a function running the Cell
    ``block`` under ``mindspore.recompute`` (its activations are recomputed in the backward
    pass instead of kept); ``output_recompute`` is accepted as MindSpore's."""

    def __call__(self, block, output_recompute=False):
        from .._autodiff.recompute import recompute

        def run(*args, **kwargs):
            return recompute(block, *args, output_recompute=output_recompute, **kwargs)
        return run

    def __repr__(self):
        return "recompute_block"


recompute_block = _RecomputeBlock()


# ------------------------------------------------------------------ ScaleAndTranslate
def _lanczos(radius):
    def k(x):
        x = np.abs(x)
        safe = np.where(x > 1e-3, x, 1.0)
        w = radius * np.sin(np.pi * safe) * np.sin(np.pi * safe / radius) / (np.pi ** 2 * safe ** 2)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, w))
    return k, float(radius)


def _cubic(b, c):
    """The (b, c) family of cubic kernels of radius 2 (Keys: b=0, c=0.5; Mitchell: 1/3)."""
    def k(x):
        x = np.abs(x)
        near = ((12 - 9 * b - 6 * c) * x ** 3 + (-18 + 12 * b + 6 * c) * x ** 2 + (6 - 2 * b)) / 6
        far = ((-b - 6 * c) * x ** 3 + (6 * b + 30 * c) * x ** 2 + (-12 * b - 48 * c) * x
               + (8 * b + 24 * c)) / 6
        return np.where(x >= 2, 0.0, np.where(x >= 1, far, near))
    return k, 2.0


_SAMPLING_KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (lambda x: np.where(np.abs(x) >= 1.5, 0.0, np.exp(-2.0 * x * x)), 1.5),
    "box": (lambda x: np.where(np.abs(x) < 0.5, 1.0, np.where(np.abs(x) == 0.5, 0.5, 0.0)),
            1.0),
    "triangle": (lambda x: np.maximum(1.0 - np.abs(x), 0.0), 1.0),
    "keyscubic": _cubic(0.0, 0.5),
    "mitchellcubic": _cubic(1.0 / 3.0, 1.0 / 3.0),
}


def _resample_matrix(kernel_type, out_size, in_size, scale, translate, antialias):
    """(out_size, in_size) weights: output pixel x samples the input around
    ``(x + 0.5 - translate) / scale``, the kernel widened by 1/scale when shrinking with
    ``antialias``, the weights of each output normalised to sum to 1 (none outside)."""
    kernel, radius = _SAMPLING_KERNELS[kernel_type]
    f32 = np.float32       # single precision as MindSpore's kernel: it decides the edges
    inv = f32(1.0) / f32(scale)
    shift = -inv * f32(translate)
    widen = max(inv, f32(1.0)) if antialias else f32(1.0)
    m = np.zeros((out_size, in_size), np.float64)
    for x in range(out_size):
        centre = f32(x + 0.5) * inv + shift
        if centre < 0 or centre > in_size:
            continue
        lo = min(max(int(np.ceil(centre - radius * widen - 0.5)), 0), in_size - 1)
        hi = min(max(int(np.floor(centre + radius * widen - 0.5)), 0), in_size - 1) + 1
        src = np.arange(lo, hi)
        w = kernel(np.abs((src + 0.5 - centre) / widen))
        total = w.sum()
        if abs(total) >= 1000.0 * np.finfo(np.float32).tiny:
            m[x, lo:hi] = w / total
    return m.astype(np.float32)


def _scale_and_translate(images, size, scale, translation, kernel_type, antialias):
    """``images`` (N, H, W, C) resampled to ``size`` (the adapter of ops.ScaleAndTranslate):
    two weight matrices applied by matmul, so the result is differentiable in ``images``."""
    ops = _ops()
    x = _tensor("ScaleAndTranslate", "images", images)
    if x.ndim != 4:
        raise ValueError(f"For 'ScaleAndTranslate', the 'images' must be 4-D (batch, height, "
                         f"width, channel), but got rank {x.ndim}.")
    vals = {}
    for arg, v in (("size", size), ("scale", scale), ("translation", translation)):
        t = _tensor("ScaleAndTranslate", arg, v)
        if t.shape != (2,):
            raise ValueError(f"For 'ScaleAndTranslate', the '{arg}' must be a 1-D tensor of 2 "
                             f"elements, but got shape {list(t.shape)}.")
        vals[arg] = t.asnumpy().tolist()
    if size.dtype != D.int32:
        raise TypeError(f"For 'ScaleAndTranslate', the 'size' must be int32, but got "
                        f"{size.dtype}.")
    (oh, ow), (sh, sw), (th, tw) = vals["size"], vals["scale"], vals["translation"]
    if oh <= 0 or ow <= 0 or sh <= 0 or sw <= 0:
        raise ValueError(f"For 'ScaleAndTranslate', the 'size' and 'scale' must be positive, "
                         f"but got {vals['size']} and {vals['scale']}.")
    rows = _Tensor(_resample_matrix(kernel_type, int(oh), x.shape[1], sh, th, antialias))
    cols = _Tensor(_resample_matrix(kernel_type, int(ow), x.shape[2], sw, tw, antialias))
    xf = x.astype(D.float32)
    n, h, w, c = x.shape
    # rows: (oh, h) @ (h, n*w*c) ; then cols over the width axis
    t = ops.matmul(rows, ops.reshape(ops.transpose(xf, (1, 0, 2, 3)), (h, n * w * c)))
    t = ops.transpose(ops.reshape(t, (int(oh), n, w, c)), (1, 0, 3, 2))    # (n, oh, c, w)
    t = ops.matmul(t, ops.transpose(cols, (1, 0)))                        # (n, oh, c, ow)
    return ops.transpose(t, (0, 1, 3, 2))


# ------------------------------------------------------------------ deformable attention
def _msda_check(value, shape, offset, locations, weight):
    name = "multi_scale_deformable_attn_function"
    for arg, t, kinds in (("value", value, "f"), ("shape", shape, "i"), ("offset", offset, "i"),
                          ("locations", locations, "f"), ("weight", weight, "f")):
        _tensor(name, arg, t)
        # float64 too (MindSpore's Ascend kernel stops at float32): Spore computes on the CPU
        ok = (t.dtype in (D.float32, D.float16, D.float64)) if kinds == "f" else (
            t.dtype in (D.int32, D.int64))
        if not ok:
            want = "float16, float32 or float64" if kinds == "f" else "int32 or int64"
            raise RuntimeError(f"For '{name}', the dtype of '{arg}' must be {want}, but got "
                               f"{t.dtype}.")
    if value.ndim != 4 or locations.ndim != 6 or weight.ndim != 5:
        raise ValueError(f"For '{name}', expected value (bs, num_keys, num_heads, embed_dims), "
                         f"locations (bs, num_queries, num_heads, num_levels, num_points, 2) and "
                         f"weight (bs, num_queries, num_heads, num_levels, num_points), but got "
                         f"{list(value.shape)}, {list(locations.shape)}, {list(weight.shape)}.")
    if value.shape[3] % 8:
        raise RuntimeError(f"For '{name}', the embed_dims must be a multiple of 8, but got "
                           f"{value.shape[3]}.")
    levels = locations.shape[3]
    if shape.shape != (levels, 2) or offset.shape != (levels,) or \
            weight.shape != locations.shape[:5] or locations.shape[5] != 2:
        raise ValueError(f"For '{name}', 'shape' must be (num_levels, 2), 'offset' "
                         f"(num_levels,) and 'weight' the first five dimensions of "
                         f"'locations', with num_levels = {levels}.")


def multi_scale_deformable_attn_function(value, shape, offset, locations, weight):
    """Multi-scale deformable attention (Deformable DETR): for every query, head, level and
    point, the level's feature map (rows ``offset[l]`` onwards of ``value``, ``shape[l]`` =
    (H, W)) is sampled bilinearly at ``locations`` ((x, y) in [0, 1], zero outside), and
    the samples are summed with ``weight``. Returns (bs, num_queries, num_heads *
    embed_dims)."""
    ops = _ops()
    _msda_check(value, shape, offset, locations, weight)
    bs, _, heads, dims = value.shape
    _, queries, _, levels, points, _ = locations.shape
    sizes = shape.asnumpy().tolist()
    starts = offset.asnumpy().tolist()
    grids = locations * 2 - 1
    samples = []
    for level, ((h, w), start) in enumerate(zip(sizes, starts)):
        v = value[:, start:start + h * w]                          # (bs, h*w, heads, dims)
        v = ops.reshape(ops.transpose(v, (0, 2, 3, 1)), (bs * heads, dims, h, w))
        g = ops.transpose(grids[:, :, :, level], (0, 2, 1, 3, 4))  # (bs, heads, q, p, 2)
        g = ops.reshape(g, (bs * heads, queries, points, 2))
        samples.append(ops.grid_sample(v, g, "bilinear", "zeros", False))  # (bh, d, q, p)
    stacked = ops.reshape(ops.stack(samples, -2), (bs * heads, dims, queries, levels * points))
    w = ops.reshape(ops.transpose(weight, (0, 2, 1, 3, 4)),
                    (bs * heads, 1, queries, levels * points))
    out = ops.reshape(ops.sum(stacked * w, -1), (bs, heads * dims, queries))
    return ops.transpose(out, (0, 2, 1))


def rotated_iou(boxes, query_boxes, trans=False, mode=0, is_cross=True, v_threshold=0.0,
                e_threshold=0.0):
    """The overlap of rotated rectangles (B, N, 5) and (B, K, 5): IoU (``mode`` 0) or the
    intersection over the area of ``boxes`` (``mode`` 1), for every pair (``is_cross``:
    (B, N, K)) or pairwise (N = K: (B, N)). A box is 'xywht' (centre, width, height,
    angle in degrees) or with ``trans`` 'xyxyt' (corners, angle); the thresholds widen
    the inside tests."""
    from .._prims.ops_b import rotated_iou_p
    b = _tensor("rotated_iou", "boxes", boxes)
    q = _tensor("rotated_iou", "query_boxes", query_boxes)
    if b.ndim != 3 or q.ndim != 3 or b.shape[2] != 5 or q.shape[2] != 5:
        raise ValueError(f"For 'rotated_iou', the third dimension of 'boxes' and 'query_boxes' "
                         f"must be 5, but got shapes {list(b.shape)} and {list(q.shape)}.")
    if b.shape[0] != q.shape[0]:
        raise ValueError(f"For 'rotated_iou', 'boxes' and 'query_boxes' must have the same "
                         f"first dimension, but got {b.shape[0]} and {q.shape[0]}.")
    if mode not in (0, 1):
        raise ValueError(f"For 'rotated_iou', the 'mode' must be 0 or 1, but got {mode!r}.")
    if not is_cross and b.shape[1] != q.shape[1]:
        raise ValueError("For 'rotated_iou', one-to-one calculation (is_cross=False) needs as "
                         "many boxes as query boxes.")
    if not b.dtype.is_floating_point or q.dtype != b.dtype:
        raise TypeError(f"For 'rotated_iou', 'boxes' and 'query_boxes' must be floating-point "
                        f"tensors of one dtype, but got {b.dtype} and {q.dtype}.")
    return rotated_iou_p(b, q, trans=bool(trans), mode=int(mode), is_cross=bool(is_cross),
                         v_threshold=float(v_threshold), e_threshold=float(e_threshold))


# ------------------------------------------------------------------ STFT
def _stft_frames(x, n_fft, hop):
    """(..., n_frames, n_fft) frames of ``x``'s last axis, ``hop`` samples apart."""
    length = x.shape[-1]
    if length < n_fft:
        raise ValueError(f"For 'stft', the input length after padding ({length}) must be at "
                         f"least 'n_fft' ({n_fft}).")
    n = 1 + (length - n_fft) // hop
    idx = np.arange(n)[:, None] * hop + np.arange(n_fft)[None, :]
    return _ops().gather(x, _Tensor(idx.astype(np.int64)), x.ndim - 1)


def _stft_window(window, win_length, n_fft, dtype):
    """The analysis window (ones by default) zero-padded on both sides to ``n_fft``."""
    ops = _ops()
    if window is None:
        window = ops.ones((win_length,), dtype)
    w = _tensor("stft", "window", window)
    if w.shape != (win_length,):
        raise ValueError(f"For 'stft', the 'window' must be 1-D of size win_length "
                         f"{win_length}, but got shape {list(w.shape)}.")
    left = (n_fft - win_length) // 2
    if left or win_length < n_fft:
        w = ops.pad(w, (left, n_fft - win_length - left))
    return w


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="REFLECT", normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform of a 1-D (L,) or 2-D (B, L) signal: frames of ``n_fft``
    samples every ``hop_length`` (default ``n_fft // 4``), each times ``window`` (``win_length``
    long, default ``n_fft``, zero-padded to ``n_fft`` in the middle), transformed. ``center``
    pads ``n_fft // 2`` samples on both sides (``pad_mode`` 'REFLECT' or 'CONSTANT');
    ``normalized`` scales by ``1/sqrt(n_fft)``; ``onesided`` (default: for real input and
    window) keeps ``n_fft // 2 + 1`` frequencies. The result is (B?, n_freq, n_frames),
    complex with ``return_complex``, else real with a last axis of (real, imag)."""
    ops = _ops()
    x = _tensor("stft", "x", x)
    if x.ndim not in (1, 2):
        raise ValueError(f"For 'stft', the 'x' must be 1-D or 2-D, but got rank {x.ndim}.")
    n_fft = static_int("stft", "n_fft", n_fft)
    hop = n_fft // 4 if hop_length is None else static_int("stft", "hop_length", hop_length)
    win_length = n_fft if win_length is None else static_int("stft", "win_length", win_length)
    if n_fft <= 0 or hop <= 0 or not 0 < win_length <= n_fft:
        raise ValueError(f"For 'stft', expected n_fft > 0, hop_length > 0 and 0 < win_length "
                         f"<= n_fft, but got n_fft={n_fft}, hop_length={hop}, "
                         f"win_length={win_length}.")
    if pad_mode not in ("REFLECT", "CONSTANT"):
        raise ValueError(f"For 'stft', the 'pad_mode' must be 'REFLECT' or 'CONSTANT', but got "
                         f"{pad_mode!r}.")
    real_dtype = x.dtype if not x.dtype.is_complex else (
        D.float64 if x.dtype == D.complex128 else D.float32)
    w = _stft_window(window, win_length, n_fft, real_dtype)
    if center:
        mode = "reflect" if pad_mode == "REFLECT" else "constant"
        x2 = x if x.ndim == 2 else ops.expand_dims(x, 0)
        x2 = ops.pad(x2, (n_fft // 2, n_fft // 2), mode)
        x = x2 if x.ndim == 2 else x2[0]
    frames = _stft_frames(x, n_fft, hop) * w
    complex_input = x.dtype.is_complex or w.dtype.is_complex
    if onesided is None:
        onesided = not complex_input
    if onesided and complex_input:
        raise ValueError("For 'stft', 'onesided' must be False for a complex input or window.")
    spec = ops.rfft(frames) if onesided else ops.fft(frames)
    if normalized:
        spec = spec * (1.0 / np.sqrt(n_fft))
    spec = ops.swapaxes(spec, -1, -2)
    return spec if return_complex else ops.view_as_real(spec)


# ------------------------------------------------------------------ TensorDump
def tensordump(file_name, tensor, mode="out"):
    """Save ``tensor`` as ``<file_name>_<dtype>_<n>.npy`` (``n`` counts every dump of the
    process; a trailing ``.npy`` of ``file_name`` is dropped, missing folders are made).
    ``mode`` ('out' or 'in') chooses which side of a model-parallel redistribution is dumped
    in MindSpore's graphs; Spore has no such redistribution, so both save the tensor."""
    from .._prims.ops_b import tensor_dump_p
    if not isinstance(file_name, str):
        raise TypeError(f"For 'tensordump', the 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}.")
    if not file_name:
        raise ValueError("For 'tensordump', the 'file_name' must not be empty.")
    _tensor("tensordump", "tensor", tensor)
    if mode not in ("out", "in"):
        raise ValueError(f"For 'tensordump', the 'mode' must be 'out' or 'in', but got "
                         f"{mode!r}.")
    path = file_name[:-4] if file_name.endswith(".npy") else file_name
    tensor_dump_p(tensor, path=path)


# ------------------------------------------------------------------ forward-mode Taylor
def _callable(name, fn):
    if not callable(fn):
        raise TypeError(f"For '{name}', the 'fn' must be a function or Cell, but got "
                        f"{type(fn).__name__}.")


def _as_float_tuple(name, arg, values):
    single = isinstance(values, _Tensor)
    items = (values,) if single else values
    if not isinstance(items, (tuple, list)) or not all(isinstance(v, _Tensor) for v in items):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor or a tuple of Tensors, but "
                        f"got {type(values).__name__}.")
    return single, tuple(v if v.dtype.is_floating_point else v.astype(D.float32)
                         for v in items)


def _taylor(fn, primals, series, order):
    """Output and its first ``order`` derivatives along the curve ``x(t) = x0 +
    sum_k series[k] t**(k+1) / (k+1)!`` at t = 0 (nested forward-mode products)."""
    from .._autodiff.api import jvp
    ops = _ops()
    facts = [float(np.prod(np.arange(1, k + 2))) for k in range(order)]

    def curve(x0, s, t):
        # Horner's scheme (products only: t ** k would differentiate through log(t) at 0)
        acc = s[order - 1] / facts[order - 1]
        for k in range(order - 2, -1, -1):
            acc = s[k] / facts[k] + t * acc
        return x0 + t * acc

    def g(t):
        return fn(*(curve(x0, s, t) for x0, s in zip(primals, series)))

    def nth(k):
        if k == 0:
            return g

        def d(t):
            return jvp(nth(k - 1), t, ops.ones((), t.dtype))[1]
        return d

    t0 = ops.zeros((), primals[0].dtype)
    return [nth(k)(t0) for k in range(order + 1)]


def _stack_orders(outs):
    if isinstance(outs[0], _Tensor):
        return _ops().stack(outs)
    return type(outs[0])(_ops().stack(parts) for parts in zip(*outs))


def jet(fn, primals, series):
    """``(out_primals, out_series)``: ``fn(primals)`` and its 1st to n-th derivatives along a
    curve through ``primals`` whose own 1st to n-th derivatives are ``series`` (axis 0 of
    each series tensor is the order). Integer inputs are taken as Float32."""
    _callable("jet", fn)
    single, xs = _as_float_tuple("jet", "primals", primals)
    s_single, ss = _as_float_tuple("jet", "series", series)
    if len(ss) != len(xs) or any(s.shape[1:] != x.shape or s.ndim != x.ndim + 1
                                 for s, x in zip(ss, xs)):
        raise ValueError("For 'jet', each series tensor must be (n,) + the shape of its primal.")
    order = ss[0].shape[0]
    if any(s.shape[0] != order for s in ss) or order < 1:
        raise ValueError("For 'jet', every series tensor must hold the same number (>= 1) of "
                         "orders.")
    outs = _taylor(fn, xs, ss, order)
    return outs[0], _stack_orders(outs[1:])


def derivative(fn, primals, order):
    """``(out_primals, out_series)``: ``fn(primals)`` and its ``order``-th derivative along
    the direction of ones through every input (first-order series 1, higher ones 0)."""
    _callable("derivative", fn)
    order = static_int("derivative", "order", order)
    if order < 1:
        raise ValueError(f"For 'derivative', the 'order' must be positive, but got {order}.")
    ops = _ops()
    _, xs = _as_float_tuple("derivative", "primals", primals)
    ss = tuple(ops.concat((ops.ones((1,) + x.shape, x.dtype),
                           ops.zeros((order - 1,) + x.shape, x.dtype))) for x in xs)
    outs = _taylor(fn, xs, ss, order)
    return outs[0], outs[order]


def linearize(fn, inputs):
    """``(output, jvp_fn)``: ``fn(inputs)`` and the function taking tangents of the inputs
    (one per input, or one tuple of them) to the Jacobian-vector product at ``inputs``."""
    from .._autodiff.api import jvp
    _callable("linearize", fn)
    single = isinstance(inputs, _Tensor)
    if not single and not (isinstance(inputs, (tuple, list))
                           and all(isinstance(v, _Tensor) for v in inputs)):
        raise TypeError(f"For 'linearize', the 'inputs' must be a Tensor or a tuple or list of "
                        f"Tensors, but got {type(inputs).__name__}.")
    ins = inputs if single else tuple(inputs)
    out = fn(ins) if single else fn(*ins)

    def jvp_fn(*v):
        if len(v) == 1 and isinstance(v[0], (tuple, list)):
            v = tuple(v[0])
        return jvp(fn, ins, v[0] if single else tuple(v))[1]
    return out, jvp_fn


__all__ = public_functions(globals(), __name__) + ["recompute_block"]
