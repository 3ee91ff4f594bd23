"""nn.LARS: layer-wise adaptive rate scaling around another optimizer."""
from __future__ import annotations

import itertools

from ... import ops
from ..cell import Cell

__all__ = ["LARS"]


def _default_filter(param):
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Cell):
    r"""Wrap ``optimizer`` so each gradient it receives is first rescaled by
    ``ops.LARSUpdate``: :math:`g \leftarrow \lambda (g + \delta w)` with the trust ratio
    :math:`\lambda = \theta \|w\| / (\|g\| + \delta \|w\| + \epsilon)` (clipped to
    :math:`\min(\lambda / lr, 1)` with ``use_clip``), for the parameters ``lars_filter``
    accepts (by default those whose name has neither 'LayerNorm' nor 'bias'). The weight
    decay :math:`\delta` and learning rate are the wrapped optimizer's; its own weight decay
    is then left out, as LARS applies it.

    Args:
        optimizer (nn.Optimizer): the optimizer to wrap.
        epsilon (float): added to the denominator. Default ``1e-5``.
        coefficient (float): the trust coefficient :math:`\theta`. Default ``0.001``.
        use_clip (bool): clip the local rate. Default ``False``.
        lars_filter (Callable): which parameters get LARS.
    """

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_filter):
        super().__init__(auto_prefix=False)
        from ..optim.optimizer import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', the 'optimizer' must be an nn.Optimizer, but got "
                            f"{type(optimizer).__name__}.")
        if not callable(lars_filter):
            raise TypeError(f"For 'LARS', the 'lars_filter' must be callable, but got "
                            f"{type(lars_filter).__name__}.")
        self.opt = optimizer
        self.parameters = optimizer.parameters
        self.learning_rate = optimizer.learning_rate
        self.lars = ops.LARSUpdate(epsilon, coefficient, use_clip)
        self.lars_flag = tuple(bool(lars_filter(p)) for p in self.parameters)
        self.decay_flags = tuple(optimizer.decay_flags)
        self.exec_weight_decay = optimizer.exec_weight_decay
        optimizer.exec_weight_decay = False             # LARS adds the decay term itself

    def construct(self, gradients):
        opt = self.opt
        lrs = opt.lr_per_param()
        decay = opt.get_weight_decay()
        decays = decay if opt.is_group else itertools.repeat(decay)
        new = []
        for param, grad, lr, wd, use, flag in zip(self.parameters, gradients, lrs, decays,
                                                  self.lars_flag, self.decay_flags):
            if use:
                wd = wd if (flag and self.exec_weight_decay) else 0.0
                grad = self.lars(param, grad, ops.square(param).sum(), ops.square(grad).sum(),
                                 wd, lr)
            new.append(grad)
        return opt(tuple(new))
