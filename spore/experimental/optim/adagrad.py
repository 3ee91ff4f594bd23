"""experimental.optim.Adagrad (MindSpore's ``ApplyAdagradV2`` update with lr decay)."""
from __future__ import annotations

from ... import ops
from .optimizer import Optimizer, check_at_least, f32, step_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad:

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad
        \tilde\gamma = \frac{\gamma}{1 + (t-1)\eta},\quad h \leftarrow h + g^2,\quad
        \theta \leftarrow \theta - \tilde\gamma \frac{g}{\sqrt{h} + \epsilon}

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): :math:`\gamma > 0`. Default: ``1e-2``.
        lr_decay (float): :math:`\eta \ge 0`. Default: ``0.``.
        weight_decay (float): :math:`\lambda \ge 0`. Default: ``0.``.
        initial_accumulator_value (float): the initial :math:`h`, >= 0. Default: ``0.``.
        eps (float): > 0. Default: ``1e-10``.
        maximize (bool, keyword-only): Default: ``False``.

    State: ``accum.<name>`` (:math:`h`) and ``step_t`` (steps taken before this one).
    """

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, *, maximize=False):
        check_at_least(lr, "lr", "Adagrad", inclusive=False)
        check_at_least(lr_decay, "lr_decay", "Adagrad")
        check_at_least(weight_decay, "weight_decay", "Adagrad")
        check_at_least(initial_accumulator_value, "initial_accumulator_value", "Adagrad")
        check_at_least(eps, "eps", "Adagrad", inclusive=False)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "maximize": maximize})
        self.add_state("accum", "accum", initial_accumulator_value)
        self.add_step_counter("step_t")

    def construct(self, gradients):
        for group, lr, params, grads, part in self.groups(gradients):
            lr_decay, eps = f32(group["lr_decay"], group["eps"])
            decayed_lr = lr / (1 + step_tensor(self.step_t) * lr_decay)
            grads = self._decay_weight(group["weight_decay"], params, grads)
            for p, g, h in zip(params, grads, self.accum[part]):
                ops.assign(h, h + g * g)
                ops.assign(p, p - decayed_lr * (g / (ops.sqrt(h) + eps)))
        self.count_step(self.step_t)
        return True
