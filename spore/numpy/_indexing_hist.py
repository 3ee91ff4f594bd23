"""More of ``mindspore.numpy``: selection (select, choose, piecewise), set operations
(unique, intersect1d, setdiff1d), index grids (indices, ix_, mgrid, ogrid,
ravel_multi_index, unravel_index), pad, convolve/correlate, interp, gradient, unwrap,
histograms, apply_along_axis/apply_over_axes and array_str.

Differentiable ones are composites of ``spore.ops``; those whose output size depends on the
values (unique, the set operations, histograms) compute on the host, as MindSpore's do.
MindSpore's conventions and quirks, probed on 2.10: Python ints are Int32, ``unique`` keeps
first-occurrence order, ``ravel_multi_index`` returns Float32.
"""
from __future__ import annotations

import math
import numbers

import numpy as _np

from .. import _dtype as D
from .. import ops
from .._core import primitive as P
from ._creation import asarray, arange, linspace

_Tensor = P._Tensor

__all__ = ["select", "choose", "piecewise", "unique", "intersect1d", "setdiff1d", "indices",
           "ix_", "mgrid", "ogrid", "ravel_multi_index", "unravel_index", "pad", "convolve",
           "correlate", "interp", "gradient", "unwrap", "histogram", "histogram_bin_edges",
           "histogram2d", "histogramdd", "apply_along_axis", "apply_over_axes", "array_str"]


def _t(x):
    return x if isinstance(x, _Tensor) else asarray(x)


def _host(x):
    return x.asnumpy() if isinstance(x, _Tensor) else _np.asarray(x)


def _like(values, ref_dtype):
    """A host result as a Tensor of MindSpore numpy's dtype for it (Python ints Int32)."""
    values = _np.asarray(values)
    if values.dtype == _np.int64 and ref_dtype is None:
        values = values.astype(_np.int32)
    elif values.dtype == _np.float64 and ref_dtype is None:
        values = values.astype(_np.float32)
    return _Tensor(values if ref_dtype is None else values.astype(ref_dtype))


# ------------------------------------------------------------------ selection
def select(condlist, choicelist, default=0):
    """Elements of the first choice whose condition holds, ``default`` elsewhere."""
    if len(condlist) != len(choicelist):
        raise ValueError("For 'select', list of cases must be same length as list of "
                         "conditions.")
    choices = [_t(c) for c in choicelist]
    out = None
    for cond, choice in zip(reversed(list(condlist)), reversed(choices)):
        base = ops.full_like(choice, default) if out is None else out
        out = ops.where(_t(cond).astype(D.bool_), choice, base)
    return out


