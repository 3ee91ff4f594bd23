"""Special functions: lgamma, digamma, polygamma, erfinv.

Kernels use SciPy when it is installed (the ``scipy`` extra) and otherwise
NumPy implementations accurate to float64 round-off for the float32 range
users train in (recurrence + asymptotic series; Newton-refined erfinv).
"""
from __future__ import annotations

import math

import numpy as np

from ._base import unary, grad_for
from .math import mul_p, exp_p
from .._core import primitive as P
from .._core.aval import ShapedArray


def _scipy(name):
    try:
        from scipy import special
    except ImportError:  # pragma: no cover - exercised through the fallbacks' own tests
        return None
    return getattr(special, name)


def _scipy_or(name, fallback):
    """``scipy.special.<name>`` (or ``fallback`` without SciPy), looked up on the first
    call: SciPy takes ~0.25 s to import, so ``import spore`` must not import it."""
    fn = None

    def call(*args):
        nonlocal fn
        if fn is None:
            fn = _scipy(name) or fallback
        return fn(*args)
    return call


# ----------------------------------------------------------------- NumPy fallbacks
def lgamma_fallback(x):
    return np.frompyfunc(math.lgamma, 1, 1)(x).astype(x.dtype)


def polygamma_fallback(n, x):
    """psi^(n)(x): shift x up to >= 10 by recurrence, then the asymptotic series."""
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    negative = x <= 0
    if n == 0 and negative.any():
        # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        xr = np.where(negative, 1 - x, x)
        base = polygamma_fallback(0, xr)
        return np.where(negative, base - np.pi / np.tan(np.pi * x), base)
    if n > 0 and negative.any():
        raise ValueError("polygamma of order >= 1 at non-positive arguments needs SciPy "
                         "(pip install scipy)")
    z = x.copy()
    while True:
        small = z < 10
        if not small.any():
            break
        if n == 0:
            out -= np.where(small, 1 / z, 0)
        else:
            out += np.where(small, (-1) ** (n + 1) * math.factorial(n) / z ** (n + 1), 0)
        z = np.where(small, z + 1, z)
    bernoulli = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6]
    if n == 0:
        s = np.log(z) - 1 / (2 * z)
        for k, b in enumerate(bernoulli, start=1):
            s -= b / (2 * k * z ** (2 * k))
    else:
        sign = (-1) ** (n + 1)
        s = sign * (math.factorial(n - 1) / z ** n + math.factorial(n) / (2 * z ** (n + 1)))
        for k, b in enumerate(bernoulli, start=1):
            s += sign * b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k)
                                                              * z ** (2 * k + n))
    return out + s


def erfinv_fallback(y):
    """Inverse error function: a rational first guess refined by Newton steps on math.erf."""
    y = np.asarray(y, np.float64)
    w = -np.log((1 - y) * (1 + y))                     # -ln(1 - y^2)
    t = 2 / (np.pi * 0.147) - w / 2                      # Winitzki's approximation
    x = np.sign(y) * np.sqrt(np.maximum(np.sqrt(t * t + w / 0.147) - t, 0))
    erf = np.frompyfunc(math.erf, 1, 1)
    finite = np.abs(y) < 1
    for _ in range(3):
        err = erf(np.where(finite, x, 0)).astype(np.float64) - np.where(finite, y, 0)
        x = np.where(finite, x - err / (2 / math.sqrt(math.pi) * np.exp(-x * x)), x)
    return np.where(np.abs(y) == 1, np.sign(y) * np.inf, np.where(np.abs(y) > 1, np.nan, x))


# ----------------------------------------------------------------- kernels
def _make(name, fallback):
    def make(xp):
        if xp is np:
            fn = _scipy_or(name, fallback)
        else:  # pragma: no cover - GPU only
            from cupyx.scipy import special
            fn = getattr(special, name)

        def kernel(x):
            return xp.asarray(fn(x)).astype(x.dtype, copy=False)
        return kernel
    return make


lgamma_p = unary("Lgamma", _make("gammaln", lgamma_fallback), "int_to_float")
erfinv_p = unary("Erfinv", _make("erfinv", erfinv_fallback), "int_to_float")
digamma_p = unary("Digamma", _make("psi", lambda x: polygamma_fallback(0, x)), "int_to_float")


def _make_polygamma(xp):
    fn = _scipy_or("polygamma", polygamma_fallback) if xp is np else None

    def polygamma(x, n):
        r = fn(n, x) if fn is not None else polygamma_fallback(n, x)
        return xp.asarray(r).astype(x.dtype, copy=False)
    return polygamma


def _polygamma_infer(attrs, x):
    d = np.dtype(x.dtype)
    return ShapedArray(tuple(x.shape), np.float32 if d.kind in "biu" else d)


polygamma_p = P.Primitive("Polygamma", _make_polygamma, kind="elementwise", n_inputs=1,
                          policy="int_to_float", infer=_polygamma_infer)


@lgamma_p.def_grad(inputs=(0,))
def _lgamma_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (grad_for(x, mul_p(dout, digamma_p(x))),)


@digamma_p.def_grad(inputs=(0,))
def _digamma_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (grad_for(x, mul_p(dout, polygamma_p(x, n=1))),)


@polygamma_p.def_grad(inputs=(0,))
def _polygamma_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (grad_for(x, mul_p(dout, polygamma_p(x, n=attrs["n"] + 1))),)


@erfinv_p.def_grad(output=True)
def _erfinv_grad(attrs, inputs, out, dout):
    (x,) = inputs
    return (grad_for(x, mul_p(dout, mul_p(exp_p(mul_p(out, out)), math.sqrt(math.pi) / 2))),)
