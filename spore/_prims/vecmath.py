"""Vectorised float32 ``tanh``, ``exp``, ``sigmoid`` and ``erf`` (and the fused softmax,
LayerNorm rows) for eager calls and O0 graphs.

NOTE: [Vectorised unary kernels]
NumPy's float32 ``tanh`` (and ``exp``, and sigmoid's three passes) are SIMD loops only
on AVX-512 CPUs; on AVX2 ones they call scalar libm (and ``erf``, GELU's, is SciPy's
scalar loop, or Python's ``math.erf`` per element without SciPy), several times slower than
PyTorch's vectorised kernels. Where the ``fast`` extra (Numba) is installed, a
float32 array of at least ``MIN_SIZE[loop]`` elements (measured per function) runs
instead through a one-pass Numba loop over the vectorisable approximations of
spore/_jit/approx.py (float32 arithmetic, 8 lanes on AVX2; the ones the O1 fusion
kernels use), compiled ``nogil`` so that arrays of MIN_SPLIT elements or more
run in chunks on Spore's thread pool (NOTE: [Threads]). Numerics: within 1 ulp of
the correctly rounded value, stated **2 ulp** (NumPy's own float32 loops are not
correctly rounded either); chunk boundaries depend on the size alone and every
element is computed by the same scalar function, so chunked calls give the bits of
one call.

The same kernel serves both modes, so PyNative and O0 give the same bits for the
same call: eager calls reach it through ``Primitive.par_kernel`` (``a.size >=
par_min``), compiled graphs through the primitive's specializer, which picks it for
float32 inputs of at least ``MIN_SIZE[loop]`` elements (the same threshold, so both modes
call the same kernel for the same size). The kernel decides at run time: Numba
on and its loops compiled for float32 (``_native.ready``, which compiles them in the
background the first time: NOTE: [Background compilation]) -> the loop; otherwise the
NumPy kernel, chunked as before from the primitive's old threshold. Without Numba
nothing is installed: every primitive keeps its NumPy kernel and thresholds.

Numba's disk cache keys these loops on this file alone: after an edit of approx.py, a
machine with the loops cached keeps the old approximations until this file changes
(touch it; ``tests/test_vecmath.py`` compares the loops with approx.py as it is).
"""
from __future__ import annotations

import numpy as np

from .. import _native
from .._core import threads
from .._native import jit

# Measured on the 2-vCPU AVX2 EPYC (one process, interleaved, loaded machine; the
# kernel's whole call, Numba loop vs NumPy's float32 ufunc or kernel, normal data): the
# float32-arithmetic loops win from 1,024 elements for tanh (0.93x at 1K, 0.5x at 4K),
# 2,048 for exp (0.9x at 2K, 0.7x at 4K), 256 for sigmoid (0.65-0.8x from 128: NumPy's
# takes three passes) and 512 for erf (0.94x; 0.8x from 1K); below, the ~2 us call
# overhead (dispatcher, output array) eats the gain. Chunked on two threads the loop
# beats one thread from ~128K elements (0.6x at 256K).
MIN_FAST = 1 << 12          # float32 elements from which the fused row loops run
MIN_SPLIT = 1 << 17         # elements from which it runs in chunks on the pool
CHUNK = 1 << 15             # smallest chunk (at most 8 per call)

_F32 = np.dtype(np.float32)

# the approximations, bound by _bind() before the first compilation (importing them
# imports Numba, which ``import spore`` must not)
tanh_span = exp_f32 = sigmoid_f32 = erf_f32 = exp_shifted_row = _fma = _row_stats = None


def _bind():
    approx = _native.approximations()
    import numba
    globals().update(tanh_span=approx.tanh_span, exp_f32=approx.exp_f32,
                     sigmoid_f32=approx.sigmoid_f32, erf_f32=approx.erf_f32,
                     exp_shifted_row=approx.exp_shifted_row, _fma=approx._fma,
                     _row_stats=numba.njit(cache=True, nogil=True, error_model="numpy",
                                           fastmath={"reassoc"})(_row_stats_py))


_LOOP = dict(signature="float32[::1], float32[::1]", nogil=True, dtypes=(_F32,), setup=_bind)


@jit(**_LOOP)
def tanh_loop(x, out):
    """out = tanh(x), elementwise over flat float32 arrays (``out`` may be ``x``), span
    by span (NOTE: [Tanh over spans] in spore/_jit/approx.py)."""
    tanh_span(x, out)


@jit(**_LOOP)
def exp_loop(x, out):
    """out = exp(x)."""
    for i in range(x.size):
        out[i] = exp_f32(x[i])


@jit(**_LOOP)
def sigmoid_loop(x, out):
    """out = 1 / (1 + exp(-x))."""
    for i in range(x.size):
        out[i] = sigmoid_f32(x[i])


