"""The protobuf wire format of MindSpore's ``checkpoint.proto``, written by hand.

NOTE: [Checkpoint layout]
The schema (proto2, no package) is::

    message Checkpoint { message Value { required string tag = 1;
                                         optional TensorProto tensor = 2;
                                         optional MapTensorProto maptensor = 3; }
                         repeated Value value = 1; }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }
    message MapTensorProto { repeated TensorProto tensor = 1; }

A ``.ckpt`` file is one serialized ``Checkpoint`` per parameter (or per slice of
a large parameter), concatenated. Concatenated protobuf messages merge, so the
whole file parses as a single ``Checkpoint`` whose ``value`` list holds every
entry in file order. Only varints (wire type 0) and length-delimited fields
(wire type 2) occur; fields are written in field-number order with ``dims``
unpacked, exactly as the protobuf runtime writes them, so files are
byte-identical to MindSpore's. Decoding never executes anything from the file.
"""
from __future__ import annotations

from dataclasses import dataclass

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class DecodeError(ValueError):
    """The bytes are not a well-formed ``Checkpoint`` stream (truncated or corrupt)."""


@dataclass
class Entry:
    """One ``Checkpoint.Value``: a tagged tensor (``content`` is a memoryview slice)."""
    tag: str
    dims: list
    tensor_type: str
    content: memoryview


# ----------------------------------------------------------------------------- encoding
def _varint(n):
    if n < 0:
        n += 1 << 64          # int64 negatives are ten-byte two's-complement varints
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if n:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _key(field, wire_type):
    return _varint(field << 3 | wire_type)


def _length_field(field, payload):
    return _key(field, LENGTH) + _varint(len(payload)) + payload


def _length_prefix(field, size):
    return _key(field, LENGTH) + _varint(size)


def entry_prefix(tag, dims, tensor_type, content_size):
    """The bytes of a serialized one-``Value`` ``Checkpoint`` that precede its tensor
    content: the content is the message's last field, so ``prefix + content`` is the
    whole message and large contents are written without being copied."""
    tensor_head = b"".join(_key(1, VARINT) + _varint(int(d)) for d in dims) + \
        _length_field(2, tensor_type.encode("utf-8")) + _length_prefix(3, content_size)
    tensor_size = len(tensor_head) + content_size
    value_head = _length_field(1, tag.encode("utf-8")) + _length_prefix(2, tensor_size)
    value_size = len(value_head) + tensor_size
    return _length_prefix(1, value_size) + value_head + tensor_head


def encode_entry(tag, dims, tensor_type, content):
    """A serialized ``Checkpoint`` holding one ``Value`` (what MindSpore writes per slice)."""
    content = bytes(content)
    return entry_prefix(tag, dims, tensor_type, len(content)) + content


# ----------------------------------------------------------------------------- decoding
class _Reader:
    """Reads fields from ``buf[pos:end]``; every read is bounds-checked."""

    def __init__(self, buf, pos=0, end=None):
        self.buf, self.pos = buf, pos
        self.end = len(buf) if end is None else end

    def done(self):
        return self.pos >= self.end

    def varint(self):
        result, shift = 0, 0
        while True:
            if self.pos >= self.end:
                raise DecodeError("the data ends inside a varint")
            byte = self.buf[self.pos]
            self.pos += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7
            if shift >= 70:
                raise DecodeError("a varint is longer than ten bytes")

    def key(self):
        key = self.varint()
        if key >> 3 == 0:
            raise DecodeError("a field has the invalid number 0")
        return key >> 3, key & 7

    def sub(self):
        """A reader over the next length-delimited field's payload."""
        n = self.varint()
        if n > self.end - self.pos:
            raise DecodeError(f"a field declares {n} bytes but only {self.end - self.pos} "
                              "remain")
        start = self.pos
        self.pos += n
        return _Reader(self.buf, start, start + n)

    def payload(self):
        r = self.sub()
        return r.buf[r.pos:r.end]

    def skip(self, wire_type):
        if wire_type == VARINT:
            self.varint()
        elif wire_type == LENGTH:
            self.sub()
        elif wire_type in (FIXED64, FIXED32):
            n = 8 if wire_type == FIXED64 else 4
            if n > self.end - self.pos:
                raise DecodeError("the data ends inside a fixed-width field")
            self.pos += n
        else:
            raise DecodeError(f"invalid wire type {wire_type}")


def _signed64(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def _decode_tensor(r):
    dims, tensor_type, content = [], None, None
    while not r.done():
        field, wire = r.key()
        if field == 1 and wire == VARINT:
            dims.append(_signed64(r.varint()))
        elif field == 1 and wire == LENGTH:          # packed dims (accepted when reading)
            packed = r.sub()
            while not packed.done():
                dims.append(_signed64(packed.varint()))
        elif field == 2 and wire == LENGTH:
            tensor_type = _utf8(r.payload(), "tensor_type")
        elif field == 3 and wire == LENGTH:
            content = r.payload()
        else:
            r.skip(wire)
    if tensor_type is None or content is None:
        missing = "tensor_type" if tensor_type is None else "tensor_content"
        raise DecodeError(f"the required field '{missing}' is missing")
    return dims, tensor_type, content


def _utf8(view, what):
    try:
        return bytes(view).decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError(f"the {what} is not valid UTF-8") from None


def _decode_value(r):
    tag, tensor, has_map = None, None, False
    try:
        while not r.done():
            field, wire = r.key()
            if field == 1 and wire == LENGTH:
                tag = _utf8(r.payload(), "tag")
            elif field == 2 and wire == LENGTH:
                tensor = _decode_tensor(r.sub())
            elif field == 3 and wire == LENGTH:
                r.sub()
                has_map = True
            else:
                r.skip(wire)
    except DecodeError as e:
        where = f" in the entry of parameter '{tag}'" if tag is not None else ""
        raise DecodeError(f"{e}{where}") from None
    if tag is None:
        raise DecodeError("an entry has no 'tag' (parameter name)")
    if tensor is None:
        what = "a map tensor, which Spore does not support" if has_map else "no tensor"
        raise DecodeError(f"the entry of parameter '{tag}' holds {what}")
    return Entry(tag, *tensor)


def decode(buf):
    """Every ``Checkpoint.Value`` in ``buf`` (bytes), in file order, as ``Entry`` objects."""
    view = memoryview(buf)
    r = _Reader(view)
    entries = []
    while not r.done():
        try:
            field, wire = r.key()
            if field != 1 or wire != LENGTH:
                raise DecodeError(f"unexpected field {field} (wire type {wire}) where a "
                                  "parameter entry should start")
            sub = r.sub()
        except DecodeError as e:
            after = f" after parameter '{entries[-1].tag}'" if entries else ""
            raise DecodeError(f"{e}{after} (byte {r.pos} of {len(view)})") from None
        entries.append(_decode_value(sub))
    return entries
