"""Writing a traced Spore graph as an ONNX model (``ms.onnx.export`` and
``ms.export(..., file_format="ONNX")``).

NOTE: [ONNX export]
The network is traced in inference mode exactly as for MindIR (NOTE: [MindIR]), and each
Spore primitive becomes the ONNX operator(s) with its meaning at opset 17
(``_EXPORT``); Parameters become initializers (or graph inputs, with
``keep_initializers_as_inputs``), literals become constants of their partner's dtype.
The messages of ``onnx.proto`` are written by the same table-driven protobuf codec as
MindIR (``_mindir_proto``), with the ONNX tables registered under an ``onnx.`` prefix:
no ``onnx`` package is needed to write a model. Shapes are those of the example inputs
(names in ``dynamic_axes`` are not supported yet); a primitive without a mapping is an
error naming it and the user's line.
"""
from __future__ import annotations

import numpy as np

from . import _mindir_proto as MP

OPSET = 17
IR_VERSION = 8                      # the ONNX IR of opset 17

MP._SCHEMA.update({
    "onnx.ModelProto": {
        1: ("ir_version", "int", False), 2: ("producer_name", "str", False),
        3: ("producer_version", "str", False), 4: ("domain", "str", False),
        5: ("model_version", "int", False), 6: ("doc_string", "str", False),
        7: ("graph", "onnx.GraphProto", False),
        8: ("opset_import", "onnx.OperatorSetIdProto", True),
    },
    "onnx.OperatorSetIdProto": {1: ("domain", "str", False), 2: ("version", "int", False)},
    "onnx.GraphProto": {
        1: ("node", "onnx.NodeProto", True), 2: ("name", "str", False),
        5: ("initializer", "onnx.TensorProto", True), 10: ("doc_string", "str", False),
        11: ("input", "onnx.ValueInfoProto", True), 12: ("output", "onnx.ValueInfoProto", True),
    },
    "onnx.NodeProto": {
        1: ("input", "str", True), 2: ("output", "str", True), 3: ("name", "str", False),
        4: ("op_type", "str", False), 5: ("attribute", "onnx.AttributeProto", True),
        7: ("domain", "str", False),
    },
    "onnx.AttributeProto": {
        1: ("name", "str", False), 2: ("f", "float", False), 3: ("i", "int", False),
        4: ("s", "bytes", False), 5: ("t", "onnx.TensorProto", False),
        7: ("floats", "float", True), 8: ("ints", "int", True), 20: ("type", "enum", False),
    },
    "onnx.TensorProto": {
        1: ("dims", "int", True), 2: ("data_type", "int", False), 8: ("name", "str", False),
        9: ("raw_data", "bytes", False),
    },
    "onnx.ValueInfoProto": {1: ("name", "str", False), 2: ("type", "onnx.TypeProto", False)},
    "onnx.TypeProto": {1: ("tensor_type", "onnx.TypeProto.Tensor", False)},
    "onnx.TypeProto.Tensor": {1: ("elem_type", "int", False),
                              2: ("shape", "onnx.TensorShapeProto", False)},
    "onnx.TensorShapeProto": {1: ("dim", "onnx.TensorShapeProto.Dimension", True)},
    "onnx.TensorShapeProto.Dimension": {1: ("dim_value", "int", False),
                                        2: ("dim_param", "str", False)},
})

# TensorProto.DataType
_DTYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
           np.dtype(np.uint16): 4, np.dtype(np.int16): 5, np.dtype(np.int32): 6,
           np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float16): 10,
           np.dtype(np.float64): 11, np.dtype(np.uint32): 12, np.dtype(np.uint64): 13}
# AttributeProto.AttributeType
_FLOAT, _INT, _STRING, _TENSOR, _FLOATS, _INTS = 1, 2, 3, 4, 6, 7


def _elem_type(dtype):
    code = _DTYPES.get(np.dtype(dtype))
    if code is None:
        raise NotImplementedError(f"export to ONNX does not support the dtype {dtype}")
    return code


