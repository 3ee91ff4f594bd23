"""Augmentations of ``mindspore.dataset.vision``: AdjustGamma, AdjustSharpness, AutoContrast,
Equalize, Grayscale, GaussianBlur, LinearTransformation, FiveCrop, TenCrop, CutOut, their
``Random*`` forms, and the batch mixes MixUpBatch and CutMixBatch.

The uint8 arithmetic is MindSpore's (which follows PIL for gamma, sharpness and
auto-contrast, and OpenCV for equalisation and blurring), so results match MindSpore's
value for value; the tests hold values probed from MindSpore 2.10.
"""
from __future__ import annotations

import enum
import numbers

import numpy as np

from ..transforms.base import TensorOperation, UnaryOperation
from .color import Invert, Posterize, Solarize, gray_level
from .transforms import _ImageOperation, _probability, _range, _size_pair


def _number(op, arg, value, low=0.0):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < low:
        raise ValueError(f"For '{op}', '{arg}' must be a number >= {low}, but got {value!r}.")
    return float(value)


def _channels(img):
    """An <H, W> or <H, W, C> image as a list of <H, W> planes, and how to join them back."""
    if img.ndim == 2:
        return [img], lambda planes: planes[0]
    return [img[..., c] for c in range(img.shape[2])], lambda planes: np.stack(planes, -1)


def _uint8_image(op, img):
    if img.dtype != np.uint8:
        raise op._error(f"the input must be a uint8 image, but got {img.dtype}.", TypeError)
    if img.ndim not in (2, 3):
        raise op._error(f"the input must be an image of shape <H, W> or <H, W, C>, but got "
                        f"shape {img.shape}.")
    return img


# ------------------------------------------------------------------ tone curves
class AdjustGamma(_ImageOperation):
    """Gamma correction. uint8: PIL's table ``int(255.999 · gain · (x/255)^gamma)``,
    saturated; float images (in [0, 1]): ``(gain · x)^gamma`` clipped to [0, 1], as
    MindSpore computes them."""

    def __init__(self, gamma, gain=1.0):
        self.gamma = _number("AdjustGamma", "gamma", gamma)
        self.gain = _number("AdjustGamma", "gain", gain, low=-np.inf)

    def _image(self, img, rand):
        if img.dtype == np.uint8:
            x = np.arange(256) / 255.0
            table = (255 + 1 - 1e-3) * self.gain * np.power(x, self.gamma)
            table = np.clip(table.astype(np.int64), 0, 255).astype(np.uint8)
            return table[img]
        return np.clip(np.power(self.gain * img, self.gamma), 0, 1).astype(img.dtype)


