"""``vmap``: run a function written for one example over a batch of examples.

NOTE: [Batching]
``vmap(fn, in_axes, out_axes)(*args)`` calls ``fn`` once. Each argument mapped over
an axis reaches ``fn`` as a *batched tensor*: a Tensor whose ``_data`` is a
``Batched`` (the per-example shape and dtype, the whole batch as ``value`` and the
axis of ``value`` that is the batch, ``bdim``). So ``x.shape`` inside ``fn`` is an
example's shape, as in MindSpore.

A batching handler sits at the dispatch point (like the tape and the graph
capture, see NOTE: [Dispatch]). A primitive call with no batched input of this
vmap passes straight to the handler below. Otherwise the handler unwraps the
batched inputs to ``(value, bdim)`` pairs and runs the primitive's batching rule
(``Primitive.batch``, registered in ``spore/_prims/_batching.py``) with the handler
below installed, so the rule's own primitive calls are recorded by an outer tape
(``grad(vmap(f))``), become nodes of an outer graph (``jit``) or are batched by an
outer vmap (``vmap(vmap(f))``). A rule returns the output and its batch axis.

A primitive without a rule (or whose rule declines the call, returning None) takes
the *loop fallback*: the batched inputs are split along their batch axis, the
primitive runs once per example and the results are stacked. It is correct for
every primitive, only slower; random primitives always loop, so each example
draws its own numbers.

``vmap(grad(f))`` works the other way round: the tape sits above the batching
handler, records batched tensors like any other, and its gradient rules run
batched when the backward pass calls them.
"""
from __future__ import annotations

import threading

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .._prims._batching import move_axis, rule_for, stack, unstack
from .._prims.array import broadcast_to_p, reshape_p
from .._prims.math import bitwise_xor_p
from . import tape as T

__all__ = ["vmap", "vmap_models"]


class BatchedAttributeError(ValueError, AttributeError):
    """A batched tensor's ``_data`` has no such attribute: its values are per example."""


class Batched(ShapedArray):
    """The ``_data`` of a batched tensor: one example's shape and dtype, the whole batch
    (``value``, a Tensor) and the axis of ``value`` that runs over the examples."""

    __slots__ = ("value", "bdim", "level")
    base = None

    def __init__(self, value, bdim, level):
        shape = tuple(value.shape)
        self.shape = shape[:bdim] + shape[bdim + 1:]
        self.dtype = value._data.dtype
        self.value = value
        self.bdim = bdim
        self.level = level

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    def refuse_host_read(self, what, hint=None):
        raise ValueError(
            f"For 'vmap', {what} reads the values of a tensor mapped over a batch, which "
            "differ from example to example. Write the function with ops only (ops.select "
            "instead of a Python if on a tensor); MindSpore's vmap refuses this too.")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            self.refuse_host_read(f"reading '.{name}' of the data")
        except ValueError as e:      # getattr(data, name, default) still works
            raise BatchedAttributeError(str(e)) from None

    def __array__(self, *args, **kwargs):
        self.refuse_host_read("converting the tensor to a NumPy array")

    def copy(self):
        self.refuse_host_read("copying the data")

    def __repr__(self):
        return f"Batched({ShapedArray.__repr__(self)} x {self.value.shape[self.bdim]})"


class _Depth(threading.local):
    n = 0


_depth = _Depth()


class _Level:
    """One active vmap: its batch size and how many vmaps enclose it (random salts).
    Batched tensors name their level, so nested vmaps tell their batches apart."""

    __slots__ = ("size", "depth")

    def __init__(self, size, depth):
        self.size = size
        self.depth = depth


def is_batching():
    """Whether a vmap is running in this thread (compiled functions called inside run
    their Python function, batched op by op)."""
    return _depth.n > 0


def _batched(value, bdim, level):
    t = P._Tensor.__new__(P._Tensor)
    t._data = Batched(value, bdim, level)
    t._tape_ref = None
    return t


def _level_of(a, level):
    return isinstance(a, P._Tensor) and type(a._data) is Batched and a._data.level is level


# --------------------------------------------------------------------------- the handler
def _make_handler(level):
    def make(below):
        def vmap_handler(prim, args, attrs):
            for a in args:
                if _level_of(a, level):
                    break
            else:
                if prim.effect != "random" or prim.name == "RandomKey":
                    return below(prim, args, attrs)
                # a draw that reads no batched input still draws once per example
            values = [a._data.value if _level_of(a, level) else a for a in args]
            dims = [a._data.bdim if _level_of(a, level) else None for a in args]
            with P.handler_scope(lambda _current: below):
                out, out_dims = apply(prim, level, attrs, values, dims)
            if type(out) is tuple:
                return tuple(_batched(o, d, level) if d is not None else o
                             for o, d in zip(out, out_dims))
            return _batched(out, out_dims, level) if out_dims is not None else out
        return vmap_handler
    return make


