"""Numba kernels for fused elementwise groups (``jit_level="O1"`` with the ``fast`` extra).

NOTE: [Numba fusion kernels]
A ``FusedElementwise`` group (spore/_jit/fusion.py) whose ops all appear in ``_OPS``
and whose values are float32, float64 or bool becomes one Numba function: a flat loop
over the elements that reads each input once, computes every op on scalars and
writes the values used after the group. Inputs have the group's shape, hold one
element (0-d or not: read once as a scalar, ``scalar``), or broadcast along leading
axes (``fusion.trailing``: flat, such an input repeats every ``size`` elements, so
tiles also stop at multiples of its size and read it as one contiguous slice); so a
flat index serves them all and the kernel does not depend on the shape, the rank or
the broadcast sizes: its source is determined by
the group's structure (ops, wiring, literal values) and dtypes, and **the source is
the key** of the in-memory cache and, hashed, the name of the file it is written to
under the disk cache (``$SPORE_CACHE_DIR``, default ``~/.cache/spore``, then
``kernels/``). The file is imported like a module, so Numba's ``cache=True`` keeps
its machine code next to it (or under ``NUMBA_CACHE_DIR``) and a second process
loads it instead of compiling; files are written once (atomically) and never
rewritten, which keeps Numba's cache stamps valid.

The loop runs over tiles of ``TILE`` elements, each tile through the group's
segments, short loops of their own (NOTE: [Segmented fused kernels]); a float32
``tanh`` and ``sigmoid`` of one value are computed together (``tanh_sigmoid_f32``).

Numerics: every op's result is rounded to its NumPy dtype, so +, -, *, / and sqrt
give NumPy's bits; ``exp``, ``tanh``, ``sigmoid`` and ``erf`` on float32 use the
vectorisable approximations of spore/_jit/approx.py (float32 arithmetic, 8 lanes on
AVX2, except erf; stated 2 ulp; the bits of the eager vectorised kernels), the
other transcendental functions Numba's libm calls (computed in float64 for float32,
so at least as accurate as NumPy's). No fast-math flags on the kernel's own
arithmetic (the approximations use FMA inside). Kernels are compiled with
``nogil=True``; large groups are split in two halves that ``threads.for_each``
shares with Spore's pool: its back-off from a starved pool (NOTE:
[Starved pool]) applies, and a group without reductions then runs as one call.
"""
from __future__ import annotations

import hashlib
import itertools
import importlib.util
import os
import sys
import tempfile
import warnings

import numpy as np

from .. import _native
from .ir import Value

_DTYPES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
           np.dtype(np.bool_): "boolean"}
_READONLY = {d: f"_ro(T.{d})" for d in _DTYPES.values()}   # inputs may be read-only
_FLOATS = ("float32", "float64")
_APPROX = {"Exp": "exp_f32", "Tanh": "tanh_f32", "Sigmoid": "sigmoid_f32", "Erf": "erf_f32"}
_LIBM = {"Exp": "math.exp({0})", "Tanh": "math.tanh({0})",
         "Sigmoid": "1.0 / (1.0 + math.exp(-{0}))", "Erf": "math.erf({0})",
         "Log": "math.log({0})", "Log1p": "math.log1p({0})", "Expm1": "math.expm1({0})",
         "Sin": "math.sin({0})", "Cos": "math.cos({0})", "Erfc": "math.erfc({0})",
         "Sqrt": "math.sqrt({0})"}
# scalar expressions over the operands {0}, {1}; F( becomes the constructor of the
# inputs' float dtype (so constants such as 1 keep float32 arithmetic in float32)
_OPS = {
    "Add": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}", "Div": "{0} / {1}",
    "Maximum": "maximum({0}, {1})", "Minimum": "minimum({0}, {1})",
    "Neg": "-{0}", "Abs": "abs({0})", "Square": "{0} * {0}",
    "Reciprocal": "F(1.0) / {0}", "Rsqrt": "F(1.0) / F(math.sqrt({0}))",
    "ReLU": "{0} if not {0} < F(0.0) else F(0.0)",
    "TanhGrad": "{1} * (F(1.0) - {0} * {0})",
    "ReluGrad": "{0} * (F(1.0) if {1} > F(0.0) else F(0.0))",
    "Greater": "{0} > {1}", "GreaterEqual": "{0} >= {1}", "Less": "{0} < {1}",
    "LessEqual": "{0} <= {1}", "Equal": "{0} == {1}", "NotEqual": "{0} != {1}",
}
_OPS.update(_LIBM)
_BOOL_OPS = {"LogicalAnd": "{0} and {1}", "LogicalOr": "{0} or {1}",
             "LogicalNot": "not {0}"}

