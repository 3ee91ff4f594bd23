"""Bad data gives a clear error naming the source and row; never a hang or silent
truncation."""
import numpy as np
import pytest

import spore.dataset as ds

from .helpers import column, rows, table


def _raises_at_three():
    for i in range(5):
        if i == 3:
            raise ValueError("boom at 3")
        yield (np.array([i]),)


def test_generator_that_raises_is_reported_with_its_traceback():
    with pytest.raises(RuntimeError) as info:
        rows(ds.GeneratorDataset(_raises_at_three, "a"))
    text = str(info.value)
    assert text.startswith("Exception thrown from user defined Python function in dataset.")
    assert "row 3" in text and "boom at 3" in text and "_raises_at_three" in text
    assert isinstance(info.value.__cause__, ValueError)


def test_random_access_source_that_raises_names_the_index():
    class Broken:
        def __getitem__(self, i):
            raise KeyError(i)

        def __len__(self):
            return 3

    with pytest.raises(RuntimeError, match=r"source\[0\]"):
        rows(ds.GeneratorDataset(Broken(), "x", shuffle=False))


def test_wrong_number_of_column_names():
    two_values = lambda: iter([(np.ones(2), np.ones(3))])  # noqa: E731
    with pytest.raises(RuntimeError, match="returned 2 column.*column_names has 1"):
        rows(ds.GeneratorDataset(two_values, ["a"]))
    with pytest.raises(RuntimeError, match="returned 2 column.*column_names has 3"):
        rows(ds.GeneratorDataset(two_values, ["a", "b", "c"]))


def test_ragged_values_in_a_row():
    with pytest.raises(RuntimeError, match="row 0.*column 0: .*ragged"):
        rows(ds.GeneratorDataset(lambda: iter([([[1, 2], [3]],)]), "a"))
    with pytest.raises(RuntimeError, match="row 0"):
        rows(ds.GeneratorDataset(lambda: iter([(None,)]), "a"))


def test_batch_of_rows_with_different_shapes_or_types():
    ragged = ds.GeneratorDataset(lambda: ((np.ones(i + 1),) for i in range(4)), "x")
    with pytest.raises(RuntimeError, match="different shapes in column 'x'"):
        rows(ragged.batch(2))
    mixed = ds.GeneratorDataset(lambda: iter([(np.int32(1),), (np.float32(2),)]), "x")
    with pytest.raises(RuntimeError, match="different types"):
        rows(mixed.batch(2))


def test_map_errors_name_the_operation_and_row():
    with pytest.raises(RuntimeError, match=r"map operation \[<lambda>\] on row 0.*ZeroDivision"):
        rows(table(3).map(lambda a: 1 / 0, "a"))
    with pytest.raises(RuntimeError, match="returned 2 column"):
        rows(table(3).map(lambda a: (a, a), "a"))


class _NoLen:
    def __getitem__(self, i):
        return i


def test_constructor_errors():
    with pytest.raises(ValueError, match="Neither columns_names nor schema"):
        ds.GeneratorDataset(lambda: iter([]))
    with pytest.raises(TypeError, match="source"):
        ds.GeneratorDataset(42, "x")
    with pytest.raises(ValueError, match="sampler is not supported"):
        ds.GeneratorDataset(lambda: iter([]), "x", sampler=ds.SequentialSampler())
    with pytest.raises(ValueError, match="num_shards is not supported"):
        ds.GeneratorDataset(lambda: iter([]), "x", num_shards=2, shard_id=0)
    # MindSpore 2.10's messages (probed)
    with pytest.raises(RuntimeError, match="sampler and num_samples cannot be specified"):
        table(shuffle=None, sampler=ds.SequentialSampler(), num_samples=2)
    with pytest.raises(RuntimeError, match="sampler and shuffle cannot be specified"):
        table(shuffle=False, sampler=[0, 1])
    with pytest.raises(RuntimeError, match="sampler and sharding cannot be specified"):
        table(shuffle=None, sampler=[0, 1], num_shards=2, shard_id=0)
    with pytest.raises(TypeError, match="Unsupported sampler object"):
        table(shuffle=None, sampler=2.5)
    with pytest.raises(RuntimeError, match="'__len__' method is required"):
        ds.GeneratorDataset(_NoLen(), "x")
    with pytest.raises(ValueError, match="shard_id"):
        table(shuffle=None, num_shards=2, shard_id=2)
    with pytest.raises(ValueError, match="Num of input column names is 2"):
        ds.NumpySlicesDataset([1, 2], column_names=["a", "b"])
    with pytest.raises(ValueError, match="Data length in each column is not equal"):
        ds.NumpySlicesDataset(([1, 2], [1, 2, 3]))


def test_shuffle_on_a_streaming_source_warns():
    with pytest.warns(UserWarning, match="shuffle"):
        d = ds.GeneratorDataset(lambda: iter([1, 2]), "x", shuffle=True)
    assert column(d) == [1, 2]
