"""``SymbolTree``: a Cell's ``construct`` as an editable list of Nodes, and the Cell
regenerated from it (MindSpore's ``mindspore.rewrite.SymbolTree``).

``get_network()`` writes the edited nodes back as Python source, defines a subclass of the
original class whose ``construct`` is that source (``<Name>Opt``, as MindSpore names it),
and builds an instance sharing the original's sub-cells and parameters; cells inserted by
``Node.create_call_cell`` become attributes of the new instance only (the original
network is left as it was).
"""
from __future__ import annotations

import ast
import copy
import linecache

from .node import Node, NodeType
from .parser import Parser, construct_source, lookup, namespace_of
from .scoped_value import ScopedValue, ValueType


class Position:
    """Where ``SymbolTree.insert`` puts a node: before or after ``node`` in its block."""

    def __init__(self, tree, node, before):
        self.tree, self.node, self.before = tree, node, before


class SymbolTree:
    """The nodes of a Cell's construct. Build one with ``SymbolTree.create(network)``."""

    def __init__(self, handler):
        if not isinstance(handler, _Impl):
            raise TypeError("For 'SymbolTree', build a tree with SymbolTree.create(network).")
        self._impl = handler

    @classmethod
    def create(cls, network):
        """Parse ``network``'s construct into a SymbolTree."""
        from ..nn import Cell
        if not isinstance(network, Cell):
            raise TypeError(f"For 'SymbolTree', the type of 'network' should be 'Cell', but "
                            f"got type '{type(network).__name__}'.")
        tree = cls(_Impl(network))
        tree._impl.api = tree
        tree._impl.parse()
        return tree

    # ------------------------------------------------------------------ reading
    def get_handler(self):
        return self._impl

    def nodes(self, all_nodes: bool = False):
        """The nodes in order (inputs first). ``all_nodes=True`` adds the nodes inside
        control-flow blocks and, recursively, those of sub-trees."""
        if not all_nodes:
            return iter(self._impl.inputs + self._impl.body)
        return iter(self.all_nodes(True))

    def all_nodes(self, subtree_nodes: bool = True):
        """Every node of this tree, including those in control-flow blocks (and, with
        ``subtree_nodes``, every node of every sub-tree)."""
        out = []
        for node in self._impl.linear():
            out.append(node)
        if subtree_nodes:
            seen = set()
            for node in list(out):
                sub = node._sub_tree
                if sub is not None and id(sub) not in seen:
                    seen.add(id(sub))
                    out.extend(sub.all_nodes(True))
        return out

    def get_node(self, node_name: str):
        """The node named ``node_name`` (searching control-flow blocks too), or None."""
        if not isinstance(node_name, str):
            raise TypeError(f"For 'get_node', the type of 'node_name' should be 'str', but got "
                            f"type '{type(node_name).__name__}'.")
        for node in self._impl.linear():
            if node._name == node_name:
                return node
        return None

    def get_inputs(self):
        return list(self._impl.inputs)

    def get_network(self):
        """A new Cell running the edited construct (with the original's sub-cells and
        parameters)."""
        return self._impl.network_from_nodes()

    def get_origin_network(self):
        return self._impl.network

    def get_code(self) -> str:
        """The source of the regenerated class (sub-trees' classes first)."""
        return self._impl.code()

    def print_node_tabulate(self, all_nodes: bool = False):
        """Print a table of the nodes: type, name, code, argument providers, users."""
        rows = [("node type", "name", "codes", "arg providers", "target users")]
        for node in (self.all_nodes(True) if all_nodes else self.nodes()):
            providers = {i: (n._name, j) for i, (n, j) in node.get_arg_providers().items()}
            users = {i: [(n._name, j) for n, j in us]
                     for i, us in node.get_target_users().items()}
            rows.append((node._type.name, node._name, node._tree._impl.line_of(node),
                         str(providers), str(users)))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "  ".join("-" * w for w in widths))
        print("\n".join(lines))

    def dump(self):
        """Print the regenerated code."""
        print(self.get_code())

    def unique_name(self, name: str = "output"):
        """A variable name not used in the construct yet (``name``, ``name_1``, ...)."""
        return self._impl._unique_var(name)

    # ------------------------------------------------------------------ positions
    def before(self, node):
        """The position just before ``node`` (a Node or a node name)."""
        return Position(self, self._impl.own(node), True)

    def after(self, node):
        """The position just after ``node`` (a Node or a node name)."""
        return Position(self, self._impl.own(node), False)

    # ------------------------------------------------------------------ editing
    def insert(self, position, node: Node) -> Node:
        """Insert ``node`` at ``position`` (from ``before``/``after``); its name is made
        unique in the tree. Returns the node."""
        if not isinstance(position, Position):
            raise TypeError(f"For 'insert', the type of 'position' should be 'Position' "
                            f"(SymbolTree.before/after), but got type "
                            f"'{type(position).__name__}'.")
        if not isinstance(node, Node):
            raise TypeError(f"For 'insert', the type of 'node' should be 'Node', but got type "
                            f"'{type(node).__name__}'.")
        if position.tree is not self:
            raise RuntimeError("For 'insert', the position does not belong to this SymbolTree.")
        if node._tree is not None:
            raise ValueError(f"Node in the SymbolTree cannot be inserted into SymbolTree again: "
                             f"{node._name}")
        self._impl.insert(position, node)
        return node

    def erase(self, node):
        """Remove ``node`` (a Node or a node name); returns it."""
        node = self._impl.own(node)
        self._impl.remove(node)
        return node

    def replace(self, old_node: Node, new_nodes) -> Node:
        """Put ``new_nodes`` where ``old_node`` was and remove it; returns the last new node
        (whose targets should be what the users of ``old_node`` read)."""
        old_node = self._impl.own(old_node)
        if not isinstance(new_nodes, (list, tuple)) or not new_nodes or \
                not all(isinstance(n, Node) for n in new_nodes):
            raise TypeError("For 'replace', 'new_nodes' should be a non-empty list of Node.")
        for n in new_nodes:
            self.insert(self.before(old_node), n)
        self._impl.remove(old_node)
        return new_nodes[-1]

    def set_output(self, index: int, return_value: str) -> Node:
        """Make return value ``index`` the variable ``return_value``."""
        if not isinstance(return_value, str):
            raise TypeError(f"For 'set_output', the type of 'return_value' should be 'str', "
                            f"but got type '{type(return_value).__name__}'.")
        out = [n for n in self._impl.body if n._type == NodeType.Output]
        if not out:
            raise RuntimeError("For 'set_output', the SymbolTree has no return node.")
        out[-1].set_arg(index, return_value)
        return out[-1]

    def flatten_nodes(self, node, erase_nodes_after_return: bool = False):
        """Move the nodes of control-flow ``node``'s body to where ``node`` is, removing it
        (for a branch known to run). With ``erase_nodes_after_return``, the nodes after a
        ``return`` in that body are dropped."""
        node = self._impl.own(node)
        if node._type != NodeType.ControlFlow:
            raise TypeError(f"For 'flatten_nodes', '{node._name}' is not a ControlFlow node.")
        body = node._blocks.get("body", [])
        if erase_nodes_after_return:
            for i, n in enumerate(body):
                if n._type == NodeType.Output:
                    body = body[:i + 1]
                    break
        block = self._impl.block_of(node)
        at = block.index(node)
        for n in body:
            n._tree = self
        block[at:at + 1] = body

    def flatten_static_if_control_flow(self):
        """Replace each ``if`` whose test is a constant or a bool attribute of the network
        (``self.training``) by the branch it takes."""
        for node in list(self._impl.linear()):
            if node._type != NodeType.ControlFlow or not isinstance(node._stmt, ast.If):
                continue
            taken = self._impl.static_test(node._args[0])
            if taken is None:
                continue
            block = self._impl.block_of(node)
            at = block.index(node)
            block[at:at + 1] = node._blocks["body" if taken else "orelse"]

    # ------------------------------------------------------------------ saving
    def set_saved_file_name(self, file_name: str):
        if not isinstance(file_name, str):
            raise TypeError(f"For 'set_saved_file_name', the type of 'file_name' should be "
                            f"'str', but got type '{type(file_name).__name__}'.")
        self._impl.saved_file = file_name if file_name.endswith(".py") else file_name + ".py"

    def get_saved_file_name(self):
        return self._impl.saved_file

    def save_network_to_file(self):
        """Write ``get_code()`` to ``get_saved_file_name()`` (default
        ``network_define.py``)."""
        with open(self._impl.saved_file, "w", encoding="utf-8") as f:
            f.write(self.get_code())