def apply(prim, level, attrs, values, dims):
    """Run ``prim`` over a batch: its rule, or the loop fallback. ``values`` are the
    inputs (batched ones whole), ``dims`` their batch axes (None: not batched)."""
    size = level.size
    if prim.effect == "random":
        return loop(prim, size, attrs, values, dims, salt=level.depth)
    rule = rule_for(prim)
    if rule is not None:
        result = rule(size, attrs, values, dims)
        if result is not None:
            return result
    if prim.effect in ("state", "comm"):
        raise RuntimeError(_side_effect_error(prim, dims))
    return loop(prim, size, attrs, values, dims)


def _side_effect_error(prim, dims):
    written = [dims[i] for i in prim.writes if i < len(dims)]
    if written and all(d is not None for d in written):
        return (f"For 'vmap', the primitive '{prim.name}' writes into a tensor mapped over "
                f"axis {written[0]} of its argument; in-place writes run batched only into "
                "tensors mapped over axis 0 (copy the tensor first, e.g. t = t * 1, or use "
                "in_axes=0).")
    return (f"For 'vmap', the primitive '{prim.name}' cannot run over a batch: it writes "
            "state or communicates (a write into a tensor shared by every example, for "
            "example). MindSpore's vmap rejects side effects too; return the new value "
            "from the function instead.")


def loop(prim, size, attrs, values, dims, salt=None):
    """The fallback: one call per example, results stacked along axis 0. With a ``salt``
    (a random primitive; the vmap's nesting depth) each example draws with its own key."""
    columns = [unstack(v, d, size) if d is not None else None for v, d in zip(values, dims)]
    key_at = _key_position(values, dims) if salt is not None else None
    results = []
    for i in range(size):
        args = [v if c is None else c[i] for v, c in zip(values, columns)]
        if key_at is not None:
            args[key_at] = example_key(args[key_at], i, salt)
        results.append(prim(*args, **attrs))
    if not prim.multiple_results:
        results = [(r,) for r in results]
    outs = []
    for k in range(len(results[0])):
        column = [r[k] for r in results]
        shapes = {tuple(t.shape) for t in column}
        if len(shapes) > 1:
            raise ValueError(
                f"For 'vmap', the primitive '{prim.name}' gives results of different shapes "
                f"for different examples ({' and '.join(str(list(s)) for s in sorted(shapes))}"
                "): vmap needs every example's result to have the same shape.")
        outs.append(stack(column))
    if prim.multiple_results:
        return tuple(outs), (0,) * len(outs)
    return outs[0], 0


def _key_position(values, dims):
    """Where a random primitive's key is among its inputs (a shared 2-word uint64 tensor,
    ``_random.key_array``), or None."""
    for i, (v, d) in enumerate(zip(values, dims)):
        if d is None and isinstance(v, P._Tensor) and tuple(v.shape) == (2,) \
                and v._data.dtype == np.uint64:
            return i
    return None


# NOTE: [Keys per example]
# A random op's key is drawn once, outside its primitive, so under vmap every example
# would get the same numbers (the same dropout mask for every example). Each example
# i > 0 instead draws with the key whose stream word is XORed with a hash of (i, the
# vmap's nesting depth): another Philox stream, computed with a primitive so that it is
# a node of a compiled graph too. Example 0 keeps the key, so vmap over one example
# draws what the plain call draws. The hash is SplitMix64's finaliser, so that the
# salts of nested vmaps combined by XOR do not cancel or coincide.
_M64 = 0xFFFFFFFFFFFFFFFF


def _mix64(z):
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def example_key(key, i, depth):
    if i == 0:
        return key
    salt = np.array([_mix64((depth << 32) | i), 0], dtype=np.uint64)
    return bitwise_xor_p(key, P.wrap(salt))


# --------------------------------------------------------------------------- vmap
def vmap(fn, in_axes=0, out_axes=0):
    """MindSpore's ``vmap``: ``fn`` mapped over an axis of its inputs.

    Args:
        fn: a function or Cell (its parameters are shared by every example).
        in_axes: int, None, or a tuple/list with one entry per argument; an entry is
            an int, None, or a nested tuple/list/dict matching that argument.
        out_axes: the same for the outputs; None leaves an output that does not
            depend on the batch unbatched.
    """
    if not callable(fn):
        raise TypeError(f"For 'vmap', 'fn' must be a function or a Cell, but got "
                        f"{type(fn).__name__}.")
    _check_specs(in_axes, out_axes)
    if in_axes is None:
        raise ValueError("The 'in_axes' of 'vmap' cannot be a single None while 'fn' is not "
                         "a 'CellList'.")
    return _mapped(fn, in_axes, out_axes)


