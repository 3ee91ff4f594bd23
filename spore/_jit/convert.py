"""Source conversion (MindSpore's ``capture_mode="ast"``): ``if`` statements become calls
that decide at run time between Python's ``if`` and a tensor conditional.

NOTE: [Source conversion]
Before tracing, a user function's source is rewritten once per code object:

    if TEST:                      __spore_names = (a, b)   # their values, or UNDEFINED
        BODY           ->         def __spore_true(a, b): BODY; return (a, b)
    else:                         def __spore_false(a, b): ORELSE; return (a, b)
        ORELSE                    a, b = __spore_if(TEST, __spore_true, __spore_false,
                                                    ("a", "b"), a_or_undefined, ...)

where ``a, b`` are the names either branch assigns. ``__spore_if`` runs Python's ``if``
when TEST is not a tensor, and otherwise the internal conditional (NOTE: [Conditionals]),
so both branches become sub-graphs. A name assigned in only one branch is *undefined*
after a tensor ``if``; using it raises an error naming it and the ``if``. ``return``,
``break`` and ``continue`` are first rewritten into assignments (NOTE: [Early exits]);
branches that ``yield`` or declare ``global``/``nonlocal`` are left as they are (a
tensor condition there then falls back to PyNative, naming the line). Calls in
converted code convert their callee when it is a user function, method or an object
whose class defines ``__call__`` in user code (``run_call``). Only code outside the
Spore package is converted.
"""
from __future__ import annotations

import ast
import builtins
import collections
import contextlib
import copy
import inspect
import linecache
import textwrap
import types

from .._core import primitive as P

_cache = {}
_PREFIX = "__spore_"


class Undefined:
    """The value of a name that only one branch of a tensor ``if`` assigned."""

    __slots__ = ("name", "where")

    def __init__(self, name, where=""):
        self.name = name
        self.where = where

    def _fail(self, *args, **kwargs):
        from .capture import GraphBreak

        class UndefinedName(GraphBreak, NameError):
            pass
        raise UndefinedName(f"'{self.name}' is assigned in only one branch of the tensor "
                            f"`if` {self.where}and used after it",
                            hint="Assign it in both branches, or before the `if`.")

    __getattr__ = __call__ = __bool__ = __iter__ = __len__ = __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = _fail

    def __repr__(self):
        return f"<undefined {self.name}>"


UNDEFINED = Undefined("?")


def run_if(test, true_fn, false_fn, names, where, *values):
    """The converted ``if``: Python's when ``test`` is not a tensor, else a conditional."""
    if not isinstance(test, P._Tensor):
        return true_fn(*values) if test else false_fn(*values)
    capture = P.active_capture()
    if capture is None:
        return true_fn(*values) if bool(test) else false_fn(*values)
    return capture.cond(test, _flags_as_tensors(true_fn, names),
                        _flags_as_tensors(false_fn, names), values, names=names, where=where)


def _is_flag(name):
    return name.startswith(_FLAG)


def _promote_flags(names, values):
    """``values`` with the exit flags (NOTE: [Early exits]) made bool tensors, so a tensor
    conditional or loop can carry them."""
    if not any(_is_flag(n) for n in names):
        return tuple(values)
    return tuple(P._Tensor(bool(v), _bool()) if _is_flag(n) and isinstance(v, bool) else v
                 for n, v in zip(names, values))


def _flags_as_tensors(fn, names):
    """``fn`` whose results have their exit flags promoted (``_promote_flags``)."""
    if not any(_is_flag(n) for n in names):
        return fn

    def wrapped(*args):
        return _promote_flags(names, fn(*args))
    return wrapped


# --------------------------------------------------------------------------- the rewrite
class _Stores(ast.NodeVisitor):
    """Names a block assigns (not inside nested functions, classes or comprehensions)."""

    def __init__(self):
        self.names = []
        self.blocked = False

    def _add(self, name):
        if name not in self.names and (not name.startswith(_PREFIX) or name.startswith(_VAR)):
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._add(node.id)

    def visit_FunctionDef(self, node):
        self._add(node.name)

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Return(self, node):
        self.blocked = True

    visit_Break = visit_Continue = visit_Yield = visit_YieldFrom = visit_Return
    visit_Global = visit_Nonlocal = visit_Return

    def visit_Import(self, node):
        for a in node.names:
            self._add((a.asname or a.name).partition(".")[0])

    visit_ImportFrom = visit_Import

    def visit_For(self, node):
        # a nested loop may ``break``/``continue`` itself: only its own targets matter here
        self.visit(node.target)
        saved = self.blocked
        for child in node.body + node.orelse:
            self.visit(child)
        self.blocked = saved or _returns(node.body + node.orelse)

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        saved = self.blocked
        for child in node.body + node.orelse:
            self.visit(child)
        self.blocked = saved or _returns(node.body + node.orelse)


