"""ROC curves (``ROC``) and the area under a curve (``auc``), as MindSpore computes them.

A binary curve sorts the scores in decreasing order and, at each distinct score, counts
the positives (``tps``) and negatives (``fps``) scored at least that high; the curve
starts at (0, 0) with the threshold ``max score + 1``. With (N, C) scores and class
labels, ``ROC`` gives one curve per class (class c against the rest).
"""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, rearrange_inputs


def _check_int_or_none(value, arg):
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"For 'ROC', the type of '{arg}' should be 'int', but got "
                        f"'{type(value).__name__}'.")
    return value


def _binary_counts(scores, labels, pos_label):
    """(fps, tps, thresholds) at each distinct score, highest first."""
    order = np.argsort(-scores, kind="stable")
    scores, hits = scores[order], (labels[order] == pos_label).astype(np.int64)
    ends = np.append(np.nonzero(np.diff(scores))[0], scores.shape[0] - 1)
    tps = np.cumsum(hits)[ends]
    return ends + 1 - tps, tps, scores[ends]


def _binary_roc(scores, labels, pos_label):
    fps, tps, thresholds = _binary_counts(scores, labels, pos_label)
    fps = np.concatenate([np.zeros(1, fps.dtype), fps])
    tps = np.concatenate([np.zeros(1, tps.dtype), tps])
    thresholds = np.concatenate([thresholds[:1] + 1, thresholds])
    if fps[-1] <= 0:
        raise ValueError("For 'ROC.eval', there is no negative samples in true value, false "
                         "positive value is meaningless.")
    if tps[-1] <= 0:
        raise ValueError("For 'ROC.eval', there is no positive samples in true value, true "
                         "positive value is meaningless.")
    return fps / fps[-1], tps / tps[-1], thresholds


def _arrange(y_pred, y, class_num, pos_label):
    """Scores and labels as 1-D (binary) or (N, C) scores with 1-D labels."""
    if y_pred.ndim == y.ndim:
        if class_num is not None and class_num != 1:
            raise ValueError(f"For 'ROC', when predicted value (input[0]) and true value "
                             f"(input[1]) have the same shape, the 'class_num' must be 1, but got "
                             f"{class_num}.")
        return y_pred.reshape(-1), y.reshape(-1), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(f"For 'ROC', when the dimension of predicted value (input[0]) equals "
                             f"the dimension of true value (input[1]) add 1, the 'pos_label' must "
                             f"be None, but got {pos_label}.")
        if class_num != y_pred.shape[1]:
            raise ValueError(f"For 'ROC', the 'class_num' must equal the number of classes from "
                             f"predicted value (input[0]), but got 'class_num' {class_num}, the "
                             f"number of classes from predicted value {y_pred.shape[1]}.")
        return y_pred.reshape(-1, class_num), y.reshape(-1), class_num, None
    raise ValueError(f"For 'ROC', predicted value (input[0]) and true value (input[1]) must have "
                     f"same dimensions, or the dimension of predicted value equal the dimension "
                     f"of true value add 1, but got predicted value ndim: {y_pred.ndim}, true "
                     f"value ndim: {y.ndim}.")


class ROC(Metric):
    """Receiver operating characteristic: ``eval()`` returns ``(fpr, tpr, thresholds)``
    (arrays; lists of arrays, one per class, for (N, C) scores). The last ``update``
    wins (ROC does not accumulate batches, as in MindSpore).

    Args:
        class_num (int): number of classes; None for binary scores of y's shape.
        pos_label (int): the positive class of binary labels (default 1); must be None for
            (N, C) scores.

    Examples:
        >>> import numpy as np
        >>> from spore.train import ROC
        >>> metric = ROC(pos_label=1)
        >>> metric.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
        >>> fpr, tpr, thresholds = metric.eval()
        >>> fpr.tolist(), tpr.tolist()
        ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        self.class_num = _check_int_or_none(class_num, "class_num")
        self.pos_label = _check_int_or_none(pos_label, "pos_label")
        self.clear()

    def clear(self):
        self.y_pred, self.y = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("ROC", inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self.y_pred, self.y, self.class_num, self.pos_label = _arrange(
            y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        y_pred, y = np.squeeze(self.y_pred), np.squeeze(self.y)
        if self.class_num == 1:
            return _binary_roc(y_pred.reshape(-1), y.reshape(-1), self.pos_label)
        curves = [_binary_roc(y_pred[:, c], y, c) for c in range(self.class_num)]
        return tuple(list(part) for part in zip(*curves))


def _as_1d(v):
    if v.ndim == 1 or (v.ndim == 2 and v.shape[1] == 1):
        return v.reshape(-1)
    raise ValueError(f"For 'auc', the input must be a 1-dimensional array, or a 2-dimensional "
                     f"array with the second dimension of 1, but got shape {v.shape}.")


def auc(x, y, reorder=False):
    """Area under the curve through the points (x, y), by the trapezoidal rule.

    ``x`` must be monotonic (increasing or decreasing) unless ``reorder`` sorts the points
    by x (then y). Typically ``auc(*ROC().eval()[:2])``.

    Raises:
        TypeError: x or y is not a NumPy array.
        ValueError: different lengths, fewer than 2 points, or a non-monotonic x.
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"For 'auc', the argument 'x' and 'y' must all be np.ndarray, but got "
                        f"{type(x)}, {type(y)}")
    if x.ndim == 0 or y.ndim == 0:
        raise TypeError("For 'auc', 'x' and 'y' must be arrays of points, not 0-d arrays.")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                         f"{[int(x.shape[0]), int(y.shape[0])]}.")
    x, y = _as_1d(x), _as_1d(y)
    if x.shape[0] < 2:
        raise ValueError(f"For 'auc', the shape of the argument 'x' in axis 0 must be greater than "
                         f"2, but got {x.shape[0]}.")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"For 'auc', if the argument is False, the argument 'x' array "
                                 f"must be increasing or decreasing, but got 'x': {x}")
            direction = -1
    return direction * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2)
