"""``Dataset.split``: disjoint parts of a dataset, by row counts or fractions.

A pipeline that reads a random-access source row for row is split by giving
each part a subset sampler (a randomized part reshuffles every epoch, as in
MindSpore); any other pipeline is split by row positions in its stream.
"""
from __future__ import annotations

import numpy as np

from .. import config
from .ops_flow import PositionSubsetDataset
from .samplers import SubsetRandomSampler, SubsetSampler


def split_counts(sizes, total):
    """Rows per part: ints must sum to ``total``; fractions are rounded and the first part
    absorbs the rounding difference (MindSpore's rule)."""
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"For 'split', 'sizes' must be a non-empty list of int or of float, "
                        f"but got {sizes!r}.")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s <= 0 for s in sizes):
            raise ValueError(f"For 'split', every size must be positive, but got {list(sizes)}.")
        if sum(sizes) != total:
            raise RuntimeError(f"Sum of split sizes {sum(sizes)} is not equal to dataset size "
                               f"{total}.")
        return list(sizes)
    if all(isinstance(s, float) for s in sizes):
        if any(not 0 < s <= 1 for s in sizes) or abs(sum(sizes) - 1) > 1e-6:
            raise ValueError(f"For 'split', fractions must be in (0, 1] and sum to 1, but got "
                             f"{list(sizes)}.")
        counts = [round(s * total) for s in sizes]
        counts[0] += total - sum(counts)
        if any(c <= 0 for c in counts):
            raise RuntimeError(f"For 'split', the fractions {list(sizes)} of {total} rows give "
                               f"an empty part ({counts}).")
        return counts
    raise TypeError(f"For 'split', 'sizes' must be all int or all float, but got {list(sizes)}.")


def split_dataset(dataset, sizes, randomize=True):
    if not isinstance(randomize, bool):
        raise TypeError(f"For 'split', 'randomize' must be bool, but got "
                        f"{type(randomize).__name__}.")
    total = dataset.get_dataset_size()
    counts = split_counts(sizes, total)
    order = _permutation(total) if randomize else np.arange(total, dtype=np.int64)
    bounds = np.cumsum([0] + counts)
    parts = [order[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
    if dataset._with_sampler(SubsetSampler([])) is not None:
        sampler = SubsetRandomSampler if randomize else SubsetSampler
        return [dataset._with_sampler(sampler(part)) for part in parts]
    if not randomize:
        return [dataset.skip(int(lo)).take(int(hi - lo)) for lo, hi in
                zip(bounds[:-1], bounds[1:])]
    return [PositionSubsetDataset(dataset, part) for part in parts]


def _permutation(total):
    seed = config.get_seed() if config.seed_is_set() else None
    return np.random.default_rng(seed).permutation(total).astype(np.int64)
