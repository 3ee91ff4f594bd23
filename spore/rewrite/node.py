"""``Node``: one statement (or one call pulled out of a statement) of a Cell's
``construct``, as MindSpore's ``mindspore.rewrite.Node`` models it.

A call node regenerates its statement from its targets, callee and arguments, so editing
those (``set_arg``) edits the code; a ``Python`` or ``ControlFlow`` node keeps its
statement's syntax tree (a control-flow node also holds the nodes of its body).
"""
from __future__ import annotations

import enum
import inspect
import types

from .scoped_value import ScopedValue, ValueType


class NodeType(enum.Enum):
    """What a Node does (MindSpore's numbering)."""
    Unknown = 0
    CallCell = 1
    CallPrimitive = 2
    CallModule = 3
    CallFunction = 4
    CallMethod = 5
    Python = 6
    Input = 7
    Output = 8
    Tree = 9
    CellContainer = 10
    MathOps = 11
    ControlFlow = 12


_CALLS = (NodeType.CallCell, NodeType.CallPrimitive, NodeType.CallFunction,
          NodeType.CallMethod, NodeType.Tree, NodeType.CellContainer, NodeType.CallModule)


def _node_type_error(arg, expected, value):
    return TypeError(f"For 'Node', the type of '{arg}' should be one of '{expected}', but got "
                     f"type '{type(value).__name__}'.")


def _targets(targets):
    if not isinstance(targets, (list, tuple)):
        raise _node_type_error("targets", ["list", "tuple"], targets)
    out = []
    for t in targets:
        if isinstance(t, str):
            t = ScopedValue.create_naming_value(t)
        elif not isinstance(t, ScopedValue):
            raise TypeError(f"For 'Node', the type of 'targets' should be one of ['ScopedValue', "
                            f"'str'], but got '{t}' with type '{type(t).__name__}'.")
        out.append(t)
    return out


def _args(args, kwargs):
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(args, (list, tuple)):
        raise _node_type_error("args", ["list", "tuple"], args)
    if not isinstance(kwargs, dict):
        raise _node_type_error("kwargs", ["dict"], kwargs)
    for a in list(args) + list(kwargs.values()):
        if not isinstance(a, ScopedValue):
            raise TypeError(f"For 'Node', the type of 'args' should be ScopedValue, but got "
                            f"'{a}' with type '{type(a).__name__}'.")
    return list(args), dict(kwargs)


