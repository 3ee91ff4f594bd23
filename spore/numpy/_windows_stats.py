"""``mindspore.numpy``'s window functions (hamming, hanning, bartlett, blackman: symmetric,
Float32), gcd/lcm, cov/corrcoef and meshgrid: thin wrappers over ``spore.ops``."""
from __future__ import annotations

from .. import _dtype as D
from .. import ops
from ._math import _operand

__all__ = ["hamming", "hanning", "bartlett", "blackman", "gcd", "lcm", "cov", "corrcoef",
           "meshgrid"]


def _length(name, M):
    if isinstance(M, bool) or not isinstance(M, int):
        raise TypeError(f"For '{name}', the 'M' must be an int, but got {type(M).__name__}.")
    return max(M, 0)


def hamming(M):
    """The symmetric Hamming window of ``M`` points (Float32)."""
    return ops.hamming_window(_length("hamming", M), False, dtype=D.float32)


def hanning(M):
    """The symmetric Hann window of ``M`` points (Float32)."""
    return ops.hann_window(_length("hanning", M), False, dtype=D.float32)


def bartlett(M):
    """The symmetric triangular window of ``M`` points (Float32)."""
    return ops.bartlett_window(_int_tensor(_length("bartlett", M)), False, dtype=D.float32)


def blackman(M):
    """The symmetric Blackman window of ``M`` points (Float32)."""
    return ops.blackman_window(_int_tensor(_length("blackman", M)), False, dtype=D.float32)


def _int_tensor(n):
    from .._tensor import Tensor
    return Tensor(n, D.int32)


def _with_dtype(result, dtype):
    return result if dtype is None else result.astype(dtype)


def gcd(x1, x2, dtype=None):
    """Elementwise greatest common divisor (Python ints are Int32)."""
    return _with_dtype(ops.gcd(_operand(x1), _operand(x2)), dtype)


def lcm(x1, x2, dtype=None):
    """Elementwise least common multiple (Python ints are Int32)."""
    return _with_dtype(ops.lcm(_operand(x1), _operand(x2)), dtype)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """NumPy's ``cov``: the covariance of the variables (rows when ``rowvar``) of ``m``
    (and ``y``); ``ddof`` overrides ``bias``."""
    x = _operand(m)
    if x.ndim == 1:
        x = x.reshape((1, -1))
    elif not rowvar:
        x = x.swapaxes(0, 1)
    if y is not None:
        other = _operand(y)
        if other.ndim == 1:
            other = other.reshape((1, -1))
        elif not rowvar:
            other = other.swapaxes(0, 1)
        x = ops.concat((x.astype(D.float32) if not x.dtype.is_floating_point else x,
                        other.astype(x.dtype) if x.dtype.is_floating_point else
                        other.astype(D.float32)), 0)
    correction = ddof if ddof is not None else (0 if bias else 1)
    out = ops.cov(x, correction=correction,
                  fweights=None if fweights is None else _operand(fweights),
                  aweights=None if aweights is None else _operand(aweights))
    return _with_dtype(out, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """Pearson correlation coefficients: ``cov`` scaled by the standard deviations, clipped
    to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return _with_dtype(c / c, dtype)
    d = ops.sqrt(ops.diagonal(c))
    r = c / d.reshape((-1, 1)) / d.reshape((1, -1))
    return _with_dtype(ops.clamp(r, -1.0, 1.0), dtype)


def meshgrid(*xi, sparse=False, indexing="xy"):
    """Coordinate matrices from 1-D coordinate vectors (``indexing`` 'xy' or 'ij'); with
    ``sparse`` each output keeps size 1 along the other dimensions."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"For 'meshgrid', the 'indexing' must be 'xy' or 'ij', but got "
                         f"{indexing!r}.")
    xs = [_operand(x).reshape(-1) for x in xi]
    if not xs:
        return []
    if not sparse:
        return list(ops.meshgrid(*xs, indexing=indexing))
    n = len(xs)
    out = []
    for k, x in enumerate(xs):
        shape = [1] * n
        shape[k] = x.shape[0]
        if indexing == "xy" and n >= 2 and k < 2:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(x.reshape(tuple(shape)))
    return out