def _loop_exits(stmts):
    """Whether a loop body leaves the loop early (break/continue at its own level, or any
    return/yield): those loops stay Python loops. Nested functions (the converted
    branches among them) do not count."""
    for s in stmts:
        if _returns([s]) or isinstance(s, (ast.Break, ast.Continue)):
            return True
        if not isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                              ast.AsyncFunctionDef, ast.ClassDef)) and any(
                isinstance(n, (ast.Break, ast.Continue))
                for n in _level_nodes(s, into_loops=False)):
            return True
    return False


def _returns(stmts):
    kinds = (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(s, kinds) or any(isinstance(n, kinds)
                                       for n in _level_nodes(s, into_loops=True)):
            return True
    return False


def _thunk(expr):
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                         kw_defaults=[], kwarg=None, defaults=[]), body=expr)


def _params(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])


def _return_names(names):
    return ast.Return(value=ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names],
                                      ctx=ast.Load()))


def _current_values(names):
    """``__spore_value(locals(), "n")`` for each name: its value now, or undefined."""
    return [ast.Call(func=ast.Name(id=f"{_PREFIX}value", ctx=ast.Load()),
                     args=[ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                    keywords=[]), ast.Constant(n)], keywords=[])
            for n in names]


class _IfRewriter(ast.NodeTransformer):
    def __init__(self, filename, first_line):
        self.count = 0
        self.filename = filename
        self.first_line = first_line
        self.converted = 0

    def visit_FunctionDef(self, node):
        if getattr(self, "_inside", False):
            return node               # nested functions keep their own semantics
        self._inside = True
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            self.converted += 1
            return ast.copy_location(ast.Call(func=ast.Name(id=f"{_PREFIX}not", ctx=ast.Load()),
                                              args=[node.operand], keywords=[]), node)
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        helper = f"{_PREFIX}and" if isinstance(node.op, ast.And) else f"{_PREFIX}or"
        expr = node.values[-1]
        for left in reversed(node.values[:-1]):
            expr = ast.Call(func=ast.Name(id=helper, ctx=ast.Load()),
                            args=[left, _thunk(expr)], keywords=[])
        self.converted += 1
        return ast.copy_location(expr, node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        self.converted += 1
        return ast.copy_location(ast.Call(func=ast.Name(id=f"{_PREFIX}ifexp", ctx=ast.Load()),
                                          args=[node.test, _thunk(node.body),
                                                _thunk(node.orelse)], keywords=[]), node)

    def visit_For(self, node):
        self.generic_visit(node)
        if node.orelse or _loop_exits(node.body) or not _range_loop(node):
            return node
        target = node.target.id
        block = self._block(node, node.body, exclude=(target,))
        if block is None:
            return node
        k, names, where = block
        b_name = f"{_PREFIX}for_{k}"
        body_def = ast.FunctionDef(name=b_name, args=_params([target] + names),
                                   body=list(node.body) + [_return_names(names)],
                                   decorator_list=[], returns=None)
        call = ast.Call(func=ast.Name(id=f"{_PREFIX}for_range", ctx=ast.Load()),
                        args=[ast.Name(id=b_name, ctx=ast.Load()), ast.Constant(tuple(names)),
                              ast.Constant(where), ast.Tuple(elts=list(node.iter.args),
                                                             ctx=ast.Load()),
                              ast.Constant(getattr(node, "spore_flag", None))]
                        + _current_values([target] + names), keywords=[])
        return self._emit(node, [body_def], [target] + names, call)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.func = ast.copy_location(ast.Name(id=f"{_PREFIX}print", ctx=ast.Load()),
                                          node.func)
            node.args = [self._fstring(a) for a in node.args]
            self.converted += 1
        elif _converts_callee(node):
            # the user's functions called from here are converted too, when called
            node.func = ast.copy_location(ast.Call(
                func=ast.Name(id=f"{_PREFIX}call", ctx=ast.Load()), args=[node.func],
                keywords=[]), node.func)
            self.converted += 1
        return node

    def _fstring(self, arg):
        if not isinstance(arg, ast.JoinedStr):
            return arg
        parts = []
        for v in arg.values:
            if isinstance(v, ast.FormattedValue):
                if v.conversion != -1 or v.format_spec is not None:
                    return arg            # a format spec: Python formats it (on the host)
                parts.append(v.value)
            else:
                parts.append(v)
        return ast.copy_location(ast.Call(func=ast.Name(id=f"{_PREFIX}fstring", ctx=ast.Load()),
                                          args=parts, keywords=[]), arg)

    def visit_While(self, node):
        self.generic_visit(node)
        if node.orelse or _loop_exits(node.body):
            return node
        block = self._block(node, node.body)
        if block is None:
            return node
        k, names, where = block
        c_name, b_name = f"{_PREFIX}cond_{k}", f"{_PREFIX}body_{k}"
        cond_def = ast.FunctionDef(name=c_name, args=_params(names),
                                   body=[ast.Return(value=node.test)], decorator_list=[],
                                   returns=None)
        body_def = ast.FunctionDef(name=b_name, args=_params(names),
                                   body=list(node.body) + [_return_names(names)],
                                   decorator_list=[], returns=None)
        call = ast.Call(func=ast.Name(id=f"{_PREFIX}while", ctx=ast.Load()),
                        args=[ast.Name(id=c_name, ctx=ast.Load()),
                              ast.Name(id=b_name, ctx=ast.Load()),
                              ast.Constant(tuple(names)), ast.Constant(where)]
                        + _current_values(names), keywords=[])
        return self._emit(node, [cond_def, body_def], names, call)

    def _emit(self, node, defs, names, call):
        if names:
            assign = ast.Assign(targets=[ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store())
                                                         for n in names], ctx=ast.Store())],
                                value=call)
        else:
            assign = ast.Expr(value=call)
        out = defs + [assign]
        for s in out:
            ast.copy_location(s, node)
            ast.fix_missing_locations(s)
        return out

    def visit_If(self, node):
        self.generic_visit(node)
        block = self._block(node, node.body + node.orelse)
        if block is None:
            return node
        k, names, where = block
        t_name, f_name = f"{_PREFIX}true_{k}", f"{_PREFIX}false_{k}"
        true_def = ast.FunctionDef(name=t_name, args=_params(names),
                                   body=list(node.body) + [_return_names(names)],
                                   decorator_list=[], returns=None)
        false_def = ast.FunctionDef(name=f_name, args=_params(names),
                                    body=list(node.orelse or []) + [_return_names(names)],
                                    decorator_list=[], returns=None)
        call = ast.Call(func=ast.Name(id=f"{_PREFIX}if", ctx=ast.Load()),
                        args=[node.test, ast.Name(id=t_name, ctx=ast.Load()),
                              ast.Name(id=f_name, ctx=ast.Load()),
                              ast.Constant(tuple(names)), ast.Constant(where)]
                        + _current_values(names), keywords=[])
        return self._emit(node, [true_def, false_def], names, call)

    def _block(self, node, stmts, exclude=()):
        """(number, assigned names, "at file:line ") of a block to convert, or None when it
        returns/breaks/yields or declares global names."""
        stores = _Stores()
        for s in stmts:
            stores.visit(s)
        if stores.blocked:
            return None
        self.count += 1
        self.converted += 1
        names = [n for n in stores.names if n not in exclude]
        return self.count, names, f"at {self.filename}:{node.lineno + self.first_line - 1} "


