"""``spore.mint`` (``mindspore.mint``): MindSpore's PyTorch-style API.

Names, signatures and defaults are ``mindspore.mint``'s, which follow PyTorch: ``dim`` and
``keepdim`` instead of ``axis`` and ``keep_dims``, ``alpha`` on ``add``/``sub``, overloads
such as ``max(input)`` / ``max(input, dim)`` / ``max(input, other)``, int64 indices. Every
name is a thin adapter over the same primitives as ``spore.ops``; where the two modules
agree on signature and meaning the name *is* the ``ops`` function.

MindSpore 2.10's CPU build has no kernel for many of these (``mint.arange``, ``mint.std``,
``mint.topk``, ...); Spore implements their documented (PyTorch) behaviour.
"""
from __future__ import annotations

import builtins as _builtins

import numpy as _np

from .. import ops as _ops
from .._dtype import int64 as _int64, float32 as _float32, float64 as _float64, bool_ as _bool
from .._tensor import Tensor as Tensor
from .. import _absent
from .._random import drawing_from as _drawing_from

# Identical in ops and mint: same parameters, same defaults, same meaning.
from ..ops import (  # noqa: F401
    abs, acos, acosh, addbmm, addmm, addmv, allclose, arange, arccos, arccosh, arcsinh,
    arctan, arctan2, arctanh, argmax, asin, asinh, atan, atan2, atanh, bitwise_and,
    bitwise_or, bitwise_xor, broadcast_to, ceil, cos, cosh, cross, cumprod, divide, dot,
    dstack, einsum, empty, empty_like, equal, erf, erfc, erfinv, exp, exp2, expm1, eye, fix,
    flip, float_power, floor, floor_divide, fmod, full, full_like, greater, gt, hstack,
    inverse, isclose, isfinite, isinf, isneginf, le, lerp, less_equal, log, log10, log1p,
    log2, logaddexp, logaddexp2, logical_and, logical_not, logical_or, logical_xor, logsumexp,
    masked_select, matmul, maximum, minimum, mm, ne, neg, negative, nonzero, not_equal,
    ones_like, outer, pow, ravel, reciprocal, remainder, roll, round, rsqrt, sigmoid, sign,
    sin, sinc, sinh, square, swapaxes, take, tan, tanh, tile, trace, tril, triu, trunc,
    unbind, unique_consecutive, unsqueeze, zeros_like, eq, ge, greater_equal, lt, less, mul,
    bitwise_not, xlogy, clamp, clip, reshape, t, permute,
)
from . import nn as nn, optim as optim, linalg as linalg, special as special  # noqa: E402
from . import distributed as distributed  # noqa: E402


def _require_tensor(op, arg, value):
    """``value`` when it is a Tensor, else a TypeError naming the op and the argument."""
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got "
                        f"{type(value).__name__}.")
    return value


