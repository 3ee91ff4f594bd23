"""2-D convolution as im2col + GEMM, and its two gradient primitives.

conv1d runs as a conv2d over a height-1 image, and conv_transpose2d is the
input gradient of a convolution. The three primitives are linear in each
argument and close under differentiation:

    y  = Conv2D(x, w)             dx = Conv2DBackpropInput(dy, w)
                                  dw = Conv2DBackpropFilter(x, dy)

NOTE: [im2col layouts]
Columns have shape (N, C*kh*kw, L), so one batched GEMM with the weight gives
the output in NCHW order. With stride 1 each column row is a contiguous slice
of the flattened (padded) image: position ``p = oh * Wp + ow`` for every
padded column ``ow`` (the last ``kw - 1`` are wasted work), which makes the
copy long runs of memcpy. Other strides use a 6-D strided view
(p = oh * OW + ow). The filter gradient of a larger convolution takes its
columns as (C*kh*kw, N*L), so that one GEMM covers the batch, and the stride-1
input gradient puts the batch innermost (see _input_grad_batch_inner).

Large convolutions run over chunks of the batch (NOTE: [Batch chunks]);
patch embeddings (stride = kernel) have their own layout (NOTE: [Patch
convolutions]).

Attributes: ``stride`` (sh, sw), ``pads`` (top, bottom, left, right),
``dilation`` (dh, dw) and ``groups``; the gradients also carry the shape they
produce (``input_shape`` / ``filter_shape``).
"""
from __future__ import annotations

import functools
import math
import threading
import weakref

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ..reduce import sum_p
from . import _loops
from ._common import (SCRATCH_LIMIT, check_float, check_same_dtype, compute_dtype, scratch,
                      validated)

GEOMETRY = ("stride", "pads", "dilation", "groups")


def out_size(size, k, stride, pad_lo, pad_hi, dilation):
    return (size + pad_lo + pad_hi - dilation * (k - 1) - 1) // stride + 1


def output_hw(hw, khw, stride, pads, dilation):
    (h, w), (kh, kw) = hw, khw
    return (out_size(h, kh, stride[0], pads[0], pads[1], dilation[0]),
            out_size(w, kw, stride[1], pads[2], pads[3], dilation[1]))


def geometry(attrs):
    return {k: attrs[k] for k in GEOMETRY}


# ----------------------------------------------------------------- layouts
def _pad(xp, x, pads):
    """The zero-padded input, in scratch memory (NOTE: [Scratch buffers])."""
    if not any(pads):
        return x
    pt, pb, pl, pr = pads
    n, c, h, w = x.shape
    out = scratch(xp, "conv-pad", (n, c, h + pt + pb, w + pl + pr), x.dtype)
    out.fill(0)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _row_layout(stride):
    return tuple(stride) == (1, 1)


# The row layout's copies run as compiled loops where _loops.usable (NOTE: [Native
# loops]): NumPy pays its per-row cost on every short output row (LeNet's first
# convolution: 0.12 ms to crop its GEMM output, 0.02 ms compiled).
def _im2col(xp, x, khw, stride, pads, dilation, batch_inner=False):
    """Columns (N, C*kh*kw, L) of the padded input, with (OH, OW, row) as in the NOTE.

    ``batch_inner`` gives (C*kh*kw, N*L) instead: one GEMM then covers the whole batch.
    """
    x = _pad(xp, x, pads)
    n, c, hp, wp = x.shape
    (kh, kw), (sh, sw), (dh, dw) = khw, stride, dilation
    oh, ow = output_hw((hp, wp), khw, stride, (0, 0, 0, 0), dilation)
    if _row_layout(stride):
        x = xp.ascontiguousarray(x)
        sn, sc, s_h, s_w = x.strides
        positions, row = ((oh - 1) * wp + ow,), (s_w,)
        geometry = (oh, ow, wp)
    else:
        sn, sc, s_h, s_w = x.strides
        positions, row = (oh, ow), (sh * s_h, sw * s_w)
        geometry = (oh, ow, None)
    taps, tap_strides = (c, kh, kw), (sc, dh * s_h, dw * s_w)
    length = math.prod(positions)
    if batch_inner:
        shape, strides = taps + (n,) + positions, tap_strides + (sn,) + row
        cols_shape = (c * kh * kw, n * length)
    else:
        shape, strides = (n,) + taps + positions, (sn,) + tap_strides + row
        cols_shape = (n, c * kh * kw, length)
    view = xp.lib.stride_tricks.as_strided(x, shape, strides)
    if (kh, kw) == (1, 1) and not batch_inner and geometry[2] is not None:
        return (view.reshape(cols_shape),) + geometry        # already a plain view of x
    cols = scratch(xp, "im2col", shape, x.dtype)
    if _loops.usable(xp, x.dtype) and geometry[2] is not None and (dh, dw) == (1, 1):
        taps_n = (c * kh * kw, n) if batch_inner else (n, c * kh * kw)
        _loops.im2col_rows(x, kh, kw, batch_inner, cols.reshape(taps_n + (length,)))
    else:
        cols[...] = view
    return (cols.reshape(cols_shape),) + geometry


