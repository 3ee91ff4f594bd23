"""batch_norm, layer_norm, group_norm and instance_norm (MindSpore 2.10 signatures).

layer_norm and training-mode batch_norm run on fused primitives; group_norm and
instance_norm are layer norms over reshaped inputs followed by a per-channel
affine map; evaluation-mode batch_norm is an elementwise composite.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._prims import math as M
from ..._prims.array import assign_p, reshape_p
from ..._prims.nn import batch_norm_p, layer_norm_p
from ..._prims.nn.bessel import bessel_correction_p
from ..._prims.reduce import mean_p
from ..._prims.special import stop_gradient_p
from .._utils import public_functions
from ._args import is_int, require_tensor


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def _per_channel(v, x):
    return reshape_p(v, shape=_channel_shape(x))


def _affine(y, weight, bias, x):
    """``y * weight + bias`` with (C,) parameters broadcast along axis 1."""
    if weight is not None:
        y = M.mul_p(y, _per_channel(weight, x))
    if bias is not None:
        y = M.add_p(y, _per_channel(bias, x))
    return y


def _update_running(stat, batch_value, momentum):
    """``stat = (1 - momentum) * stat + momentum * batch_value``, in place, not traced."""
    if stat is None:
        return
    batch_value = reshape_p(stop_gradient_p(batch_value), shape=tuple(stat.shape))
    assign_p(stat, M.add_p(M.mul_p(stat, 1.0 - momentum), M.mul_p(batch_value, momentum)))


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1,
               eps=1e-05):
    r"""Batch normalisation over every axis but the channel axis 1.

    In training the batch statistics normalise (biased variance) and the running
    statistics are updated in place with the *new* value weighted by ``momentum``
    (``running = (1 - momentum) * running + momentum * batch``, the unbiased batch
    variance for ``running_var``); otherwise the running statistics normalise.
    ``weight``/``bias`` may be None.
    """
    op = "batch_norm"
    require_tensor(op, "input_x", input_x)
    if input_x.ndim < 2:
        raise ValueError(f"For '{op}', the 'input_x' must have at least 2 dimensions (N, C), "
                         f"but got shape {list(input_x.shape)}.")
    if training:
        affine = _affine_pair(input_x, weight, bias)
        y, mean, var = batch_norm_p(input_x, *affine, eps=float(eps))
        count = input_x.size // input_x.shape[1]
        _update_running(running_mean, mean, momentum)
        _update_running(running_var, bessel_correction_p(var, count=count), momentum)
        return y
    if running_mean is None or running_var is None:
        raise ValueError(f"For '{op}', 'running_mean' and 'running_var' are required when "
                         f"'training' is False.")
    centred = M.sub_p(input_x, _per_channel(running_mean, input_x))
    y = M.mul_p(centred, M.rsqrt_p(M.add_p(_per_channel(running_var, input_x), eps)))
    return _affine(y, weight, bias, input_x)


def _affine_pair(x, weight, bias):
    """(weight, bias) for a fused primitive: both or neither (a missing one is 1 or 0)."""
    if weight is None and bias is None:
        return ()
    dt = x._data.dtype
    shape = (x.shape[1],)
    return (weight if weight is not None else P.wrap(np.ones(shape, dt)),
            bias if bias is not None else P.wrap(np.zeros(shape, dt)))


def _normalized_axis(op, x, normalized_shape):
    if not is_int(normalized_shape) and not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(f"For '{op}', the 'normalized_shape' must be an int or a tuple of ints, "
                        f"but got {type(normalized_shape).__name__}.")
    shape = (normalized_shape,) if is_int(normalized_shape) else tuple(normalized_shape)
    if not shape or len(shape) > x.ndim or tuple(x.shape[x.ndim - len(shape):]) != shape:
        raise ValueError(f"For '{op}', the 'normalized_shape' {list(shape)} must match the "
                         f"trailing dimensions of the input shape {list(x.shape)}.")
    return x.ndim - len(shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    r"""Normalise over the trailing ``normalized_shape`` axes, then ``* weight + bias``
    (each of ``normalized_shape``; either may be None)."""
    op = "layer_norm"
    require_tensor(op, "input", input)
    axis = _normalized_axis(op, input, normalized_shape)
    if weight is None and bias is None:
        return layer_norm_p(input, axis=axis, eps=float(eps))[0]
    dt = input._data.dtype
    shape = tuple(input.shape[axis:])
    if weight is None:
        weight = P.wrap(np.ones(shape, dt))
    if bias is None:
        bias = P.wrap(np.zeros(shape, dt))
    return layer_norm_p(input, weight, bias, axis=axis, eps=float(eps))[0]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalise each group of ``C / num_groups`` channels (with all spatial positions)
    of every sample, then the per-channel affine map."""
    op = "group_norm"
    require_tensor(op, "input", input)
    if input.ndim < 2:
        raise ValueError(f"For '{op}', the 'input' must have at least 2 dimensions (N, C), "
                         f"but got shape {list(input.shape)}.")
    c = input.shape[1]
    if not is_int(num_groups) or num_groups <= 0 or c % num_groups:
        raise ValueError(f"For '{op}', the 'num_channels' must be divided by 'num_groups', "
                         f"but got 'num_channels': {c} ,'num_groups': {num_groups}")
    n, g = input.shape[0], int(num_groups)
    grouped = reshape_p(input, shape=(n, g, input.size // (n * g)))
    y = reshape_p(layer_norm_p(grouped, axis=2, eps=float(eps))[0], shape=input.shape)
    return _affine(y, weight, bias, input)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalise each channel of each sample over its spatial positions (PyTorch's
    signature; MindSpore 2.10 has only ``nn.InstanceNorm*``).

    With ``use_input_stats`` the running statistics (if given) are updated in place
    with the mean over the batch of the per-sample statistics; otherwise they normalise.
    """
    op = "instance_norm"
    require_tensor(op, "input", input)
    if input.ndim < 3:
        raise ValueError(f"For '{op}', the 'input' must have at least 3 dimensions "
                         f"(N, C, ...), but got shape {list(input.shape)}.")
    if not use_input_stats:
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = input.shape[:2]
    flat = reshape_p(input, shape=(n, c, input.size // (n * c)))
    if running_mean is not None or running_var is not None:
        mean = mean_p(flat, axis=(2,), keepdims=False)
        centred = M.sub_p(flat, reshape_p(mean, shape=(n, c, 1)))
        var = mean_p(M.mul_p(centred, centred), axis=(2,), keepdims=False)
        count = flat.shape[2]
        _update_running(running_mean, mean_p(mean, axis=(0,), keepdims=False), momentum)
        unbiased = bessel_correction_p(mean_p(var, axis=(0,), keepdims=False), count=count)
        _update_running(running_var, unbiased, momentum)
    y = reshape_p(layer_norm_p(flat, axis=2, eps=float(eps))[0], shape=input.shape)
    return _affine(y, weight, bias, input)


__all__ = public_functions(globals(), __name__)
