"""experimental.optim.RMSprop (PyTorch's form: eps added to the root)."""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, check_at_least, f32

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop:

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad s \leftarrow \alpha s + (1-\alpha) g^2,\quad
        d = \sqrt{s - \bar g^2} + \epsilon \text{ (centered, with }
        \bar g \leftarrow \alpha\bar g + (1-\alpha) g) \text{ or } \sqrt{s} + \epsilon,\\
        b \leftarrow \mu b + g / d,\ \theta \leftarrow \theta - \gamma b\ (\mu > 0),\qquad
        \theta \leftarrow \theta - \gamma g / d\ (\mu = 0)

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``1e-2``.
        alpha (float): smoothing :math:`\alpha \ge 0`. Default: ``0.99``.
        eps (float): > 0. Default: ``1e-8``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.
        momentum (float): :math:`\mu \ge 0`. Default: ``0.``.
        centered (bool): normalise by the estimated variance. Default: ``False``.
        maximize (bool): Default: ``False``.

    State: ``mean_grad.<name>``, ``mean_square.<name>``, ``moment.<name>``.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False, maximize=False):
        check_at_least(lr, "lr", "RMSprop", inclusive=False)
        check_at_least(alpha, "alpha", "RMSprop")
        check_at_least(eps, "eps", "RMSprop", inclusive=False)
        check_at_least(momentum, "momentum", "RMSprop")
        check_at_least(weight_decay, "weight_decay", "RMSprop")
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                                  "centered": centered, "weight_decay": weight_decay,
                                  "maximize": maximize})
        self.add_state("mean_grad", "mean_grad")
        self.add_state("mean_square", "mean_square")
        self.add_state("moment", "moment")

    def construct(self, gradients):
        for group, lr, params, grads, part in self.groups(gradients):
            alpha, eps = f32(group["alpha"], group["eps"])
            momentum = group["momentum"]
            grads = self._decay_weight(group["weight_decay"], params, grads)
            for p, g, s, mg, b in zip(params, grads, self.mean_square[part],
                                      self.mean_grad[part], self.moment[part]):
                ops.assign(s, ops.addcmul(s * alpha, g, g, 1 - alpha))
                if group["centered"]:
                    ops.assign(mg, mg * alpha + g * (1 - alpha))
                    denom = ops.sqrt(ops.addcmul(s, mg, mg, -1.0)) + eps
                else:
                    denom = ops.sqrt(s) + eps
                if momentum > 0:
                    ops.assign(b, b * f32(momentum)[0] + g / denom)
                    ops.assign(p, p - b * lr)
                else:
                    ops.assign(p, p - lr * g / denom)
        return True
