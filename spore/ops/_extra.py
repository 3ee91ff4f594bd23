"""More of ``mindspore.ops``' functional surface: type predicates, number theory (gcd, lcm,
ldexp, copysign, nextafter, signbit, population_count), modified Bessel functions, window
functions, statistics (cov, quantile, nanmedian, trapz), and array helpers (vander,
combinations, diagonal_scatter, mirror_pad, channel_shuffle, renorm, ...).

Each is a thin adapter: one primitive (``spore/_prims/numbertheory.py``) or a composite of
existing primitives, so gradients and graph capture come from the primitives. Dtype rules
and defaults are MindSpore 2.10's, probed on its CPU build where it has a kernel.
"""
from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims import array as A
from .._prims import numbertheory as NT
from ._utils import as_tensor, normalize_dim, static_int, public_functions

_Tensor = P._Tensor


def _ops():
    from .. import ops
    return ops


def _tensor(name, arg, value):
    if not isinstance(value, _Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got "
                        f"{type(value).__name__}.")
    return value


def _float_tensor(name, arg, value):
    x = _tensor(name, arg, value)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For '{name}', the '{arg}' must be a floating-point tensor, but got "
                        f"{x.dtype}.")
    return x


def real_number(name, arg, value):
    """A Python float from a real number (not bool) or a one-element real tensor."""
    if isinstance(value, _Tensor) and value.size == 1 and not value.dtype.is_complex:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{name}', the '{arg}' must be a real number, but got "
                        f"{type(value).__name__}.")
    return float(value)


def int_sequence(name, arg, value, length=None):
    """A tuple of Python ints from a tuple or list of ints (``length`` of them if given)."""
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        raise TypeError(f"For '{name}', the '{arg}' must be a tuple or list of ints, but got "
                        f"{value!r}.")
    if length is not None and len(value) != length:
        raise ValueError(f"For '{name}', the '{arg}' must hold {length} ints, but got "
                         f"{len(value)}.")
    return tuple(int(v) for v in value)


def float_sequence(name, arg, value, length):
    """A tuple of ``length`` Python floats from a tuple or list of real numbers."""
    if not isinstance(value, (tuple, list)) or len(value) != length:
        raise TypeError(f"For '{name}', the '{arg}' must be a tuple or list of {length} "
                        f"numbers, but got {value!r}.")
    return tuple(real_number(name, arg, v) for v in value)


# ----------------------------------------------------------------------- predicates
def is_tensor(obj):
    """Whether ``obj`` is a Tensor (a Parameter included)."""
    return isinstance(obj, _Tensor)


def is_floating_point(input):
    """Whether ``input``'s dtype is a floating-point type (Float16/32/64, BFloat16)."""
    return bool(_tensor("is_floating_point", "input", input).dtype.is_floating_point)


def is_complex(input):
    """Whether ``input``'s dtype is Complex64 or Complex128."""
    return bool(_tensor("is_complex", "input", input).dtype.is_complex)


def is_nonzero(input):
    """Whether the single element of ``input`` is nonzero (a ValueError for other sizes)."""
    x = _tensor("is_nonzero", "input", input)
    if x.size != 1:
        raise ValueError(f"For is_nonzero, the numel of input must be 1, but got {x.size}.")
    return bool(x.asnumpy().reshape(()) != 0)


def isreal(input):
    """True where an element is real: every element of a real tensor, and the complex
    elements whose imaginary part is 0."""
    x = _tensor("isreal", "input", input)
    if x.dtype.is_complex:
        return _ops().imag(x) == 0
    return _ops().ones_like(x, dtype=D.bool_)


# ----------------------------------------------------------------------- number theory
def gcd(input, other):
    """Elementwise greatest common divisor of Int16/Int32/Int64 tensors (non-negative)."""
    return NT.gcd_p(input, other)


def lcm(input, other):
    """Elementwise least common multiple of Int16/Int32/Int64 tensors (non-negative)."""
    return NT.lcm_p(input, other)


