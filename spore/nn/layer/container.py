"""Containers: SequentialCell, CellList and CellDict.

NOTE: [Container names]
A container names its children's parameters ``<prefix><key>.<path>`` where
``<prefix>`` is the container's own place in its parent (``lst.``), read off the
names its children already carry, as MindSpore does: so ``self.lst.append(d)``
gives ``lst.2.weight`` while a fresh container gives ``0.weight``. Inserting or
deleting renumbers every child (and its parameter names) behind the change.
"""
from __future__ import annotations

import collections
from collections import abc

from ..cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _check_index(length, index, owner):
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"For '{owner}', the type of 'index' must be int, but got "
                        f"{type(index).__name__}.")
    if not -length <= index < length:
        raise IndexError(f"For '{owner}', the value of 'index' must be a number in range "
                         f"[{-length}, {length}), but got {index}.")
    return index % length


def _check_insert_index(length, index, owner):
    if not isinstance(index, int) or isinstance(index, bool):
        raise TypeError(f"For '{owner}', the type of 'index' must be int, but got "
                        f"{type(index).__name__}.")
    if not -length <= index <= length:
        raise IndexError(f"For '{owner}', the value of 'index' must be a number in range "
                         f"[{-length}, {length}], but got {index}.")
    return index % length if length and index != length else index


def _check_cell(cell, owner):
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{owner}', each cell must be subclass of Cell, but got "
                        f"{type(cell).__name__}.")


def _name_prefix(cells):
    """The prefix the children's parameter names carry before their key (see NOTE)."""
    for key, cell in cells.items():
        first = next(cell.parameters_and_names(), None) if cell is not None else None
        if first is None:
            continue
        path, param = first
        suffix = f"{key}.{path}"
        if param.name.endswith(suffix):
            return param.name[:-len(suffix)]
        return ""
    return ""


def _rename(cell, prefix, key):
    for path, param in cell.parameters_and_names():
        param.name = f"{prefix}{key}.{path}"


