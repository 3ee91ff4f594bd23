"""Vision transforms (``mindspore.dataset.vision``) on NumPy images.

Images are ``(H, W)`` or ``(H, W, C)`` arrays (HWC, as MindSpore's); resizing also
takes ``(N, H, W, C)``. Random transforms draw from the row's random stream in a
pipeline, or from the eager stream seeded by ``dataset.config.set_seed``.
"""
from __future__ import annotations

import enum
import io
import math
import numbers

import numpy as np

from ... import _dtype as D
from ..transforms.base import UnaryOperation
from .resize import resize_bilinear, resize_nearest


class Inter(enum.IntEnum):
    """Interpolation modes (Spore implements NEAREST and BILINEAR/LINEAR)."""
    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, enum.Enum):
    """How padding fills: a constant, the edge pixel, or a reflection."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


_RESIZERS = {Inter.NEAREST: resize_nearest, Inter.BILINEAR: resize_bilinear}


# ------------------------------------------------------------------ argument checks
def _size_pair(op, size):
    """``size`` as (h, w); an int gives (size, size)."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (size, size)
    if not isinstance(size, (tuple, list)) or len(size) not in (1, 2) or \
            not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) and s > 0
                    for s in size):
        raise ValueError(f"For '{op}', 'size' must be a positive int or a sequence of 1 or 2 "
                         f"positive ints, but got {size!r}.")
    return (int(size[0]), int(size[-1]))


def _interpolation(op, interpolation):
    if interpolation not in _RESIZERS:
        raise ValueError(f"For '{op}', Spore supports Inter.BILINEAR (LINEAR) and "
                         f"Inter.NEAREST, but got {interpolation!r}.")
    return _RESIZERS[Inter(interpolation)]