def _autocontrast_table(plane, cutoff, ignore):
    """PIL's auto-contrast lookup table for one uint8 plane."""
    hist = np.bincount(plane.ravel(), minlength=256).astype(np.int64)
    for value in ignore:
        hist[value] = 0
    total = int(hist.sum())
    for low_cut, ordered in ((cutoff[0], range(256)), (cutoff[1], range(255, -1, -1))):
        cut = int(total * low_cut // 100)
        for i in ordered:
            if cut <= 0:
                break
            taken = min(cut, hist[i])
            hist[i] -= taken
            cut -= taken
    nonzero = np.nonzero(hist)[0]
    if nonzero.size == 0 or nonzero[-1] <= nonzero[0]:
        return np.arange(256, dtype=np.uint8)
    lo, hi = nonzero[0], nonzero[-1]
    scale = 255.0 / (hi - lo)
    table = (np.arange(256) * scale - lo * scale).astype(np.int64)
    return np.clip(table, 0, 255).astype(np.uint8)


class AutoContrast(_ImageOperation):
    """Stretch each channel's range to [0, 255] after cutting ``cutoff`` percent of the
    pixels at each end and ignoring the values in ``ignore`` (PIL's ``autocontrast``)."""

    def __init__(self, cutoff=0.0, ignore=None):
        if isinstance(cutoff, (tuple, list)):
            pair = tuple(cutoff)
        else:
            pair = (cutoff, cutoff)
        if len(pair) != 2 or not all(isinstance(c, numbers.Real) and 0 <= c < 50 for c in pair):
            raise ValueError(f"For 'AutoContrast', 'cutoff' must be in [0, 50), but got "
                             f"{cutoff!r}.")
        if ignore is None:
            ignore = ()
        elif isinstance(ignore, numbers.Integral):
            ignore = (ignore,)
        if not all(isinstance(v, numbers.Integral) and 0 <= v <= 255 for v in ignore):
            raise ValueError(f"For 'AutoContrast', 'ignore' must be ints in [0, 255], but got "
                             f"{ignore!r}.")
        self.cutoff = tuple(float(c) for c in pair)
        self.ignore = tuple(int(v) for v in ignore)

    def _image(self, img, rand):
        planes, join = _channels(_uint8_image(self, img))
        return join([_autocontrast_table(p, self.cutoff, self.ignore)[p] for p in planes])


def _equalize_plane(plane):
    """OpenCV's ``equalizeHist`` of one uint8 plane."""
    hist = np.bincount(plane.ravel(), minlength=256)
    first = int(np.argmax(hist > 0))
    total = plane.size
    if hist[first] == total:
        return np.full_like(plane, first)
    scale = np.float32(255.0) / np.float32(total - hist[first])
    cumulative = np.cumsum(hist).astype(np.float32) - np.float32(hist[first])
    table = np.clip(np.rint(cumulative * scale), 0, 255).astype(np.uint8)
    table[:first + 1] = 0
    return table[plane]


class Equalize(_ImageOperation):
    """Histogram equalisation of each uint8 channel."""

    def _image(self, img, rand):
        planes, join = _channels(_uint8_image(self, img))
        return join([_equalize_plane(p) for p in planes])


# ------------------------------------------------------------------ sharpness and blur
def _smooth(img):
    """PIL's SMOOTH filter ([[1, 1, 1], [1, 5, 1], [1, 1, 1]] / 13) on the interior; the
    border keeps its pixels."""
    x = img.astype(np.float64)
    out = x.copy()
    if img.shape[0] < 3 or img.shape[1] < 3:
        return out
    acc = 4 * x[1:-1, 1:-1]
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            acc = acc + x[1 + dy:x.shape[0] - 1 + dy, 1 + dx:x.shape[1] - 1 + dx]
    out[1:-1, 1:-1] = acc / 13
    return out


def _sharpen(img, factor):
    degenerate = _smooth(img)
    if img.dtype == np.uint8:
        degenerate = np.clip(np.rint(degenerate), 0, 255)
        out = degenerate + factor * (img.astype(np.float64) - degenerate)
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return (degenerate + factor * (img - degenerate)).astype(img.dtype)


class AdjustSharpness(_ImageOperation):
    """Blend with a smoothed copy: 0 gives the smoothed image, 1 the original, 2 a sharper
    one (PIL's ``ImageEnhance.Sharpness``)."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = _number("AdjustSharpness", "sharpness_factor", sharpness_factor)

    def _image(self, img, rand):
        return _sharpen(img, self.sharpness_factor)


def _gaussian_kernel(size, sigma):
    if sigma <= 0:
        sigma = 0.3 * ((size - 1) * 0.5 - 1) + 0.8          # OpenCV's default for a size
    x = np.arange(size) - (size - 1) / 2
    k = np.exp(-x * x / (2 * sigma * sigma))
    return k / k.sum()


def _reflect101(n, pad):
    idx = np.arange(-pad, n + pad)
    if n == 1:
        return np.zeros_like(idx)
    period = 2 * (n - 1)
    idx = np.abs(idx) % period
    return np.where(idx >= n, period - idx, idx)


class GaussianBlur(_ImageOperation):
    """Separable Gaussian blur with ``kernel_size`` (odd; one or (x, y)) and ``sigma`` (one
    or (x, y); None or 0 picks it from the size as OpenCV does), reflecting at the border
    (OpenCV's BORDER_REFLECT_101)."""

    def __init__(self, kernel_size, sigma=None):
        ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if len(ks) != 2 or not all(isinstance(k, int) and k > 0 and k % 2 for k in ks):
            raise ValueError(f"For 'GaussianBlur', 'kernel_size' must be a positive odd int or "
                             f"a pair of them, but got {kernel_size!r}.")
        if sigma is None:
            sig = (0.0, 0.0)
        else:
            sig = (sigma, sigma) if isinstance(sigma, numbers.Real) else tuple(sigma)
        if len(sig) != 2 or not all(isinstance(s, numbers.Real) and s >= 0 for s in sig):
            raise ValueError(f"For 'GaussianBlur', 'sigma' must be a non-negative number or a "
                             f"pair of them, but got {sigma!r}.")
        self.kernel_size, self.sigma = ks, tuple(float(s) for s in sig)

    def _image(self, img, rand):
        (kx, ky), (sx, sy) = self.kernel_size, self.sigma
        uint8 = img.dtype == np.uint8
        x = img.astype(np.int64 if uint8 else np.float64)
        for axis, size, sigma in ((1, kx, sx), (0, ky, sy)):
            weights = _gaussian_kernel(size, sigma)
            if uint8:
                weights = _fixed_point_kernel(weights)
            idx = _reflect101(x.shape[axis], size // 2)
            padded = np.take(x, idx, axis=axis)
            n = x.shape[axis]
            x = sum(w * np.take(padded, np.arange(i, i + n), axis=axis)
                    for i, w in enumerate(weights))
        if uint8:                   # two passes of 8 fraction bits each, rounded half up
            return np.clip((x + (1 << 15)) >> 16, 0, 255).astype(np.uint8)
        return x.astype(img.dtype)


def _fixed_point_kernel(weights):
    """The kernel in 8-bit fixed point summing to exactly 256 (OpenCV's bit-exact uint8
    blur)."""
    q = np.rint(weights * 256).astype(np.int64)
    q[len(q) // 2] += 256 - q.sum()
    return q


# ------------------------------------------------------------------ colour and linear maps
class Grayscale(_ImageOperation):
    """An RGB image in gray levels (PIL's ``convert('L')`` weights 0.299, 0.587, 0.114):
    <H, W> for ``num_output_channels=1``, the level in three channels for 3."""

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"For 'Grayscale', 'num_output_channels' must be 1 or 3, but got "
                             f"{num_output_channels!r}.")
        self.num_output_channels = num_output_channels

    def _image(self, img, rand):
        gray = _pil_gray(self, img)
        return gray if self.num_output_channels == 1 else np.repeat(gray[..., None], 3, -1)


def _pil_gray(op, img):
    if img.ndim != 3 or img.shape[2] != 3:
        raise op._error(f"the input must be an RGB image of shape <H, W, 3>, but got shape "
                        f"{img.shape}.")
    if img.dtype == np.uint8:
        r, g, b = (img[..., i].astype(np.int64) for i in range(3))
        return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)
    return gray_level(img)


class RandomGrayscale(_ImageOperation):
    """With probability ``prob``, the gray level in three channels."""
    random = True

    def __init__(self, prob=0.1):
        self.prob = _probability("RandomGrayscale", prob)

    def _image(self, img, rand):
        if rand.generator.random() < self.prob:
            return np.repeat(_pil_gray(self, img)[..., None], 3, -1)
        return img


class LinearTransformation(UnaryOperation):
    """``(flatten(x) - mean_vector) @ transformation_matrix`` in the input's shape (a
    whitening transform, for example)."""

    def __init__(self, transformation_matrix, mean_vector):
        matrix = np.asarray(transformation_matrix)
        mean = np.asarray(mean_vector)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"For 'LinearTransformation', 'transformation_matrix' must be a "
                             f"square matrix, but got shape {matrix.shape}.")
        if mean.shape != (matrix.shape[0],):
            raise ValueError(f"For 'LinearTransformation', 'mean_vector' must have shape "
                             f"({matrix.shape[0]},), but got {mean.shape}.")
        self.matrix, self.mean = matrix, mean

    def _apply(self, array, rand):
        if array.size != self.matrix.shape[0]:
            raise self._error(f"the input has {array.size} elements but the matrix is "
                              f"{self.matrix.shape}.")
        flat = array.reshape(-1) - self.mean
        return (flat @ self.matrix).reshape(array.shape).astype(np.result_type(array, flat))


# ------------------------------------------------------------------ crops
def _corner_crops(op, img, size):
    h, w = img.shape[:2]
    ch, cw = size
    if ch > h or cw > w:
        raise op._error(f"the crop size {size} is larger than the image ({h}, {w}).")
    top, left = int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))
    return (img[:ch, :cw], img[:ch, w - cw:], img[h - ch:, :cw], img[h - ch:, w - cw:],
            img[top:top + ch, left:left + cw])


