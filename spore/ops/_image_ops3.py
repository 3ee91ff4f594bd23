"""Image and sequence-decoding functions of ``mindspore.ops``: ``crop_and_resize``,
``ctc_greedy_decoder``, ``dilation2d`` (morphological), the non-maximum suppressions and the
edit distance of sparse sequences.

``crop_and_resize`` and ``dilation2d`` are composites of existing primitives (gathers,
elementwise math, ``unfold``, reductions), so they differentiate and capture under ``jit``.
The suppressions, the greedy decoder and the edit distance produce outputs whose size
depends on the values (MindSpore's dynamic-shape ops) and run on the host: under ``jit``
a function using them runs in PyNative.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from ._nn_more import _ops, _tensor

_Tensor = P._Tensor


def _host(value):
    return value.asnumpy() if isinstance(value, _Tensor) else np.asarray(value)


# ----------------------------------------------------------------- crop_and_resize
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crop boxes out of NHWC ``image`` and resize each to ``crop_size`` (TensorFlow's
    ``crop_and_resize``): ``boxes`` (N, 4) hold normalised ``(y1, x1, y2, x2)``, row ``i``
    crops image ``box_indices[i]``; samples outside the image take ``extrapolation_value``.
    ``method`` 'bilinear', 'nearest' or 'bilinear_v2'. Returns (N, h, w, C) Float32,
    differentiable in ``image`` and ``boxes``."""
    name = "crop_and_resize"
    ops = _ops()
    img = _tensor(name, "image", image, (4,))
    bx = _tensor(name, "boxes", boxes, (2,))
    idx = _tensor(name, "box_indices", box_indices, (1,))
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"For '{name}', the 'method' must be 'bilinear', 'nearest' or "
                         f"'bilinear_v2', but got {method!r}.")
    if not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2 or \
            not all(isinstance(c, int) and c > 0 for c in crop_size):
        raise ValueError(f"For '{name}', the 'crop_size' must be a tuple of two positive ints, "
                         f"but got {crop_size!r}.")
    if bx.shape[-1] != 4 or idx.shape[0] != bx.shape[0]:
        raise ValueError(f"For '{name}', the 'boxes' must be (N, 4) and 'box_indices' (N,), "
                         f"but got {list(bx.shape)} and {list(idx.shape)}.")
    b, h, w, c = img.shape
    ch, cw = crop_size
    img = img.astype(D.float32)
    bx = bx.astype(D.float32)

    def coords(lo, hi, size, n):
        if n > 1:
            steps = Tensor_arange(n) * ((size - 1) / (n - 1))
            return lo[:, None] * (size - 1) + steps[None, :] * (hi - lo)[:, None]
        return (0.5 * (lo + hi) * (size - 1))[:, None]

    ys = coords(bx[:, 0], bx[:, 2], h, ch)               # (N, ch)
    xs = coords(bx[:, 1], bx[:, 3], w, cw)               # (N, cw)
    inside = ((ys >= 0) & (ys <= h - 1))[:, :, None] & ((xs >= 0) & (xs <= w - 1))[:, None, :]
    flat = img.reshape((b * h * w, c))
    base = (idx.astype(D.int64) * (h * w))[:, None, None]

    def tap(yy, xx):
        yi = ops.clamp(yy, 0, h - 1).astype(D.int64)[:, :, None]
        xi = ops.clamp(xx, 0, w - 1).astype(D.int64)[:, None, :]
        rows = (base + yi * w + xi).reshape((-1,))
        return ops.gather(flat, rows, 0).reshape((bx.shape[0], ch, cw, c))

    if method == "nearest":
        out = tap(ops.floor(ys + 0.5), ops.floor(xs + 0.5))
    else:
        y0, x0 = ops.floor(ys), ops.floor(xs)
        fy = (ys - y0)[:, :, None, None]
        fx = (xs - x0)[:, None, :, None]
        top = tap(y0, x0) * (1 - fx) + tap(y0, x0 + 1) * fx
        bottom = tap(y0 + 1, x0) * (1 - fx) + tap(y0 + 1, x0 + 1) * fx
        out = top * (1 - fy) + bottom * fy
    fill = ops.full_like(out, float(extrapolation_value))
    return ops.where(inside[:, :, :, None], out, fill)


def Tensor_arange(n):       # noqa: N802 - a constant row of sample positions
    return P.wrap(np.arange(n, dtype=np.float32))


