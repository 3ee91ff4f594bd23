"""experimental.optim.AdamW: Adam with decoupled weight decay (MindSpore's formula)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._tensor import Tensor
from .adam import AdamBase, beta_powers

__all__ = ["AdamW"]


class AdamW(AdamBase):
    r"""AdamW (decoupled weight decay), as MindSpore computes it:

    .. math::
        \theta \leftarrow \theta (1 - \gamma\lambda),\quad
        m \leftarrow \beta_1 m + (1-\beta_1) g,\quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,
        \quad \theta \leftarrow \theta - \frac{\gamma}{1-\beta_1^t}
        \frac{m}{\sqrt{v}/\sqrt{1-\beta_2^t} + \epsilon}

    With ``amsgrad=True``, :math:`v` in the denominator is the running maximum
    :math:`\hat v = \max(\hat v, v)`; ``maximize`` negates the gradient.

    Args:
        params, lr, betas, eps, amsgrad, maximize: as :class:`Adam`.
        weight_decay (float): :math:`\lambda`. Default: ``1e-2``.

    State: ``exp_avg.<name>``, ``exp_avg_sq.<name>``, ``max_exp_avg_sq.<name>``, ``state_step``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def construct(self, gradients):
        self.count_step(self.state_step)
        for group, lr, params, grads, part in self.groups(gradients):
            b1_power, b2_power = beta_powers(*group["betas"], self.state_step)
            # MindSpore computes 1 - beta in float32 (the betas are float32 scalars)
            beta1, beta2 = (Tensor(beta, float32) for beta in group["betas"])
            shrink = 1 - lr * Tensor(group["weight_decay"], float32)
            step_size = lr / (1 - b1_power)
            correction2 = ops.sqrt(1 - b2_power)
            for p, g, m, v, vmax in zip(params, grads, self.exp_avg[part], self.exp_avg_sq[part],
                                        self.max_exp_avg_sq[part]):
                decayed = p * shrink
                ops.assign(m, m * beta1 + g * (1 - beta1))
                ops.assign(v, ops.addcmul(v * beta2, g, g, 1 - beta2))
                if group["amsgrad"]:
                    ops.assign(vmax, ops.maximum(vmax, v))
                    v = vmax
                denom = ops.sqrt(v) / correction2 + group["eps"]
                ops.assign(p, decayed - (m / denom) * step_size)
        return True
