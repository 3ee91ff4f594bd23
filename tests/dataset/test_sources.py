"""GeneratorDataset and NumpySlicesDataset: source kinds, default order, row dtypes,
num_samples, samplers and shards (expected values from reference §10 and probes of
MindSpore 2.10 recorded in the comments)."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds

from .helpers import column, rows, table


def _gen():
    for i in range(5):
        yield np.array([i, i], np.float32), np.int32(i)


class _RandomAccess:
    def __init__(self, n=6):
        self.n = n

    def __getitem__(self, i):
        return np.array([i], np.int64), np.float32(i / 2)

    def __len__(self):
        return self.n


class _Iterable:
    def __iter__(self):
        return iter([(np.int32(i),) for i in range(4)])


def test_generator_function_is_called_each_pass_in_order():
    d = ds.GeneratorDataset(_gen, ["data", "label"])
    assert column(d, 1) == [0, 1, 2, 3, 4]
    assert column(d, 1) == [0, 1, 2, 3, 4]
    assert d.get_dataset_size() == 5
    assert d.get_col_names() == ["data", "label"]


class _IteratorClass:
    """MindSpore's "iterable dataset" form: __iter__ restarts, __next__ gives rows."""

    def __init__(self, n=3):
        self.n, self.i, self.restarts = n, 0, 0

    def __iter__(self):
        self.i, self.restarts = 0, self.restarts + 1
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return (np.array(self.i),)

    def __len__(self):
        return self.n


def test_iterator_class_source_is_restarted_with_iter_each_pass():
    # MindSpore 2.10 (probed): iter(source) first, then next(); every epoch gives [1, 2, 3]
    source = _IteratorClass()
    d = ds.GeneratorDataset(source, ["x"])
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [[int(x) for (x,) in it] for _ in range(2)] == [[1, 2, 3], [1, 2, 3]]
    assert source.restarts == 2 and d.get_dataset_size() == 3
    half = ds.GeneratorDataset(_IteratorClass(4), ["x"], num_samples=2)
    assert column(half) == [1, 2] and half.get_dataset_size() == 2


def test_builtin_iterator_is_iterated_once_as_in_mindspore():
    # MindSpore 2.10 (probed): iter() of a list iterator returns it, exhausted after a pass
    d = ds.GeneratorDataset(iter([np.array(1), np.array(2)]), ["x"])
    assert len(rows(d)) == 2 and len(rows(d)) == 0


def test_random_access_source_reads_by_index_everywhere():
    d = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], sampler=[4, 0, 2])
    assert column(d, 1) == [2.0, 0.0, 1.0]
    d = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], shuffle=False, num_shards=3, shard_id=2)
    assert column(d, 1) == [1.0, 2.5]
    d = ds.GeneratorDataset(np.arange(12).reshape(4, 3), ["row"], shuffle=False)
    assert rows(d)[1] == [[3, 4, 5]]


def test_generator_object_is_replayed_on_later_passes():
    d = ds.GeneratorDataset(_gen(), ["data", "label"])
    assert column(d, 1) == [0, 1, 2, 3, 4]
    assert column(d, 1) == [0, 1, 2, 3, 4]


def test_iterable_object_streams_in_order():
    assert column(ds.GeneratorDataset(_Iterable(), "x")) == [0, 1, 2, 3]


def test_zip_source_is_materialised_and_shuffled_by_default():
    ds.config.set_seed(3)
    x = np.arange(20, dtype=np.float32)
    d = ds.GeneratorDataset(zip(x, x * 2), ["x", "y"])
    got = rows(d)
    assert sorted(r[0] for r in got) == list(range(20))
    assert [r[0] for r in got] != list(range(20))
    assert all(r[1] == 2 * r[0] for r in got)
    assert len(rows(d)) == 20  # a zip is consumed once; the list stays


