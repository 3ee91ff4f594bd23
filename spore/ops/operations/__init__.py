"""MindSpore's primitive-class forms: ``ops.Add()(x, y)``, ``ops.ReduceSum(keep_dims)(x, axis)``.

Each class is a thin adapter: its constructor stores MindSpore's attributes and
``__call__`` forwards to the functional op (resolved when called, so every op
family is available). Also reachable as ``mindspore.ops.operations`` (``P``).
"""
from __future__ import annotations

from ... import _dtype as D
from ..._tensor import Tensor


def _ops():
    from ... import ops
    return ops


def _tensor_input(prim, value, arg="x"):
    """``value`` when it is a Tensor; otherwise a TypeError naming the primitive class."""
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{type(prim).__name__}', the input '{arg}' must be a Tensor, "
                        f"but got {type(value).__name__}.")
    return value


class Primitive:
    """Base of the primitive classes: a named op with attributes."""

    def __init__(self, name=None):
        self.name = name or type(self).__name__
        self.attrs = {}

    def add_prim_attr(self, name, value):
        self.attrs[name] = value
        return self

    def del_prim_attr(self, name):
        self.attrs.pop(name, None)
        return self

    def init_prim_io_names(self, inputs, outputs):
        self.input_names, self.output_names = list(inputs), list(outputs)

    def set_device(self, device_target):
        return self

    def shard(self, *args, **kwargs):
        return self

    def recompute(self, mode=True):
        return self

    def __repr__(self):
        return f"Prim[{self.name}]"

    def __call__(self, *args):
        raise NotImplementedError(f"Primitive {self.name} has no implementation; subclass it "
                                  "and define __call__.")


PrimitiveWithInfer = Primitive
PrimitiveWithCheck = Primitive


def prim_attr_register(fn):
    """Decorator MindSpore puts on primitive ``__init__``s: records the arguments as attrs."""
    import inspect
    sig = inspect.signature(fn)

    def init(self, *args, **kwargs):
        Primitive.__init__(self)
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for k, v in list(bound.arguments.items())[1:]:
            self.attrs[k] = v
        fn(self, *args, **kwargs)
    return init


def _forward(class_name, op_name, doc=None):
    """A primitive class without attributes that forwards to ``ops.<op_name>``."""
    def call(self, *args, **kwargs):
        return getattr(_ops(), op_name)(*args, **kwargs)
    return type(class_name, (Primitive,), {"__call__": call,
                                           "__doc__": doc or f"``ops.{op_name}``."})


_SIMPLE = {
    "Add": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "div", "Div": "div",
    "FloorDiv": "floor_div", "FloorMod": "floor_mod", "Mod": "fmod", "TruncateDiv": None,
    "Pow": "pow", "Neg": "neg", "Abs": "abs", "Exp": "exp", "Expm1": "expm1", "Log": "log",
    "Log1p": "log1p", "Sqrt": "sqrt", "Rsqrt": "rsqrt", "Square": "square",
    "Reciprocal": "reciprocal", "Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin",
    "ACos": "acos", "Atan": "atan", "Atan2": "atan2", "Sinh": "sinh", "Cosh": "cosh",
    "Tanh": "tanh", "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh", "Erf": "erf",
    "Erfc": "erfc", "Sigmoid": "sigmoid", "ReLU": "relu", "ReLU6": "relu6",
    "Softplus": "softplus", "Softsign": "softsign", "HSigmoid": "hardsigmoid",
    "HSwish": "hardswish", "Mish": "mish", "SiLU": "silu", "FastGeLU": "fast_gelu",
    "Floor": "floor", "Ceil": "ceil", "Round": "round", "Sign": "sign", "Trunc": "trunc",
    "Maximum": "maximum", "Minimum": "minimum", "Equal": "equal", "NotEqual": "not_equal",
    "Greater": "greater", "GreaterEqual": "greater_equal", "Less": "less",
    "LessEqual": "less_equal", "LogicalAnd": "logical_and", "LogicalOr": "logical_or",
    "LogicalNot": "logical_not", "LogicalXor": "logical_xor", "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor", "Invert": "bitwise_not",
    "IsNan": "isnan", "IsInf": "isinf", "IsFinite": "isfinite", "Select": "select",
    "ZerosLike": "zeros_like", "OnesLike": "ones_like", "Identity": "identity",
    "StopGradient": "stop_gradient", "Depend": "depend", "Assign": "assign",
    "AssignAdd": "assign_add", "AssignSub": "assign_sub", "Cast": "cast", "Reshape": "reshape",
    "Transpose": "transpose", "Tile": "tile", "ExpandDims": "expand_dims",
    "GatherD": "gather_elements", "GatherNd": "gather_nd", "ScatterNd": "scatter_nd",
    "TensorScatterUpdate": "tensor_scatter_update", "TensorScatterAdd": "tensor_scatter_add",
    "MaskedFill": "masked_fill", "MaskedSelect": "masked_select", "Eye": "eye",
    "Meshgrid": "meshgrid", "Unique": "unique", "Diag": "diag", "SquaredDifference": None,
    "Lerp": "lerp", "Xlogy": None, "Outer": "outer", "Dot": "dot", "Trace": "trace",
    "NanToNum": "nan_to_num", "InvertPermutation": None, "LogSigmoid": "logsigmoid",
    "Gelu": "gelu", "GeLU": "gelu", "Elu": "elu", "L2Loss": None, "BiasAdd": None,
    "Size": None, "Rank": None, "Shape": None, "DType": None, "Fill": None,
}