def nextafter(input, other):
    """The next representable Float32/Float64 value after ``input`` towards ``other``."""
    return NT.nextafter_p(input, other)


def signbit(input):
    """True where the sign bit is set (negative values and -0.0)."""
    return NT.signbit_p(_tensor("signbit", "input", input))


def population_count(input_x):
    """The number of set bits of each integer element (UInt8)."""
    return NT.population_count_p(_tensor("population_count", "input_x", input_x))


def copysign(x, other):
    """``|x|`` with the sign of ``other`` (negative where ``other < 0``; MindSpore's kernel
    reads -0.0 as positive). Integer inputs give Float32; the gradient flows to ``x``."""
    ops = _ops()
    x = as_tensor(x)
    if not x.dtype.is_floating_point:
        x = x.astype(D.float32)
    negative = (as_tensor(other) if not isinstance(other, numbers.Number)
                else _Tensor(float(other), D.float32)) < 0
    magnitude = ops.abs(x)
    return ops.where(negative, -magnitude, magnitude)


def ldexp(x, other):
    """``x * 2 ** other``; integer ``x`` and Float16 give Float32 (MindSpore's CPU rule)."""
    ops = _ops()
    x = as_tensor(x)
    if x.dtype not in (D.float32, D.float64):
        x = x.astype(D.float32)
    other = as_tensor(other)
    return x * ops.pow(_Tensor(2.0, x.dtype), other.astype(x.dtype))


def sgn(input):
    """The sign of a real tensor (``ops.sign``); ``x / |x|`` (0 at 0) of a complex one."""
    ops = _ops()
    x = _tensor("sgn", "input", input)
    if not x.dtype.is_complex:
        return ops.sign(x)
    magnitude = ops.abs(x)
    safe = ops.where(magnitude == 0, ops.ones_like(magnitude), magnitude)
    return ops.where(magnitude == 0, ops.zeros_like(x), x / safe.astype(x.dtype))


def approximate_equal(x, y, tolerance=1e-05):
    """``|x - y| < tolerance`` elementwise (Bool)."""
    if not isinstance(tolerance, numbers.Real) or isinstance(tolerance, bool):
        raise TypeError(f"For 'approximate_equal', the 'tolerance' must be a float, but got "
                        f"{type(tolerance).__name__}.")
    ops = _ops()
    return ops.abs(ops.sub(x, y)) < tolerance


# ----------------------------------------------------------------------- Bessel functions
def bessel_i0(x):
    """The modified Bessel function of the first kind of order 0."""
    return NT.bessel_i0_p(_tensor("bessel_i0", "x", x))


def bessel_i0e(x):
    """The exponentially scaled ``I0(x) * exp(-|x|)``."""
    return NT.bessel_i0e_p(_tensor("bessel_i0e", "x", x))


def bessel_i1(x):
    """The modified Bessel function of the first kind of order 1."""
    return NT.bessel_i1_p(_tensor("bessel_i1", "x", x))


def bessel_i1e(x):
    """The exponentially scaled ``I1(x) * exp(-|x|)``."""
    return NT.bessel_i1e_p(_tensor("bessel_i1e", "x", x))


def i0(input):
    """``bessel_i0`` under its PyTorch name."""
    return NT.bessel_i0_p(_tensor("i0", "input", input))


# ----------------------------------------------------------------------- windows
def _window_length(name, window_length, tensor_only=False):
    if isinstance(window_length, _Tensor):
        if window_length.size != 1 or window_length.dtype.is_floating_point:
            raise TypeError(f"For '{name}', the 'window_length' must be an integer scalar "
                            f"tensor, but got {window_length.dtype} of shape "
                            f"{list(window_length.shape)}.")
        window_length = int(window_length.asnumpy().reshape(()))
    elif tensor_only:
        raise TypeError(f"For '{name}', the type of input argument[window_length] must be "
                        f"Tensor but got {type(window_length).__name__}.")
    n = static_int(name, "window_length", window_length)
    if n < 0:
        raise ValueError(f"For '{name}', the 'window_length' must be non-negative, but got {n}.")
    return n


