"""Write docs/ops.md from the live primitive registry and the public ``spore.ops`` namespace.

Usage (from the repository root)::

    python tools/gen_ops_doc.py            # rewrite docs/ops.md
    python tools/gen_ops_doc.py --check    # exit 1 when docs/ops.md is stale

What each public op is built from is read from its bytecode (see ``Reader``):
the primitives and public ops its code, the private helpers and the Tensor
methods it calls refer to. Python operators (``x * y``) are not followed, since
their operands may be plain numbers; an op whose code resolves to nothing is
listed as "composite".
"""
from __future__ import annotations

import argparse
import builtins
import dis
import importlib
import importlib.util
import inspect
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ops.md"
COMMAND = "python tools/gen_ops_doc.py"

EFFECTS = {None: "", "random": "random", "state": "writes state", "print": "prints",
           "check": "raises when a check fails",
           "comm": "collective"}


# --------------------------------------------------------------------------- the live objects
def load():
    """Import Spore from this checkout; returns (spore, spore.ops, REGISTRY, Primitive)."""
    sys.path.insert(0, str(ROOT))
    import spore
    from spore._core.primitive import REGISTRY, Primitive
    return spore, spore.ops, REGISTRY, Primitive


class Namespace:
    """The public ``spore.ops`` names, grouped by object (aliases share one entry)."""

    def __init__(self, ops):
        self.names_of = {}
        for name in sorted(dir(ops)):
            obj = getattr(ops, name)
            if name.startswith("_") or isinstance(obj, types.ModuleType):
                continue
            self.names_of.setdefault(id(obj), (obj, []))[1].append(name)
        self.canonical = {key: _canonical(obj, names)
                          for key, (obj, names) in self.names_of.items()}

    def name(self, obj):
        return self.canonical.get(id(obj))

    def aliases(self, obj):
        names = self.names_of[id(obj)][1]
        return [n for n in names if n != self.name(obj)]

    def objects(self):
        return sorted((self.canonical[k], obj) for k, (obj, _) in self.names_of.items())


def _canonical(obj, names):
    own = getattr(obj, "__name__", None)
    return own if own in names else names[0]


# --------------------------------------------------------------------------- bytecode reading
class Uses:
    """What one piece of code refers to: primitive names and public op names."""

    def __init__(self, prims=(), ops=()):
        self.prims = set(prims)
        self.ops = set(ops)

    def merge(self, other):
        self.prims |= other.prims
        self.ops |= other.ops


class Reader:
    """Finds the public ops and primitives a function or class refers to.

    Globals, closure cells, attribute chains on them (``M.add_p``) and
    function-level imports are resolved to objects. A method called on a value
    of unknown type (``x.reshape(...)``, ``_ops().softmax(...)``) is taken to be
    the Tensor method, or the public op, of that name. Private Spore functions
    are followed into; public ops are recorded by name and not followed.
    """

    def __init__(self, namespace, ops, tensor_cls, primitive_cls):
        self.ns = namespace
        self.ops = ops
        self.tensor = tensor_cls
        self.primitive = primitive_cls
        self.memo = {}

    def uses(self, obj):
        """Uses of ``obj``, a function or a class (memoised; a cycle resolves to nothing)."""
        key = id(obj)
        if key not in self.memo:
            self.memo[key] = Uses()
            reader = self._class_uses if isinstance(obj, type) else self._function_uses
            self.memo[key] = reader(obj)
        return self.memo[key]

    def _class_uses(self, cls):
        found = Uses()
        call = getattr(cls, "__call__", None)
        if isinstance(call, types.FunctionType):
            found.merge(self.uses(call))
            if "getattr" in call.__code__.co_names:
                strings = [v for k in cls.__mro__ for v in vars(k).values() if isinstance(v, str)]
                self._dynamic_names(strings, found)
        return found

    def _function_uses(self, fn):
        found = Uses()
        fn = inspect.unwrap(fn)
        if not isinstance(fn, types.FunctionType):
            return found
        cells = _closure(fn)
        for code in _codes(fn.__code__):
            self._read_code(code, fn.__globals__, cells if code is fn.__code__ else {}, found)
        if "getattr" in fn.__code__.co_names:
            self._dynamic_names(list(cells.values()) + list(fn.__code__.co_consts), found)
        return found

    def _read_code(self, code, globs, cells, found):
        base = None                          # the resolved object the next attribute is read on
        level = 0                            # the relative level of the next import
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op == "LOAD_CONST" and isinstance(ins.argval, int):
                level = ins.argval
            if op in ("LOAD_GLOBAL", "LOAD_DEREF"):
                base = _lookup(globs, ins.argval) if op == "LOAD_GLOBAL" else cells.get(ins.argval)
                self._note(base, found)
            elif op in ("LOAD_ATTR", "LOAD_METHOD"):
                if base is not None:
                    base = getattr(base, ins.argval, None)
                    self._note(base, found)
                elif op == "LOAD_METHOD" or ins.argrepr.startswith("NULL|self"):
                    self._note(self._method(ins.argval), found)
                elif not hasattr(self.tensor, ins.argval):
                    self._note(self._op(ins.argval), found)      # f = ops.name; f(*args)
            elif op == "IMPORT_NAME":
                base = _import(ins.argval, level, globs)
            elif op == "IMPORT_FROM":
                self._note(getattr(base, ins.argval, None), found)
            else:
                base = None

    def _op(self, name):
        return getattr(self.ops, name, None)

    def _method(self, name):
        """A method called on a value of unknown type: a Tensor method when Tensor's
        adapter layer defines one by that name, else the public op of that name."""
        if not hasattr(self.tensor, name):
            return self._op(name)
        fn = getattr(self.tensor, name)
        fn = fn.fget if isinstance(fn, property) else fn
        module = getattr(fn, "__module__", "") or ""
        return fn if module.startswith(("spore._tensor_methods", "spore.ops")) else None

    def _dynamic_names(self, values, found):
        """Strings that name a public op, for code that looks ops up with ``getattr``."""
        for v in values:
            name = self.ns.name(self._op(v)) if isinstance(v, str) else None
            if name is not None:
                found.ops.add(name)

    def _note(self, obj, found):
        if isinstance(obj, property):
            obj = obj.fget
        if isinstance(obj, self.primitive):
            found.prims.add(obj.name)
        elif isinstance(obj, (types.FunctionType, type)) and self.ns.name(obj) is not None:
            found.ops.add(self.ns.name(obj))
        elif _is_spore_function(obj):
            found.merge(self.uses(obj))


