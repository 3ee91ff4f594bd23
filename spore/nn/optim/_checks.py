"""Argument checks for optimizers and learning-rate schedules, with MindSpore's messages.

MindSpore validates hyper-parameters eagerly at construction, raising TypeError for a
wrong type and ValueError for an out-of-range value; these helpers give the same
types and wording so that scripts checking for them behave the same.
"""
from __future__ import annotations

from ..layer._checks import positive_int as check_positive_int  # noqa: F401 (re-exported)
from ..layer._checks import where as _where


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _check_number(value, name, cls_name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{_where(cls_name)} '{name}' must be float, but got "
                        f"'{type(value).__name__}'")


def check_positive_float(value, name, cls_name=None):
    _check_number(value, name, cls_name)
    if not value > 0:
        raise ValueError(f"{_where(cls_name)} '{name}' must be float and must > 0, but got "
                         f"'{value}' with type '{type(value).__name__}'.")
    return value


def check_non_negative_float(value, name, cls_name=None):
    _check_number(value, name, cls_name)
    if not value >= 0:
        raise ValueError(f"{_where(cls_name)} '{name}' must be float and must >= 0, but got "
                         f"'{value}' with type '{type(value).__name__}'.")
    return value


def check_is_float(value, name, cls_name=None):
    if not isinstance(value, float):
        raise TypeError(f"{_where(cls_name)} '{name}' must be float, but got "
                        f"'{type(value).__name__}'")
    return value


def check_type(name, value, types, cls_name=None):
    """``isinstance`` check; bool is not accepted where int or float is asked for."""
    types = types if isinstance(types, tuple) else (types,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        want = types[0].__name__ if len(types) == 1 else [t.__name__ for t in types]
        shown = f"'{want}'" if len(types) == 1 else f"one of '{want}'"
        raise TypeError(f"{_where(cls_name)} type of '{name}' should be {shown}, but got type "
                        f"'{type(value).__name__}'.")
    return value


def check_open_unit_interval(value, name, cls_name=None):
    """A float strictly between 0 and 1 (Adam's betas)."""
    check_type(name, value, float, cls_name)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{_where(cls_name)} '{name}' must be in range of (0.0, 1.0), but got "
                         f"{value} with type 'float'.")
    return value


def check_float_arg(value, name, cls_name):
    """A float hyper-parameter that must be >= 0 ('the argument ... must be type of float')."""
    if not isinstance(value, float):
        raise TypeError(f"For '{cls_name}', the argument '{name}' must be type of float, but got "
                        f"'{name}' type: {type(value)}.")
    return check_non_negative_float(value, name, cls_name)