@jit(**_LOOP)
def erf_loop(x, out):
    """out = erf(x) (GELU's exact form calls it)."""
    for i in range(x.size):
        out[i] = erf_f32(x[i])


# NOTE: [In-place loops]
# ``out`` is often ``x`` itself (O0's memory plan writes a tanh into its input's dead
# buffer). A two-array loop then fails LLVM's runtime overlap check and runs scalar:
# 3.8x slower on 256K elements here. One-array loops read and write the same element,
# which the vectoriser accepts.
_LOOP1 = dict(_LOOP, signature="float32[::1]")


@jit(**_LOOP1)
def tanh_inplace(x):
    tanh_span(x, x)


@jit(**_LOOP1)
def exp_inplace(x):
    for i in range(x.size):
        x[i] = exp_f32(x[i])


@jit(**_LOOP1)
def sigmoid_inplace(x):
    for i in range(x.size):
        x[i] = sigmoid_f32(x[i])


@jit(**_LOOP1)
def erf_inplace(x):
    for i in range(x.size):
        x[i] = erf_f32(x[i])


_INPLACE = {tanh_loop: tanh_inplace, exp_loop: exp_inplace, sigmoid_loop: sigmoid_inplace,
            erf_loop: erf_inplace}
# float32 elements from which each loop runs instead of NumPy (measured: see above)
MIN_SIZE = {tanh_loop: 1 << 10, exp_loop: 1 << 11, sigmoid_loop: 1 << 8, erf_loop: 1 << 9}


# NOTE: [Softmax rows]
# Softmax and its gradient on float32 rows (the last axis) as one loop per row, each
# row's passes in L1: the NumPy form makes four or five passes over a tile, each a
# ufunc call. ``softmax_rows``: the row max ``m`` (eight running maxima, which LLVM
# vectorises; a NaN anywhere makes the whole row NaN, as NumPy's max does), then
# ``e = exp(x - m)`` in float32 arithmetic with ``x - m`` carried exactly (NOTE: [Shifted
# exp rows] in spore/_jit/approx.py; 8 lanes: 0.78x the time of the float64 exp it
# replaced, 4.0 against 5.1 ms for W5's (8, 8, 197, 197) on one thread), summed in
# float64, then ``e * (1 / sum)`` rounded once: within about 2 ulp of the exact softmax
# of the float32 input (max 1.98 over 59M random elements, 2.05 over 60M normal ones
# scaled by 0.5-23.5; the float64 exp gave 1.65: both roundings of e, in the term and
# in the sum, count, and an ulp of e is up to two of the result's). The product is
# taken in float32 lanes: ``1 / sum`` split into float32 ``hi + lo`` (together within
# 2^-48 of it), then ``fma(e, hi, e * lo)``. The float64 product rounded to float32
# took 0.26 ns more an element (0.6 ms of W5's softmax on the AVX-512 EPYC) and rounds
# twice (the two differ by 1 ulp in 0.035% of elements). ``softmax_grad_rows``:
# ``y * (g - sum(g * y))`` with the sum and
# the product in float64, rounded once. "reassoc" lets the sums vectorise (their order
# is fixed by the compiled loop, the same for every row, so row tiles on the pool give
# the bits of one call).
_ROWS = dict(signature="float32[:, ::1], float32[:, ::1], float32[:, ::1]", nogil=True,
             dtypes=(_F32,), setup=_bind, fastmath={"reassoc"})


@jit(**dict(_ROWS, signature="float32[:, ::1], float32[:, ::1]"))
def softmax_rows(x, out):
    """out = softmax(x) along the last axis of C-contiguous float32 (rows, n) arrays."""
    n = x.shape[1]
    for r in range(x.shape[0]):
        xr = x[r]
        o = out[r]
        m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = xr[0]
        j = 0
        while j + 8 <= n:
            v0, v1, v2, v3 = xr[j], xr[j + 1], xr[j + 2], xr[j + 3]
            v4, v5, v6, v7 = xr[j + 4], xr[j + 5], xr[j + 6], xr[j + 7]
            m0 = v0 if v0 > m0 else m0
            m1 = v1 if v1 > m1 else m1
            m2 = v2 if v2 > m2 else m2
            m3 = v3 if v3 > m3 else m3
            m4 = v4 if v4 > m4 else m4
            m5 = v5 if v5 > m5 else m5
            m6 = v6 if v6 > m6 else m6
            m7 = v7 if v7 > m7 else m7
            j += 8
        for k in range(j, n):
            v = xr[k]
            m0 = v if v > m0 else m0
        m = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
        exp_shifted_row(xr, m, o)                        # NOTE: [Shifted exp rows]
        s = 0.0
        for k in range(n):
            s += np.float64(o[k])
        inv = 1.0 / s                                    # as hi + lo, float32 each
        hi = np.float32(inv)
        lo = np.float32(inv - np.float64(hi))
        for k in range(n):
            v = o[k]
            o[k] = _fma(v, hi, v * lo)


