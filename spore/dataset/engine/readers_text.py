"""Readers of text files, MindSpore's non-mappable file sources: ``TextFileDataset`` (one
row per line) and ``CSVDataset``.

They follow MindSpore's reading order, which comes from its parallel file readers: the
files are sorted by name; with ``num_shards``, shard ``k`` takes the contiguous block of
``ceil(rows / num_shards)`` rows starting at row ``k * ceil(...)`` of the files laid end to
end (wrapping around to the first row); the block's pieces (one per file it touches) go
to ``num_parallel_workers`` readers in turn, and the readers' rows are interleaved one at
a time. ``shuffle`` (default ``Shuffle.GLOBAL``) shuffles the file order and the rows;
``Shuffle.FILES`` only the file order, ``Shuffle.INFILE`` only the rows within each piece.
"""
from __future__ import annotations

import csv
import glob
import io
import math
import os

import numpy as np

from .. import config
from .dataset import Dataset
from .rows import pipeline_error
from .samplers import Shuffle, _check_count
from .sources import SourceDataset


def _find_files(name, dataset_files):
    """The files named (or matched by glob patterns), sorted by name as MindSpore does."""
    patterns = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) \
        else dataset_files
    if not isinstance(patterns, (list, tuple)) or not patterns:
        raise TypeError(f"For '{name}', 'dataset_files' must be a file path, a glob pattern or "
                        f"a list of them, but got {dataset_files!r}.")
    files = []
    for pattern in patterns:
        pattern = os.fspath(pattern)
        matched = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
        for path in matched:
            if not os.path.isfile(path):
                raise ValueError(f"For '{name}', the file {path} does not exist or permission "
                                 "denied!")
            files.append(path)
    if not files:
        raise ValueError(f"For '{name}', no file matches {dataset_files!r}.")
    return sorted(set(files))


def _shuffle_mode(name, shuffle):
    if shuffle is None or shuffle is True:
        return Shuffle.GLOBAL
    if shuffle is False or shuffle is Shuffle.FALSE:
        return None
    if shuffle in (Shuffle.ADAPTIVE, Shuffle.PARTIAL):
        return Shuffle.GLOBAL  # whole-pass shuffles: MindSpore's rules, not its buffer sizes
    if isinstance(shuffle, Shuffle):
        return shuffle
    raise TypeError(f"For '{name}', 'shuffle' must be a bool or a Shuffle level, but got "
                    f"{shuffle!r}.")


def _pieces(counts, num_shards, shard_id):
    """(file index, first row, end row) pieces this shard reads, in reading order."""
    total = sum(counts)
    if num_shards is None or total == 0:
        return [(f, 0, n) for f, n in enumerate(counts) if n]
    per_shard = math.ceil(total / num_shards)
    starts = np.cumsum([0] + list(counts))
    pieces, pos, left = [], (shard_id * per_shard) % total, per_shard
    while left:
        f = int(np.searchsorted(starts, pos, side="right")) - 1
        take = min(left, int(starts[f + 1]) - pos)
        first = pos - int(starts[f])
        pieces.append((f, first, first + take))
        left -= take
        pos = (pos + take) % total
    return pieces


def _interleave(lists):
    """One item of each list in turn, skipping lists that ran out."""
    iterators = [iter(x) for x in lists]
    while iterators:
        alive = []
        for it in iterators:
            try:
                yield next(it)
            except StopIteration:
                continue
            alive.append(it)
        iterators = alive


