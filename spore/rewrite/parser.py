"""Parse a Cell's ``construct`` source into rewrite Nodes, as MindSpore's rewrite does.

Each statement becomes a node; a call nested in a call's arguments, an operand or a
returned value is pulled out into a node of its own that assigns a fresh ``<name>_var``
variable (``return self.act(self.d(x))`` becomes ``d_var = self.d(x)``, ``act_var =
self.act(d_var)``, ``return act_var``). ``if``/``for``/``while`` become ControlFlow nodes
holding the nodes of their blocks. What the parser does not model (subscripts, lambdas,
conditional expressions, ``and``/``or``, which must keep their short-circuit) stays as
written: as an ``UnsupportedValue`` argument, or as a ``Python`` node for a statement. A
subscript is pulled out as written into a ``subscript_var`` node.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types

from .node import Node, NodeType
from .scoped_value import ScopedValue, ValueType, _unsupported

_OP_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mult", ast.Div: "div",
             ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmult",
             ast.LShift: "lshift", ast.RShift: "rshift", ast.BitOr: "bitor",
             ast.BitXor: "bitxor", ast.BitAnd: "bitand", ast.USub: "usub", ast.UAdd: "uadd",
             ast.Not: "not", ast.Invert: "invert", ast.Eq: "eq", ast.NotEq: "noteq",
             ast.Lt: "lt", ast.LtE: "lte", ast.Gt: "gt", ast.GtE: "gte", ast.Is: "is",
             ast.IsNot: "isnot", ast.In: "in", ast.NotIn: "notin"}


def construct_source(cls):
    """(class defining construct, its FunctionDef, its function) for a Cell class."""
    for owner in cls.__mro__:
        if "construct" in owner.__dict__:
            func = owner.__dict__["construct"]
            break
    else:
        raise RuntimeError(f"For 'SymbolTree', '{cls.__name__}' has no construct.")
    func = inspect.unwrap(func)
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError) as e:
        raise RuntimeError(f"For 'SymbolTree', the source of {cls.__name__}.construct is not "
                           f"available ({e}); rewrite parses the source.") from e
    fdef = ast.parse(source).body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise RuntimeError(f"For 'SymbolTree', {cls.__name__}.construct is not a plain def.")
    fdef.decorator_list = []
    return owner, fdef, func


def namespace_of(func):
    """The names ``construct`` can see: its module's globals and its closure."""
    ns = dict(func.__globals__)
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            try:
                ns[name] = cell.cell_contents
            except ValueError:      # an empty cell
                pass
    return ns


def lookup(ns, name):
    """What ``name`` means in ``construct``: a global, a closure variable or a builtin."""
    if name in ns:
        return ns[name]
    return getattr(builtins, name, None)


def is_user_cell(cell):
    """A Cell defined by the user (not by Spore itself): its construct becomes a sub-tree."""
    module = type(cell).__module__ or ""
    return not (module == "spore" or module.startswith("spore.")
                or module.startswith("mindspore."))


