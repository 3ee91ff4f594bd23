"""``mindspore.nn.probability.distribution``: probability distributions as Cells.

NOTE: [Distributions]
A distribution is built with its parameters (``Normal(mean, sd)``) or without them, and
then each method takes them after its own arguments (``Normal().prob(x, mean, sd)``); a
parameter passed to a method overrides the constructor's for that call, as in MindSpore.
``dist('prob', x)`` calls a method by name (MindSpore's ``construct``). Every method is
written with Spore's differentiable ops, so ``log_prob`` and the reparameterised samples
(Normal, LogNormal, Uniform, Exponential, Gumbel, Logistic, Cauchy, Laplace) have
gradients in PyNative and Graph mode alike. Values and messages follow MindSpore 2.10;
where MindSpore raises NotImplementedError for a method with a closed form (the moments
and CDF of Laplace, HalfNormal and StudentT, samples of Gamma and Poisson on its CPU),
Spore computes it. Random draws use the global seed and the distribution's ``seed``.
"""
from __future__ import annotations

import math

import numpy as np

from ... import ops
from ..._dtype import float32, int32
from ..._tensor import Tensor
from ._common import ParamCell, as_param
from . import bijector as B

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "Exponential",
           "Geometric", "Poisson", "Gamma", "Beta", "Gumbel", "Logistic", "Cauchy", "Laplace",
           "HalfNormal", "StudentT", "LogNormal", "TransformedDistribution"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_EULER = 0.5772156649015329


def _seed_of(seed):
    return 0 if seed is None else int(seed)


