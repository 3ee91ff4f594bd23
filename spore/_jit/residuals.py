"""Saved residuals for ``JitCall`` (NOTE: [JitCall residuals]).

NOTE: [JitCall residuals]
Without them, the backward of a compiled call recomputes its forward. With them, the
first call under a tape traces the joint function ``(inputs, douts) -> (outputs,
cotangents)`` once (``value_and_grad`` with the output sensitivities as inputs, the
tape running over symbolic values), and splits its optimised graph: the nodes that do
not depend on a ``dout`` form the forward, which also returns every value the rest
reads (the residuals: activations, dropout masks, saved statistics); the remaining
nodes form the backward, a graph of ``(residuals, douts)``. The recorded ``JitCall``
then runs the forward once and returns the residuals as extra outputs, which the tape
keeps until its gradient rule runs the backward. The forward keeps the graph's state
writes and prints, which so run once per call. A joint graph that cannot be split
that way (a backward node with an effect, a residual the forward overwrites, an output that is an argument, a random
state returned by the graph, aliased arguments) keeps the recomputing backward, and so
does a backward that is itself differentiated (``create_graph``: a second-order tape
must see primitives, which the recomputing backward records).
"""
from __future__ import annotations

import numpy as np

from .. import _random as R
from .._autodiff import tape as T
from .._core import primitive as P
from . import codegen, dynamic
from .ir import Graph, Value


class NoSplit(Exception):
    """The joint graph cannot be split into forward + backward (the reason)."""


class Split:
    """The compiled forward (inputs -> outputs + residuals) and backward (residuals +
    douts -> cotangents of the call's tensors and objects)."""

    __slots__ = ("fwd", "bwd", "n_out", "res_avals", "order", "grad_specs")

    def __init__(self, fwd, bwd, n_out, res_avals, order, grad_specs):
        self.fwd, self.bwd = fwd, bwd
        self.n_out = n_out              # the call's own outputs (the rest are residuals)
        self.res_avals = res_avals
        self.order = order              # call.objects index of each of the joint's objects
        self.grad_specs = grad_specs    # per cotangent: None (a backward output) or a constant

    def cotangents(self, residuals, douts):
        """The cotangents of the call's tensors and objects, from the saved residuals."""
        arrays = iter(self.bwd.fn(*residuals, *douts))
        return tuple(P.wrap(next(arrays)) if c is None else c for c in self.grad_specs)

    def forward_inputs(self, arrays, n_tensors, n_objects):
        """The forward graph's input arrays from the JitCall's (tensors, objects, rng)."""
        ts = arrays[:n_tensors]
        objs = arrays[n_tensors:n_tensors + n_objects]
        rest = arrays[n_tensors + n_objects:]
        return list(ts) + [objs[i] for i in self.order] + list(rest)


def build(call, tensors):
    """The Split of ``call`` (a jitcall.CallInfo) for these argument tensors, or None."""
    try:
        return _build(call, tensors)
    except NoSplit:
        return None


def _joint_fn(call):
    from .._autodiff.api import value_and_grad
    from .jitcall import flat_cotangents, flat_forward
    n, objects = call.n_tensors, list(call.objects)
    flat_fn = flat_forward(call)
    positions = tuple(range(n)) or None
    vg = value_and_grad(flat_fn, grad_position=positions, weights=objects or None,
                        sens_param=True)

    def joint(*args):
        ts, ds = args[:n], args[n:]
        value, grads = vg(*ts, tuple(ds))
        value = value if isinstance(value, tuple) else (value,)
        return tuple(value) + flat_cotangents(grads, positions, objects)
    return joint


def _joint_jit(call, tensors):
    """The JitFunction of the call's joint function. With dynamic axes one serves every
    size of a family (its closure needs only what the sizes share: the structure of the
    arguments and outputs), so its sizes share one joint program as the forward's do."""
    from .api import JitFunction
    jit = call.jit
    key = None
    if jit._dynamic_on():
        key = (dynamic.masked(call.spec, _every_axis(tensors)), call.entry.out_spec)
        try:
            jf = jit._joints.get(key)
        except TypeError:                  # an unhashable static argument: one per call
            key, jf = None, None
        if jf is not None:
            return jf
    jf = JitFunction(_joint_fn(call), dynamic=1 if key is not None else 0)
    jf.name = f"{jit.name}_joint"
    jf.jit_level = jit.jit_level
    jf.silent_trace = True
    if key is not None:
        jit._joints[key] = jf
    return jf


def _every_axis(tensors):
    return [(i, k) for i, t in enumerate(tensors) for k in range(len(t.shape))]


