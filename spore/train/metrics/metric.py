"""The Metric protocol (``clear`` / ``update`` / ``eval``) and shared input checks.

Scalar results are Python floats accumulated in float64, as MindSpore gets them with
NumPy 1.x (so printed metrics read ``0.45``, not ``np.float64(0.45)``).
"""
from __future__ import annotations

import functools
from abc import ABCMeta, abstractmethod

import numpy as np

from ..._tensor import Tensor

_EVAL_TYPES = ("classification", "multilabel")


def rearrange_inputs(func):
    """Decorate ``update`` so it sees only ``inputs[i] for i in self.indexes`` when set."""
    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        return func(self, *(inputs if not indexes else [inputs[i] for i in indexes]))
    return wrapper


class Metric(metaclass=ABCMeta):
    """Base class of metrics: ``update`` accumulates a batch, ``eval`` gives the result,
    ``clear`` resets; calling the metric does all three on one batch."""

    def __init__(self):
        self._indexes = None

    def _convert_data(self, data):
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, list):
            return np.array(data)
        if isinstance(data, np.ndarray):
            return data
        raise TypeError(f"For 'Metric' and its derived classes, the input data type must be "
                        f"tensor, list or numpy.ndarray, but got {type(data)}.")

    @property
    def indexes(self):
        """Which of the evaluation outputs ``update`` receives (None: all, in order)."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Pick evaluation outputs by position (``[0, 2]``: logits, label); returns self."""
        if not isinstance(indexes, list) or not all(isinstance(i, int) for i in indexes):
            raise ValueError("For 'set_indexes', the argument 'indexes' must be a list and all "
                             "its elements must be int, please check whether it is correct.")
        self._indexes = indexes
        return self

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()

    @abstractmethod
    def clear(self):
        """Reset the accumulated state."""

    @abstractmethod
    def update(self, *inputs):
        """Accumulate one batch."""

    @abstractmethod
    def eval(self):
        """The metric over everything accumulated since ``clear``."""


def check_input_count(name, inputs, count, what="(predicted value, true value)"):
    if len(inputs) != count:
        raise ValueError(f"For '{name}.update', it needs {count} inputs {what}, but got "
                         f"{len(inputs)}.")


def check_not_empty(name, empty):
    if empty:
        raise RuntimeError(f"The '{name}' can not be calculated, because the number of samples "
                           f"is 0, please check whether your inputs (predicted value, true value) "
                           f"are empty, or has called update method before calling eval method.")


def is_one_hot(data):
    """True when ``data`` (N, C, ...) is all 0/1 with exactly one 1 along axis 1."""
    if data.ndim < 2 or not np.equal(data ** 2, data).all():
        return False
    return bool(np.equal(data.sum(axis=1), 1).all())


class EvaluationBase(Metric):
    """A metric over (prediction, label) pairs of a ``classification`` or ``multilabel`` task."""

    def __init__(self, eval_type):
        super().__init__()
        if eval_type not in _EVAL_TYPES:
            raise TypeError(f"The argument 'eval_type' must be in {set(_EVAL_TYPES)}, but got "
                            f"{eval_type}")
        self._type = eval_type

    def _labels_and_scores(self, name, inputs):
        """``(y_pred, y)`` as arrays: one-hot labels become class indices (classification);
        shapes and 0/1 values are checked; the class count must not change between batches."""
        check_input_count(name, inputs, 2)
        y_pred, y = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if self._type == "classification" and y_pred.ndim == y.ndim and is_one_hot(y):
            y = y.argmax(axis=1)
        self._check_shape(y_pred, y)
        self._check_value(y_pred, y)
        if self._class_num == 0:
            self._class_num = y_pred.shape[1]
        elif y_pred.shape[1] != self._class_num:
            raise ValueError(f"For '{name}.update', class number not match, last input predicted "
                             f"data contain {self._class_num} classes, but current predicted data "
                             f"contain {y_pred.shape[1]} classes, please check your predicted "
                             f"value(inputs[0]).")
        return y_pred, y

    def _check_shape(self, y_pred, y):
        if self._type == "classification":
            if y_pred.ndim != y.ndim + 1:
                raise ValueError(f"In classification case, the dimension of y_pred (predicted "
                                 f"value) should equal to the dimension of y (true value) add 1, "
                                 f"but got y_pred dimension: {y_pred.ndim} and y dimension: "
                                 f"{y.ndim}.")
            if y.shape != (y_pred.shape[0],) + y_pred.shape[2:]:
                raise ValueError(f"In classification case, y_pred (predicted value) shape and y "
                                 f"(true value) shape can not match, y shape should be equal to "
                                 f"y_pred shape that the value at index 1 is deleted. But got "
                                 f"y_pred shape {y_pred.shape} and y shape {y.shape}")
        elif y_pred.shape != y.shape:
            raise ValueError(f"In {self._type} case, the shape of y_pred (predicted value) should "
                             f"equal to the shape of y (true value), but got y_pred shape: "
                             f"{y_pred.shape} and y shape: {y.shape}.")

    def _check_value(self, y_pred, y):
        if self._type == "multilabel" and not (np.equal(y_pred ** 2, y_pred).all()
                                               and np.equal(y ** 2, y).all()):
            raise ValueError("In multilabel case, all elements in y_pred (predicted value) and y "
                             "(true value) should be 0 or 1.Please check whether your inputs "
                             "y_pred and y are correct.")

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError


def one_hot_rows(name, class_num, y_pred, y):
    """Per-sample one-hot rows ``(pred, true)``, shape (N, C), for a classification batch."""
    if y.max() + 1 > class_num:
        raise ValueError(f"For '{name}.update', predicted value (input[0]) should have the same "
                         f"classes number as true value (input[1]), but got predicted value "
                         f"classes {class_num}, true value classes {y.max() + 1}.")
    eye = np.eye(class_num)
    return eye[y_pred.argmax(axis=1).reshape(-1)], eye[y.reshape(-1).astype(np.int64)]
