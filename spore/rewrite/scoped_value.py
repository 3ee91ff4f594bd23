"""``ScopedValue``: one argument or target of a rewrite ``Node`` (MindSpore's
``mindspore.rewrite.ScopedValue``).

A value is a name (``x``, or ``self.fc`` with scope ``self``), a constant, a container of
constants, an arbitrary Python object (a Tensor, an array: kept by reference, not as
source text) or an expression the parser keeps as it was written (``UnsupportedValue``).
"""
from __future__ import annotations

import ast
import enum


class ValueType(enum.Enum):
    """The kind of a ScopedValue (MindSpore's numbering)."""
    ConstantValue = 0
    TupleValue = 20
    ListValue = 21
    DictValue = 22
    NamingValue = 40
    CustomObjValue = 41
    UnsupportedValue = 50


_CONSTANTS = (int, float, str, bool, type(None))
_CONTAINERS = {tuple: ValueType.TupleValue, list: ValueType.ListValue,
               dict: ValueType.DictValue}


def _type_error(arg, expected, value):
    return TypeError(f"For 'ScopedValue', the type of '{arg}' should be '{expected}', but got "
                     f"type '{type(value).__name__}'.")


class ScopedValue:
    """An argument or target of a Node.

    Args:
        arg_type (ValueType): the kind of value.
        scope (str): where a name lives (``"self"`` for ``self.fc``); ``""`` for locals.
        value: the name (a str) or the value itself.
    """

    def __init__(self, arg_type: ValueType, scope: str = "", value=None):
        if not isinstance(arg_type, ValueType):
            raise _type_error("arg_type", "ValueType", arg_type)
        if not isinstance(scope, str):
            raise _type_error("scope", "str", scope)
        self.type = arg_type
        self.scope = scope
        self.value = value

    @classmethod
    def create_variable_value(cls, value) -> "ScopedValue":
        """A ScopedValue holding ``value``: a constant (int, float, str, bool, None), a
        tuple/list/dict, or any other object (kept by reference)."""
        if isinstance(value, ScopedValue):
            return value
        if isinstance(value, _CONSTANTS):
            return cls(ValueType.ConstantValue, "", value)
        if type(value) in _CONTAINERS:
            return cls(_CONTAINERS[type(value)], "", value)
        return cls(ValueType.CustomObjValue, "", value)

    @classmethod
    def create_naming_value(cls, name: str, scope: str = "") -> "ScopedValue":
        """The name ``name`` (``scope.name`` when a scope is given, e.g. ``self.fc``)."""
        if not isinstance(name, str):
            raise _type_error("name", "str", name)
        if not isinstance(scope, str):
            raise _type_error("scope", "str", scope)
        return cls(ValueType.NamingValue, scope, name)

    @staticmethod
    def create_name_values(names, scopes=None) -> list:
        """One naming value per name, with the matching scope (``""`` when none given)."""
        if not isinstance(names, (list, tuple)):
            raise _type_error("names", "list or tuple", names)
        if scopes is not None:
            if not isinstance(scopes, (list, tuple)):
                raise _type_error("scopes", "list or tuple", scopes)
            if len(scopes) != len(names):
                raise ValueError("Length of names should be equal to length of scopes")
        else:
            scopes = [""] * len(names)
        return [ScopedValue.create_naming_value(n, s) for n, s in zip(names, scopes)]

    def __str__(self):
        if self.type == ValueType.ConstantValue:
            return str(self.value)
        if self.type == ValueType.NamingValue:
            return f"{self.scope}.{self.value}" if self.scope else str(self.value)
        if self.type == ValueType.CustomObjValue:
            return f"CustomObj: {self.value}"
        return f"Illegal ValueType: {self.type}"

    __repr__ = __str__

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, ScopedValue) or self.type != other.type \
                or self.scope != other.scope:
            return False
        if self.type == ValueType.UnsupportedValue:
            return ast.dump(self.value) == ast.dump(other.value)
        if self.type == ValueType.CustomObjValue:
            return self.value is other.value
        return type(self.value) is type(other.value) and self.value == other.value

    def __hash__(self):
        if self.type in (ValueType.ConstantValue, ValueType.NamingValue):
            return hash((self.type, self.scope, self.value))
        return hash((self.type, self.scope))


def _unsupported(expr):
    """An expression kept as written (regenerated with ``ast.unparse``)."""
    return ScopedValue(ValueType.UnsupportedValue, "", expr)
