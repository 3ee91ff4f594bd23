"""Special functions of MindSpore's math ops: Bessel J/Y/K, the regularized incomplete
gamma and beta functions, and the Hurwitz zeta function.

Kernels use SciPy when it is installed (the ``scipy`` extra); without it they use the
NumPy implementations below, accurate to float64 round-off (tests hold them against
SciPy). Either way MindSpore's values at the edges of each domain (negative, zero and
infinite arguments) are applied afterwards, so results do not depend on SciPy.

How the fallbacks compute (NOTE: [Special-function fallbacks]):

* J_m(x) for |x| <= 25: the trapezoidal rule over one period of Bessel's integral
  ``J_m(x) = (1/2pi) int exp(i(m t - x sin t)) dt`` is exact up to aliasing terms
  ``J_{N-m}(x)``, which vanish for N = 128 points; one inverse FFT gives every order.
  Y0 is Neumann's series ``(2/pi)(ln(x/2) + gamma) J0 - (4/pi) sum (-1)^k J_2k / k``
  over those orders, Y1 its negated derivative. For |x| > 25: Hankel's asymptotic series.
* K0, K1 (and the scaled K0e, K1e): ``K_v(x) e^x = int_0^inf exp(-x(cosh t - 1)) cosh(v t)
  dt`` by the trapezoidal rule, exponentially convergent for this analytic, even
  integrand; the step shrinks as 1/sqrt(x) where the integrand narrows.
* P(a, x): its power series below x = a + 1, Legendre's continued fraction for
  Q = 1 - P above; I_x(a, b): the standard continued fraction on the side of the mean.
* zeta(s, q): terms summed until q + k >= 10, then Euler-Maclaurin with 12 Bernoulli
  corrections.
"""
from __future__ import annotations

import math

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from ._base import broadcast_shapes, dtype_name, grad_for
from .math import add_p, div_p, exp_p, log_p, mul_p, neg_p, sub_p
from .specfun import _scipy_or, lgamma_fallback, lgamma_p

_EULER_GAMMA = 0.5772156649015329
_HALF_PI = math.pi / 2


# ----------------------------------------------------------------- Bessel J and Y
_N_FFT = 128          # points per period: J_{128-m}(25) is below 1e-40 for m <= 61
_SMALL_X = 25.0       # Hankel's series is accurate to round-off above this


def _bessel_j_orders(x):
    """J_m(x) for m = 0..N-1 (valid up to m ~ 60) of each |x| <= 25: shape (N, n)."""
    theta = 2 * np.pi * np.arange(_N_FFT) / _N_FFT
    out = np.empty((_N_FFT, x.size))
    for start in range(0, x.size, 2048):
        block = x[start:start + 2048]
        wave = np.exp(-1j * block[:, None] * np.sin(theta))
        out[:, start:start + 2048] = np.fft.ifft(wave, axis=1).real.T
    return out