def _padding(op, padding):
    """(top, bottom, left, right) from an int, (left/right, top/bottom) or
    (left, top, right, bottom)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = (padding,)
    if not isinstance(padding, (tuple, list)) or len(padding) not in (1, 2, 4) or \
            not all(isinstance(p, numbers.Integral) and p >= 0 for p in padding):
        raise ValueError(f"For '{op}', 'padding' must be a non-negative int or a sequence of "
                         f"2 or 4 of them, but got {padding!r}.")
    if len(padding) == 1:
        return (padding[0],) * 4
    if len(padding) == 2:
        return padding[1], padding[1], padding[0], padding[0]
    left, top, right, bottom = padding
    return top, bottom, left, right


def _fill(op, fill_value):
    if isinstance(fill_value, numbers.Number) and not isinstance(fill_value, bool):
        return fill_value
    if isinstance(fill_value, (tuple, list)) and len(fill_value) == 3:
        return tuple(fill_value)
    raise ValueError(f"For '{op}', 'fill_value' must be a number or a 3-tuple, but got "
                     f"{fill_value!r}.")


def _probability(op, prob):
    if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
        raise ValueError(f"For '{op}', 'prob' must be in [0, 1], but got {prob!r}.")
    return float(prob)


def _range(op, arg, value, low=0.0):
    if not isinstance(value, (tuple, list)) or len(value) != 2 or \
            not all(isinstance(v, numbers.Real) for v in value) or \
            not low <= value[0] <= value[1]:
        raise ValueError(f"For '{op}', '{arg}' must be an increasing (min, max) pair "
                         f">= {low}, but got {value!r}.")
    return float(value[0]), float(value[1])


# ------------------------------------------------------------------ image helpers
class _ImageOperation(UnaryOperation):
    min_ndim, max_ndim = 2, 3

    def _apply(self, array, rand):
        if not self.min_ndim <= array.ndim <= self.max_ndim:
            raise self._error(f"the input must be an image of shape <H, W> or <H, W, C>, but "
                              f"got shape {array.shape}.")
        return self._image(array, rand)


def _hw(img):
    return img.shape[0], img.shape[1]


def _pad_image(img, top, bottom, left, right, fill=0, mode=Border.CONSTANT):
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (img.ndim - 2)
    mode = Border(mode).value
    if mode != "constant":
        return np.pad(img, widths, mode=mode)
    if isinstance(fill, tuple):
        if img.ndim != 3 or img.shape[2] != len(fill):
            raise ValueError(f"a fill_value of {len(fill)} values needs an image with "
                             f"{len(fill)} channels, but got shape {img.shape}.")
        return np.stack([np.pad(img[..., c], widths[:2], constant_values=fill[c])
                         for c in range(len(fill))], axis=-1)
    return np.pad(img, widths, constant_values=fill)


def _crop(img, top, left, h, w):
    return np.ascontiguousarray(img[top:top + h, left:left + w])


# ------------------------------------------------------------------ geometry
class Resize(UnaryOperation):
    """Resize to ``size`` (h, w); an int sets the shorter side, keeping the aspect ratio.

    Examples:
        >>> import numpy as np
        >>> from spore.dataset import vision
        >>> vision.Resize((2, 3))(np.zeros((4, 6, 3), np.uint8)).shape
        (2, 3, 3)
    """

    def __init__(self, size, interpolation=Inter.BILINEAR):
        if isinstance(size, (list, tuple)) and len(size) == 1:
            size = size[0]  # one value: the shorter side, as an int
        pair = _size_pair("Resize", size)
        self.size = pair[0] if isinstance(size, numbers.Integral) else pair
        self.resizer = _interpolation("Resize", interpolation)

    def _apply(self, array, rand):
        if array.ndim < 2 or array.ndim > 4:
            raise self._error(f"the input must be an image <H, W>, <H, W, C> or <N, H, W, C>, "
                              f"but got shape {array.shape}.")
        h_axis = 0 if array.ndim == 2 else array.ndim - 3
        h, w = array.shape[h_axis], array.shape[h_axis + 1]
        out_h, out_w = self._target(h, w)
        return self.resizer(array, out_h, out_w)

    def _target(self, h, w):
        if not isinstance(self.size, int):
            return self.size
        if h <= w:
            return self.size, int(w * self.size / h)
        return int(h * self.size / w), self.size


class Crop(_ImageOperation):
    """The ``size`` region whose top-left corner is ``coordinates`` (top, left)."""

    def __init__(self, coordinates, size):
        if not isinstance(coordinates, (tuple, list)) or len(coordinates) != 2 or \
                not all(isinstance(c, numbers.Integral) and c >= 0 for c in coordinates):
            raise ValueError(f"For 'Crop', 'coordinates' must be (top, left) non-negative "
                             f"ints, but got {coordinates!r}.")
        self.top, self.left = coordinates
        self.size = _size_pair("Crop", size)

    def _image(self, img, rand):
        h, w = self.size
        if self.top + h > img.shape[0] or self.left + w > img.shape[1]:
            raise self._error(f"the crop ({self.top}, {self.left}) + {self.size} exceeds the "
                              f"image of shape {img.shape}.")
        return _crop(img, self.top, self.left, h, w)


class CenterCrop(_ImageOperation):
    """The central ``size`` region; an image smaller than ``size`` is zero-padded first."""

    def __init__(self, size):
        self.size = _size_pair("CenterCrop", size)

    def _image(self, img, rand):
        h, w = self.size
        ih, iw = _hw(img)
        if h > ih or w > iw:
            ph, pw = max(h - ih, 0), max(w - iw, 0)
            img = _pad_image(img, ph // 2, ph - ph // 2, pw // 2, pw - pw // 2)
            ih, iw = _hw(img)
        return _crop(img, (ih - h) // 2, (iw - w) // 2, h, w)


class RandomCrop(_ImageOperation):
    """A random ``size`` region, after optional ``padding`` (and padding up to ``size``
    when ``pad_if_needed``)."""

    random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _size_pair("RandomCrop", size)
        self.padding = None if padding is None else _padding("RandomCrop", padding)
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = _fill("RandomCrop", fill_value)
        self.padding_mode = Border(padding_mode)

    def _image(self, img, rand):
        img, _, _, top, left = self.window(img, rand)
        return _crop(img, top, left, *self.size)

    def window(self, img, rand):
        """(padded image, rows and columns padded above and left of the original, top and
        left of the drawn crop window); ``RandomCropWithBBox`` moves boxes by the padding."""
        dy = dx = 0
        if self.padding is not None:
            img = _pad_image(img, *self.padding, self.fill_value, self.padding_mode)
            dy, dx = self.padding[0], self.padding[2]
        h, w = self.size
        ih, iw = _hw(img)
        if self.pad_if_needed and (ih < h or iw < w):
            ph, pw = max(h - ih, 0), max(w - iw, 0)
            img = _pad_image(img, ph // 2, ph - ph // 2, pw // 2, pw - pw // 2,
                             self.fill_value, self.padding_mode)
            dy, dx = dy + ph // 2, dx + pw // 2
            ih, iw = _hw(img)
        if ih < h or iw < w:
            raise self._error(f"the crop size {self.size} is larger than the (padded) image "
                              f"{(ih, iw)}; set pad_if_needed=True or pad it.")
        gen = rand.generator
        top, left = int(gen.integers(ih - h + 1)), int(gen.integers(iw - w + 1))
        return img, dy, dx, top, left


class RandomResizedCrop(_ImageOperation):
    """A random region (area fraction in ``scale``, aspect ratio in ``ratio``) resized to
    ``size``; after ``max_attempts`` misses, a central crop with the ratio clamped."""

    random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.size = _size_pair("RandomResizedCrop", size)
        self.scale = _range("RandomResizedCrop", "scale", scale)
        self.ratio = _range("RandomResizedCrop", "ratio", ratio, low=1e-12)
        self.resizer = _interpolation("RandomResizedCrop", interpolation)
        if not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"For 'RandomResizedCrop', 'max_attempts' must be a positive int, "
                             f"but got {max_attempts!r}.")
        self.max_attempts = max_attempts

    def _image(self, img, rand):
        top, left, h, w = self._region(*_hw(img), rand.generator)
        return self.resizer(_crop(img, top, left, h, w), *self.size)

    def _region(self, ih, iw, gen):
        area = ih * iw
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * gen.uniform(*self.scale)
            aspect = math.exp(gen.uniform(*log_ratio))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= iw and 0 < h <= ih:
                return int(gen.integers(ih - h + 1)), int(gen.integers(iw - w + 1)), h, w
        in_ratio = iw / ih
        if in_ratio < self.ratio[0]:
            w, h = iw, int(round(iw / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            h, w = ih, int(round(ih * self.ratio[1]))
        else:
            h, w = ih, iw
        return (ih - h) // 2, (iw - w) // 2, h, w


class Pad(_ImageOperation):
    """Pad the borders: ``padding`` is an int, (left/right, top/bottom) or
    (left, top, right, bottom)."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding("Pad", padding)
        self.fill_value = _fill("Pad", fill_value)
        self.padding_mode = Border(padding_mode)

    def _image(self, img, rand):
        return _pad_image(img, *self.padding, self.fill_value, self.padding_mode)


