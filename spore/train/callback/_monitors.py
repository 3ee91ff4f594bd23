"""LossMonitor and TimeMonitor: MindSpore's printed lines, byte for byte."""
from __future__ import annotations

import math
import time

from ._callback import Callback, handle_loss


def _check_non_negative_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"The type of '{name}' must be int, but got {type(value).__name__}.")
    if value < 0:
        raise ValueError(f"The '{name}' must be a non-negative int, but got {value}.")
    return value


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (0 disables);
    a NaN/Inf loss stops training with ValueError. In ``Model.fit`` it also prints
    ``Eval result: epoch E, metrics: {...}`` after each evaluation."""

    def __init__(self, per_print_times=1):
        super().__init__()
        self._per_print_times = _check_non_negative_int("per_print_times", per_print_times)
        self._last_print_time = 0

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        epoch = cb_params.get("cur_epoch_num", 1)
        loss = handle_loss(cb_params.net_outputs)
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        if isinstance(loss, float) and (math.isnan(loss) or math.isinf(loss)):
            raise ValueError(f"In epoch: {epoch} step: {step_in_epoch}, loss is NAN or INF, "
                             f"training process cannot continue, terminating training.")
        if self._per_print_times == 0:
            return
        # a new run (or eval after train) restarts the step count: rewind the last mark
        back = max(self._per_print_times,
                   cb_params.batch_num if cb_params.get("dataset_sink_mode") else 1)
        while cb_params.cur_step_num <= self._last_print_time:
            self._last_print_time -= back
        if cb_params.cur_step_num - self._last_print_time >= self._per_print_times:
            self._last_print_time = cb_params.cur_step_num
            print("epoch: %s step: %s, loss is %s" % (epoch, step_in_epoch, loss), flush=True)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics")
        if metrics:
            print("Eval result: epoch %d, metrics: %s" % (cb_params.cur_epoch_num, metrics))


class TimeMonitor(Callback):
    """Print ``Train epoch time: X ms, per step time: Y ms`` after every epoch
    (``data_time=True`` adds `` (data time: Z ms)``: time spent waiting for data)."""

    def __init__(self, data_size=None, data_time=False):
        super().__init__()
        if not isinstance(data_time, bool):
            raise TypeError(f"The type of 'data_time' must be bool, but got "
                            f"{type(data_time).__name__}.")
        self.data_size = data_size
        self.data_time = data_time
        self.epoch_time = time.time()
        self.data_time_sum = 0.0
        self.data_time_start = 0.0

    def _tracks_data(self, run_context):
        return self.data_time and not run_context.original_args().get("dataset_sink_mode")

    def on_train_step_begin(self, run_context):
        if self._tracks_data(run_context):
            self.data_time_sum += time.time() - self.data_time_start

    def on_train_step_end(self, run_context):
        if self._tracks_data(run_context):
            self.data_time_start = time.time()

    def epoch_begin(self, run_context):
        self.epoch_time = time.time()
        if self._tracks_data(run_context):
            self.data_time_sum = 0.0
            self.data_time_start = time.time()

    def epoch_end(self, run_context):
        epoch_ms = (time.time() - self.epoch_time) * 1000
        cb_params = run_context.original_args()
        steps = self.data_size
        batch_num = cb_params.get("batch_num")
        if isinstance(batch_num, int) and batch_num > 0:
            steps = batch_num
        if isinstance(steps, bool) or not isinstance(steps, int) or steps <= 0:
            raise ValueError(f"For 'TimeMonitor', the 'data_size' must be a positive int when the "
                             f"step count is unknown, but got {steps}.")
        line = (f"{cb_params.get('mode', '').title()} epoch time: {epoch_ms:5.3f} ms, "
                f"per step time: {epoch_ms / steps:5.3f} ms")
        if self._tracks_data(run_context):
            line += f" (data time: {self.data_time_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