def _build(call, tensors):
    entry = call.entry
    if entry.rng_dynamic or len({id(t) for t in tensors}) != len(tensors):
        raise NoSplit("a returned random state, or aliased arguments")
    outs = entry.graph.outputs
    n_out = len(outs)
    sizes = dynamic.sizes_of(call.spec, entry.dims) if entry.generic else ()
    douts = [P.wrap(np.zeros(dynamic.resolve(tuple(v.aval.shape), sizes), v.aval.dtype))
             for v in outs]
    jf = _joint_jit(call, tensors)
    state = R.get_state()
    try:
        with T.suspended():       # traces and compiles the joint graph (once per program)
            joint = jf.entry_for(*tensors, *douts)
    finally:
        R.set_state(state)
    if joint.compiled is None or joint.fallback is not None:
        raise NoSplit("the joint function did not compile")
    if not joint.generic:
        return _split(call, tensors, joint, n_out)
    splits = jf._splits                   # one Split for every size of the program
    split = splits.get(id(joint.compiled))
    if split is None:
        try:
            split = _split(call, tensors, joint, n_out)
        except NoSplit:
            split = False
        splits[id(joint.compiled)] = split
    if split is False:
        raise NoSplit("the shared joint program cannot be split")
    return split


def _split(call, tensors, joint, n_out):
    graph = joint.graph
    n_t = len(tensors)
    n_in = n_t + n_out + len(joint.objects) + (1 if joint.uses_rng else 0)
    spec = joint.out_spec
    specs = spec[1] if spec[0] is tuple else ()
    if len(graph.inputs) != n_in or len(specs) < n_out or any(
            s[0] != "V" or s[1] != i for i, s in enumerate(specs[:n_out])):
        raise NoSplit("arguments or outputs are not plain graph values")
    # a cotangent is a backward output or a constant (the zeros of an unused object)
    grad_specs = []
    for s in specs[n_out:]:
        if s[0] == "V" and s[1] == n_out + sum(g is None for g in grad_specs):
            grad_specs.append(None)
        elif s[0] == "O" and isinstance(s[1], P._Tensor):
            grad_specs.append(s[1])
        else:
            raise NoSplit("a cotangent is neither a graph value nor a constant")
    ids = {id(o): i for i, o in enumerate(call.objects)}
    if len(joint.objects) != len(call.objects) or any(id(o) not in ids
                                                        for o in joint.objects):
        raise NoSplit("the joint graph reads other objects")
    order = [ids[id(o)] for o in joint.objects]
    dout_values = graph.inputs[n_t:n_t + n_out]
    fwd, bwd, res = _partition(graph, dout_values, n_out)
    n_dims = len(joint.dims) if joint.generic else 0
    return Split(_generate(fwd, n_dims), _generate(bwd, n_dims), n_out,
                 [v.aval for v in res], order, grad_specs)


def _generate(graph, n_dims):
    """Compile one half of a joint graph; a symbolic half (NOTE: [Dynamic axes]) reads
    its sizes from inputs that hold each size as an axis."""
    if not n_dims:
        return codegen.generate(graph)
    axes = []
    for j in range(n_dims):
        found = [(i, k) for i, v in enumerate(graph.inputs)
                 for k, d in enumerate(v.aval.shape)
                 if type(d) is dynamic.Dim and d.key() == (j, 1, 0)]
        if not found:
            raise NoSplit("a half of the joint graph has no input of a dynamic size")
        axes.append(found[0])
    try:
        return codegen.generate(graph, axes=axes)
    except dynamic.NotGeneric as e:
        raise NoSplit(str(e)) from None


def _partition(graph, dout_values, n_out):
    """(forward graph, backward graph, residual values) of a joint graph."""
    dep = set(dout_values)
    fwd_nodes, bwd_nodes = [], []
    overwritten = {node.inputs[i] for node in graph.nodes for i, _ in node.written}
    for node in graph.nodes:
        if any(isinstance(x, Value) and x in dep for x in node.inputs):
            if node.prim.effect is not None or node.written:
                raise NoSplit(f"the backward has an effect ({node.prim.name})")
            bwd_nodes.append(node)
            dep.update(node.defines)
        else:
            fwd_nodes.append(node)
    outputs, grads = graph.outputs[:n_out], graph.outputs[n_out:]
    if any(v in dep for v in outputs):
        raise NoSplit("a forward output depends on a dout")
    consts = set(graph.consts)
    res = []
    seen = set()
    for x in [x for node in bwd_nodes for x in node.inputs] + list(grads):
        if isinstance(x, Value) and x not in dep and x not in consts and x not in seen:
            if x in overwritten:
                raise NoSplit("the backward reads a value the forward overwrites")
            seen.add(x)
            res.append(x)
    others = [v for v in graph.inputs if v not in set(dout_values)]
    fwd = Graph(f"{graph.name}_fwd", others, fwd_nodes, list(outputs) + res)
    bwd = Graph(f"{graph.name}_bwd", res + list(dout_values), bwd_nodes, list(grads))
    fwd.consts = list(graph.consts)
    bwd.consts = list(graph.consts)
    return fwd, bwd, res
