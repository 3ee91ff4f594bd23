"""Graph -> Graph passes and the pipeline per ``jit_level``.

NOTE: [Passes]
Each pass is a small pure function ``pass(graph) -> (graph, changed)`` that never
emits code. Effects are respected everywhere: a state write or a print is never
removed, merged or folded; a random draw is never merged or folded, and is removed only
when its output is unused (the compiled call still advances the random counter by every
draw it traced, so PyNative and Graph mode stay in step).
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .ir import Node, Value

_FOLD_LIMIT = 1 << 16     # fold only constants up to this many elements


def _removable(node):
    return node.prim.effect in (None, "random") and not node.written


def dce(graph):
    """Drop nodes whose values nobody reads (effects kept)."""
    live = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if _removable(node) and not any(v in live for v in node.defines):
            continue
        kept.append(node)
        for x in node.inputs:
            if isinstance(x, Value):
                live.add(x)
    kept.reverse()
    changed = len(kept) != len(graph.nodes)
    return (graph.copy(nodes=kept) if changed else graph), changed


def _hashable(x):
    try:
        hash(x)
        return x
    except TypeError:
        return repr(x)


def _key(node, epoch):
    ins = tuple(("v", x.id) if isinstance(x, Value) else ("l", type(x).__name__, x)
                for x in node.inputs)
    attrs = tuple(sorted((k, _hashable(v)) for k, v in node.attrs.items()))
    return (node.prim.name, ins, attrs, epoch)


def _written_memory(graph):
    """Values whose memory an in-place write may reach (the written values and, through
    view-like nodes, their bases): they are never merged."""
    out = set()
    for node in graph.nodes:
        for i, _ in node.written:
            out.add(node.inputs[i])
    changed = True
    while changed:
        changed = False
        for node in graph.nodes:
            if node.prim.kind == "view" or node.prim.aliases:
                if any(v in out for v in node.outputs):
                    for x in node.inputs:
                        if isinstance(x, Value) and x not in out:
                            out.add(x)
                            changed = True
    return out


def cse(graph):
    """Merge pure nodes that compute the same thing from the same values. Nodes are
    merged only between the same two state writes (a view read before a write and the
    same read after it differ in PyNative), never when their memory is written later."""
    written = _written_memory(graph)
    seen = {}
    subst = {}
    nodes = []
    epoch = 0
    for node in graph.nodes:
        if subst:
            node = _substituted(node, subst)
        if node.written or node.prim.effect == "state":
            epoch += 1
        if node.prim.effect is None and not any(v in written for v in node.outputs):
            k = _key(node, epoch)
            prev = seen.get(k)
            if prev is not None:
                for a, b in zip(node.outputs, prev.outputs):
                    subst[a] = b
                continue
            seen[k] = node
        nodes.append(node)
    if not subst:
        return graph, False
    outputs = [subst.get(v, v) for v in graph.outputs]
    return graph.copy(nodes=nodes, outputs=outputs), True


def _substituted(node, subst):
    if not any(isinstance(x, Value) and x in subst for x in node.inputs):
        return node
    new = Node(node.prim, [subst.get(x, x) if isinstance(x, Value) else x
                           for x in node.inputs], node.attrs, node.outputs, (), node.loc)
    new.written = node.written
    for v in new.defines:
        v.node = new
    return new


def fold_constants(graph):
    """Evaluate pure nodes whose inputs are all constants (or literals) at compile time.
    A value that is written later stays a node: constants are never written."""
    subst = {}
    nodes = []
    g = graph.copy()
    written = _written_memory(graph)
    for node in graph.nodes:
        if subst:
            node = _substituted(node, subst)
        if (node.prim.effect is None and not node.written and node.prim.kind != "view"
                and not any(v in written for v in node.outputs)
                and not node.prim.aliases
                and all(not isinstance(x, Value) or x.const is not None for x in node.inputs)
                and all(v.aval.size <= _FOLD_LIMIT for v in node.outputs)):
            try:
                outs = _evaluate(node)
            except Exception:
                outs = None
            if outs is not None:
                for v, arr in zip(node.outputs, outs):
                    subst[v] = g.add_const(arr)
                continue
        nodes.append(node)
    if not subst:
        return graph, False
    g.nodes = nodes
    g.outputs = [subst.get(v, v) for v in graph.outputs]
    return g, True


def _evaluate(node):
    args = [P.wrap(x.const) if isinstance(x, Value) else x for x in node.inputs]
    out = node.prim.eager(args, dict(node.attrs))
    outs = out if isinstance(out, tuple) else (out,)
    arrays = [np.asarray(o._data) for o in outs]
    for v, a in zip(node.outputs, arrays):
        if a.shape != v.aval.shape or a.dtype != v.aval.dtype:
            return None
    return arrays


PIPELINES = {
    "O0": (("fold_constants", fold_constants), ("cse", cse), ("dce", dce)),
}
def fuse(graph):
    from .fusion import fuse as _fuse
    return _fuse(graph)


def conv_epilogues(graph):
    from .conv_epilogue import conv_epilogues as _conv_epilogues
    return _conv_epilogues(graph)


def gemm_epilogues_exact(graph):
    from .gemm import epilogues
    return epilogues(graph, exact=True)


def gemm_epilogues(graph):
    from .gemm import epilogues
    return epilogues(graph, exact=False)


def gemm_chains(graph):
    from .gemm import chains
    return chains(graph)


def stack_slice_grads(graph):
    from .slice_grads import stack_slice_grads as _stack_slice_grads
    return _stack_slice_grads(graph)


def stack_slice_grads_exact(graph):
    from .slice_grads import stack_slice_grads as _stack_slice_grads
    return _stack_slice_grads(graph, exact=True)


PIPELINES["O1"] = PIPELINES["O0"] + (("stack_slice_grads", stack_slice_grads),
                                     ("conv_epilogues", conv_epilogues),
                                     ("fuse_elementwise", fuse),
                                     ("gemm_epilogues", gemm_epilogues),
                                     ("gemm_chains", gemm_chains))
PIPELINES["O0"] += (("stack_slice_grads", stack_slice_grads_exact),
                    ("gemm_epilogues", gemm_epilogues_exact), ("gemm_chains", gemm_chains))
PIPELINES["O2"] = PIPELINES["O1"]


def run_pipeline(graph, level, on_pass=None, check=False):
    """Run the passes of ``level`` in order; ``on_pass(name, graph)`` sees every result."""
    from .ir import verify
    if check:
        verify(graph)
    for name, fn in PIPELINES.get(level, PIPELINES["O0"]):
        graph, _ = fn(graph)
        if check:
            verify(graph)
        if on_pass is not None:
            on_pass(name, graph)
    return graph