def _closure(fn):
    """A function's closure cells by variable name (empty cells left out)."""
    cells = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            cells[name] = cell.cell_contents
        except ValueError:
            pass
    return cells


def _codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _import(name, level, globs):
    """The module a function-level import statement loads (None if it cannot be found)."""
    try:
        full = importlib.util.resolve_name("." * level + name, globs.get("__package__"))
        return sys.modules.get(full) or importlib.import_module(full)
    except (ImportError, ValueError):
        return None


def _lookup(globs, name):
    if name in globs:
        return globs[name]
    return getattr(builtins, name, None)


def _is_spore_function(obj):
    """A Spore function (followed into); classes other than public ops are not."""
    return (isinstance(obj, types.FunctionType)
            and (getattr(obj, "__module__", None) or "").startswith("spore"))


# --------------------------------------------------------------------------- primitive families
def primitive_families(registry, primitive_cls):
    """Primitive name -> its family: the module defining its kernel factory, or, for
    factories shared by a family helper, the ``spore._prims`` module that holds it."""
    holders = {}
    for mod_name, mod in sorted(sys.modules.items()):
        if mod_name.startswith("spore._prims") and not mod_name.endswith("_base") and mod:
            for value in list(vars(mod).values()):
                if isinstance(value, primitive_cls):
                    holders.setdefault(value.name, []).append(mod_name)
    families = {}
    for name, prim in registry.items():
        module = prim._factory.__module__
        if module.endswith("._base") and holders.get(name):
            module = min(holders[name], key=lambda m: (len(m), m))
        families[name] = _family_name(module)
    return families


def _family_name(module):
    parts = module.split(".")[1:]
    if parts[0] == "_prims":
        return parts[1]
    return ".".join(p.lstrip("_") for p in parts)


# --------------------------------------------------------------------------- the page
def public_ops(ns, reader):
    """(name, obj, Uses) for every public op that is a function or a primitive class."""
    rows = []
    for name, obj in ns.objects():
        if isinstance(obj, (types.FunctionType, type)) and not _is_infrastructure(obj):
            uses = reader.uses(obj)
            rows.append((name, obj, Uses(uses.prims, uses.ops - {name})))
    return rows


def _is_infrastructure(obj):
    """Autodiff transforms, higher-order helpers, the primitive base class and its
    decorator: public names that are not ops themselves."""
    module = getattr(obj, "__module__", "") or ""
    if not module.startswith("spore") or module.startswith("spore._autodiff"):
        return True
    if module.endswith("_higher_order"):
        return True
    if module == "spore.ops.operations" and not isinstance(obj, type):
        return True                          # prim_attr_register
    return isinstance(obj, type) and obj.__call__.__qualname__.startswith("Primitive.")


def describe(uses):
    """How a public op is built, in one table cell."""
    if not uses.ops and len(uses.prims) == 1:
        return f"primitive `{next(iter(uses.prims))}`"
    if not uses.prims and len(uses.ops) == 1:
        return f"calls `ops.{next(iter(uses.ops))}`"
    parts = [f"`ops.{n}`" for n in sorted(uses.ops)] + [f"`{p}`" for p in sorted(uses.prims)]
    if not parts:
        return "composite"
    return "composite of " + ", ".join(parts)


def render(spore, ops, registry, primitive_cls):
    """The text of docs/ops.md."""
    ns = Namespace(ops)
    rows = public_ops(ns, Reader(ns, ops, spore.Tensor, primitive_cls))
    families = primitive_families(registry, primitive_cls)
    out = _header(registry, rows)
    out += _primitive_section(registry, families, rows)
    out += _public_section(rows, ns)
    out += _other_names(ns, rows)
    return "\n".join(out) + "\n"


