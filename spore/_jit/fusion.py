"""Elementwise fusion (``jit_level="O1"``): runs of elementwise nodes become one kernel.

With Numba (the ``fast`` extra) a group runs as one generated Numba loop (spore/_jit/
kernelgen.py, NOTE: [Numba fusion kernels]); without it, or for a group with an op or
dtype that has no scalar Numba form, it walks the data in cache-sized NumPy tiles:

NOTE: [Tiled fusion]
NumPy's ufuncs are already vectorised; what an unfused chain of elementwise ops wastes
is memory traffic (every op reads and writes the whole array) and one core idle. A
fused group runs the same NumPy kernels on tiles of ``TILE`` elements held in a few
reused scratch buffers, so intermediates stay in cache, and splits the tiles over
two threads (NumPy releases the GIL inside ufuncs). Values used after the group are
written into full arrays; the results are the bits the unfused graph gives, because
every op is elementwise and sees the same inputs (DESIGN.md, "CPU fusion strategies",
strategy (a)). The pass is backend-neutral: a group node holds the sub-graph of the
ops it fused, which the dump shows, and the code generator decides how to run it.
"""
from __future__ import annotations

import itertools

import numpy as np

from .._core import primitive as P
from .._core import threads
from .._core.aval import ShapedArray
from . import kernelgen
from .ir import Graph, Node, Value

TILE = 1 << 14              # elements per tile: a few float32 buffers fit in L2
MIN_ELEMENTS = 1 << 12      # smaller arrays: tiling costs more than it saves
NUMBA_MIN_ELEMENTS = 1 << 8  # a Numba kernel pays off from here (one call replaces many)
SINGLE_MIN_ELEMENTS = 1 << 14  # one approximated op alone: below this the call's fixed
                               # cost eats its gain over NumPy's ufunc (W1a's 32x32 tanh)

# NOTE: [Lone approximated ops]
# A float32 tanh, exp, sigmoid or erf of SINGLE_MIN_ELEMENTS or more with nothing to fuse
# beside it (W1b's tanh after each product) stays a node of its own where its primitive
# has the vectorised eager kernel (NOTE: [Vectorised unary kernels] in
# spore/_prims/vecmath.py): O0 and O1 then call that loop, the same approximation as a
# fused kernel's (the same bits), but tanh over spans and vectorised as one loop. As a
# one-op fused kernel the tanh took 360 us against the loop's 170-190 (a (512, 512)
# float32 tanh, one thread, 2-vCPU AVX-512 EPYC), and W1b at O1 1.08-1.16x O0's time.
# Such an op still forms a group where a sum or mean of it joins the kernel.
_NOT_FUSED = {"Identity", "StopGradient", "Copy", "Cast"}


def _make_fused(xp):
    def fused(*arrays, group):
        raise RuntimeError("FusedElementwise runs only inside compiled code")
    return fused


def _fused_infer(attrs, *avals):
    return tuple(ShapedArray(v.aval.shape, v.aval.dtype) for v in attrs["group"].outputs)


fused_p = P.Primitive("FusedElementwise", _make_fused, kind="opaque", multiple_results=True,
                      infer=_fused_infer, nondiff=True,
                      doc="FusedElementwise(*inputs; group): a tiled run of elementwise ops.")


class Group:
    """The ops one fused kernel holds: a sub-graph over the group's external inputs."""

    _ids = itertools.count()

    def __init__(self, graph, shape, reductions=()):
        self.graph = graph
        self.shape = shape
        self.reductions = list(reductions)    # nodes of graph.nodes: NOTE: [Fused reductions]
        self.id = next(Group._ids)
        # a product merged with this elementwise group (NOTE: [GEMM epilogues] in
        # spore/_jit/gemm.py): its MatMul node, the group it feeds, whether O0 made it
        self.gemm = self.epilogue = None
        self.exact = False
        self.chain = None         # (links, operand): NOTE: [GEMM chains] in gemm.py

    @property
    def inputs(self):
        return self.graph.inputs

    @property
    def outputs(self):
        return self.graph.outputs

    def __repr__(self):
        return f"<fused {len(self.graph.nodes)} ops: " + \
            " ".join(n.prim.name for n in self.graph.nodes) + ">"