class Distribution(ParamCell):
    """Base class (see NOTE: [Distributions]). Subclasses list ``_param_names`` and define
    the ``_name`` methods over explicit parameters; what a subclass leaves out raises
    NotImplementedError naming the method and the distribution."""

    _param_names = ()
    _float_samples = True

    def __init__(self, seed=None, dtype=float32, name=None, param=None):
        super().__init__()
        self._name = name or type(self).__name__
        self._seed = _seed_of(seed)
        self._dtype = dtype
        self.parameters = dict(param or {})
        self._defaults = {k: as_param(v, float32, self._name, k)
                          for k, v in (param or {}).items() if k in self._param_names}
        for k in self._param_names:
            self._defaults.setdefault(k, None)

    # -- attributes --------------------------------------------------------------------
    @property
    def seed(self):
        return self._seed

    @property
    def batch_shape(self):
        shapes = [tuple(v.shape) for v in self._defaults.values() if v is not None]
        return tuple(np.broadcast_shapes(*shapes)) if shapes else ()

    @property
    def is_scalar_batch(self):
        return self.batch_shape == ()

    def get_dist_args(self, *params):
        return tuple(self._dist_params(params))

    def get_dist_type(self):
        return type(self).__name__

    def extend_repr(self):
        vals = [v for v in self._defaults.values() if v is not None]
        if vals and all(v.size == 1 for v in vals):
            return ", ".join(f"{k} = {float(v.asnumpy().reshape(-1)[0])}"
                             for k, v in self._defaults.items() if v is not None)
        return f"batch_shape = {self.batch_shape}" if vals else ""

    # -- calls -------------------------------------------------------------------------
    def _value(self, value):
        if not isinstance(value, Tensor):
            value = as_param(value, float32, self._name, "value")
        return value.astype(float32) if value.dtype != float32 else value

    def _missing(self, what):
        raise NotImplementedError(f"{what} is not implemented for {type(self).__name__} "
                                  "distribution.")

    def _call(self, what, value, params):
        fn = getattr(self, "_" + what, None)
        if fn is None:
            self._missing(what)
        p = self._dist_params(params)
        return fn(p) if value is None else fn(self._value(value), p)

    _prob = None

    def prob(self, value, *params):
        if self._prob is None:
            return ops.exp(self._call("log_prob", value, params))
        return self._call("prob", value, params)

    def log_prob(self, value, *params):
        return self._call("log_prob", value, params)

    def cdf(self, value, *params):
        return self._call("cdf", value, params)

    def log_cdf(self, value, *params):
        if getattr(self, "_log_cdf", None) is not None:
            return self._call("log_cdf", value, params)
        return ops.log(self.cdf(value, *params))

    def survival_function(self, value, *params):
        if getattr(self, "_survival", None) is not None:
            return self._call("survival", value, params)
        return 1 - self.cdf(value, *params)

    def log_survival(self, value, *params):
        if getattr(self, "_log_survival", None) is not None:
            return self._call("log_survival", value, params)
        return ops.log(self.survival_function(value, *params))

    def mean(self, *params):
        return self._call("mean", None, params)

    def mode(self, *params):
        return self._call("mode", None, params)

    def var(self, *params):
        if getattr(self, "_var", None) is None and getattr(self, "_sd", None) is not None:
            return ops.square(self._call("sd", None, params))
        return self._call("var", None, params)

    def sd(self, *params):
        if getattr(self, "_sd", None) is None:
            return ops.sqrt(self.var(*params))
        return self._call("sd", None, params)

    def entropy(self, *params):
        return self._call("entropy", None, params)

    def kl_loss(self, dist, *params_b):
        """KL(self || other), the other distribution of type ``dist`` given by
        ``params_b`` (then this one's own parameters, if any)."""
        self._check_dist(dist, "kl_loss")
        fn = getattr(self, "_kl", None)
        if fn is None:
            self._missing("kl_loss")
        n = len(self._param_names)
        b = [as_param(v, float32, self._name, k) for k, v in zip(self._param_names,
                                                                   params_b[:n])]
        if len(b) != n or any(v is None for v in b):
            raise ValueError(f"For '{self._name}', kl_loss needs the other distribution's "
                             f"{', '.join(self._param_names)}.")
        return fn(self._dist_params(params_b[n:]), b)

    def cross_entropy(self, dist, *params_b):
        """H(self, other) = entropy(self) + KL(self || other)."""
        self._check_dist(dist, "cross_entropy")
        if getattr(self, "_kl", None) is None:
            self._missing("cross_entropy")
        n = len(self._param_names)
        return self.entropy(*params_b[n:]) + self.kl_loss(dist, *params_b)

    def _check_dist(self, dist, what):
        if dist != type(self).__name__:
            raise NotImplementedError(f"For '{self._name}', {what} is implemented between "
                                      f"two {type(self).__name__} distributions, not with "
                                      f"{dist!r}.")

    def sample(self, shape=(), *params):
        fn = getattr(self, "_sample", None)
        if fn is None:
            raise NotImplementedError(f"sample is not implemented for {type(self).__name__} "
                                      "distribution.")
        if isinstance(shape, int):
            shape = (shape,)
        p = self._dist_params(params)
        batch = tuple(np.broadcast_shapes(*[tuple(v.shape) for v in p])) if p else ()
        out = fn(tuple(shape) + batch, p)
        return out if self._float_samples else out.astype(self._dtype)

    def _uniform(self, shape, low=0.0):
        """Uniform draws in (low, 1): kept away from 0 for the log of inverse CDFs."""
        u = ops.uniform(shape, Tensor(np.float32(low)), Tensor(np.float32(1.0)),
                        seed=self._seed)
        return ops.maximum(u, np.float32(np.finfo(np.float32).tiny))

    def construct(self, name, *args, **kwargs):
        methods = ("prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival",
                   "mean", "mode", "sd", "var", "entropy", "kl_loss", "cross_entropy",
                   "sample", "get_dist_args", "get_dist_type")
        if name not in methods:
            raise ValueError(f"For '{self._name}', there is no method {name!r}.")
        return getattr(self, name)(*args, **kwargs)


def _standard_gamma(shape, alpha, seed):
    """Gamma(alpha, 1) draws of ``shape`` (alpha broadcasts to its trailing axes)."""
    return ops.gamma(shape, alpha, ops.ones_like(alpha), seed=seed)


def _normal_cdf(z):
    return 0.5 * ops.erfc(-z * (1 / math.sqrt(2)))


