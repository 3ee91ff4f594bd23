"""``ms.export(..., file_format="MINDIR")``, ``ms.load`` and ``nn.GraphCell``: MindSpore's
MindIR files, read and written without MindSpore.

NOTE: [MindIR]
A ``.mindir`` file holds one graph (``ModelProto.graph``): its inputs, its parameters
(tensors with raw little-endian data), and nodes in execution order. A node's
``op_type`` is ``REF::<primitive name>``; the primitive (``ModelProto.primitives``)
gives the operator and, for old-style primitives (``prim_type == PRIMITIVE``: Conv2D,
MaxPool), its attributes; new-style ones (``PRIMITIVE_FUNCTION``) take every argument
as an input, constants coming from ``Constant`` nodes (a transpose flag, an axis tuple,
a dtype as MindSpore's ``TypeId``). ``Load``/``UpdateState``/``Depend`` thread the
parameters' side-effect "monad" and compute nothing here.

Loading interprets the graph with Spore's operators (``_OPS``: one small function per
MindSpore operator, taking that operator's inputs in MindSpore's order), so a loaded
graph runs in PyNative or inside ``jit`` like any code. Exporting traces the Cell with
the Graph-mode capture and writes each Spore primitive as the MindSpore operator with
the same meaning (``_EXPORT``), in the conventions of MindSpore 2.10's own exports, so
MindSpore loads the file too (tested against the reference where it is installed).
An operator outside those tables is a clear error naming it. Encrypted and obfuscated
files (``dec_key``, ``obf_func``) are not supported.
"""
from __future__ import annotations

import os

import numpy as np

from . import _mindir_proto as MP

_TENSOR_DTYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16,
                  6: np.int32, 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64,
                  12: np.uint32, 13: np.uint64, 17: np.float64}
_TENSOR_CODES = {np.dtype(v): k for k, v in _TENSOR_DTYPES.items() if k != 17}
_TYPE_IDS = {30: "bool", 32: "int8", 33: "int16", 34: "int32", 35: "int64", 37: "uint8",
             38: "uint16", 39: "uint32", 40: "uint64", 42: "float16", 43: "float32",
             44: "float64", 45: "bfloat16"}
_A = {"FLOAT": 1, "INT64": 7, "STRING": 8, "BOOL": 9, "TENSORS": 19, "TUPLE": 20,
      "LIST": 21, "UMONAD": 23, "IOMONAD": 24, "NONE": 25}
_PRIMITIVE, _PRIMITIVE_FUNCTION = 1, 2
_PAD_MODES = {0: "pad", 1: "same", 2: "valid"}


class _Monad:
    """The side-effect token ``UpdateState`` threads (no value)."""

    def __repr__(self):
        return "U"


_U = _Monad()


# ----------------------------------------------------------------------------- reading
def _tensor_array(t, base_dir=None):
    """The NumPy array of a ``TensorProto`` (raw data, typed fields or an external file)."""
    dtype = _TENSOR_DTYPES.get(t.data_type)
    if dtype is None:
        if t.data_type == 16:
            from .. import _dtype as D
            dtype = D.bfloat16_np
        else:
            raise ValueError(f"MindIR tensor {t.name!r} has unsupported data type "
                             f"{t.data_type}")
    shape = tuple(int(d) for d in t.dims)
    if t.has("raw_data"):
        data = np.frombuffer(t.raw_data, dtype=np.dtype(dtype).newbyteorder("<"))
    elif t.external_data is not None:
        ext = t.external_data
        path = os.path.join(base_dir or ".", ext.location)
        with open(path, "rb") as f:
            f.seek(ext.offset)
            raw = f.read(ext.length)
        data = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"))
    else:
        data = np.asarray(t.float_data or t.int64_data or t.int32_data or t.double_data
                          or [], dtype=dtype)
    if data.size != int(np.prod(shape)):
        raise ValueError(f"MindIR tensor {t.name!r}: {data.size} values for shape "
                         f"{list(shape)}")
    return data.astype(dtype, copy=True).reshape(shape)