def _window(name, values, dtype, default):
    """A window held as a constant tensor of ``dtype`` (a float dtype; ``default`` when
    None)."""
    d = default if dtype is None else D.resolve(dtype)
    if not d.is_floating_point:
        raise TypeError(f"For '{name}', 'dtype' must be floating point dtypes, but got {d}.")
    return _Tensor(np.asarray(values).astype(d.np))


def _grid(n, periodic):
    """Sample points k / (N - 1) for k < n, N = n + 1 when periodic (n >= 2)."""
    denominator = n if periodic else n - 1
    return np.arange(n, dtype=np.float64) / denominator


def _cosine_window(n, periodic, coefficients, dtype=np.float64):
    if n <= 1:
        return np.ones(n)
    t = _grid(n, periodic).astype(dtype)
    out = np.zeros(n, dtype)
    for k, a in enumerate(coefficients):
        out = out + dtype(a) * np.cos(dtype(2 * np.pi * k) * t)
    return out


def hann_window(window_length, periodic=True, *, dtype=None):
    """``0.5 - 0.5 cos(2 pi k / (N - 1))``; N = window_length + 1 when ``periodic``.
    Float64 by default (MindSpore 2.10's default for this function)."""
    n = _window_length("hann_window", window_length)
    return _window("hann_window", _cosine_window(n, periodic, (0.5, -0.5)), dtype, D.float64)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``alpha - beta cos(2 pi k / (N - 1))``, computed in Float32 (Float32 by default)."""
    n = _window_length("hamming_window", window_length)
    values = _cosine_window(n, periodic, (alpha, -beta), np.float32)
    return _window("hamming_window", values, dtype, D.float32)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))`` (Float32 by
    default); ``window_length`` is an integer Tensor, as MindSpore requires."""
    n = _window_length("blackman_window", window_length, tensor_only=True)
    values = _cosine_window(n, periodic, (0.42, -0.5, 0.08))
    return _window("blackman_window", values, dtype, D.float32)


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """The triangular window ``1 - |2k / (N - 1) - 1|`` (Float32 by default);
    ``window_length`` is an integer Tensor, as MindSpore requires."""
    n = _window_length("bartlett_window", window_length, tensor_only=True)
    values = np.ones(n) if n <= 1 else 1 - np.abs(2 * _grid(n, periodic) - 1)
    return _window("bartlett_window", values, dtype, D.float32)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``I0(beta sqrt(1 - (2k / (N - 1) - 1)^2)) / I0(beta)`` (Float64 by default)."""
    n = _window_length("kaiser_window", window_length)
    if n <= 1:
        values = np.ones(n)
    else:
        t = 2 * _grid(n, periodic) - 1
        values = np.i0(beta * np.sqrt(np.clip(1 - t * t, 0, None))) / np.i0(float(beta))
    return _window("kaiser_window", values, dtype, D.float64)


# ----------------------------------------------------------------------- statistics
def trapz(y, x=None, *, dx=1.0, dim=-1):
    """The trapezoidal rule along ``dim``: sample points ``x`` (same shape as ``y``, or
    1-D along ``dim``) or a constant spacing ``dx``. Integers give Float32."""
    ops = _ops()
    y = as_tensor(y)
    if not y.dtype.is_floating_point:
        y = y.astype(D.float32)
    d = normalize_dim("trapz", dim, y.ndim, "dim")
    n = y.shape[d]
    lo, hi = ops.narrow(y, d, 0, n - 1), ops.narrow(y, d, 1, n - 1)
    if x is None:
        return ((lo + hi) * (real_number("trapz", "dx", dx) / 2)).sum(d)
    x = as_tensor(x).astype(y.dtype)
    if x.ndim == 1:
        spacing = x[1:] - x[:-1]
        spacing = spacing.reshape((-1,) + (1,) * (y.ndim - 1 - d))
    else:
        xd = normalize_dim("trapz", dim, x.ndim, "dim")
        spacing = ops.narrow(x, xd, 1, n - 1) - ops.narrow(x, xd, 0, n - 1)
    return ((lo + hi) * spacing / 2).sum(d)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows (variables) of ``input`` over its columns (observations),
    with integer frequency weights and float observation weights (PyTorch's ``cov``)."""
    ops = _ops()
    x = as_tensor(input)
    if x.ndim > 2:
        raise ValueError(f"For 'cov', the 'input' must be 1-D or 2-D, but got {x.ndim}-D.")
    correction = static_int("cov", "correction", correction)
    if not x.dtype.is_floating_point:
        x = x.astype(D.float32)
    if x.ndim == 1:
        x = x.reshape((1, -1))
    n_obs = x.shape[1]
    w = None
    if fweights is not None:
        w = as_tensor(fweights).astype(x.dtype)
    if aweights is not None:
        a = as_tensor(aweights).astype(x.dtype)
        w = a if w is None else w * a
    if w is None:
        avg = x.mean(1, keep_dims=True)
        norm = n_obs - correction
        xm = x - avg
        c = ops.matmul(xm, xm.T) / norm
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1, keepdims=True) / w_sum
        if aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * as_tensor(aweights).astype(x.dtype)).sum() / w_sum
        xm = x - avg
        c = ops.matmul(xm * w, xm.T) / norm
    return c.reshape(()) if c.shape == (1, 1) else c


