"""Primitive classes of MindSpore's optimizer updates (``ops.ApplyAdagrad``,
``ops.SparseApplyFtrl``, ``ops.Adam``, ...): adapters over ``spore/_prims/optim_prims.py``
and the fused kernels of ``nn/optim/_updates.py`` (NOTE: [Update primitives]).

Each call updates its Parameters in place and returns them, as MindSpore documents: one
Tensor for the ops whose output is ``var``, else the tuple of updated state."""
from __future__ import annotations

from ..._prims import optim_prims as O
from ..._tensor import Tensor
from . import Primitive

__all__ = ["ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad", "ApplyAdagradV2", "ApplyAdagradDA",
           "ApplyAdamWithAmsgrad", "ApplyAdamWithAmsgradV2", "ApplyAddSign", "ApplyPowerSign",
           "ApplyFtrl", "ApplyGradientDescent", "ApplyKerasMomentum", "ApplyProximalAdagrad",
           "ApplyProximalGradientDescent", "SparseApplyAdagrad", "SparseApplyAdagradV2",
           "SparseApplyAdadelta", "SparseApplyFtrl", "SparseApplyFtrlV2",
           "SparseApplyProximalAdagrad", "SparseApplyRMSProp", "FusedSparseAdam",
           "FusedSparseLazyAdam", "FusedSparseFtrl", "FusedSparseProximalAdagrad", "Adam",
           "AdamWeightDecay", "AdamNoUpdateParam", "SGD", "LARSUpdate"]


def _check_type(op, arg, value, types, what):
    if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
        raise TypeError(f"For '{op}', the '{arg}' must be {what}, but got "
                        f"{type(value).__name__}.")
    return value


def _float(op, arg, value):
    return float(_check_type(op, arg, value, (float, int), "a float"))


def _bool(op, arg, value):
    return _check_type(op, arg, value, (bool,), "a bool")


class _Update(Primitive):
    """An update primitive: ``_prim`` over the call's arguments with ``_attrs()``;
    ``_returns`` lists the argument positions returned (the first written one is the
    primitive's own result)."""
    _prim_name = ""
    _returns = (0,)
    _n_args = 0

    def _attrs(self):
        return {}

    def _primitive(self):
        return O.UPDATES[self._prim_name]

    def __call__(self, *args):
        name = type(self).__name__
        if len(args) != self._n_args:
            raise TypeError(f"For '{name}', {self._n_args} inputs are required, but got "
                            f"{len(args)}.")
        for i in self._returns:
            if not isinstance(args[i], Tensor):
                raise TypeError(f"For '{name}', the input {i} must be a Parameter or Tensor, "
                                f"but got {type(args[i]).__name__}.")
        first = self._primitive()(*args, **self._attrs())
        outs = tuple(first if i == self._returns[0] else args[i] for i in self._returns)
        return outs[0] if len(outs) == 1 else outs


def _update_class(name, prim_name, n_args, returns, doc):
    return type(name, (_Update,), {"_prim_name": prim_name, "_n_args": n_args,
                                   "_returns": returns, "__doc__": doc,
                                   "__init__": _init_locking})


def _init_locking(self, use_locking=False):
    Primitive.__init__(self)
    self.use_locking = _bool(type(self).__name__, "use_locking", use_locking)


ApplyAdaMax = _update_class(
    "ApplyAdaMax", "ApplyAdaMax", 9, (0, 1, 2),
    r"""``ApplyAdaMax()(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad)``:
    :math:`m = \beta_1 m + (1-\beta_1) g`, :math:`v = \max(\beta_2 v, |g|)`,
    :math:`var \mathrel{-}= \frac{lr}{1-\beta_1^t} \frac{m}{v + \epsilon}`; returns
    ``(var, m, v)``.""")
ApplyAdadelta = _update_class(
    "ApplyAdadelta", "ApplyAdadelta", 7, (0, 1, 2),
    """``ApplyAdadelta()(var, accum, accum_update, lr, rho, epsilon, grad)``: one Adadelta
    step in place; returns ``(var, accum, accum_update)``.""")
ApplyAddSign = _update_class(
    "ApplyAddSign", "ApplyAddSign", 7, (0, 1),
    """``ApplyAddSign()(var, m, lr, alpha, sign_decay, beta, grad)``: ``m = beta*m +
    (1-beta)*g``; ``var -= lr * (alpha + sign_decay*sign(g)*sign(m)) * g``; returns
    ``(var, m)``.""")
