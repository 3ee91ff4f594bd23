"""Python dicts as column values (MindSpore's "Python objects in the pipeline" guide): a dict
is carried through the pipeline as it is and converted only by the iterators. Expected values
are MindSpore 2.10's, probed with the same programs."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds


def _squares():
    for i in range(3):
        yield {"number": i, "square": i ** 2}, i


def test_a_dict_yielded_in_a_row_stays_a_dict():
    d = ds.GeneratorDataset(_squares, ["col1", "col2"], shuffle=False)
    got = list(d.create_dict_iterator(output_numpy=True))
    assert [(r["col1"]["number"].tolist(), r["col1"]["square"].tolist(), r["col2"].tolist())
            for r in got] == [(0, 0, 0), (1, 1, 1), (2, 4, 2)]
    assert isinstance(got[0]["col1"]["number"], np.ndarray)
    assert got[0]["col1"]["number"].dtype == np.int64
    tensors = next(d.create_tuple_iterator())
    assert isinstance(tensors[0], dict) and isinstance(tensors[0]["square"], ms.Tensor)
    assert tensors[0]["square"].dtype == ms.int64
    assert d.output_types() == [np.dtype(object), np.int64]
    assert d.output_shapes() == [[0], []]


def test_a_bare_dict_is_the_one_column_value_not_its_keys():
    # issue #12: the dict used to become a row of its keys
    d = ds.GeneratorDataset(lambda: iter([{"a": 0}, {"a": 1}]), ["col"], shuffle=False)
    assert [r["col"]["a"].tolist() for r in d.create_dict_iterator(output_numpy=True)] == [0, 1]


def test_dict_values_are_converted_item_by_item():
    tensor = ms.Tensor([1.0])
    value = {"a": [1, 2], "b": "s", "c": 1.5, "n": {"x": np.ones(2)}, "l": [[1, 2], [3]],
             5: "intkey", "t": tensor, "obj": None}
    d = ds.GeneratorDataset(lambda: iter([(value,)]), ["col"])
    (out,) = next(d.create_tuple_iterator(output_numpy=True))
    assert isinstance(out["a"], list) and [a.tolist() for a in out["a"]] == [1, 2]
    assert out["b"].dtype.kind == "U" and out["c"].dtype == np.float64
    assert out["n"]["x"].tolist() == [1.0, 1.0]
    assert [[v.tolist() for v in inner] for inner in out["l"]] == [[1, 2], [3]]
    assert out[5].tolist() == "intkey" and out["t"] is tensor and out["obj"] is None
    (as_tensors,) = next(d.create_tuple_iterator())
    assert isinstance(as_tensors["c"], ms.Tensor) and isinstance(as_tensors["b"], np.ndarray)


def test_map_receives_and_returns_dicts_unconverted():
    d = ds.GeneratorDataset(lambda: iter([({"c": 1.5},), ({"c": 2.5},)]), ["col"],
                            shuffle=False)
    d = d.map(lambda x: {"k": x["c"] * 2, "type": type(x["c"]).__name__}, input_columns="col")
    got = [r["col"] for r in d.create_dict_iterator(output_numpy=True)]
    assert [(g["k"].tolist(), g["type"].tolist()) for g in got] == [(3.0, "float"),
                                                                      (5.0, "float")]
    numbers = ds.GeneratorDataset(lambda: iter([(1,), (2,)]), ["x"], shuffle=False)
    made = numbers.map(lambda x: {"double": x * 2}, input_columns="x")
    assert [r["x"]["double"].tolist() for r in made.create_dict_iterator(output_numpy=True)] \
        == [2, 4]


def test_random_access_source_and_other_columns_with_dicts():
    class Source:
        def __getitem__(self, i):
            return {"v": i}, i

        def __len__(self):
            return 3

    d = ds.GeneratorDataset(Source(), ["col", "i"], shuffle=False)
    d = d.map(lambda i: i + 1, input_columns="i")
    got = list(d.create_dict_iterator(output_numpy=True))
    assert [(r["col"]["v"].tolist(), r["i"].tolist()) for r in got] == [(0, 1), (1, 2), (2, 3)]
    assert d.get_dataset_size() == 3


def test_batch_stacks_dict_values_per_key():
    d = ds.GeneratorDataset(_squares, ["col1", "col2"], shuffle=False).batch(2)
    got = list(d.create_dict_iterator(output_numpy=True))
    assert got[0]["col1"]["number"].tolist() == [0, 1]
    assert got[0]["col1"]["square"].tolist() == [0, 1]
    assert got[1]["col1"]["square"].tolist() == [4] and got[1]["col2"].tolist() == [2]
    first = next(ds.GeneratorDataset(_squares, ["col1", "col2"], shuffle=False).batch(3)
                 .create_tuple_iterator())
    assert isinstance(first[0]["number"], ms.Tensor) and first[0]["number"].shape == (3,)


def test_batch_of_dicts_with_other_keys_or_ragged_values_fails_clearly():
    keys = ds.GeneratorDataset(lambda: iter([({"v": 1},), ({"w": 2},)]), ["col"]).batch(2)
    with pytest.raises(RuntimeError, match="Python dictionary keys do not match"):
        list(keys)
    ragged = ds.GeneratorDataset(lambda: iter([({"v": np.ones(1)},), ({"v": np.ones(2)},)]),
                                 ["col"]).batch(2)
    with pytest.raises(RuntimeError, match="Failed to batch Python dictionary"):
        list(ragged)


def test_per_batch_map_may_return_a_dict():
    def to_dict(x, info):
        return {"sum": np.sum(x), "batch": info.get_batch_num()}

    d = ds.NumpySlicesDataset(np.arange(4), ["x"], shuffle=False)
    d = d.batch(2, per_batch_map=to_dict, input_columns=["x"])
    got = [r["x"] for r in d.create_dict_iterator(output_numpy=True)]
    assert [(g["sum"].tolist(), g["batch"].tolist()) for g in got] == [(1, 0), (5, 1)]


def test_dicts_cross_worker_processes():
    class Source:
        def __getitem__(self, i):
            return ({"v": i, "name": f"row{i}"},)

        def __len__(self):
            return 6

    d = ds.GeneratorDataset(Source(), ["col"], shuffle=False, num_parallel_workers=2,
                            python_multiprocessing=False)
    got = [r["col"] for r in d.create_dict_iterator(output_numpy=True)]
    assert [(g["v"].tolist(), g["name"].tolist()) for g in got] == \
        [(i, f"row{i}") for i in range(6)]
