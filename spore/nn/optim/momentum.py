"""nn.Momentum: heavy-ball momentum with MindSpore's ApplyMomentum update."""
from __future__ import annotations

from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ._checks import check_type
from ._updates import apply_momentum_p
from .optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(Optimizer):
    r"""Momentum SGD.

    .. math::
        v \leftarrow \mu v + g, \qquad p \leftarrow p - lr \cdot v

    (``v`` starts at 0). With ``use_nesterov=True``: :math:`p \leftarrow p - lr (g + \mu v)`.
    MindSpore's CPU kernel ignores ``use_nesterov``; Spore applies the Nesterov update it
    documents.

    Args:
        params: Parameters or group dicts (see :class:`Optimizer`).
        learning_rate: see :class:`Optimizer`.
        momentum (float): :math:`\mu >= 0` (a Python float).
        weight_decay, loss_scale: see :class:`Optimizer`.
        use_nesterov (bool): Nesterov momentum. Default: ``False``.

    State: ``moments.<param name>``; ``momentum`` is a 0-d Parameter.

    Examples:
        >>> import numpy as np
        >>> import spore as ms
        >>> from spore import nn
        >>> w = ms.Parameter(ms.Tensor(np.array([1.0], np.float32)), name="w")
        >>> opt = nn.Momentum([w], learning_rate=0.1, momentum=0.9)
        >>> opt((ms.Tensor(np.array([1.0], np.float32)),))
        (True,)
        >>> w.asnumpy()
        array([0.9], dtype=float32)
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        check_type("momentum", momentum, float, self.cls_name)
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', the argument 'momentum' must be at least 0.0, but "
                             f"got {momentum}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"The input value must be a bool, but got "
                            f"{type(use_nesterov).__name__}.")
        self.momentum = Parameter(Tensor(momentum, float32), name="momentum")
        self.params = self.parameters
        self.use_nesterov = use_nesterov
        self.moments = self.clone_state("moments")

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        for param, moment, lr, grad in zip(self.parameters, self.moments, lrs, gradients):
            apply_momentum_p(param, moment, lr, grad, self.momentum,
                             use_nesterov=self.use_nesterov)
        return (True,) * len(gradients)
