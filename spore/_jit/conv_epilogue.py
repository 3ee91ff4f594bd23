"""Conv epilogues (``jit_level="O1"``): a convolution's ReLU, and the ReLU gradient after a
max pooling's scatter, as one kernel each (NOTE: [Conv epilogues] in
spore/_prims/nn/conv.py).

The pass only rewrites the graph: ``Conv2D -> ReLU`` becomes ``Conv2DReLU`` and
``MaxPoolScatter -> ReluGrad`` becomes ``MaxPoolScatterReluGrad``, primitives of
spore/_prims/nn whose kernels give the unfused pair's values bit for bit (maximum,
masking and selection are exact), so O1 and O0 agree exactly on these nodes.
"""
from __future__ import annotations

import numpy as np

from .. import _native
from .._prims.nn.conv import conv2d_relu_p
from .._prims.nn.pool import max_pool_scatter_relu_grad_p
from .ir import Node, Value

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# producer -> (consumer, merged primitive, which end of the pair the merged node takes)
_PAIRS = {("Conv2D", "ReLU"): (conv2d_relu_p, "producer"),
          ("MaxPoolScatter", "ReluGrad"): (max_pool_scatter_relu_grad_p, "consumer")}


def conv_epilogues(graph):
    """Merge each pair of ``_PAIRS`` whose intermediate value has no other reader and is
    no graph output, with nothing between the two nodes writing state (so every input
    is read as it was). Only while the compiled loops are on (the merged kernels' gain);
    without Numba the graph stays as O0 has it."""
    if not _native.enabled():
        return graph, False
    nodes = graph.nodes
    readers, made_at = {}, {}
    for k, n in enumerate(nodes):
        for x in set(x for x in n.inputs if isinstance(x, Value)):
            readers.setdefault(x, []).append(k)
        for v in n.outputs:
            made_at[v] = k
    keep = set(graph.outputs)
    merged, dropped = {}, set()
    for j, u in enumerate(nodes):
        if not u.inputs or not isinstance(u.inputs[0], Value):
            continue
        v = u.inputs[0]
        k = made_at.get(v)
        if k is None or k in merged or k in dropped:
            continue
        m = nodes[k]
        pair = _PAIRS.get((m.prim.name, u.prim.name))
        if pair is None or not _mergeable(m, u, v, readers, keep, nodes[k + 1:j]):
            continue
        prim, at = pair
        ins = m.inputs if at == "producer" else m.inputs + u.inputs[1:]
        node = Node(prim, ins, dict(m.attrs), u.outputs, (), m.loc)
        for o in node.outputs:
            o.node = node
        if at == "producer":
            merged[k], dropped = node, dropped | {j}
        else:
            merged[j], dropped = node, dropped | {k}
    if not merged:
        return graph, False
    return graph.copy(nodes=[merged.get(k, n) for k, n in enumerate(nodes)
                             if k not in dropped]), True


def _mergeable(m, u, v, readers, keep, between):
    """Whether producer ``m`` and consumer ``u`` (reading ``m``'s one output ``v`` first)
    may run as one kernel."""
    if len(m.outputs) != 1 or len(u.outputs) != 1 or m.written or u.written or u.attrs \
            or v in keep or len(readers.get(v, ())) != 1 \
            or np.dtype(v.aval.dtype) not in _FLOATS:
        return False
    if any(np.dtype(x.aval.dtype) != np.dtype(v.aval.dtype) or x.aval.shape != v.aval.shape
           for x in u.inputs if isinstance(x, Value)) \
            or any(not isinstance(x, Value) for x in u.inputs):
        return False
    return not any(n.written or n.prim.effect is not None for n in between)
