"""Compiled loops behind the pooling and convolution kernels (NOTE: [Native loops]).

NOTE: [Native loops]
Each loop does in one pass what the NumPy path does in several passes over
short strided rows, and produces the same bits: the same comparisons in the
same order, the same additions (the direct convolution loops at the end are
the exception: NOTE: [Direct convolution]). They take C-contiguous arrays and write into
``out`` arrays the caller allocates. Inner loops run over 1-D slices, the form
Numba vectorises; index arithmetic on many-dimensional arrays is several times
slower here. The kernels call them only where ``usable`` says so.

Every loop declares the one signature its callers use (``{f}``: the float type), so
all of them compile for a dtype ahead of their first use, in the background, while
the NumPy paths serve (NOTE: [Background compilation] in spore/_native.py).
"""
from __future__ import annotations

import numpy as np

from ... import _native
from ..._native import jit

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))   # the dtypes the loops compile for


def usable(xp, dtype):
    """Whether a NumPy-backend kernel on ``dtype`` data should call the loops now: they
    are on and compiled for ``dtype`` (the first call starts compiling them, in the
    background unless ``SPORE_NATIVE=sync``: NOTE: [Background compilation])."""
    if xp is not np or not _native.enabled():
        return False
    dtype = np.dtype(dtype)
    return dtype in FLOATS and _native.ready(dtype)


@jit(signature="{f}[::1], int64, int64, {f}[::1], int8[::1]")
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


@jit(signature="{f}[::1], int8[::1], int64, int64, {f}[::1]")
def max_scatter_2x2(dy, won, h, w, dx):
    """The gradient of max_pool_2x2: ``dy`` times (tap == winner) at every tap, the
    products the taps version's ``dy * (won == k)`` makes (NaN * 0 included). Those are
    ``z = g * 0`` (a zero of g's sign, or NaN) everywhere but at the winner, where they
    are ``g``: so every tap gets ``z`` and the winner ``g`` after it, short stores and
    no compare per tap (the per-tap products did not vectorise over LeNet's 14-wide
    rows; 0.42 against 0.67 ms a W4 step).

    ``dx`` is flattened (P, h, w); rows and columns no window covers (odd sizes)
    are left as they are, so the caller zeroes them.
    """
    oh, ow = h // 2, w // 2
    rows = dy.shape[0] // ow if ow else 0
    zero = dy.dtype.type(0)
    for pr in range(rows):
        p = pr // oh
        start = p * h * w + 2 * (pr - p * oh) * w
        for q in range(ow):
            g = dy[pr * ow + q]
            z = g * zero
            a = start + 2 * q
            dx[a] = z
            dx[a + 1] = z
            dx[a + w] = z
            dx[a + w + 1] = z
            k = won[pr * ow + q] & 3
            dx[a + (k & 1) + (k >> 1) * w] = g


@jit(signature="{f}[::1], int8[::1], {f}[::1], int64, int64, {f}[::1], float64[::1]")
def max_scatter_2x2_relu_grad(dy, won, y, h, w, dx, sums):
    """max_scatter_2x2 followed by ReluGrad against ``y`` (flattened like ``dx``) in one
    pass, with the unfused kernels' values: those make ``(g * (tap == k)) * (y > 0)``
    at every tap, which is ``z = g * 0`` (a zero of g's sign, or NaN) except at the
    winner, where it is ``g`` if ``y > 0`` else ``z``. So every tap gets ``z`` and the
    winner is written again: short contiguous stores and one compare per window,
    where the per-tap products did not vectorise over LeNet's 14-wide rows (2.5x
    slower). Uncovered rows and columns (odd sizes) are left to the caller.

    ``sums`` (float64, one per channel, or empty): each window's taps are added into
    its channel's sum as ``winner + z`` (a bias gradient, ``dx`` summed over all axes
    but the channels: the other taps add zeros, or NaN where ``z`` is one)."""
    oh, ow = h // 2, w // 2
    rows = dy.shape[0] // ow if ow else 0
    zero = y.dtype.type(0)
    channels = sums.shape[0]
    for pr in range(rows):
        p = pr // oh
        start = p * h * w + 2 * (pr - p * oh) * w
        acc = 0.0
        for q in range(ow):
            g = dy[pr * ow + q]
            k = won[pr * ow + q] & 3
            z = g * zero
            a = start + 2 * q
            dx[a] = z
            dx[a + 1] = z
            dx[a + w] = z
            dx[a + w + 1] = z
            b = a + (k & 1) + (k >> 1) * w
            v = g if y[b] > zero else z
            dx[b] = v
            acc += np.float64(v) + np.float64(z)
        if channels:
            sums[p % channels] += acc


@jit(signature="{f}[:, :, :, ::1], int64, int64, boolean, {f}[:, :, ::1]")
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


