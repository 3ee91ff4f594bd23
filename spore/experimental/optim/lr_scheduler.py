"""experimental.optim.lr_scheduler: PyTorch-style learning-rate schedulers.

A scheduler holds the optimizer's per-group ``lr`` Parameters (``optimizer.lrs``) and
writes the new rate of every group into them on ``step()``, so the next optimizer call
uses it. ``last_epoch`` is a 0-d float32 Parameter counting the ``step()`` calls
(constructing a scheduler takes the first step, to epoch 0). As in MindSpore (and
PyTorch), ``step()`` without an epoch uses each scheduler's recursive form (the new
rate from the current one, so schedulers can be stacked on one optimizer) and
``step(epoch)`` its closed form of the base rates where it has one. Rates are float32
Tensor arithmetic, as in MindSpore, so they round the same.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter

import numpy as np

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["StepLR", "LinearLR", "LRScheduler", "ExponentialLR", "PolynomialLR",
           "MultiplicativeLR", "ConstantLR", "MultiStepLR", "LambdaLR", "SequentialLR",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "CosineAnnealingLR"]


def _f32(value):
    return Tensor(np.array(value, np.float32))


def _copy(t):
    """A plain Tensor holding ``t``'s current value (later steps do not change it)."""
    return Tensor(t.asnumpy().copy())


def _snapshot(lrs):
    return [_copy(lr) for lr in lrs]


def _check_type(cls_name, name, value, types):
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        want = " or ".join(t.__name__ for t in types)
        raise TypeError(f"For '{cls_name}', the '{name}' must be {want}, but got "
                        f"{type(value).__name__}.")