ApplyPowerSign = _update_class(
    "ApplyPowerSign", "ApplyPowerSign", 7, (0, 1),
    """``ApplyPowerSign()(var, m, lr, logbase, sign_decay, beta, grad)``: ``m = beta*m +
    (1-beta)*g``; ``var -= lr * exp(logbase*sign_decay*sign(g)*sign(m)) * g``; returns
    ``(var, m)``.""")
ApplyAdagradDA = _update_class(
    "ApplyAdagradDA", "ApplyAdagradDA", 8, (0,),
    """``ApplyAdagradDA()(var, gradient_accumulator, gradient_squared_accumulator, grad, lr,
    l1, l2, global_step)``: dual-averaging Adagrad; both accumulators are updated in place;
    returns ``var``.""")
ApplyFtrl = _update_class(
    "ApplyFtrl", "ApplyFtrl", 8, (0,),
    """``ApplyFtrl()(var, accum, linear, grad, lr, l1, l2, lr_power)``: one FTRL-proximal
    step (``accum`` and ``linear`` updated in place); returns ``var``.""")
ApplyProximalAdagrad = _update_class(
    "ApplyProximalAdagrad", "ApplyProximalAdagrad", 6, (0, 1),
    """``ApplyProximalAdagrad()(var, accum, lr, l1, l2, grad)``: ``accum += g*g``; the
    Adagrad step then the L1/L2 proximal map; returns ``(var, accum)``.""")
SparseApplyProximalAdagrad = _update_class(
    "SparseApplyProximalAdagrad", "SparseApplyProximalAdagrad", 7, (0, 1),
    """``SparseApplyProximalAdagrad()(var, accum, lr, l1, l2, grad, indices)``: proximal
    Adagrad on the rows ``indices`` of ``var``/``accum`` (row ``i`` of ``grad`` for row
    ``indices[i]``); returns ``(var, accum)``.""")
FusedSparseProximalAdagrad = _update_class(
    "FusedSparseProximalAdagrad", "SparseApplyProximalAdagrad", 7, (0, 1),
    """``FusedSparseProximalAdagrad()(var, accum, lr, l1, l2, grad, indices)``: the same
    update as ``SparseApplyProximalAdagrad``; returns ``(var, accum)``.""")


class ApplyGradientDescent(_Update):
    """``ApplyGradientDescent()(var, alpha, delta)``: ``var -= alpha * delta`` in place;
    returns ``var``."""
    _prim_name, _n_args, _returns = "ApplyGradientDescent", 3, (0,)


class ApplyProximalGradientDescent(_Update):
    """``ApplyProximalGradientDescent()(var, alpha, l1, l2, delta)``: the step
    ``var - alpha*delta`` then the proximal map ``sign(x) max(|x| - alpha*l1, 0) /
    (1 + alpha*l2)``; returns ``var``."""
    _prim_name, _n_args, _returns = "ApplyProximalGradientDescent", 5, (0,)


class ApplyAdagrad(_Update):
    """``ApplyAdagrad(update_slots=True)(var, accum, lr, grad)``: ``accum += g*g`` (unless
    ``update_slots`` is False); ``var -= lr * g / sqrt(accum)``; returns ``(var, accum)``."""
    _prim_name, _n_args, _returns = "ApplyAdagrad", 4, (0, 1)

    def __init__(self, update_slots=True):
        super().__init__()
        self.update_slots = _bool("ApplyAdagrad", "update_slots", update_slots)

    def _attrs(self):
        return {"update_slots": self.update_slots}


class ApplyAdagradV2(_Update):
    """``ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad)``: as
    ``ApplyAdagrad`` with ``var -= lr * g / (sqrt(accum) + epsilon)``; returns
    ``(var, accum)``."""
    _prim_name, _n_args, _returns = "ApplyAdagradV2", 4, (0, 1)

    def __init__(self, epsilon, update_slots=True):
        super().__init__()
        self.epsilon = _float("ApplyAdagradV2", "epsilon", epsilon)
        self.update_slots = _bool("ApplyAdagradV2", "update_slots", update_slots)

    def _attrs(self):
        return {"update_slots": self.update_slots, "epsilon": self.epsilon}