# --------------------------------------------------------------------------- continuous
class Normal(Distribution):
    """N(mean, sd^2)."""

    _param_names = ("mean", "sd")

    def __init__(self, mean=None, sd=None, seed=None, dtype=float32, name="Normal"):
        super().__init__(seed, dtype, name, {"mean": mean, "sd": sd})

    def _log_prob(self, x, p):
        m, s = p
        return -0.5 * ops.square((x - m) / s) - ops.log(s) - _HALF_LOG_2PI

    def _cdf(self, x, p):
        return _normal_cdf((x - p[0]) / p[1])

    def _survival(self, x, p):
        return _normal_cdf(-(x - p[0]) / p[1])

    def _mean(self, p):
        return p[0] + p[1] * 0

    _mode = _mean

    def _sd(self, p):
        return p[1] + p[0] * 0

    def _entropy(self, p):
        return ops.log(p[1]) + 0.5 + _HALF_LOG_2PI + p[0] * 0

    def _kl(self, a, b):
        (ma, sa), (mb, sb) = a, b
        return ops.log(sb / sa) + (ops.square(sa) + ops.square(ma - mb)) / (2 * ops.square(sb)) \
            - 0.5

    def _sample(self, shape, p):
        return p[0] + p[1] * ops.standard_normal(shape, seed=self._seed)


class LogNormal(Distribution):
    """exp(X) for X ~ N(loc, scale^2)."""

    _param_names = ("loc", "scale")

    def __init__(self, loc=None, scale=None, seed=0, dtype=float32, name="LogNormal"):
        super().__init__(seed, dtype, name, {"loc": loc, "scale": scale})

    def _log_prob(self, x, p):
        lx = ops.log(x)
        return Normal._log_prob(self, lx, p) - lx

    def _cdf(self, x, p):
        return _normal_cdf((ops.log(x) - p[0]) / p[1])

    def _survival(self, x, p):
        return _normal_cdf(-(ops.log(x) - p[0]) / p[1])

    def _mean(self, p):
        return ops.exp(p[0] + 0.5 * ops.square(p[1]))

    def _mode(self, p):
        return ops.exp(p[0] - ops.square(p[1]))

    def _var(self, p):
        s2 = ops.square(p[1])
        return ops.expm1(s2) * ops.exp(2 * p[0] + s2)

    def _entropy(self, p):
        return p[0] + ops.log(p[1]) + 0.5 + _HALF_LOG_2PI

    _kl = Normal._kl

    def _sample(self, shape, p):
        return ops.exp(Normal._sample(self, shape, p))


class Uniform(Distribution):
    """Uniform on [low, high]."""

    _param_names = ("low", "high")

    def __init__(self, low=None, high=None, seed=None, dtype=float32, name="Uniform"):
        super().__init__(seed, dtype, name, {"low": low, "high": high})

    def _prob(self, x, p):
        lo, hi = p
        inside = ops.logical_and(x >= lo, x <= hi)
        return ops.where(inside, 1 / (hi - lo), ops.zeros_like(x * lo))

    def _log_prob(self, x, p):
        return ops.log(self._prob(x, p))

    def _cdf(self, x, p):
        lo, hi = p
        return ops.clamp((x - lo) / (hi - lo), 0.0, 1.0)

    def _mean(self, p):
        return (p[0] + p[1]) / 2

    def _var(self, p):
        return ops.square(p[1] - p[0]) / 12

    def _entropy(self, p):
        return ops.log(p[1] - p[0])

    def _kl(self, a, b):
        (la, ha), (lb, hb) = a, b
        inside = ops.logical_and(lb <= la, ha <= hb)
        return ops.where(inside, ops.log((hb - lb) / (ha - la)),
                         ops.full_like(la * lb, np.inf))

    def _sample(self, shape, p):
        lo, hi = p
        return lo + (hi - lo) * ops.uniform(shape, Tensor(np.float32(0)),
                                            Tensor(np.float32(1)), seed=self._seed)


class Exponential(Distribution):
    """rate * exp(-rate x) on x >= 0."""

    _param_names = ("rate",)

    def __init__(self, rate=None, seed=None, dtype=float32, name="Exponential"):
        super().__init__(seed, dtype, name, {"rate": rate})

    def _log_prob(self, x, p):
        r = p[0]
        return ops.where(x >= 0, ops.log(r) - r * x, ops.full_like(x * r, -np.inf))

    def _cdf(self, x, p):
        return ops.where(x >= 0, -ops.expm1(-p[0] * x), ops.zeros_like(x * p[0]))

    def _log_survival(self, x, p):
        return ops.where(x >= 0, -p[0] * x, ops.zeros_like(x * p[0]))

    def _survival(self, x, p):
        return ops.exp(self._log_survival(x, p))

    def _mean(self, p):
        return 1 / p[0]

    def _mode(self, p):
        return ops.zeros_like(p[0])

    def _sd(self, p):
        return 1 / p[0]

    def _entropy(self, p):
        return 1 - ops.log(p[0])

    def _kl(self, a, b):
        ra, rb = a[0], b[0]
        return ops.log(ra / rb) + rb / ra - 1

    def _sample(self, shape, p):
        return -ops.log(self._uniform(shape)) / p[0]


