"""Primitive classes of ``mindspore.ops`` named A-I that had no class yet: ``BatchNorm``
(MindSpore's five outputs), ``GatherV2``, ``DepthwiseConv2dNative``, the patch
extractors, TensorFlow's fractional pools and the fixed-window ones, ``IndexPut``,
``EmbeddingLookup``, ``FillV2``, ``CopyWithSlice``, ``CheckNumerics``, ``Coalesce``,
``DtypeToEnum``, ``DeformableOffsets``, ``ConfusionMatrix``, ``ComputeAccidentalHits``,
``FFTWithSize``, ``Assert``, ``FloatStatus``, ``DynamicShape``, the dropout mask pair and
the fused AdaFactor / weight-decay / momentum updates.

Each is a thin adapter over public ops or ``ops/_ops_a.py``.
"""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .. import _ops_a as F
from . import Primitive, _ops

__all__ = ["BatchNorm", "GatherV2", "DepthwiseConv2dNative", "ExtractImagePatches",
           "ExtractVolumePatches", "FractionalMaxPool", "FractionalAvgPool",
           "FractionalMaxPoolWithFixedKsize", "FractionalMaxPool3DWithFixedKsize", "IndexPut",
           "EmbeddingLookup", "FillV2", "CopyWithSlice", "CheckNumerics", "Coalesce",
           "DtypeToEnum", "DeformableOffsets", "ConfusionMatrix", "ComputeAccidentalHits",
           "FFTWithSize", "Assert", "FloatStatus", "DynamicShape", "DropoutGenMask",
           "DropoutDoMask", "FusedAdaFactor", "FusedAdaFactorWithGlobalNorm",
           "FusedCastAdamWeightDecay", "FusedWeightScaleApplyMomentum", "DumpGradient", "ExtractGlimpse"]


def _check(cond, exc, message):
    if not cond:
        raise exc(message)


def _bool(op, arg, value):
    _check(isinstance(value, bool), TypeError,
           f"For '{op}', the '{arg}' must be a bool, but got {type(value).__name__}.")
    return value


def _int(op, arg, value):
    _check(isinstance(value, (int, np.integer)) and not isinstance(value, bool), TypeError,
           f"For '{op}', the '{arg}' must be an int, but got {type(value).__name__}.")
    return int(value)


# ----------------------------------------------------------------- normalisation
class BatchNorm(Primitive):
    """``BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format='NCHW')
    (input_x, scale, bias, mean, variance)`` -> ``(y, batch_mean, batch_variance,
    reserve_space_1, reserve_space_2)``.

    Training normalises with the batch statistics and updates ``mean``/``variance`` in
    place (``new = (1 - momentum) * old + momentum * batch``, the unbiased batch variance);
    inference normalises with ``mean``/``variance``. As MindSpore's CPU kernel, outputs 1
    and 2 are zeros, and outputs 3 and 4 hold the batch mean and biased variance in training
    (zeros in inference)."""

    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        super().__init__()
        op = "BatchNorm"
        self.is_training = _bool(op, "is_training", is_training)
        _check(isinstance(epsilon, float) and 0 < epsilon <= 1, ValueError,
               f"For '{op}', the 'epsilon' must be a float in (0, 1], but got {epsilon!r}.")
        _check(isinstance(momentum, (int, float)) and 0 <= momentum <= 1, ValueError,
               f"For '{op}', the 'momentum' must be in [0, 1], but got {momentum!r}.")
        _check(data_format in ("NCHW", "NHWC"), ValueError,
               f"For '{op}', the 'data_format' must be 'NCHW' or 'NHWC', but got "
               f"{data_format!r}.")
        self.epsilon, self.momentum, self.data_format = epsilon, float(momentum), data_format

    def __call__(self, input_x, scale, bias, mean, variance):
        from ..._prims.nn import batch_norm_p
        from ..._prims.nn.bessel import bessel_correction_p
        ops = _ops()
        for arg, v in (("input_x", input_x), ("scale", scale), ("bias", bias), ("mean", mean),
                       ("variance", variance)):
            F._tensor("BatchNorm", arg, v)
        _check(input_x.ndim >= 2, ValueError,
               f"For 'BatchNorm', the 'input_x' must have at least 2 dimensions, but got shape "
               f"{list(input_x.shape)}.")
        last = self.data_format == "NHWC" and input_x.ndim > 2
        x = ops.movedim(input_x, -1, 1) if last else input_x
        c = x.shape[1]
        for arg, v in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance)):
            _check(tuple(v.shape) == (c,), ValueError,
                   f"For 'BatchNorm', the '{arg}' must have shape [{c}], but got "
                   f"{list(v.shape)}.")
        zeros = ops.zeros((c,), D.float32)
        if self.is_training:
            y, batch_mean, batch_var = batch_norm_p(x, scale, bias, eps=float(self.epsilon))
            count = x.size // c
            mom = self.momentum
            ops.assign(mean, mean * (1 - mom) + ops.stop_gradient(batch_mean) * mom)
            unbiased = bessel_correction_p(ops.stop_gradient(batch_var), count=count)
            ops.assign(variance, variance * (1 - mom) + unbiased * mom)
            saved = (batch_mean.astype(D.float32), batch_var.astype(D.float32))
        else:
            y = ops.batch_norm(x, mean, variance, scale, bias, False, self.momentum,
                               self.epsilon)
            saved = (zeros, zeros)
        if last:
            y = ops.movedim(y, 1, -1)
        return y, zeros, zeros, saved[0], saved[1]


