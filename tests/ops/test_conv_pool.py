"""Convolution and pooling: forward vs direct NumPy loops, MindSpore's values, shape/dtype
rules, numerical gradients (first and second order) and errors."""

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore._core import primitive as P
from tests.helpers.optable import (OpCase, case_id, grad_case_fn, run_forward, run_grad, run_infer,
                                   table_tests)


# ----------------------------------------------------------------- NumPy references
def np_conv2d(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """Direct definition: one output pixel at a time."""
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[1]), (pads[2], pads[3])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (wd - dw * (kw - 1) - 1) // sw + 1
    og = o // groups
    out = np.zeros((n, o, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh:i * sh + dh * (kh - 1) + 1:dh, j * sw:j * sw + dw * (kw - 1) + 1:dw]
            for g in range(groups):
                out[:, g * og:(g + 1) * og, i, j] = np.einsum(
                    "nckl,ockl->no", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def np_conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                        dilation=1):
    """Scatter definition: every input pixel adds a weighted kernel into the output."""
    n, cin, h, wd = x.shape
    _, cog, kh, kw = w.shape
    cig = cin // groups
    full_h = (h - 1) * stride + dilation * (kh - 1) + 1 + output_padding
    full_w = (wd - 1) * stride + dilation * (kw - 1) + 1 + output_padding
    full = np.zeros((n, cog * groups, full_h, full_w))
    for i in range(h):
        for j in range(wd):
            for g in range(groups):
                contrib = np.einsum("nc,cokl->nokl", x[:, g * cig:(g + 1) * cig, i, j],
                                    w[g * cig:(g + 1) * cig])
                full[:, g * cog:(g + 1) * cog,
                     i * stride:i * stride + dilation * (kh - 1) + 1:dilation,
                     j * stride:j * stride + dilation * (kw - 1) + 1:dilation] += contrib
    out = full[:, :, padding:full_h - padding, padding:full_w - padding]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def _out_size(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def np_max_pool2d(x, k, s=None, p=0, d=1, ceil=False):
    """(values, flat h * W + w indices) with PyTorch's window rules, first maximum wins."""
    s = s or k
    n, c, h, w = x.shape
    oh, ow = _out_size(h, k, s, p, d, ceil), _out_size(w, k, s, p, d, ceil)
    vals = np.zeros((n, c, oh, ow), x.dtype)
    idx = np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            rows = [i * s - p + a * d for a in range(k)]
            cols = [j * s - p + b * d for b in range(k)]
            cand = [(r, q) for r in rows for q in cols if 0 <= r < h and 0 <= q < w]
            flat = np.array([r * w + q for r, q in cand])
            window = x.reshape(n, c, h * w)[:, :, flat]
            best = window.argmax(-1)
            vals[:, :, i, j] = np.take_along_axis(window, best[..., None], -1)[..., 0]
            idx[:, :, i, j] = flat[best]
    return vals, idx


def np_avg_pool2d(x, k, s, p=0, ceil=False, count_include_pad=True, divisor=None):
    n, c, h, w = x.shape
    oh, ow = _out_size(h, k, s, p, 1, ceil), _out_size(w, k, s, p, 1, ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - p, j * s - p
            r1, c1 = min(r0 + k, h + p), min(c0 + k, w + p)
            pool = (r1 - r0) * (c1 - c0)
            rs, cs = max(r0, 0), max(c0, 0)
            re, ce = min(r1, h), min(c1, w)
            total = x[:, :, rs:re, cs:ce].sum(axis=(2, 3))
            div = divisor or (pool if count_include_pad else (re - rs) * (ce - cs))
            out[:, :, i, j] = total / div
    return out


def np_adaptive(x, oh, ow, reduce):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            c0, c1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            out[:, :, i, j] = reduce(x[:, :, r0:r1, c0:c1], axis=(2, 3))
    return out


def _same_pads(size, k, s, d=1):
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _pool1d(x, k, s, p, reduce, fill):
    xp = np.pad(x, ((0, 0), (0, 0), (p, p)), constant_values=fill)
    out = (xp.shape[2] - k) // s + 1
    return np.stack([reduce(xp[:, :, i * s:i * s + k], axis=2) for i in range(out)], axis=2)


def _avg_same_ref(x, k, s):
    """'same' average pooling: TF padding, divisor = the in-image part of the window."""
    n, c, h, w = x.shape
    pt, _ = _same_pads(h, k, s)
    pl, _ = _same_pads(w, k, s)
    oh, ow = -(-h // s), -(-w // s)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = max(i * s - pt, 0), max(j * s - pl, 0)
            r1, c1 = min(i * s - pt + k, h), min(j * s - pl + k, w)
            out[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    return out


# ----------------------------------------------------------------- op table
def _conv(stride=1, pad_mode="valid", padding=0, dilation=1, groups=1, bias=False):
    def fn(x, w, *b):
        return ops.conv2d(x, w, b[0] if b else None, stride, pad_mode, padding, dilation, groups)
    return fn


def _ref_conv(stride=1, pads=(0, 0, 0, 0), dilation=1, groups=1):
    def ref(x, w, *b):
        st = (stride, stride) if isinstance(stride, int) else stride
        di = (dilation, dilation) if isinstance(dilation, int) else dilation
        return np_conv2d(x, w, b[0] if b else None, st, pads, di, groups)
    return ref


def _same_ref(hw, khw, stride, dilation=1, groups=1):
    pt, pb = _same_pads(hw[0], khw[0], stride, dilation)
    pl, pr = _same_pads(hw[1], khw[1], stride, dilation)
    return _ref_conv(stride, (pt, pb, pl, pr), dilation, groups)


CONV = [
    OpCase("conv2d", _conv(), _ref_conv(), [(2, 3, 6, 5), (4, 3, 3, 2)], id="conv2d-valid",
           rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(bias=True), _ref_conv(), [(2, 3, 6, 5), (4, 3, 3, 3), (4,)],
           id="conv2d-bias", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(2, "same"), _same_ref((7, 6), (3, 3), 2),
           [(2, 3, 7, 6), (4, 3, 3, 3)], id="conv2d-same-stride2", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(1, "same", dilation=2), _same_ref((6, 5), (3, 2), 1, 2),
           [(1, 2, 6, 5), (3, 2, 3, 2)], id="conv2d-same-dilation", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(1, "pad", (1, 2)), _ref_conv(1, (1, 1, 2, 2)),
           [(2, 2, 5, 4), (3, 2, 3, 3)], id="conv2d-pad-hw", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv((2, 1), "pad", (1, 0, 2, 1)), _ref_conv((2, 1), (1, 0, 2, 1)),
           [(2, 2, 6, 5), (3, 2, 3, 2)], id="conv2d-pad-4tuple-stride21", rtol=1e-4,
           atol=1e-5),
    OpCase("conv2d", _conv(groups=2), _ref_conv(groups=2), [(2, 4, 5, 5), (6, 2, 3, 3)],
           id="conv2d-groups", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(2, dilation=(1, 2), groups=3), _ref_conv(2, dilation=(1, 2), groups=3),
           [(1, 3, 7, 8), (3, 1, 2, 2)], id="conv2d-depthwise-strided", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(4, bias=True), _ref_conv(4), [(2, 3, 8, 8), (5, 3, 4, 4), (5,)],
           id="conv2d-patchify", rtol=1e-4, atol=1e-5),
    OpCase("conv2d", _conv(), _ref_conv(), [(2, 4, 3, 5), (6, 4, 1, 1)], id="conv2d-1x1",
           rtol=1e-4, atol=1e-5),
    OpCase("conv1d", lambda x, w: ops.conv1d(x, w, None, 2, "same"),
           lambda x, w: np_conv2d(x[:, :, None], w[:, :, None], None, (1, 2),
                                  (0, 0) + _same_pads(9, 3, 2))[:, :, 0],
           [(2, 3, 9), (4, 3, 3)], id="conv1d-same", rtol=1e-4, atol=1e-5),
    OpCase("conv1d", lambda x, w, b: ops.conv1d(x, w, b, 1, "pad", (2, 1), 2),
           lambda x, w, b: np_conv2d(x[:, :, None], w[:, :, None], b, (1, 1), (0, 0, 2, 1),
                                     (1, 2))[:, :, 0],
           [(2, 3, 8), (4, 3, 3), (4,)], id="conv1d-pad-dilation", rtol=1e-4, atol=1e-5),
    OpCase("conv_transpose2d", lambda x, w: ops.conv_transpose2d(x, w),
           lambda x, w: np_conv_transpose2d(x, w), [(2, 3, 4, 3), (3, 2, 3, 2)],
           id="conv_transpose2d", rtol=1e-4, atol=1e-5),
    OpCase("conv_transpose2d", lambda x, w, b: ops.conv_transpose2d(x, w, b, 2, 1, 1),
           lambda x, w, b: np_conv_transpose2d(x, w, b, 2, 1, 1),
           [(2, 3, 3, 4), (3, 2, 3, 3), (2,)], id="conv_transpose2d-stride-pad-outpad",
           rtol=1e-4, atol=1e-5),
    OpCase("conv_transpose2d", lambda x, w: ops.conv_transpose2d(x, w, None, 1, 0, 0, 2, 2),
           lambda x, w: np_conv_transpose2d(x, w, None, 1, 0, 0, 2, 2),
           [(1, 4, 3, 4), (4, 3, 2, 3)], id="conv_transpose2d-groups-dilation", rtol=1e-4,
           atol=1e-5),
]


def _max(k, s=None, p=0, d=1, ceil=False):
    return OpCase("max_pool2d", lambda x: ops.max_pool2d(x, k, s, p, d, False, ceil),
                  lambda x: np_max_pool2d(x, k, s, p, d, ceil)[0], (2, 3, 7, 6),
                  id=f"max_pool2d-k{k}s{s}p{p}d{d}{'-ceil' if ceil else ''}")


def _avg(k, s, p=0, ceil=False, count=True, div=0):
    return OpCase("avg_pool2d", lambda x: ops.avg_pool2d(x, k, s, p, ceil, count, div),
                  lambda x: np_avg_pool2d(x, k, s, p, ceil, count, div), (2, 3, 7, 6),
                  id=f"avg_pool2d-k{k}s{s}p{p}{'-ceil' if ceil else ''}"
                     f"{'' if count else '-nocount'}{f'-div{div}' if div else ''}")


POOL = [
    _max(2), _max(3, 2, 1), _max(3, 2, 1, ceil=True), _max(2, 1, 0, 2), _max(2, 3, 1, ceil=True),
    _avg(2, 2), _avg(3, 2, 1), _avg(3, 2, 1, count=False), _avg(2, 2, 1, ceil=True),
    _avg(2, 2, 1, ceil=True, count=False), _avg(3, 3, ceil=True, div=2),
    OpCase("max_pool2d", lambda x: ops.max_pool2d(x, 2), lambda x: np_max_pool2d(
        x[None], 2)[0][0], (3, 6, 4), id="max_pool2d-unbatched"),
    OpCase("max_pool1d", lambda x: ops.max_pool1d(x, 3, 2, 1),
           lambda x: _pool1d(x, 3, 2, 1, np.max, -np.inf), (2, 3, 9), id="max_pool1d"),
    OpCase("avg_pool1d", lambda x: ops.avg_pool1d(x, 3, 2, 1),
           lambda x: _pool1d(x, 3, 2, 1, np.mean, 0.0), (2, 3, 9), id="avg_pool1d"),
    OpCase("avg_pool2d", lambda x: ops.avg_pool2d(x, 3, 2, pad_mode="same"),
           lambda x: _avg_same_ref(x, 3, 2), (2, 2, 7, 6), id="avg_pool2d-pad_mode-same"),
    OpCase("adaptive_avg_pool2d", lambda x: ops.adaptive_avg_pool2d(x, (3, 4)),
           lambda x: np_adaptive(x, 3, 4, np.mean), (2, 3, 7, 6), id="adaptive_avg-uneven"),
    OpCase("adaptive_avg_pool2d", lambda x: ops.adaptive_avg_pool2d(x, (None, 2)),
           lambda x: np_adaptive(x, 6, 2, np.mean), (2, 3, 6, 4), id="adaptive_avg-None"),
    OpCase("adaptive_avg_pool2d", lambda x: ops.adaptive_avg_pool2d(x, 1),
           lambda x: np_adaptive(x, 1, 1, np.mean), (2, 3, 5, 4), id="adaptive_avg-global"),
    OpCase("adaptive_max_pool2d", lambda x: ops.adaptive_max_pool2d(x, (3, 4)),
           lambda x: np_adaptive(x, 3, 4, np.max), (2, 3, 7, 6), id="adaptive_max-uneven"),
    OpCase("adaptive_max_pool2d", lambda x: ops.adaptive_max_pool2d(x, 3),
           lambda x: np_adaptive(x, 3, 3, np.max), (2, 3, 6, 9), id="adaptive_max-even"),
    OpCase("adaptive_avg_pool1d", lambda x: ops.adaptive_avg_pool1d(x, 4),
           lambda x: np_adaptive(x[:, :, None], 1, 4, np.mean)[:, :, 0], (2, 3, 10),
           id="adaptive_avg_pool1d"),
    OpCase("adaptive_max_pool1d", lambda x: ops.adaptive_max_pool1d(x, 4),
           lambda x: np_adaptive(x[:, :, None], 1, 4, np.max)[:, :, 0], (2, 3, 10),
           id="adaptive_max_pool1d"),
]


ALL = CONV + POOL


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


# ----------------------------------------------------------------- MindSpore's values
# Generated with MindSpore 2.10 (CPU) from /work/venvs/ms: x5 = arange(25).reshape(1, 1, 5, 5),
# w3 = arange(9).reshape(1, 1, 3, 3), w2 = ones((1, 1, 2, 2)); e.g.
# ops.conv2d(x5, w3, stride=2, pad_mode='same').asnumpy().ravel().tolist().
X5 = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
W3 = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
W2 = np.ones((1, 1, 2, 2), np.float32)
MINDSPORE = [
    ("conv2d same stride 2", lambda x: ops.conv2d(x, ms.Tensor(W3), stride=2, pad_mode="same"),
     [88, 175, 136, 345, 528, 345, 232, 319, 184]),
    ("conv2d same k2", lambda x: ops.conv2d(x, ms.Tensor(W2), pad_mode="same"),
     [12, 16, 20, 24, 13, 32, 36, 40, 44, 23, 52, 56, 60, 64, 33, 72, 76, 80, 84, 43, 41, 43,
      45, 47, 24]),
    ("conv2d pad (1, 0)", lambda x: ops.conv2d(x, ms.Tensor(W3), pad_mode="pad", padding=(1, 0)),
     [142, 175, 208, 312, 348, 384, 492, 528, 564, 672, 708, 744, 304, 319, 334]),
    ("max_pool2d k3 s2 p1", lambda x: ops.max_pool2d(x, 3, 2, 1),
     [6, 8, 9, 16, 18, 19, 21, 23, 24]),
    ("max_pool2d k2 ceil", lambda x: ops.max_pool2d(x, 2, ceil_mode=True),
     [6, 8, 9, 16, 18, 19, 21, 23, 24]),
    ("max_pool2d k3 s3 p1 ceil", lambda x: ops.max_pool2d(x, 3, 3, 1, ceil_mode=True),
     [6, 9, 21, 24]),
    ("avg_pool2d k3 s2 p1", lambda x: ops.avg_pool2d(x, 3, 2, 1),
     [4 / 3, 3, 8 / 3, 7, 12, 9, 8, 13, 28 / 3]),
    ("avg_pool2d k3 s2 p1 no pad count",
     lambda x: ops.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
     [3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21]),
    ("avg_pool2d k2 s2 p1 ceil", lambda x: ops.avg_pool2d(x, 2, 2, 1, ceil_mode=True),
     [0, 0.75, 1.75, 3.75, 9, 11, 8.75, 19, 21]),
    ("avg_pool2d k2 s2 p1 ceil no pad count",
     lambda x: ops.avg_pool2d(x, 2, 2, 1, ceil_mode=True, count_include_pad=False),
     [0, 1.5, 3.5, 7.5, 9, 11, 17.5, 19, 21]),
    ("avg_pool2d divisor_override", lambda x: ops.avg_pool2d(x, 2, 2, ceil_mode=True,
                                                              divisor_override=3),
     [4, 20 / 3, 13 / 3, 52 / 3, 20, 11, 41 / 3, 15, 8]),
    ("AvgPool same (MindSpore primitive semantics)",
     lambda x: ops.avg_pool2d(x, 3, 2, pad_mode="same"),
     [3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21]),
    ("MaxPool same", lambda x: ops.max_pool2d(x, 2, 2, pad_mode="same"),
     [6, 8, 9, 16, 18, 19, 21, 23, 24]),
    ("adaptive_avg_pool2d (2, 3)", lambda x: ops.adaptive_avg_pool2d(x, (2, 3)),
     [5.5, 7, 8.5, 15.5, 17, 18.5]),
    ("adaptive_max_pool2d (2, 3)", lambda x: ops.adaptive_max_pool2d(x, (2, 3)),
     [11, 13, 14, 21, 23, 24]),
]


@pytest.mark.parametrize("name,fn,want", MINDSPORE, ids=[m[0] for m in MINDSPORE])
def test_matches_mindspore(name, fn, want):
    np.testing.assert_allclose(fn(ms.Tensor(X5)).asnumpy().ravel(), want, rtol=1e-6)


def test_matches_mindspore_1d_and_asymmetric_padding():
    # MindSpore 2.10: ops.conv1d(arange(10).reshape(1, 1, 10), [[[1, 2, 3]]], pad_mode='same',
    # stride=2); ops.avg_pool2d(arange(24).reshape(1, 1, 4, 6), 2, 2, (0, 0, 1, 0));
    # ops.avg_pool1d(arange(10).reshape(1, 1, 10), 3, 2, 1)
    x10 = ms.Tensor(np.arange(10, dtype=np.float32).reshape(1, 1, 10))
    w = ms.Tensor(np.array([[[1.0, 2.0, 3.0]]], np.float32))
    np.testing.assert_allclose(ops.conv1d(x10, w, pad_mode="same", stride=2).asnumpy().ravel(),
                               [8, 20, 32, 44, 26])
    x46 = ms.Tensor(np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6))
    np.testing.assert_allclose(ops.avg_pool2d(x46, 2, 2, (0, 0, 1, 0)).asnumpy().ravel(),
                               [1.5, 4.5, 6.5, 7.5, 16.5, 18.5])
    np.testing.assert_allclose(ops.avg_pool1d(x10, 3, 2, 1).asnumpy().ravel(),
                               [1 / 3, 2, 4, 6, 8], rtol=1e-6)


# ----------------------------------------------------------------- indices
@pytest.mark.parametrize("k,s,p,d,ceil", [(2, None, 0, 1, False), (3, 2, 1, 1, False),
                                            (3, 2, 1, 1, True), (2, 1, 0, 2, False)],
                         ids=["k2", "k3s2p1", "k3s2p1-ceil", "k2-dilation2"])
def test_max_pool2d_indices_match_first_maximum(k, s, p, d, ceil):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, size=(2, 3, 7, 6)).astype(np.float32)   # many ties
    values, idx = ops.max_pool2d(ms.Tensor(x), k, s, p, d, True, ceil)
    want_v, want_i = np_max_pool2d(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(values.asnumpy(), want_v)
    np.testing.assert_array_equal(idx.asnumpy(), want_i)
    assert idx.dtype == ms.int64


def test_max_pool2d_indices_match_mindspore():
    # MindSpore 2.10: ops.max_pool2d(-x5, 3, 2, 1, return_indices=True)[1]
    _, idx = ops.max_pool2d(ms.Tensor(-X5), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(idx.asnumpy().ravel(), [0, 1, 3, 5, 6, 8, 15, 16, 18])


def test_adaptive_max_pool2d_indices():
    x = np.random.default_rng(4).standard_normal((2, 3, 7, 5)).astype(np.float32)
    for size in ((3, 2), (7, 5), (1, 1)):
        values, idx = ops.adaptive_max_pool2d(ms.Tensor(x), size, return_indices=True)
        flat = x.reshape(2, 3, -1)
        picked = np.take_along_axis(flat, idx.asnumpy().reshape(2, 3, -1), axis=2)
        np.testing.assert_array_equal(picked.reshape(values.shape), values.asnumpy())
        np.testing.assert_array_equal(values.asnumpy(), np_adaptive(x, *size, np.max))


def test_max_pool_gradient_goes_to_the_first_maximum_only():
    x = ms.Tensor(np.zeros((1, 1, 4, 4), np.float32))       # every window is a tie
    g = ops.grad(lambda x: ops.max_pool2d(x, 2).sum())(x).asnumpy()[0, 0]
    np.testing.assert_array_equal(g, np.tile([[1, 0], [0, 0]], (2, 2)))


# ----------------------------------------------------------------- second order


SECOND_ORDER = [
    OpCase("conv2d", grad_case_fn(lambda x, w: ops.conv2d(x, w, None, 1, "same"), 0), None,
           [(2, 3, 5, 4), (2, 3, 3, 3)], id="d/dx conv2d"),
    OpCase("conv2d", grad_case_fn(lambda x, w: ops.conv2d(x, w, None, 2, "pad", 1), 1), None,
           [(2, 3, 5, 4), (2, 3, 3, 3)], id="d/dw conv2d"),
    OpCase("conv2d", grad_case_fn(lambda x, w: ops.conv2d(x, w, groups=3), (0, 1)), None,
           [(2, 3, 5, 4), (3, 1, 3, 3)], id="d/dx,dw conv2d groups"),
    OpCase("conv_transpose2d",
           grad_case_fn(lambda x, w: ops.conv_transpose2d(x, w, None, 2), (0, 1)), None,
           [(1, 2, 3, 3), (2, 2, 3, 3)], id="d/dx,dw conv_transpose2d"),
    OpCase("max_pool2d", grad_case_fn(lambda x: ops.max_pool2d(x, 3, 2, 1), 0), None, (2, 2, 5, 6),
           id="d/dx max_pool2d"),
    OpCase("max_pool2d", grad_case_fn(lambda x: ops.max_pool2d(x, 2), 0), None, (2, 2, 4, 6),
           id="d/dx max_pool2d non-overlapping"),
    OpCase("avg_pool2d", grad_case_fn(lambda x: ops.avg_pool2d(x, 3, 2, 1, True, False), 0), None,
           (2, 2, 5, 6), id="d/dx avg_pool2d"),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_second_order_gradient(case):
    run_grad(case)


# ----------------------------------------------------------------- behaviour
def _dispatched(fn, *args):
    names = []

    def make(below):
        def handler(prim, a, attrs):
            names.append(prim.name)
            return below(prim, a, attrs)
        return handler
    with P.handler_scope(make):
        fn(*args)
    return names


def test_input_gradient_skipped_when_the_input_is_data():
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32))
    w = ms.Tensor(np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32))
    grad_w = ops.grad(lambda w: ops.conv2d(x, w).sum())
    names = _dispatched(grad_w, w)
    assert "Conv2DBackpropFilter" in names and "Conv2DBackpropInput" not in names
    both = ops.grad(lambda x, w: ops.conv2d(x, w).sum(), grad_position=(0, 1))
    np.testing.assert_allclose(grad_w(w).asnumpy(), both(x, w)[1].asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16, ms.float64])
def test_conv_and_pool_keep_dtype(dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    y = ops.conv2d(ms.Tensor(x).astype(dtype), ms.Tensor(w).astype(dtype), pad_mode="same")
    assert y.dtype == dtype
    want = ops.conv2d(ms.Tensor(x), ms.Tensor(w), pad_mode="same").asnumpy()
    tol = 1e-6 if dtype == ms.float64 else 5e-2
    np.testing.assert_allclose(y.astype(ms.float32).asnumpy(), want, rtol=tol, atol=tol * 4)
    for pooled in (ops.max_pool2d(y, 2), ops.avg_pool2d(y, 2, 2)):
        assert pooled.dtype == dtype


def test_max_pool2d_integer_input():
    x = np.arange(32, dtype=np.int32).reshape(1, 2, 4, 4)
    y = ops.max_pool2d(ms.Tensor(x), 2)
    assert y.dtype == ms.int32
    np.testing.assert_array_equal(y.asnumpy(), np_max_pool2d(x, 2)[0])


# ----------------------------------------------------------------- errors
def _t(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.conv2d(_t(1, 5, 5), _t(1, 1, 3, 3)), ValueError, ["conv2d", "input", "4D"]),
    (lambda: ops.conv2d(_t(1, 4, 5, 5), _t(6, 3, 3, 3)), ValueError, ["Conv2D", "C_in"]),
    (lambda: ops.conv2d(_t(1, 4, 5, 5), _t(6, 3, 3, 3), groups=2), ValueError, ["group"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5, dtype=np.float64), _t(1, 1, 3, 3)), TypeError,
     ["Conv2D", "same"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5, dtype=np.int32), _t(1, 1, 3, 3, dtype=np.int32)),
     TypeError, ["Conv2D", "Int32"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), pad_mode="full"), ValueError,
     ["pad_mode", "full"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), pad_mode="valid", padding=1), ValueError,
     ["pad", "must be zero"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5), _t(1, 1, 7, 7)), ValueError, ["Conv2D", "kernel"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), stride=(1, 1, 2)), ValueError,
     ["stride"]),
    (lambda: ops.conv2d(_t(1, 1, 5, 5), _t(1, 1, 3, 3), _t(2)), ValueError, ["bias"]),
    (lambda: ops.conv1d(_t(1, 10), _t(1, 1, 3)), ValueError, ["conv1d", "3D"]),
    (lambda: ops.conv_transpose2d(_t(1, 1, 3, 3), _t(1, 1, 3, 3), stride=2, output_padding=2),
     ValueError, ["output_padding"]),
    (lambda: ops.max_pool2d(_t(1, 1, 5, 5), 2, 2, 2), ValueError, ["max_pool2d", "pads"]),
    (lambda: ops.max_pool2d(_t(5, 5), 2), ValueError, ["max_pool2d", "input"]),
    (lambda: ops.max_pool2d(_t(1, 1, 5, 5), 0), ValueError, ["kernel_size", "positive"]),
    (lambda: ops.avg_pool2d(_t(1, 1, 5, 5, dtype=np.int32), 2), TypeError, ["AvgPool2D"]),
    (lambda: ops.avg_pool2d(_t(1, 1, 5, 5), 6), ValueError, ["AvgPool2D", "kernel"]),
    (lambda: ops.avg_pool2d(_t(1, 1, 5, 5), 2, 2, (1, 0, 1)), ValueError, ["padding"]),
    (lambda: ops.adaptive_avg_pool2d(_t(1, 1, 5, 5), (2, 0)), ValueError, ["output_size"]),
    (lambda: ops.adaptive_max_pool1d(_t(1, 10), 2), ValueError, ["adaptive_max_pool1d"]),
])
def test_errors_name_the_op_and_argument(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_gradient_primitives_infer_matches_kernel(case):
    names = run_infer(case)
    assert {"Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolScatter",
            "AvgPool2DGrad"} & set(names)


def test_max_pool_select_gradient():
    """MaxPoolSelect (the gradient of MaxPoolScatter) is linear in its first input; its own
    rule (MaxPoolScatter) is checked numerically here with a fixed winner map."""
    from spore._prims.nn import max_pool2d_p, max_pool_select_p
    attrs = dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1))
    x = np.random.default_rng(5).standard_normal((2, 2, 5, 6)).astype(np.float32)
    _, won = max_pool2d_p(ms.Tensor(x), **attrs)
    run_grad(OpCase("MaxPoolSelect", lambda c: max_pool_select_p(c, won, **attrs), None,
                    (2, 2, 5, 6)))


