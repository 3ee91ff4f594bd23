"""Geometric transforms: ``Affine``, ``RandomAffine``, ``Rotate``, ``RandomRotation``,
``Perspective`` and ``RandomPerspective``, on OpenCV-exact warps (``warp.py``).

The matrices are MindSpore's (probed): ``Affine`` turns by ``degrees`` clockwise about
the pixel centre ``((w-1)/2, (h-1)/2)``, shears (x then y, each by minus its angle) and
scales, with the 2x2 part rounded to float32, then shifts by ``translate`` times the image
size; ``Rotate`` is ``getRotationMatrix2D`` (counter-clockwise ``degrees`` about
``center`` or ``((w-1)/2, (h-1)/2)``), ``expand`` growing the output to the turned
image's bounds (rounded); its fill colour is applied in reverse channel order, as
MindSpore's kernel does. Random draws come from the row's stream, so their values differ
from MindSpore's generator while following the same distributions.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .transforms import Inter, _ImageOperation, _probability
from .warp import (perspective_matrix, rotated_bounds, rotation_matrix, warp_affine,
                   warp_perspective)

_WARP_INTER = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)


def _warp_interpolation(op, value):
    if value not in _WARP_INTER:
        raise ValueError(f"For '{op}', the interpolation must be one of Inter.NEAREST, "
                         f"Inter.BILINEAR (LINEAR), Inter.BICUBIC (CUBIC) or Inter.AREA, but got "
                         f"{value!r}.")
    value = Inter(value)
    return Inter.BILINEAR if value == Inter.AREA else value  # OpenCV warps AREA as LINEAR


def _fill_value(op, fill):
    if isinstance(fill, numbers.Integral) and not isinstance(fill, bool) and 0 <= fill <= 255:
        return (int(fill),) * 3
    if isinstance(fill, (tuple, list)) and len(fill) == 3 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) and 0 <= v <= 255
            for v in fill):
        return tuple(int(v) for v in fill)
    raise TypeError(f"For '{op}', 'fill_value' must be an int in [0, 255] or a 3-tuple of "
                    f"them, but got {fill!r}.")


def _number(op, arg, value, low=-math.inf, high=math.inf):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not low <= value <= high:
        raise ValueError(f"For '{op}', '{arg}' must be a number in [{low}, {high}], but got "
                         f"{value!r}.")
    return float(value)


def _pair_range(op, arg, value, low, high, symmetric=True):
    """(min, max) from a number (``(-v, v)``) or a 2-sequence."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and symmetric:
        v = _number(op, arg, value, 0, high)
        return -v, v
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"For '{op}', '{arg}' must be a number or a (min, max) sequence, but "
                        f"got {value!r}.")
    a, b = (_number(op, arg, v, low, high) for v in value)
    if a > b:
        raise ValueError(f"For '{op}', '{arg}' must be (min, max) with min <= max, but got "
                         f"{value!r}.")
    return a, b


def affine_matrix(img_hw, degrees, translate, scale, shear):
    """MindSpore's forward matrix of ``Affine`` for an image of (h, w)."""
    h, w = img_hw
    r = math.radians(degrees)
    sx, sy = -math.radians(shear[0]), -math.radians(shear[1])
    rot = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])
    shear_x = np.array([[1.0, math.tan(sx)], [0.0, 1.0]])
    shear_y = np.array([[1.0, 0.0], [math.tan(sy), 1.0]])
    a = (scale * (rot @ shear_y @ shear_x)).astype(np.float32).astype(np.float64)
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    tx, ty = translate[0] * w, translate[1] * h
    return np.array([[a[0, 0], a[0, 1], (1 - a[0, 0]) * cx - a[0, 1] * cy + tx],
                     [a[1, 0], a[1, 1], (1 - a[1, 1]) * cy - a[1, 0] * cx + ty]])


def _fill_for(img, fill):
    return fill if img.ndim == 3 and img.shape[2] == 3 else fill[0]