def trailing(small, shape):
    """Whether ``small`` broadcasts to ``shape`` as its trailing axes (a bias of ``(N,)``
    or ``(1, N)`` against ``(M, N)``): flat, it repeats every ``size(small)`` elements,
    so a Numba kernel reads it with tiles that stop at those boundaries (NOTE: [Numba
    fusion kernels]). Leading ones are dropped; an empty or 0-d shape is not one."""
    small = tuple(small)
    while small and small[0] == 1:
        small = small[1:]
    return 0 < len(small) < len(shape) + 1 and tuple(shape[len(shape) - len(small):]) == small \
        and small != tuple(shape)


ROW_MIN = 16               # elements per row: shorter rows cut tiles too short to pay


def rows(small, shape, min_row=ROW_MIN):
    """Whether ``small`` is ``shape`` with its trailing axes kept as ones (a row
    statistic ``(M, 1)`` against ``(M, N)``, a keepdims max or sum over the last axes):
    flat, each of its elements stands for one run of ``size(shape) / size(small)``
    elements, so a Numba kernel reads it once per tile, tiles stopping at those run
    boundaries (NOTE: [Fused row reductions]). ``min_row``: the shortest row admitted
    (the code generator passes 1: it classifies a group that fusion already admitted,
    maybe at other sizes, NOTE: [Dynamic axes])."""
    small, shape = tuple(small), tuple(shape)
    if len(small) != len(shape) or small == shape:
        return False
    k = len(shape)
    while k and small[k - 1] == 1:
        k -= 1
    return 0 < k < len(shape) and small[:k] == shape[:k] \
        and int(np.prod(shape[k:])) >= min_row


def _readable(small, shape):
    """Whether a Numba kernel over ``shape`` reads an input of shape ``small`` without
    expanding it: one element (read as a scalar), a trailing broadcast or a row one."""
    return (int(np.prod(small)) == 1 and len(small) <= len(shape)) or trailing(small, shape) \
        or rows(small, shape)


def _eligible(node, numba=False):
    """The output shape of a fusible node, else None. With ``numba`` (Numba kernels are
    on) nodes that have a scalar Numba form fuse from ``NUMBA_MIN_ELEMENTS``."""
    prim = node.prim
    if prim.kind != "elementwise" or prim.effect is not None or node.written \
            or prim._prepare is not None or prim.aliases or prim.multiple_results \
            or prim.name in _NOT_FUSED or len(node.outputs) != 1:
        return None
    shape = node.outputs[0].aval.shape
    if len(shape) == 0 or int(np.prod(shape)) < NUMBA_MIN_ELEMENTS:
        return None
    items = []
    for x in node.inputs:
        if isinstance(x, Value):
            if x.aval.shape not in (shape, ()) and not (
                    numba and _readable(x.aval.shape, shape) and kernelgen.supports(node)):
                return None
            items.append(x.aval)
        elif isinstance(x, (bool, int, float)):
            items.append(x)
        else:
            return None
    if prim.policy is not None:
        compute, _ = prim.policy_dtype(items)
        if any(isinstance(x, Value) and x.aval.dtype != compute for x in node.inputs):
            return None           # needs a cast first: left to the unfused path
    if int(np.prod(shape)) < MIN_ELEMENTS and not (numba and kernelgen.supports(node)):
        return None
    return shape