PARALLEL_MIN = 1 << 17       # elements: below this one thread (a pool hand-off costs ~20 us)
_kernels = {}                # source -> compiled kernel (this process)
_warned = False


def available():
    """Whether fused groups may be compiled with Numba now."""
    return _native.enabled()


def _dtype_name(aval):
    return _DTYPES.get(np.dtype(aval.dtype))


def supports(node):
    """Whether this node (already elementwise and fusible) has a scalar Numba form."""
    name = node.prim.name
    if node.attrs or not (name in _OPS or name in _BOOL_OPS):
        return False
    out = _dtype_name(node.outputs[0].aval)
    ins = [_dtype_name(x.aval) for x in node.inputs if isinstance(x, Value)]
    if out is None or None in ins:
        return False
    if name in _BOOL_OPS:
        return out == "boolean" and all(d == "boolean" for d in ins)
    return all(d in _FLOATS for d in ins) and (out in _FLOATS or out == "boolean")


def approximated(node):
    """Whether this node is a float32 transcendental that the approximations serve (they
    beat NumPy's ufunc; alone, such an op calls the vectorised loop instead of a one-op
    kernel where it has one: NOTE: [Lone approximated ops] in fusion.py)."""
    return node.prim.name in _APPROX and _dtype_name(node.outputs[0].aval) == "float32"


def scalar(v):
    """Whether the kernel reads input ``v`` as one scalar: a 0-d value, or one element
    broadcast over the group (the ``(1, 1)`` sensitivity of a mean's gradient); its flat
    view's first element is the value."""
    return v.aval.size == 1


def _literal(x, compute):
    """Source text of a weak Python scalar as the kernel computes with it."""
    if compute == "boolean":
        return repr(bool(x))
    value = float(np.asarray(x, dtype=compute))
    text = repr(value) if np.isfinite(value) else f"float('{value!r}')"    # inf, nan
    return f"np.{compute}({text})"


TILE = 1024                  # elements per tile: a segment's values stay in L1 between loops
_HEAVY = {**{k: 1.0 for k in _LIBM}, "Div": 0.3, "Reciprocal": 0.3, "Rsqrt": 0.4,
          "Sqrt": 0.3}        # latency of an op, roughly in transcendental functions
_SEGMENT_DEPTH = 1.25        # most latency on one element's path through a segment
_SEGMENT_OPS = 40            # most ops in one segment (register pressure)


def _pairs(nodes):
    """float32 Tanh and Sigmoid nodes of one value: {first node: second node}; both come
    from one call of ``tanh_sigmoid_f32`` (one exponential, one division)."""
    seen, pairs = {}, {}
    for n in nodes:
        if n.prim.name in ("Tanh", "Sigmoid") and _dtype_name(n.outputs[0].aval) == "float32":
            other = seen.get((n.inputs[0], "Sigmoid" if n.prim.name == "Tanh" else "Tanh"))
            if other is not None and other not in pairs and other not in pairs.values():
                pairs[other] = n
            else:
                seen.setdefault((n.inputs[0], n.prim.name), n)
    return pairs


def _segments(nodes, pairs):
    """Cut the group's ops (in order; the second of a pair rides with the first) into
    segments, each one loop over a tile, so that no element's path through a segment is
    longer than about one transcendental function.

    NOTE: [Segmented fused kernels]
    A loop whose body is one long dependent chain (W2: 50 x tanh, sigmoid) is bound by
    latency, not throughput: each element's next op waits for the previous one, and
    the body is too large for the CPU to overlap iterations (its reorder window holds a
    few hundred instructions). Cut into segments, each a short loop over a tile of
    ``TILE`` elements, the element iterations of one segment are independent, and the
    vectorised loop runs at the throughput of its units. Values crossing a segment go
    through tile buffers that stay in L1 (or the output arrays); each is written and
    read once per segment boundary, cheap next to an exponential. Each segment is a
    function of its own, named by its text over local names (equal steps share one,
    compiled once): inside one function of 50 loops LLVM stops inlining the
    approximations after a budget, and the loops it left with calls do not vectorise
    (W2b single-threaded: 2.0x faster than the one-loop kernel, measured interleaved
    on the loaded 2-vCPU machine)."""
    second = set(pairs.values())
    segments, current, depth = [], [], {}
    for n in nodes:
        if n in second:
            continue
        w = _HEAVY.get(n.prim.name, 0.0)
        here = max([depth.get(x, 0.0) for x in n.inputs if isinstance(x, Value)] + [0.0])
        if current and (here + w > _SEGMENT_DEPTH and w > 0 or len(current) >= _SEGMENT_OPS):
            segments.append(current)
            current, depth = [], {}
            here = 0.0
        current.append(n)
        for m in (n, pairs.get(n)):
            if m is not None:
                depth[m.outputs[0]] = here + w + 0.05
    if current:
        segments.append(current)
    return segments


