"""nn.ASGD (averaged SGD) and nn.Rprop (resilient back-propagation)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ._checks import check_type
from .optimizer import Optimizer

__all__ = ["ASGD", "Rprop"]


class ASGD(Optimizer):
    r"""Averaged stochastic gradient descent:

    .. math::
        p \leftarrow p (1 - \lambda \eta) - \eta g, \quad
        a \leftarrow a + (p - a) \mu \;(a \leftarrow p \text{ while } \mu = 1), \quad
        \eta \leftarrow \frac{lr}{(1 + \lambda \cdot lr \cdot t)^\alpha}, \quad
        \mu \leftarrow \frac{1}{\max(1, t - t_0)}

    with :math:`\eta = lr` at the first step and :math:`t` the step count.

    Args:
        params, learning_rate, weight_decay: see :class:`Optimizer`.
        learning_rate: Default: ``0.1``.
        lambd (float): decay term. Default: ``1e-4``.
        alpha (float): power of the :math:`\eta` update. Default: ``0.75``.
        t0 (float): step where averaging starts. Default: ``1e6``.

    State: ``eta_<name>``, ``mu_<name>`` (0-d) and the average ``ax_.<name>``.
    ``construct`` returns True.
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        name = self.cls_name
        for arg, value in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            check_type(arg, value, float, name)
        self.lambd, self.alpha, self.t0 = lambd, alpha, t0
        self.eta = [Parameter(Tensor(0.0, float32), name=f"eta_{p.name}")
                    for p in self.parameters]
        self.mu = [Parameter(Tensor(1.0, float32), name=f"mu_{p.name}")
                   for p in self.parameters]
        self.ax = self.clone_state("ax_")
        for i, (eta, mu) in enumerate(zip(self.eta, self.mu)):
            setattr(self, f"_eta{i}", eta)
            setattr(self, f"_mu{i}", mu)

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        step = ops.cast(self.global_step.reshape(()), float32)
        first = step == 1.0            # tensors, not host reads: the step compiles in Graph mode
        for param, eta, mu, ax, lr, grad in zip(self.parameters, self.eta, self.mu, self.ax, lrs,
                                                gradients):
            rate = ops.assign(eta, ops.where(first, ops.cast(lr, float32), eta))
            new = ops.assign(param, param * (1.0 - self.lambd * rate) - rate * grad)
            ops.assign(ax, ops.where(mu != 1.0, ax + (new - ax) * mu, new))
            ops.assign(eta, lr / ops.pow(1.0 + self.lambd * lr * step, self.alpha))
            ops.assign(mu, 1.0 / ops.maximum(Tensor(1.0, float32), step - self.t0))
        return True


def _pair_of_floats(value, arg, name):
    if not isinstance(value, tuple) or len(value) != 2:
        raise TypeError(f"For '{name}', the '{arg}' must be a tuple of 2 floats, but got "
                        f"{value!r}.")
    for v in value:
        check_type(arg, v, (float, int), name)
    return float(value[0]), float(value[1])


class Rprop(Optimizer):
    r"""Resilient back-propagation: each element keeps its own step size, grown by
    :math:`\eta_+` while the gradient keeps its sign and shrunk by :math:`\eta_-` when it
    flips (then that step is skipped and the gradient forgotten); the parameter moves by
    the step size against the gradient's sign. Step sizes start at the learning rate and
    stay within ``step_sizes``.

    Args:
        params, learning_rate, weight_decay: see :class:`Optimizer`.
        learning_rate: the initial step size. Default: ``0.1``.
        etas (tuple): :math:`(\eta_-, \eta_+)`, with 0 < eta_- < 1 < eta_+. Default:
            ``(0.5, 1.2)``.
        step_sizes (tuple): (minimal, maximal) step size. Default: ``(1e-6, 50.)``.

    State: ``prev.<name>`` (the last gradient kept) and ``step_size.<name>``. ``construct``
    returns True.
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
                 weight_decay=0.):
        super().__init__(learning_rate, params, weight_decay)
        name = self.cls_name
        minus, plus = _pair_of_floats(etas, "etas", name)
        if not 0 < minus < 1 < plus:
            raise ValueError(f"For '{name}', the etas should be in the range of (0, 1) and (1, "
                             f"inf), but got etas={etas}.")
        low, high = _pair_of_floats(step_sizes, "step_sizes", name)
        if not 0 <= low <= high:
            raise ValueError(f"For '{name}', the step_sizes must be 0 <= minimal <= maximal, but "
                             f"got step_sizes={step_sizes}.")
        self.etaminus, self.etaplus = minus, plus
        self.step_size_min, self.step_size_max = low, high
        self.prev = self.clone_state("prev")
        self.step_size = self.clone_state("step_size")

    def construct(self, gradients):
        gradients = self.preprocess(gradients)
        lrs = self.lr_per_param()
        self.increment_step()
        first = self.global_step.reshape(()) == 1
        for param, prev, step_size, lr, grad in zip(self.parameters, self.prev, self.step_size,
                                                    lrs, gradients):
            size = ops.where(first, ops.ones_like(step_size) * lr, step_size)
            agree = ops.sign(grad * prev)
            factor = ops.where(agree > 0, ops.full_like(grad, self.etaplus),
                               ops.where(agree < 0, ops.full_like(grad, self.etaminus),
                                         ops.ones_like(grad)))
            size = ops.clip_by_value(size * factor, self.step_size_min, self.step_size_max)
            kept = ops.where(agree < 0, ops.zeros_like(grad), grad)
            ops.assign(param, param - ops.sign(kept) * size)
            ops.assign(prev, kept)
            ops.assign(step_size, size)
        return True
