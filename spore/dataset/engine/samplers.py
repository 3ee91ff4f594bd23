"""Samplers: which indices of a random-access source a pass reads, in what order.

A built-in sampler is a description; ``indices(n, rng)`` gives one pass's
indices for a source of ``n`` rows, drawing randomness from the pass's
generator (so it is reproducible under ``config.set_seed``). A user sampler
subclasses ``Sampler`` and yields indices from ``__iter__`` (it may read
``self.dataset_size``), as in MindSpore.
"""
from __future__ import annotations

import enum
import math

import numpy as np

from .serialize import remember_arguments


class Shuffle(str, enum.Enum):
    """MindSpore's shuffle levels, accepted by ``RandomSampler(shuffle=...)`` and as a
    source's ``shuffle``: ``FALSE`` reads in order; Spore's samplers shuffle all rows at
    every other level (the file readers also honour ``FILES`` and ``INFILE``)."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def _check_count(name, arg, value, allow_none=True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"For '{name}', '{arg}' must be a non-negative int, but got {value!r}.")
    return int(value)


class BuiltinSampler:
    """Base of the samplers Spore implements itself."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        remember_arguments(cls)  # serialize() writes a sampler as its constructor call

    def __init__(self, num_samples=None):
        self.num_samples = _check_count(type(self).__name__, "num_samples", num_samples)

    def _limit(self, count):
        return count if not self.num_samples else min(count, self.num_samples)

    def count(self, n):
        """Rows one pass yields from a source of ``n`` rows."""
        return self._limit(n)

    def indices(self, n, rng):
        raise NotImplementedError

    def is_full(self):
        """Whether one pass reads every row exactly once (split may then re-sample)."""
        return False

    def get_num_samples(self):
        return self.num_samples


class SequentialSampler(BuiltinSampler):
    """Rows in order, from ``start_index``."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = _check_count("SequentialSampler", "start_index", start_index) or 0

    def count(self, n):
        return self._limit(max(0, n - self.start_index))

    def indices(self, n, rng):
        return np.arange(self.start_index, self.start_index + self.count(n), dtype=np.int64)

    def is_full(self):
        return self.start_index == 0 and not self.num_samples


class RandomSampler(BuiltinSampler):
    """A random permutation (or draws with replacement), fresh each pass."""

    def __init__(self, replacement=False, num_samples=None, shuffle=Shuffle.GLOBAL):
        super().__init__(num_samples)
        if not isinstance(replacement, bool):
            raise TypeError(f"For 'RandomSampler', 'replacement' must be bool, but got "
                            f"{type(replacement).__name__}.")
        self.replacement = replacement

    def indices(self, n, rng):
        k = self.count(n)  # at most n rows, with replacement too (MindSpore)
        if self.replacement:
            return rng.integers(0, n, size=k, dtype=np.int64) if n else np.zeros(0, np.int64)
        return rng.permutation(n)[:k].astype(np.int64)

    def is_full(self):
        return not self.replacement and not self.num_samples


class DistributedSampler(BuiltinSampler):
    """Shard ``shard_id`` of ``num_shards``: every shard gets ``ceil(n / num_shards)`` rows,
    wrapping around to the start so all shards have the same length (MindSpore's rule).
    The shuffle is the same permutation in every shard for one seed."""

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        _check_count("DistributedSampler", "num_shards", num_shards, allow_none=False)
        if num_shards < 1:
            raise ValueError(f"For 'DistributedSampler', 'num_shards' must be >= 1, but got "
                             f"{num_shards}.")
        if not isinstance(shard_id, (int, np.integer)) or not 0 <= shard_id < num_shards:
            raise ValueError(f"For 'DistributedSampler', 'shard_id' must be in [0, {num_shards}),"
                             f" but got {shard_id!r}.")
        self.num_shards, self.shard_id = int(num_shards), int(shard_id)
        self.shuffle = bool(shuffle)

    def count(self, n):
        return self._limit(math.ceil(n / self.num_shards)) if n else 0

    def indices(self, n, rng):
        if n == 0:
            return np.zeros(0, np.int64)
        order = rng.permutation(n) if self.shuffle else np.arange(n)
        picks = (self.shard_id + self.num_shards * np.arange(self.count(n))) % n
        return order[picks].astype(np.int64)

    def is_full(self):
        return self.num_shards == 1 and not self.num_samples and not self.shuffle


class SubsetSampler(BuiltinSampler):
    """The given indices, in the given order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.subset = _index_array(type(self).__name__, indices)

    def count(self, n):
        return self._limit(len(self.subset))

    def indices(self, n, rng):
        _check_in_range(type(self).__name__, self.subset, n)
        return self.subset[:self.count(n)]


class SubsetRandomSampler(SubsetSampler):
    """The given indices in a random order, fresh each pass."""

    def indices(self, n, rng):
        _check_in_range(type(self).__name__, self.subset, n)
        return rng.permutation(self.subset)[:self.count(n)]


class WeightedRandomSampler(BuiltinSampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or w.size == 0 or (w < 0).any() or w.sum() <= 0:
            raise ValueError("For 'WeightedRandomSampler', 'weights' must be a non-empty list "
                             "of non-negative numbers with a positive sum.")
        self.weights, self.replacement = w, bool(replacement)

    def count(self, n):
        return self.num_samples or len(self.weights)

    def indices(self, n, rng):
        _check_in_range("WeightedRandomSampler", np.arange(len(self.weights)), n)
        return rng.choice(len(self.weights), size=self.count(n), replace=self.replacement,
                          p=self.weights / self.weights.sum()).astype(np.int64)


class Sampler:
    """Base for user samplers: override ``__iter__`` to yield indices.

    ``self.dataset_size`` holds the source's length when a pass starts.
    """

    def __init__(self, num_samples=None):
        self.num_samples = _check_count("Sampler", "num_samples", num_samples)
        self.dataset_size = 0

    def __iter__(self):
        raise NotImplementedError("a Sampler subclass must define __iter__")

    def count(self, n):
        self.dataset_size = n
        k = sum(1 for _ in self)
        return min(k, self.num_samples) if self.num_samples else k

    def indices(self, n, rng):
        self.dataset_size = n
        idx = np.fromiter((int(i) for i in self), dtype=np.int64)
        if self.num_samples:
            idx = idx[:self.num_samples]
        _check_in_range(type(self).__name__, idx, n)
        return idx

    def is_full(self):
        return False

    def get_num_samples(self):
        return self.num_samples


class IterSampler(Sampler):
    """Wraps any iterable of indices given as ``sampler=``."""

    def __init__(self, sampler, num_samples=None):
        super().__init__(num_samples)
        self.source = sampler

    def __iter__(self):
        return iter(self.source)


def _index_array(name, indices):
    try:
        arr = np.asarray(indices)
    except Exception:
        arr = np.asarray([], dtype=object)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"For '{name}', 'indices' must be a list of int, but got {indices!r}.")
    return arr.astype(np.int64)


def _check_in_range(name, idx, n):
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise RuntimeError(f"For '{name}', sample index {int(idx.max())} is out of range for a "
                           f"dataset of {n} rows.")


def select_sampler(num_samples, shuffle, sampler, num_shards, shard_id):
    """The sampler a random-access source uses, from its constructor arguments (MindSpore's
    rules: shuffle by default, drawing with replacement when ``num_samples`` is given;
    ``sampler`` excludes the other arguments; a list/tuple/array of indices is a
    ``SubsetSampler``, an int the one-index subset, any other iterable (``__iter__``, or
    ``__getitem__`` + ``__len__``) yields the indices)."""
    if sampler is not None:
        _check_sampler_alone(num_samples, shuffle, num_shards, shard_id)
        return user_sampler(sampler)
    if (num_shards is None) != (shard_id is None):
        raise RuntimeError("'num_shards' and 'shard_id' must be given together.")
    if isinstance(shuffle, Shuffle):
        shuffle = shuffle is not Shuffle.FALSE
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"'shuffle' must be bool or a Shuffle level, but got "
                        f"{type(shuffle).__name__}.")
    shuffle = True if shuffle is None else shuffle
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle, num_samples)
    if shuffle:
        return RandomSampler(replacement=num_samples is not None, num_samples=num_samples)
    return SequentialSampler(num_samples=num_samples)


