"""The graph IR: a flat SSA list of primitive calls with typed values.

NOTE: [Graph IR]
A ``Graph`` has input ``Value``s (the tensor arguments, then every tensor the function
read from outside — Parameters, ``self`` attributes, closures, globals — then the random
state when the function draws random numbers), a list of ``Node``s in program order,
and outputs. A node calls one primitive on values and literal Python scalars, with
static attributes, and defines new values (its outputs, plus one new value for every
input it writes: see NOTE: [Writes and aliases] in ``_core/primitive.py``). Program
order is execution order: effects (state writes, random draws, prints) keep their
place, and in-place kernels run on the same buffers as in PyNative, so views see writes
exactly as they do eagerly.
"""
from __future__ import annotations

import itertools

import numpy as np

from .._core.aval import ShapedArray
from .. import _dtype as D

_ids = itertools.count()


class Value:
    """One SSA value: an aval, and where it comes from (an input, a constant or a node)."""

    __slots__ = ("id", "aval", "node", "const", "role", "label")

    def __init__(self, aval, node=None, const=None, role=None, label=None):
        self.id = next(_ids)
        self.aval = aval
        self.node = node          # the defining Node (None for inputs and constants)
        self.const = const        # a NumPy array for graph constants
        self.role = role          # input role: "arg", "tensor", "param", "rng"
        self.label = label

    @property
    def nbytes(self):
        return self.aval.size * self.aval.dtype.itemsize

    def __repr__(self):
        return f"%{self.id}"


class Node:
    """One primitive call. ``inputs`` holds Values and literals (Python scalars, None);
    ``written`` pairs each written input position with the value it has afterwards."""

    __slots__ = ("prim", "inputs", "attrs", "outputs", "written", "loc")

    def __init__(self, prim, inputs, attrs, outputs, written=(), loc=None):
        self.prim = prim
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.outputs = tuple(outputs)
        self.written = tuple(written)
        self.loc = loc            # (filename, lineno, source line) of the user's call

    @property
    def defines(self):
        """Every value this node defines: its outputs, then its written inputs' new values."""
        return self.outputs + tuple(v for _, v in self.written if v not in self.outputs)

    def value_inputs(self):
        return [v for v in self.inputs if isinstance(v, Value)]

    @property
    def pure(self):
        return self.prim.effect is None


class Graph:
    def __init__(self, name, inputs=(), nodes=(), outputs=()):
        self.name = name
        self.inputs = list(inputs)
        self.nodes = list(nodes)
        self.outputs = list(outputs)     # Values
        self.consts = []                 # constant Values (their arrays in .const)

    def copy(self, nodes=None, outputs=None):
        g = Graph(self.name, self.inputs, self.nodes if nodes is None else nodes,
                  self.outputs if outputs is None else outputs)
        g.consts = list(self.consts)
        return g

    def add_input(self, aval, role, label=None):
        v = Value(aval, role=role, label=label)
        self.inputs.append(v)
        return v

    def add_const(self, array):
        array = np.asarray(array)
        v = Value(ShapedArray(array.shape, array.dtype), const=array)
        self.consts.append(v)
        return v

    def users(self):
        """value -> list of nodes that read it."""
        out = {}
        for n in self.nodes:
            for v in n.inputs:
                if isinstance(v, Value):
                    out.setdefault(v, []).append(n)
        return out

    def __str__(self):
        return format_graph(self)


# --------------------------------------------------------------------------- printing
def readers(nodes):
    """value -> the positions in ``nodes`` of the nodes reading it (each node once), for
    passes that merge a value's producer with its one reader."""
    out = {}
    for k, n in enumerate(nodes):
        for x in set(x for x in n.inputs if isinstance(x, Value)):
            out.setdefault(x, []).append(k)
    return out


def touches_state(nodes):
    """Whether any of ``nodes`` writes state or has an effect: a pure node may not be
    moved past them (passes that merge a producer into a later reader check the nodes
    between the two)."""
    return any(n.written or n.prim.effect is not None for n in nodes)


