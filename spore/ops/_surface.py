"""Functional ops whose PyTorch-style twins live in ``spore.mint`` (glu, prelu, diff,
searchsorted, histc, bucketize): ``ops`` keeps MindSpore's argument names and forwards."""
from __future__ import annotations

from .._tensor import Tensor as Tensor  # noqa: F401  (mindspore.ops.Tensor)

__all__ = ["Tensor", "glu", "prelu", "diff", "searchsorted", "histc", "bucketize"]


def _mint():
    from .. import mint           # mint imports ops: resolved at call time
    return mint


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times the sigmoid of the second."""
    return _mint().nn.functional.glu(x, axis)


def prelu(input, weight):
    """``input`` where positive, ``weight * input`` elsewhere (one weight per channel)."""
    return _mint().nn.functional.prelu(input, weight)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``axis``."""
    return _mint().diff(x, n, axis, prepend, append)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Insertion points of ``values`` in the innermost dimension of ``sorted_sequence``."""
    return _mint().searchsorted(sorted_sequence, values, out_int32=out_int32, right=right,
                                side=side, sorter=sorter)


def histc(input, bins=100, min=0.0, max=0.0):
    """Histogram of ``bins`` equal bins over [min, max] (the data's range when both are 0)."""
    return _mint().histc(input, bins, min, max)


def bucketize(input, boundaries, *, right=False):
    """Index (Int32) of the bucket of each value among the increasing ``boundaries``."""
    if not isinstance(boundaries, (list, tuple)):
        raise TypeError(f"For 'bucketize', 'boundaries' must be a list of numbers, but got "
                        f"{type(boundaries).__name__}.")
    edges = Tensor(list(boundaries), dtype=input.dtype)
    return _mint().searchsorted(edges, input, right=right, out_int32=True)