# ----------------------------------------------------------------- gathers and writes
class GatherV2(Primitive):
    """``GatherV2()(input_params, input_indices, axis, batch_dims=0)``: the deprecated name
    of ``ops.Gather``."""

    def __call__(self, input_params, input_indices, axis, batch_dims=0):
        return _ops().gather(input_params, input_indices, axis, batch_dims)


class IndexPut(Primitive):
    """``IndexPut(accumulate=0)(x1, x2, indices)``: ``x1`` with ``x1[indices] = x2`` (or
    ``+=`` when ``accumulate`` is 1); ``indices`` is a tuple/list of integer Tensors."""

    def __init__(self, accumulate=0):
        super().__init__()
        acc = _int("IndexPut", "accumulate", accumulate)
        _check(acc in (0, 1), ValueError,
               f"For 'IndexPut', the 'accumulate' must be 0 or 1, but got {accumulate}.")
        self.accumulate = acc

    def __call__(self, x1, x2, indices):
        F._tensor("IndexPut", "x1", x1)
        F._tensor("IndexPut", "x2", x2)
        _check(isinstance(indices, (tuple, list)) and indices, TypeError,
               f"For 'IndexPut', the 'indices' must be a non-empty tuple or list of Tensors, but "
               f"got {type(indices).__name__}.")
        _check(x2.dtype == x1.dtype, TypeError,
               f"For 'IndexPut', the 'x2' must have the dtype of 'x1' ({x1.dtype}), but got "
               f"{x2.dtype}.")
        return _ops().index_put(x1, tuple(indices), x2, bool(self.accumulate))


class EmbeddingLookup(Primitive):
    """``EmbeddingLookup()(input_params, input_indices, offset)``: rows
    ``input_indices - offset`` of ``input_params``; indices out of range read zeros."""

    def __call__(self, input_params, input_indices, offset):
        ops = _ops()
        F._tensor("EmbeddingLookup", "input_params", input_params)
        F._tensor("EmbeddingLookup", "input_indices", input_indices)
        _check(input_indices.dtype in (D.int32, D.int64), TypeError,
               f"For 'EmbeddingLookup', the 'input_indices' must be Int32 or Int64, but got "
               f"{input_indices.dtype}.")
        off = _int("EmbeddingLookup", "offset", offset)
        rows = input_params.shape[0]
        local = input_indices.astype(D.int64) - off
        inside = (local >= 0) & (local < rows)
        picked = ops.gather(input_params, ops.where(inside, local, 0), 0)
        mask = inside.reshape(tuple(inside.shape) + (1,) * (input_params.ndim - 1))
        return ops.where(mask, picked, ops.zeros((), input_params.dtype))


class FillV2(Primitive):
    """``FillV2()(shape, value)``: a tensor of ``shape`` (a tuple or 1-D integer Tensor)
    filled with the 0-D Tensor ``value``, in its dtype."""

    def __call__(self, shape, value):
        F._tensor("FillV2", "value", value)
        _check(value.ndim == 0 or value.size == 1, ValueError,
               f"For 'FillV2', the 'value' must be a 0-D Tensor, but got shape "
               f"{list(value.shape)}.")
        if isinstance(shape, Tensor):
            _check(shape.dtype in (D.int32, D.int64) and shape.ndim == 1, TypeError,
                   f"For 'FillV2', the 'shape' Tensor must be 1-D Int32 or Int64, but got "
                   f"{shape.dtype} of rank {shape.ndim}.")
            shape = tuple(int(v) for v in shape.asnumpy())
        _check(isinstance(shape, (tuple, list)) and all(isinstance(v, int) and v >= 0
                                                        for v in shape), ValueError,
               f"For 'FillV2', the 'shape' must be non-negative ints, but got {shape!r}.")
        return _ops().broadcast_to(value.reshape(()), tuple(shape)).copy()


