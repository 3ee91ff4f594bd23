"""``MindDataset``: rows of MindRecord files (written by ``mindrecord.FileWriter``, Spore's
or MindSpore's). A random-access source: the rows of every shard file, in shard order."""
from __future__ import annotations

import numpy as np

from ...mindrecord import _format, resolve_files
from .sources import MappableDataset


def _column_value(spec, value):
    """A field as MindDataset hands it out: scalars 0-d arrays of the schema's type, arrays
    in the schema's shape, strings str arrays, bytes a 1-element bytes array (MindSpore)."""
    kind = spec["type"]
    if kind == "bytes":
        return np.array([bytes(value)])
    if kind == "string":
        return np.array(value)
    return np.asarray(_format.shaped(spec, value), dtype=_format.TYPES[kind]).copy()


class _RecordRows:
    def __init__(self, rows, names, schema):
        self.rows, self.names, self.schema = rows, names, schema

    def __call__(self, index):
        row = self.rows[index]
        return tuple(_column_value(self.schema[n], row[n]) for n in self.names)


class MindDataset(MappableDataset):
    """MindRecord files: ``dataset_files`` is one file (every shard of its set is read) or
    a list of shard files. Columns are the schema's fields in name order, or
    ``columns_list``. ``padded_sample`` (a row dict) is appended ``num_padded`` times.
    Shuffled by default."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, sampler=None,
                 padded_sample=None, num_padded=None, num_samples=None, cache=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.dataset_files = resolve_files(dataset_files, "MindDataset")
        self.schema = _format.read_header(self.dataset_files[0])["schema"][0]["schema"]
        if columns_list is None:
            self.columns_list = sorted(self.schema)
        else:
            self.columns_list = [columns_list] if isinstance(columns_list, str) \
                else list(columns_list)
            missing = [c for c in self.columns_list if c not in self.schema]
            if not self.columns_list or missing:
                raise ValueError(f"For 'MindDataset', columns {missing} are not fields of the "
                                 f"schema {sorted(self.schema)}.")
        if (padded_sample is None) != (num_padded is None):
            raise RuntimeError("For 'MindDataset', 'padded_sample' and 'num_padded' must be "
                               "given together.")
        self.padded_sample, self.num_padded = padded_sample, num_padded or 0

    def _columns(self):
        return list(self.columns_list)

    def _records(self):
        if "records" not in self._cache:
            rows = []
            for path in self.dataset_files:
                rows.extend(_format.read_rows(path)[1])
            rows.extend(dict(self.padded_sample) for _ in range(self.num_padded))
            self._cache["records"] = rows
        return self._cache["records"]

    def _length(self):
        return len(self._records())

    def _reader(self):
        return _RecordRows(self._records(), self.columns_list, self.schema)

    def _class_labels(self):
        column = getattr(self.sampler, "class_column", "label")
        if column not in self.schema:
            raise ValueError(f"For 'MindDataset', PKSampler's class_column '{column}' is not "
                             "a field of the schema.")
        return np.array([int(r[column]) for r in self._records()])