@jit(**_ROWS)
def softmax_grad_rows(y, g, out):
    """out = y * (g - sum(g * y)) along the last axis (softmax's gradient)."""
    n = y.shape[1]
    for r in range(y.shape[0]):
        yr = y[r]
        gr = g[r]
        o = out[r]
        s = 0.0
        for k in range(n):
            s += np.float64(gr[k]) * np.float64(yr[k])
        for k in range(n):
            o[k] = np.float32(np.float64(yr[k]) * (np.float64(gr[k]) - s))


def usable():
    """Whether the loops run now: Numba on and the float32 loops compiled (the first
    call starts compiling them: NOTE: [Background compilation])."""
    return _native.enabled() and _native.ready(_F32)


def _compiled(loop):
    """The Numba dispatcher of a loaded loop (skipping its lazy wrapper), else ``loop``."""
    return getattr(loop, "_compiled", None) or loop


def run(loop, x, out=None):
    """``loop`` over the float32 array ``x`` into ``out`` (or a new array), in chunks on
    the pool from MIN_SPLIT elements; chunk boundaries depend on the size alone.

    A small call (W1a's 1,024-element tanh) is mostly this function's overhead, so the
    common cases take the short path: C-contiguous ``x``, ``out`` absent, ``x`` itself,
    or a C-contiguous float32 array apart from ``x``."""
    n = x.size
    if n < MIN_SPLIT and x.flags.c_contiguous:
        if out is None:
            res = np.empty_like(x)
            _compiled(loop)(x.ravel(), res.ravel())     # ravel: a view here
            return res
        if out is x:                                     # NOTE: [In-place loops]
            _compiled(_INPLACE[loop])(x.ravel())
            return out
        if out.dtype == _F32 and out.flags.c_contiguous and out.shape == x.shape \
                and not np.may_share_memory(out, x):
            _compiled(loop)(x.ravel(), out.ravel())
            return out
    src = np.ascontiguousarray(x).reshape(-1)
    direct = out is not None and out.flags.c_contiguous and out.dtype == _F32
    res = out if direct else np.empty(x.shape, _F32)
    dst = res.reshape(-1)
    inplace = dst.ctypes.data == src.ctypes.data          # NOTE: [In-place loops]
    one = _INPLACE[loop] if inplace else None
    if n < MIN_SPLIT:
        one(dst) if inplace else loop(src, dst)
    else:
        ranges = threads.chunks(n, CHUNK, 8)

        def body(i):
            lo, hi = ranges[i]
            one(dst[lo:hi]) if inplace else loop(src[lo:hi], dst[lo:hi])
        threads.for_each(body, len(ranges),
                         whole=lambda: one(dst) if inplace else loop(src, dst))
    if out is not None and not direct:
        out[...] = res
        return out
    return res


# NOTE: [Layer norm rows]
# LayerNorm over the last axis of float32 (rows, w) data, one loop per row tile: the
# row mean and the mean of squared deviations summed in float64 (two passes in L1),
# ``rstd = 1 / sqrt(var + eps)`` in float64, the output ``(x - mean) * rstd * gamma +
# beta`` rounded once. The gradient recomputes ``xhat`` the same way and accumulates
# ``dgamma``/``dbeta`` in float64 per tile (the caller adds the tiles in order, so the
# thread count does not change the bits). Within 2 ulp of the float64 formula where no
# cancellation intervenes; not the NumPy path's bits (it sums in float32 by BLAS).
@jit(signature="float32[:, ::1], float32[::1], float32[::1], boolean, float64, "
               "float32[:, ::1], float32[::1], float32[::1]",
     nogil=True, dtypes=(_F32,), setup=_bind, fastmath={"reassoc"})
def layer_norm_rows(x, gamma, beta, affine, eps, out, mean, rstd):
    """out = (x - mean) * rstd [* gamma + beta] per row; the row mean and rstd."""
    w = x.shape[1]
    for r in range(x.shape[0]):
        xr = x[r]
        o = out[r]
        mu, rs = _row_stats(xr, w, eps)
        if affine:
            for k in range(w):
                o[k] = np.float32((xr[k] - mu) * rs * gamma[k] + beta[k])
        else:
            for k in range(w):
                o[k] = np.float32((xr[k] - mu) * rs)
        mean[r] = mu
        rstd[r] = rs


@jit(signature="float32[:, ::1], float32[:, ::1], float32[::1], boolean, float64, "
               "float32[:, ::1], float64[::1], float64[::1]",
     nogil=True, dtypes=(_F32,), setup=_bind, fastmath={"reassoc"})
