"""Check the float32 approximations of spore/_jit/approx.py on every float32 input.

Usage (from the repository root, with Numba installed)::

    python tools/check_approx.py              # all 2^32 inputs of exp, tanh, sigmoid, erf
    python tools/check_approx.py tanh --step 7  # every 7th bit pattern of tanh only
    python tools/check_approx.py tanh_sigmoid.tanh tanh_sigmoid.sigmoid  # the shared pair
    python tools/check_approx.py --fit        # recompute the erfc(x) e^(x^2) coefficients

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


def _fit():
    from numpy.polynomial import chebyshev as C
    t = np.cos(np.pi * (np.arange(4000) + 0.5) / 4000) * 1.5 + 2.5
    f = np.array([math.erfc(v) * math.exp(v * v) for v in t])
    coeffs = C.cheb2poly(C.chebfit((t - 2.5) / 1.5, f, 18))[::-1]
    print(",\n".join(repr(float(c)) for c in coeffs))


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
    ap.add_argument("--fit", action="store_true", help="print the erfc fit coefficients")
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
