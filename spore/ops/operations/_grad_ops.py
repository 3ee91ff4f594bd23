"""``mindspore.ops.operations._grad_ops`` (imported as ``G`` by MindSpore's tests): the
backward primitives as classes, with MindSpore's argument orders.

Each is an adapter: an existing gradient primitive where Spore has one (``ReluGrad``,
``TanhGrad``, ``SoftmaxGrad``, ``LogSoftmaxGrad``), the derivative formula written with
public ops for the elementwise ones, and for the layer gradients (pooling, convolution
filter) the vector-Jacobian product of the forward op, so they agree with the gradients
Spore's autodiff computes.
"""
from __future__ import annotations

from . import AvgPool, Conv2D, MaxPool, Primitive, _ops

__all__ = ["ReluGrad", "ReLU6Grad", "TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad",
           "ReciprocalGrad", "InvGrad", "SoftplusGrad", "SiLUGrad", "HSigmoidGrad",
           "HSwishGrad", "SoftShrinkGrad", "HShrinkGrad", "AsinGrad", "ACosGrad", "AtanGrad",
           "AsinhGrad", "AcoshGrad", "SoftmaxGrad", "LogSoftmaxGrad", "BiasAddGrad",
           "MaxPoolGrad", "AvgPoolGrad", "Conv2DBackpropFilter"]


# ----------------------------------------------------------------- activations: (dy, x)
class ReluGrad(Primitive):
    """``ReluGrad()(dy, y)``: ``dy`` where ``y > 0``, else 0."""

    def __call__(self, dy, y):
        from ..._prims.math import relu_grad_p
        return relu_grad_p(dy, y)


def _masked(dy, mask):
    ops = _ops()
    return ops.where(mask, dy, ops.zeros_like(dy))


class ReLU6Grad(Primitive):
    """``ReLU6Grad()(dy, x)``: ``dy`` where ``0 < x <= 6`` (MindSpore's boundaries)."""

    def __call__(self, dy, x):
        return _masked(dy, (x > 0) & (x <= 6))


class SoftplusGrad(Primitive):
    """``SoftplusGrad()(dy, x)``: ``dy * sigmoid(x)``."""

    def __call__(self, dy, x):
        return dy * _ops().sigmoid(x)


class SiLUGrad(Primitive):
    """``SiLUGrad()(dy, x)``: ``dy * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""

    def __call__(self, dy, x):
        s = _ops().sigmoid(x)
        return dy * s * (1 + x * (1 - s))


class HSigmoidGrad(Primitive):
    """``HSigmoidGrad()(dy, x)``: ``dy / 6`` where ``-3 < x < 3``, else 0."""

    def __call__(self, dy, x):
        return _masked(dy / 6, (x > -3) & (x < 3))


class HSwishGrad(Primitive):
    """``HSwishGrad()(dy, x)``: ``dy * (2x + 3) / 6`` on ``[-3, 3]``, ``dy`` above, 0
    below."""

    def __call__(self, dy, x):
        ops = _ops()
        inner = ops.where(x > 3, dy, dy * (2 * x + 3) / 6)
        return _masked(inner, x >= -3)


class _Shrink(Primitive):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def __call__(self, dy, x):
        return _masked(dy, _ops().abs(x) > self.lambd)


class SoftShrinkGrad(_Shrink):
    """``SoftShrinkGrad(lambd)(dy, x)``: ``dy`` where ``|x| > lambd``, else 0."""


class HShrinkGrad(_Shrink):
    """``HShrinkGrad(lambd)(dy, x)``: ``dy`` where ``|x| > lambd``, else 0."""


# ----------------------------------------------------------------- math: (y or x, dy)
class TanhGrad(Primitive):
    """``TanhGrad()(y, dy)``: ``dy * (1 - y^2)`` with ``y = tanh(x)``."""

    def __call__(self, y, dy):
        from ..._prims.math import tanh_grad_p
        return tanh_grad_p(y, dy)


class SigmoidGrad(Primitive):
    """``SigmoidGrad()(y, dy)``: ``dy * y * (1 - y)`` with ``y = sigmoid(x)``."""

    def __call__(self, y, dy):
        return dy * y * (1 - y)


class SqrtGrad(Primitive):
    """``SqrtGrad()(y, dy)``: ``dy / (2y)`` with ``y = sqrt(x)``."""

    def __call__(self, y, dy):
        return dy / (2 * y)


class RsqrtGrad(Primitive):
    """``RsqrtGrad()(y, dy)``: ``-dy * y^3 / 2`` with ``y = rsqrt(x)``."""

    def __call__(self, y, dy):
        return -0.5 * dy * y * y * y


class ReciprocalGrad(Primitive):
    """``ReciprocalGrad()(y, dy)``: ``-dy * y^2`` with ``y = 1 / x``."""

    def __call__(self, y, dy):
        return -dy * y * y


InvGrad = type("InvGrad", (ReciprocalGrad,), {"__doc__": "``InvGrad()(y, dy)``: as "
                                              "``ReciprocalGrad``."})


class AsinGrad(Primitive):
    """``AsinGrad()(x, dy)``: ``dy / sqrt(1 - x^2)``."""

    def __call__(self, x, dy):
        return dy * _ops().rsqrt(1 - x * x)


class ACosGrad(Primitive):
    """``ACosGrad()(x, dy)``: ``-dy / sqrt(1 - x^2)``."""

    def __call__(self, x, dy):
        return -dy * _ops().rsqrt(1 - x * x)


class AtanGrad(Primitive):
    """``AtanGrad()(x, dy)``: ``dy / (1 + x^2)``."""

    def __call__(self, x, dy):
        return dy / (1 + x * x)


class AsinhGrad(Primitive):
    """``AsinhGrad()(y, dy)``: ``dy / cosh(y)`` with ``y = asinh(x)``."""

    def __call__(self, y, dy):
        return dy / _ops().cosh(y)


class AcoshGrad(Primitive):
    """``AcoshGrad()(y, dy)``: ``dy / sinh(y)`` with ``y = acosh(x)``."""

    def __call__(self, y, dy):
        return dy / _ops().sinh(y)


# ----------------------------------------------------------------- softmax, bias
class SoftmaxGrad(Primitive):
    """``SoftmaxGrad()(y, dy)`` over the last axis, ``y = softmax(x)`` (MindSpore's CPU
    build has no kernel for it)."""

    def __call__(self, y, dy):
        from ..._prims.nn import softmax_grad_p
        return softmax_grad_p(y, dy, axis=-1)


class LogSoftmaxGrad(Primitive):
    """``LogSoftmaxGrad(axis=-1)(y, dy)``: ``dy - exp(y) * sum(dy)``, ``y = log_softmax(x)``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, y, dy):
        from ..._prims.nn import log_softmax_grad_p
        return log_softmax_grad_p(y, dy, axis=self.axis)


