"""Value-dependent primitives of issue #17's second half of ``mindspore.ops`` (ListDiff,
RaggedRange, SparseSlice, SubAndFilter): integer bookkeeping whose output sizes depend on
the input values, so no gradient flows and the shape rule knows the sizes only for concrete
inputs (-1 under graph capture).

``_value_primitive`` builds each from one NumPy function that computes every output; the
shape rule calls it on concrete inputs, so rule and kernel cannot disagree.
"""
from __future__ import annotations

import numpy as np

from .._core.aval import ShapedArray, is_scalar
from .._core.primitive import Primitive


def _concrete(x):
    return not isinstance(x, ShapedArray) and not is_scalar(x)


def _value_primitive(name, compute, symbolic):
    """A nondiff primitive whose kernel is ``compute(*arrays, **attrs) -> tuple of arrays``;
    its shape rule runs ``compute`` on concrete inputs, else ``symbolic(attrs, *avals)``."""
    def make(xp):
        def kernel(*xs, **attrs):
            return compute(*(np.asarray(x) for x in xs), **attrs)
        return kernel

    def infer(attrs, *xs):
        if all(_concrete(x) for x in xs):
            return tuple(ShapedArray(o.shape, o.dtype) for o in compute(*xs, **attrs))
        return symbolic(attrs, *xs)
    return Primitive(name, make, kind="opaque", multiple_results=True, nondiff=True,
                     infer=infer)


# ----------------------------------------------------------------- ListDiff
def _list_diff(x, y, *, out_idx):
    keep = ~np.isin(x, y)
    return x[keep], np.flatnonzero(keep).astype(out_idx)


list_diff_p = _value_primitive(
    "ListDiff", _list_diff,
    lambda attrs, x, y: (ShapedArray((-1,), x.dtype), ShapedArray((-1,), attrs["out_idx"])))


# ----------------------------------------------------------------- RaggedRange
def _ragged_range(starts, limits, deltas, *, splits_dtype):
    starts, limits, deltas = np.broadcast_arrays(starts, limits, deltas)
    if np.any(deltas == 0):
        raise ValueError("For 'RaggedRange', the 'deltas' must not contain 0.")
    rows = [np.arange(s, l, d, dtype=starts.dtype)
            for s, l, d in zip(starts.ravel(), limits.ravel(), deltas.ravel())]
    splits = np.zeros(len(rows) + 1, splits_dtype)
    np.cumsum([len(r) for r in rows], out=splits[1:])
    values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype)
    return splits, values.astype(starts.dtype)


ragged_range_p = _value_primitive(
    "RaggedRange", _ragged_range,
    lambda attrs, s, l, d: (ShapedArray((-1,), attrs["splits_dtype"]),
                            ShapedArray((-1,), s.dtype)))


# ----------------------------------------------------------------- SparseSlice
def _sparse_slice(indices, values, shape, start, size):
    end = np.minimum(start + size, shape)
    inside = np.all((indices >= start) & (indices < end), axis=1)
    return ((indices[inside] - start).astype(indices.dtype), values[inside],
            np.maximum(end - start, 0).astype(shape.dtype))


sparse_slice_p = _value_primitive(
    "SparseSlice", _sparse_slice,
    lambda attrs, i, v, sh, st, sz: (ShapedArray((-1, i.shape[1]), i.dtype),
                                     ShapedArray((-1,), v.dtype), ShapedArray(sh.shape, sh.dtype)))


# ----------------------------------------------------------------- SubAndFilter
def _sub_and_filter(x, *, max_num, offset):
    shifted = x - np.asarray(offset, x.dtype)
    keep = (shifted >= 0) & (shifted < max_num)
    return shifted[keep], np.flatnonzero(keep).astype(x.dtype)


sub_and_filter_p = _value_primitive(
    "SubAndFilter", _sub_and_filter,
    lambda attrs, x: (ShapedArray((-1,), x.dtype), ShapedArray((-1,), x.dtype)))


# ----------------------------------------------------------------- TensorDump
_dump_count = [0]


