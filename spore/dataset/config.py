"""Global settings of the data pipeline (``mindspore.dataset.config``).

The seed decides every random choice a pipeline makes (shuffles, random
samplers, random transforms). Until ``set_seed`` is called each new iterator
draws a fresh seed, so orders differ between runs, as in MindSpore; after it,
a new iterator over the same pipeline repeats the same orders.
"""
from __future__ import annotations

import enum
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


# ---------------------------------------------------------------- other settings
class ErrorSamplesMode(enum.IntEnum):
    """What a pipeline does with a row whose ``map`` operation raised: ``RETURN`` the error
    (the default), ``REPLACE`` the row with the previous good row, or ``SKIP`` it."""

    RETURN = 0
    REPLACE = 1
    SKIP = 2


_callback_timeout = 60
_debug_mode = False
_debug_hooks = []
_enable_watchdog = True
_error_samples_mode = ErrorSamplesMode.RETURN
_mp_timeout_interval = 300
_video_backend = "CPU"


def set_callback_timeout(timeout):
    """Seconds a ``sync_wait`` point or a ``WaitedDSCallback`` waits before failing."""
    global _callback_timeout
    _check_int("set_callback_timeout", timeout, 1, _INT32_MAX)
    _callback_timeout = timeout


def get_callback_timeout():
    return _callback_timeout


def set_debug_mode(debug_mode_flag, debug_hook_list=None):
    """Debug mode: ``map`` runs its operations one row at a time in the calling thread and
    calls each ``DebugHook`` (``debug_hook_list``) with the row after every operation."""
    global _debug_mode, _debug_hooks
    if not isinstance(debug_mode_flag, bool):
        raise TypeError(f"For 'set_debug_mode', 'debug_mode_flag' must be bool, but got "
                        f"{type(debug_mode_flag).__name__}.")
    hooks = [] if debug_hook_list is None else list(debug_hook_list)
    from .engine.debug import DebugHook
    if not all(isinstance(h, DebugHook) for h in hooks):
        raise TypeError("For 'set_debug_mode', 'debug_hook_list' must hold DebugHook objects.")
    _debug_mode, _debug_hooks = debug_mode_flag, hooks


def get_debug_mode():
    return _debug_mode


def debug_hooks():
    """The hooks of debug mode (a ``PrintMetaDataHook`` when none were given)."""
    from .engine.debug import PrintMetaDataHook
    return _debug_hooks or [PrintMetaDataHook()]


def set_enable_watchdog(enable):
    """Kept for MindSpore's API: Spore's worker pools end with their iterators."""
    global _enable_watchdog
    if not isinstance(enable, bool):
        raise TypeError(f"For 'set_enable_watchdog', 'enable' must be bool, but got "
                        f"{type(enable).__name__}.")
    _enable_watchdog = enable


def get_enable_watchdog():
    return _enable_watchdog


def set_error_samples_mode(error_samples_mode):
    """How ``map`` treats a row whose operation raised (``ErrorSamplesMode``)."""
    global _error_samples_mode
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError(f"For 'set_error_samples_mode', the argument must be an "
                        f"ErrorSamplesMode, but got {error_samples_mode!r}.")
    _error_samples_mode = error_samples_mode


def get_error_samples_mode():
    return _error_samples_mode


def set_multiprocessing_timeout_interval(interval):
    """Seconds between the warnings a parent process logs while waiting for a worker."""
    global _mp_timeout_interval
    _check_int("set_multiprocessing_timeout_interval", interval, 1, _INT32_MAX)
    _mp_timeout_interval = interval


def get_multiprocessing_timeout_interval():
    return _mp_timeout_interval


def set_video_backend(backend):
    """The device decoding videos: ``'CPU'`` (``'Ascend'`` is Ascend hardware)."""
    global _video_backend
    if backend not in ("CPU", "Ascend"):
        raise ValueError(f"For 'set_video_backend', 'backend' must be 'CPU' or 'Ascend', but "
                         f"got {backend!r}.")
    if backend == "Ascend":
        raise NotImplementedError("set_video_backend('Ascend'): Spore runs on the CPU.")
    _video_backend = backend


def get_video_backend():
    return _video_backend
