"""Parallel workers: threads and spawned processes give the serial results in order,
propagate errors with the worker's traceback, and stop cleanly."""
import multiprocessing
import os
import threading

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset import vision

from .helpers import column


def square_plus_one(x):
    return x * x + 1


def fail_on_seven(x):
    if int(x) == 7:
        raise ValueError("row seven is bad")
    return x


def square_unless_thirty(x):
    if int(x) == 30:
        raise ValueError("row thirty is bad")
    return x * x + 1


def exit_on_five(x):
    if int(x) == 5:
        os._exit(3)  # a worker process dying abruptly (as if killed or crashed)
    return x


class IndexSource:
    def __getitem__(self, i):
        return np.array([i, i * i])

    def __len__(self):
        return 40


def _numbers(n=40):
    return ds.NumpySlicesDataset(np.arange(n), shuffle=False)


def _worker_threads():
    return {t for t in threading.enumerate() if t.name.startswith("spore-dataset")}


def test_map_threads_equal_serial_and_keep_order():
    serial = column(_numbers().map(square_plus_one, num_parallel_workers=1))
    threaded = column(_numbers().map(square_plus_one, num_parallel_workers=3))
    assert threaded == serial == [i * i + 1 for i in range(40)]


def test_map_processes_equal_serial_and_propagate_errors():
    it = _numbers().map(square_unless_thirty, num_parallel_workers=2,
                        python_multiprocessing=True).create_tuple_iterator(output_numpy=True)
    assert [int(next(it)[0]) for _ in range(28)] == [i * i + 1 for i in range(28)]
    with pytest.raises(RuntimeError) as info:
        list(it)
    text = str(info.value)
    assert "square_unless_thirty" in text and "row 30" in text and "thirty is bad" in text
    assert "Traceback" in text
    dying = _numbers().map(exit_on_five, num_parallel_workers=2, python_multiprocessing=True)
    with pytest.raises(RuntimeError, match="worker process of MapDataset died"):
        column(dying)
    assert not multiprocessing.active_children()


def test_random_access_source_read_by_processes_and_threads():
    expected = [[i, i * i] for i in range(40)]
    for processes in (True, False):
        d = ds.GeneratorDataset(IndexSource(), "x", shuffle=False, num_parallel_workers=2,
                                python_multiprocessing=processes)
        assert column(d) == expected
    assert not multiprocessing.active_children()


def test_thread_errors_keep_the_original_exception_chained():
    bad = _numbers().map(fail_on_seven, num_parallel_workers=2)
    with pytest.raises(RuntimeError, match="row 7") as info:
        column(bad)
    assert isinstance(info.value.__cause__, ValueError)


def test_random_transforms_do_not_depend_on_worker_count():
    images = np.arange(16 * 6 * 6, dtype=np.uint8).reshape(16, 6, 6)

    def run(workers):
        ds.config.set_seed(9)
        d = ds.NumpySlicesDataset(images, shuffle=False).map(
            [vision.RandomCrop(3), vision.RandomHorizontalFlip()], num_parallel_workers=workers)
        return [r[0] for r in d.create_tuple_iterator(output_numpy=True)]

    assert all(np.array_equal(a, b) for a, b in zip(run(1), run(4)))


def test_filter_and_per_batch_map_with_workers():
    kept = column(_numbers().filter(lambda x: x % 3 == 0, num_parallel_workers=3))
    assert kept == list(range(0, 40, 3))
    batched = _numbers(10).batch(4, per_batch_map=lambda x, info: ([v * 2 for v in x],),
                                 num_parallel_workers=2)
    assert column(batched) == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]


def test_unpicklable_function_falls_back_to_threads_with_a_warning():
    with pytest.warns(UserWarning, match="pickled"):
        d = _numbers().map(lambda x: x + 1, num_parallel_workers=2, python_multiprocessing=True)
    assert column(d) == list(range(1, 41))


def test_stopping_early_shuts_the_workers_down():
    it = _numbers(200).map(square_plus_one, num_parallel_workers=2).create_tuple_iterator()
    next(it)
    assert _worker_threads()
    it.stop()
    assert not _worker_threads()


def test_workers_stop_after_the_last_epoch():
    d = _numbers(10).map(square_plus_one, num_parallel_workers=2)
    assert len(column(d)) == 10
    assert not _worker_threads()
