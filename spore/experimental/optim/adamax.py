"""experimental.optim.Adamax (Adam with the infinity norm)."""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, check_adaptive_args, f32, step_tensor

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax:

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
        u \leftarrow \max(\beta_2 u, |g| + \epsilon),\quad
        \theta \leftarrow \theta - \frac{\gamma}{1-\beta_1^t}\frac{m}{u}

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``2e-3``.
        betas (tuple[float, float]): each in [0, 1). Default: ``(0.9, 0.999)``.
        eps (float): > 0. Default: ``1e-8``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.
        maximize (bool, keyword-only): Default: ``False``.

    State: ``exp_avg.<name>``, ``exp_inf.<name>``, ``step_t``.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *,
                 maximize=False):
        check_adaptive_args("Adamax", lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.add_step_counter("step_t")
        self.add_state("exp_avg", "exp_avg")
        self.add_state("exp_inf", "exp_inf")

    def construct(self, gradients):
        self.count_step(self.step_t)
        for group, lr, params, grads, part in self.groups(gradients):
            beta1, beta2, eps = f32(*group["betas"], group["eps"])
            grads = self._decay_weight(group["weight_decay"], params, grads)
            clr = lr / (1 - ops.pow(beta1, step_tensor(self.step_t)))
            for p, g, m, u in zip(params, grads, self.exp_avg[part], self.exp_inf[part]):
                ops.assign(m, m * beta1 + g * (1 - beta1))
                ops.assign(u, ops.maximum(u * beta2, ops.abs(g) + eps))
                ops.assign(p, p - clr * m / u)
        return True
