"""Batching rules: how a primitive runs once over a whole batch under ``vmap``.

See NOTE: [Batching] in ``spore/_autodiff/vmap.py``. A rule is
``rule(size, attrs, values, dims) -> (out, out_dims)``: ``values`` are the inputs,
the batched ones whole, ``dims`` the axis of each that runs over the examples
(None for an input shared by every example). It computes with primitives (so an
outer tape, graph capture or vmap sees its work) and returns the output and its
batch axis (a tuple of axes for a primitive with several results), or None to hand
the call to the loop fallback. Rules live here, in one registry, rather than
beside each primitive so that the kernel files stay as their owners wrote them.
"""
from __future__ import annotations

from .._core import primitive as P
from . import array as _array, linalg as _linalg, math as _math, reduce as _reduce  # noqa: F401
from . import special as _special, nn as _nn  # noqa: F401
from .array import (broadcast_to_p, concat_p, full_p, index_shape, reshape_p, split_p,
                    transpose_p)
from .math import div_p
from .reduce import sum_p

_get = P.get


# --------------------------------------------------------------------------- helpers
def move_to_front(value, bdim):
    """``value`` with its batch axis first."""
    return move_axis(value, bdim, 0)


def move_axis(value, src, dst):
    """``value`` with axis ``src`` moved to position ``dst`` (one Transpose, or none)."""
    if src == dst:
        return value
    order = [i for i in range(len(value.shape)) if i != src]
    order.insert(dst, src)
    return transpose_p(value, perm=tuple(order))


def unstack(value, bdim, size):
    """The examples of ``value`` along ``bdim``, each without that axis."""
    shape = tuple(value.shape)
    rest = shape[:bdim] + shape[bdim + 1:]
    parts = split_p(value, sizes=(1,) * size, axis=bdim)
    return [reshape_p(p, shape=rest) for p in parts]


def stack(tensors):
    """Same-shape tensors stacked along a new leading axis."""
    rows = [reshape_p(t, shape=(1,) + tuple(t.shape)) for t in tensors]
    return rows[0] if len(rows) == 1 else concat_p(*rows, axis=0)


def _pad_to(value, bdim, rank):
    """A batched ``value`` with its batch axis first and unit axes after it up to
    ``rank`` example axes (so it broadcasts against a batch-first value of that rank)."""
    v = move_to_front(value, bdim)
    shape = tuple(v.shape)
    if len(shape) - 1 < rank:
        v = reshape_p(v, shape=shape[:1] + (1,) * (rank + 1 - len(shape)) + shape[1:])
    return v


def _example_rank(value, bdim):
    return len(value.shape) - (bdim is not None)


def _only_first_batched(dims):
    return dims[0] is not None and all(d is None for d in dims[1:])


def _rule(*names):
    """Register one rule for the primitives ``names``."""
    def deco(rule):
        for name in names:
            _get(name).def_batch(rule)
        return rule
    return deco


# --------------------------------------------------------------------------- elementwise
def elementwise(size, attrs, values, dims, prim):
    """Broadcasting ops: batch axes to the front, each batched input padded with unit
    axes to the rank of the widest example, so NumPy's right-aligned broadcasting lines
    the examples up; shared inputs broadcast over the batch as they are."""
    rank = max((_example_rank(v, d) for v, d in zip(values, dims)
                if hasattr(v, "shape")), default=0)
    args = [_pad_to(v, d, rank) if d is not None else v for v, d in zip(values, dims)]
    return prim(*args, **attrs), 0


def _elementwise_rule(prim):
    return lambda size, attrs, values, dims: elementwise(size, attrs, values, dims, prim)


def _register_elementwise():
    for prim in list(P.REGISTRY.values()):
        if prim.kind == "elementwise" and prim.batch is None and prim.effect is None:
            prim.def_batch(_elementwise_rule(prim))


def rule_for(prim):
    """``prim``'s batching rule; elementwise primitives defined after this module (a
    user's) get the broadcasting rule too. None: the loop fallback."""
    if prim.batch is None and prim.kind == "elementwise" and prim.effect is None:
        prim.def_batch(_elementwise_rule(prim))
    return prim.batch


# --------------------------------------------------------------------------- reductions
def _shift_axes(axis, rank):
    """Example axes (None: all) as axes of the batch-first value."""
    if axis is None:
        return tuple(range(1, rank + 1))
    if isinstance(axis, int):
        return axis % rank + 1
    return tuple(a % rank + 1 for a in axis)


