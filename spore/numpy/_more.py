"""More of ``mindspore.numpy``: constants, splitting and flipping, index helpers, NaN-aware
reductions, polynomials and small math functions. Thin wrappers over ``spore.ops`` with
MindSpore's conventions (Python ints are Int32, floats Float32)."""
from __future__ import annotations

import builtins
import math

import numpy as _np

from .. import _dtype as D
from .. import ops
from .._core import primitive as P
from ._creation import asarray, arange, linspace, logspace, zeros
from ._math import _binary, _cast, _operand, _tensor, _unary

NINF = -math.inf
PINF = math.inf
inf = math.inf
nan = math.nan
pi = math.pi
float_ = D.float32
int_ = D.int32
uint = D.uint32
uint16 = D.uint16
uint32 = D.uint32
uint64 = D.uint64


# ---- elementwise -------------------------------------------------------------------------

def _float(x):
    x = _tensor(x)
    return x if x.dtype in (D.float16, D.float32, D.float64) else ops.cast(x, D.float32)


bitwise_and = _binary(ops.bitwise_and)
bitwise_or = _binary(ops.bitwise_or)
bitwise_xor = _binary(ops.bitwise_xor)
bitwise_not = _unary(ops.bitwise_not)
invert = bitwise_not
logaddexp = _binary(ops.logaddexp)
logaddexp2 = _binary(ops.logaddexp2)
hypot = _binary(ops.hypot)
fabs = _unary(ops.abs)


def cbrt(x, dtype=None):
    """Real cube root (negative for negative inputs); integers give Float32."""
    x = _float(x)
    return _cast(ops.mul(ops.sign(x), ops.pow(ops.abs(x), 1.0 / 3.0)), dtype)


def copysign(x1, x2, dtype=None):
    """``|x1|`` with the sign of ``x2``."""
    x1, x2 = _float(x1), _operand(x2)
    negative = ops.lt(x2, 0) if not isinstance(x2, (int, float)) else x2 < 0
    return _cast(ops.where(negative, ops.neg(ops.abs(x1)), ops.abs(x1)), dtype)


def deg2rad(x, dtype=None):
    """Degrees to radians."""
    return _cast(ops.mul(_float(x), math.pi / 180), dtype)


radians = deg2rad


def rad2deg(x, dtype=None):
    """Radians to degrees."""
    return _cast(ops.mul(_float(x), 180 / math.pi), dtype)


def fix(x):
    """Round towards zero (integers unchanged)."""
    return ops.trunc(_tensor(x))


