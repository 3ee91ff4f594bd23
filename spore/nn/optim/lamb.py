"""nn.Lamb: layer-wise adaptive moments (LAMB)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._tensor import Tensor
from .adam import _check_betas_eps
from .optimizer import Optimizer

__all__ = ["Lamb"]


class Lamb(Optimizer):
    r"""LAMB: a bias-corrected Adam direction scaled per parameter by a trust ratio.

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g, \quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,
        \quad r = \frac{m / (1-\beta_1^t)}{\sqrt{v / (1-\beta_2^t)} + \epsilon},
        \quad p \leftarrow p - lr \frac{\|p\|}{\|r + \lambda p\|} (r + \lambda p)

    with ``t`` the step number (1 at the first step); the trust ratio is 1 when either norm
    is 0. MindSpore's CPU build has no Lamb kernel; this is the update its documentation
    gives.

    Args:
        params, learning_rate, weight_decay: see :class:`Optimizer` (``learning_rate`` is
            required).
        beta1, beta2 (float): in (0, 1). Defaults: ``0.9``, ``0.999``.
        eps (float): > 0. Default: ``1e-6``.

    State: ``lamb_m.<name>``, ``lamb_v.<name>``.
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas_eps(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.params = self.parameters
        self.moments1 = self.clone_state("lamb_m")
        self.moments2 = self.clone_state("lamb_v")

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        decay = self.get_weight_decay()
        decays = decay if self.is_group else (decay,) * len(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        gradients = self.gradients_centralization(gradients)
        t = ops.reshape(ops.cast(self.global_step, float32), ())
        correction1 = 1.0 - ops.pow(self.beta1, t)
        correction2 = 1.0 - ops.pow(self.beta2, t)
        for param, m, v, grad, lr, wd, flag in zip(self.parameters, self.moments1,
                                                   self.moments2, gradients, lrs, decays,
                                                   self.decay_flags):
            next_m = ops.assign(m, self.beta1 * m + (1.0 - self.beta1) * grad)
            next_v = ops.assign(v, self.beta2 * v + (1.0 - self.beta2) * ops.square(grad))
            update = (next_m / correction1) / (ops.sqrt(next_v / correction2) + self.eps)
            if flag:
                update = update + wd * param
            ops.assign(param, param - lr * _trust_ratio(param, update) * update)
        return (True,) * len(gradients)


def _trust_ratio(param, update):
    w_norm = ops.sqrt(ops.sum(ops.square(param)))
    u_norm = ops.sqrt(ops.sum(ops.square(update)))
    both = ops.logical_and(w_norm > 0, u_norm > 0)
    return ops.where(both, w_norm / ops.where(both, u_norm, 1.0), 1.0)
