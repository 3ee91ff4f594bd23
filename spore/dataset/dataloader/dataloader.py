"""``DataLoader``: batches of a dataset, read in this process or in worker processes.

NOTE: [DataLoader]
A map-style dataset is read through a sampler of indices, grouped by a batch sampler
(``batch_size``, ``drop_last``) and collated (``collate_fn``, ``default_collate`` by
default; ``batch_size=None`` hands samples one by one through ``default_convert``). An
iterable dataset is iterated and its samples grouped in arrival order. With
``num_workers > 0`` the batches are fetched and collated in worker processes started
with ``multiprocessing_context`` (spawn by default, as Spore's other workers: a forked
copy of a process with threads is unsafe); each worker runs ``worker_init_fn(id)`` and
sees its ``get_worker_info()``. Map-style batches come back in sampler order
(``in_order=True``) or as they finish; an iterable dataset is iterated in every worker (a
worker reads its own share through ``get_worker_info()``) and the workers' batches
alternate. Datasets, samples and ``collate_fn`` cross to workers by pickling, as with
any ``multiprocessing`` program; ``persistent_workers`` keeps the pool between epochs.
"""
from __future__ import annotations

import multiprocessing
from dataclasses import dataclass

import numpy as np

from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


@dataclass
class WorkerInfo:
    """What a worker process knows about itself."""
    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info = None


def get_worker_info():
    """In a DataLoader worker process its ``WorkerInfo`` (id, num_workers, seed, dataset),
    in the main process None."""
    return _worker_info


def _worker_start(dataset, num_workers, base_seed, counter, init_fn):
    global _worker_info
    with counter.get_lock():
        wid = counter.value
        counter.value += 1
    seed = base_seed + wid
    _worker_info = WorkerInfo(wid, num_workers, seed, dataset)
    np.random.seed(seed % (1 << 32))
    from ... import set_seed
    set_seed(seed % (1 << 31))
    if init_fn is not None:
        init_fn(wid)


def _fetch_map(args):
    indices, batched = args
    info = _worker_info
    samples = [info.dataset[i] for i in indices]
    return _collate_fn(samples) if batched else _collate_fn(samples[0])


def _iterate(args):
    """One worker's share of an iterable dataset (share ``k``: whichever process of the
    pool runs it, the dataset sees worker ``k``'s info)."""
    global _worker_info
    batch_size, drop_last, k = args
    saved = _worker_info
    if saved is not None and k is not None:
        _worker_info = WorkerInfo(k, saved.num_workers, saved.seed - saved.id + k,
                                  saved.dataset)
    try:
        return _iterate_share(batch_size, drop_last)
    finally:
        _worker_info = saved


def _iterate_share(batch_size, drop_last):
    return list(_group(iter(_worker_info.dataset), batch_size, drop_last, _collate_fn))


def _group(samples, batch_size, drop_last, collate):
    """Samples in arrival order as collated batches (one by one without a batch size)."""
    batch = []
    for sample in samples:
        if batch_size is None:
            yield collate(sample)
            continue
        batch.append(sample)
        if len(batch) == batch_size:
            yield collate(batch)
            batch = []
    if batch and not drop_last:
        yield collate(batch)


_collate_fn = None


def _set_collate(fn):
    global _collate_fn
    _collate_fn = fn


class DataLoader:
    """Batches of ``dataset`` (see NOTE: [DataLoader]); ``len()`` is the number of batches
    of a map-style dataset."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0.0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor=None, persistent_workers=False,
                 in_order=True):
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"For 'DataLoader', the 'num_workers' must be a non-negative int, "
                             f"but got {num_workers!r}.")
        if timeout < 0:
            raise ValueError(f"For 'DataLoader', the 'timeout' must be non-negative, but got "
                             f"{timeout}.")
        if persistent_workers and num_workers == 0:
            raise ValueError("For 'DataLoader', 'persistent_workers' needs num_workers > 0.")
        iterable = isinstance(dataset, IterableDataset)
        if iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError("For 'DataLoader', an IterableDataset takes no 'shuffle', "
                             "'sampler' or 'batch_sampler'.")
        if sampler is not None and shuffle:
            raise ValueError("For 'DataLoader', 'sampler' and 'shuffle' are mutually "
                             "exclusive.")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("For 'DataLoader', 'batch_sampler' is mutually exclusive with "
                             "'batch_size', 'shuffle', 'sampler' and 'drop_last'.")
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("For 'DataLoader', 'drop_last' needs a 'batch_size'.")
        self.dataset, self.num_workers, self.timeout = dataset, num_workers, timeout
        self.batch_size, self.drop_last, self.pin_memory = batch_size, drop_last, pin_memory
        self.worker_init_fn, self.generator, self.in_order = worker_init_fn, generator, in_order
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers
        self.multiprocessing_context = multiprocessing_context
        self._iterable = iterable
        if not iterable:
            if sampler is None:
                sampler = RandomSampler(dataset, generator=generator) if shuffle \
                    else SequentialSampler(dataset)
            if batch_size is not None and batch_sampler is None:
                batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if (batch_size is not None or batch_sampler is not None)
            else default_convert)
        self._pool = None

    def __len__(self):
        if self._iterable:
            raise TypeError("For 'DataLoader', an IterableDataset has no length.")
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def _index_groups(self):
        if self.batch_sampler is not None:
            return ((list(b), True) for b in self.batch_sampler)
        return (([i], False) for i in self.sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return self._in_process()
        return self._with_workers()

    def _in_process(self):
        if self._iterable:
            yield from self._iterate_here()
            return
        for indices, batched in self._index_groups():
            samples = [self.dataset[i] for i in indices]
            yield self.collate_fn(samples) if batched else self.collate_fn(samples[0])

    def _iterate_here(self):
        """An iterable dataset in this process: get_worker_info() stays None."""
        return _group(iter(self.dataset), self.batch_size, self.drop_last, self.collate_fn)

    def _start_pool(self):
        ctx = self.multiprocessing_context
        if ctx is None or isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx or "spawn")
        counter = ctx.Value("i", 0)
        base = int(np.random.default_rng(self.generator.integers(1 << 62) if self.generator
                                         is not None else None).integers(1 << 31))
        pool = ctx.Pool(self.num_workers, initializer=_pool_start,
                        initargs=(self.dataset, self.num_workers, base, counter,
                                  self.worker_init_fn, self.collate_fn))
        return pool

    def _with_workers(self):
        pool = self._pool or self._start_pool()
        if self.persistent_workers:
            self._pool = pool
        try:
            wait = self.timeout or None
            if self._iterable:
                parts = [pool.apply_async(_iterate, ((self.batch_size, self.drop_last, k),))
                         for k in range(self.num_workers)]
                results = [p.get(wait) for p in parts]
                for k in range(max(len(r) for r in results)):
                    for r in results:
                        if k < len(r):
                            yield r[k]
                return
            groups = self._index_groups()
            if self.in_order:
                it = pool.imap(_fetch_map, groups, chunksize=1)
            else:
                it = pool.imap_unordered(_fetch_map, groups, chunksize=1)
            while True:
                try:
                    yield it.next(wait) if wait else next(it)
                except StopIteration:
                    return
        finally:
            if not self.persistent_workers:
                pool.terminate()
                pool.join()

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.terminate()


def _pool_start(dataset, num_workers, base, counter, init_fn, collate_fn):
    _set_collate(collate_fn)
    _worker_start(dataset, num_workers, base, counter, init_fn)
