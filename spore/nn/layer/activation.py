"""Activation cells: each is a thin Cell over one functional op (``spore.ops``)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ..cell import Cell

__all__ = ["RReLU", "ReLU", "ReLU6", "LeakyReLU", "PReLU", "ELU", "CELU", "SeLU", "GELU",
           "FastGelu", "SiLU", "Mish", "Sigmoid", "LogSigmoid", "Tanh", "Tanhshrink", "Hardtanh",
           "HSwish", "HSigmoid", "Softsign", "Softplus", "SoftShrink", "HShrink", "Threshold",
           "Softmax", "LogSoftmax", "Softmin", "Softmax2d", "GLU", "get_activation"]


class _Elementwise(Cell):
    """An activation applying ``self._fn(x)``."""

    _fn = None

    def construct(self, x):
        return type(self)._fn(x)


class ReLU(_Elementwise):
    """max(x, 0)."""
    _fn = staticmethod(ops.relu)


class ReLU6(_Elementwise):
    """min(max(x, 0), 6)."""
    _fn = staticmethod(ops.relu6)


class SiLU(_Elementwise):
    """x * sigmoid(x)."""
    _fn = staticmethod(ops.silu)


class Mish(_Elementwise):
    """x * tanh(softplus(x))."""
    _fn = staticmethod(ops.mish)


class Sigmoid(_Elementwise):
    """1 / (1 + exp(-x))."""
    _fn = staticmethod(ops.sigmoid)


class LogSigmoid(_Elementwise):
    """log(sigmoid(x))."""
    _fn = staticmethod(ops.logsigmoid)


class Tanh(_Elementwise):
    """tanh(x)."""
    _fn = staticmethod(ops.tanh)


class Tanhshrink(_Elementwise):
    """x - tanh(x)."""
    _fn = staticmethod(ops.tanhshrink)


class HSwish(_Elementwise):
    """Hard swish: x * relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardswish)


class HSigmoid(_Elementwise):
    """Hard sigmoid: relu6(x + 3) / 6."""
    _fn = staticmethod(ops.hardsigmoid)


class Softsign(_Elementwise):
    """x / (1 + |x|)."""
    _fn = staticmethod(ops.softsign)


class SeLU(_Elementwise):
    """Scaled ELU with the self-normalising constants."""
    _fn = staticmethod(ops.selu)


class FastGelu(_Elementwise):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    _fn = staticmethod(ops.fast_gelu)


class LeakyReLU(Cell):
    """x for x >= 0, alpha * x otherwise.

    Args:
        alpha (float): slope of the negative part. Default: ``0.2``.
    """

    def __init__(self, alpha=0.2):
        super().__init__()
        _check_number("LeakyReLU", "alpha", alpha)
        self.alpha = alpha

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise.

    Args:
        alpha (float): Default: ``1.0``.
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        _check_number("ELU", "alpha", alpha)
        self.alpha = alpha

    def construct(self, x):
        return ops.elu(x, self.alpha)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        alpha (float): Default: ``1.0``.
    """

    def __init__(self, alpha=1.0):
        super().__init__()
        _check_number("CELU", "alpha", alpha)
        self.alpha = alpha

    def construct(self, x):
        return ops.celu(x, self.alpha)


class GELU(Cell):
    """Gaussian error linear unit.

    Args:
        approximate (bool): use the tanh approximation (MindSpore's default). Default: ``True``.
    """

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"For 'GELU', the 'approximate' must be a bool, but got "
                            f"{type(approximate).__name__}.")
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, approximate="tanh" if self.approximate else "none")


class Hardtanh(Cell):
    """clip(x, min_val, max_val).

    Args:
        min_val (float): Default: ``-1.0``.
        max_val (float): Default: ``1.0``.
    """

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if min_val >= max_val:
            raise ValueError(f"For 'Hardtanh', 'max_val' must be greater than 'min_val', but got "
                             f"min_val={min_val} and max_val={max_val}.")
        self.min_val = min_val
        self.max_val = max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, linear above ``threshold`` (not in MindSpore 2.10's
    ``nn``; offered with ``mint.nn.Softplus``'s signature).

    Args:
        beta (float): Default: ``1``.
        threshold (float): Default: ``20``.
    """

    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class SoftShrink(Cell):
    """x - lambd for x > lambd, x + lambd for x < -lambd, 0 otherwise.

    Args:
        lambd (float): Default: ``0.5``.
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, x):
        return ops.softshrink(x, self.lambd)


class HShrink(Cell):
    """x where |x| > lambd, 0 otherwise.

    Args:
        lambd (float): Default: ``0.5``.
    """

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, x):
        return ops.hardshrink(x, self.lambd)


class Threshold(Cell):
    """x where x > threshold, ``value`` otherwise.

    Args:
        threshold (float): the cut-off.
        value (float): the replacement.
    """

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, x):
        return ops.threshold(x, self.threshold, self.value)


class PReLU(Cell):
    """x for x >= 0, w * x otherwise, with a learnt slope per channel (axis 1).

    Args:
        channel (int): number of slopes (1 or the number of channels). Default: ``1``.
        w (float, list, Tensor): initial slope(s). Default: ``0.25``.
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if not isinstance(channel, int) or isinstance(channel, bool) or channel < 1:
            raise ValueError(f"For 'PReLU', the 'channel' must be a positive int, but got "
                             f"{channel}.")
        if isinstance(w, (int, float)) and not isinstance(w, bool):
            w = Tensor([float(w)] * channel, float32)
        elif isinstance(w, list):
            w = Tensor(w, float32)
        if not isinstance(w, Tensor) or w.ndim != 1 or w.shape[0] != channel:
            raise ValueError(f"For 'PReLU', the 'w' must be a float or a 1-D Tensor of length "
                             f"{channel}.")
        self.channel = channel
        self.w = Parameter(w, name="a")

    def construct(self, x):
        w = self._cast_weight(self.w)
        if x.ndim >= 2 and self.channel > 1:
            w = ops.reshape(w, (self.channel,) + (1,) * (x.ndim - 2))
        return ops.where(x >= 0, x, x * w)


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along ``axis``.

    Args:
        axis (int, tuple): Default: ``-1``.
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(x, self.axis)


class LogSoftmax(Cell):
    """log(softmax(x)) along ``axis``, computed stably.

    Args:
        axis (int): Default: ``-1``.
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class Softmax2d(Cell):
    """Softmax over the channels (axis -3) of (C, H, W) or (N, C, H, W) inputs."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the in_shape must have 3 or 4 dims, but got "
                             f"{x.ndim}.")
        return ops.softmax(x, -3)


