"""Row-wise operations: map, filter, project, rename.

``map`` and ``filter`` run user code; with ``num_parallel_workers > 1`` they run
it on a pool of workers (threads, or spawned processes when
``python_multiprocessing=True`` and there is user Python code: Spore's own
transforms are NumPy code that threads run well), in chunks of rows,
keeping the row order. Each row's random transforms draw from that row's own
stream, so the results do not depend on the number of workers.
"""
from __future__ import annotations

import copy

import numpy as np

from .. import config
from .checks import check_columns_exist, column_list
from .dataset import Dataset, UnionBaseDataset
from .randomness import RowRandom
from ..transforms.base import run_operation
from .rows import call_user, pipeline_error
from .workers import OrderedPool, can_use_processes

CHUNK_ROWS = 4


class _RowWise(UnionBaseDataset):
    def _size(self):
        return self.children[0].get_dataset_size()

    def _with_sampler(self, sampler):
        child = self.children[0]._with_sampler(sampler)
        if child is None:
            return None
        node = copy.copy(self)
        node.children, node._cache = (child,), {}
        return node

    def _workers(self):
        if config.get_debug_mode():
            return 1  # debug mode: user code runs in the calling thread
        n = self.num_parallel_workers
        return config.get_num_parallel_workers() if n is None else n

    def _run_chunks(self, run, job, tasks, processes):
        """Results of ``job`` over ``tasks``: in this thread, or on the node's pool."""
        workers = self._workers()
        if workers <= 1:
            return map(job, tasks)
        pool = run.pool((id(self), "pool"), lambda: OrderedPool(
            job, workers, processes, name=f"{type(self).__name__}"))
        return pool.imap(tasks)


def _chunks(rows, size):
    """(first position, rows) chunks of a row stream."""
    chunk, start = [], 0
    for pos, row in enumerate(rows):
        chunk.append(row)
        if len(chunk) == size:
            yield start, chunk
            chunk, start = [], pos + 1
    if chunk:
        yield start, chunk


def _op_name(op):
    return getattr(op, "__name__", None) or type(op).__name__


def _is_builtin(op):
    return hasattr(op, "_run")


class _MapJob:
    """Applies the operations to one chunk of rows (picklable: it may run in a worker)."""

    def __init__(self, operations, in_idx, out_layout, n_out, columns):
        self.operations, self.in_idx = operations, in_idx
        self.out_layout, self.n_out, self.columns = out_layout, n_out, columns
        self.error_mode = config.get_error_samples_mode()
        self.hooks = config.debug_hooks() if config.get_debug_mode() else []

    def __call__(self, task):
        key, start, rows = task
        if self.error_mode == config.ErrorSamplesMode.RETURN:
            return [self.apply_row(row, key, start + i) for i, row in enumerate(rows)]
        return self._tolerant(rows, key, start)

    def _tolerant(self, rows, key, start):
        """ErrorSamplesMode SKIP / REPLACE: a row whose operations raised is dropped, or
        replaced by the nearest good row of its chunk (dropped when the chunk has none)."""
        out = []
        for i, row in enumerate(rows):
            try:
                out.append(self.apply_row(row, key, start + i))
            except RuntimeError:
                out.append(None)
        good = [r for r in out if r is not None]
        if self.error_mode == config.ErrorSamplesMode.SKIP or not good:
            return good
        filled, last = [], None
        for r in out:
            last = r if r is not None else last
            filled.append(r if r is not None else (last if last is not None else good[0]))
        return filled

    def apply_row(self, row, key, pos):
        values = tuple(row[i] for i in self.in_idx)
        rand = RowRandom(key, pos)
        for op in self.operations:
            what = f"map operation [{_op_name(op)}] on row {pos} (input columns {self.columns})"
            values = call_user(what, run_operation, op, values, rand)
            for hook in self.hooks:
                hook.set_previous_op_name(_op_name(op))
                values = call_user(f"debug hook {_op_name(hook)}", hook, *values)
        if len(values) != self.n_out:
            raise pipeline_error(
                f"the operations of 'map' returned {len(values)} column(s) on row {pos}, but "
                f"{self.n_out} output column(s) are expected; set 'output_columns' to match "
                "what the last operation returns.")
        return tuple(values[j] if src else row[j] for src, j in self.out_layout)