def test_empty_batch():
    x = ms.Tensor(np.zeros((0, 3, 5, 5), np.float32))
    w = ms.Tensor(np.ones((2, 3, 3, 3), np.float32))
    assert ops.conv2d(x, w, pad_mode="same").shape == (0, 2, 5, 5)
    assert ops.conv2d(x, w, stride=2).shape == (0, 2, 2, 2)
    assert ops.max_pool2d(x, 2).shape == (0, 3, 2, 2)
    g = ops.grad(lambda x, w: ops.conv2d(x, w, pad_mode="same").sum(), grad_position=(0, 1))
    gx, gw = g(x, w)
    assert gx.shape == (0, 3, 5, 5)
    np.testing.assert_array_equal(gw.asnumpy(), np.zeros((2, 3, 3, 3)))


# ----------------------------------------------------------------- unfold / fold, lp pooling
def np_unfold(x, k, d, p, s):
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    n, c, h, w = xp.shape
    oh, ow = (h - d * (k[0] - 1) - 1) // s + 1, (w - d * (k[1] - 1) - 1) // s + 1
    cols = [xp[:, :, i * d:i * d + s * (oh - 1) + 1:s, j * d:j * d + s * (ow - 1) + 1:s]
            for i in range(k[0]) for j in range(k[1])]
    return np.stack(cols, axis=2).reshape(n, c * k[0] * k[1], oh * ow)