def _make_tensor_dump(xp):
    def tensor_dump(x, *, path):
        """Write ``x`` to ``<path>_<dtype>_<n>.npy``, ``n`` counting every dump of the
        process from 0 (MindSpore's file naming), creating missing folders."""
        import os
        arr = np.asarray(x)
        n = _dump_count[0]
        _dump_count[0] += 1
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        np.save(f"{path}_{arr.dtype.name}_{n}.npy", arr)
        return np.zeros((), np.bool_)
    return tensor_dump


# ``TensorDump(x; path)`` saves ``x`` as a ``.npy`` file: a print-like effect, so a compiled
# graph keeps it and runs it at every call, in program order.
tensor_dump_p = Primitive("TensorDump", _make_tensor_dump, kind="opaque", effect="print",
                          nondiff=True, infer=lambda attrs, x: ShapedArray((), np.bool_))


# ----------------------------------------------------------------- RNNTLoss
def _log_softmax(a):
    m = a.max(axis=-1, keepdims=True)
    s = a - m
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def _rnnt_one(lp, labels, t_len, u_len, blank):
    """Cost and gradient (w.r.t. the logits) of one sequence: ``lp`` (T, U, V) log
    probabilities, ``labels`` (U - 1,), lengths ``t_len`` frames and ``u_len`` labels."""
    T, U = t_len, u_len + 1
    emit = lp[:T, :U - 1, :][np.arange(T)[:, None], np.arange(U - 1)[None, :],
                              labels[None, :U - 1]]          # (T, U-1): emit label u+1
    stay = lp[:T, :U, blank]                                  # (T, U): emit blank
    alpha = np.full((T, U), -np.inf, lp.dtype)
    alpha[0, 0] = 0
    for t in range(T):
        for u in range(U):
            if t == 0 and u == 0:
                continue
            a = alpha[t - 1, u] + stay[t - 1, u] if t > 0 else -np.inf
            b = alpha[t, u - 1] + emit[t, u - 1] if u > 0 else -np.inf
            alpha[t, u] = np.logaddexp(a, b)
    beta = np.full((T, U), -np.inf, lp.dtype)
    beta[T - 1, U - 1] = stay[T - 1, U - 1]
    for t in range(T - 1, -1, -1):
        for u in range(U - 1, -1, -1):
            if t == T - 1 and u == U - 1:
                continue
            a = beta[t + 1, u] + stay[t, u] if t < T - 1 else -np.inf
            b = beta[t, u + 1] + emit[t, u] if u < U - 1 else -np.inf
            beta[t, u] = np.logaddexp(a, b)
    ll = beta[0, 0]
    # d(-ll)/d lp, then through the log-softmax: occupancy * softmax - (path flow per class)
    grad = np.zeros_like(lp)
    occupancy = np.exp(alpha + beta - ll)
    grad[:T, :U, :] = occupancy[:, :, None] * np.exp(lp[:T, :U, :])
    nxt = np.full((T, U), -np.inf, lp.dtype)
    nxt[:T - 1, :] = beta[1:, :]
    nxt[T - 1, U - 1] = 0
    grad[:T, :U, blank] -= np.exp(alpha + stay + nxt - ll)
    flow = np.exp(alpha[:, :U - 1] + emit + beta[:, 1:] - ll)
    tt, uu = np.meshgrid(np.arange(T), np.arange(U - 1), indexing="ij")
    np.add.at(grad, (tt, uu, np.broadcast_to(labels[None, :U - 1], tt.shape)), -flow)
    return -ll, grad


def _make_rnnt_loss(xp):
    def rnnt_loss(acts, labels, input_lengths, label_lengths, *, blank_label):
        work = acts.astype(np.float64)
        lp = _log_softmax(work)
        costs = np.zeros(acts.shape[0], np.float64)
        grads = np.zeros_like(work)
        for b in range(acts.shape[0]):
            costs[b], grads[b] = _rnnt_one(lp[b], labels[b].astype(np.int64),
                                           int(input_lengths[b]), int(label_lengths[b]),
                                           blank_label)
        return costs.astype(acts.dtype), grads.astype(acts.dtype)
    return rnnt_loss


