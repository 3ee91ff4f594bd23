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
after a tensor ``if``; using it raises an error naming it and the ``if``. Branches that
``return``, ``break``, ``continue``, ``yield`` or declare ``global``/``nonlocal`` are left
as they are (a tensor condition there then falls back to PyNative, naming the line).
Only code outside the Spore package is converted.
"""
from __future__ import annotations

import ast
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
    return capture.cond(test, true_fn, false_fn, values, names=names, where=where)


# --------------------------------------------------------------------------- the rewrite
class _Stores(ast.NodeVisitor):
    """Names a block assigns (not inside nested functions, classes or comprehensions)."""

    def __init__(self):
        self.names = []
        self.blocked = False

    def _add(self, name):
        if name not in self.names and not name.startswith(_PREFIX):
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
    return/yield)."""
    for s in stmts:
        if _returns([s]):
            return True
        if isinstance(s, (ast.Break, ast.Continue)):
            return True
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            continue                      # their break/continue are their own
        for child in ast.iter_child_nodes(s):
            if isinstance(child, ast.stmt) and _loop_exits([child]):
                return True
    return False


def _returns(stmts):
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal)):
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
        it = node.iter
        if (node.orelse or _loop_exits(node.body) or not isinstance(node.target, ast.Name)
                or not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                        and it.func.id == "range" and not it.keywords
                        and 1 <= len(it.args) <= 3)):
            return node
        block = self._block(node, node.body, exclude=(node.target.id,))
        if block is None:
            return node
        k, names, where = block
        b_name = f"{_PREFIX}for_{k}"
        body_def = ast.FunctionDef(name=b_name, args=_params([node.target.id] + names),
                                   body=list(node.body) + [_return_names(names)],
                                   decorator_list=[], returns=None)
        call = ast.Call(func=ast.Name(id=f"{_PREFIX}for_range", ctx=ast.Load()),
                        args=[ast.Name(id=b_name, ctx=ast.Load()), ast.Constant(tuple(names)),
                              ast.Constant(where), ast.Tuple(elts=list(it.args), ctx=ast.Load())]
                        + _current_values(names), keywords=[])
        return self._emit(node, [body_def], names, call)

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.func = ast.copy_location(ast.Name(id=f"{_PREFIX}print", ctx=ast.Load()),
                                          node.func)
            node.args = [self._fstring(a) for a in node.args]
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
            return capture.while_loop(cond_fn, body_fn, values, names, where)
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


def run_for_range(body_fn, names, where, bounds, *values):
    """``for i in range(...)``: Python's loop over Python ints; a ``While`` when a bound
    is a traced tensor (``i`` is then a tensor in the body)."""
    if not any(_traced_tensor(b) for b in bounds):
        for i in range(*bounds):
            values = body_fn(i, *values)
        return values
    from .. import ops
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else \
        (bounds[0], bounds[1], 1) if len(bounds) == 2 else bounds
    if isinstance(step, P._Tensor):
        raise P.active_capture().unsupported(f"a tensor step in range() {where}")
    i0 = start if isinstance(start, P._Tensor) else P._Tensor(start, _int32())
    if isinstance(stop, P._Tensor) and stop.dtype != i0.dtype:
        i0 = ops.cast(i0, stop.dtype)

    def test(i, *vals):
        return i < stop if step > 0 else i > stop

    def body(i, *vals):
        return (i + step,) + tuple(body_fn(i, *vals))
    out = P.active_capture().while_loop(test, body, (i0,) + tuple(values),
                                        ("<range index>",) + tuple(names), where)
    return out[1:]


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
    if not any(isinstance(n, (ast.If, ast.While, ast.For, ast.BoolOp, ast.IfExp)) or (
            isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not)) or (
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print")
            for n in ast.walk(fdef)):
        return False
    fdef.decorator_list = []
    rewriter = _IfRewriter(fn.__code__.co_filename, first)
    fdef = rewriter.visit(fdef)
    if not rewriter.converted:
        return False
    # the converted function sits in a factory whose parameters are the original free
    # variables and the helpers, so it gets the same closure cells back
    code = fn.__code__
    helpers = {f"{_PREFIX}if": run_if, f"{_PREFIX}while": run_while,
               f"{_PREFIX}value": _value, f"{_PREFIX}print": run_print,
               f"{_PREFIX}fstring": fstring, f"{_PREFIX}not": run_not,
               f"{_PREFIX}and": run_and, f"{_PREFIX}or": run_or, f"{_PREFIX}ifexp": run_ifexp,
               f"{_PREFIX}for_range": run_for_range}
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
