"""softmax, log_softmax, softmin and dropout (MindSpore 2.10 signatures)."""
from __future__ import annotations

from ... import _random as R
from ..._core import primitive as P
from ..._prims import math as M
from ..._prims.array import cast_p
from ..._prims.nn import dropout_p, log_softmax_p, softmax_p
from ..._prims.nn.softmax import check_axis
from .._utils import public_functions, to_np_dtype
from ._args import is_int, probability, require_rank, require_tensor


def _axis(op, axis, x):
    if not is_int(axis):
        raise TypeError(f"For '{op}', the type of 'axis' must be 'int', but got '{axis}' with "
                        f"type '{type(axis).__name__}'.")
    require_tensor(op, "input", x)
    check_axis(op, int(axis), x.ndim)
    return int(axis) % x.ndim


def softmax(input, axis=-1, *, dtype=None):
    r"""Softmax along ``axis``: :math:`\exp(x_i) / \sum_j \exp(x_j)`, computed stably.

    Args:
        input (Tensor): floating-point input.
        axis (int): the axis to normalise. Default: ``-1``.
        dtype (mindspore.dtype, optional): cast the input to this type first.

    Returns:
        Tensor of the input's shape and (cast) dtype.

    Examples:
        >>> ops.softmax(ms.Tensor([1.0, 2.0, 3.0]))
        Tensor(shape=[3], dtype=Float32, value= [ 9.00305733e-02,  2.44728476e-01,  6.65240943e-01])
    """
    if dtype is not None:
        input = cast_p(input, dtype=to_np_dtype(dtype))
    return softmax_p(input, axis=_axis("Softmax", axis, input))


def log_softmax(logits, axis=-1):
    """``log(softmax(logits))`` along ``axis``, computed without forming the softmax."""
    return log_softmax_p(logits, axis=_axis("LogSoftmax", axis, logits))


def softmin(x, axis=-1, *, dtype=None):
    """``softmax(-x)`` along ``axis``."""
    if dtype is not None:
        x = cast_p(x, dtype=to_np_dtype(dtype))
    return softmax_p(M.neg_p(x), axis=_axis("Softmin", axis, x))


def _dropout(op, input, p, training, seed, channel_dims):
    p = probability(op, p)
    require_tensor(op, "input", input)
    if not training or p == 0.0:
        return input
    if seed is not None and not is_int(seed):
        raise TypeError(f"For '{op}', the 'seed' must be int, but got {type(seed).__name__}.")
    key = R.key_tensor(seed)
    out, _ = dropout_p(input, key, p=p, channel_dims=channel_dims)
    return out


def dropout(input, p=0.5, training=True, seed=None):
    """Zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``.

    Identity when ``training`` is False. The same ``seed`` (with the same global seed)
    gives the same mask.
    """
    return _dropout("dropout", input, p, training, seed, 0)


def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability ``p``."""
    require_rank("dropout1d", "input", input, (2, 3))
    return _dropout("dropout1d", input, p, training, None, input.ndim - 1)


def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of a (N, C, H, W) input with probability ``p``."""
    require_rank("dropout2d", "input", input, (4,))
    return _dropout("dropout2d", input, p, training, None, 2)


def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of a (N, C, D, H, W) input with probability ``p``."""
    require_rank("dropout3d", "input", input, (5,))
    return _dropout("dropout3d", input, p, training, None, 2)


def check_rrelu_bounds(op, lower, upper):
    """RReLU's slope bounds: numbers with lower <= upper (MindSpore's messages)."""
    for arg, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, (float, int)):
            raise TypeError(f"For '{op}', the type of '{arg}' should be one of '['float', "
                            f"'int']', but got type '{type(value).__name__}'.")
    if lower > upper:
        raise ValueError(f"For {op}, the value of 'upper' must be greater than or equal to "
                         f"'lower', but got upper: {upper}, lower: {lower}. ")


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """Randomized leaky ReLU: each negative element is multiplied by its own slope drawn
    uniformly from [lower, upper]; positives pass unchanged. MindSpore draws the slopes
    on every call, in training and evaluation alike."""
    from ..._tensor import Tensor
    check_rrelu_bounds("rrelu", lower, upper)
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'rrelu', the 'input' must be a Tensor but got {type(input)}.")
    from .. import _math, _random
    slopes = _random.uniform(tuple(input.shape), Tensor(float(lower)), Tensor(float(upper)))
    if input.dtype.is_floating_point and input.dtype != slopes.dtype:
        slopes = slopes.astype(input.dtype)
    return _math.where(input < 0, input * slopes, input)


__all__ = public_functions(globals(), __name__)
__all__.remove("check_rrelu_bounds")
