"""Numba kernels for fused elementwise groups (``jit_level="O1"`` with the ``fast`` extra).

NOTE: [Numba fusion kernels]
A ``FusedElementwise`` group (spore/_jit/fusion.py) whose ops all appear in ``_OPS``
and whose values are float32, float64 or bool becomes one Numba function: a flat loop
over the elements that reads each input once, computes every op on scalars and
writes the values used after the group. Inputs have the group's shape or are 0-d (the
fusion pass admits no other broadcasting), so one index serves them all and the
kernel does not depend on the shape or even the rank: its source is determined by
the group's structure (ops, wiring, literal values) and dtypes, and **the source is
the key** of the in-memory cache and, hashed, the name of the file it is written to
under the disk cache (``$SPORE_CACHE_DIR``, default ``~/.cache/spore``, then
``kernels/``). The file is imported like a module, so Numba's ``cache=True`` keeps
its machine code next to it (or under ``NUMBA_CACHE_DIR``) and a second process
loads it instead of compiling; files are written once (atomically) and never
rewritten, which keeps Numba's cache stamps valid.

Numerics: every op's result is rounded to its NumPy dtype, so +, -, *, / and sqrt
give NumPy's bits; ``exp``, ``tanh``, ``sigmoid`` and ``erf`` on float32 use the
vectorisable approximations of spore/_jit/approx.py (within 1 ulp; stated 2 ulp), the
other transcendental functions Numba's libm calls (computed in float64 for float32,
so at least as accurate as NumPy's). No fast-math flags on the kernel's own
arithmetic (the approximations use FMA inside). Kernels are compiled with
``nogil=True``; large groups are split in two halves, the second run on the
fusion pool (``fusion._executor()``).
"""
from __future__ import annotations

import hashlib
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
    """Whether this node is a float32 transcendental that the approximations serve:
    worth a kernel of its own (one op) since they beat NumPy's ufunc."""
    return node.prim.name in _APPROX and _dtype_name(node.outputs[0].aval) == "float32"


def _literal(x, compute):
    """Source text of a weak Python scalar as the kernel computes with it."""
    if compute == "boolean":
        return repr(bool(x))
    value = float(np.asarray(x, dtype=compute))
    text = repr(value) if np.isfinite(value) else f"float('{value!r}')"    # inf, nan
    return f"np.{compute}({text})"


def kernel_source(group):
    """The Numba source for ``group``, or None when an op or dtype has no scalar form."""
    g = group.graph
    if not all(supports(n) for n in g.nodes):
        return None
    names = {}
    sig, params, head, body = [], [], [], []
    for i, v in enumerate(g.inputs):
        dt = _dtype_name(v.aval)
        sig.append(_READONLY[dt])
        params.append(f"x{i}")
        if v.aval.shape == ():
            head.append(f"    a{i} = x{i}[0]")
        else:
            body.append(f"        a{i} = x{i}[i]")
        names[v] = f"a{i}"
    for k, n in enumerate(g.nodes):
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
        # the op's name only: its source line would make the key depend on the caller
        body.append(f"        v{k} = {conv}({expr})  # {name}")
        names[n.outputs[0]] = f"v{k}"
    for j, v in enumerate(g.outputs):
        sig.append(f"T.{_dtype_name(v.aval)}[::1]")
        params.append(f"o{j}")
        body.append(f"        o{j}[i] = {names[v]}")
    lines = [
        "# A Spore fused kernel, generated by spore/_jit/kernelgen.py (safe to delete).",
        f"# approx.py {_approx_version()}",
        "import math",
        "import numpy as np",
        "from numba import njit, types as T",
        "from spore._jit.approx import exp_f32, tanh_f32, sigmoid_f32, erf_f32, maximum, "
        "minimum",
        "",
        "",
        "def _ro(dtype):",
        "    return T.Array(dtype, 1, 'C', readonly=True)",
        "",
        "",
        f"@njit(T.void(T.uint64, T.uint64, {', '.join(sig)}), cache=True, nogil=True,",
        "      boundscheck=False, error_model='numpy')",
        f"def kernel(start, stop, {', '.join(params)}):",
        *head,
        "    for i in range(start, stop):",
        *body,
        "",
    ]
    return "\n".join(lines)


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


