"""More vision transforms: colour (``RgbToHsv``, ``HsvToRgb``, ``RandomColorAdjust``,
``RandomColor``, ``RandomLighting``), ``RandomErasing``, ``MixUp``, ``SlicePatches``,
``RandomCropDecodeResize``, ``ToPIL`` and the image file functions (``read_file``,
``read_image``, ``write_file``, ``encode_jpeg`` / ``encode_png``, ``write_jpeg`` /
``write_png``; Pillow codecs).

Deterministic results are MindSpore 2.10's (probed): the colour adjustments reuse the
``Adjust*`` kernels, which match it; ``RgbToHsv`` / ``HsvToRgb`` are ``colorsys`` in
float64, vectorised. Random draws come from the row's stream (``RandomColorAdjust``
applies its four adjustments in a random order, as MindSpore does).
"""
from __future__ import annotations

import enum
import io
import numbers
import os

import numpy as np

from ..transforms.base import TensorOperation, UnaryOperation
from .augment import AdjustHue
from .color import AdjustBrightness, AdjustContrast, AdjustSaturation
from .transforms import (Decode, Inter, RandomResizedCrop, Resize, _ImageOperation,
                         _probability,
                         _range, decode_image, pillow)


# ------------------------------------------------------------------------- HSV
def _channels_last(img, is_hwc, op):
    if img.ndim not in (3, 4):
        raise ValueError(f"For '{op}', the input must be an image <H, W, C> / <C, H, W> or a "
                         f"batch of them, but got shape {img.shape}.")
    axis = -1 if is_hwc else -3
    if img.shape[axis] != 3:
        raise TypeError(f"For '{op}', the image must have 3 channels, but got shape "
                        f"{img.shape}.")
    return axis


def rgb_to_hsv(r, g, b):
    """``colorsys.rgb_to_hsv`` on arrays, as MindSpore runs it through ``np.vectorize``:
    on float32 pixels the saturation and the differences of ``rc``, ``gc``, ``bc`` stay in
    float32 while sums with Python floats are float64 (NumPy 1's scalar rules)."""
    low = r.dtype if r.dtype == np.float32 else np.float64
    r, g, b = (c.astype(low) for c in (r, g, b))
    maxc, minc = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    span = maxc - minc
    flat = span == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(flat, 0, span / maxc).astype(low)
        rc, gc, bc = (maxc - r) / span, (maxc - g) / span, (maxc - b) / span
    wide = np.float64
    h = np.where(r == maxc, (bc - gc).astype(wide),
                 np.where(g == maxc, 2.0 + rc.astype(wide) - bc,
                          4.0 + gc.astype(wide) - rc))
    h = np.where(flat, 0.0, np.mod(h / 6.0, 1.0))
    return h, s.astype(wide), maxc.astype(wide)


def hsv_to_rgb(h, s, v):
    """``colorsys.hsv_to_rgb`` on arrays (float64)."""
    h, s, v = (c.astype(np.float64) for c in (h, s, v))
    i = np.trunc(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1.0 - s), v * (1.0 - s * f), v * (1.0 - s * (1.0 - f))
    i = np.mod(i.astype(np.int64), 6)
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [c[n] for c in choices]) for n in range(3)]
    grey = s == 0.0
    return tuple(np.where(grey, v, o) for o in out)


class _HsvConversion(TensorOperation):
    convert = None

    def __init__(self, is_hwc=False):
        if not isinstance(is_hwc, bool):
            raise TypeError(f"For '{type(self).__name__}', 'is_hwc' must be bool, but got "
                            f"{type(is_hwc).__name__}.")
        self.is_hwc = is_hwc

    def _run(self, arrays, rand):
        if len(arrays) != 1:
            raise self._error(f"expected 1 input column, but got {len(arrays)}.", TypeError)
        img = arrays[0]
        axis = _channels_last(img, self.is_hwc, type(self).__name__)
        planes = [np.take(img, k, axis=axis) for k in range(3)]
        return (np.stack(type(self).convert(*planes), axis=axis),)


class RgbToHsv(_HsvConversion):
    """RGB to HSV (float64, each in [0, 1]) of a float image in [0, 1], CHW (or HWC with
    ``is_hwc``), or a batch of them."""

    convert = staticmethod(rgb_to_hsv)


class HsvToRgb(_HsvConversion):
    """HSV to RGB (float64), the inverse of ``RgbToHsv``."""

    convert = staticmethod(hsv_to_rgb)