class Affine(_ImageOperation):
    """Rotate (``degrees``, clockwise), translate (fractions of width/height in [-1, 1]),
    scale and shear (degrees, x or (x, y)) in one warp; uncovered pixels take
    ``fill_value``."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        op = "Affine"
        self.degrees = _number(op, "degrees", degrees, -180, 180)
        if not isinstance(translate, (tuple, list)) or len(translate) != 2:
            raise TypeError(f"For 'Affine', 'translate' must be a sequence of 2 numbers, but got "
                            f"{translate!r}.")
        self.translate = tuple(_number(op, "translate", t, -1, 1) for t in translate)
        self.scale = _number(op, "scale", scale, 0)
        if self.scale <= 0:
            raise ValueError("For 'Affine', 'scale' must be positive.")
        shear = (shear, 0.0) if isinstance(shear, numbers.Real) else shear
        if not isinstance(shear, (tuple, list)) or len(shear) != 2:
            raise TypeError(f"For 'Affine', 'shear' must be a number or 2 numbers, but got "
                            f"{shear!r}.")
        self.shear = tuple(_number(op, "shear", s, -180, 180) for s in shear)
        self.resample = _warp_interpolation(op, resample)
        self.fill_value = _fill_value(op, fill_value)

    def _image(self, img, rand):
        return _affine(img, self.degrees, self.translate, self.scale, self.shear,
                       self.resample, self.fill_value)


def _affine(img, degrees, translate, scale, shear, resample, fill):
    matrix = affine_matrix(img.shape[:2], degrees, translate, scale, shear)
    return warp_affine(img, matrix, img.shape[:2], resample, _fill_for(img, fill))


class RandomAffine(_ImageOperation):
    """``Affine`` with parameters drawn per image: degrees in ``degrees`` (a number d:
    (-d, d)); x shift in ``translate[0:2]`` and y in ``translate[2:4]`` (fractions);
    scale in ``scale``; x shear in ``shear[0:2]`` and y shear in ``shear[2:4]`` (a number
    s: x in (-s, s))."""

    random = True

    def __init__(self, degrees, translate=None, scale=None, shear=None, resample=Inter.NEAREST,
                 fill_value=0):
        op = "RandomAffine"
        self.degrees = _pair_range(op, "degrees", degrees, -180, 180)
        translate = (0.0, 0.0, 0.0, 0.0) if translate is None else translate
        if not isinstance(translate, (tuple, list)) or len(translate) not in (2, 4):
            raise TypeError(f"For 'RandomAffine', 'translate' must be 2 or 4 numbers, but got "
                            f"{translate!r}.")
        translate = list(translate) + [0.0, 0.0] * (len(translate) == 2)
        self.translate = (_pair_range(op, "translate", translate[:2], -1, 1, False) +
                          _pair_range(op, "translate", translate[2:], -1, 1, False))
        self.scale = (1.0, 1.0) if scale is None else _pair_range(op, "scale", scale, 0,
                                                                  math.inf, False)
        if shear is None:
            shear = (0.0, 0.0, 0.0, 0.0)
        elif isinstance(shear, numbers.Real):
            shear = (-float(shear), float(shear), 0.0, 0.0)
        elif isinstance(shear, (tuple, list)) and len(shear) == 2:
            shear = (shear[0], shear[1], 0.0, 0.0)
        if not isinstance(shear, (tuple, list)) or len(shear) != 4:
            raise TypeError(f"For 'RandomAffine', 'shear' must be a number or 2 or 4 numbers, "
                            f"but got {shear!r}.")
        self.shear = (_pair_range(op, "shear", shear[:2], -180, 180, False) +
                      _pair_range(op, "shear", shear[2:], -180, 180, False))
        self.resample = _warp_interpolation(op, resample)
        self.fill_value = _fill_value(op, fill_value)

    def _image(self, img, rand):
        gen = rand.generator
        draw = lambda lo, hi: float(gen.uniform(lo, hi)) if hi > lo else lo  # noqa: E731
        degrees = draw(*self.degrees)
        translate = (draw(*self.translate[:2]), draw(*self.translate[2:]))
        scale = draw(*self.scale)
        shear = (draw(*self.shear[:2]), draw(*self.shear[2:]))
        return _affine(img, degrees, translate, scale, shear, self.resample, self.fill_value)


def _rotate(img, degrees, resample, expand, center, fill):
    h, w = img.shape[:2]
    cx, cy = ((w - 1) / 2.0, (h - 1) / 2.0) if center is None else center
    matrix = rotation_matrix((cx, cy), degrees)
    size = (h, w)
    if expand:
        bw, bh = rotated_bounds(h, w, degrees)
        matrix[0, 2] += bw / 2.0 - w / 2.0
        matrix[1, 2] += bh / 2.0 - h / 2.0
        size = (int(np.rint(bh)), int(np.rint(bw)))
    return warp_affine(img, matrix, size, resample, _fill_for(img, fill[::-1]))


def _check_rotation(op, resample, expand, center, fill_value):
    if not isinstance(expand, bool):
        raise TypeError(f"For '{op}', 'expand' must be bool, but got {type(expand).__name__}.")
    if center is not None and (not isinstance(center, (tuple, list)) or len(center) != 2 or
                               not all(isinstance(c, numbers.Real) for c in center)):
        raise TypeError(f"For '{op}', 'center' must be (x, y), but got {center!r}.")
    return (_warp_interpolation(op, resample), expand,
            None if center is None else tuple(float(c) for c in center),
            _fill_value(op, fill_value))


class Rotate(_ImageOperation):
    """Turn the image ``degrees`` counter-clockwise about ``center`` (x, y; default the
    image centre); ``expand`` grows the output to hold the whole turned image."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = _number("Rotate", "degrees", degrees)
        self.resample, self.expand, self.center, self.fill_value = _check_rotation(
            "Rotate", resample, expand, center, fill_value)

    def _image(self, img, rand):
        return _rotate(img, self.degrees, self.resample, self.expand, self.center,
                       self.fill_value)


