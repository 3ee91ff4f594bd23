"""Complex numbers: Complex (from real and imaginary parts), Real, Imag, Conj.

Gradient convention (NOTE: [Complex gradients]): for a real loss L of a complex value
z = x + iy the cotangent carried is dL/dx + i dL/dy (PyTorch's and MindSpore's
convention), so Real's rule sends a real cotangent g back as g + 0i, Imag's as 0 + gi,
Conj's conjugates, and Complex splits a cotangent into its parts.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from .._core.primitive import PrimitiveTypeError
from ._base import broadcast_shapes

Primitive = P.Primitive

_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def real_dtype(dtype):
    dtype = np.dtype(dtype)
    return _REAL_OF.get(dtype, dtype)


def complex_dtype(dtype):
    """The complex dtype holding values of ``dtype`` (Float64 -> Complex128, else 64)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF.get(dtype, np.dtype(np.complex64))


def _part_infer(attrs, x):
    return ShapedArray(shape_of(x), real_dtype(x.dtype))


def _make_part(fn):
    def make(xp):
        def kernel(x):
            return xp.ascontiguousarray(getattr(xp, fn)(x)).copy() if x.dtype.kind == "c" \
                else (x.copy() if fn == "real" else xp.zeros_like(x))
        return kernel
    return make


real_p = Primitive("Real", _make_part("real"), kind="opaque", n_inputs=1, infer=_part_infer,
                   doc="The real part (a real input unchanged).")
imag_p = Primitive("Imag", _make_part("imag"), kind="opaque", n_inputs=1, infer=_part_infer,
                   doc="The imaginary part (zeros for a real input).")


def _conj_infer(attrs, x):
    return ShapedArray(shape_of(x), np.dtype(x.dtype))


conj_p = Primitive("Conj", lambda xp: lambda x: xp.conj(x), kind="opaque", n_inputs=1,
                   infer=_conj_infer, doc="The complex conjugate (a real input unchanged).")


def _complex_infer(attrs, re, im):
    for arg, v in (("real", re), ("imag", im)):
        if np.dtype(v.dtype) not in _COMPLEX_OF:
            raise PrimitiveTypeError(f"For 'Complex', the input '{arg}' must be Float32 or "
                                     f"Float64, but got {np.dtype(v.dtype)}.")
    if np.dtype(re.dtype) != np.dtype(im.dtype):
        raise PrimitiveTypeError(f"For 'Complex', 'real' and 'imag' must have one dtype, but "
                                 f"got {np.dtype(re.dtype)} and {np.dtype(im.dtype)}.")
    shape = broadcast_shapes("Complex", shape_of(re), shape_of(im))
    return ShapedArray(shape, _COMPLEX_OF[np.dtype(re.dtype)])


def _make_complex(xp):
    def kernel(re, im):
        out = xp.empty(xp.broadcast_shapes(re.shape, im.shape), _COMPLEX_OF[re.dtype])
        out.real = re
        out.imag = im
        return out
    return kernel


complex_p = Primitive("Complex", _make_complex, kind="opaque", n_inputs=2,
                      infer=_complex_infer, doc="real + i * imag.")


def _to_complex_like(g, x):
    """A real cotangent ``g`` as the complex dtype of input ``x``."""
    from .array import cast_p
    return cast_p(g, dtype=np.dtype(x.dtype)) if np.dtype(x.dtype).kind == "c" else g


@real_p.def_grad()
def _real_grad(attrs, inputs, out, dout):
    return (_to_complex_like(dout, inputs[0]),)


@imag_p.def_grad()
def _imag_grad(attrs, inputs, out, dout):
    from .math import mul_p
    x = inputs[0]
    if np.dtype(x.dtype).kind != "c":
        return (mul_p(dout, 0),)
    return (mul_p(_to_complex_like(dout, x), 1j),)


@conj_p.def_grad()
def _conj_grad(attrs, inputs, out, dout):
    return (conj_p(dout),)


@complex_p.def_grad()
def _complex_grad(attrs, inputs, out, dout):
    from ._base import grad_for
    re, im = inputs
    return grad_for(re, real_p(dout)), grad_for(im, imag_p(dout))
