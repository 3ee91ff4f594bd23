"""The MindSpore operators a loaded MindIR graph calls, written with Spore's operators:
one small function per operator, taking that operator's inputs in MindSpore's order
(NOTE: [MindIR] in mindir.py)."""
from __future__ import annotations

from ._mindir_proto import _PAD_MODES, _TYPE_IDS


class _Monad:
    """The side-effect token ``UpdateState`` threads (no value)."""

    def __repr__(self):
        return "U"


_U = _Monad()


def _ops():
    from .. import ops
    return ops


def _unary(name):
    return lambda attrs, x: getattr(_ops(), name)(x)


def _binary(name):
    return lambda attrs, x, y: getattr(_ops(), name)(x, y)


def _bias_add(attrs, x, b, data_format=0):
    if x.ndim < 2:
        raise ValueError("BiasAdd needs an input of rank 2 or more")
    channel_last = data_format == 1
    shape = [1] * x.ndim
    shape[-1 if channel_last else 1] = b.shape[0]
    return x + b.reshape(tuple(shape))


def _matmul(attrs, x, y, ta=False, tb=False):
    ops = _ops()
    if ta:
        x = ops.swapaxes(x, -1, -2)
    if tb:
        y = ops.swapaxes(y, -1, -2)
    return ops.matmul(x, y)


def _conv2d(attrs, x, w):
    stride = tuple(attrs.get("stride", (1, 1, 1, 1)))[-2:]
    dilation = tuple(attrs.get("dilation", (1, 1, 1, 1)))[-2:]
    mode = attrs.get("pad_mode", "valid").lower()
    pad = tuple(attrs.get("pad_list") or attrs.get("pad") or (0, 0, 0, 0))
    if len(pad) == 1:
        pad = pad * 4
    if attrs.get("format", "NCHW") != "NCHW":
        raise NotImplementedError("MindIR Conv2D: only the NCHW format is supported")
    return _ops().conv2d(x, w, None, stride=stride, pad_mode=mode,
                         padding=pad if mode == "pad" else 0, dilation=dilation,
                         groups=attrs.get("group", 1))


def _pool(kind):
    def pool(attrs, x, *inputs):
        ops = _ops()
        if inputs:            # PRIMITIVE_FUNCTION: (kernel, strides, pad_mode, format)
            kernel, strides, pad_mode = inputs[0], inputs[1], _PAD_MODES[inputs[2]]
        else:
            kernel, strides = attrs["kernel_size"], attrs["strides"]
            pad_mode = attrs.get("pad_mode", "VALID").lower()
        kernel, strides = tuple(kernel)[-2:], tuple(strides)[-2:]
        cls = ops.MaxPool if kind == "max" else ops.AvgPool
        return cls(kernel_size=kernel, strides=strides, pad_mode=pad_mode)(x)
    return pool


def _batch_norm(attrs, x, scale, bias, mean, var, training=False, eps=1e-5, momentum=0.1,
                data_format=0):
    ops = _ops()
    if training:
        raise NotImplementedError("MindIR BatchNorm in training mode is not supported")
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) * ops.rsqrt(var.reshape(shape) + eps)
    y = y * scale.reshape(shape) + bias.reshape(shape)
    return (y, mean, var, mean, var)


def _layer_norm(attrs, x, gamma, beta, begin_norm_axis=-1, begin_params_axis=-1, eps=1e-7):
    ops = _ops()
    axis = begin_norm_axis % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = ops.mean(x, axes, keep_dims=True)
    var = ops.mean(ops.square(x - mean), axes, keep_dims=True)
    rstd = ops.rsqrt(var + eps)
    return ((x - mean) * rstd * gamma + beta, mean, rstd)


def _reduce(name):
    def reduce(attrs, x, axis=(), keep_dims=False, *rest):
        ops = _ops()
        axis = None if axis in ((), None) else tuple(axis) if isinstance(axis, (tuple, list)) \
            else (axis,)
        if name == "mean":
            return ops.mean(x, axis, keep_dims=keep_dims)
        if name == "sum":
            return ops.sum(x, axis, keepdim=keep_dims)
        return getattr(ops, name)(x, axis, keepdims=keep_dims)
    return reduce