def vmap_models(fn, size, bind, in_axes=0, out_axes=0):
    """``vmap`` over ``size`` models of one structure (MindSpore's model ensembling over a
    ``CellList``): ``fn`` runs once with ``bind(batch)`` entered, where ``batch(value)``
    makes a tensor batched along axis 0 of ``value`` (the models' stacked parameters);
    the inputs may all be shared (``in_axes=None``)."""
    _check_specs(in_axes, out_axes)
    if size < 2:
        raise ValueError(f"In the model ensembling parallel training scenario ('VmapOperation' "
                         f"arg0 is a 'CellList'), the size of 'CellList' must be greater than "
                         f"1, but got {size}.")
    return _mapped(fn, in_axes, out_axes, (size, bind))


def _check_specs(in_axes, out_axes):
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")
    if out_axes is None:
        raise ValueError("The 'out_axes' of 'vmap' cannot be a single None while 'fn' is "
                         "not a 'CellList'.")
    if isinstance(out_axes, (tuple, list)) and out_axes and _all_none(out_axes):
        raise ValueError(f"The 'out_axes' of 'vmap' cannot be all None while 'fn' is not a "
                         f"'CellList', but got {out_axes}.")


def _mapped(fn, in_axes, out_axes, models=None):
    def batched_fn(*args, **kwargs):
        axes = _expand_in_axes(in_axes, args)
        sizes = []
        leaves = _map_tree(lambda x, ax: _check_leaf(x, ax, sizes), args, axes, "in_axes")
        size = _batch_size(sizes, models)
        level = _Level(size, _depth.n)
        inputs = _map_tree(lambda x, ax: x if ax is None else _batched(x, ax % len(x.shape), level),
                           leaves, axes, "in_axes")
        _depth.n += 1
        try:
            with P.handler_scope(_make_handler(level)), T.separated():
                if models is None:
                    out = fn(*inputs, **kwargs)
                else:
                    with models[1](lambda value: _batched(value, 0, level)):
                        out = fn(*inputs, **kwargs)
        finally:
            _depth.n -= 1
        return _outputs(out, out_axes, level)

    batched_fn.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
    batched_fn.__wrapped__ = fn
    return batched_fn


def _batch_size(sizes, models):
    """The one batch size of the mapped arguments (and of the models, if any)."""
    if models is not None:
        for s in sizes:
            if s != models[0]:
                raise ValueError(
                    "If you want to execute the model ensembling parallel training, please "
                    "make sure the 'axis_size' in the scope of vmap consistent with the cell "
                    "size of the input 'CellList', otherwise, please do not enter 'CellList' "
                    f"as the first argument, but we get axis_size: {s} and the cell size: "
                    f"{models[0]}.")
        return models[0]
    if not sizes:
        raise ValueError("For 'vmap', failed to get 'axis_size': no argument is mapped "
                         "over an axis (every in_axes entry is None or no argument is a "
                         "Tensor).")
    for s in sizes[1:]:
        if s != sizes[0]:
            raise ValueError(f"The 'axis_size' of each argument in the scope of 'vmap' "
                             f"should be equal, but got {sizes[0]} and {s}.")
    if sizes[0] == 0:
        raise ValueError("For 'vmap', the mapped axis has size 0.")
    return sizes[0]


def _all_none(spec):
    if isinstance(spec, (tuple, list)):
        return all(_all_none(s) for s in spec)
    if isinstance(spec, dict):
        return all(_all_none(s) for s in spec.values())
    return spec is None


def _check_axes_spec(spec, name):
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_axes_spec(s, name)
        return
    if isinstance(spec, dict):
        for s in spec.values():
            _check_axes_spec(s, name)
        return
    raise TypeError(f"The axis in vmap`s '{name}' can only be of type Int or None, but got "
                    f"{spec!r} ({type(spec).__name__}).")


def _expand_in_axes(in_axes, args):
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"When vmap`s 'in_axes' is a tuple or list, and its size must be "
                             f"equal to the number of arguments of 'fn': {len(args)}, but got "
                             f"size: {len(in_axes)}.")
        return tuple(in_axes)
    return (in_axes,) * len(args)


