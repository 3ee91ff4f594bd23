"""nn.Adagrad."""
from __future__ import annotations

from ... import ops
from ._checks import check_non_negative_float, check_type
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad (MindSpore's ApplyAdagrad; no epsilon):

    .. math::
        h \leftarrow h + g^2, \quad p \leftarrow p - lr \frac{g}{\sqrt{h}}

    Args:
        params, learning_rate, loss_scale, weight_decay: see :class:`Optimizer`.
        accum (float): initial value of :math:`h`, >= 0. Default: ``0.1``.
        learning_rate: Default: ``0.001``.
        update_slots (bool): accumulate :math:`g^2` into :math:`h`. Default: ``True``.

    State: ``accum.<name>``.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        check_type("accum", accum, float, self.cls_name)
        check_type("update_slots", update_slots, bool, self.cls_name)
        check_non_negative_float(accum, "accum", self.cls_name)
        self.update_slots = update_slots
        self.accum = self.clone_state("accum", accum)

    def construct(self, grads):
        grads = self.preprocess(grads)
        lrs = self.lr_per_param()
        self.increment_step()
        for param, accum, lr, grad in zip(self.parameters, self.accum, lrs, grads):
            if self.update_slots:
                ops.assign(accum, accum + ops.square(grad))
            ops.assign(param, param - lr * grad / ops.sqrt(accum))
        return (True,) * len(grads)
