"""experimental.optim.Rprop: resilient backpropagation (sign-based steps)."""
from __future__ import annotations


from ... import ops
from ..._dtype import float32
from ..._tensor import Tensor
from .optimizer import Optimizer, check_at_least, check_in_range

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop. Each element keeps its own step size :math:`s` (``lr`` at the first step):
    where the gradient keeps its sign :math:`s \leftarrow \min(\eta_+ s, s_{max})`, where it
    flips :math:`s \leftarrow \max(\eta_- s, s_{min})` and that gradient is taken as 0;
    then :math:`\theta \leftarrow \theta - \operatorname{sign}(g) s`.

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[float, Tensor]): the initial step size, > 0. Default: ``1e-2``.
        etas (tuple[float, float]): :math:`(\eta_-, \eta_+)`, :math:`0 < \eta_- < 1 < \eta_+`.
            Default: ``(0.5, 1.2)``.
        step_sizes (tuple[float, float]): :math:`(s_{min}, s_{max})`. Default: ``(1e-6, 50)``.
        maximize (bool, keyword-only): Default: ``False``.

    State: ``prev.<name>`` (the last gradient used), ``step_size.<name>``, ``step_t``.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 maximize=False):
        check_at_least(lr, "lr", "Rprop", inclusive=False)
        check_at_least(etas[1], "etas[1]", "Rprop", low=1.0, inclusive=False)
        check_in_range(etas[0], "etas[0]", "Rprop", 0.0, 1.0, low_inclusive=False)
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "maximize": maximize})
        self.add_state("prev", "prev")
        self.add_state("step_size", "step_size")
        self.add_step_counter("step_t")

    def construct(self, gradients):
        self.count_step(self.step_t)
        first = self.step_t == 1
        for group, lr, params, grads, part in self.groups(gradients):
            eta_minus, eta_plus = group["etas"]
            low, high = group["step_sizes"]
            minus, plus = Tensor(eta_minus, float32), Tensor(eta_plus, float32)
            for p, g, prev, size in zip(params, grads, self.prev[part], self.step_size[part]):
                size_now = ops.where(first, ops.ones_like(size) * lr, size)
                agreement = ops.sign(g * prev)
                factor = ops.where(agreement > 0, plus,
                                   ops.where(agreement < 0, minus, ops.ones_like(agreement)))
                new_size = ops.clamp(size_now * factor, low, high)
                ops.assign(size, new_size)
                g = ops.where(factor == minus, ops.zeros_like(g), g)
                ops.assign(prev, g)
                ops.assign(p, p - ops.sign(g) * new_size)
        return True


