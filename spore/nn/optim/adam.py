"""nn.Adam (bias correction through the step size) and nn.AdamWeightDecay (no bias
correction, decoupled decay)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ._checks import check_open_unit_interval, check_positive_float, check_type
from ..._prims.optim_prims import adam_weight_decay_p
from ._updates import adam_p
from .optimizer import Optimizer

__all__ = ["Adam", "AdamWeightDecay"]


def _check_betas_eps(beta1, beta2, eps, cls_name):
    check_open_unit_interval(beta1, "beta1", cls_name)
    check_open_unit_interval(beta2, "beta2", cls_name)
    check_type("eps", eps, float, cls_name)
    check_positive_float(eps, "eps", cls_name)


class Adam(Optimizer):
    r"""Adam, MindSpore's form: the bias correction is folded into the step size and
    :math:`\epsilon` is added to the uncorrected :math:`\sqrt{v}`.

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g, \quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,
        \quad p \leftarrow p - lr \frac{\sqrt{1-\beta_2^t}}{1-\beta_1^t}
        \frac{m}{\sqrt{v} + \epsilon}

    ``use_nesterov`` replaces :math:`m` in the step by :math:`\beta_1 m + (1-\beta_1) g`;
    ``use_amsgrad`` divides by :math:`\sqrt{\hat v} + \epsilon` with
    :math:`\hat v = \max(\hat v, v)`. ``weight_decay`` is L2 (added to the gradient).

    Args:
        params, learning_rate, weight_decay, loss_scale: see :class:`Optimizer`.
        beta1, beta2 (float): in (0, 1). Defaults: ``0.9``, ``0.999``.
        eps (float): > 0. Default: ``1e-8``.
        use_locking (bool): accepted for compatibility.
        use_nesterov (bool), use_amsgrad (bool): variants above.
        kwargs: ``use_lazy`` / ``use_offload`` (bool); with dense gradients they compute the
            same update.

    State: ``moment1.<name>``, ``moment2.<name>`` (``vhat.<name>`` with AMSGrad) and the 0-d
    Parameters ``beta1_power``, ``beta2_power``.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        name = self.cls_name
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are "
                           f"'use_lazy' and'use_offload', but got {kwargs.keys()}.")
        use_lazy = kwargs.get("use_lazy", False)
        use_offload = kwargs.get("use_offload", False)
        _check_betas_eps(beta1, beta2, eps, name)
        for arg, value in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                           ("use_amsgrad", use_amsgrad), ("use_lazy", use_lazy),
                           ("use_offload", use_offload)):
            check_type(arg, value, bool, name)
        if use_lazy and use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be True.But "
                             f"got use_lazy={use_lazy}, use_offload={use_offload}.")
        if use_amsgrad and (use_lazy or use_offload):
            raise ValueError("For lazy Adam and Adam with offload, there is no parameter named "
                             f"'use_amsgrad'.but got 'use_amsgrad'={use_amsgrad}.")
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.beta1_power = Parameter(Tensor(1.0, float32), name="beta1_power")
        self.beta2_power = Parameter(Tensor(1.0, float32), name="beta2_power")
        self.use_locking = use_locking
        self.use_nesterov = use_nesterov
        self.use_amsgrad = use_amsgrad
        self.use_lazy = use_lazy
        self.use_offload = use_offload
        self.moment1 = self.clone_state("moment1")
        self.moment2 = self.clone_state("moment2")
        if use_amsgrad:
            self.vhat = self.clone_state("vhat")

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        # beta powers are running float32 products, as in MindSpore (not beta ** t)
        beta1_power = ops.assign(self.beta1_power, self.beta1_power * self.beta1)
        beta2_power = ops.assign(self.beta2_power, self.beta2_power * self.beta2)
        vhats = self.vhat if self.use_amsgrad else (None,) * len(gradients)
        for param, m, v, vhat, lr, grad in zip(self.parameters, self.moment1, self.moment2,
                                               vhats, lrs, gradients):
            extra = () if vhat is None else (vhat,)
            adam_p(param, m, v, beta1_power, beta2_power, lr, self.beta1, self.beta2, self.eps,
                   grad, *extra, use_nesterov=self.use_nesterov)
        return (True,) * len(gradients)


class AdamWeightDecay(Optimizer):
    r"""Adam without bias correction and with decoupled weight decay (BERT's optimizer).

    .. math::
        m \leftarrow \beta_1 m + (1-\beta_1) g, \quad v \leftarrow \beta_2 v + (1-\beta_2) g^2,
        \quad p \leftarrow p - lr \left(\frac{m}{\sqrt{v} + \epsilon} + wd \cdot p\right)

    The decay term applies to parameters whose name has neither 'beta' nor 'gamma' (or,
    with groups, to groups whose ``weight_decay`` is > 0).

    Args:
        params, learning_rate, weight_decay: see :class:`Optimizer`.
        beta1, beta2 (float): in (0, 1). Defaults: ``0.9``, ``0.999``.
        eps (float): > 0. Default: ``1e-6``.

    Each step is one ``AdamWeightDecay`` primitive per parameter, as in MindSpore (decay
    0.0 where it does not apply), with MindSpore's CPU rounding (NOTE: [AdamWeightDecay
    in one pass] in spore/_prims/optim_prims.py).

    State: ``adam_m.<name>``, ``adam_v.<name>``.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas_eps(beta1, beta2, eps, self.cls_name)
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.moments1 = self.clone_state("adam_m")
        self.moments2 = self.clone_state("adam_v")

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        gradients = self.gradients_centralization(gradients)
        decay = self.get_weight_decay()
        decays = decay if self.is_group else (decay,) * len(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        for param, m, v, grad, lr, wd, flag in zip(self.parameters, self.moments1,
                                                   self.moments2, gradients, lrs, decays,
                                                   self.decay_flags):
            if grad.dtype != param.dtype:
                grad = ops.cast(grad, param.dtype)
            adam_weight_decay_p(param, m, v, lr, self.beta1, self.beta2, self.eps,
                                wd if flag else 0.0, grad)
        return (True,) * len(gradients)


class AdamOffload(Adam):
    """Adam whose moment estimates MindSpore keeps in host memory to save device memory;
    on Spore's CPU that is where every state lives, so it is :class:`Adam` with MindSpore's
    ``AdamOffload`` signature."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)
