"""One compiled program for every size along a dynamic axis.

NOTE: [Dynamic axes]
A function compiled with ``jit(dynamic=1)``, ``enable_dynamic`` or a Cell's
``set_inputs`` with ``None`` axes is called with tensors whose sizes vary along some
axes (the batch of the last step, a sequence length). Each new size used to trace and
compile again. Instead the calls of one *family* (the same arguments but for the sizes
along some tensor axes) share one program:

1. The first size compiles as usual, and its captured graph is kept.
2. The second size is traced (no compile). ``generalise`` walks the two graphs side by
   side: the same nodes, wiring, dtypes, constants and literals, where every integer
   that differs (in a shape, an attribute such as a Reshape's target, a literal) is
   ``c * N_j + b`` for one varying size ``N_j`` (integers ``c`` and ``b``, one ``j``
   only). Those integers become ``Dim`` expressions, and the second graph, now
   symbolic, is optimised and compiled once: its code reads ``D = (sizes)`` from its
   inputs and evaluates the attributes that depend on them at run time (kernels whose
   attributes hold a ``Dim`` run through the primitive's eager preparation, exactly as
   PyNative does; size-dependent kernel choices are made at run time too).
3. The third size is traced once more to verify the affine guess (two points fit any
   line); from then on a new size runs the program without tracing.

Anything that does not generalise (a constant whose shape follows the size, a loop
unrolled ``N`` times, a product of two varying sizes, a float computed from a size in
Python, a non-inlined control-flow node) leaves the family: those sizes compile one by
one, as before, with the same results either way. (So ops keep such floats out of the
graph: BatchNorm's ``n / (n - 1)`` is the integer attribute of ``BesselCorrection``.)

At ``jit_level="O1"`` a fused kernel's code is shape-free; ``fused_kernel`` builds its
small wrapper per size. Under a gradient tape the forward and the joint graph of
NOTE: [JitCall residuals] are families of their own: the joint function is shared by
the sizes (``residuals._joint_jit``), its symbolic graph is split once, and each half
reads its sizes from an input that holds them.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .ir import Graph, Value

_ndarray = np.ndarray


class NotGeneric(Exception):
    """A graph that cannot run for every size of its dynamic axes."""


class Dim(int):
    """The size ``c * D[j] + b`` of an axis that varies between calls. It behaves as the
    integer it was traced with in arithmetic (heuristics such as byte counts), but
    compares equal only to the same expression, so no pass or memory plan decision
    takes two shapes as equal by the coincidence of one call."""

    def __new__(cls, j, c, b, value):
        self = super().__new__(cls, value)
        self.j, self.c, self.b = j, c, b
        return self

    def key(self):
        return (self.j, self.c, self.b)

    def __eq__(self, other):
        return type(other) is Dim and other.key() == self.key()

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("Dim",) + self.key())

    def __repr__(self):
        return self.source("N")

    __str__ = __repr__

    def source(self, name="D"):
        """The Python expression of this size over the tuple of sizes ``name``."""
        text = f"{name}[{self.j}]"
        if self.c != 1:
            text = f"{self.c} * {text}"
        if self.b:
            text = f"{text} {'+' if self.b > 0 else '-'} {abs(self.b)}"
        return f"({text})" if (self.c != 1 or self.b) else text

    def resolve(self, sizes):
        return self.c * sizes[self.j] + self.b

    def __reduce__(self):                      # copies keep the expression
        return (Dim, (self.j, self.c, self.b, int(self)))


# --------------------------------------------------------------------------- families
def _leaf(a):
    """Whether a piece of a call spec is a distinct tensor: ("T", shape, dtype)."""
    return type(a) is tuple and len(a) == 3 and a[0] == "T" and type(a[1]) is tuple \
        and type(a[2]) is str


def _walk_leaves(spec, visit):
    """Call ``visit(leaf_index, leaf)`` on the distinct tensors of a spec, in order, and
    return the spec rebuilt from what it returns."""
    counter = [0]

    def walk(a):
        if _leaf(a):
            counter[0] += 1
            return visit(counter[0] - 1, a)
        if type(a) is tuple and not (a and a[0] in ("T", "S", "O")):
            return tuple(walk(x) for x in a)
        return a
    return (walk(spec[0]), walk(spec[1])) + tuple(spec[2:])


def leaf_shapes(spec):
    """The shapes of a call spec's distinct tensor leaves, in order."""
    out = []
    _walk_leaves(spec, lambda i, a: out.append(a[1]))
    return out


