"""Run-time state of a pipeline: an ``Execution`` per iterator, a ``Pass`` per epoch.

Dataset nodes are immutable descriptions; everything that changes while data
flows (worker pools, the iterator's seed, the epoch) lives here, so one node
may feed any number of pipelines and iterators (MindSpore allows one consumer
per node; Spore does not need that limit).
"""
from __future__ import annotations

from .randomness import iterator_seed, mix, philox
from .. import config


class Execution:
    """The worker pools and base seed of one iterator; ``close`` stops the workers."""

    def __init__(self):
        self.seed = iterator_seed()
        self._pools = {}

    def pool(self, key, make):
        """The pool registered under ``key``, made on first use and kept for later epochs."""
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = make()
        return pool

    def close(self):
        pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()


class Pass:
    """One pass over a node's rows: the epoch and, under ``repeat``, the round (``path``)."""

    def __init__(self, execution, epoch=0, path=()):
        self.execution, self.epoch, self.path = execution, epoch, path

    def sub(self, index):
        """The pass of round ``index`` of a repeat (each round reshuffles)."""
        return Pass(self.execution, self.epoch, self.path + (index,))

    def key(self, stream, shared=False):
        """The random key of node ``stream`` in this pass. ``shared`` keys use the configured
        seed even when none was set, so separate processes agree (distributed shards)."""
        seed = config.get_seed() if shared else self.execution.seed
        return mix(seed, self.epoch, len(self.path), *self.path, stream)

    def generator(self, stream, shared=False):
        return philox(self.key(stream, shared))

    def pool(self, key, make):
        return self.execution.pool(key, make)
