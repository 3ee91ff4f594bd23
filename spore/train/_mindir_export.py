"""Writing a traced Spore graph as a MindIR file in MindSpore 2.10's conventions
(NOTE: [MindIR] in mindir.py): each Spore primitive becomes the MindSpore operator with
the same meaning (``_EXPORT``)."""
from __future__ import annotations

import numpy as np

from . import _mindir_proto as MP
from ._mindir_proto import _A, _PRIMITIVE, _PRIMITIVE_FUNCTION, _TENSOR_CODES, _TYPE_IDS


class _Writer:
    """Builds the ``ModelProto`` of one traced graph in MindSpore 2.10's conventions."""

    def __init__(self, gname):
        self.gname = gname
        self.nodes, self.prims, self.names = [], {}, {}
        self.prim_protos = []      # one PrimitiveProto per distinct (operator, attributes)
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
            self.prim_protos.append(MP.Msg(
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
    axis = gather_axis(spec, "export")
    if axis is not None:
        return w.node("Gather", [w.names[x], w.names[n.inputs[1]], w.scalar(axis),
                                 w.scalar(0)], out)
    shape = x.aval.shape
    begin, end = [0] * len(shape), list(shape)
    strides = [1] * len(shape)
    for axis, start, stop, step in basic_index_bounds(spec, shape):
        if step < 0:
            raise NotImplementedError("export of a slice with a negative step is not "
                                      "supported")
        begin[axis], end[axis], strides[axis] = start, max(stop, start), step
    sliced = w.node("StridedSlice", [w.names[x], w.scalar(tuple(begin)), w.scalar(tuple(end)),
                                     w.scalar(tuple(strides))] + [w.scalar(0)] * 5, None)
    return w.node("Reshape", [sliced, w.scalar(tuple(out.shape))], out)


def gather_axis(spec, what):
    """The axis of a ``Getitem`` spec's integer-tensor index when it is the only one
    among full slices (an embedding lookup: one Gather), None for basic indexing; other
    advanced indexing cannot be exported (``what`` names the export in the error)."""
    full = ("slice", None, None, None)
    tensors = [k for k, e in enumerate(spec) if e[0] == "tensor"]
    if not tensors:
        return None
    if len(tensors) != 1 or any(e != full for k, e in enumerate(spec) if k != tensors[0]):
        raise NotImplementedError(f"{what} of advanced indexing other than one integer "
                                  "tensor among full slices is not supported")
    return tensors[0]


def basic_index_bounds(spec, shape):
    """(axis, start, stop, step) of every integer and slice of a basic index ``spec``
    (``Getitem``'s attribute) over ``shape``; an integer is the slice [i, i + 1), and
    ``None`` and ``...`` only move along the axes."""
    n_axes = sum(e[0] in ("slice", "int") for e in spec)
    out, axis = [], 0
    for e in spec:
        if e[0] == "ellipsis":
            axis += len(shape) - n_axes
        elif e[0] == "int":
            i = e[1] + shape[axis] if e[1] < 0 else e[1]
            out.append((axis, i, i + 1, 1))
            axis += 1
        elif e[0] == "slice":
            out.append((axis,) + slice(*e[1:]).indices(shape[axis]))
            axis += 1
    return out


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


def trace_inference(net, inputs, fmt):
    """The compiled entry of ``net`` traced on ``inputs`` in inference mode (the network's
    training flag restored after), for an export to ``fmt``."""
    from .._jit.api import JitFunction
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
    if entry.uses_rng:
        raise NotImplementedError(f"export to {fmt} of a network that draws random numbers "
                                  "in inference mode is not supported")
    return entry


def export_mindir(net, inputs, file_name):
    """Trace ``net`` on ``inputs`` in inference mode and write ``file_name`` (.mindir)."""
    from .._jit.ir import Value
    entry = trace_inference(net, inputs, "MINDIR")
    graph = entry.graph
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
                   little_endian=True, primitives=w.prim_protos,
                   mind_ir_version=3)
    data = MP.encode(model)
    with open(file_name, "wb") as f:
        f.write(data)
    return file_name