BLOCKS = [
    OpCase("unfold", lambda x: ops.unfold(x, (2, 3), 1, 1, 2),
           lambda x: np_unfold(x, (2, 3), 1, (1, 1), 2), (2, 3, 5, 6), id="unfold"),
    OpCase("unfold", lambda x: ops.unfold(x, 2, 2, (0, 1), 1),
           lambda x: np_unfold(x, (2, 2), 2, (0, 1), 1), (1, 2, 5, 4), id="unfold-dilation"),
    OpCase("fold", lambda c: ops.fold(c, (5, 6), (2, 3), 1, 1, 2), None, (2, 18, 9),
           id="fold"),
    OpCase("lp_pool2d", lambda x: ops.lp_pool2d(x, 2, 2),
           lambda x: np.sqrt(np_avg_pool2d(x ** 2, 2, 2) * 4), (2, 3, 4, 6), domain=(0.1, 2),
           id="lp_pool2d"),
    OpCase("lp_pool1d", lambda x: ops.lp_pool1d(x, 3, 3, 2),
           lambda x: np.cbrt(_pool1d(x ** 3, 3, 2, 0, np.sum, 0.0)), (2, 3, 9), domain=(0.1, 2),
           id="lp_pool1d"),
]


@pytest.mark.parametrize("case", BLOCKS, ids=case_id)
def test_blocks_and_lp_pool(case):
    run_forward(case)
    run_infer(case)
    run_grad(case)