# --------------------------------------------------------------------------- early exits
# NOTE: [Early exits]
# ``return`` inside a branch and ``break``/``continue`` inside a loop are rewritten before
# the ``if``/loop conversion into plain assignments, so every block converts:
#   * the statements after an ``if`` that exits on some path move into that ``if``'s
#     branches that do not exit ("tail duplication"), so every exit ends its path;
#   * then ``return X`` becomes ``__spore_v_ret = X`` (one ``return __spore_v_ret``
#     follows the ``if``), ``continue`` disappears, ``break`` sets a flag that the
#     loop's test reads (``while not flag and TEST``), and a ``return`` inside a loop
#     sets the return value, a "done" flag and the break flag; ``if done: return ...``
#     follows the loop.
# Flags are Python bools, so Python loops and branches behave exactly as before; a
# tensor conditional or loop turns them into bool tensors (``_promote_flags``). Loops
# with an ``else`` clause, ``for`` loops over anything but ``range`` and nested functions
# keep their exits as they are.
_VAR = f"{_PREFIX}v_"
_FLAG = f"{_VAR}flag_"
_RET = RETURN_NAME = f"{_VAR}ret"
_DONE = f"{_FLAG}done"


def _name(n, store=False):
    return ast.Name(id=n, ctx=ast.Store() if store else ast.Load())


