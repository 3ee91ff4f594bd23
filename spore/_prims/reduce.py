"""Reduction and scan primitives, each with its gradient rule beside it.

``axis`` is a normalised, sorted tuple of non-negative ints, or None for "all".
Half-precision inputs accumulate in float32 and round once at the end (NumPy
would accumulate sums and products in the half type itself).
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core import threads as _threads
from .._core.aval import ShapedArray
from ._base import dtype_name, grad_for, np_dtype

Primitive = P.Primitive
_BOOL = np.dtype(np.bool_)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)
_HALF = frozenset((np.dtype(np.float16), D.bfloat16.np))


# ----------------------------------------------------------------- axis helpers
def normalize_axis(name, axis, ndim):
    """``None`` | int | sequence -> sorted tuple of non-negative axes, or None (all axes).

    An empty sequence means "all axes" (MindSpore's ``axis=()``); so does any axis
    of a 0-d tensor.
    """
    if axis is None:
        return None
    axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
    if not axes:
        return None
    bound = max(ndim, 1)
    out = []
    for a in axes:
        a = _static_axis(name, a)
        if not -bound <= a < bound:
            raise ValueError(f"For '{name}', the 'axis' must be in range [{-bound}, {bound}), "
                             f"but got {a}.")
        out.append(a % bound)
    if len(set(out)) != len(out):
        raise ValueError(f"For '{name}', the 'axis' contains duplicate values: {axis}.")
    return None if ndim == 0 else tuple(sorted(out))


def _static_axis(name, a):
    if isinstance(a, P._Tensor):
        a = a.item()
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
        raise TypeError(f"For '{name}', the 'axis' must be an int or a tuple of ints, but got "
                        f"{type(a).__name__}.")
    return int(a)


def reduced_shape(shape, axis, keepdims):
    if axis is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axis else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axis)


def reduced_count(shape, axis):
    """Number of elements that each output element of a reduction combines."""
    n = 1
    for i, s in enumerate(shape):
        if axis is None or i in axis:
            n *= s
    return n


def _check_axes(name, axis, ndim):
    for a in axis or ():
        if not 0 <= a < max(ndim, 1):
            raise ValueError(f"For '{name}', the 'axis' {a} is out of range for a {ndim}-D "
                             "input.")


def _float_reduce(xp, f, x, axis, keepdims):
    """``f(x, axis=axis, keepdims=keepdims)`` for a float ``x``: half precision accumulates
    in float32; large NumPy arrays reduce in chunks on the thread pool when some axis
    is kept (NOTE: [Chunked reductions] in spore/_core/threads.py: the same bits)."""
    if x.dtype in _HALF:
        return _accumulate_in_float32(xp, x, lambda v: f(v, axis=axis, keepdims=keepdims))
    if xp is np and type(axis) is tuple and len(axis) < x.ndim \
            and x.size >= _threads.MIN_CHEAP and x.dtype.kind == "f":
        return _threads.reduction(f, x, axis, keepdims)
    return f(x, axis=axis, keepdims=keepdims)


def _accumulate_in_float32(xp, x, fn):
    """Run ``fn`` on half-precision ``x`` in float32 and round the result back."""
    if x.dtype in _HALF:
        return xp.asarray(fn(x.astype(np.float32))).astype(x.dtype)
    return fn(x)


# ----------------------------------------------------------------- reductions
def _reduce_infer(name, out_dtype):
    def infer(attrs, x):
        d = np.dtype(x.dtype)
        _check_axes(name, attrs.get("axis"), len(x.shape))
        shape = reduced_shape(tuple(x.shape), attrs.get("axis"), attrs.get("keepdims", False))
        return ShapedArray(shape, out_dtype(name, d, attrs))
    return infer


def _ints_to_int64(name, d, attrs):
    if attrs.get("dtype") is not None:
        return np.dtype(attrs["dtype"])
    return _INT64 if d.kind in "biu" else d


def _same(name, d, attrs):
    return d


def _no_bool(name, d, attrs):
    if d == _BOOL:
        raise TypeError(f"For '{name}', the input must be a numeric tensor, but got Bool.")
    return d


def _to_bool(name, d, attrs):
    return _BOOL


def _reduce(name, make, out_dtype=_same, nondiff=False):
    return Primitive(name, make, kind="reduce", n_inputs=1, nondiff=nondiff,
                     infer=_reduce_infer(name, out_dtype))


def _make_sum(xp):
    def sum_(x, axis=None, keepdims=False, dtype=None):
        if dtype is None and x.dtype.kind in "biu":
            dtype = _INT64
        if dtype is not None:
            return xp.sum(x, axis=axis, keepdims=keepdims, dtype=dtype)
        return _float_reduce(xp, xp.sum, x, axis, keepdims)
    return sum_


def _make_mean(xp):
    def mean(x, axis=None, keepdims=False):
        _no_bool("ReduceMean", x.dtype, {})
        if x.dtype.kind in "iu":
            # MindSpore keeps the integer dtype and truncates the quotient towards zero
            s = xp.sum(x, axis=axis, keepdims=keepdims, dtype=_INT64)
            n = max(reduced_count(x.shape, axis), 1)
            q = xp.abs(s) // n
            return xp.asarray(xp.where(s < 0, -q, q)).astype(x.dtype)
        return _float_reduce(xp, xp.mean, x, axis, keepdims)
    return mean


def _make_prod(xp):
    def prod(x, axis=None, keepdims=False):
        if x.dtype.kind in "biu":
            return xp.prod(x, axis=axis, keepdims=keepdims, dtype=_INT64)
        return _float_reduce(xp, xp.prod, x, axis, keepdims)
    return prod


def _make_amax(xp):
    def amax(x, axis=None, keepdims=False):
        if x.dtype.kind == "f" and x.dtype not in _HALF:
            return _float_reduce(xp, xp.max, x, axis, keepdims)
        return xp.max(x, axis=axis, keepdims=keepdims)
    return amax


def _make_amin(xp):
    def amin(x, axis=None, keepdims=False):
        if x.dtype.kind == "f" and x.dtype not in _HALF:
            return _float_reduce(xp, xp.min, x, axis, keepdims)
        return xp.min(x, axis=axis, keepdims=keepdims)
    return amin


def _make_all(xp):
    return lambda x, axis=None, keepdims=False: xp.all(x, axis=axis, keepdims=keepdims)


def _make_any(xp):
    return lambda x, axis=None, keepdims=False: xp.any(x, axis=axis, keepdims=keepdims)


sum_p = _reduce("ReduceSum", _make_sum, _ints_to_int64)


def _specialize_sum(attrs, avals):
    """Compiled code calls ``np.add.reduce`` itself for float32/64 sums without a dtype:
    what ``np.sum`` runs after three Python layers (same bits)."""
    (x,) = avals
    if attrs.get("dtype") is not None or getattr(x, "dtype", None) not in (np.float32,
                                                                            np.float64):
        return None
    return functools.partial(np.add.reduce, axis=attrs.get("axis"),
                             keepdims=bool(attrs.get("keepdims", False)))


sum_p.specializer = _specialize_sum
mean_p = _reduce("ReduceMean", _make_mean, _no_bool)
prod_p = _reduce("ReduceProd", _make_prod, _ints_to_int64)
amax_p = _reduce("ReduceMax", _make_amax)
amin_p = _reduce("ReduceMin", _make_amin)
all_p = _reduce("ReduceAll", _make_all, _to_bool, nondiff=True)
any_p = _reduce("ReduceAny", _make_any, _to_bool, nondiff=True)


def expand_to_input(g, x, axis, keepdims):
    """Broadcast a reduced cotangent back to the shape of ``x``."""
    from .array import broadcast_to_p, reshape_p
    shape = tuple(x.shape)
    if not keepdims:
        g = reshape_p(g, shape=reduced_shape(shape, axis, True))
    return broadcast_to_p(g, shape=shape)


@sum_p.def_grad()
def _sum_grad(attrs, inputs, out, dout):
    (x,) = inputs
    g = expand_to_input(dout, x, attrs.get("axis"), attrs.get("keepdims", False))
    return (grad_for(x, g),)


@mean_p.def_grad()
def _mean_grad(attrs, inputs, out, dout):
    from .math import div_p
    (x,) = inputs
    axis = attrs.get("axis")
    n = max(reduced_count(tuple(x.shape), axis), 1)
    g = expand_to_input(div_p(dout, n), x, axis, attrs.get("keepdims", False))
    return (grad_for(x, g),)


def _extremum_grad(attrs, inputs, out, dout):
    """Spread the cotangent evenly over the positions that attain the extremum."""
    from .math import equal_p, mul_p, div_p
    from .array import cast_p
    (x,) = inputs
    axis, keepdims = attrs.get("axis"), attrs.get("keepdims", False)
    out_b = expand_to_input(out, x, axis, keepdims)
    mask = cast_p(equal_p(x, out_b), dtype=np_dtype(x))
    count = sum_p(mask, axis=axis, keepdims=True)
    g = expand_to_input(dout, x, axis, keepdims)
    return (grad_for(x, div_p(mul_p(g, mask), count)),)


amax_p.def_grad(inputs=(0,), output=True)(_extremum_grad)
amin_p.def_grad(inputs=(0,), output=True)(_extremum_grad)


@prod_p.def_grad(inputs=(0,))
def _prod_grad(attrs, inputs, out, dout):
    """Product of all *other* elements, zero-safe: exclusive products from both sides."""
    from .array import transpose_p, reshape_p
    from .math import mul_p
    (x,) = inputs
    shape = tuple(x.shape)
    axis = attrs.get("axis")
    axes = tuple(range(len(shape))) if axis is None else axis
    keep = tuple(i for i in range(len(shape)) if i not in axes)
    perm = keep + axes
    xt = transpose_p(x, perm=perm)
    kept_shape = tuple(shape[i] for i in keep)
    flat = reshape_p(xt, shape=kept_shape + (reduced_count(shape, axes),))
    last = len(kept_shape)
    left = cumprod_p(flat, axis=last, exclusive=True, reverse=False)
    right = cumprod_p(flat, axis=last, exclusive=True, reverse=True)
    g = reshape_p(dout, shape=kept_shape + (1,))
    gt = reshape_p(mul_p(mul_p(left, right), g), shape=tuple(xt.shape))
    gx = transpose_p(gt, perm=tuple(int(i) for i in np.argsort(perm)))
    return (grad_for(x, gx),)


# ----------------------------------------------------------------- arg reductions
def _make_arg(fname):
    def make(xp):
        f = getattr(xp, fname)

        def arg(x, axis=None, keepdims=False, dtype=_INT64):
            if axis is None:
                # MindSpore: a flat index, and keepdims has no effect without an axis
                return xp.asarray(f(x)).astype(dtype)
            return f(x, axis=axis, keepdims=keepdims).astype(dtype)
        return arg
    return make


def _arg_infer(name):
    def infer(attrs, x):
        if np.dtype(x.dtype).kind == "c":
            raise TypeError(f"For '{name}', complex inputs are not supported.")
        axis = attrs.get("axis")
        if axis is None:
            shape = ()
        else:
            _check_axes(name, (axis,), len(x.shape))
            shape = reduced_shape(tuple(x.shape), (axis,), attrs.get("keepdims", False))
        return ShapedArray(shape, attrs.get("dtype", _INT64))
    return infer


argmax_p = Primitive("Argmax", _make_arg("argmax"), kind="reduce", n_inputs=1, nondiff=True,
                     infer=_arg_infer("Argmax"))
argmin_p = Primitive("Argmin", _make_arg("argmin"), kind="reduce", n_inputs=1, nondiff=True,
                     infer=_arg_infer("Argmin"))


# ----------------------------------------------------------------- scans
def _scan_infer(name):
    def infer(attrs, x):
        d = np.dtype(x.dtype)
        if d == _BOOL:
            raise TypeError(f"For '{name}', the input must be a numeric tensor, but got Bool.")
        _check_axes(name, (attrs.get("axis", 0),), len(x.shape))
        return ShapedArray(tuple(x.shape), d)
    return infer


def _scan(xp, x, axis, exclusive, reverse, accumulate, identity):
    """Inclusive/exclusive, forward/reverse scan of ``accumulate`` along ``axis``."""
    if x.ndim == 0:
        return xp.full_like(x, identity) if exclusive else x.copy()
    if reverse:
        x = xp.flip(x, axis)
    r = accumulate(x, axis)
    if exclusive:
        r = xp.roll(r, 1, axis)
        first = [slice(None)] * x.ndim
        first[axis] = 0
        r[tuple(first)] = identity
    if reverse:
        r = xp.flip(r, axis)
    return xp.ascontiguousarray(r)


def _make_cumsum(xp):
    def cumsum(x, axis=0, exclusive=False, reverse=False):
        _scan_infer("CumSum")({"axis": axis}, x)
        return _accumulate_in_float32(xp, x, lambda v: _scan(
            xp, v, axis, exclusive, reverse, lambda a, ax: xp.cumsum(a, axis=ax, dtype=a.dtype),
            0))
    return cumsum


def _make_cumprod(xp):
    def cumprod(x, axis=0, exclusive=False, reverse=False):
        _scan_infer("CumProd")({"axis": axis}, x)
        return _accumulate_in_float32(xp, x, lambda v: _scan(
            xp, v, axis, exclusive, reverse, lambda a, ax: xp.cumprod(a, axis=ax, dtype=a.dtype),
            1))
    return cumprod


cumsum_p = Primitive("CumSum", _make_cumsum, kind="opaque", n_inputs=1,
                     infer=_scan_infer("CumSum"))
cumprod_p = Primitive("CumProd", _make_cumprod, kind="opaque", n_inputs=1,
                      infer=_scan_infer("CumProd"))


def _scan_attrs(attrs):
    return attrs.get("axis", 0), attrs.get("exclusive", False), attrs.get("reverse", False)


@cumsum_p.def_grad()
def _cumsum_grad(attrs, inputs, out, dout):
    (x,) = inputs
    axis, exclusive, reverse = _scan_attrs(attrs)
    return (grad_for(x, cumsum_p(dout, axis=axis, exclusive=exclusive, reverse=not reverse)),)


@cumprod_p.def_grad(inputs=(0,), output=True)
def _cumprod_grad(attrs, inputs, out, dout):
    """O(n) and exact with zeros.

    d out_j / d x_i is the product of the scanned window of ``j`` without ``x_i``.
    Before the first zero ``x_z`` of the scan that is ``out_j / x_i``. At ``z`` it is
    the scan ``out'`` of ``x`` with ``x_z`` replaced by one. Between ``z`` and the next
    zero it is ``x_z * out'_j / x_i``: zero, but written so that its derivative (the
    second-order gradient) stays right when ``x`` has a single zero.
    """
    from .array import cast_p
    from .math import add_p, div_p, equal_p, logical_and_p, logical_not_p, mul_p, where_p
    (x,) = inputs
    axis, exclusive, reverse = _scan_attrs(attrs)

    def back_sum(t):       # sum over the outputs j whose window contains i
        return cumsum_p(t, axis=axis, exclusive=exclusive, reverse=not reverse)

    is_zero = equal_p(x, 0)
    zeros_so_far = cumsum_p(cast_p(is_zero, dtype=_INT32), axis=axis, reverse=reverse)
    before = equal_p(zeros_so_far, 0)
    first = logical_and_p(is_zero, equal_p(zeros_so_far, 1))
    after = logical_and_p(logical_not_p(is_zero), equal_p(zeros_so_far, 1))
    nonzero = logical_not_p(is_zero)
    safe_x = where_p(nonzero, x, 1)
    part_before = where_p(before, div_p(back_sum(mul_p(dout, out)), safe_x), 0)
    without_first = cumprod_p(where_p(first, 1, x), axis=axis, exclusive=exclusive,
                              reverse=reverse)
    skip_first = back_sum(mul_p(dout, without_first))
    part_first = where_p(first, skip_first, 0)
    x_first = sum_p(where_p(first, x, 0), axis=(axis,), keepdims=True) if x.shape else x
    part_after = where_p(after, div_p(mul_p(skip_first, x_first), safe_x), 0)
    return (grad_for(x, add_p(add_p(part_before, part_first), part_after)),)


# ----------------------------------------------------------------- cumulative extrema
def _make_cum_extremum(name, fname):
    def make(xp):
        acc = getattr(xp, fname).accumulate

        def cum_extremum(x, axis, index_dtype):
            _cum_extremum_infer(name)({"axis": axis, "index_dtype": index_dtype}, x)
            if x.ndim == 0:
                return x.copy(), xp.zeros((), index_dtype)
            values = acc(x, axis=axis)
            shape = [1] * x.ndim
            shape[axis] = x.shape[axis]
            positions = xp.arange(x.shape[axis]).reshape(shape)
            # where x attains the running extremum, its position becomes the index; ties
            # take the later position (MindSpore's choice)
            hit = xp.where(x == values, positions, 0)
            return values, xp.maximum.accumulate(hit, axis=axis).astype(index_dtype)
        return cum_extremum
    return make


def _cum_extremum_infer(name):
    def infer(attrs, x):
        d = np.dtype(x.dtype)
        if d == _BOOL or d.kind == "c":
            raise TypeError(f"For '{name}', the input must be a real numeric tensor, but got "
                            f"{dtype_name(d)}.")
        _check_axes(name, (attrs["axis"],), len(x.shape))
        return (ShapedArray(tuple(x.shape), d), ShapedArray(tuple(x.shape), attrs["index_dtype"]))
    return infer


cummax_p = Primitive("Cummax", _make_cum_extremum("Cummax", "maximum"), kind="opaque", n_inputs=1,
                     multiple_results=True, infer=_cum_extremum_infer("Cummax"))
cummin_p = Primitive("Cummin", _make_cum_extremum("Cummin", "minimum"), kind="opaque", n_inputs=1,
                     multiple_results=True, infer=_cum_extremum_infer("Cummin"))


def _scatter_values_grad(attrs, inputs, out, douts):
    """The cotangent of each output value goes to the input position it was taken from."""
    from .array import scatter_elements_p, zeros_of
    (x,) = inputs
    dvalues = douts[0]
    if dvalues is None:
        return (None,)
    index = out[1]
    if tuple(index.shape) != tuple(dvalues.shape):      # a reduced axis: keep it as size 1
        from .array import reshape_p
        index = reshape_p(index, shape=tuple(dvalues.shape))
    gx = scatter_elements_p(zeros_of(x), index, dvalues, axis=attrs["axis"], reduction="add")
    return (grad_for(x, gx),)


cummax_p.def_grad(inputs=(), output=True)(_scatter_values_grad)
cummin_p.def_grad(inputs=(), output=True)(_scatter_values_grad)


# ----------------------------------------------------------------- median
def _make_median(xp):
    def median(x, axis, keepdims):
        _median_infer({"axis": axis, "keepdims": keepdims}, x)
        if x.ndim == 0:
            return x.copy(), xp.zeros((), _INT64)
        k = (x.shape[axis] - 1) // 2           # the lower median, as MindSpore
        order = xp.argsort(x, axis=axis, kind="stable")
        index = xp.take(order, [k], axis=axis)
        if x.dtype.kind == "f" or x.dtype == D.bfloat16.np:
            index = _first_nan_wins(xp, x, axis, index)
        values = xp.take_along_axis(x, index, axis=axis)
        if not keepdims:
            index, values = xp.squeeze(index, axis), xp.squeeze(values, axis)
        return values, index.astype(_INT64)
    return median


def _first_nan_wins(xp, x, axis, index):
    """A slice holding NaN has median NaN at its first NaN, as MindSpore (argsort alone
    would sort NaN last and return the median of the other values)."""
    nan = xp.isnan(x)
    if not nan.any():
        return index
    first = xp.argmax(nan, axis=axis, keepdims=True)
    return xp.where(nan.any(axis=axis, keepdims=True), first, index)


def _median_infer(attrs, x):
    d = np.dtype(x.dtype)
    if d == _BOOL or d.kind == "c":
        raise TypeError(f"For 'Median', the input must be a real numeric tensor, but got "
                        f"{dtype_name(d)}.")
    axis = attrs["axis"]
    if len(x.shape) == 0:
        return ShapedArray((), d), ShapedArray((), _INT64)
    _check_axes("Median", (axis,), len(x.shape))
    shape = reduced_shape(tuple(x.shape), (axis,), attrs["keepdims"])
    return ShapedArray(shape, d), ShapedArray(shape, _INT64)


median_p = Primitive("Median", _make_median, kind="reduce", n_inputs=1, multiple_results=True,
                     infer=_median_infer)


@median_p.def_grad(inputs=(), output=True)
def _median_grad(attrs, inputs, out, douts):
    (x,) = inputs
    if len(x.shape) == 0:
        return (grad_for(x, douts[0]) if douts[0] is not None else None,)
    if not attrs["keepdims"]:
        from .array import reshape_p
        kept = reduced_shape(tuple(x.shape), (attrs["axis"],), True)
        douts = tuple(None if d is None else reshape_p(d, shape=kept) for d in douts)
        out = tuple(reshape_p(o, shape=kept) for o in out)
    return _scatter_values_grad(attrs, inputs, out, douts)


# ----------------------------------------------------------------- log-cum-sum-exp
def _make_logcumsumexp(xp):
    def logcumsumexp(x, axis=0, reverse=False):
        _logcumsumexp_infer({"axis": axis}, x)
        return _accumulate_in_float32(xp, x, lambda v: _scan(
            xp, v, axis, False, reverse, lambda a, ax: xp.logaddexp.accumulate(a, axis=ax),
            -np.inf))
    return logcumsumexp


def _logcumsumexp_infer(attrs, x):
    d = np.dtype(x.dtype)
    if not (d.kind in "f" or d == D.bfloat16.np):
        raise TypeError(f"For 'LogCumSumExp', the input must be a floating-point tensor, but "
                        f"got {dtype_name(d)}.")
    _check_axes("LogCumSumExp", (attrs.get("axis", 0),), len(x.shape))
    return ShapedArray(tuple(x.shape), d)


logcumsumexp_p = Primitive("LogCumSumExp", _make_logcumsumexp, kind="opaque", n_inputs=1,
                           infer=_logcumsumexp_infer)


@logcumsumexp_p.def_grad(inputs=(0,), output=True)
def _logcumsumexp_grad(attrs, inputs, out, dout):
    """dx_i = sum_{j >= i} g_j exp(x_i - out_j), evaluated in log space for the positive
    and negative parts of g separately so nothing overflows."""
    from .math import exp_p, log_p, maximum_p, minimum_p, neg_p, sub_p, add_p
    (x,) = inputs
    axis, reverse = attrs.get("axis", 0), attrs.get("reverse", False)

    def part(g):          # g >= 0
        log_terms = sub_p(log_p(g), out)
        return exp_p(add_p(x, logcumsumexp_p(log_terms, axis=axis, reverse=not reverse)))

    positive = part(maximum_p(dout, 0))
    negative = part(neg_p(minimum_p(dout, 0)))
    return (grad_for(x, sub_p(positive, negative)),)