def _type(v):
    return f"{D.dtype_of(v.aval.dtype)}{list(v.aval.shape)}"


def _operand(x):
    if isinstance(x, Value):
        return repr(x)
    return repr(x)


def _attr(v):
    if isinstance(v, Graph):
        return f"<graph {v.name}>"
    if isinstance(v, tuple) and v and all(isinstance(g, Graph) for g in v):
        return "(" + ", ".join(_attr(g) for g in v) + ")"
    if isinstance(v, np.dtype) or isinstance(v, type):
        try:
            return str(D.dtype_of(v))
        except Exception:
            return str(v)
    return repr(v)


def format_node(n):
    outs = ", ".join(f"{v!r}: {_type(v)}" for v in n.defines)
    args = ", ".join(_operand(x) for x in n.inputs)
    attrs = ", ".join(f"{k}={_attr(v)}" for k, v in sorted(n.attrs.items())
                      if not k.startswith("_"))
    text = f"  {outs} = {n.prim.name}({args})"
    if attrs:
        text += f" {{{attrs}}}"
    marks = []
    if n.prim.effect:
        marks.append(n.prim.effect)
    if n.written:
        marks.append("writes " + ", ".join(f"{n.inputs[i]!r}->{v!r}" for i, v in n.written))
    if marks:
        text += "  [" + "; ".join(marks) + "]"
    if n.loc is not None:
        text += f"  # {n.loc[0]}:{n.loc[1]}"
    return text


def format_graph(g):
    ins = []
    for v in g.inputs:
        label = f" {v.role}" + (f" {v.label}" if v.label else "")
        ins.append(f"{v!r}: {_type(v)}{label}")
    lines = [f"graph {g.name}(" + ", ".join(ins) + ") {"]
    for c in g.consts:
        lines.append(f"  {c!r}: {_type(c)} = constant")
    lines.extend(format_node(n) for n in g.nodes)
    lines.append("  return (" + ", ".join(repr(v) for v in g.outputs) + ")")
    lines.append("}")
    for sub in subgraphs(g):
        lines.append(format_graph(sub))
    return "\n".join(lines)


def subgraphs(g):
    """The sub-graphs the nodes of ``g`` hold (branches, loop bodies, fused groups)."""
    return [sub for n in g.nodes for sub in node_subgraphs(n)]


def node_subgraphs(n):
    """The sub-graphs one node holds in its attributes."""
    out = []
    for v in n.attrs.values():
        if isinstance(v, Graph):
            out.append(v)
        elif isinstance(getattr(v, "graph", None), Graph):
            out.append(v.graph)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, Graph))
    return out


def format_dot(g):
    """The graph in Graphviz's dot language (one box per node, edges for values)."""
    lines = [f'digraph "{g.name}" {{', "  node [shape=box, fontname=monospace];"]
    producer = {}
    for v in g.inputs:
        lines.append(f'  v{v.id} [label="{v!r} {v.role}\\n{_type(v)}", shape=ellipse];')
        producer[v] = f"v{v.id}"
    for c in g.consts:
        lines.append(f'  v{c.id} [label="const\\n{_type(c)}", shape=ellipse];')
        producer[c] = f"v{c.id}"
    for i, n in enumerate(g.nodes):
        lines.append(f'  n{i} [label="{n.prim.name}\\n'
                     + ", ".join(_type(v) for v in n.outputs) + '"];')
        for x in n.inputs:
            if isinstance(x, Value) and x in producer:
                lines.append(f"  {producer[x]} -> n{i};")
        for v in n.defines:
            producer[v] = f"n{i}"
    for j, v in enumerate(g.outputs):
        lines.append(f'  out{j} [label="output {j}", shape=ellipse];')
        if v in producer:
            lines.append(f"  {producer[v]} -> out{j};")
    lines.append("}")
    return "\n".join(lines)


