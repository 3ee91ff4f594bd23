"""Reverse-mode transform over recorded records (the tape in PyNative).

The rules run through the normal dispatch point, so in PyNative they compute
eagerly, under an outer tape they are recorded again (grad of grad), and under
graph capture they become IR.
"""
from __future__ import annotations

from .._prims.math import add_p


class MissingGradRule(NotImplementedError):
    pass


def _accumulate(ct, vid, g):
    prev = ct.get(vid)
    ct[vid] = g if prev is None else _add(prev, g)


def _add(a, b):
    return add_p(a, b)


def backward(records, seeds):
    """Propagate cotangents backwards.

    ``seeds``: dict value id -> cotangent Tensor. Returns the dict of cotangents
    for every value id that received one (sources included).
    """
    ct = dict(seeds)
    for rec in reversed(records):
        out_ids = rec.out_ids
        if len(out_ids) == 1:
            g = ct.pop(out_ids[0], None)
            if g is None:
                continue
            dout = g
        else:
            douts = tuple(ct.pop(i, None) for i in out_ids)
            if all(d is None for d in douts):
                continue
            dout = douts
        prim = rec.prim
        rule = prim.grad
        if rule is None:
            raise MissingGradRule(
                f"Spore has no gradient rule for primitive '{prim.name}'; it cannot be "
                "differentiated (wrap its inputs with ops.stop_gradient if no gradient "
                "is needed through it).")
        out = rec.output
        if out is not None and len(out_ids) > 1 and type(out) is not tuple:
            out = (out,)
        if prim.grad_needed:
            needed = tuple(vid is not None for vid in rec.in_ids)
            gins = rule(rec.attrs, rec.inputs, out, dout, needed)
        else:
            gins = rule(rec.attrs, rec.inputs, out, dout)
        if len(gins) != len(rec.in_ids):
            raise RuntimeError(f"gradient rule of '{prim.name}' returned {len(gins)} "
                               f"cotangents for {len(rec.in_ids)} inputs")
        for vid, g in zip(rec.in_ids, gins):
            if vid is not None and g is not None:
                _accumulate(ct, vid, g)
    return ct
