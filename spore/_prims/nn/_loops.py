"""Compiled loops behind the pooling and convolution kernels (NOTE: [Native loops]).

NOTE: [Native loops]
Each loop does in one pass what the NumPy path does in several passes over
short strided rows, and produces the same bits: the same comparisons in the
same order, the same additions. They take C-contiguous arrays and write into
``out`` arrays the caller allocates. Inner loops run over 1-D slices, the form
Numba vectorises; index arithmetic on many-dimensional arrays is several times
slower here. The kernels call them only where ``usable`` says so.
"""
from __future__ import annotations

import numpy as np

from ... import _native
from ..._native import jit

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))   # the dtypes the loops compile for


def usable(xp, dtype):
    """Whether a NumPy-backend kernel on ``dtype`` data should call the loops now."""
    return xp is np and _native.enabled() and np.dtype(dtype) in FLOATS


@jit
def max_pool_2x2(x, h, w, y, won):
    """2x2 max pooling with stride 2 over flattened (P, h, w) planes.

    ``y`` and ``won`` are flattened (P, h // 2, w // 2); ``won`` gets the first
    tap holding the maximum (row-major in the window), or 3 where a tap is NaN
    (then ``y`` is NaN), as the taps version's running np.maximum gives. The
    body is branch-free (selects), which Numba vectorises: random data made a
    branching version mispredict its way to 3x slower.
    """
    oh, ow = h // 2, w // 2
    planes = y.shape[0] // (oh * ow)
    for p in range(planes):
        for r in range(oh):
            start = p * h * w + 2 * r * w
            top = x[start:start + 2 * ow]
            bottom = x[start + w:start + w + 2 * ow]
            yr = y[(p * oh + r) * ow:(p * oh + r + 1) * ow]
            wr = won[(p * oh + r) * ow:(p * oh + r + 1) * ow]
            for q in range(ow):
                a = top[2 * q]
                b = top[2 * q + 1]
                c = bottom[2 * q]
                d = bottom[2 * q + 1]
                nan = (a != a) | (b != b) | (c != c) | (d != d)
                kb = b > a
                m = b if kb else a
                k = np.int8(1) if kb else np.int8(0)
                kc = c > m
                m = c if kc else m
                k = np.int8(2) if kc else k
                kd = d > m
                m = d if kd else m
                k = np.int8(3) if kd else k
                yr[q] = (a + b + c + d) if nan else m        # the sum is NaN there
                wr[q] = np.int8(3) if nan else k


@jit
def max_scatter_2x2(dy, won, h, w, dx):
    """The gradient of max_pool_2x2: ``dy`` times (tap == winner) at every tap, the
    products the taps version's ``dy * (won == k)`` makes (NaN * 0 included).

    ``dx`` is flattened (P, h, w); rows and columns no window covers (odd sizes)
    are left as they are, so the caller zeroes them.
    """
    oh, ow = h // 2, w // 2
    planes = dy.shape[0] // (oh * ow)
    for p in range(planes):
        for r in range(oh):
            start = p * h * w + 2 * r * w
            top = dx[start:start + 2 * ow]
            bottom = dx[start + w:start + w + 2 * ow]
            g = dy[(p * oh + r) * ow:(p * oh + r + 1) * ow]
            k = won[(p * oh + r) * ow:(p * oh + r + 1) * ow]
            for q in range(ow):
                top[2 * q] = g[q] * (k[q] == 0)
                top[2 * q + 1] = g[q] * (k[q] == 1)
                bottom[2 * q] = g[q] * (k[q] == 2)
                bottom[2 * q + 1] = g[q] * (k[q] == 3)


@jit
def im2col_rows(x, kh, kw, batch_inner, cols):
    """Row-layout columns (NOTE: [im2col layouts]) of the contiguous (N, C, H, W) ``x``:
    ``cols[n, (c*kh + i)*kw + j, p] = x[n, c].flat[i*W + j + p]``, or with
    ``batch_inner`` the (C*kh*kw, N, L) order, ``cols[(c*kh + i)*kw + j, n, p]``."""
    n_, c_, h, w = x.shape
    length = cols.shape[2]
    for n in range(n_):
        for c in range(c_):
            plane = x[n, c].reshape(h * w)
            for i in range(kh):
                for j in range(kw):
                    src = plane[i * w + j:i * w + j + length]
                    tap = (c * kh + i) * kw + j
                    dst = cols[tap, n] if batch_inner else cols[n, tap]
                    for p in range(length):
                        dst[p] = src[p]


@jit
def crop_rows(y, row, bias, add_bias, out):
    """``out[n, o, r, q] = y[n, o, r*row + q] (+ bias[o])``: the row-layout GEMM output
    ``y`` (N, O, L) in NCHW order without its wasted columns."""
    n_, o_, oh, ow = out.shape
    for n in range(n_):
        for o in range(o_):
            b = bias[o]
            for r in range(oh):
                src = y[n, o, r * row:r * row + ow]
                dst = out[n, o, r]
                if add_bias:
                    for q in range(ow):
                        dst[q] = src[q] + b
                else:
                    for q in range(ow):
                        dst[q] = src[q]


@jit
def pad_rows(dy, row, out):
    """``out`` (N, O, OH, row): ``dy`` (N, O, OH, OW) with zeros in columns OW..row-1
    (the inverse of crop_rows)."""
    n_, o_, oh, ow = dy.shape
    zero = out.dtype.type(0)
    for n in range(n_):
        for o in range(o_):
            for r in range(oh):
                src = dy[n, o, r]
                dst = out[n, o, r]
                for q in range(ow):
                    dst[q] = src[q]
                for q in range(ow, row):
                    dst[q] = zero


@jit
def rows_by_position(dy, row, out):
    """``out`` (N, L, O): ``dy`` (N, O, OH, OW) in the row layout with the channel
    innermost, ``out[n, r*row + q, o] = dy[n, o, r, q]`` and zeros in the wasted
    columns: the filter gradient's GEMM operand, built in one pass."""
    n_, o_, oh, ow = dy.shape
    length = out.shape[1]
    zero = out.dtype.type(0)
    for n in range(n_):
        for r in range(oh):
            for q in range(ow, min(row, length - r * row)):
                for o in range(o_):
                    out[n, r * row + q, o] = zero
        for o in range(o_):
            for r in range(oh):
                src = dy[n, o, r]
                for q in range(ow):
                    out[n, r * row + q, o] = src[q]
