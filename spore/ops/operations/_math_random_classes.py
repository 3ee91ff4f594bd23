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
        from ..._tensor import Tensor
        if not isinstance(x, Tensor) or not isinstance(q, Tensor):
            raise TypeError(f"For 'Zeta', 'x' and 'q' must be Tensors, but got "
                            f"{type(x).__name__} and {type(q).__name__}.")
        if tuple(x.shape) != tuple(q.shape):
            raise ValueError(f"For 'Zeta', the shapes of 'x' and 'q' must be equal, but got "
                             f"{list(x.shape)} and {list(q.shape)}.")
        return _ops().zeta(x, q)


@_export
class Betainc(Primitive):
    """The regularized incomplete beta function I_x(a, b) of three same-shape tensors."""

    def __call__(self, a, b, x):
        from .._special_more import _tensor, betainc
        for arg, value in (("a", a), ("b", b), ("x", x)):
            _tensor("Betainc", arg, value)
        for arg, value in (("b", b), ("x", x)):
            if tuple(value.shape) != tuple(a.shape):
                raise ValueError(f"For 'Betainc', shape of {arg} "
                                 f"({', '.join(map(str, value.shape))}) are not consistent "
                                 f"with the shape a ({', '.join(map(str, a.shape))}).")
        return betainc(a, b, x)


# ----------------------------------------------------------------------- random
from . import _Random  # noqa: E402


def _random_ops():
    from .. import _random_more
    return _random_more


@_export
class Gamma(_Random):
    """Gamma(alpha, beta) samples (``ops.gamma``); ``shape`` broadcasts with the parameters."""

    def __call__(self, shape, alpha, beta):
        return _ops().gamma(shape, alpha, beta, seed=self.seed)


@_export
class Poisson(_Random):
    """Poisson(mean) samples (``ops.poisson``)."""

    def __call__(self, shape, mean):
        return _ops().poisson(shape, mean, seed=self.seed)


@_export
class RandomGamma(_Random):
    """Gamma(alpha, 1) samples of shape ``shape + alpha.shape`` (``ops.random_gamma``)."""

    def __call__(self, shape, alpha):
        return _ops().random_gamma(shape, alpha, seed=self.seed)


@_export
class RandomPoisson(_Random):
    """Poisson(rate) samples of shape ``shape + rate.shape`` in ``dtype``."""

    def __init__(self, seed=0, seed2=0, dtype=None):
        super().__init__(seed, seed2)
        from ... import _dtype as D
        self.dtype = D.int64 if dtype is None else dtype

    def __call__(self, shape, rate):
        return _ops().random_poisson(shape, rate, seed=self.seed, dtype=self.dtype)


@_export
class StandardLaplace(_Random):
    """Laplace(0, 1) samples of ``shape`` (a tuple or a 1-D int tensor)."""

    def __call__(self, shape):
        return _ops().standard_laplace(shape, seed=self.seed)


@_export
class RandomShuffle(_Random):
    """``x`` with its first axis randomly permuted."""

    def __call__(self, x):
        return _ops().shuffle(x, seed=self.seed)


@_export
class RandomChoiceWithMask(_Random):
    """Up to ``count`` random positions of the True entries of a bool tensor, and a mask."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__(seed, seed2)
        self.count = count

    def __call__(self, input_x):
        return _ops().choice_with_mask(input_x, self.count, seed=self.seed)


@_export
class TruncatedNormal(_Random):
    """Standard normals truncated to [-2, 2], of the shape held in a 1-D int tensor."""

    def __init__(self, dtype=None, seed=0, seed2=0):
        super().__init__(seed, seed2)
        from ... import _dtype as D
        self.dtype = D.float32 if dtype is None else dtype

    def __call__(self, shape):
        return _random_ops().truncated_normal_sample(shape, self.dtype, self.seed)


@_export
class ParameterizedTruncatedNormal(_Random):
    """Per-row truncated normals (``shape[0]`` rows, parameters of size 1 or shape[0])."""

    def __call__(self, shape, mean, stdevs, min, max):
        return _random_ops().parameterized_truncated_normal(shape, mean, stdevs, min, max,
                                                            seed=self.seed)


@_export
class Cauchy(Primitive):
    """Float32 Cauchy(median, sigma) samples of shape ``size``: ``ops.Cauchy(size)()``."""

    def __init__(self, size, median=0.0, sigma=1.0):
        super().__init__()
        if not isinstance(size, (list, tuple)) or not size:
            raise TypeError(f"For 'Cauchy', the 'size' must be a non-empty list of int, but got "
                            f"{size!r}.")
        self.size, self.median, self.sigma = list(size), median, sigma

    def __call__(self):
        return _random_ops().cauchy(self.size, self.median, self.sigma)


@_export
class LogNormalReverse(Primitive):
    """``exp(normal(mean, std))`` of the input's shape and dtype."""

    def __init__(self, mean=1.0, std=2.0):
        super().__init__()
        self.mean, self.std = mean, std

    def __call__(self, input):
        return _random_ops().log_normal_reverse(input, self.mean, self.std)