def _check_sampler_alone(num_samples, shuffle, num_shards, shard_id):
    if shuffle is not None:
        raise RuntimeError("sampler and shuffle cannot be specified at the same time.")
    if num_shards is not None or shard_id is not None:
        raise RuntimeError("sampler and sharding cannot be specified at the same time.")
    if num_samples is not None:
        raise RuntimeError("sampler and num_samples cannot be specified at the same time.")


def user_sampler(sampler):
    """``sampler=`` as a sampler object (MindSpore's ``select_sampler`` rules)."""
    if isinstance(sampler, (BuiltinSampler, Sampler)):
        return sampler
    if isinstance(sampler, (list, tuple, np.ndarray)):
        return SubsetSampler(sampler)
    if isinstance(sampler, (int, np.integer)) and not isinstance(sampler, bool):
        return SubsetSampler([int(sampler)])
    if not isinstance(sampler, (str, bytes)):
        try:
            iter(sampler)
        except TypeError:
            pass
        else:
            return IterSampler(sampler)
    raise TypeError(f"Unsupported sampler object of type ({type(sampler).__name__}): 'sampler' "
                    "must be a Sampler, a list of indices, or an object with __iter__ (or "
                    "__getitem__ and __len__) that yields indices.")


class PKSampler(BuiltinSampler):
    """``num_val`` rows of every class: the classes in label order (a random order with
    ``shuffle``), each class's rows drawn at random with replacement, as MindSpore's
    PKSampler draws them. Needs a source that knows its labels (MNIST, CIFAR, image
    folders...); GeneratorDataset rejects it, as in MindSpore."""

    needs_labels = True

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        if isinstance(num_val, bool) or not isinstance(num_val, int):
            raise TypeError(f"num_val must be integer but was: {num_val!r}.")
        if num_val <= 0:
            raise ValueError(f"num_val should be a positive integer value, but got {num_val}.")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a boolean value but was: {shuffle!r}.")
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str value but was: {class_column!r}.")
        super().__init__(num_samples)
        self.num_val, self.shuffle, self.class_column = num_val, shuffle, class_column

    def count_labeled(self, labels):
        return self._limit(self.num_val * len(np.unique(labels)))

    def indices_labeled(self, labels, rng):
        labels = np.asarray(labels)
        classes = np.unique(labels)
        if self.shuffle:
            classes = rng.permutation(classes)
        picks = []
        for cls in classes:
            members = np.flatnonzero(labels == cls)
            picks.append(members[rng.integers(0, len(members), size=self.num_val)])
        idx = np.concatenate(picks) if picks else np.zeros(0, np.int64)
        return idx[:self.count_labeled(labels)].astype(np.int64)