def _require_dim(op, x, dim, arg="dim"):
    """``dim`` normalised to [0, ndim) when it is an int in range, else an error naming the
    op."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"For '{op}', '{arg}' must be an int, but got {type(dim).__name__}.")
    rank = _builtins.max(x.ndim, 1)
    if not -rank <= dim < rank:
        raise ValueError(f"For '{op}', '{arg}' must be in [{-rank}, {rank}), but got {dim}.")
    return dim % rank


def _dim_arg(dim):
    """PyTorch's "all dimensions" (None or ()) as Spore's None; a list as a tuple."""
    if dim is None or dim == ():
        return None
    return tuple(dim) if isinstance(dim, list) else dim


def _cast(x, dtype):
    return x if dtype is None else _ops.cast(x, dtype)


# ---- arithmetic --------------------------------------------------------------------------

def add(input, other, *, alpha=1):
    """``input + alpha * other``."""
    return _ops.add(input, other if alpha == 1 else _ops.mul(other, alpha))


def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return _ops.sub(input, other if alpha == 1 else _ops.mul(other, alpha))


def div(input, other, *, rounding_mode=None):
    """``input / other``; ``rounding_mode`` 'floor' or 'trunc' rounds the quotient."""
    return _ops.div(input, other, rounding_mode=rounding_mode)


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``."""
    return _ops.addcdiv(input, tensor1, tensor2, value)


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return _ops.addcmul(input, tensor1, tensor2, value)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` over a batch of matrices."""
    return _ops.baddbmm(input, batch1, batch2, beta, alpha)


def bmm(input, mat2):
    """Batched matrix product of (b, n, m) and (b, m, p) tensors."""
    return _ops.bmm(input, mat2)


def mv(input, vec):
    """Matrix-vector product."""
    return _ops.mv(input, vec)


def arcsin(x):
    """Element-wise arcsine (MindSpore names this argument ``x``)."""
    return _ops.arcsin(x)


def frac(input):
    """Fractional part: ``input - trunc(input)``."""
    return _ops.frac(input)


def sqrt(input):
    """Element-wise square root."""
    return _ops.sqrt(input)


def isnan(tensor):
    """Element-wise NaN test."""
    return _ops.isnan(tensor)


def nan_to_num(input, nan=None, posinf=None, neginf=None):
    """Replace NaN (by 0 when ``nan`` is None) and infinities (by the dtype's extremes)."""
    return _ops.nan_to_num(input, 0.0 if nan is None else nan, posinf, neginf)


# ---- reductions --------------------------------------------------------------------------

def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all dimensions when None)."""
    return _ops.sum(input, _dim_arg(dim), keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim``; ``dtype`` casts the input first."""
    return _ops.mean(_cast(input, dtype), _dim_arg(dim), keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product over ``dim``; ``dtype`` casts the input first."""
    return _ops.prod(_cast(input, dtype), _dim_arg(dim), keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` treating NaN as zero."""
    return _ops.nansum(input, _dim_arg(dim), keepdim, dtype=dtype)


def all(input, dim=None, keepdim=False):
    """Whether every element (along ``dim``) is true."""
    return _ops.all(input, _dim_arg(dim), keepdim)


def any(input, dim=None, keepdim=False):
    """Whether some element (along ``dim``) is true."""
    return _ops.any(input, _dim_arg(dim), keepdim)


def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (all dimensions by default)."""
    return _ops.amax(input, _dim_arg(dim), keepdim)


