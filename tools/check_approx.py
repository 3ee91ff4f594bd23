"""Check the float32 approximations of spore/_jit/approx.py on every float32 input.

Usage (from the repository root, with Numba installed)::

    python tools/check_approx.py              # all 2^32 inputs of exp, tanh, sigmoid, erf
    python tools/check_approx.py tanh --step 7  # every 7th bit pattern of tanh only
    python tools/check_approx.py tanh_sigmoid.tanh tanh_sigmoid.sigmoid  # the shared pair
    python tools/check_approx.py --fit        # recompute the polynomial coefficients

For each function it prints the largest distance in ulp from the float64 result rounded
to float32 (NaN must map to NaN) and how many inputs are not exact; it exits 1 when any
distance exceeds the stated bound (2 ulp). The reference is libm's float64 function
(``math.erf`` for erf) in a Numba loop; the run takes minutes per function.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BOUND_ULP = 2
CHUNK = 1 << 26


def _cheb(f, lo, hi, deg, n=4000):
    """Power-basis coefficients (lowest degree first) of the degree-``deg`` Chebyshev
    fit of ``f`` on [lo, hi], and its largest error on a fine grid."""
    from numpy.polynomial import Chebyshev, Polynomial
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n) * (hi - lo) / 2 + (hi + lo) / 2
    fit = Chebyshev.fit(t, f(t), deg, domain=[lo, hi])
    grid = np.linspace(lo, hi, 100001)
    return fit.convert(kind=Polynomial).coef, np.max(np.abs(fit(grid) - f(grid)))


def _fit():
    """Print the polynomial coefficients of spore/_jit/approx.py."""
    from numpy.polynomial import chebyshev as C
    t = np.cos(np.pi * (np.arange(4000) + 0.5) / 4000) * 1.5 + 2.5
    f = np.array([math.erfc(v) * math.exp(v * v) for v in t])
    coeffs = C.cheb2poly(C.chebfit((t - 2.5) / 1.5, f, 18))[::-1]
    print("_ERFC_BIG (highest degree first):")
    print(",\n".join(repr(float(c)) for c in coeffs))

    def exp_q(r):                  # (e^r - 1 - r) / r^2, its series near 0
        r = np.asarray(r, float)
        safe = np.where(np.abs(r) < 1e-3, 1.0, r)
        return np.where(np.abs(r) < 1e-3, 0.5 + r / 6 + r * r / 24 + r ** 3 / 120,
                        (np.expm1(safe) - safe) / safe ** 2)
    half_ln2 = math.log(2) / 2 + 1e-3
    q, err = _cheb(exp_q, -half_ln2, half_ln2, 4)
    print(f"_EXP_Q (lowest degree first; error in Q {err:.2e}):", [float(c) for c in q])

    def tanh_p(u):                 # (tanh(a) / a - 1) / a^2 as a function of u = a^2
        a = np.sqrt(np.maximum(u, 1e-30))
        return np.where(u < 1e-8, -1 / 3 + 2 / 15 * u,
                        (np.tanh(a) / a - 1) / np.maximum(u, 1e-30))
    p, err = _cheb(tanh_p, 0.0, 0.625 ** 2, 5)
    print(f"_TANH_P (lowest degree first; error in P {err:.2e}):", [float(c) for c in p])


def _checker(name):
    from numba import njit
    from spore._jit import approx
    if name.startswith("tanh_sigmoid."):          # one result of the shared function
        part = name.split(".", 1)[1]
        index, pair = ("tanh", "sigmoid").index(part), approx.tanh_sigmoid_f32

        @njit
        def fn(x):
            return pair(x)[index]
        name = part
    else:
        fn = getattr(approx, name + "_f32")
    ref = {"exp": lambda d: math.inf if d > 709 else math.exp(d),
           "tanh": lambda d: math.tanh(d),
           "sigmoid": lambda d: 0.0 if d < -709 else 1.0 / (1.0 + math.exp(-d)),
           "erf": lambda d: math.erf(d)}[name]
    ref = njit(ref)

    @njit(nogil=True)
    def check(start, count, step):
        worst, worst_x, inexact = 0, np.float32(0), 0
        bits = np.empty(1, np.uint32)
        view = bits.view(np.float32)
        pair = np.empty(2, np.float32)
        ipair = pair.view(np.int32)
        for j in range(count):
            bits[0] = np.uint32((start + j * step) & 0xFFFFFFFF)
            x = view[0]
            got = fn(x)
            want = np.float32(ref(np.float64(x)))
            if want != want or got != got:
                if (want != want) != (got != got):
                    return 1 << 40, x, inexact
                continue
            pair[0], pair[1] = got, want
            a0, a1 = np.int64(ipair[0]), np.int64(ipair[1])
            a0 = -(a0 & 0x7FFFFFFF) if a0 < 0 else a0     # bits as ordered integers
            a1 = -(a1 & 0x7FFFFFFF) if a1 < 0 else a1
            d = abs(a0 - a1)
            if d:
                inexact += 1
            if d > worst:
                worst, worst_x = d, x
        return worst, worst_x, inexact
    return check


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=["exp", "tanh", "sigmoid", "erf"])
    ap.add_argument("--step", type=int, default=1, help="check every STEP-th bit pattern")
    ap.add_argument("--fit", action="store_true", help="print the polynomial coefficients")
    args = ap.parse_args(argv)
    if args.fit:
        _fit()
        return 0
    failed = False
    total = (1 << 32) // args.step
    for name in args.names:
        check = _checker(name)
        t0 = time.perf_counter()
        worst, worst_x, inexact = 0, 0.0, 0
        for start in range(0, total, CHUNK):
            n = min(CHUNK, total - start)
            w, x, k = check(start * args.step, n, args.step)
            inexact += k
            if w > worst:
                worst, worst_x = w, x
        failed |= worst > BOUND_ULP
        print(f"{name}: {total} inputs, max {worst} ulp (at {worst_x!r}), "
              f"{inexact} inexact, {time.perf_counter() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