for _cls, _op in _SIMPLE.items():
    if _op is not None:
        globals()[_cls] = _forward(_cls, _op)


class SquaredDifference(Primitive):
    def __call__(self, x, y):
        d = _ops().sub(x, y)
        return d * d


class TruncateDiv(Primitive):
    def __call__(self, x, y):
        return _ops().div(x, y, rounding_mode="trunc")


class Xlogy(Primitive):
    def __call__(self, x, y):
        ops = _ops()
        return ops.where(x == 0, 0.0, x * ops.log(y))


class L2Loss(Primitive):
    """``sum(x ** 2) / 2``."""
    def __call__(self, x):
        x = _tensor_input(self, x)
        return (x * x).sum() / 2


class BiasAdd(Primitive):
    """Add a 1-D bias along the channel axis (NCHW: axis 1)."""

    def __init__(self, data_format="NCHW"):
        super().__init__()
        self.data_format = data_format

    def __call__(self, x, bias):
        x, bias = _tensor_input(self, x, "input_x"), _tensor_input(self, bias, "bias")
        if self.data_format == "NHWC" or x.ndim < 2:
            return x + bias
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return x + bias.reshape(shape)


class Shape(Primitive):
    def __call__(self, x):
        return tuple(_tensor_input(self, x).shape)


class TensorShape(Primitive):
    def __call__(self, x):
        return Tensor(list(_tensor_input(self, x).shape), D.int64)


class Rank(Primitive):
    def __call__(self, x):
        return _tensor_input(self, x).ndim


class Size(Primitive):
    def __call__(self, x):
        return _tensor_input(self, x).size


class DType(Primitive):
    def __call__(self, x):
        return _tensor_input(self, x).dtype


class Fill(Primitive):
    def __call__(self, type, shape, value):
        return _ops().full(shape, value, dtype=type)


class InvertPermutation(Primitive):
    def __call__(self, x):
        if not isinstance(x, (tuple, list)) or not all(type(p) is int for p in x):
            raise TypeError(f"For 'InvertPermutation', the input must be a tuple of ints, but "
                            f"got {type(x).__name__}.")
        if sorted(x) != list(range(len(x))):
            raise ValueError(f"For 'InvertPermutation', the input must be a tuple of ints that "
                             f"is a permutation of 0..n-1, but got {x!r}.")
        perm = list(x)
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        return tuple(inv)


# --------------------------------------------------------------------------- with attributes
class _Reduce(Primitive):
    _op = None

    def __init__(self, keep_dims=False):
        super().__init__()
        self.keep_dims = keep_dims
        self.add_prim_attr("keep_dims", keep_dims)

    def __call__(self, x, axis=()):
        axis = None if axis == () or axis == [] else axis
        return getattr(_ops(), self._op)(x, axis, self.keep_dims)


class ReduceSum(_Reduce):
    _op = "reduce_sum"

    def __init__(self, keep_dims=False, skip_mode=False):
        super().__init__(keep_dims)
        self.skip_mode = skip_mode