class RandomRotation(_ImageOperation):
    """``Rotate`` by an angle drawn in ``degrees`` (a number d: (-d, d))."""

    random = True

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = _pair_range("RandomRotation", "degrees", degrees, -360, 360)
        self.resample, self.expand, self.center, self.fill_value = _check_rotation(
            "RandomRotation", resample, expand, center, fill_value)

    def _image(self, img, rand):
        degrees = float(rand.generator.uniform(*self.degrees))
        return _rotate(img, degrees, self.resample, self.expand, self.center,
                       self.fill_value)


def _points(op, arg, points):
    if not isinstance(points, (tuple, list)) or len(points) != 4 or not all(
            isinstance(p, (tuple, list)) and len(p) == 2 and
            all(isinstance(v, numbers.Real) for v in p) for p in points):
        raise TypeError(f"For '{op}', '{arg}' must be 4 (x, y) points, but got {points!r}.")
    return [tuple(float(v) for v in p) for p in points]


class Perspective(_ImageOperation):
    """Warp so the 4 ``start_points`` land on the 4 ``end_points`` ((x, y) each)."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _points("Perspective", "start_points", start_points)
        self.end_points = _points("Perspective", "end_points", end_points)
        self.interpolation = _warp_interpolation("Perspective", interpolation)

    def _image(self, img, rand):
        matrix = perspective_matrix(self.start_points, self.end_points)
        return warp_perspective(img, matrix, img.shape[:2], self.interpolation)


class RandomPerspective(_ImageOperation):
    """With probability ``prob``, a ``Perspective`` moving each corner inwards by up to
    ``distortion_scale`` of half the image size."""

    random = True

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        self.distortion_scale = _number("RandomPerspective", "distortion_scale",
                                        distortion_scale, 0, 1)
        self.prob = _probability("RandomPerspective", prob)
        self.interpolation = _warp_interpolation("RandomPerspective", interpolation)

    def _image(self, img, rand):
        gen = rand.generator
        if gen.random() >= self.prob:
            return img
        h, w = img.shape[:2]
        dx, dy = int(self.distortion_scale * (w // 2)), int(self.distortion_scale * (h // 2))
        pick = lambda n: int(gen.integers(0, n + 1))  # noqa: E731
        start = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        end = [(pick(dx), pick(dy)), (w - 1 - pick(dx), pick(dy)),
               (w - 1 - pick(dx), h - 1 - pick(dy)), (pick(dx), h - 1 - pick(dy))]
        return warp_perspective(img, perspective_matrix(start, end), (h, w),
                                self.interpolation)
