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
from . import control, dynamic, fusion, memplan
from .ir import Value

_serial = itertools.count()
_ndarray = np.ndarray
_SCALARS = (bool, int, float, complex)
_FREE_BYTES = 1 << 16      # intermediates at least this large are released after last use


def _as_array(x):
    return x if type(x) is _ndarray else np.asarray(x)


def _prepared_kernel(prim, attrs, glob, name, rebind=True):
    """Adapter for primitives with their own ``prepare``: rebuild the eager call. When
    ``prepare`` hands the kernel its inputs unchanged (it only checked them, and its
    decisions depend on shapes and dtypes alone), the generated code's global ``name``
    is rebound to the bare kernel after the first call (unless the shapes vary between
    calls: ``rebind`` False)."""
    kernel = prim._cpu
    direct = functools.partial(kernel, **attrs) if attrs else kernel
    wrap = P.wrap

    def run(*arrays):
        args = [wrap(a) if type(a) is _ndarray else a for a in arrays]
        prepared = prim.prepare(args)
        if rebind and len(prepared) == len(arrays) \
                and all(p is a for p, a in zip(prepared, arrays)):
            glob[name] = direct
        return kernel(*prepared, **attrs)
    return run


def specialize(node, glob, name, sizes=False):
    """(callable, inputs, casts) for one node: the callable takes the node's inputs in
    order (literals already converted); ``casts`` lists (position, dtype) to cast first.
    ``sizes``: the graph's shapes may hold ``Dim``s (NOTE: [Dynamic axes])."""
    prim, attrs = node.prim, node.attrs
    items = [x.aval if isinstance(x, Value) else x for x in node.inputs]
    inputs = list(node.inputs)
    if sizes and prim is fusion.fused_p:
        return dynamic.fused_kernel(attrs["group"],
                                    lambda g: fusion.compile_group(g, specialize)), inputs, []
    if sizes and (prim is control.while_grad_p or prim is control.cond_p
                  or prim is control.while_p):
        raise dynamic.NotGeneric(f"{prim.name} is compiled apart from the graph")
    if sizes and (dynamic.has_dims(attrs) or dynamic.has_dims(node.inputs)):
        return dynamic.node_kernel(prim, attrs), inputs, []
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
        return _prepared_kernel(prim, attrs, glob, name, rebind=not sizes), inputs, []
    kernel = prim._cpu
    casts = []
    if prim.policy is not None:
        compute, has_strong = prim.policy_dtype(items)
        bare_ufunc = isinstance(kernel, np.ufunc) and not attrs
        for i, x in enumerate(inputs):
            if isinstance(x, _SCALARS):
                inputs[i] = P.convert_scalar(x, compute, has_strong, np)
                if bare_ufunc:
                    inputs[i] = _zero_d(inputs[i], compute)
            elif isinstance(x, Value) and x.aval.dtype != compute:
                casts.append((i, compute))
    fn = functools.partial(kernel, **attrs) if attrs else kernel
    return fn, inputs, casts


def _zero_d(x, dtype):
    """A scalar operand of a bare ufunc as a 0-d array of the compute dtype: taken faster
    than the Python scalar (no weak-scalar conversion per call), with the same bits."""
    try:
        return np.asarray(x, dtype=dtype)
    except (OverflowError, ValueError):
        return x                 # out of the dtype's range: NumPy says so at run time


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


def generate(graph, reuse_buffers=True, axes=None):
    """Compile ``graph`` to a Python function over arrays (with the memory plan's ``out=``
    buffers unless ``reuse_buffers`` is False). ``axes``: the (input, axis) pairs whose
    sizes the graph's ``Dim``s refer to (NOTE: [Dynamic axes])."""
    em = _Emitter()
    in_names = [f"i{i}" for i in range(len(graph.inputs))]
    em.lines.append(f"def {_ident(graph.name)}(" + ", ".join(in_names) + "):")
    if axes is not None:
        em.sizes = True
        em.lines.append("    D = (" + "".join(f"i{i}.shape[{k}], " for i, k in axes) + ")")
    outs = em.emit(graph, in_names, "    ", "", reuse_buffers)
    em.lines.append(f"    return ({', '.join(outs)}{',' if len(outs) == 1 else ''})")
    source = "\n".join(em.lines) + "\n"
    filename = register_source(source, graph.name)
    code = compile(source, filename, "exec")
    ns = {}
    exec(code, em.glob, ns)
    fn = ns[_ident(graph.name)]
    compiled = Compiled(graph, fn, source, filename, em.line_nodes)
    compiled.peak_bytes = em.peak_bytes
    return compiled


