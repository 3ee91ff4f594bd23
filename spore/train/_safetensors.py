"""The safetensors file layout, read and written without the ``safetensors`` package.

A file is an 8-byte little-endian header length ``N``, ``N`` bytes of JSON
(``{"__metadata__": {str: str}, name: {"dtype", "shape", "data_offsets"}}``,
padded with spaces to a multiple of 8) and then the raw little-endian tensor
bytes; ``data_offsets`` are relative to the end of the header. Reading parses
JSON only, so loading never executes anything from the file.
"""
from __future__ import annotations

import json
import math
import struct

import numpy as np

from .. import _dtype as D

_CODES = {D.bool_: "BOOL", D.uint8: "U8", D.int8: "I8", D.int16: "I16", D.uint16: "U16",
          D.float16: "F16", D.bfloat16: "BF16", D.int32: "I32", D.uint32: "U32",
          D.float32: "F32", D.float64: "F64", D.int64: "I64", D.uint64: "U64",
          D.complex64: "C64"}
_BY_CODE = {code: d.np for d, code in _CODES.items()}
_MAX_HEADER = 100 * 1024 * 1024
MAX_RANK = 64                      # NumPy's limit on dimensions


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
    """``(metadata, {name: ndarray})`` from file bytes; raises FormatError naming the problem
    (and the parameter, for a bad entry)."""
    if len(buf) < 8:
        raise FormatError("the file is shorter than the 8-byte header length")
    n = struct.unpack("<Q", bytes(buf[:8]))[0]
    if n > min(len(buf) - 8, _MAX_HEADER):
        raise FormatError(f"the header declares {n} bytes but the file has {len(buf) - 8} "
                          "after the length")
    header = _parse_header(bytes(buf[8:8 + n]))
    metadata = _metadata(header.pop("__metadata__", None))
    data = memoryview(buf)[8 + n:]
    return metadata, {name: _tensor(name, info, data) for name, info in header.items()}


def _parse_header(text):
    try:
        header = json.loads(text.decode("utf-8"))
    except ValueError as e:         # not UTF-8, not JSON, or an integer of > 4300 digits
        raise FormatError(f"the header is not valid JSON ({e})") from None
    except RecursionError:          # a crafted header of deeply nested arrays/objects
        raise FormatError(f"the header entry of '{_deep_entry(text)}' nests JSON values too "
                          f"deeply") from None
    if not isinstance(header, dict):
        raise FormatError("the header is not a JSON object")
    return header


def _deep_entry(text, limit=100):
    """The top-level key whose value nests deeper than ``limit`` (only called after
    ``json.loads`` gave up, to name the parameter in the error)."""
    text = text.decode("utf-8", "replace")
    depth, key, in_string, escaped, start = 0, None, False, False, 0
    for i, c in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
                if depth == 1:
                    key = text[start:i]
        elif c == '"':
            in_string, start = True, i + 1
        elif c in "[{":
            depth += 1
            if depth > limit:
                return key
        elif c in "]}":
            depth -= 1
    return key


def _metadata(metadata):
    if metadata is None:
        return {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise FormatError(f"the '__metadata__' entry must map names to strings, but got "
                          f"{_short(metadata)}")
    return metadata


def _tensor(name, info, data):
    def bad(problem):
        return FormatError(f"the header entry of '{name}' {problem}")
    if not isinstance(info, dict):
        raise bad(f"is malformed: {_short(info)}")
    dtype = _BY_CODE.get(info.get("dtype")) if isinstance(info.get("dtype"), str) else None
    if dtype is None:
        raise bad(f"has the unknown dtype {_short(info.get('dtype'))}")
    shape = _int_list(info.get("shape"))
    if shape is None or any(s < 0 for s in shape):
        raise bad(f"has the invalid shape {_short(info.get('shape'))} (a list of "
                  f"non-negative integers is required)")
    if len(shape) > MAX_RANK:
        raise bad(f"has {len(shape)} dimensions; at most {MAX_RANK} are supported")
    offsets = _int_list(info.get("data_offsets"))
    if offsets is None or len(offsets) != 2:
        raise bad(f"has the invalid data_offsets {_short(info.get('data_offsets'))} (two "
                  f"integers are required)")
    begin, end = offsets
    if not 0 <= begin <= end <= len(data):
        raise FormatError(f"the entry '{name}' points outside the data ({begin}..{end} of "
                          f"{len(data)} bytes)")
    need = math.prod(shape) * dtype.itemsize    # exact: a crafted shape cannot wrap around
    if end - begin != need:
        raise FormatError(f"'{name}' has {end - begin} bytes but its shape {tuple(shape)} and "
                          f"dtype {info['dtype']} need {need}")
    return np.frombuffer(data[begin:end], dtype).reshape(shape)


def _int_list(value):
    """``value`` if it is a JSON list of integers (not bools, floats or a string), else None."""
    if not isinstance(value, list) or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return None
    return value


def _short(value, limit=80):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