def layer_norm_grad_rows(x, dy, gamma, affine, eps, dx, dgamma, dbeta):
    """dx of LayerNorm per row; adds the rows' dgamma and dbeta into the float64 sums."""
    w = x.shape[1]
    for r in range(x.shape[0]):
        xr = x[r]
        gr = dy[r]
        o = dx[r]
        mu, rs = _row_stats(xr, w, eps)
        proj = 0.0
        md = 0.0
        for k in range(w):
            xhat = (xr[k] - mu) * rs
            g = np.float64(gr[k])
            if affine:
                dgamma[k] += g * xhat
                dbeta[k] += g
                g *= gamma[k]
            proj += g * xhat
            md += g
        proj /= w
        md /= w
        for k in range(w):
            g = np.float64(gr[k]) * gamma[k] if affine else np.float64(gr[k])
            o[k] = np.float32((g - (xr[k] - mu) * rs * proj - md) * rs)


def _row_stats_py(xr, w, eps):
    """A row's mean and 1 / sqrt(var + eps), in float64 (compiled by _bind)."""
    s = 0.0
    for k in range(w):
        s += xr[k]
    mu = s / w
    q = 0.0
    for k in range(w):
        d = xr[k] - mu
        q += d * d
    return mu, 1.0 / np.sqrt(q / w + eps)


def rows_kernel(loop, xp, x):
    """``loop`` as the row-tile block of a softmax-like kernel on ``x`` (NOTE: [Softmax
    rows]), or None for the NumPy blocks: other backends and dtypes, arrays below
    MIN_FAST elements (a small softmax must not import Numba), Numba off. Decided once
    per call from the whole array, so every tile takes the same path."""
    if xp is not np or x.dtype != _F32 or x.size < MIN_FAST or not usable():
        return None
    return lambda *blocks: loop(*blocks)


def exp_into(xp, x, out):
    """``xp.exp(x, out=out)`` for a fused kernel's block (softmax's row tiles): the
    vectorised loop on C-contiguous float32 NumPy blocks of MIN_FAST elements or more
    while ``usable()``, on this thread (the tiles are what runs in parallel)."""
    if xp is np and out.dtype == _F32 and x.dtype == _F32 and out.size >= MIN_FAST \
            and out.flags.c_contiguous and x.flags.c_contiguous and usable():
        exp_loop(x.reshape(-1), out.reshape(-1))
        return out
    return xp.exp(x, out=out)


def _numpy_call(numpy_kernel, x, out):
    """The primitive's NumPy kernel on ``x``, into ``out`` when given."""
    if out is None:
        return numpy_kernel(x)
    if isinstance(numpy_kernel, np.ufunc):
        return numpy_kernel(x, out=out)
    out[...] = numpy_kernel(x)
    return out


def kernel_for(loop, prim):
    """The kernel ``f(x, out=None)`` of a unary primitive: ``loop`` on float32 arrays
    while ``usable()``, else the primitive's NumPy kernel, chunked from its old
    threshold (the bits of one call either way). Its callers choose it for arrays of
    ``MIN_SIZE[loop]`` or more elements; it does not look at the size again, so a fused
    group's NumPy tile loop (spore/_jit/fusion.py) gets the same bits in its last, short
    tile."""
    numpy_kernel, composite = prim._cpu, prim.par_composite

    def kernel(x, out=None):
        if x.dtype == _F32 and usable():
            return run(loop, x, out)
        if x.size >= kernel.numpy_min and out is None:
            return threads.elementwise(numpy_kernel, (x,), composite)
        return _numpy_call(numpy_kernel, x, out)
    kernel.__name__ = kernel.__qualname__ = f"{prim.name.lower()}_vectorised"
    kernel.numpy_min = prim.par_min        # where the NumPy kernel runs in chunks
    return kernel


def install(prim, loop):
    """Route large float32 calls of the unary primitive ``prim`` through ``loop`` in both
    modes (NOTE: [Vectorised unary kernels]); nothing changes without Numba."""
    if not _native.installed():
        return prim
    kernel = kernel_for(loop, prim)
    prim.par_kernel = kernel
    least = MIN_SIZE[loop]
    prim.par_min = min(prim.par_min, least)

    numpy_kernel = prim._cpu

    def sized(x, out=None):
        """A shape known only at run time: PyNative's choice, made per call."""
        if x.size >= least:
            return kernel(x, out)
        return _numpy_call(numpy_kernel, x, out)

    def specialize(attrs, avals):
        (x,) = avals
        dtype = getattr(x, "dtype", None)
        if attrs or dtype is None or np.dtype(dtype) != _F32:
            return None
        size = 1
        for d in x.shape:
            if type(d) is not int or d < 0:
                return sized                # a dynamic size (NOTE: [Dynamic axes])
            size *= d
        return kernel if size >= least else None
    prim.specializer = specialize
    return prim
