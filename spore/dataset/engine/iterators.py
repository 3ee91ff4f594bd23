"""Iterators over a pipeline: each ``for`` loop over one of them is one epoch.

An iterator owns an ``Execution`` (its seed and worker pools); the pools stay
up between epochs and are shut down when the last epoch ends, on ``stop()``,
or when the iterator is garbage-collected.
"""
from __future__ import annotations

import weakref

from ..._core.primitive import wrap
from ..._tensor import Tensor
from .checks import check_int
from .execution import Execution, Pass
from .rows import to_output

# columns named so (a reader's extra_metadata) are left out unless asked for, as in MindSpore
META_PREFIX = "_meta-"


class _Iterator:
    def __init__(self, dataset, columns, num_epochs, output_numpy, do_copy):
        check_int("create_iterator", "num_epochs", num_epochs, -1)
        if num_epochs == 0:
            raise ValueError("For 'create_iterator', 'num_epochs' must be -1 or positive, but "
                             "got 0.")
        names = dataset.get_col_names()
        self.dataset = dataset
        if not columns and any(n.startswith(META_PREFIX) for n in names):
            columns = [n for n in names if not n.startswith(META_PREFIX)]
        self._names = list(columns) if columns else names
        missing = [c for c in self._names if c not in names]
        if missing:
            raise ValueError(f"For 'create_tuple_iterator', columns {missing} do not exist in "
                             f"the dataset columns {names}.")
        self._picks = [names.index(c) for c in self._names] if columns else None
        self._num_epochs = num_epochs
        self._output_numpy, self._do_copy = bool(output_numpy), bool(do_copy)
        self._epoch = 0
        self._rows = None
        self._execution = Execution()
        self._finalizer = weakref.finalize(self, self._execution.close)

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if 0 < self._num_epochs <= self._epoch:
                raise RuntimeError(f"This dataset iterator has already run its "
                                   f"num_epochs={self._num_epochs} epoch(s); create a new "
                                   "iterator to read the dataset again.")
            self._rows = self.dataset._rows(Pass(self._execution, self._epoch))
        try:
            row = next(self._rows)
        except StopIteration:
            self._end_epoch()
            raise
        except BaseException:
            self.stop()
            raise
        if self._picks is not None:
            row = tuple(row[i] for i in self._picks)
        return self._emit([self._convert(a) for a in row])

    def _end_epoch(self):
        self._rows = None
        self._epoch += 1
        if 0 < self._num_epochs <= self._epoch:
            self._execution.close()

    def _convert(self, arr):
        if isinstance(arr, dict):
            return to_output(arr, self._output_numpy, self._do_copy)
        if self._output_numpy or arr.dtype.kind in "USO":
            return arr  # strings and bytes stay NumPy arrays, as in MindSpore
        if self._do_copy or not (arr.flags.owndata and arr.flags.writeable):
            return Tensor(arr)  # a view may alias memory someone else still uses
        return wrap(arr)  # a fresh array made by the pipeline: hand it over without a copy

    def stop(self):
        """End iteration now and shut the workers down."""
        if self._rows is not None:
            close = getattr(self._rows, "close", None)  # generators free their workers' tasks
            if close is not None:
                close()
            self._rows = None
        self._num_epochs, self._epoch = 1, 1
        self._execution.close()

    release = stop

    def get_col_names(self):
        return list(self._names)


class TupleIterator(_Iterator):
    """Yields each row as a list of Tensors (or NumPy arrays), in column order."""

    def _emit(self, values):
        return values


class DictIterator(_Iterator):
    """Yields each row as a dict from column name to Tensor (or NumPy array)."""

    def _emit(self, values):
        return dict(zip(self._names, values))