def test_fold_is_the_adjoint_of_unfold_and_matches_mindspore():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6))
    c = rng.standard_normal((2, 18, 9))
    left = (ops.unfold(ms.Tensor(x), (2, 3), 1, 1, 2).asnumpy() * c).sum()
    right = (x * ops.fold(ms.Tensor(c), (5, 6), (2, 3), 1, 1, 2).asnumpy()).sum()
    np.testing.assert_allclose(left, right, rtol=1e-10)
    # MindSpore 2.10: ops.fold(ones((2, 12, 12)), Tensor([4, 5]), 2, 1, 0, 1)[0, 0]
    folded = ops.fold(ms.Tensor(np.ones((2, 12, 12), np.float32)),
                      ms.Tensor(np.array([4, 5], np.int32)), 2, 1, 0, 1)
    np.testing.assert_array_equal(folded.asnumpy()[0, 0], [[1, 2, 2, 2, 1], [2, 4, 4, 4, 2],
                                                           [2, 4, 4, 4, 2], [1, 2, 2, 2, 1]])


def test_lp_pool_matches_mindspore():
    # MindSpore 2.10: x = arange(32).reshape(1, 2, 4, 4) / 10; ops.lp_pool2d(x, 2, 2),
    # ops.lp_pool2d(x[:, :, :3, :3], 3, 2, 2, True) (partial windows scaled to the kernel)
    x = ms.Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) / 10)
    np.testing.assert_allclose(ops.lp_pool2d(x, 2, 2).asnumpy().ravel()[:4],
                               [0.6480741, 0.9899495, 2.1400933, 2.533772], rtol=1e-6)
    np.testing.assert_allclose(ops.lp_pool2d(x[:, :, :3, :3], 3, 2, 2, True).asnumpy().ravel()[:4],
                               [0.5748897, 0.7651725, 1.3539436, 1.587401], rtol=1e-6)


