"""Random-access sources, and the two Python-data sources of MindSpore:
``GeneratorDataset`` and ``NumpySlicesDataset``.

A random-access source (``MappableDataset``) has a length and a reader from
index to row; its sampler picks each pass's indices (shuffled by default, as in
MindSpore). ``GeneratorDataset`` is random-access when its source has
``__getitem__`` (and then needs ``__len__``; lists too; a ``zip`` is materialised
into a list), and streams otherwise: a generator function is called again each
pass, a generator object is replayed from a cache of the rows it already gave
(as MindSpore does with ``itertools.tee``), an iterable (or an iterator class
whose ``__iter__`` restarts it) goes through ``iter()`` again each pass.

A row's values are arrays, or dicts: MindSpore's "Python object" columns.

Rows from user code are copied into arrays the pipeline owns, so the Tensors
the iterators hand out never alias the user's buffers.
"""
from __future__ import annotations

import copy
import threading
import types
import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .. import config
from .dataset import Dataset
from .ops_batch import _BatchJob
from .rows import call_user, check_width, to_array, to_row, user_error
from .samplers import DistributedSampler, select_sampler
from .workers import OrderedPool, can_use_processes

CHUNK_INDICES = 8


class _FetchJob:
    """Reads a chunk of indices (picklable: may run in a worker)."""

    def __init__(self, reader):
        self.reader = reader

    def __call__(self, indices):
        return [self.reader(int(i)) for i in indices]


class SourceDataset(Dataset):
    """Base of the sources (random-access ones and the file readers)."""


class MappableDataset(SourceDataset):
    """Base of random-access sources: subclasses give ``_length()`` and ``_reader()``."""

    parallel_fetch = False   # whether reading rows is worth a worker pool
    fetch_processes = False  # whether those workers are processes

    def __init__(self, num_samples=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, num_parallel_workers=None):
        super().__init__((), num_parallel_workers)
        self.sampler = select_sampler(num_samples, shuffle, sampler, num_shards, shard_id)

    def _length(self):
        raise NotImplementedError

    def _reader(self):
        """A picklable callable: index -> row (a tuple of arrays the pipeline owns)."""
        raise NotImplementedError

    def _size(self):
        if getattr(self.sampler, "needs_labels", False):
            return self.sampler.count_labeled(self._class_labels())
        return self.sampler.count(self._length())

    def _class_labels(self):
        """The class label of every row, for PKSampler; sources without labels refuse it."""
        raise ValueError(f"{type(self).__name__} doesn't support PKSampler.")

    def _indices(self, run):
        shared = isinstance(self.sampler, DistributedSampler)
        rng = run.generator(self._stream, shared)
        if getattr(self.sampler, "needs_labels", False):
            return self.sampler.indices_labeled(self._class_labels(), rng)
        return self.sampler.indices(self._length(), rng)

    def _with_sampler(self, sampler):
        if not self.sampler.is_full():
            return None
        node = copy.copy(self)
        node.sampler, node._cache = sampler, {}
        return node

    def _fetch_plan(self, run):
        """(tasks, job) of one pass: the job turns a task into a list of rows."""
        indices = self._indices(run)
        chunks = (indices[k:k + CHUNK_INDICES] for k in range(0, len(indices), CHUNK_INDICES))
        return chunks, _FetchJob(self._reader())

    def _rows(self, run):
        tasks, job = self._fetch_plan(run)
        workers = self._workers()
        if workers <= 1 or not self.parallel_fetch:
            results = map(job, tasks)
        else:
            pool = run.pool((id(self), "fetch"), lambda: OrderedPool(
                job, workers, self.fetch_processes, name=type(self).__name__))
            results = pool.imap(tasks)
        for rows in results:
            yield from rows

    def _workers(self):
        n = self.num_parallel_workers
        return config.get_num_parallel_workers() if n is None else n


# ----------------------------------------------------------------- GeneratorDataset
class _Collate:
    """``collate_fn`` called as a per_batch_map (which also passes a BatchInfo)."""

    def __init__(self, collate_fn):
        self.collate_fn = collate_fn
        self.__name__ = getattr(collate_fn, "__name__", "collate_fn")

    def __call__(self, *args):
        return self.collate_fn(*args[:-1])


class _FetchBatchJob:
    """Reads the rows of one batch of indices and batches them (picklable)."""

    def __init__(self, reader, batch_job):
        self.reader, self.batch_job = reader, batch_job

    def __call__(self, task):
        num, indices = task
        rows = [self.reader(int(i)) for i in indices]
        return [self.batch_job((num, 0, rows))]


class _RandomAccessReader:
    def __init__(self, source, names, types):
        self.source, self.names, self.types = source, names, types

    def __call__(self, index):
        what = f"GeneratorDataset: source[{index}] (row {index} of the source)"
        value = call_user(what, self.source.__getitem__, index)
        row = call_user(what, to_row, value, True)
        return _typed(check_width(row, self.names, what), self.types)


def _typed(row, types):
    if not types:
        return row
    return tuple(a.astype(t, copy=False) if t is not None and not isinstance(a, dict) else a
                 for a, t in zip(row, list(types) + [None] * (len(row) - len(types))))