class _FileSource(SourceDataset):
    """Rows read from a sorted list of files; subclasses give ``_read(path)`` (a list of
    rows) and ``_columns()``."""

    def __init__(self, dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
                 shard_id):
        super().__init__((), num_parallel_workers)
        name = type(self).__name__
        self.dataset_files = _find_files(name, dataset_files)
        self.num_samples = _check_count(name, "num_samples", num_samples)
        self.shuffle = _shuffle_mode(name, shuffle)
        if (num_shards is None) != (shard_id is None):
            raise RuntimeError("'num_shards' and 'shard_id' must be given together.")
        if num_shards is not None:
            _check_count(name, "num_shards", num_shards, allow_none=False)
            if num_shards < 1 or not isinstance(shard_id, int) or \
                    not 0 <= shard_id < num_shards:
                raise ValueError(f"For '{name}', 'shard_id' must be in [0, {num_shards}), but "
                                 f"got {shard_id!r}.")
        self.num_shards, self.shard_id = num_shards, shard_id

    def _read(self, path):
        raise NotImplementedError

    def _file_rows(self):
        if "file_rows" not in self._cache:
            self._cache["file_rows"] = [self._read(p) for p in self.dataset_files]
        return self._cache["file_rows"]

    def _shard_pieces(self, counts):
        """(file index, first row, end row) pieces of this shard, given rows per file."""
        return _pieces(counts, self.num_shards, self.shard_id)

    def _size(self):
        n = sum(b - a for _, a, b in self._shard_pieces([len(r) for r in self._file_rows()]))
        return min(n, self.num_samples) if self.num_samples else n

    @staticmethod
    def _materialize(row):
        """A row as the pipeline's arrays (a reader may keep lighter records until here)."""
        return tuple(np.array(v) for v in row)

    def _rows(self, run):
        file_rows = self._file_rows()
        rng = run.generator(self._stream, shared=self.num_shards is not None)
        order = list(range(len(file_rows)))
        if self.shuffle in (Shuffle.GLOBAL, Shuffle.FILES):
            order = [int(i) for i in rng.permutation(len(order))]
        ordered = [file_rows[i] for i in order]
        pieces = [ordered[f][a:b] for f, a, b in
                  self._shard_pieces([len(r) for r in ordered])]
        if self.shuffle == Shuffle.INFILE:
            pieces = [[piece[i] for i in rng.permutation(len(piece))] for piece in pieces]
        workers = self.num_parallel_workers or config.get_num_parallel_workers()
        readers = [sum(pieces[w::workers], []) for w in range(min(workers, len(pieces)))]
        rows = list(_interleave(readers))
        if self.shuffle == Shuffle.GLOBAL:
            rows = [rows[i] for i in rng.permutation(len(rows))]
        if self.num_samples:
            rows = rows[:self.num_samples]
        for row in rows:
            yield self._materialize(row)


class TextFileDataset(_FileSource):
    """Lines of text files, one row per non-empty line (column ``text``, a string; the
    line's ``\\n`` is removed, a ``\\r`` kept, as in MindSpore)."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _columns(self):
        return ["text"]

    def _read(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            return [(line,) for line in f.read().split("\n") if line]


class CSVDataset(_FileSource):
    """Rows of CSV files (quoted fields may hold the delimiter, ``""`` and newlines).

    Without ``column_names`` the first line of the first file names the columns and the
    first line of every file is skipped; with them every line is data. Columns are strings
    unless ``column_defaults`` gives a value whose type (int -> int32, float -> float32,
    str) the column takes; an empty field of a numeric column is an error (MindSpore's
    rule), an empty string field stays empty.
    """

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__(dataset_files, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"For 'CSVDataset', 'field_delim' must be one character other than "
                             f"a quote or newline, but got {field_delim!r}.")
        self.field_delim = field_delim
        self.column_defaults = _check_defaults(column_defaults)
        if column_names is not None:
            if not isinstance(column_names, (list, tuple)) or not column_names or \
                    not all(isinstance(n, str) and n for n in column_names) or \
                    len(set(column_names)) != len(column_names):
                raise ValueError(f"For 'CSVDataset', 'column_names' must be unique non-empty "
                                 f"strings, but got {column_names!r}.")
            self._names, self._header = list(column_names), False
        else:
            self._names, self._header = self._first_line(), True

    def _first_line(self):
        with open(self.dataset_files[0], encoding="utf-8", newline="") as f:
            header = next(csv.reader(f, delimiter=self.field_delim), None)
        if not header:
            raise RuntimeError(f"Invalid csv file {self.dataset_files[0]}: it is empty, so it "
                               "gives no column names.")
        return header

    def _columns(self):
        return list(self._names)

    def _read(self, path):
        with open(path, encoding="utf-8", newline="") as f:
            records = list(csv.reader(io.StringIO(f.read()), delimiter=self.field_delim))
        rows = []
        for line, record in enumerate(records):
            if (line == 0 and self._header) or not record:
                continue
            if len(record) != len(self._names):
                raise pipeline_error(f"Invalid csv file {path}: line {line} has {len(record)} "
                                     f"fields, but there are {len(self._names)} columns "
                                     f"{self._names}.")
            rows.append(tuple(self._field(path, line, k, v) for k, v in enumerate(record)))
        return rows

    def _field(self, path, line, k, value):
        default = self.column_defaults[k] if k < len(self.column_defaults) else ""
        if isinstance(default, str):
            return value
        try:
            if isinstance(default, int):
                return np.int32(int(value.strip()))
            return np.float32(float(value.strip()))
        except ValueError:
            raise pipeline_error(f"Invalid csv, csv file: {path} parse failed at line {line}, "
                                 f"type does not match: column '{self._names[k]}' needs "
                                 f"{type(default).__name__}, got {value!r}.") from None


def _check_defaults(defaults):
    if defaults is None:
        return []
    if not isinstance(defaults, (list, tuple)) or not all(
            isinstance(d, (int, float, str)) and not isinstance(d, bool) for d in defaults):
        raise TypeError(f"For 'CSVDataset', 'column_defaults' must be a list of int, float or "
                        f"str, but got {defaults!r}.")
    return list(defaults)