def _tensor(array, name):
    array = np.ascontiguousarray(array)
    return MP.Msg("onnx.TensorProto", dims=list(array.shape), name=name,
                  data_type=_elem_type(array.dtype), raw_data=array.astype(
                      array.dtype.newbyteorder("<")).tobytes())


def _value_info(name, aval):
    dims = [MP.Msg("onnx.TensorShapeProto.Dimension", dim_value=int(d)) for d in aval.shape]
    return MP.Msg("onnx.ValueInfoProto", name=name, type=MP.Msg(
        "onnx.TypeProto", tensor_type=MP.Msg(
            "onnx.TypeProto.Tensor", elem_type=_elem_type(aval.dtype),
            shape=MP.Msg("onnx.TensorShapeProto", dim=dims))))


def _attr(name, value):
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return MP.Msg("onnx.AttributeProto", name=name, i=int(value), type=_INT)
    if isinstance(value, (float, np.floating)):
        return MP.Msg("onnx.AttributeProto", name=name, f=float(value), type=_FLOAT)
    if isinstance(value, str):
        return MP.Msg("onnx.AttributeProto", name=name, s=value.encode(), type=_STRING)
    if isinstance(value, np.ndarray):
        return MP.Msg("onnx.AttributeProto", name=name, t=_tensor(value, ""), type=_TENSOR)
    value = list(value)
    if all(isinstance(v, (int, np.integer)) for v in value):
        return MP.Msg("onnx.AttributeProto", name=name, ints=[int(v) for v in value],
                      type=_INTS)
    return MP.Msg("onnx.AttributeProto", name=name, floats=[float(v) for v in value],
                  type=_FLOATS)


