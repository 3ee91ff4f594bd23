"""Backends: where arrays live and which array module computes on them.

A backend is named by its device ("CPU", "GPU") and carries its array module
(``numpy``; ``cupy`` once the GPU issue lands). Kernels are written once as
*factories* ``make(xp) -> kernel``, so adding a backend never touches an op
definition: the registry asks each factory for the new backend's kernel.
"""
from __future__ import annotations

import numpy as np


class Backend:
    __slots__ = ("name", "xp", "array_type")

    def __init__(self, name, xp, array_type):
        self.name = name
        self.xp = xp
        self.array_type = array_type

    def __repr__(self):
        return f"Backend({self.name})"


CPU = Backend("CPU", np, np.ndarray)

_BY_ARRAY_TYPE = {np.ndarray: CPU}
_BY_NAME = {"CPU": CPU}


def register(backend: Backend):
    """Make a backend known; primitives build its kernels lazily on first use."""
    _BY_ARRAY_TYPE[backend.array_type] = backend
    _BY_NAME[backend.name] = backend


def of_array(arr) -> Backend:
    try:
        return _BY_ARRAY_TYPE[type(arr)]
    except KeyError:
        for t, b in _BY_ARRAY_TYPE.items():
            if isinstance(arr, t):
                return b
        raise TypeError(f"no Spore backend handles arrays of type {type(arr).__name__}") from None


def by_name(name) -> Backend:
    return _BY_NAME[name]


def available():
    return tuple(_BY_NAME)
