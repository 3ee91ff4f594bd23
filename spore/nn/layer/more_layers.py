"""More ``mindspore.nn`` layers and losses: Conv3dTranspose, MaxUnpool1d/3d, LRN,
SyncBatchNorm, the image-quality metrics PSNR and SSIM, MultilabelMarginLoss and
TripletMarginWithDistanceLoss. Thin Cells over ``spore.ops``."""
from __future__ import annotations

import numbers

import numpy as np

from ... import ops
from ..._dtype import float32
from ..._tensor import Tensor
from ..cell import Cell
from ..loss.loss import LossBase
from .activation import LeakyReLU, get_activation
from .basic import Dense
from .conv import Conv2d, _Conv, _pair
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv3dTranspose", "MaxUnpool1d", "MaxUnpool3d", "LRN", "SyncBatchNorm", "PSNR",
           "SSIM", "MultilabelMarginLoss", "TripletMarginWithDistanceLoss", "DenseBnAct",
           "Conv2dBnAct"]


class Conv3dTranspose(_Conv):
    r"""Transposed 3-D convolution over (N, C_in, D, H, W) inputs; the weight is
    (in_channels, out_channels/group, kd, kh, kw).

    Output length per dimension: 'same' (the default) ``in * stride``; 'valid'
    ``(in - 1) * stride + dilation * (k - 1) + 1``; 'pad' that minus the two paddings plus
    ``output_padding``. ``padding`` is an int or (front, back, top, bottom, left, right).
    """

    _prim = "Conv3DTranspose"
    _formats = ("NCDHW",)
    _pad_size = 6

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=float32):
        kernel_size = _pair(kernel_size, "kernel_size", "Conv3dTranspose", 3)
        stride = _pair(stride, "stride", "Conv3dTranspose", 3)
        dilation = _pair(dilation, "dilation", "Conv3dTranspose", 3)
        super().__init__(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                         dilation, group, has_bias, weight_init, bias_init, data_format, True,
                         dtype)
        if output_padding and pad_mode != "pad":
            raise ValueError("For 'Conv3dTranspose', when output_padding is not zero, pad_mode "
                             "must be 'pad'.")
        self.output_padding = output_padding

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"For 'Conv3dTranspose', the input must be 5-D (N, C, D, H, W), "
                             f"but got {x.ndim}-D.")
        out = ops.conv3d_transpose(x, self._cast_weight(self.weight), self.pad_mode,
                                   self.padding, self.stride, self.dilation, self.group,
                                   self.output_padding)
        if self.bias is not None:
            out = out + ops.reshape(self._cast_weight(self.bias), (1, -1, 1, 1, 1))
        return out


class _MaxUnpool(Cell):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return getattr(ops, self._fn)(x, indices, self.kernel_size, self.stride, self.padding,
                                      output_size)


class MaxUnpool1d(_MaxUnpool):
    """The inverse of MaxPool1d with ``return_indices``: values back at their positions of a
    zero (N, C, L_out) map (``ops.max_unpool1d``)."""
    _fn = "max_unpool1d"


class MaxUnpool3d(_MaxUnpool):
    """The inverse of MaxPool3d with ``return_indices`` (``ops.max_unpool3d``)."""
    _fn = "max_unpool3d"


class LRN(Cell):
    """Local response normalisation across channels (``ops.LRN``, ``ops.lrn``)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        self.lrn = ops.LRN(depth_radius, bias, alpha, beta, norm_region)

    def construct(self, x):
        return self.lrn(x)


class SyncBatchNorm(BatchNorm2d):
    """Batch normalisation of (N, C, H, W) inputs whose batch statistics are computed over
    every rank's batch in data-parallel training: the per-channel sums and counts, then
    the centred sums of squares, are all-reduced (two small all-reduces per call, with
    their gradients), so a step on R ranks of n samples normalises, and updates the
    moving statistics, as BatchNorm2d on the R * n samples does. ``process_groups``
    (lists of ranks) synchronises within each list instead. In one process it is exactly
    BatchNorm2d, as MindSpore's is on one device."""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, dtype=dtype)
        if process_groups is not None:
            if not isinstance(process_groups, (list, tuple)) or not all(
                    isinstance(g, (list, tuple)) and all(isinstance(r, int) for r in g)
                    for g in process_groups):
                raise TypeError("For 'SyncBatchNorm', the 'process_groups' must be a list of "
                                f"lists of rank ids, but got {process_groups!r}.")
            ranks = [r for g in process_groups for r in g]
            if len(set(ranks)) != len(ranks):
                raise ValueError("For 'SyncBatchNorm', a rank appears in two "
                                 f"'process_groups': {process_groups!r}.")
        self.process_groups = process_groups
        self._group = None

    def _rank_message(self, ndim):
        return f"For 'SyncBatchNorm', the in_shape must have 4 dims, but got {ndim}."

    def _sync_group(self):
        """The communication group to synchronise over, or None (one process, or this
        rank alone in its group)."""
        from ...communication import management as M
        if world_group_if_parallel() is None:
            return None
        if self._group is None:
            if self.process_groups is None:
                self._group = M.GlobalComm.WORLD_COMM_GROUP
            else:
                me, mine = M.get_rank(), None
                for k, ranks in enumerate(self.process_groups):   # collective: every rank
                    name = f"sync_bn_{id(self)}_{k}"              # creates every group
                    if len(ranks) > 1:
                        M.create_group(name, list(ranks))
                    if me in ranks:
                        mine = name if len(ranks) > 1 else ""
                self._group = mine if mine is not None else ""
        return self._group or None

    def construct(self, x):
        self._check_input(x)
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        group = self._sync_group() if use_batch else None
        if group is None:
            return super().construct(x)
        return synced_batch_norm(x, self.moving_mean, self.moving_variance, self.gamma,
                                 self.beta, self.momentum, self.eps, group)