class Gamma(Distribution):
    """Gamma(concentration, rate): rate^a x^(a-1) e^(-rate x) / Gamma(a)."""

    _param_names = ("concentration", "rate")

    def __init__(self, concentration=None, rate=None, seed=None, dtype=float32, name="Gamma"):
        super().__init__(seed, dtype, name, {"concentration": concentration, "rate": rate})

    def _log_prob(self, x, p):
        a, r = p
        return a * ops.log(r) + (a - 1) * ops.log(x) - r * x - ops.lgamma(a)

    def _cdf(self, x, p):
        return ops.igamma(p[0] + x * 0, p[1] * x)

    def _mean(self, p):
        return p[0] / p[1]

    def _mode(self, p):
        a, r = p
        return ops.where(a >= 1, (a - 1) / r, ops.full_like(a * r, np.nan))

    def _var(self, p):
        return p[0] / ops.square(p[1])

    def _entropy(self, p):
        a, r = p
        return a - ops.log(r) + ops.lgamma(a) + (1 - a) * ops.digamma(a)

    def _kl(self, a, b):
        (ca, ra), (cb, rb) = a, b
        return (ca - cb) * ops.digamma(ca) - ops.lgamma(ca) + ops.lgamma(cb) \
            + cb * (ops.log(ra) - ops.log(rb)) + ca * (rb - ra) / ra

    def _sample(self, shape, p):
        a, r = p
        return _standard_gamma(shape, a * ops.ones_like(r), self._seed) / r


class Beta(Distribution):
    """Beta(concentration1, concentration0) on (0, 1)."""

    _param_names = ("concentration1", "concentration0")

    def __init__(self, concentration1=None, concentration0=None, seed=None, dtype=float32,
                 name="Beta"):
        super().__init__(seed, dtype, name, {"concentration1": concentration1,
                                             "concentration0": concentration0})

    @staticmethod
    def _lbeta(a, b):
        return ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)

    def _log_prob(self, x, p):
        a, b = p
        return (a - 1) * ops.log(x) + (b - 1) * ops.log1p(-x) - self._lbeta(a, b)

    def _cdf(self, x, p):
        a, b = p
        return ops.betainc(a + x * 0, b + x * 0, x + a * 0)

    def _mean(self, p):
        return p[0] / (p[0] + p[1])

    def _mode(self, p):
        a, b = p
        return ops.where(ops.logical_and(a > 1, b > 1), (a - 1) / (a + b - 2),
                         ops.full_like(a * b, np.nan))

    def _var(self, p):
        a, b = p
        t = a + b
        return a * b / (ops.square(t) * (t + 1))

    def _entropy(self, p):
        a, b = p
        return self._lbeta(a, b) - (a - 1) * ops.digamma(a) - (b - 1) * ops.digamma(b) \
            + (a + b - 2) * ops.digamma(a + b)

    def _kl(self, pa, pb):
        (a1, b1), (a2, b2) = pa, pb
        return self._lbeta(a2, b2) - self._lbeta(a1, b1) + (a1 - a2) * ops.digamma(a1) \
            + (b1 - b2) * ops.digamma(b1) + (a2 - a1 + b2 - b1) * ops.digamma(a1 + b1)

    def _sample(self, shape, p):
        a, b = p
        one = ops.ones_like(a * b)
        x = _standard_gamma(shape, a * one, self._seed)
        y = _standard_gamma(shape, b * one, self._seed + 1)
        return x / (x + y)


class _LocScale(Distribution):
    _param_names = ("loc", "scale")

    def _z(self, x, p):
        return (x - p[0]) / p[1]

    def _mode(self, p):
        return p[0] + p[1] * 0


