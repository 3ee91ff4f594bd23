"""Datasets for the DataLoader tests, importable by worker processes (spawn)."""
import numpy as np

from spore.dataset.dataloader import Dataset, IterableDataset, get_worker_info


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return {"x": np.array([i, i * i], np.float32), "label": i, "name": f"s{i}"}

    def __len__(self):
        return self.n


class Counting(IterableDataset):
    """0 .. n-1, split between workers by get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield np.array([i], np.int64)


def record_worker(worker_id):
    info = get_worker_info()
    assert info is not None and info.id == worker_id


class WorkerIds(Dataset):
    def __getitem__(self, i):
        info = get_worker_info()
        return -1 if info is None else info.id

    def __len__(self):
        return 6
