"""``mindspore.ops``' Fourier transforms (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D
and N-D forms, fftshift, fftfreq) and complex-number functions (real, imag, conj, angle,
polar, view_as_real).

The transforms are the ``FFTN`` primitive (``spore/_prims/fft.py``) with PyTorch's argument
conventions, which MindSpore's follow: ``n``/``s`` crop or zero-pad the input along
``dim``; ``norm`` None means "backward". Real and integer inputs give Complex64 (Float64
gives Complex128).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims import complexnum as C
from .._prims.fft import fftn_p
from ._extra import _tensor as require_tensor, int_sequence, real_number
from ._utils import normalize_dim, static_int, public_functions

_Tensor = P._Tensor
_NORMS = ("backward", "forward", "ortho")


def _ops():
    from .. import ops
    return ops


def _input(name, x):
    return require_tensor(name, "input", x)


def _norm(name, norm):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"For '{name}', the 'norm' must be one of {list(_NORMS)} or None, but "
                         f"got {norm!r}.")
    return norm


def _axes(name, x, s, dim, default_all):
    """``(axes, sizes)`` of an N-D transform: PyTorch's rules for ``s`` and ``dim``."""
    if s is not None:
        s = int_sequence(name, "s", s)
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = static_int(name, "dim", dim)
    if dim is None:
        if s is None:
            axes = tuple(range(x.ndim)) if default_all else (x.ndim - 2, x.ndim - 1)
        else:
            axes = tuple(range(x.ndim - len(s), x.ndim))
    else:
        dims = (dim,) if isinstance(dim, int) else int_sequence(name, "dim", dim)
        axes = tuple(normalize_dim(name, d, x.ndim, "dim") for d in dims)
        if len(set(axes)) != len(axes):
            raise ValueError(f"For '{name}', the 'dim' must not repeat an axis, but got {dim}.")
    if s is None:
        sizes = None
    else:
        sizes = tuple(static_int(name, "s", n) for n in s)
        if len(sizes) != len(axes):
            raise ValueError(f"For '{name}', the 's' and 'dim' must have one length, but got "
                             f"{len(sizes)} and {len(axes)}.")
        if any(n < 1 for n in sizes):
            raise ValueError(f"For '{name}', every size in 's' must be positive, but got {s}.")
    if not axes:
        raise ValueError(f"For '{name}', the input must have at least one dimension.")
    return axes, sizes


def _transform(name, input, s, dim, norm, mode, inverse=False, default_all=True):
    x = _input(name, input)
    axes, sizes = _axes(name, x, s, dim, default_all)
    if sizes is None:
        if mode == "c2r":
            sizes = tuple(x.shape[a] for a in axes[:-1]) + (2 * (x.shape[axes[-1]] - 1),)
        else:
            sizes = tuple(x.shape[a] for a in axes)
    if mode == "c2r" and sizes[-1] < 1:
        raise ValueError(f"For '{name}', the output length along the last axis must be "
                         f"positive, but got {sizes[-1]}.")
    if mode == "r2c" and x.dtype.is_complex:
        raise TypeError(f"For '{name}', the 'input' must be real, but got {x.dtype}.")
    if mode == "c2r" and not x.dtype.is_complex:
        x = x.astype(D.complex128 if x.dtype == D.float64 else D.complex64)
    return fftn_p(x, mode=mode, inverse=inverse, axes=axes, sizes=sizes, norm=_norm(name, norm))


def _one_dim(n, dim):
    return (None if n is None else (n,)), dim


# ------------------------------------------------------------------- 1-D
def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along ``dim`` (``n`` points)."""
    s, d = _one_dim(n, dim)
    return _transform("fft", input, s, d, norm, "c2c")


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of ``fft``."""
    s, d = _one_dim(n, dim)
    return _transform("ifft", input, s, d, norm, "c2c", inverse=True)


def rfft(input, n=None, dim=-1, norm=None):
    """The DFT of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    s, d = _one_dim(n, dim)
    return _transform("rfft", input, s, d, norm, "r2c")


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)``)."""
    s, d = _one_dim(n, dim)
    return _transform("irfft", input, s, d, norm, "c2r")


def hfft(input, n=None, dim=-1, norm=None):
    """The DFT of a Hermitian-symmetric signal given by its first half: a real spectrum."""
    s, d = _one_dim(n, dim)
    x = _input("hfft", input)
    return _transform("hfft", _ops().conj(x) if x.dtype.is_complex else x, s, d,
                      C_DUAL[_norm("hfft", norm)], "c2r")


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: the first half of the spectrum of a real signal."""
    s, d = _one_dim(n, dim)
    return conj(_transform("ihfft", input, s, d, C_DUAL[_norm("ihfft", norm)], "r2c"))


# ------------------------------------------------------------------- 2-D and N-D
def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT over ``dim``."""
    return _transform("fft2", input, s, dim, norm, "c2c")


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``fft2``."""
    return _transform("ifft2", input, s, dim, norm, "c2c", inverse=True)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D DFT of a real signal (half spectrum along the last of ``dim``)."""
    return _transform("rfft2", input, s, dim, norm, "r2c")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return _transform("irfft2", input, s, dim, norm, "c2r")


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D ``hfft``."""
    return hfftn(input, s, dim, norm)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D ``ihfft``."""
    return ihfftn(input, s, dim, norm)


