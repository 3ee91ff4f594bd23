"""MindRecord files (``mindspore.mindrecord``): ``FileWriter`` writes them, ``FileReader``
and ``dataset.MindDataset`` read them; the files are MindSpore's own format, so either
framework reads what the other wrote (see ``_format.py``)."""
from __future__ import annotations

import os
import warnings

import numpy as np

from . import _format, config
from .config import set_dec_mode, set_enc_key, set_enc_mode

__all__ = ["FileWriter", "FileReader", "MindPage", "SUCCESS", "FAILED", "Cifar10ToMR", "Cifar100ToMR",
           "CsvToMR", "ImageNetToMR", "MnistToMR", "TFRecordToMR", "set_enc_key", "set_enc_mode",
           "set_dec_mode"]

SUCCESS = 0
FAILED = 1                 # MindSpore's MSRStatus values
_MIN_HEADER, _MAX_HEADER = 1 << 14, 1 << 27
_MIN_PAGE, _MAX_PAGE = 1 << 15, 1 << 28


def _check_size(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high or \
            value & (value - 1):
        raise ValueError(f"For '{name}', the size must be a power of 2 in [{low}, {high}], but "
                         f"got {value!r}.")
    return value


class FileWriter:
    """Writes rows (dicts) to ``shard_num`` MindRecord files (``file_name`` for one shard,
    ``file_name0``, ``file_name1``, ... otherwise): ``add_schema``, optionally ``add_index``,
    ``write_raw_data`` (each call's rows split into contiguous blocks, one per shard, as
    MindSpore splits them), then ``commit``.

    Examples:
        >>> import numpy as np
        >>> from spore.mindrecord import FileWriter, FileReader
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "demo.mindrecord")
        >>> writer = FileWriter(path)
        >>> writer.add_schema({"label": {"type": "int32"}, "x": {"type": "float32",
        ...                                                       "shape": [2]}}, "demo")
        0
        >>> writer.write_raw_data([{"label": 1, "x": np.array([0.5, 1.5], np.float32)}])
        0
        >>> writer.commit()
        0
        >>> [row["label"] for row in FileReader(path).get_next()]
        [1]
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, (str, os.PathLike)) or not os.fspath(file_name):
            raise ValueError(f"For 'FileWriter', 'file_name' must be a path, but got "
                             f"{file_name!r}.")
        if isinstance(shard_num, bool) or not isinstance(shard_num, int) or \
                not 1 <= shard_num <= 1000:
            raise ValueError(f"For 'FileWriter', 'shard_num' must be in [1, 1000], but got "
                             f"{shard_num!r}.")
        name = os.path.abspath(os.fspath(file_name))
        self._paths = [name] if shard_num == 1 else [f"{name}{i}" for i in range(shard_num)]
        for path in self._paths:
            for p in (path, path + ".db"):
                if os.path.exists(p):
                    if not overwrite:
                        raise RuntimeError(f"For 'FileWriter', the file {p} already exists; "
                                           "set overwrite=True to replace it.")
        if not os.path.isdir(os.path.dirname(name)):
            raise ValueError(f"For 'FileWriter', the folder of {name} does not exist.")
        self._schema, self._desc, self._index = None, "", None
        self._shards = [[] for _ in self._paths]
        self._header_size, self._page_size = 1 << 24, 1 << 25
        self._committed = False

    @classmethod
    def open_for_append(cls, file_name):
        """A writer that adds rows to an existing MindRecord file set (``file_name`` is any of
        its shards): ``write_raw_data`` then ``commit`` rewrite the set with the old rows
        first, keeping its schema, index fields and sizes."""
        paths = resolve_files(file_name, "open_for_append")
        header = _format.read_header(paths[0])
        writer = cls.__new__(cls)
        writer._paths = [os.path.abspath(p) for p in paths]
        entry = header["schema"][0]
        writer._schema, writer._desc = _format.check_schema(entry["schema"]), entry["desc"]
        writer._index = [f["index_field"] for f in header["index_fields"]]
        writer._header_size, writer._page_size = header["header_size"], header["page_size"]
        writer._shards = [_format.read_rows(p)[1] for p in paths]
        writer._committed = False
        return writer

    def add_schema(self, content, desc=None):
        """Set the schema (field -> {"type", optional "shape"}); returns the schema id 0."""
        if self._schema is not None:
            raise RuntimeError("For 'add_schema', only one schema is supported.")
        self._schema = _format.check_schema(content)
        self._desc = "" if desc is None else str(desc)
        return 0

    def add_index(self, index_fields):
        """Fields (scalar, not bytes) to index in the ``.db`` file (default: every scalar
        field)."""
        schema = self._need_schema("add_index")
        if not isinstance(index_fields, list) or not index_fields:
            raise ValueError("For 'add_index', 'index_fields' must be a non-empty list.")
        blobs = set(_format.blob_fields(schema))
        for field in index_fields:
            if field not in schema or field in blobs:
                raise ValueError(f"For 'add_index', {field!r} must be a scalar field of the "
                                 "schema (not bytes or an array).")
        self._index = list(index_fields)
        return SUCCESS

    def set_header_size(self, header_size):
        self._header_size = _check_size("set_header_size", header_size, _MIN_HEADER,
                                        _MAX_HEADER)
        return SUCCESS

    def set_page_size(self, page_size):
        self._page_size = _check_size("set_page_size", page_size, _MIN_PAGE, _MAX_PAGE)
        return SUCCESS

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Add rows (a list of dicts). A row that misses a field or has a value of the wrong
        kind is skipped with a warning, as in MindSpore; a call with no valid row fails."""
        schema = self._need_schema("write_raw_data")
        if self._committed:
            raise RuntimeError("For 'write_raw_data', the writer is already committed.")
        if not isinstance(raw_data, list):
            raise ValueError("For 'write_raw_data', 'raw_data' must be a list of dicts.")
        valid = []
        for k, row in enumerate(raw_data):
            problem = _row_problem(schema, row)
            if problem:
                warnings.warn(f"write_raw_data: row {k} is skipped: {problem}", stacklevel=2)
            else:
                valid.append({f: row[f] for f in schema})
        if not valid:
            raise RuntimeError("There is no valid data which can be written by "
                               "'write_raw_data' to mindrecord file. Please check the abnormal "
                               "input data indicated in the warning above.")
        n, shards = len(valid), len(self._shards)
        for i, rows in enumerate(self._shards):
            rows.extend(valid[i * n // shards:(i + 1) * n // shards])
        return SUCCESS

    def commit(self):
        """Write the files."""
        schema = self._need_schema("commit")
        index = self._index
        if index is None:
            blobs = set(_format.blob_fields(schema))
            index = sorted(f for f in schema if f not in blobs)
        addresses = [os.path.basename(p) for p in self._paths]
        for shard_id, (path, rows) in enumerate(zip(self._paths, self._shards)):
            _format.write_shard(path, shard_id, addresses, schema, self._desc, index, rows,
                                self._header_size, self._page_size)
            config._encrypt_written(path)               # with set_enc_key: MindSpore's layout
            config._encrypt_written(path + ".db")
        self._committed = True
        return SUCCESS

    def _need_schema(self, op):
        if self._schema is None:
            raise RuntimeError(f"For '{op}', call add_schema first.")
        return self._schema


def _row_problem(schema, row):
    if not isinstance(row, dict):
        return f"it is a {type(row).__name__}, not a dict"
    for field, spec in schema.items():
        if field not in row:
            return f"it has no field '{field}'"
        value, kind = row[field], spec["type"]
        if kind == "string" and not isinstance(value, str):
            return f"field '{field}' must be str"
        if kind == "bytes" and not isinstance(value, (bytes, bytearray)):
            return f"field '{field}' must be bytes"
        if kind in ("int32", "int64", "float32", "float64"):
            array = np.asarray(value)
            if array.dtype.kind not in ("iub" if kind.startswith("int") else "iubf"):
                return f"field '{field}' must hold {kind} values"
            if "shape" not in spec and array.ndim:
                return f"field '{field}' must be a scalar"
            if "shape" in spec and -1 not in spec["shape"] and \
                    array.size != int(np.prod(spec["shape"])):
                return f"field '{field}' must have shape {spec['shape']}"
    return None


class FileReader:
    """Reads the rows of a MindRecord file set: ``file_name`` (every shard of its set) or a
    list of shard files. ``get_next()`` yields dicts (``columns`` selects fields)."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        self._paths = resolve_files(file_name, "FileReader")
        self._columns = None if columns is None else list(columns)
        self._closed = False

    def get_next(self):
        for path in self._paths:
            schema, rows = _format.read_rows(path)
            for row in rows:
                out = {k: _format.shaped(schema[k], v) for k, v in row.items()
                       if self._columns is None or k in self._columns}
                yield out

    def close(self):
        self._closed = True

    def len(self):
        return sum(len(_format.read_rows(p)[1]) for p in self._paths)

    def schema(self):
        return _format.read_header(self._paths[0])["schema"][0]["schema"]


def resolve_files(file_name, who):
    """The shard files to read: every shard of the set for one file name, or the list given
    (MindSpore's rule)."""
    if isinstance(file_name, (str, os.PathLike)):
        path = os.fspath(file_name)
        if not os.path.isfile(path):
            raise ValueError(f"For '{who}', the file {path} does not exist or permission "
                             "denied!")
        paths = _format.shard_paths(path)
    elif isinstance(file_name, (list, tuple)) and file_name:
        paths = [os.fspath(p) for p in file_name]
    else:
        raise TypeError(f"For '{who}', 'file_name' must be a path or a list of paths, but got "
                        f"{file_name!r}.")
    for p in paths:
        if not os.path.isfile(p):
            raise ValueError(f"For '{who}', the file {p} does not exist or permission denied!")
    return paths


from ._mindpage import MindPage as MindPage  # noqa: E402  (they build on FileWriter)
from ._tools import (Cifar10ToMR as Cifar10ToMR, Cifar100ToMR as Cifar100ToMR,  # noqa: E402
                     CsvToMR as CsvToMR, ImageNetToMR as ImageNetToMR, MnistToMR as MnistToMR,
                     TFRecordToMR as TFRecordToMR)