def _from_cols(xp, y, oh, ow, row, bias, out):
    """Write the row-layout (N, O, L) GEMM output ``y`` into ``out`` (N, O, OH, OW), adding
    the bias in the same pass."""
    n, o, _ = y.shape
    if _loops.usable(xp, y.dtype) and y.flags.c_contiguous:
        _loops.crop_rows(y, row, np.zeros(o, y.dtype) if bias is None else bias, bias is not None, out)
        return
    sn, so, sl = y.strides
    view = xp.lib.stride_tricks.as_strided(y, (n, o, oh, ow), (sn, so, row * sl, sl))
    if bias is None:
        out[...] = view
    else:
        xp.add(view, bias.reshape(o, 1, 1), out=out)


def _to_cols(xp, dy, row):
    """(N, O, OH, OW) -> (N, O, L): the inverse of _from_cols (zeros in wasted columns)."""
    n, o, oh, ow = dy.shape
    if row is None:
        return xp.ascontiguousarray(dy).reshape(n, o, oh * ow)
    return _padded_rows(xp, dy, row)[..., :(oh - 1) * row + ow]


def _padded_rows(xp, dy, row):
    """(N, O, OH, OW) -> contiguous (N, O, OH*row), zeros in columns OW..row-1 (scratch)."""
    n, o, oh, ow = dy.shape
    buf = scratch(xp, "conv-dy", (n, o, oh, row), dy.dtype)
    if _loops.usable(xp, dy.dtype):
        _loops.pad_rows(xp.ascontiguousarray(dy), row, buf)
    else:
        buf[..., ow:] = 0
        buf[..., :ow] = dy
    return buf.reshape(n, o, oh * row)


def _col2im(xp, dcols, pads, khw, stride, dilation, out):
    """Sum columns (N, C, kh, kw, OH*OW) into ``out`` (N, C, H, W): the adjoint of _im2col
    for strides other than 1 (stride 1 has its own layout: _input_grad_batch_inner)."""
    n, c, h, w = out.shape
    pt, pb, pl, pr = pads
    _, oh, ow = _positions((h + pt + pb, w + pl + pr), khw, stride, dilation)
    (kh, kw), (sh, sw), (dh, dw) = khw, stride, dilation
    dxp = scratch(xp, "conv-dx", (n, c, h + pt + pb, w + pl + pr), dcols.dtype) \
        if any(pads) else out
    dxp.fill(0)
    d6 = dcols.reshape(n, c, kh, kw, oh, ow)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dh, j * dw
            dxp[:, :, r0:r0 + sh * (oh - 1) + 1:sh, c0:c0 + sw * (ow - 1) + 1:sw] += d6[:, :, i, j]
    if any(pads):
        out[...] = dxp[:, :, pt:pt + h, pl:pl + w]


def _positions(padded_hw, khw, stride, dilation):
    """(L, OH, OW): column positions per sample of the layout _im2col uses."""
    oh, ow = output_hw(padded_hw, khw, stride, (0, 0, 0, 0), dilation)
    if _row_layout(stride):
        return (oh - 1) * padded_hw[1] + ow, oh, ow
    return oh * ow, oh, ow


# NOTE: [Patch convolutions]
# A convolution whose stride equals its kernel, without padding, dilation or groups
# (a ViT's patch embedding), reads every input element at most once: its columns
# are a plain rearrangement of the input, (N*OH*OW, C*kh*kw) with patch rows
# copied as runs of kw elements (by ``_loops.patch_rows`` where the compiled loops
# serve: W5's columns in 0.58x the time of NumPy's 6-D copy, 0.50 against 0.86 ms),
# and each of the three products is one GEMM over
# the whole batch (instead of one per sample through the general layout's
# strided gather). The products keep the positions as rows, channels last: the
# forward GEMM writes (N*OH*OW, O) and the kernel returns it as an NCHW-shaped view
# (a ViT flattens and transposes it back to (N, OH*OW, O) at no cost), and the two
# gradients read ``dy`` as (N*OH*OW, O) rows, which is a view, or a copy of whole
# rows, where ``dy`` came back through that transpose. Moving either to or from NCHW
# order instead took 0.2 ms forward and 0.4 ms for the filter gradient of W5's
# (8, 256, 14, 14) on the AVX-512 EPYC. The products are the same sums with their
# operands' roles swapped (NumPy 2.4's OpenBLAS gave the same bits there).
def _is_patch_conv(khw, stride, pads, dilation, groups):
    return (tuple(stride) == tuple(khw) and not any(pads) and tuple(dilation) == (1, 1)
            and groups == 1 and khw[0] * khw[1] > 1)