def _expression(n, names):
    """The scalar source of node ``n``'s value over the names of its operands."""
    out = _dtype_name(n.outputs[0].aval)
    vals = [x for x in n.inputs if isinstance(x, Value)]
    compute = _dtype_name(vals[0].aval) if vals else out
    ops = [names[x] if isinstance(x, Value) else _literal(x, compute) for x in n.inputs]
    name = n.prim.name
    if compute == "float32" and name in _APPROX:
        expr = f"{_APPROX[name]}({ops[0]})"
    else:
        expr = _OPS.get(name) or _BOOL_OPS[name]
        expr = expr.replace("F(", f"np.{compute}(").format(*ops)
    conv = "np.bool_" if out == "boolean" else f"np.{out}"
    return f"{conv}({expr})"


def kernel_source(group):
    """The Numba source for ``group``, or None when an op or dtype has no scalar form:
    a loop over tiles, each tile running the group's segments as loops of their own
    (NOTE: [Segmented fused kernels])."""
    g = group.graph
    reductions = getattr(group, "reductions", ())
    nodes = [n for n in g.nodes if n not in reductions]
    if not all(supports(n) for n in nodes):
        return None
    pairs = _pairs(nodes)
    segments = _segments(nodes, pairs)
    seg_of = {}                               # value -> segment defining it
    for k, seg in enumerate(segments):
        for n in seg:
            for m in (n, pairs.get(n)):
                if m is not None:
                    seg_of[m.outputs[0]] = k
    last_use = {}                             # value -> last segment reading it
    for k, seg in enumerate(segments):
        for n in seg:
            for x in n.inputs:
                if isinstance(x, Value):
                    last_use[x] = k
    out_index = {v: j for j, v in enumerate(g.outputs)}
    in_index = {v: i for i, v in enumerate(g.inputs)}
    reduced = {r.outputs[0]: r for r in reductions}     # outputs that are accumulators
    for r in reductions:                      # read after the last segment
        last_use[r.inputs[0]] = len(segments)
    # tile buffers for values read after their segment (outputs are read back instead)
    buffers, free, buf_of = [], {}, {}
    for k in range(len(segments)):
        for v, d in seg_of.items():
            if d == k and last_use.get(v, k) > k and v not in out_index:
                dt = _dtype_name(v.aval)
                pool = [b for b in free.get(dt, ()) if b[1] < k]
                if pool:
                    b = pool[0]
                    free[dt].remove(b)
                    buf_of[v] = b[0]
                else:
                    buf_of[v] = len(buffers)
                    buffers.append(dt)
                free.setdefault(dt, []).append((buf_of[v], last_use[v]))

    full = tuple(group.shape)
    row_in, inner = _row_parts(group)
    leading = [j for j, v in enumerate(g.outputs)
               if v in reduced and _reduction_kind(reduced[v]) == "leading"]
    sig, params, head = [], [], []
    for i, v in enumerate(g.inputs):
        dt = _dtype_name(v.aval)
        sig.append(_READONLY[dt])
        params.append(f"x{i}")
        if scalar(v):
            head.append(f"    a{i} = x{i}[0]")
    for j, v in enumerate(g.outputs):
        sig.append("T.float64[::1]" if v in reduced else f"T.{_dtype_name(v.aval)}[::1]")
        params.append(f"o{j}")
    if row_in or inner:       # the group's size: a row holds n / size(statistic) elements
        sig.append("T.int64")
        params.append("n")
        head += [f"    rx{i} = n // x{i}.size" for i in row_in]
        head += [f"    ro{j} = n // o{j}.size" for j in inner]
    for b, dt in enumerate(buffers):
        head.append(f"    b{b} = np.empty({TILE}, np.{'bool_' if dt == 'boolean' else dt})")
    # per-tile views indexed from 0: LLVM then knows the index is not negative (no
    # wrap-around select) and vectorises; x[s + j] on the whole array it does not
    bcast = [i for i, v in enumerate(g.inputs)
             if v.aval.shape != full and not scalar(v) and i not in row_in]
    views = [f"        t{i} = x{i}[s:e]" if i not in bcast else
             f"        t{i} = x{i}[s % x{i}.size:s % x{i}.size + m]"
             for i, v in enumerate(g.inputs) if not scalar(v) and i not in row_in]
    views += [f"        a{i} = x{i}[s // rx{i}]" for i in row_in]   # one row: one value
    views += [f"        p{j} = o{j}[s:e]" for j, v in enumerate(g.outputs) if v not in reduced]
    functions, calls, by_text = [], [], {}
    for k, seg in enumerate(segments):
        body, used, names = [], [], {}
        counter = itertools.count()

        def use(name):
            """The segment function's local name for the kernel's array or scalar
            ``name``: local names make equal segments equal text (W2's 50 steps:
            one function, compiled once)."""
            if name not in used:
                used.append(name)
            return f"q{used.index(name)}"

        def operand(x):
            if x not in names:
                if x in in_index:
                    i = in_index[x]
                    if scalar(x) or i in row_in:
                        names[x] = use(f"a{i}")
                        return names[x]
                src = f"{use(_tile_array(x, in_index, out_index, buf_of))}[j]"
                names[x] = f"u{next(counter)}"
                body.append(f"        {names[x]} = {src}")
            return names[x]
        span = _tanh_span(seg, pairs, in_index, out_index, buf_of, row_in)
        if span is not None:                 # NOTE: [Tanh over spans] in approx.py
            src, dst = (use(a) for a in span)
            body.append(f"    tanh_span({src}[:m], {dst}[:m])  # Tanh")
            seg = ()
        for n in seg:
            for x in n.inputs:
                if isinstance(x, Value) and seg_of.get(x) != k:
                    operand(x)
            other = pairs.get(n)
            if other is not None:
                t, s_ = (n, other) if n.prim.name == "Tanh" else (other, n)
                vt, vs = f"v{next(counter)}", f"v{next(counter)}"
                body.append(f"        {vt}, {vs} = tanh_sigmoid_f32({names[n.inputs[0]]})"
                            f"  # Tanh, Sigmoid")
                names[t.outputs[0]], names[s_.outputs[0]] = vt, vs
                defined = (t, s_)
            else:
                v = f"v{next(counter)}"
                # the op's name only: its source line would make the key depend on the caller
                body.append(f"        {v} = {_expression(n, names)}  # {n.prim.name}")
                names[n.outputs[0]] = v
                defined = (n,)
            for m in defined:
                w = m.outputs[0]
                if w in out_index:
                    body.append(f"        {use(f'p{out_index[w]}')}[j] = {names[w]}")
                if w in buf_of:
                    body.append(f"        {use(f'b{buf_of[w]}')}[j] = {names[w]}")
        text = "\n".join(body)
        if text not in by_text:
            by_text[text] = f"segment{len(by_text)}"
            functions += [
                "@njit(cache=True, nogil=True, boundscheck=False, error_model='numpy')",
                f"def {by_text[text]}(m, {', '.join(f'q{i}' for i in range(len(used)))}):",
                *(() if span is not None else ("    for j in range(m):",)),
                text, "", ""]
        calls.append(f"        {by_text[text]}(m, {', '.join(used)})")
    lines = [
        "# A Spore fused kernel, generated by spore/_jit/kernelgen.py (safe to delete).",
        f"# approx.py {_approx_version()}",
        "import math",
        "import numpy as np",
        "from numba import njit, types as T",
        "from spore._jit.approx import exp_f32, tanh_f32, sigmoid_f32, erf_f32, "
        "tanh_sigmoid_f32, tanh_span, maximum, minimum",
        "",
        "",
        "def _ro(dtype):",
        "    return T.Array(dtype, 1, 'C', readonly=True)",
        "",
        "",
        # one function per segment: LLVM inlines the approximations into each short
        # loop and vectorises it (inside one huge function it stops inlining them)
        *functions,
        *(_TILE_REDUCE if reductions else ()),
        f"@njit(T.void(T.int64, T.int64, {', '.join(sig)}), cache=True, nogil=True,",
        "      boundscheck=False, error_model='numpy')",
        f"def kernel(start, stop, {', '.join(params)}):",
        *head,
        *(_tile_loop([f"x{i}.size" for i in bcast] + [f"o{j}.size" for j in leading]
                     + [f"rx{i}" for i in row_in] + [f"ro{j}" for j in inner])),
        *views,
        *calls,
        *_accumulate(g, reduced, buf_of, out_index),
        "",
    ]
    return "\n".join(lines)