class _Writer:
    def __init__(self):
        self.nodes, self.inits, self.names = [], [], {}
        self.count = 0

    def fresh(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def node(self, op, inputs, n_out=1, **attrs):
        """One ONNX node; returns its output name (a list for several outputs)."""
        outs = [self.fresh(op) for _ in range(n_out)]
        self.nodes.append(MP.Msg("onnx.NodeProto", input=list(inputs), output=outs,
                                 name=f"{op}_{self.count}", op_type=op,
                                 attribute=[_attr(k, v) for k, v in attrs.items()]))
        return outs[0] if n_out == 1 else outs

    def const(self, array):
        name = self.fresh("const")
        self.inits.append(_tensor(np.asarray(array), name))
        return name

    def ints(self, values):
        return self.const(np.asarray(list(values), np.int64))

    def operand(self, x, like):
        """A node operand: a graph value, or a literal as a 0-d constant of the dtype of
        ``like`` (the other operand), as the elementwise kernels take it."""
        from .._jit.ir import Value
        if isinstance(x, Value):
            return self.names[x]
        dtype = np.dtype(like.aval.dtype) if like is not None else np.dtype(np.float32)
        return self.const(np.asarray(x, dtype=dtype))


# --------------------------------------------------------------------------- operators
def _binary(op):
    def emit(w, n):
        from .._jit.ir import Value
        a, b = n.inputs
        like = a if isinstance(a, Value) else b
        return w.node(op, [w.operand(a, like), w.operand(b, like)])
    return emit


def _unary(op):
    return lambda w, n: w.node(op, [w.names[n.inputs[0]]])


def _not_equal(w, n):
    return w.node("Not", [_binary("Equal")(w, n)])


def _rsqrt(w, n):
    return w.node("Reciprocal", [w.node("Sqrt", [w.names[n.inputs[0]]])])


def _square(w, n):
    x = w.names[n.inputs[0]]
    return w.node("Mul", [x, x])


def _dense(w, n):
    x, weight = n.inputs[0], n.inputs[1]
    b = n.inputs[2] if len(n.inputs) > 2 else None
    if x.aval.ndim == 2:
        ins = [w.names[x], w.names[weight]] + ([w.names[b]] if b is not None else [])
        return w.node("Gemm", ins, transB=1)
    out = w.node("MatMul", [w.names[x], w.node("Transpose", [w.names[weight]], perm=(1, 0))])
    return w.node("Add", [out, w.names[b]]) if b is not None else out


def _matmul(w, n):
    a, b = (w.names[v] for v in n.inputs[:2])
    for k, key in enumerate(("transpose_a", "transpose_b")):
        if n.attrs.get(key):
            v = n.inputs[k]
            perm = list(range(v.aval.ndim))
            perm[-2], perm[-1] = perm[-1], perm[-2]
            t = w.node("Transpose", [a if k == 0 else b], perm=perm)
            a, b = (t, b) if k == 0 else (a, t)
    return w.node("MatMul", [a, b])


def _pads(n):
    top, bottom, left, right = n.attrs["pads"]
    return (top, left, bottom, right)


def _conv2d(w, n):
    ins = [w.names[v] for v in n.inputs[:2]]
    if len(n.inputs) > 2 and n.inputs[2] is not None:
        ins.append(w.names[n.inputs[2]])
    return w.node("Conv", ins, kernel_shape=n.inputs[1].aval.shape[2:],
                  strides=n.attrs["stride"], pads=_pads(n), dilations=n.attrs["dilation"],
                  group=int(n.attrs["groups"]))


def _maxpool(w, n):
    return w.node("MaxPool", [w.names[n.inputs[0]]], kernel_shape=n.attrs["kernel"],
                  strides=n.attrs["stride"], pads=_pads(n),
                  dilations=n.attrs.get("dilation", (1, 1)),
                  ceil_mode=int(bool(n.attrs.get("ceil_mode", False))))


def _avgpool(w, n):
    if n.attrs.get("divisor"):
        raise NotImplementedError("export to ONNX of an average pooling with a divisor is "
                                  "not supported")
    return w.node("AveragePool", [w.names[n.inputs[0]]], kernel_shape=n.attrs["kernel"],
                  strides=n.attrs["stride"], pads=_pads(n),
                  ceil_mode=int(bool(n.attrs.get("ceil_mode", False))),
                  count_include_pad=int(bool(n.attrs.get("count_include_pad", True))))


def _layer_norm(w, n):
    """ONNX's LayerNormalization gives (y, mean, 1/std) as LayerNorm does."""
    axis = n.attrs["axis"] % n.inputs[0].aval.ndim
    return w.node("LayerNormalization", [w.names[v] for v in n.inputs[:3]],
                  n_out=len(n.outputs), axis=axis, epsilon=float(n.attrs["eps"]))


def _reduce(op):
    def emit(w, n):
        axis = n.attrs.get("axis")
        nd = n.inputs[0].aval.ndim
        axes = tuple(range(nd)) if axis is None or axis == () else \
            (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
        keep = int(bool(n.attrs.get("keepdims", False)))
        if op == "ReduceSum":              # axes became an input at opset 13
            return w.node(op, [w.names[n.inputs[0]], w.ints(axes)], keepdims=keep)
        return w.node(op, [w.names[n.inputs[0]]], axes=axes, keepdims=keep)
    return emit


def _argmax(w, n):
    op = "ArgMax" if n.prim.name == "Argmax" else "ArgMin"
    x, axis = w.names[n.inputs[0]], n.attrs.get("axis")
    if axis is None:
        x, axis = w.node("Reshape", [x, w.ints((-1,))]), 0
    out = w.node(op, [x], axis=int(axis), keepdims=int(bool(n.attrs.get("keepdims"))))
    dtype = np.dtype(n.outputs[0].aval.dtype)
    if dtype != np.int64:
        out = w.node("Cast", [out], to=_elem_type(dtype))
    if n.attrs.get("axis") is None and n.outputs[0].aval.shape != ():
        out = w.node("Reshape", [out, w.ints(n.outputs[0].aval.shape)])
    return out


def _getitem(w, n):
    """Basic indexing (slices with steps, integers, None, Ellipsis) as one Slice plus a
    Reshape; one integer tensor among full slices as a Gather."""
    from ._mindir_export import basic_index_bounds, gather_axis
    spec = n.attrs.get("spec") or ()
    x = n.inputs[0]
    out = n.outputs[0].aval
    axis = gather_axis(spec, "export to ONNX")
    if axis is not None:
        return w.node("Gather", [w.names[x], w.names[n.inputs[1]]], axis=axis)
    starts, ends, axes, steps = [], [], [], []
    for axis, start, stop, step in basic_index_bounds(spec, x.aval.shape):
        if step < 0 and stop < 0:
            stop = -(1 << 62)                   # through index 0 (ONNX clamps)
        starts.append(start)
        ends.append(stop)
        axes.append(axis)
        steps.append(step)
    sliced = w.names[x]
    if axes:
        sliced = w.node("Slice", [sliced, w.ints(starts), w.ints(ends), w.ints(axes),
                                  w.ints(steps)])
    return w.node("Reshape", [sliced, w.ints(out.shape)])


def _split(w, n):
    axis = n.attrs["axis"] % n.inputs[0].aval.ndim
    return w.node("Split", [w.names[n.inputs[0]], w.ints(n.attrs["sizes"])],
                  n_out=len(n.outputs), axis=axis)


def _select(w, n):
    from .._jit.ir import Value
    c, a, b = n.inputs
    like = a if isinstance(a, Value) else b
    return w.node("Where", [w.names[c], w.operand(a, like), w.operand(b, like)])


def _cast(w, n):
    return w.node("Cast", [w.names[n.inputs[0]]], to=_elem_type(n.outputs[0].aval.dtype))


def _softmax(op):
    def emit(w, n):
        axis = n.attrs["axis"]
        axis = axis[0] if isinstance(axis, (tuple, list)) else axis
        return w.node(op, [w.names[n.inputs[0]]], axis=int(axis))
    return emit


def _pad(w, n):
    if n.attrs.get("mode", "constant") != "constant":
        raise NotImplementedError(f"export to ONNX of a {n.attrs['mode']!r} pad is not "
                                  "supported (constant pads are)")
    pads = n.attrs["pads"]
    x = n.inputs[0]
    value = w.const(np.asarray(n.attrs.get("value") or 0, dtype=x.aval.dtype))
    return w.node("Pad", [w.names[x], w.ints([p[0] for p in pads] + [p[1] for p in pads]),
                          value], mode="constant")


_EXPORT = {
    **{name: _binary(name) for name in ("Add", "Sub", "Mul", "Div", "Pow", "Greater", "Less",
                                        "Equal", "GreaterOrEqual", "LessOrEqual")},
    "Maximum": _binary("Max"), "Minimum": _binary("Min"),
    "GreaterEqual": _binary("GreaterOrEqual"), "LessEqual": _binary("LessOrEqual"),
    "NotEqual": _not_equal,
    **{name: _unary(name) for name in ("Abs", "Neg", "Exp", "Log", "Sqrt", "Sigmoid",
                                       "Tanh", "Erf", "Sin", "Cos", "Floor", "Ceil",
                                       "Reciprocal", "Sign")},
    "ReLU": _unary("Relu"), "Rsqrt": _rsqrt, "Square": _square,
    "LogicalNot": _unary("Not"), "LogicalAnd": _binary("And"), "LogicalOr": _binary("Or"),
    "BroadcastTo": lambda w, n: w.node("Expand", [w.names[n.inputs[0]],
                                                  w.ints(n.attrs["shape"])]),
    "Pad": _pad,
    "Dense": _dense, "MatMul": _matmul, "BatchMatMul": _matmul,
    "Conv2D": _conv2d, "MaxPool2D": _maxpool, "AvgPool2D": _avgpool,
    "LayerNorm": _layer_norm,
    "Reshape": lambda w, n: w.node("Reshape", [w.names[n.inputs[0]],
                                               w.ints(n.attrs["shape"])]),
    "Transpose": lambda w, n: w.node("Transpose", [w.names[n.inputs[0]]],
                                     perm=n.attrs["perm"]),
    "Softmax": _softmax("Softmax"), "LogSoftmax": _softmax("LogSoftmax"),
    "ReduceMean": _reduce("ReduceMean"), "ReduceSum": _reduce("ReduceSum"),
    "ReduceMax": _reduce("ReduceMax"), "ReduceMin": _reduce("ReduceMin"),
    "Cast": _cast, "Getitem": _getitem,
    "Concat": lambda w, n: w.node("Concat", [w.names[v] for v in n.inputs],
                                  axis=int(n.attrs["axis"])),
    "Split": _split, "Select": _select, "Argmax": _argmax, "Argmin": _argmax,
}
_ALIASES = ("Identity", "StopGradient", "Depend")


def export_onnx(net, inputs, file_name, input_names=None, output_names=None,
                export_params=True, keep_initializers_as_inputs=False):
    """Trace ``net`` on ``inputs`` in inference mode and write ``file_name`` (.onnx)."""
    from .._jit.ir import Value
    from ._mindir_export import trace_inference
    entry = trace_inference(net, inputs, "ONNX")
    graph = entry.graph
    w = _Writer()
    n_args = len(inputs)
    names = list(input_names or [])
    names += [f"x{i}" if n_args > 1 else "x" for i in range(len(names), n_args)]
    if len(set(names)) != len(names):
        raise ValueError(f"For 'export', the 'input_names' must be distinct, but got {names}.")
    ins = []
    objects = iter(entry.objects)
    used = set(names)
    for i, v in enumerate(graph.inputs):
        if i < n_args:
            w.names[v] = names[i]
            ins.append(_value_info(names[i], v.aval))
            continue
        obj = next(objects)
        name = getattr(obj, "name", None) or f"const_{i}"
        while name in used:
            name += "_"
        used.add(name)
        w.names[v] = name
        if export_params:
            w.inits.append(_tensor(obj.asnumpy(), name))
        if keep_initializers_as_inputs or not export_params:
            ins.append(_value_info(name, v.aval))
    for c in graph.consts:
        w.names[c] = w.const(c.const)
    for n in graph.nodes:
        name = n.prim.name
        if name in _ALIASES:
            x = n.inputs[0]
            w.names[n.outputs[0]] = w.names[x] if isinstance(x, Value) else w.const(
                np.asarray(x))
            continue
        emit = _EXPORT.get(name)
        if emit is None or n.written or n.prim.effect is not None:
            raise NotImplementedError(
                f"export to ONNX does not support the operator {name!r} yet"
                + (f" (used at {n.loc[0]}:{n.loc[1]})" if n.loc else ""))
        out = emit(w, n)
        for v, o in zip(n.outputs, out if isinstance(out, list) else [out]):
            w.names[v] = o
    outs = list(output_names or [])
    outs += [f"output_{i}" if len(graph.outputs) > 1 else "output"
             for i in range(len(outs), len(graph.outputs))]
    out_infos = []
    for v, oname in zip(graph.outputs, outs):
        w.nodes.append(MP.Msg("onnx.NodeProto", input=[w.names[v]], output=[oname],
                              name=f"Identity_{oname}", op_type="Identity"))
        out_infos.append(_value_info(oname, v.aval))
    g = MP.Msg("onnx.GraphProto", node=w.nodes, name=type(net).__name__,
               initializer=w.inits, input=ins, output=out_infos)
    model = MP.Msg("onnx.ModelProto", ir_version=IR_VERSION, producer_name="Spore",
                   graph=g, opset_import=[MP.Msg("onnx.OperatorSetIdProto", domain="",
                                                 version=OPSET)])
    with open(file_name, "wb") as f:
        f.write(MP.encode(model))
    return file_name