def fuse(graph):
    """Replace each run of two or more consecutive fusible nodes of one shape by a
    ``FusedElementwise`` node (with Numba kernels on, also a single large float32
    ``tanh``, ``exp``, ``sigmoid`` or ``erf``: its approximation beats NumPy's ufunc;
    and the sums and means of the run's values that ``reduction`` admits, NOTE:
    [Fused reductions])."""
    numba = kernelgen.available()
    users, reducers = {}, {}
    for k, n in enumerate(graph.nodes):
        for x in n.inputs:
            if isinstance(x, Value):
                users.setdefault(x, []).append(k)
        if numba and reduction(n) is not None:
            reducers.setdefault(n.inputs[0], []).append(k)
    keep = set(graph.outputs)
    out_nodes, run, run_shape, changed = [], [], None, False
    absorbed = set()                  # indices of reductions moved into a group

    def flush(end):
        nonlocal changed
        lone = len(run) == 1 and numba and kernelgen.approximated(run[0]) \
            and int(np.prod(run_shape)) >= SINGLE_MIN_ELEMENTS
        if len(run) >= 2 or lone:
            # reductions join a kernel that forms anyway: one cheap op and a sum (W5's
            # position gradient) do not pay a kernel's compilation on a cold start
            reds = _reductions_of(run, run_shape, reducers) if numba else []
            if lone and not reds and run[0].prim.par_kernel is not None:
                # NOTE: [Lone approximated ops]
                out_nodes.extend(run)
                run.clear()
                return
            absorbed.update(reds)
            out_nodes.append(_group_node(run, run_shape, users, keep, end, numba,
                                         [graph.nodes[k] for k in reds], absorbed))
            changed = True
        else:
            out_nodes.extend(run)
        run.clear()

    for k, node in enumerate(graph.nodes):
        if k in absorbed:
            continue
        shape = _eligible(node, numba)
        if shape is not None and (not run or shape == run_shape):
            run.append(node)
            run_shape = shape
            continue
        flush(k)
        if k in absorbed:
            continue
        if shape is not None:
            run.append(node)
            run_shape = shape
        else:
            out_nodes.append(node)
    flush(len(graph.nodes))
    if not changed:
        return graph, False
    from .passes import dce
    return dce(graph.copy(nodes=out_nodes))[0], True    # broadcasts the kernels read


# NOTE: [Fused reductions]
# With Numba, a ``ReduceSum``, ``ReduceMean``, ``ReduceMax`` or ``ReduceMin``
# (float32/float64, no ``dtype``) of a
# value a fused run computes, over all its axes or over leading ones (a loss's mean, a
# bias gradient's sum over the batch), joins the run's kernel (one that forms anyway:
# a single cheap op and a sum do not pay a compilation) wherever it stands in
# the graph (a reduction is pure and reads that one value, so it may run as soon as
# the value exists). The kernel adds each tile into float64 accumulators instead of
# writing the value out for NumPy to read again: a full reduction sums the tile
# (vectorised: float64 re-association only inside that sum), a leading one adds the
# tile into the accumulator row it covers. Every call runs as two halves split where
# the shape says (one on the pool when threads are on, both on the caller otherwise),
# each with accumulators of its own, added at the end: the result does not depend on
# the thread count. float64 accumulation makes it more accurate than NumPy's float32
# sums, so fused and unfused agree to float32 rounding, not bit for bit; a maximum or
# minimum is exact (NaN wins, as in NumPy).
#
# NOTE: [Fused row reductions]
# A reduction over the last axes ("inner": softmax's row max and sum, LayerNorm's
# mean and variance, a loss's per-sample sum) joins the same way: tiles also stop at
# the boundaries of its rows (``n / size(result)`` elements each), so every tile lies
# in one row and adds its sum, or merges its maximum, into that row's accumulator.
# The row statistic then comes back as a ``(M, 1)`` input of the next kernel
# (``rows``: read once per tile, ``x - max``, ``e / sum``), so a hand-written softmax
# is two kernels (max; exp, sum), (divide) with no full-size pass in NumPy.
_REDUCTIONS = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin")


