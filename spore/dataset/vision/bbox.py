"""Transforms of an image with its bounding boxes (two columns: the HWC image and a
float32 ``(n, 4 + k)`` array of ``x, y, width, height`` and k extra values kept as they
are): ``ResizeWithBBox``, ``RandomResizeWithBBox``, ``RandomHorizontalFlipWithBBox``,
``RandomVerticalFlipWithBBox``, ``RandomCropWithBBox``, ``RandomResizedCropWithBBox`` and
``BoundingBoxAugment``.

The box arithmetic is MindSpore 2.10's (probed): boxes must be float32 and lie inside
the image; a crop keeps every box touching the crop window (bounds included), clamped to
it, so a box on the window's edge stays with zero width. Unlike MindSpore's eager calls,
Spore never changes the caller's box array in place.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..transforms.base import TensorOperation, run_operation
from .transforms import (Border, Inter, RandomCrop, RandomResizedCrop, Resize, _crop, _hw,
                         _probability)


def _check_boxes(op, img, boxes):
    if img.ndim not in (2, 3):
        raise op._error(f"the image must be <H, W> or <H, W, C>, but got shape {img.shape}.")
    if boxes.dtype != np.float32:
        raise op._error(f"the bounding boxes must be float32, but got {boxes.dtype}.",
                        RuntimeError)
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise op._error(f"the bounding boxes must be (n, 4 + k) rows of x, y, width, height, "
                        f"but got shape {boxes.shape}.", RuntimeError)
    h, w = _hw(img)
    x, y, bw, bh = (boxes[:, k] for k in range(4))
    if (x < 0).any() or (y < 0).any() or (bw < 0).any() or (bh < 0).any():
        raise op._error("bounding boxes must have non-negative x, y, width and height.",
                        RuntimeError)
    if (x + bw > w).any() or (y + bh > h).any():
        raise op._error(f"a bounding box reaches outside the image ({h}, {w}): image height "
                        f"{h}, bbox height coordinate {float((y + bh).max())}; image width {w}, "
                        f"bbox width coordinate {float((x + bw).max())}.", RuntimeError)
    return boxes.copy()


class _BBoxOperation(TensorOperation):
    def _run(self, arrays, rand):
        if len(arrays) != 2:
            raise self._error("expected 2 input columns (image, bounding boxes).", TypeError)
        img, boxes = arrays
        return self._transform(img, _check_boxes(self, img, boxes), rand)


def _scale_boxes(boxes, sx, sy):
    boxes[:, 0] *= np.float32(sx)
    boxes[:, 2] *= np.float32(sx)
    boxes[:, 1] *= np.float32(sy)
    boxes[:, 3] *= np.float32(sy)
    return boxes


def _resized(resize, img, boxes):
    h, w = _hw(img)
    out = resize._apply(img, None)
    oh, ow = _hw(out)
    return out, _scale_boxes(boxes, ow / w, oh / h)


class ResizeWithBBox(_BBoxOperation):
    """``Resize`` the image and scale the boxes with it."""

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self.resize = Resize(size, interpolation)

    def _transform(self, img, boxes, rand):
        return _resized(self.resize, img, boxes)


class RandomResizeWithBBox(_BBoxOperation):
    """``ResizeWithBBox`` with an interpolation drawn per image (Spore draws between
    NEAREST and BILINEAR, the resizers it implements; MindSpore also draws BICUBIC and
    AREA)."""

    random = True

    def __init__(self, size):
        self.resizers = [Resize(size, Inter.NEAREST), Resize(size, Inter.BILINEAR)]

    def _transform(self, img, boxes, rand):
        return _resized(self.resizers[int(rand.generator.integers(2))], img, boxes)


class _FlipWithBBox(_BBoxOperation):
    """Mirror along ``axis`` (1: left-right, 0: top-bottom) with probability ``prob``; the
    box's x (y) becomes width - x - box width (height - y - box height)."""

    random = True
    axis = 1

    def __init__(self, prob=0.5):
        self.prob = _probability(type(self).__name__, prob)

    def _transform(self, img, boxes, rand):
        if rand.generator.random() >= self.prob:
            return img, boxes
        k = 1 - self.axis  # the box column of the flipped coordinate (0: x, 1: y)
        boxes[:, k] = np.float32(img.shape[self.axis]) - boxes[:, k] - boxes[:, k + 2]
        return np.ascontiguousarray(np.flip(img, self.axis)), boxes