def _rnnt_loss_infer(attrs, acts, labels, input_lengths, label_lengths):
    return ShapedArray((acts.shape[0],), acts.dtype), ShapedArray(acts.shape, acts.dtype)


# ``RNNTLoss(acts, labels, input_lengths, label_lengths; blank_label)`` -> ``(costs,
# grads)``: the transducer loss of each sequence (the log-softmax of ``acts`` taken inside)
# and its gradient with respect to ``acts``, both computed by the forward-backward
# recursions (float64 inside). As in MindSpore the gradient is an output, not a rule.
rnnt_loss_p = Primitive("RNNTLoss", _make_rnnt_loss, kind="opaque", multiple_results=True,
                        nondiff=True, infer=_rnnt_loss_infer)


# ----------------------------------------------------------------- RotatedIou
def _corners(box, trans):
    """The four corners (counter-clockwise) of an 'xywht' box (centre, size, angle in
    degrees) or an 'xyxyt' box (two corners before the rotation about the centre)."""
    if trans:
        x1, y1, x2, y2, t = box
        cx, cy, w, h = (x1 + x2) / 2, (y1 + y2) / 2, abs(x2 - x1), abs(y2 - y1)
    else:
        cx, cy, w, h, t = box
    a = np.deg2rad(t)
    c, s = np.cos(a), np.sin(a)
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return local @ np.array([[c, s], [-s, c]]) + np.array([cx, cy])


def _clip(poly, a, b, eps):
    """The part of the convex polygon ``poly`` left of the directed edge a -> b."""
    def side(p):
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    out = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp >= -eps:
            out.append(p)
        if (sp >= -eps) != (sq >= -eps) and sp != sq:
            out.append(p + (q - p) * (sp / (sp - sq)))
    return out


def _area(poly):
    if len(poly) < 3:
        return 0.0
    p = np.asarray(poly)
    return 0.5 * abs(np.dot(p[:, 0], np.roll(p[:, 1], -1)) - np.dot(p[:, 1], np.roll(p[:, 0], -1)))


def _overlap(p, q, mode, eps):
    inter = list(p)
    for i in range(4):
        if not inter:
            break
        inter = _clip(inter, q[i], q[(i + 1) % 4], eps)
    area = _area(inter)
    a, b = _area(p), _area(q)
    denom = a if mode == 1 else a + b - area
    return area / denom if denom > 0 else 0.0


def _make_rotated_iou(xp):
    def rotated_iou(boxes, query, *, trans, mode, is_cross, v_threshold, e_threshold):
        eps = max(float(v_threshold), float(e_threshold), 0.0)
        bs = boxes.astype(np.float64)
        qs = query.astype(np.float64)
        out_dtype = boxes.dtype
        B, N, K = bs.shape[0], bs.shape[1], qs.shape[1]
        corners_b = [[_corners(bs[i, n], trans) for n in range(N)] for i in range(B)]
        corners_q = [[_corners(qs[i, k], trans) for k in range(K)] for i in range(B)]
        if is_cross:
            out = np.array([[[_overlap(corners_b[i][n], corners_q[i][k], mode, eps)
                              for k in range(K)] for n in range(N)] for i in range(B)])
            return out.reshape(B, N, K).astype(out_dtype)
        out = np.array([[_overlap(corners_b[i][n], corners_q[i][n], mode, eps)
                         for n in range(N)] for i in range(B)])
        return out.reshape(B, N).astype(out_dtype)
    return rotated_iou


def _rotated_iou_infer(attrs, boxes, query):
    shape = ((boxes.shape[0], boxes.shape[1], query.shape[1]) if attrs["is_cross"]
             else (boxes.shape[0], boxes.shape[1]))
    return ShapedArray(shape, boxes.dtype)