def _check_kwargs(fn, kwargs):
    """MindSpore matches keyword arguments against the callee's signature."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return
    names = {p.name for p in params}
    if any(k not in names for k in kwargs):
        raise RuntimeError("Input kwargs invalid.")


class Node:
    """One node of a SymbolTree. Build new ones with ``Node.create_call_cell`` or
    ``Node.create_call_function`` and put them in a tree with ``SymbolTree.insert``."""

    def __init__(self, node_type=NodeType.Unknown, name="", targets=(), args=(), kwargs=None,
                 func=None, instance=None, stmt=None):
        self._type = node_type
        self._name = name
        self._targets = list(targets)
        self._args = list(args)
        self._kwargs = dict(kwargs or {})
        self._func = func           # ScopedValue naming the callee (``self.fc``, ``ops.abs``)
        self._instance = instance   # the Cell / Primitive / function called
        self._stmt = stmt           # syntax tree of a Python / ControlFlow / Input node
        self._blocks = {}           # ControlFlow: {"body": [...], "orelse": [...]}
        self._sub_tree = None       # Tree: the sub-network's SymbolTree
        self._tree = None           # the SymbolTree holding this node
        self._attributes = {}
        self._param = None          # Input: (kind, default ScopedValue or None)
        self._new = False           # built by create_call_*: its callee is not in the source

    # ------------------------------------------------------------------ creation
    @staticmethod
    def create_call_cell(cell, targets, args=None, kwargs=None, name: str = "",
                         is_sub_net: bool = False) -> "Node":
        """A node calling ``cell`` (a Cell or a Primitive): ``targets = self.<name>(*args,
        **kwargs)``; the cell becomes an attribute of the regenerated network. With
        ``is_sub_net=True`` the cell's own construct is parsed into a sub-tree."""
        from ..nn import Cell
        from ..ops import Primitive
        if not isinstance(cell, (Cell, Primitive)):
            raise _node_type_error("cell", ["Cell", "Primitive"], cell)
        targets = _targets(targets)
        args, kwargs = _args(args, kwargs)
        if not isinstance(name, str):
            raise _node_type_error("name", ["str"], name)
        _check_kwargs(cell.construct if isinstance(cell, Cell) else cell, kwargs)
        node = Node(NodeType.CallCell, name, targets, args, kwargs,
                    ScopedValue.create_naming_value(name, "self"), cell)
        node._new = True
        if isinstance(cell, Primitive):
            node._type = NodeType.CallPrimitive
        elif is_sub_net:
            from .symbol_tree import SymbolTree
            node._type = NodeType.Tree
            node._sub_tree = SymbolTree.create(cell)
        return node

    @staticmethod
    def create_call_function(function, targets, args=None, kwargs=None) -> "Node":
        """A node calling ``function``: ``targets = function(*args, **kwargs)``."""
        if not isinstance(function, (types.FunctionType, type, types.BuiltinFunctionType)):
            raise TypeError(f"For 'create_call_function', the type of 'function' should be one "
                            f"of '['function', 'type', 'builtin_function_or_method']', but got "
                            f"type '{type(function).__name__}'.")
        targets = _targets(targets)
        args, kwargs = _args(args, kwargs)
        _check_kwargs(function, kwargs)
        name = function.__name__
        node = Node(NodeType.CallFunction, name, targets, args, kwargs,
                    ScopedValue.create_naming_value(name), function)
        node._new = True
        return node

    @staticmethod
    def create_input(param_name: str, default=None) -> "Node":
        """An input (a parameter of ``construct``), with an optional default value."""
        if not isinstance(param_name, str):
            raise _node_type_error("param_name", ["str"], param_name)
        if default is not None and not isinstance(default, ScopedValue):
            raise _node_type_error("default", ["ScopedValue"], default)
        node = Node(NodeType.Input, "input_" + param_name,
                    [ScopedValue.create_naming_value(param_name)])
        node._param = ("arg", default)
        return node

    # ------------------------------------------------------------------ reading
    def get_handler(self) -> "Node":
        return self

    def get_name(self) -> str:
        return self._name

    def get_node_type(self) -> NodeType:
        return self._type

    def get_instance(self):
        """The Cell, Primitive or function this node calls (None for other nodes)."""
        return self._instance

    def get_instance_type(self) -> type:
        return type(self._instance)

    def get_targets(self) -> list:
        return list(self._targets)

    def get_args(self) -> list:
        return list(self._args)

    def get_kwargs(self) -> dict:
        return dict(self._kwargs)

    def get_sub_tree(self):
        """The SymbolTree of a ``Tree`` node's sub-network."""
        if self._type != NodeType.Tree:
            raise TypeError(f"For 'get_sub_tree', the node '{self._name}' should be a Tree "
                            f"node, but got {self._type}.")
        return self._sub_tree

    def get_symbol_tree(self):
        return self._tree

    def get_inputs(self) -> list:
        """The nodes whose outputs this node reads."""
        return [] if self._tree is None else self._tree._impl._inputs_of(self)

    def get_users(self) -> list:
        """The nodes reading this node's outputs."""
        return [] if self._tree is None else self._tree._impl._users_of(self)

    def get_arg_providers(self) -> dict:
        """{argument index: (node providing it, index of that node's target)}."""
        out = {}
        if self._tree is None:
            return out
        for i, arg in enumerate(self._args):
            found = self._tree._impl._provider(self, arg)
            if found is not None:
                out[i] = found
        return out

    def get_target_users(self, index=-1):
        """{target index: [(user node, argument index)]}, or the list of one target."""
        users = {i: [] for i in range(len(self._targets))}
        if self._tree is not None:
            for user in self._users_of_self():
                for arg_index, (src, out_index) in user.get_arg_providers().items():
                    if src is self and out_index in users:
                        users[out_index].append((user, arg_index))
        if index == -1:
            return users
        if not 0 <= index < len(self._targets):
            raise ValueError(f"For 'get_target_users', index {index} is out of range of the "
                             f"{len(self._targets)} targets of '{self._name}'.")
        return users[index]

    def _users_of_self(self):
        return self._tree._impl._users_of(self)

    # ------------------------------------------------------------------ editing
    def set_arg(self, index: int, arg) -> None:
        """Replace argument ``index`` (a ScopedValue, or a str naming a variable)."""
        if isinstance(arg, str):
            arg = ScopedValue.create_naming_value(arg)
        if not isinstance(arg, ScopedValue):
            raise _node_type_error("arg", ["ScopedValue", "str"], arg)
        if not isinstance(index, int) or not 0 <= index < len(self._args):
            raise ValueError(f"For 'set_arg', index {index} is out of range of the "
                             f"{len(self._args)} arguments of '{self._name}'.")
        self._args[index] = arg

    def set_arg_by_node(self, arg_idx: int, src_node: "Node", out_idx=None) -> None:
        """Make argument ``arg_idx`` read target ``out_idx`` of ``src_node``."""
        if not isinstance(src_node, Node):
            raise _node_type_error("src_node", ["Node"], src_node)
        targets = src_node._targets
        if out_idx is None:
            if len(targets) != 1:
                raise RuntimeError("Node has more than one output, please specify out_idx")
            out_idx = 0
        if not 0 <= out_idx < len(targets):
            raise RuntimeError(f"out_idx {out_idx} is out of range of the {len(targets)} "
                               f"targets of '{src_node._name}'.")
        self.set_arg(arg_idx, targets[out_idx])

    def set_attribute(self, key: str, value) -> None:
        if not isinstance(key, str):
            raise _node_type_error("key", ["str"], key)
        self._attributes[key] = value

    def get_attribute(self, key: str):
        return self._attributes.get(key)

    def get_attributes(self) -> dict:
        return dict(self._attributes)

    # ------------------------------------------------------------------ helpers
    def _nodes(self):
        """This node then, for a control-flow node, the nodes of its blocks in order."""
        yield self
        for block in self._blocks.values():
            for n in block:
                yield from n._nodes()

    def _is_call(self):
        return self._type in _CALLS

    def __repr__(self):
        return f"Node(name={self._name!r}, type={self._type})"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


def _naming(sv):
    return sv.type == ValueType.NamingValue