def fftn(input, s=None, dim=None, norm=None):
    """The N-D DFT over ``dim`` (every dimension, or the last ``len(s)``)."""
    return _transform("fftn", input, s, dim, norm, "c2c")


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of ``fftn``."""
    return _transform("ifftn", input, s, dim, norm, "c2c", inverse=True)


def rfftn(input, s=None, dim=None, norm=None):
    """The N-D DFT of a real signal (half spectrum along the last of ``dim``)."""
    return _transform("rfftn", input, s, dim, norm, "r2c")


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``."""
    return _transform("irfftn", input, s, dim, norm, "c2r")


def hfftn(input, s=None, dim=None, norm=None):
    """The N-D ``hfft``: ``irfftn`` of the conjugate with the dual normalisation."""
    x = _input("hfftn", input)
    return _transform("hfftn", _ops().conj(x) if x.dtype.is_complex else x, s, dim,
                      C_DUAL[_norm("hfftn", norm)], "c2r")


def ihfftn(input, s=None, dim=None, norm=None):
    """The N-D ``ihfft``: the conjugate of ``rfftn`` with the dual normalisation."""
    return conj(_transform("ihfftn", input, s, dim, C_DUAL[_norm("ihfftn", norm)], "r2c"))


C_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------- shifts, frequencies
def _shift(name, input, dim, inverse):
    x = _input(name, input)
    if dim is None:
        dims = tuple(range(x.ndim))
    else:
        dims = (static_int(name, "dim", dim),) if not isinstance(dim, (tuple, list)) else \
            int_sequence(name, "dim", dim)
        dims = tuple(normalize_dim(name, d, x.ndim, "dim") for d in dims)
    if not dims:
        return x
    shifts = tuple(-(x.shape[d] // 2) if inverse else x.shape[d] // 2 for d in dims)
    return _ops().roll(x, shifts, dims)


def fftshift(input, dim=None):
    """Move the zero frequency to the centre of ``dim`` (every dimension when None)."""
    return _shift("fftshift", input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    return _shift("ifftshift", input, dim, True)


def _freq(name, n, d, dtype, values):
    n = static_int(name, "n", n)
    if n < 1:
        raise ValueError(f"For '{name}', the 'n' must be positive, but got {n}.")
    d = real_number(name, "d", d)
    if d == 0:
        raise ValueError(f"For '{name}', the 'd' must be nonzero.")
    out = D.float32 if dtype is None else D.resolve(dtype)
    return _Tensor((values(n) / (n * d)).astype(out.np))


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an ``n``-point DFT with spacing ``d`` (Float32 default)."""
    return _freq("fftfreq", n, d, dtype,
                 lambda n: np.concatenate([np.arange((n - 1) // 2 + 1),
                                           np.arange(-(n // 2), 0)]).astype(np.float64))


def rfftfreq(n, d=1.0, dtype=None):
    """The non-negative sample frequencies of an ``n``-point real DFT."""
    return _freq("rfftfreq", n, d, dtype, lambda n: np.arange(n // 2 + 1, dtype=np.float64))


# ------------------------------------------------------------------- complex numbers
def real(input):
    """The real part (a real tensor unchanged)."""
    return C.real_p(_input("real", input))


def imag(input):
    """The imaginary part (zeros for a real tensor)."""
    return C.imag_p(_input("imag", input))


def conj(input):
    """The complex conjugate (a real tensor unchanged)."""
    return C.conj_p(_input("conj", input))


def angle(input):
    """The argument ``atan2(imag, real)`` of each complex element."""
    x = _input("angle", input)
    if not x.dtype.is_complex:
        raise TypeError(f"For 'angle', the 'input' must be a complex tensor, but got {x.dtype}.")
    return _ops().atan2(C.imag_p(x), C.real_p(x))


def polar(abs, angle):
    """``abs * (cos(angle) + i sin(angle))`` (Float32 -> Complex64, Float64 -> Complex128)."""
    ops = _ops()
    r, t = _input("polar", abs), _input("polar", angle)
    return C.complex_p(r * ops.cos(t), r * ops.sin(t))


def complex(real, imag):
    """``real + i * imag`` from two Float32 or Float64 tensors of one dtype."""
    return C.complex_p(_input("complex", real), _input("complex", imag))


def view_as_real(input):
    """A complex tensor as real pairs: a last dimension of size 2 (real, imaginary)."""
    x = _input("view_as_real", input)
    if not x.dtype.is_complex:
        raise TypeError(f"For 'view_as_real', the 'input' must be a complex tensor, but got "
                        f"{x.dtype}.")
    return _ops().stack((C.real_p(x), C.imag_p(x)), -1)


__all__ = [n for n in public_functions(globals(), __name__) if n != "complex"]