def test_random_access_source_shuffled_by_default_and_ordered_without_shuffle():
    ds.config.set_seed(1)
    shuffled = [r[0][0] for r in rows(ds.GeneratorDataset(_RandomAccess(), ["i", "h"]))]
    assert sorted(shuffled) == list(range(6)) and shuffled != list(range(6))
    ordered = rows(ds.GeneratorDataset(_RandomAccess(), ["i", "h"], shuffle=False))
    assert ordered == [[[i], i / 2] for i in range(6)]


def test_list_source_rows_and_python_scalar_dtypes():
    d = ds.GeneratorDataset([(1, 2.5, True, "s")], ["i", "f", "b", "s"], shuffle=False)
    it = d.create_tuple_iterator()
    i, f, b, s = next(it)
    assert (i.dtype, f.dtype, b.dtype) == (ms.int64, ms.float64, ms.bool_)
    assert isinstance(s, np.ndarray) and s.item() == "s"  # strings stay NumPy, as MindSpore


def test_single_value_rows_and_tensor_rows():
    assert column(ds.GeneratorDataset([1, 2, 3], "x", shuffle=False)) == [1, 2, 3]
    d = ds.GeneratorDataset(lambda: iter([(ms.Tensor([1, 2], ms.int32),)]), ["t"])
    (t,), = list(d)
    assert t.dtype == ms.int32 and t.asnumpy().tolist() == [1, 2]


def test_column_types_cast_the_columns():
    d = ds.GeneratorDataset(_gen, ["data", "label"], column_types=[ms.float16, ms.int64])
    assert d.output_types() == [np.float16, np.int64]


def test_schema_gives_names_and_types():
    schema = ds.Schema()
    schema.add_column("data", ms.float64)
    schema.add_column("label", "int64")
    d = ds.GeneratorDataset(_gen, schema=schema)
    assert d.get_col_names() == ["data", "label"]
    assert d.output_types() == [np.float64, np.int64]


def test_source_rows_do_not_alias_user_buffers():
    buffer = np.zeros(3)

    def reuse():
        for i in range(3):
            buffer[:] = i
            yield (buffer,)

    got = [t.asnumpy().tolist() for (t,) in ds.GeneratorDataset(reuse, "x")]
    assert got == [[0.0] * 3, [1.0] * 3, [2.0] * 3]


def test_num_samples_limits_every_kind_of_source():
    assert ds.GeneratorDataset(_gen, ["d", "l"], num_samples=3).get_dataset_size() == 3
    assert len(rows(ds.GeneratorDataset(_gen, ["d", "l"], num_samples=3))) == 3
    d = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], shuffle=False, num_samples=4)
    assert column(d, 1) == [0.0, 0.5, 1.0, 1.5]
    assert column(table(10, num_samples=4)) == [0, 1, 2, 3]


def test_shards_of_a_random_access_source():
    # MindSpore 2.10: 10 rows, 3 shards -> [0,3,6,9], [1,4,7,0], [2,5,8,1]
    shards = [column(table(10, num_shards=3, shard_id=k)) for k in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    d = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], shuffle=False, num_shards=2,
                            shard_id=1)
    assert [r[0][0] for r in rows(d)] == [1, 3, 5]


def test_shuffled_shards_partition_the_rows_without_a_seed():
    shards = [column(table(12, shuffle=True, num_shards=3, shard_id=k)) for k in range(3)]
    assert sorted(sum(shards, [])) == list(range(12))


def _sampled(sampler, n=10):
    return column(table(n, shuffle=None, sampler=sampler))


def test_samplers():
    assert _sampled(ds.SequentialSampler(2, 3)) == [2, 3, 4]
    assert _sampled(ds.SubsetSampler([5, 1, 7])) == [5, 1, 7]
    assert _sampled([3, 2]) == [3, 2]
    assert sorted(_sampled(ds.SubsetRandomSampler([5, 1, 7]))) == [1, 5, 7]
    # MindSpore 2.10 (probed): num_samples beyond the rows is cut to the rows, with
    # replacement too
    drawn = _sampled(ds.RandomSampler(replacement=True, num_samples=30))
    assert len(drawn) == 10 and set(drawn) <= set(range(10))
    assert _sampled(ds.DistributedSampler(3, 1, shuffle=False)) == [1, 4, 7, 0]
    weighted = _sampled(ds.WeightedRandomSampler([0, 1, 0, 1], 20), n=4)
    assert set(weighted) <= {1, 3} and len(weighted) == 20