def _sum_ext(attrs, x, axis=None, keep_dims=False, dtype=None):
    out = _reduce("sum")(attrs, x, axis, keep_dims)
    return out if dtype is None else _cast(attrs, out, dtype)


def _cast(attrs, x, type_id):
    from .. import _dtype as D
    name = _TYPE_IDS.get(type_id)
    if name is None:
        raise NotImplementedError(f"MindIR Cast to TypeId {type_id} is not supported")
    return _ops().cast(x, getattr(D, name))


def _arg_with_value(kind):
    def arg(attrs, x, axis=0, keep_dims=False):
        ops = _ops()
        values = (ops.amax if kind == "max" else ops.amin)(x, axis, keep_dims)
        index = (ops.argmax if kind == "max" else ops.argmin)(x, axis, keep_dims)
        return (ops.cast(index, "int32"), values)
    return arg


def _softmax(name):
    def softmax(attrs, x, axis=-1):
        axis = axis[0] if isinstance(axis, (tuple, list)) else axis
        return getattr(_ops(), name)(x, axis)
    return softmax


def _scalar_op(name):
    return lambda attrs, x, s: getattr(_ops(), name)(x, s)


def _strided_slice(attrs, x, begin, end, strides, *masks):
    return _ops().strided_slice(x, tuple(begin), tuple(end), tuple(strides), *masks)


def _log(attrs, x):
    if attrs.get("base", -1.0) not in (-1.0, None) or attrs.get("scale", 1.0) != 1.0 or \
            attrs.get("shift", 0.0) != 0.0:
        raise NotImplementedError("MindIR Log with a base, scale or shift is not supported")
    return _ops().log(x)


def _gelu(attrs, x, approximate=None):
    return _ops().gelu(x, approximate="tanh" if approximate in (1, "tanh") else "none")


def _conv2d_transpose(attrs, x, w, input_size):
    ops = _ops()
    op = ops.Conv2DTranspose(
        out_channel=attrs.get("out_channel"), kernel_size=tuple(attrs["kernel_size"]),
        pad_mode=attrs.get("pad_mode", "valid").lower(), pad=tuple(attrs.get("pad", 0)),
        pad_list=tuple(attrs["pad_list"]) if attrs.get("pad_list") else None,
        stride=tuple(attrs.get("stride", (1, 1)))[-2:],
        dilation=tuple(attrs.get("dilation", (1, 1)))[-2:], group=attrs.get("group", 1))
    return op(x, w, tuple(input_size))


def _argmax(kind):
    def arg(attrs, x, axis=-1, type_id=34):
        ops = _ops()
        out = (ops.argmax if kind == "max" else ops.argmin)(x, axis)
        return _cast(attrs, out, type_id)
    return arg


def _resize_nearest(attrs, x, size, align_corners=False, half_pixel_centers=False):
    if half_pixel_centers:
        raise NotImplementedError("MindIR ResizeNearestNeighbor with half_pixel_centers is "
                                  "not supported")
    return _ops().ResizeNearestNeighbor(tuple(size), bool(align_corners))(x)


