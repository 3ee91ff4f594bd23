"""Utility ops: depend, stop_gradient, identity, Print, assign."""
from __future__ import annotations

from .._core import primitive as P
from .._prims import math as M
from .._prims.array import assign_p
from .._prims.special import copy_p, depend_p, print_p, stop_gradient_p

__all__ = ["depend", "stop_gradient", "identity", "deepcopy", "print_", "assign", "assign_add",
           "assign_sub"]


def depend(value, expr):
    """Return ``value``, ordered after ``expr`` (which may be a tensor, a tuple of them or
    anything else) when the code is compiled as a graph."""
    deps = [d for d in _flatten(expr) if isinstance(d, P._Tensor)]
    if not isinstance(value, P._Tensor):
        return value
    return depend_p(value, *deps)


def _flatten(x):
    if isinstance(x, (tuple, list)):
        for v in x:
            yield from _flatten(v)
    else:
        yield x


def stop_gradient(value):
    """The same values, with no gradient flowing back through them."""
    if isinstance(value, (tuple, list)):
        return type(value)(stop_gradient(v) for v in value)
    if not isinstance(value, P._Tensor):
        return value
    return stop_gradient_p(value)


def identity(input):
    """A copy of ``input`` (its own memory; gradients pass through)."""
    return copy_p(input)


def deepcopy(input_x):
    return copy_p(input_x)


def print_(*args):
    """Print each argument on its own line when executed: strings as-is, tensors in repr form."""
    spec, tensors = [], []
    for a in args:
        if isinstance(a, P._Tensor):
            spec.append(("tensor", len(tensors)))
            tensors.append(a)
        else:
            spec.append(("str", a if isinstance(a, str) else str(a)))
    print_p(*tensors, spec=tuple(spec))
    return None


def assign(variable, value):
    """Write ``value`` into ``variable`` in place and return the updated variable."""
    return assign_p(variable, value)


def assign_add(variable, value):
    return assign_p(variable, M.add_p(variable, value))


def assign_sub(variable, value):
    return assign_p(variable, M.sub_p(variable, value))