def signature(g):
    """A canonical text of the graph (values renumbered, no source lines): two traces of
    the same computation give the same signature."""
    num = {}

    def name(x):
        if isinstance(x, Value):
            if x not in num:
                num[x] = len(num)
            return f"%{num[x]}"
        return f"{type(x).__name__}:{x!r}"
    parts = [f"{name(v)}:{_type(v)}:{v.role}" for v in g.inputs]
    parts += [f"{name(c)}:{_type(c)}:const:{hash(c.const.tobytes())}" for c in g.consts]
    for n in g.nodes:
        ins = ",".join(name(x) for x in n.inputs)
        attrs = ",".join(f"{k}={_sig_attr(v)}" for k, v in sorted(n.attrs.items())
                         if not k.startswith("_"))
        outs = ",".join(f"{name(v)}:{_type(v)}" for v in n.defines)
        parts.append(f"{outs}={n.prim.name}({ins}){{{attrs}}}")
    parts.append("->" + ",".join(name(v) for v in g.outputs))
    return "\n".join(parts)


def _sig_attr(v):
    if isinstance(v, Graph):
        return "{" + signature(v) + "}"
    if isinstance(v, tuple) and v and all(isinstance(g, Graph) for g in v):
        return "(" + ",".join(_sig_attr(g) for g in v) + ")"
    return _attr(v)


# --------------------------------------------------------------------------- verifier
class GraphError(AssertionError):
    pass


def _sizes(shape):
    """A shape as plain ints: a dynamic size (``Dim``, NOTE: [Dynamic axes]) is checked at
    the size it was traced with, which is what shape rules compute from it."""
    return tuple(int(d) if isinstance(d, int) else d for d in shape)


def _traced_attrs(attrs):
    """Attributes with their dynamic sizes at the traced value, as ``_sizes`` does for
    shapes: a shape rule sees one traced call (it compares a ``Dim`` target with the
    ints it computes)."""
    from .dynamic import Dim, has_dims

    def plain(x):
        if type(x) is Dim:
            return int(x)
        if type(x) in (tuple, list):
            return type(x)(plain(e) for e in x)
        if type(x) is dict:
            return {k: plain(e) for k, e in x.items()}
        return x
    if not any(has_dims(v) for v in attrs.values()):
        return attrs
    return {k: plain(v) for k, v in attrs.items()}


def verify(g):
    """Check the graph's invariants (raises GraphError): every value is defined once,
    before it is used; outputs are defined; each node's avals agree with its shape rule."""
    defined = set()
    for v in list(g.inputs) + list(g.consts):
        if v in defined:
            raise GraphError(f"{v!r} is defined twice")
        defined.add(v)
    for n in g.nodes:
        for x in n.inputs:
            if isinstance(x, Value) and x not in defined:
                raise GraphError(f"{n.prim.name} reads {x!r} before it is defined")
        for i, _ in n.written:
            if i >= len(n.inputs) or not isinstance(n.inputs[i], Value):
                raise GraphError(f"{n.prim.name} writes input {i}, which is not a value")
        for v in n.defines:
            if v in defined:
                raise GraphError(f"{v!r} is defined twice")
            defined.add(v)
        if n.prim.infer is not None:
            avals = [ShapedArray(_sizes(x.aval.shape), x.aval.dtype) if isinstance(x, Value)
                     else x for x in n.inputs]
            out = n.prim.infer(_traced_attrs(n.attrs), *avals)
            outs = out if isinstance(out, tuple) else (out,)
            got = [(_sizes(v.aval.shape), np.dtype(v.aval.dtype)) for v in n.outputs]
            want = [(_sizes(a.shape), np.dtype(a.dtype)) for a in outs]
            if got != want:
                raise GraphError(f"{n.prim.name}: outputs {got} disagree with its shape rule "
                                 f"{want}")
    for v in g.outputs:
        if v not in defined:
            raise GraphError(f"output {v!r} is not defined")
    for sub in subgraphs(g):
        verify(sub)
    return True