def world_group_if_parallel():
    """The world group when communication is initialised over several ranks, else None."""
    from ...communication import management as M
    if not M.GlobalComm.INITED or M.get_group_size() == 1:
        return None
    return M.GlobalComm.WORLD_COMM_GROUP


def synced_batch_norm(x, running_mean, running_var, weight, bias, momentum, eps, group):
    """Batch normalisation over axis 1 with the statistics of every rank of ``group``'s
    batch: the per-channel sums and counts, then the centred sums of squares, are
    all-reduced (gradients flow through both). The running statistics (when given) move
    by ``momentum``, the new batch's weight, the variance unbiased."""
    from ...ops import AllReduce
    reduce = AllReduce(group=group)
    c = x.shape[1]
    axes = (0,) + tuple(range(2, x.ndim))
    per_channel = (1, c) + (1,) * (x.ndim - 2)
    xs = x.astype(float32)
    count = Tensor(np.array([x.size // c], np.float32))
    totals = reduce(ops.concat([xs.sum(axes), count]))
    n = totals[c]
    centred = xs - (totals[:c] / n).reshape(per_channel)
    var = reduce((centred * centred).sum(axes)) / n
    y = centred * ops.rsqrt(var + eps).reshape(per_channel)
    if weight is not None:
        y = y * weight.reshape(per_channel)
    if bias is not None:
        y = y + bias.reshape(per_channel)
    unbiased = var * (n / ops.maximum(n - 1, 1.0))
    for stat, value in ((running_mean, totals[:c] / n), (running_var, unbiased)):
        if stat is not None:
            ops.assign(stat, stat * (1.0 - momentum)
                       + ops.stop_gradient(value).astype(stat.dtype) * momentum)
    return y.astype(x.dtype)


def _image_pair(owner, img1, img2):
    for arg, img in (("img1", img1), ("img2", img2)):
        if not isinstance(img, Tensor):
            raise TypeError(f"For '{owner}', the '{arg}' must be a Tensor, but got "
                            f"{type(img).__name__}.")
        if img.ndim != 4:
            raise ValueError(f"For '{owner}', the '{arg}' must be 4-D (N, C, H, W), but got "
                             f"{img.ndim}-D.")
    if tuple(img1.shape) != tuple(img2.shape):
        raise ValueError(f"For '{owner}', 'img1' and 'img2' must have one shape, but got "
                         f"{list(img1.shape)} and {list(img2.shape)}.")
    if img1.dtype != img2.dtype:
        raise TypeError(f"For '{owner}', 'img1' and 'img2' must have one dtype, but got "
                        f"{img1.dtype} and {img2.dtype}.")
    dtype = img1.dtype if img1.dtype.is_floating_point else float32
    return img1.astype(dtype), img2.astype(dtype)


def _positive(owner, arg, value):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"For '{owner}', the '{arg}' must be a positive number, but got "
                         f"{value}.")
    return float(value)


class PSNR(Cell):
    """Peak signal-to-noise ratio of each image pair of (N, C, H, W) batches:
    ``10 log10(max_val^2 / mse)`` (N values)."""

    def __init__(self, max_val=1.0):
        super().__init__()
        self.max_val = _positive("PSNR", "max_val", max_val)

    def construct(self, img1, img2):
        a, b = _image_pair("PSNR", img1, img2)
        mse = ops.square(a - b).mean((1, 2, 3))
        return 10 * ops.log10(self.max_val ** 2 / mse)


def _gaussian(size, sigma):
    x = np.arange(size, dtype=np.float64) - (size - 1) / 2
    g = np.exp(-x * x / (2 * sigma * sigma))
    g /= g.sum()
    return np.outer(g, g)


class SSIM(Cell):
    """Structural similarity of each image pair of (N, C, H, W) batches (N values): local
    statistics under a ``filter_size`` Gaussian window of ``filter_sigma`` (no padding),
    ``c1 = (k1 max_val)^2``, ``c2 = (k2 max_val)^2``, averaged over channels and positions."""

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        self.max_val = _positive("SSIM", "max_val", max_val)
        if not isinstance(filter_size, int) or isinstance(filter_size, bool) or filter_size < 1:
            raise ValueError(f"For 'SSIM', the 'filter_size' must be a positive int, but got "
                             f"{filter_size}.")
        self.filter_size = filter_size
        self.filter_sigma = _positive("SSIM", "filter_sigma", filter_sigma)
        self.k1, self.k2 = _positive("SSIM", "k1", k1), _positive("SSIM", "k2", k2)

    def construct(self, img1, img2):
        a, b = _image_pair("SSIM", img1, img2)
        n, c, h, w = a.shape
        if h < self.filter_size or w < self.filter_size:
            raise ValueError(f"For 'SSIM', the images ({h}x{w}) must be at least as large as "
                             f"the filter ({self.filter_size}).")
        kernel = _gaussian(self.filter_size, self.filter_sigma).astype(a.dtype.np)
        weight = Tensor(np.broadcast_to(kernel, (c, 1) + kernel.shape).copy())

        def blur(t):
            return ops.conv2d(t, weight, None, 1, "valid", 0, 1, c)
        mu1, mu2 = blur(a), blur(b)
        mu11, mu22, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
        s11 = blur(a * a) - mu11
        s22 = blur(b * b) - mu22
        s12 = blur(a * b) - mu12
        c1 = (self.k1 * self.max_val) ** 2
        c2 = (self.k2 * self.max_val) ** 2
        luminance = (2 * mu12 + c1) / (mu11 + mu22 + c1)
        contrast = (2 * s12 + c2) / (s11 + s22 + c2)
        return (luminance * contrast).mean((1, 2, 3))


class MultilabelMarginLoss(LossBase):
    """Multi-label hinge loss (``ops.multilabel_margin_loss``)."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.reduction = reduction

    def construct(self, x, target):
        return ops.multilabel_margin_loss(x, target, self.reduction)


class TripletMarginWithDistanceLoss(LossBase):
    """``max(d(x, positive) - d(x, negative) + margin, 0)`` with ``distance_function`` (the
    pairwise Euclidean distance when None); ``swap`` uses ``min(d(x, n), d(p, n))``."""

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__(reduction)
        if distance_function is not None and not callable(distance_function):
            raise TypeError("For 'TripletMarginWithDistanceLoss', the 'distance_function' must "
                            "be callable or None.")
        if not isinstance(margin, numbers.Real) or margin < 0:
            raise ValueError(f"For 'TripletMarginWithDistanceLoss', the 'margin' must be a "
                             f"non-negative number, but got {margin}.")
        self.distance_function = distance_function
        self.swap, self.reduction, self.margin = bool(swap), reduction, float(margin)

    def _distance(self, a, b):
        if self.distance_function is not None:
            return self.distance_function(a, b)
        return ops.norm(a - b + 1e-6, 2, -1)

    def construct(self, x, positive, negative):
        d_pos = self._distance(x, positive)
        d_neg = self._distance(x, negative)
        if self.swap:
            d_neg = ops.minimum(d_neg, self._distance(positive, negative))
        return self.get_loss(ops.relu(d_pos - d_neg + self.margin))


def _bn_act(owner, activation, alpha):
    """MindSpore's activation argument of the *BnAct layers: a name (``'leakyrelu'`` takes
    ``alpha``), a Cell, or None."""
    if activation is None or isinstance(activation, Cell):
        return activation
    if not isinstance(activation, str):
        raise TypeError(f"For '{owner}', the 'activation' must be str, Cell or None, but got "
                        f"{type(activation).__name__}.")
    if activation.lower() == "leakyrelu":
        return LeakyReLU(alpha)
    return get_activation(activation)


class DenseBnAct(Cell):
    """Dense, then (``has_bn``) BatchNorm1d, then ``activation``: the children ``dense``,
    ``batchnorm`` and ``activation`` (MindSpore's parameter names). ``after_fake`` is a
    quantisation flag, accepted."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn = bool(has_bn)
        if self.has_bn:
            self.batchnorm = BatchNorm1d(out_channels, eps, momentum)
        self.activation = _bn_act("DenseBnAct", activation, alpha)
        self.after_fake = after_fake

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return x if self.activation is None else self.activation(x)


class Conv2dBnAct(Cell):
    """Conv2d, then (``has_bn``) BatchNorm2d (momentum 0.997 by default), then
    ``activation``: the children ``conv``, ``batchnorm`` and ``activation``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn = bool(has_bn)
        if self.has_bn:
            self.batchnorm = BatchNorm2d(out_channels, eps, momentum)
        self.activation = _bn_act("Conv2dBnAct", activation, alpha)
        self.after_fake = after_fake

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return x if self.activation is None else self.activation(x)
