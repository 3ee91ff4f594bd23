"""Precomputed learning-rate lists (``mindspore.nn.dynamic_lr``).

Each function returns a Python list with one float per training step; passing
the list as an optimizer's ``learning_rate`` makes step ``i`` use element ``i``.
The epoch of step ``i`` is ``floor(i / step_per_epoch)``. Values are computed in
Python floats exactly as MindSpore does.
"""
from __future__ import annotations

import math

from .optim._checks import (check_float_arg, check_is_float, check_positive_float,
                            check_positive_int, check_type)

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def piecewise_constant_lr(milestone, learning_rates):
    r"""``learning_rates[i]`` for the steps before ``milestone[i]`` (and from the previous
    milestone on).

    Examples:
        >>> from spore import nn
        >>> nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01])
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    """
    check_type("milestone", milestone, (tuple, list))
    check_type("learning_rates", learning_rates, (tuple, list))
    if len(milestone) != len(learning_rates):
        raise ValueError(f"For 'piecewise_constant_lr', the size of 'milestone' must be same with "
                         f"the size of 'learning_rates', but got 'milestone' size: "
                         f"{len(milestone)}, 'learning_rates' size: {len(learning_rates)}.")
    lr = []
    last = 0
    for i, item in enumerate(milestone):
        check_positive_int(item, f"milestone[{i}]")
        if not isinstance(learning_rates[i], float):
            raise TypeError(f"The type of 'learning_rates[{i}]' must be 'float', but got "
                            f"'{type(learning_rates[i]).__name__}'.")
        if item < last:
            raise ValueError(f"For 'piecewise_constant_lr', the value of milestone[{i}] must be "
                             f"greater than milestone[{i - 1}], but got milestone[{i}]: {item}, "
                             f"milestone[{i - 1}]: {last}.")
        lr += [learning_rates[i]] * (item - last)
        last = item
    return lr


def _check_decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair):
    check_positive_int(total_step, "total_step")
    check_positive_int(step_per_epoch, "step_per_epoch")
    check_positive_int(decay_epoch, "decay_epoch")
    check_positive_float(learning_rate, "learning_rate")
    check_is_float(learning_rate, "learning_rate")
    check_positive_float(decay_rate, "decay_rate")
    check_is_float(decay_rate, "decay_rate")
    check_type("is_stair", is_stair, bool)


def _check_steps(total_step, step_per_epoch, epochs, epochs_name):
    check_positive_int(total_step, "total_step")
    check_positive_int(step_per_epoch, "step_per_epoch")
    check_positive_int(epochs, epochs_name)


def _epochs(total_step, step_per_epoch):
    return [math.floor(i / step_per_epoch) for i in range(total_step)]


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    r"""``lr * decay_rate ** (epoch / decay_epoch)`` (the exponent floored if ``is_stair``)."""
    _check_decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        p = epoch / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    r"""``lr * e ** (-decay_rate * epoch)`` (the epoch rounded down to a multiple of
    ``decay_epoch`` if ``is_stair``)."""
    _check_decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        if is_stair:
            epoch = math.floor(epoch / decay_epoch) * decay_epoch
        out.append(learning_rate * math.e ** (-decay_rate * epoch))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    r"""``lr / (1 + decay_rate * epoch / decay_epoch)`` (the ratio floored if ``is_stair``)."""
    _check_decay(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch, is_stair)
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        if is_stair:
            out.append(learning_rate / (1 + decay_rate * math.floor(epoch / decay_epoch)))
        else:
            out.append(learning_rate / (1 + decay_rate * epoch / decay_epoch))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    r"""``min_lr + (max_lr - min_lr) / 2 * (1 + cos(pi * min(epoch, decay_epoch) /
    decay_epoch))``."""
    name = "cosine_decay_lr"
    check_float_arg(min_lr, "min_lr", name)
    check_positive_float(max_lr, "max_lr")
    check_is_float(max_lr, "max_lr")
    _check_steps(total_step, step_per_epoch, decay_epoch, "decay_epoch")
    if min_lr >= max_lr:
        raise ValueError(f"For '{name}', the 'max_lr' must be greater than the 'min_lr', but got "
                         f"'max_lr' value: {max_lr}, 'min_lr' value: {min_lr}.")
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(epoch, decay_epoch) / decay_epoch))
            for epoch in _epochs(total_step, step_per_epoch)]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    r"""``(lr - end_lr) * (1 - min(epoch, decay_epoch) / decay_epoch) ** power + end_lr``;
    with ``update_decay_epoch`` the horizon grows in multiples of ``decay_epoch``."""
    check_positive_float(learning_rate, "learning_rate")
    check_is_float(learning_rate, "learning_rate")
    check_float_arg(end_learning_rate, "end_learning_rate", "polynomial_decay_lr")
    check_positive_float(power, "power")
    check_is_float(power, "power")
    _check_steps(total_step, step_per_epoch, decay_epoch, "decay_epoch")
    check_type("update_decay_epoch", update_decay_epoch, bool)
    delta = learning_rate - end_learning_rate
    out = []
    for epoch in _epochs(total_step, step_per_epoch):
        if update_decay_epoch:
            horizon = decay_epoch * max(math.ceil(epoch / decay_epoch), 1)
        else:
            horizon, epoch = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1 - epoch / horizon) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    r"""Linear warm-up over epochs: ``lr * min(epoch, warmup_epoch) / warmup_epoch``."""
    check_float_arg(learning_rate, "learning_rate", "warmup_lr")
    check_positive_int(warmup_epoch, "warmup_epoch")
    check_positive_int(total_step, "total_step")
    check_positive_int(step_per_epoch, "step_per_epoch")
    return [learning_rate * min(epoch, warmup_epoch) / warmup_epoch
            for epoch in _epochs(total_step, step_per_epoch)]