def _quantile(name, input, q, axis, keepdims, ignore_nan):
    ops = _ops()
    x = _float_tensor(name, "input", input)
    if not isinstance(q, (_Tensor, numbers.Real)) or isinstance(q, bool):
        raise TypeError(f"For '{name}', the 'q' must be a float or a Tensor, but got "
                        f"{type(q).__name__}.")
    q_is_scalar = isinstance(q, numbers.Real) or (isinstance(q, _Tensor) and q.ndim == 0)
    qs = np.asarray(q.asnumpy() if isinstance(q, _Tensor) else q, np.float64).reshape(-1)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"For '{name}', the 'q' must be in range [0, 1], but got {q}.")
    if isinstance(q, _Tensor) and q.ndim > 1:
        raise ValueError(f"For '{name}', the 'q' must be a scalar or 1-D, but got {q.ndim}-D.")
    if axis is None:
        data, ax = x.reshape(-1), 0
    else:
        ax = normalize_dim(name, axis, x.ndim)
        data = x
    data = ops.sort(data, ax)[0]          # NaN sorts last
    n = data.shape[ax]
    if ignore_nan:
        valid = (~ops.isnan(data)).astype(D.float32).sum(ax, keepdims=True)
    else:
        valid = _Tensor(np.float32(n))
    outs = []
    for qv in qs:
        pos = (valid - 1).clip(0, None) * float(qv)
        below = ops.floor(pos)
        frac = (pos - below).astype(x.dtype)
        shape = list(data.shape)
        shape[ax] = 1
        i0 = ops.broadcast_to(below.astype(D.int64).clip(0, n - 1), tuple(shape))
        i1 = ops.broadcast_to((below + 1).astype(D.int64).clip(0, n - 1), tuple(shape))
        frac = ops.broadcast_to(frac, tuple(shape))
        lo = ops.gather_elements(data, ax, i0)
        hi = ops.gather_elements(data, ax, i1)
        value = lo + (hi - lo) * frac
        if not ignore_nan:
            has_nan = ops.isnan(data).any(ax, keep_dims=True)
            value = ops.where(has_nan, ops.full_like(value, float("nan")), value)
        else:
            value = ops.where(valid == 0, ops.full_like(value, float("nan")), value)
        outs.append(value if keepdims and axis is not None else value.squeeze(ax))
    if axis is None and keepdims:
        outs = [o.reshape((1,) * x.ndim) for o in outs]
    return outs[0] if q_is_scalar else ops.stack(outs, 0)


