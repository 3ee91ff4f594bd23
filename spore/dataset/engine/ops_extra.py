"""Less common operations and sources of MindSpore's pipelines: ``PaddedDataset``,
``bucket_batch_by_length``, ``sync_wait`` / ``sync_update``, ``use_sampler`` on a
concatenation, and the dataset callbacks (``DSCallback``, ``WaitedDSCallback``).

Spore's pipeline is pulled by the consumer (an iterator asks for the next row), so
``sync_wait`` blocks only a producer that runs ahead of the consumer (a worker thread); in
the usual loop (take a batch, train, ``sync_update``) the update has happened before the
next rows are produced, which is the order MindSpore's blocking gives.
"""
from __future__ import annotations

import threading

import numpy as np

from .. import config
from .checks import check_columns_exist, check_int, column_list
from .dataset import Dataset
from .ops_batch import _BatchJob, _check_pad_info
from .rows import call_user, pipeline_error
from .sources import MappableDataset


# ---------------------------------------------------------------------- PaddedDataset
class _ListRows:
    def __init__(self, rows):
        self.rows = rows

    def __call__(self, index):
        return tuple(np.array(v) for v in self.rows[index])


class PaddedDataset(MappableDataset):
    """Rows given as a list of dicts (column name -> value), read in order; used to pad a
    dataset to a multiple of the shard count: ``(data + PaddedDataset(...))`` then
    ``use_sampler(DistributedSampler(...))``."""

    def __init__(self, padded_samples):
        super().__init__(shuffle=False)
        if not isinstance(padded_samples, list):
            raise TypeError(f"For 'PaddedDataset', 'padded_samples' must be a list of dicts, "
                            f"but got {type(padded_samples).__name__}.")
        if not padded_samples:
            raise ValueError("padded_samples cannot be empty.")
        if not all(isinstance(s, dict) for s in padded_samples):
            raise TypeError("For 'PaddedDataset', every element of 'padded_samples' must be a "
                            "dict.")
        self._names = list(padded_samples[0])
        for k, sample in enumerate(padded_samples):
            if list(sample) != self._names:
                raise ValueError(f"For 'PaddedDataset', sample {k} has the columns "
                                 f"{list(sample)}, but sample 0 has {self._names}.")
        self.padded_samples = padded_samples

    def _columns(self):
        return list(self._names)

    def _length(self):
        return len(self.padded_samples)

    def _reader(self):
        return _ListRows([tuple(s[n] for n in self._names) for s in self.padded_samples])


# ---------------------------------------------------------------- concat + sampler
class _ConcatRows:
    """Global index -> the row of the child holding it."""

    def __init__(self, readers, starts):
        self.readers, self.starts = readers, starts

    def __call__(self, index):
        child = int(np.searchsorted(self.starts, index, side="right")) - 1
        return self.readers[child](index - int(self.starts[child]))


class SampledConcatDataset(MappableDataset):
    """A concatenation of random-access sources read through one sampler
    (``ConcatDataset.use_sampler``)."""

    def __init__(self, children, sampler):
        super().__init__(sampler=sampler)
        self.children = tuple(children)

    def _length(self):
        return sum(c._length() for c in self.children)

    def _columns(self):
        return self.children[0]._columns()

    def _reader(self):
        starts = np.cumsum([0] + [c._length() for c in self.children])
        return _ConcatRows([c._reader() for c in self.children], starts)

    def _signature(self):
        return "Sampled" + super()._signature()


def use_sampler(concat, sampler):
    """The node that reads ``concat``'s children (random-access sources) through
    ``sampler`` over their joined rows."""
    for child in concat.children:
        if not isinstance(child, MappableDataset):
            raise TypeError(f"use_sampler: every dataset of the concatenation must be a "
                            f"random-access source, but {type(child).__name__} is not.")
    return SampledConcatDataset(concat.children, sampler)