def sizes_of(spec, dims):
    """The size of each dynamic dimension (a group of axes of equal size) in a call."""
    shapes = leaf_shapes(spec)
    return tuple(shapes[leaf][k] for leaf, k in (group[0] for group in dims))


def dims_hold(spec, dims):
    """Whether every group of axes still has one size in this call."""
    shapes = leaf_shapes(spec)
    return all(len({shapes[leaf][k] for leaf, k in group}) == 1 for group in dims)


def masked(spec, axes):
    """``spec`` with the sizes along ``axes`` replaced by -1 (a family's key)."""
    axes = set(axes)
    return _walk_leaves(spec, lambda i, a: ("T", tuple(
        -1 if (i, k) in axes else s for k, s in enumerate(a[1])), a[2]))


def varying_dims(spec1, spec2):
    """The dynamic dimensions of two call specs that are otherwise equal (same ranks and
    dtypes): the (tensor leaf, axis) pairs whose sizes differ, grouped by equal sizes in
    both calls (a batch axis shared by the inputs and the labels is one dimension); None
    when the specs differ in anything else."""
    s1, s2 = leaf_shapes(spec1), leaf_shapes(spec2)
    if len(s1) != len(s2) or any(len(a) != len(b) for a, b in zip(s1, s2)):
        return None
    groups = {}
    for i, (a, b) in enumerate(zip(s1, s2)):
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                groups.setdefault((x, y), []).append((i, k))
    dims = list(groups.values())
    axes = [a for group in dims for a in group]
    if not axes or masked(spec1, axes) != masked(spec2, axes):
        return None
    return dims


def family_key(spec, dims):
    return masked(spec, [a for group in dims for a in group])


class Family:
    """The calls that differ only in the sizes along ``axes``: the first member's
    captured graph, then the shared program once it exists."""

    def __init__(self, spec, entry, graph, epoch):
        self.spec = spec
        self.first = entry            # the first size's entry (its own program)
        self.graph = graph            # ... and its graph as captured
        self.epoch = epoch
        self.dims = None              # groups of (tensor leaf, axis) of one size each
        self.key = None
        self.program = None           # the symbolic entry, once built
        self.signature = None
        self.verified = False
        self.dead = False


def same_capture(a, b):
    """Whether two entries captured the same outside objects, outputs and draws."""
    return (_same_spec(a.out_spec, b.out_spec) and a.n_draws == b.n_draws
            and a.uses_rng == b.uses_rng and a.rng_dynamic == b.rng_dynamic
            and [id(o) for o in a.objects] == [id(o) for o in b.objects])


def _same_spec(a, b):
    """Equality of output specs whose constants may be tensors (a joint graph's zero
    cotangents): those compare by value."""
    if a is b:
        return True
    if isinstance(a, (P._Tensor, np.ndarray)) or isinstance(b, (P._Tensor, np.ndarray)):
        x, y = (getattr(t, "_data", t) for t in (a, b))
        return type(a) is type(b) and isinstance(x, np.ndarray) and isinstance(y, np.ndarray) \
            and x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
    if type(a) in (tuple, list):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same_spec, a, b))
    try:
        return bool(a == b)
    except Exception:
        return False