class RandomHorizontalFlipWithBBox(_FlipWithBBox):
    """Mirror left-right with probability ``prob``; x becomes width - x - box width."""

    axis = 1


class RandomVerticalFlipWithBBox(_FlipWithBBox):
    """Mirror top-bottom with probability ``prob``; y becomes height - y - box height."""

    axis = 0


def crop_boxes(boxes, top, left, h, w):
    """Boxes touching the window (bounds included), clamped to it, in its coordinates."""
    x0, y0 = boxes[:, 0], boxes[:, 1]
    x1, y1 = x0 + boxes[:, 2], y0 + boxes[:, 3]
    right, bottom = left + w, top + h
    keep = ~((x0 > right) | (y0 > bottom) | (x1 < left) | (y1 < top))
    boxes = boxes[keep].copy()
    nx0, ny0 = np.clip(boxes[:, 0], left, right), np.clip(boxes[:, 1], top, bottom)
    nx1 = np.clip(boxes[:, 0] + boxes[:, 2], left, right)
    ny1 = np.clip(boxes[:, 1] + boxes[:, 3], top, bottom)
    boxes[:, 0], boxes[:, 1] = nx0 - left, ny0 - top
    boxes[:, 2], boxes[:, 3] = nx1 - nx0, ny1 - ny0
    return boxes


class RandomCropWithBBox(_BBoxOperation):
    """``RandomCrop`` (padding moves the boxes) with the boxes cropped to the window."""

    random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=None):
        self.crop = RandomCrop(size, padding, pad_if_needed, fill_value,
                               Border.CONSTANT if padding_mode is None else padding_mode)

    def _transform(self, img, boxes, rand):
        img, dy, dx, top, left = self.crop.window(img, rand)
        boxes[:, 0] += np.float32(dx)
        boxes[:, 1] += np.float32(dy)
        h, w = self.crop.size
        return _crop(img, top, left, h, w), crop_boxes(boxes, top, left, h, w)


class RandomResizedCropWithBBox(_BBoxOperation):
    """``RandomResizedCrop`` with the boxes cropped to the region then scaled to ``size``."""

    random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)

    def _transform(self, img, boxes, rand):
        top, left, h, w = self.crop._region(*_hw(img), rand.generator)
        out_h, out_w = self.crop.size
        image = self.crop.resizer(_crop(img, top, left, h, w), out_h, out_w)
        return image, _scale_boxes(crop_boxes(boxes, top, left, h, w), out_w / w, out_h / h)


class BoundingBoxAugment(_BBoxOperation):
    """Apply ``transform`` to the image inside a random ``ratio`` of the boxes (each region
    ``[y, y + h) x [x, x + w)`` replaced by the transform of itself); boxes unchanged."""

    random = True

    def __init__(self, transform, ratio=0.3):
        if not callable(transform):
            raise TypeError("For 'BoundingBoxAugment', 'transform' must be callable.")
        if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real) or \
                not 0 <= ratio <= 1:
            raise ValueError(f"For 'BoundingBoxAugment', 'ratio' must be in [0, 1], but got "
                             f"{ratio!r}.")
        self.transform, self.ratio = transform, float(ratio)

    def _transform(self, img, boxes, rand):
        gen = rand.generator
        count = int(self.ratio * len(boxes))
        chosen = gen.choice(len(boxes), count, replace=False) if count else []
        out = img.copy()
        for k in sorted(int(i) for i in chosen):
            x, y, w, h = (int(v) for v in boxes[k, :4])
            if w == 0 or h == 0:
                continue
            region = np.ascontiguousarray(out[y:y + h, x:x + w])
            new = np.asarray(run_operation(self.transform, (region,), rand)[0])
            if new.shape != region.shape:
                raise self._error(f"the transform changed a box region's shape from "
                                  f"{region.shape} to {new.shape}.")
            out[y:y + h, x:x + w] = new
        return out, boxes
