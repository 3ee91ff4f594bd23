"""nn.AdaFactor (Shazeer & Stern 2018, "Adafactor: Adaptive Learning Rates with Sublinear
Memory Cost"), stepping through ``ops.FusedAdaFactor``'s update as MindSpore does on the CPU."""
from __future__ import annotations

import numpy as np

from ... import ops
from ..._dtype import float16
from ..._parameter import Parameter, ParameterTuple
from ..._tensor import Tensor
from ...ops._ops_a_optim import _adafactor_step
from ._checks import check_non_negative_float, check_type
from .optimizer import Optimizer

__all__ = ["AdaFactor"]


class AdaFactor(Optimizer):
    r"""Adafactor: a second moment kept as row and column means for parameters of rank
    >= 2 (full for vectors), updates clipped to RMS ``clip_threshold``.

    Each step t: :math:`\beta_{2,t} = 1 - t^{-decay\_rate}`; with ``relative_step`` the
    learning rate is :math:`\min(10^{-2}, 1/\sqrt{t})` (:math:`10^{-6} t` instead of
    :math:`10^{-2}` with ``warmup_init``); with ``scale_parameter`` it is multiplied by
    :math:`\max(\epsilon_2, RMS(p))`. ``beta1 > 0`` keeps a first moment, ``weight_decay``
    is decoupled (``p -= p * weight_decay * lr``). Gradients are used as given (no loss
    scaling), as MindSpore's AdaFactor.

    Args:
        params: see :class:`Optimizer`.
        learning_rate: None (``relative_step``) or a fixed rate / schedule (then
            ``relative_step=False``). Default: ``None``.
        eps (tuple[float, float]): :math:`(\epsilon_1, \epsilon_2)`. Default: ``(1e-30, 1e-3)``.
        clip_threshold (float): Default: ``1.0``. decay_rate (float): in (0, 1). Default:
            ``0.8``. beta1 (float): Default: ``0.9``. weight_decay (float): in [0, 1).
            Default: ``0.0``. scale_parameter, relative_step (bool): Default: ``True``.
            warmup_init (bool): Default: ``False``. compression (bool): keep vector second
            moments in Float16. Default: ``False``. loss_scale: Default: ``1.0``.

    State: ``exp_avg.<name>`` (first moment, when ``beta1 > 0``), ``exp_avg_sq_row_<name>``,
    ``exp_avg_sq_col_<name>`` and ``exp_avg_sq_<name>``, zeros; ``afactor_step``.
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
                 relative_step=True, warmup_init=False, compression=False, loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("For 'AdaFactor', a manual 'learning_rate' cannot be combined with "
                             "'relative_step'=True.")
        if warmup_init and not relative_step:
            raise ValueError("For 'AdaFactor', 'warmup_init' requires 'relative_step'=True.")
        if learning_rate is None and not relative_step:
            raise ValueError("For 'AdaFactor', 'learning_rate' cannot be None when "
                             "'relative_step' is False.")
        learning_rate = 0.0 if learning_rate is None else learning_rate
        beta1 = 0.0 if beta1 is None else beta1
        fixed_lr = isinstance(learning_rate, (float, int))
        super().__init__(learning_rate, params, 0.0, loss_scale)
        self._fixed_lr = fixed_lr
        name = self.cls_name
        check_type("eps", eps, (list, tuple), name)
        if len(eps) != 2:
            raise ValueError(f"For '{name}', the 'eps' must have 2 values (eps1, eps2), but got "
                             f"{len(eps)}.")
        for i, e in enumerate(eps):
            check_type(f"eps{i}", e, float, name)
            check_non_negative_float(e, f"eps{i}", name)
        check_type("clip_threshold", clip_threshold, float, name)
        check_non_negative_float(clip_threshold, "clip_threshold", name)
        check_type("decay_rate", decay_rate, float, name)
        if not 0.0 < decay_rate < 1.0:
            raise ValueError(f"For '{name}', the 'decay_rate' must be in (0, 1), but got "
                             f"{decay_rate}.")
        check_type("weight_decay", weight_decay, (float, int), name)
        if not 0.0 <= weight_decay < 1.0:
            raise ValueError(f"For '{name}', the 'weight_decay' must be in [0, 1), but got "
                             f"{weight_decay}.")
        for arg, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                       ("compression", compression)):
            check_type(arg, v, bool, name)
        check_type("beta1", beta1, (int, float), name)
        check_non_negative_float(float(beta1), "beta1", name)
        self.eps = (float(eps[0]), float(eps[1]))
        self.clip_threshold, self.decay_rate = float(clip_threshold), float(decay_rate)
        self.beta1, self.weight_decay_value = float(beta1), float(weight_decay)
        self.scale_parameter = scale_parameter and self._fixed_lr
        self.relative_step, self.warmup_init = relative_step, warmup_init
        self.compression = compression
        self.use_first_moment = self.beta1 > 0
        self._init_state()
        self.step = Parameter(Tensor(np.zeros((1,), np.float32)), name="afactor_step")

    def _init_state(self):
        """Moments per parameter: factored row/column means for rank >= 2, a full second
        moment otherwise (Float16 with ``compression``); unused slots are (1,) zeros."""
        if self.use_first_moment:
            self.exp_avg = self.clone_state("exp_avg")
        else:
            self.exp_avg = ParameterTuple(Parameter(Tensor(np.zeros((), np.float32)),
                                                    name=f"exp_avg_unused.{p.name}")
                                          for p in self.parameters)
        rows, cols, full = [], [], []
        for p in self.parameters:
            shape, dt = tuple(p.shape), p.dtype

            def zeros(s, d=dt, tag=""):
                return Parameter(ops.zeros(s, d), name=f"{tag}_{p.name}")
            if len(shape) > 1:
                rows.append(zeros(shape[:-1], tag="exp_avg_sq_row"))
                cols.append(zeros(shape[:-2] + shape[-1:], tag="exp_avg_sq_col"))
                full.append(zeros((1,), tag="exp_avg_sq"))
            else:
                rows.append(zeros((1,), tag="exp_avg_sq_row"))
                cols.append(zeros((1,), tag="exp_avg_sq_col"))
                full.append(zeros(shape, float16 if self.compression else dt, "exp_avg_sq"))
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(full)

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        lr = self.get_lr()
        self.increment_step()
        step = ops.assign_add(self.step, Tensor(np.ones((1,), np.float32))).reshape(())
        if self._fixed_lr and self.relative_step:
            min_step = step * 1e-6 if self.warmup_init else 1e-2
            lr = ops.minimum(min_step, ops.rsqrt(step))
        beta2t = 1.0 - ops.pow(step, -self.decay_rate)
        lrs = lr if isinstance(lr, tuple) else (lr,) * len(gradients)
        for i, (param, grad) in enumerate(zip(self.parameters, gradients)):
            _adafactor_step("AdaFactor", self.eps, self.clip_threshold, self.beta1, beta2t,
                            self.weight_decay_value, lrs[i], grad, param, self.exp_avg[i],
                            self.exp_avg_sq_row[i], self.exp_avg_sq_col[i], self.exp_avg_sq[i],
                            self.scale_parameter, self.use_first_moment,
                            bool(self.weight_decay_value))
        return True