class LRScheduler:
    """Base class of the schedulers: subclasses implement ``get_lr()`` (the recursive
    form) and optionally ``_get_closed_form_lr()`` (used by ``step(epoch)``).

    Args:
        optimizer (Optimizer): an optimizer of ``experimental.optim``.
        last_epoch (int): the epoch to resume after; -1 starts afresh (and records each
            group's ``initial_lr``). Default: ``-1``.
    """

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        _check_type(type(self).__name__, "last_epoch", last_epoch, (int,))
        if last_epoch < -1:
            raise ValueError(f"Invalid last_epoch: {last_epoch}")
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", _copy(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.optimizer = optimizer
        self._last_lr = list(optimizer.lrs)
        self.groups_num = len(optimizer.param_groups)
        self.last_epoch = Parameter(_f32(last_epoch), name="last_epoch_" + type(self).__name__)
        self.step()

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        """The rates the last ``step()`` set, one 0-d Tensor per group."""
        return _snapshot(self._last_lr)

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and write the new rates."""
        if epoch is None:
            ops.assign(self.last_epoch, self.last_epoch + 1)
            values = self.get_lr()
        else:
            ops.assign(self.last_epoch, _f32(float(epoch)))
            closed = getattr(self, "_get_closed_form_lr", None)
            values = closed() if closed is not None else self.get_lr()
        for lr, value in zip(self._last_lr, values):
            ops.assign(lr, ops.cast(value, float32) if isinstance(value, Tensor)
                       else _f32(value))
        return True

    # the recursive forms below compare the epoch counter with Python numbers
    @property
    def _epoch(self):
        return float(self.last_epoch.asnumpy())

    def _scaled(self, factor):
        return [lr * factor for lr in self._last_lr]


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        _check_type("StepLR", "step_size", step_size, (int,))
        _check_type("StepLR", "gamma", gamma, (float,))
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self._epoch
        if epoch == 0 or epoch % self.step_size != 0:
            return self._scaled(1.0)
        return self._scaled(self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self._epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each milestone (twice at a milestone listed twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        _check_type("MultiStepLR", "milestones", milestones, (list,))
        for milestone in milestones:
            if not isinstance(milestone, int):
                raise TypeError("For 'MultiStepLR', elements of the 'milestones' must be type "
                                f"of int, but got one element of 'milestones' type: "
                                f"{type(milestone)}.")
        _check_type("MultiStepLR", "gamma", gamma, (float, int))
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        times = self.milestones.get(int(self._epoch), 0)
        return self._scaled(self.gamma ** times) if times else _snapshot(self._last_lr)

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), int(self._epoch))
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        _check_type("ExponentialLR", "gamma", gamma, (float,))
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return self._scaled(1.0 if self._epoch == 0 else self.gamma)

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self._epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs, then keep it."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less than or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        _check_type("LinearLR", "total_iters", total_iters, (int,))
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self._epoch
        if epoch == 0:
            return self._scaled(self.start_factor)
        if epoch > self.total_iters:
            return self._scaled(1.0)
        change = self.end_factor - self.start_factor
        factor = 1.0 + change / (self.total_iters * self.start_factor + (epoch - 1) * change)
        return self._scaled(factor)

    def _get_closed_form_lr(self):
        done = min(self.total_iters, self._epoch)
        factor = self.start_factor + (self.end_factor - self.start_factor) * done / \
            self.total_iters
        return [base * factor for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` until epoch ``total_iters``, then restore it."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        _check_type("ConstantLR", "total_iters", total_iters, (int,))
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self._epoch
        if epoch == 0:
            return self._scaled(self.factor)
        if epoch != self.total_iters:
            return self._scaled(1.0)
        return [lr / self.factor for lr in self._last_lr]

    def _get_closed_form_lr(self):
        factor = self.factor + (self._epoch >= self.total_iters) * (1 - self.factor)
        return [base * factor for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay the rate to 0 over ``total_iters`` epochs as ``(1 - t/T) ** power``."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        _check_type("PolynomialLR", "power", power, (float,))
        if power < 0:
            raise ValueError(f"For 'PolynomialLR', the 'power' must be >= 0, but got {power}.")
        _check_type("PolynomialLR", "total_iters", total_iters, (int,))
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self._epoch
        if epoch == 0 or epoch > self.total_iters:
            return self._scaled(1.0)
        factor = ((1.0 - epoch / self.total_iters) /
                  (1.0 - (epoch - 1) / self.total_iters)) ** self.power
        return self._scaled(factor)

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self._epoch) / self.total_iters
        return [base * left ** self.power for base in self.base_lrs]


def _per_group(optimizer, value, name):
    """One value per group: a list/tuple of that length, or one value for all."""
    count = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != count:
            raise ValueError(f"Expected {count} {name}, but got {len(value)}")
        return list(value)
    return [value] * count


class LambdaLR(LRScheduler):
    """The rate is ``initial_lr * lr_lambda(epoch)`` (one function, or one per group);
    ``epoch`` reaches the function as a 0-d float32 Tensor, as in MindSpore."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(optimizer, lr_lambda, "lr_lambdas")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = _copy(self.last_epoch)
        return [base * fn(epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LRScheduler):
    """Multiply the rate by ``lr_lambda(epoch)`` every epoch after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(optimizer, lr_lambda, "lr_lambdas")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._epoch > 0:
            epoch = _copy(self.last_epoch)
            return [lr * fn(epoch) for fn, lr in zip(self.lr_lambdas, self._last_lr)]
        return self._scaled(1.0)


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the initial rate to ``eta_min`` over ``T_max`` epochs (and
    back up over the next ``T_max``, the recursive form's period is ``2 * T_max``)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        _check_type("CosineAnnealingLR", "eta_min", eta_min, (float, int))
        _check_type("CosineAnnealingLR", "T_max", T_max, (int,))
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        epoch = self._epoch
        if epoch == 0:
            return self._scaled(1.0)
        if (epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            rise = (1 - ops.cos(_f32(math.pi / self.T_max))) / 2
            return [lr + (base - self.eta_min) * rise
                    for base, lr in zip(self.base_lrs, self._last_lr)]
        t = self.last_epoch
        ratio = (1 + ops.cos(math.pi * t / self.T_max)) / \
            (1 + ops.cos(math.pi * (t - 1) / self.T_max))
        return [ratio * (lr - self.eta_min) + self.eta_min for lr in self._last_lr]

    def _get_closed_form_lr(self):
        cos = ops.cos(math.pi * self.last_epoch / self.T_max)
        return [self.eta_min + (base - self.eta_min) * (1 + cos) / 2 for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing restarted every :math:`T_i` epochs, :math:`T_0` first and each
    period ``T_mult`` times the last."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0, last_epoch=-1):
        if not isinstance(T_0, int) or isinstance(T_0, bool) or T_0 <= 0:
            raise ValueError(f"T_0 should be an integer and equal or greater than 0, but got "
                             f"{T_0}")
        if not isinstance(T_mult, int) or isinstance(T_mult, bool) or T_mult < 1:
            raise ValueError(f"T_mult should be an integer and equal or greater than 1, but "
                             f"got {T_mult}")
        _check_type("CosineAnnealingWarmRestarts", "eta_min", eta_min, (float, int))
        self.T_0 = T_0
        self.T_i = Parameter(_f32(T_0), name="T_i")
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = Parameter(_f32(last_epoch), name="T_cur")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        phase = ops.cast(math.pi * self.T_cur / self.T_i, float32)
        return [self.eta_min + (base - self.eta_min) * (1 + ops.cos(phase)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        """One epoch further (restarting when the period ends), or to ``epoch``."""
        if epoch is None and self._epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self._epoch + 1
            ops.assign(self.T_cur, self.T_cur + 1)
            if float(self.T_cur.asnumpy()) >= float(self.T_i.asnumpy()):
                ops.assign(self.T_cur, self.T_cur - self.T_i)
                ops.assign(self.T_i, self.T_i * self.T_mult)
        else:
            epoch = float(epoch.asnumpy()) if isinstance(epoch, Tensor) else float(epoch)
            if epoch < 0:
                raise ValueError(f"epoch should be a non-negative integer, but got {epoch}")
            self._restart_at(epoch)
        ops.assign(self.last_epoch, _f32(math.floor(epoch)))
        for lr, value in zip(self._last_lr, self.get_lr()):
            ops.assign(lr, value)
        return True

    def _restart_at(self, epoch):
        """``T_cur`` and ``T_i`` of the period holding ``epoch``."""
        t0, mult = self.T_0, self.T_mult
        if epoch < t0:
            period, start = t0, 0.0
        elif mult == 1:
            period, start = t0, epoch - epoch % t0
        else:
            n = int(math.log(epoch / t0 * (mult - 1) + 1, mult))
            period, start = t0 * mult ** n, t0 * (mult ** n - 1) / (mult - 1)
        ops.assign(self.T_cur, _f32(epoch - start))
        ops.assign(self.T_i, _f32(period))


class CyclicLR(LRScheduler):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (triangular, triangular2,
    exp_range or a custom ``scale_fn``); the first half-cycle lasts ``step_size_up``
    epochs, the second ``step_size_down`` (default: the same)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 last_epoch=-1):
        base_lrs = _per_group(optimizer, base_lr, "values for base_lr")
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                ops.assign(group["lr"], _f32(float(lr)))
        self.max_lrs = [_f32(float(lr)) for lr in _per_group(optimizer, max_lr,
                                                               "values for max_lr")]
        up = float(step_size_up)
        down = up if step_size_down is None else float(step_size_down)
        self.total_step_size = up + down
        self.step_up_ratio = up / self.total_step_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        super().__init__(optimizer, last_epoch)
        self.base_lrs = [_f32(float(lr)) for lr in base_lrs]

    def scale_fn(self, x):
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        epoch = self.last_epoch
        cycle = ops.floor(1 + epoch / self.total_step_size)
        x = 1.0 + epoch / self.total_step_size - cycle
        if float(x.asnumpy()) <= self.step_up_ratio:
            scale = x / self.step_up_ratio
        else:
            scale = (x - 1) / (self.step_up_ratio - 1)
        scale_of = self.scale_fn(cycle if self.scale_mode == "cycle" else _copy(epoch))
        return [base + (high - base) * scale * scale_of
                for base, high in zip(self.base_lrs, self.max_lrs)]


class SequentialLR:
    """Run ``schedulers`` one after another, switching at each of ``milestones``."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        for i, scheduler in enumerate(schedulers):
            if scheduler.optimizer is not optimizer:
                raise ValueError("Sequential Schedulers expects all schedulers to belong to the "
                                 f"same optimizer, but got scheduler at index {i} is different "
                                 "from the optimizer passed in.")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones "
                             f"{len(milestones)}")
        self._schedulers = list(schedulers)
        self.milestones = list(milestones)
        self.last_epoch = Parameter(_f32(last_epoch + 1),
                                    name="last_epoch_" + type(self).__name__)
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            ops.assign(group["lr"], group["initial_lr"])
        for scheduler in self._schedulers:
            ops.assign(scheduler.last_epoch, scheduler.last_epoch - 1)
        self._schedulers[0].step()
        self._last_lr = self._schedulers[0]._last_lr

    def step(self):
        """One epoch of the scheduler whose turn it is (restarted at its milestone)."""
        ops.assign(self.last_epoch, self.last_epoch + 1)
        epoch = int(float(self.last_epoch.asnumpy()))
        index = bisect_right(self.milestones, epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self.milestones[index - 1] == epoch:
            scheduler.step(0)
        else:
            scheduler.step()

    def get_last_lr(self):
        return _snapshot(self._last_lr)


class ReduceLROnPlateau:
    """Multiply the rate by ``factor`` when a metric stops improving for ``patience``
    epochs (then wait ``cooldown`` epochs); never below ``min_lr``."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("The lr factor should be less than 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"Expected an `Optimizer`, but got type {type(optimizer).__name__}")
        if mode not in ("min", "max"):
            raise ValueError(f"`mode` should be 'min' or 'max', but got {mode}.")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"`threshold mode` should be 'rel' or 'abs', but got "
                             f"{threshold_mode}.")
        self.factor = factor
        self.optimizer = optimizer
        self.min_lrs = [_f32(float(lr)) for lr in
                        _per_group(optimizer, min_lr, "min_lrs")]
        self.mode = mode
        self.patience = patience
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self.cooldown = cooldown
        self.eps = eps
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.last_epoch = Parameter(Tensor(np.array(0, np.int32)),
                                    name="last_epoch_" + type(self).__name__)
        self.best = Parameter(_f32(self.mode_worse), name="best")
        self.cooldown_counter = Parameter(_f32(0.0), name="cooldown_counter")
        self.wait = Parameter(_f32(0.0), name="wait")
        self._last_lr = list(optimizer.lrs)

    def step(self, metrics):
        """Record this epoch's metric; reduce the rates after too long without progress."""
        ops.assign(self.last_epoch, self.last_epoch + Tensor(np.array(1, np.int32)))
        current = ops.cast(metrics if isinstance(metrics, Tensor) else _f32(float(metrics)),
                           float32)
        if self._is_improvement(current, self.best):
            ops.assign(self.best, current)
            ops.assign(self.wait, _f32(0.0))
        else:
            ops.assign(self.wait, self.wait + 1)
        if self.in_cooldown():
            ops.assign(self.cooldown_counter, self.cooldown_counter - 1)
            ops.assign(self.wait, _f32(0.0))
        if float(self.wait.asnumpy()) > self.patience:
            self._reduce_lr()
            ops.assign(self.cooldown_counter, _f32(float(self.cooldown)))
            ops.assign(self.wait, _f32(0.0))
        return True

    def _reduce_lr(self):
        for lr, min_lr in zip(self._last_lr, self.min_lrs):
            new_lr = ops.maximum(lr * self.factor, min_lr)
            if float(lr.asnumpy()) > float((new_lr + self.eps).asnumpy()):
                ops.assign(lr, new_lr)

    def in_cooldown(self):
        return float(self.cooldown_counter.asnumpy()) > 0

    def _is_improvement(self, current, best):
        if self.threshold_mode == "rel":
            bound = best * (1.0 - self.threshold if self.mode == "min" else 1.0 + self.threshold)
        else:
            bound = best - self.threshold if self.mode == "min" else best + self.threshold
        better = current < bound if self.mode == "min" else current > bound
        return bool(better.asnumpy())

    def get_last_lr(self):
        return _snapshot(self._last_lr)


