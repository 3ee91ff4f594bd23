"""Bessel's correction of a batch variance, with the sample count as an attribute.

``var * n / (n - 1)`` for the running variance of batch norm. As a Python float the
factor would be a literal of the captured graph that no dynamic batch size generalises
(it is not affine in the size: NOTE: [Dynamic axes] in spore/_jit/dynamic.py); as the
integer attribute ``count`` it is, and the kernel rounds the factor once to the
variance's dtype, which is what multiplying by the float did.
"""
from __future__ import annotations

from ..._core import primitive as P
from ..._core.aval import ShapedArray


def _make_bessel(xp):
    def bessel(var, count):
        return var * var.dtype.type(count / max(count - 1, 1))
    return bessel


def _bessel_infer(attrs, var):
    return ShapedArray(var.shape, var.dtype)


bessel_correction_p = P.Primitive(
    "BesselCorrection", _make_bessel, kind="opaque", n_inputs=1, nondiff=True,
    infer=_bessel_infer,
    doc="BesselCorrection(var; count): var * count / (count - 1), the factor rounded "
        "once to var's dtype (count 1: var).")
