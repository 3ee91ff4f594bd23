"""Vectorisable float32 ``exp``, ``tanh``, ``sigmoid`` and ``erf`` for Numba kernels.

NOTE: [Vectorisable approximations]
A Numba loop that calls ``math.tanh`` calls scalar libm once per element, which LLVM
cannot vectorise, and is slower than NumPy's SIMD ufunc. These functions use only
arithmetic, fused multiply-adds (``llvm.fma``), comparisons (compiled to selects),
``copysign`` and int32 bit operations, so a loop over them vectorises. ``exp``,
``tanh``, ``sigmoid`` and ``tanh_sigmoid`` compute in **float32** (8 lanes on AVX2, 16
on AVX-512); ``erf`` evaluates in float64 (4 lanes) and rounds once. The stated bound
is **2 ulp** from the correctly rounded float32 result over the whole float32 range
(NaN, infinities, signed zeros, denormals, the overflow and underflow edges
included); the tests check it on a dense stratified sample, ``tools/check_approx.py``
on all 2^32 inputs (last run: exp and tanh max 1 ulp, sigmoid max 2).

* ``exp``: ``x = k ln2 + r`` (Cody-Waite: ln 2 split in a 15-bit head, so ``k`` times
  it is exact, and a tail; FMA), ``|r| <= ln2/2``; ``e^r = 1 + s``, ``s = r + r^2 Q(r)``
  with ``Q`` a degree-4 fit. ``2^k`` is built from the int32 bits of ``k + 1.5 * 2^23``
  (the round-to-integer trick: no float-to-int conversion) in two exact factors, so a
  denormal or infinite result is rounded once.
* ``sigmoid``: ``v = 1 / (1 + e^|x|) = 2^-k / ((1 + 2^-k) + s)``, the denominator
  rounded once; ``sigmoid(x)`` is ``v`` for negative ``x``, ``1 - v`` otherwise.
* ``tanh``: odd polynomial ``a + a^3 P(a^2)`` (degree-5 fit in ``a^2``) for
  ``a = |x| < 0.625``, else ``1 - 2 / (e^2a + 1)`` with ``e^2a + 1`` from the parts of
  the exponential by one FMA; the sign (of zero too) copied from ``x``.
* ``tanh_span``: tanh over an array, each span of SPAN small values with the polynomial
  alone (NOTE: [Tanh over spans]; the loops of spore/_prims/vecmath.py and a fused
  segment of one tanh call it).
* ``tanh_sigmoid``: both of one value from one ``e^|x|`` (``e^2|x| = 2^2k (1 + s)^2``);
  fused groups computing both, such as W2's chain, call it once.
* ``erf``: its Taylor series for ``|x| < 1``, ``1 - e^(-x^2) Q(x)`` above, ``Q`` a
  Chebyshev fit of ``erfc(x) e^(x^2)`` on [1, 4]. ``exp64``: float64 ``e^x`` (erf's,
  and softmax's rows in spore/_prims/vecmath.py).

``tools/check_approx.py --fit`` recomputes every polynomial. All are ``inline="always"``
(inlined in Numba's IR, not left to LLVM's inliner, which refuses the larger ones and
then the loop does not vectorise). No fast-math flag besides "contract".

This module imports Numba: only generated kernels (spore/_jit/kernelgen.py) import it.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
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


# ---- float32 arithmetic (8 lanes on AVX2) -------------------------------------------
# Constants are float32 scalars so that Numba keeps the arithmetic in float32 (a Python
# float would promote it to float64, four lanes).
_F = np.float32
_MAGIC32 = _F(12582912.0)           # 1.5 * 2^23: adding it rounds a float32 to an integer
_LOG2E32 = _F(1.4426950408889634)
_LN2_HI32 = _F(0.693145751953125)   # ln 2 to 15 bits: k * _LN2_HI32 exact for |k| < 512
_LN2_LO32 = _F(1.4286068203094173e-06)
# (e^r - 1 - r) / r^2 on |r| <= ln2/2: a degree-4 Chebyshev fit, relative error of e^r
# below 8e-9 (``tools/check_approx.py --fit``; lowest degree first)
_EXP_Q = (_F(0.5000000013697152), _F(0.16666575962591554), _F(0.041666462635764304),
          _F(0.008363348330850904), _F(0.0013933902569232119))
# (tanh(a) / a - 1) / a^2 as a polynomial in a^2 on [0, 0.625^2]: a degree-5 Chebyshev
# fit, relative error of tanh below 7e-10 (lowest degree first; ``--fit``)
_TANH_P = (_F(-0.33333333174873575), _F(0.13333304125443582), _F(-0.05395938405759657),
           _F(0.02176983305877867), _F(-0.008346653176151764), _F(0.002295536558660137))
_TANH_CUT = _F(0.625)               # below: the polynomial; above: 1 - 2 / (e^2a + 1)
_ONE, _TWO, _HALF, _ZERO = _F(1.0), _F(2.0), _F(0.5), _F(0.0)
_EXP_HI, _EXP_LO = _F(89.0), _F(-104.0)   # e^89 is inf in float32, e^-104 rounds to 0
_TANH_HI = _F(9.5)                  # tanh(9.5) rounds to 1
_K_MIN = _F(-100.0)                 # a scale 2^k that multiplies a term beside 1
_K_TANH = _F(-40.0)                 # e^2a > 2^80: tanh(a) is 1


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (llvm.fma: one instruction on FMA CPUs, vectorises)."""
    def codegen(context, builder, sig, args):
        f = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fma", [f], ir.FunctionType(f, [f] * 3))
        return builder.call(fn, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@intrinsic
def _copysign(typingctx, mag, sign):
    """|mag| with the sign bit of ``sign`` (llvm.copysign: a bit operation)."""
    def codegen(context, builder, sig, args):
        f = args[0].type
        fnty = ir.FunctionType(f, [f] * 2)
        fn = builder.module.declare_intrinsic("llvm.copysign", [f], fnty)
        return builder.call(fn, args)
    return types.float32(types.float32, types.float32), codegen


@intrinsic
def _pow2(typingctx, t):
    """2^k for ``t = k + _MAGIC32`` with k an integer in [-126, 127]: the low bits of
    ``t``'s int32 pattern are ``k`` (plus a constant that the shift drops), so
    ``(bits + 127) << 23`` is the exponent field of 2^k; int32 lanes, no conversion."""
    def codegen(context, builder, sig, args):
        i32 = ir.IntType(32)
        bits = builder.bitcast(args[0], i32)
        bits = builder.shl(builder.add(bits, ir.Constant(i32, 127)), ir.Constant(i32, 23))
        return builder.bitcast(bits, args[0].type)
    return types.float32(types.float32), codegen


@njit(inline="always", **_OPTS)
def _exp_parts(y):
    """``(k, s)`` with ``e^y = 2^k (1 + s)`` for float32 ``y`` in [-104, 89]: ``k`` an
    integral float32, ``|s| <= 0.42`` (Cody-Waite: ``r = y - k ln2`` exact to the last
    rounding through the split ln 2 and FMA, then ``s = r + r^2 Q(r)``)."""
    k, r = _exp_reduce(y)
    return k, _expm1_reduced(r)


@njit(inline="always", **_OPTS)
def _exp_reduce(y):
    """``(k, r)``: ``k = round(y / ln2)`` (an integral float32) and ``r = y - k ln2``."""
    t = _fma(y, _LOG2E32, _MAGIC32)
    k = t - _MAGIC32                                     # round(y / ln2), exactly
    r = _fma(k, -_LN2_HI32, y)
    return k, _fma(k, -_LN2_LO32, r)


@njit(inline="always", **_OPTS)
def _expm1_reduced(r):
    """``e^r - 1`` for ``|r| <= ln2/2`` (a little beyond): ``r + r^2 Q(r)``."""
    q = _fma(_fma(_fma(_fma(_EXP_Q[4], r, _EXP_Q[3]), r, _EXP_Q[2]), r, _EXP_Q[1]),
             r, _EXP_Q[0])
    return _fma(r * r, q, r)


@njit(inline="always", **_OPTS)
def _scale(m, k):
    """``m * 2^k`` for integral float32 ``k`` in [-252, 254] and ``m`` near 1: two exact
    power-of-two factors, so a denormal or infinite result is rounded once."""
    t1 = _fma(k, _HALF, _MAGIC32)                        # round(k / 2) + magic
    k2 = k - (t1 - _MAGIC32)
    return (m * _pow2(t1)) * _pow2(k2 + _MAGIC32)


@njit(inline="always", **_OPTS)
def _sigmoid_neg(k, s):
    """``1 / (1 + e^a)`` (sigmoid(-a)) for ``e^a = 2^k (1 + s)``, ``0 <= k <= 150``:
    ``2^-k / ((1 + 2^-k) + s)``, the denominator rounded once (``1 + 2^-k`` is exact up
    to k = 23; above, its rounding error ``e`` is added back), one division, the scale
    last (a denormal result is rounded once)."""
    kc = k if k < -_K_MIN else -_K_MIN                   # 1 + s + 2^-100 is 1 + s
    c = _pow2(_MAGIC32 - kc)
    t = _ONE + c
    e = (_ONE - t) + c                                   # exact (Fast2Sum)
    return _scale(_ONE / (t + (s + e)), -k)


@njit(inline="always", **_OPTS)
def _tanh_big(k, s):
    """``tanh(a) = 1 - 2 / (e^2a + 1)`` from ``e^a = 2^k (1 + s)``, ``k >= 0``:
    ``e^2a + 1 = 2^2k (1 + s (2 + s)) + 1`` by one FMA over the exact ``2^2k + 1``."""
    kt = k if k < -_K_TANH else -_K_TANH                 # e^2a > 2^80: tanh(a) is 1
    c = _pow2(kt + kt + _MAGIC32)                        # 2^2k
    return _ONE - _TWO / _fma(c, _fma(s, s, s + s), c + _ONE)


@njit(inline="always", **_OPTS)
def _tanh_poly(a):
    """tanh(a) for ``0 <= a < 0.625``: ``a + a^3 P(a^2)``."""
    a2 = a * a
    p = _fma(_fma(_fma(_fma(_fma(_TANH_P[5], a2, _TANH_P[4]), a2, _TANH_P[3]), a2,
                        _TANH_P[2]), a2, _TANH_P[1]), a2, _TANH_P[0])
    return _fma(a * a2, p, a)


@njit(inline="always", **_OPTS)
def exp_f32(x):
    """float32 e^x in float32 arithmetic (8 lanes), within 2 ulp of the correctly
    rounded result (NaN passes the clamps; they make +-inf exact)."""
    y = _EXP_HI if x > _EXP_HI else x
    y = _EXP_LO if y < _EXP_LO else y
    k, s = _exp_parts(y)
    return _scale(_ONE + s, k)


# NOTE: [Shifted exp rows]
# Softmax rows need e^(x - m), m the row's maximum. ``x - m`` rounded to float32 loses
# up to half an ulp of itself, and e^d turns an absolute error in d into a relative one
# in the result: at d = -80 that is ~40 ulp. So the difference is carried as
# ``hi + lo`` (TwoSum: hi = fl(x - m), lo its exact rounding error) and ``lo`` joins the
# reduced argument ``r`` of exp_f32's Cody-Waite step, whose polynomial then sees the
# difference to the last bit: e^(x - m) within exp_f32's bound, 8 float32 lanes. The
# TwoSum must not be reassociated, so exp_shifted_row is a function of its own,
# compiled without "reassoc" even where its caller has it (LLVM keeps each
# instruction's flags when it inlines).
@njit(**_OPTS)
def exp_shifted_row(x, m, out):
    """out[k] = e^(x[k] - m) for a float32 row ``x`` with maximum ``m`` (see the NOTE);
    NaN in, NaN out; differences below -104 give 0."""
    negm = -m
    for i in range(x.size):
        v = x[i]
        hi = v + negm
        bp = hi - v
        lo = (v - (hi - bp)) + (negm - bp)               # TwoSum: hi + lo = v - m exactly
        far = hi < _EXP_LO
        y = _EXP_LO if far else hi
        lo = _ZERO if far else lo                        # (an infinite hi: lo is NaN)
        k, r = _exp_reduce(y)
        out[i] = _scale(_ONE + _expm1_reduced(r + lo), k)


@njit(inline="always", **_OPTS)
def _tanh_small(x):
    """tanh_f32(x) for ``|x| < 0.625``: the polynomial alone."""
    return _copysign(_tanh_poly(abs(x)), x)


@njit(inline="always", **_OPTS)
def tanh_f32(x):
    """float32 tanh(x) in float32 arithmetic: the odd polynomial below |x| = 0.625,
    ``1 - 2 / (e^2|x| + 1)`` above; the sign (of zero too) copied from ``x``. The same
    operations as tanh_sigmoid_f32's tanh: the same bits."""
    a = abs(x)
    b = _TANH_HI if a > _TANH_HI else a
    k, s = _exp_parts(b)
    t = _tanh_poly(a) if a < _TANH_CUT else _tanh_big(k, s)
    return _copysign(t, x)


# NOTE: [Tanh over spans]
# A vector of lanes computes both of tanh_f32's forms and keeps one per lane, but many
# arrays never need the exponential one: activations that stay small (W1a's seed
# iterates tanh(z @ y) towards 0). tanh_span therefore checks each span of SPAN
# elements (one vectorised pass, an OR of "|x| >= 0.625 or NaN" in int32 lanes) and
# runs a span of small values with the polynomial alone: the same operations per lane as
# tanh_f32's, so the same bits, in 0.41-0.46x the time (0.6-0.7x for W1a's 1,024
# elements). (Spans of large values gain nothing from skipping the polynomial: the
# exponential form is the cost.) After a mixed span the next spans skip the check, 1, 2,
# 4, then 8 at a time, so mixed arrays pay ~3-5% for it. In place (``out`` is ``x``)
# the whole array is one span. The span loops are functions of their own:
# inlined into the loop over spans, LLVM hoists their constants out of it and spills
# them (40% slower).
SPAN = 1024
MAX_SKIP = 8


@njit(inline="always", **_OPTS)
def _all_small(x, start, stop):
    """Whether every x[start:stop] takes the polynomial (NaN does not)."""
    flag = np.int32(0)
    for j in range(start, stop):      # np.bitwise_or keeps int32 lanes (| widens to int64)
        flag = np.bitwise_or(flag, np.int32(not (abs(x[j]) < _TANH_CUT)))
    return flag == 0


@njit(inline="always", **_OPTS)
def _next_span(x, start, stop, skip, wait):
    """(whether x[start:stop] runs the polynomial alone, skip, wait): ``skip`` spans
    still to run without a check, ``wait`` the last such run's length."""
    if skip > 0:
        return False, skip - 1, wait
    if _all_small(x, start, stop):
        return True, 0, 0
    wait = min(2 * wait, MAX_SKIP) if wait else 1
    return False, wait, wait


@njit(**_OPTS)
def _small_into(x, out):
    for j in range(x.size):
        out[j] = _tanh_small(x[j])


@njit(**_OPTS)
def _tanh_into(x, out):
    for j in range(x.size):
        out[j] = tanh_f32(x[j])


@njit(**_OPTS)
def _small_inplace(x):
    for j in range(x.size):
        x[j] = _tanh_small(x[j])


@njit(**_OPTS)
def _tanh_inplace(x):
    for j in range(x.size):
        x[j] = tanh_f32(x[j])


@njit(inline="always", **_OPTS)
def tanh_span(x, out):
    """out[:] = tanh_f32(x[:]) over 1-D float32 arrays of one size (NOTE: [Tanh over
    spans]). ``out`` may be ``x``: one-array loops then run, over the whole array as one
    span (LLVM vectorises a loop over two arrays only after a run-time overlap check,
    which ``x`` itself fails: NOTE: [In-place loops] in spore/_prims/vecmath.py)."""
    if x.ctypes.data == out.ctypes.data:
        # one check and one loop for the whole array: LLVM inlines the one-array loops,
        # and inlined into the loop over spans they run 30% slower on mixed data
        if _all_small(x, 0, x.size):
            _small_inplace(out)
        else:
            _tanh_inplace(out)
        return
    skip = wait = 0
    for s in range(0, x.size, SPAN):
        e = min(s + SPAN, x.size)
        small, skip, wait = _next_span(x, s, e, skip, wait)
        if small:
            _small_into(x[s:e], out[s:e])
        else:
            _tanh_into(x[s:e], out[s:e])


@njit(inline="always", **_OPTS)
def sigmoid_f32(x):
    """float32 1 / (1 + e^-x) in float32 arithmetic: ``v = 1 / (1 + e^|x|)`` is
    sigmoid(-|x|); sigmoid(|x|) is ``1 - v`` (``v <= 1/2``: its error shrinks)."""
    a = abs(x)
    a = -_EXP_LO if a > -_EXP_LO else a                  # sigmoid(-104) rounds to 0
    k, s = _exp_parts(a)
    v = _sigmoid_neg(k, s)
    return _ONE - v if x >= _ZERO else (v if x < _ZERO else x)   # NaN stays NaN


@njit(inline="always", **_OPTS)
def tanh_sigmoid_f32(x):
    """float32 ``(tanh(x), sigmoid(x))`` from one exponential ``e^|x| = 2^k (1 + s)``
    (a fused group computing both of one value, as W2's ``tanh(x)*0.9 + sigmoid(x)*0.1``
    does, calls this once): sigmoid as in sigmoid_f32; tanh above |x| = 0.625 as
    ``1 - 2 / (e^2|x| + 1)`` with ``e^2|x| = 2^2k (1 + s (2 + s))``, below it the
    polynomial. The bits of tanh_f32 and sigmoid_f32."""
    a = abs(x)
    b = -_EXP_LO if a > -_EXP_LO else a
    k, s = _exp_parts(b)
    v = _sigmoid_neg(k, s)
    sig = _ONE - v if x >= _ZERO else (v if x < _ZERO else x)
    big = _tanh_big(k, s)
    t = _tanh_poly(a) if a < _TANH_CUT else big
    return _copysign(t, x), sig


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


def _horner(coeffs):
    """A Numba function ``p(x)`` evaluating the polynomial ``coeffs`` (highest degree
    first) by Horner's rule, written out: a loop over a tuple would index it at run
    time, which does not vectorise."""
    expr = repr(float(coeffs[0]))
    for c in coeffs[1:]:
        expr = f"({expr}) * x + {float(c)!r}"
    namespace = {}
    exec(f"def p(x):\n    return {expr}\n", namespace)
    # no disk cache for code from exec: inlined, it is cached in its callers
    return njit(inline="always", **dict(_OPTS, cache=False))(namespace["p"])


_erf_small = _horner(_ERF_SMALL)
_erfc_big = _horner(_ERFC_BIG)


@njit(inline="always", **_OPTS)
def erf_f32(x):
    """float32 erf(x) within 1 ulp of the correctly rounded result."""
    y = np.float64(x)
    a = abs(y)
    small = y * _erf_small(a * a)
    t = 4.0 if a > 4.0 else a                            # erf(4) rounds to 1
    t = 1.0 if t < 1.0 else t                            # (small |x| take the series)
    q = _erfc_big((t - 2.5) * (1.0 / 1.5))
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
