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

Loading interprets the graph with Spore's operators (``_OPS`` in ``_mindir_ops.py``: one
function per MindSpore operator, taking that operator's inputs in MindSpore's order), so
a loaded graph runs in PyNative or inside ``jit`` like any code. Exporting traces the
Cell with the Graph-mode capture and writes each Spore primitive as the MindSpore
operator with the same meaning (``_EXPORT`` in ``_mindir_export.py``), in the conventions of MindSpore 2.10's own exports, so
MindSpore loads the file too (tested against the reference where it is installed).
An operator outside those tables is a clear error naming it. Encrypted and obfuscated
files (``dec_key``, ``obf_func``) are not supported.
"""
from __future__ import annotations

import os

import numpy as np

from . import _mindir_proto as MP
from ._mindir_proto import _A, _TENSOR_DTYPES
from ._mindir_ops import _OPS, _U
from ._mindir_export import export_mindir


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


def _check_file_name(file_name, who):
    if not isinstance(file_name, str):
        raise TypeError(f"For '{who}', 'file_name' must be a str, but got "
                        f"{type(file_name).__name__}.")


def load(file_name, **kwargs):
    """``mindspore.load``: the graph of a ``.mindir`` file, to run with ``nn.GraphCell``."""
    for key in ("dec_key", "obf_func"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"spore.load does not read encrypted or obfuscated "
                                      f"MindIR files ({key}=...)")
    _check_file_name(file_name, "load")
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


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """``mindspore.export``: write ``net`` traced on ``inputs`` as a MindIR file
    (``file_name`` gets the ``.mindir`` suffix when it lacks it) or, with
    ``file_format="ONNX"``, an ONNX model (``.onnx``: NOTE: [ONNX export]); returns
    nothing."""
    _check_file_name(file_name, "export")
    fmt = str(file_format).upper()
    if fmt not in ("MINDIR", "AIR", "ONNX"):
        raise ValueError(f"For 'export', 'file_format' must be one of ['AIR', 'ONNX', "
                         f"'MINDIR'], but got {file_format!r}.")
    if fmt == "AIR":
        raise NotImplementedError("spore.export writes MINDIR and ONNX files; AIR is the "
                                  "Ascend model format")
    for key in ("enc_key", "obf_config"):
        if kwargs.get(key) is not None:
            raise NotImplementedError(f"spore.export does not encrypt or obfuscate ({key})")
    _check_export_inputs(inputs)
    suffix = ".mindir" if fmt == "MINDIR" else ".onnx"
    if not file_name.endswith(suffix):
        file_name += suffix
    parent = os.path.dirname(os.path.abspath(file_name))
    os.makedirs(parent, exist_ok=True)
    if fmt == "ONNX":
        from ._onnx_export import export_onnx
        export_onnx(net, inputs, file_name)
    else:
        export_mindir(net, inputs, file_name)


def _check_export_inputs(inputs):
    from .._tensor import Tensor
    if not inputs:
        raise ValueError("For 'export', give the network's example inputs after 'net'.")
    for x in inputs:
        if not isinstance(x, Tensor):
            raise TypeError(f"For 'export', the inputs must be Tensors, but got "
                            f"{type(x).__name__}.")


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
    _check_file_name(file_name, "save_mindir")
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    with open(file_name, "wb") as f:
        f.write(MP.encode(model))
