"""Capture: run a Python function on symbolic tensors and record the graph it computes.

NOTE: [Capture]
While a function is traced, ``Capture.handle`` is the thread's handler at the dispatch
point (NOTE: [Dispatch]): every primitive call appends a ``Node`` (its output shapes
and dtypes come from the primitive's shape rule) and returns *symbolic* Tensors, whose
``_data`` is a ``Sym`` — an aval that knows its graph value. Anything that needs the
numbers of a symbolic tensor (``asnumpy``, ``item``, ``bool``, NumPy on it, printing
it) raises ``GraphBreak`` naming the user's line; the caller then runs the function in
PyNative instead (or reports the error under ``fullgraph=True``).

A concrete Tensor met during capture (a Parameter, a ``self`` attribute, a closure or a
global) becomes a graph input, identified by the object: the compiled call reads that
object's data at every call, so it is never a stale constant, and the same object
reached twice is one input. In-place writes give the written object a new graph value
(a map from object to its latest value, as the tape keeps value ids), so a later read
sees the write, while the generated code runs the in-place kernel on the real buffer.
A Tensor built from host data during the trace (``Tensor(np.ones(3))`` in the function)
is a constant instead; a write to it writes a copy made in the graph, so every call
starts from the same constant.
"""
from __future__ import annotations

import functools
import linecache
import os
import sys
import sysconfig

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .ir import Graph, Node, Value

_SPORE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SCALARS = (bool, int, float, complex)


class GraphBreak(Exception):
    """Something in a traced function cannot be captured (the construct, where it is)."""

    def __init__(self, construct, loc=None, hint=None):
        if loc is None:
            loc = user_location(sys._getframe(1))
            inside = library_frame(sys._getframe(1))
            if inside is not None:
                module = inside.f_globals.get("__name__", "?")
                construct = f"{construct} (inside {module}.{inside.f_code.co_name})"
        self.construct = construct
        self.loc = loc
        self.hint = hint
        super().__init__(self._message())

    def _message(self):
        text = f"{self.construct}"
        if self.loc is not None:
            fname, line, src = self.loc
            text = f"{fname}:{line}: {text}"
            if src:
                text += f"\n    {src}"
        if self.hint:
            text += f"\n{self.hint}"
        return text


class SymbolicAttributeError(GraphBreak, AttributeError):
    """A traced tensor's ``_data`` has no such attribute (``getattr(data, name, default)``
    still works for code that treats the attribute as optional)."""


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(os.path.join(os.path.realpath(d), "") for d in dirs if d) + tuple(
        os.path.join(d, "") for d in dirs if d)


_LIBRARY_DIRS = _library_dirs()


def is_library(filename):
    """Whether code lives in Python's standard library or an installed package."""
    return filename.startswith(_LIBRARY_DIRS)


def _frames_outside_spore(f):
    while f is not None:
        fname = f.f_code.co_filename
        if not fname.startswith(_SPORE_DIR) and not fname.startswith("<spore-jit"):
            yield f
        f = f.f_back


def user_frame(start=None):
    """The innermost frame of the user's own code: outside the Spore package, its
    generated code and, when the user's code is further out, installed libraries."""
    first = None
    for f in _frames_outside_spore(start if start is not None else sys._getframe(1)):
        if not is_library(f.f_code.co_filename):
            return f
        first = first or f
    return first


def library_frame(start=None):
    """The outermost library frame inside the user's innermost frame (the library call
    the user made), or None when the user's code is innermost."""
    found = None
    for f in _frames_outside_spore(start if start is not None else sys._getframe(1)):
        if not is_library(f.f_code.co_filename):
            return found
        found = f
    return None


def user_location(start=None):
    """(file, line, source) of the innermost frame of the user's own code."""
    f = user_frame(start if start is not None else sys._getframe(1))
    if f is None:
        return None
    fname = f.f_code.co_filename
    return (fname, f.f_lineno, linecache.getline(fname, f.f_lineno).strip())