# --------------------------------------------------------------------------- generalise
def generalise(g1, g2, sizes1, sizes2):
    """Turn ``g2`` (traced at ``sizes2``) into a symbolic graph, given ``g1`` traced the
    same way at ``sizes1``: ``g2`` is changed in place, and the returned list undoes the
    change (``restore``). Raises NotGeneric, leaving ``g2`` as it was."""
    steps = [b - a for a, b in zip(sizes1, sizes2)]
    changes = []

    def dim(a, b):
        if type(a) is bool or type(b) is bool or a == b:
            if a != b:
                raise NotGeneric("a flag differs")
            return b
        found = None
        for j, step in enumerate(steps):
            if step and (b - a) % step == 0:
                c = (b - a) // step
                cand = (j, c, a - c * sizes1[j])
                if found is not None:
                    raise NotGeneric("a size is ambiguous between two dynamic axes")
                found = cand
        if found is None:
            raise NotGeneric(f"a size {a} -> {b} is not affine in one dynamic axis")
        return Dim(*found, b)

    def value(x, y):
        if type(x) is Dim or type(y) is Dim:
            raise NotGeneric("already symbolic")
        if isinstance(x, (bool, np.bool_)) or isinstance(y, (bool, np.bool_)):
            if type(x) is not type(y) or x != y:
                raise NotGeneric("a flag differs")
            return y
        if isinstance(x, (int, np.integer)) and isinstance(y, (int, np.integer)) \
                and type(x) is type(y):
            d = dim(int(x), int(y))
            return d if type(d) is Dim else y
        if isinstance(x, Graph):
            if not isinstance(y, Graph):
                raise NotGeneric("a sub-graph differs")
            graph(x, y)
            return y
        if isinstance(x, (tuple, list)):
            if type(x) is not type(y) or len(x) != len(y):
                raise NotGeneric("an attribute differs")
            out = [value(a, b) for a, b in zip(x, y)]
            return type(y)(out) if type(y) in (tuple, list) else y
        if isinstance(x, dict):
            if type(y) is not dict or list(x) != list(y):
                raise NotGeneric("an attribute differs")
            return {k: value(x[k], y[k]) for k in x}
        if isinstance(x, np.ndarray):
            if not isinstance(y, np.ndarray) or x.dtype != y.dtype or x.shape != y.shape \
                    or x.tobytes() != y.tobytes():
                raise NotGeneric("an array attribute differs")
            return y
        try:
            same = x is y or (type(x) is type(y) and bool(x == y))
        except Exception:
            same = False
        if not same:
            raise NotGeneric(f"an attribute differs: {x!r} vs {y!r}")
        return y

    mapping = {}

    def aval(v1, v2):
        a, b = v1.aval, v2.aval
        if a.dtype != b.dtype or len(a.shape) != len(b.shape):
            raise NotGeneric("a value's type differs")
        shape = tuple(value(x, y) for x, y in zip(a.shape, b.shape))
        if any(type(s) is Dim for s in shape):
            changes.append((v2, "aval", ShapedArray(shape, b.dtype)))
        mapping[v1] = v2

    def operand(x, y):
        if isinstance(x, Value):
            if not isinstance(y, Value) or mapping.get(x) is not y:
                raise NotGeneric("the wiring differs")
            return y
        if isinstance(y, Value):
            raise NotGeneric("the wiring differs")
        return value(x, y)

    def graph(a, b):
        if (len(a.inputs), len(a.consts), len(a.nodes), len(a.outputs)) != \
                (len(b.inputs), len(b.consts), len(b.nodes), len(b.outputs)):
            raise NotGeneric("the graphs differ in size")
        for v1, v2 in zip(a.inputs, b.inputs):
            if v1.role != v2.role:
                raise NotGeneric("the inputs differ")
            aval(v1, v2)
        for c1, c2 in zip(a.consts, b.consts):
            if c1.const.dtype != c2.const.dtype or c1.const.shape != c2.const.shape \
                    or c1.const.tobytes() != c2.const.tobytes():
                raise NotGeneric("a constant differs (its shape may follow a dynamic size)")
            mapping[c1] = c2
        for n1, n2 in zip(a.nodes, b.nodes):
            if n1.prim is not n2.prim or len(n1.inputs) != len(n2.inputs) \
                    or len(n1.outputs) != len(n2.outputs) \
                    or [i for i, _ in n1.written] != [i for i, _ in n2.written]:
                raise NotGeneric(f"the nodes differ ({n1.prim.name} vs {n2.prim.name})")
            inputs = tuple(operand(x, y) for x, y in zip(n1.inputs, n2.inputs))
            if sorted(n1.attrs) != sorted(n2.attrs):
                raise NotGeneric(f"the attributes of {n1.prim.name} differ")
            attrs = {k: value(n1.attrs[k], n2.attrs[k]) for k in n2.attrs}
            for o1, o2 in zip(n1.outputs, n2.outputs):
                aval(o1, o2)
            for (_, w1), (_, w2) in zip(n1.written, n2.written):
                if w1 not in n1.outputs:
                    aval(w1, w2)
            changes.append((n2, "inputs", inputs))
            changes.append((n2, "attrs", attrs))
        for o1, o2 in zip(a.outputs, b.outputs):
            if mapping.get(o1) is not o2:
                raise NotGeneric("the outputs differ")

    graph(g1, g2)
    undo = [(obj, field, getattr(obj, field)) for obj, field, _ in changes]
    for obj, field, new in changes:
        setattr(obj, field, new)
    return undo


def restore(undo):
    """Undo ``generalise``: the graph as it was traced."""
    for obj, field, old in reversed(undo):
        setattr(obj, field, old)


