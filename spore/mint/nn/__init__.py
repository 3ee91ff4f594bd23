"""``spore.mint.nn`` (``mindspore.mint.nn``): layers with PyTorch's constructor arguments.

Parameters carry PyTorch's names (``weight``, ``bias``, ``running_mean``, ``running_var``,
``num_batches_tracked``) and initialisations (Kaiming-uniform convolution and linear
weights, N(0, 1) embeddings); BatchNorm's ``momentum`` is PyTorch's (the weight of the new
batch, 0.1). Layers whose arguments already match are ``spore.nn``'s own classes.
"""
from __future__ import annotations

import math

from ... import ops as _ops
from ... import _absent
from ..._dtype import float32 as _float32, int64 as _int64
from ..._parameter import Parameter
from ..._tensor import Tensor
from ...common.initializer import HeUniform, Uniform, Normal, initializer
from ...nn.cell import Cell
from ...nn import (  # noqa: F401  (same arguments and behaviour in nn and mint.nn)
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, BCELoss, ConstantPad1d,
    ConstantPad2d, ConstantPad3d, CosineEmbeddingLoss, Flatten, Identity,
    L1Loss, Linear, MSELoss, Mish, PixelShuffle, ReflectionPad1d, ReflectionPad2d,
    ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, SoftMarginLoss,
    Upsample, ZeroPad2d,
)
from . import functional as functional
from .functional import cross_entropy as cross_entropy  # noqa: F401

F = functional


def _dtype(dtype):
    return _float32 if dtype is None else dtype


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


# ---- activations: one Cell per functional ------------------------------------------------

def _activation(name, fn, doc, **defaults):
    """A Cell class ``name`` whose construct is ``fn(x, **its arguments)``."""
    names = tuple(defaults)

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        values = dict(defaults)
        if len(args) > len(names):
            raise TypeError(f"{name}() takes at most {len(names)} arguments ({len(args)} given)")
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
            values[key] = value
        missing = [k for k, v in values.items() if v is _REQUIRED]
        if missing:
            raise TypeError(f"{name}() missing required argument(s): {', '.join(missing)}")
        for key, value in values.items():
            setattr(self, key, value)

    def construct(self, x):
        return fn(x, **{k: getattr(self, k) for k in names})

    def extend_repr(self):
        return ", ".join(f"{k}={getattr(self, k)}" for k in names)

    return type(name, (Cell,), {"__init__": __init__, "construct": construct,
                                "extend_repr": extend_repr, "__doc__": doc,
                                "__module__": __name__})


_REQUIRED = object()
ReLU = _activation("ReLU", F.relu, "``max(x, 0)``.")
ReLU6 = _activation("ReLU6", F.relu6, "``min(max(x, 0), 6)``.", inplace=False)
SiLU = _activation("SiLU", F.silu, "``x * sigmoid(x)``.", inplace=False)
Sigmoid = _activation("Sigmoid", F.sigmoid, "``1 / (1 + exp(-x))``.")
Tanh = _activation("Tanh", F.tanh, "Hyperbolic tangent.")
GELU = _activation("GELU", F.gelu, "GELU, exact or ``approximate='tanh'``.", approximate="none")
ELU = _activation("ELU", F.elu, "ELU with ``alpha``.", alpha=1.0, inplace=False)
SELU = _activation("SELU", F.selu, "Scaled ELU.")
Hardshrink = _activation("Hardshrink", F.hardshrink, "``x`` where ``|x| > lambd``, else 0.",
                         lambd=0.5)
Softshrink = _activation("Softshrink", F.softshrink, "``x -+ lambd`` outside [-lambd, lambd], "
                         "else 0.", lambd=0.5)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, "``relu6(x + 3) / 6``.")
Hardswish = _activation("Hardswish", F.hardswish, "``x * relu6(x + 3) / 6``.")
Hardtanh = _activation("Hardtanh", F.hardtanh, "``clamp(x, min_val, max_val)``.",
                       min_val=-1.0, max_val=1.0, inplace=False)
LogSigmoid = _activation("LogSigmoid", F.logsigmoid, "``log(sigmoid(x))``.")
Softmax = _activation("Softmax", F.softmax, "Softmax along ``dim``.", dim=None)
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "Log-softmax along ``dim``.", dim=None)
GLU = _activation("GLU", F.glu, "Gated linear unit along ``dim``.", dim=-1)
Threshold = _activation("Threshold", F.threshold, "``x`` above ``threshold``, else ``value``.",
                        threshold=_REQUIRED, value=_REQUIRED, inplace=False)
ZeroPad1d = _activation("ZeroPad1d", lambda x, padding: F.pad(x, _tuple(padding, 2)),
                        "Zero padding of the last dimension.", padding=_REQUIRED)
ZeroPad3d = _activation("ZeroPad3d", lambda x, padding: F.pad(x, _tuple(padding, 6)),
                        "Zero padding of the last three dimensions.", padding=_REQUIRED)
Fold = _activation("Fold", F.fold, "Combine sliding blocks into a tensor (col2im).",
                   output_size=_REQUIRED, kernel_size=_REQUIRED, dilation=1, padding=0, stride=1)