def _assign(n, value):
    return ast.Assign(targets=[_name(n, True)], value=value)


def _level_nodes(node, into_loops):
    """The nodes of a statement at this function level (and this loop level unless
    ``into_loops``): nested functions, classes and lambdas are not entered."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield n
        if not into_loops and isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            continue
        stack.extend(ast.iter_child_nodes(n))


def _contains(stmt, kinds):
    if isinstance(stmt, kinds):
        return True
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                         ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    return any(isinstance(n, kinds) for n in _level_nodes(stmt, into_loops=False))


def _terminates(stmts, kinds):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, kinds):
        return True
    return isinstance(last, ast.If) and _terminates(last.body, kinds) \
        and _terminates(last.orelse, kinds)


def _push_tails(stmts, kinds):
    """``stmts`` with what follows an exiting ``if`` moved into its non-exiting branches
    (code after an exit is dropped: it never runs)."""
    out = []
    for i, s in enumerate(stmts):
        out.append(s)
        if isinstance(s, kinds):
            return out
        if isinstance(s, ast.If) and _contains(s, kinds):
            tail = stmts[i + 1:]
            for attr in ("body", "orelse"):
                block = getattr(s, attr)
                if tail and not _terminates(block, kinds):
                    block = block + copy.deepcopy(tail)
                setattr(s, attr, _push_tails(block, kinds))
            return out
    return out


def _replace_exits(stmts, kinds, make):
    """Each exit at the end of a path replaced by ``make(exit)`` (a list of statements)."""
    out = []
    for s in stmts:
        if isinstance(s, kinds):
            out.extend(make(s))
        elif isinstance(s, ast.If) and _contains(s, kinds):
            s.body = _replace_exits(s.body, kinds, make) or [ast.Pass()]
            s.orelse = _replace_exits(s.orelse, kinds, make)
            out.append(s)
        else:
            out.append(s)
    return out


def _return_value(s):
    return s.value if s.value is not None else ast.Constant(None)


class _ExitLowering(ast.NodeTransformer):
    """NOTE: [Early exits]."""

    def __init__(self):
        self.count = 0
        self.depth = 0
        self.lowered = 0

    def lower_function(self, fdef):
        self.depth = 1
        fdef.body = [self.visit(s) for s in fdef.body]
        fdef.body = _flatten(fdef.body)
        if any(_contains(s, ast.Return) and not isinstance(s, ast.Return) for s in fdef.body):
            body = fdef.body
            if not _terminates(body, ast.Return):
                body = body + [ast.Return(value=None)]
            body = _push_tails(body, ast.Return)
            body = _replace_exits(body, ast.Return,
                                  lambda s: [_assign(_RET, _return_value(s))])
            fdef.body = body + [ast.Return(value=_name(_RET))]
            self.lowered += 1
        return fdef

    def visit_FunctionDef(self, node):
        return node                      # nested functions keep their own exits

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_If(self, node):
        node.body = _flatten([self.visit(s) for s in node.body])
        node.orelse = _flatten([self.visit(s) for s in node.orelse])
        return node

    def visit_While(self, node):
        node.body = _flatten([self.visit(s) for s in node.body])
        if node.orelse or not _loop_has_exit(node.body):
            return node
        flag = self._flag(node.body)
        before, body, after = self._lower_loop(node.body, flag)
        node.body = body
        if flag:
            node.test = ast.BoolOp(op=ast.And(), values=[
                ast.UnaryOp(op=ast.Not(), operand=_name(flag)), node.test])
        return self._placed(node, before + [node] + after)

    def visit_For(self, node):
        node.body = _flatten([self.visit(s) for s in node.body])
        if node.orelse or not _range_loop(node) or not _loop_has_exit(node.body):
            return node
        flag = self._flag(node.body)
        before, body, after = self._lower_loop(node.body, flag)
        node.body = body
        node.spore_flag = flag
        return self._placed(node, before + [node] + after)

    def _flag(self, body):
        """The loop's break flag, or None when it only ``continue``s."""
        self.lowered += 1
        if not any(_contains(s, (ast.Break, ast.Return)) for s in body):
            return None
        self.count += 1
        return f"{_FLAG}break_{self.count}"

    def _lower_loop(self, body, flag):
        kinds = (ast.Break, ast.Continue, ast.Return)
        has_return = any(_contains(s, ast.Return) for s in body)

        def make(s):
            if isinstance(s, ast.Break):
                return [_assign(flag, ast.Constant(True))]
            if isinstance(s, ast.Continue):
                return []
            return [_assign(_RET, _return_value(s)), _assign(_DONE, ast.Constant(True)),
                    _assign(flag, ast.Constant(True))]
        body = _replace_exits(_push_tails(body, kinds), kinds, make) or [ast.Pass()]
        before = [_assign(flag, ast.Constant(False))] if flag else []
        after = []
        if has_return:
            before += [_assign(_DONE, ast.Constant(False)), _assign(_RET, ast.Constant(None))]
            after = [ast.If(test=_name(_DONE), body=[ast.Return(value=_name(_RET))],
                            orelse=[])]
        return before, body, after

    @staticmethod
    def _placed(node, stmts):
        for s in stmts:
            ast.copy_location(s, node)
            ast.fix_missing_locations(s)
        return stmts