def has_dims(x):
    """Whether an attribute value or literal holds a ``Dim``."""
    if type(x) is Dim:
        return True
    if isinstance(x, (tuple, list)):
        return any(has_dims(e) for e in x)
    if isinstance(x, dict):
        return any(has_dims(e) for e in x.values())
    return False


def resolve(x, sizes):
    if type(x) is Dim:
        return x.resolve(sizes)
    if isinstance(x, (tuple, list)) and has_dims(x):
        return type(x)(resolve(e, sizes) for e in x)
    if isinstance(x, dict) and has_dims(x):
        return {k: resolve(e, sizes) for k, e in x.items()}
    return x


def node_kernel(prim, attrs):
    """The kernel of a node whose attributes hold ``Dim``s: the attributes are evaluated
    from the call's sizes ``_d``, and the inputs go through the primitive's eager
    preparation (its dtype policy, scalar conversion), as PyNative does."""
    kernel = prim._cpu
    wrap = P.wrap
    fixed = {k: v for k, v in attrs.items() if not has_dims(v)}
    varying = {k: v for k, v in attrs.items() if has_dims(v)}

    def run(*arrays, _d, out=None):
        kw = dict(fixed)
        for k, v in varying.items():
            kw[k] = resolve(v, _d)
        if out is not None:                  # a ufunc the memory plan gave a dead buffer
            kw["out"] = out
        args = prim.prepare([wrap(a) if type(a) is _ndarray else a for a in arrays])
        return kernel(*args, **kw)
    run.needs_sizes = True
    run.__name__ = f"{prim.name}_dynamic"
    return run


# --------------------------------------------------------------------------- fused groups
def fused_kernel(group, compile_group):
    """The kernel of a fused group (``jit_level="O1"``) in a program shared by sizes.

    A fused kernel's code does not depend on shapes (NOTE: [Numba fusion kernels]), but
    its wrapper bakes them (output shapes, element counts, the two halves). So the
    wrapper is built per size, from the group with its ``Dim``s evaluated: the first
    call at a size costs a wrapper (the kernel itself comes from the cache), later calls
    at that size nothing. A group of fixed shapes is compiled once, as usual."""
    if not _group_has_dims(group):
        return compile_group(group)
    runners = {}

    def run(*arrays, _d):
        fn = runners.get(_d)
        if fn is None:
            if len(runners) >= 64:              # many sizes: keep memory bounded
                runners.clear()
            fn = runners[_d] = compile_group(concrete_group(group, _d))
        return fn(*arrays)
    run.needs_sizes = True
    run.__name__ = "FusedElementwise_dynamic"
    return run


def _group_has_dims(group):
    g = group.graph
    values = list(g.inputs) + [o for n in g.nodes for o in n.outputs]
    return has_dims(tuple(group.shape)) or any(has_dims(tuple(v.aval.shape)) for v in values) \
        or any(has_dims(n.attrs) or has_dims(n.inputs) for n in g.nodes)


def concrete_group(group, sizes):
    """A copy of a fused group whose shapes and attributes are evaluated at ``sizes``
    (every field of the group that refers to its graph is mapped to the copy)."""
    import copy

    from .ir import Node
    seen = {}

    def value(v):
        out = seen.get(v)
        if out is None:
            a = v.aval
            out = seen[v] = Value(ShapedArray(resolve(tuple(a.shape), sizes), a.dtype),
                                  const=v.const, role=v.role, label=v.label)
        return out

    def node(n):
        out = seen.get(n)
        if out is None:
            out = seen[n] = Node(n.prim, [remap(x) for x in n.inputs], remap(n.attrs),
                                 [value(o) for o in n.outputs],
                                 [(i, value(w)) for i, w in n.written], n.loc)
            for o in out.outputs:
                o.node = out
        return out

    def remap(x):
        if isinstance(x, Value):
            return value(x)
        if isinstance(x, Node):
            return node(x)
        if isinstance(x, Graph):
            g = Graph(x.name, [value(v) for v in x.inputs], [node(n) for n in x.nodes],
                      [value(v) for v in x.outputs])
            g.consts = [value(v) for v in x.consts]
            return g
        if type(x) is Dim:
            return x.resolve(sizes)
        if type(x) in (tuple, list):
            return type(x)(remap(e) for e in x)
        if type(x) is dict:
            return {k: remap(e) for k, e in x.items()}
        return x

    out = copy.copy(group)
    out.graph = remap(group.graph)               # nodes first: fields then reuse them
    for k, v in vars(group).items():
        if k != "graph":
            setattr(out, k, remap(v))
    return out