def _tanh_span(seg, pairs, in_index, out_index, buf_of, row_in):
    """(source, destination) array names where segment ``seg`` is one float32 ``Tanh``
    of an array into one array: its loop is ``approx.tanh_span`` (NOTE: [Tanh over
    spans]), the same bits. Else None."""
    if len(seg) != 1 or seg[0] in pairs or seg[0].prim.name != "Tanh":
        return None
    n = seg[0]
    x, w = n.inputs[0], n.outputs[0]
    if not isinstance(x, Value) or scalar(x) or in_index.get(x) in row_in \
            or _dtype_name(x.aval) != "float32" or _dtype_name(w.aval) != "float32":
        return None
    dests = [f"p{out_index[w]}"] if w in out_index else []
    dests += [f"b{buf_of[w]}"] if w in buf_of else []
    if len(dests) != 1:
        return None
    return _tile_array(x, in_index, out_index, buf_of), dests[0]


def _tile_array(x, in_index, out_index, buf_of):
    """The kernel's name for the tile of array value ``x``: an input's view ``t``, an
    output's ``p`` (read back after its segment) or a tile buffer ``b``."""
    if x in in_index:
        return f"t{in_index[x]}"
    if x in out_index:
        return f"p{out_index[x]}"
    return f"b{buf_of[x]}"


def _reduction_kind(node):
    """``fusion.reduction``: "full", "leading" or "inner" (imported here, as fusion
    imports this module)."""
    from .fusion import reduction
    return reduction(node, min_row=1)


def _row_parts(group):
    """(indices of the row-broadcast inputs, indices of the outputs that are inner
    reductions) of ``group`` (NOTE: [Fused row reductions]); where either exists the
    kernel takes the group's size ``n`` as its last argument."""
    from .fusion import rows
    g, full = group.graph, tuple(group.shape)
    reduced = {r.outputs[0]: r for r in getattr(group, "reductions", ())}
    row_in = [i for i, v in enumerate(g.inputs)
              if not scalar(v) and rows(v.aval.shape, full, min_row=1)]
    inner = [j for j, v in enumerate(g.outputs)
             if v in reduced and _reduction_kind(reduced[v]) == "inner"]
    return row_in, inner


# a maximum or minimum merges as NumPy's does: NaN wins, once seen it stays
_MERGE = {"ReduceMax": "not ({1} <= {0}) and {0} == {0}",
          "ReduceMin": "not ({1} >= {0}) and {0} == {0}"}
_TILE_REDUCE = [
    # float64 re-association inside one tile's sum only: it vectorises (NOTE: [Fused
    # reductions] in spore/_jit/fusion.py)
    "@njit(cache=True, nogil=True, boundscheck=False, fastmath={'reassoc'})",
    "def tile_sum(m, q):",
    "    s = 0.0",
    "    for j in range(m):",
    "        s += np.float64(q[j])",
    "    return s",
    "",
    "",
    "@njit(cache=True, nogil=True, boundscheck=False)",
    "def tile_add(m, a, q):",
    "    for j in range(m):",
    "        a[j] += np.float64(q[j])",
    "",
    "",
    *(line for name, short in (("ReduceMax", "max"), ("ReduceMin", "min")) for line in (
        "@njit(cache=True, nogil=True, boundscheck=False)",
        f"def tile_{short}(m, a, i, q):",
        "    s = a[i]",
        "    for j in range(m):",
        "        v = np.float64(q[j])",
        f"        if {_MERGE[name].format('s', 'v')}:",
        "            s = v",
        "    a[i] = s",
        "",
        "",
        "@njit(cache=True, nogil=True, boundscheck=False)",
        f"def tile_{short}_rows(m, a, q):",
        "    for j in range(m):",
        "        v = np.float64(q[j])",
        f"        if {_MERGE[name].format('a[j]', 'v')}:",
        "            a[j] = v",
        "",
        ""))]


def _accumulate(g, reduced, buf_of, out_index):
    """The tile loop's last lines: each fused reduction adds the tile of the value it
    reduces (in a tile buffer, or the output's tile) into its accumulator ``o{j}``: one
    float64 for a full reduction, a row of the kept trailing size for a leading one."""
    lines = []
    for j, v in enumerate(g.outputs):
        r = reduced.get(v)
        if r is None:
            continue
        x = r.inputs[0]
        tile = f"b{buf_of[x]}" if x in buf_of else f"p{out_index[x]}"
        kind, name = _reduction_kind(r), r.prim.name
        short = {"ReduceMax": "max", "ReduceMin": "min"}.get(name)
        row = f"s // ro{j}" if kind == "inner" else "0"
        if kind == "leading":
            acc = f"o{j}[s % o{j}.size:s % o{j}.size + m]"
            lines.append(f"        tile_{short}_rows(m, {acc}, {tile})  # {name}" if short
                         else f"        tile_add(m, {acc}, {tile})  # {name}")
        elif short:
            lines.append(f"        tile_{short}(m, o{j}, {row}, {tile})  # {name}")
        else:
            lines.append(f"        o{j}[{row}] += tile_sum(m, {tile})  # {name}")
    return lines


def _tile_loop(sizes):
    """The head of the loop over tiles. With trailing-broadcast inputs or leading
    reductions (``sizes``: their sizes' expressions) a tile also stops at each multiple
    of the smallest one's size (the sizes of trailing shapes divide each other), so
    every such tile is one contiguous slice."""
    if not sizes:
        return [f"    for s in range(start, stop, {TILE}):",
                f"        e = min(s + {TILE}, stop)",
                "        m = e - s"]
    return [f"    r = {sizes[0] if len(sizes) == 1 else 'min(' + ', '.join(sizes) + ')'}",
            "    e = start",
            "    while e < stop:",
            "        s = e",
            f"        e = min(s + {TILE}, stop, (s // r + 1) * r)",
            "        m = e - s"]


def _approx_version():
    """A hash of approx.py, part of every kernel's source: Numba's disk cache does not
    notice that a function a cached kernel calls has changed, a new key does."""
    global _APPROX_VERSION
    if _APPROX_VERSION is None:
        with open(os.path.join(os.path.dirname(__file__), "approx.py"), "rb") as f:
            _APPROX_VERSION = hashlib.sha256(f.read()).hexdigest()[:16]
    return _APPROX_VERSION


_APPROX_VERSION = None


def cache_dir():
    """Where generated kernel files live: ``$SPORE_CACHE_DIR/kernels`` (default
    ``~/.cache/spore/kernels``)."""
    root = os.environ.get("SPORE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "spore")
    return os.path.join(root, "kernels")


def _write_once(path, source):
    """Write ``source`` to ``path`` unless it already holds exactly that (atomic)."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(source)
    os.replace(tmp, path)


def _import(source, name):
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    path = os.path.join(cache_dir(), f"fused_{key}.py")
    try:
        _write_once(path, source)
    except OSError:                          # no writable cache: this process only
        path = os.path.join(tempfile.mkdtemp(prefix="spore-kernels-"), f"fused_{key}.py")
        _write_once(path, source)
    module_name = f"spore_fused_{key}"
    _native.import_numba()                   # NOTE: [Numba without scipy.linalg]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module        # Numba's cache locates functions by module
    spec.loader.exec_module(module)
    return getattr(module, name)


def load(source, name="kernel"):
    """The compiled function ``name`` of ``source`` (memory, then disk cache, then
    compiled); None, with one warning per process, when Numba cannot compile it."""
    global _warned
    fn = _kernels.get(source)
    if fn is None:
        try:
            fn = _import(source, name)
        except Exception as exc:             # a Numba failure: the tiled NumPy path serves
            if not _warned:
                _warned = True
                warnings.warn(f"Spore's fused kernels fall back to NumPy: Numba failed "
                              f"({type(exc).__name__}: {exc}); SPORE_NATIVE=0 silences "
                              f"this.", RuntimeWarning, stacklevel=2)
            return None
        _kernels[source] = fn
    return fn


def compile_group(group, for_each):
    """A function running ``group`` with its Numba kernel, or None (no scalar form, or
    Numba unavailable): the caller then takes the tiled NumPy path."""
    if not available():
        return None
    source = kernel_source(group)
    if source is None:
        return None
    kernel = load(source)
    if kernel is None:
        return None
    return _runner(group, kernel, for_each, source)


def _runner(group, kernel, for_each, source):
    """A fixed-arity Python wrapper (the per-call cost matters for a 1024-element tanh):
    allocate the outputs, pass flat views, split large groups over two threads. The
    kernel's signature takes C-contiguous arrays only: an input that is not (a
    transposed or strided view, a stride-0 broadcast) is copied first. The test is a
    flag read; calling the kernel and catching Numba's TypeError instead cost ~0.7 ms
    per call (W3's broadcast mean gradient made O1 slower than O0)."""
    from .fusion import _threads
    g = group.graph
    n_total = int(np.prod(group.shape))
    glob = {"_empty": np.empty, "_kernel": kernel, "_for_each": for_each,
            "_contiguous": np.ascontiguousarray, "_n": n_total}
    ins = [f"x{i}" for i in range(len(g.inputs))]
    outs = [f"r{j}" for j in range(len(g.outputs))]
    reduced = {r.outputs[0]: r for r in getattr(group, "reductions", ())}
    lines = [f"def run({', '.join(ins)}):"]
    for x in ins:
        lines.append(f"    {x} = ({x} if {x}.flags.c_contiguous else _contiguous({x}))"
                     ".ravel()")            # a view of C-contiguous data; cheaper than reshape
    first, second, finish = list(ins), list(ins), []
    for j, v in enumerate(g.outputs):
        glob[f"s{j}"], glob[f"d{j}"] = tuple(v.aval.shape), np.dtype(v.aval.dtype)
        if v in reduced:                      # two float64 accumulators, one per half
            size = v.aval.size
            name = reduced[v].prim.name
            glob["_full"], glob[f"c{j}"] = np.full, float(n_total // size)
            glob["_maximum"], glob["_minimum"] = np.maximum, np.minimum   # NaN wins
            start = {"ReduceMax": -np.inf, "ReduceMin": np.inf}.get(name, 0.0)
            glob[f"z{j}"] = start
            lines.append(f"    w{j} = _full({2 * size}, z{j})")
            first.append(f"w{j}[:{size}]")
            second.append(f"w{j}[{size}:]")
            total = {"ReduceMax": f"_maximum(w{j}[:{size}], w{j}[{size}:])",
                     "ReduceMin": f"_minimum(w{j}[:{size}], w{j}[{size}:])"}.get(
                         name, f"(w{j}[:{size}] + w{j}[{size}:])")
            if name == "ReduceMean":
                total += f" / c{j}"
            finish.append(f"    r{j} = ({total}).astype(d{j}).reshape(s{j})")
        else:
            lines.append(f"    r{j} = _empty(s{j}, d{j})")
            first.append(f"r{j}.ravel()")
            second.append(f"r{j}.ravel()")
    if any(_row_parts(group)):                # NOTE: [Fused row reductions]
        first.append("_n")
        second.append("_n")
    half = (n_total // 2) & ~63
    parallel = _threads() > 1 and n_total >= PARALLEL_MIN
    if reduced:      # always two halves (NOTE: [Fused reductions]): bits independent of threads
        if parallel:
            lines += [f"    _for_each(lambda i: _kernel({half}, _n, {', '.join(second)}) if i "
                      f"else _kernel(0, {half}, {', '.join(first)}), 2)"]
        else:
            lines += [f"    _kernel(0, {half}, {', '.join(first)})",
                      f"    _kernel({half}, _n, {', '.join(second)})"]
        lines += finish
    elif parallel:   # one call over all of it where both halves would run on this thread
        lines += [f"    a = ({', '.join(first)},)",
                  f"    _for_each(lambda i: _kernel({half}, _n, *a) if i else "
                  f"_kernel(0, {half}, *a), 2, lambda: _kernel(0, _n, *a))"]
    else:
        lines += [f"    _kernel(0, _n, {', '.join(first)})"]
    lines.append(f"    return ({', '.join(outs)},)")
    run = define_run(lines, glob, f"fused_run_{group.id}")
    run.source = source
    return run


def define_run(lines, glob, tag):
    """The function ``run`` that the source ``lines`` define over the globals ``glob``
    (registered as ``tag`` for tracebacks and pdb)."""
    from .codegen import register_source
    text = "\n".join(lines) + "\n"
    ns = {}
    exec(compile(text, register_source(text, tag), "exec"), glob, ns)
    return ns["run"]
