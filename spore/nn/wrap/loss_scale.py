"""Loss scaling for mixed precision: the training step with a loss scale and the cells
that update the scale.

A float16 backward pass underflows small gradients to zero. Seeding it with a large
``scale`` keeps them representable; the gradients are divided by the scale before
the update. If any gradient overflowed (inf/nan) the update is skipped, and a
dynamic scale shrinks; after ``scale_window`` clean steps it grows again.

MindSpore detects overflow with Ascend/GPU float-status kernels its CPU build lacks;
here overflow is "some gradient is not finite", on every device.
"""
from __future__ import annotations

import numpy as np

from ... import ops
from ...ops import _control
from ..._dtype import float32, int32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell, loss_and_grads

__all__ = ["TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell",
           "FixedLossScaleUpdateCell"]


class DynamicLossScaleUpdateCell(Cell):
    """Updates a loss scale from the overflow flag: divide by ``scale_factor`` (not below 1)
    on overflow; multiply by it after ``scale_window`` steps without overflow.

    ``construct(loss_scale, overflow)`` writes the new scale into the ``loss_scale``
    Parameter and returns ``overflow``. State: ``current_iterator_step`` (starts at 1) and
    ``last_overflow_iterator_step`` (starts at 0), 0-d Int32 Parameters.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(scale_window, int32)
        self.scale_factor = Tensor(scale_factor, float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.ones((), np.int32)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.zeros((), np.int32)),
                                            name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, float32)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        shrunk = ops.maximum(loss_scale * ops.reciprocal(self.scale_factor),
                             self.minimum_loss_scale)
        after_overflow = ops.where(overflow, shrunk, loss_scale)
        should_grow = self.scale_window <= self.cur_iter - self.last_overflow_iter
        restart = ops.logical_or(overflow, should_grow)
        ops.assign(self.last_overflow_iter,
                   ops.where(restart, self.cur_iter, self.last_overflow_iter))
        grow = ops.logical_and(should_grow, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.where(grow, after_overflow * self.scale_factor,
                                         after_overflow))
        ops.assign(self.cur_iter, self.cur_iter + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A constant loss scale: ``construct(loss_scale, overflow)`` returns ``overflow``."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling. Returns ``(loss, overflow, scale)``: the loss
    before the update, whether a gradient overflowed (the update was then skipped) and the
    loss-scale Parameter (``scale_sense``, already updated for the next step).

    Args:
        network (Cell): returns the loss.
        optimizer (Cell): the optimizer.
        scale_sense (Union[Cell, Tensor]): an update cell (:class:`DynamicLossScaleUpdateCell`,
            :class:`FixedLossScaleUpdateCell`) or a Tensor of shape () or (1,) holding a fixed
            scale.
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), float32),
                                         name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError("For 'TrainOneStepWithLossScaleCell', the shape of "
                                 f"'scale_sense' must be (1,) or (), but got {scale_sense.shape}.")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be "
                            f"Cell or Tensor, but got 'scale_sense' type: {type(scale_sense)}.")

    def construct(self, *inputs):
        scaling_sens = self.scale_sense
        loss, grads = loss_and_grads(self.network, self.weights, inputs, scaling_sens)
        inverse = ops.reciprocal(scaling_sens)
        grads = tuple(ops.mul(g, ops.cast(inverse, g.dtype)) for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        # a tensor conditional: in a compiled step the update runs only when it is taken
        _control.cond(overflow, _skip, lambda: self._update_weights(grads))
        return loss, cond, scaling_sens

    def _update_weights(self, grads):
        """The update of a step without overflow (``spore.boost`` accumulates instead)."""
        _update(self.optimizer, grads)

    def set_sense_scale(self, sens):
        """Replace the loss scale by ``sens`` (a Tensor)."""
        if not isinstance(sens, Tensor):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be "
                            f"Tensor, but got {type(sens)}")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """Kept for custom cells written for Ascend: returns ``(status, compute_input)``
        (overflow is read from the gradients, so there is no status to clear)."""
        return Tensor(np.zeros((8,), np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A 0-d bool Tensor: whether any tensor in ``compute_output`` has an inf or nan."""
        finite = [ops.all(ops.isfinite(g)) for g in compute_output]
        all_finite = finite[0]
        for flag in finite[1:]:
            all_finite = ops.logical_and(all_finite, flag)
        return ops.logical_not(all_finite)

    def process_loss_scale(self, overflow):
        """Let the update cell adjust the scale; returns whether to skip the update."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow


def _skip():
    return None


def _update(optimizer, grads):
    optimizer(grads)