class CopyWithSlice(Primitive):
    """``CopyWithSlice()(self, src)``: copy ``src`` (broadcast) into the tensor ``self``
    in place and return it."""

    def __call__(self, x, src):
        F._tensor("CopyWithSlice", "self", x)
        F._tensor("CopyWithSlice", "src", src)
        _ops().assign(x, _ops().broadcast_to(src.astype(x.dtype), tuple(x.shape)))
        return x


class CheckNumerics(Primitive):
    """``CheckNumerics()(x)``: ``x`` itself; a RuntimeError when it holds NaN or Inf."""

    def __call__(self, x):
        F._tensor("CheckNumerics", "x", x)
        _check(x.dtype in (D.float16, D.float32, D.float64), TypeError,
               f"For 'CheckNumerics', the 'x' must be Float16, Float32 or Float64, but got "
               f"{x.dtype}.")
        data = x.asnumpy()
        if np.isnan(data).any():
            raise RuntimeError("For 'CheckNumerics', the Tensor had NaN values.")
        if np.isinf(data).any():
            raise RuntimeError("For 'CheckNumerics', the Tensor had Inf values.")
        return x


class Coalesce(Primitive):
    """``Coalesce()(x_indices, x_values, x_shape)``: ``ops.coalesce``."""

    def __call__(self, x_indices, x_values, x_shape):
        return F.coalesce(x_indices, x_values, x_shape)


# MindSpore's TypeId numbers (mindspore/core/ir/dtype/type_id.h)
_TYPE_IDS = {D.bool_: 30, D.int8: 32, D.int16: 33, D.int32: 34, D.int64: 35, D.uint8: 37,
             D.uint16: 38, D.uint32: 39, D.uint64: 40, D.float16: 42, D.float32: 43,
             D.float64: 44, D.bfloat16: 45, D.complex64: 51, D.complex128: 52}


class DtypeToEnum(Primitive):
    """``DtypeToEnum()(op_name, arg_name, dtype)``: MindSpore's type-id number of
    ``dtype`` (Float32 is 43)."""

    def __call__(self, op_name, arg_name, dtype):
        if not isinstance(dtype, D.DType) or dtype not in _TYPE_IDS:
            raise TypeError(f"For '{op_name}' (DtypeToEnum), the input '{arg_name}' should be "
                            f"mindspore dtype, but got {dtype}.")
        return _TYPE_IDS[dtype]


# ----------------------------------------------------------------- convolution and patches
class DepthwiseConv2dNative(Primitive):
    """``DepthwiseConv2dNative(channel_multiplier, kernel_size, mode=3, pad_mode='valid',
    pad=0, stride=1, dilation=1, group=1)(x, weight)``: each channel convolved with its own
    ``channel_multiplier`` filters; ``weight`` is (multiplier, C, kh, kw)."""

    def __init__(self, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0,
                 stride=1, dilation=1, group=1):
        super().__init__()
        op = "DepthwiseConv2dNative"
        self.channel_multiplier = _int(op, "channel_multiplier", channel_multiplier)
        _check(self.channel_multiplier > 0, ValueError,
               f"For '{op}', the 'channel_multiplier' must be positive, but got "
               f"{channel_multiplier}.")
        self.kernel_size = self._pair(op, "kernel_size", kernel_size)
        _check(mode == 3, ValueError, f"For '{op}', the 'mode' must be 3, but got {mode}.")
        _check(pad_mode in ("valid", "same", "pad"), ValueError,
               f"For '{op}', the 'pad_mode' must be 'valid', 'same' or 'pad', but got "
               f"{pad_mode!r}.")
        self.pad_mode = pad_mode
        pads = (pad,) * 4 if isinstance(pad, int) else tuple(pad)
        _check(len(pads) == 4 and all(isinstance(p, int) and p >= 0 for p in pads), ValueError,
               f"For '{op}', the 'pad' must be an int or 4 non-negative ints, but got {pad!r}.")
        _check(pad_mode == "pad" or not any(pads), ValueError,
               f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but got "
               f"{pad!r}.")
        self.pad = pads
        self.stride = self._pair(op, "stride", stride)
        self.dilation = self._pair(op, "dilation", dilation)
        self.group = group

    @staticmethod
    def _pair(op, arg, value):
        values = (value,) * 2 if isinstance(value, int) else tuple(value)
        if len(values) == 4:
            values = values[2:]
        _check(len(values) == 2 and all(isinstance(v, int) and v > 0 for v in values),
               ValueError, f"For '{op}', the '{arg}' must be a positive int or a tuple of 2 "
                           f"(or 4) positive ints, but got {value!r}.")
        return values

    def __call__(self, x, weight):
        return F._depthwise_conv2d_native(x, weight, self.channel_multiplier, self.kernel_size,
                                          self.pad_mode, self.pad, self.stride, self.dilation)


