"""Learning-rate schedules as Cells (``mindspore.nn.learning_rate_schedule``).

An optimizer given one of these calls it with its ``global_step`` (an Int32
tensor of shape (1,), 0 at the first step) and uses the float32 result as the
learning rate of that step. The formulas, and the order of their float32
operations, are MindSpore's, so the values match to the last bit or two.
"""
from __future__ import annotations

import math

from .. import ops
from .._dtype import float32
from .cell import Cell
from .optim._checks import (check_float_arg, check_is_float, check_positive_float,
                            check_positive_int, check_type)

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class of learning-rate schedules: ``construct(global_step)`` returns the rate."""

    def construct(self, global_step):
        raise NotImplementedError


def _step(global_step):
    return ops.cast(global_step, float32)


def _check_decay_args(learning_rate, decay_rate, decay_steps, is_stair, cls_name):
    check_positive_int(decay_steps, "decay_steps", cls_name)
    check_positive_float(learning_rate, "learning_rate", cls_name)
    check_is_float(learning_rate, "learning_rate", cls_name)
    check_positive_float(decay_rate, "decay_rate", cls_name)
    check_is_float(decay_rate, "decay_rate", cls_name)
    check_type("is_stair", is_stair, bool, cls_name)


class _DecayLR(LearningRateSchedule):
    """Shared constructor of the exponential, natural-exponential and inverse decays."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay_args(learning_rate, decay_rate, decay_steps, is_stair, type(self).__name__)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair


class ExponentialDecayLR(_DecayLR):
    r"""``lr * decay_rate ** p`` with ``p = step / decay_steps`` (floored if ``is_stair``).

    Examples:
        >>> import spore as ms
        >>> from spore import nn
        >>> nn.ExponentialDecayLR(0.1, 0.5, 1)(ms.Tensor([2], ms.int32))
        Tensor(shape=[1], dtype=Float32, value= [ 2.50000004e-02])
    """

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(self.decay_rate, p)


class NaturalExpDecayLR(_DecayLR):
    r"""``lr * e ** (-decay_rate * p)`` with ``p = step`` (rounded down to a multiple of
    ``decay_steps`` if ``is_stair``)."""

    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = ops.floor_div(p, self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(math.e, -self.decay_rate * p)


class InverseDecayLR(_DecayLR):
    r"""``lr / (1 + decay_rate * p)`` with ``p = step / decay_steps`` (floored if
    ``is_stair``)."""

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    r"""Half a cosine from ``max_lr`` down to ``min_lr`` over ``decay_steps``, then
    ``min_lr``."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        name = type(self).__name__
        check_float_arg(min_lr, "min_lr", name)
        check_positive_float(max_lr, "max_lr", name)
        check_is_float(max_lr, "max_lr", name)
        check_positive_int(decay_steps, "decay_steps", name)
        if min_lr >= max_lr:
            raise ValueError(f"For '{name}', the 'max_lr' must be greater than the 'min_lr', but "
                             f"got 'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
        self.min_lr = min_lr
        self.max_lr = max_lr
        self.decay_steps = decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.cast(ops.minimum(global_step, self.decay_steps), float32)
        # sin(x + pi/2) rather than cos(x): MindSpore's formula, kept for equal rounding
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    r"""``(lr - end_lr) * (1 - p) ** power + end_lr`` with ``p = min(step, decay_steps) /
    decay_steps``; with ``update_decay_steps`` the horizon grows in multiples of
    ``decay_steps`` instead of stopping."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        name = type(self).__name__
        check_positive_float(learning_rate, "learning_rate", name)
        check_is_float(learning_rate, "learning_rate", name)
        check_float_arg(end_learning_rate, "end_learning_rate", name)
        check_positive_int(decay_steps, "decay_steps", name)
        check_type("update_decay_steps", update_decay_steps, bool, name)
        check_positive_float(power, "power", name)
        check_is_float(power, "power", name)
        self.decay_steps = decay_steps
        self.start_learning_rate = learning_rate
        self.end_learning_rate = end_learning_rate
        self.diff_learning_rate = learning_rate - end_learning_rate
        self.power = power
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step):
        step = _step(global_step)
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * ops.maximum(ops.ceil(step / decay_steps), 1)
        else:
            step = ops.minimum(step, decay_steps)
        p = step / decay_steps
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    r"""Linear warm-up: ``lr * min(step, warmup_steps) / warmup_steps``."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        name = type(self).__name__
        check_float_arg(learning_rate, "learning_rate", name)
        check_positive_int(warmup_steps, "warmup_steps", name)
        self.warmup_steps = warmup_steps
        self.learning_rate = learning_rate

    def construct(self, global_step):
        percent = ops.cast(ops.minimum(global_step, self.warmup_steps), float32) / self.warmup_steps
        return self.learning_rate * percent