def _reduction(name):
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        (x,), (d,) = values, dims
        rank = len(x.shape) - 1
        if rank == 0:
            return None
        new = dict(attrs)
        new["axis"] = _shift_axes(attrs.get("axis"), rank)
        return prim(move_to_front(x, d), **new), 0


for _name in ("ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin",
              "ReduceAll", "ReduceAny"):
    _reduction(_name)


def _arg_reduction(name):
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        (x,), (d,) = values, dims
        rank = len(x.shape) - 1
        if rank == 0 or attrs.get("axis") is None:
            return None      # a flat index over each example: left to the loop
        new = dict(attrs)
        new["axis"] = attrs["axis"] % rank + 1
        return prim(move_to_front(x, d), **new), 0


_arg_reduction("Argmax")
_arg_reduction("Argmin")


# --------------------------------------------------------------------------- shapes
def _passthrough(name):
    """The output is the first input, in its layout (``Depend``'s other inputs only order
    the work): the batch axis stays where it is."""
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        return prim(*values, **attrs), dims[0]


_passthrough("Depend")
_passthrough("Contiguous")


@_rule("Reshape")
def _reshape_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    return reshape_p(move_to_front(x, d), shape=(size,) + tuple(attrs["shape"])), 0


@_rule("Transpose")
def _transpose_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    perm = (0,) + tuple(p % (len(x.shape) - 1) + 1 for p in attrs["perm"])
    return transpose_p(move_to_front(x, d), perm=perm), 0


@_rule("BroadcastTo")
def _broadcast_to_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    shape = tuple(attrs["shape"])
    if any(s < 0 for s in shape):
        return None
    x = move_to_front(x, d)
    xs = tuple(x.shape)
    x = reshape_p(x, shape=xs[:1] + (1,) * (len(shape) + 1 - len(xs)) + xs[1:])
    return broadcast_to_p(x, shape=(size,) + shape), 0


@_rule("Getitem")
def _getitem_rule(size, attrs, values, dims):
    spec = attrs["spec"]
    if not _only_first_batched(dims) or any(e[0] in ("tensor", "const") for e in spec):
        return None
    x = move_to_front(values[0], dims[0])
    new = dict(attrs)
    new["spec"] = (("slice", None, None, None),) + tuple(spec)
    return _get("Getitem")(x, *values[1:], **new), 0


@_rule("Concat")
def _concat_rule(size, attrs, values, dims):
    """Shared pieces are broadcast over the batch; the axis shifts past the batch axis."""
    rank = next(len(v.shape) - 1 for v, d in zip(values, dims) if d is not None)
    args = []
    for v, d in zip(values, dims):
        if d is None:
            shape = tuple(v.shape)
            v = broadcast_to_p(reshape_p(v, shape=(1,) + shape), shape=(size,) + shape)
        else:
            v = move_to_front(v, d)
        args.append(v)
    return concat_p(*args, axis=attrs["axis"] % rank + 1), 0


@_rule("Split")
def _split_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    rank = len(x.shape) - 1
    out = split_p(move_to_front(x, d), sizes=attrs["sizes"], axis=attrs["axis"] % rank + 1)
    return out, (0,) * len(out)


# --------------------------------------------------------------------------- linear algebra
@_rule("MatMul")
def _matmul_rule(size, attrs, values, dims):
    """Batch axes first, padded to a common rank so the examples line up as matrix
    batches; a vector operand becomes a one-row (left) or one-column (right) matrix and
    that axis is dropped from the product, as NumPy's 1-D matmul does."""
    (x, y), (dx, dy) = values, dims
    rx, ry = _example_rank(x, dx), _example_rank(y, dy)
    if min(rx, ry) == 0 or (min(rx, ry) == 1 and (attrs.get("transpose_a")
                                                  or attrs.get("transpose_b"))):
        return None          # invalid for MatMul: the loop raises its error per example
    if rx == 1:
        x, dx = _with_unit_axis(x, dx, -2), (0 if dx is not None else None)
    if ry == 1:
        y, dy = _with_unit_axis(y, dy, len(y.shape)), (0 if dy is not None else None)
    width = max(rx, ry, 2)
    args = [_pad_to(v, d, width) if d is not None else v for v, d in ((x, dx), (y, dy))]
    out = _get("MatMul")(*args, **attrs)
    if rx == 1 or ry == 1:
        shape = tuple(out.shape)
        keep = shape[:-2] + ((shape[-2],) if rx != 1 else ()) + ((shape[-1],) if ry != 1 else ())
        out = reshape_p(out, shape=keep)
    return out, 0