class Gumbel(_LocScale):
    """Gumbel(loc, scale): CDF exp(-exp(-(x - loc) / scale))."""

    def __init__(self, loc, scale, seed=0, dtype=float32, name="Gumbel"):
        super().__init__(seed, dtype, name, {"loc": loc, "scale": scale})

    def _log_prob(self, x, p):
        z = self._z(x, p)
        return -(z + ops.exp(-z)) - ops.log(p[1])

    def _cdf(self, x, p):
        return ops.exp(-ops.exp(-self._z(x, p)))

    def _log_cdf(self, x, p):
        return -ops.exp(-self._z(x, p))

    def _survival(self, x, p):
        return -ops.expm1(-ops.exp(-self._z(x, p)))

    def _mean(self, p):
        return p[0] + p[1] * _EULER

    def _sd(self, p):
        return p[1] * (math.pi / math.sqrt(6)) + p[0] * 0

    def _entropy(self, p):
        return ops.log(p[1]) + (_EULER + 1) + p[0] * 0

    def _kl(self, a, b):
        (la, sa), (lb, sb) = a, b
        r = sa / sb
        return ops.log(sb / sa) + _EULER * (r - 1) + ops.exp((lb - la) / sb + ops.lgamma(r + 1)) \
            - 1 + (la - lb) / sb

    def _sample(self, shape, p):
        return p[0] - p[1] * ops.log(-ops.log(self._uniform(shape)))


class Logistic(_LocScale):
    """Logistic(loc, scale): CDF sigmoid((x - loc) / scale)."""

    def __init__(self, loc=None, scale=None, seed=None, dtype=float32, name="Logistic"):
        super().__init__(seed, dtype, name, {"loc": loc, "scale": scale})

    def _log_prob(self, x, p):
        z = self._z(x, p)
        return -z - 2 * ops.softplus(-z) - ops.log(p[1])

    def _cdf(self, x, p):
        return ops.sigmoid(self._z(x, p))

    def _log_cdf(self, x, p):
        return -ops.softplus(-self._z(x, p))

    def _survival(self, x, p):
        return ops.sigmoid(-self._z(x, p))

    def _log_survival(self, x, p):
        return -ops.softplus(self._z(x, p))

    def _mean(self, p):
        return p[0] + p[1] * 0

    def _sd(self, p):
        return p[1] * (math.pi / math.sqrt(3)) + p[0] * 0

    def _entropy(self, p):
        return ops.log(p[1]) + 2 + p[0] * 0

    def _sample(self, shape, p):
        u = self._uniform(shape)
        return p[0] + p[1] * (ops.log(u) - ops.log1p(-u))


class Cauchy(_LocScale):
    """Cauchy(loc, scale); its mean, sd and var are undefined (ValueError)."""

    def __init__(self, loc=None, scale=None, seed=None, dtype=float32, name="Cauchy"):
        super().__init__(seed, dtype, name, {"loc": loc, "scale": scale})

    def _log_prob(self, x, p):
        return -ops.log(math.pi * p[1] * (1 + ops.square(self._z(x, p))))

    def _cdf(self, x, p):
        return ops.atan(self._z(x, p)) / math.pi + 0.5

    def _survival(self, x, p):
        return 0.5 - ops.atan(self._z(x, p)) / math.pi

    def mean(self, *params):
        raise ValueError("mean is undefined for Cauchy distribution.")

    def sd(self, *params):
        raise ValueError("standard deviation is undefined for Cauchy distribution.")

    def var(self, *params):
        raise ValueError("variance is undefined for Cauchy distribution.")

    def _entropy(self, p):
        return ops.log(4 * math.pi * p[1]) + p[0] * 0

    def _kl(self, a, b):
        (la, sa), (lb, sb) = a, b
        return ops.log((ops.square(sa + sb) + ops.square(la - lb)) / (4 * sa * sb))

    def _sample(self, shape, p):
        return p[0] + p[1] * ops.tan(math.pi * (self._uniform(shape) - 0.5))


