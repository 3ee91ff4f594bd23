"""Reverse-mode transform over recorded records (the tape in PyNative).

The rules run through the normal dispatch point, so in PyNative they compute
eagerly, under an outer tape they are recorded again (grad of grad), and under
graph capture they become IR.
"""
from __future__ import annotations

from .._prims.math import add_p


class MissingGradRule(NotImplementedError):
    pass


def _add(a, b):
    return add_p(a, b)


def backward(records, seeds):
    """Propagate cotangents backwards.

    ``seeds``: dict value id -> cotangent Tensor. Returns the dict of cotangents
    for every value id that received one (sources included).
    """
    ct = dict(seeds)
    pop = ct.pop
    for rec in reversed(records):
        out_ids = rec.out_ids
        if len(out_ids) == 1:
            dout = pop(out_ids[0], None)
            if dout is None:
                continue
        else:
            dout = tuple([pop(i, None) for i in out_ids])
            if all(d is None for d in dout):
                continue
        prim = rec.prim
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
        for vid, g in zip(in_ids, gins):
            if vid is not None and g is not None:
                prev = ct.get(vid)
                ct[vid] = g if prev is None else _add(prev, g)
    return ct
