"""Learned and random augmentation policies: ``AutoAugment`` (with ``AutoAugmentPolicy``),
``RandAugment``, ``TrivialAugmentWide``, ``UniformAugment`` and ``RandomSelectSubpolicy``.

The operations, magnitude tables and policies are those of the papers (as MindSpore and
torchvision use them): shears by ``atan(m)``, translations in pixels, rotations in
degrees, colour factors ``1 + m`` (signed magnitudes get a random sign), posterize bits
and solarize thresholds from their tables. They are applied with Spore's kernels
(``Affine``, ``Rotate``, ``Adjust*``, ``Posterize``, ``Solarize``, ...), so each applied
operation gives MindSpore's pixels; which operations and signs are drawn comes from the
row's random stream.
"""
from __future__ import annotations

import enum
import math
import numbers

import numpy as np

from ..transforms.base import check_operations, run_operation
from .augment import AdjustSharpness, AutoContrast, Equalize
from .color import AdjustBrightness, AdjustContrast, AdjustSaturation, Invert, Posterize, Solarize
from .geometry import _affine, _fill_value, _rotate, _warp_interpolation
from .transforms import Inter, _ImageOperation


class AutoAugmentPolicy(str, enum.Enum):
    """The policy ``AutoAugment`` learned on a dataset."""
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


def _policy(text):
    """Sub-policies from 'Op prob bin, Op prob bin; ...' lines (bin '-' for none)."""
    policy = []
    for line in text.strip().splitlines():
        pairs = []
        for step in line.split(","):
            name, prob, level = step.split()
            pairs.append((name, float(prob), None if level == "-" else int(level)))
        policy.append(tuple(pairs))
    return policy


_POLICIES = {
    AutoAugmentPolicy.IMAGENET: _policy("""
        Posterize 0.4 8, Rotate 0.6 9
        Solarize 0.6 5, AutoContrast 0.6 -
        Equalize 0.8 -, Equalize 0.6 -
        Posterize 0.6 7, Posterize 0.6 6
        Equalize 0.4 -, Solarize 0.2 4
        Equalize 0.4 -, Rotate 0.8 8
        Solarize 0.6 3, Equalize 0.6 -
        Posterize 0.8 5, Equalize 1.0 -
        Rotate 0.2 3, Solarize 0.6 8
        Equalize 0.6 -, Posterize 0.4 6
        Rotate 0.8 8, Color 0.4 0
        Rotate 0.4 9, Equalize 0.6 -
        Equalize 0.0 -, Equalize 0.8 -
        Invert 0.6 -, Equalize 1.0 -
        Color 0.6 4, Contrast 1.0 8
        Rotate 0.8 8, Color 1.0 2
        Color 0.8 8, Solarize 0.8 7
        Sharpness 0.4 7, Invert 0.6 -
        ShearX 0.6 5, Equalize 1.0 -
        Color 0.4 0, Equalize 0.6 -
        Equalize 0.4 -, Solarize 0.2 4
        Solarize 0.6 5, AutoContrast 0.6 -
        Invert 0.6 -, Equalize 1.0 -
        Color 0.6 4, Contrast 1.0 8
        Equalize 0.8 -, Equalize 0.6 -"""),
    AutoAugmentPolicy.CIFAR10: _policy("""
        Invert 0.1 -, Contrast 0.2 6
        Rotate 0.7 2, TranslateX 0.3 9
        Sharpness 0.8 1, Sharpness 0.9 3
        ShearY 0.5 8, TranslateY 0.7 9
        AutoContrast 0.5 -, Equalize 0.9 -
        ShearY 0.2 7, Posterize 0.3 7
        Color 0.4 3, Brightness 0.6 7
        Sharpness 0.3 9, Brightness 0.7 9
        Equalize 0.6 -, Equalize 0.5 -
        Contrast 0.6 7, Sharpness 0.6 5
        Color 0.7 7, TranslateX 0.5 8
        Equalize 0.3 -, AutoContrast 0.4 -
        TranslateY 0.4 3, Sharpness 0.2 6
        Brightness 0.9 6, Color 0.2 8
        Solarize 0.5 2, Invert 0.0 -
        Equalize 0.2 -, AutoContrast 0.6 -
        Equalize 0.2 -, Equalize 0.6 -
        Color 0.9 9, Equalize 0.6 -
        AutoContrast 0.8 -, Solarize 0.2 8
        Brightness 0.1 3, Color 0.7 0
        Solarize 0.4 5, AutoContrast 0.9 -
        TranslateY 0.9 9, TranslateY 0.7 9
        AutoContrast 0.9 -, Solarize 0.8 3
        Equalize 0.8 -, Invert 0.1 -
        TranslateY 0.7 9, AutoContrast 0.9 -"""),
    AutoAugmentPolicy.SVHN: _policy("""
        ShearX 0.9 4, Invert 0.2 -
        ShearY 0.9 8, Invert 0.7 -
        Equalize 0.6 -, Solarize 0.6 6
        Invert 0.9 -, Equalize 0.6 -
        Equalize 0.6 -, Rotate 0.9 3
        ShearX 0.9 4, AutoContrast 0.8 -
        ShearY 0.9 8, Invert 0.4 -
        ShearY 0.9 5, Solarize 0.2 6
        Invert 0.9 -, AutoContrast 0.8 -
        Equalize 0.6 -, Rotate 0.9 3
        ShearX 0.9 4, Solarize 0.3 3
        ShearY 0.8 8, Invert 0.7 -
        Equalize 0.9 -, TranslateY 0.6 6
        Invert 0.9 -, Equalize 0.6 -
        Contrast 0.3 3, Rotate 0.8 4
        Invert 0.8 -, TranslateY 0.0 2
        ShearY 0.7 6, Solarize 0.4 8
        Invert 0.6 -, Rotate 0.8 4
        ShearY 0.3 7, TranslateX 0.9 3
        ShearX 0.1 6, Invert 0.6 -
        Solarize 0.7 2, TranslateY 0.6 7
        ShearY 0.8 4, Invert 0.8 -
        ShearX 0.7 9, TranslateY 0.8 3
        ShearY 0.8 5, AutoContrast 0.7 -
        ShearX 0.7 2, Invert 0.1 -"""),
}

