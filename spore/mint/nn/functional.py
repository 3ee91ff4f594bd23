"""``spore.mint.nn.functional`` (``mindspore.mint.nn.functional``): PyTorch-style
functional layers over Spore's primitives.

Convolutions take PyTorch's ``padding`` (an int or one int per spatial dimension, the same
on both sides, or 'same' / 'valid') and map it onto ``ops``' explicit pads; pooling defaults
``stride`` to ``kernel_size``; ``inplace=True`` writes the result into ``input`` as PyTorch
does.
"""
from __future__ import annotations

from ... import ops as _ops
from ..._tensor import Tensor as _Tensor
from ... import _absent

# Identical in ops and mint.nn.functional.
from ...ops import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool2d, broadcast_to, clamp,
    conv_transpose2d, cosine_embedding_loss, cross_entropy, embedding, fold, group_norm,
    hardshrink, hardsigmoid, interpolate, l1_loss, layer_norm, mish, mse_loss, sigmoid,
    soft_margin_loss, softplus, softshrink, tanh, unfold,
)

_SIDES = {1: "conv1d", 2: "conv2d", 3: "conv3d"}


def _conv_padding(padding, n, op):
    """PyTorch's padding (int, n ints, 'same', 'valid') as ops' (pad_mode, padding)."""
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"For '{op}', 'padding' must be 'same', 'valid', an int or a tuple, "
                             f"but got {padding!r}.")
        return padding, 0
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding,) * n
    padding = tuple(padding)
    if len(padding) != n:
        raise ValueError(f"For '{op}', 'padding' must be an int or {n} ints, but got {padding}.")
    if n == 3:                                  # ops.conv3d: one (symmetric) pad per dim
        return "pad", padding
    return "pad", tuple(p for p in padding for _ in range(2))


def _conv(n, input, weight, bias, stride, padding, dilation, groups):
    op = _SIDES[n]
    pad_mode, pads = _conv_padding(padding, n, op)
    return getattr(_ops, op)(input, weight, bias, stride, pad_mode, pads, dilation, groups)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C_in, L) with a (C_out, C_in/groups, k) weight."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C_in, H, W) with a (C_out, C_in/groups, kh, kw) weight."""
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C_in, D, H, W) with a (C_out, C_in/groups, kd, kh, kw) weight."""
    return _conv(3, input, weight, bias, stride, padding, dilation, groups)


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``."""
    return _ops.dense(input, weight, bias)


# ---- activations -------------------------------------------------------------------------

def _inplace(input, out, inplace):
    """PyTorch's ``inplace=True``: the result is written into ``input``, which is returned."""
    if not inplace:
        return out
    input.copy_(out)
    return input


def relu(input, inplace=False):
    """``max(input, 0)``."""
    return _inplace(input, _ops.relu(input), inplace)


def relu_(input):
    """``relu`` written into ``input``."""
    return relu(input, True)


def relu6(input, inplace=False):
    """``min(max(input, 0), 6)``."""
    return _inplace(input, _ops.relu6(input), inplace)


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere."""
    return _inplace(input, _ops.elu(input, alpha), inplace)


def elu_(input, alpha=1.0):
    """``elu`` written into ``input``."""
    return elu(input, alpha, True)


def selu(input):
    """Scaled ELU (the self-normalising constants)."""
    return _ops.selu(input)


def silu(input, inplace=False):
    """``input * sigmoid(input)``."""
    return _inplace(input, _ops.silu(input), inplace)


def inplace_silu(input):
    """``silu`` written into ``input``."""
    return silu(input, True)


def inplace_elu(input, alpha=1.0):
    """``elu`` written into ``input``."""
    return elu(input, alpha, True)


def sigmoid_(input):
    """``sigmoid`` written into ``input``."""
    return _inplace(input, _ops.sigmoid(input), True)


def gelu(input, approximate="none"):
    """GELU: exact ('none') or the tanh approximation ('tanh')."""
    return _ops.gelu(input, approximate)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(input, min_val, max_val)``."""
    return _inplace(input, _ops.hardtanh(input, min_val, max_val), inplace)


def hardtanh_(input, min_val=-1, max_val=1):
    """``hardtanh`` written into ``input``."""
    return hardtanh(input, min_val, max_val, True)


def hardswish(input):
    """``input * relu6(input + 3) / 6``."""
    return _ops.hardswish(input)


