"""Random streams of the pipeline: one counter-based generator per (pass, node, row).

A pipeline's random choices are pure functions of a key: the iterator's base
seed, the pass (epoch and repeat round), the node's stream id (a stable hash of
its place in the tree) and, for per-row transforms, the row's position. So
results do not depend on how many workers ran or in what order they finished,
and a new iterator with the same seed repeats them exactly.
"""
from __future__ import annotations

import secrets
import zlib

import numpy as np

from .. import config


def stream_id(text):
    """A stable 32-bit id (Python's ``hash`` differs between processes)."""
    return zlib.crc32(text.encode())


def mix(*parts):
    """A 128-bit Philox key from integers."""
    words = np.random.SeedSequence([int(p) for p in parts]).generate_state(2, np.uint64)
    return (int(words[0]) << 64) | int(words[1])


def philox(key, row=0):
    """Row ``row`` of the stream ``key``: disjoint from other rows (row is a high counter word)."""
    return np.random.Generator(np.random.Philox(key=key, counter=[0, row, 0, 0]))


def iterator_seed():
    """The base seed of a new iterator: the configured one, or fresh entropy if never set."""
    return config.get_seed() if config.seed_is_set() else secrets.randbits(32)


class RowRandom:
    """The random source of one row: its generator is built only if a transform asks."""

    __slots__ = ("_key", "_row", "_gen")

    def __init__(self, key, row):
        self._key, self._row, self._gen = key, row, None

    @property
    def generator(self):
        if self._gen is None:
            self._gen = philox(self._key, self._row)
        return self._gen


class _EagerRandom:
    """Random source of transforms called directly on an array (outside a pipeline)."""

    def __init__(self):
        self._gen = None

    @property
    def generator(self):
        if self._gen is None:
            seed = config.get_seed() if config.seed_is_set() else secrets.randbits(32)
            self._gen = philox(mix(seed, stream_id("eager transforms")))
        return self._gen

    def reseed(self):
        self._gen = None


EAGER = _EagerRandom()
config.on_seed_change(EAGER.reseed)
