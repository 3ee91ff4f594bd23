"""Codegen: a Graph becomes straight-line Python source that calls bare kernels.

NOTE: [Codegen]
Each node is *specialised* once, at compile time: its dtype policy is resolved from the
avals (casts are inserted only where an input's dtype differs from the compute dtype,
weak Python scalars are converted once), so the generated code calls the NumPy kernel
directly instead of the eager wrapper. Primitives with a custom ``prepare`` step take a
small adapter that rebuilds their eager call. The source is registered with
``linecache`` (tracebacks and pdb show it), every line carries the user's file:line,
and large intermediates are released after their last use.
"""
from __future__ import annotations

import functools
import itertools
import linecache

import numpy as np

from .._core import primitive as P
from . import control, fusion, memplan
from .ir import Value

_serial = itertools.count()
_ndarray = np.ndarray
_SCALARS = (bool, int, float, complex)
_FREE_BYTES = 1 << 16      # intermediates at least this large are released after last use


def _as_array(x):
    return x if type(x) is _ndarray else np.asarray(x)


def _prepared_kernel(prim, attrs, glob, name):
    """Adapter for primitives with their own ``prepare``: rebuild the eager call. When
    ``prepare`` hands the kernel its inputs unchanged (it only checked them, and its
    decisions depend on shapes and dtypes alone), the generated code's global ``name``
    is rebound to the bare kernel after the first call."""
    kernel = prim._cpu
    direct = functools.partial(kernel, **attrs) if attrs else kernel
    wrap = P.wrap

    def run(*arrays):
        args = [wrap(a) if type(a) is _ndarray else a for a in arrays]
        prepared = prim.prepare(args)
        if len(prepared) == len(arrays) and all(p is a for p, a in zip(prepared, arrays)):
            glob[name] = direct
        return kernel(*prepared, **attrs)
    return run


def specialize(node, glob, name):
    """(callable, inputs, casts) for one node: the callable takes the node's inputs in
    order (literals already converted); ``casts`` lists (position, dtype) to cast first."""
    prim, attrs = node.prim, node.attrs
    items = [x.aval if isinstance(x, Value) else x for x in node.inputs]
    inputs = list(node.inputs)
    if prim is control.cond_p:
        a, b = (generate(g) for g in attrs["branches"])    # ("_py" is for the tape only)
        return control.compiled_cond(a.fn, b.fn), inputs, []
    if prim is fusion.fused_p:
        return fusion.compile_group(attrs["group"], specialize), inputs, []
    if prim is control.while_p:
        c, b = generate(attrs["cond"]), generate(attrs["body"])
        return control.compiled_while(c.fn, b.fn, attrs["n_carried"], attrs.get("_py")), \
            inputs, []
    if prim is control.while_grad_p:
        v = generate(attrs["vjp"])
        avals = [(a.shape, a.dtype) for a in attrs["out_avals"]]
        return control.compiled_while_grad(v.fn, attrs["n_carried"], attrs["n_weights"],
                                           attrs["_py"], avals), inputs, []
    if prim.specializer is not None:
        direct = prim.specializer(attrs, items)
        if direct is not None:
            return direct, inputs, []
    if prim._prepare is not None:
        return _prepared_kernel(prim, attrs, glob, name), inputs, []
    kernel = prim._cpu
    casts = []
    if prim.policy is not None:
        compute, has_strong = prim.policy_dtype(items)
        for i, x in enumerate(inputs):
            if isinstance(x, _SCALARS):
                inputs[i] = P.convert_scalar(x, compute, has_strong, np)
            elif isinstance(x, Value) and x.aval.dtype != compute:
                casts.append((i, compute))
    fn = functools.partial(kernel, **attrs) if attrs else kernel
    return fn, inputs, casts


class Compiled:
    """The executable of one graph: ``run(*input_arrays) -> tuple of output arrays``."""

    def __init__(self, graph, fn, source, filename, line_nodes):
        self.graph = graph
        self.fn = fn
        self.source = source
        self.filename = filename
        self.line_nodes = line_nodes

    def node_at(self, tb):
        """The graph node whose generated line raised (from a traceback)."""
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                return self.line_nodes.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


