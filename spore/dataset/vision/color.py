"""Pixel-value transforms (``mindspore.dataset.vision``): Invert, Posterize, Solarize,
AdjustBrightness, AdjustContrast, AdjustSaturation and ConvertColor.

uint8 images follow MindSpore's OpenCV arithmetic (see ``_blend``); the gray level is
OpenCV's fixed-point
``(4899·R + 9617·G + 1868·B + 2¹³) >> 14``. Float images are not rescaled: Invert and
Solarize use 255 − x, and brightness/contrast/saturation are plain blends.
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from ..transforms.base import UnaryOperation


def _rgb_image(op, img):
    if img.ndim != 3 or img.shape[2] != 3:
        raise op._error(f"the input must be an RGB image of shape <H, W, 3>, but got shape "
                        f"{img.shape}.")
    return img


def _blend(dtype, *terms):
    """sum(image · weight) back in the image dtype. For uint8 this is OpenCV's float
    arithmetic: float32 weights, the sum rounded once to float32 (fused multiply-add),
    then rounded half to even and saturated."""
    if dtype == np.uint8:
        total = sum(np.asarray(x, np.float64) * np.float64(np.float32(w)) for x, w in terms)
        return np.clip(np.rint(total.astype(np.float32)), 0, 255).astype(np.uint8)
    return sum(x.astype(dtype) * dtype.type(w) for x, w in terms).astype(dtype)


def gray_level(img):
    """The luma of an RGB image: OpenCV's fixed point for uint8, the float weights else."""
    if img.dtype == np.uint8:
        r, g, b = (img[..., i].astype(np.int32) for i in range(3))
        return ((4899 * r + 9617 * g + 1868 * b + 8192) >> 14).astype(np.uint8)
    return (0.299 * img[..., 0] + 0.587 * img[..., 1] + 0.114 * img[..., 2]).astype(img.dtype)


def _factor(op, arg, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
        raise ValueError(f"For '{op}', '{arg}' must be a non-negative number, but got "
                         f"{value!r}.")
    return float(value)


class Invert(UnaryOperation):
    """255 − x for every channel value."""

    def _apply(self, array, rand):
        return (255 - array).astype(array.dtype) if array.dtype == np.uint8 else \
            (np.float32(255) - array).astype(array.dtype)


class Posterize(UnaryOperation):
    """Keep the ``bits`` highest bits of each uint8 value."""

    def __init__(self, bits):
        if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) or \
                not 0 <= bits <= 8:
            raise ValueError(f"For 'Posterize', 'bits' must be an int in [0, 8], but got "
                             f"{bits!r}.")
        self.bits = int(bits)

    def _apply(self, array, rand):
        if array.dtype != np.uint8:
            raise self._error(f"the input must be uint8, but got {array.dtype}.", TypeError)
        return array & np.uint8((0xFF << (8 - self.bits)) & 0xFF)


class Solarize(UnaryOperation):
    """Invert (255 − x) the values ≥ ``threshold``, or within [min, max] for a pair."""

    def __init__(self, threshold):
        pair = threshold if isinstance(threshold, (list, tuple)) else (threshold, 255)
        if len(pair) != 2 or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                     for v in pair) or pair[0] > pair[1]:
            raise ValueError(f"For 'Solarize', 'threshold' must be a number or a (min, max) "
                             f"pair with min <= max, but got {threshold!r}.")
        self.low, self.high = float(pair[0]), float(pair[1])

    def _apply(self, array, rand):
        inside = (array >= self.low) & (array <= self.high)
        return np.where(inside, Invert()._apply(array, rand), array).astype(array.dtype)


class AdjustBrightness(UnaryOperation):
    """x · ``brightness_factor`` (0 gives black, 1 the original)."""

    def __init__(self, brightness_factor):
        self.brightness_factor = _factor("AdjustBrightness", "brightness_factor",
                                         brightness_factor)

    def _apply(self, array, rand):
        img = _rgb_image(self, array)
        return _blend(img.dtype, (img, self.brightness_factor))


