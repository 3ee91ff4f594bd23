"""EarlyStopping and ReduceLROnPlateau: act when a monitored value stops improving."""
from __future__ import annotations

import copy

import numpy as np

from ..._tensor import Tensor
from ..._parameter import Parameter
from .. import serialization
from ._callback import Callback
from ._monitor_value import check_mode, minimizes, monitor_value


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"The type of '{name}' must be int or float, but got "
                        f"{type(value).__name__}.")
    return value


def _non_negative_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"The '{name}' must be a non-negative int, but got {value!r}.")
    return value


def _bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"The type of '{name}' must be bool, but got {type(value).__name__}.")
    return value


class _Plateau(Callback):
    """Tracks the best value of ``monitor`` and whether the latest one improved on it."""

    def __init__(self, monitor, min_delta, mode):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"The type of 'monitor' must be str, but got "
                            f"{type(monitor).__name__}.")
        self.monitor = monitor
        self.min_delta = abs(_number("min_delta", min_delta))
        self.mode = check_mode(mode)
        self.best = self._initial_best()

    def _initial_best(self):
        return np.inf if minimizes(self.mode, self.monitor) else -np.inf

    def is_improvement(self, current, reference):
        if minimizes(self.mode, self.monitor):
            return bool(np.less(current, reference - self.min_delta))
        return bool(np.greater(current, reference + self.min_delta))


class EarlyStopping(_Plateau):
    """Stop training when ``monitor`` has not improved for ``patience`` epochs.

    Args:
        monitor (str): ``'eval_loss'`` (default; needs ``Model.fit`` with a validation set),
            ``'loss'`` (the training loss) or a metric name from ``fit``'s evaluation.
        min_delta (float): smallest change counted as an improvement.
        patience (int): epochs without improvement before stopping.
        verbose (bool): print when stopping / restoring.
        mode (str): ``'auto'``, ``'min'`` or ``'max'``.
        baseline (float): the value must beat this for its epoch to count as progress.
        restore_best_weights (bool): load the best epoch's weights when stopping.
    """

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__(monitor, min_delta, mode)
        self.patience = _non_negative_int("patience", patience)
        self.verbose = _bool("verbose", verbose)
        self.baseline = None if baseline is None else _number("baseline", baseline)
        self.restore_best_weights = _bool("restore_best_weights", restore_best_weights)
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights_param_dict = None

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self._initial_best()
        self.best_weights_param_dict = None

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        current = monitor_value(cb_params, self.monitor, "Early stopping")
        if current is None:
            return
        network = cb_params.train_network
        if self.restore_best_weights and self.best_weights_param_dict is None:
            self.best_weights_param_dict = copy.deepcopy(network.parameters_dict())
        # counted before the comparison, as in MindSpore: patience=0 stops after one epoch
        self.wait += 1
        if self.is_improvement(current, self.best):
            self.best = current
            if self.restore_best_weights:
                self.best_weights_param_dict = copy.deepcopy(network.parameters_dict())
            if self.baseline is None or self.is_improvement(current, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = cb_params.get("cur_epoch_num")
            run_context.request_stop()
            if self.restore_best_weights and self.best_weights_param_dict is not None:
                if self.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                serialization.load_param_into_net(network, dict(self.best_weights_param_dict))

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")


class ReduceLROnPlateau(_Plateau):
    """Multiply the optimizer's learning rate by ``factor`` when ``monitor`` has not
    improved for ``patience`` epochs (not below ``min_lr``; then wait ``cooldown`` epochs).
    The optimizer must have a single fixed learning rate (a Parameter)."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__(monitor, min_delta, mode)
        if isinstance(factor, bool) or not isinstance(factor, float) or not 0.0 < factor < 1.0:
            raise ValueError(f"For 'ReduceLROnPlateau', the 'factor' must be a float in (0.0, "
                             f"1.0), but got {factor!r}.")
        self.factor = factor
        self.patience = _non_negative_int("patience", patience)
        self.verbose = _bool("verbose", verbose)
        self.cooldown = _non_negative_int("cooldown", cooldown)
        self.min_lr = _number("min_lr", min_lr)
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = self._initial_best()

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter):
            raise ValueError("ReduceLROnPlateau does not support dynamic learning rate and group "
                             "learning rate now.")
        current = monitor_value(cb_params, self.monitor, "Learning rate reduction")
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce(lr, cb_params.cur_epoch_num)
                self.cooldown_counter = self.cooldown
                self.wait = 0

    def _reduce(self, lr, epoch):
        old = lr.asnumpy()
        if not old > self.min_lr:
            return
        new = np.maximum(old * np.asarray(self.factor, old.dtype),
                         np.asarray(self.min_lr, old.dtype))
        lr.set_data(Tensor(new))
        if self.verbose:
            print(f"Epoch {epoch:05d}: ReduceLROnPlateau reducing learning rate to {str(new)}.")