class ReduceMean(_Reduce):
    _op = "mean"


class ReduceMax(_Reduce):
    _op = "amax"


class ReduceMin(_Reduce):
    _op = "amin"


class ReduceProd(_Reduce):
    _op = "prod"


class ReduceAll(_Reduce):
    _op = "all"


class ReduceAny(_Reduce):
    _op = "any"


class ReduceLogSumExp(_Reduce):
    _op = "logsumexp"


class MatMul(Primitive):
    def __init__(self, transpose_a=False, transpose_b=False):
        super().__init__()
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        ops = _ops()
        if self.transpose_a:
            x = ops.swapaxes(x, -1, -2)
        if self.transpose_b:
            y = ops.swapaxes(y, -1, -2)
        return ops.matmul(x, y)


class BatchMatMul(MatMul):
    pass


class Softmax(Primitive):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        axis = self.axis[0] if isinstance(self.axis, (tuple, list)) else self.axis
        return _ops().softmax(x, axis)


class LogSoftmax(Softmax):
    def __call__(self, x):
        return _ops().log_softmax(x, self.axis)


class Argmax(Primitive):
    def __init__(self, axis=-1, output_type=D.int32):
        super().__init__()
        self.axis, self.output_type = axis, output_type

    def __call__(self, x):
        return _ops().cast(_ops().argmax(x, self.axis), self.output_type)


class Argmin(Argmax):
    def __call__(self, x):
        return _ops().cast(_ops().argmin(x, self.axis), self.output_type)


class ArgMaxWithValue(Primitive):
    """``(index, value)`` of the maximum along ``axis``."""

    def __init__(self, axis=0, keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x):
        values, idx = _ops().max(x, self.axis, self.keep_dims)
        return idx, values


class ArgMinWithValue(ArgMaxWithValue):
    def __call__(self, x):
        values, idx = _ops().min(x, self.axis, self.keep_dims)
        return idx, values


class _Axis(Primitive):
    def __init__(self, axis=0):
        super().__init__()
        self.axis = axis


class Concat(_Axis):
    def __call__(self, tensors):
        return _ops().concat(tensors, self.axis)


class Stack(_Axis):
    def __call__(self, tensors):
        return _ops().stack(tensors, self.axis)


class Unstack(_Axis):
    def __init__(self, axis=0, num=None):
        super().__init__(axis)

    def __call__(self, x):
        return tuple(_ops().unbind(x, self.axis))


class Split(Primitive):
    def __init__(self, axis=0, output_num=1):
        super().__init__()
        self.axis, self.output_num = axis, output_num

    def __call__(self, x):
        x = _tensor_input(self, x)
        axis = _ops()._utils.normalize_dim("Split", self.axis, x.ndim)
        if not isinstance(self.output_num, int) or self.output_num <= 0:
            raise ValueError(f"For 'Split', the 'output_num' must be a positive int, but got "
                             f"{self.output_num!r}.")
        size = x.shape[axis] // self.output_num
        return tuple(_ops().split(x, size, self.axis))


class Squeeze(Primitive):
    def __init__(self, axis=()):
        super().__init__()
        self.axis = axis

    def __call__(self, x):
        return _ops().squeeze(x, None if self.axis == () else self.axis)


class Flatten(Primitive):
    """Flatten all but the first dimension."""

    def __call__(self, x):
        return _ops().flatten(x)


class BroadcastTo(Primitive):
    def __init__(self, shape):
        super().__init__()
        self.shape = shape

    def __call__(self, x):
        return _ops().broadcast_to(x, self.shape)


class Gather(Primitive):
    def __init__(self, batch_dims=0):
        super().__init__()
        self.batch_dims = batch_dims

    def __call__(self, params, indices, axis):
        return _ops().gather(params, indices, axis, self.batch_dims)


class OneHot(Primitive):
    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def __call__(self, indices, depth, on_value, off_value):
        return _ops().one_hot(indices, depth, on_value, off_value, self.axis)


class Sort(Primitive):
    def __init__(self, axis=-1, descending=False):
        super().__init__()
        self.axis, self.descending = axis, descending

    def __call__(self, x):
        return _ops().sort(x, self.axis, self.descending)


class TopK(Primitive):
    def __init__(self, sorted=True):
        super().__init__()
        self.sorted = sorted

    def __call__(self, x, k):
        return _ops().topk(x, k, sorted=self.sorted)


