"""Precision, Recall, Fbeta and F1.

Classification counts are per class (one-hot rows summed over samples). In the
multilabel case MindSpore computes the ratios per *sample* (the class axis is
summed), so ``eval()`` returns one value per sample seen.
"""
from __future__ import annotations

import sys

import numpy as np

from .metric import EvaluationBase, Metric, check_input_count, is_one_hot, one_hot_rows, \
    rearrange_inputs

_EPS = sys.float_info.min


def _check_average(name, average):
    if not isinstance(average, bool):
        raise TypeError(f"For '{name}', the type of 'average' should be bool, but got "
                        f"{type(average).__name__}.")


def _multilabel_rows(y_pred, y, class_num):
    """(C, samples) views: column j holds sample j's 0/1 labels over the classes."""
    return (np.swapaxes(y_pred, 1, 0).reshape(class_num, -1),
            np.swapaxes(y, 1, 0).reshape(class_num, -1))


class _RatioMetric(EvaluationBase):
    """true positives / (``_denominator`` counts), accumulated per class or per sample."""
    _name = ""

    def __init__(self, eval_type="classification"):
        super().__init__(eval_type)
        self.clear()

    def clear(self):
        self._class_num = 0
        self._true_positives = np.empty(0) if self._type == "multilabel" else 0
        self._counts = np.empty(0) if self._type == "multilabel" else 0
        self._ratio_sum = 0.0
        self._ratio_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = self._labels_and_scores(self._name, inputs)
        if self._type == "classification":
            pred, true = one_hot_rows(self._name, self._class_num, y_pred, y)
        else:
            pred, true = _multilabel_rows(y_pred, y, self._class_num)
        true_positives = (pred * true).sum(axis=0)
        counts = self._denominator(pred, true).sum(axis=0)
        if self._type == "multilabel":
            self._ratio_sum += float(np.sum(true_positives / (counts + _EPS)))
            self._ratio_num += len(counts)
            self._true_positives = np.concatenate((self._true_positives, true_positives))
            self._counts = np.concatenate((self._counts, counts))
        else:
            self._true_positives = self._true_positives + true_positives
            self._counts = self._counts + counts

    def eval(self, average=False):
        """Per-class (per-sample for multilabel) values, or their mean with ``average=True``."""
        if self._class_num == 0:
            raise RuntimeError(f"The '{self._name}' can not be calculated, because the number of "
                               f"samples is 0, please check whether your inputs (predicted value, "
                               f"true value) are empty, or has called update method before calling "
                               f"eval method.")
        _check_average(self._name, average)
        result = self._true_positives / (self._counts + _EPS)
        if not average:
            return result
        if self._type == "multilabel":
            return self._ratio_sum / (self._ratio_num + _EPS)
        return float(result.mean())

    def _denominator(self, pred, true):
        raise NotImplementedError


class Precision(_RatioMetric):
    """Precision = TP / (TP + FP): of the samples predicted as a class, the fraction right."""
    _name = "Precision"

    def _denominator(self, pred, true):
        return pred


class Recall(_RatioMetric):
    """Recall = TP / (TP + FN): of the samples of a class, the fraction found."""
    _name = "Recall"

    def _denominator(self, pred, true):
        return true


class Fbeta(Metric):
    """F-beta per class: (1 + b^2) TP / (b^2 (TP + FN) + TP + FP)."""

    def __init__(self, beta):
        super().__init__()
        if not beta > 0:
            raise ValueError(f"For 'Fbeta', the argument 'beta' must be greater than 0, but got "
                             f"{beta}.")
        self.beta = beta
        self.clear()

    def clear(self):
        self._true_positives = 0
        self._actual_positives = 0
        self._positives = 0
        self._class_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count("Fbeta", inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For 'Fbeta.update', class number not match, last input predicted "
                             f"data contain {self._class_num} classes, but current predicted data "
                             f"contain {y_pred.shape[1]} classes, please check your predicted "
                             f"value(inputs[0]).")
        pred, true = one_hot_rows("Fbeta", self._class_num, y_pred, y)
        self._true_positives = self._true_positives + (pred * true).sum(axis=0)
        self._positives = self._positives + pred.sum(axis=0)
        self._actual_positives = self._actual_positives + true.sum(axis=0)

    def eval(self, average=False):
        """Per-class F-beta, or the mean with ``average=True``."""
        _check_average("Fbeta", average)
        if self._class_num == 0:
            raise RuntimeError("The 'Fbeta' can not be calculated, because the number of samples "
                               "is 0, please check whether your inputs(predicted value, true "
                               "value) are empty, or has called update method before calling eval "
                               "method.")
        b2 = self.beta ** 2
        fbeta = (1.0 + b2) * self._true_positives / \
            (b2 * self._actual_positives + self._positives + _EPS)
        return float(fbeta.mean()) if average else fbeta


class F1(Fbeta):
    """F1 = harmonic mean of precision and recall (Fbeta with beta = 1)."""

    def __init__(self):
        super().__init__(1.0)
