"""experimental.optim.RAdam: Adam with the variance rectification term."""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, check_adaptive_args, f32, step_tensor

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam. With :math:`\rho_\infty = 2/(1-\beta_2) - 1` and
    :math:`\rho_t = \rho_\infty - 2t\beta_2^t/(1-\beta_2^t)`:

    .. math::
        g \leftarrow g + \lambda\theta,\quad m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
        v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad \hat m = m / (1-\beta_1^t),\\
        \theta \leftarrow \theta - \gamma\hat m\, r_t \frac{\sqrt{1-\beta_2^t}}{\sqrt v + \epsilon}
        \ (\rho_t > 5),\qquad \theta \leftarrow \theta - \gamma\hat m \ (\rho_t \le 5)

    where :math:`r_t = \sqrt{\frac{(\rho_t-4)(\rho_t-2)\rho_\infty}
    {(\rho_\infty-4)(\rho_\infty-2)\rho_t}}`.

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``1e-3``.
        betas (tuple[float, float]): each in [0, 1). Default: ``(0.9, 0.999)``.
        eps (float): > 0. Default: ``1e-8``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.

    State: ``exp_avg.<name>``, ``exp_avg_sq.<name>``, ``step_t``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        check_adaptive_args("RAdam", lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay})
        self.add_step_counter("step_t")
        self.add_state("exp_avg", "exp_avg")
        self.add_state("exp_avg_sq", "exp_avg_sq")

    def construct(self, gradients):
        self.count_step(self.step_t)
        step = step_tensor(self.step_t)
        for group, lr, params, grads, part in self.groups(gradients):
            beta1, beta2, eps = f32(*group["betas"], group["eps"])
            grads = self._decay_weight(group["weight_decay"], params, grads)
            beta2_power = ops.pow(beta2, step)
            correction1 = 1 - ops.pow(beta1, step)
            correction2 = 1 - beta2_power
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * beta2_power / correction2
            # both updates are formed and one selected; the clamp keeps the unused
            # rectification finite while rho_t <= 4
            rectified = rho_t > 5.0
            rect = ops.sqrt(ops.maximum((rho_t - 4) * (rho_t - 2) * rho_inf /
                                        ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.0))
            for p, g, m, v in zip(params, grads, self.exp_avg[part], self.exp_avg_sq[part]):
                ops.assign(m, m * beta1 + g * (1 - beta1))
                ops.assign(v, v * beta2 + g * g * (1 - beta2))
                m_hat = m / correction1
                adaptive = ops.sqrt(correction2) / (ops.sqrt(v) + eps)
                ops.assign(p, ops.where(rectified, p - m_hat * lr * adaptive * rect,
                                        p - m_hat * lr))
        return True