def _attr_value(a):
    """A Python value from an ``AttributeProto`` (constants and primitive attributes)."""
    from .._tensor import Tensor
    kind = a.type
    if kind == _A["INT64"] or kind in (3, 4, 5, 6, 12, 13, 2):
        return a.ints[0] if a.ints and not a.has("i") else a.i
    if kind == _A["FLOAT"]:
        return a.floats[0] if a.floats and not a.has("f") else a.f
    if kind == 11:
        return a.doubles[0] if a.doubles and not a.has("d") else a.d
    if kind == _A["BOOL"]:
        return bool(a.ints[0] if a.ints and not a.has("i") else a.i)
    if kind == _A["STRING"]:
        return (a.strings[0] if a.strings and not a.has("s") else a.s).decode("utf-8")
    if kind in (_A["TUPLE"], _A["LIST"]):
        items = [_attr_value(v) for v in a.values]
        return tuple(items) if kind == _A["TUPLE"] else items
    if kind == _A["TENSORS"] or kind == 17:
        t = a.tensors[0] if a.tensors else a.t
        return Tensor(_tensor_array(t))
    if kind in (_A["UMONAD"], _A["IOMONAD"]):
        return _U
    if kind == _A["NONE"]:
        return None
    raise ValueError(f"MindIR attribute {a.name!r} has unsupported type {kind}")


class MindIRGraph:
    """A graph loaded from a ``.mindir`` file (what ``ms.load`` returns): run it with
    ``nn.GraphCell(graph)``. ``inputs`` lists (name, shape, dtype) of its arguments."""

    def __init__(self, model, base_dir=None):
        g = model.graph
        if g is None:
            raise ValueError("the MindIR file holds no graph")
        self.name = g.name
        self.inputs = []
        for vi in g.input:
            t = vi.tensor[0] if vi.tensor else None
            dtype = np.dtype(_TENSOR_DTYPES.get(t.data_type, np.float32)) if t else None
            self.inputs.append((vi.name, tuple(t.dims) if t else None, dtype))
        self.parameters = {}
        for p in g.parameter:
            self.parameters[p.name] = _tensor_array(p, base_dir)
        prims = {p.name: p for p in model.primitives}
        self.nodes = []              # (op name, prim attrs, input names, output name, loc)
        self.constants = {}
        for n in g.node:
            if n.op_type == "Constant":
                self.constants[n.output[0]] = _attr_value(n.attribute[0])
                continue
            op = n.op_type[5:] if n.op_type.startswith("REF::") else n.op_type
            prim = prims.get(op)
            if prim is not None:
                op_name = prim.op_type
                attrs = {a.name: _attr_value(a) for a in prim.attribute
                         if a.name not in ("input_names", "output_names")}
            else:
                op_name, attrs = op.split(":")[0], {}
            if op_name not in _OPS:
                raise NotImplementedError(
                    f"MindIR operator {op_name!r} (node {n.name!r}) is not supported by "
                    f"spore.load yet; supported: {', '.join(sorted(_OPS))}")
            self.nodes.append((op_name, attrs, list(n.input), list(n.output)))
        self.outputs = [o.name for o in g.output]

    def run(self, params, *args):
        """Interpret the graph on ``args`` with ``params`` (name -> Tensor)."""
        if len(args) != len(self.inputs):
            raise TypeError(f"the loaded graph takes {len(self.inputs)} inputs "
                            f"({', '.join(n.split(':')[-1] for n, _, _ in self.inputs)}), "
                            f"got {len(args)}")
        env = dict(self.constants)
        env.update(params)
        for (name, _, _), a in zip(self.inputs, args):
            env[name] = a
        for op_name, attrs, ins, outs in self.nodes:
            try:
                values = [env[i] for i in ins]
            except KeyError as e:
                raise ValueError(f"MindIR node {op_name} reads {e.args[0]!r}, which no "
                                 "earlier node, input or parameter defines") from None
            env[outs[0]] = _OPS[op_name](attrs, *values)
        result = [env[o] for o in self.outputs]
        return result[0] if len(result) == 1 else tuple(result)


