"""The one random state: a seed plus a step counter, feeding counter-based generators.

Every random op draws a *key* ``(seed, counter)`` and builds a Philox generator
from it, so a random op is a pure function of its key. PyNative draws keys from
here as ops run; a compiled graph will take the key as an input, so the same
seed gives the same numbers in both modes (DESIGN.md, "Randomness").
"""
from __future__ import annotations

import secrets

import numpy as np

_global_seed = None        # what get_seed() reports (None until set_seed)
_base = secrets.randbits(63)
_counter = 0


def set_seed(seed):
    """Seed every random op, initializer, ``np.random`` and the dataset pipeline."""
    global _global_seed, _base, _counter
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"The argument 'seed' must be type of int, but got {type(seed)}.")
    if seed < 0:
        raise ValueError(f"For 'global_seed', the 'seed' must be int and must >= 0, but got "
                         f"'{seed}' with type 'int'.")
    _global_seed = seed
    _base = seed
    _counter = 0
    np.random.seed(seed % (2 ** 32))
    try:
        from .dataset import config as _ds_config
        _ds_config.set_seed(seed)
    except ImportError:  # pragma: no cover - dataset is part of the package
        pass


def get_seed():
    return _global_seed


def next_key(seed=None):
    """A fresh key ``(seed, counter)``; an explicit op ``seed`` is mixed with the global one."""
    global _counter
    _counter += 1
    base = _base if seed is None else (_base * 1_000_003 + int(seed)) % (2 ** 63)
    return (base, _counter)


def generator(key):
    """The NumPy generator a key denotes (Philox: counter-based, cheap to create)."""
    seed, counter = int(key[0]), int(key[1])
    return np.random.Generator(np.random.Philox(key=seed % (2 ** 64), counter=counter))


def get_state():
    return (_base, _counter)


def set_state(state):
    global _base, _counter
    _base, _counter = state
