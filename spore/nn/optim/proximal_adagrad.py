"""nn.ProximalAdagrad and nn.LazyAdam."""
from __future__ import annotations

from ... import ops
from ._checks import check_non_negative_float, check_type
from .adam import Adam
from .optimizer import Optimizer

__all__ = ["ProximalAdagrad", "LazyAdam"]


class ProximalAdagrad(Optimizer):
    r"""Adagrad followed by the proximal step of L1/L2 regularisation (MindSpore's
    ApplyProximalAdagrad):

    .. math::
        h \leftarrow h + g^2, \quad \eta = \frac{lr}{\sqrt{h}}, \quad v = p - \eta g, \quad
        p \leftarrow \frac{\mathrm{sign}(v)}{1 + \eta l_2} \max(|v| - \eta l_1, 0)

    (the proximal terms use the adapted rate :math:`\eta`, as MindSpore's kernel does).

    Args:
        params, learning_rate, loss_scale, weight_decay: see :class:`Optimizer`.
        accum (float): initial :math:`h`, >= 0. Default: ``0.1``.
        learning_rate: Default: ``0.001``.
        l1, l2 (float): >= 0. Default: ``0.0``.
        use_locking (bool): accepted for compatibility.

    State: ``accum.<name>``.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        for arg, value in (("accum", accum), ("l1", l1), ("l2", l2)):
            check_type(arg, value, float, name)
            check_non_negative_float(value, arg, name)
        check_type("use_locking", use_locking, bool, name)
        self.l1, self.l2, self.use_locking = l1, l2, use_locking
        self.accum = self.clone_state("accum", accum)

    def construct(self, grads):
        grads = self.preprocess(grads)
        lrs = self.lr_per_param()
        self.increment_step()
        for param, accum, lr, grad in zip(self.parameters, self.accum, lrs, grads):
            h = ops.assign(accum, accum + ops.square(grad))
            rate = lr / ops.sqrt(h)
            v = param - rate * grad
            shrunk = ops.maximum(ops.abs(v) - rate * self.l1, 0.0)
            ops.assign(param, ops.sign(v) * shrunk / (1 + rate * self.l2))
        return (True,) * len(grads)


class LazyAdam(Adam):
    """Adam that, for sparse gradients, updates only the rows present. Spore's gradients
    are dense, so every row is present and the update is :class:`Adam`'s (as MindSpore's
    LazyAdam computes for dense gradients).

    Args: as :class:`Adam` without ``use_amsgrad``.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)
