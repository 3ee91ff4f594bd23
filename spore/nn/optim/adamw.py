"""nn.AdamW: PyTorch-style AdamW (MindSpore's ``mindspore.experimental.optim.AdamW``).

It is configured like a PyTorch optimizer (``lr``, ``betas``, per-group dicts in
``param_groups``), decays every parameter (no name filter) and returns ``True``.
"""
from __future__ import annotations

import numpy as np

from ... import ops
from ..._dtype import float32, float64
from ..._parameter import Parameter, ParameterTuple
from ..._tensor import Tensor
from ..cell import Cell
from ._checks import check_type
from .optimizer import _as_nonempty_list, _filled_like

__all__ = ["AdamW"]


class AdamW(Cell):
    r"""Adam with decoupled weight decay, bias-corrected as in PyTorch.

    .. math::
        p \leftarrow p (1 - lr \cdot wd), \quad m \leftarrow \beta_1 m + (1-\beta_1) g,
        \quad v \leftarrow \beta_2 v + (1-\beta_2) g^2, \quad
        p \leftarrow p - \frac{lr}{1-\beta_1^t} \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} +
        \epsilon}

    With ``amsgrad`` the running maximum of :math:`v` is used; with ``maximize`` the
    gradient is negated.

    Args:
        params: Parameters, or dicts with ``params`` and any of the keyword arguments below.
        lr (float): Default: ``1e-3``.
        betas (tuple[float, float]): Default: ``(0.9, 0.999)``.
        eps (float): Default: ``1e-8``.
        weight_decay (float): Default: ``1e-2``.
        amsgrad (bool): Default: ``False``.
        maximize (bool): Default: ``False``.

    State: ``exp_avg.<name>``, ``exp_avg_sq.<name>``, ``max_exp_avg_sq.<name>`` and the
    0-d Int32 ``state_step``; each group's ``lr`` is a Parameter
    ``learning_rate_group_<i>``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(auto_prefix=False)
        _check_hyper(lr, betas, eps, weight_decay)
        self.defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                         "amsgrad": amsgrad, "maximize": maximize}
        groups = _as_nonempty_list(params, "params")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.param_groups = []
        self.group_start_id = [0]
        self.lrs = []
        flat = []
        for group in groups:
            flat.extend(self._add_group(group, flat))
        self.parameters = ParameterTuple(flat)
        self.exp_avg = ParameterTuple(_filled_like(p, 0.0, f"exp_avg.{p.name}") for p in flat)
        self.exp_avg_sq = ParameterTuple(_filled_like(p, 0.0, f"exp_avg_sq.{p.name}")
                                         for p in flat)
        self.max_exp_avg_sq = ParameterTuple(_filled_like(p, 0.0, f"max_exp_avg_sq.{p.name}")
                                             for p in flat)
        self.state_step = Parameter(Tensor(np.zeros((), np.int32)), name="state_step")

    def _add_group(self, group, taken):
        if not isinstance(group, dict):
            raise TypeError("Param group must be a dict.")
        params = group["params"]
        params = [params] if isinstance(params, Parameter) else list(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError("Optimizer can only optimize Parameters, but one of the params is "
                                f"{type(p).__name__}")
        if any(p is q for p in params for q in taken):
            raise ValueError("some parameters appear in more than one parameter group.")
        group = dict(self.defaults, **group)
        group["params"] = params
        _check_hyper(group["lr"], group["betas"], group["eps"], group["weight_decay"])
        index = len(self.param_groups)
        group["lr"] = Parameter(Tensor(group["lr"], float32),
                                name=f"learning_rate_group_{index}")
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self.group_start_id.append(self.group_start_id[-1] + len(params))
        return params

    def construct(self, gradients):
        if not isinstance(gradients, tuple) or len(gradients) != len(self.parameters):
            raise RuntimeError(f"For 'AdamW', the gradients must be a tuple with one Tensor per "
                               f"parameter ({len(self.parameters)}).")
        ops.assign_add(self.state_step, 1)
        for index, group in enumerate(self.param_groups):
            start, end = self.group_start_id[index], self.group_start_id[index + 1]
            self._update_group(group, gradients[start:end], slice(start, end))
        return True

    def _update_group(self, group, grads, span):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        decay = 1 - lr * group["weight_decay"]
        # the bias corrections are computed in float64 (1 - 0.999 loses 4 digits in float32),
        # which is what matches MindSpore's results
        step = ops.cast(self.state_step, float64)
        step_size = lr / ops.cast(1 - ops.pow(beta1, step), float32)
        correction2 = ops.cast(ops.sqrt(1 - ops.pow(beta2, step)), float32)
        for param, grad, m, v, vmax in zip(self.parameters[span], grads, self.exp_avg[span],
                                           self.exp_avg_sq[span], self.max_exp_avg_sq[span]):
            if group["maximize"]:
                grad = ops.neg(grad)
            decayed = param * decay
            ops.assign(m, m * beta1 + grad * (1 - beta1))
            ops.assign(v, v * beta2 + grad * grad * (1 - beta2))
            if group["amsgrad"]:
                ops.assign(vmax, ops.maximum(vmax, v))
                v = vmax
            denom = ops.sqrt(v) / correction2 + group["eps"]
            ops.assign(param, decayed - m / denom * step_size)


def _check_hyper(lr, betas, eps, weight_decay):
    for name, value in (("lr", lr), ("eps", eps), ("weight_decay", weight_decay)):
        check_type(name, value, (float, int), "AdamW")
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not isinstance(betas, tuple) or len(betas) != 2:
        raise TypeError(f"For 'AdamW', the 'betas' must be a tuple of two floats, but got "
                        f"{betas!r}.")
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