class _Emitter:
    """Writes the source of a graph; tensor ``while`` loops and conditionals (outside a
    gradient tape) are written inline as Python ``while`` / ``if`` blocks, so an
    iteration costs its kernels and no function calls (NOTE: [Inline control flow])."""

    def __init__(self):
        # the module name marks the generated code as Spore's (its NumPy warnings are
        # Spore's kernels' warnings, silenced as in PyNative: spore/_quiet.py)
        self.glob = {"_arr": _as_array, "__name__": "spore._jit.generated"}
        self.lines = []
        self.line_nodes = {}
        self.peak_bytes = None
        self.blocks = itertools.count()
        self.sizes = False       # the graph's shapes may hold Dims: sizes are in ``D``

    def emit(self, graph, in_names, ind, prefix, reuse_buffers=False):
        """Lines computing ``graph`` from the variables ``in_names``; returns the names
        of its outputs."""
        glob, lines = self.glob, self.lines
        names = dict(zip(graph.inputs, in_names))
        for i, c in enumerate(graph.consts):
            names[c] = f"{prefix}c{i}"
            glob[f"{prefix}c{i}"] = c.const
        specs = []
        for k, node in enumerate(graph.nodes):
            kname = f"{prefix}k{k}"
            specs.append((kname,) + ((_INLINE, list(node.inputs), []) if _inlined(node)
                                     else specialize(node, glob, kname, self.sizes)))
        cast_nodes = frozenset(k for k, sp in enumerate(specs) if sp[3])
        direct = frozenset(k for k, sp in enumerate(specs) if isinstance(sp[1], np.ufunc))
        mplan = memplan.plan(graph, cast_nodes, direct) if reuse_buffers else None
        if mplan is not None:
            self.peak_bytes = mplan.peak_bytes
        last_use = _last_uses(graph) if not prefix else {}
        lits = itertools.count()

        def operand(x):
            if isinstance(x, Value):
                return names[x]
            if type(x) is dynamic.Dim:
                return x.source("D")
            if x is None or isinstance(x, (bool, int)) or (isinstance(x, float)
                                                           and np.isfinite(x)):
                return repr(x)
            name = f"{prefix}l{next(lits)}"
            glob[name] = x
            return name

        flags = self._contiguity_flags(graph, specs, names, ind, prefix)
        vcount = itertools.count()
        for k, node in enumerate(graph.nodes):
            kname, fn, inputs, casts = specs[k]
            args = [operand(x) for x in inputs]
            for v in node.outputs:
                names[v] = f"{prefix}v{next(vcount)}"
            outs = [names[v] for v in node.outputs]
            loc = f"  # {node.prim.name}" + (f" at {node.loc[0]}:{node.loc[1]}"
                                            if node.loc else "")
            if fn is _INLINE:
                self._inline(node, args, outs, ind, f"{prefix}b{next(self.blocks)}_", loc)
            elif getattr(fn, "inline", None) is not None and not casts:
                glob[kname] = fn
                self._gemm_call(node, fn.inline, kname, args, outs, flags, ind, loc)
                for v in node.outputs:
                    flags[v] = None                  # fresh C-contiguous arrays
            else:
                glob[kname] = fn
                for i, dt in casts:
                    dname = f"{prefix}t{k}_{i}"
                    glob[dname] = dt
                    args[i] = f"{args[i]}.astype({dname})"
                target = mplan.reuse.get(k) if mplan is not None else None
                if target is not None:
                    args.append(f"out={names[target]}")
                if getattr(fn, "needs_sizes", False):
                    args.append("_d=D")
                call = f"{kname}({', '.join(args)})"
                if not outs:
                    lines.append(f"{ind}{call}{loc}")
                elif node.prim.multiple_results:
                    target = ", ".join(outs) + ("," if len(outs) == 1 else "")
                    lines.append(f"{ind}{target} = {call}{loc}")
                elif node.outputs[0].aval.shape == ():
                    lines.append(f"{ind}{outs[0]} = _arr({call}){loc}")
                else:
                    lines.append(f"{ind}{outs[0]} = {call}{loc}")
                self.line_nodes[len(lines)] = node
            for i, new in node.written:
                if new not in node.outputs:
                    names[new] = names[node.inputs[i]]      # written in place: same buffer
            if mplan is not None:
                freed = [v for v in mplan.release.get(k, ()) if v.nbytes >= _FREE_BYTES]
            else:
                freed = last_use.get(k, ())
            dead = [names[v] for v in freed if names[v].startswith("v")]
            if dead:
                lines.append(f"{ind}del {', '.join(sorted(set(dead)))}")
        return [names[v] for v in graph.outputs]

    def _contiguity_flags(self, graph, specs, names, ind, prefix):
        """value -> the expression telling whether it is C-contiguous (None: it is, a
        merged product's output), for the operands of merged products: a graph input's
        flag is read once, at the top (NOTE: [GEMM epilogues] in gemm.py)."""
        flags = {}
        for (kname, fn, inputs, casts), node in zip(specs, graph.nodes):
            if getattr(fn, "inline", None) is None or casts:
                continue
            for x in inputs[:2]:
                if x in graph.inputs and x not in flags:
                    flags[x] = f"{prefix}cf{len(flags)}"
                    self.lines.append(f"{ind}{flags[x]} = {names[x]}.flags.c_contiguous")
        inline = [sp[1].inline for sp in specs if getattr(sp[1], "inline", None) is not None]
        if any(i.exact for i in inline):     # O0's loops usable: read once per call
            from .._prims.vecmath import usable
            flags["loops"] = f"{prefix}loops"
            self.lines.append(f"{ind}{prefix}loops = _usable()")
            self.glob["_usable"] = usable
        if inline:
            self.glob["_contiguous"] = np.ascontiguousarray
            self.glob["_empty"] = np.empty
        return flags

    def _gemm_call(self, node, inline, kname, args, outs, flags, ind, loc):
        """A merged product (NOTE: [GEMM epilogues]) called without its runner where
        its operands are C-contiguous: the kernel itself, into fresh outputs."""
        lines, glob = self.lines, self.glob
        test = [flags["loops"]] if inline.exact else []
        for x, name in zip(node.inputs[:2], args[:2]):
            flag = flags.get(x, f"{name}.flags.c_contiguous")
            if flag is not None:
                test.append(flag)
        glob[f"{kname}_k"] = inline.kernel
        lines.append(f"{ind}if {' and '.join(test) or 'True'}:{loc}")
        self.line_nodes[len(lines)] = node
        for j, (shape, dtype) in enumerate(inline.outs):
            glob[f"{kname}_s{j}"], glob[f"{kname}_d{j}"] = shape, dtype
            lines.append(f"{ind}    {outs[j]} = _empty({kname}_s{j}, {kname}_d{j})")
        rest = [f"({a} if {a}.flags.c_contiguous else _contiguous({a})).ravel()"
                for a in args[2:]]
        lines.append(f"{ind}    {kname}_k({', '.join(args[:2] + rest + outs)})")
        self.line_nodes[len(lines)] = node
        lines.append(f"{ind}else:")
        lines.append(f"{ind}    {_tuple(outs)} = {kname}({', '.join(args)})")
        self.line_nodes[len(lines)] = node

    def _inline(self, node, args, outs, ind, prefix, loc):
        lines = self.lines
        if node.prim is control.cond_p:
            true_g, false_g = node.attrs["branches"]
            lines.append(f"{ind}if {args[0]}:{loc}")
            self.line_nodes[len(lines)] = node
            for g, tag in ((true_g, "t"), (false_g, "f")):
                if tag == "f":
                    lines.append(f"{ind}else:")
                res = self.emit(g, args[1:], ind + "    ", prefix + tag)
                lines.append(f"{ind}    {_tuple(outs)} = {_tuple(res)}" if outs
                             else f"{ind}    pass")
            return
        n = node.attrs["n_carried"]
        carried, free = args[:n], args[n:]
        state = [f"{prefix}s{i}" for i in range(n)]
        if state:
            lines.append(f"{ind}{_tuple(state)} = {_tuple(carried)}")
        lines.append(f"{ind}while True:{loc}")
        self.line_nodes[len(lines)] = node
        (test,) = self.emit(node.attrs["cond"], state + free, ind + "    ", prefix + "c")
        lines.append(f"{ind}    if not {test}:")
        lines.append(f"{ind}        break")
        res = self.emit(node.attrs["body"], state + free, ind + "    ", prefix + "l")
        if state:
            lines.append(f"{ind}    {_tuple(state)} = {_tuple(res)}")
            lines.append(f"{ind}{_tuple(outs)} = {_tuple(state)}")


# NOTE: [Inline control flow]
# A ``Cond`` or ``While`` outside a gradient tape is written into the enclosing graph's
# source as an ``if``/``else`` or ``while True`` block over the sub-graphs' lines (their
# names prefixed per block), rather than calls of separately compiled functions: one
# iteration of a loop of small ops then costs its kernel calls only (measured: half the
# time per iteration of a three-op loop). Sub-graphs run without the memory plan (a
# buffer reused across iterations would need a liveness analysis over the loop).
_INLINE = object()          # the "kernel" of an inlined node


def _inlined(node):
    return (node.prim is control.cond_p or node.prim is control.while_p) \
        and node.attrs.get("_py") is None


def _tuple(names):
    return ", ".join(names) + ("," if len(names) == 1 else "")


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