_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color",
           "Contrast", "Sharpness"}


def _magnitudes(bins, h, w, wide=False):
    """{op: magnitude per bin} (None: the op takes no magnitude)."""
    def line(hi):
        return np.linspace(0.0, hi, bins)
    colour = line(0.99 if wide else 0.9)
    return {
        "Identity": None, "AutoContrast": None, "Equalize": None, "Invert": None,
        "ShearX": line(0.99 if wide else 0.3), "ShearY": line(0.99 if wide else 0.3),
        "TranslateX": line(32.0 if wide else 150.0 / 331.0 * w),
        "TranslateY": line(32.0 if wide else 150.0 / 331.0 * h),
        "Rotate": line(135.0 if wide else 30.0),
        "Brightness": colour, "Color": colour, "Contrast": colour, "Sharpness": colour,
        "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / (6 if wide else 4))),
        "Solarize": np.linspace(255.0, 0.0, bins),
    }


def apply_op(img, name, magnitude, interpolation, fill):
    """One augmentation by name (``magnitude`` already signed)."""
    if name == "Identity":
        return img
    h, w = img.shape[:2]
    if name in ("ShearX", "ShearY"):
        degrees = math.degrees(math.atan(magnitude))
        shear = (degrees, 0.0) if name == "ShearX" else (0.0, degrees)
        return _affine(img, 0.0, (0.0, 0.0), 1.0, shear, interpolation, fill)
    if name in ("TranslateX", "TranslateY"):
        shift = (int(magnitude) / w, 0.0) if name == "TranslateX" else (0.0, int(magnitude) / h)
        return _affine(img, 0.0, shift, 1.0, (0.0, 0.0), interpolation, fill)
    if name == "Rotate":
        return _rotate(img, magnitude, interpolation, False, None, fill)
    colour = {"Brightness": AdjustBrightness, "Color": AdjustSaturation,
              "Contrast": AdjustContrast, "Sharpness": AdjustSharpness}
    if name in colour:
        return colour[name](1.0 + magnitude)._apply(img, None)
    if name == "Posterize":
        return Posterize(int(magnitude))._apply(img, None)
    if name == "Solarize":
        return Solarize(float(magnitude))._apply(img, None)
    plain = {"AutoContrast": AutoContrast(), "Equalize": Equalize(), "Invert": Invert()}
    return plain[name]._apply(img, None)


def _check_rgb(op, img):
    if img.ndim != 3 or img.shape[2] != 3:
        raise op._error(f"the input must be an RGB image <H, W, 3>, but got shape {img.shape}.")


def _bins(op, num_magnitude_bins):
    if isinstance(num_magnitude_bins, bool) or not isinstance(num_magnitude_bins, int) or \
            num_magnitude_bins < 2:
        raise ValueError(f"For '{op}', 'num_magnitude_bins' must be an int >= 2, but got "
                         f"{num_magnitude_bins!r}.")
    return num_magnitude_bins


class AutoAugment(_ImageOperation):
    """One of the ``policy``'s 25 sub-policies (drawn per image); each of its two
    operations applies with its probability, at its magnitude bin (of 10)."""

    random = True

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        self.policy = AutoAugmentPolicy(policy)
        self.interpolation = _warp_interpolation("AutoAugment", interpolation)
        self.fill_value = _fill_value("AutoAugment", fill_value)

    def _image(self, img, rand):
        _check_rgb(self, img)
        gen = rand.generator
        table = _magnitudes(10, *img.shape[:2])
        policies = _POLICIES[self.policy]
        for name, prob, level in policies[int(gen.integers(len(policies)))]:
            if gen.random() > prob:
                continue
            values = table[name]
            magnitude = float(values[level]) if values is not None and level is not None \
                else 0.0
            if name in _SIGNED and gen.random() < 0.5:
                magnitude = -magnitude
            img = apply_op(img, name, magnitude, self.interpolation, self.fill_value)
        return img