class Laplace(_LocScale):
    """Laplace(mean, sd), ``sd`` being the scale b: exp(-|x - mean| / b) / (2 b)."""

    _param_names = ("mean", "sd")

    def __init__(self, mean=None, sd=None, seed=None, dtype=float32, name="Laplace"):
        super().__init__(seed, dtype, name, {"mean": mean, "sd": sd})

    def _log_prob(self, x, p):
        return -ops.log(2 * p[1]) - ops.abs(self._z(x, p))

    def _cdf(self, x, p):
        z = self._z(x, p)
        return 0.5 - 0.5 * ops.sign(z) * ops.expm1(-ops.abs(z))

    def _mean(self, p):
        return p[0] + p[1] * 0

    def _sd(self, p):
        return math.sqrt(2) * p[1] + p[0] * 0

    def _entropy(self, p):
        return 1 + ops.log(2 * p[1]) + p[0] * 0

    def _kl(self, a, b):
        (ma, ba), (mb, bb) = a, b
        d = ops.abs(ma - mb)
        return ops.log(bb / ba) + d / bb + ba / bb * ops.exp(-d / ba) - 1

    def _sample(self, shape, p):
        u = self._uniform(shape) - 0.5
        return p[0] - p[1] * ops.sign(u) * ops.log1p(-2 * ops.abs(u))


class HalfNormal(_LocScale):
    """|X| shifted to ``mean`` for X ~ N(0, sd^2): density on x >= mean."""

    _param_names = ("mean", "sd")

    def __init__(self, mean=None, sd=None, seed=None, dtype=float32, name="HalfNormal"):
        super().__init__(seed, dtype, name, {"mean": mean, "sd": sd})

    def _log_prob(self, x, p):
        z = self._z(x, p)
        lp = 0.5 * math.log(2 / math.pi) - ops.log(p[1]) - 0.5 * ops.square(z)
        return ops.where(z >= 0, lp, ops.full_like(lp, -np.inf))

    def _cdf(self, x, p):
        z = self._z(x, p)
        return ops.where(z >= 0, ops.erf(z * (1 / math.sqrt(2))), ops.zeros_like(z))

    def _mean(self, p):
        return p[0] + p[1] * math.sqrt(2 / math.pi)

    def _mode(self, p):
        return p[0] + p[1] * 0

    def _sd(self, p):
        return p[1] * math.sqrt(1 - 2 / math.pi) + p[0] * 0

    def _entropy(self, p):
        return 0.5 * math.log(math.pi * math.e / 2) + ops.log(p[1]) + p[0] * 0

    def _sample(self, shape, p):
        return p[0] + p[1] * ops.abs(ops.standard_normal(shape, seed=self._seed))


class StudentT(_LocScale):
    """Student's t with ``df`` degrees of freedom, location ``mean`` and scale ``sd``."""

    _param_names = ("df", "mean", "sd")

    def __init__(self, df=None, mean=None, sd=None, seed=None, dtype=float32, name="StudentT"):
        super().__init__(seed, dtype, name, {"df": df, "mean": mean, "sd": sd})

    def _log_prob(self, x, p):
        v, m, s = p
        z = (x - m) / s
        return ops.lgamma((v + 1) / 2) - ops.lgamma(v / 2) - 0.5 * ops.log(v * math.pi) \
            - ops.log(s) - (v + 1) / 2 * ops.log1p(ops.square(z) / v)

    def _cdf(self, x, p):
        v, m, s = p
        z = (x - m) / s
        tail = 0.5 * ops.betainc(v / 2 + z * 0, 0.5 + z * 0, v / (v + ops.square(z)))
        return ops.where(z > 0, 1 - tail, tail)

    def _mean(self, p):
        v, m, s = p
        return ops.where(v > 1, m + s * 0, ops.full_like(m * s * v, np.nan))

    def _mode(self, p):
        return p[1] + p[2] * 0 + p[0] * 0

    def _var(self, p):
        v, m, s = p
        var = ops.square(s) * v / (v - 2) + m * 0
        return ops.where(v > 2, var, ops.where(v > 1, ops.full_like(var, np.inf),
                                               ops.full_like(var, np.nan)))

    def _entropy(self, p):
        v, m, s = p
        h = (v + 1) / 2
        return h * (ops.digamma(h) - ops.digamma(v / 2)) + 0.5 * ops.log(v) \
            + ops.lgamma(v / 2) + ops.lgamma(ops.full_like(v, 0.5)) - ops.lgamma(h) \
            + ops.log(s) + m * 0

    def _sample(self, shape, p):
        v, m, s = p
        one = ops.ones_like(v * m * s)
        z = ops.standard_normal(shape, seed=self._seed)
        chi2 = 2 * _standard_gamma(shape, v * one / 2, self._seed + 1)
        return m + s * z * ops.rsqrt(chi2 / v)


