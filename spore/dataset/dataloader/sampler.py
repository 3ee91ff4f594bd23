"""Samplers: the order in which a DataLoader reads a map-style dataset's indices."""
from __future__ import annotations

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]


class Sampler:
    """Base class: an iterable of indices (``__iter__``) with a ``__len__``."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _rng(generator):
    """A NumPy Generator: the one given, or one seeded from Spore's global seed (or
    fresh entropy when none is set)."""
    if generator is not None:
        if not isinstance(generator, np.random.Generator):
            raise TypeError(f"the 'generator' must be a numpy.random.Generator, but got "
                            f"{type(generator).__name__}.")
        return generator
    from ..._random import get_seed
    seed = get_seed()
    return np.random.default_rng(None if seed is None else seed)


class RandomSampler(Sampler):
    """A random permutation of the indices, or ``num_samples`` draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"For 'RandomSampler', the 'replacement' must be bool, but got "
                            f"{type(replacement).__name__}.")
        if num_samples is not None and (isinstance(num_samples, bool) or
                                        not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"For 'RandomSampler', the 'num_samples' must be a positive int, "
                             f"but got {num_samples!r}.")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, rng = len(self.data_source), _rng(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        order = []
        while len(order) < self.num_samples:
            order.extend(rng.permutation(n).tolist())
        return iter(order[:self.num_samples])

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"For 'BatchSampler', the 'batch_size' must be a positive int, "
                             f"but got {batch_size!r}.")
        if not isinstance(drop_last, bool):
            raise ValueError(f"For 'BatchSampler', the 'drop_last' must be bool, but got "
                             f"{drop_last!r}.")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
