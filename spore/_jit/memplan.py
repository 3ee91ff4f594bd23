"""The memory plan: which dead intermediate buffer each elementwise kernel writes into.

NOTE: [Memory plan]
Liveness is per buffer: a value lives from its node to its last reader. When a value
produced by a plain NumPy ufunc dies, its buffer goes to a pool keyed by shape and
dtype; a later ufunc node with the same output shape and dtype (and no casts) writes
into it with ``out=`` instead of allocating. "Ufunc" includes nodes the code generator
runs as a bare ufunc after resolving their attributes (``np.matmul`` for a plain
MatMul). An elementwise node may reuse a buffer that dies at that very node (NumPy
ufuncs handle an output that is also an input); a matmul never writes over its input. Graph inputs, outputs,
written values, views and the outputs of other kernels (except the fresh ones below)
are never reused, and buffers live for one call only (DESIGN.md, "Buffers").

NOTE: [Epilogues in place]
Some opaque kernels always return a new array that nothing else holds: the GEMMs
(``MatMul``, ``Dense``), the softmax family and ``GetitemGrad`` (``fresh_node``).
Their outputs join the pool like a ufunc's, so the elementwise op right after them
(attention's ``scores * scale`` after a batched matmul, its gradient's scale after
``SoftmaxGrad``, a residual add after ``Dense``, the sum of two index gradients)
writes into the kernel's output in place when that is the output's last reader: the
epilogue runs on the GEMM's result in one pass instead of filling a fresh array (W5:
two 10 MB page-faulting allocations and stores per step). Same ufunc, same bits.
"""
from __future__ import annotations

import numpy as np

from .ir import Value


def ufunc_node(node, casts=(), direct=False):
    """Whether ``node`` is a plain ufunc call whose output can go to an ``out=`` buffer
    (``direct``: the code generator calls a bare ufunc for it, e.g. ``np.matmul`` for a
    plain MatMul, its attributes resolved at compile time)."""
    prim = node.prim
    if casts or prim.multiple_results or node.written or prim.effect is not None:
        return False
    if not direct and (not isinstance(prim._cpu, np.ufunc) or prim._prepare is not None
                       or node.attrs):
        return False
    out = node.outputs[0].aval
    if out.shape == ():
        return False
    for x in node.inputs:
        if isinstance(x, Value) and x.aval.dtype != out.dtype and out.dtype != np.bool_:
            return False
    return True


_FRESH = frozenset({"MatMul", "BatchMatMul", "Dense", "GetitemGrad", "Softmax",
                    "LogSoftmax", "SoftmaxGrad", "LogSoftmaxGrad"})


def fresh_node(node):
    """Whether ``node`` is an opaque kernel whose one output is always a new array that
    nothing else holds (NOTE: [Epilogues in place]): its buffer may be written over."""
    prim = node.prim
    return prim.name in _FRESH and not prim.multiple_results and len(node.outputs) == 1 \
        and not node.written and prim.effect is None and not prim.aliases \
        and node.outputs[0].aval.shape != ()


class Plan:
    """``reuse[k]``: the value whose buffer node ``k`` writes into; ``release[k]``: values
    whose last reader is node ``k`` and whose buffers are not pooled (freed there);
    ``peak_bytes``: the intermediates' peak under this plan."""

    def __init__(self):
        self.reuse = {}
        self.release = {}
        self.peak_bytes = 0


def last_readers(graph):
    """Intermediate value -> index of the last node that reads it."""
    last = {}
    for k, node in enumerate(graph.nodes):
        for x in node.inputs:
            if isinstance(x, Value) and x.node is not None:
                last[x] = k
    return last


def plan(graph, cast_nodes=frozenset(), direct_ufuncs=frozenset()):
    last = last_readers(graph)
    keep = set(graph.outputs)
    written = {node.inputs[i] for node in graph.nodes for i, _ in node.written}
    poolable, writes_out = set(), set()
    for k, node in enumerate(graph.nodes):
        if ufunc_node(node, k in cast_nodes, k in direct_ufuncs):
            poolable.add(node.outputs[0])
            writes_out.add(k)
        elif fresh_node(node):        # NOTE: [Epilogues in place]
            poolable.add(node.outputs[0])
    # A buffer lives while any value that may share it lives: the outputs of a kernel that
    # is not a plain ufunc may be views of its inputs, so their lifetimes extend it.
    end = dict(last)
    pinned = set(keep) | written
    for k in range(len(graph.nodes) - 1, -1, -1):
        node = graph.nodes[k]
        if k in writes_out or fresh_node(node):     # outputs are no views of inputs
            continue
        outs = node.defines
        for x in node.inputs:
            if not isinstance(x, Value):
                continue
            for o in outs:
                if o in pinned:
                    pinned.add(x)
                end[x] = max(end.get(x, k), end.get(o, k))
    dying = {}
    for v, k in end.items():
        if v not in pinned:
            dying.setdefault(k, []).append(v)
    p = Plan()
    pool = {}
    live = peak = 0
    for k, node in enumerate(graph.nodes):
        here = [v for v in dying.get(k, ()) if v in poolable]
        out = node.outputs[0] if node.outputs else None
        target = None
        if out is not None and k in writes_out:
            key = (out.aval.shape, out.aval.dtype)
            # only an elementwise kernel may write over an input it reads (a matmul
            # would copy the input first)
            same_shape_inputs = {x for x in node.inputs if isinstance(x, Value)
                                 and (x.aval.shape, x.aval.dtype) == key} \
                if node.prim.kind == "elementwise" else set()
            for v in here:                         # an input dying right here
                if v in same_shape_inputs:
                    target = v
                    break
            if target is None and pool.get(key):
                target = pool[key].pop()
        if target is not None:
            p.reuse[k] = target
            if target in here:
                here.remove(target)
        else:
            fresh = node.prim.kind != "view" and not node.prim.aliases and not node.written
            if fresh:
                live += sum(v.nbytes for v in node.outputs)
        peak = max(peak, live)
        for v in here:
            pool.setdefault((v.aval.shape, v.aval.dtype), []).append(v)
        p.release[k] = [v for v in dying.get(k, ()) if v not in poolable]
        for v in p.release[k]:
            if v.node is not None and v.node.prim.kind != "view" and not v.node.prim.aliases \
                    and not v.node.written:
                live -= v.nbytes
    p.peak_bytes = peak
    return p