def _flatten(stmts):
    out = []
    for s in stmts:
        out.extend(s if isinstance(s, list) else [s])
    return out


def _range_loop(node):
    it = node.iter
    return (isinstance(node.target, ast.Name) and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords
            and 1 <= len(it.args) <= 3)


def _loop_has_exit(body):
    return any(_contains(s, (ast.Break, ast.Continue, ast.Return)) for s in body)


# --------------------------------------------------------------------------- side effects
# NOTE: [Compile-time side effects]
# Converted code runs once, when the function is traced; the compiled graph then runs
# at every call. Python statements whose effect lives outside the graph would happen
# only that once, so under a trace they stop it with the construct and the user's line
# (the function then runs in PyNative, or fails under ``fullgraph=True``): a ``try``
# (an exception raised by compiled code at run time could not reach its handler),
# ``with`` on a context manager that is not Spore's, assignments to ``global`` /
# ``nonlocal`` names, ``del`` of an attribute, and mutation of a Python list, dict or
# set the function did not create (``self.cache.append(y)``, ``outer[k] = v``).
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "popitem", "add", "discard", "sort", "reverse",
                       "appendleft", "extendleft", "popleft"})
_CONTAINERS = (list, dict, set, bytearray, collections.deque)


def _tracing():
    return P.active_capture() is not None


def run_refuse(construct, hint):
    """A statement that cannot be compiled (NOTE: [Compile-time side effects])."""
    if _tracing():
        from .capture import GraphBreak
        raise GraphBreak(construct, hint=hint)


def run_outer(obj, construct):
    """``obj`` itself, unless a trace would mutate a Python container from outside."""
    if _tracing() and isinstance(obj, _CONTAINERS):
        from .capture import GraphBreak
        raise GraphBreak(f"{construct} changes a Python {type(obj).__name__} the compiled "
                         "function did not create", hint=_ONCE_HINT + " Return the values "
                         "from the function instead (or keep state in a Parameter).")
    return obj


def run_with(manager):
    """The manager of a ``with``: Spore's own managers (and ``nullcontext``) compile."""
    if _tracing() and not _known_manager(manager):
        from .capture import GraphBreak
        kind = type(manager)
        raise GraphBreak(f"`with` on a {kind.__module__}.{kind.__qualname__} context manager",
                         hint="Its __enter__/__exit__ would run once, when the function is "
                         "compiled, not at every call: move the `with` outside the "
                         "compiled function.")
    return manager


def _known_manager(manager):
    module = type(manager).__module__ or ""
    return module == "spore" or module.startswith("spore.") or isinstance(
        manager, contextlib.nullcontext)


_ONCE_HINT = "In Graph mode it would happen once, when the function is compiled, not at " \
             "every call."
_TRY_HINT = "An exception raised by the compiled code when it runs could not reach the " \
            "handler: move the `try` outside the compiled function, or check the condition " \
            "with ops (e.g. ops.select)."


def _root_name(expr):
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _call(name, *args):
    return ast.Call(func=ast.Name(id=f"{_PREFIX}{name}", ctx=ast.Load()), args=list(args),
                    keywords=[])


