"""``Schema``: column names, types and shapes given to a source up front, in code or in
MindSpore's json schema files (``{"columns": {"name": {"type": ..., "rank": ...,
"shape": [...]}}}``, or ``"columns"`` as a list of objects with a ``"name"``)."""
from __future__ import annotations

import json
import os

import numpy as np

from ... import _dtype as D


def column_dtype(de_type):
    """The NumPy dtype of a schema type: a Spore dtype, a NumPy dtype or a name such as
    ``'int64'``; ``string`` (or ``bytes``) columns hold NumPy strings."""
    if isinstance(de_type, str) and de_type.lower() in ("string", "bytes"):
        return np.dtype(str)
    try:
        resolved = D.resolve(de_type)
    except (TypeError, ValueError, KeyError):
        return np.dtype(de_type)
    if resolved is D.resolve("string"):
        return np.dtype(str)
    return D.to_numpy_dtype(resolved)


def _type_name(dtype):
    return "string" if dtype.kind in "US" else dtype.name


class Schema:
    """Columns a source produces; ``GeneratorDataset``, ``TFRecordDataset`` and
    ``RandomDataset`` take names, types and shapes from it."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.dataset_type, self.num_rows = None, None
        if schema_file is not None:
            if not isinstance(schema_file, (str, os.PathLike)) or \
                    not os.path.isfile(schema_file):
                raise ValueError(f"The file {schema_file} does not exist or permission denied!")
            with open(schema_file, encoding="utf-8") as f:
                self.from_json(json.load(f))

    def add_column(self, name, de_type, shape=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"For 'Schema.add_column', 'name' must be a non-empty str, but got "
                            f"{name!r}.")
        if shape is not None and (not isinstance(shape, (list, tuple)) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in shape)):
            raise TypeError(f"For 'Schema.add_column', 'shape' must be a list of int, but got "
                            f"{shape!r}.")
        self.columns.append({"name": name, "type": column_dtype(de_type),
                             "shape": None if shape is None else list(shape)})

    def parse_columns(self, columns):
        """Add columns from a list of ``{"name", "type", "shape"}`` dicts or a dict from name
        to ``{"type", "shape"}``."""
        if isinstance(columns, dict):
            columns = [dict(spec, name=name) for name, spec in columns.items()]
        if not isinstance(columns, list):
            raise TypeError(f"For 'Schema', 'columns' must be a dict or a list of dicts, but got "
                            f"{columns!r}.")
        for spec in columns:
            if not isinstance(spec, dict) or "name" not in spec or "type" not in spec:
                raise RuntimeError(f"For 'Schema', each column needs 'name' and 'type', but got "
                                   f"{spec!r}.")
            self.add_column(spec["name"], spec["type"], spec.get("shape"))

    def from_json(self, json_obj):
        """Fill the schema from a parsed json schema (``columns``, optional ``datasetType``
        and ``numRows``)."""
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise RuntimeError("Schema: the json object has no 'columns'.")
        self.dataset_type = json_obj.get("datasetType")
        self.num_rows = json_obj.get("numRows")
        self.parse_columns(json_obj["columns"])

    def to_json(self):
        """The schema as MindSpore's json text."""
        columns = []
        for c in self.columns:
            entry = {"name": c["name"], "type": _type_name(c["type"]),
                     "rank": 1 if c["shape"] is None else len(c["shape"])}
            if c["shape"] is not None:
                entry["shape"] = c["shape"]
            columns.append(entry)
        obj = {"columns": columns}
        if self.dataset_type is not None:
            obj["datasetType"] = self.dataset_type
        if self.num_rows is not None:
            obj["numRows"] = self.num_rows
        return json.dumps(obj, indent=2)

    def __repr__(self):
        return self.to_json()