def quantile(input, q, axis=None, keepdims=False):
    """The ``q``-th quantiles of ``input`` along ``axis`` (flattened when None), linearly
    interpolated; a NaN in a slice makes its quantile NaN. A 1-D ``q`` adds a first
    dimension of its length."""
    return _quantile("quantile", input, q, axis, keepdims, False)


def nanquantile(input, q, axis=None, keepdims=False):
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile("nanquantile", input, q, axis, keepdims, True)


def nanmedian(input, axis=-1, keepdims=False):
    """``(values, Int64 indices)``: the lower median along ``axis`` ignoring NaN."""
    ops = _ops()
    x = _float_tensor("nanmedian", "input", input)
    ax = normalize_dim("nanmedian", axis, x.ndim)
    values, order = ops.sort(x, ax)
    count = (~ops.isnan(values)).astype(D.int64).sum(ax, keepdims=True)
    pos = ((count - 1) // 2).clip(0, None)
    value = ops.gather_elements(values, ax, pos)
    index = ops.gather_elements(order.astype(D.int64), ax, pos)
    if not keepdims:
        value, index = value.squeeze(ax), index.squeeze(ax)
    return value, index


def mvlgamma(input, p):
    """The multivariate log-gamma ``sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)``; every
    element must exceed ``(p - 1) / 2`` (checked when run eagerly: a compiled graph does not
    read values on the host)."""
    ops = _ops()
    x = _float_tensor("mvlgamma", "input", input)
    p = static_int("mvlgamma", "p", p)
    if p < 1:
        raise ValueError(f"For 'mvlgamma', the 'p' must be at least 1, but got {p}.")
    if P.active_capture() is None and bool((x <= (p - 1) / 2).any().asnumpy()):
        raise ValueError("For Mvlgamma, all elements of 'x' must be greater than (p-1)/2.")
    total = sum(ops.lgamma(x - i / 2) for i in range(p))
    return total + p * (p - 1) / 4 * math.log(math.pi)


# ----------------------------------------------------------------------- array helpers
def vander(x, N=None):
    """The Vandermonde matrix of 1-D ``x``: columns ``x ** (N-1), ..., x, 1``."""
    ops = _ops()
    x = _tensor("vander", "x", x)
    if x.ndim != 1:
        raise ValueError(f"For 'vander', the 'x' must be 1-D, but got {x.ndim}-D.")
    n = x.shape[0] if N is None else static_int("vander", "N", N)
    if n < 0:
        raise ValueError(f"For 'vander', the 'N' must be non-negative, but got {n}.")
    if n == 0:
        return ops.zeros((x.shape[0], 0), x.dtype)
    powers = _Tensor(np.arange(n - 1, -1, -1))
    if x.dtype.is_floating_point:
        powers = powers.astype(x.dtype)
    return ops.pow(x.reshape((-1, 1)), powers.reshape((1, -1)))


def msort(input):
    """``input`` sorted along its first dimension (ascending)."""
    return _ops().sort(_tensor("msort", "input", input), 0)[0]


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of 1-D ``input``, one per row
    (``itertools.combinations`` order)."""
    ops = _ops()
    x = _tensor("combinations", "input", input)
    if x.ndim != 1:
        raise ValueError(f"For 'combinations', the 'input' must be 1-D, but got {x.ndim}-D.")
    r = static_int("combinations", "r", r)
    if r < 0:
        raise ValueError(f"For 'combinations', the 'r' must be non-negative, but got {r}.")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    if index.size == 0:
        return ops.zeros((0,) if r == 0 or index.shape[0] == 0 else (0, r), x.dtype)
    return ops.gather(x, _Tensor(index), 0)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` whose diagonal (``offset``, between ``dim1`` and ``dim2``) holds
    ``src``, shaped like ``ops.diagonal(input, offset, dim1, dim2)``. Differentiable in both."""
    ops = _ops()
    x = _tensor("diagonal_scatter", "input", input)
    src = _tensor("diagonal_scatter", "src", src)
    d1 = normalize_dim("diagonal_scatter", dim1, x.ndim, "dim1")
    d2 = normalize_dim("diagonal_scatter", dim2, x.ndim, "dim2")
    if d1 == d2:
        raise ValueError("For 'diagonal_scatter', 'dim1' and 'dim2' must differ.")
    offset = static_int("diagonal_scatter", "offset", offset)
    want = tuple(ops.diagonal(x, offset, d1, d2).shape)
    if tuple(src.shape) != want:
        raise ValueError(f"For 'diagonal_scatter', the 'src' must have the shape of the "
                         f"diagonal, {list(want)}, but got {list(src.shape)}.")
    rows, cols = x.shape[d1], x.shape[d2]
    length = want[-1]
    r = np.arange(length) + max(-offset, 0)
    c = np.arange(length) + max(offset, 0)
    row_sel = np.zeros((rows, length), np.float64)
    row_sel[r, np.arange(length)] = 1
    col_sel = np.zeros((length, cols), np.float64)
    col_sel[np.arange(length), c] = 1
    mask = np.zeros((rows, cols), bool)
    mask[r, c] = True
    dtype = x.dtype if x.dtype.is_floating_point else D.float32
    # rows and columns of the diagonal as one-hot matrices: placed[..., i, j] = src[..., k]
    # where (i, j) is the k-th diagonal position
    moved = src.astype(dtype).expand_dims(-2) * _Tensor(row_sel, dtype)
    placed = ops.matmul(moved, _Tensor(col_sel, dtype)).astype(x.dtype)
    rest = [k for k in range(x.ndim) if k not in (d1, d2)]
    perm = rest + [d1, d2]
    back = list(np.argsort(perm))
    placed = placed.transpose(back)
    full_mask = _Tensor(mask).reshape([rows if k == d1 else cols if k == d2 else 1
                                       for k in range(x.ndim)]) if d1 < d2 else \
        _Tensor(mask.T).reshape([cols if k == d2 else rows if k == d1 else 1
                                 for k in range(x.ndim)])
    return ops.where(full_mask, placed, x)


def mirror_pad(input_x, paddings, mode):
    """Pad with mirrored values: ``paddings`` (a (rank, 2) Int Tensor, first dimension
    first); ``mode`` 'REFLECT' (edge not repeated; each pad < the dimension) or
    'SYMMETRIC' (edge repeated; each pad <= the dimension)."""
    x = _tensor("mirror_pad", "input_x", input_x)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'MirrorPad', the 'mode' must be 'REFLECT' or 'SYMMETRIC', but "
                         f"got {mode!r}.")
    pads = np.asarray(paddings.asnumpy() if isinstance(paddings, _Tensor) else paddings)
    if pads.shape != (x.ndim, 2) or pads.dtype.kind not in "iu":
        raise ValueError(f"For 'MirrorPad', the 'paddings' must be an integer tensor of shape "
                         f"({x.ndim}, 2), but got {pads.dtype} of shape {pads.shape}.")
    for size, (before, after) in zip(x.shape, pads.tolist()):
        limit = size - 1 if mode == "REFLECT" else size
        if min(before, after) < 0 or max(before, after) > limit:
            raise ValueError(f"For 'MirrorPad', paddings must be no greater than the dimension "
                             f"size ({size}{' - 1' if mode == 'REFLECT' else ''}), but got "
                             f"[{before}, {after}].")
    pairs = tuple((int(b), int(a)) for b, a in pads.tolist())
    return A.pad_p(x, pads=pairs, mode=mode.lower(), value=0)