class AdjustContrast(UnaryOperation):
    """Blend with the mean gray level: x · f + mean · (1 − f) (the mean is rounded to the
    pixel type first for uint8 images, as OpenCV does)."""

    def __init__(self, contrast_factor):
        self.contrast_factor = _factor("AdjustContrast", "contrast_factor", contrast_factor)

    def _apply(self, array, rand):
        img = _rgb_image(self, array)
        mean = gray_level(img).astype(np.float64).mean()
        if img.dtype == np.uint8:
            mean = np.rint(mean)
        f = self.contrast_factor
        return _blend(img.dtype, (mean, 1 - f), (img, f))


class AdjustSaturation(UnaryOperation):
    """Blend with the pixel's own gray level: x · f + gray · (1 − f)."""

    def __init__(self, saturation_factor):
        self.saturation_factor = _factor("AdjustSaturation", "saturation_factor",
                                         saturation_factor)

    def _apply(self, array, rand):
        img = _rgb_image(self, array)
        gray = gray_level(img)[..., None]
        f = self.saturation_factor
        return _blend(img.dtype, (gray, 1 - f), (img, f))


class ConvertMode(enum.IntEnum):
    """Colour conversions (OpenCV's names) that ConvertColor implements."""
    COLOR_BGR2BGRA = 0
    COLOR_RGB2RGBA = COLOR_BGR2BGRA
    COLOR_BGRA2BGR = 1
    COLOR_RGBA2RGB = COLOR_BGRA2BGR
    COLOR_BGR2RGBA = 2
    COLOR_RGB2BGRA = COLOR_BGR2RGBA
    COLOR_RGBA2BGR = 3
    COLOR_BGRA2RGB = COLOR_RGBA2BGR
    COLOR_BGR2RGB = 4
    COLOR_RGB2BGR = COLOR_BGR2RGB
    COLOR_BGRA2RGBA = 5
    COLOR_RGBA2BGRA = COLOR_BGRA2RGBA
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = 8
    COLOR_GRAY2RGB = COLOR_GRAY2BGR
    COLOR_GRAY2BGRA = 9
    COLOR_GRAY2RGBA = COLOR_GRAY2BGRA
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


def _opaque(img):
    alpha = np.full(img.shape[:2] + (1,), 255 if img.dtype == np.uint8 else 1, img.dtype)
    return np.concatenate([img, alpha], axis=-1)


_CONVERSIONS = {   # mode: (input channels, function)
    ConvertMode.COLOR_BGR2BGRA: (3, _opaque),
    ConvertMode.COLOR_BGRA2BGR: (4, lambda img: img[..., :3]),
    ConvertMode.COLOR_BGR2RGBA: (3, lambda img: _opaque(img[..., ::-1])),
    ConvertMode.COLOR_RGBA2BGR: (4, lambda img: img[..., 2::-1]),
    ConvertMode.COLOR_BGR2RGB: (3, lambda img: img[..., ::-1]),
    ConvertMode.COLOR_BGRA2RGBA: (4, lambda img: img[..., [2, 1, 0, 3]]),
    ConvertMode.COLOR_BGR2GRAY: (3, lambda img: gray_level(img[..., ::-1])),
    ConvertMode.COLOR_RGB2GRAY: (3, gray_level),
    ConvertMode.COLOR_GRAY2BGR: (1, lambda img: np.repeat(img[..., :1], 3, axis=-1)),
    ConvertMode.COLOR_GRAY2BGRA: (1, lambda img: _opaque(np.repeat(img[..., :1], 3, -1))),
    ConvertMode.COLOR_BGRA2GRAY: (4, lambda img: gray_level(img[..., 2::-1])),
    ConvertMode.COLOR_RGBA2GRAY: (4, lambda img: gray_level(img[..., :3])),
}


class ConvertColor(UnaryOperation):
    """Convert between RGB/BGR/RGBA/BGRA/GRAY layouts (``ConvertMode``)."""

    def __init__(self, convert_mode):
        if not isinstance(convert_mode, ConvertMode):
            raise TypeError(f"For 'ConvertColor', 'convert_mode' must be a ConvertMode, but got "
                            f"{convert_mode!r}.")
        self.convert_mode = convert_mode

    def _apply(self, array, rand):
        channels, convert = _CONVERSIONS[self.convert_mode]
        img = array[..., None] if array.ndim == 2 and channels == 1 else array
        if img.ndim != 3 or img.shape[2] != channels:
            raise self._error(f"{self.convert_mode.name} needs an image of {channels} channels, "
                              f"but got shape {array.shape}.")
        return np.ascontiguousarray(convert(img))
