"""experimental.optim.SGD: MindSpore's ``ops.SGD`` kernel with PyTorch-style arguments."""
from __future__ import annotations

from ..._dtype import float32
from ..._tensor import Tensor
from ...nn.optim._updates import sgd_p
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay.

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad
        b \leftarrow \begin{cases} g & t = 1 \\ \mu b + (1-\tau) g & t > 1\end{cases},\quad
        \theta \leftarrow \theta - \gamma \cdot (g + \mu b \text{ if nesterov else } b)

    (without momentum, :math:`\theta \leftarrow \theta - \gamma g`).

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[int, float, Tensor]): learning rate :math:`\gamma` (required).
        momentum (Union[int, float]): :math:`\mu \ge 0`. Default: ``0``.
        dampening (Union[int, float]): :math:`\tau`. Default: ``0``.
        weight_decay (float): :math:`\lambda`. Default: ``0.``.
        nesterov (bool): needs ``momentum > 0`` and ``dampening == 0``. Default: ``False``.
        maximize (bool, keyword-only): Default: ``False``.

    State: ``accum.<name>`` (the momentum buffer) and ``stat.<name>`` (1 until the first step).
    """

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False,
                 *, maximize=False):
        _check_number_type("lr", lr, (float, int, Tensor))
        value = float(lr.asnumpy().reshape(-1)[0]) if isinstance(lr, Tensor) and lr.size == 1 else lr
        if not isinstance(value, Tensor) and value < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        _check_number_type("momentum", momentum, (int, float))
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        momentum = float(momentum)
        _check_number_type("nesterov", nesterov, (bool,))
        _check_number_type("maximize", maximize, (bool,))
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize, "grad_centralization": False})
        for group in self.param_groups:
            _check_number_type("dampening", group["dampening"], (int, float))
            group["dampening"] = float(group["dampening"])
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and "
                             f"'dampening' must equal to 0.0, but got 'momentum' {momentum}, "
                             f"'dampening' {dampening}")
        self.add_state("accum", "accum", 0.0)
        self.add_state("stat", "stat", 1.0)

    def construct(self, gradients):
        for group, lr, params, grads, part in self.groups(gradients):
            momentum = Tensor(float(group["momentum"]), float32)
            for p, g, accum, stat in zip(params, grads, self.accum[part], self.stat[part]):
                sgd_p(p, g, lr, accum, momentum, stat, dampening=group["dampening"],
                      weight_decay=float(group["weight_decay"]), nesterov=group["nesterov"])
        return True


def _check_number_type(name, value, types):
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        names = ", ".join(t.__name__ for t in types)
        raise TypeError(f"For 'SGD', the type of '{name}' should be one of [{names}], but got "
                        f"{type(value).__name__}.")