# ``RotatedIou(boxes, query_boxes; trans, mode, is_cross, v_threshold, e_threshold)``: the
# IoU (mode 0) or IoF (mode 1, over the area of ``boxes``) of rotated rectangles, by
# clipping one rectangle's polygon by the other's edges (float64 inside).
rotated_iou_p = Primitive("RotatedIou", _make_rotated_iou, kind="opaque", nondiff=True,
                          infer=_rotated_iou_infer)


# ----------------------------------------------------------------- SampleDistortedBoundingBoxV2
def _random_crop(gen, width, height, area_range, aspect):
    """One try at a crop (x, y, w, h) of ``aspect`` (w / h) covering a fraction of the
    image in ``area_range``: the height is drawn between the smallest and the largest that
    fit, the position uniformly; None when no such crop exists."""
    min_area = area_range[0] * width * height
    max_area = area_range[1] * width * height
    h = int(np.rint(np.sqrt(min_area / aspect)))
    max_h = int(np.rint(np.sqrt(max_area / aspect)))
    if np.rint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(gen.integers(0, max_h - h + 1))
    w = int(np.rint(h * aspect))
    if w * h < min_area:
        h += 1
        w = int(np.rint(h * aspect))
    if w * h > max_area:
        h -= 1
        w = int(np.rint(h * aspect))
    if not (min_area <= w * h <= max_area and 0 < w <= width and 0 < h <= height):
        return None
    y = int(gen.integers(0, height - h)) if h < height else 0
    x = int(gen.integers(0, width - w)) if w < width else 0
    return x, y, w, h


def _covers(crop, boxes, min_covered):
    """Whether the crop holds at least ``min_covered`` of some box's area."""
    x, y, w, h = crop
    for x0, y0, x1, y1 in boxes:
        area = (x1 - x0) * (y1 - y0)
        if area <= 0:
            continue
        iw = max(0.0, min(x1, x + w) - max(x0, x))
        ih = max(0.0, min(y1, y + h) - max(y0, y))
        if iw * ih / area >= min_covered:
            return True
    return False


def _make_sample_distorted_bbox(xp):
    def sample(key, image_size, bounding_boxes, min_object_covered, *, aspect_ratio_range,
               area_range, max_attempts, use_image_if_no_bounding_boxes):
        from .._random import generator
        height, width = int(image_size[0]), int(image_size[1])
        b = np.asarray(bounding_boxes, np.float64).reshape(-1, 4)
        boxes = [(x0 * width, y0 * height, x1 * width, y1 * height) for y0, x0, y1, x1 in b]
        if not boxes:
            boxes = [(0.0, 0.0, float(width), float(height))]
        gen = generator(key)
        covered = float(np.asarray(min_object_covered).reshape(()))
        crop = None
        for _ in range(max_attempts):
            aspect = gen.random() * (aspect_ratio_range[1] - aspect_ratio_range[0]) + \
                aspect_ratio_range[0]
            tried = _random_crop(gen, width, height, area_range, aspect)
            if tried is not None and _covers(tried, boxes, covered):
                crop = tried
                break
        x, y, w, h = crop if crop is not None else (0, 0, width, height)
        dt = np.asarray(image_size).dtype
        begin = np.array([y, x, 0], dt)
        size = np.array([h, w, -1], dt)
        bbox = np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]],
                        np.float32)
        return begin, size, bbox
    return sample


def _sample_distorted_bbox_infer(attrs, key, image_size, bounding_boxes, min_object_covered):
    return (ShapedArray((3,), image_size.dtype), ShapedArray((3,), image_size.dtype),
            ShapedArray((1, 1, 4), np.dtype(np.float32)))


# ``SampleDistortedBoundingBoxV2(key, image_size, bounding_boxes, min_object_covered;
# ...)`` -> ``(begin, size, bboxes)``: a random crop of the image (TensorFlow's algorithm:
# up to ``max_attempts`` tries of a random aspect ratio and area, kept when it covers enough
# of some box; the whole image otherwise).
sample_distorted_bbox_p = Primitive(
    "SampleDistortedBoundingBoxV2", _make_sample_distorted_bbox, kind="opaque",
    effect="random", nondiff=True, multiple_results=True, infer=_sample_distorted_bbox_infer)
