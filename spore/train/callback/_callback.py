"""Callback, RunContext and the manager that calls a list of callbacks in order.

NOTE: [Callback hooks]
Model calls the ``on_train_*`` / ``on_eval_*`` hooks. By default each one calls
the old-style alias (``begin``, ``epoch_begin``, ``step_begin``, ``step_end``,
``epoch_end``, ``end``) shared by training and evaluation, as in MindSpore, so
a callback that overrides ``step_end`` runs after every train *and* eval step.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..._tensor import Tensor


class Callback:
    """Base class of callbacks: override the ``on_train_*`` / ``on_eval_*`` hooks; each
    receives a RunContext whose ``original_args()`` is the model's ``cb_params``."""

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    def begin(self, run_context):
        """Old-style alias of ``on_train_begin`` / ``on_eval_begin``."""

    def epoch_begin(self, run_context):
        """Old-style alias of ``on_train_epoch_begin`` / ``on_eval_epoch_begin``."""

    def epoch_end(self, run_context):
        """Old-style alias of ``on_train_epoch_end`` / ``on_eval_epoch_end``."""

    def step_begin(self, run_context):
        """Old-style alias of ``on_train_step_begin`` / ``on_eval_step_begin``."""

    def step_end(self, run_context):
        """Old-style alias of ``on_train_step_end`` / ``on_eval_step_end``."""

    def end(self, run_context):
        """Old-style alias of ``on_train_end`` / ``on_eval_end``."""

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)


HOOKS = ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end",
         "on_train_begin", "on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
         "on_train_step_end", "on_train_end", "on_eval_begin", "on_eval_epoch_begin",
         "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_end")


class CallbackManager(Callback):
    """Runs every hook on each callback of a list, in order; entered as a context manager
    so each callback's ``__enter__``/``__exit__`` bracket the run."""

    def __init__(self, callbacks):
        self._callbacks = _as_list(callbacks)
        self._stack = None

    def __enter__(self):
        if self._stack is None:
            self._stack = contextlib.ExitStack().__enter__()
            entered = []
            for cb in self._callbacks:
                target = self._stack.enter_context(cb)
                entered.append(target if isinstance(target, Callback) else cb)
            self._callbacks = entered
        return self

    def __exit__(self, *err):
        stack, self._stack = self._stack, None
        return stack.__exit__(*err) if stack is not None else None

    @property
    def callbacks(self):
        return list(self._callbacks)


def _make_broadcast(hook):
    def broadcast(self, run_context):
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)
    broadcast.__name__ = hook
    return broadcast


for _hook in HOOKS:
    setattr(CallbackManager, _hook, _make_broadcast(_hook))


def _as_list(callbacks):
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, list):
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError("When the 'callbacks' is a list, the elements in 'callbacks' must "
                                "be Callback functions.")
        return list(callbacks)
    raise TypeError("The 'callbacks' is not a Callback or a list of Callback.")


class InternalCallbackParam(dict):
    """``cb_params``: a dict whose keys are also attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What every hook receives: ``original_args()`` gives ``cb_params`` (cur_epoch_num,
    cur_step_num, batch_num, net_outputs, train_network, optimizer, ...);
    ``request_stop()`` ends training after the current step."""

    def __init__(self, original_args):
        if not isinstance(original_args, dict):
            raise TypeError(f"The argument 'original_args' of RunContext should be dict type, but "
                            f"got {type(original_args)}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self):
        return self._original_args

    def request_stop(self):
        self._stop_requested = True

    def get_stop_requested(self):
        return self._stop_requested


def handle_loss(loss):
    """The loss a callback reports: a Tensor becomes the float mean of its values; of a
    tuple/list output (loss, overflow, scale) the first Tensor is taken as it is."""
    if isinstance(loss, (tuple, list)):
        if loss and isinstance(loss[0], Tensor):
            return loss[0]
        return loss
    if isinstance(loss, Tensor):
        return float(np.mean(loss.asnumpy()))
    return loss