def leaky_relu(input, negative_slope=0.01):
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    return _ops.leaky_relu(input, negative_slope)


def logsigmoid(input):
    """``log(sigmoid(input))``."""
    return _ops.logsigmoid(input)


def threshold(input, threshold, value, inplace=False):
    """``input`` where greater than ``threshold``, else ``value``."""
    return _inplace(input, _ops.threshold(input, threshold, value), inplace)


def threshold_(input, threshold, value):
    """``threshold`` written into ``input``."""
    return _inplace(input, _ops.threshold(input, threshold, value), True)


def glu(input, dim=-1):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second."""
    from .. import _require_dim, _require_tensor
    dim = _require_dim("glu", _require_tensor("glu", "input", input), dim)
    size = input.shape[dim]
    if size % 2:
        raise ValueError(f"For 'glu', the size of dimension {dim} must be even, but got {size}.")
    a, b = _ops.split(input, size // 2, dim)
    return _ops.mul(a, _ops.sigmoid(b))


def prelu(input, weight):
    """``input`` where positive, ``weight * input`` elsewhere; ``weight`` has one value or
    one per channel (dimension 1)."""
    from .. import _require_tensor
    _require_tensor("prelu", "input", input)
    _require_tensor("prelu", "weight", weight)
    if weight.size not in (1, input.shape[1] if input.ndim >= 2 else 1):
        raise ValueError(f"For 'prelu', 'weight' must have 1 or {input.shape[1]} elements, "
                         f"but got {weight.size}.")
    w = weight
    if input.ndim >= 2 and weight.size > 1:
        w = _ops.reshape(weight, (-1,) + (1,) * (input.ndim - 2))
    return _ops.where(_ops.gt(input, 0), input, _ops.mul(w, input))


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim`` (PyTorch's implicit choice when None: 0 for 0-, 1- and 3-D
    inputs, else 1)."""
    return _ops.softmax(input, _implicit_dim(input, dim), dtype=dtype)


def log_softmax(input, dim=None, *, dtype=None):
    """Log-softmax along ``dim`` (implicit choice as ``softmax``)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.log_softmax(input, _implicit_dim(input, dim))


def _implicit_dim(input, dim):
    if dim is not None:
        return dim
    return 0 if input.ndim in (0, 1, 3) else 1


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(||input||_p along dim, eps)``."""
    norm = _ops.vector_norm(input, p, dim, True)
    return _ops.div(input, _ops.clamp(norm, min=eps))


# ---- dropout -----------------------------------------------------------------------------

def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by 1/(1-p) when training."""
    return _inplace(input, _ops.dropout(input, p, training), inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels with probability ``p`` when training."""
    return _inplace(input, _ops.dropout2d(input, p, training) if training else input, inplace)


# ---- pooling -----------------------------------------------------------------------------

def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling (``stride`` defaults to ``kernel_size``)."""
    return _ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling (``stride`` defaults to ``kernel_size``)."""
    return _ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad, divisor_override or 0)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling (``stride`` defaults to ``kernel_size``)."""
    return _ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad, divisor_override or 0)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling; with ``return_indices`` also the flat (h*W+w) int64 positions."""
    out = _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices,
                          ceil_mode)
    if return_indices:
        return out[0], _ops.cast(out[1], "int64")
    return out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """1-D adaptive max pooling."""
    if return_indices:
        x = _ops.expand_dims(input, -2)
        values, indices = _ops.adaptive_max_pool2d(x, (1, output_size), True)
        return _ops.squeeze(values, -2), _ops.cast(_ops.squeeze(indices, -2), "int64")
    return _ops.adaptive_max_pool1d(input, output_size)