class _Replay:
    """Makes a one-shot iterator re-iterable by caching the rows it already produced."""

    def __init__(self, iterator):
        self._source, self._seen, self._lock = iterator, [], threading.Lock()
        self._done = False

    def __iter__(self):
        pos = 0
        while True:
            with self._lock:
                if pos == len(self._seen):
                    if self._done:
                        return
                    try:
                        self._seen.append(next(self._source))
                    except StopIteration:
                        self._done = True
                        return
                value = self._seen[pos]
            pos += 1
            yield value


def _source_kind(source):
    """How a source is read (MindSpore's order of tests): ``__getitem__`` makes it random
    access (it then needs ``__len__``); a generator object is replayed; anything else with
    ``__iter__`` (an iterable, or an iterator class whose ``__iter__`` restarts it) is
    iterated afresh with ``iter()`` each pass; a callable is a generator function."""
    if isinstance(source, zip):
        return "random", list(source)
    if hasattr(source, "__getitem__"):
        if not hasattr(source, "__len__"):
            raise RuntimeError("Attempt to construct a random access dataset, '__len__' method "
                               f"is required! (GeneratorDataset source of type "
                               f"{type(source).__name__} has __getitem__ but no __len__.)")
        return "random", source
    if isinstance(source, types.GeneratorType):
        return "stream", _Replay(source)
    if hasattr(source, "__iter__"):
        return "stream", source
    if callable(source):
        return "function", source
    if hasattr(source, "__next__"):
        return "stream", _Replay(source)
    raise TypeError(f"For 'GeneratorDataset', 'source' must be a generator function, a "
                    f"generator, an iterable or a random-access object (__getitem__ and "
                    f"__len__), but got {type(source).__name__}.")


class GeneratorDataset(MappableDataset):
    """A dataset from Python data: a generator (function), an iterable, or a random-access
    object. Rows are tuples (one value per column) or single values; ``int`` becomes
    int64 and ``float`` float64.

    Random-access sources are shuffled by default and may be read by
    ``num_parallel_workers`` workers (spawned processes when ``python_multiprocessing``,
    threads otherwise); streaming sources are read in order by the consumer. A
    ``batch_sampler`` (an iterable of index lists) makes each row a batch of those
    source rows, stacked per column or merged by ``collate_fn(*column_lists)``.

    Examples:
        >>> import numpy as np
        >>> import spore.dataset as ds
        >>> def gen():
        ...     for i in range(3):
        ...         yield np.array([i, i]), i
        >>> d = ds.GeneratorDataset(gen, ["data", "label"])
        >>> [int(label) for _, label in d]
        [0, 1, 2]
    """

    parallel_fetch = True

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None,
                 batch_sampler=None, collate_fn=None):
        names, types = _names_and_types(column_names, column_types, schema)
        self.kind, self.source = _source_kind(source)
        self.batch_sampler = _check_batch_sampler(batch_sampler, collate_fn, self.kind, (
            num_samples, shuffle, sampler, num_shards, shard_id))
        self.collate_fn = collate_fn
        self.column_names, self.column_types = names, types
        self.fetch_processes = bool(python_multiprocessing) and self.kind == "random" and \
            num_parallel_workers != 1 and \
            can_use_processes(self.source, "GeneratorDataset", stacklevel=2)
        if getattr(sampler, "needs_labels", False):
            raise ValueError("GeneratorDataset doesn't support PKSampler.")
        if self.kind == "random":
            super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                             num_parallel_workers)
        else:
            _check_streaming_args(sampler, num_shards, shuffle)
            Dataset.__init__(self, (), num_parallel_workers)
            self.sampler = None
            self.num_samples = num_samples

    def _columns(self):
        return list(self.column_names)

    def _signature(self):
        return f"GeneratorDataset[{','.join(self.column_names)}]"

    def _length(self):
        return len(self.source)

    def _reader(self):
        return _RandomAccessReader(self.source, self.column_names, self.column_types)

    def _fetch_plan(self, run):
        if self.batch_sampler is None:
            return super()._fetch_plan(run)
        collate = None if self.collate_fn is None else _Collate(self.collate_fn)
        n = len(self.column_names)
        batch_job = _BatchJob(self.column_names, collate, list(range(n)),
                              [(True, j) for j in range(n)], n, {})
        return enumerate(self.batch_sampler), _FetchBatchJob(self._reader(), batch_job)

    def _size(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler) if hasattr(self.batch_sampler, "__len__") else None
        if self.kind == "random":
            return super()._size()
        if not hasattr(self.source, "__len__"):
            return None
        n = len(self.source)
        return min(n, self.num_samples) if self.num_samples else n

    def _with_sampler(self, sampler):
        if self.kind != "random" or self.batch_sampler is not None:
            return None
        return super()._with_sampler(sampler)

    def _rows(self, run):
        if self.kind == "random":
            return super()._rows(run)
        return self._stream_rows()

    def _stream_rows(self):
        iterable = self.source
        if self.kind == "function":
            iterable = call_user("GeneratorDataset: calling the source function", self.source)
        iterator = call_user("GeneratorDataset: iter(source)", iter, iterable)
        pos = 0
        while not self.num_samples or pos < self.num_samples:
            what = f"GeneratorDataset: the source, at row {pos}"
            try:
                value = next(iterator)
            except StopIteration:
                return
            except Exception as exc:
                raise user_error(what, exc) from exc
            row = call_user(what, to_row, value, True)
            yield _typed(check_width(row, self.column_names, what), self.column_types)
            pos += 1


