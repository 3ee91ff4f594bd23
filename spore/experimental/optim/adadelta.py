"""experimental.optim.Adadelta (MindSpore's ``ApplyAdadelta`` update)."""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, check_at_least, check_in_range

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta:

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad a \leftarrow \rho a + (1-\rho) g^2,\quad
        \Delta \leftarrow \frac{\sqrt{u + \epsilon}}{\sqrt{a + \epsilon}} g,\quad
        u \leftarrow \rho u + (1-\rho)\Delta^2,\quad \theta \leftarrow \theta - \gamma\Delta

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``1.0``.
        rho (float): in [0, 1]. Default: ``0.9``.
        eps (float): > 0. Default: ``1e-6``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.
        maximize (bool, keyword-only): Default: ``False``.

    State: ``accum.<name>`` (:math:`a`), ``accum_update.<name>`` (:math:`u`).
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        check_at_least(lr, "lr", "Adadelta", inclusive=False)
        check_at_least(eps, "eps", "Adadelta", inclusive=False)
        check_at_least(weight_decay, "weight_decay", "Adadelta")
        check_in_range(rho, "rho", "Adadelta", 0.0, 1.0, high_inclusive=True)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.add_state("accum", "accum")
        self.add_state("accum_update", "accum_update")

    def construct(self, gradients):
        for group, lr, params, grads, part in self.groups(gradients):
            rho, eps = group["rho"], group["eps"]
            grads = self._decay_weight(group["weight_decay"], params, grads)
            for p, g, a, u in zip(params, grads, self.accum[part], self.accum_update[part]):
                ops.assign(a, a * rho + ops.square(g) * (1 - rho))
                delta = ops.sqrt(u + eps) * g / ops.sqrt(a + eps)
                ops.assign(u, u * rho + ops.square(delta) * (1 - rho))
                ops.assign(p, p - lr * delta)
        return True
