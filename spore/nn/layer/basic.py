"""Basic layers: Dense, Flatten, Identity and the Dropout family."""
from __future__ import annotations

import math
import warnings

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ...common.initializer import HeUniform, Uniform, initializer
from ...ops.operations import Primitive
from ..cell import Cell
from . import _checks as C
from .activation import get_activation

__all__ = ["Dense", "Flatten", "Identity", "Dropout", "Dropout1d", "Dropout2d"]


class Dense(Cell):
    r"""Fully connected layer: :math:`y = activation(x W^T + b)`.

    Args:
        in_channels (int): size of the last input dimension.
        out_channels (int): size of the last output dimension.
        weight_init: initializer (name, Initializer or Tensor) of the (out, in) weight.
            Default: ``None`` = HeUniform(√5), i.e. U(-1/√in, 1/√in).
        bias_init: initializer of the bias. Default: ``None`` = U(-1/√in, 1/√in).
        has_bias (bool): Default: ``True``.
        activation (str, Cell): applied to the output. Default: ``None``.
        dtype: parameter dtype. Default: ``mstype.float32``.

    Inputs:
        - **x** (Tensor) - shape (*, in_channels), same dtype as the weight.

    Outputs:
        Tensor of shape (*, out_channels).
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=float32):
        super().__init__()
        self.in_channels = C.positive_int(in_channels, "in_channels", "Dense")
        self.out_channels = C.positive_int(out_channels, "out_channels", "Dense")
        self.has_bias = C.boolean(has_bias, "has_bias", "Dense")
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_channels,
                                                                           in_channels):
            raise ValueError(
                "For 'Dense', weight init shape error. The ndim of 'weight_init' must be equal "
                "to 2, and the first dim must be equal to 'out_channels', and the second dim "
                f"must be equal to 'in_channels'. But got 'weight_init': {weight_init}, "
                f"'out_channels': {out_channels}, 'in_channels': {in_channels}.")
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype=dtype),
                                name="weight")
        self.bias = None
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(
                    "For 'Dense', bias init shape error. The ndim of 'bias_init' must be equal "
                    "to 1, and the first dim must be equal to 'out_channels'. But got "
                    f"'bias_init': {bias_init}, 'out_channels': {out_channels}.")
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype=dtype), name="bias")
        self.activation = get_activation(activation) if isinstance(activation, str) else activation
        if activation is not None and not isinstance(self.activation, (Cell, Primitive)):
            raise TypeError(f"For 'Dense', the 'activation' must be str or Cell or Primitive, "
                            f"but got {type(activation).__name__}.")
        self.activation_flag = self.activation is not None

    def construct(self, x):
        x = ops.dense(x, self._cast_weight(self.weight), self._cast_weight(self.bias))
        if self.activation_flag:
            x = self.activation(x)
        return x

    def extend_repr(self):
        s = (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
             f"has_bias={self.has_bias}")
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Flatten(Cell):
    """Merge dimensions ``start_dim`` .. ``end_dim`` into one.

    Args:
        start_dim (int): Default: ``1`` (keep the batch dimension).
        end_dim (int): Default: ``-1``.
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for arg, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'Flatten', the '{arg}' must be int, but got "
                                f"{type(v).__name__}.")
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        nd = max(x.ndim, 1)
        if not (-nd <= self.start_dim < nd and -nd <= self.end_dim < nd):
            raise ValueError("'start_dim' or 'end_dim' out of range.")
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Identity(Cell):
    """Returns its input; constructor arguments are accepted and ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, x):
        return x


_KEEP_PROB_DEPRECATED = ("For Dropout, this parameter `keep_prob` will be deprecated, please "
                         "use `p` instead.")


class Dropout(Cell):
    """Zero each element with probability ``p`` while training and scale the survivors by
    1/(1-p); the identity when ``training`` is False (the default).

    Args:
        keep_prob (float): probability of keeping an element (deprecated). Default: ``0.5``.
        p (float): probability of zeroing; wins over ``keep_prob``. Default: ``None``.
        dtype: kept for compatibility.
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=float32):
        super().__init__()
        if p is None:
            warnings.warn(_KEEP_PROB_DEPRECATED, stacklevel=2)
            if not isinstance(keep_prob, float):
                raise TypeError(f"For 'Dropout', the type of 'keep_prob' should be 'float', but "
                                f"got type '{type(keep_prob).__name__}'.")
            C.float_in(keep_prob, "keep_prob", 0, 1, "Dropout", closed=(False, True))
            self.keep_prob = keep_prob
            self.p = 1.0 - keep_prob
        else:
            C.float_in(p, "p", 0, 1, "Dropout", closed=(True, False))
            self.keep_prob = 1.0 - p
            self.p = p
        self._use_p = p is not None

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout(x, p=self.p, training=True)

    def extend_repr(self):
        return f"p={self.p}" if self._use_p else f"keep_prob={self.keep_prob}"


class Dropout1d(Cell):
    """Zero whole channels of (N, C, L) / (C, L) inputs with probability ``p`` while training.

    Args:
        p (float): Default: ``0.5``.
    """

    def __init__(self, p=0.5):
        super().__init__()
        C.float_in(p, "p", 0, 1, "Dropout1d")
        self.p = p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout1d(x, self.p, True)


class Dropout2d(Cell):
    """Zero whole channels of (N, C, H, W) inputs with probability ``p`` while training.

    Args:
        p (float): Default: ``0.5``.
    """

    def __init__(self, p=0.5):
        super().__init__()
        C.float_in(p, "p", 0, 1, "Dropout2d")
        self.p = p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout2d(x, self.p, True)
