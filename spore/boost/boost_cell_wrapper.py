"""``BoostTrainOneStepCell`` / ``BoostTrainOneStepWithLossScaleCell``: the training steps
``Model(boost_level="O1"/"O2")`` builds: a plain step, gradient freezing (one parameter
group per step, ``FreezeOpt``) or gradient accumulation (``grad_accumulation_step``)."""
from __future__ import annotations

from .. import ops
from .._context import get_auto_parallel_context
from .._dtype import int32
from .._parameter import Parameter
from .._tensor import Tensor
from ..nn import TrainOneStepCell, TrainOneStepWithLossScaleCell
from ..nn.wrap.cell_wrapper import loss_and_grads
from .boost import AutoBoost
from .grad_accumulation import _accumulate, _clear
from .grad_freeze import FreezeOpt, freeze_cell


class BoostTrainOneStepCell(TrainOneStepCell):
    """A training step with the boosts of the current :class:`AutoBoost` configuration.

    Args:
        network (Cell): returns the loss.
        optimizer (Union[Optimizer, FreezeOpt]): the optimizer; a ``FreezeOpt`` trains one
            parameter group per step, following its ``train_strategy``.
        sens (numbers.Number): the gradient seed. Default: ``None`` (1.0).

    Output: the loss (computed before the update).
    """

    def __init__(self, network, optimizer, sens=None):
        super().__init__(network, optimizer, sens)
        self._init_boost()

    def _init_boost(self):
        """The boost state on top of TrainOneStepCell's."""
        self.freeze = isinstance(self.optimizer, FreezeOpt)
        self.train_strategy = getattr(self.optimizer, "train_strategy", None)
        self.auto_boost = AutoBoost()
        self.parallel_mode = get_auto_parallel_context("parallel_mode")
        self.use_grad_accumulation = self.parallel_mode in ("data_parallel", "stand_alone") \
            and bool(self.auto_boost.boost_config.get("grad_accumulation", False))
        self.max_accumulation_step = 1
        if self.use_grad_accumulation:
            self.max_accumulation_step = self.auto_boost.grad_accumulation_step
            if self.max_accumulation_step <= 1:
                self.max_accumulation_step = 1
                self.use_grad_accumulation = False
        self.accumulation_step = Parameter(Tensor(0, dtype=int32), name="accumulation_step")
        if self.use_grad_accumulation:
            self.grad_accumulation = self.weights.clone(prefix="grad_accumulation",
                                                        init="zeros")
        self.enable_dim_reduce = self.check_dim_reduce_enable()
        if self.enable_dim_reduce:
            raise NotImplementedError("BoostTrainOneStepCell's dim_reduce step (PCA matrices "
                                      "from AutoBoost's checkpoints) is not implemented in "
                                      "Spore; call spore.boost.DimReduce directly.")
        self.freeze_nets = None
        self.step = Parameter(Tensor(0, dtype=int32), name="step")
        if self.freeze:
            mean = get_auto_parallel_context("gradients_mean") if self.reducer_flag else None
            degree = None
            self.freeze_nets = freeze_cell(self.reducer_flag, self.network, self.optimizer,
                                           self.sens, self.grad, self.use_grad_accumulation,
                                           mean, degree, self.max_accumulation_step)
        self.enable_adasum = self.check_adasum_enable()
        if self.enable_adasum:
            raise NotImplementedError("mindspore.boost's AdaSum (over 16 or more data-parallel "
                                      "ranks) is not implemented in Spore.")

    def construct(self, *inputs):
        if self.freeze:
            return self.gradient_freeze_process(*inputs)
        loss, grads = loss_and_grads(self.network, self.weights, inputs,
                                     self.sens if self.sense_flag else None)
        grads = self.grad_reducer(grads)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        return self._apply(loss, grads, sens, *inputs)

    def _apply(self, loss, grads, sens, *inputs):
        if self.use_grad_accumulation:
            return self.gradient_accumulation_process(loss, grads, sens, *inputs)
        self.optimizer(grads)
        return loss

    def gradient_freeze_process(self, *inputs):
        """Run this step's group (``train_strategy[step]``, or the groups in turn)."""
        step = int(self.step.asnumpy())
        if self.train_strategy is None:
            index, max_index = step, len(self.freeze_nets)
        else:
            index, max_index = int(self.train_strategy.asnumpy()[step]), \
                len(self.train_strategy)
        loss = self.freeze_nets[index](*inputs)
        ops.assign(self.step, Tensor(0 if step + 1 >= max_index else step + 1, int32))
        return loss

    def gradient_accumulation_process(self, loss, grads, sens, *inputs):
        """Add ``grads / max_accumulation_step``; update and clear every
        ``max_accumulation_step`` steps."""
        _accumulate(self.grad_accumulation, grads, self.max_accumulation_step)
        ops.assign_add(self.accumulation_step, Tensor(1, int32))
        if self.accumulation_step >= self.max_accumulation_step:
            self.optimizer(self.grad_accumulation)
            ops.assign(self.accumulation_step, Tensor(0, int32))
        if self.accumulation_step == 0:
            _clear(self.grad_accumulation)
        return loss

    def check_adasum_enable(self):
        """AdaSum runs when the optimizer asks for it and training is data parallel over
        ``8 * 2**k`` (k >= 1) ranks."""
        if not getattr(self.optimizer, "adasum", None) or not self.reducer_flag:
            return False
        from ..communication.management import get_group_size
        group_number = get_group_size() // 8
        return bool(group_number > 1 and group_number & (group_number - 1) == 0)

    def check_dim_reduce_enable(self):
        return bool(getattr(self.optimizer, "dim_reduce", None))


class BoostTrainOneStepWithLossScaleCell(BoostTrainOneStepCell, TrainOneStepWithLossScaleCell):
    """A boosted training step with loss scaling: returns ``(loss, overflow, scale)``; the
    update is skipped when a gradient overflowed. The scale, the overflow check and the
    scale update are TrainOneStepWithLossScaleCell's.

    Args:
        network (Cell): returns the loss.
        optimizer (Cell): the optimizer.
        scale_sense (Union[Cell, Tensor]): an update cell
            (:class:`~spore.nn.DynamicLossScaleUpdateCell`, ...) or a Tensor of shape ``()``
            or ``(1,)``.
    """

    def __init__(self, network, optimizer, scale_sense):
        TrainOneStepWithLossScaleCell.__init__(self, network, optimizer, scale_sense)
        self._init_boost()
        if self.auto_boost.boost_config.get("loss_scale_group", False):
            raise NotImplementedError("mindspore.boost's loss_scale_group "
                                      "(GroupLossScaleManager) is not implemented in Spore.")

    construct = TrainOneStepWithLossScaleCell.construct         # (loss, overflow, scale)

    def _update_weights(self, grads):
        """With no overflow: the boosted update (accumulated when configured)."""
        self._apply(None, grads, None)
