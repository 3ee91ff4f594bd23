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

__all__ = ["Roll", "Unfold", "ClipByNorm", "Dense", "Linear", "BiDense", "Flatten", "Unflatten",
           "Identity", "Dropout", "Dropout1d", "Dropout2d", "Upsample", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle"]


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


class Linear(Cell):
    r"""Fully connected layer with PyTorch's argument names: :math:`y = x W^T + b`.

    Args:
        in_features (int), out_features (int): last input / output dimension.
        bias (bool): Default: ``True``.
        weight_init, bias_init: as in Dense (``None``: U(-1/√in, 1/√in) for both).
        dtype: parameter dtype. Default: ``None`` (float32).
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        self.in_features = C.positive_int(in_features, "in_features", "Linear")
        self.out_features = C.positive_int(out_features, "out_features", "Linear")
        self.has_bias = C.boolean(bias, "has_bias", "Linear")
        dtype = float32 if dtype is None else dtype
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_features, in_features], dtype=dtype),
                                name="weight")
        self.bias = None
        if bias:
            if bias_init is None:
                bias_init = Uniform(scale=1 / math.sqrt(in_features))
            self.bias = Parameter(initializer(bias_init, [out_features], dtype=dtype), name="bias")

    def construct(self, x):
        return ops.dense(x, self.weight, self.bias)

    def extend_repr(self):
        s = f"input_features={self.in_features}, output_features={self.out_features}"
        return s + (f", has_bias={self.has_bias}" if self.has_bias else "")


class BiDense(Cell):
    r"""Bilinear layer: :math:`y_k = x_1^T A_k x_2 + b_k` with A of shape (out, in1, in2).

    Args:
        in1_channels (int), in2_channels (int), out_channels (int).
        weight_init, bias_init: Default: ``None`` = U(-1/√in1, 1/√in1).
        has_bias (bool): Default: ``True``.
        dtype: Default: ``mstype.float32``.

    Inputs:
        - **input1** (Tensor) - (*, in1_channels); **input2** (Tensor) - (*, in2_channels).
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=float32):
        super().__init__()
        self.in1_channels = C.positive_int(in1_channels, "in1_channels", "BiDense")
        self.in2_channels = C.positive_int(in2_channels, "in2_channels", "BiDense")
        self.out_channels = C.positive_int(out_channels, "out_channels", "BiDense")
        self.has_bias = C.boolean(has_bias, "has_bias", "BiDense")
        bound = 1 / math.sqrt(in1_channels)
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None else weight_init,
                                            (out_channels, in1_channels, in2_channels),
                                            dtype=dtype), name="weight")
        self.bias = None
        if has_bias:
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None else bias_init,
                                              [out_channels], dtype=dtype), name="bias")

    def construct(self, input1, input2):
        for arg, x, size in (("input1", input1, self.in1_channels),
                             ("input2", input2, self.in2_channels)):
            if x.shape[-1] != size:
                raise ValueError(f"For 'BiDense', the last dimension of '{arg}' must be {size}, "
                                 f"but got {x.shape[-1]}.")
        out = ops.einsum("...i,kij,...j->...k", input1, self.weight, input2)
        return out + self.bias if self.has_bias else out

    def extend_repr(self):
        s = (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
             f"output_channels={self.out_channels}")
        return s + (f", has_bias={self.has_bias}" if self.has_bias else "")


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


class Unflatten(Cell):
    """Split dimension ``axis`` into ``unflattened_size``.

    Args:
        axis (int): the dimension to split.
        unflattened_size (tuple, list): its new shape (product = its size).
    """

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', the 'axis' must be int, but got "
                            f"{type(axis).__name__}.")
        if not isinstance(unflattened_size, (list, tuple)):
            raise TypeError(f"For 'Unflatten', the 'unflattened_size' must be list or tuple, "
                            f"but got {type(unflattened_size).__name__}.")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)

    def construct(self, x):
        axis = self.axis % x.ndim
        shape = x.shape[:axis] + self.unflattened_size + x.shape[axis + 1:]
        return ops.reshape(x, shape)


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


class Upsample(Cell):
    """``ops.interpolate`` as a layer (same arguments)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)


class PixelShuffle(Cell):
    """(*, C·r², H, W) -> (*, C, H·r, W·r) (``ops.pixel_shuffle``)."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, x):
        return ops.pixel_shuffle(x, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(*, C, H·r, W·r) -> (*, C·r², H, W) (``ops.pixel_unshuffle``)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, x):
        return ops.pixel_unshuffle(x, self.downscale_factor)


