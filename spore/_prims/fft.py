"""Discrete Fourier transforms: one primitive, ``FFTN``, over ``numpy.fft``.

Attributes: ``mode`` ('c2c', 'r2c' or 'c2r'), ``inverse`` (c2c only), ``axes``, ``sizes``
(the signal length along each axis, as ``s`` of ``numpy.fft.fftn``) and ``norm``
('backward', 'forward', 'ortho'). Every public fft function (fft, ifft, rfft, irfft, their
2-D and N-D forms, hfft/ihfft) is this primitive plus conjugations.

Gradients use the complex convention of ``complexnum.py`` (NOTE: [Complex gradients]):
the transforms are linear, so a cotangent goes back through the adjoint transform, the
inverse transform with the dual normalisation, cropped or zero-padded back to the
input's lengths. r2c sends back the real part of the adjoint of the zero-extended
half spectrum; c2r's adjoint is an r2c transform whose interior bins count twice (each
stands for itself and its conjugate mirror).
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from ._base import np_dtype
from .complexnum import real_p, complex_dtype, real_dtype

Primitive = P.Primitive

DUAL_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _out_shape(attrs, shape):
    out = list(shape)
    for ax, n in zip(attrs["axes"], attrs["sizes"]):
        out[ax] = n
    if attrs["mode"] == "r2c":
        out[attrs["axes"][-1]] = attrs["sizes"][-1] // 2 + 1
    return tuple(out)


def _fft_infer(attrs, x):
    dtype = np.dtype(x.dtype)
    if attrs["mode"] == "c2r":
        out = real_dtype(complex_dtype(dtype))
    else:
        out = complex_dtype(dtype)
    return ShapedArray(_out_shape(attrs, shape_of(x)), out)


def _make_fft(xp):
    def kernel(x, mode, inverse, axes, sizes, norm):
        out_dtype = complex_dtype(x.dtype)
        if mode == "c2r":
            y = xp.fft.irfftn(x, s=sizes, axes=axes, norm=norm)
            return y.astype(real_dtype(out_dtype), copy=False)
        if mode == "r2c":
            y = xp.fft.rfftn(x, s=sizes, axes=axes, norm=norm)
        else:
            fn = xp.fft.ifftn if inverse else xp.fft.fftn
            y = fn(x, s=sizes, axes=axes, norm=norm)
        return y.astype(out_dtype, copy=False)
    return kernel


def _fft_prepare(args):
    (x,) = args
    a = P._unwrap_input(fftn_p, x)
    if a.dtype.kind in "biu" or a.dtype == np.float16:
        a = a.astype(np.float32)
    return [a]


fftn_p = Primitive("FFTN", _make_fft, kind="opaque", n_inputs=1, infer=_fft_infer,
                   prepare=_fft_prepare, doc="N-dimensional DFT (numpy.fft): c2c, r2c, c2r.")


def _resize(g, axes, lengths):
    """``g`` cropped or zero-padded (at the end) to ``lengths`` along ``axes`` (Pad takes
    negative amounts as crops)."""
    from .array import pad_p
    pads = [(0, 0)] * len(g.shape)
    for ax, n in zip(axes, lengths):
        pads[ax] = (0, n - g.shape[ax])
    if all(p == (0, 0) for p in pads):
        return g
    return pad_p(g, pads=tuple(pads), mode="constant", value=0)


@fftn_p.def_grad()
def _fft_grad(attrs, inputs, out, dout):
    from .math import mul_p
    x = inputs[0]
    axes, sizes, norm = attrs["axes"], attrs["sizes"], DUAL_NORM[attrs["norm"]]
    in_lengths = tuple(x.shape[ax] for ax in axes)
    mode = attrs["mode"]
    if mode == "c2c":
        g = fftn_p(dout, mode="c2c", inverse=not attrs["inverse"], axes=axes, sizes=sizes,
                   norm=norm)
        g = _resize(g, axes, in_lengths)
        return (g if np.dtype(x.dtype).kind == "c" else real_p(g),)
    if mode == "r2c":
        full = _resize(dout, axes[-1:], sizes[-1:])      # the zero-extended half spectrum
        g = fftn_p(full, mode="c2c", inverse=True, axes=axes, sizes=sizes, norm=norm)
        return (_resize(real_p(g), axes, in_lengths),)
    # c2r: adjoint is r2c of the real cotangent, interior bins doubled
    g = fftn_p(dout, mode="r2c", inverse=False, axes=axes, sizes=sizes, norm=norm)
    n = sizes[-1]
    half = n // 2 + 1
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * len(g.shape)
    shape[axes[-1]] = half
    g = mul_p(g, P._Tensor(weights.reshape(shape).astype(np_dtype(dout))))
    return (_resize(g, axes, in_lengths),)