_OPS = {
    "Load": lambda attrs, x, u=None: x,
    "UpdateState": lambda attrs, *a: _U,
    "Depend": lambda attrs, x, *a: x,
    "MakeTuple": lambda attrs, *a: tuple(a),
    "TupleGetItem": lambda attrs, t, i: t[i],
    "Identity": lambda attrs, x: x,
    "Add": _binary("add"), "Sub": _binary("sub"), "Mul": _binary("mul"),
    "Div": _binary("div"), "RealDiv": _binary("div"), "Maximum": _binary("maximum"),
    "Minimum": _binary("minimum"), "Pow": _binary("pow"),
    "Muls": _scalar_op("mul"), "Divs": _scalar_op("div"), "Adds": _scalar_op("add"),
    "Subs": _scalar_op("sub"),
    "Abs": _unary("abs"), "Neg": _unary("neg"), "Exp": _unary("exp"), "Log": _log,
    "Sqrt": _unary("sqrt"), "Rsqrt": _unary("rsqrt"), "Square": _unary("square"),
    "Sigmoid": _unary("sigmoid"), "Tanh": _unary("tanh"), "Erf": _unary("erf"),
    "ReLU": _unary("relu"), "ReLU6": _unary("relu6"), "GeLU": _gelu,
    "Sin": _unary("sin"), "Cos": _unary("cos"), "Reciprocal": _unary("reciprocal"),
    "Floor": _unary("floor"),
    "MatMul": _matmul, "MatMulExt": _matmul, "BatchMatMul": _matmul,
    "BiasAdd": _bias_add, "Conv2D": _conv2d,
    "MaxPool": _pool("max"), "AvgPool": _pool("avg"),
    "BatchNorm": _batch_norm, "LayerNorm": _layer_norm,
    "Reshape": lambda attrs, x, shape: _ops().reshape(x, tuple(shape)),
    "Transpose": lambda attrs, x, perm: _ops().transpose(x, tuple(perm)),
    "ExpandDims": lambda attrs, x, axis: _ops().expand_dims(x, axis),
    "Squeeze": lambda attrs, x, axis=(): _ops().squeeze(x, tuple(axis) or None),
    "Flatten": lambda attrs, x: _ops().reshape(x, (x.shape[0], -1)),
    "Concat": lambda attrs, xs, axis=0: _ops().concat(tuple(xs), axis),
    "ReduceMean": _reduce("mean"), "ReduceSum": _reduce("sum"), "SumExt": _sum_ext,
    "ReduceMax": _reduce("amax"), "ReduceMin": _reduce("amin"),
    "ArgMaxWithValue": _arg_with_value("max"), "ArgMinWithValue": _arg_with_value("min"),
    "Gather": lambda attrs, x, idx, axis=0, batch_dims=0: _ops().gather(x, idx, axis,
                                                                        batch_dims),
    "Cast": _cast, "Softmax": _softmax("softmax"), "LogSoftmax": _softmax("log_softmax"),
    "StridedSlice": _strided_slice,
    "SiLU": _unary("silu"), "HSwish": _unary("hardswish"), "HSigmoid": _unary("hardsigmoid"),
    "Mish": _unary("mish"), "Sign": _unary("sign"), "Ceil": _unary("ceil"),
    "LogicalNot": _unary("logical_not"),
    "Greater": _binary("greater"), "Less": _binary("less"), "Equal": _binary("equal"),
    "NotEqual": _binary("not_equal"), "GreaterEqual": _binary("greater_equal"),
    "LessEqual": _binary("less_equal"), "FloorDiv": _binary("floor_div"),
    "FloorMod": _binary("floor_mod"), "LogicalAnd": _binary("logical_and"),
    "LogicalOr": _binary("logical_or"),
    "Select": lambda attrs, c, x, y: _ops().select(c, x, y),
    "ClampScalar": lambda attrs, x, lo=None, hi=None: _ops().clamp(x, lo, hi),
    "AdaptiveAvgPool2D": lambda attrs, x: _ops().adaptive_avg_pool2d(
        x, tuple(attrs["output_size"])),
    "Argmax": _argmax("max"), "Argmin": _argmax("min"),
    "Conv2DTranspose": _conv2d_transpose, "ResizeNearestNeighbor": _resize_nearest,
    "Tile": lambda attrs, x, dims: _ops().tile(x, tuple(dims)),
    "BroadcastTo": lambda attrs, x, shape: _ops().broadcast_to(x, tuple(shape)),
    "ZerosLike": lambda attrs, x: _ops().zeros_like(x),
    "OnesLike": lambda attrs, x: _ops().ones_like(x),
}