def _spore_api_frame():
    """The public Spore function or Cell the user called that read a traced tensor on the
    host: the outermost frame in ``spore/ops`` or ``spore/nn`` before the user's code."""
    ops_dir = _SPORE_DIR + "ops" + os.sep
    nn_dir = _SPORE_DIR + "nn" + os.sep
    found = None
    f = sys._getframe(2)
    while f is not None:
        fname = f.f_code.co_filename
        if not fname.startswith(_SPORE_DIR):
            break
        if fname.startswith(ops_dir) and not f.f_code.co_name.startswith("_"):
            found = f"ops.{f.f_code.co_name}"
        elif fname.startswith(nn_dir) and f.f_code.co_name == "construct":
            self_ = f.f_locals.get("self")
            found = f"{type(self_).__name__}.construct" if self_ is not None else found
        f = f.f_back
    return found


_HOST_HINT = ("A compiled function cannot read a tensor's values on the host while it is "
              "traced. Use ops on the tensor instead (e.g. ops.sin(x) rather than "
              "np.sin(x.asnumpy())), or run this code outside @jit.")


class Sym(ShapedArray):
    """The ``_data`` of a symbolic Tensor: its shape and dtype, and its graph value."""

    __slots__ = ("value",)
    base = None

    def __init__(self, value):
        self.shape = value.aval.shape
        self.dtype = value.aval.dtype
        self.value = value

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    def refuse_host_read(self, what, hint=None):
        op = _spore_api_frame()
        where = f" (inside {op}, whose result depends on the values)" if op else ""
        raise GraphBreak(f"{what}{where} reads the values of a traced tensor on the host",
                         hint=hint or _HOST_HINT)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise SymbolicAttributeError(f"reading the data of a traced tensor (.{name})", hint=_HOST_HINT)

    def __array__(self, *args, **kwargs):
        raise GraphBreak("converting a traced tensor to a NumPy array", hint=_HOST_HINT)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self):
        return f"Sym({self.value!r}: {ShapedArray.__repr__(self)})"


def _new_tensor(value):
    t = P._Tensor.__new__(P._Tensor)
    t._data = Sym(value)
    t._tape_ref = None
    return t