class ExtractImagePatches(Primitive):
    """``ExtractImagePatches(ksizes, strides, rates, padding='VALID')(input_x)``: NCHW
    patches, (N, kh * kw * C, out_h, out_w), channels fastest within a patch."""

    def __init__(self, ksizes, strides, rates, padding="VALID"):
        super().__init__()
        op = "ExtractImagePatches"
        self.ksizes = F._window_arg(op, "ksizes", ksizes, 2)
        self.strides = F._window_arg(op, "strides", strides, 2)
        self.rates = F._window_arg(op, "rates", rates, 2)
        self.padding = F._padding_name(op, padding)

    def __call__(self, input_x):
        return F._extract_image_patches(input_x, self.ksizes, self.strides, self.rates,
                                        self.padding)


class ExtractVolumePatches(Primitive):
    """``ExtractVolumePatches(kernel_size, strides, padding)(input_x)``: NCDHW patches,
    (N, kd * kh * kw * C, out_d, out_h, out_w), channels fastest within a patch."""

    def __init__(self, kernel_size, strides, padding):
        super().__init__()
        op = "ExtractVolumePatches"
        self.kernel_size = F._window_arg(op, "kernel_size", kernel_size, 3)
        self.strides = F._window_arg(op, "strides", strides, 3)
        self.padding = F._padding_name(op, padding)

    def __call__(self, input_x):
        return F._extract_volume_patches(input_x, self.kernel_size, self.strides, self.padding)


class DeformableOffsets(Primitive):
    """``DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format='NCHW',
    deformable_groups=1, modulated=True)(x, offsets)``: the deformed taps of every output
    position, (N, C, H_out * kh, W_out * kw), ready for a stride-``ksize`` convolution."""

    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW",
                 deformable_groups=1, modulated=True):
        super().__init__()
        self.strides, self.pads, self.ksize = strides, pads, ksize
        self.dilations, self.data_format = dilations, data_format
        self.deformable_groups = _int("DeformableOffsets", "deformable_groups", deformable_groups)
        self.modulated = _bool("DeformableOffsets", "modulated", modulated)

    def __call__(self, x, offsets):
        kernel, st, pd, dl, g = F._deformable_args(
            "DeformableOffsets", x, offsets, self.ksize, self.strides, self.pads,
            self.dilations, self.deformable_groups, self.data_format)
        return F._deformable_offsets(x, offsets, kernel, st, pd, dl, g, self.modulated)


# ----------------------------------------------------------------- fractional pooling
class _TFFractional(Primitive):
    _fn = None

    def __init__(self, pooling_ratio, pseudo_random=False, overlapping=False,
                 deterministic=False, seed=0, seed2=0):
        super().__init__()
        op = type(self).__name__
        _check(isinstance(pooling_ratio, (tuple, list)) and len(pooling_ratio) == 4, ValueError,
               f"For '{op}', the 'pooling_ratio' must be a tuple or list of 4 floats, but got "
               f"{pooling_ratio!r}.")
        self.pooling_ratio = tuple(float(r) for r in pooling_ratio)
        self.pseudo_random = _bool(op, "pseudo_random", pseudo_random)
        self.overlapping = _bool(op, "overlapping", overlapping)
        self.deterministic = _bool(op, "deterministic", deterministic)
        self.seed, self.seed2 = _int(op, "seed", seed), _int(op, "seed2", seed2)

    def __call__(self, x):
        return type(self)._fn(x, self.pooling_ratio, self.pseudo_random, self.overlapping,
                              self.deterministic, self.seed, self.seed2)


class FractionalMaxPool(_TFFractional):
    """``FractionalMaxPool(pooling_ratio, pseudo_random=False, overlapping=False,
    deterministic=False, seed=0, seed2=0)(x)``: NHWC fractional max pooling ->
    ``(y, row_pooling_sequence, col_pooling_sequence)`` (Int64 window boundaries). The
    sequences are random (NumPy's generator, so not TensorFlow's numbers for a seed)."""
    _fn = staticmethod(F._tf_fractional_max_pool)


class FractionalAvgPool(_TFFractional):
    """``FractionalAvgPool(...)(x)``: as ``FractionalMaxPool`` with window means."""
    _fn = staticmethod(F._tf_fractional_avg_pool)


class _FixedKsize(Primitive):
    _nd = 2
    _format = "NCHW"

    def __init__(self, ksize, output_shape, data_format=None):
        super().__init__()
        op, nd = type(self).__name__, self._nd
        from .._nn._args import int_tuple
        self.ksize = int_tuple(op, "ksize", ksize, nd)
        self.output_shape = int_tuple(op, "output_shape", output_shape, nd)
        fmt = data_format or self._format
        _check(fmt == self._format, ValueError,
               f"For '{op}', the 'data_format' must be '{self._format}', but got {fmt!r}.")
        self.data_format = fmt

    def __call__(self, x, random_samples):
        op = type(self).__name__
        F._float_tensor(op, "x", x, (self._nd + 1, self._nd + 2))
        F._float_tensor(op, "random_samples", random_samples, (3,))
        fn = F.fractional_max_pool2d if self._nd == 2 else F.fractional_max_pool3d
        return fn(x, self.ksize, self.output_shape, None, True, random_samples)


