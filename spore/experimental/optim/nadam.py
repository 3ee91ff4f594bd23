"""experimental.optim.NAdam: Adam with Nesterov momentum and momentum decay."""
from __future__ import annotations

from ... import ops
from .asgd import _scalar
from .optimizer import Optimizer, check_adaptive_args, check_at_least, f32, step_tensor

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam. With :math:`\mu_t = \beta_1 (1 - \tfrac12 0.96^{t\psi})` and
    :math:`\Pi_t = \prod_{i \le t}\mu_i`:

    .. math::
        g \leftarrow g + \lambda\theta,\quad m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
        v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad
        d = \sqrt{v / (1-\beta_2^t)} + \epsilon,\\
        \theta \leftarrow \theta - \gamma\frac{1-\mu_t}{1-\Pi_t}\frac{g}{d}
        - \gamma\frac{\mu_{t+1}}{1-\Pi_t\mu_{t+1}}\frac{m}{d}

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``2e-3``.
        betas (tuple[float, float]): each in [0, 1). Default: ``(0.9, 0.999)``.
        eps (float): > 0. Default: ``1e-8``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.
        momentum_decay (float): :math:`\psi \ge 0`. Default: ``4e-3``.

    State: ``exp_avg.<name>``, ``exp_avg_sq.<name>``, ``step_t``; :math:`\Pi_t` is the list
    ``mu_product`` of 0-d Parameters (not saved in checkpoints, as in MindSpore).
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3):
        check_adaptive_args("NAdam", lr, eps, weight_decay, betas)
        check_at_least(momentum_decay, "momentum_decay", "NAdam")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "momentum_decay": momentum_decay})
        self.add_step_counter("step_t")
        self.add_state("exp_avg", "exp_avg")
        self.add_state("exp_avg_sq", "exp_avg_sq")
        self.mu_product = [_scalar(1.0, "mu_product_" + p.name) for p in self.parameters]

    def add_param_group(self, param_group):
        super().add_param_group(param_group)
        if hasattr(self, "mu_product"):
            self.mu_product += [_scalar(1.0, "mu_product_" + p.name)
                                for p in self.param_groups[-1]["params"]]

    def construct(self, gradients):
        self.count_step(self.step_t)
        step = step_tensor(self.step_t)
        for group, lr, params, grads, part in self.groups(gradients):
            beta1, beta2, decay, eps = f32(*group["betas"], group["momentum_decay"],
                                           group["eps"])
            grads = self._decay_weight(group["weight_decay"], params, grads)
            correction2 = 1 - beta2 ** step
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
            for p, g, m, v, prod in zip(params, grads, self.exp_avg[part], self.exp_avg_sq[part],
                                        self.mu_product[part]):
                ops.assign(prod, prod * mu)
                ops.assign(m, m * beta1 + g * (1 - beta1))
                ops.assign(v, v * beta2 + g * g * (1 - beta2))
                denom = ops.sqrt(v / correction2) + eps
                prod_next = prod * mu_next
                ops.assign(p, p - lr * (1.0 - mu) / (1.0 - prod) * g / denom)
                ops.assign(p, p - (lr * mu_next) / (1.0 - prod_next) * m / denom)
        return True