class GLU(Cell):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second half.

    Args:
        axis (int): the axis halved. Default: ``-1``.
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.dim = axis

    def construct(self, x):
        size = x.shape[self.dim]
        if size % 2:
            raise ValueError(f"For 'GLU', the size of axis {self.dim} must be even, but got "
                             f"{size}.")
        first, second = ops.split(x, size // 2, self.dim)
        return first * ops.sigmoid(second)


class Softmin(Cell):
    """softmax(-x) along ``axis``.

    Args:
        axis (int): Default: ``-1``.
    """

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmax(ops.neg(x), self.axis)


def _check_number(owner, arg, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{owner}', the type of '{arg}' must be float or int, but got "
                        f"{type(value).__name__}.")


_ACTIVATIONS = {
    "softmin": Softmin, "softmax": Softmax, "logsoftmax": LogSoftmax, "relu": ReLU,
    "relu6": ReLU6, "silu": SiLU, "tanh": Tanh, "tanhshrink": Tanhshrink,
    "hardtanh": Hardtanh, "gelu": GELU, "fast_gelu": FastGelu, "elu": ELU,
    "sigmoid": Sigmoid, "softsign": Softsign, "prelu": PReLU, "leakyrelu": LeakyReLU,
    "hswish": HSwish, "hsigmoid": HSigmoid, "logsigmoid": LogSigmoid,
    "softshrink": SoftShrink, "hshrink": HShrink, "mish": Mish,
}


def get_activation(name, prim_name=None):
    """A new activation cell by MindSpore's name (``'relu'``, ``'gelu'``, ...); None for None."""
    if name is None:
        return None
    if name not in _ACTIVATIONS:
        owner = f"For '{prim_name}', the" if prim_name else "The"
        raise KeyError(f"{owner} 'name' must be in {list(_ACTIVATIONS)}, but got {name}.")
    return _ACTIVATIONS[name]()


class RReLU(Cell):
    """Randomized leaky ReLU (``ops.rrelu``): negative elements are scaled by slopes drawn
    uniformly from [lower, upper] on every call (in training and evaluation, as MindSpore).

    Args:
        lower (float): Default: ``1/8``.
        upper (float): Default: ``1/3``.
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        from ...ops._nn.activation import check_rrelu_bounds
        check_rrelu_bounds("RReLU", lower, upper)
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'rrelu', the input must be a Tensor, but got {type(x)}.")
        return ops.rrelu(x, self.lower, self.upper)