class CumSum(Primitive):
    def __init__(self, exclusive=False, reverse=False):
        super().__init__()
        self.exclusive, self.reverse = exclusive, reverse

    def __call__(self, x, axis):
        ops = _ops()
        if self.reverse:
            x = ops.flip(x, (axis,))
        r = ops.cumsum(x, axis)
        if self.exclusive:
            r = r - x
        return ops.flip(r, (axis,)) if self.reverse else r


class CumProd(CumSum):
    def __call__(self, x, axis):
        ops = _ops()
        if self.reverse:
            x = ops.flip(x, (axis,))
        r = ops.cumprod(x, axis)
        if self.exclusive:
            r = r / x
        return ops.flip(r, (axis,)) if self.reverse else r


class Zeros(Primitive):
    def __call__(self, shape, dtype=D.float32):
        return _ops().zeros(shape, dtype)


class Ones(Primitive):
    def __call__(self, shape, dtype=D.float32):
        return _ops().ones(shape, dtype)


class Pad(Primitive):
    """``paddings``: ((before, after), ...) per dimension."""

    def __init__(self, paddings):
        super().__init__()
        self.paddings = paddings

    def __call__(self, x):
        flat = []
        for before, after in reversed(self.paddings):
            flat += [before, after]
        return _ops().pad(x, tuple(flat))


class Einsum(Primitive):
    def __init__(self, equation):
        super().__init__()
        self.equation = equation

    def __call__(self, *operands):
        if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
            operands = tuple(operands[0])
        return _ops().einsum(self.equation, *operands)


class L2Normalize(Primitive):
    def __init__(self, axis=0, epsilon=1e-4):
        super().__init__()
        self.axis, self.epsilon = axis, epsilon

    def __call__(self, x):
        ops = _ops()
        x = _tensor_input(self, x)
        norm = ops.sqrt(ops.maximum((x * x).sum(self.axis, keepdims=True), self.epsilon ** 2))
        return x / norm


class Dropout(Primitive):
    """Returns ``(output, mask)`` like MindSpore's Dropout primitive."""

    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        super().__init__()
        self.keep_prob = keep_prob

    def __call__(self, x):
        ops = _ops()
        out = ops.dropout(x, p=1.0 - self.keep_prob)
        return out, ops.not_equal(out, 0)


class LayerNorm(Primitive):
    """Returns ``(y, mean, variance)`` like MindSpore's LayerNorm primitive."""

    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        super().__init__()
        self.begin_norm_axis, self.begin_params_axis = begin_norm_axis, begin_params_axis
        self.epsilon = epsilon

    def __call__(self, x, gamma, beta):
        ops = _ops()
        x = _tensor_input(self, x, "input_x")
        axis = ops._utils.normalize_dim("LayerNorm", self.begin_norm_axis, x.ndim,
                                        "begin_norm_axis")
        axes = tuple(range(axis, x.ndim))
        mean = ops.mean(x, axes, True)
        var = ops.mean((x - mean) * (x - mean), axes, True)
        y = (x - mean) / ops.sqrt(var + self.epsilon) * gamma + beta
        return y, mean, var


