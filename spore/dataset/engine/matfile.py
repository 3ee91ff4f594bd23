"""A reader of MATLAB 5 ``.mat`` files, enough for the numeric arrays datasets ship
(SVHN's images and labels, Flowers-102's label and split lists): the 128-byte header,
``miMATRIX`` elements of numeric classes (column-major, stored in any numeric type and
cast to the array's class) and ``miCOMPRESSED`` (zlib) elements. Cells, structs, sparse
and character arrays are skipped; nothing in the file is executed."""
from __future__ import annotations

import struct
import zlib

import numpy as np

_MI = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8",
       13: "u8"}
_MX = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4",
       14: "i8", 15: "u8"}
_MATRIX, _COMPRESSED = 14, 15


def _elements(data, order):
    """(type, payload) of each data element, small (4-byte) elements included."""
    pos = 0
    while pos + 8 <= len(data):
        kind, size = struct.unpack(order + "II", data[pos:pos + 8])
        if kind >> 16:  # small element: size in the upper half, data in the tag
            size, kind = kind >> 16, kind & 0xFFFF
            yield kind, data[pos + 4:pos + 4 + size]
            pos += 8
            continue
        yield kind, data[pos + 8:pos + 8 + size]
        pos += 8 + size + (-size % 8 if kind != _COMPRESSED else 0)


def _matrix(payload, order):
    """(name, array) of a miMATRIX element, or None for classes this reader skips."""
    parts = list(_elements(payload, order))
    if len(parts) < 4:
        return None
    flags = np.frombuffer(parts[0][1], order + "u4")
    cls = int(flags[0]) & 0xFF
    dims = tuple(int(d) for d in np.frombuffer(parts[1][1], order + "i4"))
    name = bytes(parts[2][1]).decode("ascii", "replace")
    if cls not in _MX or (int(flags[0]) >> 11) & 1:  # not numeric, or complex
        return name, None
    kind, raw = parts[3]
    values = np.frombuffer(raw, order + _MI[kind]).astype(order + _MX[cls])
    return name, values.reshape(dims, order="F")


def loadmat(path):
    """{variable name: NumPy array} of the numeric variables of a MATLAB 5 file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 128:
        raise ValueError(f"{path} is not a MATLAB 5 file (too short).")
    order = {b"IM": "<", b"MI": ">"}.get(data[126:128])
    if order is None:
        raise ValueError(f"{path} is not a MATLAB 5 file (no endian mark; v7.3 HDF5 files "
                         "are not supported).")
    out = {}
    pending = [data[128:]]
    while pending:
        for kind, payload in _elements(pending.pop(0), order):
            if kind == _COMPRESSED:
                pending.append(zlib.decompress(payload))
            elif kind == _MATRIX:
                found = _matrix(payload, order)
                if found is not None and found[1] is not None:
                    out[found[0]] = found[1]
    return out