class MapDataset(_RowWise):
    """Columns ``input_columns`` replaced by the operations' outputs (``output_columns``)."""

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None, python_multiprocessing=False, max_rowsize=None,
                 cache=None, callbacks=None, offload=None):
        super().__init__([child], num_parallel_workers)
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops or not all(callable(op) for op in ops):
            raise TypeError(f"For 'map', 'operations' must be a callable or a non-empty list of "
                            f"callables, but got {operations!r}.")
        names = child._columns()
        inputs = column_list("map", "input_columns", input_columns) or names[:1]
        check_columns_exist("map", "input columns", inputs, names)
        outputs = column_list("map", "output_columns", output_columns) or inputs
        self.operations, self.input_columns, self.output_columns = ops, inputs, outputs
        user_code = [op for op in ops if not _is_builtin(op)]
        self.python_multiprocessing = bool(python_multiprocessing) and bool(user_code) and \
            can_use_processes(user_code, "map", stacklevel=3)
        self._names, self._layout = _output_layout(names, inputs, outputs)
        from .ops_extra import _Callbacks, check_callbacks
        callbacks = check_callbacks(callbacks)
        self._callbacks = _Callbacks(callbacks) if callbacks else None

    def _columns(self):
        return list(self._names)

    def _below_sync(self):
        if "below_sync" not in self._cache:
            self._cache["below_sync"] = _has_sync_point(self.children[0])
        return self._cache["below_sync"]

    def _rows(self, run):
        names = self.children[0]._columns()
        job = _MapJob(self.operations, [names.index(c) for c in self.input_columns],
                      self._layout, len(self.output_columns), self.input_columns)
        key = run.key(self._stream)
        if self._callbacks is not None or self._below_sync():
            # row by row in this thread: the callbacks see every step, and no row is read
            # ahead of a sync_wait point before the consumer released it
            positions = iter(range(1 << 62))
            run_rows = lambda rows: job((key, next(positions), rows))  # noqa: E731
            if self._callbacks is None:
                for row in self.children[0]._rows(run):
                    yield from run_rows([row])
                return
            yield from self._callbacks.epoch(self.children[0]._rows(run), run_rows)
            return
        tasks = ((key, start, rows) for start, rows in
                 _chunks(self.children[0]._rows(run), CHUNK_ROWS))
        for out_rows in self._run_chunks(run, job, tasks, self.python_multiprocessing):
            yield from out_rows


def _has_sync_point(node):
    from .ops_extra import SyncWaitDataset
    return any(isinstance(n, SyncWaitDataset) for n in node._walk())


def _output_layout(names, inputs, outputs):
    """Column names after a map and, per output column, where its value comes from:
    ``(True, j)`` the j-th operation output, ``(False, j)`` the j-th input column.
    Same counts: outputs take the inputs' places; otherwise they come first (MindSpore)."""
    if len(outputs) == len(inputs):
        placed = dict(zip(inputs, range(len(outputs))))
        result = [outputs[placed[n]] if n in placed else n for n in names]
        layout = [(True, placed[n]) if n in placed else (False, j) for j, n in enumerate(names)]
    else:
        rest = [(j, n) for j, n in enumerate(names) if n not in inputs]
        result = outputs + [n for _, n in rest]
        layout = [(True, k) for k in range(len(outputs))] + [(False, j) for j, _ in rest]
    dup = sorted({n for n in result if result.count(n) > 1})
    if dup:
        raise ValueError(f"For 'map', output columns {dup} would duplicate existing columns "
                         f"(columns after map: {result}).")
    return result, layout


class _FilterJob:
    """Keeps the rows of one chunk that pass the predicate (picklable)."""

    def __init__(self, predicate, in_idx):
        self.predicate, self.in_idx = predicate, in_idx

    def __call__(self, task):
        start, rows = task
        return [row for i, row in enumerate(rows) if self.keep(row, start + i)]

    def keep(self, row, pos):
        what = f"filter predicate [{_op_name(self.predicate)}] on row {pos}"
        verdict = call_user(what, self.predicate, *(row[i] for i in self.in_idx))
        return bool(np.asarray(verdict).all())


class FilterDataset(_RowWise):
    """The rows for which ``predicate(*input_columns)`` is true (all columns by default)."""

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__([child], num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"For 'filter', 'predicate' must be callable, but got "
                            f"{type(predicate).__name__}.")
        names = child._columns()
        self.input_columns = column_list("filter", "input_columns", input_columns) or names
        check_columns_exist("filter", "input columns", self.input_columns, names)
        self.predicate = predicate

    def _size(self):
        return None

    def _with_sampler(self, sampler):
        return None

    def _rows(self, run):
        names = self.children[0]._columns()
        job = _FilterJob(self.predicate, [names.index(c) for c in self.input_columns])
        tasks = _chunks(self.children[0]._rows(run), CHUNK_ROWS)
        for kept in self._run_chunks(run, job, tasks, processes=False):
            yield from kept


class ProjectDataset(_RowWise):
    """Only ``columns``, in that order."""

    def __init__(self, child, columns):
        super().__init__([child])
        check_columns_exist("project", "columns", columns, child._columns())
        self.columns = columns

    def _columns(self):
        return list(self.columns)

    def _rows(self, run):
        names = self.children[0]._columns()
        picks = [names.index(c) for c in self.columns]
        for row in self.children[0]._rows(run):
            yield tuple(row[i] for i in picks)


class RenameDataset(_RowWise):
    """The same rows with columns ``input_columns`` renamed to ``output_columns``."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        if len(input_columns) != len(output_columns):
            raise ValueError(f"For 'rename', 'input_columns' and 'output_columns' must have the "
                             f"same length, but got {input_columns} and {output_columns}.")
        names = child._columns()
        check_columns_exist("rename", "input columns", input_columns, names)
        mapping = dict(zip(input_columns, output_columns))
        self._names = [mapping.get(n, n) for n in names]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"For 'rename', the new column names {self._names} are not "
                             "unique.")

    def _columns(self):
        return list(self._names)

    def _rows(self, run):
        return self.children[0]._rows(run)