class Parser:
    """Turns one construct into Input nodes and a block of nodes for ``tree``."""

    def __init__(self, tree, network, fdef, namespace):
        self.tree = tree
        self.network = network
        self.ns = namespace
        self.fdef = fdef
        self.locals = {a.arg for a in _all_args(fdef.args)}
        self.sub_trees = {}
        for node in ast.walk(fdef):
            if isinstance(node, ast.Name):
                tree._var_names.add(node.id)
                if isinstance(node.ctx, ast.Store):
                    self.locals.add(node.id)
            elif isinstance(node, ast.arg):
                tree._var_names.add(node.arg)

    # ------------------------------------------------------------------ top level
    def inputs(self):
        a = self.fdef.args
        nodes = []
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + a.defaults
        for arg, default in list(zip(positional, defaults))[1:]:          # skip self
            nodes.append(self._input(arg.arg, "arg", default))
        if a.vararg:
            nodes.append(self._input(a.vararg.arg, "vararg", None))
        for arg, default in zip(a.kwonlyargs, a.kw_defaults):
            nodes.append(self._input(arg.arg, "kwonly", default))
        if a.kwarg:
            nodes.append(self._input(a.kwarg.arg, "kwarg", None))
        return nodes

    def _input(self, name, kind, default):
        node = Node.create_input(name)
        node._param = (kind, None if default is None else self.value(default, None))
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    # ------------------------------------------------------------------ statements
    def statement(self, stmt):
        pre = []
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            targets = self.targets(stmt.targets[0])
            if targets is not None:
                node = self.expression(stmt.value, targets, pre)
                if node is not None:
                    return pre + [node]
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            node = self.expression(stmt.value, [], pre)
            if node is not None:
                return pre + [node]
        elif isinstance(stmt, ast.Return):
            value = (ScopedValue.create_variable_value(None) if stmt.value is None
                     else self.value(stmt.value, pre))
            return pre + [Node(NodeType.Output, "return", args=[value], stmt=stmt)]
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            return self.control_flow(stmt)
        return [Node(NodeType.Python, type(stmt).__name__, stmt=stmt)]

    def control_flow(self, stmt):
        pre = []
        if isinstance(stmt, ast.If):
            name, args = "if_node", [self.value(stmt.test, pre)]
        elif isinstance(stmt, ast.For):
            name, args = "for_node", [self.value(stmt.iter, pre)]
        else:       # a while test is evaluated again on every iteration: keep it in place
            name, args = "while_node", [self.value(stmt.test, None)]
        node = Node(NodeType.ControlFlow, name, args=args, stmt=stmt)
        node._blocks = {"body": self.block(stmt.body), "orelse": self.block(stmt.orelse)}
        return pre + [node]

    def targets(self, target):
        """ScopedValues of an assignment's targets, or None when not simple names."""
        if isinstance(target, ast.Name):
            return [ScopedValue.create_naming_value(target.id)]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == "self":
            return [ScopedValue.create_naming_value(target.attr, "self")]
        if isinstance(target, (ast.Tuple, ast.List)) and \
                all(isinstance(e, ast.Name) for e in target.elts):
            return [ScopedValue.create_naming_value(e.id) for e in target.elts]
        return None

    # ------------------------------------------------------------------ expressions
    def expression(self, expr, targets, pre):
        """A node computing ``expr`` into ``targets`` (nested calls go to ``pre``), or None
        when ``expr`` is not a call or an operator."""
        if isinstance(expr, ast.Call):
            return self.call(expr, targets, pre)
        if isinstance(expr, ast.BinOp):
            return self.math(expr, "binop_" + _OP_NAMES[type(expr.op)], targets,
                             [expr.left, expr.right], pre)
        if isinstance(expr, ast.UnaryOp):
            return self.math(expr, "unaryop_" + _OP_NAMES[type(expr.op)], targets,
                             [expr.operand], pre)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
            return self.math(expr, "compare_" + _OP_NAMES[type(expr.ops[0])], targets,
                             [expr.left, expr.comparators[0]], pre)
        if isinstance(expr, ast.Subscript):         # kept as written, in a node of its own
            return Node(NodeType.CallMethod, "subscript_var", targets, [_unsupported(expr)],
                        stmt="expr")
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and targets:
            return Node(NodeType.CallMethod, "attribute_assign", targets,
                        [self.value(expr, None)], stmt="expr")
        return None

    def math(self, expr, name, targets, operands, pre):
        args = [self.value(o, pre) for o in operands]
        return Node(NodeType.MathOps, name, targets, args, stmt=expr)

    def call(self, expr, targets, pre):
        if any(k.arg is None for k in expr.keywords):
            return None
        kind = self.callee(expr.func)
        if kind is None:
            return None
        node_type, name, func, instance = kind
        args = [self.value(a, pre) for a in expr.args]
        kwargs = {k.arg: self.value(k.value, pre) for k in expr.keywords}
        node = Node(node_type, name, targets, args, kwargs, func, instance)
        if node_type == NodeType.Tree:
            node._sub_tree = self.sub_tree(func.value, instance)
        return node

    def callee(self, func):
        """(node type, node name, callee ScopedValue, callee object) or None."""
        from ..nn import Cell
        from ..ops import Primitive
        if isinstance(func, ast.Name):
            obj = lookup(self.ns, func.id)
            if func.id in self.locals or obj is None:
                return None
            kind = NodeType.CallPrimitive if isinstance(obj, Primitive) else NodeType.CallFunction
            return kind, func.id, ScopedValue.create_naming_value(func.id), obj
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return None
        owner, attr = func.value.id, func.attr
        sv = ScopedValue.create_naming_value(attr, owner)
        if owner == "self":
            obj = getattr(self.network, attr, None)
            if isinstance(obj, Cell):
                return self.cell_kind(obj), attr, sv, obj
            if isinstance(obj, Primitive):
                return NodeType.CallPrimitive, attr, sv, obj
            return NodeType.CallMethod, attr, sv, None
        if owner in self.locals:
            return NodeType.CallMethod, attr, sv, None
        module = self.ns.get(owner)
        if isinstance(module, (types.ModuleType, type)):
            obj = getattr(module, attr, None)
            if isinstance(obj, Primitive):
                return NodeType.CallPrimitive, attr, sv, obj
            return NodeType.CallFunction, attr, sv, obj
        return None

    def cell_kind(self, cell):
        from ..nn import CellDict, CellList, SequentialCell
        if isinstance(cell, (SequentialCell, CellList, CellDict)):
            return NodeType.CellContainer
        if is_user_cell(cell):
            try:
                construct_source(type(cell))
            except RuntimeError:
                return NodeType.CallCell
            return NodeType.Tree
        return NodeType.CallCell

    def sub_tree(self, attr, cell):
        if attr not in self.sub_trees:
            from .symbol_tree import SymbolTree
            self.sub_trees[attr] = SymbolTree.create(cell)
        return self.sub_trees[attr]

    def value(self, expr, pre):
        """The ScopedValue of an argument; calls and operators are pulled into ``pre``
        (None: nothing may be pulled out) as ``<name>_var`` variables."""
        if isinstance(expr, ast.Name):
            return ScopedValue.create_naming_value(expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            return ScopedValue.create_naming_value(expr.attr, expr.value.id)
        if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float, str, bool,
                                                                        type(None))):
            return ScopedValue.create_variable_value(expr.value)
        if isinstance(expr, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant)
                                                           for e in expr.elts):
            values = [e.value for e in expr.elts]
            return ScopedValue(ValueType.TupleValue if isinstance(expr, ast.Tuple)
                               else ValueType.ListValue, "",
                               tuple(values) if isinstance(expr, ast.Tuple) else values)
        if pre is not None:
            if isinstance(expr, ast.Tuple) and all(_pullable(e) for e in expr.elts):
                return self.pulled_out(expr, "tuple", pre)
            if isinstance(expr, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Subscript)):
                return self.pulled_out(expr, None, pre)
        return _unsupported(expr)

    def pulled_out(self, expr, name, pre):
        """Compute ``expr`` in a node of its own before the statement; its new variable."""
        var = ScopedValue.create_naming_value("")
        if name == "tuple":
            node = Node(NodeType.CallMethod, "tuple", [var],
                        [self.value(e, pre) for e in expr.elts],
                        func=ScopedValue.create_naming_value("tuple"))
            node._stmt = "tuple"
        else:
            node = self.expression(expr, [var], pre)
            if node is None:
                return _unsupported(expr)
        var.value = self.tree._unique_var(_var_stem(node) + "_var")
        pre.append(node)
        return var


def _pullable(expr):
    """A tuple element the parser turns into a variable or a constant."""
    return isinstance(expr, (ast.Name, ast.Constant, ast.Call, ast.BinOp, ast.UnaryOp,
                             ast.Subscript)) or (
        isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)) or (
        isinstance(expr, ast.Compare) and len(expr.ops) == 1)


def _var_stem(node):
    if node._stmt == "expr":
        return "subscript"
    name = node.get_name()
    if node.get_node_type() == NodeType.MathOps:
        op = name.split("_", 1)[1]
        return "compare" if name.startswith("compare_") else op
    return name


def _all_args(a):
    out = a.posonlyargs + a.args + a.kwonlyargs
    return out + [x for x in (a.vararg, a.kwarg) if x is not None]