def test_scratch_buffers_are_reused_per_slot_and_bounded():
    from spore._prims.nn import _common as C
    a = C.scratch(np, "test-slot", (4, 5), np.float32)
    b = C.scratch(np, "test-slot", (2, 3), np.float64)
    assert np.shares_memory(a, b) and b.shape == (2, 3) and b.dtype == np.float64
    assert not np.shares_memory(a, C.scratch(np, "other-slot", (4, 5), np.float32))
    big = (C.SCRATCH_LIMIT // 4 + 1,)
    assert not np.shares_memory(C.scratch(np, "test-slot", big, np.float32),
                                C.scratch(np, "test-slot", big, np.float32))


@pytest.mark.parametrize("stride,pads,groups", [(1, (1, 1, 1, 1), 1), (2, (0, 1, 1, 0), 2),
                                                (1, (0, 0, 0, 0), 2)])
def test_batch_chunks_give_the_same_results(monkeypatch, stride, pads, groups):
    """Kernels over chunks of the batch (NOTE: [Batch chunks]) equal the whole-batch run."""
    from spore._prims.nn import conv as C
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((5, 4, 7, 6)).astype(np.float32))
    w = ms.Tensor(rng.standard_normal((6, 4 // groups, 3, 3)).astype(np.float32))
    geo = dict(stride=(stride, stride), pads=pads, dilation=(1, 1), groups=groups)

    def run():
        y = C.conv2d_p(x, w, **geo)
        dx = C.conv2d_input_grad_p(y, w, input_shape=tuple(x.shape), **geo)
        dw = C.conv2d_filter_grad_p(x, y, filter_shape=tuple(w.shape), **geo)
        return y.asnumpy(), dx.asnumpy(), dw.asnumpy()
    whole = run()
    monkeypatch.setattr(C, "CHUNK_BYTES", 1)                 # one sample per chunk
    for limit in (C._BATCHED_GEMM_LIMIT, 1):                 # both filter-gradient paths
        monkeypatch.setattr(C, "_BATCHED_GEMM_LIMIT", limit)
        for got, want in zip(run(), whole):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
