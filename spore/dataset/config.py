"""Global settings of the data pipeline (``mindspore.dataset.config``).

The seed decides every random choice a pipeline makes (shuffles, random
samplers, random transforms). Until ``set_seed`` is called each new iterator
draws a fresh seed, so orders differ between runs, as in MindSpore; after it,
a new iterator over the same pipeline repeats the same orders.
"""
from __future__ import annotations

import os
import random

import numpy as np

from .. import _random as _spore_random

_DEFAULT_SEED = 5489
_UINT32_MAX = 2 ** 32 - 1
_INT32_MAX = 2 ** 31 - 1
_START_METHODS = ("spawn", "fork", "forkserver")

_seed = _DEFAULT_SEED
_seed_set = False
if _spore_random.get_seed() is not None:      # spore.set_seed ran before this import
    _seed, _seed_set = _spore_random.get_seed(), True
_num_parallel_workers = min(8, os.cpu_count() or 1)
_prefetch_size = 16
_start_method = "spawn"
_listeners = []


def _check_int(name, value, lo, hi):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', the argument must be int, but got {type(value).__name__}.")
    if not lo <= value <= hi:
        raise ValueError(f"For '{name}', the argument must be in [{lo}, {hi}], but got {value}.")


def set_seed(seed):
    """Seed the pipeline's random choices, and ``random`` and ``numpy.random`` as MindSpore
    does (also called by ``spore.set_seed``)."""
    global _seed, _seed_set
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError("seed isn't of type int.")
    if not 0 <= seed <= _UINT32_MAX:
        raise ValueError("seed given is not within the required range [0, "
                         f"UINT32_MAX({_UINT32_MAX})].")
    _seed, _seed_set = seed, True
    random.seed(seed)
    np.random.seed(seed)
    for listener in _listeners:
        listener()


def get_seed():
    return _seed


def seed_is_set():
    """Whether the user fixed the seed (otherwise each iterator picks its own)."""
    return _seed_set


def on_seed_change(listener):
    """Register ``listener()`` to run after each ``set_seed`` (eager transforms re-seed)."""
    _listeners.append(listener)


def set_num_parallel_workers(num):
    global _num_parallel_workers
    _check_int("set_num_parallel_workers", num, 1, _INT32_MAX)
    _num_parallel_workers = num


def get_num_parallel_workers():
    return _num_parallel_workers


def set_prefetch_size(size):
    """How many rows (or row chunks) parallel workers may run ahead of the consumer."""
    global _prefetch_size
    _check_int("set_prefetch_size", size, 1, _INT32_MAX)
    _prefetch_size = size


def get_prefetch_size():
    return _prefetch_size


def set_multiprocessing_start_method(start_method="spawn"):
    """Start method of worker processes; Spore defaults to ``spawn`` (safe with threads)."""
    global _start_method
    if start_method not in _START_METHODS:
        raise ValueError(f"For 'set_multiprocessing_start_method', the start method must be one "
                         f"of {list(_START_METHODS)}, but got {start_method!r}.")
    _start_method = start_method


def get_multiprocessing_start_method():
    return _start_method
