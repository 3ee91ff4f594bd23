"""Affine and perspective warps in NumPy, following OpenCV's ``warpAffine`` /
``warpPerspective`` (what MindSpore's CPU kernels call) so results are MindSpore's:

* the forward matrix is inverted (``invertAffineTransform``; a perspective matrix by
  ``inv``) and every output pixel mapped back to the source;
* source coordinates are fixed point: an affine map in 1/1024 steps rounded to 1/32 of a
  pixel (``INTER_BITS = 5``), a perspective map rounded to 1/32 directly; nearest takes
  the floor (affine) or the rounding (perspective) of the position;
* bilinear and bicubic weights are OpenCV's tables for those 1/32 steps: on uint8 images
  integers summing to 32768 (bicubic: rounded, the rounding error moved onto the central
  2x2), the sum rounded back by 15 bits; on float images float32 weights;
* a tap outside the image takes the fill value (``BORDER_CONSTANT``).
"""
from __future__ import annotations

import numpy as np

from .transforms import Inter

_AB_BITS, _INTER_BITS = 10, 5
_TAB = 1 << _INTER_BITS
_COEF_BITS = 15


def invert_affine(m):
    """OpenCV's ``invertAffineTransform`` of a 2x3 matrix, in float64."""
    m = np.asarray(m, np.float64).reshape(2, 3)
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22, a12, a21 = m[1, 1] * d, m[0, 0] * d, -m[0, 1] * d, -m[1, 0] * d
    b1 = -a11 * m[0, 2] - a12 * m[1, 2]
    b2 = -a21 * m[0, 2] - a22 * m[1, 2]
    return np.array([[a11, a12, b1], [a21, a22, b2]])


def _affine_positions(inv, h, w, nearest):
    """Source positions of every output pixel: integer pixels (nearest) or 1/32 steps."""
    x, y = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
    scale = 1 << _AB_BITS
    round_delta = scale // 2 if nearest else scale // _TAB // 2
    adelta = np.rint(inv[0, 0] * x * scale).astype(np.int64)
    bdelta = np.rint(inv[1, 0] * x * scale).astype(np.int64)
    x0 = np.rint((inv[0, 1] * y + inv[0, 2]) * scale).astype(np.int64) + round_delta
    y0 = np.rint((inv[1, 1] * y + inv[1, 2]) * scale).astype(np.int64) + round_delta
    shift = _AB_BITS if nearest else _AB_BITS - _INTER_BITS
    return (x0[:, None] + adelta[None, :]) >> shift, (y0[:, None] + bdelta[None, :]) >> shift


def _perspective_positions(inv, h, w, nearest):
    x, y = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    big = float(np.iinfo(np.int32).max)
    wz = inv[2, 0] * x + inv[2, 1] * y + inv[2, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        wz = np.where(wz != 0, (1.0 if nearest else _TAB) / wz, 0.0)
    fx = np.clip((inv[0, 0] * x + inv[0, 1] * y + inv[0, 2]) * wz, -big - 1, big)
    fy = np.clip((inv[1, 0] * x + inv[1, 1] * y + inv[1, 2]) * wz, -big - 1, big)
    return np.rint(fx).astype(np.int64), np.rint(fy).astype(np.int64)


def _linear_coeffs(t):
    return np.stack([1 - t, t], -1).astype(np.float32)


def _cubic_coeffs(t):
    """OpenCV's ``interpolateCubic`` (A = -0.75) in float32, for offsets -1..2."""
    a = np.float32(-0.75)
    t = t.astype(np.float32)
    one = np.float32(1)
    c0 = ((a * (t + one) - 5 * a) * (t + one) + 8 * a) * (t + one) - 4 * a
    c1 = ((a + 2) * t - (a + 3)) * t * t + one
    c2 = ((a + 2) * (one - t) - (a + 3)) * (one - t) * (one - t) + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], -1).astype(np.float32)


def _tables(kind):
    """(float weights, integer weights) of each of the 32x32 fractional positions, shape
    (32*32, k, k), indexed by ``fy * 32 + fx``, as OpenCV's ``initInterTab2D`` builds."""
    t = np.arange(_TAB, dtype=np.float32) / np.float32(_TAB)
    coeffs = _linear_coeffs(t) if kind == "linear" else _cubic_coeffs(t)
    k = coeffs.shape[1]
    weights = (coeffs[:, None, :, None] * coeffs[None, :, None, :]).reshape(_TAB * _TAB, k, k)
    weights = weights.astype(np.float32)
    ints = np.rint(weights * np.float32(1 << _COEF_BITS)).astype(np.int64)
    diff = ints.sum(axis=(1, 2)) - (1 << _COEF_BITS)
    c = k // 2  # OpenCV moves the rounding error within rows/columns k//2 and k//2 + 1
    for i in np.flatnonzero(diff):
        block = ints[i, c:c + 2, c:c + 2].ravel().tolist()
        lo = hi = 0
        for j in range(1, 4):
            if block[j] < block[lo]:
                lo = j
            elif block[j] > block[hi]:
                hi = j
        j = hi if diff[i] < 0 else lo
        ints[i, c + j // 2, c + j % 2] -= diff[i]
    return weights, ints


_TABLES = {}


def _table(kind):
    if kind not in _TABLES:
        _TABLES[kind] = _tables(kind)
    return _TABLES[kind]


def _gather(img, sx, sy, fill):
    """``img[sy, sx]`` with the fill value where (sx, sy) is outside the image."""
    h, w = img.shape[:2]
    inside = (sx >= 0) & (sx < w) & (sy >= 0) & (sy < h)
    out = img[np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)]
    return np.where(inside.reshape(inside.shape + (1,) * (img.ndim - 2)), out, fill)


