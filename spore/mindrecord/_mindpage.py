"""``MindPage``: a MindRecord file set's rows grouped by one indexed field and read a page at
a time, as MindSpore's ``mindspore.mindrecord.MindPage``."""
from __future__ import annotations

import json

from . import _format


def _page_value(spec, value):
    """A field as MindPage hands it out: MindSpore passes scalar fields through JSON, so a
    whole-number float comes back as an int (2.0 -> 2); arrays are shaped."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return _format.shaped(spec, value)


class MindPage:
    """Rows of ``file_name`` (one shard of a set, which brings the whole set, or a list of
    shard files) grouped by an index field: set ``category_field`` (one of
    ``candidate_fields``), then ``read_category_info()`` lists the groups (JSON text, groups
    in ascending order of the field's value) and ``read_at_page_by_id`` /
    ``read_at_page_by_name`` give ``num_row`` rows of one group starting at row
    ``page * num_row``.

    Examples:
        >>> from spore.mindrecord import MindPage
        >>> page = MindPage("/path/to/file.mindrecord")   # doctest: +SKIP
        >>> page.category_field = "label"                  # doctest: +SKIP
        >>> page.read_at_page_by_id(0, 0, 10)              # doctest: +SKIP
    """

    def __init__(self, file_name, num_consumer=4):
        from . import resolve_files
        if isinstance(num_consumer, bool) or not isinstance(num_consumer, int) or \
                num_consumer < 1:
            raise ValueError(f"For 'MindPage', 'num_consumer' must be a positive int, but got "
                             f"{num_consumer!r}.")
        paths = resolve_files(file_name, "MindPage")
        header = _format.read_header(paths[0])
        self._schema = header["schema"][0]["schema"]
        self._candidate_fields = [f["index_field"] for f in header["index_fields"]]
        self._rows = [row for p in paths for row in _format.read_rows(p)[1]]
        self._category_field = None
        self._groups = []

    @property
    def candidate_fields(self):
        """The indexed fields rows can be grouped by."""
        return self._candidate_fields

    @property
    def category_field(self):
        return self._category_field

    @category_field.setter
    def category_field(self, category_field):
        if not category_field or not isinstance(category_field, str):
            raise TypeError("For 'MindPage', 'category_field' must be a non-empty str.")
        if category_field not in self._candidate_fields:
            raise ValueError(f"Field '{category_field}' is not a candidate category field.")
        self._category_field = category_field
        groups = {}
        for row in self._rows:
            groups.setdefault(row[category_field], []).append(row)
        self._groups = [(str(k), groups[k]) for k in sorted(groups)]

    def _need_field(self):
        if self._category_field is None:
            raise RuntimeError("For 'MindPage', set 'category_field' first.")

    def read_category_info(self):
        """JSON text: ``{"categories": [{"count", "id", "name"}, ...], "key": "<field>_0"}``."""
        self._need_field()
        categories = [{"count": len(rows), "id": i, "name": name}
                      for i, (name, rows) in enumerate(self._groups)]
        return json.dumps({"categories": categories, "key": f"{self._category_field}_0"},
                          separators=(",", ":"))

    def _page(self, rows, page, num_row):
        if page * num_row >= len(rows):
            raise RuntimeError(f"Invalid data, page no: {page} or page size: {num_row} is "
                               "invalid.")
        return [{k: _page_value(self._schema[k], v) for k, v in row.items()}
                for row in rows[page * num_row:(page + 1) * num_row]]

    @staticmethod
    def _check_page(page, num_row):
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise ValueError("Page should be int and greater than or equal to 0.")
        if isinstance(num_row, bool) or not isinstance(num_row, int) or num_row <= 0:
            raise ValueError("num_row should be int and greater than 0.")

    def read_at_page_by_id(self, category_id, page, num_row):
        """Rows ``page * num_row`` on of the group numbered ``category_id``."""
        if isinstance(category_id, bool) or not isinstance(category_id, int) or \
                category_id < 0:
            raise ValueError("Category id should be int and greater than or equal to 0.")
        self._check_page(page, num_row)
        self._need_field()
        if category_id >= len(self._groups):
            raise RuntimeError(f"Invalid data, category_id: {category_id} must be in the "
                               f"range [0, {len(self._groups) - 1}].")
        return self._page(self._groups[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row):
        """Rows ``page * num_row`` on of the group whose field value reads ``category_name``."""
        if not isinstance(category_name, str):
            raise ValueError("Category name should be str.")
        self._check_page(page, num_row)
        self._need_field()
        for name, rows in self._groups:
            if name == category_name:
                return self._page(rows, page, num_row)
        raise RuntimeError(f"category_name: {category_name} could not found.")
