"""MindSpore's functional helpers for applying functions over structures."""
from __future__ import annotations

import functools

from .._tensor import Tensor

partial = functools.partial


class MultitypeFuncGraph:
    """A function overloaded on argument types: register implementations by type names
    (``"Tensor"``, ``"Number"``, ``"Tuple"``, ``"List"``, ``"Bool"``, ``"String"``)."""

    def __init__(self, name, read_value=False):
        self.name = name
        self._entries = []

    def register(self, *type_names):
        def deco(fn):
            self._entries.append((type_names, fn))
            return fn
        return deco

    def __call__(self, *args):
        for types, fn in self._entries:
            if len(types) == len(args) and all(_matches(t, a) for t, a in zip(types, args)):
                return fn(*args)
        raise TypeError(f"'{self.name}' has no implementation registered for argument types "
                        f"{[type(a).__name__ for a in args]}.")


def _matches(type_name, value):
    checks = {
        "Tensor": lambda v: isinstance(v, Tensor),
        "Number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "Bool": lambda v: isinstance(v, bool),
        "Tuple": lambda v: isinstance(v, tuple),
        "List": lambda v: isinstance(v, list),
        "String": lambda v: isinstance(v, str),
        "None": lambda v: v is None,
        "Function": callable,
    }
    check = checks.get(type_name)
    return check(value) if check else False


class HyperMap:
    """Apply ``ops`` elementwise over tuples/lists of arguments (nested structures mapped)."""

    def __init__(self, ops=None, reverse=False):
        self.ops = ops

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        if not seqs or not isinstance(seqs[0], (tuple, list)):
            return fn(*seqs)
        n = len(seqs[0])
        if any(len(s) != n for s in seqs):
            raise ValueError("The tuples in HyperMap should have the same length.")
        return tuple(HyperMap(fn)(*items) if isinstance(items[0], (tuple, list)) else fn(*items)
                     for items in zip(*seqs))


Map = HyperMap
