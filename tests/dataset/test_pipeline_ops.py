"""Pipeline operations: batch, padded_batch, shuffle, map, filter, repeat, take, skip,
split, zip, concat, project, rename, and the dataset's reported facts. Expected
values are hand-derived; column layouts after map were probed on MindSpore 2.10."""
import numpy as np
import pytest

import spore.dataset as ds

from .helpers import column, rows, table


def _ragged(n=3):
    return ds.GeneratorDataset(lambda: ((np.ones(i + 1, np.int32),) for i in range(n)), ["x"])


def test_batch_keeps_order_and_last_partial_batch():
    d = table(5).batch(2)
    assert rows(d) == [[[0, 1], [0.0, 10.0], [0, 1]], [[2, 3], [20.0, 30.0], [2, 3]],
                       [[4], [40.0], [4]]]
    assert d.get_dataset_size() == 3 and d.get_batch_size() == 2
    assert d.output_shapes() == [[2], [2], [2]]


def test_batch_drop_remainder():
    d = table(5).batch(2, drop_remainder=True)
    assert column(d) == [[0, 1], [2, 3]] and d.get_dataset_size() == 2


def test_batch_stacks_images():
    d = ds.NumpySlicesDataset(np.arange(24, dtype=np.uint8).reshape(4, 2, 3, 1),
                              shuffle=False).batch(3)
    first = next(iter(d.create_tuple_iterator(output_numpy=True)))[0]
    np.testing.assert_array_equal(first, np.arange(18, dtype=np.uint8).reshape(3, 2, 3, 1))


def test_batch_size_callable():
    d = table(7).batch(lambda info: info.get_batch_num() + 1)
    assert column(d) == [[0], [1, 2], [3, 4, 5], [6]]
    assert d.get_dataset_size() == 4


def test_per_batch_map_gets_lists_and_batch_info():
    seen = []

    def double(a, info):
        seen.append((type(a).__name__, info.get_batch_num(), info.get_epoch_num()))
        return ([x * 2 for x in a],)

    d = table(5).batch(2, per_batch_map=double, input_columns=["a"], output_columns=["a2"])
    assert d.get_col_names() == ["a2", "b", "c"]
    assert column(d) == [[0, 2], [4, 6], [8]]
    assert seen == [("list", 0, 0), ("list", 1, 0), ("list", 2, 0)]


def test_per_batch_map_may_return_arrays_and_more_columns():
    d = table(4).batch(2, per_batch_map=lambda a, info: (np.array(a), np.array(a) * 10),
                       input_columns="a", output_columns=["a", "ten_a"])
    assert d.get_col_names() == ["a", "ten_a", "b", "c"]
    assert rows(d)[1][:2] == [[2, 3], [20, 30]]


def test_padded_batch_pads_to_the_given_or_largest_shape():
    assert column(_ragged().padded_batch(2, pad_info={"x": ([4], -1)})) == \
        [[[1, -1, -1, -1], [1, 1, -1, -1]], [[1, 1, 1, -1]]]
    assert column(_ragged().padded_batch(2, pad_info={"x": (None, 0)})) == \
        [[[1, 0], [1, 1]], [[1, 1, 1]]]
    assert column(_ragged().padded_batch(3, pad_info={"x": ([2], -1)})) == \
        [[[1, -1], [1, 1], [1, 1]]]  # longer rows are cut, as MindSpore does


def test_shuffle_permutes_with_buffer_and_is_reproducible():
    ds.config.set_seed(0)
    d = ds.GeneratorDataset(lambda: ((np.int32(i),) for i in range(50)), "x").shuffle(10)
    first, again = column(d), column(d)
    assert sorted(first) == list(range(50)) and first != list(range(50))
    assert first == again


def test_shuffle_after_batch_moves_whole_batches():
    ds.config.set_seed(2)
    got = column(table(12).batch(3).shuffle(4))
    assert sorted(map(tuple, got)) == [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11)]


def test_map_one_column_in_place():
    d = table(3).map(lambda b: b + 1, input_columns="b")
    assert rows(d) == [[0, 1.0, 0], [1, 11.0, 1], [2, 21.0, 2]]


def test_map_defaults_to_first_column_and_applies_operations_in_order():
    d = table(3).map([lambda a: a + 1, lambda a: a * 10])
    assert column(d) == [10, 20, 30]


def test_map_column_layouts():
    # Layouts probed on MindSpore 2.10.
    assert table(2).map(lambda b: (b, b), "b", ["x", "y"]).get_col_names() == \
        ["x", "y", "a", "c"]
    two_to_one = table(2).map(lambda c, a: c + a, ["c", "a"], ["x"])
    assert two_to_one.get_col_names() == ["x", "b"] and column(two_to_one) == [0, 2]
    assert table(2).map(lambda b: b, "b", "z").get_col_names() == ["a", "z", "c"]
    assert table(2).map(lambda c, a: (c, a), ["c", "a"]).get_col_names() == ["a", "b", "c"]


def test_map_returning_python_values():
    d = table(2).map(lambda a: [int(a), 7], "a")
    assert column(d) == [[0, 7], [1, 7]]


def test_filter():
    d = table(6).filter(lambda a: a % 2 == 0, input_columns=["a"])
    assert column(d) == [0, 2, 4] and d.get_dataset_size() == 3
    assert column(table(6).filter(lambda a, b, c: b > 25)) == [3, 4, 5]


