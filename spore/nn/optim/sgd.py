"""nn.SGD: stochastic gradient descent with optional momentum, dampening and Nesterov."""
from __future__ import annotations

from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ._checks import check_type
from ._updates import sgd_p
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent (MindSpore's ``ops.SGD`` update).

    Without momentum :math:`p \leftarrow p - lr \cdot g`. With momentum :math:`\mu > 0` the
    first step sets :math:`v \leftarrow g` (no dampening) and later steps
    :math:`v \leftarrow \mu v + (1 - d) g`; then :math:`p \leftarrow p - lr \cdot v`, or
    :math:`p \leftarrow p - lr (g + \mu v)` with ``nesterov=True``.

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        learning_rate: see :class:`Optimizer`. Default: ``0.1``.
        momentum (float): :math:`\mu >= 0`. Default: ``0.0``.
        dampening (float): :math:`d >= 0`. Default: ``0.0``.
        weight_decay: see :class:`Optimizer`. Default: ``0.0``.
        nesterov (bool): needs ``momentum > 0`` and ``dampening == 0``. Default: ``False``.
        loss_scale: see :class:`Optimizer`. Default: ``1.0``.

    State: ``accum.<param name>`` (velocity, zeros) and ``stat.<param name>`` (ones until
    the first step); ``momentum`` is a 0-d Parameter.
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _float_arg("momentum", momentum)
        if momentum < 0.0:
            raise ValueError(f"For 'SGD', the argument 'momentum' must be at least 0.0, but got "
                             f"{momentum}.")
        dampening = _float_arg("dampening", dampening)
        if dampening < 0.0:
            raise ValueError(f"For 'SGD', the argument 'dampening' must be at least 0.0, but got "
                             f"'dampening' {dampening}")
        check_type("nesterov", nesterov, bool, self.cls_name)
        if nesterov and (momentum <= 0.0 or dampening != 0.0):
            raise ValueError("For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and "
                             f"'dampening' must equal to 0.0, but got 'momentum' {momentum}, "
                             f"'dampening' {dampening}.")
        if self.dynamic_weight_decay:
            raise TypeError("For 'SGD', dynamic weight decay is currently not supported, the "
                            "argument 'weight_decay' or 'weight_decay' set in grouped 'params' "
                            "must be float or int type.")
        self.dampening = dampening
        self.nesterov = nesterov
        self.momentum = Parameter(Tensor(momentum, float32), name="momentum")
        self.accum = self.clone_state("accum", 0.0)
        self.stat = self.clone_state("stat", 1.0)

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        for param, grad, lr, accum, stat in zip(self.parameters, gradients, lrs, self.accum,
                                                self.stat):
            sgd_p(param, grad, lr, accum, self.momentum, stat, dampening=self.dampening,
                  nesterov=self.nesterov)
        return (True,) * len(gradients)


def _float_arg(name, value):
    if isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, float):
        raise TypeError(f"For 'SGD', the argument '{name}' must be float type, but got "
                        f"{type(value)}.")
    return value
