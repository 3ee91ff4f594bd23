"""nn.RMSProp (plain and centered)."""
from __future__ import annotations

from ._checks import check_non_negative_float, check_positive_float, check_type
from ._updates import apply_centered_rms_prop_p, apply_rms_prop_p
from .optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    r"""Root-mean-square propagation: each step is one fused ``ApplyRMSProp`` (or, centered,
    ``ApplyCenteredRMSProp``) per parameter, as in MindSpore.

    .. math::
        s \leftarrow \rho s + (1-\rho) g^2, \quad
        m \leftarrow \beta m + \frac{lr \cdot g}{\sqrt{s + \epsilon}}, \quad p \leftarrow p - m

    ``centered=True`` keeps :math:`\bar g \leftarrow \rho \bar g + (1-\rho) g` and uses
    :math:`\sqrt{s - \bar g^2 + \epsilon}`.

    Args:
        params, learning_rate, loss_scale, weight_decay: see :class:`Optimizer`.
        decay (float): :math:`\rho >= 0`. Default: ``0.9``.
        momentum (float): :math:`\beta >= 0`. Default: ``0.0``.
        epsilon (float): > 0. Default: ``1e-10``.
        use_locking (bool): accepted for compatibility.
        centered (bool): Default: ``False``.

    State: ``mean_square.<name>`` (ones), ``moment.<name>`` and, when centered,
    ``mean_grad.<name>``.
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        check_type("decay", decay, float, name)
        check_non_negative_float(decay, "decay", name)
        check_type("momentum", momentum, float, name)
        check_non_negative_float(momentum, "momentum", name)
        check_type("epsilon", epsilon, float, name)
        check_positive_float(epsilon, "epsilon", name)
        check_type("use_locking", use_locking, bool, name)
        check_type("centered", centered, bool, name)
        self.decay = decay
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        if centered:
            self.mg = self.clone_state("mean_grad")
        self.ms = self.clone_state("mean_square", 1.0)
        self.moment = self.clone_state("moment")

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        for i, (param, lr, grad) in enumerate(zip(self.parameters, lrs, gradients)):
            if self.centered:
                apply_centered_rms_prop_p(param, self.mg[i], self.ms[i], self.moment[i], grad, lr,
                                          self.decay, self.momentum, self.epsilon)
            else:
                apply_rms_prop_p(param, self.ms[i], self.moment[i], lr, grad, self.decay,
                                 self.momentum, self.epsilon)
        return (True,) * len(gradients)