def load(file_name, **kwargs):
    """``mindspore.load``: the graph of a ``.mindir`` file, to run with ``nn.GraphCell``."""
    for key in ("dec_key", "obf_func"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"spore.load does not read encrypted or obfuscated "
                                      f"MindIR files ({key}=...)")
    if not isinstance(file_name, str):
        raise TypeError(f"For 'load', 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}.")
    if not file_name.endswith(".mindir"):
        raise ValueError(f"For 'load', the file name must end with '.mindir', but got "
                         f"{file_name!r}.")
    if not os.path.isfile(file_name):
        raise ValueError(f"For 'load', the file {file_name!r} does not exist.")
    with open(file_name, "rb") as f:
        data = f.read()
    try:
        model = MP.decode(data)
    except MP.DecodeError as e:
        raise RuntimeError(f"For 'load', {file_name!r} is not a valid MindIR file: {e}") \
            from None
    return MindIRGraph(model, os.path.dirname(os.path.abspath(file_name)))


# ----------------------------------------------------------------------------- operators
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


# ----------------------------------------------------------------------------- writing
class _Writer:
    """Builds the ``ModelProto`` of one traced graph in MindSpore 2.10's conventions."""

    def __init__(self, gname):
        self.gname = gname
        self.nodes, self.prims, self.names = [], {}, {}
        self.count = 0

    def fresh(self, stem="CNode"):
        self.count += 1
        return f"{self.gname}:{stem}_{self.count}:{self.count}"

    def const(self, attr):
        """A ``Constant`` node holding ``attr`` (an AttributeProto); returns its name."""
        self.count += 1
        name = f"ValueNode_{self.count}"
        attr.name = "value"
        self.nodes.append(MP.Msg("NodeProto", output=[name], name=name, op_type="Constant",
                                 attribute=[attr]))
        return name

    def scalar(self, value):
        if value is None:
            return self.const(MP.Msg("AttributeProto", type=_A["NONE"]))
        if isinstance(value, (bool, np.bool_)):
            return self.const(MP.Msg("AttributeProto", i=int(value), type=_A["BOOL"]))
        if isinstance(value, (int, np.integer)):
            return self.const(MP.Msg("AttributeProto", i=int(value), type=_A["INT64"]))
        if isinstance(value, (float, np.floating)):
            return self.const(MP.Msg("AttributeProto", f=float(value), type=_A["FLOAT"]))
        if isinstance(value, (tuple, list)):
            items = [MP.Msg("AttributeProto", ints=[int(v)], type=_A["INT64"]) for v in value]
            return self.const(MP.Msg("AttributeProto", values=items, type=_A["TUPLE"]))
        raise TypeError(f"cannot export the constant {value!r}")

    def tensor_const(self, array):
        return self.const(MP.Msg("AttributeProto", tensors=[_tensor_proto(array)],
                                 type=_A["TENSORS"]))

    def node(self, op, inputs, out_aval, attrs=None, old_style=False):
        """A ``REF::op`` node; returns its output name."""
        key = (op, tuple(sorted((attrs or {}).items(), key=lambda kv: kv[0]))
               if attrs else ())
        pname = self.prims.get(key)
        if pname is None:
            pname = f"{op}:{len(self.prims) + 1}"
            self.prims[key] = pname
            self._prim_protos = getattr(self, "_prim_protos", [])
            self._prim_protos.append(MP.Msg(
                "PrimitiveProto", name=pname, op_type=op, instance_name="",
                prim_type=_PRIMITIVE if old_style or op in _MONAD_OPS else _PRIMITIVE_FUNCTION,
                attribute=[_prim_attr(k, v) for k, v in (attrs or {}).items()]))
        out = self.fresh()
        node = MP.Msg("NodeProto", input=list(inputs), output=[out], name=out,
                      op_type=f"REF::{pname}", domain=f"Default/{op}-op{self.count}")
        if out_aval is not None:
            node.attribute = [_shape_attr(out_aval)]
        self.nodes.append(node)
        return out


_MONAD_OPS = ("Load", "UpdateState", "MakeTuple", "Depend", "TupleGetItem")


