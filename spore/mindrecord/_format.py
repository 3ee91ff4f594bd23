"""The MindRecord file format, as MindSpore 2.10 writes it (probed byte for byte).

A MindRecord shard is two files:

* ``name``: an 8-byte little-endian length, the JSON header (keys sorted), zero padding to
  ``header_size``; then pages of ``page_size`` bytes (the last one not padded). A
  ``BLOB_DATA`` page holds, per row, an 8-byte little-endian length and the row's blob
  fields (the array and bytes fields, in name order; with several, each is preceded by an
  8-byte big-endian length). A ``RAW_DATA`` page holds, per row, an 8-byte little-endian
  length and a MessagePack map of the scalar fields (keys sorted).
* ``name.db``: an SQLite index: table ``INDEXES`` (per row: its pages and byte ranges, and
  the values of the index fields) and table ``SHARD_NAME``.

Integer arrays are stored compressed: a 4-byte big-endian count, 2 bits per element (in
bytes, most significant first) naming its width (int8, int16, int32, int64), then each
element little-endian in that width. Float arrays are stored as raw little-endian values.
Nothing here executes code from a file: JSON, MessagePack and SQLite are data formats.
Encrypted files (``set_enc_key``) are read through ``config._readable``.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import struct

import numpy as np

TYPES = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64,
         "string": None, "bytes": None}
VERSION = "3.0"
_WIDTHS = ((np.int8, 1), (np.int16, 2), (np.int32, 4), (np.int64, 8))


# --------------------------------------------------------------------- MessagePack subset
def pack(value):
    """MessagePack of a dict / str / int / float / bool / None, with the smallest encodings
    (what MindSpore's JSON library writes: floats exact in float32 as float32)."""
    if value is None:
        return b"\xc0"
    if isinstance(value, bool):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, (int, np.integer)):
        return _pack_int(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v) or float(np.float32(v)) == v:
            return b"\xca" + struct.pack(">f", v)
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        if n < 32:
            return bytes([0xA0 | n]) + data
        for code, fmt, limit in ((0xD9, ">B", 0xFF), (0xDA, ">H", 0xFFFF), (0xDB, ">I", None)):
            if limit is None or n <= limit:
                return bytes([code]) + struct.pack(fmt, n) + data
    if isinstance(value, dict):
        n = len(value)
        head = bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n) if n < 65536
                                                 else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(pack(str(k)) + pack(v) for k, v in sorted(value.items()))
    raise TypeError(f"MindRecord cannot store a {type(value).__name__} in a scalar field.")


def _pack_int(v):
    if v >= 0:
        if v < 128:
            return bytes([v])
        for code, fmt, limit in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF),
                                 (0xCE, ">I", 0xFFFFFFFF), (0xCF, ">Q", 2 ** 64 - 1)):
            if v <= limit:
                return bytes([code]) + struct.pack(fmt, v)
        raise OverflowError(f"MindRecord cannot store the integer {v}.")
    if v >= -32:
        return struct.pack(">b", v)
    for code, fmt, limit in ((0xD0, ">b", -2 ** 7), (0xD1, ">h", -2 ** 15),
                             (0xD2, ">i", -2 ** 31), (0xD3, ">q", -2 ** 63)):
        if v >= limit:
            return bytes([code]) + struct.pack(fmt, v)
    raise OverflowError(f"MindRecord cannot store the integer {v}.")


def unpack(data, pos=0):
    """(value, next position) of the MessagePack value at ``pos``."""
    code = data[pos]
    pos += 1
    if code < 0x80:
        return code, pos
    if code >= 0xE0:
        return code - 0x100, pos
    if 0x80 <= code <= 0x8F:
        return _unpack_map(data, pos, code & 0x0F)
    if 0xA0 <= code <= 0xBF:
        n = code & 0x1F
        return data[pos:pos + n].decode("utf-8"), pos + n
    fixed = {0xC0: None, 0xC2: False, 0xC3: True}
    if code in fixed:
        return fixed[code], pos
    sized = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
             0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
    if code in sized:
        fmt = sized[code]
        return struct.unpack_from(fmt, data, pos)[0], pos + struct.calcsize(fmt)
    lengths = {0xD9: ">B", 0xDA: ">H", 0xDB: ">I", 0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}
    if code in lengths:
        fmt = lengths[code]
        n = struct.unpack_from(fmt, data, pos)[0]
        pos += struct.calcsize(fmt)
        raw = data[pos:pos + n]
        return (raw.decode("utf-8") if code >= 0xD9 else bytes(raw)), pos + n
    if code in (0xDE, 0xDF):
        fmt = ">H" if code == 0xDE else ">I"
        n = struct.unpack_from(fmt, data, pos)[0]
        return _unpack_map(data, pos + struct.calcsize(fmt), n)
    raise ValueError(f"unsupported MessagePack code 0x{code:02x} in a MindRecord raw page")