def reduction(node, min_row=ROW_MIN):
    """``"full"``, ``"leading"`` or ``"inner"`` for a sum, mean, maximum or minimum a
    fused kernel can compute, else None (NOTE: [Fused reductions]); ``min_row`` as for
    ``rows``."""
    if node.prim.name not in _REDUCTIONS or node.written or len(node.inputs) != 1:
        return None
    (x,) = node.inputs
    attrs = node.attrs
    if not isinstance(x, Value) or attrs.get("dtype") is not None \
            or set(attrs) - {"axis", "keepdims", "dtype"} \
            or x.aval.dtype not in (np.float32, np.float64) \
            or node.outputs[0].aval.dtype != x.aval.dtype:
        return None
    ndim = len(x.aval.shape)
    axis = attrs.get("axis")
    if ndim == 0:
        return None
    axis = tuple(range(ndim)) if axis is None else \
        tuple(sorted({int(a) % ndim for a in (axis if isinstance(axis, (tuple, list))
                                               else (axis,))}))
    if not axis:
        return None
    if len(axis) == ndim:
        return "full"
    if axis == tuple(range(len(axis))):
        return "leading"
    if axis == tuple(range(ndim - len(axis), ndim)) \
            and int(np.prod(x.aval.shape[ndim - len(axis):])) >= min_row:
        return "inner"
    return None


def _reductions_of(run, shape, reducers):
    """Indices of the reductions of values of ``run`` (all of whose ops have a Numba
    form) that its kernel computes."""
    if not run or not all(kernelgen.supports(n) for n in run):
        return []
    return sorted(k for n in run for v in n.outputs if v.aval.shape == shape
                  for k in reducers.get(v, ()))


def _unbroadcast(x, shape, numba):
    """The value a Numba kernel over ``shape`` reads for the group input ``x``: where ``x``
    is a ``BroadcastTo`` of one element or of a trailing shape, its source (the kernel
    reads it in place; the broadcast view's stride-0 flat form is not contiguous and
    would be copied on every call, W3's mean gradient), else ``x``."""
    node = x.node
    if not numba or node is None or node.prim.name != "BroadcastTo":
        return x
    src = node.inputs[0]
    if isinstance(src, Value) and src.aval.dtype == x.aval.dtype \
            and _readable(src.aval.shape, shape):
        return src
    return x


def _group_node(run, shape, users, keep, end, numba=False, reductions=(), absorbed=()):
    defined = {v for n in run for v in n.outputs}
    ext = []
    for k, n in enumerate(run):
        read = tuple(_unbroadcast(x, shape, numba) if isinstance(x, Value) and x not in defined
                     else x for x in n.inputs)
        if read != n.inputs:          # a copy: the unfused graph keeps its node
            run[k] = n = Node(n.prim, read, n.attrs, n.outputs, n.written, n.loc)
        for x in n.inputs:
            if isinstance(x, Value) and x not in defined and x not in ext:
                ext.append(x)
    escaping = [v for n in run for v in n.outputs
                if v in keep or any(k >= end and k not in absorbed for k in users.get(v, ()))]
    escaping += [r.outputs[0] for r in reductions]
    sub = Graph(f"fused_{run[0].prim.name}")
    sub.inputs = list(ext)
    sub.nodes = list(run) + list(reductions)
    sub.outputs = escaping
    group = Group(sub, shape, reductions)
    node = Node(fused_p, ext, {"group": group}, (), loc=run[0].loc)
    node.outputs = tuple(escaping)
    for v in escaping:
        v.node = node
    return node


# --------------------------------------------------------------------------- execution
def _threads():
    return threads.count()


def compile_group(group, specialize):
    """A function running ``group``: its Numba kernel where it has one (NOTE: [Numba
    fusion kernels]), else tile by tile with NumPy (two threads on large arrays)."""
    if group.gemm is not None:        # NOTE: [GEMM epilogues] in spore/_jit/gemm.py
        from . import gemm
        compiled = gemm.compile_group(group)
    else:
        compiled = kernelgen.compile_group(group, threads.for_each)
    if compiled is not None:
        return compiled
    if group.reductions or group.gemm is not None:    # no kernel: the unfused graph
        from .codegen import generate
        return generate(group.graph, reuse_buffers=False).fn
    return _tiled(group, specialize)


