"""The protobuf wire format of MindSpore's ``mind_ir.proto`` (``.mindir`` files), by hand.

NOTE: [MindIR wire format]
A ``.mindir`` file is one serialized ``ModelProto`` (proto2). Rather than one hand-written
reader per message (as ``_ckpt_proto.py`` does for the three checkpoint messages), the
messages Spore reads and writes are described by a table: field number -> (name, kind,
repeated, message type). ``decode`` turns bytes into ``Msg`` objects (attribute access,
proto2 defaults for absent fields, repeated fields as lists, packed or not), ``encode``
writes them back in field-number order with repeated scalars unpacked, as the protobuf
runtime writes proto2. Unknown fields are skipped. Decoding never executes anything
from the file. Only the fields the loader and exporter use are listed.
"""
from __future__ import annotations

import struct

import numpy as np

from ._ckpt_proto import DecodeError, _Reader, _key, _signed64, _varint, FIXED32, FIXED64, \
    LENGTH, VARINT

# kind: "str" (utf-8 string), "bytes", "int" (int64/int32, varint), "uint" (uint64),
# "bool", "enum", "float" (fixed32), "double" (fixed64), or a message name
_SCHEMA = {
    "ModelProto": {
        1: ("ir_version", "str", False), 2: ("producer_name", "str", False),
        3: ("producer_version", "str", False), 4: ("domain", "str", False),
        5: ("model_version", "str", False), 6: ("doc_string", "str", False),
        7: ("graph", "GraphProto", False), 8: ("functions", "GraphProto", True),
        10: ("little_endian", "bool", False), 12: ("primitives", "PrimitiveProto", True),
        13: ("mind_ir_version", "int", False),
    },
    "GraphProto": {
        1: ("node", "NodeProto", True), 2: ("name", "str", False),
        3: ("parameter", "TensorProto", True), 4: ("doc_string", "str", False),
        5: ("input", "ValueInfoProto", True), 6: ("output", "ValueInfoProto", True),
        8: ("attribute", "AttributeProto", True),
    },
    "NodeProto": {
        1: ("input", "str", True), 2: ("output", "str", True), 3: ("name", "str", False),
        4: ("op_type", "str", False), 5: ("attribute", "AttributeProto", True),
        6: ("doc_string", "str", False), 7: ("domain", "str", False),
        8: ("node_attr", "AttributeProto", True), 9: ("primal_attr", "AttributeProto", True),
    },
    "ValueInfoProto": {
        1: ("name", "str", False), 2: ("tensor", "TensorProto", True),
        3: ("doc_string", "str", False), 4: ("denotation", "str", False),
        5: ("attr_info", "AttributeProto", False),
    },
    "TensorProto": {
        1: ("dims", "int", True), 2: ("data_type", "int", False),
        3: ("float_data", "float", True), 4: ("int32_data", "int", True),
        5: ("string_data", "bytes", True), 6: ("int64_data", "int", True),
        7: ("name", "str", False), 8: ("doc_string", "str", False),
        9: ("raw_data", "bytes", False), 10: ("double_data", "double", True),
        11: ("uint64_data", "uint", True), 12: ("external_data", "ExternalDataProto", False),
        13: ("ref_key", "str", False), 16: ("compression_type", "enum", False),
    },
    "ExternalDataProto": {
        1: ("location", "str", False), 2: ("offset", "int", False), 3: ("length", "int", False),
    },
    "AttributeProto": {
        1: ("name", "str", False), 2: ("f", "float", False), 3: ("i", "int", False),
        4: ("d", "double", False), 5: ("s", "bytes", False), 6: ("t", "TensorProto", False),
        7: ("g", "GraphProto", False), 8: ("floats", "float", True),
        9: ("doubles", "double", True), 10: ("ints", "int", True),
        11: ("strings", "bytes", True), 12: ("tensors", "TensorProto", True),
        13: ("graphs", "GraphProto", True), 14: ("doc_string", "str", False),
        15: ("ref_attr_name", "str", False), 16: ("type", "enum", False),
        17: ("values", "AttributeProto", True),
    },
    "PrimitiveProto": {
        1: ("name", "str", False), 2: ("op_type", "str", False),
        3: ("attribute", "AttributeProto", True), 4: ("instance_name", "str", False),
        5: ("prim_type", "enum", False),
    },
}

