"""Primitive classes of the number-theory, Bessel, complex, Fourier-window and
decomposition ops (``ops.Gcd()(x, y)``, ``ops.Cholesky(upper)(x)``, ``ops.Eig(compute_v)``,
...): each stores MindSpore's attributes and forwards to the functional op."""
from __future__ import annotations

from ... import _dtype as D
from ..._tensor import Tensor
from . import Primitive, _forward, _ops

__all__ = []


def _simple(**mapping):
    for cls, op in mapping.items():
        globals()[cls] = _forward(cls, op)
        __all__.append(cls)


_simple(Gcd="gcd", Lcm="lcm", NextAfter="nextafter", PopulationCount="population_count",
        BesselI0="bessel_i0", BesselI0e="bessel_i0e", BesselI1="bessel_i1",
        BesselI1e="bessel_i1e", Real="real", Imag="imag", Conj="conj", Angle="angle",
        Polar="polar", MatrixExp="matrix_exp", TensorAdd="add",
        Fills="fills")


def _export(cls):
    __all__.append(cls.__name__)
    return cls


@_export
class Complex(Primitive):
    """``real + i * imag`` from two Float32 (or Float64) tensors."""

    def __call__(self, real, imag):
        from .._fft import complex as make
        return make(real, imag)


@_export
class ComplexAbs(Primitive):
    """``|z| = hypot(real(z), imag(z))`` of a complex tensor (real dtype out)."""

    def __call__(self, x):
        ops = _ops()
        re, im = ops.real(x), ops.imag(x)
        return ops.sqrt(re * re + im * im)


@_export
class ConjugateTranspose(Primitive):
    """The conjugate of ``ops.transpose(x, perm)``."""

    def __call__(self, x, perm):
        ops = _ops()
        t = ops.transpose(x, perm)
        return ops.conj(t) if t.dtype.is_complex else t


class _Upper(Primitive):
    op = None

    def __init__(self, upper=False):
        super().__init__()
        self.upper = bool(upper)
        self.add_prim_attr("upper", self.upper)

    def __call__(self, *args):
        return getattr(_ops(), self.op)(*args, upper=self.upper)


@_export
class Cholesky(_Upper):
    """``ops.cholesky(x, upper)``."""
    op = "cholesky"


@_export
class CholeskySolve(_Upper):
    """``ops.cholesky_solve(x1, x2, upper)``."""
    op = "cholesky_solve"


@_export
class CholeskyInverse(_Upper):
    """``ops.cholesky_inverse(x, upper)``."""
    op = "cholesky_inverse"


@_export
class MatrixSolve(Primitive):
    """``ops.matrix_solve(matrix, rhs, adjoint)``."""

    def __init__(self, adjoint=False):
        super().__init__()
        self.adjoint = bool(adjoint)
        self.add_prim_attr("adjoint", self.adjoint)

    def __call__(self, matrix, rhs):
        return _ops().matrix_solve(matrix, rhs, self.adjoint)


@_export
class Eig(Primitive):
    """``(eigenvalues, eigenvectors)``; with ``compute_v=False`` the second output is an
    empty (0-d zero) Complex tensor, as MindSpore's."""

    def __init__(self, compute_v=False):
        super().__init__()
        self.compute_v = bool(compute_v)
        self.add_prim_attr("compute_v", self.compute_v)

    def __call__(self, x):
        ops = _ops()
        w, v = ops.eig(x)
        if self.compute_v:
            return w, v
        return w, ops.zeros((), w.dtype)


@_export
class Qr(Primitive):
    """``ops.qr(x, 'complete' if full_matrices else 'reduced')``."""

    def __init__(self, full_matrices=False):
        super().__init__()
        self.full_matrices = bool(full_matrices)
        self.add_prim_attr("full_matrices", self.full_matrices)

    def __call__(self, x):
        return _ops().qr(x, "complete" if self.full_matrices else "reduced")


@_export
class Svd(Primitive):
    """``ops.svd(x, full_matrices, compute_uv)``; ``(s, u, v)`` (u, v empty without
    ``compute_uv``)."""

    def __init__(self, full_matrices=False, compute_uv=True):
        super().__init__()
        self.full_matrices, self.compute_uv = bool(full_matrices), bool(compute_uv)
        self.add_prim_attr("full_matrices", self.full_matrices)
        self.add_prim_attr("compute_uv", self.compute_uv)

    def __call__(self, x):
        ops = _ops()
        if self.compute_uv:
            return ops.svd(x, self.full_matrices, True)
        s = ops.svd(x, compute_uv=False)
        return s, ops.zeros((), s.dtype), ops.zeros((), s.dtype)


