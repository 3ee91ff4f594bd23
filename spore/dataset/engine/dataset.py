"""``Dataset``: the base of every pipeline node, with MindSpore's operations.

A node is an immutable description with three duties (the node protocol):

* ``_columns()``: its column names (known without running anything);
* ``_rows(run)``: a generator of rows (tuples of NumPy arrays) for one pass;
* ``_size()``: rows per pass when known without running, else None.

Operations (``batch``, ``map``, ...) build new nodes on top; iterators run them.
"""
from __future__ import annotations

from .checks import check_count, check_int, check_workers, column_list
from .execution import Execution, Pass
from .iterators import DictIterator, TupleIterator
from .randomness import stream_id
from .serialize import remember_arguments, serialize
from .rows import value_dtype, value_shape


class Dataset:
    """Base of all datasets (MindSpore's ``mindspore.dataset.Dataset``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        remember_arguments(cls)  # serialize() writes a node as its constructor call

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = tuple(children)
        self.num_parallel_workers = check_workers(type(self).__name__, num_parallel_workers)
        self._cache = {}

    # ------------------------------------------------------------- node protocol
    def _columns(self):
        """Column names; a node that passes its input's columns through keeps this."""
        if not self.children:
            raise NotImplementedError
        return self.children[0]._columns()

    def _rows(self, run):
        raise NotImplementedError

    def _size(self):
        return None

    def _with_sampler(self, sampler):
        """This pipeline reading ``sampler``'s rows of its source, or None when rows do not
        pass through one to one (used by ``split``)."""
        return None

    def _signature(self):
        if "signature" not in self._cache:
            inner = ",".join(c._signature() for c in self.children)
            self._cache["signature"] = f"{type(self).__name__}<{inner}>"
        return self._cache["signature"]

    @property
    def _stream(self):
        """The id of this node's random stream (stable across processes and runs)."""
        return stream_id(self._signature())

    def _first_row(self):
        if "first" not in self._cache:
            execution = Execution()
            try:
                self._cache["first"] = next(iter(self._rows(Pass(execution))), None)
            finally:
                execution.close()
        return self._cache["first"]

    # ------------------------------------------------------------------- info
    def get_dataset_size(self):
        """Rows (or batches) in one pass; counted by running the pipeline when unknown."""
        if "size" not in self._cache:
            size = self._size()
            self._cache["size"] = size if size is not None else self._count_rows()
        return self._cache["size"]

    def _count_rows(self):
        execution = Execution()
        try:
            return sum(1 for _ in self._rows(Pass(execution)))
        finally:
            execution.close()

    def get_col_names(self):
        return list(self._columns())

    def output_shapes(self, estimate=False):
        """Shapes of the first row's columns, as lists."""
        row = self._first_row()
        return [] if row is None else [value_shape(a) for a in row]

    def output_types(self):
        """NumPy dtypes of the first row's columns."""
        row = self._first_row()
        return [] if row is None else [value_dtype(a) for a in row]

    def get_batch_size(self):
        node = self._find(lambda d: hasattr(d, "batch_size"))
        return 1 if node is None else node.batch_size

    def get_repeat_count(self):
        node = self._find(lambda d: hasattr(d, "repeat_count"))
        return 1 if node is None else node.repeat_count

    def _find(self, test):
        node = self
        while node is not None:
            if test(node):
                return node
            node = node.children[0] if node.children else None
        return None

    def get_class_indexing(self):
        node = self._find(lambda d: hasattr(d, "class_indexing"))
        return {} if node is None else dict(node.class_indexing)

    def reset(self):
        """Forget cached facts (size, shapes, types) so they are measured again; use it after
        the data behind a source changed."""
        for node in self._walk():
            node._cache.clear()

    def _walk(self):
        yield self
        for child in self.children:
            yield from child._walk()

    # -------------------------------------------------------------- iteration
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=False):
        """An iterator of rows as lists of Tensors (NumPy arrays with ``output_numpy``).

        Each ``for`` loop over it is one epoch; ``num_epochs=-1`` allows any number.
        """
        columns = column_list("create_tuple_iterator", "columns", columns)
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=False):
        """An iterator of rows as dicts from column name to Tensor (or NumPy array)."""
        return DictIterator(self, None, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        return self.create_tuple_iterator(num_epochs=1)

    def to_json(self, filename=""):
        """The pipeline as a dict (``serialize``), also written to ``filename``."""
        return serialize(self, filename)

    # ------------------------------------------------------------- operations
    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack ``batch_size`` consecutive rows per column (``per_batch_map`` first).

        Keyword args: ``per_batch_map(*columns, batch_info)``, ``input_columns``,
        ``output_columns``, ``python_multiprocessing``, ``max_rowsize``.
        """
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """``batch`` that first pads columns in ``pad_info`` ({name: (shape, value)})."""
        return PaddedBatchDataset(self, batch_size, drop_remainder, num_parallel_workers,
                                  pad_info)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None,
                               pad_to_bucket_boundary=False, drop_remainder=False):
        """Batch rows of similar length together (``ops_extra.BucketBatchByLengthDataset``)."""
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries,
                                          bucket_batch_sizes, element_length_function, pad_info,
                                          pad_to_bucket_boundary, drop_remainder)

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """Let ``num_batch`` batches through per pass, then one per ``sync_update``."""
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """Release the sync point ``condition_name`` (after calling its callback with
        ``data``); ``num_batch`` batches pass (default: its ``sync_wait`` num_batch)."""
        sync_update(self, condition_name, num_batch, data)

    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of ``buffer_size`` rows (>= size: a full shuffle)."""
        return ShuffleDataset(self, buffer_size)

    def map(self, operations, input_columns=None, output_columns=None,
            num_parallel_workers=None, **kwargs):
        """Apply ``operations`` (a callable or list of them, in order) to ``input_columns``
        (default: the first column). Keyword args: ``python_multiprocessing``,
        ``max_rowsize``, ``cache``, ``callbacks``, ``offload``."""
        return MapDataset(self, operations, input_columns, output_columns,
                          num_parallel_workers, **kwargs)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which ``predicate(*input_columns)`` is true."""
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def repeat(self, count=None):
        """The rows ``count`` times (None or -1: forever)."""
        return RepeatDataset(self, -1 if count is None else check_count("repeat", "count", count))

    def take(self, count=-1):
        return TakeDataset(self, check_count("take", "count", count))

    def skip(self, count):
        return SkipDataset(self, check_int("skip", "count", count, 0))

    def split(self, sizes, randomize=True):
        """Split into datasets of the given sizes (ints summing to the size, or fractions)."""
        return split_dataset(self, sizes, randomize)

    def zip(self, datasets):
        """Columns of this and ``datasets`` side by side; as long as the shortest."""
        others = (datasets,) if isinstance(datasets, Dataset) else tuple(datasets)
        return ZipDataset((self,) + others)

    def concat(self, datasets):
        """Rows of this, then of each of ``datasets`` (same columns)."""
        others = [datasets] if isinstance(datasets, Dataset) else list(datasets)
        return ConcatDataset([self] + others)

    def __add__(self, other):
        return self.concat(other)

    def project(self, columns):
        """Keep ``columns``, in that order."""
        return ProjectDataset(self, column_list("project", "columns", columns, False))

    def rename(self, input_columns, output_columns):
        return RenameDataset(self, column_list("rename", "input_columns", input_columns, False),
                             column_list("rename", "output_columns", output_columns, False))


class VisionBaseDataset(Dataset):
    """MindSpore's base of image pipelines (every Spore operation node derives from it
    through ``UnionBaseDataset``)."""


class TextBaseDataset(Dataset):
    """MindSpore's base of text pipelines: adds ``build_vocab``."""

    def build_vocab(self, columns, freq_range, top_k, special_tokens, special_first):
        """``text.Vocab.from_dataset`` over this pipeline."""
        from ..text.vocab import Vocab
        return Vocab.from_dataset(self, columns, freq_range, top_k, special_tokens,
                                  special_first)


class AudioBaseDataset(Dataset):
    """MindSpore's base of audio pipelines."""


class UnionBaseDataset(VisionBaseDataset, TextBaseDataset, AudioBaseDataset):
    """MindSpore's base of the operation nodes (map, batch, repeat, ...)."""


def zip(datasets):  # noqa: A001  (MindSpore's name)
    """``ds.zip((d1, d2, ...))``: the datasets' columns side by side."""
    if not isinstance(datasets, (tuple, list)) or len(datasets) < 1 or \
            not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError("For 'zip', 'datasets' must be a tuple of datasets.")
    return ZipDataset(tuple(datasets))


# The operation nodes subclass Dataset, so they are imported after it.
from .ops_batch import BatchDataset, PaddedBatchDataset  # noqa: E402
from .ops_flow import (ConcatDataset, RepeatDataset, ShuffleDataset, SkipDataset,  # noqa: E402
                       TakeDataset, ZipDataset)
from .ops_rowwise import FilterDataset, MapDataset, ProjectDataset, RenameDataset  # noqa: E402
from .split import split_dataset  # noqa: E402
from .ops_extra import BucketBatchByLengthDataset, SyncWaitDataset, sync_update  # noqa: E402