def test_repeat_take_skip():
    d = table(5).repeat(2)
    assert column(d) == [0, 1, 2, 3, 4] * 2 and d.get_dataset_size() == 10
    assert d.get_repeat_count() == 2
    assert column(table(5).repeat(2).take(7)) == [0, 1, 2, 3, 4, 0, 1]
    assert column(table(5).skip(3)) == [3, 4] and table(5).skip(9).get_dataset_size() == 0
    assert column(table(5).take(-1)) == [0, 1, 2, 3, 4]
    endless = table(3).repeat()
    assert endless.get_repeat_count() == -1
    assert column(endless.take(7)) == [0, 1, 2, 0, 1, 2, 0]


def test_repeat_reshuffles_each_round():
    ds.config.set_seed(5)
    got = column(ds.NumpySlicesDataset(np.arange(20)).repeat(2))
    assert sorted(got[:20]) == sorted(got[20:]) == list(range(20))
    assert got[:20] != got[20:]


def test_zip_and_concat():
    other = table(5).rename(["a", "b", "c"], ["d", "e", "f"])
    z = table(3).zip(other)
    assert z.get_col_names() == ["a", "b", "c", "d", "e", "f"]
    assert z.get_dataset_size() == 3 and column(z, 3) == [0, 1, 2]
    assert ds.zip((table(3), other)).get_dataset_size() == 3
    c = table(2) + table(3)
    assert column(c) == [0, 1, 0, 1, 2] and c.get_dataset_size() == 5
    assert column(table(1).concat([table(1), table(2)])) == [0, 0, 0, 1]


def test_project_and_rename():
    assert rows(table(2).project(["c", "a"])) == [[0, 0], [1, 1]]
    assert table(2).rename("a", "z").get_col_names() == ["z", "b", "c"]


def test_split_sizes_and_fraction_rounding():
    # MindSpore 2.10: first part absorbs the rounding difference.
    for n, sizes, expected in [(7, [0.33, 0.33, 0.34], [3, 2, 2]), (10, [0.33, 0.33, 0.34],
                               [4, 3, 3]), (7, [0.5, 0.5], [3, 4]), (10, [0.25, 0.75], [2, 8])]:
        parts = table(n).split(sizes, randomize=False)
        assert [p.get_dataset_size() for p in parts] == expected


def test_split_in_order_and_randomized():
    first, second = table(10).split([3, 7], randomize=False)
    assert column(first) == [0, 1, 2] and column(second) == list(range(3, 10))
    ds.config.set_seed(0)
    first, second = table(10).map(lambda a: a).split([0.3, 0.7])
    a, b = column(first), column(second)
    assert len(a) == 3 and len(b) == 7 and sorted(a + b) == list(range(10))
    assert a + b != list(range(10))


def test_split_of_a_streaming_source():
    gen = ds.GeneratorDataset(lambda: ((np.int32(i),) for i in range(10)), "x")
    first, second = gen.split([4, 6], randomize=False)
    assert column(first) == [0, 1, 2, 3] and column(second) == [4, 5, 6, 7, 8, 9]
    first, second = gen.split([4, 6])
    assert sorted(column(first) + column(second)) == list(range(10))


def test_dataset_size_of_chained_ops():
    d = table(10).filter(lambda a: a < 7, input_columns="a").batch(2).repeat(3)
    assert d.get_dataset_size() == 12
    assert d.get_batch_size() == 2 and d.get_repeat_count() == 3


def test_output_types_and_shapes_after_map():
    d = table(3).map(lambda a: np.zeros((2, 3), np.float16), "a")
    assert d.output_shapes() == [[2, 3], [], []]
    assert d.output_types() == [np.float16, np.float32, np.int64]


def test_nodes_can_feed_several_pipelines():
    base = table(5)
    plain, dropped = base.batch(2), base.batch(2, drop_remainder=True)
    assert plain.get_dataset_size() == 3 and dropped.get_dataset_size() == 2
    assert len(rows(plain)) == 3 and len(rows(dropped)) == 2


def test_reset_remeasures_the_size():
    data = [1, 2, 3]
    d = ds.GeneratorDataset(lambda: iter(data), "x")
    assert d.get_dataset_size() == 3
    data.append(4)
    d.reset()
    assert d.get_dataset_size() == 4


@pytest.mark.parametrize("build, error", [
    (lambda: table().batch(0), ValueError),
    (lambda: table().batch(2, drop_remainder=1), TypeError),
    (lambda: table().shuffle(1), ValueError),
    (lambda: table().take(0), ValueError),
    (lambda: table().repeat(0), ValueError),
    (lambda: table().skip(-1), ValueError),
    (lambda: table().map(lambda x: x, input_columns="zz"), ValueError),
    (lambda: table().map("not callable"), TypeError),
    (lambda: table().project("zz"), ValueError),
    (lambda: table().rename("zz", "y"), ValueError),
    (lambda: table().rename(["a", "b"], ["y"]), ValueError),
    (lambda: table().zip(table()), ValueError),
    (lambda: table().concat(table().rename("a", "z")), ValueError),
    (lambda: table().split([0.5, 0.6]), ValueError),
    (lambda: table().split([1, 0.5]), TypeError),
    (lambda: table().padded_batch(2, pad_info={"zz": (None, 0)}), ValueError),
    (lambda: table().map(lambda a: (a, a), "a", ["a", "b"]), ValueError),
])
def test_bad_arguments_are_rejected_when_building(build, error):
    with pytest.raises(error):
        build()


def test_split_sizes_must_sum_to_the_size():
    with pytest.raises(RuntimeError, match="Sum of split sizes 6 is not equal to dataset size 10"):
        table(10).split([3, 3])