class Conv2D(Primitive):
    """``Conv2D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1)(x, weight)``."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCHW"):
        super().__init__()
        self.pad_mode, self.pad, self.stride = pad_mode, pad, stride
        self.dilation, self.group = dilation, group

    def __call__(self, x, weight):
        from .._nn import conv2d_ms
        return conv2d_ms(x, weight, None, self.stride, self.pad_mode, self.pad,
                         self.dilation, self.group)


class _Pool(Primitive):
    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", data_format="NCHW"):
        super().__init__()
        self.kernel_size, self.strides, self.pad_mode = kernel_size, strides, pad_mode.lower()


class MaxPool(_Pool):
    def __call__(self, x):
        return _ops().max_pool2d(x, self.kernel_size, self.strides, pad_mode=self.pad_mode)


class AvgPool(_Pool):
    def __call__(self, x):
        return _ops().avg_pool2d(x, self.kernel_size, self.strides, pad_mode=self.pad_mode)


class SoftmaxCrossEntropyWithLogits(Primitive):
    """``(loss per sample, d loss / d logits)`` for one-hot/probability labels."""

    def __call__(self, logits, labels):
        ops = _ops()
        logp = ops.log_softmax(logits, -1)
        loss = -(labels * logp).sum(-1)
        return loss, ops.softmax(logits, -1) - labels


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    def __init__(self, is_grad=False):
        super().__init__()
        self.is_grad = is_grad

    def __call__(self, logits, labels):
        ops = _ops()
        loss = ops.cross_entropy(logits, labels, reduction="mean")
        if self.is_grad:
            n, c = logits.shape
            onehot = ops.one_hot(labels, c, 1.0, 0.0)
            return (ops.softmax(logits, -1) - onehot) / n
        return loss


class SigmoidCrossEntropyWithLogits(Primitive):
    def __call__(self, logits, labels):
        return _ops().binary_cross_entropy_with_logits(logits, labels, reduction="none")


class BCEWithLogitsLoss(Primitive):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return _ops().binary_cross_entropy_with_logits(logits, label, weight, pos_weight,
                                                       self.reduction)


class ResizeNearestNeighbor(Primitive):
    def __init__(self, size, align_corners=False):
        super().__init__()
        self.size, self.align_corners = tuple(size), align_corners

    def __call__(self, x):
        return _ops().interpolate(x, size=self.size, mode="nearest")


class ResizeBilinear(Primitive):
    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        super().__init__()
        self.size, self.align_corners = tuple(size), align_corners

    def __call__(self, x):
        return _ops().interpolate(x, size=self.size, mode="bilinear",
                                  align_corners=self.align_corners)


class _Random(Primitive):
    def __init__(self, seed=0, seed2=0):
        super().__init__()
        self.seed = (seed * 1_000_003 + seed2) if (seed or seed2) else None


class StandardNormal(_Random):
    def __call__(self, shape):
        return _ops().standard_normal(shape, seed=self.seed)


class UniformReal(_Random):
    def __call__(self, shape):
        if not isinstance(shape, (tuple, list)):
            raise TypeError(f"For 'UniformReal', the 'shape' must be a tuple of ints, but got "
                            f"{type(shape).__name__}.")
        return _ops().rand(*shape, seed=self.seed)


class UniformInt(_Random):
    def __call__(self, shape, minval, maxval):
        return _ops().cast(_ops().randint(minval, maxval, shape, seed=self.seed),
                           D.int32)


class ApplyMomentum(Primitive):
    """``accumulation = momentum * accumulation + gradient``; ``variable -= lr * (accumulation
    or, with use_nesterov, gradient + momentum * accumulation)``; both updated in place."""

    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        super().__init__()
        self.use_nesterov = use_nesterov

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum):
        from ...nn.optim._updates import apply_momentum_p
        return apply_momentum_p(variable, accumulation, learning_rate, gradient, momentum,
                                use_nesterov=self.use_nesterov)


class Print(Primitive):
    """Print each argument on its own line when executed (tensors in repr form)."""

    def __call__(self, *args):
        return _ops().print_(*args)


class Range(Primitive):
    def __call__(self, start, limit, delta):
        return _ops().arange(start, limit, delta)


from ._more_nn import *  # noqa: E402,F401,F403
from ._more_prims import *  # noqa: E402,F401,F403
from ._optim_classes import *  # noqa: E402,F401,F403
from ._nn_ops3_classes import *  # noqa: E402,F401,F403
from ._image_ops3_classes import *  # noqa: E402,F401,F403
from ._numeric_classes import *  # noqa: E402,F401,F403
from ._nn_more_classes import *  # noqa: E402,F401,F403
from ._scatter_classes import *  # noqa: E402,F401,F403
from ._array_more_classes import *  # noqa: E402,F401,F403
from ._thin_classes import *  # noqa: E402,F401,F403
from ._math_random_classes import *  # noqa: E402,F401,F403
from ._ops_b_classes import *  # noqa: E402,F401,F403
from ._ops_a_classes import *  # noqa: E402,F401,F403
from ._ops_a_rnn import *  # noqa: E402,F401,F403

__all__ = sorted(name for name, v in list(globals().items())
                 if isinstance(v, type) and issubclass(v, Primitive) and not name.startswith("_")
                 ) + ["PrimitiveWithInfer", "PrimitiveWithCheck", "prim_attr_register"]
