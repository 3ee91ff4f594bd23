"""Argument checks shared by the layers (and the optimizers), with MindSpore's messages."""
from __future__ import annotations

from ..._tensor import Tensor


def where(owner):
    """The start of MindSpore's argument messages: "For 'Dense', the" or "The"."""
    return f"For '{owner}', the" if owner else "The"


def positive_int(value, arg, owner=None):
    if isinstance(value, bool):
        raise TypeError(f"{where(owner)} '{arg}' must be int and must > 0, but got "
                        f"'{value}' with type 'bool'.")
    if not isinstance(value, int):
        raise TypeError(f"{where(owner)} '{arg}' must be int, but got "
                        f"'{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"{where(owner)} '{arg}' must be int and must > 0, but got "
                         f"'{value}' with type 'int'.")
    return value


def non_negative_int(value, arg, owner):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{owner}', the '{arg}' must be int, but got "
                        f"'{type(value).__name__}'")
    if value < 0:
        raise ValueError(f"For '{owner}', the '{arg}' must be int and must >= 0, but got "
                         f"'{value}' with type 'int'.")
    return value


def boolean(value, arg, owner):
    if not isinstance(value, bool):
        raise TypeError(f"For '{owner}', the '{arg}' must be a bool, but got "
                        f"{type(value).__name__}.")
    return value


def one_of(value, arg, choices, owner):
    if value not in choices:
        raise ValueError(f"For '{owner}', the '{arg}' must be one of {list(choices)}, but got "
                         f"{value}.")
    return value


def float_in(value, arg, lo, hi, owner, closed=(True, True)):
    """A float within [lo, hi] (ends open where ``closed`` says False)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{owner}', the '{arg}' must be float, but got "
                        f"{type(value).__name__}.")
    ok_lo = value >= lo if closed[0] else value > lo
    ok_hi = value <= hi if closed[1] else value < hi
    if not (ok_lo and ok_hi):
        left = "[" if closed[0] else "("
        right = "]" if closed[1] else ")"
        raise ValueError(f"For '{owner}', the '{arg}' must be a number in range "
                         f"{left}{lo}, {hi}{right}, but got {value}.")
    return value


def int_tuple(value, n, arg, owner, allow_zero=False):
    """An int or a tuple of ``n`` ints (each positive, or non-negative) as a tuple."""
    items = (value,) * n if isinstance(value, int) and not isinstance(value, bool) else value
    if not isinstance(items, (tuple, list)) or len(items) != n or any(
            isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise TypeError(f"For '{owner}', the '{arg}' must be an int or a tuple of {n} ints, "
                        f"but got {value!r}.")
    low = 0 if allow_zero else 1
    if any(v < low for v in items):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"For '{owner}', every element of '{arg}' must be {bound}, but got "
                         f"{value!r}.")
    return tuple(items)


def tensor_input(x, owner, arg="x"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{owner}', the input '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    return x


def rank(x, ranks, owner, arg="x"):
    if x.ndim not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"For '{owner}', the dimension of '{arg}' must be {want}, but got "
                         f"{x.ndim} (shape {tuple(x.shape)}).")
    return x
