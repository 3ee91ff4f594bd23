"""The safetensors file layout, read and written without the ``safetensors`` package.

A file is an 8-byte little-endian header length ``N``, ``N`` bytes of JSON
(``{"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets"}}``,
padded with spaces to a multiple of 8) and then the raw little-endian tensor
bytes; ``data_offsets`` are relative to the end of the header. Reading parses
JSON only, so loading never executes anything from the file.
"""
from __future__ import annotations

import json
import struct

import numpy as np

from .. import _dtype as D

_CODES = {D.bool_: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16", D.uint16: "U16",
          D.float16: "F16", D.bfloat16: "BF16", D.int32: "I32", D.uint32: "U32",
          D.float32: "F32", D.float64: "F64", D.int64: "I64", D.uint64: "U64",
          D.complex64: "C64"}
_BY_CODE = {code: d.np for d, code in _CODES.items()}
_MAX_HEADER = 100 * 1024 * 1024


class FormatError(ValueError):
    """The bytes are not a well-formed safetensors file."""


def code_of(array, name):
    """The safetensors dtype code of ``array`` (ValueError naming ``name`` if none exists)."""
    try:
        return _CODES[D.dtype_of(array.dtype)]
    except (KeyError, TypeError):
        raise ValueError(f"For 'save_checkpoint', the safetensors format cannot store "
                         f"'{name}' of dtype {array.dtype}.") from None


def encode(arrays, metadata=None):
    """The file bytes for ``arrays`` (name -> ndarray); data ordered by alignment, then name."""
    order = sorted(arrays, key=lambda k: (-arrays[k].dtype.itemsize, k))
    header, chunks, offset = {}, [], 0
    if metadata:
        header["__metadata__"] = dict(metadata)
    for name in order:
        arr = arrays[name]
        data = np.ascontiguousarray(arr).tobytes()
        header[name] = {"dtype": code_of(arr, name), "shape": list(arr.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def decode(buf):
    """``(metadata, {name: ndarray})`` from file bytes; raises FormatError naming the problem."""
    if len(buf) < 8:
        raise FormatError("the file is shorter than the 8-byte header length")
    n = struct.unpack("<Q", bytes(buf[:8]))[0]
    if n > min(len(buf) - 8, _MAX_HEADER):
        raise FormatError(f"the header declares {n} bytes but the file has {len(buf) - 8} "
                          "after the length")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise FormatError(f"the header is not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise FormatError("the header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    data = memoryview(buf)[8 + n:]
    return metadata, {name: _tensor(name, info, data) for name, info in header.items()}


def _tensor(name, info, data):
    try:
        dtype = _BY_CODE[info["dtype"]]
        shape = tuple(int(s) for s in info["shape"])
        begin, end = (int(o) for o in info["data_offsets"])
    except (KeyError, TypeError, ValueError):
        raise FormatError(f"the header entry of '{name}' is malformed: {info!r}") from None
    if any(s < 0 for s in shape) or not 0 <= begin <= end <= len(data):
        raise FormatError(f"the entry '{name}' points outside the data ({begin}..{end} of "
                          f"{len(data)} bytes)")
    need = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if end - begin != need:
        raise FormatError(f"'{name}' has {end - begin} bytes but its shape {shape} and dtype "
                          f"{info['dtype']} need {need}")
    return np.frombuffer(data[begin:end], dtype).reshape(shape)