# ----------------------------------------------------------------- roi_align
def _roi_taps(rois, height, width, pooled, scale, sample_num, end_mode):
    """Rows (b*H*W + y*W + x) and weights of every bilinear tap of every sample of every
    bin: (R, ph, pw, taps) each, zero-weight padded to the largest sampling grid."""
    ph, pw = pooled
    per_roi = []
    for roi in rois:
        b = int(roi[0])
        x1, y1 = roi[1] * scale, roi[2] * scale
        x2, y2 = (roi[3] + end_mode) * scale, (roi[4] + end_mode) * scale
        rw, rh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = sample_num if sample_num > 0 else int(rh / ph)       # MindSpore truncates
        gw = sample_num if sample_num > 0 else int(rw / pw)
        iy = (np.arange(gh) + 0.5) * bh / gh
        ix = (np.arange(gw) + 0.5) * bw / gw
        ys = y1 + np.arange(ph)[:, None] * bh + iy[None, :]          # (ph, gh)
        xs = x1 + np.arange(pw)[:, None] * bw + ix[None, :]          # (pw, gw)
        y = np.broadcast_to(ys[:, None, :, None], (ph, pw, gh, gw))
        x = np.broadcast_to(xs[None, :, None, :], (ph, pw, gh, gw))
        outside = (y < -1) | (y > height) | (x < -1) | (x > width)
        y, x = np.maximum(y, 0), np.maximum(x, 0)
        y0 = np.minimum(np.floor(y).astype(np.int64), height - 1)
        x0 = np.minimum(np.floor(x).astype(np.int64), width - 1)
        y = np.where(y0 >= height - 1, y0, y)
        x = np.where(x0 >= width - 1, x0, x)
        y1i, x1i = np.minimum(y0 + 1, height - 1), np.minimum(x0 + 1, width - 1)
        ly, lx = y - y0, x - x0
        taps = [(y0, x0, (1 - ly) * (1 - lx)), (y0, x1i, (1 - ly) * lx),
                (y1i, x0, ly * (1 - lx)), (y1i, x1i, ly * lx)]
        rows = np.stack([b * height * width + yy * width + xx for yy, xx, _ in taps], -1)
        weights = np.stack([np.where(outside, 0.0, w) for _, _, w in taps], -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            weights = weights / (gh * gw) if gh * gw else np.full((ph, pw, 1, 1, 4), np.nan)
        if not gh * gw:
            rows = np.zeros((ph, pw, 1, 1, 4), np.int64)
        per_roi.append((rows.reshape(ph, pw, -1), weights.reshape(ph, pw, -1)))
    most = max((r.shape[-1] for r, _ in per_roi), default=4)
    rows = np.zeros((len(per_roi), ph, pw, most), np.int64)
    weights = np.zeros((len(per_roi), ph, pw, most))
    for i, (r, w) in enumerate(per_roi):
        rows[i, :, :, :r.shape[-1]], weights[i, :, :, :w.shape[-1]] = r, w
    return rows, weights


def roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
              roi_end_mode=1):
    """Region-of-interest align (Mask R-CNN) of NCHW ``features`` over (R, 5) ``rois``
    ``(batch, x1, y1, x2, y2)``: each (pooled_height, pooled_width) bin averages bilinear
    samples on a ``sample_num`` square grid (0: ``int(bin size)`` per axis, as MindSpore; a
    bin under one pixel then has no sample and gives NaN); the box ends
    are ``(x2 + roi_end_mode) * spatial_scale``. Differentiable in ``features``; the rois
    are read on the host."""
    name = "ROIAlign"
    ops = _ops()
    x = _tensor(name, "features", features, (4,))
    r = _host(_tensor(name, "rois", rois, (2,))).astype(np.float64)
    if r.shape[1] != 5:
        raise ValueError(f"For '{name}', the 'rois' must be (R, 5), but got {list(r.shape)}.")
    n, c, h, w = x.shape
    if r.size and (r[:, 0].min() < 0 or r[:, 0].max() >= n):
        raise ValueError(f"For '{name}', the batch indices of 'rois' must be in [0, {n}).")
    rows, weights = _roi_taps(r, h, w, (pooled_height, pooled_width), float(spatial_scale),
                              int(sample_num), int(roi_end_mode))
    flat = x.transpose((0, 2, 3, 1)).reshape((n * h * w, c))
    taps = ops.gather(flat, P.wrap(rows.reshape(-1)), 0).reshape(rows.shape + (c,))
    out = (taps * P.wrap(weights.astype(x.dtype.np))[..., None]).sum(3)
    return out.transpose((0, 3, 1, 2))