class ChannelShuffle(Cell):
    """Interleave the channels of ``groups`` groups: (N, g·k, *) viewed as (N, g, k, *) and
    read as (N, k, g, *).

    Args:
        groups (int): number of groups; divides the channel count.
    """

    def __init__(self, groups):
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int):
            raise TypeError(f"For ChannelShuffle, the param `groups` must be int, but got "
                            f"{type(groups)}.")
        if groups < 1:
            raise ValueError(f"For ChannelShuffle, the param `groups` must be larger than 0, but "
                             f"got {groups}.")
        self.groups = groups

    def construct(self, x):
        n, c = x.shape[:2]
        if c % self.groups:
            raise ValueError(f"For ChannelShuffle, the number of channels {c} must be divisible "
                             f"by groups {self.groups}.")
        grouped = ops.reshape(x, (n, self.groups, c // self.groups, -1))
        return ops.reshape(ops.transpose(grouped, (0, 2, 1, 3)), x.shape)


class ClipByNorm(Cell):
    """Rescale ``x`` so its L2 norm over ``axis`` is at most ``clip_norm``:
    ``x * clip_norm / max(norm(x, axis), clip_norm)``.

    MindSpore 2.10's CPU build misplaces the per-row norms when ``axis`` is given; Spore
    follows the documented formula.

    Args:
        axis (int, tuple): the axes of the norm. Default ``None`` (all).
    """

    def __init__(self, axis=None):
        super().__init__()
        self.axis = axis

    def construct(self, x, clip_norm):
        norm = ops.sqrt(ops.sum(ops.square(x), self.axis, True))
        return x * clip_norm / ops.maximum(norm, clip_norm)


class Roll(Cell):
    """Shift elements cyclically by ``shift`` along ``axis`` (ints, or sequences of the
    same length); ``ops.roll`` as a layer. (MindSpore's CPU build has no kernel for it.)"""

    def __init__(self, shift, axis):
        super().__init__()
        shifts = tuple(shift) if isinstance(shift, (list, tuple)) else (shift,)
        axes = tuple(axis) if isinstance(axis, (list, tuple)) else (axis,)
        if len(shifts) != len(axes):
            raise ValueError(f"For 'Roll', the shape of 'shift' and the shape of 'axis' must be "
                             f"the same, but got the length of 'shift' {len(shifts)} and the "
                             f"length of 'axis' {len(axes)}.")
        for arg, values in (("shift", shifts), ("axis", axes)):
            for v in values:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError(f"For 'Roll', the '{arg}' must be int or a tuple/list of int, "
                                    f"but got {v!r}.")
        self.shift, self.axis = shifts, axes

    def construct(self, input_x):
        return ops.roll(input_x, self.shift, self.axis)


def _unfold_list(value, arg):
    if not isinstance(value, (list, tuple)) or len(value) != 4 or value[0] != 1 or \
            value[3] != 1 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                     for v in value):
        raise ValueError(f"For 'Unfold' the format of '{arg}' must be [1, {arg[:-1]}_row, "
                         f"{arg[:-1]}_col, 1], but got {value}.")
    return value[1], value[2]


class Unfold(Cell):
    """Image patches (MindSpore's ``ExtractImagePatches``): (N, C, H, W) ->
    (N, kh * kw * C, out_h, out_w), the patch of each output position laid out row by row,
    column by column, channels fastest.

    Args:
        ksizes, strides, rates (list): ``[1, row, col, 1]``: window size, its step, and the
            spacing of the sampled rows/columns inside the window.
        padding (str): ``'valid'`` (whole windows only) or ``'same'`` (output ``ceil(in /
            stride)``, zero padding split with the odd row/column at the end).
    """

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        self.ksizes = _unfold_list(ksizes, "ksizes")
        self.strides = _unfold_list(strides, "strides")
        self.rates = _unfold_list(rates, "rates")
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For 'Unfold', the 'padding' must be 'valid' or 'same', but got "
                             f"{padding!r}.")
        self.padding = padding.upper()

    def _pads(self, size, k, s, r):
        span = (k - 1) * r + 1
        if self.padding == "VALID":
            return 0, 0, (size - span) // s + 1
        out = -(-size // s)
        total = max((out - 1) * s + span - size, 0)
        return total // 2, total - total // 2, out

    def construct(self, input_x):
        if input_x.ndim != 4:
            raise ValueError(f"For 'Unfold', the input must be a 4-D tensor (N, C, H, W), but got "
                             f"shape {list(input_x.shape)}.")
        n, c, h, w = input_x.shape
        (kh, kw), (sh, sw), (rh, rw) = self.ksizes, self.strides, self.rates
        top, bottom, oh = self._pads(h, kh, sh, rh)
        left, right, ow = self._pads(w, kw, sw, rw)
        if oh <= 0 or ow <= 0:
            raise ValueError(f"For 'Unfold', the input {[h, w]} is smaller than the window "
                             f"{[(kh - 1) * rh + 1, (kw - 1) * rw + 1]}.")
        x = ops.pad(input_x, (left, right, top, bottom)) if top + bottom + left + right \
            else input_x
        cols = ops.unfold(x, (kh, kw), dilation=(rh, rw), stride=(sh, sw))   # (N, C*kh*kw, L)
        cols = ops.reshape(cols, (n, c, kh * kw, oh, ow))
        return ops.reshape(ops.transpose(cols, (0, 2, 1, 3, 4)), (n, kh * kw * c, oh, ow))