class ApplyAdamWithAmsgrad(_Update):
    """``ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8)(var, m, v, vhat,
    beta1_power, beta2_power, lr, grad)``: Adam whose denominator uses the running maximum
    ``vhat`` of ``v``; returns ``(var, m, v, vhat)``."""
    _prim_name, _n_args, _returns = "ApplyAdamWithAmsgrad", 8, (0, 1, 2, 3)

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        super().__init__()
        self.beta1 = _float("ApplyAdamWithAmsgrad", "beta1", beta1)
        self.beta2 = _float("ApplyAdamWithAmsgrad", "beta2", beta2)
        self.epsilon = _float("ApplyAdamWithAmsgrad", "epsilon", epsilon)
        self.use_locking = _bool("ApplyAdamWithAmsgrad", "use_locking", use_locking)

    def _attrs(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}


ApplyAdamWithAmsgradV2 = _update_class(
    "ApplyAdamWithAmsgradV2", "ApplyAdamWithAmsgradV2", 11, (0, 1, 2, 3),
    """``ApplyAdamWithAmsgradV2()(var, m, v, vhat, beta1_power, beta2_power, lr, beta1,
    beta2, epsilon, grad)``: ``ApplyAdamWithAmsgrad`` with the betas and epsilon as inputs;
    returns ``(var, m, v, vhat)``.""")


class ApplyKerasMomentum(_Update):
    """``ApplyKerasMomentum(use_locking=False, use_nesterov=False)(var, accum, lr, grad,
    momentum)``: ``accum = accum*momentum - lr*g``; ``var += accum`` (Nesterov: ``var +=
    accum*momentum - lr*g``); returns ``(var, accum)``."""
    _prim_name, _n_args, _returns = "ApplyKerasMomentum", 5, (0, 1)

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        self.use_locking = _bool("ApplyKerasMomentum", "use_locking", use_locking)
        self.use_nesterov = _bool("ApplyKerasMomentum", "use_nesterov", use_nesterov)

    def _attrs(self):
        return {"use_nesterov": self.use_nesterov}


class SparseApplyAdagrad(_Update):
    """``SparseApplyAdagrad(lr, update_slots=True)(var, accum, grad, indices)``: Adagrad on
    the rows ``indices`` (row ``i`` of ``grad`` for row ``indices[i]``; duplicate indices
    add their rows); returns ``(var, accum)``."""
    _prim_name, _n_args, _returns = "SparseApplyAdagrad", 4, (0, 1)

    def __init__(self, lr, update_slots=True, use_locking=False):
        super().__init__()
        name = type(self).__name__
        self.lr = _float(name, "lr", lr)
        self.update_slots = _bool(name, "update_slots", update_slots)
        self.use_locking = _bool(name, "use_locking", use_locking)

    def _attrs(self):
        return {"lr": self.lr, "update_slots": self.update_slots}


class SparseApplyAdagradV2(SparseApplyAdagrad):
    """``SparseApplyAdagradV2(lr, epsilon, use_locking=False, update_slots=True)(var, accum,
    grad, indices)``: as ``SparseApplyAdagrad`` with ``sqrt(accum) + epsilon`` as the
    denominator; returns ``(var, accum)``."""

    def __init__(self, lr, epsilon, use_locking=False, update_slots=True):
        super().__init__(lr, update_slots, use_locking)
        self.epsilon = _float("SparseApplyAdagradV2", "epsilon", epsilon)

    def _attrs(self):
        return dict(super()._attrs(), epsilon=self.epsilon)


class SparseApplyAdadelta(_Update):
    """``SparseApplyAdadelta(epsilon)(var, accum, accum_update, lr, rho, grad, indices)``:
    Adadelta on the indexed rows; returns ``(var, accum, accum_update)``."""
    _prim_name, _n_args, _returns = "SparseApplyAdadelta", 7, (0, 1, 2)

    def __init__(self, epsilon, use_locking=False):
        super().__init__()
        self.epsilon = _float("SparseApplyAdadelta", "epsilon", epsilon)
        self.use_locking = _bool("SparseApplyAdadelta", "use_locking", use_locking)

    def _attrs(self):
        return {"epsilon": self.epsilon}


