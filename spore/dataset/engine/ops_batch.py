"""``batch`` and ``padded_batch``: stack consecutive rows column by column."""
from __future__ import annotations

import math

import numpy as np

from .checks import INT32_MAX, check_columns_exist, check_int, column_list
from .ops_rowwise import _output_layout, _RowWise
from .rows import call_user, pipeline_error, to_array, to_value
from .workers import can_use_processes


class BatchInfo:
    """What ``per_batch_map`` and a callable ``batch_size`` learn about the batch."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        return self._batch_num

    def get_epoch_num(self):
        return self._epoch_num


class _BatchJob:
    """Turns a list of rows into one batch row (picklable: may run in a worker)."""

    def __init__(self, names, per_batch_map, in_idx, layout, n_out, pad_info):
        self.names, self.per_batch_map, self.in_idx = names, per_batch_map, in_idx
        self.layout, self.n_out, self.pad_info = layout, n_out, pad_info

    def __call__(self, task):
        num, epoch, rows = task
        columns = [list(col) for col in zip(*rows)]
        if self.per_batch_map is not None:
            columns = self._mapped(columns, num, epoch)
        return tuple(self._stack(name, values, num)
                     for name, values in zip(self.names, columns))

    def _mapped(self, columns, num, epoch):
        args = [columns[i] for i in self.in_idx] + [BatchInfo(num, epoch)]
        name = getattr(self.per_batch_map, "__name__", type(self.per_batch_map).__name__)
        out = call_user(f"per_batch_map [{name}] on batch {num}", self.per_batch_map, *args)
        out = out if isinstance(out, tuple) else (out,)
        if len(out) != self.n_out:
            raise pipeline_error(f"per_batch_map returned {len(out)} column(s) on batch {num}, "
                                 f"but {self.n_out} are expected; set 'output_columns'.")
        return [out[j] if from_map else columns[j] for from_map, j in self.layout]

    def _stack(self, name, values, num):
        if not isinstance(values, (list, tuple)):
            return to_value(values)  # per_batch_map already returned the batched column
        if not values:
            raise pipeline_error(f"per_batch_map returned an empty list for column '{name}' "
                                 f"on batch {num}.")
        if isinstance(values[0], dict):
            return _batch_dicts(name, values, num)
        arrays = [to_array(v) for v in values]
        if name in self.pad_info:
            arrays = _pad_all(arrays, *self.pad_info[name])
        first = arrays[0]
        for k, a in enumerate(arrays[1:], 1):
            if a.shape != first.shape or a.dtype != first.dtype:
                what = "shapes" if a.shape != first.shape else "types"
                got = (first.shape, a.shape) if what == "shapes" else (first.dtype, a.dtype)
                raise pipeline_error(
                    f"Cannot batch tensors with different {what} in column '{name}' (batch "
                    f"{num}): its first row has {got[0]} and row {k} has {got[1]}. Pad them "
                    "with padded_batch or make them equal with map first.")
        return np.stack(arrays)


def _batch_dicts(name, dicts, num):
    """A batch of dict values: one dict whose value per key is the array of the rows'
    values for that key (MindSpore's rule; a dict nested in the values is batched the same
    way)."""
    first = dicts[0]
    for k, d in enumerate(dicts):
        if not isinstance(d, dict):
            raise pipeline_error(f"Cannot batch column '{name}' (batch {num}): its first row "
                                 f"holds a Python dictionary but row {k} holds "
                                 f"{type(d).__name__}.")
        for key in set(d) ^ set(first):
            raise pipeline_error(f"Python dictionary keys do not match when creating a batch "
                                 f"of column '{name}' (batch {num}): {key!r} was not found in "
                                 "every row.")
    out = {}
    for key in first:
        items = [d[key] for d in dicts]
        if isinstance(items[0], dict):
            out[key] = _batch_dicts(f"{name}[{key!r}]", items, num)
            continue
        try:
            out[key] = to_array(items)
        except (TypeError, ValueError) as exc:
            raise pipeline_error(f"Failed to batch Python dictionary in column '{name}' "
                                 f"(batch {num}), key {key!r}: {exc}") from None
    return out


def _pad_all(arrays, shape, value):
    """Pad (or cut) each array to ``shape``; None dims take the largest in the batch."""
    ndim = arrays[0].ndim
    if any(a.ndim != ndim for a in arrays):
        raise pipeline_error("padded_batch: the rows of a column have different ranks.")
    widest = [max(a.shape[d] for a in arrays) for d in range(ndim)]
    target = widest if shape is None else [w if s is None else s for s, w in zip(shape, widest)]
    if len(target) != ndim:
        raise pipeline_error(f"padded_batch: pad shape {list(shape)} has {len(target)} dims but "
                             f"the column's rows have {ndim}.")
    out = []
    for a in arrays:
        a = a[tuple(slice(0, t) for t in target)]
        widths = [(0, t - s) for s, t in zip(a.shape, target)]
        out.append(np.pad(a, widths, constant_values=0 if value is None else value))
    return out


class BatchDataset(_RowWise):
    """Groups of ``batch_size`` rows stacked per column."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 per_batch_map=None, input_columns=None, output_columns=None,
                 python_multiprocessing=False, max_rowsize=None, pad_info=None):
        super().__init__([child], num_parallel_workers)
        if not callable(batch_size):
            check_int("batch", "batch_size", batch_size, 1, INT32_MAX)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"For 'batch', 'drop_remainder' must be bool, but got "
                            f"{type(drop_remainder).__name__}.")
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError("For 'batch', 'per_batch_map' must be callable.")
        names = child._columns()
        inputs = column_list("batch", "input_columns", input_columns) or names
        check_columns_exist("batch", "input columns", inputs, names)
        outputs = column_list("batch", "output_columns", output_columns) or inputs
        self.batch_size, self.drop_remainder = batch_size, drop_remainder
        self.per_batch_map, self.input_columns = per_batch_map, inputs
        self.output_columns = outputs
        self.python_multiprocessing = bool(python_multiprocessing) and \
            per_batch_map is not None and \
            can_use_processes(per_batch_map, "batch", stacklevel=3)
        if per_batch_map is None:
            self._names, self._layout = list(names), None
        else:
            self._names, self._layout = _output_layout(names, inputs, outputs)
        self.pad_info = _check_pad_info(pad_info, self._names)
        from .ops_extra import tell_batch_size
        tell_batch_size(child, batch_size if isinstance(batch_size, int) else 1)

    def _columns(self):
        return list(self._names)

    def _size(self):
        if callable(self.batch_size):
            return None
        n = self.children[0].get_dataset_size()
        return n // self.batch_size if self.drop_remainder else math.ceil(n / self.batch_size)

    def _with_sampler(self, sampler):
        return None

    def _rows(self, run):
        names = self.children[0]._columns()
        job = _BatchJob(self._names, self.per_batch_map,
                        [names.index(c) for c in self.input_columns], self._layout,
                        len(self.output_columns), self.pad_info)
        tasks = self._groups(run)
        if self.per_batch_map is None:
            return map(job, tasks)
        return self._run_chunks(run, job, tasks, self.python_multiprocessing)

    def _groups(self, run):
        """(batch number, epoch, rows) for each batch of the pass."""
        rows = self.children[0]._rows(run)
        num = 0
        while True:
            size = self._next_size(num, run.epoch)
            group = [row for _, row in zip(range(size), rows)]
            if not group or (len(group) < size and self.drop_remainder):
                return
            yield num, run.epoch, group
            num += 1

    def _next_size(self, num, epoch):
        if not callable(self.batch_size):
            return self.batch_size
        size = call_user(f"batch_size callable on batch {num}", self.batch_size,
                         BatchInfo(num, epoch))
        return check_int("batch", "batch_size (returned by the callable)", size, 1, INT32_MAX)


def _check_pad_info(pad_info, names):
    if pad_info is None:
        return {}
    if not isinstance(pad_info, dict):
        raise TypeError(f"For 'padded_batch', 'pad_info' must be a dict, but got "
                        f"{type(pad_info).__name__}.")
    check_columns_exist("padded_batch", "pad_info columns", list(pad_info), names)
    checked = {}
    for name, spec in pad_info.items():
        if not isinstance(spec, (tuple, list)) or len(spec) != 2:
            raise TypeError(f"For 'padded_batch', pad_info['{name}'] must be a (shape, value) "
                            f"pair, but got {spec!r}.")
        shape, value = spec
        if shape is not None:
            shape = [None if s is None else check_int("padded_batch", "pad shape", s, 0)
                     for s in shape]
        checked[name] = (shape, value)
    return checked


class PaddedBatchDataset(BatchDataset):
    """``padded_batch``: columns in ``pad_info`` ({name: (shape, value)}) padded, then
    batched."""

    def __init__(self, input_dataset, batch_size, drop_remainder=False,
                 num_parallel_workers=None, pad_info=None):
        super().__init__(input_dataset, batch_size, drop_remainder, num_parallel_workers,
                         pad_info=pad_info if pad_info is not None else {})