@_export
class Lstsq(Primitive):
    """Least squares ``min ||a x - b||^2 + l2_regularizer ||x||^2`` (``fast`` is accepted;
    the solution is the same)."""

    def __init__(self, fast=True, l2_regularizer=0.0):
        super().__init__()
        self.fast, self.l2_regularizer = bool(fast), float(l2_regularizer)
        self.add_prim_attr("fast", self.fast)
        self.add_prim_attr("l2_regularizer", self.l2_regularizer)

    def __call__(self, a, b):
        ops = _ops()
        if self.l2_regularizer == 0:
            return ops.lstsq(a, b)
        ops.pinv(a)                 # the same argument checks as the least-squares path
        n = a.shape[-1]
        gram = ops.matmul(a.swapaxes(-1, -2), a) + self.l2_regularizer * ops.eye(n, n, a.dtype)
        return ops.matrix_solve(gram, ops.matmul(a.swapaxes(-1, -2), b))


class _Window(Primitive):
    op = None

    def __init__(self, periodic=True, dtype=D.float32, **extra):
        super().__init__()
        self.periodic, self.dtype, self.extra = bool(periodic), dtype, extra
        self.add_prim_attr("periodic", self.periodic)
        self.add_prim_attr("dtype", dtype)

    def __call__(self, window_length):
        if not isinstance(window_length, Tensor):
            raise TypeError(f"For '{type(self).__name__}', the 'window_length' must be a "
                            f"Tensor, but got {type(window_length).__name__}.")
        return getattr(_ops(), self.op)(window_length, self.periodic, **self.extra,
                                        dtype=self.dtype)


@_export
class HammingWindow(_Window):
    """``ops.hamming_window`` of a 1-element integer tensor length."""
    op = "hamming_window"

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=D.float32):
        super().__init__(periodic, dtype, alpha=alpha, beta=beta)


@_export
class BartlettWindow(_Window):
    """``ops.bartlett_window``."""
    op = "bartlett_window"


@_export
class BlackmanWindow(_Window):
    """``ops.blackman_window``."""
    op = "blackman_window"


@_export
class Bincount(Primitive):
    """Counts (sums of ``weights``) of each value of ``array`` in [0, size) (Float32 when
    weights are Float32; values outside the range are ignored)."""

    def __call__(self, array, size, weights):
        import numpy as np
        for arg, v in (("array", array), ("size", size), ("weights", weights)):
            if not isinstance(v, Tensor):
                raise TypeError(f"For 'Bincount', the '{arg}' must be a Tensor, but got "
                                f"{type(v).__name__}.")
        if array.dtype.is_floating_point or array.dtype.is_complex or array.dtype == D.bool_:
            raise TypeError(f"For 'Bincount', the 'array' must be an integer tensor, but got "
                            f"{array.dtype}.")
        if size.size != 1 or size.dtype.is_floating_point:
            raise ValueError("For 'Bincount', the 'size' must be a one-element integer tensor.")
        if tuple(weights.shape) != tuple(array.shape) or not weights.dtype.is_floating_point:
            raise ValueError(f"For 'Bincount', the 'weights' must be a float tensor of the "
                             f"shape of 'array', {list(array.shape)}.")
        values = array.asnumpy().reshape(-1)
        n = int(size.asnumpy().reshape(()))
        if n < 0:
            raise ValueError(f"For 'Bincount', the 'size' must be non-negative, but got {n}.")
        w = weights.asnumpy().reshape(-1)
        keep = (values >= 0) & (values < n)
        out = np.bincount(values[keep], w[keep], minlength=n)[:n]
        return Tensor(out.astype(weights.dtype.np))


@_export
class Mvlgamma(Primitive):
    """``ops.mvlgamma(x, p)``."""

    def __init__(self, p):
        super().__init__()
        self.p = p
        self.add_prim_attr("p", p)

    def __call__(self, x):
        return _ops().mvlgamma(x, self.p)


@_export
class Renorm(Primitive):
    """``ops.renorm(x, p, dim, maxnorm)``."""

    def __init__(self, p, dim, maxnorm):
        super().__init__()
        self.p, self.dim, self.maxnorm = p, dim, maxnorm

    def __call__(self, x):
        return _ops().renorm(x, self.p, self.dim, self.maxnorm)


@_export
class ChannelShuffle(Primitive):
    """``ops.channel_shuffle(x, group)``."""

    def __init__(self, group):
        super().__init__()
        self.group = group

    def __call__(self, x):
        return _ops().channel_shuffle(x, self.group)


@_export
class ApproximateEqual(Primitive):
    """``ops.approximate_equal(x, y, tolerance)``."""

    def __init__(self, tolerance=1e-05):
        super().__init__()
        self.tolerance = tolerance

    def __call__(self, x, y):
        return _ops().approximate_equal(x, y, self.tolerance)


@_export
class MirrorPad(Primitive):
    """``ops.mirror_pad(x, paddings, mode)``."""

    def __init__(self, mode="REFLECT"):
        super().__init__()
        self.mode = mode

    def __call__(self, x, paddings):
        return _ops().mirror_pad(x, paddings, self.mode)
