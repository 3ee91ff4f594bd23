"""Elementwise primitives on the bits and number-theoretic values of their inputs: gcd, lcm,
nextafter, signbit, population count, and the modified Bessel functions I0/I1 (scaled and
unscaled) with their gradients.

The integer and bit primitives have no gradient (MindSpore's neither); the Bessel functions
use SciPy when it is installed and otherwise NumPy (``np.i0``; I1 by its power series, which
converges for every argument and is summed in float64).
"""
from __future__ import annotations

import numpy as np

from ._base import unary, binary, ufunc
from .math import mul_p, sub_p, div_p, sign_p
from .._core.primitive import PrimitiveTypeError
from .specfun import _scipy_or

_BOOL = np.dtype(np.bool_)
_UINT8 = np.dtype(np.uint8)


def _signed_int(prim, common):
    """Int16/Int32/Int64 only (MindSpore's Gcd and Lcm kernels)."""
    if common.kind == "i" and common.itemsize >= 2:
        return common
    raise PrimitiveTypeError(f"For '{prim.name}', the type of the input tensor must be [Int16, "
                             f"Int32, Int64], but got {common}.")


def _float32_or_64(prim, common):
    if common in (np.dtype(np.float32), np.dtype(np.float64)):
        return common
    raise PrimitiveTypeError(f"For '{prim.name}', the inputs must be Float32 or Float64 "
                             f"tensors, but got {common}.")


gcd_p = binary("Gcd", ufunc("gcd"), _signed_int, nondiff=True,
               doc="Greatest common divisor (non-negative; gcd(0, 0) = 0).")
lcm_p = binary("Lcm", ufunc("lcm"), _signed_int, nondiff=True,
               doc="Least common multiple (non-negative; 0 when either input is 0).")
nextafter_p = binary("NextAfter", ufunc("nextafter"), _float32_or_64, nondiff=True,
                     doc="The next representable value after x1 towards x2.")
signbit_p = unary("SignBit", ufunc("signbit"), out_dtype=_BOOL, nondiff=True,
                  doc="True where the sign bit is set (-0.0 included).")


def _make_popcount(xp):
    def kernel(x):
        bits = xp.unpackbits(xp.ascontiguousarray(x).view(xp.uint8).reshape(x.shape + (-1,)),
                             axis=-1)
        return bits.sum(axis=-1, dtype=xp.uint8)
    return kernel


def _integer_only(prim, common):
    if common.kind in "iu":
        return common
    raise PrimitiveTypeError(f"For '{prim.name}', the input must be an integer tensor, but got "
                             f"{common}.")


population_count_p = unary("PopulationCount", _make_popcount, _integer_only, out_dtype=_UINT8,
                           nondiff=True, doc="The number of set bits of each element (UInt8).")


# ------------------------------------------------------------------ modified Bessel I0, I1
def _i1_series(x):
    """I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!), summed in float64 until the terms vanish."""
    x = np.asarray(x, np.float64)
    half = x / 2
    term = half.copy()
    total = term.copy()
    q = half * half
    k = 0
    while True:
        k += 1
        term = term * q / (k * (k + 1))
        total += term
        if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
            return total


def _fallback(fn):
    def kernel(x):
        return np.asarray(fn(np.asarray(x, np.float64))).astype(x.dtype)
    return kernel


_i0 = _scipy_or("i0", _fallback(np.i0))
_i1 = _scipy_or("i1", _fallback(_i1_series))
_i0e = _scipy_or("i0e", _fallback(lambda x: np.i0(x) * np.exp(-np.abs(x))))
_i1e = _scipy_or("i1e", _fallback(lambda x: _i1_series(x) * np.exp(-np.abs(x))))


def _bessel(name, fn):
    return unary(name, lambda xp: lambda x: np.asarray(fn(x), dtype=x.dtype), "float")


bessel_i0_p = _bessel("BesselI0", _i0)
bessel_i1_p = _bessel("BesselI1", _i1)
bessel_i0e_p = _bessel("BesselI0e", _i0e)
bessel_i1e_p = _bessel("BesselI1e", _i1e)


@bessel_i0_p.def_grad(inputs=(0,))
def _i0_grad(attrs, inputs, out, dout):
    return (mul_p(dout, bessel_i1_p(inputs[0])),)


@bessel_i1_p.def_grad(inputs=(0,), output=True)
def _i1_grad(attrs, inputs, out, dout):
    # I1'(x) = I0(x) - I1(x) / x, which tends to 1/2 at x = 0
    x = inputs[0]
    safe = x + (x == 0).astype(x.dtype)
    ratio = div_p(out, safe)
    ratio = ratio + (x == 0).astype(x.dtype) * (0.5 - ratio)
    return (mul_p(dout, sub_p(bessel_i0_p(x), ratio)),)


@bessel_i0e_p.def_grad(inputs=(0,), output=True)
def _i0e_grad(attrs, inputs, out, dout):
    # d/dx (I0(x) e^-|x|) = I1e(x) - sign(x) I0e(x)
    x = inputs[0]
    return (mul_p(dout, sub_p(bessel_i1e_p(x), mul_p(sign_p(x), out))),)


@bessel_i1e_p.def_grad(inputs=(0,), output=True)
def _i1e_grad(attrs, inputs, out, dout):
    # d/dx (I1(x) e^-|x|) = I0e(x) - I1e(x) (sign(x) + 1/x), the bracket's limit 1/2 at 0
    x = inputs[0]
    zero = (x == 0).astype(x.dtype)
    ratio = div_p(out, x + zero)
    ratio = ratio + zero * (0.5 - ratio)
    return (mul_p(dout, sub_p(sub_p(bessel_i0e_p(x), mul_p(sign_p(x), out)), ratio)),)
