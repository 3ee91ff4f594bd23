"""``spore.dataset.dataloader`` (``mindspore.dataset.dataloader``): MindSpore 2.10's
PyTorch-style data loading — map-style and iterable datasets, samplers, collation and a
``DataLoader`` with optional worker processes (NOTE: [DataLoader] in dataloader.py)."""
from . import dataloader as dataloader, dataset as dataset, sampler as sampler
from . import distributed as distributed
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import Dataset, IterableDataset, TensorDataset
from .distributed import DistributedSampler
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["BatchSampler", "DataLoader", "Dataset", "DistributedSampler", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "TensorDataset", "default_collate",
           "default_convert", "get_worker_info", "dataloader", "dataset", "distributed",
           "sampler"]
