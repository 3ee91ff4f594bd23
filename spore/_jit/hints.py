"""Graph-compilation hints of MindSpore's API: ``jit_class``, ``lazy_inline``,
``no_inline`` and ``enable_dynamic``.

In MindSpore these steer how a graph is built: which user classes the compiler may
read (``jit_class``), which cells and functions stay separate sub-graphs instead of
being inlined (``lazy_inline``, ``no_inline``, a compile-time saving on Ascend), and
which arguments may change shape without a recompile (``enable_dynamic``). Spore's
capture reads any Python object and inlines every call, so the first three change no
result and are accepted with MindSpore's argument checks; ``enable_dynamic`` checks each
call's arguments against the declared shapes and dtypes with MindSpore's messages, and
marks the function as meant to see several shapes (no recompile warning).
"""
from __future__ import annotations

import functools
import inspect

from .._core.aval import conforms


def jit_class(cls):
    """Mark a user-defined class whose instances compiled code reads (``mindspore.jit_class``)."""
    from ..nn.cell import Cell
    if not inspect.isclass(cls):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be "
                        f"used for nn.Cell: {cls}.")
    cls.__ms_class__ = True
    return cls


def lazy_inline(fn=None, attrs=None, policy=None):
    """Decorator for a Cell's ``__init__`` (``mindspore.lazy_inline``): on Ascend it keeps
    the cell a reusable sub-graph; in Spore the cell is inlined, with the same results."""
    if policy not in (None, "front"):
        raise ValueError(f"For 'lazy_inline', 'policy' must be None or 'front', but got "
                         f"{policy!r}.")

    def wrap(init):
        @functools.wraps(init)
        def __init__(self, *args, **kwargs):
            init(self, *args, **kwargs)
        return __init__
    return wrap if fn is None else wrap(fn)


def no_inline(fn=None):
    """Decorator (``mindspore.no_inline``): on Ascend the function stays a reusable
    sub-graph; in Spore it is inlined, with the same results."""
    def mark(f):
        f.no_inline = True
        return f
    return mark if fn is None else mark(fn)


def enable_dynamic(**kwargs):
    """Declare arguments of a ``jit`` function whose shapes may change
    (``mindspore.enable_dynamic(y=Tensor(shape=[None, 3], dtype=ms.float32))``)."""
    from .._tensor import Tensor
    for name, value in kwargs.items():
        items = value if isinstance(value, (tuple, list)) else (value,)
        if not all(isinstance(v, Tensor) for v in items):
            raise TypeError(f"The decorator enable_dynamic only supports Tensor or a tuple/list "
                            f"of Tensor, but the argument : {name} is type of:{type(value)}.")

    def decorate(fn):
        from .api import JitFunction
        if not isinstance(fn, JitFunction):
            return fn                      # as in MindSpore: only jit functions check
        params = list(inspect.signature(fn.fn).parameters)
        declared = {}
        for name, value in kwargs.items():
            if name not in params:
                raise ValueError(f"'{name}' is not in list")
            declared[params.index(name)] = value
        fn.dynamic = 1
        fn.declared_args = declared
        return fn
    return decorate


def check_dynamic_args(declared, args):
    """MindSpore's errors for arguments that break ``enable_dynamic`` declarations."""
    for index, want in declared.items():
        if index >= len(args):
            continue
        got = args[index]
        pairs = zip(want, got) if isinstance(want, (tuple, list)) else ((want, got),)
        for w, g in pairs:
            if not hasattr(g, "shape") or not hasattr(g, "dtype"):
                continue
            if g.dtype != w.dtype:
                raise TypeError(f"When using decorator enable_dynamic, input tensor dtype = "
                                f"{g.dtype}, dynamic tensor dtype = {w.dtype}, tensor dtypes "
                                "are not the same.")
            if not conforms(w.shape, g.shape):
                ws, gs = tuple(w.shape), tuple(g.shape)
                raise ValueError(f"When using decorator enable_dynamic, input tensor shape = "
                                 f"{list(gs)}, dynamic tensor shape = {list(ws)}, tensor "
                                 "shapes are not the same.")
