"""``GradientAccumulation``: average the gradients of several steps, update once."""
from __future__ import annotations

from .. import ops
from .._dtype import int32
from .._parameter import Parameter
from .._tensor import Tensor
from ..nn import Cell


def _accumulate(accumulated, grads, steps):
    for acc, g in zip(accumulated, grads):
        ops.assign_add(acc, g / steps)


def _clear(accumulated):
    for acc in accumulated:
        ops.assign(acc, ops.zeros_like(acc))


class GradientAccumulation(Cell):
    """Add ``grads / max_accumulation_step`` to a buffer each call; every
    ``max_accumulation_step`` calls, run ``optimizer`` on the buffer and clear it.

    Args:
        max_accumulation_step (int): steps per update.
        optimizer (Cell): the optimizer.

    Inputs: ``loss``, ``grads``. Output: ``loss``.
    """

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__()
        self._max_accumulation_step = max_accumulation_step
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtype=int32), name="accumulation_step")

    def construct(self, loss, grads):
        _accumulate(self._grad_accumulation, grads, self._max_accumulation_step)
        ops.assign_add(self._accumulation_step, Tensor(1, int32))
        if self._accumulation_step >= self._max_accumulation_step:
            self.optimizer(self._grad_accumulation)
            ops.assign(self._accumulation_step, Tensor(0, int32))
        if self._accumulation_step == 0:
            _clear(self._grad_accumulation)
        return loss