class Capture:
    """One trace in progress (see NOTE: [Capture])."""

    def __init__(self, name, convert=True):
        self.graph = Graph(name)
        self.convert = convert     # convert nested Cells' construct (capture_mode="ast")
        self.objects = []          # concrete tensors read, in input order (kept alive)
        self.current = {}          # id(concrete tensor) -> its latest graph value
        self.bound = []            # (argument object, its real data) while traced
        self.rng = None
        self.n_draws = 0
        self.rng_value = None      # the random state draws count from, and how many
        self.rng_offset = 0        # draws since (NOTE: [Random draws in control flow])
        self.rng_dynamic = False   # a conditional or loop drew: the count is known at run time
        self.rng_carried = None    # a loop body's carried random state
        self.parent = None
        self.pending_prints = []   # Python-value prints of the trace, shown if it succeeds
        self.created = {}          # id -> tensor built from host data during the trace

    # -- values ------------------------------------------------------------------
    def bind_arg(self, obj):
        """Make the caller's tensor argument symbolic for the trace: the function receives
        the object itself, so a closure or attribute that is the same object is the same
        input (MindSpore's PyNative differentiates by object identity)."""
        d = obj._data
        v = self.graph.add_input(ShapedArray(d.shape, d.dtype), "arg")
        self.bound.append((obj, d))
        obj._data = Sym(v)

    def unbind_args(self):
        for obj, data in reversed(self.bound):
            obj._data = data
        self.bound = []

    def value_of(self, t):
        d = t._data
        if type(d) is Sym:
            return d.value
        key = id(t)
        v = self.current.get(key)
        if v is not None:
            return v
        if not isinstance(d, np.ndarray):
            raise GraphBreak(f"a tensor on an unsupported device ({type(d).__name__})")
        if self.created.get(key) is t:         # built during the trace: a constant
            v = self.current[key] = self.graph.add_const(d)
            return v
        role = "param" if isinstance(t, P._Parameter) else "tensor"
        label = getattr(t, "name", None) if role == "param" else None
        v = self.graph.add_input(ShapedArray(d.shape, d.dtype), role, label)
        self.objects.append(t)
        self.current[key] = v
        return v

    def _operand(self, prim, a):
        if isinstance(a, P._Tensor):
            v = self.value_of(a)
            return v, v.aval
        if isinstance(a, np.generic):
            a = a.item()
        if a is None or isinstance(a, _SCALARS):
            return a, a
        if isinstance(a, np.ndarray):
            P._unwrap_input(prim, a)          # raises MindSpore's TypeError
        if isinstance(a, (list, tuple)):
            arr = P._Tensor(a)._data
            c = self.graph.add_const(arr)
            return c, c.aval
        P._unwrap_input(prim, a)              # raises the eager error for other types
        raise TypeError(f"For '{prim.name}', unsupported input of type {type(a).__name__}.")

    # -- the handler -------------------------------------------------------------------
    def handle(self, prim, args, attrs):
        if prim.infer is None:
            raise GraphBreak(f"primitive '{prim.name}' has no shape rule, so it cannot be "
                             "compiled yet")
        operands, avals = [], []
        for a in args:
            o, av = self._operand(prim, a)
            operands.append(o)
            avals.append(av)
        out = prim.infer(attrs, *avals)
        outs = out if isinstance(out, tuple) else (out,)
        if any(d is None or d < 0 for a in outs for d in a.shape):
            raise GraphBreak(f"'{prim.name}' returns a shape that depends on the values of its "
                             "inputs (a dynamic shape), which a compiled graph cannot hold yet")
        for i in prim.writes:       # a constant is never written: its copy is
            o = operands[i] if i < len(operands) else None
            if isinstance(o, Value) and o.const is not None:
                operands[i] = self._copy_of(o)
        node = Node(prim, operands, dict(attrs), (), loc=user_location())
        values = tuple(Value(ShapedArray(a.shape, a.dtype), node) for a in outs)
        node.outputs = values
        written = []
        for i in prim.writes:
            if i < len(args) and isinstance(args[i], P._Tensor):
                new = values[0] if (i == 0 and prim.returns_input) else \
                    Value(operands[i].aval, node)
                written.append((i, new))
        node.written = tuple(written)
        self.graph.nodes.append(node)
        self._defined(node)
        for i, new in written:
            self._rebind(args[i], new)
        if prim.returns_input:
            return args[0]
        if prim.multiple_results:
            return tuple(_new_tensor(v) for v in values)
        return _new_tensor(values[0])

    def _copy_of(self, const):
        from .._prims.special import copy_p
        node = Node(copy_p, (const,), {}, (), loc=user_location())
        node.outputs = (Value(const.aval, node),)
        self.graph.nodes.append(node)
        self._defined(node)
        return node.outputs[0]

    def note_created(self, t):
        """``Tensor(host data)`` ran during the trace: the tensor is a graph constant
        (NOTE: [Capture]), not an input read by identity at every call."""
        self.root().created[id(t)] = t

    def _rebind(self, t, value):
        if type(t._data) is Sym:
            t._data = Sym(value)
            return
        self.value_of(t)   # make sure it is an input first
        self.current[id(t)] = value

    # -- hooks used below the compiler (random keys, snapshots) ---------------------------
    # -- random state ------------------------------------------------------------------
    # NOTE: [Random draws in control flow]
    # A compiled call receives the random state (base, counter, global seed) and each
    # draw's key is that state plus a fixed offset: the n-th draw takes counter + n, the
    # key PyNative's n-th draw would take. A tensor conditional or loop draws a number of
    # times known only when it runs, so there the state becomes a value threaded through
    # the graph: the draws before it are folded into a ``RandomAdvance`` node, a branch
    # reads that state as a free input and returns it advanced by its own draws (both
    # branches return one), a loop body carries it, and later draws count from the
    # node's output. The whole graph then returns its final state as a last output and
    # the call sets the counter from it; graphs without such draws keep the fixed count.
    # A draw in a loop's test, or inside control flow under a gradient tape, stops the
    # trace with a message.
    def random_key(self, seed):
        from .._prims.random import random_key_p
        base = self._rng_base()
        self.n_draws += 1
        self.rng_offset += 1
        node = Node(random_key_p, (base,), {"seed": seed, "offset": self.rng_offset}, (),
                    loc=user_location())
        v = Value(ShapedArray((2,), np.uint64), node)
        node.outputs = (v,)
        self.graph.nodes.append(node)
        self._defined(node)
        return _new_tensor(v)

    def _rng_base(self):
        """The random state the next draw counts from (created on first use)."""
        if self.rng_value is None:
            if self.rng is None:        # the last input; ``finish`` appends it
                self.rng = Value(ShapedArray((3,), np.uint64), role="rng")
            self.rng_value = self.rng
        return self.rng_value

    def current_rng(self):
        """The random state after every draw traced so far (a ``RandomAdvance`` node when
        draws happened since the last state value)."""
        from .._prims.random import random_advance_p
        base = self._rng_base()
        if not self.rng_offset:
            return base
        node = Node(random_advance_p, (base,), {"n": self.rng_offset}, (), loc=None)
        node.outputs = (Value(ShapedArray((3,), np.uint64), node),)
        self.graph.nodes.append(node)
        self._defined(node)
        self.rng_value, self.rng_offset = node.outputs[0], 0
        return self.rng_value

    def _rng_after(self, value):
        """Draws inside a conditional or loop happened: ``value`` is the state after it."""
        self.rng_value, self.rng_offset = value, 0
        self.root().rng_dynamic = True

    def snapshot(self, t):
        from .._prims.special import copy_p
        return self.handle(copy_p, (t,), {})

    def root(self):
        """The outermost capture (a branch's or loop body's enclosing trace)."""
        c = self
        while c.parent is not None:
            c = c.parent
        return c

    def converted(self, fn):
        """``fn`` source-converted when this trace converts (capture_mode="ast")."""
        if not self.convert:
            return fn
        from .convert import convert_callable
        return convert_callable(fn)

    def unsupported(self, construct):
        """Stop the trace: ``construct`` cannot be compiled (the function runs in PyNative)."""
        raise GraphBreak(construct)

    # -- tensor conditionals (NOTE: [Conditionals] in control.py) -------------------------
    def cond(self, pred, true_fn, false_fn, operands, names=None, where=""):
        from .._autodiff import tape as T
        from .control import cond_p
        if not isinstance(pred, P._Tensor):
            return true_fn(*operands) if pred else false_fn(*operands)
        recording = T.is_recording()
        pv = self.value_of(pred)
        if pv.aval.size != 1:
            raise ValueError(f"cond: the condition must hold one element, but has shape "
                             f"{list(pv.aval.shape)}")
        with T.suspended():       # the branches are traced unrecorded (see _record_cond)
            traced = [self._trace_branch(fn, operands, tag)
                      for fn, tag in ((true_fn, "true"), (false_fn, "false"))]
        (ba, tree_a, outs_a), (bb, tree_b, outs_b) = traced
        if names is not None:
            tree_a, tree_b, outs_a, outs_b = _one_sided_names(
                names, where, tree_a, tree_b, outs_a, outs_b)
            ba.graph.outputs, bb.graph.outputs = outs_a, outs_b
        avals_a = [(v.aval.shape, v.aval.dtype) for v in outs_a]
        avals_b = [(v.aval.shape, v.aval.dtype) for v in outs_b]
        if tree_a != tree_b or avals_a != avals_b:
            raise GraphBreak("the two branches of a tensor conditional return different "
                             f"structures, shapes or dtypes ({avals_a} vs {avals_b})")
        drew = ba.rng_value is not None or bb.rng_value is not None
        if drew:
            if recording:
                raise GraphBreak("random numbers drawn inside a tensor conditional, inside a "
                                 "gradient computation")
            for br, outs in ((ba, outs_a), (bb, outs_b)):
                outs.append(br.current_rng())        # the state after the branch's draws
                br.graph.outputs = outs
        union = list(dict.fromkeys(ba.free_order + bb.free_order))
        for br in (ba, bb):
            br.graph.inputs = [br.free.get(u) or Value(u.aval, role="free") for u in union]
        written = dict(ba.written)
        written.update(bb.written)
        if recording:
            return self._record_cond(pred, ba, bb, union, written, tree_a, outs_a,
                                     (true_fn, false_fn, operands))
        node = Node(cond_p, [pv] + union,
                    {"branches": (ba.graph, bb.graph),
                     "out_avals": tuple(v.aval for v in outs_a)}, (), loc=user_location())
        node.outputs = tuple(Value(v.aval, node) for v in outs_a)
        self._append_control(node, written.values(), 1, union, drew)
        it = iter(node.outputs)
        return _unflatten(tree_a, it)

    def _append_control(self, node, written, offset, union, drew, carried=()):
        """Add a ``Cond``/``While`` node: the tensors from outside that its sub-graphs
        write get the node's new values (inputs ``offset + union index``), and the random
        state after it is its last output when it drew."""
        new_values = []
        for obj in written:
            outer = self.value_of(obj)
            if outer in carried:
                continue
            new_values.append((obj, offset + union.index(outer), Value(outer.aval, node)))
        node.written = tuple((i, v) for _, i, v in new_values)
        self.graph.nodes.append(node)
        self._defined(node)
        if drew:
            self._rng_after(node.outputs[-1])
        for obj, _, v in new_values:
            self._rebind(obj, v)

    def _record_cond(self, pred, ba, bb, union, written, tree, outs, py):
        """A tensor conditional while a gradient tape records: the ``Cond`` goes through
        the dispatch point with the tensors its branches read as inputs, so the tape
        records it; its gradient rule is a conditional over the branches' gradients."""
        from .control import CondCall, cond_p
        if written:
            raise GraphBreak("a tensor conditional that writes state, inside a gradient "
                             "computation")
        if _has_undefined(tree, merged=True):
            raise GraphBreak("a tensor conditional with a name assigned in one branch only, "
                             "inside a gradient computation")
        objs = [ba.objs[u] if u in ba.objs else bb.objs.get(u) for u in union]
        if any(o is None for o in objs):
            raise GraphBreak("a nested tensor conditional inside a gradient computation")
        attrs = {"branches": (ba.graph, bb.graph), "out_avals": tuple(v.aval for v in outs),
                 "_py": CondCall(py[0], py[1], py[2], objs, tree)}
        results = cond_p(pred, *objs, **attrs)
        return _unflatten_tensors(tree, iter(results))

    def _trace_branch(self, fn, operands, tag):
        br = Branch(self, f"{self.graph.name}_{tag}")
        prev = P.set_capture(br)
        try:
            with P.handler_scope(lambda below: br.handle):
                out = fn(*operands)
            leaves = []
            tree = _flatten_out(out, leaves)
            outs = [br.value_of(t) for t in leaves]
        finally:
            P.set_capture(prev)
            for t, data in reversed(br.restore):
                t._data = data
        br.graph.outputs = outs
        return br, tree, outs

    # -- tensor while loops ------------------------------------------------------------
    def while_loop(self, cond_fn, body_fn, values, names, where):
        """A ``while`` whose test is a tensor: the test and the body become sub-graphs of
        one ``While`` node whose loop-carried values are the tensors the body assigns."""
        from .._autodiff import tape as T
        from .control import while_p
        recording = T.is_recording()
        carried = [i for i, v in enumerate(values) if isinstance(v, P._Tensor)]
        init = [self.value_of(values[i]) for i in carried]
        traced = []
        suspended = T.suspended()
        suspended.__enter__()
        for fn, tag in ((cond_fn, "while_cond"), (body_fn, "while_body")):
            br = Branch(self, f"{self.graph.name}_{tag}")
            params = [Value(v.aval, role="carried") for v in init]
            br.defined.update(params)
            br.rng_carried = functools.partial(_carried_rng, br, params, tag, where)
            args = list(values)
            for i, v in zip(carried, params):
                args[i] = _new_tensor(v)
            prev = P.set_capture(br)
            try:
                with P.handler_scope(lambda below: br.handle):
                    out = fn(*args)
                if tag == "while_cond":
                    if not isinstance(out, P._Tensor):
                        raise GraphBreak(f"the test of the while loop {where}is a tensor at "
                                         "first and a Python value later")
                    outs = [br.value_of(out)]
                else:
                    outs = []
                    for k, (name, new, old) in enumerate(zip(names, out, values)):
                        if k in carried:
                            if not isinstance(new, P._Tensor):
                                raise GraphBreak(f"'{name}' stops being a tensor in the while "
                                                 f"loop {where}")
                            v = br.value_of(new)
                            if (v.aval.shape, v.aval.dtype) != (init[carried.index(k)].aval.shape,
                                                                init[carried.index(k)].aval.dtype):
                                raise GraphBreak(
                                    f"'{name}' changes shape or dtype in the while loop {where}"
                                    f"({init[carried.index(k)].aval!r} -> {v.aval!r})",
                                    hint="Loop-carried tensors keep their shape and dtype.")
                            outs.append(v)
                        elif new is not old and not (new == old):
                            _check_return_in_loop(name, where)
                            raise GraphBreak(f"the Python value '{name}' changes in the tensor "
                                             f"while loop {where}", hint="Make it a tensor "
                                             "(e.g. i = ms.Tensor(0)) so the loop can carry it.")
            finally:
                P.set_capture(prev)
                for t, data in reversed(br.restore):
                    t._data = data
            br.graph.outputs = outs
            traced.append((br, params))
        suspended.__exit__(None, None, None)
        (bc, pc), (bb, pb) = traced
        drew = bb.rng_value is not None
        if drew:            # the random state is carried: the body's draws advance it
            if recording:
                raise GraphBreak(f"random numbers drawn inside the tensor while loop {where}"
                                 "inside a gradient computation")
            init.append(self.current_rng())
            pc.append(Value(init[-1].aval, role="carried"))
            bb.graph.outputs = list(bb.graph.outputs) + [bb.current_rng()]
        union = list(dict.fromkeys(bc.free_order + bb.free_order))
        for br, params in traced:
            br.graph.inputs = params + [br.free.get(u) or Value(u.aval, role="free")
                                        for u in union]
        if bc.written:
            raise GraphBreak(f"the test of the while loop {where}writes a tensor")
        if recording:
            return self._record_while(values, carried, bc, bb, union, body_fn, where)
        node = Node(while_p, init + union,
                    {"cond": bc.graph, "body": bb.graph, "n_carried": len(init)}, (),
                    loc=user_location())
        node.outputs = tuple(Value(v.aval, node) for v in init)
        self._append_control(node, bb.written.values(), len(init), union, drew, init)
        result = list(values)
        for i, v in zip(carried, node.outputs):
            result[i] = _new_tensor(v)
        return tuple(result)

    def _record_while(self, values, carried, bc, bb, union, body_fn, where):
        """A tensor loop under a gradient tape: one recorded While (NOTE: [Loop
        gradients] in control.py)."""
        from .control import WhileCall, while_p
        if bb.written:
            raise GraphBreak(f"a tensor while loop {where}that writes state, inside a "
                             "gradient computation")
        objs = []
        for u in union:
            obj = bb.objs[u] if u in bb.objs else bc.objs.get(u)
            if obj is None:
                raise GraphBreak(f"a nested tensor loop {where}inside a gradient computation")
            objs.append(obj)
        call = WhileCall(body_fn, values, carried, objs)
        outs = while_p(*[values[i] for i in carried], *objs, cond=bc.graph, body=bb.graph,
                       n_carried=len(carried), _py=call)
        result = list(values)
        for i, t in zip(carried, outs):
            result[i] = t
        return tuple(result)

    def while_grad(self, call, n, inputs, out, dout):
        """The gradient rule of a recorded While: a WhileGrad node over the body's vjp."""
        from .._autodiff.api import grad
        from .._prims.array import full_p
        from .control import while_grad_p
        if not isinstance(dout, tuple):
            dout = (dout,)
        if not isinstance(out, tuple):
            out = (out,)
        douts = [d if d is not None else full_p(shape=o._data.shape, dtype=o._data.dtype,
                                                 value=0) for d, o in zip(dout, out)]
        weights = [o for o in call.objs if o._data.dtype.kind in "fcV"]
        avals = [ShapedArray(o._data.shape, o._data.dtype) for o in out]

        def vjp(*sd):
            s, d = sd[:n], sd[n:]

            def step(*ss):
                args = list(call.values)
                for i, t in zip(call.carried, ss):
                    args[i] = t
                res = call.body_fn(*args)
                return tuple(res[i] for i in call.carried)
            g = grad(step, tuple(range(n)), weights or None, sens_param=True)(*s, tuple(d))
            if weights:
                ds, dw = g
            else:
                ds, dw = g, ()
            ds = (ds,) if n == 1 else tuple(ds)
            return tuple(ds) + tuple(dw)
        br = Branch(self, f"{self.graph.name}_while_vjp")
        params = [Value(a, role="carried") for a in avals] + \
            [Value(a, role="cotangent") for a in avals]
        br.defined.update(params)
        prev = P.set_capture(br)
        try:
            with P.handler_scope(lambda below: br.handle):
                res = vjp(*[_new_tensor(v) for v in params])
            outs = [br.value_of(t) for t in res]
        finally:
            P.set_capture(prev)
        br.graph.outputs = outs
        free = list(br.free_order)
        br.graph.inputs = params + [br.free[u] for u in free]
        free_objs = [br.objs[u] for u in free]
        out_avals = tuple(avals) + tuple(ShapedArray(w._data.shape, w._data.dtype)
                                         for w in weights)
        grads = while_grad_p(*out, *douts, *free_objs, vjp=br.graph, n_carried=n,
                             n_weights=len(weights), out_avals=out_avals, _py=call)
        d_init, d_w = grads[:n], grads[n:]
        by_obj = {id(w): g for w, g in zip(weights, d_w)}
        return tuple(d_init) + tuple(by_obj.get(id(o)) for o in call.objs)

    def _defined(self, node):
        pass

    def lift(self, v):
        return v

    def finish(self, outputs):
        """Close the graph: its outputs, and the random state as its last input."""
        outputs = list(outputs)
        if self.rng_dynamic:        # the state after the call is an output too
            outputs.append(self.current_rng())
        if self.rng is not None:
            self.graph.inputs.append(self.rng)
        self.graph.outputs = outputs
        return self.graph