def _unpack_map(data, pos, n):
    out = {}
    for _ in range(n):
        key, pos = unpack(data, pos)
        out[key], pos = unpack(data, pos)
    return out, pos


# --------------------------------------------------------------------- integer arrays
def compress_ints(values):
    """MindSpore's compressed integer array (see the module docstring)."""
    flat = [int(v) for v in np.asarray(values).reshape(-1)]
    codes, body = [], []
    for v in flat:
        for code, (dtype, _) in enumerate(_WIDTHS):
            info = np.iinfo(dtype)
            if info.min <= v <= info.max:
                codes.append(code)
                body.append(np.array(v, dtype).astype(np.dtype(dtype).newbyteorder("<"))
                            .tobytes())
                break
    kinds = bytearray(math.ceil(len(flat) / 4))
    for i, code in enumerate(codes):
        kinds[i // 4] |= code << (6 - 2 * (i % 4))
    return struct.pack(">I", len(flat)) + bytes(kinds) + b"".join(body)


def decompress_ints(data):
    n = struct.unpack_from(">I", data, 0)[0]
    pos = 4 + math.ceil(n / 4)
    out = np.empty(n, np.int64)
    for i in range(n):
        code = (data[4 + i // 4] >> (6 - 2 * (i % 4))) & 3
        dtype, width = _WIDTHS[code]
        out[i] = np.frombuffer(data, np.dtype(dtype).newbyteorder("<"), 1, pos)[0]
        pos += width
    return out


# --------------------------------------------------------------------- schema
def check_schema(content):
    """The schema dict, checked: field -> {"type": ..., optional "shape": [...]}."""
    if not isinstance(content, dict) or not content:
        raise ValueError("For 'add_schema', 'content' must be a non-empty dict of fields.")
    for name, spec in content.items():
        if not isinstance(name, str) or not name or not isinstance(spec, dict) or \
                spec.get("type") not in TYPES or set(spec) - {"type", "shape"}:
            raise ValueError(f"For 'add_schema', field {name!r} must map to {{'type': one of "
                             f"{sorted(TYPES)}, optional 'shape'}}, but got {spec!r}.")
        if "shape" in spec:
            shape = spec["shape"]
            if spec["type"] in ("string", "bytes") or not isinstance(shape, list) or \
                    not shape or not all(isinstance(d, int) and (d > 0 or d == -1)
                                         for d in shape) or shape.count(-1) > 1:
                raise ValueError(f"For 'add_schema', field {name!r} has an invalid shape "
                                 f"{shape!r} (numeric fields only; positive dims, at most one "
                                 "-1).")
    return {k: dict(v) for k, v in content.items()}


def blob_fields(schema):
    return sorted(k for k, v in schema.items() if v["type"] == "bytes" or "shape" in v)


def _sql_type(kind):
    return {"string": "TEXT", "float32": "REAL", "float64": "REAL"}.get(kind, "INTEGER")


# --------------------------------------------------------------------- writing
def encode_blob(schema, names, row):
    """The BLOB_DATA bytes of one row (without its 8-byte length) and the bytes saved by
    integer compression."""
    parts, saved = [], 0
    for name in names:
        spec, value = schema[name], row[name]
        if spec["type"] == "bytes":
            data = bytes(value)
        elif spec["type"] in ("int32", "int64"):
            array = np.asarray(value, TYPES[spec["type"]])
            data = compress_ints(array)
            saved += array.nbytes - len(data)
        else:
            data = np.ascontiguousarray(value, np.dtype(TYPES[spec["type"]]).newbyteorder("<"))
            data = data.tobytes()
        parts.append(data)
    if len(parts) == 1:
        return parts[0], saved
    if not parts:
        return b"\x00" * 4, saved  # what MindSpore writes for a schema without blob fields
    return b"".join(struct.pack(">Q", len(p)) + p for p in parts), saved


def _pages(records, page_size, kind):
    """Pack length-prefixed records into pages: (page dicts, bytes per page, placements)."""
    pages, blobs, places, current = [], [], [], bytearray()
    start_row = 0
    for row_id, record in enumerate(records):
        item = struct.pack("<Q", len(record)) + record
        if len(item) > page_size:
            raise ValueError(f"a MindRecord row of {len(item)} bytes does not fit in a page of "
                             f"{page_size}; use set_page_size to raise it.")
        if len(current) + len(item) > page_size:
            blobs.append(bytes(current))
            pages.append(start_row)
            current, start_row = bytearray(), row_id
        places.append((len(pages), len(current), len(current) + len(item)))
        current += item
    blobs.append(bytes(current))
    pages.append(start_row)
    out = []
    for k, (data, start) in enumerate(zip(blobs, pages)):
        end = len(records) if k == len(blobs) - 1 else pages[k + 1]
        out.append({"page_type": kind, "page_type_id": k, "page_size": len(data),
                    "row_group_ids": [{"id": k, "offset": 0}],
                    "start_row_id": start if kind == "BLOB_DATA" else 0,
                    "end_row_id": end if kind == "BLOB_DATA" else 0})
    return out, blobs, places


def write_shard(path, shard_id, addresses, schema, desc, index_fields, rows, header_size,
                page_size):
    """Write one shard file and its ``.db`` index."""
    names = blob_fields(schema)
    blobs, saved = [], 0
    for row in rows:
        data, s = encode_blob(schema, names, row)
        blobs.append(data)
        saved += s
    raws = [pack({k: v for k, v in row.items() if k in schema and k not in names})
            for row in rows]
    blob_pages, blob_data, blob_places = _pages(blobs, page_size, "BLOB_DATA")
    raw_pages, raw_data, raw_places = _pages(raws, page_size, "RAW_DATA")
    pages = blob_pages + raw_pages
    for page_id, page in enumerate(pages):
        page.update(page_id=page_id, shard_id=shard_id)
    # MindSpore's key order: sorted, except compression_size right after page_size
    fields = [("header_size", header_size),
              ("index_fields", [{"index_field": f, "schema_id": 0} for f in index_fields]),
              ("page", pages), ("page_size", page_size), ("compression_size", saved),
              ("schema", [{"blob_fields": names, "desc": desc, "schema": schema}]),
              ("shard_addresses", addresses), ("shard_id", shard_id), ("statistics", None),
              ("version", VERSION)]
    text = ("{" + ",".join(json.dumps(k) + ":" + json.dumps(v, sort_keys=True,
                                                         separators=(",", ":"),
                                                         ensure_ascii=False)
                           for k, v in fields) + "}").encode("utf-8")
    if 8 + len(text) > header_size:
        raise ValueError(f"the MindRecord header needs {8 + len(text)} bytes, more than "
                         f"header_size {header_size}; use set_header_size to raise it.")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        datas = blob_data + raw_data
        for page_id, data in enumerate(datas):
            f.seek(header_size + page_id * page_size)
            f.write(data)
    _write_index(path + ".db", schema, index_fields, blob_places, raw_places, len(blob_pages),
                 rows, os.path.basename(path))


def _write_index(db_path, schema, index_fields, blob_places, raw_places, n_blob_pages, rows,
                 shard_name):
    import sqlite3  # only MindRecord writers and readers need it; `import spore` stays quick

    if os.path.exists(db_path):
        os.remove(db_path)
    columns = "".join(f",INC_{k} INT, {f}_0 {_sql_type(schema[f]['type'])}"
                      for k, f in enumerate(index_fields))
    keys = "".join(f",INC_{k}" for k in range(len(index_fields)))
    with sqlite3.connect(db_path) as db:
        db.execute("CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, PAGE_ID_RAW   "
                   "       INT  NOT NULL, PAGE_OFFSET_RAW      INT  NOT NULL, "
                   "PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT  NOT NULL, "
                   "PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, "
                   f"PAGE_OFFSET_BLOB_END INT  NOT NULL{columns}, "
                   f"PRIMARY KEY(ROW_ID{keys}))")
        db.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        marks = ",".join("?" * (8 + 2 * len(index_fields)))
        for row_id, (row, (bp, b0, b1), (rp, r0, r1)) in enumerate(zip(rows, blob_places,
                                                                       raw_places)):
            values = [row_id, n_blob_pages + rp, r0, r1, bp, bp, b0, b1]
            for f in index_fields:
                values += [0, row[f]]
            db.execute(f"INSERT INTO INDEXES VALUES({marks})", values)
        db.execute("INSERT INTO SHARD_NAME VALUES(?)", (shard_name,))
    db.close()


# --------------------------------------------------------------------- reading
def _opened(source):
    """A binary file for a path, or the (rewound) plaintext of an encrypted file."""
    if isinstance(source, io.BytesIO):
        source.seek(0)
        return contextlib.nullcontext(source)
    return open(source, "rb")


def _plain(path):
    from .config import _readable
    return _readable(path)


def read_header(path, source=None):
    """The shard's JSON header (``source``: its plaintext, when already decrypted)."""
    with _opened(_plain(path) if source is None else source) as f:
        head = f.read(8)
        if len(head) < 8:
            raise RuntimeError(f"Invalid MindRecord file {path}: it is too short for a header.")
        n = struct.unpack("<Q", head)[0]
        text = f.read(n)
    try:
        header = json.loads(text.decode("utf-8"))
        header["schema"][0]["schema"], header["page"]
    except (ValueError, KeyError, IndexError, TypeError, UnicodeDecodeError) as exc:
        raise RuntimeError(f"Invalid MindRecord file {path}: its header is not a MindRecord "
                           f"header ({exc}).") from None
    return header


def shard_paths(path):
    """Every shard of the file set ``path`` belongs to, from its header, in shard order."""
    header = read_header(path)
    folder = os.path.dirname(os.fspath(path))
    return [os.path.join(folder, os.path.basename(a)) for a in header["shard_addresses"]]


def read_rows(path):
    """Every row of one shard, in row order: dicts from field to a Python / NumPy value
    (arrays flat; the caller shapes them)."""
    source = _plain(path)
    header = read_header(path, source)
    schema = header["schema"][0]["schema"]
    names = header["schema"][0]["blob_fields"]
    page_size, header_size = header["page_size"], header["header_size"]
    import sqlite3

    db_path = path + ".db"
    if not os.path.isfile(db_path):
        raise RuntimeError(f"Invalid MindRecord file {path}: its index {db_path} is missing.")
    db_source = _plain(db_path)
    if isinstance(db_source, io.BytesIO):
        db = sqlite3.connect(":memory:")
        db.deserialize(db_source.getvalue())
    else:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        index = db.execute("SELECT PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                           "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                           "ORDER BY ROW_ID").fetchall()
    except sqlite3.DatabaseError as exc:
        raise RuntimeError(f"Invalid MindRecord index {db_path}: {exc}") from None
    finally:
        db.close()
    with _opened(source) as f:
        data = f.read()
    rows = []
    for raw_page, r0, r1, blob_page, b0, b1 in index:
        base = header_size + raw_page * page_size
        raw = data[base + r0 + 8:base + r1]
        row, _ = unpack(raw) if raw else ({}, 0)
        base = header_size + blob_page * page_size
        row.update(decode_blob(schema, names, data[base + b0 + 8:base + b1]))
        rows.append(row)
    return schema, rows


def decode_blob(schema, names, data):
    if len(names) == 1:
        parts = [data]
    else:
        parts, pos = [], 0
        for _ in names:
            n = struct.unpack_from(">Q", data, pos)[0]
            parts.append(data[pos + 8:pos + 8 + n])
            pos += 8 + n
    out = {}
    for name, part in zip(names, parts):
        kind = schema[name]["type"]
        if kind == "bytes":
            out[name] = bytes(part)
        elif kind in ("int32", "int64"):
            out[name] = decompress_ints(part).astype(TYPES[kind])
        else:
            out[name] = np.frombuffer(part, np.dtype(TYPES[kind]).newbyteorder("<")) \
                .astype(TYPES[kind])
    return out


def shaped(spec, value):
    """A field's value as MindSpore hands it out: arrays reshaped to the schema's shape."""
    if "shape" in spec:
        return np.asarray(value).reshape(spec["shape"])
    return value
