"""``ms.Symbol``: what is known about a dynamic axis of a declared input.

A Symbol in ``Tensor(shape=(None, Symbol(divisor=8, remainder=1)), dtype=...)`` makes that
axis dynamic (-1 in the shape) and constrains the sizes a compiled Cell accepts: a
range (``min``/``max``), a form ``divisor * N + remainder`` with ``N >= 1``, and with
``unique=True`` every axis declared with the same Symbol has the same size. As in
MindSpore, the constraints are checked when a GRAPH_MODE Cell with ``set_inputs`` is
called (``check_sizes``); PyNative calls do not check them.
"""
from __future__ import annotations

import numbers


class Symbol:
    """Symbolic information about one dynamic dimension (``mindspore.Symbol``)."""

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):  # noqa: A002
        for name, value in (("max", max), ("min", min), ("divisor", divisor),
                            ("remainder", remainder)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool):
                raise TypeError(f"For 'Symbol', the argument '{name}' must be int, but got "
                                f"{type(value)}")
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', the argument 'unique' must be bool, but got "
                            f"{type(unique)}")
        if min <= 0:
            raise ValueError(f"For 'Symbol', the 'min' value should be positive, but got {min}")
        if divisor <= 0:
            raise ValueError(f"For 'Symbol', the 'divisor' value should be positive, but got "
                             f"{divisor}")
        if not 0 <= remainder < divisor:
            raise ValueError(f"For 'Symbol', the 'remainder' value should be in the range "
                             f"'[0, {divisor})', but got {remainder}")
        self.max, self.min = int(max), int(min)
        self.divisor, self.remainder = int(divisor), int(remainder)
        self.unique = unique

    def __str__(self):
        info = {}
        if self.max > self.min:
            info["max"] = self.max
        if self.min != 1:
            info["min"] = self.min
        if self.divisor != 1:
            info["divisor"] = self.divisor
        if self.remainder:
            info["remainder"] = self.remainder
        info["id"] = id(self)
        return str(info)

    def __repr__(self):
        return f"Symbol({self})"


def check_sizes(symbols, shape, arg_index):
    """Raise MindSpore's ValueError when ``shape`` breaks the Symbols of its declaration
    (``symbols``: a Symbol or None per axis)."""
    seen = {}
    where = f"of {arg_index + 1}th actual input args"
    for axis, (sym, n) in enumerate(zip(symbols, shape)):
        if sym is None:
            continue
        tail = f"Actual shape: {list(shape)}, axis: {axis}."
        nth = f"The {axis + 1}th shape value {where}"
        if sym.max > sym.min and n > sym.max:
            raise ValueError(f"{nth} must be less than or equal to the 'max' value "
                             f"'{sym.max}' of `Symbol`, but got '{n}'. {tail}")
        if n < sym.min:
            raise ValueError(f"{nth} must be greater than or equal to the 'min' value "
                             f"'{sym.min}' of `Symbol`, but got '{n}'. {tail}")
        d, r = sym.divisor, sym.remainder
        if (d != 1 or r) and (n < d + r or (n - r) % d):
            raise ValueError(f"{nth} must match the 'divisor'(d) and 'remainder'(d) of "
                             f"`Symbol`. The value should be 'd * N + r' for 'N > 0', got "
                             f"d={d} and r={r}, but actual shape value is '{n}'. {tail}")
        if sym.unique:
            prev = seen.setdefault(id(sym), n)
            if prev != n:
                raise ValueError(f"{nth} is a unique symbol, all values must be the same. "
                                 f"The previous value is {prev}, but the current value is "
                                 f"{n}. {tail}")