class PadToSize(_ImageOperation):
    """Pad to ``size`` (h, w; an int for both) with the image placed at ``offset``
    (top, left; centred when None)."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size_pair("PadToSize", size)
        if offset is not None:
            offset = (offset, offset) if isinstance(offset, numbers.Integral) else tuple(offset)
            if len(offset) != 2 or not all(isinstance(v, numbers.Integral) and v >= 0
                                           for v in offset):
                raise ValueError(f"For 'PadToSize', 'offset' must be a non-negative int or a "
                                 f"(top, left) pair, but got {offset!r}.")
        self.offset = offset
        self.fill_value = _fill("PadToSize", fill_value)
        self.padding_mode = Border(padding_mode)

    def _image(self, img, rand):
        (h, w), (ih, iw) = self.size, _hw(img)
        top, left = self.offset if self.offset is not None else ((h - ih) // 2, (w - iw) // 2)
        if top < 0 or left < 0 or top + ih > h or left + iw > w:
            raise self._error(f"the image of shape {img.shape} at offset ({top}, {left}) does "
                              f"not fit in the target size {self.size}.")
        return _pad_image(img, top, h - ih - top, left, w - iw - left, self.fill_value,
                          self.padding_mode)


class ResizedCrop(_ImageOperation):
    """Crop the (top, left, height, width) region, then Resize it to ``size``."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        for arg, v in (("top", top), ("left", left)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"For 'ResizedCrop', '{arg}' must be a non-negative int, but "
                                 f"got {v!r}.")
        self.top, self.left = int(top), int(left)
        self.height, self.width = _size_pair("ResizedCrop", (height, width))
        # unlike Resize, one int is the size of both sides
        self.resize = Resize(_size_pair("ResizedCrop", size), interpolation)

    def _image(self, img, rand):
        if self.top + self.height > img.shape[0] or self.left + self.width > img.shape[1]:
            raise self._error(f"the crop ({self.top}, {self.left}, {self.height}, "
                              f"{self.width}) exceeds the image of shape {img.shape}.")
        return self.resize._apply(_crop(img, self.top, self.left, self.height, self.width),
                                  rand)


