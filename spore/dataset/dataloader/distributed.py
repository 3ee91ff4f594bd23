"""``DistributedSampler``: each rank of a data-parallel job reads its share."""
from __future__ import annotations

import math

import numpy as np

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Rank ``rank`` of ``num_replicas`` (default: the communication group's) reads every
    ``num_replicas``-th index of one (optionally shuffled, per ``set_epoch``) order, padded
    by repeating indices so every rank reads as many (or trimmed with ``drop_last``)."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ...communication import management as M
            if num_replicas is None:
                num_replicas = M.get_group_size() if M.GlobalComm.INITED else 1
            if rank is None:
                rank = M.get_rank() if M.GlobalComm.INITED else 0
        if not 0 <= rank < num_replicas:
            raise ValueError(f"For 'DistributedSampler', the 'rank' must be in [0, "
                             f"{num_replicas - 1}], but got {rank}.")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            order = np.random.default_rng(self.seed + self.epoch).permutation(n).tolist()
        else:
            order = list(range(n))
        if self.drop_last:
            order = order[:self.total_size]
        else:
            pad = self.total_size - len(order)
            while pad > 0:
                order += order[:pad]
                pad = self.total_size - len(order)
        return iter(order[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples
