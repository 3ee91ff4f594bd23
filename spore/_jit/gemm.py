"""GEMM epilogues: a 2-D ``MatMul`` and the elementwise ops on its result as one call.

NOTE: [GEMM epilogues]
A small product followed by an activation (W1a: 100 x ``tanh(z @ y)`` at 32 x 32) costs
its calls, not its arithmetic: ``np.matmul`` spends ~2.5 us on a 32 x 32 product whose
multiply-adds take a fraction of that, and the activation is a second call (~1.3 us
through Numba's dispatcher). Here a Numba function calls the BLAS NumPy itself uses --
the ``cblas_?gemm`` of the OpenBLAS it loaded, found as NOTE: [BLAS vector routines]
finds it and registered with LLVM (``register``) -- and then runs the epilogue's loop
(spore/_jit/kernelgen.py) over the product while it is in cache, in one call.

The BLAS call is the one NumPy makes for a 2-D product of C-contiguous operands
(row-major ``gemm``, no transposes, ``alpha = 1``, ``beta = 0``, the same leading
dimensions), so the product has NumPy's bits. Where the operands are not both
C-contiguous at run time the group's sub-graph runs instead, compiled as plain code
(the generated graph code tests the flags and calls the kernel itself: ``Inline``).

Which groups form (``epilogues``, a graph pass): a MatMul whose one reader is an
elementwise run of its shape (at O1 a fused group, or one op with a Numba form),
nothing between them writing state, its output below ``MAX_ELEMENTS`` (larger
epilogues run on two threads as groups of their own, and the saved call is nothing
next to the product). At ``jit_level="O0"`` the pass runs only where the result keeps
the unfused graph's bits: a plain product followed by a float32 ``tanh``, ``exp``,
``sigmoid`` or ``erf`` at a size where O0 itself calls the vectorised loop of
spore/_prims/vecmath.py (same approximation, same bits), and runs the kernel only
while that loop is usable (``vecmath.usable()``, read once per call: with Numba
switched off, the unfused ops run, as in PyNative); it merges only where the loops are
usable at compile time, so a cold machine's first step (NOTE: [Background
compilation]) does not wait for this kernel's compilation. The dump shows the merged
node as a ``FusedElementwise`` whose sub-graph starts with the ``MatMul``.
"""
from __future__ import annotations

import ctypes

import numpy as np

from .._prims.linalg import _NO_TRANS, _ROW_MAJOR, _TRANS
from . import kernelgen
from .fusion import Group, _eligible, fused_p
from .ir import Graph, Node, Value, readers, touches_state

MAX_ELEMENTS = kernelgen.PARALLEL_MIN   # product sizes merged with their epilogue
_UNARY = {"Tanh": "tanh_loop", "Exp": "exp_loop", "Sigmoid": "sigmoid_loop",
          "Erf": "erf_loop"}

_blas = None                 # (sgemm, dgemm addresses, int bits), or False: none found


def _numpy_blas():
    """(sgemm address, dgemm address, int bits) of the OpenBLAS NumPy loaded (the
    library and symbol names of NOTE: [BLAS vector routines]), else None."""
    from .._core.backend import _BLAS_NAMES, _blas_config, _numpy_blas
    lib = _numpy_blas()
    if lib is None:
        return None
    for pattern, index in _BLAS_NAMES:
        try:
            s, d = (getattr(lib, pattern.format(t, "gemm")) for t in "sd")
        except AttributeError:
            continue
        wide = index is ctypes.c_int64 or b"USE64BITINT" in _blas_config(lib)
        return (ctypes.cast(s, ctypes.c_void_p).value,
                ctypes.cast(d, ctypes.c_void_p).value, 64 if wide else 32)
    return None


def register():
    """Make NumPy's ``gemm`` callable from Numba as ``spore_sgemm``/``spore_dgemm``;
    returns the BLAS integer width (64 or 32), or None where NumPy bundles no OpenBLAS."""
    global _blas
    if _blas is None:
        found = _numpy_blas()
        if found is not None:
            import llvmlite.binding as llvm
            llvm.add_symbol("spore_sgemm", found[0])
            llvm.add_symbol("spore_dgemm", found[1])
        _blas = found or False
    return _blas[2] if _blas else None


def available():
    return kernelgen.available() and register() is not None


# --------------------------------------------------------------------------- the pass
def epilogues(graph, exact):
    """Merge each small MatMul with the elementwise run that reads its result (NOTE:
    [GEMM epilogues]); ``exact``: only where the unfused graph's bits are kept (O0)."""
    if not available():
        return graph, False
    nodes = graph.nodes
    users = readers(nodes)
    keep = set(graph.outputs)
    merged, dropped = {}, set()
    for k, m in enumerate(nodes):
        if not _product(m, exact):
            continue
        v = m.outputs[0]
        by = users.get(v, ())
        if v in keep or len(by) != 1 or by[0] in merged:
            continue
        j = by[0]
        if touches_state(nodes[k + 1:j]):
            continue                 # the product may not move past a state write
        inner = _epilogue(nodes[j], v, exact)
        if inner is None:
            continue
        merged[j] = _merged_node(m, inner, exact)
        dropped.add(k)
    if not merged:
        return graph, False
    out = [merged.get(k, n) for k, n in enumerate(nodes) if k not in dropped]
    return graph.copy(nodes=out), True


def _product(node, exact):
    """Whether ``node`` is a 2-D float MatMul of fixed shape the kernel serves."""
    if node.prim.name != "MatMul" or len(node.inputs) != 2 or node.written:
        return False
    a, b = node.inputs
    if not (isinstance(a, Value) and isinstance(b, Value)) or a is b:
        return False
    if set(node.attrs) - {"transpose_a", "transpose_b"} \
            or (exact and any(node.attrs.values())):
        return False
    out = node.outputs[0].aval
    shapes = (a.aval.shape, b.aval.shape, out.shape)
    if any(len(s) != 2 or any(type(d) is not int for d in s) for s in shapes):
        return False
    if a.aval.dtype != b.aval.dtype or out.dtype != a.aval.dtype \
            or np.dtype(out.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        return False
    m, n = out.shape
    k = a.aval.shape[0] if node.attrs.get("transpose_a") else a.aval.shape[1]
    return m >= 2 and n >= 2 and k >= 1 and m * n < MAX_ELEMENTS


def _epilogue(u, v, exact):
    """The elementwise Group of node ``u`` over the product ``v``, else None."""
    shape = tuple(v.aval.shape)
    if u.prim is fused_p:
        g = u.attrs["group"]
        if exact or g.reductions or g.gemm is not None \
                or tuple(g.shape) != shape or v not in g.inputs \
                or kernelgen.kernel_source(g) is None:
            return None
        return g
    if len(u.outputs) != 1 or tuple(u.outputs[0].aval.shape) != shape:
        return None
    if exact:
        if not _vectorised_unary(u, v):
            return None
    elif _eligible(u, numba=True) != shape or not kernelgen.supports(u):
        return None
    sub = Graph(f"fused_{u.prim.name}")
    seen = []
    for x in u.inputs:
        if isinstance(x, Value) and x not in seen:
            seen.append(x)
    sub.inputs, sub.nodes, sub.outputs = seen, [u], list(u.outputs)
    return Group(sub, shape)


def _vectorised_unary(u, v):
    """Whether O0 runs ``u`` (of the product ``v`` alone) with the vectorised float32
    loop of spore/_prims/vecmath.py: merged, it keeps its bits."""
    if u.prim.name not in _UNARY or u.attrs or u.inputs != (v,) \
            or np.dtype(v.aval.dtype) != np.dtype(np.float32):
        return False
    from .._prims import vecmath
    loop = getattr(vecmath, _UNARY[u.prim.name])
    # the merged kernel runs only where the loop would (``vecmath.usable()``: Numba on
    # and the loops compiled, NOTE: [Background compilation]), which the code checks
    # per call; merged only where they are usable now, so that a cold machine's first
    # compile does not wait for this kernel's compilation either
    return u.prim.specializer is not None and v.aval.size >= vecmath.MIN_SIZE[loop] \
        and vecmath.usable()


def _merged_node(m, inner, exact):
    a, b = m.inputs
    v = m.outputs[0]
    ins = [a, b] + [x for x in inner.inputs if x is not v and x is not a and x is not b]
    sub = Graph(f"fused_MatMul_{inner.graph.name[len('fused_'):]}", ins,
                [m] + list(inner.graph.nodes), list(inner.outputs))
    group = Group(sub, tuple(v.aval.shape))
    group.gemm, group.epilogue, group.exact = m, inner, exact
    node = Node(fused_p, ins, {"group": group}, inner.outputs, loc=m.loc)
    for o in node.outputs:
        o.node = node
    return node


# NOTE: [GEMM chains]
# W1a's graph is 100 merged groups in a row, each reading the last one's product: a
# call from the generated code into a kernel costs ~1 us (unboxing its arrays, the
# fresh output), a third of the step. ``chains`` makes a run of equal merged groups
# (the same kernel module, shapes and dtypes, each the one reader of the previous one's
# output, through the same operand, every other operand the same value) one node whose
# kernel calls the group's kernel in a loop, from inside Numba, between two scratch
# buffers (every link's product in one third one: no allocation per link), and writes
# the last result into the output. Each link runs the same BLAS
# call and loop on the same operands as before, so the values keep their bits (O0
# merges them too). No state write or effect may sit between the links (they move to
# the last one's place); a chain has at least MIN_CHAIN links.
MIN_CHAIN = 2


def chains(graph):
    """Make each run of equal merged products one node (NOTE: [GEMM chains])."""
    nodes = graph.nodes
    users = readers(nodes)
    keep = set(graph.outputs)
    sigs = {}

    def signature(k):
        if k not in sigs:
            g = nodes[k].attrs["group"] if nodes[k].prim is fused_p else None
            ok = g is not None and g.gemm is not None and g.chain is None \
                and len(g.outputs) == 1
            sigs[k] = _signature(g) if ok else None
        return sigs[k]

    links = {}                   # k -> (j, p): node j reads node k's product as operand p
    for k, n in enumerate(nodes):
        if signature(k) is None:
            continue
        v = n.outputs[0]
        by = users.get(v, ())
        if v in keep or len(by) != 1:
            continue
        j = by[0]
        if signature(j) != signature(k):
            continue
        ins = nodes[j].inputs
        at = [i for i, x in enumerate(ins) if x is v]
        if len(at) != 1 or any(x is not y for i, (x, y) in enumerate(zip(n.inputs, ins))
                               if i != at[0]):
            continue
        if touches_state(nodes[k + 1:j]):
            continue
        links[k] = (j, at[0])
    runs, inside = {}, set()
    for k in range(len(nodes)):
        if k not in links or k in inside:
            continue
        run, p = [k], links[k][1]
        while run[-1] in links and links[run[-1]][1] == p:
            run.append(links[run[-1]][0])
        if len(run) >= MIN_CHAIN:
            runs[run[-1]] = run
            inside.update(run)
    if not runs:
        return graph, False
    out = []
    for k, n in enumerate(nodes):
        if k in runs:
            out.append(_chain_node([nodes[i] for i in runs[k]], links[runs[k][0]][1]))
        elif k not in inside:
            out.append(n)
    return graph.copy(nodes=out), True


def _chain_node(links, position):
    first, last = links[0].attrs["group"], links[-1].attrs["group"]
    nodes = [m for link in links for m in link.attrs["group"].graph.nodes]
    sub = Graph(f"chain{len(links)}_{first.graph.name}", list(first.inputs), nodes,
                list(last.outputs))
    group = Group(sub, first.shape)
    group.gemm, group.epilogue, group.exact = first.gemm, first.epilogue, first.exact
    group.chain = (len(links), position)
    node = Node(fused_p, list(links[0].inputs), {"group": group}, tuple(last.outputs),
                loc=links[0].loc)
    for o in node.outputs:
        o.node = node
    return node


def _chain_function(sig, params, length, position):
    """``chain_kernel``: ``gemm_into`` ``length`` times, link i + 1 reading link i's
    result as operand ``position``, between two scratch buffers, every product into one
    more (NOTE: [GEMM chains])."""
    ins, out = params[:-1], params[-1]

    def call(src, dst):
        args = list(ins)
        if src is not None:
            args[position] = src if position < 2 else f"{src}.ravel()"
        return f"gemm_into({', '.join(args + [dst])}, t)"
    last = "s0" if length % 2 == 0 else "s1"
    return "\n".join([
        "",
        "",
        f"@njit(T.void({', '.join(sig)}), cache=True, nogil=True,",
        "      boundscheck=False, error_model='numpy')",
        f"def chain_kernel({', '.join(params)}):",
        f"    s0 = np.empty_like({out})",
        f"    s1 = np.empty_like({out})",
        f"    t = np.empty({out}.size, {out}.dtype)",
        f"    {call(None, 's0')}",
        f"    for i in range({length - 2}):",
        "        if i % 2 == 0:",
        f"            {call('s0', 's1')}",
        "        else:",
        f"            {call('s1', 's0')}",
        f"    {call(last, out)}",
        ""])


# --------------------------------------------------------------------------- compile
def _kernel_module(group):
    """The source of a module whose ``gemm_kernel(a, b, *rest, *outs)`` runs ``group``'s
    product and epilogue, and that function's Numba signature and parameters; None where
    the epilogue has no kernel. Equal texts compute equal things (a chain's test)."""
    inner, m = group.epilogue, group.gemm
    source = kernelgen.kernel_source(inner)
    if source is None:
        return None
    bits = register()
    a, b = m.inputs
    v = m.outputs[0]
    dt = kernelgen._dtype_name(v.aval)
    ta, tb = (_TRANS if m.attrs.get(f"transpose_{s}") else _NO_TRANS for s in "ab")
    rest = list(group.inputs[2:])
    names = {a: "a.ravel()", b: "b.ravel()", v: "t"}    # an operand may feed the epilogue
    names.update((x, f"x{i}") for i, x in enumerate(rest))
    row_in, _ = kernelgen._row_parts(inner)
    outs = [f"o{j}" for j in range(len(inner.outputs))]
    call = [names[x] for x in inner.inputs] + [f"{o}.ravel()" for o in outs]
    if row_in:
        call.append("t.size")
    # the outputs have the product's 2-D shape (an epilogue holds no reduction)
    sig = [f"_ro2(T.{dt})", f"_ro2(T.{dt})"]
    sig += [kernelgen._READONLY[kernelgen._dtype_name(x.aval)] for x in rest]
    sig += [f"T.{kernelgen._dtype_name(o.aval)}[:, ::1]" for o in inner.outputs]
    m_expr = "a.shape[1]" if ta == _TRANS else "a.shape[0]"
    k_expr = "a.shape[0]" if ta == _TRANS else "a.shape[1]"
    n_expr = "b.shape[0]" if tb == _TRANS else "b.shape[1]"
    params = ["a", "b"] + [f"x{i}" for i in range(len(rest))] + outs
    letter = "s" if dt == "float32" else "d"
    lines = [
        source,
        f"# numpy's {letter}gemm, {bits}-bit BLAS integers: NOTE: [GEMM epilogues]",
        "from spore._jit.gemm import register as _register",
        "_register()",
        f"_I = T.int{bits}",
        f"_gemm = T.ExternalFunction('spore_{letter}gemm', T.void(T.int32, T.int32, T.int32, "
        f"_I, _I, _I, T.{dt}, T.voidptr, _I, T.voidptr, _I, T.{dt}, T.voidptr, _I))",
        "",
        "",
        "def _ro2(dtype):",
        "    return T.Array(dtype, 2, 'C', readonly=True)",
        "",
        "",
        # the product goes to scratch ``t``: a chain's links share one (NOTE: [GEMM chains])
        "@njit(cache=True, nogil=True, boundscheck=False, error_model='numpy')",
        f"def gemm_into({', '.join(params)}, t):",
        f"    m, k, n = {m_expr}, {k_expr}, {n_expr}",
        f"    _gemm({_ROW_MAJOR}, {ta}, {tb}, m, n, k, np.{dt}(1.0), a.ctypes.data, a.shape[1], "
        f"b.ctypes.data, b.shape[1], np.{dt}(0.0), t.ctypes.data, n)",
        f"    kernel(0, t.size, {', '.join(call)})",
        "",
        "",
        f"@njit(T.void({', '.join(sig)}), cache=True, nogil=True,",
        "      boundscheck=False, error_model='numpy')",
        f"def gemm_kernel({', '.join(params)}):",
        f"    gemm_into({', '.join(params)}, np.empty({outs[0]}.size, np.{dt}))",
        "",
    ]
    return "\n".join(lines), sig, params


def _signature(group):
    """What decides a merged group's runner: its kernel's module, O0 or O1, and the
    shapes and dtypes of its inputs and outputs (None: no kernel)."""
    module = _kernel_module(group)
    return None if module is None else _runner_key(module[0], group)


def _runner_key(text, group):
    """A runner's cache key: its kernel module's text, O0 or O1, and the shapes and
    dtypes of the group's inputs and outputs."""
    return (text, group.exact, tuple((x.aval.shape, np.dtype(x.aval.dtype).str)
                                     for x in list(group.inputs) + list(group.outputs)))


def compile_group(group):
    """The runner of a merged group (NOTE: [GEMM epilogues]) or of a chain of them (NOTE:
    [GEMM chains]), or None where its kernel does not compile (the caller then runs the
    sub-graph unfused)."""
    from .codegen import generate
    module = _kernel_module(group)
    if module is None:
        return None
    full, sig, params = module
    entry = "gemm_kernel"
    if group.chain is not None:
        full += _chain_function(sig, params, *group.chain)
        entry = "chain_kernel"
    key = _runner_key(full, group)
    run = _runners.get(key)
    if run is not None:          # an equal group (W1a: 100 of them) shares one runner
        return run
    kernel = kernelgen.load(full, entry)
    if kernel is None:
        return None
    graph = group.graph
    unfused = []

    def _unfused(*arrays):
        """The group's ops as plain compiled code (compiled at its first use); its
        outputs C-contiguous, as the kernel's are (the code generator relies on it)."""
        if not unfused:
            unfused.append(generate(graph, reuse_buffers=False).fn)
        return tuple(np.ascontiguousarray(o) for o in unfused[0](*arrays))
    glob_ = {"_empty": np.empty, "_kernel": kernel, "_unfused": _unfused,
             "_contiguous": np.ascontiguousarray}
    check = "a.flags.c_contiguous and b.flags.c_contiguous"
    if group.exact:       # O0's unfused kernel runs the loop only while it is usable
        from .._prims.vecmath import usable
        glob_["_usable"] = usable
        check += " and _usable()"
    rest = list(group.inputs[2:])
    outs = [f"o{j}" for j in range(len(group.outputs))]
    args = ["a", "b"] + [f"x{i}" for i in range(len(rest))]
    body = [f"def run({', '.join(args)}):",
            f"    if not ({check}):",
            f"        return _unfused({', '.join(args)})"]
    for i in range(len(rest)):
        body.append(f"    x{i} = (x{i} if x{i}.flags.c_contiguous else _contiguous(x{i}))"
                    ".ravel()")
    for j, o in enumerate(group.outputs):
        glob_[f"s{j}"], glob_[f"d{j}"] = tuple(o.aval.shape), np.dtype(o.aval.dtype)
        body.append(f"    o{j} = _empty(s{j}, d{j})")
    body.append(f"    _kernel({', '.join(args + outs)})")
    body.append(f"    return ({', '.join(outs)},)")
    run = kernelgen.define_run(body, glob_, f"gemm_run_{group.id}")
    run.source = full
    # what the code generator needs to call the kernel itself (NOTE: [GEMM epilogues])
    run.inline = Inline(_entry_point(kernel), [(tuple(o.aval.shape), np.dtype(o.aval.dtype))
                                               for o in group.outputs], group.exact)
    _runners[key] = run
    return run


_runners = {}                # (kernel source, exact, shapes) -> runner


def _entry_point(kernel):
    """The compiled function of ``kernel``'s one signature, called without Numba's
    dispatcher (which types every argument again: ~0.5 us of W1a's 3.7 us step). Only
    the generated code calls it, and only with arrays of the signature's dtypes, ranks and
    layout (the graph's avals fix the first two; it tests C-contiguity first)."""
    try:
        return kernel.overloads[kernel.signatures[0]].entry_point
    except (AttributeError, IndexError, KeyError):
        return kernel


class Inline:
    """A merged group's kernel as the generated graph code calls it directly: on
    C-contiguous operands (and, ``exact``, while the vectorised loops are usable)
    ``kernel(a, b, *rest, *outs)`` into fresh outputs of ``outs`` (shape, dtype) pairs;
    else the runner."""

    def __init__(self, kernel, outs, exact):
        self.kernel, self.outs, self.exact = kernel, outs, exact