def _import(source):
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    path = os.path.join(cache_dir(), f"fused_{key}.py")
    try:
        _write_once(path, source)
    except OSError:                          # no writable cache: this process only
        path = os.path.join(tempfile.mkdtemp(prefix="spore-kernels-"), f"fused_{key}.py")
        _write_once(path, source)
    name = f"spore_fused_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module               # Numba's cache locates functions by module
    spec.loader.exec_module(module)
    return module.kernel


def load(source):
    """The compiled kernel for ``source`` (memory, then disk cache, then compiled);
    None, with one warning per process, when Numba cannot compile it."""
    global _warned
    fn = _kernels.get(source)
    if fn is None:
        try:
            fn = _import(source)
        except Exception as exc:             # a Numba failure: the tiled NumPy path serves
            if not _warned:
                _warned = True
                warnings.warn(f"Spore's fused kernels fall back to NumPy: Numba failed "
                              f"({type(exc).__name__}: {exc}); SPORE_NATIVE=0 silences "
                              f"this.", RuntimeWarning, stacklevel=2)
            return None
        _kernels[source] = fn
    return fn


def compile_group(group, executor):
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
    return _runner(group, kernel, executor, source)


def _runner(group, kernel, executor, source):
    """A fixed-arity Python wrapper (the per-call cost matters for a 1024-element tanh):
    allocate the outputs, pass flat views, split large groups over two threads. A flat
    view of a strided 1-D input is not contiguous: the kernel's signature refuses it
    (TypeError) and the call is retried with contiguous copies."""
    from .codegen import register_source
    from .fusion import _threads
    g = group.graph
    n_total = int(np.prod(group.shape))
    glob = {"_empty": np.empty, "_kernel": kernel, "_executor": executor,
            "_contiguous": np.ascontiguousarray, "_n": n_total}
    ins = [f"x{i}" for i in range(len(g.inputs))]
    outs = [f"r{j}" for j in range(len(g.outputs))]
    lines = [f"def run({', '.join(ins)}):"]
    for j, v in enumerate(g.outputs):
        glob[f"s{j}"], glob[f"d{j}"] = tuple(v.aval.shape), np.dtype(v.aval.dtype)
        lines.append(f"    r{j} = _empty(s{j}, d{j})")
    flat_in = ", ".join(f"{x}.reshape(-1)" for x in ins)
    flat_out = ", ".join(f"{r}.reshape(-1)" for r in outs)
    args = ", ".join(a for a in (flat_in, flat_out) if a)
    safe = ", ".join(a for a in (", ".join(f"_contiguous({x}).reshape(-1)" for x in ins),
                                 flat_out) if a)
    if _threads() > 1 and n_total >= PARALLEL_MIN:
        half = (n_total // 2) & ~63
        lines += [f"    a = ({args},)",
                  "    try:",
                  f"        job = _executor().submit(_kernel, {half}, _n, *a)",
                  f"        _kernel(0, {half}, *a)",
                  "    except TypeError:",
                  f"        a = ({safe},)",
                  f"        job = _executor().submit(_kernel, {half}, _n, *a)",
                  f"        _kernel(0, {half}, *a)",
                  "    job.result()"]
    else:
        lines += ["    try:",
                  f"        _kernel(0, _n, {args})",
                  "    except TypeError:",
                  f"        _kernel(0, _n, {safe})"]
    lines.append(f"    return ({', '.join(outs)},)")
    text = "\n".join(lines) + "\n"
    ns = {}
    exec(compile(text, register_source(text, f"fused_run_{group.id}"), "exec"), glob, ns)
    run = ns["run"]
    run.source = source
    return run