@jit(signature="{f}[:, :, :, ::1], int64, int64, {f}[:, ::1]")
def patch_rows(x, kh, kw, cols):
    """Patch columns (NOTE: [Patch convolutions]) of ``x`` (N, C, H, W):
    ``cols[(n*OH + a)*OW + b, (c*kh + i)*kw + j] = x[n, c, a*kh + i, b*kw + j]``, one
    input row at a time (OH, OW from ``cols``' rows and ``x``'s width: whole patches)."""
    n_, c_ = x.shape[0], x.shape[1]
    ow = x.shape[3] // kw
    oh = cols.shape[0] // (n_ * ow)
    for n in range(n_):
        for c in range(c_):
            for a in range(oh):
                for i in range(kh):
                    src = x[n, c, a * kh + i]
                    at = (c * kh + i) * kw
                    for b in range(ow):
                        dst = cols[(n * oh + a) * ow + b]
                        for j in range(kw):
                            dst[at + j] = src[b * kw + j]


@jit(signature="{f}[:, :, ::1], int64, {f}[::1], boolean, {f}[:, :, :, ::1]")
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


@jit(signature="{f}[:, :, ::1], {f}[::1], boolean, int64")
def bias_relu_rows(y, bias, add_bias, length):
    """``y[n, o, :length] = np.maximum(y[n, o, :length] (+ bias[o]), 0)`` in place: the
    direct convolution's output rows through Conv2DReLU's epilogue (NOTE: [Conv
    epilogues] in spore/_prims/nn/conv.py) before the crop, over long contiguous rows
    that vectorise (the cropped rows are 10 to 28 wide). The values are those of the
    crop's ``y + bias`` and then NumPy's maximum: a NaN stays, -0.0 becomes +0.0."""
    zero = y.dtype.type(0)
    for n in range(y.shape[0]):
        for o in range(y.shape[1]):
            row = y[n, o, :length]
            b = bias[o]
            if add_bias:
                for p in range(length):
                    t = row[p] + b
                    row[p] = t if (t > zero) | (t != t) else zero
            else:
                for p in range(length):
                    t = row[p]
                    row[p] = t if (t > zero) | (t != t) else zero


@jit(signature="{f}[:, :, :, ::1], int64, {f}[:, :, :, ::1]")
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


@jit(signature="{f}[:, :, :, ::1], int64, {f}[:, :, ::1]")
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


# NOTE: [Direct convolution]
# A convolution with few taps per output (C*kh*kw small: LeNet's first layer
# has 25) spends most of its im2col + GEMM time moving columns that are kh*kw
# copies of the input (2.9 MB for LeNet's 130 KB batch), and the GEMM itself
# has a short inner dimension. The two loops below compute it directly on the
# flattened (padded) input in the row layout (NOTE: [im2col layouts]): tap
# (c, i, j) of output position p reads ``x[n, c].flat[offs[t] + p]`` with
# ``offs[t] = i*W + j``, so every inner loop is a long contiguous run that
# Numba vectorises. Each pass takes four taps and two output channels, which
# keeps loads per multiply-add low. Sums are taken in tap order with fused
# multiply-adds (and the filter gradient's per-position sums reordered into
# vector lanes), so values differ from the GEMM's in the last bits only.
@jit(fastmath={"contract"},
     signature="{f}[:, :, ::1], int64[::1], {f}[:, :, ::1], int64, {f}[:, :, ::1]")
def correlate_rows(x, offs, w, length, out):
    """``out[n, o, p] = sum over c, t of w[o, c, t] * x[n, c, offs[t] + p]``, p < length.

    ``x`` (N, C, S) and ``w`` (O, C, T) are contiguous; ``out`` is (N, O, >= length).
    """
    n_, c_ = x.shape[0], x.shape[1]
    o_, taps = w.shape[0], w.shape[2]
    spare = np.empty(length if o_ % 2 else 0, out.dtype)
    for n in range(n_):
        for o in range(0, o_, 2):
            pair = o + 1 < o_
            o1 = o + 1 if pair else o
            a0 = out[n, o, :length]
            # an odd last channel accumulates into a scratch row that is dropped
            a1 = out[n, o + 1, :length] if pair else spare[:length]
            a0[:] = 0
            a1[:] = 0
            for c in range(c_):
                xs = x[n, c]
                t = 0
                while t + 4 <= taps:
                    s0 = xs[offs[t]:offs[t] + length]
                    s1 = xs[offs[t + 1]:offs[t + 1] + length]
                    s2 = xs[offs[t + 2]:offs[t + 2] + length]
                    s3 = xs[offs[t + 3]:offs[t + 3] + length]
                    u0, u1, u2, u3 = w[o, c, t], w[o, c, t + 1], w[o, c, t + 2], w[o, c, t + 3]
                    v0, v1, v2, v3 = w[o1, c, t], w[o1, c, t + 1], w[o1, c, t + 2], w[o1, c, t + 3]
                    for p in range(length):
                        e0, e1, e2, e3 = s0[p], s1[p], s2[p], s3[p]
                        a0[p] += u0 * e0 + u1 * e1 + u2 * e2 + u3 * e3
                        a1[p] += v0 * e0 + v1 * e1 + v2 * e2 + v3 * e3
                    t += 4
                while t < taps:
                    s0 = xs[offs[t]:offs[t] + length]
                    u0, v0 = w[o, c, t], w[o1, c, t]
                    for p in range(length):
                        e0 = s0[p]
                        a0[p] += u0 * e0
                        a1[p] += v0 * e0
                    t += 1