def _tiled(group, specialize):
    """The NumPy tile loop of NOTE: [Tiled fusion]."""
    from .codegen import register_source
    g = group.graph
    n_total = int(np.prod(group.shape))
    glob = {"np": np, "_empty": np.empty}
    names = {}
    for i, v in enumerate(g.inputs):
        names[v] = f"e{i}"
    lines = [f"def tile_loop(start, stop, {', '.join(names[v] for v in g.inputs)}"
             f"{', ' if g.inputs else ''}{', '.join(f'o{j}' for j in range(len(g.outputs)))}):"]
    # scratch buffers: reused once their value is dead (per dtype)
    last = {}
    for k, n in enumerate(g.nodes):
        for x in n.inputs:
            if isinstance(x, Value):
                last[x] = k
    out_index = {v: j for j, v in enumerate(g.outputs)}
    pool, scratch = {}, []
    buf_of = {}
    for k, n in enumerate(g.nodes):
        v = n.outputs[0]
        if v in out_index:
            continue
        free = pool.get(v.aval.dtype)
        if free:
            buf_of[v] = free.pop()
        else:
            buf_of[v] = len(scratch)
            scratch.append(v.aval.dtype)
        for x in n.inputs:
            if isinstance(x, Value) and last.get(x) == k and x in buf_of:
                pool.setdefault(x.aval.dtype, []).append(buf_of[x])
    for j, dt in enumerate(scratch):
        glob[f"dt{j}"] = dt
        lines.append(f"    b{j} = _empty({TILE}, dt{j})")
    lines.append(f"    for s in range(start, stop, {TILE}):")
    lines.append(f"        e = s + {TILE} if s + {TILE} < stop else stop")
    lines.append("        m = e - s")
    for i, v in enumerate(g.inputs):
        if v.aval.shape != ():
            lines.append(f"        t_e{i} = e{i}[s:e]")
            names[v] = f"t_e{i}"
    for k, n in enumerate(g.nodes):
        fn, inputs, casts = specialize(n, glob, f"fk{k}")
        glob[f"fk{k}"] = fn
        args = []
        for x in inputs:
            if isinstance(x, Value):
                args.append(names[x])
            else:
                lit = f"lit{k}_{len(args)}"
                glob[lit] = x
                args.append(lit)
        v = n.outputs[0]
        target = f"o{out_index[v]}[s:e]" if v in out_index else f"b{buf_of[v]}[:m]"
        name = f"t{k}"
        if isinstance(n.prim._cpu, np.ufunc):
            lines.append(f"        {name} = fk{k}({', '.join(args)}, out={target})")
        else:
            lines.append(f"        {name} = fk{k}({', '.join(args)})")
            lines.append(f"        {target} = {name}")
            lines.append(f"        {name} = {target}")
        names[v] = name
    source = "\n".join(lines) + "\n"
    filename = register_source(source, f"fused_{group.id}")
    ns = {}
    exec(compile(source, filename, "exec"), glob, ns)
    loop = ns["tile_loop"]
    out_avals = [(v.aval.shape, v.aval.dtype) for v in g.outputs]
    n_threads = _threads()

    full = tuple(group.shape)

    def run(*arrays):
        # a trailing-broadcast input (only Numba groups admit them, so only after a
        # failed compilation) is expanded here: correct, not fast
        flat = [(a if a.shape == full else np.broadcast_to(a, full)).reshape(-1)
                if a.ndim else a for a in arrays]
        outs = [np.empty(shape, dt) for shape, dt in out_avals]
        flat_outs = [o.reshape(-1) for o in outs]
        if n_threads > 1 and n_total >= 8 * TILE:
            half = (n_total // 2 // TILE) * TILE
            threads.for_each(lambda i: loop(half, n_total, *flat, *flat_outs) if i else
                             loop(0, half, *flat, *flat_outs), 2,
                             lambda: loop(0, n_total, *flat, *flat_outs))
        else:
            loop(0, n_total, *flat, *flat_outs)
        return tuple(outs)
    return run
