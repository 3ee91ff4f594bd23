"""nn.Adadelta and nn.AdaMax (MindSpore's ApplyAdadelta / ApplyAdaMax updates)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ._checks import check_non_negative_float, check_open_unit_interval, check_positive_float, \
    check_type
from .optimizer import Optimizer

__all__ = ["Adadelta", "AdaMax"]


class Adadelta(Optimizer):
    r"""Adadelta:

    .. math::
        s \leftarrow \rho s + (1-\rho) g^2, \quad
        u = \sqrt{d + \epsilon} \frac{g}{\sqrt{s + \epsilon}}, \quad
        d \leftarrow \rho d + (1-\rho) u^2, \quad p \leftarrow p - lr \cdot u

    Args:
        params, learning_rate, loss_scale, weight_decay: see :class:`Optimizer`.
        learning_rate: Default: ``1.0``.
        rho (float): in [0, 1]. Default: ``0.9``.
        epsilon (float): >= 0. Default: ``1e-6``.

    State: ``accum.<name>`` (:math:`s`) and ``accum_update.<name>`` (:math:`d`), zeros.
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        check_type("rho", rho, float, name)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"For '{name}', the 'rho' must be in range of [0.0, 1.0], but got "
                             f"{rho} with type 'float'.")
        check_type("epsilon", epsilon, float, name)
        check_non_negative_float(epsilon, "epsilon", name)
        self.rho, self.epsilon = rho, epsilon
        self.accum = self.clone_state("accum")
        self.accum_update = self.clone_state("accum_update")

    def construct(self, grads):
        grads = self.preprocess(grads)
        lrs = self.lr_per_param()
        self.increment_step()
        rho, eps = self.rho, self.epsilon
        for param, accum, accum_update, lr, grad in zip(self.parameters, self.accum,
                                                        self.accum_update, lrs, grads):
            s = ops.assign(accum, accum * rho + ops.square(grad) * (1 - rho))
            update = ops.sqrt(accum_update + eps) * grad / ops.sqrt(s + eps)
            ops.assign(accum_update, accum_update * rho + ops.square(update) * (1 - rho))
            ops.assign(param, param - lr * update)
        return (True,) * len(grads)


class AdaMax(Optimizer):
    r"""AdaMax (Adam with the infinity norm):

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g, \quad v \leftarrow \max(\beta_2 v, |g|),
        \quad p \leftarrow p - \frac{lr}{1-\beta_1^t} \frac{m}{v + \epsilon}

    Args:
        params, learning_rate, weight_decay, loss_scale: see :class:`Optimizer`.
        learning_rate: Default: ``0.001``.
        beta1, beta2 (float): in (0, 1). Defaults: ``0.9``, ``0.999``.
        eps (float): > 0. Default: ``1e-8``.

    State: ``moment1.<name>``, ``moment2.<name>`` and the 0-d Parameter ``beta1_power``.
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        check_open_unit_interval(beta1, "beta1", name)
        check_open_unit_interval(beta2, "beta2", name)
        check_type("eps", eps, float, name)
        check_positive_float(eps, "eps", name)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.beta1_power = Parameter(Tensor(1.0, float32), name="beta1_power")
        self.moment1 = self.clone_state("moment1")
        self.moment2 = self.clone_state("moment2")

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        power = ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        for param, m, v, lr, grad in zip(self.parameters, self.moment1, self.moment2, lrs,
                                         gradients):
            m_new = ops.assign(m, m * self.beta1 + grad * (1 - self.beta1))
            v_new = ops.assign(v, ops.maximum(v * self.beta2, ops.abs(grad)))
            ops.assign(param, param - lr / (1 - power) * m_new / (v_new + self.eps))
        return (True,) * len(gradients)