@jit(fastmath={"contract", "reassoc"},
     signature="{f}[:, :, ::1], {f}[:, :, ::1], int64[::1], int64, {f}[:, :, ::1]")
def correlate_rows_filter_grad(x, dy, offs, length, dw):
    """``dw[o, c, t] = sum over n, p < length of dy[n, o, p] * x[n, c, offs[t] + p]``:
    the filter gradient of correlate_rows (``dy`` in the row layout, zeros in its
    wasted columns). ``dw`` is (O, C, T) and is overwritten."""
    n_, c_ = x.shape[0], x.shape[1]
    o_, taps = dw.shape[0], dw.shape[2]
    zero = dw.dtype.type(0)
    dw[...] = zero
    for n in range(n_):
        for o in range(0, o_, 2):
            pair = o + 1 < o_
            o1 = o + 1 if pair else o
            g0 = dy[n, o, :length]
            g1 = dy[n, o1, :length]
            for c in range(c_):
                xs = x[n, c]
                t = 0
                while t + 4 <= taps:
                    s0 = xs[offs[t]:offs[t] + length]
                    s1 = xs[offs[t + 1]:offs[t + 1] + length]
                    s2 = xs[offs[t + 2]:offs[t + 2] + length]
                    s3 = xs[offs[t + 3]:offs[t + 3] + length]
                    r0 = r1 = r2 = r3 = q0 = q1 = q2 = q3 = zero
                    for p in range(length):
                        h0, h1 = g0[p], g1[p]
                        e0, e1, e2, e3 = s0[p], s1[p], s2[p], s3[p]
                        r0 += h0 * e0
                        r1 += h0 * e1
                        r2 += h0 * e2
                        r3 += h0 * e3
                        q0 += h1 * e0
                        q1 += h1 * e1
                        q2 += h1 * e2
                        q3 += h1 * e3
                    dw[o, c, t] += r0
                    dw[o, c, t + 1] += r1
                    dw[o, c, t + 2] += r2
                    dw[o, c, t + 3] += r3
                    if pair:
                        dw[o1, c, t] += q0
                        dw[o1, c, t + 1] += q1
                        dw[o1, c, t + 2] += q2
                        dw[o1, c, t + 3] += q3
                    t += 4
                while t < taps:
                    s0 = xs[offs[t]:offs[t] + length]
                    r0 = q0 = zero
                    for p in range(length):
                        e0 = s0[p]
                        r0 += g0[p] * e0
                        q0 += g1[p] * e0
                    dw[o, c, t] += r0
                    if pair:
                        dw[o1, c, t] += q0
                    t += 1


@jit(signature="{f}[:, :, :, ::1], int64, {f}[:, ::1]")
def batch_inner_rows(a, row, out):
    """``out[c, (h*row + w)*N + n] = a[n, c, h, w]``, zeros in columns W..row-1: the
    (N, C, H, W) array ``a`` with the batch innermost, in ``row``-wide rows (the
    batch-inner direct convolution's operand; ``out`` is (C, H*row*N))."""
    n_, c_, h_, w_ = a.shape
    zero = out.dtype.type(0)
    for c in range(c_):
        dst = out[c]
        for r in range(h_):
            for q in range(w_ * n_, row * n_):
                dst[r * row * n_ + q] = zero
        for n in range(n_):
            src = a[n, c]
            for r in range(h_):
                s = src[r]
                d = dst[r * row * n_ + n:(r * row + w_) * n_]
                for q in range(w_):
                    d[q * n_] = s[q]


@jit(signature="{f}[:, ::1], int64, {f}[::1], boolean, {f}[:, :, :, ::1]")
def crop_batch_inner(y, row, bias, add_bias, out):
    """``out[n, o, r, q] = y[o, (r*row + q)*N + n] (+ bias[o])``: the inverse of
    batch_inner_rows, for the batch-inner direct convolution's output."""
    n_, o_, oh, ow = out.shape
    for n in range(n_):
        for o in range(o_):
            b = bias[o]
            src = y[o]
            for r in range(oh):
                s = src[r * row * n_ + n:(r * row + ow) * n_]
                dst = out[n, o, r]
                if add_bias:
                    for q in range(ow):
                        dst[q] = s[q * n_] + b
                else:
                    for q in range(ow):
                        dst[q] = s[q * n_]