class _EffectGuards(ast.NodeTransformer):
    """NOTE: [Compile-time side effects]: guards in front of statements whose effect would
    happen once, at trace time."""

    def __init__(self, fdef):
        stores = _Stores()
        for s in fdef.body:
            stores.visit(s)
        params = {a.arg for a in fdef.args.args + fdef.args.posonlyargs + fdef.args.kwonlyargs}
        self.local = set(stores.names) - params
        self.declared = {}
        for n in _level_nodes(fdef, into_loops=True):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                kind = "global" if isinstance(n, ast.Global) else "nonlocal"
                self.declared.update((name, kind) for name in n.names)
        self.guards = 0
        self.top = fdef

    def _outer(self, expr):
        """Whether ``expr`` (a receiver) may be an object from outside the function."""
        if isinstance(expr, ast.Name):
            return expr.id not in self.local or expr.id in self.declared
        return isinstance(expr, (ast.Attribute, ast.Subscript)) and _root_name(expr) is not None

    def _wrap(self, expr, text):
        self.guards += 1
        return ast.copy_location(_call("outer", expr, ast.Constant(text)), expr)

    def _refusal(self, node, construct, hint):
        self.guards += 1
        stmt = ast.Expr(value=_call("refuse", ast.Constant(construct), ast.Constant(hint)))
        return ast.copy_location(stmt, node)

    def visit_FunctionDef(self, node):
        if node is self.top:
            self.generic_visit(node)
        return node                          # nested functions are guarded when called

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in _MUTATORS and self._outer(f.value):
            f.value = self._wrap(f.value, f"`{_unparse(f.value)}.{f.attr}(...)`")
        return node

    def _targets(self, node, targets):
        out = []
        for t in targets:
            if isinstance(t, ast.Name) and t.id in self.declared:
                out.append(self._refusal(node, f"assignment to the {self.declared[t.id]} "
                                         f"name '{t.id}'", _ONCE_HINT + " Return the value "
                                         "from the function instead."))
            elif isinstance(t, ast.Subscript) and self._outer(t.value):
                t.value = self._wrap(t.value, f"`{_unparse(t)} = ...`")
        return out

    def visit_Assign(self, node):
        self.generic_visit(node)
        return self._targets(node, node.targets) + [node]

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        return self._targets(node, [node.target]) + [node]

    visit_AnnAssign = visit_AugAssign

    def visit_Delete(self, node):
        self.generic_visit(node)
        guards = []
        for t in node.targets:
            if isinstance(t, ast.Attribute):
                guards.append(self._refusal(node, f"`del {_unparse(t)}` (deleting an "
                                            "attribute)", _ONCE_HINT))
            elif isinstance(t, ast.Subscript) and self._outer(t.value):
                t.value = self._wrap(t.value, f"`del {_unparse(t)}`")
        return guards + [node]

    def visit_Try(self, node):
        self.generic_visit(node)
        return [self._refusal(node, "a `try` statement", _TRY_HINT), node]

    visit_TryStar = visit_Try

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            item.context_expr = ast.copy_location(_call("with", item.context_expr),
                                                  item.context_expr)
            self.guards += 1
        return node


def _unparse(expr):
    try:
        return ast.unparse(expr)
    except Exception:   # noqa: BLE001 - only used in a message
        return "..."


_BUILTINS = frozenset(dir(builtins))


def _converts_callee(call):
    """Whether a call's callee may be a user function (builtins by name are not)."""
    f = call.func
    return not (isinstance(f, ast.Name) and (f.id in _BUILTINS or f.id.startswith(_PREFIX)))


def run_call(fn):
    """The callee of a call in converted code: the user's functions and methods are
    converted (once per code object); installed libraries, Spore and everything else
    are called as they are."""
    if isinstance(fn, (types.FunctionType, types.MethodType)):
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is not None and not _is_library(code.co_filename):
            return convert_callable(fn)
        return fn
    call = getattr(type(fn), "__call__", None)      # an instance of a user's class
    if isinstance(call, types.FunctionType) and not isinstance(fn, type) \
            and not _is_library(call.__code__.co_filename):
        return types.MethodType(convert(call), fn)
    return fn


def _is_library(filename):
    from .capture import is_library
    return is_library(filename)


def convert_callable(fn):
    """``convert`` for functions and bound methods (a method stays bound to its object)."""
    if isinstance(fn, types.MethodType):
        func = convert(fn.__func__)
        return fn if func is fn.__func__ else types.MethodType(func, fn.__self__)
    if isinstance(fn, types.FunctionType):
        return convert(fn)
    return fn