def generate(graph, reuse_buffers=True):
    """Compile ``graph`` to a Python function over arrays (with the memory plan's ``out=``
    buffers unless ``reuse_buffers`` is False)."""
    names = {}
    # the module name marks the generated code as Spore's (its NumPy warnings are Spore's
    # kernels' warnings, silenced as in PyNative: spore/_quiet.py)
    glob = {"_arr": _as_array, "__name__": "spore._jit.generated"}
    lines = []
    line_nodes = {}
    for i, v in enumerate(graph.inputs):
        names[v] = f"i{i}"
    for i, c in enumerate(graph.consts):
        names[c] = f"c{i}"
        glob[f"c{i}"] = c.const
    specs = []
    for k, node in enumerate(graph.nodes):
        kname = f"k{k}"
        specs.append((kname,) + specialize(node, glob, kname))
    cast_nodes = frozenset(k for k, sp in enumerate(specs) if sp[3])
    mplan = memplan.plan(graph, cast_nodes) if reuse_buffers else None
    last_use = _last_uses(graph)
    lits = itertools.count()

    def operand(x):
        if isinstance(x, Value):
            return names[x]
        if x is None or isinstance(x, (bool, int)) or (isinstance(x, float)
                                                       and np.isfinite(x)):
            return repr(x)
        name = f"l{next(lits)}"
        glob[name] = x
        return name

    header = f"def {_ident(graph.name)}(" + ", ".join(names[v] for v in graph.inputs) + "):"
    lines.append(header)
    vcount = itertools.count()
    for k, node in enumerate(graph.nodes):
        kname, fn, inputs, casts = specs[k]
        glob[kname] = fn
        args = [operand(x) for x in inputs]
        for i, dt in casts:
            dname = f"t{k}_{i}"
            glob[dname] = dt
            args[i] = f"{args[i]}.astype({dname})"
        for v in node.outputs:
            names[v] = f"v{next(vcount)}"
        outs = [names[v] for v in node.outputs]
        target = mplan.reuse.get(k) if mplan is not None else None
        if target is not None:
            args.append(f"out={names[target]}")
        call = f"{kname}({', '.join(args)})"
        loc = f"  # {node.prim.name}" + (f" at {node.loc[0]}:{node.loc[1]}" if node.loc else "")
        if not outs:
            lines.append(f"    {call}{loc}")
        elif node.prim.multiple_results:
            target = ", ".join(outs) + ("," if len(outs) == 1 else "")
            lines.append(f"    {target} = {call}{loc}")
        elif node.outputs[0].aval.shape == ():
            lines.append(f"    {outs[0]} = _arr({call}){loc}")
        else:
            lines.append(f"    {outs[0]} = {call}{loc}")
        line_nodes[len(lines)] = node
        for i, new in node.written:
            if new not in node.outputs:
                names[new] = names[node.inputs[i]]      # written in place: same buffer
        if mplan is not None:
            freed = [v for v in mplan.release.get(k, ()) if v.nbytes >= _FREE_BYTES]
        else:
            freed = last_use.get(k, ())
        dead = [names[v] for v in freed if names[v].startswith("v")]
        if dead:
            lines.append(f"    del {', '.join(sorted(set(dead)))}")
    outs = ", ".join(names[v] for v in graph.outputs)
    lines.append(f"    return ({outs}{',' if len(graph.outputs) == 1 else ''})")
    source = "\n".join(lines) + "\n"
    filename = register_source(source, graph.name)
    code = compile(source, filename, "exec")
    ns = {}
    exec(code, glob, ns)
    fn = ns[_ident(graph.name)]
    compiled = Compiled(graph, fn, source, filename, line_nodes)
    compiled.peak_bytes = mplan.peak_bytes if mplan is not None else None
    return compiled


def register_source(source, name):
    """A file name for generated ``source``, registered with ``linecache`` so tracebacks
    and pdb show the generated lines."""
    filename = f"<spore-jit:{name}:{next(_serial)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def _ident(name):
    """A legal Python function name for a graph (never a keyword such as ``lambda``)."""
    return "graph_" + "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


def _last_uses(graph):
    """node index -> large intermediate values whose last reader is that node."""
    last = memplan.last_readers(graph)
    keep = set(graph.outputs)
    written_bases = set()
    for node in graph.nodes:
        for i, new in node.written:
            written_bases.add(node.inputs[i])
    out = {}
    for v, k in last.items():
        if v in keep or v in written_bases or v.nbytes < _FREE_BYTES:
            continue
        out.setdefault(k, []).append(v)
    return out