class SparseApplyFtrl(_Update):
    """``SparseApplyFtrl(lr, l1, l2, lr_power)(var, accum, linear, grad, indices)``: FTRL on
    the indexed rows; returns ``(var, accum, linear)``."""
    _prim_name, _n_args, _returns = "SparseApplyFtrl", 5, (0, 1, 2)

    def __init__(self, lr, l1, l2, lr_power, use_locking=False):
        super().__init__()
        name = type(self).__name__
        self.lr, self.l1 = _float(name, "lr", lr), _float(name, "l1", l1)
        self.l2, self.lr_power = _float(name, "l2", l2), _float(name, "lr_power", lr_power)
        self.use_locking = _bool(name, "use_locking", use_locking)
        if self.lr <= 0:
            raise ValueError(f"For '{name}', the 'lr' must be positive, but got {lr}.")
        if self.l1 < 0 or self.l2 < 0:
            raise ValueError(f"For '{name}', the 'l1' and 'l2' must be non-negative, but got "
                             f"{l1} and {l2}.")
        if self.lr_power > 0:
            raise ValueError(f"For '{name}', the 'lr_power' must be <= 0, but got {lr_power}.")

    def _attrs(self):
        return {"lr": self.lr, "l1": self.l1, "l2": self.l2, "lr_power": self.lr_power}


class FusedSparseFtrl(SparseApplyFtrl):
    """``FusedSparseFtrl(lr, l1, l2, lr_power)(var, accum, linear, grad, indices)``: the
    update of ``SparseApplyFtrl``; returns ``(var, accum, linear)``."""