def run_while(cond_fn, body_fn, names, where, *values):
    """The converted ``while``: Python's loop while the test is a Python value; a compiled
    loop (``While``) once it is a tensor inside a trace."""
    capture = P.active_capture()
    while True:
        test = cond_fn(*values)
        if isinstance(test, P._Tensor) and capture is not None:
            return capture.while_loop(cond_fn, _flags_as_tensors(body_fn, names),
                                      _promote_flags(names, values), names, where)
        if not test:
            return values
        values = body_fn(*values)


class _FString:
    """An f-string with tensors in it, kept as pieces until printed."""

    __slots__ = ("pieces",)

    def __init__(self, pieces):
        self.pieces = pieces

    def __str__(self):
        return "".join(p if isinstance(p, str) else str(p) for p in self.pieces)

    __repr__ = __str__


def fstring(*pieces):
    """A converted f-string: the string itself unless a piece is a traced tensor."""
    if P.active_capture() is None or not any(isinstance(p, P._Tensor) for p in pieces):
        return "".join(p if isinstance(p, str) else format(p) for p in pieces)
    return _FString(pieces)


def run_print(*args, sep=" ", end="\n", file=None, flush=False):
    """The converted ``print``: Python's, unless a traced tensor is printed; then a print
    node that prints at every call of the compiled function (PyNative's format)."""
    capture = P.active_capture()
    if capture is None or file is not None or not any(
            isinstance(a, (P._Tensor, _FString)) for a in args):
        text = [str(a) if isinstance(a, _FString) else a for a in args]
        if capture is not None and file is None:
            # Python values print once, when the function is compiled; kept until the
            # trace succeeds, so an aborted trace (then run in PyNative) printed nothing
            capture.root().pending_prints.append((text, sep, end))
            return None
        return print(*text, sep=sep, end=end, file=file, flush=flush)
    from .._prims.special import py_print_p
    tensors, pieces = [], []

    def piece(a):
        if isinstance(a, P._Tensor):
            tensors.append(a)
            return ("tensor", len(tensors) - 1)
        return ("str", a if isinstance(a, str) else str(a))
    for a in args:
        if isinstance(a, _FString):
            pieces.append(("concat", tuple(piece(p) for p in a.pieces)))
        else:
            pieces.append(piece(a))
    py_print_p(*tensors, pieces=tuple(pieces), sep=sep, end=end)
    return None


def _traced_tensor(x):
    return isinstance(x, P._Tensor) and P.active_capture() is not None


def run_not(x):
    """``not x``: a logical-not tensor for a traced tensor, Python's ``not`` otherwise."""
    if _traced_tensor(x):
        from .. import ops
        return ops.logical_not(ops.cast(x, _bool()))
    return not x


def run_and(x, rest):
    """``x and rest()``: elementwise logical and for a traced tensor (both sides are
    evaluated), Python's short-circuit otherwise."""
    if _traced_tensor(x):
        from .. import ops
        y = rest()
        return ops.logical_and(ops.cast(x, _bool()), ops.cast(y, _bool())
                               if isinstance(y, P._Tensor) else bool(y))
    return x and rest()


def run_or(x, rest):
    """``x or rest()``: elementwise logical or for a traced tensor, Python's otherwise."""
    if _traced_tensor(x):
        from .. import ops
        y = rest()
        return ops.logical_or(ops.cast(x, _bool()), ops.cast(y, _bool())
                              if isinstance(y, P._Tensor) else bool(y))
    return x or rest()


def run_ifexp(test, body, orelse):
    """``body() if test else orelse()``: a tensor conditional for a traced tensor."""
    if _traced_tensor(test):
        return P.active_capture().cond(test, body, orelse, ())
    return body() if test else orelse()


def _bool():
    from .. import _dtype
    return _dtype.bool_