def _with_unit_axis(v, d, at):
    """A vector operand (batch axis first when it has one) with a unit axis inserted at
    ``at`` (-2: before the last, a row; the rank: after it, a column)."""
    if d is not None:
        v = move_to_front(v, d)
    shape = list(v.shape)
    shape.insert(at if at >= 0 else len(shape) + 1 + at, 1)
    return reshape_p(v, shape=tuple(shape))


@_rule("Dense")
def _dense_rule(size, attrs, values, dims):
    if not _only_first_batched(dims):
        return None
    return _get("Dense")(move_to_front(values[0], dims[0]), *values[1:], **attrs), 0


# --------------------------------------------------------------------------- writes
# An in-place write runs batched only into a batched tensor whose batch axis is first
# (its examples are then the rows the write reaches); writing per-example values into
# a shared tensor has no meaning and is refused, as MindSpore refuses side effects.
@_rule("Assign")
def _assign_rule(size, attrs, values, dims):
    (x, v), (dx, dv) = values, dims
    if dx != 0:
        return None
    if dv is not None:
        v = _pad_to(v, dv, len(x.shape) - 1)
    return _get("Assign")(x, v, **attrs), 0


@_rule("SetitemInplace")
def _setitem_rule(size, attrs, values, dims):
    x, v, *idx = values
    spec = attrs["spec"]
    if dims[0] != 0 or any(d is not None for d in dims[2:]) \
            or any(e[0] in ("tensor", "const") for e in spec):
        return None
    if dims[1] is not None:
        v = _pad_to(v, dims[1], len(index_shape(tuple(x.shape)[1:], spec, ())))
    new = dict(attrs)
    new["spec"] = (("slice", None, None, None),) + tuple(spec)
    return _get("SetitemInplace")(x, v, *idx, **new), 0


# --------------------------------------------------------------------------- axes, matrices
def _along_axis(name, key="axis"):
    """Ops along one example axis (attribute ``key``): every input batched, batch axes
    first, the axis shifted past the batch axis."""
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        ranks = {_example_rank(v, d) for v, d in zip(values, dims)}
        if len(ranks) != 1 or ranks == {0} or any(d is None for d in dims):
            return None
        new = dict(attrs)
        new[key] = attrs[key] % ranks.pop() + 1
        out = prim(*[move_to_front(v, d) for v, d in zip(values, dims)], **new)
        return out, ((0,) * len(out) if type(out) is tuple else 0)


for _name in ("Softmax", "LogSoftmax", "SoftmaxGrad", "LogSoftmaxGrad", "CumSum", "CumProd",
              "LogCumSumExp", "Cummax", "Cummin", "Sort", "TopK", "GatherD"):
    _along_axis(_name)


def _matrix(name):
    """Matrix functions act on the last two axes: the batch is one more leading axis."""
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        (x,), (d,) = values, dims
        out = prim(move_to_front(x, d), **attrs)
        return out, ((0,) * len(out) if type(out) is tuple else 0)


for _name in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "SingularValues",
              "Svd"):
    _matrix(_name)


@_rule("Roll")
def _roll_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    rank = len(x.shape) - 1
    if attrs["axes"] is None or rank == 0:
        return None          # a roll of the flattened example: left to the loop
    new = dict(attrs)
    new["axes"] = tuple(a % rank + 1 for a in attrs["axes"])
    return _get("Roll")(move_to_front(x, d), **new), 0


@_rule("Pad")
def _pad_rule(size, attrs, values, dims):
    (x,), (d,) = values, dims
    new = dict(attrs)
    new["pads"] = ((0, 0),) + tuple(tuple(p) for p in attrs["pads"])
    return _get("Pad")(move_to_front(x, d), **new), 0