@_export
class Randperm(Primitive):
    """A random permutation of ``0 .. n-1`` padded with ``pad`` to ``max_length``."""

    def __init__(self, max_length=1, pad=-1, dtype=None):
        super().__init__()
        from ... import _dtype as D
        if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 1:
            raise ValueError(f"For 'Randperm', the 'max_length' must be a positive int, but got "
                             f"{max_length!r}.")
        self.max_length, self.pad = max_length, pad
        self.dtype = D.int32 if dtype is None else dtype

    def __call__(self, n):
        return _random_ops().padded_randperm(n, self.max_length, self.pad, self.dtype)


@_export
class RandpermV2(Primitive):
    """``ops.randperm(n, seed, offset, dtype)``."""

    def __init__(self, seed=0, offset=0, dtype=None):
        super().__init__()
        from ... import _dtype as D
        self.seed, self.offset = seed, offset
        self.dtype = D.int64 if dtype is None else dtype

    def __call__(self, n):
        return _ops().randperm(n, self.seed, self.offset, self.dtype)


@_export
class RandomCategorical(Primitive):
    """``ops.random_categorical(logits, num_sample, seed, dtype)``."""

    def __init__(self, dtype=None):
        super().__init__()
        from ... import _dtype as D
        self.dtype = D.int64 if dtype is None else dtype

    def __call__(self, logits, num_sample, seed=0):
        return _ops().random_categorical(logits, num_sample, seed, self.dtype)


@_export
class MultinomialWithReplacement(Primitive):
    """``ops.multinomial_with_replacement(x, seed, offset, numsamples, replacement)``."""

    def __init__(self, numsamples, replacement=False):
        super().__init__()
        self.numsamples, self.replacement = numsamples, replacement

    def __call__(self, x, seed, offset):
        return _ops().multinomial_with_replacement(x, seed, offset, self.numsamples,
                                                   self.replacement)


@_export
class UniformCandidateSampler(Primitive):
    """``ops.uniform_candidate_sampler`` with its attributes fixed."""

    def __init__(self, num_true, num_sampled, unique, range_max, seed=0,
                 remove_accidental_hits=False):
        super().__init__()
        self.args = (num_true, num_sampled, unique, range_max, seed, remove_accidental_hits)

    def __call__(self, true_classes):
        return _ops().uniform_candidate_sampler(true_classes, *self.args)


@_export
class LogUniformCandidateSampler(Primitive):
    """``ops.log_uniform_candidate_sampler`` with its attributes fixed."""

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        super().__init__()
        self.args = (num_true, num_sampled, unique, range_max, seed)

    def __call__(self, true_classes):
        return _ops().log_uniform_candidate_sampler(true_classes, *self.args)


@_export
class NonDeterministicInts(Primitive):
    """Integers uniform over the whole range of ``dtype`` (Int32/Int64), of the shape held
    in a 1-D int tensor; drawn from Spore's random state, so ``set_seed`` fixes them."""

    def __init__(self, dtype=None):
        super().__init__()
        from ... import _dtype as D
        self.dtype = D.int64 if dtype is None else dtype

    def __call__(self, shape):
        return _random_ops().non_deterministic_ints(shape, self.dtype)


# ----------------------------------------------------------------------- linear algebra
def _linalg():
    from .. import _linalg_more
    return _linalg_more


_simple(LuSolve="lu_solve", Geqrf="geqrf", Orgqr="orgqr")


@_export
class LuUnpack(Primitive):
    """``ops.lu_unpack`` with ``unpack_data``/``unpack_pivots`` fixed."""

    def __init__(self, unpack_data=True, unpack_pivots=True):
        super().__init__()
        self.unpack_data, self.unpack_pivots = unpack_data, unpack_pivots

    def __call__(self, LU_data, LU_pivots):
        return _ops().lu_unpack(LU_data, LU_pivots, self.unpack_data, self.unpack_pivots)


