"""Vectorisable float32 ``exp``, ``tanh``, ``sigmoid`` and ``erf`` for Numba kernels.

NOTE: [Vectorisable approximations]
A Numba loop that calls ``math.tanh`` calls scalar libm once per element, which LLVM
cannot vectorise, and is slower than NumPy's SIMD ufunc. These functions use only
arithmetic, comparisons (compiled to selects), ``floor``/``copysign`` and integer bit
operations, so a loop over them vectorises (4 float64 lanes on AVX2). Each evaluates
a float32 argument in float64 with a relative error below 1e-9 and rounds once to
float32, so the result is within 1 ulp of the correctly rounded value: the stated
bound is **2 ulp** over the whole float32 range (NaN, infinities, signed zeros,
denormals, the overflow and underflow edges included), which the tests check on a
dense stratified sample and ``tools/check_approx.py`` checks on all 2^32 inputs.

* ``exp``: ``x = k ln2 + r`` (Cody-Waite, ``|r| <= ln2/2``), degree-8 Taylor
  polynomial for ``e^r``; ``2^k`` is built from the bits of ``k + 1.5 * 2^52`` (the
  round-to-integer trick), so no float-to-int conversion is needed.
* ``tanh``: odd Taylor polynomial for ``|x| < 1/16``, else ``1 - 2 / (e^(2|x|) + 1)``.
* ``sigmoid``: ``1 / (1 + e^-x)``.
* ``tanh_sigmoid``: both of one value from one ``e^-|x|`` and one division (fused
  groups computing both, such as W2's chain, call it once).
* ``erf``: its Taylor series for ``|x| < 1``, ``1 - e^(-x^2) Q(x)`` above, ``Q`` a
  Chebyshev fit of ``erfc(x) e^(x^2)`` on [1, 4] (``tools/check_approx.py --fit``).

LLVM inlines these helpers into the kernel's loop (they keep their own FMA flag).

This module imports Numba: only generated kernels (spore/_jit/kernelgen.py) import it.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

# "contract" lets LLVM use fused multiply-adds (more accurate, never less; the only
# fast-math flag spore/_native.py allows besides "reassoc")
_OPTS = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})


@intrinsic
def _f64_bits(typingctx, x):
    """The IEEE bits of a float64 as an int64 (an LLVM bitcast: vectorises)."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))
    return types.int64(types.float64), codegen


