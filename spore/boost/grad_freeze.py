"""Gradient freezing: train a different group of parameters at each step (the others'
gradients are not computed), following a freezing schedule (MindSpore's boost)."""
from __future__ import annotations

import numpy as np

from .._dtype import int32
from .._tensor import Tensor
from ..nn import Cell, Identity, Optimizer
from ..nn.wrap.cell_wrapper import loss_and_grads
from .base import ParameterProcess
from .grad_accumulation import GradientAccumulation

CONTINUOUS_STRATEGY = 0
INTERVAL_STRATEGY = 1


def _prefix_state(opt, prefix):
    """Prefix the names of an optimizer's own state (moments, step, ...), so several
    optimizers over the same parameters do not share names."""
    trained = {id(p) for p in opt.parameters}
    for p in opt.get_parameters():
        if id(p) not in trained:
            p.name = f"{prefix}.{p.name}"


class FreezeOpt(Cell):
    """One optimizer per parameter group, rebuilt from ``opt``'s class and arguments.

    Args:
        opt (Optimizer): the optimizer to split.
        train_parameter_groups (Union[tuple, list]): the groups (each a tuple/list of
            Parameters, or of group dicts). Default: ``None``, one group of all parameters.
        train_strategy (Union[tuple, list, Tensor]): the group trained at each step.
            Default: ``None``, the groups in turn.
    """

    def __init__(self, opt, train_parameter_groups=None, train_strategy=None):
        super().__init__()
        if not isinstance(opt, Optimizer):
            raise TypeError(f"The first arg 'opt' must be an Optimizer instance, but got "
                            f"{type(opt)}")
        if train_strategy is not None and train_parameter_groups is None:
            raise ValueError("When the 'train_strategy' is specified, the value of "
                             "'train_parameter_groups' must also be specified")
        if "init_args" not in opt.__dict__:
            raise TypeError(f"FreezeOpt rebuilds the optimizer from its arguments, which "
                            f"{type(opt).__name__} did not record.")
        self.opt_class = type(opt)
        self.opt_init_args = opt.init_args
        self.single_opt = opt
        self.parameters = opt.parameters
        self.learning_rate = opt.init_learning_rate
        self.dynamic_lr = opt.dynamic_lr
        self.opts = []
        if train_parameter_groups is None:
            self.groups_num = 1
            train_parameter_groups = (tuple(opt.parameters),)
        else:
            if not isinstance(train_parameter_groups, (tuple, list)):
                raise TypeError("The specified 'train_parameter_groups' should be tuple or list")
            self.groups_num = len(train_parameter_groups)
        self._init_train_strategy(train_strategy)
        self._create_new_group_learning_rate()
        self.opt_index = 0
        for params in train_parameter_groups:
            if not isinstance(params, (tuple, list)):
                raise TypeError("The each element of 'train_parameter_groups' should be tuple or "
                                "list to store the Parameter")
            self.opts.append(self._generate_new_optimizer(params))
            self.opt_index += 1

    def _init_train_strategy(self, train_strategy):
        if isinstance(train_strategy, (tuple, list)):
            if not all(isinstance(e, int) for e in train_strategy):
                raise ValueError("The element in train_strategy should be int number")
            self.train_strategy = Tensor(list(train_strategy), int32)
        elif isinstance(train_strategy, Tensor):
            if train_strategy.ndim != 1 or train_strategy.dtype != int32:
                raise ValueError("When train_strategy is a Tensor, the dimension should be 1 and "
                                 "the dtype should be int32")
            self.train_strategy = train_strategy
        elif train_strategy is None:
            self.train_strategy = None
        else:
            raise TypeError("The specified 'train_strategy' should be None, tuple, list or Tensor")

    def _create_new_group_learning_rate(self):
        """A per-step learning-rate list is split over the groups by the strategy."""
        self.dynamic_learning_rate = [[] for _ in range(self.groups_num)]
        if self.learning_rate is None:
            self.learning_rate = self.single_opt.learning_rate
            return
        if self.dynamic_lr and isinstance(self.learning_rate, list) and \
                isinstance(self.train_strategy, Tensor):
            strategy = self.train_strategy.asnumpy().tolist()
            if len(self.learning_rate) <= len(strategy):
                for i, lr in enumerate(self.learning_rate):
                    self.dynamic_learning_rate[strategy[i]].append(lr)

    def _generate_new_optimizer(self, params):
        lr = self.dynamic_learning_rate[self.opt_index] or self.learning_rate
        opt = self.opt_class(params=list(params), learning_rate=lr, **self.opt_init_args)
        _prefix_state(opt, f"boost_{self.opt_index}")
        return opt