# enums of mind_ir.proto and MindSpore's TypeId numbers (probed from MindSpore 2.10)
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


_DEFAULTS = {"str": "", "bytes": b"", "int": 0, "uint": 0, "bool": False, "enum": 0,
             "float": 0.0, "double": 0.0}


class Msg:
    """One decoded (or to-be-encoded) message: fields as attributes; absent optional
    fields read as their proto2 defaults (None for messages), repeated ones as lists."""

    def __init__(self, type_name, **fields):
        object.__setattr__(self, "_type", type_name)
        object.__setattr__(self, "_set", {})
        for k, v in fields.items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._set:
            return self._set[name]
        spec = _by_name(self._type).get(name)
        if spec is None:
            raise AttributeError(f"{self._type} has no field {name!r}")
        _, kind, repeated = spec
        if repeated:
            value = self._set[name] = []
            return value
        return _DEFAULTS.get(kind)

    def __setattr__(self, name, value):
        if name not in _by_name(self._type):
            raise AttributeError(f"{self._type} has no field {name!r}")
        self._set[name] = value

    def has(self, name):
        return name in self._set

    def __repr__(self):
        return f"{self._type}({', '.join(f'{k}={v!r}' for k, v in self._set.items())})"


_NAMES = {}


def _by_name(type_name):
    table = _NAMES.get(type_name)
    if table is None:
        table = _NAMES[type_name] = {name: (num, kind, rep) for num, (name, kind, rep)
                                     in _SCHEMA[type_name].items()}
    return table


# ----------------------------------------------------------------------------- decoding
def decode(data, type_name="ModelProto"):
    """``type_name`` parsed from ``data`` (bytes); raises DecodeError when malformed."""
    return _decode(_Reader(memoryview(data)), type_name)


def _decode(r, type_name):
    fields = _SCHEMA[type_name]
    msg = Msg(type_name)
    while not r.done():
        num, wire = r.key()
        spec = fields.get(num)
        if spec is None:
            r.skip(wire)
            continue
        name, kind, repeated = spec
        if repeated and wire == LENGTH and kind in _DEFAULTS and kind not in ("str", "bytes"):
            sub = r.sub()                                 # a packed repeated scalar
            values = getattr(msg, name)
            while not sub.done():
                values.append(_scalar(sub, kind, _wire_of(kind)))
            continue
        value = _decode(r.sub(), kind) if kind in _SCHEMA else _scalar(r, kind, wire)
        if repeated:
            getattr(msg, name).append(value)
        else:
            setattr(msg, name, value)
    return msg


def _wire_of(kind):
    return {"float": FIXED32, "double": FIXED64, "str": LENGTH, "bytes": LENGTH}.get(kind,
                                                                                     VARINT)


def _scalar(r, kind, wire):
    if wire != _wire_of(kind):
        raise DecodeError(f"a {kind} field has wire type {wire}")
    if kind in ("str", "bytes"):
        data = bytes(r.payload())
        if kind == "bytes":
            return data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError("a string field is not UTF-8") from e
    if kind in ("float", "double"):
        n = 4 if kind == "float" else 8
        if n > r.end - r.pos:
            raise DecodeError("the data ends inside a fixed-width field")
        value = struct.unpack_from("<f" if n == 4 else "<d", r.buf, r.pos)[0]
        r.pos += n
        return value
    n = r.varint()
    if kind == "bool":
        return bool(n)
    if kind == "int":
        return _signed64(n)
    return n


# ----------------------------------------------------------------------------- encoding
def encode(msg):
    """The serialized bytes of ``msg`` (fields in number order, proto2 style)."""
    out = bytearray()
    for num, (name, kind, repeated) in sorted(_SCHEMA[msg._type].items()):
        if name not in msg._set:
            continue
        value = msg._set[name]
        for v in (value if repeated else (value,)):
            if kind in _SCHEMA:
                out += _key(num, LENGTH) + _varint(len(b := encode(v))) + b
            elif kind in ("str", "bytes"):
                b = v.encode("utf-8") if kind == "str" else bytes(v)
                out += _key(num, LENGTH) + _varint(len(b)) + b
            elif kind == "float":
                out += _key(num, FIXED32) + struct.pack("<f", v)
            elif kind == "double":
                out += _key(num, FIXED64) + struct.pack("<d", v)
            else:
                out += _key(num, VARINT) + _varint(int(v))
    return bytes(out)
