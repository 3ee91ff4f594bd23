"""num_parallel_workers: an int in [1, number of CPUs] on every source and operation that
takes it, as MindSpore 2.10 checks it (``multiprocessing.cpu_count()``)."""
import os

import numpy as np
import pytest

import spore.dataset as ds
from spore.dataset.engine import checks

REAL_CPU_COUNT = checks.cpu_count        # the conftest lifts the limit for other tests


def _gen():
    for i in range(4):
        yield (np.array([i]),)


def _base():
    return ds.GeneratorDataset(_gen, ["a"])


USES = {
    "GeneratorDataset": lambda n, d: ds.GeneratorDataset(_gen, ["a"], num_parallel_workers=n),
    "GeneratorDataset(random access)": lambda n, d: ds.GeneratorDataset(
        [(np.array([1]),)], ["a"], num_parallel_workers=n),
    "NumpySlicesDataset": lambda n, d: ds.NumpySlicesDataset([1, 2], num_parallel_workers=n),
    "MnistDataset": lambda n, d: ds.MnistDataset(d, num_parallel_workers=n),
    "Cifar10Dataset": lambda n, d: ds.Cifar10Dataset(d, num_parallel_workers=n),
    "ImageFolderDataset": lambda n, d: ds.ImageFolderDataset(d, num_parallel_workers=n),
    "FashionMnistDataset": lambda n, d: ds.FashionMnistDataset(d, num_parallel_workers=n),
    "Cifar100Dataset": lambda n, d: ds.Cifar100Dataset(d, num_parallel_workers=n),
    "CSVDataset": lambda n, d: ds.CSVDataset(d + "/a.csv", num_parallel_workers=n),
    "TextFileDataset": lambda n, d: ds.TextFileDataset(d + "/a.txt", num_parallel_workers=n),
    "MindDataset": lambda n, d: ds.MindDataset(d + "/a.mindrecord", num_parallel_workers=n),
    "map": lambda n, d: _base().map(lambda x: x, num_parallel_workers=n),
    "batch": lambda n, d: _base().batch(2, num_parallel_workers=n),
    "padded_batch": lambda n, d: _base().padded_batch(2, num_parallel_workers=n),
    "filter": lambda n, d: _base().filter(lambda x: True, num_parallel_workers=n),
}


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("bad", [10_000, 5, 0, -1])
def test_out_of_range_is_rejected_everywhere(monkeypatch, tmp_path, use, bad):
    monkeypatch.setattr(checks, "cpu_count", lambda: 4)
    with pytest.raises(ValueError, match=rf"num_parallel_workers exceeds the boundary between 1 "
                                         rf"and 4 \(the number of CPUs\), but got {bad}\."):
        USES[use](bad, str(tmp_path))


@pytest.mark.parametrize("use", ["GeneratorDataset", "map", "batch", "filter"])
def test_one_to_cpu_count_and_none_are_accepted(monkeypatch, use):
    monkeypatch.setattr(checks, "cpu_count", lambda: 4)
    for n in (1, 4, None):
        USES[use](n, None)


@pytest.mark.parametrize("bad", [True, 1.5, "2"])
def test_non_int_is_a_type_error(bad):
    with pytest.raises(TypeError, match="'num_parallel_workers' must be int"):
        _base().map(lambda x: x, num_parallel_workers=bad)


def test_the_limit_is_this_machines_cpu_count(monkeypatch):
    monkeypatch.setattr(checks, "cpu_count", REAL_CPU_COUNT)
    n = os.cpu_count()
    assert REAL_CPU_COUNT() == n
    USES["batch"](n, None)
    with pytest.raises(ValueError, match=f"between 1 and {n} "):
        USES["batch"](n + 1, None)
    with pytest.raises(ValueError, match=f"between 1 and {n} "):
        USES["GeneratorDataset"](10_000, None)


def test_the_global_default_keeps_mindspore_range():
    ds.config.set_num_parallel_workers(64)             # (0, INT32_MAX], not the CPU count
    assert ds.config.get_num_parallel_workers() == 64
    with pytest.raises(ValueError):
        ds.config.set_num_parallel_workers(0)
