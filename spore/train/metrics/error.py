"""Regression metrics: mean absolute and mean squared error (summed per sample)."""
from __future__ import annotations

import numpy as np

from .metric import Metric, check_input_count, check_not_empty, rearrange_inputs


class _SampleError(Metric):
    """sum over elements of ``_error(y - y_pred)`` / number of samples (axis 0)."""
    _name = ""

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_input_count(self._name, inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        self._error_sum += float(self._error(y.reshape(y_pred.shape) - y_pred).sum())
        self._samples_num += y.shape[0]

    def eval(self):
        check_not_empty(self._name, self._samples_num == 0)
        return self._error_sum / self._samples_num

    @staticmethod
    def _error(diff):
        raise NotImplementedError


class MAE(_SampleError):
    """Mean absolute error: sum |y - y_pred| / N."""
    _name = "MAE"

    @staticmethod
    def _error(diff):
        return np.abs(diff)


class MSE(_SampleError):
    """Mean squared error: sum (y - y_pred)^2 / N."""
    _name = "MSE"

    @staticmethod
    def _error(diff):
        return np.square(diff)
