"""ConfusionMatrix: counts of (true class, predicted class) pairs."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, rearrange_inputs

_NORMALIZE = ("target", "prediction", "all", "no_norm")


class ConfusionMatrix(Metric):
    """Row = true class, column = predicted class. Scores (N, C, ...) are argmax-ed;
    float predictions with the label's shape are thresholded at ``threshold``.
    ``normalize``: ``'no_norm'``, ``'target'`` (rows sum to 1), ``'prediction'``
    (columns sum to 1) or ``'all'``."""

    def __init__(self, num_classes, normalize="no_norm", threshold=0.5):
        super().__init__()
        if not isinstance(num_classes, int) or isinstance(num_classes, bool):
            raise TypeError(f"For 'ConfusionMatrix', the type of 'num_classes' should be int, "
                            f"but got {type(num_classes).__name__}.")
        if normalize not in _NORMALIZE:
            raise ValueError(f"For 'ConfusionMatrix', the argument 'normalize' must be in "
                             f"['all', 'prediction', 'label', 'no_norm'(None)], but got "
                             f"{normalize}.")
        if not isinstance(threshold, float):
            raise TypeError(f"For 'ConfusionMatrix', the type of 'threshold' should be float, "
                            f"but got {type(threshold).__name__}.")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes))
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("ConfusionMatrix", inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim not in (y.ndim, y.ndim + 1):
            raise ValueError(f"For 'ConfusionMatrix.update', predicted value (input[0]) and true "
                             f"value (input[1]) should have same dimensions, or the dimension of "
                             f"predicted value equals the dimension of true value add 1, but got "
                             f"predicted value ndim: {y_pred.ndim}, true value ndim: {y.ndim}.")
        if y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        elif y_pred.dtype.kind == "f":
            y_pred = (y_pred >= self.threshold).astype(np.int64)
        pairs = (y.reshape(-1) * self.num_classes + y_pred.reshape(-1)).astype(np.int64)
        counts = np.bincount(pairs, minlength=self.num_classes ** 2)
        self.confusion_matrix += counts.reshape(self.num_classes, self.num_classes)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        matrix = self.confusion_matrix.astype(float)
        if self.normalize == "no_norm":
            return matrix
        axis = {"target": 1, "prediction": 0, "all": None}[self.normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            matrix = matrix / matrix.sum(axis=axis, keepdims=axis is not None)
        return np.nan_to_num(matrix, nan=0.0)