# ----------------------------------------------------------------- dilation2d
def dilation2d(x, filter, stride=1, dilation=1, pad_mode="same"):
    """Grey-scale morphological dilation of NCHW ``x`` by the (C, kh, kw) ``filter``:
    ``out[n, c, y, x] = max_{i, j} x[n, c, y*s + i*r, x*s + j*r] + filter[c, i, j]``
    (TensorFlow's ``dilation2d``); ``pad_mode`` 'same' pads with -inf as TensorFlow's SAME,
    'valid' does not pad."""
    name = "Dilation2D"
    ops = _ops()
    _tensor(name, "x", x, (4,))
    _tensor(name, "filter", filter, (3,))
    n, c, h, w = x.shape
    if filter.shape[0] != c:
        raise ValueError(f"For '{name}', the 'filter' must have {c} channels (those of 'x'), "
                         f"but got shape {list(filter.shape)}.")
    kh, kw = filter.shape[1:]
    (sh, sw), (rh, rw) = stride, dilation
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if pad_mode == "same":
        oh, ow = -(-h // sh), -(-w // sw)
        ph = max((oh - 1) * sh + eh - h, 0)
        pw = max((ow - 1) * sw + ew - w, 0)
        x = ops.pad(x, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), value=-np.inf)
    else:
        oh, ow = (h - eh) // sh + 1, (w - ew) // sw + 1
        if oh < 1 or ow < 1:
            raise ValueError(f"For '{name}', the dilated filter ({eh}, {ew}) is larger than "
                             f"the input ({h}, {w}).")
    cols = ops.unfold(x, (kh, kw), (rh, rw), 0, (sh, sw))      # (N, C*kh*kw, L)
    cols = cols.reshape((n, c, kh * kw, -1)) + filter.reshape((1, c, kh * kw, 1))
    return ops.amax(cols, 2).reshape((n, c, oh, ow))


# ----------------------------------------------------------------- suppressions
def _iou(box, others):
    """IoU of one (y1, x1, y2, x2)-style box against others (corners in any order)."""
    def norm(b):
        return (np.minimum(b[..., 0], b[..., 2]), np.minimum(b[..., 1], b[..., 3]),
                np.maximum(b[..., 0], b[..., 2]), np.maximum(b[..., 1], b[..., 3]))
    a0, a1, a2, a3 = norm(box)
    b0, b1, b2, b3 = norm(others)
    inter = (np.clip(np.minimum(a2, b2) - np.maximum(a0, b0), 0, None)
             * np.clip(np.minimum(a3, b3) - np.maximum(a1, b1), 0, None))
    union = (a2 - a0) * (a3 - a1) + (b2 - b0) * (b3 - b1) - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def greedy_nms(scores, overlap, max_output, threshold, score_threshold=-np.inf):
    """Indices kept by greedy suppression in descending score order (stable): a box is
    dropped when ``overlap(kept, box) > threshold`` for a kept box, or its score is not
    above ``score_threshold``."""
    order = np.argsort(-scores, kind="stable")
    keep = []
    for i in order:
        if len(keep) >= max_output or scores[i] <= score_threshold:
            break
        if all(overlap(k, i) <= threshold for k in keep):
            keep.append(int(i))
    return keep


def non_max_suppression_v3(boxes, scores, max_output_size, iou_threshold, score_threshold):
    """TensorFlow's NonMaxSuppressionV3: Int32 indices of the kept boxes (at most
    ``max_output_size``; a negative size keeps none)."""
    name = "NonMaxSuppressionV3"
    b = _host(_tensor(name, "boxes", boxes, (2,))).astype(np.float64)
    s = _host(_tensor(name, "scores", scores, (1,))).astype(np.float64)
    if b.shape[-1] != 4 or s.shape[0] != b.shape[0]:
        raise ValueError(f"For '{name}', the 'boxes' must be (N, 4) and 'scores' (N,), but "
                         f"got {list(b.shape)} and {list(s.shape)}.")
    iou_t = float(_host(iou_threshold))
    if not 0 <= iou_t <= 1:
        raise ValueError(f"For '{name}', the 'iou_threshold' must be in [0, 1], but got "
                         f"{iou_t}.")
    keep = greedy_nms(s, lambda k, i: _iou(b[k], b[i]), max(int(_host(max_output_size)), 0),
                      iou_t, float(_host(score_threshold)))
    return P.wrap(np.array(keep, np.int32))