def _map_tree(f, tree, axes, name):
    """``f(leaf, axis)`` over ``tree``, ``axes`` an int/None for a whole subtree or a
    structure matching it. Lists and tuples keep their type; dicts their keys."""
    if isinstance(tree, (tuple, list)):
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(tree):
                raise ValueError(f"For 'vmap', the '{name}' {axes} does not match the "
                                 f"structure of the value: {len(axes)} entries for a "
                                 f"{type(tree).__name__} of {len(tree)}.")
            return type(tree)(_map_tree(f, t, a, name) for t, a in zip(tree, axes))
        if isinstance(axes, dict):
            raise ValueError(f"For 'vmap', the '{name}' {axes} is a dict but the value is a "
                             f"{type(tree).__name__}.")
        return type(tree)(_map_tree(f, t, axes, name) for t in tree)
    if isinstance(tree, dict):
        if isinstance(axes, dict):
            if set(axes) != set(tree):
                raise ValueError(f"For 'vmap', the keys of '{name}' {sorted(map(str, axes))} "
                                 f"differ from the keys of the value "
                                 f"{sorted(map(str, tree))}.")
            return {k: _map_tree(f, tree[k], axes[k], name) for k in tree}
        if isinstance(axes, (tuple, list)):
            raise ValueError(f"For 'vmap', the '{name}' {axes} is a {type(axes).__name__} "
                             f"but the value is a dict.")
        return {k: _map_tree(f, v, axes, name) for k, v in tree.items()}
    if isinstance(axes, (tuple, list, dict)):
        raise ValueError(f"For 'vmap', the '{name}' {axes} is a {type(axes).__name__} but the "
                         f"value is a {type(tree).__name__}.")
    return f(tree, axes)


def _check_leaf(x, axis, sizes):
    """A mapped argument's batch size; returns ``x`` (its axis normalised by the caller)."""
    if axis is None:
        return x
    if not isinstance(x, P._Tensor):
        raise ValueError(f"For 'vmap', an argument mapped over axis {axis} must be a Tensor, "
                         f"but got {type(x).__name__}; give it the in_axes entry None.")
    nd = len(x.shape)
    if not -nd <= axis < nd:
        raise ValueError(f"The axis: {axis} in 'in_axes' is out of bounds for array of "
                         f"dimension [{-nd},{nd}).")
    sizes.append(x.shape[axis])
    return x


def _outputs(out, out_axes, level):
    """The function's results with their batch axes moved to ``out_axes``."""
    if isinstance(out, list):
        out = tuple(out)            # MindSpore returns a tuple for a list of results
    if isinstance(out_axes, (tuple, list)) and not isinstance(out, (tuple, list, dict)):
        if len(out_axes) != 1:
            raise ValueError(f"The size of vmap's 'out_axes' should be equal to the number "
                             f"of results of 'fn': 1, but got size: {len(out_axes)}.")
        out_axes = out_axes[0]
    if isinstance(out, tuple) and isinstance(out_axes, (tuple, list)) \
            and len(out_axes) != len(out):
        raise ValueError(f"The size of vmap's 'out_axes' should be equal to the number of "
                         f"results of 'fn': {len(out)}, but got size: {len(out_axes)}.")
    return _map_tree(lambda o, ax: _output(o, ax, level), out, out_axes, "out_axes")


def _output(o, axis, level):
    if o is None or isinstance(o, str):
        raise TypeError(f"The outputs of vmap's 'fn' should be consisting of tensors or "
                        f"constants, but got {type(o).__name__}.")
    if not isinstance(o, P._Tensor):
        if isinstance(o, (bool, int, float, np.generic)):
            o = P._Tensor(o)
        else:
            raise TypeError(f"The outputs of vmap's 'fn' should be consisting of tensors or "
                            f"constants, but got {type(o).__name__}.")
    batched = _level_of(o, level)
    if axis is None:
        if batched:
            raise ValueError("For 'vmap', an output whose 'out_axes' entry is None must not "
                             "depend on the mapped inputs, but this one does.")
        return o
    nd = len(o.shape) + 1
    if not -nd <= axis < nd:
        raise ValueError(f"The axis: {axis} in 'out_axes' is out of bounds for array of "
                         f"dimension [{-nd},{nd}).")
    axis %= nd
    if batched:
        return move_axis(o._data.value, o._data.bdim, axis)
    shape = tuple(o.shape)
    expanded = reshape_p(o, shape=shape[:axis] + (1,) + shape[axis:])
    return broadcast_to_p(expanded, shape=shape[:axis] + (level.size,) + shape[axis:])