# --------------------------------------------------------------- bucket_batch_by_length
def _check_buckets(boundaries, batch_sizes):
    if not isinstance(boundaries, list) or not boundaries or not all(
            isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in boundaries):
        raise ValueError(f"For 'bucket_batch_by_length', 'bucket_boundaries' must be a non-empty "
                         f"list of positive ints, but got {boundaries!r}.")
    if any(a >= b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError("For 'bucket_batch_by_length', 'bucket_boundaries' must be strictly "
                         "increasing.")
    if not isinstance(batch_sizes, list) or len(batch_sizes) != len(boundaries) + 1 or not all(
            isinstance(b, int) and not isinstance(b, bool) and b > 0 for b in batch_sizes):
        raise ValueError("For 'bucket_batch_by_length', 'bucket_batch_sizes' must be a list of "
                         "len(bucket_boundaries) + 1 positive ints, but got "
                         f"{batch_sizes!r}.")


class BucketBatchByLengthDataset(Dataset):
    """Rows grouped by length into buckets (``[0, b0)``, ``[b0, b1)``, ..., ``[bn, inf)``);
    a bucket is emitted as a batch when it holds its batch size, the partial buckets at the
    end of the pass in bucket order (unless ``drop_remainder``). The length is
    ``element_length_function(*column_names)``, or the first dimension of the one column
    named. Columns are padded to the longest row of the batch (``pad_info`` as in
    ``padded_batch``; by default the named columns with 0). MindSpore 2.10 pads to the
    longest row also with ``pad_to_bucket_boundary=True`` (probed), and so does Spore."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes,
                 element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                 drop_remainder=False):
        super().__init__([child])
        names = child._columns()
        self.column_names = column_list("bucket_batch_by_length", "column_names",
                                        column_names, False)
        check_columns_exist("bucket_batch_by_length", "column_names", self.column_names, names)
        _check_buckets(bucket_boundaries, bucket_batch_sizes)
        if element_length_function is None and len(self.column_names) != 1:
            raise ValueError("For 'bucket_batch_by_length', 'element_length_function' must be "
                             "given when 'column_names' has more than one column.")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError("For 'bucket_batch_by_length', 'element_length_function' must be "
                            "callable.")
        for arg, value in (("pad_to_bucket_boundary", pad_to_bucket_boundary),
                           ("drop_remainder", drop_remainder)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'bucket_batch_by_length', '{arg}' must be bool, but got "
                                f"{type(value).__name__}.")
        self.bucket_boundaries, self.bucket_batch_sizes = bucket_boundaries, bucket_batch_sizes
        self.element_length_function = element_length_function
        if pad_info is None:
            pad_info = {name: (None, 0) for name in self.column_names}
        self.pad_info = _check_pad_info(pad_info, names)
        self.pad_to_bucket_boundary, self.drop_remainder = pad_to_bucket_boundary, drop_remainder

    def _length(self, row, picks):
        values = [row[i] for i in picks]
        if self.element_length_function is None:
            value = values[0]
            return int(value.shape[0]) if getattr(value, "ndim", 0) else 1
        length = call_user("bucket_batch_by_length: element_length_function",
                           self.element_length_function, *values)
        try:
            return int(length)
        except (TypeError, ValueError):
            raise pipeline_error(f"element_length_function returned {length!r}, which is not an "
                                 "int length.") from None

    def _rows(self, run):
        names = self.children[0]._columns()
        picks = [names.index(c) for c in self.column_names]
        job = _BatchJob(names, None, [], None, len(names), self.pad_info)
        buckets = [[] for _ in self.bucket_batch_sizes]
        num = 0
        for row in self.children[0]._rows(run):
            k = int(np.searchsorted(self.bucket_boundaries, self._length(row, picks),
                                    side="right"))
            buckets[k].append(row)
            if len(buckets[k]) == self.bucket_batch_sizes[k]:
                yield job((num, run.epoch, buckets[k]))
                buckets[k], num = [], num + 1
        if not self.drop_remainder:
            for bucket in buckets:
                if bucket:
                    yield job((num, run.epoch, bucket))
                    num += 1

    def get_batch_size(self):
        return -1


# ------------------------------------------------------------------------- sync_wait
class _SyncState:
    """How many rows of the current pass may pass the sync point, raised by updates."""

    def __init__(self, num_batch, callback):
        self.num_batch, self.callback = num_batch, callback
        self.batch_size = 1
        self.condition = threading.Condition()
        self.allowed = 0

    def start_pass(self):
        with self.condition:
            self.allowed = self.num_batch * self.batch_size

    def wait_for(self, position, name):
        with self.condition:
            if self.condition.wait_for(lambda: position < self.allowed,
                                       timeout=config.get_callback_timeout()):
                return
        raise RuntimeError(f"sync_wait '{name}': row {position} waited "
                           f"{config.get_callback_timeout()} s for sync_update; call "
                           f"dataset.sync_update(condition_name='{name}') after each batch "
                           "(see config.set_callback_timeout).")

    def update(self, num_batch, data):
        if self.callback is not None:
            self.callback(data)
        with self.condition:
            step = self.num_batch if num_batch is None else num_batch
            self.allowed += step * self.batch_size
            self.condition.notify_all()


class SyncWaitDataset(Dataset):
    """Rows pass freely for ``num_batch`` batches of each pass, then one more batch per
    ``sync_update(condition_name)`` (which first calls ``callback(data)``)."""

    def __init__(self, child, condition_name, num_batch=1, callback=None):
        super().__init__([child])
        if not isinstance(condition_name, str):
            raise TypeError(f"For 'sync_wait', 'condition_name' must be str, but got "
                            f"{type(condition_name).__name__}.")
        check_int("sync_wait", "num_batch", num_batch, 1)
        if callback is not None and not callable(callback):
            raise TypeError("For 'sync_wait', 'callback' must be callable.")
        for node in child._walk():
            if isinstance(node, SyncWaitDataset) and node.condition_name == condition_name:
                raise RuntimeError(f"Condition name {condition_name!r} is already in use.")
        self.condition_name = condition_name
        self.num_batch, self.callback = num_batch, callback
        self._state = _SyncState(num_batch, callback)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, run):
        self._state.start_pass()
        for position, row in enumerate(self.children[0]._rows(run)):
            self._state.wait_for(position, self.condition_name)
            yield row


def sync_nodes(dataset):
    """{condition name: SyncWaitDataset} of the pipeline ending at ``dataset``."""
    return {n.condition_name: n for n in dataset._walk() if isinstance(n, SyncWaitDataset)}


def tell_batch_size(child, batch_size):
    """A ``batch`` above a sync point counts its batches: the sync point lets
    ``num_batch * batch_size`` rows through per update."""
    node = child
    while node is not None and not hasattr(node, "batch_size"):
        if isinstance(node, SyncWaitDataset):
            node._state.batch_size = batch_size
            return
        node = node.children[0] if node.children else None


def sync_update(dataset, condition_name, num_batch=None, data=None):
    nodes = sync_nodes(dataset)
    if condition_name not in nodes:
        raise RuntimeError(f"Condition name {condition_name!r} not found; the pipeline has "
                           f"sync_wait conditions {sorted(nodes)}.")
    if num_batch is not None:
        check_int("sync_update", "num_batch", num_batch, 1)
    nodes[condition_name]._state.update(num_batch, data)


# ------------------------------------------------------------------------ callbacks
class DSRunContext:
    """What a dataset callback learns: epoch (1-based), step in the epoch and step overall."""

    def __init__(self):
        self.cur_epoch_num = 0
        self.cur_step_num_in_epoch = 0
        self.cur_step_num = 0


class DSCallback:
    """Base of callbacks of ``map(callbacks=...)``: ``ds_begin``, ``ds_epoch_begin``,
    ``ds_epoch_end``, and ``ds_step_begin`` / ``ds_step_end`` around every ``step_size``-th
    row (steps 1, 1 + step_size, ...). Each receives a ``DSRunContext``."""

    def __init__(self, step_size=1):
        check_int("DSCallback", "step_size", step_size, 1)
        self.step_size = step_size

    def ds_begin(self, ds_run_context):
        """Before the pipeline's first row."""

    def ds_epoch_begin(self, ds_run_context):
        """Before each epoch."""

    def ds_epoch_end(self, ds_run_context):
        """After each epoch."""

    def ds_step_begin(self, ds_run_context):
        """Before the map's operations run on a chosen row."""

    def ds_step_end(self, ds_run_context):
        """After the map's operations ran on a chosen row."""

    def create_runtime_obj(self):
        return self


class _Callbacks:
    """Calls a map's callbacks in the order MindSpore does, keeping its own counts."""

    def __init__(self, callbacks):
        self.callbacks = callbacks
        self.context = DSRunContext()
        self.started = False

    def _each(self, hook, step=None):
        for cb in self.callbacks:
            if step is None or (step - 1) % cb.step_size == 0:
                getattr(cb, hook)(self.context)

    def epoch(self, rows, run_rows):
        """Wrap one pass: ``rows`` are the input rows, ``run_rows(rows)`` the outputs."""
        ctx = self.context
        if not self.started:
            self.started = True
            self._each("ds_begin")
        ctx.cur_epoch_num += 1
        ctx.cur_step_num_in_epoch = 0
        self._each("ds_epoch_begin")
        for row in rows:
            ctx.cur_step_num_in_epoch += 1
            ctx.cur_step_num += 1
            step = ctx.cur_step_num_in_epoch
            self._each("ds_step_begin", step)
            out = run_rows([row])
            self._each("ds_step_end", step)
            yield from out
        self._each("ds_epoch_end")


def check_callbacks(callbacks):
    if callbacks is None:
        return []
    callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for cb in callbacks:
        if not isinstance(cb, DSCallback):
            raise TypeError(f"For 'map', 'callbacks' must be DSCallback objects, but got "
                            f"{type(cb).__name__}.")
    return callbacks


def _train_callback_base():
    from ...train.callback import Callback
    return Callback


class WaitedDSCallback(_train_callback_base(), DSCallback):
    """A dataset callback synchronised with training: the pipeline's step ``k`` (and epoch
    ``e``) waits until training finished step ``k - step_size`` (epoch ``e - 1``), then
    ``sync_step_begin(train_run_context, ds_run_context)`` (``sync_epoch_begin``) runs.
    Pass it to ``map(callbacks=...)`` and to ``Model.train(callbacks=...)``."""

    def __init__(self, step_size=1):
        DSCallback.__init__(self, step_size)
        self._condition = threading.Condition()
        self._steps = self._epochs = 0        # training steps / epochs finished
        self._steps_seen = self._epochs_seen = 0
        self._step_context = self._epoch_context = None

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Override: runs before dataset epoch ``e > 1`` once training ended an epoch."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Override: runs before a dataset step past the first ``step_size`` once training
        ended a step."""

    def step_end(self, run_context):
        with self._condition:
            self._steps += 1
            self._step_context = run_context
            self._condition.notify_all()

    def epoch_end(self, run_context):
        with self._condition:
            self._epochs += 1
            self._epoch_context = run_context
            self._condition.notify_all()

    def _wait(self, kind):
        """Wait until training ended a step (epoch) this callback has not used yet."""
        done, seen = f"_{kind}s", f"_{kind}s_seen"
        with self._condition:
            if not self._condition.wait_for(lambda: getattr(self, done) > getattr(self, seen),
                                            timeout=config.get_callback_timeout()):
                raise RuntimeError(f"WaitedDSCallback: the pipeline waited "
                                   f"{config.get_callback_timeout()} s for a training {kind} to "
                                   "end; is the callback passed to Model.train too?")
            setattr(self, seen, getattr(self, done))

    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1:
            self._wait("epoch")
            self.sync_epoch_begin(self._epoch_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size:
            self._wait("step")
            self.sync_step_begin(self._step_context, ds_run_context)


# ---------------------------------------------------------------- DeserializedDataset
class DeserializedDataset(Dataset):
    """The pipeline a ``serialize`` result describes: ``input_obj`` is the dict, or the path
    of the JSON file ``serialize`` wrote. Its rows, columns and size are that pipeline's."""

    def __init__(self, input_obj):
        from .serialize import deserialize
        if isinstance(input_obj, dict):
            pipeline = deserialize(input_dict=input_obj)
        elif isinstance(input_obj, str):
            pipeline = deserialize(json_filepath=input_obj)
        else:
            raise TypeError(f"For 'DeserializedDataset', 'input_obj' must be a dict or a JSON "
                            f"file path, but got {type(input_obj).__name__}.")
        super().__init__([pipeline])
        self.input_obj = input_obj

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, run):
        return self.children[0]._rows(run)