def non_max_suppression_with_overlaps(overlaps, scores, max_output_size, overlap_threshold,
                                      score_threshold):
    """Greedy suppression by a precomputed (N, N) ``overlaps`` matrix: Int32 indices."""
    name = "NonMaxSuppressionWithOverlaps"
    ov = _host(_tensor(name, "overlaps", overlaps, (2,))).astype(np.float64)
    s = _host(_tensor(name, "scores", scores, (1,))).astype(np.float64)
    if ov.shape != (s.shape[0], s.shape[0]):
        raise ValueError(f"For '{name}', the 'overlaps' must be (N, N) with N = "
                         f"{s.shape[0]} (the scores), but got {list(ov.shape)}.")
    keep = greedy_nms(s, lambda k, i: ov[k, i], max(int(_host(max_output_size)), 0),
                      float(_host(overlap_threshold)), float(_host(score_threshold)))
    return P.wrap(np.array(keep, np.int32))


def nms_with_mask(bboxes, iou_threshold):
    """MindSpore's NMSWithMask (CPU/GPU form): boxes (N, 5) ``(x1, y1, x2, y2, score)``
    sorted by descending score, their original indices (Int32) and the Bool mask of the
    kept ones."""
    name = "NMSWithMask"
    bb = _host(_tensor(name, "bboxes", bboxes, (2,)))
    if bb.shape[-1] != 5 or bb.shape[0] < 1:
        raise ValueError(f"For '{name}', the 'bboxes' must be (N, 5) with N > 0, but got "
                         f"{list(bb.shape)}.")
    order = np.argsort(-bb[:, 4].astype(np.float64), kind="stable")
    sorted_boxes = bb[order]
    coords = sorted_boxes[:, :4].astype(np.float64)
    mask = np.zeros(len(order), bool)
    for i in range(len(order)):
        mask[i] = not any(_iou(coords[k], coords[i]) > iou_threshold
                          for k in np.flatnonzero(mask[:i]))
    return (P.wrap(sorted_boxes), P.wrap(order.astype(np.int32)), P.wrap(mask))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold, score_threshold, pad_per_class=False,
                                 clip_boxes=True):
    """TensorFlow's combined NMS: per batch and class greedy suppression, then the best
    ``max_total_size`` detections over the classes (zero-padded). Returns ``(boxes (B, M,
    4), scores (B, M), classes (B, M), valid_detections (B,))``."""
    name = "CombinedNonMaxSuppression"
    bx = _host(_tensor(name, "boxes", boxes, (4,))).astype(np.float64)
    sc = _host(_tensor(name, "scores", scores, (3,))).astype(np.float64)
    if bx.shape[:2] != sc.shape[:2] or bx.shape[2] not in (1, sc.shape[2]) or bx.shape[3] != 4:
        raise ValueError(f"For '{name}', the 'boxes' must be (B, N, q, 4) with q 1 or the "
                         f"classes of 'scores' (B, N, classes), but got {list(bx.shape)} and "
                         f"{list(sc.shape)}.")
    per_class, total = int(_host(max_output_size_per_class)), int(_host(max_total_size))
    iou_t, score_t = float(_host(iou_threshold)), float(_host(score_threshold))
    if per_class < 0 or total < 0 or not 0 <= iou_t <= 1:
        raise ValueError(f"For '{name}', the sizes must be >= 0 and 'iou_threshold' in "
                         f"[0, 1], but got {per_class}, {total} and {iou_t}.")
    batch, _, classes = sc.shape
    m = min(total, per_class * classes) if pad_per_class else total
    out_boxes, out_scores = np.zeros((batch, m, 4)), np.zeros((batch, m))
    out_classes, valid = np.zeros((batch, m)), np.zeros(batch, np.int32)
    for n in range(batch):
        found = []
        for k in range(classes):
            cb = bx[n, :, 0 if bx.shape[2] == 1 else k]
            keep = greedy_nms(sc[n, :, k], lambda a, i: _iou(cb[a], cb[i]), per_class, iou_t,
                              score_t)
            found += [(sc[n, i, k], k, cb[i]) for i in keep]
        found.sort(key=lambda f: -f[0])
        found = found[:m]
        valid[n] = len(found)
        for j, (s, k, box) in enumerate(found):
            out_boxes[n, j] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[n, j], out_classes[n, j] = s, k
    f32 = np.float32
    return (P.wrap(out_boxes.astype(f32)), P.wrap(out_scores.astype(f32)),
            P.wrap(out_classes.astype(f32)), P.wrap(valid))