def _patch_view(x, khw, ohw):
    """(N, OH, OW, C, kh, kw) view of the patches of ``x`` (cropped to whole patches)."""
    n, c = x.shape[:2]
    (kh, kw), (oh, ow) = khw, ohw
    return x[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw).transpose(0, 2, 4, 1, 3, 5)


def _patch_cols(xp, x, khw, ohw, reuse=False):
    """The patch columns (N*OH*OW, C*kh*kw), in scratch memory.

    The filter gradient of a patch convolution reads the columns its forward pass
    built, so the columns of the last input are kept (one slot per thread) and, with
    ``reuse``, taken again while that very array is alive: the tape hands the
    backward pass the array the forward pass saw, and snapshots it first if anything
    writes to it in place. The forward pass always builds them afresh.
    """
    view = _patch_view(x, khw, ohw)
    cols = scratch(xp, "patch-cols", view.shape, x.dtype)
    rows = cols.reshape(-1, x.shape[1] * khw[0] * khw[1])
    key = (khw, x.shape, x.strides)
    last = getattr(_patch_memo, "last", None)
    if reuse and last is not None and last[0]() is x and last[1] == key:
        return rows
    if x.strides[-1] == x.itemsize and _loops.usable(xp, x.dtype):
        _loops.patch_rows(x, khw[0], khw[1], rows)       # runs of kw, row by input row
    else:
        cols[...] = view
    kept = xp is np and cols.nbytes <= SCRATCH_LIMIT     # else scratch is not kept
    _patch_memo.last = (weakref.ref(x), key) if kept else None
    return rows


_patch_memo = threading.local()


def _patch_conv2d(xp, x, w, b, oh, ow):
    """The patch convolution as an (N, O, OH, OW) view of channels-last memory."""
    o = w.shape[0]
    y = xp.matmul(_patch_cols(xp, x, w.shape[2:], (oh, ow)), w.reshape(o, -1).T)
    if b is not None:
        y += b
    return y.reshape(x.shape[0], oh, ow, o).transpose(0, 3, 1, 2)


def _dy_rows(dy):
    """``dy`` (N, O, OH, OW) as (N*OH*OW, O) rows: a view where its memory is channels
    last (a patch convolution's own output layout), else a copy."""
    return dy.transpose(0, 2, 3, 1).reshape(-1, dy.shape[1])


def _patch_filter_grad(xp, x, dy, filter_shape):
    cols = _patch_cols(xp, x, filter_shape[2:], dy.shape[2:], reuse=True)
    return xp.matmul(_dy_rows(dy).T, cols).reshape(filter_shape)


def _patch_input_grad(xp, dy, w, out):
    o, c, kh, kw = w.shape
    n, _, oh, ow = dy.shape
    dcols = xp.matmul(_dy_rows(dy), w.reshape(o, -1))
    if out.shape[2:] != (oh * kh, ow * kw):
        out.fill(0)                       # rows/columns no whole patch covers
    _patch_view(out, (kh, kw), (oh, ow))[...] = dcols.reshape(n, oh, ow, c, kh, kw)


# NOTE: [Batch chunks]
# Columns hold kh*kw copies of the input; for a large convolution (a 3x3 one on a
# batch of 56x56 feature maps: hundreds of MB) the kernels run over chunks of the
# batch whose columns take about CHUNK_BYTES, so memory stays bounded, the
# scratch buffers are reused, and the GEMM reads columns while they are in cache.
CHUNK_BYTES = 8 << 20