class _Impl:
    """The state behind a SymbolTree: its nodes and how to write them back as code."""

    def __init__(self, network):
        self.network = network
        self.api = None
        self.inputs = []
        self.body = []
        self.node_names = set()
        self._var_names = set()
        self.saved_file = "network_define.py"
        self._objects = {}

    def parse(self):
        self.owner, self.fdef, func = construct_source(type(self.network))
        self.ns = namespace_of(func)
        parser = Parser(self, self.network, self.fdef, self.ns)
        self.inputs = parser.inputs()
        self.body = parser.block(self.fdef.body)
        for node in self.inputs + self.body:
            self.adopt(node)

    # ------------------------------------------------------------------ structure
    def linear(self):
        """All nodes in program order: inputs, then the body (blocks after their node)."""
        for node in self.inputs:
            yield node
        for node in self.body:
            yield from node._nodes()

    def blocks(self):
        yield self.inputs
        yield self.body
        for node in list(self.linear()):
            yield from node._blocks.values()

    def block_of(self, node):
        for block in self.blocks():
            if any(n is node for n in block):
                return block
        raise RuntimeError(f"Node is not belong to current SymbolTree: {node._name}")

    def own(self, node):
        """The Node ``node`` names (a Node of this tree, or a node name)."""
        if isinstance(node, str):
            found = self.api.get_node(node)
            if found is None:
                raise RuntimeError(f"Node is not belong to current SymbolTree: {node}")
            return found
        if not isinstance(node, Node):
            raise TypeError(f"For 'SymbolTree', the type of 'node' should be one of ['Node', "
                            f"'str'], but got type '{type(node).__name__}'.")
        if node._tree is not self.api:
            raise RuntimeError(f"Node is not belong to current SymbolTree: {node._name}")
        return node

    def adopt(self, node):
        """Give ``node`` (and its block nodes) a unique name in this tree."""
        for n in node._nodes():
            n._name = self._unique(n._name, self.node_names)
            n._tree = self.api

    def insert(self, position, node):
        block = self.block_of(position.node)
        at = next(i for i, n in enumerate(block) if n is position.node)
        if node._type == NodeType.Input:
            block = self.inputs
            at = len(block)
        elif not position.before:
            at += 1
        if node._new and node._func is not None and node._func.scope == "self":
            taken = set(vars(self.network)) | self.node_names
            node._name = self._unique(node._name or type(node._instance).__name__, taken)
            node._func = ScopedValue.create_naming_value(node._name, "self")
        self.adopt(node)
        block.insert(at, node)

    def remove(self, node):
        block = self.block_of(node)
        block[:] = [n for n in block if n is not node]
        for n in node._nodes():
            self.node_names.discard(n._name)
            n._tree = None

    @staticmethod
    def _unique(name, taken):
        base, new, i = name, name, 0
        while new in taken:
            i += 1
            new = f"{base}_{i}"
        taken.add(new)
        return new

    def _unique_var(self, name):
        return self._unique(name, self._var_names)

    # ------------------------------------------------------------------ data flow
    @staticmethod
    def _reads(node):
        """Local names a node's arguments name (for its inputs and users). As in MindSpore,
        names inside an expression kept as written, or in a Python node, are not followed."""
        names = []
        for v in list(node._args) + list(node._kwargs.values()):
            if v.type == ValueType.NamingValue and not v.scope:
                names.append(v.value)
        return names

    @staticmethod
    def _writes(node):
        return [t.value for t in node._targets if t.type == ValueType.NamingValue
                and not t.scope]

    def scope_of(self, node):
        """The nodes data flow is followed through for ``node``: those of its own block (the
        inputs and the body for a top-level node). As in MindSpore, a control-flow block is
        a scope of its own: nodes inside it are neither users nor providers of outer ones."""
        block = self.block_of(node)
        if block is self.inputs or block is self.body:
            return self.inputs + self.body
        return block

    def _provider(self, node, value):
        """(node, target index) that last wrote the variable ``value`` before ``node`` in its
        block."""
        if value.type != ValueType.NamingValue or value.scope:
            return None
        name = value.value
        found = None
        for n in self.scope_of(node):
            if n is node:
                break
            writes = self._writes(n)
            if name in writes:
                found = (n, writes.index(name))
        return found

    def _inputs_of(self, node):
        out = []
        for name in self._reads(node):
            found = self._provider(node, ScopedValue.create_naming_value(name))
            if found is not None and not any(found[0] is n for n in out):
                out.append(found[0])
        return out

    def _users_of(self, node):
        return [n for n in self.linear() if any(i is node for i in self._inputs_of(n))]

    def static_test(self, value):
        """True/False for an if-test known before running, else None."""
        if value.type == ValueType.ConstantValue:
            return bool(value.value)
        if value.type == ValueType.NamingValue and value.scope == "self":
            attr = getattr(self.network, value.value, None)
            if isinstance(attr, bool):
                return attr
        return None

    # ------------------------------------------------------------------ code generation
    def class_name(self):
        return type(self.network).__name__ + "Opt"

    def expr(self, value):
        """The syntax tree of a ScopedValue."""
        if value.type == ValueType.NamingValue:
            if value.scope:
                return ast.Attribute(ast.Name(value.scope, ast.Load()), value.value, ast.Load())
            return ast.Name(value.value, ast.Load())
        if value.type == ValueType.UnsupportedValue:
            return copy.deepcopy(value.value)
        if value.type == ValueType.ConstantValue:
            return ast.Constant(value.value)
        try:                                    # containers of literals stay literals
            if ast.literal_eval(repr(value.value)) == value.value:
                return ast.parse(repr(value.value), mode="eval").body
        except (ValueError, SyntaxError, TypeError):
            pass
        return ast.Name(self.object_name(value.value), ast.Load())

    def object_name(self, obj, stem="_rewrite_obj"):
        """A global name of the generated module bound to ``obj``."""
        for name, held in self._objects.items():
            if held is obj:
                return name
        name = self._unique(f"{stem}_{len(self._objects)}", set(self.ns) | set(self._objects))
        self._objects[name] = obj
        return name

    def function_name(self, fn):
        """A global name for a function a created node calls: its own name when free."""
        name = getattr(fn, "__name__", "")
        if name.isidentifier() and self._objects.get(name, fn) is fn and \
                lookup(self.ns, name) is None and name not in self._var_names:
            self._objects[name] = fn
            return name
        return self.object_name(fn, "_rewrite_fn")

    def callee(self, node):
        func = node._func
        if node._type == NodeType.CallFunction and node._instance is not None:
            resolved = lookup(self.ns, func.value) if not func.scope else \
                getattr(lookup(self.ns, func.scope), func.value, None)
            if resolved is not node._instance:
                return ast.Name(self.function_name(node._instance), ast.Load())
        return self.expr(func)

    def statement(self, node):
        """The syntax tree of one node's statement (a list)."""
        t = node._type
        if t == NodeType.Python:
            return [copy.deepcopy(node._stmt)]
        if t == NodeType.Output:
            values = [self.expr(a) for a in node._args]
            value = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
            return [ast.Return(value)]
        if t == NodeType.ControlFlow:
            stmt = copy.copy(node._stmt)
            if isinstance(stmt, ast.For):
                stmt.iter = self.expr(node._args[0])
            else:
                stmt.test = self.expr(node._args[0])
            stmt.body = self.block(node._blocks["body"]) or [ast.Pass()]
            stmt.orelse = self.block(node._blocks["orelse"])
            return [stmt]
        if t == NodeType.MathOps:
            value = copy.copy(node._stmt)
            args = [self.expr(a) for a in node._args]
            if isinstance(value, ast.BinOp):
                value.left, value.right = args
            elif isinstance(value, ast.UnaryOp):
                value.operand = args[0]
            else:
                value.left, value.comparators = args[0], [args[1]]
        elif node._stmt == "tuple":
            value = ast.Tuple([self.expr(a) for a in node._args], ast.Load())
        elif node._stmt == "expr":
            value = self.expr(node._args[0])
        else:
            value = ast.Call(self.callee(node), [self.expr(a) for a in node._args],
                             [ast.keyword(k, self.expr(v)) for k, v in node._kwargs.items()])
        if not node._targets:
            return [ast.Expr(value)]
        targets = [self.expr(v) for v in node._targets]
        for tg in targets:
            tg.ctx = ast.Store()
        target = targets[0] if len(targets) == 1 else ast.Tuple(targets, ast.Store())
        return [ast.Assign([target], value)]

    def block(self, nodes):
        out = []
        for node in nodes:
            out.extend(self.statement(node))
        return out

    def arguments(self):
        a = ast.arguments(posonlyargs=[], args=[ast.arg("self")], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])
        for node in self.inputs:
            kind, default = node._param
            arg = ast.arg(node._targets[0].value)
            default = None if default is None else self.expr(default)
            if kind == "arg":
                if default is None and a.defaults:
                    raise RuntimeError(f"For 'SymbolTree', input '{arg.arg}' without a default "
                                       "follows one with a default.")
                a.args.append(arg)
                if default is not None:
                    a.defaults.append(default)
            elif kind == "vararg":
                a.vararg = arg
            elif kind == "kwonly":
                a.kwonlyargs.append(arg)
                a.kw_defaults.append(default)
            else:
                a.kwarg = arg
        return a

    def class_source(self):
        body = self.block(self.body) or [ast.Pass()]
        fdef = ast.FunctionDef("construct", self.arguments(), body, [], None, type_params=[]) \
            if "type_params" in ast.FunctionDef._fields else \
            ast.FunctionDef("construct", self.arguments(), body, [], None)
        fdef = _BindSuper().visit(fdef)
        cls = ast.ClassDef(self.class_name(), [ast.Name(self.base_name(), ast.Load())], [], [fdef],
                           [], **({"type_params": []} if "type_params" in ast.ClassDef._fields
                                  else {}))
        return ast.unparse(ast.fix_missing_locations(ast.Module([cls], [])))

    def base_name(self):
        """The original class's own name when the generated module can use it."""
        base = type(self.network)
        found = self.ns.get(base.__name__, base)
        return base.__name__ if found is base else "_rewrite_base"

    def code(self):
        parts = []
        for sub in self.sub_trees():
            parts.append(sub._impl.code())
        parts.append(self.class_source())
        return "\n\n".join(parts) + "\n"

    def line_of(self, node):
        stmts = self.statement(node) if node._type != NodeType.Input else []
        text = ast.unparse(ast.fix_missing_locations(ast.Module(stmts, []))) if stmts else \
            node._targets[0].value
        return text.splitlines()[0] if text else ""

    def sub_trees(self):
        seen, out = set(), []
        for node in self.linear():
            if node._sub_tree is not None and id(node._sub_tree) not in seen:
                seen.add(id(node._sub_tree))
                out.append(node._sub_tree)
        return out

    def network_from_nodes(self):
        source = self.class_source()
        ns = dict(self.ns)
        ns.update(self._objects)
        ns[self.base_name()] = type(self.network)
        ns["_rewrite_owner"] = self.owner
        filename = f"<rewrite {self.class_name()} {id(self)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        exec(compile(source, filename, "exec"), ns)   # noqa: S102  (our own generated code)
        cls = ns[self.class_name()]
        cls.__module__ = type(self.network).__module__
        cls._rewrite_source = source
        net = object.__new__(cls)
        d = net.__dict__
        for key, value in self.network.__dict__.items():
            d[key] = value.copy() if isinstance(value, dict) else value
        for key in ("_jit_fn", "_graph_construct"):
            d.pop(key, None)
        self.attach_cells(net)
        return net

    def attach_cells(self, net):
        """Put the cells the nodes call on ``net``: new cells as attributes (their
        parameters named after them), sub-trees as their regenerated networks."""
        d = net.__dict__
        for node in self.linear():
            func = node._func
            if func is None or func.scope != "self" or node._instance is None:
                continue
            if node._sub_tree is not None:
                sub = node._sub_tree.get_network()
                if func.value in d["_cells"]:
                    d["_cells"][func.value] = sub
                    d[func.value] = sub
                else:
                    setattr(net, func.value, sub)
            elif getattr(self.network, func.value, None) is not node._instance:
                setattr(net, func.value, node._instance)


class _BindSuper(ast.NodeTransformer):
    """``super()`` in the original construct means ``super(<class defining it>, self)``."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
            node.args = [ast.Name("_rewrite_owner", ast.Load()), ast.Name("self", ast.Load())]
        return node