# ---------------------------------------------------------------- colour jitter
def _jitter_range(op, arg, value, centre, bound=None):
    """(min, max): a number v gives (max(0, centre - v), centre + v); hue (-v, v)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"For '{op}', '{arg}' must be non-negative, but got {value}.")
        lo, hi = (-value, value) if centre == 0 else (max(0.0, centre - value), centre + value)
    else:
        lo, hi = _range(op, arg, value, low=-0.5 if centre == 0 else 0.0)
    if bound is not None and not (-bound <= lo <= hi <= bound):
        raise ValueError(f"For '{op}', '{arg}' must lie in [-{bound}, {bound}], but got "
                         f"{value!r}.")
    return float(lo), float(hi)


class RandomColorAdjust(_ImageOperation):
    """Brightness, contrast, saturation and hue factors drawn from their ranges (a number
    v: brightness/contrast/saturation in (max(0, 1 - v), 1 + v), hue in (-v, v), v <= 0.5),
    applied in a random order; an adjustment whose range is the identity is skipped."""

    random = True

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        op = "RandomColorAdjust"
        self.brightness = _jitter_range(op, "brightness", brightness, 1.0)
        self.contrast = _jitter_range(op, "contrast", contrast, 1.0)
        self.saturation = _jitter_range(op, "saturation", saturation, 1.0)
        self.hue = _jitter_range(op, "hue", hue, 0.0, 0.5)

    def _image(self, img, rand):
        gen = rand.generator
        steps = [(self.brightness, 1.0, AdjustBrightness), (self.contrast, 1.0, AdjustContrast),
                 (self.saturation, 1.0, AdjustSaturation), (self.hue, 0.0, AdjustHue)]
        for k in gen.permutation(4):
            (lo, hi), identity, kind = steps[int(k)]
            if lo == hi == identity:
                continue
            img = kind(float(gen.uniform(lo, hi)))._apply(img, rand)
        return img


class RandomColor(_ImageOperation):
    """Saturation blended by a factor drawn from ``degrees`` (0 grey, 1 the original)."""

    random = True

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomColor", "degrees", degrees)

    def _image(self, img, rand):
        return AdjustSaturation(float(rand.generator.uniform(*self.degrees)))._apply(img, rand)


_LIGHTING = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                      [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                      [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]])


class RandomLighting(_ImageOperation):
    """AlexNet's PCA lighting noise: each channel shifted by the ImageNet eigenvectors times
    eigenvalues times N(0, ``alpha``) draws, clipped to uint8."""

    random = True

    def __init__(self, alpha=0.05):
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha < 0:
            raise ValueError(f"For 'RandomLighting', 'alpha' must be a non-negative number, but "
                             f"got {alpha!r}.")
        self.alpha = float(alpha)

    def _image(self, img, rand):
        if img.ndim != 3 or img.shape[2] != 3:
            raise self._error(f"the image must be RGB <H, W, 3>, but got shape {img.shape}.")
        if self.alpha == 0:
            return img.copy()
        shift = _LIGHTING @ rand.generator.normal(0.0, self.alpha, 3)
        return np.clip(img.astype(np.float64) + shift, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------- erasing
class RandomErasing(UnaryOperation):
    """With probability ``prob``, erase a random rectangle of a CHW image (area fraction
    in ``scale``, aspect ratio in ``ratio``, up to ``max_attempts`` tries) with ``value``:
    a number, 3 per-channel values, or ``'random'`` (N(0, 1) noise)."""

    random = True

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        self.prob = _probability("RandomErasing", prob)
        self.scale = _range("RandomErasing", "scale", scale)
        self.ratio = _range("RandomErasing", "ratio", ratio, low=1e-12)
        if not (isinstance(value, numbers.Real) or value == "random" or
                (isinstance(value, (tuple, list)) and len(value) == 3)):
            raise ValueError("The value for erasing should be either a single value, or a "
                             "string 'random', or a sequence of 3 elements for RGB "
                             "respectively.")
        self.value, self.inplace = value, bool(inplace)
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or \
                max_attempts < 1:
            raise ValueError(f"For 'RandomErasing', 'max_attempts' must be a positive int, but "
                             f"got {max_attempts!r}.")
        self.max_attempts = max_attempts

    def _apply(self, img, rand):
        if img.ndim != 3:
            raise self._error(f"the input must be a CHW image, but got shape {img.shape}.")
        gen = rand.generator
        if gen.random() >= self.prob:
            return img
        c, h, w = img.shape
        for _ in range(self.max_attempts):
            area = gen.uniform(*self.scale) * h * w
            aspect = gen.uniform(*self.ratio)
            ew = int(round(np.sqrt(area * aspect)))
            eh = int(round(ew / aspect))
            if eh < h and ew < w:
                top, left = int(gen.integers(0, h - eh + 1)), int(gen.integers(0, w - ew + 1))
                out = img if self.inplace else img.copy()
                out[:, top:top + eh, left:left + ew] = self._fill(gen, (c, eh, ew))
                return out
        return img

    def _fill(self, gen, shape):
        if isinstance(self.value, str):
            return gen.normal(0.0, 1.0, shape)
        if isinstance(self.value, (tuple, list)):
            return np.asarray(self.value, np.float64)[:, None, None]
        return self.value


# ----------------------------------------------------------------------- MixUp
class MixUp(TensorOperation):
    """Mix a batch of HWC images and one-hot labels: image ``i`` with weight ``lam_i`` ~
    Beta(``alpha``, ``alpha``) plus the next image of the batch (``is_single``) or the
    previous mixed batch (otherwise; the first batch passes unchanged) with ``1 - lam_i``."""

    random = True

    def __init__(self, batch_size, alpha, is_single=True):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"For 'MixUp', 'batch_size' must be a positive int, but got "
                             f"{batch_size!r}.")
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
            raise ValueError(f"For 'MixUp', 'alpha' must be positive, but got {alpha!r}.")
        self.batch_size, self.alpha, self.is_single = batch_size, float(alpha), bool(is_single)
        self._previous = None

    def _run(self, arrays, rand):
        if len(arrays) != 2:
            raise self._error("expected 2 input columns (images, labels).", TypeError)
        images, labels = (np.asarray(a) for a in arrays)
        n = self.batch_size
        if images.shape[0] != n or labels.shape[0] != n:
            raise self._error(f"the batch must hold batch_size={n} images and labels, but got "
                              f"{images.shape[0]} and {labels.shape[0]}.")
        lam = rand.generator.beta(self.alpha, self.alpha, n)
        if self.is_single:
            other_images, other_labels = np.roll(images, -1, 0), np.roll(labels, -1, 0)
        else:
            if self._previous is None:
                lam = np.ones(n)
                self._previous = (images, labels)
            other_images, other_labels = self._previous
        lam_img = lam.reshape((n,) + (1,) * (images.ndim - 1))
        mixed = lam_img * images + (1 - lam_img) * other_images
        lam_lab = lam.reshape((n,) + (1,) * (labels.ndim - 1))
        mixed_labels = lam_lab * labels + (1 - lam_lab) * other_labels
        if not self.is_single:
            self._previous = (mixed, mixed_labels)
        return mixed, mixed_labels


# ---------------------------------------------------------------------- patches
class SliceMode(enum.IntEnum):
    """How ``SlicePatches`` handles sizes that do not divide: ``PAD`` the bottom/right with
    the fill value, or ``DROP`` the remainder."""
    PAD = 0
    DROP = 1


class SlicePatches(TensorOperation):
    """Cut an HWC image into ``num_height`` x ``num_width`` patches (row by row), one output
    column each."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for arg, v in (("num_height", num_height), ("num_width", num_width)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 2 ** 31 - 1:
                raise ValueError(f"For 'SlicePatches', '{arg}' must be a positive int, but got "
                                 f"{v!r}.")
        if not isinstance(fill_value, int) or isinstance(fill_value, bool) or \
                not 0 <= fill_value <= 255:
            raise ValueError(f"For 'SlicePatches', 'fill_value' must be an int in [0, 255], but "
                             f"got {fill_value!r}.")
        self.num_height, self.num_width = num_height, num_width
        self.slice_mode, self.fill_value = SliceMode(slice_mode), fill_value

    def _run(self, arrays, rand):
        if len(arrays) != 1 or arrays[0].ndim not in (2, 3):
            raise self._error("expected one <H, W> or <H, W, C> image.", TypeError)
        img = arrays[0]
        h, w = img.shape[:2]
        if self.slice_mode == SliceMode.PAD:
            ph, pw = -(-h // self.num_height), -(-w // self.num_width)
            widths = [(0, ph * self.num_height - h), (0, pw * self.num_width - w)] + \
                [(0, 0)] * (img.ndim - 2)
            img = np.pad(img, widths, constant_values=self.fill_value)
        else:
            ph, pw = h // self.num_height, w // self.num_width
        return tuple(np.ascontiguousarray(img[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.num_height) for j in range(self.num_width))


class RandomCropDecodeResize(_ImageOperation):
    """``Decode`` then ``RandomResizedCrop`` in one step (the input is encoded bytes)."""

    random = True
    min_ndim, max_ndim = 1, 1

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def _image(self, data, rand):
        return self.crop._apply(Decode()._apply(data, rand), rand)


class RandomResize(UnaryOperation):
    """``Resize`` with an interpolation drawn per image (Spore draws between NEAREST and
    BILINEAR, the resizers it implements; MindSpore also draws BICUBIC and AREA)."""

    random = True

    def __init__(self, size):
        self.resizers = [Resize(size, Inter.NEAREST), Resize(size, Inter.BILINEAR)]

    def _apply(self, array, rand):
        return self.resizers[int(rand.generator.integers(2))]._apply(array, rand)


class ToPIL(UnaryOperation):
    """An HWC (or HW) uint8 array as a ``PIL.Image`` (for Pillow-based Python code)."""

    def _apply(self, array, rand):
        image = pillow()
        if array.ndim == 3 and array.shape[2] == 1:
            array = array[..., 0]
        return image.fromarray(np.ascontiguousarray(array))

    def __call__(self, *inputs):
        if len(inputs) == 1 and type(inputs[0]).__module__.startswith("PIL"):
            return inputs[0]
        return super().__call__(*inputs)


# ---------------------------------------------------------------------- file I/O
class ImageReadMode(enum.IntEnum):
    """How ``read_image`` decodes: as stored, grey (one channel) or RGB."""
    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _path(name, filename):
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"For '{name}', 'filename' must be str, but got "
                        f"{type(filename).__name__}.")
    return os.fspath(filename)


def read_file(filename):
    """The bytes of a file as a 1-D uint8 array."""
    path = _path("read_file", filename)
    if not os.path.isfile(path):
        raise RuntimeError(f"Invalid file path, {path} does not exist.")
    return np.fromfile(path, np.uint8)


def write_file(filename, data):
    """Write a 1-D uint8 array to a file."""
    path = _path("write_file", filename)
    data = np.asarray(data)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise RuntimeError(f"For 'write_file', 'data' must be a 1-D uint8 array, but got "
                           f"{data.dtype} of shape {data.shape}.")
    data.tofile(path)


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """Decode an image file to an HWC uint8 array (``mode``: as stored, grey or RGB)."""
    data = read_file(filename).tobytes()
    mode = ImageReadMode(mode)
    if mode == ImageReadMode.COLOR:
        return decode_image(data)
    with pillow().open(io.BytesIO(data)) as image:
        if mode == ImageReadMode.GRAYSCALE:
            return _grey(image)[..., None]
        if image.mode not in ("L", "RGB", "RGBA"):
            image = image.convert("RGBA" if "A" in image.mode else "RGB")
        array = np.array(image)
    return array[..., None] if array.ndim == 2 else array


def _grey(image):
    """One channel as OpenCV's decoders give it: libjpeg's own grey output for JPEG, and
    for PNG libpng's conversion (0.299, 0.587, 0.114 in 1/32768 steps, truncated)."""
    if image.format == "JPEG":
        image.draft("L", image.size)
        return np.array(image.convert("L"))
    if image.mode in ("L", "I;16", "1"):
        return np.array(image.convert("L"))
    rgb = np.array(image.convert("RGB")).astype(np.int64)
    grey = rgb[..., 0] * 9798 + rgb[..., 1] * 19235 + rgb[..., 2] * 3735
    return (grey >> 15).astype(np.uint8)


def _encode_input(name, image):
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim not in (2, 3) or \
            (image.ndim == 3 and image.shape[2] not in (1, 3)):
        raise RuntimeError(f"For '{name}', the image must be a uint8 <H, W> or <H, W, 1|3> "
                           f"array, but got {image.dtype} of shape {image.shape}.")
    return image[..., 0] if image.ndim == 3 and image.shape[2] == 1 else image


def _encode(name, image, fmt, **options):
    buffer = io.BytesIO()
    pillow().fromarray(np.ascontiguousarray(_encode_input(name, image))).save(
        buffer, format=fmt, **options)
    return np.frombuffer(buffer.getvalue(), np.uint8).copy()


def encode_jpeg(image, quality=75):
    """JPEG bytes (1-D uint8) of an RGB or grey uint8 image (Pillow's encoder)."""
    if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
        raise ValueError(f"For 'encode_jpeg', 'quality' must be an int in [1, 100], but got "
                         f"{quality!r}.")
    return _encode("encode_jpeg", image, "JPEG", quality=quality)


def encode_png(image, compression_level=6):
    """PNG bytes (1-D uint8) of an RGB or grey uint8 image."""
    if isinstance(compression_level, bool) or not isinstance(compression_level, int) or \
            not 0 <= compression_level <= 9:
        raise ValueError(f"For 'encode_png', 'compression_level' must be an int in [0, 9], but "
                         f"got {compression_level!r}.")
    return _encode("encode_png", image, "PNG", compress_level=compression_level)


def write_jpeg(filename, image, quality=75):
    write_file(filename, encode_jpeg(image, quality))


def write_png(filename, image, compression_level=6):
    write_file(filename, encode_png(image, compression_level))