@_export
class Ormqr(Primitive):
    """``ops.ormqr`` with ``left``/``transpose`` fixed."""

    def __init__(self, left=True, transpose=False):
        super().__init__()
        self.left, self.transpose = left, transpose

    def __call__(self, x, tau, other):
        return _ops().ormqr(x, tau, other, self.left, self.transpose)


@_export
class MatrixSolveLs(Primitive):
    """Least squares ``matrix @ X = rhs`` with an L2 regularizer (ignored when not fast)."""

    def __init__(self, fast=True):
        super().__init__()
        self.fast = fast

    def __call__(self, matrix, rhs, l2):
        return _linalg().matrix_solve_ls(matrix, rhs, l2, self.fast)


@_export
class MatrixLogarithm(Primitive):
    """The principal logarithm of complex square matrices (batched)."""

    def __call__(self, x):
        from ..._prims.linalg2 import matrix_logarithm_p
        if not hasattr(x, "shape") or not hasattr(x, "_data"):
            raise TypeError(f"For 'MatrixLogarithm', the 'x' must be a Tensor, but got "
                            f"{type(x).__name__}.")
        matrix_logarithm_p.infer({}, x._data)
        return matrix_logarithm_p(x)


@_export
class NuclearNorm(Primitive):
    """The sum of singular values over the two axes ``dim``."""

    def __init__(self, dim=None, keepdim=False):
        super().__init__()
        self.dim, self.keepdim = dim, keepdim

    def __call__(self, input):
        return _linalg().nuclear_norm(input, self.dim, self.keepdim)


@_export
class TridiagonalMatMul(Primitive):
    """Tridiagonal matrices (three ``[..., 1, M]`` diagonals) times ``rhs``."""

    def __call__(self, superdiag, maindiag, subdiag, rhs):
        return _linalg().tridiagonal_matmul(superdiag, maindiag, subdiag, rhs)


class _Align(Primitive):
    def __init__(self, align="RIGHT_LEFT"):
        super().__init__()
        self.align = align


@_export
class MatrixDiagV3(_Align):
    """``ops.matrix_diag(x, k, num_rows, num_cols, padding_value, align)``."""

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        return _ops().matrix_diag(x, k, num_rows, num_cols, padding_value, self.align)


@_export
class MatrixDiagPartV3(_Align):
    """``ops.matrix_diag_part(x, k, padding_value, align)``."""

    def __call__(self, x, k, padding_value):
        return _ops().matrix_diag_part(x, k, padding_value, self.align)


@_export
class MatrixSetDiagV3(_Align):
    """``ops.matrix_set_diag(x, diagonal, k, align)``."""

    def __call__(self, x, diagonal, k):
        return _ops().matrix_set_diag(x, diagonal, k, self.align)


@_export
class Quantile(Primitive):
    """``ops.quantile`` (or ``nanquantile`` with ``ignore_nan``) along ``dim``."""

    def __init__(self, dim=None, keep_dims=False, ignore_nan=False):
        super().__init__()
        self.dim, self.keep_dims, self.ignore_nan = dim, keep_dims, ignore_nan

    def __call__(self, input, q):
        fn = _ops().nanquantile if self.ignore_nan else _ops().quantile
        return fn(input, q, self.dim, self.keep_dims)


@_export
class NthElement(Primitive):
    """The n-th smallest (``reverse``: largest) value along the last axis."""

    def __init__(self, reverse=False):
        super().__init__()
        self.reverse = reverse

    def __call__(self, input, n):
        return _linalg().nth_element(input, n, self.reverse)


@_export
class HistogramFixedWidth(Primitive):
    """Int32 counts of ``x`` in ``nbins`` equal bins over ``range``."""

    def __init__(self, nbins, dtype="int32"):
        super().__init__()
        self.nbins, self.dtype = nbins, dtype

    def __call__(self, x, range):
        return _linalg().histogram_fixed_width(x, range, self.nbins, self.dtype)


@_export
class CompareAndBitpack(Primitive):
    """``x > threshold`` packed eight to a UInt8 along the last axis."""

    def __call__(self, x, threshold):
        return _linalg().compare_and_bitpack(x, threshold)
