"""mindspore.dataset.dataloader: PyTorch-style loading (NOTE: [DataLoader]); behaviour as
MindSpore 2.10's (probed)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor
from spore.dataset import dataloader as D

from ._dataloader_sources import Counting, Squares, WorkerIds, record_worker


def test_tensor_dataset_batches_like_mindspore():
    ds = D.TensorDataset(Tensor(np.arange(10).reshape(5, 2).astype(np.float32)),
                         Tensor(np.arange(5)))
    assert len(ds) == 5
    x, y = ds[1]
    np.testing.assert_array_equal(x.asnumpy(), [2, 3])
    assert int(y.asnumpy()) == 1
    dl = D.DataLoader(ds, batch_size=2, shuffle=False)
    batches = list(dl)
    assert len(dl) == 3 and len(batches) == 3
    assert isinstance(batches[0], list) and [t.shape for t in batches[0]] == [(2, 2), (2,)]
    np.testing.assert_array_equal(batches[2][1].asnumpy(), [4])
    assert len(D.DataLoader(ds, batch_size=2, drop_last=True)) == 2


def test_default_collate_and_convert():
    out = D.default_collate([{"a": 1, "b": np.ones(2)}, {"a": 2, "b": np.zeros(2)}])
    assert out["a"].dtype == ms.int64 and out["b"].dtype == ms.float64
    np.testing.assert_array_equal(out["b"].asnumpy(), [[1, 1], [0, 0]])
    a, b = D.default_collate([(1, 2.0), (3, 4.0)])
    np.testing.assert_array_equal(a.asnumpy(), [1, 3])
    assert b.dtype == ms.float64
    assert D.default_collate(["x", "y"]) == ["x", "y"]
    converted = D.default_convert({"v": np.ones(2, np.float32), "s": "a"})
    assert isinstance(converted["v"], Tensor) and converted["s"] == "a"
    with pytest.raises(RuntimeError, match="equal size"):
        D.default_collate([[1, 2], [3]])


def test_samplers():
    assert list(D.BatchSampler(D.SequentialSampler(range(5)), 2, drop_last=False)) == \
        [[0, 1], [2, 3], [4]]
    order = list(D.RandomSampler(range(10), generator=np.random.default_rng(3)))
    assert sorted(order) == list(range(10)) and order != list(range(10))
    assert len(list(D.RandomSampler(range(3), replacement=True, num_samples=7))) == 7
    shares = [list(D.DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False))
              for r in range(3)]
    assert shares == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]        # padded to 4 each
    dropped = [list(D.DistributedSampler(range(10), 3, r, shuffle=False, drop_last=True))
               for r in range(3)]
    assert dropped == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]
    s = D.DistributedSampler(range(10), 2, 0, seed=1)
    first = list(s)
    s.set_epoch(1)
    assert first != list(s) and len(s) == 5


def test_shuffle_follows_the_global_seed():
    ds = Squares(8)
    ms.set_seed(5)
    a = [int(b["label"].asnumpy()[0]) for b in D.DataLoader(ds, shuffle=True)]
    ms.set_seed(5)
    b = [int(b["label"].asnumpy()[0]) for b in D.DataLoader(ds, shuffle=True)]
    assert a == b and sorted(a) == list(range(8))


def test_unbatched_and_iterable_datasets():
    one = list(D.DataLoader(Squares(3), batch_size=None))
    assert isinstance(one[0]["x"], Tensor) and one[2]["label"] == 2 and one[1]["name"] == "s1"
    got = [b.asnumpy().ravel().tolist() for b in D.DataLoader(Counting(5), batch_size=2)]
    assert got == [[0, 1], [2, 3], [4]]
    with pytest.raises(TypeError, match="no length"):
        len(D.DataLoader(Counting(5)))
    with pytest.raises(ValueError, match="takes no 'shuffle'"):
        D.DataLoader(Counting(5), shuffle=True)


def test_argument_checks():
    with pytest.raises(ValueError, match="mutually exclusive"):
        D.DataLoader(Squares(4), sampler=D.SequentialSampler(range(4)), shuffle=True)
    with pytest.raises(ValueError, match="'batch_sampler' is mutually exclusive"):
        D.DataLoader(Squares(4), batch_size=2, batch_sampler=[[0, 1]])
    with pytest.raises(ValueError, match="'num_workers' must be"):
        D.DataLoader(Squares(4), num_workers=-1)
    dl = D.DataLoader(Squares(4), batch_sampler=[[3, 0], [1]])
    assert [b["label"].asnumpy().tolist() for b in dl] == [[3, 0], [1]]


@pytest.mark.timeout(300)
def test_worker_processes_give_the_same_batches():
    ds = Squares(9)
    plain = [b["x"].asnumpy() for b in D.DataLoader(ds, batch_size=2)]
    workers = D.DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=record_worker)
    for a, b in zip(plain, [b["x"].asnumpy() for b in workers]):
        np.testing.assert_array_equal(a, b)
    ids = [b for b in D.DataLoader(WorkerIds(), batch_size=None, num_workers=2)]
    assert set(ids) <= {0, 1} and len(ids) == 6
    assert [b for b in D.DataLoader(WorkerIds(), batch_size=None)] == [-1] * 6
    split = D.DataLoader(Counting(7), batch_size=None, num_workers=2)
    assert sorted(int(b.asnumpy()[0]) for b in split) == list(range(7))
    assert D.get_worker_info() is None and ms.dataset.dataloader.DataLoader is D.DataLoader
