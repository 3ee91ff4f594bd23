"""Image resampling in NumPy, following OpenCV's ``resize`` (what MindSpore's CPU kernels
call): pixel centres at half-integers, edge pixels clamped.

* nearest: source index ``floor(dst * src / dst_size)``;
* bilinear on uint8: OpenCV's fixed-point arithmetic (weights in 1/2048 steps, a
  horizontal pass into int32, then a vertical pass that drops 4 + 16 bits and
  rounds the last 2), so results equal MindSpore's on downscaling and agree within
  1 on upscaling;
* bilinear on floats: weights in float32, horizontal pass then vertical pass; other
  integer types are computed in float32 and rounded.

Images are ``(H, W)`` or ``(..., H, W, C)``.
"""
from __future__ import annotations

import numpy as np

_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS


def _hw_axes(img):
    return (0, 1) if img.ndim == 2 else (img.ndim - 3, img.ndim - 2)


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


def _shape_along(weights, axis, ndim):
    shape = [1] * ndim
    shape[axis] = len(weights)
    return weights.reshape(shape)


def resize_nearest(img, out_h, out_w):
    ya, xa = _hw_axes(img)
    h, w = img.shape[ya], img.shape[xa]
    rows = np.minimum(np.floor(np.arange(out_h) * (h / out_h)).astype(np.int64), h - 1)
    cols = np.minimum(np.floor(np.arange(out_w) * (w / out_w)).astype(np.int64), w - 1)
    return np.take(np.take(img, rows, axis=ya), cols, axis=xa)


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
    ya, xa = _hw_axes(img)
    x0, x1, fx = _linear_taps(img.shape[xa], out_w)
    y0, y1, fy = _linear_taps(img.shape[ya], out_h)
    fx = _shape_along(fx.astype(img.dtype), xa, img.ndim)
    fy = _shape_along(fy.astype(img.dtype), ya, img.ndim)
    rows = np.take(img, x0, axis=xa) * (1 - fx) + np.take(img, x1, axis=xa) * fx
    return np.take(rows, y0, axis=ya) * (1 - fy) + np.take(rows, y1, axis=ya) * fy


def _fixed_weights(frac):
    right = np.rint(frac * np.float32(_COEF_SCALE)).astype(np.int32)
    left = np.rint((np.float32(1) - frac) * np.float32(_COEF_SCALE)).astype(np.int32)
    return left, right


def _bilinear_uint8(img, out_h, out_w):
    ya, xa = _hw_axes(img)
    x0, x1, fx = _linear_taps(img.shape[xa], out_w)
    y0, y1, fy = _linear_taps(img.shape[ya], out_h)
    ax0, ax1 = (_shape_along(a, xa, img.ndim) for a in _fixed_weights(fx))
    by0, by1 = (_shape_along(b, ya, img.ndim) for b in _fixed_weights(fy))
    src = img.astype(np.int32)
    rows = (np.take(src, x0, axis=xa) * ax0 + np.take(src, x1, axis=xa) * ax1) >> 4
    mixed = ((np.take(rows, y0, axis=ya) * by0) >> 16) + ((np.take(rows, y1, axis=ya) * by1) >> 16)
    return np.clip((mixed + 2) >> 2, 0, 255).astype(np.uint8)
