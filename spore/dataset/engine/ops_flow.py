"""Operations that reorder, cut or join row streams: shuffle, repeat, take, skip, zip,
concat, and the position subset behind ``split`` of streaming sources."""
from __future__ import annotations

import itertools

import numpy as np

from .checks import check_int
from .dataset import Dataset, UnionBaseDataset
from .rows import pipeline_error


class ShuffleDataset(UnionBaseDataset):
    """MindSpore's buffer shuffle: keep ``buffer_size`` rows, emit a random one, refill."""

    def __init__(self, child, buffer_size):
        check_int("shuffle", "buffer_size", buffer_size, 2)
        super().__init__([child])
        self.buffer_size = int(buffer_size)

    def _size(self):
        return self.children[0].get_dataset_size()

    def _rows(self, run):
        rng = run.generator(self._stream)
        buffer = []
        for row in self.children[0]._rows(run):
            if len(buffer) < self.buffer_size:
                buffer.append(row)
                continue
            i = int(rng.integers(len(buffer)))
            buffer[i], row = row, buffer[i]
            yield row
        for i in rng.permutation(len(buffer)):
            yield buffer[i]


class RepeatDataset(UnionBaseDataset):
    """The child's rows ``repeat_count`` times (-1: forever); each round is a new pass,
    so shuffles below it reshuffle."""

    def __init__(self, child, count):
        super().__init__([child])
        self.repeat_count = count

    def _size(self):
        size = self.children[0].get_dataset_size()
        # MindSpore reports one round's size for an endless repeat.
        return size if self.repeat_count == -1 else size * self.repeat_count

    def _rows(self, run):
        rounds = itertools.count() if self.repeat_count == -1 else range(self.repeat_count)
        for i in rounds:
            yield from self.children[0]._rows(run.sub(i))


class TakeDataset(UnionBaseDataset):
    """The first ``count`` rows (-1: all)."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = count

    def _size(self):
        size = self.children[0].get_dataset_size()
        return size if self.count == -1 else min(size, self.count)

    def _rows(self, run):
        rows = self.children[0]._rows(run)
        return rows if self.count == -1 else itertools.islice(rows, self.count)


class SkipDataset(UnionBaseDataset):
    """All rows after the first ``count``."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = count

    def _size(self):
        return max(0, self.children[0].get_dataset_size() - self.count)

    def _rows(self, run):
        return itertools.islice(self.children[0]._rows(run), self.count, None)


class ZipDataset(UnionBaseDataset):
    """Columns of all children side by side; stops with the shortest child."""

    def __init__(self, children):
        super().__init__(children)
        names = [n for c in children for n in c._columns()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"For 'zip', column names must be unique across the datasets, but "
                             f"{dup} appear more than once; rename them first.")

    def _columns(self):
        return [n for c in self.children for n in c._columns()]

    def _size(self):
        return min(c.get_dataset_size() for c in self.children)

    def _rows(self, run):
        streams = [c._rows(run) for c in self.children]
        for parts in zip(*streams):
            yield tuple(a for part in parts for a in part)


class ConcatDataset(UnionBaseDataset):
    """Rows of each child in turn; all children must have the same columns."""

    def __init__(self, children):
        for child in children:
            if not isinstance(child, Dataset):
                raise TypeError(f"For 'concat', every input must be a dataset, but got "
                                f"{type(child).__name__}.")
        super().__init__(children)
        first = children[0]._columns()
        for child in children[1:]:
            if child._columns() != first:
                raise ValueError(f"For 'concat', the datasets must have the same column names "
                                 f"in the same order, but got {first} and {child._columns()}.")
        self._sampled = None  # use_sampler: the children read through one sampler

    def _size(self):
        if self._sampled is not None:
            return self._sampled.get_dataset_size()
        return sum(c.get_dataset_size() for c in self.children)

    def _rows(self, run):
        if self._sampled is not None:
            yield from self._sampled._rows(run)
            return
        for i, child in enumerate(self.children):
            yield from child._rows(run.sub(i))

    def use_sampler(self, new_sampler):
        """Read the joined rows of the children (random-access sources) through
        ``new_sampler``, e.g. a DistributedSampler after padding with PaddedDataset. As in
        MindSpore this changes the dataset in place."""
        from .ops_extra import use_sampler
        from .samplers import user_sampler
        self._sampled = use_sampler(self, user_sampler(new_sampler))
        self.reset()


class PositionSubsetDataset(UnionBaseDataset):
    """The rows of a stream whose positions (0-based, per pass) are in ``positions``."""

    def __init__(self, child, positions):
        super().__init__([child])
        self.positions = np.sort(np.asarray(positions, dtype=np.int64))

    def _size(self):
        return len(self.positions)

    def _rows(self, run):
        wanted = set(self.positions.tolist())
        seen = 0
        for pos, row in enumerate(self.children[0]._rows(run)):
            if pos in wanted:
                seen += 1
                yield row
                if seen == len(wanted):
                    return
        if seen < len(wanted):
            raise pipeline_error(f"split: the dataset ended before all {len(wanted)} rows of "
                                 f"the split were read; its size changed since the split.")
