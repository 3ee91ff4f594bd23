"""Top-level runtime switches of ``mindspore``: ``set_deterministic``, the default
generator's state (``get_rng_state`` / ``set_rng_state``) and ``run_check``."""
from __future__ import annotations

import numpy as np

from . import _random
from ._context import set_context
from ._tensor import Tensor

_STATE_BYTES = 16
_MASK64 = (1 << 64) - 1


def set_deterministic(deterministic):
    """Whether operators must give the same output for the same input on every run
    (``context deterministic`` ``"ON"`` / ``"OFF"``). Spore's kernels are deterministic
    either way; the flag is recorded so ``get_context("deterministic")`` reports it."""
    if not isinstance(deterministic, bool):
        raise TypeError(f"The parameter 'deterministic' must be {bool}, but got "
                        f"{type(deterministic)}.")
    set_context(deterministic="ON" if deterministic else "OFF")


def get_rng_state():
    """The default generator's state: a UInt8 Tensor of 16 bytes, the seed then the offset
    (the number of random draws since seeding), each 64-bit little-endian, as in
    MindSpore. ``set_rng_state`` of it replays the same random numbers."""
    base, counter = _random.get_state()
    words = np.array([base & _MASK64, counter & _MASK64], dtype="<u8")
    return Tensor(words.view(np.uint8).copy())


def set_rng_state(state):
    """Restore the default generator's state from a Tensor ``get_rng_state`` returned."""
    if not isinstance(state, Tensor):
        raise TypeError(f"For 'set_rng_state', the 'state' must be a Tensor, but got "
                        f"{type(state).__name__}.")
    data = state.asnumpy()
    if data.dtype != np.uint8:
        raise TypeError(f"For 'set_rng_state', the 'state' must be a UInt8 Tensor, but got "
                        f"{state.dtype}.")
    if data.size != _STATE_BYTES:
        raise ValueError(f"State data size must be {_STATE_BYTES}, but got {data.size}")
    base, counter = (int(w) for w in np.ascontiguousarray(data.reshape(-1)).view("<u8"))
    _random.set_state((base, counter))


def run_check():
    """Check the installation: print the version and multiply two small tensors."""
    from . import __version__, ops
    print(f"Spore version:  {__version__} (the MindSpore 2.10 API)")
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    y = Tensor(np.array([4.0, 5.0, 6.0], np.float32))
    if np.array_equal(ops.mul(x, y).asnumpy(), np.array([4.0, 10.0, 18.0], np.float32)):
        print("The result of multiplication calculation is correct, Spore has been installed "
              "on platform [CPU] successfully!")
    else:   # pragma: no cover - only a broken NumPy gets here
        print("The result of multiplication calculation is wrong: the installation is broken.")