def test_user_sampler_objects():
    # MindSpore 2.10 (probed): an int is a one-index subset; any object iter() accepts
    # (__iter__, or __getitem__ + __len__) yields the indices
    class Indices:
        def __iter__(self):
            return iter([9, 8, 7])

    class Indexed:
        def __getitem__(self, i):
            return [2, 4, 6][i]

        def __len__(self):
            return 3

    assert _sampled(5) == [5]
    assert _sampled((1, 3)) == [1, 3] and _sampled(np.array([6, 0])) == [6, 0]
    assert _sampled(Indices()) == [9, 8, 7] and _sampled(Indexed()) == [2, 4, 6]
    assert table(10, shuffle=None, sampler=Indices()).get_dataset_size() == 3
    with pytest.raises(RuntimeError, match="out of range"):
        _sampled(Indices(), n=5)


def test_num_samples_with_the_default_shuffle_draws_with_replacement():
    # MindSpore 2.10 (probed): shuffle + num_samples selects RandomSampler(replacement=True),
    # so rows may repeat; the size is min(num_samples, rows)
    ds.config.set_seed(0)
    drawn = [column(ds.NumpySlicesDataset(np.arange(10), num_samples=10)) for _ in range(5)]
    assert all(len(d) == 10 and set(d) <= set(range(10)) for d in drawn)
    assert any(len(set(d)) < 10 for d in drawn)
    assert ds.NumpySlicesDataset(np.arange(10), num_samples=20).get_dataset_size() == 10


def test_user_sampler_subclass():
    class EvenSampler(ds.Sampler):
        def __iter__(self):
            return iter(range(0, self.dataset_size, 2))

    assert _sampled(EvenSampler(), n=7) == [0, 2, 4, 6]


def test_numpy_slices_forms():
    x, y = np.arange(6).reshape(3, 2), np.array([1.5, 2.5, 3.5])
    assert rows(ds.NumpySlicesDataset((x, y), ["x", "y"], shuffle=False)) == \
        [[[0, 1], 1.5], [[2, 3], 2.5], [[4, 5], 3.5]]
    d = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False)
    assert d.get_col_names() == ["x", "y"]
    lst = ds.NumpySlicesDataset([1, 2, 3], shuffle=False)
    assert lst.get_col_names() == ["column_0"] and lst.output_types() == [np.int64]
    assert ds.NumpySlicesDataset(x).get_col_names() == ["column_0"]
    assert ds.NumpySlicesDataset(([1, 2], [3, 4])).get_col_names() == ["column_0", "column_1"]
    assert ds.NumpySlicesDataset([1.5, 2.5]).output_types() == [np.float64]


def test_numpy_slices_shuffled_by_default():
    ds.config.set_seed(0)
    got = column(ds.NumpySlicesDataset(np.arange(30)))
    assert sorted(got) == list(range(30)) and got != list(range(30))


def test_batch_sampler_and_collate_fn():
    batches = [[0, 1, 2], [5, 4], [3]]
    d = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], batch_sampler=batches)
    assert d.get_dataset_size() == 3
    assert [r[0] for r in rows(d)] == [[[0], [1], [2]], [[5], [4]], [[3]]]
    summed = ds.GeneratorDataset(_RandomAccess(), ["i", "h"], batch_sampler=batches,
                                 collate_fn=lambda i, h: (np.sum(i), np.max(h)))
    assert rows(summed) == [[3, 1.0], [9, 2.5], [3, 1.5]]
    with pytest.raises(ValueError, match="collate_fn can be specified only"):
        ds.GeneratorDataset(_RandomAccess(), ["i", "h"], collate_fn=len)
    with pytest.raises(ValueError, match="mutually exclusive"):
        ds.GeneratorDataset(_RandomAccess(), ["i", "h"], batch_sampler=batches, shuffle=False)