def channel_shuffle(x, groups):
    """Shuffle the channels (dimension 1) of an (N, C, ...) tensor of rank >= 4 in
    ``groups`` groups: (N, g, C/g, ...) transposed to (N, C/g, g, ...)."""
    x = _tensor("channel_shuffle", "x", x)
    groups = static_int("channel_shuffle", "groups", groups)
    if x.ndim < 4:
        raise TypeError(f"For ChannelShuffle, expect input with > 3 dims, but got {x.ndim}.")
    c = x.shape[1]
    if groups < 1 or c % groups:
        raise ValueError(f"For 'channel_shuffle', the number of channels ({c}) must be "
                         f"divisible by 'groups' ({groups}).")
    rest = tuple(x.shape[2:])
    y = x.reshape((x.shape[0], groups, c // groups) + rest)
    y = y.swapaxes(1, 2)
    return y.reshape(x.shape)


def renorm(input, p, axis, maxnorm):
    """Each slice along ``axis`` whose ``p``-norm exceeds ``maxnorm`` scaled to norm
    ``maxnorm`` (PyTorch's ``renorm``)."""
    ops = _ops()
    x = _float_tensor("renorm", "input", input)
    if not isinstance(p, numbers.Real) or p <= 0:
        raise ValueError(f"For 'renorm', the 'p' must be a positive number, but got {p}.")
    ax = normalize_dim("renorm", axis, x.ndim)
    others = tuple(k for k in range(x.ndim) if k != ax)
    norms = (ops.abs(x) ** p).sum(others, keepdims=True) ** (1.0 / p) if others else ops.abs(x)
    scale = ops.where(norms > maxnorm, float(maxnorm) / (norms + 1e-7), ops.ones_like(norms))
    return x * scale


def adjoint(x):
    """The conjugate transpose of the last two dimensions."""
    ops = _ops()
    x = _tensor("adjoint", "x", x)
    t = x.swapaxes(-1, -2)
    return ops.conj(t) if x.dtype.is_complex else t


def fills(x, value):
    """A tensor shaped like ``x`` filled with ``value`` (a number or 0-d tensor)."""
    x = _tensor("fills", "x", x)
    if isinstance(value, _Tensor):
        value = value.item()
    return _ops().full_like(x, value)


def type_as(input, other):
    """``input`` cast to ``other``'s dtype."""
    return _tensor("type_as", "input", input).astype(_tensor("type_as", "other", other).dtype)


def soft_shrink(input, lambd=0.5):
    """``ops.softshrink`` under its older name."""
    return _ops().softshrink(_float_tensor("soft_shrink", "input", input), lambd)


def pows(input, exponent):
    """``ops.pow``."""
    return _ops().pow(input, exponent)


def float_power_ext(input, exponent):
    """``ops.float_power``: computed in Float64 (Complex128 for complex inputs)."""
    return _ops().float_power(input, exponent)


def bias_add(input_x, bias):
    """``input_x + bias`` along the channel dimension (1) of a rank 2-5 tensor; both must
    have one dtype."""
    x = _tensor("bias_add", "input_x", input_x)
    b = _tensor("bias_add", "bias", bias)
    if not 2 <= x.ndim <= 5:
        raise ValueError(f"For primitive[BiasAdd], the rank of input_x must be in [2,5], but "
                         f"got {x.ndim}.")
    if x.dtype != b.dtype:
        raise TypeError(f"For primitive[BiasAdd], the input type must be same, but got "
                        f"{x.dtype} and {b.dtype}.")
    if b.ndim != 1 or b.shape[0] != x.shape[1]:
        raise ValueError(f"For 'bias_add', the 'bias' must be 1-D of length {x.shape[1]} (the "
                         f"channels), but got shape {list(b.shape)}.")
    return x + b.reshape((1, -1) + (1,) * (x.ndim - 2))


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """The tensors of ``x`` scaled by ``clip_norm / max(global_norm, clip_norm)``, where the
    global norm is the 2-norm of all their elements (``use_norm`` replaces it)."""
    ops = _ops()
    if not isinstance(x, (tuple, list)) or not x or not all(isinstance(t, _Tensor) for t in x):
        raise TypeError("For 'clip_by_global_norm', the 'x' must be a non-empty tuple or list "
                        "of Tensors.")
    if use_norm is None:
        total = sum((ops.square(t.astype(D.float32)).sum() for t in x), _Tensor(0.0))
        use_norm = ops.sqrt(total)
    scale = float(clip_norm) / ops.maximum(use_norm, float(clip_norm))
    return tuple((t * scale).astype(t.dtype) for t in x)


def swiglu(input, dim=-1):
    """``silu(a) * b`` where ``a``, ``b`` are the two halves of ``input`` along ``dim``."""
    ops = _ops()
    x = _float_tensor("swiglu", "input", input)
    d = normalize_dim("swiglu", dim, x.ndim, "dim")
    if x.shape[d] % 2:
        raise ValueError(f"For 'swiglu', the dimension {dim} ({x.shape[d]}) must be even.")
    a, b = ops.chunk(x, 2, d)
    return ops.silu(a) * b


def rms_norm(x, gamma, epsilon=1e-6):
    """``(x / sqrt(mean(x^2) + epsilon) * gamma, rstd)``: the mean over the last
    ``gamma.ndim`` dimensions; ``rstd`` (Float32; Float64 for Float64 input) keeps them
    as size 1."""
    ops = _ops()
    x = _float_tensor("rms_norm", "x", x)
    gamma = _float_tensor("rms_norm", "gamma", gamma)
    if x.dtype != gamma.dtype:
        raise TypeError(f"For 'rms_norm', 'x' and 'gamma' must have one dtype, but got "
                        f"{x.dtype} and {gamma.dtype}.")
    if not isinstance(epsilon, float) or not 0 < epsilon <= 1:
        raise ValueError(f"For 'rms_norm', the 'epsilon' must be a float in (0, 1], but got "
                         f"{epsilon}.")
    if gamma.ndim > x.ndim:
        raise ValueError("For 'rms_norm', the rank of 'gamma' must not exceed the rank of 'x'.")
    axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
    xf = x.astype(D.float32) if x.dtype != D.float64 else x
    rstd = ops.rsqrt(ops.square(xf).mean(axes, keep_dims=True) + epsilon)
    y = (xf * rstd).astype(x.dtype) * gamma
    return y, rstd


def bincount(input, weights=None, minlength=0):
    """How many times each non-negative integer occurs in 1-D ``input`` (the sums of
    ``weights`` at them): length ``max(input) + 1`` or ``minlength``; Float32. The output
    length depends on the values, so under ``jit`` it runs eagerly."""
    x = _tensor("bincount", "input", input)
    if x.ndim != 1 or x.dtype.is_floating_point or x.dtype == D.bool_:
        raise TypeError(f"For 'bincount', the 'input' must be a 1-D integer tensor, but got "
                        f"{x.dtype} of shape {list(x.shape)}.")
    minlength = static_int("bincount", "minlength", minlength)
    if minlength < 0:
        raise ValueError(f"For 'bincount', the 'minlength' must be non-negative, but got "
                         f"{minlength}.")
    values = x.asnumpy()
    if values.size and values.min() < 0:
        raise ValueError("For 'bincount', the elements of 'input' must be non-negative.")
    w = None
    if weights is not None:
        w = _tensor("bincount", "weights", weights).asnumpy().astype(np.float64)
        if w.shape != values.shape:
            raise ValueError(f"For 'bincount', the 'weights' must have the shape of 'input', "
                             f"{list(values.shape)}, but got {list(w.shape)}.")
    return _Tensor(np.bincount(values, w, minlength).astype(np.float32))


__all__ = [n for n in public_functions(globals(), __name__)
           if n not in ("real_number", "int_sequence", "float_sequence")]
