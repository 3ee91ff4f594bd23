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
    global seed (0 when none is set), so it repeats from run to run. Inside
    ``Generator.drawing()`` the key comes from that generator instead."""
    global _counter
    gen = _per_thread.__dict__.get("generator")
    if gen is not None:
        return gen._next_key()
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
        if _per_thread.__dict__.get("generator") is not None:
            capture.unsupported("a random draw from a Generator object")
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


# ----------------------------------------------------------------------------- Generator
class Generator:
    """``mindspore.Generator``: a random stream of its own, ``(seed, offset)``, for the ops
    that take ``generator=`` (``mint.rand``, ``mint.normal``, ...). Its draws do not move
    the global stream; two generators with one seed give the same numbers. The state is
    16 bytes, the seed and the offset as little-endian int64 (MindSpore's layout)."""

    def __init__(self):
        self._seed = 0
        self._offset = 0

    def manual_seed(self, seed):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"For 'manual_seed', the 'seed' must be int, but got "
                            f"{type(seed).__name__}.")
        self._seed, self._offset = seed & _MASK64, 0
        return self

    def seed(self):
        """Seed from the operating system; returns the new seed."""
        seed = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        from ._tensor import Tensor
        raw = np.array([self._seed, self._offset], dtype="<u8").view(np.uint8)
        return Tensor(raw.copy())

    def set_state(self, state):
        from ._tensor import Tensor
        if not isinstance(state, Tensor):
            raise TypeError(f"For 'set_state', the 'state' must be a Tensor, but got "
                            f"{type(state).__name__}.")
        raw = np.ascontiguousarray(state.asnumpy()).view(np.uint8).ravel()
        if raw.size != 16:
            raise ValueError(f"For 'set_state', the 'state' must hold 16 bytes, but got "
                             f"{raw.size}.")
        self._seed, self._offset = (int(v) for v in raw.view("<u8"))
        return self

    def _next_key(self):
        self._offset += 1
        return (mix(self._seed, 0x6E4E), self._offset)

    def drawing(self):
        """A ``with`` block whose random ops in this thread draw from this generator."""
        return _Drawing(self)


class _Drawing:
    def __init__(self, gen):
        self.gen = gen

    def __enter__(self):
        self.prev = _per_thread.__dict__.get("generator")
        _per_thread.generator = self.gen
        return self.gen

    def __exit__(self, *exc):
        _per_thread.generator = self.prev
        return False


class _DefaultGenerator(Generator):
    """``mindspore.default_generator``: the global stream (``set_seed``'s) seen as a
    Generator; its state is the global (base, counter)."""

    def manual_seed(self, seed):
        set_seed(seed)
        return self

    def seed(self):
        seed = int.from_bytes(os.urandom(4), "little")
        set_seed(seed)
        return seed

    def initial_seed(self):
        return _global_seed or 0

    def get_state(self):
        from ._tensor import Tensor
        raw = np.array([_base & _MASK64, _counter], dtype="<u8").view(np.uint8)
        return Tensor(raw.copy())

    def set_state(self, state):
        super().set_state(state)
        set_state((self._seed, self._offset))
        return self

    def drawing(self):
        return _Drawing(None)


default_generator = _DefaultGenerator()


def drawing_from(generator):
    """``with drawing_from(generator):`` — the ops' ``generator=`` argument (None: the
    global stream)."""
    if generator is None:
        return _Drawing(None)
    if not isinstance(generator, Generator):
        raise TypeError(f"'generator' must be a mindspore.Generator, but got "
                        f"{type(generator).__name__}.")
    return generator.drawing()
