"""Primitive classes of the special-function, linear-algebra and random ops of
``mindspore.ops`` (``ops.BesselJ0()(x)``, ``ops.Igamma()(a, x)``, ``ops.LuSolve()``,
``ops.Gamma(seed)``...): each stores MindSpore's attributes and forwards to the
functional op."""
from __future__ import annotations

from . import Primitive, _forward, _ops

__all__ = []


def _simple(**mapping):
    for cls, op in mapping.items():
        globals()[cls] = _forward(cls, op)
        __all__.append(cls)


def _export(cls):
    __all__.append(cls.__name__)
    return cls


_simple(BesselJ0="bessel_j0", BesselJ1="bessel_j1", BesselY0="bessel_y0", BesselY1="bessel_y1",
        BesselK0="bessel_k0", BesselK0e="bessel_k0e", BesselK1="bessel_k1",
        BesselK1e="bessel_k1e", Igamma="igamma", Igammac="igammac")


@_export
class Zeta(Primitive):
    """``ops.zeta(x, q)`` over two tensors of one shape (MindSpore's class does not
    broadcast)."""

    def __call__(self, x, q):
        if tuple(x.shape) != tuple(q.shape):
            raise ValueError(f"For 'Zeta', the shapes of 'x' and 'q' must be equal, but got "
                             f"{list(x.shape)} and {list(q.shape)}.")
        return _ops().zeta(x, q)


@_export
class Betainc(Primitive):
    """The regularized incomplete beta function I_x(a, b) of three same-shape tensors."""

    def __call__(self, a, b, x):
        from .._special_more import betainc
        for arg, value in (("b", b), ("x", x)):
            if tuple(getattr(value, "shape", ())) != tuple(getattr(a, "shape", ())):
                raise ValueError(f"For 'Betainc', shape of {arg} "
                                 f"({', '.join(map(str, value.shape))}) are not consistent "
                                 f"with the shape a ({', '.join(map(str, a.shape))}).")
        return betainc(a, b, x)
