"""``TFRecordDataset``: TFRecord files of ``tf.train.Example`` records, read without
TensorFlow.

A TFRecord file is a sequence of records: a little-endian uint64 length, the masked
CRC-32C of those 8 bytes, the data, and the masked CRC-32C of the data. Spore checks both
checksums (MindSpore checks neither), so a corrupt or truncated file is reported with its
path and record number instead of giving wrong rows. The data is a serialized
``tf.train.Example`` (``Features``: a map from name to ``Feature``, one of ``BytesList``,
``FloatList``, ``Int64List``), decoded here with a small protobuf wire-format reader.

Columns and types follow MindSpore 2.10 (probed): without a schema, every feature of the
first record, sorted by name; int64 lists give int64, float lists float32, bytes lists
uint8 (several byte strings are padded with spaces to the longest and joined). A
``Schema`` (or json schema file) picks the columns, casts them to its types (``string``:
one str per byte string) and reshapes them to its shapes. File order, interleaving,
shuffles and ``shard_equal_rows=True`` sharding are those of the text readers
(``readers_text.py``); without ``shard_equal_rows`` a shard reads whole files (file ``i``
goes to shard ``i % num_shards``).
"""
from __future__ import annotations

import gzip
import struct
import zlib

import numpy as np

from .readers_text import _FileSource
from .rows import pipeline_error
from .samplers import Shuffle
from .schema import Schema

# ------------------------------------------------------------------------- CRC-32C
_CRC_POLY = 0x82F63B78


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ _CRC_POLY if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc_table()
_CRC_NP = np.array(_CRC_TABLE, np.uint32)