class Branch(Capture):
    """The trace of one branch of a tensor conditional: a sub-graph whose inputs are the
    values it reads from the enclosing graph (``free``), in first-use order."""

    def __init__(self, parent, name):
        super().__init__(name, parent.convert)
        self.parent = parent
        self.free = {}             # enclosing value -> this sub-graph's input
        self.free_order = []
        self.defined = set()
        self.written = {}          # id -> tensor from outside this branch that it writes
        self.restore = []          # (traced tensor, its enclosing value) to put back
        self.objs = {}             # enclosing value -> a tensor object that holds it

    def value_of(self, t):
        d = t._data
        if type(d) is Sym:
            if d.value in self.defined:
                return d.value
            outer = self.parent.lift(d.value)
        else:
            v = self.current.get(id(t))
            if v is not None:
                return v
            outer = self.parent.value_of(t)
        self.objs.setdefault(outer, t)
        return self._free(outer)

    def lift(self, v):
        """This sub-graph's value for ``v``, a value of it or of an enclosing graph."""
        if v in self.defined:
            return v
        return self._free(self.parent.lift(v))

    def _free(self, outer):
        inner = self.free.get(outer)
        if inner is None:
            inner = self.free[outer] = Value(outer.aval, role="free")
            self.free_order.append(outer)
            self.defined.add(inner)
        return inner

    def _defined(self, node):
        self.defined.update(node.defines)

    def _rebind(self, t, value):
        if type(t._data) is Sym:
            old = t._data
            if old.value in self.free.values() or old.value not in self.defined:
                # a tensor from outside the branch: written in place at run time; after
                # the trace it gets its enclosing value back, then the Cond's new value
                if id(t) not in self.written:
                    self.restore.append((t, old))
                    self.written[id(t)] = t
            t._data = Sym(value)
            return
        self.value_of(t)
        self.current[id(t)] = value
        self.written[id(t)] = t

    def _rng_base(self):
        """A branch counts from the enclosing graph's state (a free input); a loop body
        from its carried state (NOTE: [Random draws in control flow])."""
        if self.rng_value is None:
            if self.rng_carried is not None:
                self.rng_value = self.rng_carried()
            else:
                self.rng_value = self._free(self.parent.current_rng())
        return self.rng_value