def _chunks(n, per_sample_bytes):
    step = max(1, CHUNK_BYTES // max(per_sample_bytes, 1))
    return [(lo, min(lo + step, n)) for lo in range(0, max(n, 1), step)] if n else []


def _padded_hw(shape, pads):
    return shape[2] + pads[0] + pads[1], shape[3] + pads[2] + pads[3]


def _cols_bytes(x_shape, khw, stride, pads, dilation, itemsize):
    length = _positions(_padded_hw(x_shape, pads), khw, stride, dilation)[0]
    return x_shape[1] * khw[0] * khw[1] * length * itemsize


# ----------------------------------------------------------------- direct convolution
# Convolutions with at most DIRECT_TAPS taps per output (C*kh*kw) and few output
# channels run as compiled direct loops (NOTE: [Direct convolution]) rather than
# im2col + GEMM: both LeNet layers (25 and 150 taps; 6 and 16 channels) and an RGB
# stem's filter gradient qualify. With many output channels the GEMM's larger M
# wins. Measured (batch 32, float32, median ms, GEMM -> direct; "cold" after
# evicting the caches, as in a training step whose activations outgrow them):
#   taps x channels      forward warm / cold            filter grad warm / cold
#   25 x 6  (LeNet 1)    0.19 -> 0.15 / 0.62 -> 0.25    0.21 -> 0.16 / 0.56 -> 0.23
#   150 x 16 (LeNet 2)   0.42 -> 0.34 / 0.56 -> 0.45    0.39 -> 0.33 / 0.62 -> 0.47
#   54 x 16              0.60 -> 0.81 / 1.32 -> 0.96    0.91 -> 0.64 / 1.67 -> 0.84
#   144 x 32             0.35 -> 0.44 / 0.53 -> 0.52    0.40 -> 0.35 / 0.66 -> 0.56
#   27 x 64  (RGB stem)  1.96 -> 2.76 / 2.29 -> 3.05    3.97 -> 2.34 / 4.72 -> 3.17
#   288 x 64             1.30 -> 1.61 / 1.37 -> 1.77    0.93 -> 1.43 / 1.26 -> 1.82
DIRECT_TAPS = 160
DIRECT_FORWARD_CHANNELS = 16
DIRECT_FILTER_GRAD_CHANNELS = 64


def _direct(xp, dtype, filter_shape, stride, dilation, groups, size, max_out_channels):
    """Whether a kernel with this geometry takes the direct loops; ``max_out_channels`` is
    DIRECT_FORWARD_CHANNELS or DIRECT_FILTER_GRAD_CHANNELS."""
    o, cg, kh, kw = filter_shape
    return (size > 0 and groups == 1 and tuple(stride) == (1, 1)
            and tuple(dilation) == (1, 1) and (kh, kw) != (1, 1) and o <= max_out_channels
            and cg * kh * kw <= DIRECT_TAPS and _loops.usable(xp, dtype))


@functools.lru_cache(maxsize=64)
def _tap_offsets(kh, kw, row):
    """Where tap (i, j) starts in a flattened plane of ``row``-wide rows: i*row + j."""
    offs = (np.arange(kh)[:, None] * row + np.arange(kw)).reshape(-1).astype(np.int64)
    offs.flags.writeable = False
    return offs


# Per-sample rows shorter than this run with the batch innermost (NOTE: [Direct
# convolution]): LeNet's second layer has 136-position rows, which left the
# vector loops mostly in their set-up and remainder code (0.45 ms per sample-major
# forward pass vs 0.28 batch-inner, warm caches).
DIRECT_MIN_ROW = 512


class _DirectLayout:
    """The operands of the direct loops for one convolution's geometry.

    Per sample: ``x[n, c].flat`` in the padded row layout, ``(N, C, Hp*Wp)``.
    Batch inner: the same with the batch as the innermost axis, ``(1, C, Hp*Wp*N)``,
    so one run covers the whole batch and tap offsets scale by N.
    """

    def __init__(self, n, khw, padded_hw, ohw):
        (kh, kw), (hp, self.row), (self.oh, self.ow) = khw, padded_hw, ohw
        self.n = n
        positions = (self.oh - 1) * self.row + self.ow
        self.batch_inner = positions < DIRECT_MIN_ROW and n > 1
        scale = n if self.batch_inner else 1
        self.offsets = _tap_offsets(kh, kw, self.row) * scale
        self.length = positions * scale
        self.plane = hp * self.row

    def input(self, xp, x, pads):
        x = xp.ascontiguousarray(_pad(xp, x, pads))
        n, c = x.shape[:2]
        if not self.batch_inner:
            return x.reshape(n, c, self.plane)
        out = scratch(xp, "conv-direct-x", (1, c, self.plane * n), x.dtype)
        _loops.batch_inner_rows(x, self.row, out[0])
        return out

    def rows(self, xp, dy):
        """``dy`` (N, O, OH, OW) in the row layout, zeros in the wasted columns."""
        if not self.batch_inner:
            return _padded_rows(xp, dy, self.row)
        n, o = dy.shape[:2]
        out = scratch(xp, "conv-dy", (1, o, self.oh * self.row * n), dy.dtype)
        _loops.batch_inner_rows(xp.ascontiguousarray(dy), self.row, out[0])
        return out

    def output(self, xp, o, dtype):
        shape = (1, o, self.oh * self.row * self.n) if self.batch_inner else \
            (self.n, o, self.oh * self.row)
        return scratch(xp, "conv-gemm", shape, dtype)

    def crop(self, y, bias, out):
        o = out.shape[1]
        b = np.zeros(o, out.dtype) if bias is None else bias
        if self.batch_inner:
            _loops.crop_batch_inner(y[0], self.row, b, bias is not None, out)
        else:
            _loops.crop_rows(y, self.row, b, bias is not None, out)


def _direct_conv2d(xp, x, w, b, pads, out, relu=False):
    n, o, oh, ow = out.shape
    _, c, kh, kw = w.shape
    layout = _DirectLayout(n, (kh, kw), _padded_hw(x.shape, pads), (oh, ow))
    y = layout.output(xp, o, out.dtype)
    _loops.correlate_rows(layout.input(xp, x, pads), layout.offsets,
                          xp.ascontiguousarray(w).reshape(o, c, kh * kw), layout.length, y)
    if relu:              # NOTE: [Conv epilogues]: bias and ReLU over the uncropped rows
        _loops.bias_relu_rows(y, np.zeros(o, y.dtype) if b is None else b, b is not None,
                              layout.length)
        b = None
    layout.crop(y, b, out)


def _direct_filter_grad(xp, x, dy, filter_shape, pads):
    o, c, kh, kw = filter_shape
    n, _, oh, ow = dy.shape
    layout = _DirectLayout(n, (kh, kw), _padded_hw(x.shape, pads), (oh, ow))
    dw = xp.empty((o, c, kh * kw), dy.dtype)
    _loops.correlate_rows_filter_grad(layout.input(xp, x, pads), layout.rows(xp, dy),
                                      layout.offsets, layout.length, dw)
    return dw.reshape(filter_shape)


# ----------------------------------------------------------------- kernels
def _make_conv2d(xp):
    def conv2d(x, w, *bias, stride, pads, dilation, groups):
        return _conv2d(xp, x, w, bias, stride, pads, dilation, groups)
    return conv2d


def _conv2d(xp, x, w, bias, stride, pads, dilation, groups, relu=False):
    """The Conv2D kernel; with ``relu`` (Conv2DReLU: float32/float64 only, NOTE: [Conv
    epilogues]) the result of ReLU applied to it: the direct loops apply it before
    cropping, the other paths in one pass at the end."""
    dt = x.dtype
    cdt = compute_dtype(dt)
    x, w = x.astype(cdt, copy=False), w.astype(cdt, copy=False)
    o, _, kh, kw = w.shape
    oh, ow = output_hw(x.shape[2:], (kh, kw), stride, pads, dilation)
    b = bias[0].astype(cdt, copy=False) if bias else None
    if _is_patch_conv((kh, kw), stride, pads, dilation, groups):
        out = _patch_conv2d(xp, x, w, b, oh, ow)
        return _relu_if(xp, out, relu).astype(dt, copy=False)
    out = xp.empty((x.shape[0], o, oh, ow), cdt)
    if _direct(xp, cdt, w.shape, stride, dilation, groups, out.size,
               DIRECT_FORWARD_CHANNELS):
        _direct_conv2d(xp, x, w, b, pads, out, relu)
        return out.astype(dt, copy=False)
    per_sample = _cols_bytes(x.shape, (kh, kw), stride, pads, dilation, cdt.itemsize)
    for lo, hi in _chunks(x.shape[0], per_sample):
        cols, _, _, row = _im2col(xp, x[lo:hi], (kh, kw), stride, pads, dilation)
        ckk, length = cols.shape[1] // groups, cols.shape[-1]
        shape = (hi - lo, groups, o // groups, length)
        # the strided layout's GEMM writes the output itself; the row layout's is copied
        y = out[lo:hi].reshape(shape) if row is None else scratch(xp, "conv-gemm", shape,
                                                                    cdt)
        xp.matmul(w.reshape(groups, o // groups, ckk),
                  cols.reshape(hi - lo, groups, ckk, length), out=y)
        if row is not None:
            _from_cols(xp, y.reshape(hi - lo, o, length), oh, ow, row, b, out[lo:hi])
        elif b is not None:
            out[lo:hi] += b.reshape(o, 1, 1)
    return _relu_if(xp, out, relu).astype(dt, copy=False)


def _relu_if(xp, out, relu):
    """``out`` through ReLU's kernel (``maximum(out, 0)``, in place) where ``relu``."""
    return xp.maximum(out, out.dtype.type(0), out=out) if relu else out


def _make_conv2d_relu(xp):
    def conv2d_relu(x, w, *bias, stride, pads, dilation, groups):
        return _conv2d(xp, x, w, bias, stride, pads, dilation, groups, relu=True)
    return conv2d_relu


def _make_input_grad(xp):
    def conv2d_input_grad(dy, w, *, input_shape, stride, pads, dilation, groups):
        dt = dy.dtype
        cdt = compute_dtype(dt)
        dy, w = dy.astype(cdt, copy=False), w.astype(cdt, copy=False)
        khw = tuple(w.shape[2:])
        out = xp.empty(input_shape, cdt)
        if _is_patch_conv(khw, stride, pads, dilation, groups):
            _patch_input_grad(xp, dy, w, out)
            return out.astype(dt, copy=False)
        per_sample = _cols_bytes(input_shape, khw, stride, pads, dilation, cdt.itemsize)
        for lo, hi in _chunks(input_shape[0], per_sample):
            if _row_layout(stride):
                _input_grad_batch_inner(xp, dy[lo:hi], w, pads, dilation, groups, out[lo:hi])
            else:
                _input_grad_strided(xp, dy[lo:hi], w, pads, stride, dilation, groups,
                                    out[lo:hi])
        return out.astype(dt, copy=False)
    return conv2d_input_grad


def _input_grad_strided(xp, dy, w, pads, stride, dilation, groups, out):
    o, cg, kh, kw = w.shape
    n = dy.shape[0]
    dyc = _to_cols(xp, dy, None)
    length = dyc.shape[-1]
    wt = w.reshape(groups, o // groups, cg * kh * kw).swapaxes(-1, -2)
    dcols = scratch(xp, "conv-dcols", (n, groups, cg * kh * kw, length), dy.dtype)
    xp.matmul(wt, dyc.reshape(n, groups, o // groups, length), out=dcols)
    _col2im(xp, dcols.reshape(n, cg * groups, kh, kw, length), pads, (kh, kw), stride,
            dilation, out)


def _input_grad_batch_inner(xp, dy, w, pads, dilation, groups, out):
    """Stride-1 input gradient with the batch as the innermost axis, written into ``out``.

    Columns (C*kh*kw, L*N) come from one GEMM, and each of the kh*kw shifted adds
    of col2im is then one contiguous run of L*N values per channel (instead of
    N*C runs of L), which makes col2im about twice as fast. Only this kernel
    gains from the layout; the forward pass and the filter gradient do not.
    """
    o, cg, kh, kw = w.shape
    n, _, oh, ow = dy.shape
    _, c, h, wd = out.shape
    pt, pb, pl, pr = pads
    hp, row = h + pt + pb, wd + pl + pr
    length = ((oh - 1) * row + ow) * n
    dy_t = scratch(xp, "conv-dy", (o, oh, row, n), dy.dtype)
    dy_t[:, :, ow:] = 0
    dy_t[:, :, :ow] = dy.transpose(1, 2, 3, 0)
    dy_t = dy_t.reshape(groups, o // groups, oh * row * n)[..., :length]
    dcols = scratch(xp, "conv-dcols", (groups, cg * kh * kw, length), dy.dtype)
    xp.matmul(w.reshape(groups, o // groups, cg * kh * kw).swapaxes(-1, -2), dy_t, out=dcols)
    dcols = dcols.reshape(c, kh, kw, length)
    dx_t = scratch(xp, "conv-dx", (c, hp * row * n), dy.dtype)
    dx_t.fill(0)
    for i in range(kh):
        for j in range(kw):
            off = (i * dilation[0] * row + j * dilation[1]) * n
            dx_t[:, off:off + length] += dcols[:, i, j]
    out[...] = dx_t.reshape(c, hp, row, n)[:, pt:pt + h, pl:pl + wd].transpose(3, 0, 1, 2)


def _make_filter_grad(xp):
    def conv2d_filter_grad(x, dy, *, filter_shape, stride, pads, dilation, groups):
        dt = x.dtype
        cdt = compute_dtype(dt)
        x, dy = x.astype(cdt, copy=False), dy.astype(cdt, copy=False)
        o, cg, kh, kw = filter_shape
        if _is_patch_conv((kh, kw), stride, pads, dilation, groups):
            return _patch_filter_grad(xp, x, dy, filter_shape).astype(dt, copy=False)
        if _direct(xp, cdt, filter_shape, stride, dilation, groups, dy.size,
                   DIRECT_FILTER_GRAD_CHANNELS):
            return _direct_filter_grad(xp, x, dy, filter_shape, pads).astype(dt, copy=False)
        one_gemm = o * cg * kh * kw * dy.shape[2] * dy.shape[3] >= _BATCHED_GEMM_LIMIT
        dw = xp.zeros((groups, o // groups, cg * kh * kw), cdt)
        per_sample = _cols_bytes(x.shape, (kh, kw), stride, pads, dilation, cdt.itemsize)
        for lo, hi in _chunks(x.shape[0], per_sample):
            cols, _, _, row = _im2col(xp, x[lo:hi], (kh, kw), stride, pads, dilation, one_gemm)
            if one_gemm and groups == 1 and row is not None and _loops.usable(xp, cdt):
                dw += _filter_grad_rows(xp, cols, dy[lo:hi], row)
            else:
                dw += _filter_grad_chunk(xp, cols, _to_cols(xp, dy[lo:hi], row), groups,
                                         one_gemm)
        return dw.reshape(filter_shape).astype(dt, copy=False)
    return conv2d_filter_grad


def _filter_grad_rows(xp, cols, dy, row):
    """One-GEMM filter gradient of an ungrouped row-layout chunk, with the (N*L, O)
    operand built by one compiled pass (the NumPy path pads, then transposes)."""
    n, o = dy.shape[:2]
    length = cols.shape[1] // n
    dy_t = scratch(xp, "conv-dy-t", (n, length, o), dy.dtype)
    _loops.rows_by_position(xp.ascontiguousarray(dy), row, dy_t)
    return xp.matmul(cols, dy_t.reshape(n * length, o)).T


def _filter_grad_chunk(xp, cols, dyc, groups, one_gemm):
    n, o, length = dyc.shape
    og = o // groups
    if one_gemm:
        # dw[g] = cols[g] (CKK/G, N*L) @ dy[g] (N*L, O/G): the batch folded into K
        ckk = cols.shape[0] // groups
        dy_t = scratch(xp, "conv-dy-t", (groups, n, length, og), dyc.dtype)
        dy_t[...] = dyc.reshape(n, groups, og, length).transpose(1, 0, 3, 2)
        return xp.matmul(cols.reshape(groups, ckk, n * length),
                         dy_t.reshape(groups, n * length, og)).swapaxes(-1, -2)
    ckk = cols.shape[1] // groups
    return xp.matmul(dyc.reshape(n, groups, og, length),
                     cols.reshape(n, groups, ckk, length).swapaxes(-1, -2)).sum(axis=0)


# Per-sample filter-gradient GEMMs above this many multiply-adds run well below BLAS speed
# (LeNet's second 5x5 convolution: 16 filters x 150 taps x 100 positions, 1.6x slower than
# one GEMM over the batch); below it (the first: 6 x 25 x 784) one big GEMM with a long
# inner dimension is the slower choice. Measured with OpenBLAS, one and two threads.
_BATCHED_GEMM_LIMIT = 1 << 17


# ----------------------------------------------------------------- shape rules
def _check_4d(op, arg, a):
    if len(a.shape) != 4:
        raise ValueError(f"For '{op}', the '{arg}' shape size must be equal to 4, but got "
                         f"{len(a.shape)} (shape {list(a.shape)}).")


def _check_channels(op, c_in, w_shape, groups):
    o, cg = w_shape[0], w_shape[1]
    if c_in != cg * groups:
        raise ValueError(f"For '{op}', 'C_in' of input 'x' shape divide by parameter 'group' "
                         f"must be equal to 'C_in' of input 'weight' shape: {cg}, but got "
                         f"'C_in' of input 'x' shape: {c_in}, and 'group': {groups}.")
    if o % groups:
        raise ValueError(f"For '{op}', the 'out_channels' ({o}) must be divisible by "
                         f"'group' ({groups}).")


def _checked_output_hw(op, hw, khw, attrs):
    oh, ow = output_hw(hw, khw, attrs["stride"], attrs["pads"], attrs["dilation"])
    if oh < 1 or ow < 1:
        raise ValueError(f"For '{op}', the input's height and width after padding "
                         f"({list(hw)} with pads {list(attrs['pads'])}) must be at least the "
                         f"dilated kernel size {list(khw)} (dilation "
                         f"{list(attrs['dilation'])}).")
    return oh, ow


def _conv2d_infer(attrs, x, w, *bias):
    _check_4d("Conv2D", "x", x)
    _check_4d("Conv2D", "weight", w)
    check_float("Conv2D", "x", x.dtype)
    check_same_dtype("Conv2D", "x", x, "weight", w)
    _check_channels("Conv2D", x.shape[1], w.shape, attrs["groups"])
    oh, ow = _checked_output_hw("Conv2D", x.shape[2:], w.shape[2:], attrs)
    if bias:
        b = bias[0]
        if tuple(b.shape) != (w.shape[0],):
            raise ValueError(f"For 'Conv2D', the 'bias' must have shape [{w.shape[0]}], but "
                             f"got {list(b.shape)}.")
        check_same_dtype("Conv2D", "x", x, "bias", b)
    return ShapedArray((x.shape[0], w.shape[0], oh, ow), x.dtype)


def _input_grad_infer(attrs, dy, w):
    op = "Conv2DBackpropInput"
    _check_4d(op, "dout", dy)
    _check_4d(op, "weight", w)
    check_float(op, "dout", dy.dtype)
    check_same_dtype(op, "dout", dy, "weight", w)
    shape = tuple(attrs["input_shape"])
    _check_channels(op, shape[1], w.shape, attrs["groups"])
    _check_grad_shape(op, "dout", dy.shape, (shape[0], w.shape[0]),
                      _checked_output_hw(op, shape[2:], w.shape[2:], attrs))
    return ShapedArray(shape, dy.dtype)


def _filter_grad_infer(attrs, x, dy):
    op = "Conv2DBackpropFilter"
    _check_4d(op, "x", x)
    _check_4d(op, "dout", dy)
    check_float(op, "x", x.dtype)
    check_same_dtype(op, "x", x, "dout", dy)
    shape = tuple(attrs["filter_shape"])
    _check_channels(op, x.shape[1], shape, attrs["groups"])
    _check_grad_shape(op, "dout", dy.shape, (x.shape[0], shape[0]),
                      _checked_output_hw(op, x.shape[2:], shape[2:], attrs))
    return ShapedArray(shape, x.dtype)


def _check_grad_shape(op, arg, got, nc, ohw):
    want = tuple(nc) + tuple(ohw)
    if tuple(got) != want:
        raise ValueError(f"For '{op}', the '{arg}' must have shape {list(want)}, but got "
                         f"{list(got)}.")


conv2d_p = P.Primitive("Conv2D", validated(_make_conv2d, _conv2d_infer), kind="opaque",
                       infer=_conv2d_infer)


# NOTE: [Conv epilogues]
# At jit_level O1 (spore/_jit/conv_epilogue.py) a Conv2D whose only reader is a ReLU
# becomes one Conv2DReLU node, and a MaxPoolScatter whose only reader is a ReluGrad one
# MaxPoolScatterReluGrad node (the backward pass of conv -> relu -> max pool, LeNet's
# feature layers). Both produce the unfused pair's values bit for bit: the direct loops
# (NOTE: [Direct convolution]) add the bias and apply ``np.maximum(y, 0)`` over their
# long uncropped output rows (a NaN stays, -0.0 becomes +0.0, as NumPy's maximum does),
# where the crop's 10-28 wide rows made the same loop as slow as ReLU's own pass; other
# convolution paths apply ReLU's kernel to their result; the 2x2 scatter writes
# ``z = g * 0`` at every tap of a window and ``g if y > 0 else z`` at its winner, which
# is what the products ``(g * (tap == winner)) * (y > 0)`` give (other windows run the
# two kernels in turn). Where a ReduceSum over (N, H, W) reads the scatter's result (the
# bias gradient), MaxPoolScatterReluGradSum also returns it, summed in float64 while
# the windows pass: NumPy's float32 sum to rounding, not bit for bit. The kernels exist
# for compiled graphs only and are not differentiable: the pass runs after
# differentiation. Only float32 and float64 (the dtypes the loops compile for; there
# ReLU before the final cast is ReLU after it).

def _conv2d_relu_infer(attrs, x, w, *bias):
    out = _conv2d_infer(attrs, x, w, *bias)
    if np.dtype(out.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"For 'Conv2DReLU', the input 'x' must be float32 or float64, but "
                        f"got {np.dtype(out.dtype).name}.")
    return out


# made by a compiler pass after differentiation only (spore/_jit/conv_epilogue.py)
conv2d_relu_p = P.Primitive(
    "Conv2DReLU", validated(_make_conv2d_relu, _conv2d_relu_infer), kind="opaque",
    infer=_conv2d_relu_infer, nondiff=True,
    doc="Conv2DReLU(x, weight[, bias]): ReLU(Conv2D(...)) in one kernel (jit_level O1).")
conv2d_input_grad_p = P.Primitive("Conv2DBackpropInput",
                                  validated(_make_input_grad, _input_grad_infer),
                                  kind="opaque", n_inputs=2, infer=_input_grad_infer)
conv2d_filter_grad_p = P.Primitive("Conv2DBackpropFilter",
                                   validated(_make_filter_grad, _filter_grad_infer),
                                   kind="opaque", n_inputs=2, infer=_filter_grad_infer)


# ----------------------------------------------------------------- gradient rules
@conv2d_p.def_grad(inputs=(0, 1), needed=True)
def _conv2d_grad(attrs, inputs, out, dout, needed):
    x, w, *bias = inputs
    gx = conv2d_input_grad_p(dout, w, input_shape=tuple(x.shape), **attrs) if needed[0] \
        else None
    gw = conv2d_filter_grad_p(x, dout, filter_shape=tuple(w.shape), **attrs) if needed[1] \
        else None
    grads = (gx, gw)
    if bias:
        grads += (sum_p(dout, axis=(0, 2, 3), keepdims=False) if needed[2] else None,)
    return grads


def def_gradient_grads(conv_p, input_grad_p, filter_grad_p):
    """The rules of a convolution's two gradient primitives, which are convolutions again
    (each is linear in both arguments); shared by the 2-D and 3-D families."""
    @input_grad_p.def_grad(inputs=(0, 1))
    def _input_grad_grad(attrs, inputs, out, c):
        dy, w = inputs
        geo = geometry(attrs)
        return (conv_p(c, w, **geo), filter_grad_p(c, dy, filter_shape=tuple(w.shape), **geo))

    @filter_grad_p.def_grad(inputs=(0, 1))
    def _filter_grad_grad(attrs, inputs, out, c):
        x, dy = inputs
        geo = geometry(attrs)
        return (input_grad_p(dy, c, input_shape=tuple(x.shape), **geo), conv_p(x, c, **geo))


def_gradient_grads(conv2d_p, conv2d_input_grad_p, conv2d_filter_grad_p)