def _tensor_proto(array, name=None):
    array = np.ascontiguousarray(array)
    code = _TENSOR_CODES.get(array.dtype)
    if code is None:
        raise TypeError(f"cannot export a tensor of dtype {array.dtype}")
    t = MP.Msg("TensorProto", dims=list(array.shape), data_type=code,
               raw_data=array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes())
    if name is not None:
        t.name = name
    return t


def _shape_attr(aval):
    code = _TENSOR_CODES.get(np.dtype(aval.dtype), 1)
    return MP.Msg("AttributeProto", name="shape", type=_A["TENSORS"],
                  tensors=[MP.Msg("TensorProto", dims=list(aval.shape), data_type=code)])


def _prim_attr(name, value):
    if isinstance(value, str):
        return MP.Msg("AttributeProto", name=name, s=value.encode("utf-8"), type=_A["STRING"])
    if isinstance(value, bool):
        return MP.Msg("AttributeProto", name=name, i=int(value), type=_A["BOOL"])
    if isinstance(value, int):
        return MP.Msg("AttributeProto", name=name, i=value, type=_A["INT64"])
    if isinstance(value, float):
        return MP.Msg("AttributeProto", name=name, f=value, type=_A["FLOAT"])
    items = [MP.Msg("AttributeProto", ints=[int(v)], type=_A["INT64"]) for v in value]
    return MP.Msg("AttributeProto", name=name, values=items, type=_A["TUPLE"])


def _operand(w, x, like):
    """The MindIR name of a Spore node operand: a graph value, or a literal scalar turned
    into a 0-d tensor constant of the other operand's dtype (as MindSpore exports it)."""
    from .._jit.ir import Value
    if isinstance(x, Value):
        return w.names[x]
    dtype = np.dtype(like.aval.dtype) if like is not None else np.dtype(np.float32)
    return w.tensor_const(np.asarray(x, dtype=dtype))


def _type_id(dtype):
    name = np.dtype(dtype).name if np.dtype(dtype).kind != "V" else "bfloat16"
    name = "bool" if name == "bool" else name
    for k, v in _TYPE_IDS.items():
        if v == name:
            return k
    raise TypeError(f"cannot export a cast to {dtype}")


def _export_binary(op):
    def emit(w, n):
        a, b = n.inputs
        from .._jit.ir import Value
        like = a if isinstance(a, Value) else b
        return w.node(op, [_operand(w, a, like), _operand(w, b, like)], n.outputs[0].aval)
    return emit


def _export_unary(op):
    return lambda w, n: w.node(op, [w.names[n.inputs[0]]], n.outputs[0].aval)


def _export_dense(w, n):
    x, wt = n.inputs[0], n.inputs[1]
    b = n.inputs[2] if len(n.inputs) > 2 else None
    no_bias = b is None
    out_aval = n.outputs[0].aval
    xname = w.names[x]
    if x.aval.ndim != 2:                   # MatMul is 2-D: flatten the leading axes
        xname = w.node("Reshape", [xname, w.scalar((-1, x.aval.shape[-1]))], None)
    mm = w.node("MatMul", [xname, w.names[wt], w.scalar(False), w.scalar(True)], None)
    if not no_bias:
        mm = w.node("BiasAdd", [mm, w.names[b], w.scalar(0)], None)
    if x.aval.ndim != 2:
        mm = w.node("Reshape", [mm, w.scalar(tuple(out_aval.shape))], None)
    return mm


def _export_matmul(w, n):
    ta, tb = n.attrs.get("transpose_a", False), n.attrs.get("transpose_b", False)
    op = "MatMul" if n.inputs[0].aval.ndim == 2 and n.inputs[1].aval.ndim == 2 \
        else "BatchMatMul"
    return w.node(op, [w.names[n.inputs[0]], w.names[n.inputs[1]], w.scalar(bool(ta)),
                       w.scalar(bool(tb))], n.outputs[0].aval)