def _carried_rng(br, params, tag, where):
    """A loop body's first draw: the random state becomes one more carried value."""
    if tag == "while_cond":
        raise GraphBreak(f"random numbers drawn in the test of the while loop {where}".strip(),
                         hint="Draw them in the body (or before the loop).")
    p = Value(ShapedArray((3,), np.uint64), role="carried")
    br.defined.add(p)
    params.append(p)
    return p


def _flatten_out(x, leaves):
    from .convert import Undefined
    if isinstance(x, P._Tensor):
        leaves.append(x)
        return "T"
    if isinstance(x, Undefined):
        return ("U", x.name)
    if isinstance(x, (tuple, list)):
        return (type(x), tuple(_flatten_out(e, leaves) for e in x))
    if x is None or isinstance(x, _SCALARS):
        return ("S", x)
    raise GraphBreak(f"a tensor conditional's branch returns a {type(x).__name__}")


def _unflatten(tree, it):
    from .convert import Undefined
    if tree == "T":
        return _new_tensor(next(it))
    if tree[0] == "S":
        return tree[1]
    if tree[0] == "U":
        return Undefined(tree[1])
    return tree[0](_unflatten(t, it) for t in tree[1])


def _count(tree):
    if tree == "T":
        return 1
    if tree[0] in ("S", "U"):
        return 0
    return sum(_count(t) for t in tree[1])


