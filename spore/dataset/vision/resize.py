"""Image resampling in NumPy, following OpenCV's ``resize`` (what MindSpore's CPU kernels
call): pixel centres at half-integers, edge pixels clamped.

* nearest: source index ``floor(dst * src / dst_size)``;
* bilinear on uint8: OpenCV's fixed-point arithmetic (weights in 1/2048 steps, a
  horizontal pass into int32, then a vertical pass that drops 4 + 16 bits and
  rounds the last 2), so results equal MindSpore's on downscaling and agree within
  1 on upscaling;
* bilinear on floats: weights in float32, horizontal pass then vertical pass; other
  integer types are computed in float32 and rounded.

Images are ``(H, W)`` or ``(..., H, W, C)``. The passes work on a ``(..., H, W*C)`` view,
so each is a gather along one axis and a multiply by weights broadcast along the other.
"""
from __future__ import annotations

import numpy as np

_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS


def _as_rows(img):
    """``img`` as ``(..., H, W*C)`` and its channel count (1 for a 2-D image)."""
    if img.ndim == 2:
        return img, 1
    *lead, h, w, c = img.shape
    return img.reshape(*lead, h, w * c), c


def _from_rows(rows, img, out_h, out_w):
    if img.ndim == 2:
        return rows
    return rows.reshape(*img.shape[:-3], out_h, out_w, img.shape[-1])


def _linear_taps(src, dst):
    """Left/right source index and right weight (float32) for each output position."""
    pos = ((np.arange(dst) + 0.5) * (1.0 / (dst / src)) - 0.5).astype(np.float32)
    left = np.floor(pos).astype(np.int64)
    frac = (pos - left).astype(np.float32)
    frac[left < 0] = 0
    left = np.maximum(left, 0)
    frac[left >= src - 1] = 0
    left = np.minimum(left, src - 1)
    return left, np.minimum(left + 1, src - 1), frac


def _channel_taps(src_w, out_w, channels):
    """Horizontal taps on the flattened ``W*C`` axis: each pixel's taps for every channel."""
    left, right, frac = _linear_taps(src_w, out_w)
    spread = np.arange(channels)
    return ((left[:, None] * channels + spread).ravel(),
            (right[:, None] * channels + spread).ravel(), np.repeat(frac, channels))


def resize_nearest(img, out_h, out_w):
    rows, c = _as_rows(img)
    h, w = rows.shape[-2], rows.shape[-1] // c
    ys = np.minimum(np.floor(np.arange(out_h) * (h / out_h)).astype(np.int64), h - 1)
    xs = np.minimum(np.floor(np.arange(out_w) * (w / out_w)).astype(np.int64), w - 1)
    cols = (xs[:, None] * c + np.arange(c)).ravel()
    return _from_rows(np.take(np.take(rows, ys, axis=-2), cols, axis=-1), img, out_h, out_w)


def resize_bilinear(img, out_h, out_w):
    if img.dtype == np.uint8:
        return _bilinear_uint8(img, out_h, out_w)
    if img.dtype.kind == "f":
        work = np.float64 if img.dtype == np.float64 else np.float32
        return _bilinear_float(img.astype(work, copy=False), out_h, out_w).astype(img.dtype)
    out = _bilinear_float(img.astype(np.float32), out_h, out_w)
    if img.dtype == np.bool_:
        return out >= 0.5
    info = np.iinfo(img.dtype)
    return np.clip(np.rint(out), info.min, info.max).astype(img.dtype)


def _bilinear_float(img, out_h, out_w):
    rows, c = _as_rows(img)
    x0, x1, fx = _channel_taps(rows.shape[-1] // c, out_w, c)
    y0, y1, fy = _linear_taps(rows.shape[-2], out_h)
    fx, fy = fx.astype(img.dtype), fy.astype(img.dtype)[:, None]
    wide = np.take(rows, x0, axis=-1)
    wide *= 1 - fx
    wide += np.take(rows, x1, axis=-1) * fx
    out = np.take(wide, y0, axis=-2)
    out *= 1 - fy
    out += np.take(wide, y1, axis=-2) * fy
    return _from_rows(out, img, out_h, out_w)


def _fixed_weights(frac):
    right = np.rint(frac * np.float32(_COEF_SCALE)).astype(np.int32)
    left = np.rint((np.float32(1) - frac) * np.float32(_COEF_SCALE)).astype(np.int32)
    return left, right


def _bilinear_uint8(img, out_h, out_w):
    rows, c = _as_rows(img)
    x0, x1, fx = _channel_taps(rows.shape[-1] // c, out_w, c)
    y0, y1, fy = _linear_taps(rows.shape[-2], out_h)
    ax0, ax1 = _fixed_weights(fx)
    by0, by1 = (b[:, None] for b in _fixed_weights(fy))
    wide = np.multiply(np.take(rows, x0, axis=-1), ax0, dtype=np.int32)
    wide += np.multiply(np.take(rows, x1, axis=-1), ax1, dtype=np.int32)
    wide >>= 4
    top = np.take(wide, y0, axis=-2)
    top *= by0
    top >>= 16
    bottom = np.take(wide, y1, axis=-2)
    bottom *= by1
    bottom >>= 16
    top += bottom
    top += 2
    top >>= 2
    return _from_rows(np.clip(top, 0, 255).astype(np.uint8), img, out_h, out_w)
