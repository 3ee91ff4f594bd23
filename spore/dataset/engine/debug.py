"""Debug mode hooks (``config.set_debug_mode``): in debug mode every ``map`` runs in the
calling thread and calls each hook after each of its operations, so a ``pdb`` breakpoint
or a print in a hook sees the rows as they are transformed."""
from __future__ import annotations

import numpy as np


class DebugHook:
    """Base of debug hooks: override ``compute(self, *args)``, which receives the values a
    ``map`` operation produced and returns the values passed on (``args`` unchanged by
    default)."""

    def __init__(self, prev_op_name=None):
        self.prev_op_name = prev_op_name

    def compute(self, *args):
        return args

    def __call__(self, *args):
        out = self.compute(*args)
        return args if out is None else tuple(out) if isinstance(out, (list, tuple)) \
            else (out,)

    def set_previous_op_name(self, prev_op_name):
        self.prev_op_name = prev_op_name


class PrintMetaDataHook(DebugHook):
    """The default hook: prints the shape and dtype of each value after each operation."""

    def compute(self, *args):
        print(f"[Dataset debugger] After operation {self.prev_op_name}:")
        for k, value in enumerate(args):
            array = np.asarray(value) if not isinstance(value, dict) else None
            meta = "a dict" if array is None else f"shape {array.shape}, dtype {array.dtype}"
            print(f"  column {k}: {meta}")
        return args
