"""experimental.optim.ASGD: averaged stochastic gradient descent."""
from __future__ import annotations

import numpy as np

from ... import ops
from ..._parameter import Parameter
from ..._tensor import Tensor
from .optimizer import Optimizer, check_at_least, step_tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD. Each parameter has a step size :math:`\eta` (``lr`` at step 1) and an
    averaging rate :math:`\mu` (1 at first):

    .. math::
        g \leftarrow \pm g + \lambda_{wd}\theta,\quad
        \theta \leftarrow \theta(1 - \lambda\eta) - \eta g,\quad
        a \leftarrow a + \mu(\theta - a) \ (a \leftarrow \theta \text{ while } \mu = 1),\\
        \eta \leftarrow \frac{\gamma}{(1 + \lambda\gamma t)^{\alpha}},\quad
        \mu \leftarrow \frac{1}{\max(1, t - t_0)}

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``1e-2``.
        lambd (float): decay term :math:`\lambda`. Default: ``1e-4``.
        alpha (float): power of the :math:`\eta` update. Default: ``0.75``.
        t0 (float): the step where averaging starts. Default: ``1e6``.
        weight_decay (float): :math:`\lambda_{wd} \ge 0`. Default: ``0.``.
        maximize (bool): Default: ``False``.

    State: ``ax.<name>`` (the average :math:`a`), ``step_t``; :math:`\eta` and :math:`\mu`
    are the lists ``eta`` and ``mu`` of 0-d Parameters (not saved in checkpoints, as in
    MindSpore).
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 maximize=False):
        check_at_least(lr, "lr", "ASGD", inclusive=False)
        check_at_least(weight_decay, "weight_decay", "ASGD")
        if not isinstance(lambd, float):
            raise TypeError(f"For 'ASGD', the type of lambd must be float, but got {type(lambd)}.")
        if not isinstance(t0, float):
            raise TypeError(f"For 'ASGD', the type of t0 must be float, but got {type(t0)}.")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.mu = [_scalar(1.0, "mu_" + p.name) for p in self.parameters]
        self.eta = [_scalar(0.0, "eta_" + p.name) for p in self.parameters]
        self.add_state("ax", "ax")
        self.add_step_counter("step_t")

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        if hasattr(self, "mu"):
            for p in self.param_groups[-1]["params"]:
                self.mu.append(_scalar(1.0, "mu_" + p.name))
                self.eta.append(_scalar(0.0, "eta_" + p.name))

    def construct(self, gradients):
        self.count_step(self.step_t)
        step = step_tensor(self.step_t)
        first = self.step_t == 1
        for group, lr, params, grads, part in self.groups(gradients):
            lambd, alpha, t0 = group["lambd"], group["alpha"], group["t0"]
            grads = self._decay_weight(group["weight_decay"], params, grads)
            for p, g, eta, mu, ax in zip(params, grads, self.eta[part], self.mu[part],
                                         self.ax[part]):
                # selects, not Python branches: no host read of the step or of mu
                ops.assign(eta, ops.where(first, lr, eta))
                new = ops.assign(p, p * (1.0 - lambd * eta) - eta * g)
                ops.assign(ax, ops.where(mu != 1.0, ax + (new - ax) * mu, new))
                ops.assign(eta, lr / ops.pow(1.0 + lambd * lr * step, alpha))
                ops.assign(mu, 1.0 / ops.maximum(Tensor(1.0), step - t0))
        return True


def _scalar(value, name):
    return Parameter(Tensor(np.array(value, np.float32)), name=name)