def _export_conv2d(w, n):
    weight = n.inputs[1].aval
    stride, dilation = tuple(n.attrs["stride"]), tuple(n.attrs["dilation"])
    pads = tuple(n.attrs["pads"])
    attrs = {"kernel_size": tuple(weight.shape[2:]), "mode": 1,
             "out_channel": int(weight.shape[0]), "pad": pads, "pad_mode": "pad",
             "format": "NCHW", "pad_list": pads, "groups": int(n.attrs["groups"]),
             "stride": (1, 1) + stride, "group": int(n.attrs["groups"]),
             "dilation": (1, 1) + dilation}
    conv_aval = n.outputs[0].aval
    has_bias = len(n.inputs) > 2 and n.inputs[2] is not None
    out = w.node("Conv2D", [w.names[n.inputs[0]], w.names[n.inputs[1]]],
                 conv_aval, attrs, old_style=True)
    if has_bias:
        out = w.node("BiasAdd", [out, w.names[n.inputs[2]], w.scalar(0)], conv_aval)
    return out


def _same_pads(size, kernel, stride):
    """The (top, bottom, left, right) pads of MindSpore's "same" mode for a 2-D window."""
    pads = []
    for n, k, s in zip(size, kernel, stride):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def _pool_mode(n, what):
    pads = tuple(n.attrs["pads"])
    if not any(pads):
        return "VALID"
    if pads == _same_pads(n.inputs[0].aval.shape[2:], n.attrs["kernel"], n.attrs["stride"]):
        return "SAME"
    raise NotImplementedError(f"export of a {what} with explicit padding {list(pads)} is "
                              "not supported (pad_mode 'valid' and 'same' are)")


def _export_maxpool(w, n):
    if tuple(n.attrs.get("dilation", (1, 1))) != (1, 1):
        raise NotImplementedError("export of a dilated max pooling is not supported")
    attrs = {"kernel_size": (1, 1) + tuple(n.attrs["kernel"]),
             "strides": (1, 1) + tuple(n.attrs["stride"]),
             "pad_mode": _pool_mode(n, "max pooling"), "format": "NCHW"}
    return w.node("MaxPool", [w.names[n.inputs[0]]], n.outputs[0].aval, attrs,
                  old_style=True)


def _export_avgpool(w, n):
    if any(n.attrs["pads"]) or n.attrs.get("divisor"):
        raise NotImplementedError("export of a padded average pooling is not supported")
    return w.node("AvgPool", [w.names[n.inputs[0]], w.scalar(tuple(n.attrs["kernel"])),
                              w.scalar(tuple(n.attrs["stride"])), w.scalar(2), w.scalar(0)],
                  n.outputs[0].aval)


def _export_conv_transpose(w, n):
    weight = n.inputs[1].aval
    pads = tuple(n.attrs["pads"])
    attrs = {"kernel_size": tuple(weight.shape[2:]), "mode": 1,
             "out_channel": int(weight.shape[0]), "pad": pads, "pad_mode": "pad",
             "format": "NCHW", "pad_list": pads, "groups": int(n.attrs["groups"]),
             "stride": (1, 1) + tuple(n.attrs["stride"]), "group": int(n.attrs["groups"]),
             "dilation": (1, 1) + tuple(n.attrs["dilation"])}
    return w.node("Conv2DTranspose",
                  [w.names[n.inputs[0]], w.names[n.inputs[1]],
                   w.scalar(tuple(n.attrs["input_shape"]))],
                  n.outputs[0].aval, attrs, old_style=True)


def _export_argmax(w, n):
    op = "Argmax" if n.prim.name == "Argmax" else "Argmin"
    x = n.inputs[0]
    axis = n.attrs.get("axis")
    if axis is None:
        flat = w.node("Reshape", [w.names[x], w.scalar((-1,))], None)
        out = w.node(op, [flat, w.scalar(0), w.scalar(_type_id(n.attrs["dtype"]))], None)
        return w.node("Reshape", [out, w.scalar(tuple(n.outputs[0].aval.shape))],
                      n.outputs[0].aval)
    out = w.node(op, [w.names[x], w.scalar(int(axis)), w.scalar(_type_id(n.attrs["dtype"]))],
                 None if n.attrs.get("keepdims") else n.outputs[0].aval)
    if n.attrs.get("keepdims"):
        out = w.node("ExpandDims", [out, w.scalar(int(axis))], n.outputs[0].aval)
    return out


