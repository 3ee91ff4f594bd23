"""``ms.mutable``: mark Python scalars (and containers of them) as values a compiled
function takes as inputs rather than compile-time constants, so a new value does not
compile the function again."""
from __future__ import annotations

import numpy as np

from .._core import primitive as P


class _Int(int):
    """A mutable int: an int in Python, a 0-d int64 tensor input of a compiled function."""


class _Float(float):
    """A mutable float: a float in Python, a 0-d float32 tensor input when compiled."""


class _Tuple(tuple):
    pass


class _List(list):
    pass


class _Dict(dict):
    pass


_ALLOWED = "(bool, int, float, Tensor, tuple, list, dict)"


def mutable(input_data, dynamic_len=False):
    """Mark ``input_data`` as variable for ``ms.jit``: Python numbers in it become tensor
    inputs of the compiled graph (one compilation serves every value); Tensors stay as
    they are. Other types raise TypeError, as in MindSpore.

    Examples:
        >>> import numpy as np
        >>> import spore as ms
        >>> f = ms.jit(lambda x, s: x * s)
        >>> f(ms.Tensor(np.ones(2, np.float32)), ms.mutable(3.0))
        Tensor(shape=[2], dtype=Float32, value= [ 3.00000000e+00,  3.00000000e+00])
    """
    return _mark(input_data, input_data, set())


def _mark(x, top, seen):
    if isinstance(x, P._Tensor):
        return x
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return _Int(x)
    if isinstance(x, float):
        return _Float(x)
    if isinstance(x, (tuple, list, dict)):
        if id(x) in seen:
            raise TypeError(f"For 'mutable', the 'input_data' should be one of {_ALLOWED} or "
                            "their nested structures with no self-reference, but got a "
                            "self-referencing structure.")
        seen = seen | {id(x)}
        if isinstance(x, dict):
            return _Dict({k: _mark(v, top, seen) for k, v in x.items()})
        items = [_mark(v, top, seen) for v in x]
        return _List(items) if isinstance(x, list) else _Tuple(items)
    raise TypeError(f"For 'mutable', the 'input_data' should be one of {_ALLOWED} or their "
                    f"nested structures with no self-reference, but got "
                    f"{type(x).__name__}: {x}.")


def as_tensor(x):
    """The tensor a mutable scalar is passed to a compiled function as."""
    if isinstance(x, _Int):
        return P._Tensor(np.asarray(int(x), np.int64))
    return P._Tensor(np.asarray(float(x), np.float32))


MUTABLE_SCALARS = (_Int, _Float)