def _update(c, data):
    """The CRC register after feeding ``data`` to register value ``c`` (one byte a step)."""
    table = _CRC_TABLE
    for byte in data:
        c = table[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c


def _shift_tables(lane):
    """Four 256-entry tables giving the register after ``lane`` zero bytes: feeding bytes
    is affine in the register, so its linear part is read from the 32 basis registers."""
    basis = [_update(1 << k, bytes(lane)) for k in range(32)]
    tables = []
    for part in range(4):
        table = [0] * 256
        for b in range(1, 256):
            low = b & -b
            table[b] = table[b ^ low] ^ basis[8 * part + low.bit_length() - 1]
        tables.append(table)
    return tables


_SHIFT = {}  # lane length -> shift tables


def crc32c(data):
    """CRC-32C (Castagnoli) of ``data``, as TFRecord uses it. Inputs of 4 KiB and more are
    cut into lanes (64 to 1024 bytes, growing with the input) whose registers NumPy
    computes side by side, then chained: the register after lane k is shift(register
    before it) XOR lane k's register from 0 (about 25 MB/s; byte by byte is 2 MB/s)."""
    data = memoryview(data).cast("B")
    c = 0xFFFFFFFF
    if len(data) >= 4096:
        lane = 1 << min(10, (len(data) // 256).bit_length() - 1)
        if lane not in _SHIFT:
            _SHIFT[lane] = _shift_tables(lane)
        lanes = len(data) // lane
        block = np.frombuffer(data[:lanes * lane], np.uint8).reshape(lanes, lane)
        regs = np.zeros(lanes, np.uint32)
        for j in range(lane):
            regs = _CRC_NP[(regs ^ block[:, j]) & 0xFF] ^ (regs >> 8)
        s0, s1, s2, s3 = _SHIFT[lane]
        for reg in regs.tolist():
            c = s0[c & 0xFF] ^ s1[(c >> 8) & 0xFF] ^ s2[(c >> 16) & 0xFF] ^ s3[c >> 24] ^ reg
        data = data[lanes * lane:]
    return _update(c, data) ^ 0xFFFFFFFF


def masked_crc(data):
    """TFRecord's masked checksum: the CRC rotated right by 15 bits plus a constant."""
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


# ----------------------------------------------------------------------- framing
def _records(path, data):
    """The data bytes of every record of a TFRecord file's content, checksums verified."""
    records, pos, number = [], 0, 0
    while pos < len(data):
        header = data[pos:pos + 12]
        if len(header) < 12:
            raise pipeline_error(f"Invalid TFRecord file {path}: record {number} is truncated "
                                 "(incomplete length header).")
        length, length_crc = struct.unpack("<QI", header)
        if masked_crc(header[:8]) != length_crc:
            raise pipeline_error(f"Invalid TFRecord file {path}: the length checksum of record "
                                 f"{number} does not match (corrupt or not a TFRecord file).")
        start, end = pos + 12, pos + 12 + length
        if end + 4 > len(data):
            raise pipeline_error(f"Invalid TFRecord file {path}: record {number} is truncated "
                                 f"({length} data bytes announced).")
        payload = data[start:end]
        if masked_crc(payload) != struct.unpack("<I", data[end:end + 4])[0]:
            raise pipeline_error(f"Invalid TFRecord file {path}: the data checksum of record "
                                 f"{number} does not match (corrupt file).")
        records.append(payload)
        pos, number = end + 4, number + 1
    return records


def _read_file(path, compression_type):
    with open(path, "rb") as f:
        data = f.read()
    try:
        if compression_type == "GZIP":
            return gzip.decompress(data)
        if compression_type == "ZLIB":
            return zlib.decompress(data)
    except (OSError, zlib.error) as exc:
        raise pipeline_error(f"Invalid TFRecord file {path}: it is not {compression_type}-"
                             f"compressed ({exc}).") from None
    return data


# ---------------------------------------------------------------- protobuf decoding
def _varint(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def _fields(buf):
    """(field number, wire type, value) of a protobuf message: a varint's int, a
    length-delimited field's bytes, a fixed field's raw bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = buf[pos:pos + size], pos + size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if pos > end:
            raise ValueError("a field runs past the end of its message")
        yield number, wire, value


def _int64s(number, wire, value):
    if wire == 0:
        return [value]
    out, pos = [], 0
    while pos < len(value):
        v, pos = _varint(value, pos)
        out.append(v)
    return out


def _feature(buf):
    """A Feature message: ('bytes', [bytes...]) / ('float', array) / ('int64', array)."""
    for kind, wire, body in _fields(buf):
        if kind == 1:
            return "bytes", [bytes(v) for n, _, v in _fields(body) if n == 1]
        if kind == 2:
            parts = [np.frombuffer(v, "<f4") for n, _, v in _fields(body) if n == 1]
            return "float", np.concatenate(parts) if parts else np.zeros(0, np.float32)
        if kind == 3:
            ints = [i for n, w, v in _fields(body) if n == 1 for i in _int64s(n, w, v)]
            return "int64", np.array(ints, np.uint64).astype(np.int64)
    return "bytes", []


def parse_example(buf):
    """{name: (kind, values)} of a serialized ``tf.train.Example``."""
    features = {}
    for number, _, body in _fields(buf):
        if number != 1:
            continue
        for entry_number, _, entry in _fields(body):
            if entry_number != 1:
                continue
            key, value = None, b""
            for n, _, v in _fields(entry):
                if n == 1:
                    key = bytes(v).decode("utf-8")
                elif n == 2:
                    value = v
            features[key] = _feature(value)
    return features


# ------------------------------------------------------------------------ the source
def _bytes_column(values):
    """MindSpore's uint8 form of a bytes list: the strings padded with spaces to the
    longest, joined."""
    width = max((len(v) for v in values), default=0)
    return np.frombuffer(b"".join(v.ljust(width, b" ") for v in values), np.uint8).copy()


def _column_value(path, name, kind, values, spec):
    dtype = None if spec is None else spec["type"]
    if kind == "bytes":
        array = np.array([v.decode("utf-8", "replace") for v in values]) \
            if dtype is not None and dtype.kind in "US" else _bytes_column(values)
    else:
        array = values
    if dtype is not None and dtype.kind not in "US" and array.dtype != dtype:
        array = array.astype(dtype)
    if spec is not None and spec["shape"] is not None:
        try:
            array = array.reshape(spec["shape"])
        except ValueError:
            raise pipeline_error(f"Invalid TFRecord data in {path}: column '{name}' has "
                                 f"{array.size} values, which do not fit the schema shape "
                                 f"{spec['shape']}.") from None
    return array


class TFRecordDataset(_FileSource):
    """Rows of ``tf.train.Example`` records in TFRecord files (see the module docstring).

    ``schema``: a ``Schema`` or a json schema file (columns, types, shapes);
    ``columns_list``: the columns to keep, in order. ``compression_type``: None, ``''``,
    ``'GZIP'`` or ``'ZLIB'``. ``shard_equal_rows``: shard by rows rather than by files.
    """

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, shard_equal_rows=False, cache=None, compression_type=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)
        if compression_type not in (None, "", "GZIP", "ZLIB"):
            raise ValueError(f"For 'TFRecordDataset', 'compression_type' must be None, '', "
                             f"'GZIP' or 'ZLIB', but got {compression_type!r}.")
        self.compression_type = compression_type or None
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"For 'TFRecordDataset', 'schema' must be a Schema or a json file "
                            f"path, but got {type(schema).__name__}.")
        self.schema = schema
        if columns_list is not None and (not isinstance(columns_list, (list, tuple)) or not all(
                isinstance(c, str) for c in columns_list)):
            raise TypeError(f"For 'TFRecordDataset', 'columns_list' must be a list of str, but "
                            f"got {columns_list!r}.")
        self.columns_list = None if columns_list is None else list(columns_list)
        self.shard_equal_rows = bool(shard_equal_rows)
        if num_shards is not None and not self.shard_equal_rows and \
                len(self.dataset_files) < num_shards:
            raise ValueError(f"For 'TFRecordDataset', there are {len(self.dataset_files)} files "
                             f"for num_shards={num_shards}: each shard reads whole files, so "
                             "give at least one file per shard or set shard_equal_rows=True.")
        self._specs = {} if schema is None else {c["name"]: c for c in schema.columns}
        self._names = self._column_names()

    def _column_names(self):
        if self.columns_list is not None:
            return list(self.columns_list)
        if self.schema is not None and self.schema.columns:
            return [c["name"] for c in self.schema.columns]
        for path in self.dataset_files:
            records = self._read(path)
            if records:
                return sorted(parse_example(records[0][1]))
        raise RuntimeError(f"Invalid TFRecord files {self.dataset_files}: they hold no record, "
                           "so they give no column names; pass a schema.")

    def _columns(self):
        return list(self._names)

    def _read(self, path):
        if "files" not in self._cache:
            self._cache["files"] = {}
        files = self._cache["files"]
        if path not in files:
            data = _read_file(path, self.compression_type)
            # a row stays (path, Example bytes) until _materialize decodes it
            files[path] = [(path, r) for r in _records(path, memoryview(data))]
        return files[path]

    def _shard_pieces(self, counts):
        if self.num_shards is None or self.shard_equal_rows:
            return super()._shard_pieces(counts)
        return [(f, 0, n) for f, n in enumerate(counts)
                if f % self.num_shards == self.shard_id and n]

    def _materialize(self, record):
        path, payload = record
        try:
            features = parse_example(payload)
        except (ValueError, IndexError, UnicodeDecodeError) as exc:
            raise pipeline_error(f"Invalid TFRecord data in {path}: a record is not a "
                                 f"tf.train.Example ({exc}).") from None
        row = []
        for name in self._names:
            if name not in features:
                raise pipeline_error(f"Invalid columns_list, column name: {name} does not exist "
                                     f"in tfrecord file {path}, check tfrecord files.")
            kind, values = features[name]
            row.append(_column_value(path, name, kind, values, self._specs.get(name)))
        return tuple(row)