class Erase(_ImageOperation):
    """Fill the (top, left, height, width) region with ``value`` (one number or one per
    channel)."""

    def __init__(self, top, left, height, width, value=0.0, inplace=False):
        for arg, v in (("top", top), ("left", left), ("height", height), ("width", width)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"For 'Erase', '{arg}' must be a non-negative int, but got "
                                 f"{v!r}.")
        self.region = (int(top), int(left), int(height), int(width))
        self.value = value
        self.inplace = inplace

    def _image(self, img, rand):
        top, left, h, w = self.region
        out = img if self.inplace else img.copy()
        out[top:top + h, left:left + w] = self.value
        return out


class HorizontalFlip(_ImageOperation):
    def _image(self, img, rand):
        return np.ascontiguousarray(img[:, ::-1])


class VerticalFlip(_ImageOperation):
    def _image(self, img, rand):
        return np.ascontiguousarray(img[::-1])


class RandomHorizontalFlip(_ImageOperation):
    """Mirror left-right with probability ``prob``."""

    random = True

    def __init__(self, prob=0.5):
        self.prob = _probability("RandomHorizontalFlip", prob)

    def _image(self, img, rand):
        return np.ascontiguousarray(img[:, ::-1]) if rand.generator.random() < self.prob else img


class RandomVerticalFlip(_ImageOperation):
    """Mirror top-bottom with probability ``prob``."""

    random = True

    def __init__(self, prob=0.5):
        self.prob = _probability("RandomVerticalFlip", prob)

    def _image(self, img, rand):
        return np.ascontiguousarray(img[::-1]) if rand.generator.random() < self.prob else img


# ------------------------------------------------------------------ values and layout
class Rescale(UnaryOperation):
    """``image * rescale + shift`` as float32."""

    def __init__(self, rescale, shift):
        for name, v in (("rescale", rescale), ("shift", shift)):
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise TypeError(f"For 'Rescale', '{name}' must be a number, but got {v!r}.")
        self.rescale, self.shift = float(rescale), float(shift)

    def _apply(self, array, rand):
        return (array.astype(np.float32) * np.float32(self.rescale) +
                np.float32(self.shift)).astype(np.float32)


class Normalize(_ImageOperation):
    """``(image - mean) / std`` per channel, as float32 (channels last unless
    ``is_hwc=False``)."""

    def __init__(self, mean, std, is_hwc=True):
        self.mean = self._values("mean", mean, lambda v: 0 <= v <= 255, "[0, 255]")
        self.std = self._values("std", std, lambda v: 0 < v <= 255, "(0, 255]")
        if len(self.mean) != len(self.std):
            raise ValueError(f"For 'Normalize', 'mean' and 'std' must have the same length, "
                             f"but got {len(self.mean)} and {len(self.std)}.")
        self.is_hwc = bool(is_hwc)

    @staticmethod
    def _values(arg, values, ok, interval):
        values = [values] if isinstance(values, numbers.Real) else values
        if not isinstance(values, (list, tuple)) or not values:
            raise TypeError(f"For 'Normalize', '{arg}' must be a list of numbers, but got "
                            f"{values!r}.")
        for i, v in enumerate(values):
            if not isinstance(v, numbers.Real) or not ok(v):
                raise ValueError(f"Input {arg}[{i}] is not within the required interval of "
                                 f"{interval}.")
        return np.asarray(values, dtype=np.float32)

    def _image(self, img, rand):
        channels = 1 if img.ndim == 2 else img.shape[-1 if self.is_hwc else 0]
        if len(self.mean) not in (1, channels):
            raise self._error(f"'mean' and 'std' have {len(self.mean)} values but the image "
                              f"has {channels} channels.")
        shape = (-1,) if self.is_hwc or img.ndim == 2 else (-1, 1, 1)
        mean, std = self.mean.reshape(shape), self.std.reshape(shape)
        return ((img.astype(np.float32) - mean) / std).astype(np.float32)