def _has_undefined(tree, merged=False):
    """Whether ``tree`` holds an undefined name (``merged``: also one already turned into
    an ``Undefined`` value by ``_one_sided_names``)."""
    from .convert import Undefined
    if tree == "T":
        return False
    if tree[0] == "U":
        return True
    if tree[0] == "S":
        return merged and isinstance(tree[1], Undefined)
    return any(_has_undefined(t, merged) for t in tree[1])


def _one_sided_names(names, where, tree_a, tree_b, outs_a, outs_b):
    """A converted ``if`` returns one value per assigned name: a name that only one branch
    assigns is *undefined* after it (an error if used), not a structure mismatch."""
    from .convert import Undefined
    if tree_a == "T" or tree_a[0] is not tuple or tree_b[0] is not tuple \
            or len(tree_a[1]) != len(names) or len(tree_b[1]) != len(names):
        return tree_a, tree_b, outs_a, outs_b
    children, keep_a, keep_b = [], [], []
    ia = ib = 0
    for ca, cb, name in zip(tree_a[1], tree_b[1], names):
        na, nb = _count(ca), _count(cb)
        if ca != cb and (_has_undefined(ca) or _has_undefined(cb)):
            children.append(("S", Undefined(name, where)))
        elif ca != cb:
            _check_return_in_loop(name, where)
            raise GraphBreak(f"'{name}' gets different Python values or structures in the "
                             f"two branches of the tensor `if` {where}({_show(ca)} vs "
                             f"{_show(cb)})", hint="Make it a tensor in both branches "
                             "(e.g. ms.Tensor(1.0)), or compute it outside the `if`.")
        else:
            children.append(ca)
            keep_a += outs_a[ia:ia + na]
            keep_b += outs_b[ib:ib + nb]
        ia += na
        ib += nb
    tree = (tuple, tuple(children))
    return tree, tree, keep_a, keep_b


def _check_return_in_loop(name, where):
    """A lowered ``return`` (NOTE: [Early exits] in convert.py) inside a tensor loop: the
    value before the loop is not a tensor yet, so the loop cannot carry it."""
    from .convert import RETURN_NAME
    if name == RETURN_NAME:
        raise GraphBreak(f"a `return` inside a loop that runs as a tensor loop ({where.strip()})",
                         hint="Assign the result to a variable, `break`, and return it after "
                         "the loop.")


def _show(tree):
    if tree == "T":
        return "a tensor"
    if tree[0] == "S":
        return repr(tree[1])
    return "a " + getattr(tree[0], "__name__", str(tree[0]))


def _unflatten_tensors(tree, it):
    if tree == "T":
        return next(it)
    if tree[0] == "S":
        return tree[1]
    return tree[0](_unflatten_tensors(t, it) for t in tree[1])
