"""Bessel J/Y/K, incomplete gamma and Hurwitz zeta ops (``mindspore.ops`` math family):
thin adapters over the primitives of ``spore/_prims/special2.py``."""
from __future__ import annotations

import numbers

from .._prims import special2 as S2
from .._tensor import Tensor as _Tensor
from ._utils import public_functions


def _tensor(prim, arg, value):
    if not isinstance(value, _Tensor):
        raise TypeError(f"For Primitive[{prim}], the type of input argument[{arg}] must be "
                        f"Tensor but got {type(value).__name__}.")
    return value


def _bessel(fname, prim_name, prim, doc):
    """The adapter ``fname(x)`` of a Bessel primitive: a Tensor check, then the primitive."""
    def fn(x):
        return prim(_tensor(prim_name, "x", x))
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = doc
    return fn


bessel_j0 = _bessel("bessel_j0", "BesselJ0", S2.bessel_j0_p,
                    "The Bessel function of the first kind of order 0 (Float16/32/64).")
bessel_j1 = _bessel("bessel_j1", "BesselJ1", S2.bessel_j1_p,
                    "The Bessel function of the first kind of order 1 (Float16/32/64).")
bessel_y0 = _bessel("bessel_y0", "BesselY0", S2.bessel_y0_p,
                    "The Bessel function of the second kind of order 0: -inf at x <= 0, as "
                    "MindSpore.")
bessel_y1 = _bessel("bessel_y1", "BesselY1", S2.bessel_y1_p,
                    "The Bessel function of the second kind of order 1: -inf at x < 0, NaN "
                    "at 0.")
bessel_k0 = _bessel("bessel_k0", "BesselK0", S2.bessel_k0_p,
                    "The modified Bessel function of the second kind of order 0 (inf at "
                    "x <= 0).")
bessel_k0e = _bessel("bessel_k0e", "BesselK0e", S2.bessel_k0e_p,
                     "``K0(x) * exp(x)``, which keeps its precision where K0 underflows.")
bessel_k1 = _bessel("bessel_k1", "BesselK1", S2.bessel_k1_p,
                    "The modified Bessel function of the second kind of order 1 (inf at "
                    "x <= 0).")
bessel_k1e = _bessel("bessel_k1e", "BesselK1e", S2.bessel_k1e_p, "``K1(x) * exp(x)``.")


def _gamma_args(prim, input, other):
    if not isinstance(input, _Tensor) or not isinstance(other, _Tensor):
        raise TypeError(f"The primitive[{prim}]'s input arguments[a, x] must be all tensor and "
                        f"those type must be same, but got {type(input).__name__} and "
                        f"{type(other).__name__}.")
    return input, other


def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other) (Float32/64, one
    dtype for both; broadcast). NaN off a > 0, x >= 0, with MindSpore's edge values."""
    return S2.igamma_p(*_gamma_args("Igamma", input, other))


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P."""
    return S2.igammac_p(*_gamma_args("Igammac", input, other))


def zeta(input, other):
    """The Hurwitz zeta function sum_k (other + k)^-input; a Python number takes the
    other argument's dtype (at least one must be a Tensor)."""
    if isinstance(input, numbers.Real) and isinstance(other, _Tensor):
        input = _Tensor(float(input), other.dtype)
    elif isinstance(other, numbers.Real) and isinstance(input, _Tensor):
        other = _Tensor(float(other), input.dtype)
    if not isinstance(input, _Tensor) or not isinstance(other, _Tensor):
        raise TypeError(f"For 'zeta', at least one of 'input' and 'other' must be a Tensor, "
                        f"the other a Tensor or a number, but got {type(input).__name__} and "
                        f"{type(other).__name__}.")
    return S2.zeta_p(input, other)


def betainc(input_a, input_b, input_x):
    """The regularized incomplete beta function I_x(a, b) (``ops.Betainc``): one float
    dtype for the three, NaN where x is outside [0, 1] or a, b <= 0."""
    for arg, value in (("a", input_a), ("b", input_b), ("x", input_x)):
        _tensor("Betainc", arg, value)
    return S2.betainc_p(input_a, input_b, input_x)


__all__ = public_functions(globals(), __name__)   # betainc too: nn.probability uses it