_RAND_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate",
             "Brightness", "Color", "Contrast", "Sharpness", "Posterize", "Solarize",
             "AutoContrast", "Equalize")


class RandAugment(_ImageOperation):
    """``num_ops`` operations drawn uniformly (with repeats) from RandAugment's 14, each at
    bin ``magnitude`` of ``num_magnitude_bins``."""

    random = True

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=Inter.NEAREST, fill_value=0):
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or num_ops < 0:
            raise ValueError(f"For 'RandAugment', 'num_ops' must be a non-negative int, but got "
                             f"{num_ops!r}.")
        self.num_magnitude_bins = _bins("RandAugment", num_magnitude_bins)
        if isinstance(magnitude, bool) or not isinstance(magnitude, int) or \
                not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"For 'RandAugment', 'magnitude' must be an int in [0, "
                             f"{num_magnitude_bins}), but got {magnitude!r}.")
        self.num_ops, self.magnitude = num_ops, magnitude
        self.interpolation = _warp_interpolation("RandAugment", interpolation)
        self.fill_value = _fill_value("RandAugment", fill_value)

    def _image(self, img, rand):
        _check_rgb(self, img)
        gen = rand.generator
        table = _magnitudes(self.num_magnitude_bins, *img.shape[:2])
        for _ in range(self.num_ops):
            name = _RAND_OPS[int(gen.integers(len(_RAND_OPS)))]
            values = table[name]
            magnitude = 0.0 if values is None else float(values[self.magnitude])
            if name in _SIGNED and gen.random() < 0.5:
                magnitude = -magnitude
            img = apply_op(img, name, magnitude, self.interpolation, self.fill_value)
        return img


class TrivialAugmentWide(_ImageOperation):
    """One operation of the 14 and one magnitude bin, both drawn uniformly per image, from
    TrivialAugment's wide ranges."""

    random = True

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = _bins("TrivialAugmentWide", num_magnitude_bins)
        self.interpolation = _warp_interpolation("TrivialAugmentWide", interpolation)
        self.fill_value = _fill_value("TrivialAugmentWide", fill_value)

    def _image(self, img, rand):
        _check_rgb(self, img)
        gen = rand.generator
        table = _magnitudes(self.num_magnitude_bins, *img.shape[:2], wide=True)
        name = _RAND_OPS[int(gen.integers(len(_RAND_OPS)))]
        values = table[name]
        magnitude = 0.0 if values is None else \
            float(values[int(gen.integers(self.num_magnitude_bins))])
        if name in _SIGNED and gen.random() < 0.5:
            magnitude = -magnitude
        return apply_op(img, name, magnitude, self.interpolation, self.fill_value)


class UniformAugment(_ImageOperation):
    """``num_ops`` of ``transforms`` sampled without repeats (kept in list order), each
    then applied with probability 1/2."""

    random = True
    min_ndim, max_ndim = 0, 8

    def __init__(self, transforms, num_ops=2):
        self.transforms = check_operations("UniformAugment", transforms)
        if isinstance(num_ops, bool) or not isinstance(num_ops, int) or \
                not 1 <= num_ops <= len(self.transforms):
            raise ValueError(f"For 'UniformAugment', 'num_ops' must be an int in [1, "
                             f"{len(self.transforms)}], but got {num_ops!r}.")
        self.num_ops = num_ops

    def _image(self, img, rand):
        gen = rand.generator
        chosen = np.sort(gen.choice(len(self.transforms), self.num_ops, replace=False))
        for k in chosen:
            if gen.random() < 0.5:
                img = run_operation(self.transforms[int(k)], (img,), rand)[0]
        return img


class RandomSelectSubpolicy(_ImageOperation):
    """One sub-policy of ``policy`` (a list of lists of ``(transform, prob)``) drawn per
    image; each of its transforms applies with its probability, in order."""

    random = True
    min_ndim, max_ndim = 0, 8

    def __init__(self, policy):
        if not isinstance(policy, list) or not policy or not all(
                isinstance(sub, list) and sub and all(
                    isinstance(step, tuple) and len(step) == 2 and callable(step[0]) and
                    isinstance(step[1], numbers.Real) and 0 <= step[1] <= 1 for step in sub)
                for sub in policy):
            raise TypeError("For 'RandomSelectSubpolicy', 'policy' must be a non-empty list of "
                            "non-empty lists of (transform, prob) tuples, prob in [0, 1].")
        self.policy = policy

    def _image(self, img, rand):
        gen = rand.generator
        for op, prob in self.policy[int(gen.integers(len(self.policy)))]:
            if gen.random() < prob:
                img = run_operation(op, (img,), rand)[0]
        return img