def heaviside(x1, x2, dtype=None):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``."""
    x1 = _float(x1)
    x2 = ops.broadcast_to(ops.cast(_tensor(x2), x1.dtype), x1.shape) \
        if not isinstance(x2, (int, float)) else ops.full_like(x1, x2)
    return _cast(ops.where(ops.gt(x1, 0), ops.ones_like(x1),
                           ops.where(ops.lt(x1, 0), ops.zeros_like(x1), x2)), dtype)


def isneginf(x):
    """Where ``x`` is -inf."""
    x = _tensor(x)
    return ops.logical_and(ops.isinf(x), ops.lt(x, 0))


def isposinf(x):
    """Where ``x`` is +inf."""
    x = _tensor(x)
    return ops.logical_and(ops.isinf(x), ops.gt(x, 0))


def signbit(x, dtype=None):
    """Where ``x < 0`` (MindSpore's rule: -0.0 gives False)."""
    return _cast(ops.lt(_tensor(x), 0), dtype)


def divmod(x1, x2, dtype=None):
    """(floor quotient, remainder with the divisor's sign)."""
    x1, x2 = _operand(x1), _operand(x2)
    return _cast(ops.floor_divide(x1, x2), dtype), _cast(ops.remainder(x1, x2), dtype)


# ---- shapes, splits, flips ---------------------------------------------------------------

def _atleast(arys, ndim, expand):
    out = []
    for a in arys:
        a = _tensor(a)
        while a.ndim < ndim:
            a = expand(a)
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Inputs with at least one dimension."""
    return _atleast(arys, 1, lambda a: ops.reshape(a, (1,)))


def atleast_2d(*arys):
    """Inputs with at least two dimensions (new axes in front)."""
    return _atleast(arys, 2, lambda a: ops.expand_dims(a, 0))


def atleast_3d(*arys):
    """Inputs with at least three dimensions: (N,) -> (1, N, 1), (M, N) -> (M, N, 1)."""
    def expand(a):
        return ops.reshape(a, (1, -1, 1)) if a.ndim <= 1 else ops.expand_dims(a, -1)
    return _atleast(arys, 3, expand)


def _split_points(size, indices_or_sections, name):
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"For '{name}', the number of sections must be positive, but got "
                             f"{n}.")
        each, extra = builtins.divmod(size, n)
        sizes = [each + 1] * extra + [each] * (n - extra)
        return _np.cumsum(sizes)[:-1].tolist()
    return [builtins.min(builtins.max(int(i), 0), size) for i in indices_or_sections]


def array_split(x, indices_or_sections, axis=0):
    """Split into sections (unequal when they do not divide) or at the given indices."""
    x = _tensor(x)
    axis = axis % x.ndim
    points = [0] + _split_points(x.shape[axis], indices_or_sections, "array_split") + \
        [x.shape[axis]]
    return [ops.narrow(x, axis, a, builtins.max(b - a, 0)) for a, b in zip(points, points[1:])]


def _even_split(x, indices_or_sections, axis, name):
    x = _tensor(x)
    if isinstance(indices_or_sections, int) and x.shape[axis] % indices_or_sections:
        raise ValueError(f"For '{name}', the array does not split into "
                         f"{indices_or_sections} equal sections along axis {axis}.")
    return array_split(x, indices_or_sections, axis)


def hsplit(x, indices_or_sections):
    """Split along the second axis (the first for 1-D)."""
    x = _tensor(x)
    return _even_split(x, indices_or_sections, 1 if x.ndim > 1 else 0, "hsplit")


def vsplit(x, indices_or_sections):
    """Split along the first axis."""
    return _even_split(x, indices_or_sections, 0, "vsplit")


def dsplit(x, indices_or_sections):
    """Split along the third axis."""
    return _even_split(x, indices_or_sections, 2, "dsplit")


def dstack(tup):
    """Join along the third axis (inputs made 3-D first)."""
    return ops.concat([atleast_3d(a) for a in tup], 2)


def column_stack(tup):
    """1-D inputs become columns; join along the second axis."""
    cols = [_tensor(a) for a in tup]
    cols = [ops.reshape(a, (-1, 1)) if a.ndim < 2 else a for a in cols]
    return ops.concat(cols, 1)


def append(arr, values, axis=None):
    """``values`` joined after ``arr`` (both flattened when ``axis`` is None)."""
    arr, values = _tensor(arr), _tensor(values)
    if axis is None:
        return ops.concat([ops.reshape(arr, (-1,)), ops.reshape(values, (-1,))], 0)
    return ops.concat([arr, values], axis)


def fliplr(m):
    """Reverse the columns (the second axis)."""
    return ops.flip(_tensor(m), (1,))


def flipud(m):
    """Reverse the rows (the first axis)."""
    return ops.flip(_tensor(m), (0,))


def rot90(a, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane ``axes`` (from the first towards the
    second)."""
    a = _tensor(a)
    k %= 4
    ax0, ax1 = axes
    if k == 0:
        return a
    if k == 2:
        return ops.flip(a, (ax0, ax1))
    perm = list(range(a.ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return ops.transpose(ops.flip(a, (ax1,)), tuple(perm))
    return ops.flip(ops.transpose(a, tuple(perm)), (ax1,))


def roll(a, shift, axis=None):
    """Shift elements cyclically (over the flattened array when ``axis`` is None)."""
    a = _tensor(a)
    if axis is None:
        return ops.reshape(ops.roll(ops.reshape(a, (-1,)), shift, 0), a.shape)
    return ops.roll(a, shift, axis)


def rollaxis(x, axis, start=0):
    """Move ``axis`` to before position ``start``."""
    x = _tensor(x)
    axis %= x.ndim
    start = start % (x.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return ops.moveaxis(x, axis, start)


def broadcast_arrays(*args):
    """The inputs broadcast to their common shape."""
    xs = [_tensor(a) for a in args]
    shape = _np.broadcast_shapes(*[tuple(x.shape) for x in xs])
    return [ops.broadcast_to(x, shape) for x in xs]


def copy(a):
    """A copy of ``a``."""
    return _tensor(a).clone()


def diagflat(v, k=0):
    """A matrix with the flattened input on diagonal ``k``."""
    return ops.diagflat(_tensor(v), k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the planes (axis1, axis2), as the last axis."""
    return ops.diagonal(_tensor(a), offset, axis1, axis2)


def take_along_axis(arr, indices, axis):
    """``arr`` gathered with ``indices`` along ``axis`` (None: the flattened array)."""
    arr, indices = _tensor(arr), _tensor(indices)
    if axis is None:
        arr, axis = ops.reshape(arr, (-1,)), 0
    shape = _np.broadcast_shapes(tuple(arr.shape[:axis % arr.ndim]) + (1,) +
                                 tuple(arr.shape[axis % arr.ndim + 1:]), tuple(indices.shape))
    shape = shape[:axis % arr.ndim] + (indices.shape[axis],) + shape[axis % arr.ndim + 1:]
    return ops.gather_elements(arr, axis, ops.broadcast_to(indices, shape))


def take(a, indices, axis=None, mode="clip"):
    """Elements at ``indices`` (of the flattened array when ``axis`` is None); ``mode``
    'clip' clamps out-of-range indices, 'wrap' wraps them, 'raise' is treated as 'clip'."""
    a, indices = _tensor(a), _tensor(indices)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    size = a.shape[axis]
    if mode == "wrap":
        indices = ops.remainder(indices, size)
    elif mode in ("clip", "raise"):
        indices = ops.clamp(indices, 0, size - 1)
    else:
        raise ValueError(f"For 'take', 'mode' must be 'raise', 'wrap' or 'clip', but got "
                         f"{mode!r}.")
    flat = ops.reshape(indices, (-1,))
    out = ops.gather(a, flat, axis)
    axis %= a.ndim
    return ops.reshape(out, tuple(a.shape[:axis]) + tuple(indices.shape) +
                       tuple(a.shape[axis + 1:]))


def repeat(a, repeats, axis=None):
    """Repeat each element ``repeats`` times along ``axis`` (flattened when None)."""
    a = _tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return ops.repeat_interleave(a, repeats, axis)


def tri(N, M=None, k=0, dtype=D.float32):
    """Ones at and below diagonal ``k`` of an N x M matrix."""
    return ops.cast(ops.tril(ops.ones((N, N if M is None else M), D.float32), k), dtype)


def _indices_pair(rows, cols):
    return asarray(rows.astype(_np.int32)), asarray(cols.astype(_np.int32))


def tril_indices(n, k=0, m=None):
    """(row, column) indices of the lower triangle (Int32)."""
    return _indices_pair(*_np.tril_indices(n, k, m))


def triu_indices(n, k=0, m=None):
    """(row, column) indices of the upper triangle (Int32)."""
    return _indices_pair(*_np.triu_indices(n, k, m))


def tril_indices_from(arr, k=0):
    """``tril_indices`` for the shape of the 2-D ``arr``."""
    arr = _tensor(arr)
    return tril_indices(arr.shape[-2], k, arr.shape[-1])


def triu_indices_from(arr, k=0):
    """``triu_indices`` for the shape of the 2-D ``arr``."""
    arr = _tensor(arr)
    return triu_indices(arr.shape[-2], k, arr.shape[-1])


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an n^ndim array (``ndim`` equal Int32 ranges)."""
    idx = arange(n)
    return tuple(idx for _ in range(ndim))


def isscalar(element):
    """Whether ``element`` is a Python or NumPy scalar (tensors are not)."""
    return isinstance(element, (int, float, complex, bool, str, bytes, _np.generic))


def size(a, axis=None):
    """Number of elements (along ``axis``)."""
    a = _tensor(a)
    return a.size if axis is None else a.shape[axis]


def array_equal(a1, a2, equal_nan=False):
    """Whether the inputs have the same shape and elements."""
    a1, a2 = _tensor(a1), _tensor(a2)
    if tuple(a1.shape) != tuple(a2.shape):
        return False
    same = ops.eq(a1, a2)
    if equal_nan:
        same = ops.logical_or(same, ops.logical_and(ops.isnan(_float(a1)), ops.isnan(_float(a2))))
    return bool(ops.all(same).item())


def array_equiv(a1, a2):
    """Whether the inputs broadcast to each other and are equal everywhere."""
    a1, a2 = _tensor(a1), _tensor(a2)
    try:
        _np.broadcast_shapes(tuple(a1.shape), tuple(a2.shape))
    except ValueError:
        return False
    return bool(ops.all(ops.eq(a1, a2)).item())


def argwhere(a):
    """Indices of the non-zero elements, one row each."""
    return ops.nonzero(_tensor(a))


# ---- reductions and accumulations ------------------------------------------------------

def cumprod(a, axis=None, dtype=None):
    """Cumulative product (of the flattened array when ``axis`` is None)."""
    a = _tensor(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return _cast(ops.cumprod(a, axis), dtype)


def nancumsum(a, axis=None, dtype=None):
    """Cumulative sum treating NaN as zero."""
    a = _float(a)
    a = ops.where(ops.isnan(a), ops.zeros_like(a), a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    return _cast(ops.cumsum(a, axis), dtype)


def _nan_filled(a, value):
    a = _float(a)
    return ops.where(ops.isnan(a), ops.full_like(a, value), a), ops.isnan(a)


def nanmax(a, axis=None, dtype=None, keepdims=False):
    """Maximum ignoring NaN (NaN where a slice is all NaN)."""
    filled, mask = _nan_filled(a, -math.inf)
    out = ops.amax(filled, axis, keepdims)
    allnan = ops.all(mask, axis, keepdims)
    return _cast(ops.where(allnan, ops.full_like(out, math.nan), out), dtype)


def nanmin(a, axis=None, dtype=None, keepdims=False):
    """Minimum ignoring NaN (NaN where a slice is all NaN)."""
    filled, mask = _nan_filled(a, math.inf)
    out = ops.amin(filled, axis, keepdims)
    allnan = ops.all(mask, axis, keepdims)
    return _cast(ops.where(allnan, ops.full_like(out, math.nan), out), dtype)


def nanmean(a, axis=None, dtype=None, keepdims=False):
    """Mean of the non-NaN elements."""
    filled, mask = _nan_filled(a, 0.0)
    count = ops.sum(ops.cast(ops.logical_not(mask), filled.dtype), axis, keepdims)
    return _cast(ops.div(ops.sum(filled, axis, keepdims), count), dtype)


def nanvar(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Variance of the non-NaN elements with ``ddof``."""
    filled, mask = _nan_filled(a, 0.0)
    valid = ops.cast(ops.logical_not(mask), filled.dtype)
    count = ops.sum(valid, axis, True)
    mean = ops.div(ops.sum(filled, axis, True), count)
    sq = ops.mul(ops.square(ops.sub(filled, mean)), valid)
    out = ops.div(ops.sum(sq, axis, True), ops.sub(count, ddof))
    if not keepdims:
        out = ops.squeeze(out, axis) if axis is not None else ops.reshape(out, ())
    return _cast(out, dtype)


def nanstd(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """Standard deviation of the non-NaN elements with ``ddof``."""
    return _cast(ops.sqrt(nanvar(a, axis, None, ddof, keepdims)), dtype)


def sometrue(a, axis=None, keepdims=False):
    """Whether any element (along ``axis``) is true."""
    return ops.any(ops.cast(_tensor(a), D.bool_), axis, keepdims)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th difference along ``axis``."""
    from .. import mint
    parts = [None if v is None else ops.broadcast_to(_tensor(v), _edge_shape(_tensor(a), axis))
             if _tensor(v).ndim == 0 else _tensor(v) for v in (prepend, append)]
    return mint.diff(_tensor(a), n, axis, parts[0], parts[1])


def _edge_shape(a, axis):
    shape = list(a.shape)
    shape[axis] = 1
    return tuple(shape)


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with ``to_begin`` / ``to_end`` around them."""
    flat = ops.reshape(_tensor(ary), (-1,))
    parts = [ops.sub(flat[1:], flat[:-1])]
    if to_begin is not None:
        parts.insert(0, ops.cast(ops.reshape(_tensor(to_begin), (-1,)), flat.dtype))
    if to_end is not None:
        parts.append(ops.cast(ops.reshape(_tensor(to_end), (-1,)), flat.dtype))
    return ops.concat(parts, 0)


def trapz(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` by the trapezoidal rule (sample points ``x``, or spacing ``dx``)."""
    y = _float(y)
    n = y.shape[axis]
    mid = ops.add(ops.narrow(y, axis, 1, n - 1), ops.narrow(y, axis, 0, n - 1))
    if x is None:
        return ops.mul(ops.sum(mid, axis), dx / 2)
    x = _float(x)
    d = ops.sub(ops.narrow(x, -1 if x.ndim == 1 else axis, 1, n - 1),
                ops.narrow(x, -1 if x.ndim == 1 else axis, 0, n - 1))
    if x.ndim == 1 and y.ndim > 1:
        d = ops.reshape(d, tuple(n - 1 if i == axis % y.ndim else 1 for i in range(y.ndim)))
    return ops.div(ops.sum(ops.mul(mid, d), axis), 2)


def matrix_power(a, n):
    """``a`` multiplied by itself ``n`` times (n >= 0; the identity for 0)."""
    a = _tensor(a)
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"For 'matrix_power', 'n' must be a non-negative int, but got {n!r}.")
    result = ops.broadcast_to(ops.eye(a.shape[-1], a.shape[-1], a.dtype), a.shape)
    base = a
    while n:
        if n & 1:
            result = ops.matmul(result, base)
        base = ops.matmul(base, base)
        n >>= 1
    return result


def multi_dot(arrays):
    """``arrays[0] @ arrays[1] @ ...`` (1-D first / last inputs as row / column vectors)."""
    xs = [_tensor(a) for a in arrays]
    out = xs[0]
    for x in xs[1:]:
        out = ops.matmul(out, x)
    return out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 3-vectors along the given axes (``axis`` sets all three)."""
    a, b = _float(a) if _tensor(a).dtype == D.bool_ else _tensor(a), _tensor(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = ops.moveaxis(a, axisa, -1), ops.moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError(f"For 'cross', the vectors must have 3 components, but got "
                         f"{a.shape[-1]} and {b.shape[-1]}.")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    out = ops.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], -1)
    return ops.moveaxis(out, -1, axisc)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector or matrix norm, as ``numpy.linalg.norm``."""
    return ops.norm(_float(x), ord, axis, keepdims)


# ---- searching and counting ----------------------------------------------------------

def searchsorted(a, v, side="left", sorter=None):
    """Insertion indices (Int32) of ``v`` in the sorted 1-D ``a``."""
    from .. import mint
    a = _tensor(a)
    if sorter is not None:
        a = ops.gather(a, _tensor(sorter), 0)
    return mint.searchsorted(a, _tensor(v) if not isinstance(v, (int, float)) else v,
                             side=side, out_int32=True)


def digitize(x, bins, right=False):
    """Index of the bin of each value of ``x`` (``bins`` increasing or decreasing)."""
    x, bins = _tensor(x), _tensor(bins)
    increasing = bins.shape[0] < 2 or bool((bins[-1] >= bins[0]).item())
    if increasing:
        return searchsorted(bins, x, "left" if right else "right")
    rev = ops.flip(bins, (0,))
    return ops.sub(bins.shape[0], searchsorted(rev, x, "right" if right else "left"))


def bincount(x, weights=None, minlength=0, length=None):
    """Counts (or summed ``weights``) of each non-negative integer value."""
    from .. import mint
    x = ops.cast(_tensor(x), D.int64)
    out = mint.bincount(x, None if weights is None else _float(weights), minlength)
    if weights is None:
        out = ops.cast(out, D.int32)
    if length is not None:
        out = out[:length] if out.shape[0] >= length else \
            ops.concat([out, ops.zeros((length - out.shape[0],), out.dtype)], 0)
    return out


def in1d(ar1, ar2, invert=False):
    """Whether each element of the flattened ``ar1`` is in ``ar2``."""
    return isin(ops.reshape(_tensor(ar1), (-1,)), ar2, invert)


def isin(element, test_elements, invert=False):
    """Whether each element is among ``test_elements`` (in ``element``'s shape)."""
    element, test = _tensor(element), ops.reshape(_tensor(test_elements), (-1,))
    hit = ops.any(ops.eq(ops.expand_dims(element, -1), test), -1)
    return ops.logical_not(hit) if invert else hit


# ---- polynomials (coefficients from the highest power) ---------------------------------

def _poly_pair(a1, a2):
    a1, a2 = _float(atleast_1d(a1)), _float(atleast_1d(a2))
    n = builtins.max(a1.shape[0], a2.shape[0])
    pad1 = ops.concat([zeros(n - a1.shape[0], a1.dtype), a1], 0) if a1.shape[0] < n else a1
    pad2 = ops.concat([zeros(n - a2.shape[0], a2.dtype), a2], 0) if a2.shape[0] < n else a2
    return pad1, pad2


def polyadd(a1, a2):
    """Sum of two polynomials."""
    p1, p2 = _poly_pair(a1, a2)
    return ops.add(p1, p2)


def polysub(a1, a2):
    """Difference of two polynomials."""
    p1, p2 = _poly_pair(a1, a2)
    return ops.sub(p1, p2)


def polymul(a1, a2):
    """Product of two polynomials (the convolution of their coefficients)."""
    a1, a2 = atleast_1d(_tensor(a1)), atleast_1d(_tensor(a2))
    n1, n2 = a1.shape[0], a2.shape[0]
    rows = [ops.pad(ops.mul(a1[i], a2), (i, n1 - 1 - i)) for i in range(n1)]
    return ops.sum(ops.stack(rows, 0), 0)


def polyval(p, x):
    """The polynomial ``p`` at ``x`` (Horner's rule)."""
    p, x = _float(p), _float(x)
    out = ops.zeros_like(x)
    for i in range(p.shape[0]):
        out = ops.add(ops.mul(out, x), p[i])
    return out


def polyder(p, m=1):
    """The ``m``-th derivative of the polynomial ``p``."""
    p = _float(p)
    for _ in range(m):
        n = p.shape[0] - 1
        if n <= 0:
            return zeros(1, p.dtype)
        p = ops.mul(p[:-1], asarray(_np.arange(n, 0, -1), p.dtype))
    return p


def polyint(p, m=1, k=None):
    """The ``m``-th antiderivative of ``p``; ``k`` holds the integration constants."""
    p = _float(p)
    ks = [0.0] * m if k is None else list(_np.ravel(k)) * (m if _np.size(k) == 1 else 1)
    for i in range(m):
        n = p.shape[0]
        p = ops.concat([ops.div(p, asarray(_np.arange(n, 0, -1), p.dtype)),
                        asarray([ks[i]], p.dtype)], 0)
    return p


def vander(x, N=None, increasing=False):
    """Columns of powers of ``x`` (decreasing unless ``increasing``)."""
    x = _tensor(x)
    N = x.shape[0] if N is None else N
    powers = asarray(_np.arange(N) if increasing else _np.arange(N - 1, -1, -1), x.dtype)
    return ops.pow(ops.expand_dims(x, -1), powers)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` numbers spaced evenly on a log scale from ``start`` to ``stop``."""
    if start == 0 or stop == 0:
        raise ValueError("For 'geomspace', 'start' and 'stop' must be non-zero.")
    sign = -1.0 if start < 0 and stop < 0 else 1.0
    out = logspace(math.log10(abs(start)), math.log10(abs(stop)), num, endpoint, 10.0,
                   dtype, axis)
    return ops.mul(out, sign) if sign < 0 else out


# ---- types ---------------------------------------------------------------------------

def promote_types(type1, type2):
    """The dtype both types convert to (MindSpore's promotion)."""
    from .._dtype import promote_types as _promote
    return _promote(type1, type2)


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on the inputs (tensors, dtypes or Python numbers)."""
    out = None
    for item in arrays_and_dtypes:
        if isinstance(item, P._Tensor):
            dt = item.dtype
        elif isinstance(item, bool):
            dt = D.bool_
        elif isinstance(item, int):
            dt = D.int32
        elif isinstance(item, float):
            dt = D.float32
        else:
            dt = item
        out = dt if out is None else promote_types(out, dt)
    return out


del linspace