class FractionalMaxPoolWithFixedKsize(_FixedKsize):
    """``FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format='NCHW')(x,
    random_samples)`` -> ``(y, argmax)``: ``ops.fractional_max_pool2d``."""


class FractionalMaxPool3DWithFixedKsize(_FixedKsize):
    """``FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format='NCDHW')(x,
    random_samples)`` -> ``(y, argmax)``: ``ops.fractional_max_pool3d``."""
    _nd = 3
    _format = "NCDHW"


# ----------------------------------------------------------------- metrics and sampling
class ConfusionMatrix(Primitive):
    """``ConfusionMatrix(num_classes, dtype='int32')(labels, predictions, weights=None)``:
    ``out[labels[i], predictions[i]] += weights[i]`` (1 without weights)."""

    def __init__(self, num_classes, dtype="int32"):
        super().__init__()
        self.num_classes = _int("ConfusionMatrix", "num_classes", num_classes)
        _check(isinstance(dtype, str), TypeError,
               f"For 'ConfusionMatrix', the 'dtype' must be a str, but got "
               f"{type(dtype).__name__}.")
        self.dtype = dtype

    def __call__(self, labels, predictions, weights=None):
        op = "ConfusionMatrix"
        ops = _ops()
        for arg, v in (("labels", labels), ("predictions", predictions)):
            F._tensor(op, arg, v, (1,))
            _check(not v.dtype.is_floating_point and not v.dtype.is_complex
                   and v.dtype != D.bool_, TypeError,
                   f"For '{op}', the '{arg}' must be an integer Tensor, but got {v.dtype}.")
        _check(labels.shape == predictions.shape, ValueError,
               f"For '{op}', the 'labels' and 'predictions' must have the same shape, but got "
               f"{list(labels.shape)} and {list(predictions.shape)}.")
        n = self.num_classes
        lab, pred = labels.asnumpy(), predictions.asnumpy()
        _check(((lab >= 0) & (lab < n) & (pred >= 0) & (pred < n)).all(), ValueError,
               f"For '{op}', the labels and predictions must be in [0, {n}).")
        if weights is None:
            out_dtype = D.resolve(self.dtype)
            weights = ops.ones(labels.shape, out_dtype)
        else:
            F._tensor(op, "weights", weights, (1,))
            out_dtype = weights.dtype
        index = Tensor(np.stack([lab, pred], axis=1).astype(np.int64))
        return ops.tensor_scatter_add(ops.zeros((n, n), out_dtype), index,
                                      weights.astype(out_dtype))


class ComputeAccidentalHits(Primitive):
    """``ComputeAccidentalHits(num_true=1)(true_classes, sampled_candidates)`` ->
    ``(indices, ids, weights)``: for each row i and sampled position j where
    ``sampled_candidates[j]`` is one of the row's true classes, the pair ``(i, j)`` and
    weight ``-FLT_MAX`` (float32), to subtract from the sampled logits."""

    def __init__(self, num_true=1):
        super().__init__()
        self.num_true = _int("ComputeAccidentalHits", "num_true", num_true)

    def __call__(self, true_classes, sampled_candidates):
        op = "ComputeAccidentalHits"
        F._tensor(op, "true_classes", true_classes, (2,))
        F._tensor(op, "sampled_candidates", sampled_candidates, (1,))
        _check(true_classes.shape[1] == self.num_true, ValueError,
               f"For '{op}', the 'true_classes' must have {self.num_true} columns (num_true), "
               f"but got shape {list(true_classes.shape)}.")
        _check(true_classes.dtype == sampled_candidates.dtype and true_classes.dtype in
               (D.int32, D.int64), TypeError,
               f"For '{op}', the 'true_classes' and 'sampled_candidates' must both be Int32 or "
               f"both Int64, but got {true_classes.dtype} and {sampled_candidates.dtype}.")
        true = true_classes.asnumpy()
        sampled = sampled_candidates.asnumpy()
        rows, cols = np.nonzero((true[:, :, None] == sampled[None, None, :]).any(axis=1))
        dt = true_classes.dtype
        return (Tensor(rows.astype(dt.np)), Tensor(cols.astype(dt.np)),
                Tensor(np.full(rows.shape, -np.finfo(np.float32).max, np.float32)))


