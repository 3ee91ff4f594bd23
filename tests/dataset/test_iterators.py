"""Iterators: tuple/dict rows, Tensors or NumPy, epochs, column selection, copies."""
import numpy as np
import pytest

import spore as ms
import spore.dataset as ds

from .helpers import table


def _data():
    return ds.NumpySlicesDataset((np.arange(10, dtype=np.float32).reshape(5, 2),
                                  np.arange(5, dtype=np.int32)), ["data", "label"],
                                 shuffle=False)


def test_iterating_the_dataset_gives_lists_of_tensors():
    rows = list(_data())
    assert len(rows) == 5 and isinstance(rows[0], list)
    data, label = rows[2]
    assert isinstance(data, ms.Tensor) and data.dtype == ms.float32 and data.shape == (2,)
    assert label.dtype == ms.int32 and label.shape == () and int(label) == 2
    assert len(list(_data())) == 5  # again


def test_tuple_iterator_numpy_and_columns():
    it = _data().create_tuple_iterator(columns=["label"], output_numpy=True)
    rows = list(it)
    assert all(len(r) == 1 and isinstance(r[0], np.ndarray) for r in rows)
    assert [int(r[0]) for r in rows] == [0, 1, 2, 3, 4]
    assert it.get_col_names() == ["label"]


def test_dict_iterator():
    row = next(iter(_data().create_dict_iterator()))
    assert list(row) == ["data", "label"] and isinstance(row["data"], ms.Tensor)
    row = next(iter(_data().create_dict_iterator(output_numpy=True)))
    np.testing.assert_array_equal(row["data"], [0.0, 1.0])


def test_num_epochs_loops_then_refuses():
    it = _data().create_tuple_iterator(num_epochs=2)
    assert len(list(it)) == 5 and len(list(it)) == 5
    with pytest.raises(RuntimeError, match="num_epochs=2"):
        next(it)


def test_unlimited_epochs_and_shuffle_changes_between_epochs():
    ds.config.set_seed(4)
    it = ds.NumpySlicesDataset(np.arange(20)).create_tuple_iterator(output_numpy=True)
    epochs = [[int(r[0]) for r in it] for _ in range(3)]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert epochs[0] != epochs[1]


def test_tensors_share_fresh_pipeline_memory_and_copy_views():
    it = _data().batch(5).create_tuple_iterator()
    data, _ = next(it)
    assert data._data.flags.owndata  # a batch is a fresh array: handed over as is
    copied, _ = next(_data().batch(5).create_tuple_iterator(do_copy=True))
    np.testing.assert_array_equal(copied.asnumpy(), data.asnumpy())
    view = ds.GeneratorDataset(lambda: iter([(np.arange(4),)]), "x").map(lambda x: x[::2])
    (t,), = list(view)
    assert t.asnumpy().tolist() == [0, 2] and t._data.flags.owndata


def test_unknown_iterator_column():
    with pytest.raises(ValueError, match="zz"):
        table().create_tuple_iterator(columns=["zz"])


def test_stop_ends_iteration():
    it = table(5).create_tuple_iterator()
    next(it)
    it.stop()
    with pytest.raises(RuntimeError):
        next(it)