def run_for_range(body_fn, names, where, bounds, flag, last, *values):
    """``for i in range(...)``: Python's loop over Python ints; a ``While`` when a bound
    is a traced tensor (``i`` is then a tensor in the body) or a ``break`` depends on a
    tensor (the remaining iterations become the loop). Returns ``(i, *values)``: ``i``
    keeps its last value after the loop, as in Python."""
    stop_at = names.index(flag) if flag else -1
    if not any(_traced_tensor(b) for b in bounds):
        steps = range(*bounds)
        for n, i in enumerate(steps):
            values = body_fn(i, *values)
            last = i
            if stop_at < 0:
                continue
            if _traced_tensor(values[stop_at]):
                if n + 1 == len(steps):
                    break
                rest = (steps[n + 1], steps.stop, steps.step)
                return _tensor_range(body_fn, names, where, rest, stop_at, values)
            if values[stop_at]:
                break
        return (last,) + tuple(values)
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else \
        (bounds[0], bounds[1], 1) if len(bounds) == 2 else bounds
    return _tensor_range(body_fn, names, where, (start, stop, step), stop_at, values)


def _tensor_range(body_fn, names, where, bounds, stop_at, values):
    """The rest of a ``for`` over ``range`` as one ``While``; ``i`` counts in a tensor."""
    from .. import ops
    start, stop, step = bounds
    if isinstance(step, P._Tensor):
        raise P.active_capture().unsupported(f"a tensor step in range() {where}")
    i0 = start if isinstance(start, P._Tensor) else P._Tensor(start, _int32())
    if isinstance(stop, P._Tensor) and stop.dtype != i0.dtype:
        i0 = ops.cast(i0, stop.dtype)

    def test(i, *vals):
        more = i < stop if step > 0 else i > stop
        return ops.logical_and(ops.logical_not(vals[stop_at]), more) if stop_at >= 0 else more

    def body(i, *vals):
        return (i + step,) + _promote_flags(names, body_fn(i, *vals))
    out = P.active_capture().while_loop(test, body, (i0,) + _promote_flags(names, values),
                                        ("<range index>",) + tuple(names), where)
    return (out[0] - step,) + tuple(out[1:])


def _int32():
    from .. import _dtype
    return _dtype.int32


def _value(scope, name):
    return scope.get(name, Undefined(name))


def convert(fn):
    """The converted version of ``fn`` (``fn`` itself when there is nothing to convert, it
    is Spore's own code, or its source is not available)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_filename.startswith(_spore_dir()):
        return fn
    hit = _cache.get(code)
    if hit is None:
        hit = _cache[code] = _convert_code(fn)
    if hit is False:
        return fn
    new_code, helpers = hit
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in new_code.co_freevars:
        cell = cells.get(name)
        if cell is None:
            cell = types.CellType(helpers[name])
        closure.append(cell)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(closure) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__dict__.update(getattr(fn, "__dict__", {}))
    new.__qualname__ = fn.__qualname__
    return new


def _spore_dir():
    from .capture import _SPORE_DIR
    return _SPORE_DIR


def _convert_code(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return False
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return False
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False                  # a lambda or something else: traced as it is
    fdef.decorator_list = []
    if not any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(fdef)):
        _ExitLowering().lower_function(fdef)       # NOTE: [Early exits]
    guards = _EffectGuards(fdef)
    fdef = guards.visit(fdef)                      # NOTE: [Compile-time side effects]
    rewriter = _IfRewriter(fn.__code__.co_filename, first)
    fdef = rewriter.visit(fdef)
    if not rewriter.converted and not guards.guards:
        return False
    # the converted function sits in a factory whose parameters are the original free
    # variables and the helpers, so it gets the same closure cells back
    code = fn.__code__
    helpers = {f"{_PREFIX}if": run_if, f"{_PREFIX}while": run_while,
               f"{_PREFIX}value": _value, f"{_PREFIX}print": run_print,
               f"{_PREFIX}fstring": fstring, f"{_PREFIX}not": run_not,
               f"{_PREFIX}and": run_and, f"{_PREFIX}or": run_or, f"{_PREFIX}ifexp": run_ifexp,
               f"{_PREFIX}for_range": run_for_range, f"{_PREFIX}call": run_call,
               f"{_PREFIX}refuse": run_refuse, f"{_PREFIX}outer": run_outer,
               f"{_PREFIX}with": run_with}
    params = list(code.co_freevars) + list(helpers)
    factory = ast.FunctionDef(
        name=f"{_PREFIX}factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None)
    ast.copy_location(factory, fdef)
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    for n in ast.walk(module):              # generated nodes span at least their own line
        if getattr(n, "end_lineno", None) is not None and n.end_lineno < n.lineno:
            n.end_lineno = n.lineno
    ast.increment_lineno(module, first - 1)
    try:
        compiled = compile(module, code.co_filename, "exec")
    except SyntaxError:
        return False
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    linecache.checkcache(code.co_filename)
    return inner, helpers