class _TrainFreezeCell(Cell):
    """One training step that computes and applies the gradients of one group."""

    def __init__(self, net, sens, grad, grad_reducer, use_grad_accumulation, optimizer,
                 max_accumulation_step=1):
        super().__init__(auto_prefix=False)
        self.net = net
        self.grad = grad
        self.grad_reducer = grad_reducer
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self.sens = sens
        self.use_grad_accumulation = use_grad_accumulation
        self.max_accumulation_step = max_accumulation_step
        if use_grad_accumulation:
            self.grad_accumulation = GradientAccumulation(max_accumulation_step, optimizer)

    def construct(self, *inputs):
        loss, grads = loss_and_grads(self.net, self.parameters, inputs, self.sens)
        grads = self.grad_reducer(grads)
        if self.use_grad_accumulation:
            return self.grad_accumulation(loss, grads)
        self.opt(grads)
        return loss


class GradientFreeze:
    """Split a network's parameters into ``param_groups`` groups and build the schedule of
    which group trains at each step.

    Args:
        param_groups (int): number of groups.
        freeze_type (int): 0 continuous (the first group ``freeze_p``-weighted, then the
            others in turn), 1 interval (random groups, weighted towards later ones).
        freeze_p (float): the share of steps that train the first group.
        total_steps (int): the schedule's length (times 1.01).
    """

    def __init__(self, param_groups, freeze_type, freeze_p, total_steps):
        self._param_groups = param_groups
        self._freeze_type = freeze_type
        self._freeze_p = freeze_p
        self._total_steps = total_steps
        self.grad_reducer = Identity()

    def split_parameters_groups(self, net, freeze_para_groups_number):
        """Groups of at least three weights (BN and bias parameters stay with theirs);
        group ``i`` of the result holds every parameter from group ``i * stride`` on."""
        grouped, tmp = [], []
        for para in net.trainable_params():
            if "bn" in para.name or "bias" in para.name:
                tmp.append(para)
            elif len(tmp) >= 3:
                grouped.append(tmp)
                tmp = [para]
            else:
                tmp.append(para)
        if tmp:
            grouped.append(tmp)
        stride = len(grouped) // freeze_para_groups_number
        return [sum(grouped[i * stride:], []) for i in range(freeze_para_groups_number)]

    def generate_freeze_index_sequence(self, parameter_groups_number, freeze_strategy,
                                       freeze_p, total_steps):
        """The group index trained at each step."""
        total_step = int(total_steps * 1.01)
        if parameter_groups_number <= 1:
            return [0] * total_step
        if freeze_strategy == CONTINUOUS_STRATEGY:
            zero_cnt = int(freeze_p * (parameter_groups_number - 1) // (1 - freeze_p) + 0.5)
            sub_idx = [0] * zero_cnt + list(range(1, parameter_groups_number))
            idxes = []
            while len(idxes) < total_step:
                idxes += sub_idx
            return idxes
        if freeze_strategy == INTERVAL_STRATEGY:
            index_all = list(range(1, parameter_groups_number))
            prob = [x / sum(index_all) for x in index_all]
            idxes, zero_cnt, freeze_cnt = [0], 1, 0
            while len(idxes) < total_step:
                if freeze_cnt / (zero_cnt + freeze_cnt) < 1 - freeze_p:
                    idxes.append(int(np.random.choice(index_all[::-1], p=prob)))
                    freeze_cnt += 1
                else:
                    idxes.append(0)
                    zero_cnt += 1
            return idxes
        raise ValueError(f"Unsupported freezing training strategy '{freeze_strategy}'")

    def freeze_generate(self, network, optimizer):
        """``(network, FreezeOpt)`` with one optimizer per parameter group."""
        groups = self.split_parameters_groups(network, self._param_groups)
        for i in range(self._param_groups):
            groups[i] = ParameterProcess.generate_group_params(
                groups[i], optimizer.init_params["params"])
        strategy = self.generate_freeze_index_sequence(self._param_groups, self._freeze_type,
                                                       self._freeze_p, self._total_steps)
        return network, FreezeOpt(optimizer, groups, strategy)


def freeze_cell(reducer_flag, network, optimizer, sens, grad, use_grad_accumulation,
                mean=None, degree=None, max_accumulation_step=1):
    """One training cell per optimizer of ``optimizer`` (a FreezeOpt)."""
    if reducer_flag:
        from ..nn import DistributedGradReducer
        processor = ParameterProcess()
        reducers = [DistributedGradReducer(processor.assign_parameter_group(list(opt.parameters)),
                                           mean, degree) for opt in optimizer.opts]
    else:
        reducers = [Identity() for _ in optimizer.opts]
    return tuple(_TrainFreezeCell(network, sens, grad, reducer, use_grad_accumulation, opt,
                                  max_accumulation_step)
                 for reducer, opt in zip(reducers, optimizer.opts))


__all__ = ["GradientFreeze", "FreezeOpt", "freeze_cell"]