class BiasAddGrad(Primitive):
    """``BiasAddGrad(data_format='NCHW')(dy)``: ``dy`` summed over every axis but the
    channel axis (1 for ``NCHW`` / ``NCDHW``, the last for ``NHWC``)."""

    def __init__(self, data_format="NCHW"):
        super().__init__()
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAddGrad', the 'data_format' must be 'NCHW', 'NHWC' or "
                             f"'NCDHW', but got '{data_format}'.")
        self.data_format = data_format

    def __call__(self, dy):
        channel = dy.ndim - 1 if self.data_format == "NHWC" else 1
        axes = tuple(a for a in range(dy.ndim) if a != channel)
        return dy.sum(axis=axes) if axes else dy


# ----------------------------------------------------------------- layers: vjp of the forward op
def _vjp(fn, x, dy):
    _, pullback = _ops().vjp(fn, x)
    return pullback(dy)[0]


class MaxPoolGrad(Primitive):
    """``MaxPoolGrad(kernel_size, strides, pad_mode)(x, y, dy)``: ``dy`` routed to the
    maximum of each window of ``x``."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        super().__init__()
        self._pool = MaxPool(kernel_size, strides, pad_mode, data_format)

    def __call__(self, x, y, dy):
        return _vjp(self._pool, x, dy)


class AvgPoolGrad(Primitive):
    """``AvgPoolGrad(kernel_size, strides, pad_mode)(x, y, dy)``: ``dy`` spread evenly
    over each window of ``x``."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", data_format="NCHW"):
        super().__init__()
        self._pool = AvgPool(kernel_size, strides, pad_mode, data_format)

    def __call__(self, x, y, dy):
        return _vjp(self._pool, x, dy)


class Conv2DBackpropFilter(Primitive):
    """``Conv2DBackpropFilter(out_channel, kernel_size, pad_mode, pad, pad_list, mode,
    stride, dilation, group)(dy, x, filter_size)``: the gradient of ``Conv2D`` w.r.t. its
    weight of shape ``filter_size``."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=(0, 0, 0, 0),
                 mode=1, stride=(1, 1), dilation=(1, 1, 1, 1), group=1, data_format="NCHW"):
        super().__init__()
        stride = stride[-2:] if isinstance(stride, (tuple, list)) else stride
        dilation = dilation[-2:] if isinstance(dilation, (tuple, list)) else dilation
        if pad_mode.lower() == "pad" and tuple(pad_list) != (0, 0, 0, 0) and not pad:
            pad = tuple(pad_list)
        self._conv = Conv2D(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation,
                            group)

    def __call__(self, dy, x, filter_size):
        weight = _ops().zeros(tuple(filter_size), x.dtype)
        return _vjp(lambda w: self._conv(x, w), weight, dy)
