"""Colour-space primitives of ``mindspore.ops``: RGBToHSV, HSVToRGB, AdjustHue,
AdjustSaturation. Channels are the last axis (size 3), values in [0, 1]; hue is a
fraction of a turn in [0, 1). No gradients (MindSpore defines none for them)."""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .nn._common import check_float, validated

__all__ = ["rgb_to_hsv_p", "hsv_to_rgb_p", "adjust_hue_p", "adjust_saturation_p"]


def rgb_to_hsv(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    delta = v - rgb.min(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(v > 0, delta / np.where(v > 0, v, 1), 0)
        safe = np.where(delta > 0, delta, 1)
        h = np.where(v == r, (g - b) / safe, np.where(v == g, 2 + (b - r) / safe,
                                                      4 + (r - g) / safe))
    h = np.where(delta > 0, (h / 6) % 1.0, 0)
    return np.stack([h, s, v], -1).astype(rgb.dtype)


def hsv_to_rgb(hsv):
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    h6 = (h % 1.0) * 6
    sector = np.floor(h6).astype(np.int64) % 6
    f = h6 - np.floor(h6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.choose(sector, [c[i] for c in choices]) for i in range(3)]
    return np.stack(out, -1).astype(hsv.dtype)


def _infer(name, arg, scalar=None):
    def infer(attrs, x, *rest):
        check_float(name, arg, x.dtype)
        if not x.shape or x.shape[-1] != 3:
            raise ValueError(f"For '{name}', the last dimension of '{arg}' must be 3, but got "
                             f"shape {list(x.shape)}.")
        if scalar and rest and tuple(getattr(rest[0], "shape", ())) not in ((), (1,)):
            raise ValueError(f"For '{name}', the '{scalar}' must be a scalar, but got shape "
                             f"{list(rest[0].shape)}.")
        return ShapedArray(tuple(x.shape), x.dtype)
    return infer


def _prim(name, kernel, n_inputs, arg, scalar=None):
    infer = _infer(name, arg, scalar)
    return P.Primitive(name, validated(lambda xp: kernel, infer), kind="opaque", nondiff=True,
                       n_inputs=n_inputs, infer=infer, doc=(kernel.__doc__ or name).strip())


def _adjust_hue(image, delta):
    """AdjustHue(image, delta): rotate the hue by ``delta`` turns."""
    hsv = rgb_to_hsv(image)
    hsv[..., 0] = (hsv[..., 0] + np.asarray(delta, image.dtype).reshape(())) % 1.0
    return hsv_to_rgb(hsv)


def _adjust_saturation(image, scale):
    """AdjustSaturation(image, scale): multiply the saturation by ``scale``, clipped to
    [0, 1]."""
    hsv = rgb_to_hsv(image)
    hsv[..., 1] = np.clip(hsv[..., 1] * np.asarray(scale, image.dtype).reshape(()), 0, 1)
    return hsv_to_rgb(hsv)


rgb_to_hsv_p = _prim("RGBToHSV", rgb_to_hsv, 1, "images")
hsv_to_rgb_p = _prim("HSVToRGB", hsv_to_rgb, 1, "x")
adjust_hue_p = _prim("AdjustHue", _adjust_hue, 2, "image", "delta")
adjust_saturation_p = _prim("AdjustSaturation", _adjust_saturation, 2, "image", "scale")
