"""Gradients of the slices ``x[0], x[1], ...`` summed back into one array, as one stack
(``jit_level="O1"``).

NOTE: [Slice gradients as a stack]
Unpacking a tensor along its first axis (attention's ``q, k, v = qkv[0], qkv[1],
qkv[2]``) differentiates into one ``GetitemGrad`` per slice -- a zero array of the whole
shape with that slice written in -- and ``Add``s summing them: for W5's (3, 8, 8, 197,
32) that is three 4.8 MB zero fills and copies and two 4.8 MB additions, ~4% of the step.
Where the summed slices are ``0 .. n-1`` of the first axis (a slice read twice adds its
two gradients first) and nothing else reads the pieces, the sum is the slices'
gradients stacked (a ``Concat`` of them with a leading axis of one). Each element is then its one gradient instead of that gradient
plus zeros, which is the same number except that ``-0.0`` stays ``-0.0`` (``0.0 +
-0.0`` is ``0.0``). O1, whose results may differ from O0's within rounding, stacks.
O0 must give PyNative's bits, so there (``exact``) each slice must have exactly one
gradient (no reordered additions) and the stack gets one ``+ 0.0`` in place, which turns
``-0.0`` into ``0.0`` as the additions of zeros did: one pass instead of three fills and
two additions (PyNative adds the slices in place to the same effect, NOTE: [Slice
gradients in place] in spore/_autodiff/slice_sums.py).
"""
from __future__ import annotations

from .._core.aval import ShapedArray
from .._prims.array import concat_p, reshape_p
from .._prims.math import add_p
from .ir import Node, Value, readers


def stack_slice_grads(graph, exact=False):
    """Replace each sum of whole-axis slice gradients by their stack (NOTE: [Slice
    gradients as a stack]); ``exact``: with the sum's bits (O0)."""
    nodes = graph.nodes
    users = readers(nodes)
    made_at = {v: k for k, n in enumerate(nodes) for v in n.outputs}
    keep = set(graph.outputs)
    replaced, dropped = {}, set()
    for k in range(len(nodes) - 1, -1, -1):       # the last Add of a sum first: whole trees
        root = nodes[k]
        if root.prim.name != "Add" or k in dropped or root.written:
            continue
        leaves, inner, reads = {}, [], {}
        if not _collect(root, nodes, made_at, keep, leaves, inner, reads, top=True) \
                or any(len(users[v]) != n for v, n in reads.items()):
            continue                 # a piece some other node reads too
        shape = tuple(root.outputs[0].aval.shape)
        if not shape or sorted(leaves) != list(range(shape[0])) or shape[0] < 2:
            continue
        if exact and any(len(terms) != 1 for terms in leaves.values()):
            continue
        replaced[k] = _stack([leaves[i] for i in range(shape[0])], root, exact)
        dropped.update(inner)
    if not replaced:
        return graph, False
    out = []
    for k, n in enumerate(nodes):
        if k in replaced:
            out.extend(replaced[k])
        elif k not in dropped:
            out.append(n)
    return graph.copy(nodes=out), True


def _collect(node, nodes, made_at, keep, leaves, inner, reads, top=False):
    """Walk the ``Add`` tree under ``node``: its leaves must be slice gradients of one
    index each along the first axis. Fills ``leaves`` (index -> that slice's gradients,
    in the tree's order: a slice read twice has two), ``inner`` (node positions to drop)
    and ``reads`` (value -> times the tree reads it: the caller checks that nothing
    else does)."""
    if not top:
        v = node.outputs[0]
        if v in keep or node.written:
            return False
        reads[v] = reads.get(v, 0) + 1
    if node.prim.name == "Add" and len(node.inputs) == 2:
        shape = node.outputs[0].aval.shape
        for x in node.inputs:
            if not isinstance(x, Value) or x.aval.shape != shape or x.aval.dtype != \
                    node.outputs[0].aval.dtype or x not in made_at:
                return False
            if not _collect(nodes[made_at[x]], nodes, made_at, keep, leaves, inner, reads):
                return False
        if not top:
            inner.append(made_at[node.outputs[0]])
        return True
    if node.prim.name != "GetitemGrad" or top or len(node.inputs) != 1:
        return False
    spec = node.attrs.get("spec")
    shape = tuple(node.attrs.get("shape", ()))
    if not (isinstance(spec, tuple) and len(spec) == 1 and spec[0][0] == "int") or not shape:
        return False
    g = node.inputs[0]
    if not isinstance(g, Value) or tuple(g.aval.shape) != shape[1:] \
            or g.aval.dtype != node.outputs[0].aval.dtype:
        return False
    leaves.setdefault(spec[0][1] % shape[0], []).append(g)
    inner.append(made_at[node.outputs[0]])
    return True


def _stack(grads, root, exact=False):
    """Each slice's gradients added (in the tree's order) and reshaped to a leading axis
    of one, then one Concat into the root's own output value (its readers keep reading
    it); ``exact``: the Concat into a new value, then ``+ 0.0`` into the root's."""
    out = root.outputs[0]
    parts, made = [], []
    for terms in grads:
        g = terms[0]
        for t in terms[1:]:
            v = Value(ShapedArray(g.aval.shape, g.aval.dtype))
            node = Node(root.prim, (g, t), dict(root.attrs), (v,), (), root.loc)
            v.node = node
            made.append(node)
            g = v
        new = (1,) + tuple(g.aval.shape)
        v = Value(ShapedArray(new, g.aval.dtype))
        node = Node(reshape_p, (g,), {"shape": new}, (v,), (), root.loc)
        v.node = node
        parts.append(v)
        made.append(node)
    stacked = Value(ShapedArray(out.aval.shape, out.aval.dtype)) if exact else out
    cat = Node(concat_p, tuple(parts), {"axis": 0}, (stacked,), (), root.loc)
    stacked.node = cat
    if not exact:
        return made + [cat]
    plus = Node(add_p, (stacked, 0.0), {}, (out,), (), root.loc)
    out.node = plus
    return made + [cat, plus]