# ----------------------------------------------------------------- CTC decoding
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy CTC decoding of (T, B, C) ``inputs`` (the last class is the blank): the best
    class per step, repeats merged (``merge_repeated``), blanks removed. Returns the sparse
    result ``(decoded_indices (K, 2), decoded_values (K,), decoded_shape (2,),
    log_probability (B, 1))``, Int64 apart from the Float log-probability (the sum of the
    negated best logits)."""
    name = "ctc_greedy_decoder"
    x = _host(_tensor(name, "inputs", inputs, (3,)))
    seq = _host(_tensor(name, "sequence_length", sequence_length, (1,))).astype(np.int64)
    steps, batch, classes = x.shape
    if seq.shape[0] != batch or np.any(seq < 0) or np.any(seq > steps):
        raise ValueError(f"For '{name}', the 'sequence_length' must hold {batch} values in "
                         f"[0, {steps}], but got {seq.tolist()}.")
    blank = classes - 1
    indices, values, longest = [], [], 0
    log_prob = np.zeros((batch, 1), x.dtype)
    for b in range(batch):
        best = x[:seq[b], b].argmax(-1)
        log_prob[b, 0] = -x[:seq[b], b].max(-1).sum()
        decoded, prev = [], None
        for cls in best:
            if cls != blank and not (merge_repeated and cls == prev):
                decoded.append(int(cls))
            prev = cls
        indices += [(b, j) for j in range(len(decoded))]
        values += decoded
        longest = max(longest, len(decoded))
    return (P.wrap(np.array(indices, np.int64).reshape(-1, 2)),
            P.wrap(np.array(values, np.int64)), P.wrap(np.array([batch, longest], np.int64)),
            P.wrap(log_prob))


def _levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def _sparse_shape(name, arg, shape):
    """A sparse tensor's dense shape: a 1-D integer Tensor (or sequence) of sizes >= 1."""
    value = _host(shape) if isinstance(shape, (_Tensor, tuple, list)) else None
    if value is None or value.ndim != 1 or value.dtype.kind not in "iu" or np.any(value < 1):
        raise TypeError(f"For '{name}', the '{arg}' must be a 1-D integer Tensor of positive "
                        f"sizes, but got {shape!r}.")
    return value.astype(np.int64)


def edit_distance(hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                  truth_values, truth_shape, normalize=True):
    """Levenshtein distance between the sequences of two sparse tensors of rank R (the
    last axis holds the sequence): a dense (R-1)-D Float32 result, divided by the truth
    length when ``normalize`` (an empty truth gives inf, or 0 against an empty hypothesis)."""
    name = "EditDistance"
    hi = _host(_tensor(name, "hypothesis_indices", hypothesis_indices, (2,))).astype(np.int64)
    ti = _host(_tensor(name, "truth_indices", truth_indices, (2,))).astype(np.int64)
    hv = _host(_tensor(name, "hypothesis_values", hypothesis_values, (1,)))
    tv = _host(_tensor(name, "truth_values", truth_values, (1,)))
    hs, ts = (_sparse_shape(name, "hypothesis_shape", hypothesis_shape),
              _sparse_shape(name, "truth_shape", truth_shape))
    if hi.shape[1] != len(hs) or ti.shape[1] != len(ts) or len(hs) != len(ts):
        raise ValueError(f"For '{name}', the indices must have one column per dimension of "
                         f"their (equal-rank) shapes, but got {list(hi.shape)}, {hs.tolist()}, "
                         f"{list(ti.shape)} and {ts.tolist()}.")
    out_shape = tuple(np.maximum(hs[:-1], ts[:-1]))

    def sequences(indices, values):
        seqs = {}
        for pos, v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
            seqs.setdefault(pos[:-1], []).append(v)
        return seqs
    hyp, truth = sequences(hi, hv), sequences(ti, tv)
    out = np.zeros(out_shape, np.float32)
    for pos in np.ndindex(*out_shape):
        h, t = hyp.get(pos, []), truth.get(pos, [])
        dist = float(_levenshtein(h, t))
        if normalize:
            dist = dist / len(t) if t else (math.inf if h else 0.0)
        out[pos] = dist
    return P.wrap(out)


__all__ = ["crop_and_resize", "ctc_greedy_decoder"]
