"""Eager backward passes add the gradients of a tensor's slices in place.

NOTE: [Slice gradients in place]
Unpacking a tensor (attention's ``q, k, v = qkv[0], qkv[1], qkv[2]``) gives one
``Getitem`` per slice. Each one's gradient rule builds a zero array of the whole tensor
with its slice written in (``GetitemGrad``), and the backward pass adds these up: for
W5's (3, 8, 8, 197, 32) that is three 4.8 MB zero fills and two 4.8 MB additions,
~4 ms of a step.

When the backward pass runs eagerly (no tape records it, no graph captures it: the
gradients are plain arrays nobody else holds), the first slice gradient of a tensor
still comes from the rule, but the later ones are added into that array, slice by
slice, without building their own zero arrays. The result has the bits of the
additions it replaces. An addition of a zero array changes only ``-0.0``, which
becomes ``0.0``: when the second slice gradient arrives, the first slice's values are
added to ``0.0`` in place (once), and from then on the array holds no ``-0.0`` at
all, so leaving the elements outside a slice untouched is what adding zeros to them
would give. Inside a slice, ``buffer[slice] + g`` is the very addition the full one
makes there. (The second slice must not overlap the first: where both hold -0.0 the
sum is -0.0, which the first slice's own ``+ 0.0`` would have lost; such a pair takes
the usual addition.) Only basic indices (integers, slices, ``None``, ``...``) and float32 or
float64 gradients of the array's own dtype take this path; anything else (a
gradient from another op, index tensors) ends it for that tensor: the addition is
the usual one, into a new array.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._prims.array import build_index

_BASIC = frozenset({"int", "slice", "none", "ellipsis"})
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def applies():
    """Whether the rules about to run compute eagerly with nothing recording them."""
    return P.current_handler() is None


class SliceSums:
    """The cotangents of one backward pass that are slice gradients this pass owns."""

    __slots__ = ("owned",)

    def __init__(self):
        self.owned = {}             # value id -> [Tensor, index of the raw slice or None]

    def take_first(self, vid, spec, grad):
        """Note that ``grad`` (a fresh GetitemGrad result, now ``ct[vid]``) is the first
        gradient reaching ``vid``: zeros except the slice ``spec``, holding raw values."""
        if _basic(spec) and _array(grad) is not None:
            self.owned[vid] = [grad, _index(spec)]

    def add(self, vid, spec, dout, ct):
        """Add the slice gradient ``dout`` of ``x[spec]`` into ``ct[vid]`` in place;
        False where the usual addition must run instead."""
        entry = self.owned.get(vid)
        if entry is None:
            return False
        prev = ct.get(vid)
        if prev is not entry[0] or not _basic(spec):
            del self.owned[vid]     # the cotangent is someone else's array now
            return False
        buf = _array(prev)
        g = getattr(dout, "_data", None)
        if buf is None or type(g) is not np.ndarray or g.dtype != buf.dtype:
            return False
        view = buf[_index(spec)]
        if view.shape != g.shape:
            return False
        if entry[1] is not None:    # the first slice: as if added to zeros
            first = buf[entry[1]]
            if np.may_share_memory(first, view):
                return False        # -0.0 + -0.0 is -0.0 where the two overlap
            np.add(first, first.dtype.type(0), out=first)
            entry[1] = None
        np.add(view, g, out=view)
        return True


def _basic(spec):
    return all(e[0] in _BASIC for e in spec)


def _index(spec):
    """The index of ``spec`` for a view (integers alone would give a scalar)."""
    index = build_index(spec, ())
    return index if any(e[0] == "ellipsis" for e in spec) else index + (Ellipsis,)


def _array(t):
    """The float32/float64 array behind a concrete Tensor (owning its memory), or
    None."""
    data = getattr(t, "_data", None)
    if type(data) is np.ndarray and data.dtype in _FLOATS and data.flags.writeable \
            and data.base is None:
        return data
    return None
