"""History and LambdaCallback."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from ._callback import Callback


class History(Callback):
    """Record each epoch's network output (mean of the loss) and, in ``fit``, the
    evaluation metrics: ``history.history == {'net_output': [...], 'acc': [...]}``,
    ``history.epoch == {'epoch': [1, 2, ...]}``."""

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        self.epoch["epoch"].append(cb_params.get("cur_epoch_num", 1))
        output = cb_params.net_outputs
        if isinstance(output, (tuple, list)) and output and isinstance(output[0], Tensor):
            output = output[0]
        if isinstance(output, Tensor):
            output = np.mean(output.asnumpy())
        record = {"net_output": output}
        record.update(cb_params.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)


_LAMBDA_HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin",
                 "on_train_step_end", "on_train_begin", "on_train_end", "on_eval_epoch_begin",
                 "on_eval_epoch_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_begin",
                 "on_eval_end")


def _ignore(run_context):
    return None


class LambdaCallback(Callback):
    """A callback built from functions ``f(run_context)`` given per hook, e.g.
    ``LambdaCallback(on_train_epoch_end=lambda rc: print(rc.original_args().cur_epoch_num))``."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        super().__init__()
        given = locals()
        for hook in _LAMBDA_HOOKS:
            setattr(self, hook, given[hook] or _ignore)
