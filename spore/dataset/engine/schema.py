"""``Schema``: column names, types and shapes given to a source up front."""
from __future__ import annotations

from ... import _dtype as D


class Schema:
    """Columns a source produces; ``GeneratorDataset(schema=...)`` takes names and types
    from it."""

    def __init__(self, schema_file=None):
        if schema_file is not None:
            raise NotImplementedError("Schema: reading a schema file is not supported; add the "
                                      "columns with add_column.")
        self.columns = []

    def add_column(self, name, de_type, shape=None):
        if not isinstance(name, str) or not name:
            raise TypeError(f"For 'Schema.add_column', 'name' must be a non-empty str, but got "
                            f"{name!r}.")
        self.columns.append({"name": name, "type": D.to_numpy_dtype(de_type),
                             "shape": None if shape is None else list(shape)})

    def __repr__(self):
        return f"Schema({self.columns})"
