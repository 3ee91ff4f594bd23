"""The one random state: a seed plus a step counter, feeding counter-based generators.

Every random op draws a *key* ``(seed, counter)`` and builds a Philox generator
from it, so a random op is a pure function of its key. PyNative draws keys from
here as ops run; a compiled graph will take the key as an input, so the same
seed gives the same numbers in both modes (DESIGN.md, "Randomness").

Seeding follows MindSpore: with neither a global nor an op seed the numbers
differ from run to run; ``set_seed`` makes the whole program repeat; an op
``seed`` alone also repeats from run to run (it is mixed with the global seed,
or with 0 when none is set).
"""
from __future__ import annotations

import os
import random
import sys
import threading

import numpy as np

_MASK64 = (1 << 64) - 1

_global_seed = None        # what get_seed() reports (None until set_seed)
_base = int.from_bytes(os.urandom(8), "little") >> 1  # 63 random bits
_counter = 0
_per_thread = threading.local()


def set_seed(seed):
    """Seed every random op, initializer, ``np.random`` and the dataset pipeline."""
    global _global_seed, _base, _counter
    if isinstance(seed, bool):
        raise TypeError(f"For 'global_seed', the 'seed' must be int and must >= 0, but got "
                        f"'{seed}' with type 'bool'.")
    if not isinstance(seed, int):
        raise TypeError(f"The argument 'seed' must be type of int, but got {type(seed)}.")
    if seed < 0:
        raise ValueError(f"For 'global_seed', the 'seed' must be int and must >= 0, but got "
                         f"'{seed}' with type 'int'.")
    if seed >= 2 ** 32:      # the limit of np.random.seed, which MindSpore seeds too
        raise ValueError("Seed must be between 0 and 2**32 - 1")
    _global_seed = seed
    _base = seed
    _counter = 0
    np.random.seed(seed)
    random.seed(seed)
    # the dataset pipeline's seed, without importing spore.dataset here (layering: a
    # pipeline imported later starts from get_seed(), see dataset/config.py)
    ds_config = sys.modules.get("spore.dataset.config")
    if ds_config is not None:
        ds_config.set_seed(seed)


def get_seed():
    return _global_seed


def _splitmix64(x):
    """One round of SplitMix64: a cheap bijective scrambler of 64-bit words."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def mix(*words):
    """Hash integers into one 64-bit stream seed (distinct inputs give unrelated seeds)."""
    h = 0
    for w in words:
        h = _splitmix64(h ^ (int(w) & _MASK64))
    return h


def next_key(seed=None):
    """A fresh key ``(stream seed, counter)``; an explicit op ``seed`` is mixed with the
    global seed (0 when none is set), so it repeats from run to run."""
    global _counter
    _counter += 1
    if seed is None:
        return (_base & _MASK64, _counter)
    return (mix(_global_seed or 0, seed), _counter)


def key_tensor(seed=None):
    """The key Tensor of one random op call: a fresh key in PyNative; while a graph is
    captured, a graph value computed at run time from the random state the compiled call
    receives, so every call of a compiled function draws new numbers, the same sequence
    as PyNative (DESIGN.md, "Randomness")."""
    from ._core import primitive as P
    capture = P.active_capture()
    if capture is not None:
        return capture.random_key(seed)
    return P.wrap(key_array(next_key(seed)))


def key_at(state, seed, offset):
    """The key the ``offset``-th draw (1-based) of a compiled call takes, from the random
    state ``(base, counter, global seed)`` at the call's start: what ``next_key`` gives."""
    counter = int(state[1]) + offset
    if seed is None:
        return (int(state[0]) & _MASK64, counter)
    return (mix(int(state[2]), seed), counter)


def state_array():
    """The random state a compiled call starts from: ``(base, counter, global seed)``."""
    return np.array([_base & _MASK64, _counter, _global_seed or 0], dtype=np.uint64)


def advance(n):
    """Move the counter past the ``n`` draws a compiled call made."""
    global _counter
    _counter += n


def fixed_key(seed, offset=0):
    """A key that depends only on ``(seed, offset)``, not on the global state (ops whose
    MindSpore seed is a plain kernel seed, such as ``randperm``)."""
    return (mix(seed, 0x5EED), int(offset) & _MASK64)


def key_array(key):
    """A key as the 2-element uint64 array random primitives take as their first input."""
    return np.array([int(key[0]) & _MASK64, int(key[1]) & _MASK64], dtype=np.uint64)


def generator(key):
    """The NumPy generator a key denotes: Philox with the key's two words as its 128-bit
    key and the counter at 0.

    Keys that differ only in their counter word thus give independent streams rather
    than one stream shifted by a few blocks. Building a Philox costs ~10 us, so each
    thread re-keys one bit generator instead (~2 us); the generator is valid until the
    next ``generator`` call in the same thread.
    """
    bits = getattr(_per_thread, "philox", None)
    if bits is None:
        bits = _per_thread.philox = np.random.Philox(key=0)
    bits.state = {"bit_generator": "Philox",
                  "state": {"counter": np.zeros(4, np.uint64), "key": key_array(key)},
                  "buffer": np.zeros(4, np.uint64), "buffer_pos": 4,
                  "has_uint32": 0, "uinteger": 0}
    return np.random.Generator(bits)


def get_state():
    return (_base, _counter)


def set_state(state):
    global _base, _counter
    _base, _counter = state
