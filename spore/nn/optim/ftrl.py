"""nn.FTRL: follow-the-regularized-leader (MindSpore's ApplyFtrl)."""
from __future__ import annotations

from ... import ops
from ._checks import check_positive_float, check_type
from .optimizer import Optimizer

__all__ = ["FTRL"]


class FTRL(Optimizer):
    r"""FTRL-proximal with L1/L2 regularization.

    .. math::
        n' = n + g^2, \quad z \leftarrow z + g - \frac{n'^{-c} - n^{-c}}{lr} p, \quad
        p \leftarrow \begin{cases} \frac{\operatorname{sign}(z) l_1 - z}{n'^{-c}/lr + 2 l_2}
        & |z| > l_1 \\ 0 & \text{otherwise} \end{cases}

    with :math:`c` = ``lr_power`` (<= 0) and :math:`n \leftarrow n'`.

    Args:
        params, loss_scale, weight_decay: see :class:`Optimizer` (weight decay applies to
            every parameter without groups).
        initial_accum (float): initial :math:`n`, >= 0. Default: ``0.1``.
        learning_rate (float): > 0, constant (no schedules or group rates). Default:
            ``0.001``.
        lr_power (float): <= 0. Default: ``-0.5``.
        l1, l2 (float): >= 0. Default: ``0.0``.
        use_locking (bool): accepted for compatibility.

    State: ``moments.<name>`` (:math:`n`) and ``linear.<name>`` (:math:`z`).
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError("For 'FTRL', dynamic learning rate and group learning rate are "
                             "currently not supported in FTRL, they should all be false, but got "
                             f"dynamic learning rate {self.dynamic_lr} and group learning rate "
                             f"{self.is_group_lr}.")
        _check_args(initial_accum, learning_rate, lr_power, l1, l2, use_locking, self.cls_name)
        if not self.is_group:
            self.decay_flags = (True,) * len(self.parameters)
        self.l1 = l1
        self.l2 = l2
        self.lr_power = lr_power
        self.moments = self.clone_state("moments", initial_accum)
        self.linear = self.clone_state("linear")

    def construct(self, grads):
        grads = self.preprocess(grads)
        lr = self.get_lr()
        self.increment_step()
        power = -self.lr_power
        for param, accum, linear, grad in zip(self.parameters, self.moments, self.linear, grads):
            accum_new = accum + ops.square(grad)
            scaled_new = ops.pow(accum_new, power)
            sigma = (scaled_new - ops.pow(accum, power)) / lr
            z = ops.assign(linear, linear + grad - sigma * param)
            quadratic = scaled_new / lr + 2.0 * self.l2
            shrunk = (ops.sign(z) * self.l1 - z) / quadratic
            ops.assign(param, ops.where(ops.abs(z) > self.l1, shrunk, 0.0))
            ops.assign(accum, accum_new)
        return (True,) * len(grads)


def _check_args(initial_accum, learning_rate, lr_power, l1, l2, use_locking, name):
    check_type("initial_accum", initial_accum, float, name)
    _check_bound("initial_accum", initial_accum, initial_accum >= 0.0, ">=", name)
    check_type("learning_rate", learning_rate, float, name)
    check_positive_float(learning_rate, "learning_rate", name)
    check_type("lr_power", lr_power, float, name)
    _check_bound("lr_power", lr_power, lr_power <= 0.0, "<=", name)
    check_type("l1", l1, float, name)
    _check_bound("l1", l1, l1 >= 0.0, ">=", name)
    check_type("l2", l2, float, name)
    _check_bound("l2", l2, l2 >= 0.0, ">=", name)
    check_type("use_locking", use_locking, bool, name)


def _check_bound(arg, value, ok, relation, name):
    if not ok:
        raise ValueError(f"For '{name}', the '{arg}' must be {relation} 0.0, but got {value}.")