def _check_batch_sampler(batch_sampler, collate_fn, kind, sampling_args):
    if collate_fn is not None:
        if batch_sampler is None:
            raise ValueError("collate_fn can be specified only when batch_sampler is set.")
        if not callable(collate_fn):
            raise TypeError("collate_fn should be callable.")
    if batch_sampler is None:
        return None
    if not hasattr(batch_sampler, "__iter__"):
        raise TypeError(f"batch_sampler should be iterable, but got "
                        f"{type(batch_sampler).__name__}.")
    if any(arg is not None for arg in sampling_args):
        raise ValueError("batch_sampler is mutually exclusive with num_samples, shuffle, "
                         "num_shards, shard_id and sampler.")
    if kind != "random":
        raise ValueError("batch_sampler needs a source with __getitem__ and __len__.")
    return batch_sampler


def _names_and_types(column_names, column_types, schema):
    if column_names is None and schema is not None:
        column_names = [c["name"] for c in getattr(schema, "columns", [])]
        column_types = column_types or [c["type"] for c in schema.columns]
    if column_names is None:
        raise ValueError("Neither columns_names nor schema are provided.")
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if not names or not all(isinstance(n, str) and n for n in names) or \
            len(set(names)) != len(names):
        raise ValueError(f"For 'GeneratorDataset', 'column_names' must be unique non-empty "
                         f"strings, but got {column_names!r}.")
    types = None
    if column_types is not None:
        if len(column_types) > len(names):
            raise ValueError(f"For 'GeneratorDataset', 'column_types' has {len(column_types)} "
                             f"entries but there are {len(names)} columns.")
        types = [None if t is None else D.to_numpy_dtype(t) for t in column_types]
    return names, types


def _check_streaming_args(sampler, num_shards, shuffle):
    if sampler is not None:
        raise ValueError("sampler is not supported if source does not have attribute "
                         "'__getitem__'.")
    if num_shards is not None:
        raise ValueError("num_shards is not supported if source does not have attribute "
                         "'__getitem__'.")
    if shuffle:
        warnings.warn("GeneratorDataset: 'shuffle' has no effect on a source without "
                      "__getitem__ (rows are read in order); use .shuffle(buffer_size).",
                      stacklevel=3)


# --------------------------------------------------------------- NumpySlicesDataset
class _SliceReader:
    def __init__(self, columns):
        self.columns = columns

    def __call__(self, index):
        return tuple(np.array(c[index]) for c in self.columns)


class NumpySlicesDataset(MappableDataset):
    """Rows sliced from the first dimension of arrays: a list/ndarray (one column), a tuple
    of them (one column each), or a dict (columns named by its keys). Shuffled by default.

    Examples:
        >>> import numpy as np
        >>> import spore.dataset as ds
        >>> d = ds.NumpySlicesDataset({"x": np.arange(4), "y": np.arange(4) * 2},
        ...                           shuffle=False)
        >>> [int(y) for _, y in d]
        [0, 2, 4, 6]
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)
        self.column_names, self.data = _slice_columns(data, column_names)

    def _columns(self):
        return list(self.column_names)

    def _signature(self):
        return f"NumpySlicesDataset[{','.join(self.column_names)}]"

    def _length(self):
        return len(self.data[0])

    def _reader(self):
        return _SliceReader(self.data)


def _slice_columns(data, column_names):
    if isinstance(data, dict):
        names, columns = list(map(str, data.keys())), list(data.values())
    elif isinstance(data, tuple):
        names, columns = None, list(data)
    else:
        names, columns = None, [data]
    arrays = [_column_array(c) for c in columns]
    if column_names is not None and names is None:
        names = [column_names] if isinstance(column_names, str) else list(column_names)
        if len(names) != len(arrays):
            kind = "list" if isinstance(data, list) else type(data).__name__
            raise ValueError(f"Num of input column names is {len(names)}, but required is "
                             f"{len(arrays)} as data is {kind}.")
    names = names or [f"column_{i}" for i in range(len(arrays))]
    if any(a.ndim == 0 for a in arrays):
        raise ValueError("For 'NumpySlicesDataset', each column needs a first dimension to "
                         "slice, but got a scalar.")
    if len({len(a) for a in arrays}) > 1:
        raise ValueError("Data length in each column is not equal.")
    return names, arrays


def _column_array(column):
    if isinstance(column, Tensor):
        return column.asnumpy()
    try:
        return to_array(column)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"For 'NumpySlicesDataset', a column could not be converted to an "
                         f"array (ragged or mixed data?): {exc}") from None