Unfold = _activation("Unfold", F.unfold, "Extract sliding blocks (im2col).",
                     kernel_size=_REQUIRED, dilation=1, padding=0, stride=1)
AdaptiveMaxPool1d = _activation("AdaptiveMaxPool1d", F.adaptive_max_pool1d,
                                "1-D adaptive max pooling.", output_size=_REQUIRED,
                                return_indices=False)
AvgPool1d = _activation("AvgPool1d", F.avg_pool1d, "1-D average pooling.",
                        kernel_size=_REQUIRED, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True)
AvgPool2d = _activation("AvgPool2d", F.avg_pool2d, "2-D average pooling.",
                        kernel_size=_REQUIRED, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None)
AvgPool3d = _activation("AvgPool3d", F.avg_pool3d, "3-D average pooling.",
                        kernel_size=_REQUIRED, stride=None, padding=0, ceil_mode=False,
                        count_include_pad=True, divisor_override=None)
MaxPool2d = _activation("MaxPool2d", F.max_pool2d, "2-D max pooling.", kernel_size=1,
                        stride=None, padding=0, dilation=1, return_indices=False,
                        ceil_mode=False)
AdaptiveAvgPool3d = _activation("AdaptiveAvgPool3d", F.adaptive_avg_pool3d,
                                "3-D adaptive average pooling.", output_size=_REQUIRED)
UpsamplingNearest2d = _activation(
    "UpsamplingNearest2d", lambda x, size, scale_factor: F.interpolate(x, size, scale_factor,
                                                                        "nearest"),
    "Nearest-neighbour 2-D upsampling.", size=None, scale_factor=None)
UpsamplingBilinear2d = _activation(
    "UpsamplingBilinear2d",
    lambda x, size, scale_factor: F.interpolate(x, size, scale_factor, "bilinear", True),
    "Bilinear 2-D upsampling with aligned corners.", size=None, scale_factor=None)


class _TrainingActivation(Cell):
    """A layer whose function takes ``training`` (dropout)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"For '{type(self).__name__}', 'p' must be in [0, 1], but got {p}.")
        self.p, self.inplace = p, inplace

    def extend_repr(self):
        return f"p={self.p}"


class Dropout(_TrainingActivation):
    """Zero elements with probability ``p`` while training, scaling the rest by 1/(1-p)."""

    def construct(self, x):
        return F.dropout(x, self.p, self.training, self.inplace)


class Dropout2d(_TrainingActivation):
    """Zero whole channels with probability ``p`` while training."""

    def construct(self, x):
        return F.dropout2d(x, self.p, self.training, self.inplace)


class MaxUnpool2d(Cell):
    """Inverse of 2-D max pooling: values back at their indices, zeros elsewhere."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class PReLU(Cell):
    """``x`` where positive, ``weight * x`` elsewhere; one weight or one per channel."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(initializer(init, [num_parameters], _dtype(dtype)), name="weight")

    def construct(self, x):
        return F.prelu(x, self.weight)


# ---- losses ------------------------------------------------------------------------------

class _Loss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("none", "mean", "sum") and not (
                reduction == "batchmean" and isinstance(self, KLDivLoss)):
            raise ValueError(f"For '{type(self).__name__}', 'reduction' must be 'none', 'mean' "
                             f"or 'sum', but got {reduction!r}.")
        self.reduction = reduction


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of ``sigmoid(logits)``, computed stably."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of log-probabilities ``input`` from ``target``."""

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def construct(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)


class CrossEntropyLoss(_Loss):
    """Cross-entropy of logits (N, C, ...) against class indices (any integer dtype) or
    class probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities at class indices (any integer dtype)."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


# ---- convolutions ------------------------------------------------------------------------

class _ConvNd(Cell):
    """PyTorch's convolution layer: weight (out, in/groups, *k), Kaiming-uniform(a=√5)
    initialisation, bias U(-1/√fan_in, 1/√fan_in)."""
    _n = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", dtype=None,
                 output_padding=0):
        super().__init__()
        name = type(self).__name__
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"For '{name}', 'in_channels' and 'out_channels' must be "
                             f"divisible by 'groups', but got {in_channels}, {out_channels} "
                             f"and {groups}.")
        if padding_mode != "zeros":
            raise ValueError(f"For '{name}', only padding_mode='zeros' is supported, but got "
                             f"{padding_mode!r}.")
        n = self._n
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride, self.dilation = _tuple(stride, n), _tuple(dilation, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.output_padding = _tuple(output_padding, n)
        self.groups, self.padding_mode = groups, padding_mode
        if self._transposed:
            shape = [in_channels, out_channels // groups, *self.kernel_size]
        else:
            shape = [out_channels, in_channels // groups, *self.kernel_size]
        fan_in = shape[1] * math.prod(self.kernel_size)
        dtype = _dtype(dtype)
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype), name="weight")
        self.bias = None
        if bias:
            bound = 1 / math.sqrt(fan_in) if fan_in else 0
            self.bias = Parameter(initializer(Uniform(bound), [out_channels], dtype), name="bias")

    def extend_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L)."""
    _n = 1

    def construct(self, x):
        return F.conv1d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W)."""

    def construct(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W)."""
    _n = 3

    def construct(self, x):
        return F.conv3d(x, self.weight, self.bias, self.stride, self.padding, self.dilation,
                        self.groups)