def _export_layer_norm(w, n):
    axis = n.attrs["axis"] % n.inputs[0].aval.ndim
    return w.node("LayerNorm", [w.names[v] for v in n.inputs[:3]] +
                  [w.scalar(axis), w.scalar(axis), w.scalar(float(n.attrs["eps"]))], None)


def _export_reduce(op):
    def emit(w, n):
        axis = n.attrs.get("axis")
        axis = tuple(range(n.inputs[0].aval.ndim)) if axis is None else \
            (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
        keep = bool(n.attrs.get("keepdims", False))
        ins = [w.names[n.inputs[0]], w.scalar(axis), w.scalar(keep)]
        if op == "SumExt":
            ins.append(w.scalar(None))
        return w.node(op, ins, n.outputs[0].aval)
    return emit


def _export_getitem(w, n):
    """Indexing: one integer tensor among full slices is a Gather; slices, integers,
    None and Ellipsis are one StridedSlice over every axis plus a Reshape."""
    spec = n.attrs.get("spec") or ()
    x = n.inputs[0]
    out = n.outputs[0].aval
    full = ("slice", None, None, None)
    tensors = [k for k, e in enumerate(spec) if e[0] == "tensor"]
    if tensors:
        if len(tensors) != 1 or any(e != full for k, e in enumerate(spec) if k != tensors[0]):
            raise NotImplementedError("export of advanced indexing other than one integer "
                                      "tensor among full slices is not supported")
        return w.node("Gather", [w.names[x], w.names[n.inputs[1]], w.scalar(tensors[0]),
                                 w.scalar(0)], out)
    shape = x.aval.shape
    n_axes = sum(e[0] in ("slice", "int") for e in spec)
    begin, end = [0] * len(shape), list(shape)
    strides = [1] * len(shape)
    axis = 0
    for e in spec:
        if e[0] == "ellipsis":
            axis += len(shape) - n_axes
        elif e[0] == "int":
            i = e[1] + shape[axis] if e[1] < 0 else e[1]
            begin[axis], end[axis] = i, i + 1
            axis += 1
        elif e[0] == "slice":
            start, stop, step = slice(*e[1:]).indices(shape[axis])
            if step < 0:
                raise NotImplementedError("export of a slice with a negative step is not "
                                          "supported")
            begin[axis], end[axis], strides[axis] = start, max(stop, start), step
            axis += 1
    sliced = w.node("StridedSlice", [w.names[x], w.scalar(tuple(begin)), w.scalar(tuple(end)),
                                     w.scalar(tuple(strides))] + [w.scalar(0)] * 5, None)
    return w.node("Reshape", [sliced, w.scalar(tuple(out.shape))], out)


def _export_concat(w, n):
    tup = w.node("MakeTuple", [w.names[v] for v in n.inputs], None)
    return w.node("Concat", [tup, w.scalar(int(n.attrs["axis"]))], n.outputs[0].aval)


def _slice(w, x, aval, starts, stops, out_aval):
    nd = aval.ndim
    begin, end = [0] * nd, list(aval.shape)
    for axis, (a, b) in enumerate(zip(starts, stops)):
        if a is not None:
            begin[axis], end[axis] = a, b
    return w.node("StridedSlice", [x, w.scalar(tuple(begin)), w.scalar(tuple(end)),
                                   w.scalar((1,) * nd)] + [w.scalar(0)] * 5, out_aval)


def _export_split(w, n):
    """Split as one StridedSlice per piece; returns the piece names (a list)."""
    x = n.inputs[0]
    axis = n.attrs["axis"] % x.aval.ndim
    names, start = [], 0
    for size, out in zip(n.attrs["sizes"], n.outputs):
        starts = [None] * x.aval.ndim
        stops = [None] * x.aval.ndim
        starts[axis], stops[axis] = start, start + size
        names.append(_slice(w, w.names[x], x.aval, starts, stops, out.aval))
        start += size
    return names


_EXPORT = {
    "Add": _export_binary("Add"), "Sub": _export_binary("Sub"),
    "Mul": _export_binary("Mul"), "Div": _export_binary("Div"),
    "Maximum": _export_binary("Maximum"), "Minimum": _export_binary("Minimum"),
    "Pow": _export_binary("Pow"),
    **{name: _export_unary(name) for name in ("Abs", "Neg", "Exp", "Sqrt", "Rsqrt",
                                              "Square", "Sigmoid", "Tanh", "Erf", "ReLU",
                                              "Sin", "Cos", "Floor", "Reciprocal")},
    "Log": _export_unary("Log"),
    "Dense": _export_dense, "MatMul": _export_matmul, "BatchMatMul": _export_matmul,
    "Conv2D": _export_conv2d, "MaxPool2D": _export_maxpool, "AvgPool2D": _export_avgpool,
    "LayerNorm": _export_layer_norm,
    "Reshape": lambda w, n: w.node("Reshape", [w.names[n.inputs[0]],
                                               w.scalar(tuple(n.attrs["shape"]))],
                                   n.outputs[0].aval),
    "Transpose": lambda w, n: w.node("Transpose", [w.names[n.inputs[0]],
                                                   w.scalar(tuple(n.attrs["perm"]))],
                                     n.outputs[0].aval),
    "Softmax": lambda w, n: w.node("Softmax", [w.names[n.inputs[0]],
                                               w.scalar((int(n.attrs["axis"]),))],
                                   n.outputs[0].aval),
    "LogSoftmax": lambda w, n: w.node("LogSoftmax", [w.names[n.inputs[0]],
                                                     w.scalar(int(n.attrs["axis"]))],
                                      n.outputs[0].aval),
    "ReduceMean": _export_reduce("ReduceMean"), "ReduceSum": _export_reduce("SumExt"),
    "Cast": lambda w, n: w.node("Cast", [w.names[n.inputs[0]],
                                         w.scalar(_type_id(n.attrs["dtype"]))],
                                n.outputs[0].aval),
    "Getitem": _export_getitem, "Concat": _export_concat, "Split": _export_split,
    **{name: _export_binary(name) for name in ("Greater", "Less", "Equal", "NotEqual",
                                               "GreaterEqual", "LessEqual")},
    "Select": lambda w, n: w.node("Select", [_operand(w, x, n.inputs[1]) for x in n.inputs],
                                  n.outputs[0].aval),
    "Conv2DBackpropInput": _export_conv_transpose,
    "Argmax": _export_argmax, "Argmin": _export_argmax,
}
_ALIASES = ("Identity", "StopGradient", "Depend")


def export_mindir(net, inputs, file_name):
    """Trace ``net`` on ``inputs`` in inference mode and write ``file_name`` (.mindir)."""
    from .._jit.api import JitFunction
    from .._jit.ir import Value
    was_training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        jf = JitFunction(lambda *a: net(*a), fullgraph=True)
        jf.name = f"{type(net).__name__}_construct"
        entry = jf.entry_for(*inputs)
    finally:
        if hasattr(net, "set_train"):
            net.set_train(was_training)
    graph = entry.graph
    if entry.uses_rng:
        raise NotImplementedError("export of a network that draws random numbers in "
                                  "inference mode is not supported")
    gname = f"{type(net).__name__}_construct"
    w = _Writer(gname)
    n_args = len(inputs)
    ins, params = [], []
    arg_names = [f"x{i}" if len(inputs) > 1 else "x" for i in range(n_args)]
    objects = iter(entry.objects)
    for i, v in enumerate(graph.inputs):
        if i < n_args:
            name = f"{gname}:{arg_names[i]}"
            w.names[v] = name
            ins.append(MP.Msg("ValueInfoProto", name=name, tensor=[MP.Msg(
                "TensorProto", dims=list(v.aval.shape),
                data_type=_TENSOR_CODES[np.dtype(v.aval.dtype)])]))
            continue
        obj = next(objects)
        short = getattr(obj, "name", None) or f"const_{i}"
        name = f"{gname}:{short}"
        w.names[v] = name
        t = _tensor_proto(obj.asnumpy(), name)
        t.ref_key = short
        params.append(t)
    for c in graph.consts:
        w.names[c] = w.tensor_const(c.const)
    for n in graph.nodes:
        name = n.prim.name
        if name in _ALIASES:
            w.names[n.outputs[0]] = w.names[n.inputs[0]] if isinstance(n.inputs[0], Value) \
                else w.tensor_const(np.asarray(n.inputs[0]))
            continue
        emit = _EXPORT.get(name)
        if emit is None or n.written or n.prim.effect is not None:
            raise NotImplementedError(
                f"export to MINDIR does not support the operator {name!r} yet"
                + (f" (used at {n.loc[0]}:{n.loc[1]})" if n.loc else ""))
        out = emit(w, n)
        if isinstance(out, list):     # one name per output
            for v, o in zip(n.outputs, out):
                w.names[v] = o
        elif name == "LayerNorm":     # a tuple: (y, mean, rstd)
            for k, v in enumerate(n.outputs):
                w.names[v] = w.node("TupleGetItem", [out, w.scalar(k)], v.aval)
        else:
            w.names[n.outputs[0]] = out
    outputs = graph.outputs
    if len(outputs) == 1:
        result = w.names[outputs[0]]
    else:
        result = w.node("MakeTuple", [w.names[v] for v in outputs], None)
    out_info = MP.Msg("ValueInfoProto", name=result)
    if len(outputs) == 1:
        v = outputs[0]
        out_info.tensor = [MP.Msg("TensorProto", dims=list(v.aval.shape),
                                  data_type=_TENSOR_CODES[np.dtype(v.aval.dtype)])]
    g = MP.Msg("GraphProto", node=w.nodes, name=gname, parameter=params, input=ins,
               output=[out_info])
    model = MP.Msg("ModelProto", ir_version="1.1", producer_name="MindSpore",
                   producer_version="2.10.0", model_version="", graph=g,
                   little_endian=True, primitives=getattr(w, "_prim_protos", []),
                   mind_ir_version=3)
    data = MP.encode(model)
    with open(file_name, "wb") as f:
        f.write(data)
    return file_name


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """``mindspore.export``: write ``net`` traced on ``inputs`` as a MindIR file
    (``file_name`` gets the ``.mindir`` suffix when it lacks it); returns nothing."""
    from .._tensor import Tensor
    if not isinstance(file_name, str):
        raise TypeError(f"For 'export', 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}.")
    fmt = str(file_format).upper()
    if fmt not in ("MINDIR", "AIR", "ONNX"):
        raise ValueError(f"For 'export', 'file_format' must be one of ['AIR', 'ONNX', "
                         f"'MINDIR'], but got {file_format!r}.")
    if fmt != "MINDIR":
        raise NotImplementedError(f"spore.export writes MINDIR files only, not {fmt}")
    for key in ("enc_key", "obf_config"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"spore.export does not encrypt or obfuscate ({key})")
    if not inputs:
        raise ValueError("For 'export', give the network's example inputs after 'net'.")
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'export', the inputs must be Tensors, but got "
                            f"{type(x).__name__}.")
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    parent = os.path.dirname(os.path.abspath(file_name))
    os.makedirs(parent, exist_ok=True)
    export_mindir(net, inputs, file_name)


def load_mindir(file_name):
    """``mindspore.load_mindir``: the file's ``ModelProto`` as a message object (fields
    as attributes, the names of ``mind_ir.proto``), without running anything."""
    try:
        with open(file_name, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(str(e)) from None
    try:
        return MP.decode(data)
    except MP.DecodeError as e:
        raise RuntimeError(f"Failed to parse the file: {file_name}: {e}") from None


def save_mindir(model, file_name):
    """``mindspore.save_mindir``: write a ``ModelProto`` (from ``load_mindir``) to
    ``file_name`` (``.mindir`` appended when missing)."""
    if not isinstance(model, MP.Msg) or model._type != "ModelProto":
        raise TypeError(f"For 'save_mindir', the argument 'model' must be ModelProto, but got "
                        f"{type(model)}.")
    if not isinstance(file_name, str):
        raise TypeError(f"For 'save_mindir', 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}.")
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    with open(file_name, "wb") as f:
        f.write(MP.encode(model))