# --------------------------------------------------------------------------- discrete
class Bernoulli(Distribution):
    """1 with probability ``probs``, else 0; samples in ``dtype`` (int32)."""

    _param_names = ("probs",)
    _float_samples = False

    def __init__(self, probs=None, seed=None, dtype=int32, name="Bernoulli"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _prob(self, x, p):
        q = p[0]
        return ops.where(x == 1, q + x * 0, ops.where(x == 0, 1 - q, ops.zeros_like(q * x)))

    def _log_prob(self, x, p):
        return ops.log(self._prob(x, p))

    def _cdf(self, x, p):
        q = p[0]
        return ops.where(x < 0, ops.zeros_like(q * x),
                         ops.where(x < 1, 1 - q + x * 0, ops.ones_like(q * x)))

    def _mean(self, p):
        return p[0] * 1

    def _mode(self, p):
        return (p[0] > 0.5).astype(self._dtype)

    def _var(self, p):
        return p[0] * (1 - p[0])

    def _entropy(self, p):
        q = p[0]
        return -(ops.xlogy(q, q) + ops.xlogy(1 - q, 1 - q))

    def _kl(self, a, b):
        qa, qb = a[0], b[0]
        return ops.xlogy(qa, qa / qb) + ops.xlogy(1 - qa, (1 - qa) / (1 - qb))

    def _sample(self, shape, p):
        u = ops.uniform(shape, Tensor(np.float32(0)), Tensor(np.float32(1)),
                        seed=self._seed)
        return (u < p[0]).astype(float32)


class Geometric(Distribution):
    """The number of failures before the first success of probability ``probs``."""

    _param_names = ("probs",)
    _float_samples = False

    def __init__(self, probs=None, seed=None, dtype=int32, name="Geometric"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _log_prob(self, x, p):
        q = p[0]
        k = ops.floor(x)
        lp = k * ops.log1p(-q) + ops.log(q)
        return ops.where(k >= 0, lp, ops.full_like(lp, -np.inf))

    def _cdf(self, x, p):
        q = p[0]
        k = ops.floor(x)
        c = -ops.expm1((k + 1) * ops.log1p(-q))
        return ops.where(k >= 0, c, ops.zeros_like(c))

    def _mean(self, p):
        return (1 - p[0]) / p[0]

    def _mode(self, p):
        return ops.zeros_like(p[0]).astype(self._dtype)

    def _var(self, p):
        return (1 - p[0]) / ops.square(p[0])

    def _entropy(self, p):
        q = p[0]
        return -(ops.xlogy(1 - q, 1 - q) + ops.xlogy(q, q)) / q

    def _kl(self, a, b):
        qa, qb = a[0], b[0]
        return ops.log(qa / qb) + (1 - qa) / qa * (ops.log1p(-qa) - ops.log1p(-qb))

    def _sample(self, shape, p):
        return ops.floor(ops.log(self._uniform(shape)) / ops.log1p(-p[0]))


class Poisson(Distribution):
    """Poisson(rate) on 0, 1, 2, ..."""

    _param_names = ("rate",)

    def __init__(self, rate=None, seed=None, dtype=float32, name="Poisson"):
        super().__init__(seed, dtype, name, {"rate": rate})

    def _log_prob(self, x, p):
        r = p[0]
        lp = ops.xlogy(x, r + x * 0) - r - ops.lgamma(x + 1)
        return ops.where(x >= 0, lp, ops.full_like(lp, -np.inf))

    def _cdf(self, x, p):
        r = p[0]
        k = ops.floor(x)
        c = ops.igammac(k + 1 + r * 0, r + k * 0)
        return ops.where(k >= 0, c, ops.zeros_like(c))

    def _mean(self, p):
        return p[0] * 1

    def _mode(self, p):
        return ops.floor(p[0])

    def _var(self, p):
        return p[0] * 1

    def _sample(self, shape, p):
        r = p[0]
        draws = ops.random_poisson(Tensor(np.asarray(shape[:len(shape) - r.ndim], np.int32)),
                                   r, seed=self._seed)
        return draws.reshape(shape).astype(float32)


class Categorical(Distribution):
    """One of 0 .. K-1 with ``probs`` along the last axis; samples in ``dtype`` (int32)."""

    _param_names = ("probs",)
    _float_samples = False

    def __init__(self, probs=None, seed=None, dtype=int32, name="Categorical"):
        super().__init__(seed, dtype, name, {"probs": probs})

    def _pick(self, x, q):
        k = q.shape[-1]
        idx = ops.clamp(x, 0, k - 1).astype(int32)
        onehot = ops.one_hot(idx, k, Tensor(np.float32(1)), Tensor(np.float32(0)))
        return (onehot * q).sum(-1)

    def _prob(self, x, p):
        q = p[0]
        k = q.shape[-1]
        inside = ops.logical_and(x >= 0, x <= k - 1)
        return ops.where(inside, self._pick(ops.floor(x), q), ops.zeros_like(x))

    def _log_prob(self, x, p):
        return ops.log(self._prob(x, p))

    def _cdf(self, x, p):
        q = p[0]
        k = q.shape[-1]
        c = self._pick(ops.floor(x), ops.cumsum(q, -1))
        return ops.where(x < 0, ops.zeros_like(c), ops.where(x >= k - 1, ops.ones_like(c), c))

    def _support(self, q):
        return ops.arange(q.shape[-1]).astype(float32)

    def _mean(self, p):
        q = p[0]
        return (q * self._support(q)).sum(-1, keepdims=True)

    def _mode(self, p):
        return ops.argmax(p[0], -1).astype(self._dtype)

    def _var(self, p):
        q = p[0]
        s = self._support(q)
        m = (q * s).sum(-1, keepdims=True)
        return (q * ops.square(s - m)).sum(-1, keepdims=True)

    def _entropy(self, p):
        q = p[0]
        return -ops.xlogy(q, q).sum(-1)

    def _kl(self, a, b):
        qa, qb = a[0], b[0]
        return ops.xlogy(qa, qa / qb).sum(-1)

    def sample(self, shape=(), *params):
        if isinstance(shape, int):
            shape = (shape,)
        q = self._dist_params(params)[0]
        batch = tuple(q.shape[:-1])
        n = int(np.prod(shape)) if shape else 1
        flat = q.reshape(-1, q.shape[-1])
        draws = ops.multinomial(flat, n, True, seed=self._seed)     # (batch, n)
        out = draws.T.reshape(tuple(shape) + batch)
        return out.astype(self._dtype)

    @property
    def batch_shape(self):
        q = self._defaults["probs"]
        return tuple(q.shape) if q is not None else ()


class TransformedDistribution(Distribution):
    """Y = bijector.forward(X) for X ~ ``distribution`` (log-density by change of
    variables; moments are not available in closed form)."""

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not isinstance(bijector, B.Bijector):
            raise TypeError(f"For '{name}', 'bijector' must be a Bijector, but got "
                            f"{type(bijector).__name__}.")
        if not isinstance(distribution, Distribution):
            raise TypeError(f"For '{name}', 'distribution' must be a Distribution, but got "
                            f"{type(distribution).__name__}.")
        super().__init__(seed if seed is not None else distribution.seed, distribution.dtype,
                         name)
        self._bijector = bijector
        self._distribution = distribution

    @property
    def bijector(self):
        return self._bijector

    @property
    def distribution(self):
        return self._distribution

    @property
    def batch_shape(self):
        return self._distribution.batch_shape

    def log_prob(self, value, *params):
        x = self._bijector.inverse(value)
        return self._distribution.log_prob(x, *params) + \
            self._bijector.inverse_log_jacobian(value)

    def prob(self, value, *params):
        return ops.exp(self.log_prob(value, *params))

    def cdf(self, value, *params):
        return self._distribution.cdf(self._bijector.inverse(value), *params)

    def sample(self, shape=(), *params):
        return self._bijector.forward(self._distribution.sample(shape, *params))

    def _dist_params(self, given):
        return []
