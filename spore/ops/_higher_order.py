"""MindSpore's functional helpers for applying functions over structures."""
from __future__ import annotations

import contextlib
import functools

from .._autodiff import vmap as V
from .._prims._batching import stack
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


# --------------------------------------------------------------------------- vmap
# The batching transform is spore/_autodiff/vmap.py; over a CellList it is MindSpore's
# model ensembling, vmap over models of one structure.
def vmap(fn, in_axes=0, out_axes=0):
    """``fn`` mapped over an axis of its inputs (see NOTE: [Batching]).

    Args:
        fn: a function or Cell (its parameters are shared by every example), or a
            ``CellList`` of models with the same structure: the models run as one batch,
            model i on example i (``in_axes=None`` gives every model the same inputs).
        in_axes: int, None, or a tuple/list with one entry per argument; an entry is
            an int, None, or a nested tuple/list/dict matching that argument.
        out_axes: the same for the outputs; None leaves an output that does not
            depend on the batch unbatched.
    """
    from ..nn import CellList         # nn imports ops
    if isinstance(fn, CellList):
        models = list(fn)
        slots = _parameter_slots(models)
        return V.vmap_models(models[0], len(models), _binder(models, slots), in_axes,
                             out_axes)
    return V.vmap(fn, in_axes, out_axes)


def _slots_of(cell):
    """(owning cell, attribute name) of each parameter of ``cell``, in a fixed order."""
    slots = []
    for _, sub in cell.cells_and_names():
        if sub._param_tuples:
            raise NotImplementedError(
                f"For 'vmap', model ensembling over Cells that hold a ParameterTuple "
                f"('{type(sub).__name__}') is not supported.")
        slots += [(sub, name) for name in sub._params]
    return slots


def _parameter_slots(models):
    slots = [_slots_of(m) for m in models]
    for other in slots[1:]:
        if len(other) != len(slots[0]):
            raise ValueError(f"Parameter size of each cell should be consistent, but get "
                             f"{len(slots[0])} and {len(other)}.")
        for (c0, n0), (c, n) in zip(slots[0], other):
            s0, s = c0._params[n0].shape, c._params[n].shape
            if s0 != s:
                raise ValueError(f"For 'vmap', the models of the CellList must have the same "
                                 f"structure, but parameter '{n0}' has shape {list(s0)} in "
                                 f"the first and {list(s)} in another.")
    return slots


def _binder(models, slots):
    """While entered, the first model's parameters are the models' parameters stacked,
    batched along the models (stacked with ops, so gradients reach each model's own)."""
    @contextlib.contextmanager
    def bind(batch):
        owners = slots[0]
        saved = [cell._params[name] for cell, name in owners]
        for k, (cell, name) in enumerate(owners):
            column = [s[k][0]._params[s[k][1]] for s in slots]
            cell.__dict__[name] = batch(stack(column))
        try:
            yield
        finally:
            for (cell, name), param in zip(owners, saved):
                cell.__dict__[name] = param
    return bind