@intrinsic
def _bits_f64(typingctx, x):
    """The float64 whose IEEE bits are an int64."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
_MAGIC = 6755399441055744.0            # 1.5 * 2^52: adding it rounds to an integer
_LN2_HI = 6.93147180369123816490e-01   # ln 2 split so that k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10


@njit(**_OPTS)
def exp64(x):
    """e^x for float64 ``x`` in [-700, 700] (callers clamp), relative error < 3e-10
    (the degree-8 Taylor remainder at ``|r| = ln2/2``)."""
    t = x * _LOG2E + _MAGIC
    k = t - _MAGIC                                       # round(x / ln2), exactly
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6 + r * (1.0 / 24 + r * (
        1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320))))))))
    scale = _bits_f64((_f64_bits(t) + 1023) << 52)    # 2^k from k's low bits
    return p * scale


@njit(**_OPTS)
def exp_f32(x):
    """float32 e^x within 1 ulp of the correctly rounded result."""
    y = np.float64(x)
    y = 100.0 if y > 100.0 else y                        # e^100 is inf in float32
    y = -120.0 if y < -120.0 else y                      # e^-120 is 0 in float32
    return np.float32(exp64(y))                          # NaN passes the clamps


@njit(**_OPTS)
def tanh_f32(x):
    """float32 tanh(x) within 1 ulp of the correctly rounded result."""
    y = np.float64(x)
    a = abs(y)
    a = 20.0 if a > 20.0 else a                          # tanh(20) rounds to 1
    e = exp64(2.0 * a)
    big = math.copysign(1.0 - 2.0 / (e + 1.0), y)
    y2 = y * y
    small = y * (1.0 + y2 * (-1.0 / 3 + y2 * (2.0 / 15 + y2 * (-17.0 / 315 + y2 * (
        62.0 / 2835)))))                                 # next term: 6e-12 relative; -0 kept
    return np.float32(small if a < 0.0625 else big)


@njit(**_OPTS)
def sigmoid_f32(x):
    """float32 1 / (1 + e^-x) within 1 ulp of the correctly rounded result."""
    z = -np.float64(x)
    z = 120.0 if z > 120.0 else z
    z = -120.0 if z < -120.0 else z
    return np.float32(1.0 / (1.0 + exp64(z)))


# erf(x) / x = 2/sqrt(pi) sum (-1)^n x^(2n) / (n! (2n + 1)): an alternating series whose
# error after 15 terms is below its 16th, 3e-14 at |x| = 1 (highest degree first)
_ERF_SMALL = tuple(2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
                   for n in range(14, -1, -1))
# erfc(t) e^(t^2) on t in [1, 4] as a polynomial in u = (t - 2.5) / 1.5: a degree-18
# Chebyshev fit of math.erfc(t) * math.exp(t * t), relative error 2e-13
# (``tools/check_approx.py --fit`` recomputes it; highest degree first)
_ERFC_BIG = (
    2.4724488205151876e-08, -7.433192989440788e-08, 1.083313022524567e-07,
    -3.2109180407531055e-07, 1.143259556619135e-06, -3.222263589964414e-06,
    8.6899586244767e-06, -2.3559425200777534e-05, 6.258891685383026e-05,
    -0.00016203181671077755, 0.00040908225804771065, -0.0010058267476333207,
    0.0024036480864945494, -0.005570706772607692, 0.012489373847984767,
    -0.0270052966306026, 0.05611049344593798, -0.11152102018526203,
    0.21080636406113878)


@njit(**_OPTS)
def _horner(coeffs, x):
    p = 0.0
    for c in coeffs:
        p = p * x + c
    return p


@njit(**_OPTS)
def erf_f32(x):
    """float32 erf(x) within 1 ulp of the correctly rounded result."""
    y = np.float64(x)
    a = abs(y)
    small = y * _horner(_ERF_SMALL, a * a)
    t = 4.0 if a > 4.0 else a                            # erf(4) rounds to 1
    t = 1.0 if t < 1.0 else t                            # (small |x| take the series)
    q = _horner(_ERFC_BIG, (t - 2.5) * (1.0 / 1.5))
    big = math.copysign(1.0 - exp64(-t * t) * q, y)
    return np.float32(small if a < 1.0 else big)


@njit(**_OPTS)
def maximum(a, b):
    """np.maximum for scalars: NaN wins."""
    return a if (a >= b or a != a) else b


@njit(**_OPTS)
def minimum(a, b):
    """np.minimum for scalars: NaN wins."""
    return a if (a <= b or a != a) else b


@njit(**_OPTS)
def tanh_sigmoid_f32(x):
    """float32 ``(tanh(x), sigmoid(x))`` from one exponential and one division, each
    within 1 ulp of the correctly rounded result (a fused group computing both of one
    value, as W2's ``tanh(x)*0.9 + sigmoid(x)*0.1`` does, calls this once).

    With ``u = e^-|x|``: ``sigmoid(|x|) = 1 / (1 + u)``, ``sigmoid(-|x|) = u / (1 + u)``
    and ``tanh(|x|) = (1 - u^2) / (1 + u^2)``; both quotients come from the one
    reciprocal ``d = 1 / ((1 + u)(1 + u^2))``. Below ``|x| = 1/16`` tanh takes the odd
    polynomial (``1 - u^2`` would cancel)."""
    y = np.float64(x)
    a = abs(y)
    a = 120.0 if a > 120.0 else a                        # sigmoid(-120) is 0 in float32
    u = exp64(-a)                                        # NaN passes the clamp
    u2 = u * u
    d = 1.0 / ((1.0 + u) * (1.0 + u2))
    big = math.copysign((1.0 - u2) * (1.0 + u) * d, y)
    y2 = y * y
    small = y * (1.0 + y2 * (-1.0 / 3 + y2 * (2.0 / 15 + y2 * (-17.0 / 315 + y2 * (
        62.0 / 2835)))))
    s = (1.0 + u2) * d                                   # sigmoid(|x|)
    return (np.float32(small if a < 0.0625 else big),
            np.float32(s if y >= 0.0 else u * s))