class HWC2CHW(_ImageOperation):
    """``(H, W, C)`` to ``(C, H, W)``; a 2-D image is returned unchanged."""

    def _image(self, img, rand):
        return img if img.ndim == 2 else np.ascontiguousarray(img.transpose(2, 0, 1))


class ToTensor(_ImageOperation):
    """HWC image to CHW ``output_type`` (float32) divided by 255; 2-D gives (1, H, W)."""

    def __init__(self, output_type=np.float32):
        self.output_type = D.to_numpy_dtype(output_type)

    def _image(self, img, rand):
        img = img[..., None] if img.ndim == 2 else img
        chw = img.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
        return np.ascontiguousarray(chw.astype(self.output_type))


class ToType(UnaryOperation):
    """Cast to ``data_type`` (as ``transforms.TypeCast``)."""

    def __init__(self, data_type):
        self.data_type = D.to_numpy_dtype(data_type)

    def _apply(self, array, rand):
        return array.astype(self.data_type)


class NormalizePad(Normalize):
    """Normalize, then append a channel of zeros (HWC: last, CHW: first axis) in
    ``dtype`` ('float32' or 'float16')."""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        super().__init__(mean, std, is_hwc)
        if dtype not in ("float32", "float16"):
            raise ValueError(f"For 'NormalizePad', 'dtype' must be 'float32' or 'float16', but "
                             f"got {dtype!r}.")
        self.dtype = np.dtype(dtype)

    def _image(self, img, rand):
        out = super()._image(img, rand)
        if out.ndim == 2:    # one channel, placed where the layout keeps channels
            out = out[..., None] if self.is_hwc else out[None]
        axis = -1 if self.is_hwc else 0
        zeros = np.zeros_like(np.take(out, [0], axis=axis))
        return np.concatenate([out, zeros], axis=axis).astype(self.dtype)


class ToNumpy(UnaryOperation):
    """The input as a NumPy array (a PIL image or Tensor is converted when called)."""

    def _apply(self, array, rand):
        return np.asarray(array)


def get_image_size(image):
    """``[height, width]`` of an <H, W> or <H, W, C> image."""
    img = np.asarray(image)
    if img.ndim not in (2, 3):
        raise ValueError(f"For 'get_image_size', the image must have 2 or 3 dimensions, but "
                         f"got shape {img.shape}.")
    return [int(img.shape[0]), int(img.shape[1])]


def get_image_num_channels(image):
    """The channel count of an <H, W> (1) or <H, W, C> image."""
    img = np.asarray(image)
    if img.ndim not in (2, 3):
        raise ValueError(f"For 'get_image_num_channels', the image must have 2 or 3 "
                         f"dimensions, but got shape {img.shape}.")
    return 1 if img.ndim == 2 else int(img.shape[2])


# ------------------------------------------------------------------ decoding
def pillow():
    """The ``PIL.Image`` module, or a clear ImportError (Pillow is optional)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Decoding images needs Pillow, an optional dependency of Spore: "
                          "install it with 'pip install pillow' (or 'pip install "
                          "spore[vision]').") from None
    return Image


def decode_image(data):
    """Encoded image bytes (JPEG, PNG, BMP, ...) to an RGB ``(H, W, 3)`` uint8 array."""
    image_module = pillow()
    with image_module.open(io.BytesIO(data)) as image:
        return np.array(image.convert("RGB"))


class Decode(UnaryOperation):
    """Decode a 1-D uint8 array of encoded image bytes to an RGB HWC uint8 image (Pillow)."""

    def __init__(self, to_pil=False):
        if to_pil:
            raise ValueError("For 'Decode', Spore's transforms work on NumPy arrays; "
                             "to_pil=True is not supported.")

    def _apply(self, array, rand):
        if array.dtype != np.uint8 or array.ndim != 1:
            raise self._error(f"the input must be a 1-D uint8 array of encoded image bytes, "
                              f"but got {array.dtype} of shape {array.shape}.", TypeError)
        try:
            return decode_image(array.tobytes())
        except ImportError:
            raise
        except Exception as exc:
            raise self._error(f"the image could not be decoded (corrupt or not an image): "
                              f"{exc}") from None
