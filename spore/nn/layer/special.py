"""Special-function cells of MindSpore's nn: IGamma and LBeta."""
from __future__ import annotations

import math

from ... import ops
from ..._tensor import Tensor
from ..cell import Cell

__all__ = ["IGamma", "LBeta"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LARGE = 8.0      # from here on the Stirling correction is accurate to float64 round-off


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x) (``ops.igamma``)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


def _stirling_correction(x):
    """lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2) for x >= 8: 1/(12x) - 1/(360x^3)
    + 1/(1260x^5) - 1/(1680x^7)."""
    inv2 = 1.0 / (x * x)
    return (1.0 / 12 + inv2 * (-1.0 / 360 + inv2 * (1.0 / 1260 - inv2 / 1680))) / x


class LBeta(Cell):
    """log|B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y), rearranged where an argument
    is large so the lgamma terms do not cancel (MindSpore's formulation).

    Each branch is evaluated at arguments moved into its own domain, so the gradient has
    no NaN from a branch not taken.
    """

    def construct(self, x, y):
        for arg, value in (("x", x), ("y", y)):
            if not isinstance(value, Tensor):
                raise TypeError(f"For 'LBeta', the '{arg}' must be a Tensor, but got "
                                f"{type(value).__name__}.")
        if x.dtype != y.dtype:
            raise TypeError(f"For 'LBeta', the 'y' should be {x.dtype}, but got '{y.dtype}'.")
        small = ops.minimum(x, y)
        big = ops.maximum(x, y)
        both_large = small >= _LARGE
        one_large = ops.logical_and(big >= _LARGE, ops.logical_not(both_large))
        # both large: (s - 1/2) log(s / (s+b)) - b log1p(s/b) - log(b)/2 + corrections
        s1 = ops.where(both_large, small, ops.full_like(small, _LARGE))
        b1 = ops.where(both_large, big, ops.full_like(big, _LARGE))
        total1 = s1 + b1
        large = ((s1 - 0.5) * ops.log(s1 / total1) - b1 * ops.log1p(s1 / b1)
                 - 0.5 * ops.log(b1) + _HALF_LOG_2PI + _stirling_correction(s1)
                 + _stirling_correction(b1) - _stirling_correction(total1))
        # only the larger large: lgamma(s) + (b - 1/2) log1p(-s/(s+b)) - s log(s+b) + s + ...
        s2 = ops.where(one_large, small, ops.ones_like(small))
        b2 = ops.where(one_large, big, ops.full_like(big, _LARGE))
        total2 = s2 + b2
        mixed = (ops.lgamma(s2) + (b2 - 0.5) * ops.log1p(-s2 / total2) - s2 * ops.log(total2)
                 + s2 + _stirling_correction(b2) - _stirling_correction(total2))
        plain = ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)
        return ops.where(both_large, large, ops.where(one_large, mixed, plain))
