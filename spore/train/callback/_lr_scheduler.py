"""LearningRateScheduler: set the learning rate from a function of (lr, step)."""
from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from .._log import logger
from ._callback import Callback


class LearningRateScheduler(Callback):
    """After every step, set the optimizer's learning rate to
    ``learning_rate_function(current_lr, cur_step_num)`` (when it changed)."""

    def __init__(self, learning_rate_function):
        super().__init__()
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        lr_param = cb_params.optimizer.learning_rate
        lr = float(lr_param.asnumpy())
        new_lr = self.learning_rate_function(lr, cb_params.cur_step_num)
        if not math.isclose(lr, new_lr, rel_tol=1e-10):
            lr_param.set_data(Tensor(np.asarray(new_lr, np.float32)))
            logger.info("At step %s, learning_rate change to %s", cb_params.cur_step_num, new_lr)