# ----------------------------------------------------------------- FFT
class FFTWithSize(Primitive):
    """``FFTWithSize(signal_ndim, inverse, real, norm='backward', onesided=True,
    signal_sizes=())(x)``: the complex (``real=False``), real-to-complex (``real``, forward)
    or complex-to-real (``real``, ``inverse``) FFT over the last ``signal_ndim`` axes."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True,
                 signal_sizes=()):
        super().__init__()
        op = "FFTWithSize"
        self.signal_ndim = _int(op, "signal_ndim", signal_ndim)
        _check(1 <= self.signal_ndim <= 3, ValueError,
               f"For '{op}', the 'signal_ndim' must be 1, 2 or 3, but got {signal_ndim}.")
        self.inverse, self.real = _bool(op, "inverse", inverse), _bool(op, "real", real)
        _check(norm in ("backward", "forward", "ortho"), ValueError,
               f"For '{op}', the 'norm' must be 'backward', 'forward' or 'ortho', but got "
               f"{norm!r}.")
        self.norm, self.onesided = norm, _bool(op, "onesided", onesided)
        self.signal_sizes = tuple(signal_sizes)

    def __call__(self, x):
        op = "FFTWithSize"
        ops = _ops()
        F._tensor(op, "x", x)
        nd = self.signal_ndim
        _check(x.ndim >= nd, ValueError,
               f"For '{op}', the 'x' must have at least {nd} dimensions, but got shape "
               f"{list(x.shape)}.")
        dims = tuple(range(-nd, 0))
        if not self.real:
            fn = ops.ifftn if self.inverse else ops.fftn
            return fn(x.astype(D.complex64) if not x.dtype.is_complex else x, None, dims,
                      self.norm)
        if not self.inverse:
            if self.onesided:
                return ops.rfftn(x, None, dims, self.norm)
            return ops.fftn(x.astype(D.complex64), None, dims, self.norm)
        sizes = self.signal_sizes or None
        if sizes is not None:
            _check(len(sizes) == nd, ValueError,
                   f"For '{op}', the 'signal_sizes' must have {nd} sizes, but got "
                   f"{list(self.signal_sizes)}.")
        if self.onesided:
            return ops.irfftn(x, sizes, dims, self.norm)
        return ops.real(ops.ifftn(x, sizes, dims, self.norm))


# ----------------------------------------------------------------- checks and status
class Assert(Primitive):
    """``Assert(summarize=3)(condition, input_data)``: nothing when ``condition`` is True;
    otherwise prints the first ``summarize`` values of each input and raises
    RuntimeError."""

    def __init__(self, summarize=3):
        super().__init__()
        self.summarize = _int("Assert", "summarize", summarize)

    def __call__(self, condition, input_data):
        cond = condition.asnumpy() if isinstance(condition, Tensor) else np.asarray(condition)
        _check(cond.dtype == np.bool_ and cond.size == 1, TypeError,
               "For 'Assert', the 'condition' must be a bool scalar or a Bool Tensor of one "
               "element.")
        _check(isinstance(input_data, (tuple, list)), TypeError,
               f"For 'Assert', the 'input_data' must be a tuple or list of Tensors, but got "
               f"{type(input_data).__name__}.")
        if bool(cond.reshape(())):
            return None
        print("For 'Assert' condition is false.")
        for t in input_data:
            data = t.asnumpy() if isinstance(t, Tensor) else np.asarray(t)
            print("input data:", data.reshape(-1)[:self.summarize])
        raise RuntimeError("For 'Assert', the condition is false.")


class FloatStatus(Primitive):
    """``FloatStatus()(x)``: a (1,) tensor of ``x``'s dtype, 1 when ``x`` holds NaN or Inf,
    else 0."""

    def __call__(self, x):
        F._float_tensor("FloatStatus", "x", x)
        bad = not np.isfinite(x.asnumpy()).all()
        return Tensor(np.array([1.0 if bad else 0.0], x._data.dtype))


class DynamicShape(Primitive):
    """``DynamicShape(dtype=9)()(input_x)``: the shape as a 1-D Int64 Tensor (the
    deprecated ``TensorShape``)."""

    def __init__(self, dtype=9):
        super().__init__()
        self.dtype = dtype

    def __call__(self, input_x):
        F._tensor("DynamicShape", "input_x", input_x)
        return Tensor(np.array(input_x.shape, np.int64))


# ----------------------------------------------------------------- dropout mask pair
class DropoutGenMask(Primitive):
    """``DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob)``: a packed keep-mask for
    ``prod(shape)`` elements, each kept with probability ``keep_prob``: one bit per element
    in UInt8 bytes (little-endian bit order), padded to a multiple of 128 bits."""

    def __init__(self, Seed0=0, Seed1=0):
        super().__init__()
        self.Seed0 = _int("DropoutGenMask", "Seed0", Seed0)
        self.Seed1 = _int("DropoutGenMask", "Seed1", Seed1)

    def __call__(self, shape, keep_prob):
        from ... import _random
        op = "DropoutGenMask"
        _check(isinstance(shape, tuple) and all(isinstance(v, int) for v in shape), TypeError,
               f"For '{op}', the 'shape' must be a tuple of ints, but got {shape!r}.")
        p = _scalar(op, "keep_prob", keep_prob)
        _check(0 <= p <= 1, ValueError,
               f"For '{op}', the 'keep_prob' must be in [0, 1], but got {p}.")
        count = int(np.prod(shape, dtype=np.int64))
        bits = -(-count // 128) * 128
        seed = (self.Seed0, self.Seed1) != (0, 0)
        key = _random.next_key(_random.mix(self.Seed0, self.Seed1) if seed else None)
        keep = _random.generator(key).random(bits) < p
        keep[count:] = False
        return Tensor(np.packbits(keep, bitorder="little"))


class DropoutDoMask(Primitive):
    """``DropoutDoMask()(input_x, mask, keep_prob)``: ``input_x * keep / keep_prob`` with
    the keep bits of a ``DropoutGenMask`` mask."""

    def __call__(self, input_x, mask, keep_prob):
        op = "DropoutDoMask"
        F._float_tensor(op, "input_x", input_x)
        F._tensor(op, "mask", mask, (1,))
        _check(mask.dtype == D.uint8, TypeError,
               f"For '{op}', the 'mask' must be UInt8, but got {mask.dtype}.")
        count = input_x.size
        _check(mask.size * 8 >= count, ValueError,
               f"For '{op}', the 'mask' holds {mask.size * 8} bits, fewer than the "
               f"{count} elements of 'input_x'.")
        keep = np.unpackbits(mask.asnumpy(), bitorder="little")[:count]
        keep = Tensor(keep.reshape(input_x.shape).astype(input_x._data.dtype))
        p = _scalar(op, "keep_prob", keep_prob)
        _check(0 < p <= 1, ValueError,
               f"For '{op}', the 'keep_prob' must be in (0, 1], but got {p}.")
        return input_x * keep / p


# ----------------------------------------------------------------- fused updates
def _scalar(op, arg, v):
    """A number from a Python number or a one-element Tensor (TypeError naming ``op``)."""
    if isinstance(v, Tensor) and v.size == 1 and not v.dtype.is_complex:
        return float(v.asnumpy().reshape(-1)[0])
    if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
        return float(v)
    raise TypeError(f"For '{op}', the '{arg}' must be a number or a one-element Tensor, but "
                    f"got {type(v).__name__}.")


class FusedAdaFactor(Primitive):
    """``FusedAdaFactor(enable_scale_parameter=False, enable_first_moment=False,
    enable_weight_decay=False)(epsilon, clip_threshold, beta1, beta2, weight_decay,
    learning_rate, gradient, param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq)``:
    one AdaFactor step (Shazeer & Stern 2018) updating ``param`` and the moment Parameters
    in place; factored second moments (row/col) for 2-D and larger parameters."""
    _global_norm = False

    def __init__(self, enable_scale_parameter=False, enable_first_moment=False,
                 enable_weight_decay=False):
        super().__init__()
        op = type(self).__name__
        self.enable_scale_parameter = _bool(op, "enable_scale_parameter", enable_scale_parameter)
        self.enable_first_moment = _bool(op, "enable_first_moment", enable_first_moment)
        self.enable_weight_decay = _bool(op, "enable_weight_decay", enable_weight_decay)

    def __call__(self, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate,
                 gradient, param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq,
                 *global_norm):
        from .._ops_a_optim import _adafactor_step
        op = type(self).__name__
        _check(len(global_norm) == int(self._global_norm), TypeError,
               f"For '{op}', {12 + int(self._global_norm)} inputs are required.")
        eps = epsilon.asnumpy().reshape(-1) if isinstance(epsilon, Tensor) else epsilon
        _check(isinstance(eps, (tuple, list, np.ndarray)) and len(eps) == 2
               and all(isinstance(e, (int, float, np.number)) for e in eps), TypeError,
               f"For '{op}', the 'epsilon' must hold two numbers, but got {epsilon!r}.")
        lr = learning_rate if isinstance(learning_rate, Tensor) else \
            _scalar(op, "learning_rate", learning_rate)
        if isinstance(lr, Tensor):
            _scalar(op, "learning_rate", lr)
        _adafactor_step(op, (float(eps[0]), float(eps[1])),
                        _scalar(op, "clip_threshold", clip_threshold),
                        _scalar(op, "beta1", beta1), _scalar(op, "beta2", beta2),
                        _scalar(op, "weight_decay", weight_decay), lr, gradient, param, exp_avg,
                        exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq,
                        self.enable_scale_parameter, self.enable_first_moment,
                        self.enable_weight_decay,
                        _scalar(op, "global_norm", global_norm[0]) if global_norm else None)
        return param


class FusedAdaFactorWithGlobalNorm(FusedAdaFactor):
    """``FusedAdaFactor`` with a 13th input ``global_norm``: the gradient is divided by it
    first when it exceeds 1."""
    _global_norm = True


class FusedCastAdamWeightDecay(Primitive):
    """``FusedCastAdamWeightDecay(use_locking=False)(var, m, v, lr, beta1, beta2, epsilon,
    decay, gradient, global_norm)``: AdamWeightDecay on a Float32 (or Float16) ``var`` with
    a Float16 or Float32 ``gradient`` divided by ``global_norm`` (when above 1):
    ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``var -= lr * (m / (sqrt(v) + eps) + decay * var)``; returns ``(var, m, v)``."""

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = _bool("FusedCastAdamWeightDecay", "use_locking", use_locking)

    def __call__(self, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
        from .._ops_a_optim import _cast_adam_weight_decay
        op = "FusedCastAdamWeightDecay"
        return _cast_adam_weight_decay(var, m, v, _scalar(op, "lr", lr),
                                       _scalar(op, "beta1", beta1), _scalar(op, "beta2", beta2),
                                       _scalar(op, "epsilon", epsilon),
                                       _scalar(op, "decay", decay), gradient,
                                       _scalar(op, "global_norm", global_norm))


class FusedWeightScaleApplyMomentum(Primitive):
    """``FusedWeightScaleApplyMomentum()(weight_decay, loss_scale, variable, accumulation,
    learning_rate, gradient, momentum)``: momentum with weight decay and a gradient scale
    (MindSpore's GPU kernel): ``g = (gradient + weight_decay * variable) * loss_scale``,
    ``accumulation = momentum * accumulation + g``, ``variable -= learning_rate *
    accumulation``; returns ``variable``."""

    def __call__(self, weight_decay, loss_scale, variable, accumulation, learning_rate,
                 gradient, momentum):
        from .._ops_a_optim import _weight_scale_momentum
        op = "FusedWeightScaleApplyMomentum"
        return _weight_scale_momentum(_scalar(op, "weight_decay", weight_decay),
                                      _scalar(op, "loss_scale", loss_scale), variable,
                                      accumulation, _scalar(op, "learning_rate", learning_rate),
                                      gradient, _scalar(op, "momentum", momentum))


class DumpGradient(Primitive):
    """``DumpGradient()(path, x, input_output)``: ``x`` itself; during backpropagation the
    gradient reaching it is saved to ``<path stem>_<dtype>_<n>.npy`` (n counts the dumps
    to ``path``), as MindSpore does."""

    def __call__(self, path, x, input_output):
        from ..._prims.ops_a import dump_gradient_p
        _check(isinstance(path, str) and path, TypeError,
               f"For 'DumpGradient', the 'path' must be a non-empty str, but got {path!r}.")
        _check(input_output in ("in", "out"), ValueError,
               f"For 'DumpGradient', the 'input_output' must be 'in' or 'out', but got "
               f"{input_output!r}.")
        F._tensor("DumpGradient", "x", x)
        return dump_gradient_p(x, path=path)


class ExtractGlimpse(Primitive):
    """``ExtractGlimpse(centered=True, normalized=True, uniform_noise=True,
    noise='uniform')(x, size, offsets)``: (N, size[0], size[1], C) windows of NHWC ``x``
    centred at ``offsets`` (N, 2) of (y, x); pixels outside the image are noise
    (``'uniform'``, ``'gaussian'`` or ``'zero'``; ``uniform_noise`` forces uniform)."""

    def __init__(self, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
        super().__init__()
        op = "ExtractGlimpse"
        self.centered = _bool(op, "centered", centered)
        self.normalized = _bool(op, "normalized", normalized)
        self.uniform_noise = _bool(op, "uniform_noise", uniform_noise)
        _check(noise in ("uniform", "gaussian", "zero"), ValueError,
               f"For '{op}', the 'noise' must be 'uniform', 'gaussian' or 'zero', but got "
               f"{noise!r}.")
        _check(not (uniform_noise and noise != "uniform"), ValueError,
               f"For '{op}', the 'noise' must be 'uniform' when 'uniform_noise' is True, but "
               f"got {noise!r}.")
        self.noise = noise

    def __call__(self, x, size, offsets):
        kind = "uniform" if self.uniform_noise else self.noise
        return F._extract_glimpse(x, size, offsets, self.centered, self.normalized, kind)