class FiveCrop(TensorOperation):
    """The four corner crops and the centre crop of ``size`` (an int or (height, width)),
    as five outputs."""

    def __init__(self, size):
        self.size = _size_pair("FiveCrop", size)

    def _run(self, arrays, rand):
        return tuple(np.ascontiguousarray(c) for c in _corner_crops(self, arrays[0], self.size))


class TenCrop(TensorOperation):
    """FiveCrop of the image and of its mirror (left-right, or top-bottom with
    ``use_vertical_flip``), as ten outputs."""

    def __init__(self, size, use_vertical_flip=False):
        self.size = _size_pair("TenCrop", size)
        self.use_vertical_flip = bool(use_vertical_flip)

    def _run(self, arrays, rand):
        img = arrays[0]
        flipped = img[::-1] if self.use_vertical_flip else img[:, ::-1]
        crops = _corner_crops(self, img, self.size) + _corner_crops(self, flipped, self.size)
        return tuple(np.ascontiguousarray(c) for c in crops)


class CutOut(_ImageOperation):
    """Zero ``num_patches`` random ``length`` × ``length`` squares (they may overlap, and
    the border may cut them, as in MindSpore); ``is_hwc=False`` for <C, H, W> images."""
    random = True

    def __init__(self, length, num_patches=1, is_hwc=True):
        for arg, v in (("length", length), ("num_patches", num_patches)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"For 'CutOut', '{arg}' must be a positive int, but got {v!r}.")
        self.length, self.num_patches, self.is_hwc = int(length), int(num_patches), is_hwc

    def _image(self, img, rand):
        out = img.copy()
        view = out if self.is_hwc or out.ndim == 2 else np.moveaxis(out, 0, -1)
        h, w = view.shape[:2]
        size, half = self.length, self.length // 2
        for _ in range(self.num_patches):
            top = int(rand.generator.integers(-half, h))
            left = int(rand.generator.integers(-half, w))
            view[max(top, 0):max(top + size, 0), max(left, 0):max(left + size, 0)] = 0
        return out