def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (all dimensions by default)."""
    return _ops.amin(input, _dim_arg(dim), keepdim)


def _extreme(name, input, dim, keepdim, pairwise, reduce, arg):
    if isinstance(dim, Tensor):                          # max(input, other)
        return pairwise(input, dim)
    if dim is None:                                      # max(input)
        if keepdim:
            raise TypeError(f"For 'mint.{name}', 'keepdim' needs 'dim'.")
        return reduce(input)
    values = reduce(input, dim, keepdim)                 # max(input, dim, keepdim)
    return values, arg(input, dim, keepdim)


def max(input, dim=None, keepdim=False):
    """``max(input)``: the largest element; ``max(input, dim, keepdim=False)``: (values,
    int64 indices) along ``dim``; ``max(input, other)``: the element-wise maximum."""
    return _extreme("max", input, dim, keepdim, _ops.maximum, _ops.amax, argmax)


def min(input, dim=None, keepdim=False):
    """``min(input)``, ``min(input, dim, keepdim=False)`` -> (values, indices), or
    ``min(input, other)`` (element-wise), as ``max``."""
    return _extreme("min", input, dim, keepdim, _ops.minimum, _ops.amin, argmin)


def argmin(input, dim=None, keepdim=False):
    """Index (int64) of the smallest element, of the flattened input when ``dim`` is None."""
    if dim is None:
        return _ops.cast(_ops.argmin(_ops.reshape(input, (-1,)), 0), _int64)
    return _ops.cast(_ops.argmin(input, dim, keepdim), _int64)


def _variance(input, dim, correction, keepdim):
    return _ops.var(input, _dim_arg(dim), correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    """Variance over ``dim`` with ``correction`` (Bessel's by default)."""
    return _variance(input, dim, correction, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):
    """Standard deviation over ``dim`` with ``correction`` (Bessel's by default)."""
    return _ops.sqrt(_variance(input, dim, correction, keepdim))


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    """(variance, mean) over ``dim``."""
    return _variance(input, dim, correction, keepdim), _ops.mean(input, _dim_arg(dim), keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    """(standard deviation, mean) over ``dim``."""
    return std(input, dim, correction=correction, keepdim=keepdim), \
        _ops.mean(input, _dim_arg(dim), keepdim)


def median(input, dim=None, keepdim=False):
    """``median(input)``: the lower median of all elements; with ``dim``: (values, int64
    indices) of the lower median along ``dim``."""
    if dim is None:
        return _ops.median(_ops.reshape(input, (-1,)), 0)[0]
    values, indices = _ops.median(input, dim, keepdim)
    return values, _ops.cast(indices, _int64)


def count_nonzero(input, dim=None):
    """Number (int64) of non-zero elements over ``dim`` (all when None)."""
    axis = () if dim is None else dim
    return _ops.count_nonzero(input, axis, dtype=_int64)


def cumsum(input, dim, dtype=None):
    """Cumulative sum along ``dim``."""
    return _ops.cumsum(input, dim, dtype=dtype)


def cummax(input, dim):
    """(values, indices) of the running maximum along ``dim``."""
    return _ops.cummax(input, dim)


def cummin(input, dim):
    """(values, indices) of the running minimum along ``dim``."""
    return _ops.cummin(input, dim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """``torch.norm``: 'fro' (the 2-norm of the elements over ``dim``), 'nuc' (nuclear norm
    of matrices) or a number ``p`` (the vector p-norm over ``dim``, all elements if None)."""
    input = _cast(input, dtype)
    if p == "nuc":
        return _ops.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)
    if p == "fro":
        p = 2
    if isinstance(p, str) or isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ValueError(f"For 'mint.norm', 'p' must be 'fro', 'nuc' or a number, but got {p!r}.")
    return _ops.vector_norm(input, p, _dim_arg(dim), keepdim)


# ---- shapes and joins --------------------------------------------------------------------

def cat(tensors, dim=0):
    """Join tensors along an existing dimension."""
    return _ops.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """Join tensors along a new dimension."""
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Split into chunks of a size, or into the given section sizes, along ``dim``."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    """Split into ``chunks`` pieces along ``dim`` (the last may be smaller)."""
    return _ops.chunk(input, chunks, dim)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim`` .. ``end_dim`` (all by default) into one."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim):
    """Remove the size-1 dimensions among ``dim`` (an int or a tuple); others stay."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(d % _builtins.max(input.ndim, 1) for d in dims)
    keep = tuple(d for d in dims if input.ndim and input.shape[d] == 1)
    return _ops.squeeze(input, keep) if keep else input


def transpose(input, dim0, dim1):
    """Swap two dimensions."""
    return _ops.swapaxes(input, dim0, dim1)


def narrow(input, dim, start, length):
    """The slice ``start:start+length`` along ``dim``."""
    return _ops.narrow(input, dim, start, length)


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dimension removed."""
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(f"For 'mint.select', index {index} is out of range for dimension "
                         f"{dim} of size {size}.")
    return _ops.squeeze(_ops.narrow(input, dim, index % size, 1), dim)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times along ``dim`` (of the flattened input if None)."""
    if dim is None:
        input, dim = _ops.reshape(input, (-1,)), 0
    return _ops.repeat_interleave(input, repeats, dim)


def diag(input, diagonal=0):
    """1-D input: a matrix with it on diagonal ``diagonal``; 2-D: that diagonal of it."""
    if input.ndim == 1:
        return _ops.diagflat(input, diagonal)
    if input.ndim == 2:
        return _ops.diagonal(input, diagonal)
    raise ValueError(f"For 'mint.diag', the input must be 1-D or 2-D, but got {input.ndim}-D.")


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim``, after joining prepend/append."""
    _require_tensor("diff", "input", input)
    dim = _require_dim("diff", input, dim)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'diff', 'n' must be a non-negative int, but got {n!r}.")
    parts = [p for p in (prepend, input, append) if p is not None]
    x = _ops.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        size = x.shape[dim]
        if size == 0:
            break
        x = _ops.sub(_ops.narrow(x, dim, 1, size - 1), _ops.narrow(x, dim, 0, size - 1))
    return x


def meshgrid(*tensors, indexing=None):
    """Coordinate grids; ``indexing`` 'ij' (the default) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    return _ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def clone(input):
    """A copy of ``input`` with its own memory."""
    return input.clone()


def item(input):
    """The Python number held by a one-element tensor."""
    return input.item()


def where(condition, input=None, other=None):
    """``where(condition, input, other)`` picks element-wise; ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return _ops.nonzero(condition, as_tuple=True)
    return _ops.where(condition, input, other)


# ---- indexing ----------------------------------------------------------------------------

def gather(input, dim, index):
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and so on)."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):
    """The entries ``index`` (1-D) along ``dim``."""
    return _ops.index_select(input, dim, index)


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at positions ``index`` along ``dim``."""
    return input.index_add(dim, index, source, alpha=alpha)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src`` (a tensor, or the number ``value``) written at ``index``
    along ``dim``; ``reduce`` 'add' or 'multiply' combines instead."""
    if src is None:
        src = value
    if not isinstance(src, Tensor):
        src = _ops.full(tuple(index.shape), src, dtype=input.dtype)
    if reduce is None:
        return _ops.scatter(input, dim, index, src)
    modes = {"add": "add", "multiply": "mul"}
    if reduce not in modes:
        raise ValueError(f"For 'mint.scatter', 'reduce' must be 'add' or 'multiply', but got "
                         f"{reduce!r}.")
    return _ops.tensor_scatter_elements(input, index, src, dim, reduction=modes[reduce])


def scatter_add(input, dim, index, src):
    """``input`` with ``src`` added at ``index`` along ``dim``."""
    return _ops.tensor_scatter_elements(input, index, src, dim, reduction="add")


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion points of ``values`` in ``sorted_sequence`` (innermost dimension); ``right``
    (or ``side='right'``) gives the index past equal entries."""
    _require_tensor("searchsorted", "sorted_sequence", sorted_sequence)
    if sorted_sequence.ndim == 0:
        raise ValueError("For 'searchsorted', 'sorted_sequence' must have at least one "
                         "dimension.")
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For 'mint.searchsorted', 'side' must be 'left' or 'right', but "
                             f"got {side!r}.")
        if right and side == "left":
            raise ValueError("For 'mint.searchsorted', 'side' is 'left' but 'right' is True.")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = _ops.gather_elements(sorted_sequence, -1, sorter)
    if not isinstance(values, Tensor):
        values = Tensor(values, dtype=sorted_sequence.dtype)
    scalar = values.ndim == 0
    vals = _ops.reshape(values, (1,)) if scalar else values
    if sorted_sequence.ndim == 1:
        seq = _ops.reshape(sorted_sequence, (1,) * vals.ndim + (-1,))
    else:
        seq = _ops.expand_dims(sorted_sequence, -2)
    cmp = _ops.le if right else _ops.lt
    count = _ops.sum(_ops.cast(cmp(seq, _ops.expand_dims(vals, -1)), _int64), -1)
    if scalar:
        count = _ops.reshape(count, ())
    return _ops.cast(count, "int32" if out_int32 else _int64)


# ---- sorting -----------------------------------------------------------------------------

def sort(input, *, dim=-1, descending=False, stable=False):
    """(values, int64 indices) sorted along ``dim``; equal values keep their order."""
    values, indices = _ops.sort(input, dim, descending)
    return values, _ops.cast(indices, _int64)


def argsort(input, dim=-1, descending=False, stable=False):
    """Indices (int64) that sort ``input`` along ``dim``."""
    return sort(input, dim=dim, descending=descending, stable=stable)[1]


def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, int64 indices) of the ``k`` largest (smallest) entries along ``dim``."""
    values, indices = _ops.topk(input, k, dim, largest, sorted)
    return values, _ops.cast(indices, _int64)


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, int64 indices) of the ``k``-th smallest entry along ``dim``."""
    size = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= size:
        raise ValueError(f"For 'mint.kthvalue', 'k' must be in [1, {size}], but got {k}.")
    values, indices = sort(input, dim=dim)
    values = _ops.narrow(values, dim, k - 1, 1)
    indices = _ops.narrow(indices, dim, k - 1, 1)
    if not keepdim:
        values, indices = _ops.squeeze(values, dim), _ops.squeeze(indices, dim)
    return values, indices


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements in ascending order, with optional inverse indices (into the
    output, in the input's shape) and counts. Only ``dim=None`` (the flattened input)."""
    if dim is not None:
        raise NotImplementedError("For 'mint.unique', 'dim' is not supported yet; only the "
                                  "flattened input (dim=None).")
    flat = _ops.reshape(input, (-1,))
    ordered, order = _ops.sort(flat)
    out, inverse, counts = _ops.unique_consecutive(ordered, True, True)
    result = [out]
    if return_inverse:
        positions = _ops.zeros_like(inverse)
        positions = _ops.tensor_scatter_elements(positions, _ops.cast(order, inverse.dtype),
                                                 inverse, 0)
        result.append(_ops.cast(_ops.reshape(positions, input.shape), _int64))
    if return_counts:
        result.append(_ops.cast(counts, _int64))
    return result[0] if len(result) == 1 else tuple(result)


# ---- creation ----------------------------------------------------------------------------

def _size(size, name):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise TypeError(f"For 'mint.{name}', 'size' must be non-negative ints, but got "
                            f"{size!r}.")
    return tuple(size)


def zeros(size, *, dtype=None):
    """A tensor of zeros (float32 unless ``dtype``)."""
    return _ops.zeros(size, dtype=_float32 if dtype is None else dtype)


def ones(size, *, dtype=None):
    """A tensor of ones (float32 unless ``dtype``)."""
    return _ops.ones(size, dtype=_float32 if dtype is None else dtype)


def linspace(start, end, steps, *, dtype=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` (float32 unless ``dtype``)."""
    return _cast(_ops.linspace(start, end, steps), dtype)


def rand(*size, generator=None, dtype=None, device=None):
    """Uniform [0, 1) samples of ``size`` (float32 unless ``dtype``)."""
    with _drawing_from(generator):
        return _ops.rand(*_size(size, "rand"), dtype=dtype)


def randn(*size, generator=None, dtype=None, device=None):
    """Standard normal samples of ``size`` (float32 unless ``dtype``)."""
    with _drawing_from(generator):
        return _ops.randn(*_size(size, "randn"), dtype=dtype)


def rand_like(input, *, dtype=None, device=None):
    """Uniform [0, 1) samples shaped like ``input``."""
    return _ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None, device=None):
    """Standard normal samples shaped like ``input``."""
    return _ops.randn_like(input, dtype=dtype)


def randint(*args, generator=None, dtype=None, device=None):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)
    (int64 unless ``dtype``)."""
    if len(args) == 2:
        args = (0,) + args
    if len(args) != 3:
        raise TypeError(f"For 'mint.randint', expected (high, size) or (low, high, size), but "
                        f"got {len(args)} arguments.")
    low, high, size = args
    with _drawing_from(generator):
        return _ops.randint(low, high, tuple(size), dtype=_int64 if dtype is None else dtype)


def randint_like(input, *args, dtype=None, device=None):
    """``randint_like(input, high)`` or ``randint_like(input, low, high)``."""
    if len(args) == 1:
        args = (0,) + args
    if len(args) != 2:
        raise TypeError(f"For 'mint.randint_like', expected (input, high) or (input, low, "
                        f"high), but got {len(args) + 1} arguments.")
    return _ops.randint(args[0], args[1], tuple(input.shape),
                        dtype=input.dtype if dtype is None else dtype)


def randperm(n, *, generator=None, dtype=_int64):
    """A random permutation of 0 .. n-1 from the global random stream."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'mint.randperm', 'n' must be a non-negative int, but got {n!r}.")
    with _drawing_from(generator):
        return _ops.cast(_ops.argsort(_ops.rand(n, dtype=_float64)), dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal samples with ``mean`` and ``std`` (numbers with ``size``, or tensors that
    broadcast to the output's shape)."""
    if size is None:
        shapes = [tuple(v.shape) for v in (mean, std) if isinstance(v, Tensor)]
        if not shapes:
            raise TypeError("For 'mint.normal', give 'size' when 'mean' and 'std' are numbers.")
        size = _np.broadcast_shapes(*shapes)
    with _drawing_from(generator):
        return _ops.normal(tuple(size), mean, std)


def bernoulli(input, *, generator=None):
    """0/1 samples, 1 with probability ``input`` (element-wise)."""
    with _drawing_from(generator):
        return _ops.bernoulli(input, p=input)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices (int64) drawn from the rows of ``input`` (unnormalised weights)."""
    with _drawing_from(generator):
        return _ops.cast(_ops.multinomial(input, num_samples, replacement), _int64)


def softmax(input, dim, *, dtype=None):
    """Softmax along ``dim``."""
    return _ops.softmax(input, dim, dtype=dtype)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of ``x1`` and ``x2`` (``compute_mode`` only picks
    an algorithm in PyTorch; Spore computes them one way)."""
    return _ops.cdist(x1, x2, p)


def addr_(input, vec1, vec2, beta=1, alpha=1):
    """In place: ``input = beta * input + alpha * outer(vec1, vec2)``; returns ``input``."""
    return input.copy_(_ops.addr(input, vec1, vec2, beta=beta, alpha=alpha))


def bincount(input, weights=None, minlength=0):
    """Occurrences (or summed ``weights``) of each value 0 .. max(input) of a 1-D
    non-negative integer tensor; at least ``minlength`` bins."""
    if input.ndim != 1 or "Int" not in str(input.dtype):
        raise TypeError(f"For 'mint.bincount', 'input' must be a 1-D integer tensor, but got "
                        f"{input.ndim}-D {input.dtype}.")
    if input.shape[0] and int(_ops.amin(input).item()) < 0:
        raise ValueError("For 'mint.bincount', 'input' must be non-negative.")
    length = _builtins.max(int(_ops.amax(input).item()) + 1 if input.shape[0] else 0, minlength)
    hot = _ops.one_hot(_ops.cast(input, _int64), length, 1, 0)
    if weights is None:
        return _ops.cast(_ops.sum(hot, 0), _int64)
    return _ops.sum(_ops.mul(_ops.cast(hot, weights.dtype), _ops.expand_dims(weights, -1)), 0)


def histc(input, bins=100, min=0, max=0):
    """Histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0);
    values outside are ignored, ``max`` falls in the last bin."""
    _require_tensor("histc", "input", input)
    if isinstance(bins, bool) or not isinstance(bins, int) or bins <= 0:
        raise ValueError(f"For 'histc', 'bins' must be a positive int, but got {bins!r}.")
    for arg, v in (("min", min), ("max", max)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"For 'histc', '{arg}' must be a number, but got "
                            f"{type(v).__name__}.")
    if "Complex" in str(input.dtype) or input.dtype == _bool:
        raise TypeError(f"For 'histc', 'input' must be a real number tensor, but got "
                        f"{input.dtype}.")
    lo, hi = float(min), float(max)
    if lo == hi == 0 and input.size:
        lo, hi = float(_ops.amin(input).item()), float(_ops.amax(input).item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise ValueError(f"For 'mint.histc', 'max' ({hi}) must not be less than 'min' ({lo}).")
    x = _ops.cast(_ops.reshape(input, (-1,)), _float64)
    inside = _ops.logical_and(_ops.ge(x, lo), _ops.le(x, hi))
    index = _ops.clamp(_ops.floor((x - lo) * (bins / (hi - lo))), 0, bins - 1)
    hot = _ops.one_hot(_ops.cast(index, _int64), bins, 1.0, 0.0)
    counts = _ops.sum(_ops.mul(hot, _ops.expand_dims(_ops.cast(inside, _float64), -1)), 0)
    return _ops.cast(counts, input.dtype)


def batch_norm_stats(input, eps):
    """(mean, 1 / sqrt(biased variance + eps)) per channel (dimension 1)."""
    axes = (0,) + tuple(range(2, input.ndim))
    mean = _ops.mean(input, axes)
    var = _ops.mean(_ops.square(_ops.sub(input, _ops.reshape(mean, _channel_shape(input)))), axes)
    return mean, _ops.rsqrt(_ops.add(var, eps))


def _channel_shape(input):
    return (1, -1) + (1,) * (input.ndim - 2)


def batch_norm_elemt(input, weight=None, bias=None, mean=None, invstd=None, eps=1e-05):
    """``(input - mean) * invstd * weight + bias`` per channel (dimension 1)."""
    shape = _channel_shape(input)
    out = _ops.mul(_ops.sub(input, _ops.reshape(mean, shape)), _ops.reshape(invstd, shape))
    if weight is not None:
        out = _ops.mul(out, _ops.reshape(weight, shape))
    if bias is not None:
        out = _ops.add(out, _ops.reshape(bias, shape))
    return out


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean=None, running_var=None,
                                        momentum=0.1, eps=1e-05, counts=None):
    """Combine per-process (mean, invstd) rows (G, C) counted ``counts`` (G,) elements each
    into the global (mean, invstd); the running statistics move by ``momentum`` (with the
    unbiased variance)."""
    counts = _ops.cast(_ops.reshape(counts, (-1, 1)), mean.dtype)
    total = _ops.sum(counts)
    g_mean = _ops.div(_ops.sum(_ops.mul(mean, counts), 0), total)
    var = _ops.sub(_ops.div(1, _ops.square(invstd)), eps)
    second = _ops.sum(_ops.mul(_ops.add(var, _ops.square(mean)), counts), 0)
    g_var = _ops.sub(_ops.div(second, total), _ops.square(g_mean))
    if running_mean is not None:
        running_mean.copy_(_ops.add(_ops.mul(running_mean, 1 - momentum),
                                    _ops.mul(g_mean, momentum)))
    if running_var is not None:
        unbiased = _ops.mul(g_var, _ops.div(total, _ops.sub(total, 1)))
        running_var.copy_(_ops.add(_ops.mul(running_var, 1 - momentum),
                                   _ops.mul(unbiased, momentum)))
    return g_mean, _ops.rsqrt(_ops.add(g_var, eps))


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a (time, batch, C_in) input with a (k, C_in, C_out) weight;
    (time', batch, C_out) out."""
    x = _ops.permute(input, (1, 2, 0))
    w = _ops.permute(weight, (2, 1, 0))
    out = nn.functional.conv1d(x, w, bias, 1, pad)
    return _ops.permute(out, (2, 0, 1))


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution with PyTorch's ``padding`` (int, pair, 'same' or 'valid')."""
    return nn.functional.conv2d(input, weight, bias, stride, padding, dilation, groups)


# Number theory and complex numbers: the ``ops`` functions (same parameters and meaning).
from ..ops import gcd, real, imag, polar  # noqa: E402,F401


def vdot(input, other):
    """The dot product of two 1-D tensors, the first conjugated when complex."""
    for arg, v in (("input", input), ("other", other)):
        _require_tensor("vdot", arg, v)
        if v.ndim != 1:
            raise ValueError(f"For 'vdot', '{arg}' must be 1-D, but got {v.ndim}-D.")
    if input.shape != other.shape:
        raise ValueError(f"For 'vdot', 'input' and 'other' must have one length, but got "
                         f"{input.shape[0]} and {other.shape[0]}.")
    first = _ops.conj(input) if input.dtype.is_complex else input
    return _ops.sum(_ops.mul(first, other))


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``(X, A)`` with ``op(T) X = b`` for the triangle T of ``A`` (upper or lower; unit
    diagonal when ``unitriangular``; ``op`` transposes when ``transpose``), batched."""
    _require_tensor("triangular_solve", "b", b)
    _require_tensor("triangular_solve", "A", A)
    t = _ops.triu(A) if upper else _ops.tril(A)
    if unitriangular:
        n = A.shape[-1]
        eye = _ops.eye(n, n, A.dtype)
        t = t * (1 - eye) + eye
    if transpose:
        t = _ops.swapaxes(t, -1, -2)
    return _ops.matrix_solve(t, b), A


def __getattr__(name):
    return _absent.missing(__name__, name)
