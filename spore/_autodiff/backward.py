"""Reverse-mode transform over recorded records (the tape in PyNative).

The rules run through the normal dispatch point, so in PyNative they compute
eagerly, under an outer tape they are recorded again (grad of grad), and under
graph capture they become IR.
"""
from __future__ import annotations

import threading

from .._prims.math import add_p
from . import slice_sums


class MissingGradRule(NotImplementedError):
    pass


def _add(a, b):
    return add_p(a, b)


# NOTE: [Gradient-ready hooks]
# A source's cotangent is final once the backward pass has gone past the first record
# (in program order) that reads it: no later step adds to it. ``backward(..., ready=
# (ids, fn))`` calls ``fn(k, cotangent or None)`` for source ``ids[k]`` right then, so a
# data-parallel step can start all-reducing a bucket of gradients while the backward
# pass goes on computing the others (``nn.DistributedGradReducer``). ``ready_listener``
# installs, for one thread, the function ``value_and_grad`` passes on for its weights.
_tls = threading.local()


class ready_listener:
    """``with ready_listener(weights, fn):`` the gradients of the ``value_and_grad`` calls
    inside taken with respect to exactly ``weights`` (the same objects, in order) are
    reported to ``fn(k, grad)`` as each becomes final (k: the weight's position) (NOTE:
    [Gradient-ready hooks])."""

    def __init__(self, weights, fn):
        self.weights = tuple(weights)
        self.fn = fn

    def accepts(self, weights):
        mine = self.weights
        return len(weights) == len(mine) and all(a is b for a, b in zip(weights, mine))

    def __call__(self, k, grad):
        self.fn(k, grad)

    def __enter__(self):
        self.below = getattr(_tls, "listener", None)
        _tls.listener = self
        return self

    def __exit__(self, *exc):
        _tls.listener = self.below
        return False


def current_listener():
    return getattr(_tls, "listener", None)


def backward(records, seeds, ready=None):
    """Propagate cotangents backwards.

    ``seeds``: dict value id -> cotangent Tensor. Returns the dict of cotangents
    for every value id that received one (sources included). ``ready``: ``(ids, fn)``,
    see NOTE: [Gradient-ready hooks].
    """
    ct = dict(seeds)
    sums = slice_sums.SliceSums() if slice_sums.applies() else None
    if ready is not None:
        return _backward_reporting(records, ct, sums, *ready)
    for rec in reversed(records):
        _step(rec, ct, sums)
    return ct


def _backward_reporting(records, ct, sums, ids, fn):
    """``backward`` calling ``fn(k, ct[ids[k]])`` as each of ``ids`` becomes final."""
    watched = {vid: k for k, vid in enumerate(ids) if vid is not None}
    final_at = {}                       # record index -> positions final after it
    first_use = {}
    for i, rec in enumerate(records):
        for vid in rec.in_ids:
            if vid in watched and vid not in first_use:
                first_use[vid] = i
                final_at.setdefault(i, []).append(watched[vid])
    for k, vid in enumerate(ids):       # never read: final (no gradient) from the start
        if vid is None or vid not in first_use:
            fn(k, None)
    for i in range(len(records) - 1, -1, -1):
        _step(records[i], ct, sums)
        for k in final_at.get(i, ()):
            fn(k, ct.get(ids[k]))
    return ct


def _step(rec, ct, sums=None):
    """Run one record's gradient rule, adding its input cotangents into ``ct``; with
    ``sums``, slice gradients add in place (NOTE: [Slice gradients in place])."""
    pop = ct.pop
    out_ids = rec.out_ids
    if len(out_ids) == 1:
        dout = pop(out_ids[0], None)
        if dout is None:
            return
    else:
        dout = tuple([pop(i, None) for i in out_ids])
        if all(d is None for d in dout):
            return
    prim = rec.prim
    sliced = sums is not None and prim.name == "Getitem" and len(out_ids) == 1
    if sliced and rec.in_ids[0] is not None \
            and sums.add(rec.in_ids[0], rec.attrs["spec"], dout, ct):
        return
    rule = prim.grad
    if rule is None:
        raise MissingGradRule(
            f"Spore has no gradient rule for primitive '{prim.name}'; it cannot be "
            "differentiated (wrap its inputs with ops.stop_gradient if no gradient "
            "is needed through it).")
    if rec.packed:                  # NOTE: [Saved-tensor hooks]
        inputs, out = rec.unpacked()
    else:
        inputs, out = rec.inputs, rec.output
    if out is not None and len(out_ids) > 1 and type(out) is not tuple:
        out = (out,)
    in_ids = rec.in_ids
    if prim.grad_needed:
        gins = rule(rec.attrs, inputs, out, dout,
                    tuple([vid is not None for vid in in_ids]))
    else:
        gins = rule(rec.attrs, inputs, out, dout)
    if len(gins) != len(in_ids):
        raise RuntimeError(f"gradient rule of '{prim.name}' returned {len(gins)} "
                           f"cotangents for {len(in_ids)} inputs")
    for pos, (vid, g) in enumerate(zip(in_ids, gins)):
        if vid is not None and g is not None:
            prev = ct.get(vid)
            if prev is None:
                ct[vid] = g
                if sliced and pos == 0:
                    sums.take_first(vid, rec.attrs["spec"], g)
            else:
                ct[vid] = _add(prev, g)