@_rule("Einsum")
def _einsum_rule(size, attrs, values, dims):
    """One more subscript letter for the batch, first in every batched operand and in
    the result."""
    eq = attrs["equation"].replace(" ", "")
    if "->" not in eq:
        return None
    lhs, rhs = eq.split("->")
    used = set(eq)
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in used)
    terms = lhs.split(",")
    if len(terms) != len(values):
        return None
    terms = [letter + t if d is not None else t for t, d in zip(terms, dims)]
    args = [move_to_front(v, d) if d is not None else v for v, d in zip(values, dims)]
    return _get("Einsum")(*args, equation=",".join(terms) + "->" + letter + rhs), 0


# --------------------------------------------------------------------------- nn
def _fold(name, batched=(0,)):
    """Ops that treat the leading axis as independent samples (convolution, pooling and
    their input gradients): the batch is folded into that axis of the inputs at
    ``batched`` (the others must be shared), run once and unfolded. An ``input_shape``
    attribute (a gradient's result shape) is folded alike."""
    prim = _get(name)

    @prim.def_batch
    def rule(size, attrs, values, dims):
        if any((d is None) == (i in batched) for i, d in enumerate(dims)):
            return None
        args = list(values)
        for i in batched:
            x = move_to_front(values[i], dims[i])
            shape = tuple(x.shape)
            if len(shape) < 3:
                return None
            n = shape[1]                  # the samples of one example
            args[i] = reshape_p(x, shape=(size * n,) + shape[2:])
        new = dict(attrs)
        if "input_shape" in attrs:
            new["input_shape"] = (size * n,) + tuple(attrs["input_shape"])[1:]
        out = prim(*args, **new)
        outs = out if type(out) is tuple else (out,)
        unfolded = tuple(reshape_p(o, shape=(size, n) + tuple(o.shape)[1:]) for o in outs)
        if type(out) is tuple:
            return unfolded, (0,) * len(unfolded)
        return unfolded[0], 0


for _name in ("Conv2D", "MaxPool2D", "AvgPool2D", "Conv2DBackpropInput", "AvgPool2DGrad"):
    _fold(_name)
_fold("MaxPoolScatter", batched=(0, 1))
_fold("MaxPoolSelect", batched=(0, 1))


@_rule("NLLLoss")
def _nll_loss_rule(size, attrs, values, dims):
    """The examples' samples in one call with reduction "none", then each example's own
    reduction: its sum, or its sum over its own total weight (the weights of its targets,
    read off a second call on a constant -1 input, so no gradient flows through them)."""
    (logp, target, *weight), (dl, dt, *dw) = values, dims
    if dl is None or any(d is not None for d in dw):
        return None
    logp = move_to_front(logp, dl)
    shape = tuple(logp.shape)
    if len(shape) < 3:
        return None              # one sample per example: left to the loop
    n = shape[1]
    if dt is None:
        target = broadcast_to_p(reshape_p(target, shape=(1,) + tuple(target.shape)),
                                shape=(size,) + tuple(target.shape))
    else:
        target = move_to_front(target, dt)
    flat_target = reshape_p(target, shape=(size * n,) + tuple(target.shape)[2:])
    flat = (size * n,) + shape[2:]
    none = dict(attrs, reduction="none")
    prim = _get("NLLLoss")
    losses, _ = prim(reshape_p(logp, shape=flat), flat_target, *weight, **none)
    ones, _ = prim(full_p(shape=flat, dtype=logp._data.dtype, value=-1), flat_target,
                   *weight, **none)
    per = (size, n) + tuple(losses.shape)[1:]
    losses, picked = reshape_p(losses, shape=per), reshape_p(ones, shape=per)
    axes = tuple(range(1, len(per)))
    total = sum_p(picked, axis=axes, keepdims=False)
    if attrs["reduction"] == "none":
        return (losses, total), (0, 0)
    loss = sum_p(losses, axis=axes, keepdims=False)
    if attrs["reduction"] == "mean":
        loss = div_p(loss, total)
    return (loss, total), (0, 0)


@_rule("LayerNorm")
def _layer_norm_rule(size, attrs, values, dims):
    """Normalises the trailing axes from ``axis`` on: a leading batch axis is one more
    row axis (the affine parameters stay shared; their gradient rule is not batched)."""
    if not _only_first_batched(dims):
        return None
    x = move_to_front(values[0], dims[0])
    new = dict(attrs)
    new["axis"] = attrs["axis"] % (len(x.shape) - 1) + 1
    out = _get("LayerNorm")(x, *values[1:], **new)
    return out, (0,) * len(out)

_register_elementwise()
