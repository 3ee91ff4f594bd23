"""Surface distances between a predicted and a true segmentation (MindSpore's
``HausdorffDistance``, ``MeanSurfaceDistance``, ``RootMeanSquareDistance``).

``update(y_pred, y, label_idx)`` keeps the surfaces of the region ``== label_idx`` of both
images (the region's pixels with a 4-connected neighbour outside it or on the image border);
``eval`` measures, for each surface point of one, the distance to the nearest surface point
of the other. Each ``update`` replaces the previous one, as in MindSpore.
"""
from __future__ import annotations

import numbers

import numpy as np

from .metric import Metric

_METRICS = ("euclidean", "chessboard", "taxicab")


def _surface(mask):
    """Points of ``mask`` with a neighbour (along one axis) outside it or outside the image."""
    inner = mask.copy()
    padded = np.pad(mask, 1, constant_values=False)
    for axis in range(mask.ndim):
        for shift in (-1, 1):
            inner &= np.roll(padded, shift, axis)[tuple(slice(1, -1) for _ in mask.shape)]
    return np.argwhere(mask & ~inner)


def _distances(src, dst, metric):
    """For each point of ``src``, the distance to the nearest point of ``dst`` (inf when
    ``dst`` is empty)."""
    if len(dst) == 0 or len(src) == 0:
        return np.array([np.inf])
    d = np.abs(src[:, None, :] - dst[None, :, :]).astype(np.float64)
    if metric == "euclidean":
        d = np.sqrt((d * d).sum(-1))
    elif metric == "chessboard":
        d = d.max(-1)
    else:
        d = d.sum(-1)
    return d.min(1)


class _SurfaceDistance(Metric):
    _name = ""

    def __init__(self, distance_metric):
        super().__init__()
        if not isinstance(distance_metric, str) or distance_metric not in _METRICS:
            raise ValueError(f"The 'distance_metric' must be str and must be in "
                             f"'{list(_METRICS)}', but got '{distance_metric}'.")
        self.distance_metric = distance_metric
        self.clear()

    def clear(self):
        self._pred_surface = self._true_surface = None

    def update(self, *inputs):
        name = f"{self._name}.update"
        if len(inputs) != 3:
            raise ValueError(f"For '{name}', it needs 3 inputs (predicted value, true value, "
                             f"label index), but got {len(inputs)}.")
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        label = inputs[2]
        if isinstance(label, bool) or not isinstance(label, numbers.Number):
            raise TypeError(f"For '{name}', the label index (input[2]) must be a number, but "
                            f"got {type(label).__name__}.")
        if y_pred.size == 0 or y_pred.shape != y.shape:
            raise ValueError(f"For '{name}', the size of predicted value (input[0]) and true "
                             f"value (input[1]) must be greater than 0, in addition to that, "
                             f"predicted value and true value must have the same shape, but got "
                             f"{y_pred.shape} and {y.shape}.")
        pred, true = y_pred == label, y == label
        if not pred.any() and not true.any():
            raise ValueError(f"For '{name}', the label index (input[2]) must be in predicted "
                             f"value (input[0]) or true value (input[1]), but {label} is not.")
        self._pred_surface, self._true_surface = _surface(pred), _surface(true)

    def _both_ways(self):
        if self._pred_surface is None:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        a = _distances(self._pred_surface, self._true_surface, self.distance_metric)
        b = _distances(self._true_surface, self._pred_surface, self.distance_metric)
        return a, b


class HausdorffDistance(_SurfaceDistance):
    """The largest surface distance (or its ``percentile``), in both directions unless
    ``directed``. ``crop`` (cropping to the regions' bounding box first) does not change
    the result."""
    _name = "HausdorffDistance"

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False, crop=True):
        if percentile is not None and (isinstance(percentile, bool) or
                                       not isinstance(percentile, numbers.Real) or
                                       not 0 <= percentile <= 100):
            raise ValueError(f"For 'HausdorffDistance', 'percentile' must be None or a number in "
                             f"[0, 100], but got {percentile!r}.")
        self.percentile, self.directed, self.crop = percentile, bool(directed), bool(crop)
        super().__init__(distance_metric)

    def _one_way(self, d):
        if self.percentile is None or np.isinf(d).any():
            return float(d.max())
        return float(np.percentile(d, self.percentile))

    def eval(self):
        a, b = self._both_ways()
        return self._one_way(a) if self.directed else max(self._one_way(a), self._one_way(b))


class MeanSurfaceDistance(_SurfaceDistance):
    """The mean distance from the predicted surface to the true one; ``symmetric``: the
    average of the two directions' means."""
    _name = "MeanSurfaceDistance"

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def eval(self):
        a, b = self._both_ways()
        return float((a.mean() + b.mean()) / 2) if self.symmetric else float(a.mean())


class RootMeanSquareDistance(_SurfaceDistance):
    """``symmetric``: the root of the average of the two directions' mean squared surface
    distances. Not symmetric: the mean squared distance from the predicted surface, without
    the root, as MindSpore 2.10 computes it."""
    _name = "RootMeanSquareDistance"

    def __init__(self, symmetric=False, distance_metric="euclidean"):
        self.symmetric = bool(symmetric)
        super().__init__(distance_metric)

    def eval(self):
        a, b = self._both_ways()
        if self.symmetric:
            return float(np.sqrt(((a * a).mean() + (b * b).mean()) / 2))
        return float((a * a).mean())