def _header(registry, rows):
    adapters = sum(1 for _, _, u in rows if not u.ops and len(u.prims) == 1)
    return [
        "# Ops and primitives",
        "",
        f"<!-- Generated by `{COMMAND}` from the live registry; do not edit by hand. -->",
        "",
        "Every op call ends in one **primitive** (`spore/_core/primitive.py`): the",
        "single dispatch point with a kernel, a shape/dtype rule and, when it is",
        "differentiable, a gradient rule. Public names (`ops.add`, `ops.Add()`,",
        "`Tensor.add`, `x + y`) are thin adapters over a primitive, or composites",
        "written with other ops, which need no gradient rule of their own.",
        "",
        f"Spore has **{len(registry)} primitives** and **{len(rows)} public ops** in",
        f"`spore.ops`, functions and primitive classes ({adapters} of them call exactly",
        "one primitive). `Tensor.<name>` methods call `ops.<name>`.",
        "",
        "How to read the tables:",
        "",
        "* *kind* is the fusion kind: `elementwise`, `reduce`, `opaque` or `view` (the",
        "  kernel returns a view of its input).",
        "* *effect*: `random` (draws from the seeded random state, see",
        "  [random.md](random.md)), `writes state` (writes into an existing tensor),",
        "  `prints`.",
        "* *grad*: `rule` (a gradient rule, checked numerically in the op tests),",
        "  `none` (not differentiable: comparisons, indices, random draws; no gradient",
        "  flows through it), or `as X` for an in-place primitive, which the gradient",
        "  tape records as its functional form `X`.",
        "* *vmap*: `rule` (a batching rule runs the primitive once over the whole",
        "  batch) or `loop` (the fallback: once per example, results stacked; random",
        "  primitives always loop, each example with its own key). See",
        "  [autodiff.md](autodiff.md#vmap).",
        "* *public names*: the `spore.ops` names whose own code calls the primitive",
        "  (following private helpers and Tensor methods, not other public ops); `—`",
        "  when only gradient rules, layers or optimizers use it.",
        "* *built from*: `primitive X` for a thin adapter over one primitive, `calls",
        "  ops.x` for an adapter over another public op, otherwise the public ops and",
        "  primitives the code refers to (a branch may use only some of them). It is",
        "  read from the bytecode: Python operators (`x * y`) are not followed, and",
        "  `composite` means nothing was found (e.g. `ops.Shape` returns a tuple).",
        "",
        "Refresh this page after adding or changing an op:",
        "",
        "```sh",
        f"{COMMAND}",
        "```",
        "",
    ]


def _primitive_section(registry, families, rows):
    callers = {}
    for name, _, uses in rows:
        for p in uses.prims:
            callers.setdefault(p, []).append(name)
    out = ["## Primitives", ""]
    for family in sorted(set(families.values())):
        out += [f"### {family}", "",
                "| primitive | kind | effect | grad | vmap | public names |",
                "|---|---|---|---|---|---|"]
        for pname in sorted(n for n in registry if families[n] == family):
            prim = registry[pname]
            names = ", ".join(f"`{n}`" for n in sorted(callers.get(pname, []))) or "—"
            out.append(f"| `{pname}` | {prim.kind} | {_effect(prim)} | {_grad(prim)} "
                       f"| {_batch(prim)} | {names} |")
        out.append("")
    return out


def _effect(prim):
    text = EFFECTS[prim.effect]
    if prim.inplace_of:
        text += f" (in-place `{prim.inplace_of}`)"
    return text


def _batch(prim):
    return "rule" if prim.batch is not None and prim.effect != "random" else "loop"


def _grad(prim):
    if prim.inplace_of:
        return f"as `{prim.inplace_of}`"
    if prim.nondiff:
        return "none"
    return "rule" if prim.grad is not None else "**missing**"


def _public_section(rows, ns):
    out = ["## Public ops", ""]
    by_family = {}
    for row in rows:
        by_family.setdefault(_op_family(row[1]), []).append(row)
    for family in sorted(by_family):
        out += [f"### {family}", "", "| name | aliases | built from |", "|---|---|---|"]
        for name, obj, uses in by_family[family]:
            aliases = ", ".join(f"`{a}`" for a in ns.aliases(obj))
            out.append(f"| `{name}` | {aliases} | {describe(uses)} |")
        out.append("")
    return out


def _op_family(obj):
    if isinstance(obj, type):
        return "primitive classes (`ops.Add()(x, y)`)"
    parts = [p.lstrip("_") for p in obj.__module__.split(".")[2:]]
    return ".".join(parts) or "ops"


def _other_names(ns, rows):
    listed = {name for name, _, _ in rows}
    others = [name for name, _ in ns.objects() if name not in listed]
    return ["## Other names in `spore.ops`", "",
            "Autodiff transforms (see [autodiff.md](autodiff.md)), higher-order helpers",
            "and base classes:", "",
            ", ".join(f"`{n}`" for n in others), ""]


# --------------------------------------------------------------------------- entry point
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when docs/ops.md differs from the generated text")
    args = parser.parse_args(argv)
    text = render(*load())
    if args.check:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"docs/ops.md is stale; refresh it with: {COMMAND}")
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