class ConvTranspose2d(_ConvNd):
    """2-D transposed convolution; weight (in, out/groups, kh, kw)."""
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding)

    def construct(self, x):
        return F.conv_transpose2d(x, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)


# ---- normalisation and embedding ---------------------------------------------------------

class _BatchNorm(Cell):
    """PyTorch's BatchNorm: batch statistics while training (moving the running ones by
    ``momentum``), the running statistics in evaluation."""
    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        dtype = _dtype(dtype)
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", [num_features], dtype), name="weight")
            self.bias = Parameter(initializer("zeros", [num_features], dtype), name="bias")
        self.running_mean = self.running_var = None
        if track_running_stats:
            self.running_mean = Parameter(initializer("zeros", [num_features], dtype),
                                          name="running_mean", requires_grad=False)
            self.running_var = Parameter(initializer("ones", [num_features], dtype),
                                         name="running_var", requires_grad=False)
            self.num_batches_tracked = Parameter(Tensor(0, _int64), name="num_batches_tracked",
                                                 requires_grad=False)

    def construct(self, x):
        if x.ndim not in self._ranks:
            raise ValueError(f"For '{type(self).__name__}', expected a {self._ranks}-D input, "
                             f"but got {x.ndim}-D.")
        use_batch = self.training or not self.track_running_stats
        if use_batch and self.track_running_stats:
            self.num_batches_tracked.add_(1)
        mean, var = self.running_mean, self.running_var
        if mean is None:
            mean = _ops.zeros((self.num_features,), dtype=x.dtype)
            var = _ops.ones((self.num_features,), dtype=x.dtype)
        return F.batch_norm(x, mean, var, self.weight, self.bias, use_batch,
                            self.momentum if self.momentum is not None else 0.1, self.eps)

    def extend_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"


class BatchNorm1d(_BatchNorm):
    """BatchNorm over (N, C) or (N, C, L)."""
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """BatchNorm over (N, C, H, W)."""
    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    """BatchNorm over (N, C, D, H, W)."""
    _ranks = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over (N, C, ...) whose batch statistics come from every rank's batch in
    data-parallel training (``process_group``: a communication group's name; default the
    world), as ``nn.SyncBatchNorm``; in one process it is BatchNorm."""
    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, dtype)
        if process_group is not None and not isinstance(process_group, str):
            raise TypeError(f"For 'SyncBatchNorm', the 'process_group' must be a group name "
                            f"(str) or None, but got {type(process_group).__name__}.")
        self.process_group = process_group

    def construct(self, x):
        from ...nn.layer.more_layers import synced_batch_norm, world_group_if_parallel
        use_batch = self.training or not self.track_running_stats
        group = world_group_if_parallel() if use_batch else None
        if group is None or x.ndim not in self._ranks:
            return super().construct(x)
        if self.track_running_stats:
            self.num_batches_tracked.add_(1)
        momentum = self.momentum if self.momentum is not None else 0.1
        return synced_batch_norm(x, self.running_mean, self.running_var, self.weight,
                                 self.bias, momentum, self.eps, self.process_group or group)


class LayerNorm(Cell):
    """Normalise over the trailing ``normalized_shape`` dimensions."""

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        self.normalized_shape = _tuple(normalized_shape, 1)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        dtype = _dtype(dtype)
        self.weight = self.bias = None
        if elementwise_affine:
            self.weight = Parameter(initializer("ones", list(self.normalized_shape), dtype),
                                    name="weight")
            if bias:
                self.bias = Parameter(initializer("zeros", list(self.normalized_shape), dtype),
                                      name="bias")

    def construct(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extend_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class GroupNorm(Cell):
    """Normalise each of ``num_groups`` channel groups."""

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"For 'GroupNorm', 'num_channels' ({num_channels}) must be "
                             f"divisible by 'num_groups' ({num_groups}).")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        dtype = _dtype(dtype)
        self.weight = self.bias = None
        if affine:
            self.weight = Parameter(initializer("ones", [num_channels], dtype), name="weight")
            self.bias = Parameter(initializer("zeros", [num_channels], dtype), name="bias")

    def construct(self, x):
        return F.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class Embedding(Cell):
    """Rows of an (num_embeddings, embedding_dim) N(0, 1) table; the ``padding_idx`` row is
    zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"For 'Embedding', 'padding_idx' must be in "
                                 f"[{-num_embeddings}, {num_embeddings}), but got {padding_idx}.")
            padding_idx %= num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            table = initializer(Normal(1.0), [num_embeddings, embedding_dim], _dtype(dtype))
            table = Tensor(table.asnumpy() if hasattr(table, "asnumpy") else table)
            if padding_idx is not None:
                table[padding_idx] = 0
        else:
            table = _weight
        self.weight = Parameter(table, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)

    def extend_repr(self):
        return f"{self.num_embeddings}, {self.embedding_dim}"


def __getattr__(name):
    return _absent.missing(__name__, name)