class SparseApplyFtrlV2(SparseApplyFtrl):
    """``SparseApplyFtrlV2(lr, l1, l2, l2_shrinkage, lr_power)(var, accum, linear, grad,
    indices)``: FTRL whose linear term sees ``g + 2*l2_shrinkage*var``; returns
    ``(var, accum, linear)``."""

    def __init__(self, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
        super().__init__(lr, l1, l2, lr_power, use_locking)
        self.l2_shrinkage = _float("SparseApplyFtrlV2", "l2_shrinkage", l2_shrinkage)

    def _attrs(self):
        return dict(super()._attrs(), l2_shrinkage=self.l2_shrinkage)


class SparseApplyRMSProp(_Update):
    """``SparseApplyRMSProp(rho, momentum, epsilon)(var, ms, mom, lr, grad, indices)``:
    RMSProp on the indexed rows; returns ``(var, ms, mom)``."""
    _prim_name, _n_args, _returns = "SparseApplyRMSProp", 6, (0, 1, 2)

    def __init__(self, rho, momentum, epsilon, use_locking=False):
        super().__init__()
        name = "SparseApplyRMSProp"
        self.rho, self.momentum = _float(name, "rho", rho), _float(name, "momentum", momentum)
        self.epsilon = _float(name, "epsilon", epsilon)
        self.use_locking = _bool(name, "use_locking", use_locking)

    def _attrs(self):
        return {"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon}


class _AdamLike(_Update):
    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__()
        name = type(self).__name__
        self.use_locking = _bool(name, "use_locking", use_locking)
        self.use_nesterov = _bool(name, "use_nesterov", use_nesterov)

    def _attrs(self):
        return {"use_nesterov": self.use_nesterov}


class FusedSparseAdam(_AdamLike):
    """``FusedSparseAdam()(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
    grad, indices)``: Adam over every row, ``grad``'s rows the gradient of the indexed ones
    and zero elsewhere; returns ``(var, m, v)``."""
    _prim_name, _n_args, _returns = "FusedSparseAdam", 11, (0, 1, 2)


class FusedSparseLazyAdam(_AdamLike):
    """``FusedSparseLazyAdam()(...)``: as ``FusedSparseAdam`` but only the indexed rows of
    ``var``, ``m`` and ``v`` change; returns ``(var, m, v)``."""
    _prim_name, _n_args, _returns = "FusedSparseLazyAdam", 11, (0, 1, 2)


class AdamNoUpdateParam(_AdamLike):
    """``AdamNoUpdateParam()(m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
    grad)``: updates ``m`` and ``v`` as ``Adam`` and returns the step ``Adam`` would add to
    the weight (a new Tensor)."""
    _prim_name, _n_args, _returns = "AdamNoUpdateParam", 9, ()

    def __call__(self, *args):
        if len(args) != 9:
            raise TypeError(f"For 'AdamNoUpdateParam', 9 inputs are required, but got "
                            f"{len(args)}.")
        return self._primitive()(*args, **self._attrs())


class Adam(_AdamLike):
    """``Adam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power, beta2_power, lr,
    beta1, beta2, epsilon, grad)``: the fused Adam step of ``nn.Adam`` (bias correction
    through the step size); returns ``(var, m, v)``."""
    _n_args, _returns = 10, (0, 1, 2)

    def __call__(self, *args):
        # the fused kernel computes in the scalars' dtype: numbers become var's dtype
        if len(args) == self._n_args and isinstance(args[0], Tensor):
            args = args[:3] + tuple(a if isinstance(a, Tensor) else Tensor(a, args[0].dtype)
                                    for a in args[3:9]) + args[9:]
        return super().__call__(*args)

    def _primitive(self):
        from ...nn.optim._updates import adam_p
        return adam_p


class AdamWeightDecay(_Update):
    """``AdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon, decay,
    gradient)``: Adam without bias correction plus decoupled weight decay,
    ``var -= lr * (m / (sqrt(v) + epsilon) + decay * var)``; returns ``(var, m, v)``."""
    _prim_name, _n_args, _returns = "AdamWeightDecay", 9, (0, 1, 2)

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = _bool("AdamWeightDecay", "use_locking", use_locking)


class SGD(_Update):
    """``SGD(dampening=0.0, weight_decay=0.0, nesterov=False)(parameters, gradient,
    learning_rate, accum, momentum, stat)``: the fused step of ``nn.SGD`` (a ``stat`` > 0
    marks a first step, which takes the gradient undamped); returns ``parameters``."""
    _n_args, _returns = 6, (0,)

    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        super().__init__()
        self.dampening = _float("SGD", "dampening", dampening)
        self.weight_decay = _float("SGD", "weight_decay", weight_decay)
        self.nesterov = _bool("SGD", "nesterov", nesterov)
        if nesterov and self.dampening != 0:
            raise ValueError("For 'SGD', the 'dampening' must be 0 when 'nesterov' is True, "
                             f"but got {dampening}.")

    def _primitive(self):
        from ...nn.optim._updates import sgd_p
        return sgd_p

    def _attrs(self):
        return {"dampening": self.dampening, "weight_decay": self.weight_decay,
                "nesterov": self.nesterov}


class LARSUpdate(Primitive):
    r"""``LARSUpdate(epsilon=1e-5, hyperpara=0.001, use_clip=False)(weight, gradient,
    norm_weight, norm_gradient, weight_decay, learning_rate)``: the LARS gradient
    ``ratio * (gradient + weight_decay * weight)`` with the trust ratio
    :math:`\eta \|w\| / (\|g\| + \lambda \|w\| + \epsilon)` (``norm_*`` are sums of squares;
    1 when either norm is 0), clipped to ``min(ratio / learning_rate, 1)`` with
    ``use_clip``."""

    def __init__(self, epsilon=1e-5, hyperpara=0.001, use_clip=False):
        super().__init__()
        self.epsilon = _float("LARSUpdate", "epsilon", epsilon)
        self.hyperpara = _float("LARSUpdate", "hyperpara", hyperpara)
        self.use_clip = _bool("LARSUpdate", "use_clip", use_clip)

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay,
                 learning_rate):
        from ... import ops
        for arg, v in (("weight", weight), ("gradient", gradient), ("norm_weight", norm_weight),
                       ("norm_gradient", norm_gradient)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'LARSUpdate', the '{arg}' must be a Tensor, but got "
                                f"{type(v).__name__}.")
        if tuple(weight.shape) != tuple(gradient.shape):
            raise ValueError(f"For 'LARSUpdate', the 'gradient' must have the shape of 'weight' "
                             f"{list(weight.shape)}, but got {list(gradient.shape)}.")
        dt = weight.dtype
        wd = weight_decay if isinstance(weight_decay, Tensor) else Tensor(weight_decay, dt)
        lr = learning_rate if isinstance(learning_rate, Tensor) else Tensor(learning_rate, dt)
        w_norm = ops.sqrt(norm_weight.astype(dt).reshape(()))
        g_norm = ops.sqrt(norm_gradient.astype(dt).reshape(()))
        wd, lr = wd.astype(dt).reshape(()), lr.astype(dt).reshape(())
        ratio = self.hyperpara * w_norm / (g_norm + wd * w_norm + self.epsilon)
        ratio = ops.where((w_norm > 0) & (g_norm > 0), ratio, ops.ones_like(ratio))
        if self.use_clip:
            ratio = ops.minimum(ratio / lr, ops.ones_like(ratio))
        return (gradient + wd * weight) * ratio