def _fill_value(img, fill):
    fill = np.asarray(fill if fill is not None else 0, np.float64)
    if img.ndim == 3 and fill.ndim == 1:
        fill = np.resize(fill, img.shape[2])
    elif fill.ndim == 1:
        fill = fill[0]
    return fill.astype(img.dtype) if img.dtype.kind in "ui" else fill.astype(img.dtype)


def _remap(img, px, py, interpolation, fill):
    """Sample ``img`` at the fixed-point positions ``px``, ``py``."""
    fill = _fill_value(img, fill)
    if interpolation == Inter.NEAREST:
        return _gather(img, px, py, fill)
    kind = "linear" if interpolation in (Inter.LINEAR, Inter.BILINEAR) else "cubic"
    weights, ints = _table(kind)
    k = weights.shape[1]
    first = 0 if kind == "linear" else -1
    sx, sy = px >> _INTER_BITS, py >> _INTER_BITS
    index = (py & (_TAB - 1)) * _TAB + (px & (_TAB - 1))
    integer = img.dtype == np.uint8 or img.dtype.kind in "ui"
    table = ints if integer else weights
    acc = np.zeros(index.shape + img.shape[2:], np.int64 if integer else np.float32)
    extra = (1,) * (img.ndim - 2)
    for i in range(k):
        for j in range(k):
            tap = _gather(img, sx + first + j, sy + first + i, fill)
            wgt = table[index, i, j].reshape(index.shape + extra)
            acc = acc + (tap.astype(np.int64) * wgt if integer else
                         tap.astype(np.float32) * wgt)
    if not integer:
        return acc.astype(img.dtype)
    out = (acc + (1 << (_COEF_BITS - 1))) >> _COEF_BITS
    info = np.iinfo(img.dtype)
    return np.clip(out, info.min, info.max).astype(img.dtype)


def warp_affine(img, matrix, size, interpolation, fill=0):
    """``cv2.warpAffine(img, matrix, (w, h), interpolation, BORDER_CONSTANT, fill)``."""
    h, w = size
    inv = invert_affine(matrix)
    px, py = _affine_positions(inv, h, w, interpolation == Inter.NEAREST)
    return _remap(img, px, py, interpolation, fill)


def warp_perspective(img, matrix, size, interpolation, fill=0):
    """``cv2.warpPerspective(img, matrix, (w, h), interpolation, BORDER_CONSTANT, fill)``."""
    h, w = size
    inv = np.linalg.inv(np.asarray(matrix, np.float64))
    px, py = _perspective_positions(inv, h, w, interpolation == Inter.NEAREST)
    return _remap(img, px, py, interpolation, fill)


def perspective_matrix(start, end):
    """``cv2.getPerspectiveTransform(start, end)``: the 3x3 map of 4 points onto 4 points."""
    a, b = np.zeros((8, 8)), np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(start, end)):
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    return np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)


def rotation_matrix(center, degrees):
    """``cv2.getRotationMatrix2D(center, degrees, 1)`` (counter-clockwise degrees)."""
    angle = np.deg2rad(degrees)
    alpha, beta = np.cos(angle), np.sin(angle)
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]])


def rotated_bounds(h, w, degrees):
    """Width and height (float32) of the box around a w x h rectangle turned by
    ``degrees``, as OpenCV's ``RotatedRect.boundingRect2f`` gives them."""
    angle = np.deg2rad(degrees)
    b, a = np.float32(np.cos(angle) * 0.5), np.float32(np.sin(angle) * 0.5)
    w, h = np.float32(w), np.float32(h)
    p0 = (-a * h - b * w, b * h - a * w)
    p1 = (a * h - b * w, -b * h - a * w)
    xs = np.array([p0[0], p1[0], -p0[0], -p1[0]], np.float32)
    ys = np.array([p0[1], p1[1], -p0[1], -p1[1]], np.float32)
    return np.float32(xs.max() - xs.min()), np.float32(ys.max() - ys.min())