def _adaptive_bounds(size, out):
    """PyTorch's adaptive windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) to ``output_size``
    (an int, or three ints or None for "keep")."""
    if input.ndim not in (4, 5):
        raise ValueError(f"For 'adaptive_avg_pool3d', the input must be 4-D or 5-D, but got "
                         f"{input.ndim}-D.")
    sizes = tuple(input.shape[-3:])
    outs = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    outs = tuple(s if o is None else o for s, o in zip(sizes, outs))
    x = input
    for axis, (size, out) in enumerate(zip(sizes, outs)):
        dim = input.ndim - 3 + axis
        if size == out:
            continue
        parts = [_ops.mean(_ops.narrow(x, dim, a, b - a), dim, True)
                 for a, b in _adaptive_bounds(size, out)]
        x = _ops.cat(parts, dim)
    return x


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Place the values of ``max_pool2d(..., return_indices=True)`` back at their flat
    (h*W+w) positions of a zero (N, C, H, W) map."""
    kh, kw = (kernel_size,) * 2 if isinstance(kernel_size, int) else tuple(kernel_size)
    stride = (kh, kw) if stride is None else stride
    sh, sw = (stride,) * 2 if isinstance(stride, int) else tuple(stride)
    ph, pw = (padding,) * 2 if isinstance(padding, int) else tuple(padding)
    h, w = input.shape[-2:]
    if output_size is None:
        out_hw = ((h - 1) * sh - 2 * ph + kh, (w - 1) * sw - 2 * pw + kw)
    else:
        out_hw = tuple(output_size)[-2:]
    lead = tuple(input.shape[:-2])
    flat = _ops.reshape(input, lead + (-1,))
    idx = _ops.reshape(_ops.cast(indices, "int64"), lead + (-1,))
    out = _ops.zeros(lead + (out_hw[0] * out_hw[1],), dtype=input.dtype)
    out = _ops.tensor_scatter_elements(out, idx, flat, len(lead))
    return _ops.reshape(out, lead + out_hw)


# ---- losses ------------------------------------------------------------------------------

def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``input`` against ``target``."""
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)``, computed stably; ``pos_weight`` weighs
    the positive term."""
    return _ops.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...) at ``target``."""
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` (``input`` holds log-probabilities; so does
    ``target`` when ``log_target``); 'batchmean' divides the sum by the batch size."""
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"For 'kl_div', 'reduction' must be 'none', 'mean', 'sum' or "
                         f"'batchmean', but got {reduction!r}.")
    if log_target:
        loss = _ops.mul(_ops.exp(target), _ops.sub(target, input))
    else:
        loss = _ops.sub(_ops.xlogy(target, target), _ops.mul(target, input))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _ops.sum(loss)
    if reduction == "batchmean":
        return _ops.div(_ops.sum(loss), input.shape[0] if input.ndim else 1)
    return _ops.mean(loss)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Huber-like loss: quadratic below ``beta``, linear above."""
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def one_hot(tensor, num_classes=-1):
    """int64 one-hot rows; ``num_classes=-1`` uses the largest index + 1."""
    if num_classes == -1:
        num_classes = int(_ops.amax(tensor).item()) + 1
    return _ops.one_hot(_ops.cast(tensor, "int64"), num_classes, 1, 0).astype("int64")


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions: ``pad`` holds (left, right) pairs from the last dimension
    backwards; ``mode`` 'constant', 'reflect', 'replicate' or 'circular'."""
    return _ops.pad(input, pad, mode, value)


def pixel_shuffle(input, upscale_factor):
    """(N, C*r*r, H, W) -> (N, C, H*r, W*r)."""
    return _ops.pixel_shuffle(input, upscale_factor)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim`` .. ``end_dim`` into one."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``interpolate`` under its older name."""
    return _ops.interpolate(input, size, scale_factor, mode, align_corners)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Batch normalisation over dimension 1; when training, the running statistics move by
    ``momentum`` towards the batch's (``running = (1 - momentum) * running + momentum *
    batch``)."""
    channels = input.shape[1]
    if weight is None:
        weight = _ops.ones((channels,), dtype=input.dtype)
    if bias is None:
        bias = _ops.zeros((channels,), dtype=input.dtype)
    return _ops.batch_norm(input, running_mean, running_var, weight, bias, training,
                           momentum, eps)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """PyTorch's ``grid_sample``: 4-D ``input`` with an (N, Ho, Wo, 2) grid, or 5-D with an
    (N, Do, Ho, Wo, 3) grid (trilinear for ``mode='bilinear'``); ``align_corners`` None is
    False."""
    if getattr(input, "ndim", None) == 5:
        from ...ops._nn_ops3 import grid_sample3d
        return grid_sample3d(input, grid, mode, padding_mode, bool(align_corners))
    return _ops.grid_sample(input, grid, mode, padding_mode, bool(align_corners))


def __getattr__(name):
    return _absent.missing(__name__, name)


del _Tensor