class _ListNaming:
    """Shared by SequentialCell and CellList: children keyed "0", "1", ... (or by name)."""

    def _rebuild(self, items, prefix):
        """Replace the children by ``items`` (key, cell, numbered) with names renumbered."""
        cells = collections.OrderedDict()
        numbered = []
        for index, (key, cell, is_numbered) in enumerate(items):
            key = str(index) if is_numbered else key
            if self._auto_prefix:
                _rename(cell, prefix, key)
            cells[key] = cell
            numbered.append(is_numbered)
        self._cells.clear()
        self._cells.update(cells)
        self.__dict__["_numbered"] = numbered

    def _items(self):
        return [(k, c, n) for (k, c), n in zip(self._cells.items(), self._numbered)]

    def _put(self, key, cell, numbered, prefix):
        if self._auto_prefix:
            _rename(cell, prefix, key)
        self._cells[key] = cell
        self._numbered.append(numbered)

    def __len__(self):
        return len(self._cells)

    def __bool__(self):
        return bool(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def __delitem__(self, index):
        items = self._items()
        if isinstance(index, int) and not isinstance(index, bool):
            del items[_check_index(len(items), index, type(self).__name__)]
        elif isinstance(index, slice):
            del items[index]
        else:
            raise TypeError(f"For '{type(self).__name__}', the type of 'index' must be int or "
                            f"slice, but got {type(index).__name__}.")
        self._rebuild(items, _name_prefix(self._cells))

    def __setitem__(self, index, cell):
        owner = type(self).__name__
        index = _check_index(len(self), index, owner)
        _check_cell(cell, owner)
        prefix = _name_prefix(self._cells)
        items = self._items()
        key, _, numbered = items[index]
        items[index] = (key, cell, numbered)
        self._rebuild(items, prefix)

    def insert(self, index, cell):
        """Insert ``cell`` before ``index``; the children behind it are renumbered."""
        owner = type(self).__name__
        index = _check_insert_index(len(self), index, owner)
        _check_cell(cell, owner)
        prefix = _name_prefix(self._cells)
        items = self._items()
        items.insert(index, (str(index), cell, True))
        self._rebuild(items, prefix)

    def append(self, cell):
        """Add ``cell`` at the end (key ``str(len(self))``)."""
        _check_cell(cell, type(self).__name__)
        self._put(str(len(self)), cell, True, _name_prefix(self._cells))
        return self

    def extend(self, cells):
        """Append every cell of the list ``cells``."""
        owner = type(self).__name__
        if not isinstance(cells, list):
            raise TypeError(f"For '{owner}', the new cells wanted to append should be instance "
                            f"of list, but got {type(cells).__name__}.")
        prefix = _name_prefix(self._cells)
        for cell in cells:
            if isinstance(cell, CellDict):
                raise TypeError(f"For '{owner}', the type of cell can not be CellDict, but got "
                                f"{type(cell).__name__}.")
            _check_cell(cell, owner)
            self._put(str(len(self)), cell, True, prefix)
        return self

    def __iadd__(self, cells):
        return self.extend(cells)


class SequentialCell(_ListNaming, Cell):
    """Runs its cells one after another, each on the previous one's output.

    Args:
        args: cells as varargs, a list of cells or an OrderedDict ``name -> cell``.

    Inputs:
        - **x** (Tensor) - input of the first cell (returned as-is when the container is empty).

    Examples:
        >>> seq = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU())
        >>> [p.name for p in seq.get_parameters()]
        ['0.weight', '0.bias']
    """

    def __init__(self, *args):
        super().__init__()
        self.__dict__["_numbered"] = []
        for key, cell, numbered in _sequential_entries(args):
            if not isinstance(cell, Cell):
                raise TypeError(f"For 'insert_child_to_cell', the argument 'child_cell' must be "
                                f"'Cell' if not None, but got type {type(cell)}.")
            self._put(key, cell, numbered, "")

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(collections.OrderedDict(list(self._cells.items())[index]))
        index = _check_index(len(self), index, type(self).__name__)
        return list(self._cells.values())[index]

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


def _sequential_entries(args):
    """(key, cell, numbered) for each of SequentialCell's constructor forms."""
    if len(args) == 1 and not isinstance(args[0], Cell):
        cells = args[0]
        if isinstance(cells, collections.OrderedDict):
            return [(k, c, False) for k, c in cells.items()]
        if isinstance(cells, list):
            return [(str(i), c, True) for i, c in enumerate(cells)]
        raise TypeError(f"For 'SequentialCell', the 'args[0]' must be Cell, list or "
                        f"orderedDict, but got {type(cells).__name__}")
    return [(str(i), c, True) for i, c in enumerate(args)]


class CellList(_ListNaming, Cell):
    """Holds cells in a list (indexing, ``append``, ``extend``, ``insert``, iteration).

    Unlike SequentialCell it does not connect its cells: calling it raises
    NotImplementedError.

    Args:
        args (list, optional): the cells.
        auto_prefix (bool): keyword; prefix the children's parameter names with their index.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(kwargs.get("auto_prefix", True))
        self.__dict__["_numbered"] = []
        if len(args) == 1:
            self.extend(args[0])

    def __getitem__(self, index):
        if isinstance(index, slice):
            return CellList(list(self._cells.values())[index])
        if isinstance(index, int) and not isinstance(index, bool):
            return self._cells[str(_check_index(len(self), index, "CellList"))]
        raise TypeError(f"For 'CellList', the type of 'index' must be int or slice, but got "
                        f"{type(index).__name__}.")

    def construct(self, *inputs):
        raise NotImplementedError


class CellDict(Cell):
    """Holds cells in an ordered dictionary keyed by name.

    Args:
        args (optional): a mapping ``name -> cell`` or an iterable of ``(name, cell)`` pairs.
            Cells may not be containers; keys must be non-empty strings without '.'.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(kwargs.get("auto_prefix", True))
        if len(args) == 1:
            self.update(args[0])

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check_key(key)
        self._check_value(cell)
        if self._auto_prefix:
            _rename(cell, _name_prefix(self._cells), key)
        self._cells[key] = cell

    def __delitem__(self, key):
        del self._cells[key]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def _check_key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be string but got "
                            f"{type(key).__name__}.")
        if hasattr(self, key) and key not in self._cells:
            raise KeyError(f"For 'CellDict', the key can not be same with the attributes of "
                           f"Cell, but got key {key}.")
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain \".\", but got key {key}")
        if not key:
            raise KeyError(f"For 'CellDict', key can not be empty string \"\", but got key {key}")

    @staticmethod
    def _check_value(cell):
        if cell is None:
            raise TypeError("For 'CellDict', cell can not be None.")
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', the type of cell should be Cell, but got "
                            f"{type(cell).__name__}.")
        if isinstance(cell, (CellDict, CellList, SequentialCell)):
            raise TypeError(f"For 'CellDict', the type of cell can not be CellDict, CellList or "
                            f"SequentialCell, but got {type(cell).__name__}.")

    def clear(self):
        self._cells.clear()

    def pop(self, key):
        cell = self[key]
        del self[key]
        return cell

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells):
        """Add or overwrite entries from a mapping or an iterable of (key, cell) pairs."""
        if not isinstance(cells, abc.Iterable):
            raise TypeError(f"CellDict.update() should be called with an iterable of key-value "
                            f"pairs, but got {type(cells).__name__}")
        if isinstance(cells, abc.Mapping) or isinstance(cells, CellDict):
            pairs = list(cells.items())
        else:
            pairs = []
            for i, pair in enumerate(cells):
                if not isinstance(pair, abc.Iterable):
                    raise TypeError(f"CellDict update sequence element #{i} should be Iterable; "
                                    f"but got {type(pair).__name__}")
                pair = tuple(pair)
                if len(pair) != 2:
                    raise ValueError(f"CellDict update sequence element #{i}, length should be 2;"
                                     f" but has length {len(pair)}")
                pairs.append(pair)
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError
