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
from .._prims.nn.pool import max_pool_scatter_relu_grad_p, max_pool_scatter_relu_grad_sum_p
from .ir import Node, Value, readers, touches_state

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
    users = readers(nodes)
    made_at = {v: k for k, n in enumerate(nodes) for v in n.outputs}
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
        if pair is None or not _mergeable(m, u, v, users, keep, nodes[k + 1:j]):
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
    nodes = [merged.get(k, n) for k, n in enumerate(nodes) if k not in dropped]
    return graph.copy(nodes=_with_channel_sums(nodes, keep)), True


def _with_channel_sums(nodes, keep):
    """Each MaxPoolScatterReluGrad whose result some ReduceSum sums over all axes but the
    channels (the bias gradient of the convolution before the ReLU) becomes one
    MaxPoolScatterReluGradSum computing both; the ReduceSum goes (it is pure and reads
    that one value, so it may run as soon as the value exists). The sum is taken in
    float64, like the fused reductions of NOTE: [Fused reductions]: equal to NumPy's
    float32 sum to rounding."""
    sums = {}
    for k, n in enumerate(nodes):
        if n.prim.name == "ReduceSum" and len(n.inputs) == 1 and not n.written \
                and isinstance(n.inputs[0], Value) and _over_all_but_channels(n):
            sums.setdefault(n.inputs[0], k)
    out, dropped = [], set()
    for k, n in enumerate(nodes):
        if k in dropped:
            continue
        j = sums.get(n.outputs[0]) if n.prim is max_pool_scatter_relu_grad_p else None
        if j is not None:
            r = nodes[j]
            n = Node(max_pool_scatter_relu_grad_sum_p, n.inputs, n.attrs,
                     n.outputs + r.outputs, (), n.loc)
            for o in n.outputs:
                o.node = n
            dropped.add(j)
        out.append(n)
    return out


def _over_all_but_channels(node):
    """Whether a ReduceSum sums a 4-D value over (0, 2, 3) into its own dtype."""
    (x,) = node.inputs
    if len(x.aval.shape) != 4 or set(node.attrs) - {"axis", "keepdims", "dtype"} \
            or node.attrs.get("dtype") is not None or node.attrs.get("keepdims") \
            or node.outputs[0].aval.dtype != x.aval.dtype:
        return False
    axis = node.attrs.get("axis")
    axis = axis if isinstance(axis, (tuple, list)) else (axis,)
    return axis is not None and sorted(int(a) % 4 for a in axis if a is not None) == [0, 2, 3]


def _mergeable(m, u, v, users, keep, between):
    """Whether producer ``m`` and consumer ``u`` (reading ``m``'s one output ``v`` first)
    may run as one kernel."""
    if len(m.outputs) != 1 or len(u.outputs) != 1 or m.written or u.written or u.attrs \
            or v in keep or len(users.get(v, ())) != 1 \
            or np.dtype(v.aval.dtype) not in _FLOATS:
        return False
    if any(np.dtype(x.aval.dtype) != np.dtype(v.aval.dtype) or x.aval.shape != v.aval.shape
           for x in u.inputs if isinstance(x, Value)) \
            or any(not isinstance(x, Value) for x in u.inputs):
        return False
    return not touches_state(between)
