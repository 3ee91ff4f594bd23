"""More regression losses: MAELoss, RMSELoss and the Gaussian and Poisson negative
log-likelihoods."""
from __future__ import annotations

import math

from ... import ops
from ..._dtype import uint8, uint16, uint32, uint64
from .loss import LossBase, MSELoss, _check_tensor

__all__ = ["MAELoss", "RMSELoss", "GaussianNLLLoss", "PoissonNLLLoss"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


class MAELoss(LossBase):
    """|logits − label|, reduced.

    Args:
        reduction (str): Default ``'mean'``.
    """

    def construct(self, logits, label):
        _check_tensor("logits", logits, "MAELoss")
        _check_tensor("labels", label, "MAELoss")
        return self.get_loss(ops.abs(logits - label))


class RMSELoss(LossBase):
    """sqrt(mean((logits − label)²))."""

    def __init__(self):
        super().__init__()
        self.mse = MSELoss()

    def construct(self, logits, label):
        for arg, x in (("logits", logits), ("label", label)):
            if x.dtype in (uint8, uint16, uint32, uint64):
                raise TypeError(f"For 'RMSELoss', the dtype of '{arg}' can not be unsigned, "
                                f"but got {x.dtype}.")
        return ops.sqrt(self.mse(logits, label))


class GaussianNLLLoss(LossBase):
    """0.5·(log(max(var, eps)) + (logits − labels)² / max(var, eps)) (+ 0.5·log(2π) when
    ``full``), reduced.

    Args:
        full (bool): add the constant term. Default ``False``.
        eps (float): lower bound of ``var``. Default ``1e-6``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(full, bool):
            raise TypeError(f"For 'GaussianNLLLoss', the 'full' must be bool, but got "
                            f"{type(full).__name__}.")
        if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps > 0:
            raise ValueError(f"For 'GaussianNLLLoss', the 'eps' must be a float in (0, inf), "
                             f"but got {eps}.")
        self.full = full
        self.eps = float(eps)

    def construct(self, logits, labels, var):
        for arg, x in (("logits", logits), ("labels", labels), ("var", var)):
            _check_tensor(arg, x, "GaussianNLLLoss")
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(LossBase):
    """exp(input) − target·input (``log_input``) or input − target·log(input + eps),
    plus Stirling's approximation of log(target!) for targets > 1 when ``full``, reduced.

    Args:
        log_input (bool): ``input`` is the log of the rate. Default ``True``.
        full (bool): Default ``False``.
        eps (float): Default ``1e-8``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, log_input=True, full=False, eps=1e-8, reduction="mean"):
        super().__init__(reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def construct(self, input, target):
        _check_tensor("input", input, "PoissonNLLLoss")
        _check_tensor("target", target, "PoissonNLLLoss")
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.exp(input) - target * input
        else:
            loss = input - target * ops.log(input + self.eps)
        if self.full:
            t = ops.maximum(target, self.eps)
            stirling = (t + 0.5) * ops.log(t) - t + _HALF_LOG_2PI
            loss = loss + ops.where(t > 1, stirling, ops.zeros_like(stirling))
        return self.get_loss(loss)