def _hankel(x, nu):
    """(J_nu(x), Y_nu(x)) for x > 25 from Hankel's asymptotic expansions."""
    mu = 4.0 * nu * nu
    p = np.ones_like(x)
    q = np.zeros_like(x)
    term = np.ones_like(x)
    for k in range(1, 40):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2:
            q += term if k % 4 == 1 else -term
        else:
            p += term if k % 4 == 0 else -term
    phase = (nu / 2 + 0.25) * np.pi      # chi = x - phase, expanded to keep x's precision
    cos_chi = np.cos(x) * math.cos(phase) + np.sin(x) * math.sin(phase)
    sin_chi = np.sin(x) * math.cos(phase) - np.cos(x) * math.sin(phase)
    scale = np.sqrt(2 / (np.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _small_jy(x):
    """(J0, J1, Y0, Y1) at 0 < x <= 25 (Y at x = 0 is -inf, handled by the caller)."""
    j = _bessel_j_orders(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_term = np.log(x / 2) + _EULER_GAMMA
        k = np.arange(1, 31)[:, None]
        sign = np.where(k % 2, -1.0, 1.0)
        y0 = 2 / np.pi * log_term * j[0] - 4 / np.pi * np.sum(sign * j[2 * k[:, 0]] / k, 0)
        dsum = np.sum(sign * (j[2 * k[:, 0] - 1] - j[2 * k[:, 0] + 1]) / (2 * k), 0)
        y1 = -(2 / np.pi * (j[0] / x - log_term * j[1]) - 4 / np.pi * dsum)
    return j[0], j[1], y0, y1


def bessel_jy_fallback(x):
    """(J0, J1, Y0, Y1) of float64 ``x`` (J1 odd in x; Y of x <= 0 left to the edge rule)."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x).ravel()
    j0, j1, y0, y1 = (np.full(ax.shape, np.nan) for _ in range(4))
    small = ax <= _SMALL_X
    big = (ax > _SMALL_X) & np.isfinite(ax)
    if small.any():
        s = _small_jy(ax[small])
        for dest, value in zip((j0, j1, y0, y1), s):
            dest[small] = value
    if big.any():
        j0[big], y0[big] = _hankel(ax[big], 0)
        j1[big], y1[big] = _hankel(ax[big], 1)
    j1 = np.where(x.ravel() < 0, -j1, j1)
    return tuple(v.reshape(x.shape) for v in (j0, j1, y0, y1))


# ----------------------------------------------------------------- Bessel K (scaled)
def bessel_ke_fallback(x):
    """(K0(x) e^x, K1(x) e^x) for float64 ``x > 0`` by the trapezoidal rule."""
    x = np.asarray(x, np.float64)
    flat = x.ravel()
    k0e, k1e = np.full(flat.shape, np.nan), np.full(flat.shape, np.nan)
    ok = (flat > 0) & np.isfinite(flat)
    xs = flat[ok]
    if xs.size:
        step = np.minimum(0.15, 0.6 / np.sqrt(xs))
        end = np.arccosh(1 + 45 / xs)               # the integrand is below e^-45 beyond
        need = np.ceil(end / step).astype(np.int64) + 1
        order = np.argsort(need)                    # blocks of similar lengths
        r0, r1 = np.empty(xs.size), np.empty(xs.size)
        for start in range(0, xs.size, 1024):
            sl = order[start:start + 1024]
            t = step[sl, None] * np.arange(need[sl].max())
            weight = np.exp(-xs[sl, None] * (2 * np.sinh(t / 2) ** 2))   # cosh t - 1, exact
            weight[:, 0] *= 0.5
            r0[sl] = step[sl] * weight.sum(1)
            r1[sl] = step[sl] * (weight * np.cosh(t)).sum(1)
        k0e[ok], k1e[ok] = r0, r1
    k0e[flat == np.inf] = 0.0
    k1e[flat == np.inf] = 0.0
    return k0e.reshape(x.shape), k1e.reshape(x.shape)


# ----------------------------------------------------------------- incomplete gamma
def _series_p(a, x, lgam1):
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n))."""
    term = np.ones_like(x)
    total = np.ones_like(x)
    denom = a.copy()
    for _ in range(10000):
        denom = denom + 1
        term = term * x / denom
        total += term
        if not np.any(term > 1e-17 * total):
            break
    return np.exp(a * np.log(x) - x - lgam1) * total


def _fraction_q(a, x, lgam):
    """Q(a, x) by Legendre's continued fraction, evaluated with the modified Lentz method."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 10000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if not np.any(np.abs(delta - 1) > 1e-16):
            break
    return np.exp(a * np.log(x) - x - lgam) * h


def _lgamma64(x):
    return lgamma_fallback(np.asarray(x, np.float64)).astype(np.float64)


def igamma_fallback(a, x, upper=False):
    """Regularized lower (or, with ``upper``, upper) incomplete gamma of a > 0, x > 0."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    series = ok & (x < a + 1)
    fraction = ok & ~series
    if series.any():
        aa, xx = a[series], x[series]
        p = _series_p(aa, xx, _lgamma64(aa + 1))
        out[series] = 1 - p if upper else p
    if fraction.any():
        aa, xx = a[fraction], x[fraction]
        q = _fraction_q(aa, xx, _lgamma64(aa))
        out[fraction] = q if upper else 1 - q
    return out


_gammainc = _scipy_or("gammainc", igamma_fallback)
_gammaincc = _scipy_or("gammaincc", lambda a, x: igamma_fallback(a, x, upper=True))


def _igamma_edges(a, x, value, upper):
    """MindSpore's values off the open domain a > 0, x > 0 (probed on its CPU kernels)."""
    finite_a = np.isfinite(a) & (a > 0)
    if upper:
        return np.where(finite_a & (x == 0), 1.0,
                        np.where(finite_a & (x > 0) & (x < np.inf), value, np.nan))
    return np.where((a >= 0) & (a < np.inf) & (x == 0), 0.0,
                    np.where(finite_a & (x == np.inf), 1.0,
                             np.where(finite_a & (x > 0) & (x < np.inf), value, np.nan)))


# ----------------------------------------------------------------- incomplete beta
def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz), for x below the mean."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(x)
    d = 1 - qab * x / qap
    d = 1 / np.where(np.abs(d) < tiny, tiny, d)
    h = d.copy()
    for m in range(1, 10000):
        m2 = 2 * m
        for an in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1 + an * d
            d = 1 / np.where(np.abs(d) < tiny, tiny, d)
            c = 1 + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            delta = d * c
            h = h * delta
        if not np.any(np.abs(delta - 1) > 1e-16):
            break
    return h


def betainc_fallback(a, b, x):
    """The regularized incomplete beta function I_x(a, b) of a, b > 0, 0 <= x <= 1."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1) & np.isfinite(a) & np.isfinite(b)
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    inner = ok & (x > 0) & (x < 1)
    if inner.any():
        aa, bb, xx = a[inner], b[inner], x[inner]
        flip = xx > (aa + 1) / (aa + bb + 2)
        pa, pb, px = np.where(flip, bb, aa), np.where(flip, aa, bb), np.where(flip, 1 - xx, xx)
        log_front = (pa * np.log(px) + pb * np.log1p(-px) - _lgamma64(pa) - _lgamma64(pb)
                     + _lgamma64(pa + pb))
        value = np.exp(log_front) * _beta_fraction(pa, pb, px) / pa
        out[inner] = np.where(flip, 1 - value, value)
    return out


_betainc = _scipy_or("betainc", betainc_fallback)


# ----------------------------------------------------------------- Hurwitz zeta
# B_2k / (2k)! for k = 1..12
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730]
_EM_COEFF = [b / math.factorial(2 * k) for k, b in enumerate(_BERNOULLI, start=1)]


def zeta_fallback(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for s > 1 (q <= 0 only with integer s)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    out = np.full(s.shape, np.nan)
    ok = (s > 1) & np.isfinite(s) & np.isfinite(q) & ~((q <= 0) & (q == np.floor(q)))
    ok &= ~((q < 0) & (s != np.floor(s)))
    if ok.any():
        ss, qq = s[ok], q[ok]
        total = np.zeros_like(ss)
        z = qq.copy()
        with np.errstate(over="ignore", divide="ignore"):
            while True:
                low = z < 10
                if not low.any():
                    break
                total += np.where(low, np.power(np.where(low, z, 1.0), -ss), 0.0)
                z = np.where(low, z + 1, z)
            total += z ** (1 - ss) / (ss - 1) + 0.5 * z ** -ss
            rising = ss.copy()                   # s (s+1) ... (s + 2k - 2)
            power = z ** (-ss - 1)
            for k, coeff in enumerate(_EM_COEFF, start=1):
                total += coeff * rising * power
                rising = rising * (ss + 2 * k - 1) * (ss + 2 * k)
                power = power / (z * z)
        out[ok] = total
    return out


_zeta = _scipy_or("zeta", zeta_fallback)


def _zeta_edges(s, q, value):
    """MindSpore's (Cephes') values off the convergent domain."""
    pole = (q <= 0) & (q == np.floor(q))
    value = np.where(s == 1, np.inf, value)
    value = np.where((s > 1) & pole, np.inf, value)
    value = np.where((s > 1) & (q == np.inf), 0.0, value)
    at_inf = np.where(q == 1, 1.0, np.where(q > 1, 0.0, np.inf))
    value = np.where(s == np.inf, at_inf, value)
    return np.where(s < 1, np.nan, value)


# ----------------------------------------------------------------- primitives
_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_FLOAT32_64 = _FLOATS[1:]


def _type_names(allowed):
    return "{" + ", ".join(f"Tensor[{dtype_name(d)}]" for d in allowed) + "}"


def _checked_infer(name, args, allowed):
    """Infer rule of an elementwise special function: inputs of one float dtype in
    ``allowed`` (MindSpore does not promote them), broadcast shapes."""
    def infer(attrs, *xs):
        dtypes = [np.dtype(x.dtype) for x in xs]
        if len(set(dtypes)) > 1:
            shown = ", ".join(f"{a}: Tensor[{dtype_name(d)}]" for a, d in zip(args, dtypes))
            raise TypeError(f"For primitive[{name}], the input type must be same ({shown}).")
        for arg, d in zip(args, dtypes):
            if d not in allowed:
                raise TypeError(f"For primitive[{name}], the input argument[{arg}] must be a "
                                f"type of {_type_names(allowed)}, but got "
                                f"Tensor[{dtype_name(d)}].")
        shape = broadcast_shapes(name, *[shape_of(x) for x in xs])
        return ShapedArray(shape, dtypes[0])
    return infer


def _special(name, args, allowed, compute, nondiff=False):
    """An elementwise primitive whose float64 ``compute`` result is cast to the input dtype."""
    infer = _checked_infer(name, args, allowed)

    def make(xp):
        def kernel(*xs):
            infer({}, *xs)              # eager calls check dtypes too: no silent promotion
            dtype = np.dtype(xs[0].dtype)
            with np.errstate(all="ignore"):
                value = compute(*[np.asarray(x, np.float64) for x in xs])
            return xp.asarray(np.asarray(value).astype(dtype, copy=False))
        return kernel
    return P.Primitive(name, make, kind="elementwise", n_inputs=len(args), nondiff=nondiff,
                       infer=infer)


def _jy(index):
    kernel = _scipy_or(("j0", "j1", "y0", "y1")[index], lambda v: bessel_jy_fallback(v)[index])

    def compute(x):
        value = kernel(x)
        if index < 2:
            return np.where(np.isinf(x), np.nan, value)
        zero_value = -np.inf if index == 2 else np.nan     # MindSpore: Y1(0) is NaN
        return np.where(x < 0, -np.inf, np.where(x == 0, zero_value, value))
    return compute


def _k(order, scaled):
    scipy_name = ("k0", "k1")[order] + ("e" if scaled else "")

    def fallback(x):
        value = bessel_ke_fallback(x)[order]
        return value if scaled else value * np.exp(-x)

    kernel = _scipy_or(scipy_name, fallback)

    def compute(x):
        value = kernel(x)
        return np.where(x <= 0, np.inf, value)
    return compute


bessel_j0_p = _special("BesselJ0", ("x",), _FLOATS, _jy(0))
bessel_j1_p = _special("BesselJ1", ("x",), _FLOATS, _jy(1))
bessel_y0_p = _special("BesselY0", ("x",), _FLOATS, _jy(2))
bessel_y1_p = _special("BesselY1", ("x",), _FLOATS, _jy(3))
bessel_k0_p = _special("BesselK0", ("x",), _FLOATS, _k(0, False))
bessel_k1_p = _special("BesselK1", ("x",), _FLOATS, _k(1, False))
bessel_k0e_p = _special("BesselK0e", ("x",), _FLOATS, _k(0, True))
bessel_k1e_p = _special("BesselK1e", ("x",), _FLOATS, _k(1, True))

igamma_p = _special("Igamma", ("a", "x"), _FLOAT32_64,
                    lambda a, x: _igamma_edges(a, x, _gammainc(a, x), False))
igammac_p = _special("Igammac", ("a", "x"), _FLOAT32_64,
                     lambda a, x: _igamma_edges(a, x, _gammaincc(a, x), True))
betainc_p = _special("Betainc", ("a", "b", "x"), _FLOAT32_64,
                     lambda a, b, x: np.where((x < 0) | (x > 1) | ~(a > 0) | ~(b > 0), np.nan,
                                              _betainc(a, b, x)))
zeta_p = _special("Zeta", ("x", "q"), _FLOAT32_64,
                  lambda s, q: _zeta_edges(s, q, _zeta(s, q)))


def _igamma_da(a, x):
    """dP(a, x)/da by a central difference of the float64 kernel (relative error ~1e-9,
    far below float32 round-off); MindSpore's IgammaGradA is not in closed form either."""
    h = 1e-5 * np.maximum(np.abs(a), 1.0)
    with np.errstate(all="ignore"):
        up = _igamma_edges(a + h, x, _gammainc(a + h, x), False)
        down = _igamma_edges(a - h, x, _gammainc(a - h, x), False)
    return (up - down) / (2 * h)


igamma_grad_a_p = _special("IgammaGradA", ("a", "x"), _FLOAT32_64, _igamma_da, nondiff=True)


# ----------------------------------------------------------------- gradients
def _where_zero(x, at_zero, value):
    """``value`` with ``at_zero`` where x == 0 (limits of ratios such as J1(x)/x)."""
    zero = (x == 0).astype(x.dtype)
    return value + zero * (at_zero - value)


def _over_x(out, x, at_zero):
    """out / x, with its limit ``at_zero`` at x == 0."""
    zero = (x == 0).astype(x.dtype)
    return _where_zero(x, at_zero, div_p(out, x + zero))


@bessel_j0_p.def_grad(inputs=(0,))
def _j0_grad(attrs, inputs, out, dout):
    return (mul_p(dout, neg_p(bessel_j1_p(inputs[0]))),)


@bessel_j1_p.def_grad(inputs=(0,), output=True)
def _j1_grad(attrs, inputs, out, dout):
    x = inputs[0]                       # J1' = J0 - J1 / x, 1/2 at 0
    return (mul_p(dout, sub_p(bessel_j0_p(x), _over_x(out, x, 0.5))),)


@bessel_y0_p.def_grad(inputs=(0,))
def _y0_grad(attrs, inputs, out, dout):
    return (mul_p(dout, neg_p(bessel_y1_p(inputs[0]))),)


@bessel_y1_p.def_grad(inputs=(0,), output=True)
def _y1_grad(attrs, inputs, out, dout):
    x = inputs[0]                       # Y1' = Y0 - Y1 / x
    return (mul_p(dout, sub_p(bessel_y0_p(x), div_p(out, x))),)


@bessel_k0_p.def_grad(inputs=(0,))
def _k0_grad(attrs, inputs, out, dout):
    return (mul_p(dout, neg_p(bessel_k1_p(inputs[0]))),)


@bessel_k1_p.def_grad(inputs=(0,), output=True)
def _k1_grad(attrs, inputs, out, dout):
    x = inputs[0]                       # K1' = -K0 - K1 / x
    return (mul_p(dout, neg_p(add_p(bessel_k0_p(x), div_p(out, x)))),)


@bessel_k0e_p.def_grad(inputs=(0,), output=True)
def _k0e_grad(attrs, inputs, out, dout):
    return (mul_p(dout, sub_p(out, bessel_k1e_p(inputs[0]))),)


@bessel_k1e_p.def_grad(inputs=(0,), output=True)
def _k1e_grad(attrs, inputs, out, dout):
    x = inputs[0]                       # K1e' = -K0e + K1e (1 - 1/x)
    return (mul_p(dout, sub_p(sub_p(out, div_p(out, x)), bessel_k0e_p(x))),)


def _gamma_density(a, x):
    """d P(a, x) / dx = exp(-x + (a - 1) log x - lgamma(a))."""
    return exp_p(sub_p(sub_p(mul_p(sub_p(a, 1.0), log_p(x)), x), lgamma_p(a)))


@igamma_p.def_grad(inputs=(0, 1))
def _igamma_grad(attrs, inputs, out, dout):
    a, x = inputs
    return (grad_for(a, mul_p(dout, igamma_grad_a_p(a, x))),
            grad_for(x, mul_p(dout, _gamma_density(a, x))))


@igammac_p.def_grad(inputs=(0, 1))
def _igammac_grad(attrs, inputs, out, dout):
    a, x = inputs
    return (grad_for(a, neg_p(mul_p(dout, igamma_grad_a_p(a, x)))),
            grad_for(x, neg_p(mul_p(dout, _gamma_density(a, x)))))


@betainc_p.def_grad(inputs=(0, 1, 2))
def _betainc_grad(attrs, inputs, out, dout):
    # MindSpore differentiates only x: dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b)
    a, b, x = inputs
    log_density = sub_p(add_p(mul_p(sub_p(a, 1.0), log_p(x)),
                              mul_p(sub_p(b, 1.0), log_p(sub_p(1.0, x)))),
                        sub_p(add_p(lgamma_p(a), lgamma_p(b)), lgamma_p(add_p(a, b))))
    zeros = mul_p(dout, 0.0)
    return (grad_for(a, zeros), grad_for(b, zeros), grad_for(x, mul_p(dout, exp_p(log_density))))


@zeta_p.def_grad(inputs=(0, 1))
def _zeta_grad(attrs, inputs, out, dout):
    # MindSpore differentiates only q: d zeta(s, q) / dq = -s zeta(s + 1, q)
    s, q = inputs
    return (grad_for(s, mul_p(dout, 0.0)),
            grad_for(q, neg_p(mul_p(dout, mul_p(s, zeta_p(add_p(s, 1.0), q))))))