# ------------------------------------------------------------------ random forms
class _RandomApply(_ImageOperation):
    """Apply ``self._make(rand)``'s transform with probability ``prob``."""
    random = True

    def _image(self, img, rand):
        if rand.generator.random() < self.prob:
            return self._make(rand)._image(img, rand)
        return img


class RandomEqualize(_RandomApply):
    """Equalize with probability ``prob``."""

    def __init__(self, prob=0.5):
        self.prob = _probability("RandomEqualize", prob)

    def _make(self, rand):
        return Equalize()


class RandomAutoContrast(_RandomApply):
    """AutoContrast(cutoff, ignore) with probability ``prob``."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.op = AutoContrast(cutoff, ignore)
        self.prob = _probability("RandomAutoContrast", prob)

    def _make(self, rand):
        return self.op


class RandomAdjustSharpness(_RandomApply):
    """AdjustSharpness(degree) with probability ``prob``."""

    def __init__(self, degree, prob=0.5):
        self.op = AdjustSharpness(degree)
        self.prob = _probability("RandomAdjustSharpness", prob)

    def _make(self, rand):
        return self.op


class RandomInvert(_ImageOperation):
    """Invert with probability ``prob``."""
    random = True

    def __init__(self, prob=0.5):
        self.prob = _probability("RandomInvert", prob)

    def _image(self, img, rand):
        return Invert()._apply(img, rand) if rand.generator.random() < self.prob else img


class RandomPosterize(_ImageOperation):
    """Posterize with a number of bits drawn from ``bits`` = (min, max) (or one int)."""
    random = True

    def __init__(self, bits=(8, 8)):
        pair = (bits, bits) if isinstance(bits, numbers.Integral) else tuple(bits)
        if len(pair) != 2 or not all(isinstance(b, numbers.Integral) and 1 <= b <= 8
                                     for b in pair) or pair[0] > pair[1]:
            raise ValueError(f"For 'RandomPosterize', 'bits' must be an int or an increasing "
                             f"pair in [1, 8], but got {bits!r}.")
        self.bits = (int(pair[0]), int(pair[1]))

    def _image(self, img, rand):
        bits = int(rand.generator.integers(self.bits[0], self.bits[1] + 1))
        return Posterize(bits)._apply(img, rand)


class RandomSolarize(_ImageOperation):
    """Solarize with a threshold range drawn inside ``threshold`` = (min, max)."""
    random = True

    def __init__(self, threshold=(0, 255)):
        self.threshold = _range("RandomSolarize", "threshold", threshold)

    def _image(self, img, rand):
        lo, hi = self.threshold
        a, b = sorted(int(v) for v in rand.generator.integers(int(lo), int(hi) + 1, 2))
        return Solarize((a, b))._apply(img, rand)


class RandomSharpness(_ImageOperation):
    """AdjustSharpness with a factor drawn uniformly from ``degrees`` = (min, max)."""
    random = True

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomSharpness", "degrees", degrees)

    def _image(self, img, rand):
        return _sharpen(img, rand.generator.uniform(*self.degrees))


# ------------------------------------------------------------------ batch mixes
class ImageBatchFormat(enum.IntEnum):
    """Layout of an image batch: <N, H, W, C> or <N, C, H, W>."""
    NHWC = 0
    NCHW = 1


def _batch(op, images, labels):
    if images.ndim != 4:
        raise op._error(f"the images must be a batch of shape <N, H, W, C> or <N, C, H, W>, "
                        f"but got shape {images.shape}.")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise op._error(f"the labels must be one-hot rows, one per image, but got shape "
                        f"{labels.shape} for {images.shape[0]} images.")
    return images, labels


class MixUpBatch(TensorOperation):
    """Mix each (image, one-hot label) of a batch with another's of the same batch, by a
    weight λ ~ Beta(alpha, alpha): ``λ·x + (1−λ)·x[perm]``."""
    random = True

    def __init__(self, alpha=1.0):
        self.alpha = _number("MixUpBatch", "alpha", alpha)
        if self.alpha == 0:
            raise ValueError("For 'MixUpBatch', 'alpha' must be positive, but got 0.")

    def _run(self, arrays, rand):
        images, labels = _batch(self, *arrays)
        gen = rand.generator
        lam = gen.beta(self.alpha, self.alpha)
        perm = gen.permutation(images.shape[0])
        mixed = lam * images.astype(np.float64) + (1 - lam) * images[perm]
        out_labels = (lam * labels + (1 - lam) * labels[perm]).astype(np.float32)
        if images.dtype == np.uint8:
            return np.clip(np.rint(mixed), 0, 255).astype(np.uint8), out_labels
        return mixed.astype(images.dtype), out_labels


class CutMixBatch(TensorOperation):
    """With probability ``prob`` per image, paste a box from another image of the batch
    (area fraction 1−λ, λ ~ Beta(alpha, alpha)) and mix the labels by the pasted area."""
    random = True

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        self.image_batch_format = ImageBatchFormat(image_batch_format)
        self.alpha = _number("CutMixBatch", "alpha", alpha)
        if self.alpha == 0:
            raise ValueError("For 'CutMixBatch', 'alpha' must be positive, but got 0.")
        self.prob = _probability("CutMixBatch", prob)

    def _run(self, arrays, rand):
        images, labels = _batch(self, *arrays)
        nhwc = self.image_batch_format == ImageBatchFormat.NHWC
        h, w = images.shape[1:3] if nhwc else images.shape[2:4]
        gen = rand.generator
        out_images, out_labels = images.copy(), labels.astype(np.float32)
        perm = gen.permutation(images.shape[0])
        for i in range(images.shape[0]):
            if gen.random() >= self.prob:
                continue
            lam = gen.beta(self.alpha, self.alpha)
            ch, cw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
            cy, cx = int(gen.integers(0, h)), int(gen.integers(0, w))
            y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
            x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
            j = perm[i]
            if nhwc:
                out_images[i, y0:y1, x0:x1] = images[j, y0:y1, x0:x1]
            else:
                out_images[i, :, y0:y1, x0:x1] = images[j, :, y0:y1, x0:x1]
            area = (y1 - y0) * (x1 - x0) / float(h * w)
            out_labels[i] = (1 - area) * labels[i] + area * labels[j]
        return out_images, out_labels


# ------------------------------------------------------------------ hue (OpenCV's 8-bit HSV)
_HSV_SHIFT = 12


def _rgb_to_hsv(img, hrange=256):
    """OpenCV's ``COLOR_RGB2HSV_FULL`` on uint8 (hue in 0..255, computed on a 256 range),
    in its fixed point."""
    rgb = img.astype(np.int64)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(-1)
    diff = v - rgb.min(-1)
    with np.errstate(divide="ignore"):
        sdiv = np.where(v > 0, np.rint((255 << _HSV_SHIFT) / np.maximum(v, 1)), 0).astype(np.int64)
        hdiv = np.where(diff > 0, np.rint((hrange << _HSV_SHIFT) / (6.0 * np.maximum(diff, 1))),
                        0).astype(np.int64)
    half = 1 << (_HSV_SHIFT - 1)
    s = (diff * sdiv + half) >> _HSV_SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv + half) >> _HSV_SHIFT
    h = np.where(h < 0, h + hrange, h)
    return h, s, v


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hsv_to_rgb(h, s, v, hrange=255):
    """OpenCV's ``COLOR_HSV2RGB_FULL`` on uint8 (its float path with a 255 hue range,
    rounded)."""
    hf = (h.astype(np.float32) * np.float32(6.0 / hrange)).astype(np.float32)
    sf = (s.astype(np.float32) * np.float32(1 / 255.0)).astype(np.float32)
    vf = (v.astype(np.float32) * np.float32(1 / 255.0)).astype(np.float32)
    sector = np.floor(hf).astype(np.int64)
    frac = (hf - sector).astype(np.float32)
    sector %= 6
    tab = np.stack([vf, vf * (1 - sf), vf * (1 - sf * frac), vf * (1 - sf * (1 - frac))], -1)
    idx = _SECTORS[sector]                                   # b, g, r positions in tab
    bgr = np.take_along_axis(tab, idx, -1).astype(np.float32)
    rgb = np.where((sf == 0)[..., None], vf[..., None], bgr[..., ::-1])
    return np.clip(np.rint(rgb.astype(np.float32) * np.float32(255)), 0, 255).astype(np.uint8)


class AdjustHue(_ImageOperation):
    """Rotate the hue by ``hue_factor`` of a turn (in [-0.5, 0.5]), through OpenCV's 8-bit
    HSV as MindSpore does."""

    def __init__(self, hue_factor):
        if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real) or \
                not -0.5 <= hue_factor <= 0.5:
            raise ValueError(f"For 'AdjustHue', 'hue_factor' must be in [-0.5, 0.5], but got "
                             f"{hue_factor!r}.")
        self.hue_factor = float(hue_factor)

    def _image(self, img, rand):
        if img.ndim != 3 or img.shape[2] != 3:
            raise self._error(f"the input must be an RGB image of shape <H, W, 3>, but got "
                              f"shape {img.shape}.")
        if img.dtype != np.uint8:
            raise self._error(f"the input must be uint8, but got {img.dtype}.", TypeError)
        h, s, v = _rgb_to_hsv(img)
        h = (h + int(self.hue_factor * 255)) % 256
        return _hsv_to_rgb(h, s, v)
