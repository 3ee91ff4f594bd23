"""experimental.optim.Adam: MindSpore's Adam kernel (``ops.Adam``) with PyTorch-style
arguments, L2 weight decay and ``maximize``."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._tensor import Tensor
from ...nn.optim._updates import adam_p
from .optimizer import Optimizer, check_at_least, check_betas, step_tensor

__all__ = ["Adam"]


def _check_adam_args(cls_name, lr, betas, eps, weight_decay):
    """MindSpore's checks of Adam's and AdamW's arguments, in its order and words."""
    value = float(lr.asnumpy().reshape(-1)[0]) if isinstance(lr, Tensor) and lr.size == 1 \
        else lr
    for name, number in (("lr", value), ("eps", eps), ("weight_decay", weight_decay)):
        if not isinstance(number, Tensor):
            check_at_least(number, name, cls_name, low=float("-inf"))
    if not isinstance(value, Tensor) and value < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    check_betas(betas, cls_name)
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def beta_powers(beta1, beta2, step):
    """``beta1 ** t`` and ``beta2 ** t`` as float32 Tensors (``t`` a step counter)."""
    t = step_tensor(step)
    return (ops.pow(Tensor(beta1, float32), t), ops.pow(Tensor(beta2, float32), t))


class AdamBase(Optimizer):
    """What Adam and AdamW share: the checks, the group defaults, the moments
    (``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``) and the ``state_step`` counter."""

    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad, maximize):
        _check_adam_args(type(self).__name__, lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})
        self.add_state("exp_avg", "exp_avg")
        self.add_state("exp_avg_sq", "exp_avg_sq")
        self.add_state("max_exp_avg_sq", "max_exp_avg_sq")
        self.add_step_counter("state_step")


class Adam(AdamBase):
    r"""Adam in MindSpore's form: the bias corrections scale the step size and
    :math:`\epsilon` is added to :math:`\sqrt{v_t}` before it is corrected.

    .. math::
        g \leftarrow \pm g + \lambda\theta,\quad m \leftarrow \beta_1 m + (1-\beta_1) g,\quad
        v \leftarrow \beta_2 v + (1-\beta_2) g^2,\quad
        \theta \leftarrow \theta - \gamma\frac{\sqrt{1-\beta_2^t}}{1-\beta_1^t}
        \frac{m}{\sqrt{v}+\epsilon}

    With ``amsgrad=True`` the denominator uses :math:`\hat v = \max(\hat v, v)` (MindSpore
    2.10 accepts the flag but ignores it; see docs/compatibility.md).

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        lr (Union[int, float, Tensor]): learning rate :math:`\gamma`. Default: ``1e-3``.
        betas (tuple[float, float]): :math:`(\beta_1, \beta_2)` in [0, 1).
            Default: ``(0.9, 0.999)``.
        eps (float): Default: ``1e-8``.
        weight_decay (float): L2 penalty :math:`\lambda` added to the gradient. Default: ``0.``.
        amsgrad (bool): Default: ``False``.
        maximize (bool, keyword-only): ascend instead of descend. Default: ``False``.

    State: ``exp_avg.<name>``, ``exp_avg_sq.<name>``, ``max_exp_avg_sq.<name>`` and the
    step counter ``state_step``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)

    def construct(self, gradients):
        self.count_step(self.state_step)
        for group, lr, params, grads, part in self.groups(gradients):
            beta1, beta2 = group["betas"]
            b1_power, b2_power = beta_powers(beta1, beta2, self.state_step)
            grads = self._decay_weight(group["weight_decay"], params, grads)
            consts = (Tensor(beta1, float32), Tensor(beta2, float32),
                      Tensor(group["eps"], float32))
            vhats = self.max_exp_avg_sq[part] if group["amsgrad"] else (None,) * len(params)
            for p, g, m, v, vhat in zip(params, grads, self.exp_avg[part],
                                        self.exp_avg_sq[part], vhats):
                extra = () if vhat is None else (vhat,)
                adam_p(p, m, v, b1_power, b2_power, lr, *consts, g, *extra)
        return True