def choose(a, choices, mode="clip"):
    """``choices[a[i]][i]``: ``a`` indexes the stack of (broadcast) choices; out-of-range
    indices are clipped ('clip') or wrapped ('wrap')."""
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"For 'choose', the 'mode' must be 'clip', 'wrap' or 'raise', but got "
                         f"{mode!r}.")
    index = _t(a).astype(D.int64)
    stack = [_t(c) for c in choices]
    n = len(stack)
    shape = _np.broadcast_shapes(tuple(index.shape), *[tuple(c.shape) for c in stack])
    stacked = ops.stack([ops.broadcast_to(c, shape) for c in stack], 0)
    if mode == "wrap":
        index = ops.remainder(index, n)
    else:
        if mode == "raise" and bool(((index < 0) | (index >= n)).any().asnumpy()):
            raise ValueError("For 'choose', invalid entry in choice array.")
        index = ops.clamp(index, 0, n - 1)
    index = ops.broadcast_to(index, shape).expand_dims(0)
    return ops.gather_elements(stacked, 0, index).squeeze(0)


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` (or the constant ``funclist[i]``) where ``condlist[i]`` holds;
    one extra function is the value where no condition holds (0 otherwise)."""
    x = _t(x)
    if isinstance(condlist, _Tensor) or not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    conds = [_t(c).astype(D.bool_) for c in condlist]
    if len(funclist) not in (len(conds), len(conds) + 1):
        raise ValueError(f"For 'piecewise', with {len(conds)} condition(s), {len(conds)} or "
                         f"{len(conds) + 1} functions are expected, but got {len(funclist)}.")
    if len(funclist) == len(conds) + 1:
        rest = ~ops.stack(conds, 0).any(0) if conds else ops.ones_like(x, dtype=D.bool_)
        conds = conds + [rest]

    def value(f):
        if callable(f):
            return ops.broadcast_to(_t(f(x, *args, **kw)).astype(x.dtype), x.shape)
        return ops.full_like(x, f)
    out = ops.zeros_like(x)
    for cond, f in zip(conds, funclist):
        out = ops.where(cond, value(f), out)
    return out


# ------------------------------------------------------------------ set operations (host)
def unique(x, return_inverse=False):
    """The distinct elements of flattened ``x`` in first-occurrence order (MindSpore's CPU
    result), and with ``return_inverse`` the index of each element among them."""
    values, inverse = ops.unique(_t(x).reshape(-1))
    dtype = _t(x).dtype
    values = values.astype(dtype)
    if return_inverse:
        return values, inverse.astype(D.int32)
    return values


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both arrays; with ``return_indices`` the first positions of
    them in each flattened input."""
    a, b = _t(ar1), _t(ar2)
    out = _np.intersect1d(_host(a).ravel(), _host(b).ravel(), assume_unique,
                          return_indices=return_indices)
    if not return_indices:
        return _Tensor(out.astype(a.dtype.np))
    values, i1, i2 = out
    return (_Tensor(values.astype(a.dtype.np)), _Tensor(i1.astype(_np.int32)),
            _Tensor(i2.astype(_np.int32)))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ``ar1`` that are not in ``ar2``."""
    a = _t(ar1)
    return _Tensor(_np.setdiff1d(_host(a).ravel(), _host(_t(ar2)).ravel(),
                                 assume_unique).astype(a.dtype.np))


# ------------------------------------------------------------------ index grids
def indices(dimensions, dtype=D.int32, sparse=False):
    """The index grids of an array of shape ``dimensions``: one (dense) array per
    dimension (a list; ``sparse`` keeps size 1 along the other dimensions)."""
    dims = tuple(int(d) for d in dimensions)
    out = []
    for k, n in enumerate(dims):
        shape = [1] * len(dims)
        shape[k] = n
        axis = arange(n).astype(dtype).reshape(tuple(shape))
        out.append(axis if sparse else ops.broadcast_to(axis, dims))
    return out


def ix_(*args):
    """Open meshes from 1-D sequences: the k-th has size n along dimension k, 1 elsewhere."""
    out = []
    for k, a in enumerate(args):
        a = _t(a)
        if a.ndim != 1:
            raise ValueError("For 'ix_', cross index must be 1 dimensional.")
        if a.dtype == D.bool_:
            a = ops.nonzero(a).reshape(-1).astype(D.int32)
        shape = [1] * len(args)
        shape[k] = a.shape[0]
        out.append(a.reshape(tuple(shape)))
    return out


class _Grid:
    """``mgrid[...]`` / ``ogrid[...]``: slices ``start:stop:step`` (a complex step ``Nj``
    gives N points including ``stop``), as NumPy's."""

    def __init__(self, sparse):
        self.sparse = sparse

    @staticmethod
    def _axis(s):
        if not isinstance(s, slice):
            raise TypeError("For 'mgrid'/'ogrid', the indices must be slices.")
        start = 0 if s.start is None else s.start
        step = 1 if s.step is None else s.step
        if isinstance(step, complex):
            return linspace(start, s.stop, int(abs(step)))
        values = _np.arange(start, s.stop, step)
        return _like(values, None)

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            return self._axis(key)
        axes = [self._axis(s) for s in key]
        if any(a.dtype.is_floating_point for a in axes):
            axes = [a.astype(D.float32) for a in axes]
        if self.sparse:
            return ix_(*axes)
        return ops.stack(ops.meshgrid(*axes, indexing="ij"), 0)


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)


def ravel_multi_index(multi_index, dims, mode="clip", order="C"):
    """Flat indices of the coordinate arrays ``multi_index`` in an array of shape ``dims``
    (out-of-range coordinates clipped or wrapped). Float32, as MindSpore 2.10 returns."""
    dims = tuple(int(d) for d in dims)
    if mode not in ("clip", "wrap", "raise"):
        raise ValueError(f"For 'ravel_multi_index', the 'mode' must be 'clip', 'wrap' or "
                         f"'raise', but got {mode!r}.")
    coords = _t(multi_index) if not isinstance(multi_index, (list, tuple)) else \
        ops.stack([_t(c) for c in multi_index], 0)
    coords = coords.astype(D.int64)
    if coords.shape[0] != len(dims):
        raise ValueError(f"For 'ravel_multi_index', parameter multi_index must be a sequence "
                         f"of length {len(dims)}.")
    order_dims = list(range(len(dims))) if order == "C" else list(reversed(range(len(dims))))
    total = None
    for k in order_dims:
        c = coords[k]
        if mode == "wrap":
            c = ops.remainder(c, dims[k])
        else:
            c = ops.clamp(c, 0, dims[k] - 1)
        total = c if total is None else total * dims[k] + c
    return total.astype(D.float32)


def unravel_index(indices, shape, order="C"):
    """The coordinates (a tuple of Int32 tensors) of flat ``indices`` in an array of
    ``shape``."""
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    flat = _t(indices).astype(D.int64)
    size = math.prod(shape)
    if bool(((flat < 0) | (flat >= size)).any().asnumpy()):
        raise ValueError(f"For 'unravel_index', the indices must be in [0, {size}).")
    out = [None] * len(shape)
    rest = flat
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for k in dims:
        out[k] = ops.remainder(rest, shape[k]).astype(D.int32)
        rest = ops.floor_divide(rest, shape[k])
    return tuple(out)


# ------------------------------------------------------------------ pad
def _pairs(name, value, ndim):
    v = _np.asarray(value.asnumpy() if isinstance(value, _Tensor) else value)
    try:
        return _np.broadcast_to(v, (ndim, 2)).tolist()
    except ValueError:
        raise ValueError(f"For '{name}', the pad widths {value!r} do not fit {ndim} "
                         f"dimensions.") from None


def pad(arr, pad_width, mode="constant", stat_length=None, constant_values=0, end_values=0,
        reflect_type="even", **kwargs):
    """NumPy's ``pad``: modes 'constant', 'edge', 'linear_ramp', 'maximum', 'mean', 'median',
    'minimum', 'reflect', 'symmetric', 'wrap', 'empty', or a function (run on the host)."""
    x = _t(arr)
    widths = [[int(b), int(a)] for b, a in _pairs("pad", pad_width, x.ndim)]
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError("For 'pad', the pad widths must be non-negative.")
    if callable(mode):
        return _Tensor(_np.pad(_host(x), widths, mode, **kwargs))
    if mode in ("reflect", "symmetric") and reflect_type == "even":
        for d, (b, a) in enumerate(widths):
            if b or a:
                x = _pad_axis_reflect(x, d, b, a, mode)
        return x
    if mode in ("constant", "empty"):
        values = _pairs("pad", constant_values, x.ndim) if mode == "constant" else \
            [[0, 0]] * x.ndim
        for d, (b, a) in enumerate(widths):
            parts = []
            if b:
                parts.append(ops.full(_shape_with(x, d, b), values[d][0], dtype=x.dtype))
            parts.append(x)
            if a:
                parts.append(ops.full(_shape_with(x, d, a), values[d][1], dtype=x.dtype))
            x = ops.concat(parts, d) if len(parts) > 1 else x
        return x
    if mode == "edge":
        for d, (b, a) in enumerate(widths):
            if b or a:
                idx = _np.clip(_np.arange(-b, x.shape[d] + a), 0, x.shape[d] - 1)
                x = ops.gather(x, _Tensor(idx), d)
        return x
    if mode == "wrap":
        for d, (b, a) in enumerate(widths):
            if b or a:
                idx = _np.arange(-b, x.shape[d] + a) % x.shape[d]
                x = ops.gather(x, _Tensor(idx), d)
        return x
    # the remaining modes are defined by NumPy on the values: run them on the host
    options = {"constant": {}, "linear_ramp": {"end_values": end_values},
               "maximum": {"stat_length": stat_length}, "mean": {"stat_length": stat_length},
               "median": {"stat_length": stat_length}, "minimum": {"stat_length": stat_length},
               "reflect": {"reflect_type": reflect_type},
               "symmetric": {"reflect_type": reflect_type}}
    if mode not in options:
        raise ValueError(f"For 'pad', the 'mode' {mode!r} is not supported.")
    opts = {k: v for k, v in options[mode].items() if v is not None}
    return _Tensor(_np.pad(_host(x), widths, mode, **opts).astype(x.dtype.np))


def _shape_with(x, axis, n):
    shape = list(x.shape)
    shape[axis] = n
    return tuple(shape)


def _pad_axis_reflect(x, axis, before, after, mode):
    n = x.shape[axis]
    period = 2 * n - 2 if mode == "reflect" else 2 * n
    if period <= 0:
        idx = _np.zeros(before + n + after, _np.int64)
    else:
        pos = _np.arange(-before, n + after) % period
        idx = _np.where(pos < n, pos, period - pos - (0 if mode == "reflect" else 1))
    return ops.gather(x, _Tensor(idx.astype(_np.int64)), axis)


# ------------------------------------------------------------------ signals
def _sliding(a, v, mode, name):
    a, v = _t(a), _t(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"For '{name}', the inputs must be 1-D.")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"For '{name}', the inputs cannot be empty.")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"For '{name}', the 'mode' must be 'full', 'same' or 'valid', but got "
                         f"{mode!r}.")
    return a, v


def correlate(a, v, mode="valid"):
    """Cross-correlation ``c[k] = sum_n a[n + k] * v[n]`` of two 1-D sequences (NumPy's
    modes; a longer ``v`` swaps the inputs and reverses the result, as NumPy does)."""
    a, v = _sliding(a, v, mode, "correlate")
    dtype = D.result_type(a.dtype, v.dtype)
    a, v = a.astype(dtype), v.astype(dtype)
    if v.shape[0] > a.shape[0]:
        return ops.flip(_correlate_long_short(v, a, mode, dtype), (0,))
    return _correlate_long_short(a, v, mode, dtype)


def _correlate_long_short(a, v, mode, dtype):
    """``correlate`` with len(a) >= len(v): windows of the zero-padded ``a`` times ``v``."""
    n, m = a.shape[0], v.shape[0]
    left = {"full": m - 1, "same": m // 2, "valid": 0}[mode]
    right = {"full": m - 1, "same": m - 1 - m // 2, "valid": 0}[mode]
    parts = ([ops.zeros((left,), dtype)] if left else []) + [a] + \
        ([ops.zeros((right,), dtype)] if right else [])
    padded = ops.concat(parts, 0) if len(parts) > 1 else a
    length = padded.shape[0] - m + 1
    idx = _np.arange(length)[:, None] + _np.arange(m)[None, :]
    windows = ops.gather(padded, _Tensor(idx.reshape(-1)), 0).reshape((length, m))
    return (windows * v.reshape((1, m))).sum(1).astype(dtype)


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D sequences."""
    a, v = _sliding(a, v, mode, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return correlate(a, ops.flip(v, (0,)), mode)


def interp(x, xp, fp, left=None, right=None):
    """Piecewise-linear interpolation of the points (``xp``, ``fp``) (``xp`` increasing) at
    ``x``; ``left``/``right`` (default the end values) outside. Float32 (Float64 when an
    input is)."""
    x, xp, fp = _t(x), _t(xp), _t(fp)
    dtype = D.float64 if D.float64 in (x.dtype, xp.dtype, fp.dtype) else D.float32
    x, xp, fp = x.astype(dtype), xp.astype(dtype), fp.astype(dtype)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape:
        raise ValueError("For 'interp', 'xp' and 'fp' must be 1-D of one length.")
    n = xp.shape[0]
    i = ops.clamp(ops.searchsorted(xp, x, right=True) - 1, 0, max(n - 2, 0)).astype(D.int64)
    x0, x1 = ops.gather(xp, i, 0), ops.gather(xp, ops.clamp(i + 1, 0, n - 1), 0)
    y0, y1 = ops.gather(fp, i, 0), ops.gather(fp, ops.clamp(i + 1, 0, n - 1), 0)
    span = ops.where(x1 == x0, ops.ones_like(x1), x1 - x0)
    out = y0 + (x - x0) * (y1 - y0) / span
    lo = fp[0] if left is None else left
    hi = fp[-1] if right is None else right
    out = ops.where(x < xp[0], ops.full_like(out, 0) + lo, out)
    return ops.where(x > xp[-1], ops.full_like(out, 0) + hi, out)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges (``edge_order`` 1 or 2), with
    scalar spacings ``varargs``; one result per axis (a list when several)."""
    f = _t(f)
    if not f.dtype.is_floating_point:
        f = f.astype(D.float32)
    axes = list(range(f.ndim)) if axis is None else \
        ([axis] if isinstance(axis, int) else list(axis))
    axes = [a % f.ndim for a in axes]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = [float(_host(varargs[0]))] * len(axes)
    elif len(varargs) == len(axes):
        spacing = [float(_host(s)) for s in varargs]
    else:
        raise TypeError("For 'gradient', invalid number of arguments.")
    if edge_order not in (1, 2):
        raise ValueError("For 'gradient', 'edge_order' must be 1 or 2.")
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("For 'gradient', the shape of the array is too small to calculate "
                             "a numerical gradient: at least (edge_order + 1) elements are "
                             "required.")
        take = lambda s, e: ops.narrow(f, ax, s, e - s)       # noqa: E731
        inner = (take(2, n) - take(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (take(1, 2) - take(0, 1)) / h
            last = (take(n - 1, n) - take(n - 2, n - 1)) / h
        else:
            first = (-1.5 * take(0, 1) + 2 * take(1, 2) - 0.5 * take(2, 3)) / h
            last = (0.5 * take(n - 3, n - 2) - 2 * take(n - 2, n - 1)
                    + 1.5 * take(n - 1, n)) / h
        out.append(ops.concat([first, inner, last], ax))
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=math.pi, axis=-1):
    """Unwrap phases: jumps larger than ``discont`` between neighbours along ``axis`` are
    replaced by their 2-pi complement."""
    p = _t(p)
    if not p.dtype.is_floating_point:
        p = p.astype(D.float32)
    ax = axis % p.ndim
    n = p.shape[ax]
    if n < 2:
        return p
    d = ops.narrow(p, ax, 1, n - 1) - ops.narrow(p, ax, 0, n - 1)
    two_pi = 2 * math.pi
    dd = ops.remainder(d + math.pi, two_pi) - math.pi
    dd = ops.where((dd == -math.pi) & (d > 0), ops.full_like(dd, math.pi), dd)
    correction = ops.where(ops.abs(d) < discont, ops.zeros_like(d), dd - d)
    return ops.concat([ops.narrow(p, ax, 0, 1),
                       ops.narrow(p, ax, 1, n - 1) + ops.cumsum(correction, ax)], ax)


# ------------------------------------------------------------------ histograms (host)
def _bins_arg(bins):
    if isinstance(bins, _Tensor):
        return bins.asnumpy()
    return bins


def _range_arg(rng):
    return None if rng is None else tuple(float(v) for v in rng)


def _edges_tensor(edges, bins):
    """Integer bin edges given as a list stay Int32; computed edges are Float32."""
    if not isinstance(bins, numbers.Integral) and _np.asarray(bins).dtype.kind in "iu":
        return _Tensor(edges.astype(_np.int32))
    return _Tensor(edges.astype(_np.float32))


def histogram(a, bins=10, range=None, weights=None, density=False):
    """``(hist, bin_edges)``: counts (Float32; densities with ``density``) of ``a`` in
    ``bins`` equal bins over ``range`` (or the data's range), or in the given edges."""
    hist, edges = _np.histogram(_host(_t(a)).ravel(), _bins_arg(bins), _range_arg(range),
                                weights=None if weights is None else _host(_t(weights)).ravel(),
                                density=density)
    return _Tensor(hist.astype(_np.float32)), _edges_tensor(edges, _bins_arg(bins))


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges ``histogram`` would use."""
    edges = _np.histogram_bin_edges(_host(_t(a)).ravel(), _bins_arg(bins), _range_arg(range),
                                    None if weights is None else _host(_t(weights)).ravel())
    return _edges_tensor(edges, _bins_arg(bins))


def histogramdd(sample, bins=10, range=None, weights=None, density=False):
    """``(hist, [edges per dimension])`` of the (N, D) ``sample`` points."""
    data = _host(_t(sample))
    if data.ndim == 1:
        data = data[:, None]
    b = _bins_arg(bins)
    if isinstance(b, (list, tuple)):
        b = [_bins_arg(v) for v in b]
    hist, edges = _np.histogramdd(data, b, range, density=density,
                                  weights=None if weights is None else _host(_t(weights)))
    return _Tensor(hist.astype(_np.float32)), [_Tensor(e.astype(_np.float32)) for e in edges]


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):
    """``(hist, x_edges, y_edges)`` of the points (``x``, ``y``)."""
    sample = _np.stack([_host(_t(x)).ravel(), _host(_t(y)).ravel()], 1)
    hist, (ex, ey) = histogramdd(_Tensor(sample), bins, range, weights, density)
    return hist, ex, ey


# ------------------------------------------------------------------ functional helpers
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis``; the results are
    stacked where the slices were."""
    x = _t(arr)
    ax = axis % x.ndim
    moved = ops.moveaxis(x, ax, -1)
    lead = tuple(moved.shape[:-1])
    rows = moved.reshape((-1, moved.shape[-1]))
    outs = [_t(func1d(rows[i], *args, **kwargs)) for i in range(rows.shape[0])]
    stacked = ops.stack(outs, 0)
    result = stacked.reshape(lead + tuple(stacked.shape[1:]))
    if stacked.ndim == 1:
        return result
    return ops.moveaxis(result, tuple(range(len(lead), result.ndim)),
                        tuple(range(ax, ax + result.ndim - len(lead))))


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the reduced dimensions."""
    out = _t(a)
    for ax in ([axes] if isinstance(axes, int) else axes):
        res = func(out, ax)
        if res.ndim == out.ndim - 1:
            res = res.expand_dims(ax % out.ndim)
        elif res.ndim != out.ndim:
            raise ValueError("For 'apply_over_axes', function is not returning a tensor of "
                             "the correct shape.")
        out = res
    return out


def array_str(a):
    """The string of ``a``'s values, as NumPy prints an array."""
    return _np.array_str(_host(_t(a)))
