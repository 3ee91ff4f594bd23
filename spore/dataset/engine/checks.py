"""Argument checks shared by the dataset constructors and operations."""
from __future__ import annotations

import os

import numpy as np

INT32_MAX = 2 ** 31 - 1


def check_int(op, arg, value, lo=None, hi=INT32_MAX):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', '{arg}' must be int, but got {type(value).__name__}.")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"For '{op}', '{arg}' must be within [{lo}, {hi}], but got {value}.")
    return int(value)


def check_count(op, arg, value):
    """A count that may be -1 (meaning all / forever) or a positive int."""
    check_int(op, arg, value, -1)
    if value == 0 or value < -1:
        raise ValueError(f"For '{op}', '{arg}' must be -1 or within (0, {INT32_MAX}], "
                         f"but got {value}.")
    return int(value)


def cpu_count():
    """MindSpore's upper bound for ``num_parallel_workers``: ``multiprocessing.cpu_count()``,
    every CPU of the machine (not only those this process may run on)."""
    return os.cpu_count() or 1


def check_workers(op, value):
    """``num_parallel_workers`` of every dataset source and operation: None (the global
    default) or an int in [1, number of CPUs], as MindSpore checks it."""
    if value is None:
        return None
    check_int(op, "num_parallel_workers", value, hi=None)
    limit = cpu_count()
    if not 1 <= value <= limit:
        raise ValueError(f"For '{op}', num_parallel_workers exceeds the boundary between 1 and "
                         f"{limit} (the number of CPUs), but got {value}.")
    return int(value)


def column_list(op, arg, value, allow_none=True):
    """``value`` (a name or a list of names) as a list of str; None passes through."""
    if value is None and allow_none:
        return None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names or \
            not all(isinstance(n, str) and n for n in names):
        raise TypeError(f"For '{op}', '{arg}' must be a non-empty str or list of str, but got "
                        f"{value!r}.")
    if len(set(names)) != len(names):
        raise ValueError(f"For '{op}', '{arg}' has duplicate names: {list(names)}.")
    return list(names)


def check_columns_exist(op, arg, names, available):
    missing = [n for n in names if n not in available]
    if missing:
        raise ValueError(f"For '{op}', {arg} {missing} do not exist in the dataset columns "
                         f"{list(available)}.")
