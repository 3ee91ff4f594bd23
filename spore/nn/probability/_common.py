"""Parameter handling shared by distributions and bijectors: MindSpore's calling
convention, where a parameter given at construction is the default of every method and
one passed to a method overrides it for that call."""
from __future__ import annotations

import numpy as np

from ..._dtype import float32
from ..._tensor import Tensor
from ..cell import Cell


def as_param(value, dtype, owner, name):
    """A constructor argument as a tensor of the distribution's float dtype (None stays)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else value.astype(dtype)
    if isinstance(value, (bool, int, float, list, tuple, np.ndarray, np.generic)):
        return Tensor(np.asarray(value, dtype=np.float32)).astype(dtype)
    raise TypeError(f"For '{owner}', the parameter '{name}' must be a Tensor, a number or a "
                    f"list, but got {type(value).__name__}.")


def pick(owner, names, defaults, given, dtype):
    """The parameters of one call: each given value, or the construction default; a
    parameter with neither is an error naming it."""
    out = []
    for k, name in enumerate(names):
        value = given[k] if k < len(given) else None
        if value is None:
            value = defaults[name]
        else:
            value = as_param(value, dtype, owner, name)
        if value is None:
            raise ValueError(f"For '{owner}', the parameter '{name}' must be given at "
                             "construction or in the call.")
        out.append(value)
    return out


class ParamCell(Cell):
    """A Cell with named parameters given at construction or per call (``_defaults``:
    name -> tensor or None), the base of distributions and bijectors."""

    _param_names = ()
    _name = ""
    _dtype = float32

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def _dist_params(self, given):
        return pick(self._name, self._param_names, self._defaults, given, float32)
