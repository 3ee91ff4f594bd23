"""Accuracy and top-k accuracy."""
from __future__ import annotations

import numpy as np

from .metric import (EvaluationBase, Metric, check_input_count, check_not_empty, is_one_hot,
                     rearrange_inputs)


class Accuracy(EvaluationBase):
    """Fraction of samples whose predicted class (argmax over axis 1) equals the label;
    ``eval_type='multilabel'``: samples whose 0/1 predictions all equal the labels.

    Examples:
        >>> import numpy as np
        >>> from spore.train import Accuracy
        >>> m = Accuracy()
        >>> m.update(np.array([[0.2, 0.8], [0.9, 0.1]]), np.array([1, 1]))
        >>> float(m.eval())
        0.5
    """

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._labels_and_scores("Accuracy", inputs)
        if self._type == "classification":
            hits = np.equal(y_pred.argmax(axis=1), y).reshape(-1)
        else:
            rows_pred = np.moveaxis(y_pred, 1, -1).reshape(-1, self._class_num)
            rows_true = np.moveaxis(y, 1, -1).reshape(-1, self._class_num)
            hits = np.equal(rows_pred, rows_true).all(axis=1)
        self._correct_num += int(hits.sum())
        self._total_num += hits.shape[0]

    def eval(self):
        check_not_empty("Accuracy", self._total_num == 0)
        return self._correct_num / self._total_num


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the ``k`` highest scores."""

    def __init__(self, k):
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool):
            raise TypeError(f"For 'TopKCategoricalAccuracy', the type of the argument 'k' should "
                            f"be int, but got 'k' type: {type(k)}.")
        if k < 1:
            raise ValueError(f"For 'TopKCategoricalAccuracy', the argument 'k' must be at least "
                             f"1, but got 'k' value: {k}.")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("TopKCategoricalAccuracy", inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        hits = (top == y.reshape(-1, 1)).any(axis=1)
        self._correct_num += int(hits.sum())
        self._samples_num += hits.shape[0]

    def eval(self):
        check_not_empty("TopKCategoricalAccuracy", self._samples_num == 0)
        return self._correct_num / self._samples_num


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-1 accuracy."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """Top-5 accuracy."""

    def __init__(self):
        super().__init__(5)
