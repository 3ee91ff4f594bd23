"""Random primitives: pure functions of a key (DESIGN.md, "Randomness").

Each primitive's first input is the *key*, a 2-element uint64 tensor drawn from
``spore._random`` by the public adapter. Taking the key as an input (not as an
attribute) keeps a compiled graph reusable: it can be fed a fresh key per call.
All are ``effect="random"`` (never merged, folded or cached) and non-differentiable;
distributions with a location/scale (normal, uniform) are composites in
``spore/ops/_random.py``, so their parameters get gradients by reparameterisation.

Only the samplers that need a kernel of their own are primitives: uniform reals,
standard normals, truncated normals, uniform integers, permutations, categorical
draws, gamma, Poisson and choice-with-mask.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from .._random import generator, key_array, key_at
from ._base import broadcast_shapes, common_dtype, dtype_name

_UINT64 = np.dtype(np.uint64)
_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)
_INT32 = np.dtype(np.int32)
_BOOL = np.dtype(np.bool_)
# significand bits of the half types: their uniforms are drawn on this grid (never 1.0)
_GRID_BITS = {np.dtype(np.float16): 11, D.bfloat16.np: 8}


class InvalidDistribution(P.SporeError, ValueError):
    """Parameters found invalid while sampling (negative weights, rates, ...)."""


def _random_primitive(name, make, infer, n_inputs, multiple_results=False):
    return P.Primitive(name, _validated(make, infer), infer=infer, kind="opaque",
                       effect="random", nondiff=True, n_inputs=n_inputs,
                       multiple_results=multiple_results)


def _validated(make, infer):
    """Kernels run their infer rule first: a bad argument must raise, not sample something
    plausible (the rule costs far less than building the generator)."""
    def make_checked(xp):
        kernel = make(xp)

        def checked(*args, **attrs):
            infer(attrs, *args)
            return kernel(*args, **attrs)
        return checked
    return make_checked


# ----------------------------------------------------------------- shared checks
def check_key(name, key):
    if tuple(shape_of(key)) != (2,) or np.dtype(key.dtype) != _UINT64:
        raise TypeError(f"For '{name}', the 'key' must be a UInt64 tensor of shape [2], but got "
                        f"{dtype_name(key.dtype)}{list(shape_of(key))}.")


def check_shape(name, shape):
    for i, s in enumerate(shape):
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"For '{name}', the 'shape' must be a tuple of int, but got {shape}.")
        if s < 0:
            raise ValueError(f"For '{name}', the {i}th dimension of input shape must be greater "
                             f"than or equal to 0, but got {s}.")
    return tuple(int(s) for s in shape)


def _check_float_dtype(name, dtype):
    if np.dtype(dtype).kind != "f" and np.dtype(dtype) != D.bfloat16.np:
        raise TypeError(f"For '{name}', the 'dtype' must be a float type, but got "
                        f"{dtype_name(dtype)}.")


def _sampler_infer(name, check_dtype):
    """Infer rule of a key -> (shape, dtype) sampler."""
    def infer(attrs, key):
        check_key(name, key)
        check_dtype(name, attrs["dtype"])
        return ShapedArray(check_shape(name, attrs["shape"]), attrs["dtype"])
    return infer


# ----------------------------------------------------------------- uniform reals in [0, 1)
def _make_uniform_real(xp):
    def uniform_real(key, shape, dtype):
        gen = generator(key)
        dtype = np.dtype(dtype)
        if dtype in (_FLOAT32, _FLOAT64):
            return xp.asarray(gen.random(shape, dtype=dtype))
        scale = float(2 ** _GRID_BITS[dtype])
        u = np.floor(gen.random(shape, dtype=np.float32) * scale) / scale   # exact in dtype
        return xp.asarray(u.astype(dtype))
    return uniform_real


uniform_real_p = _random_primitive("UniformReal", _make_uniform_real,
                                   _sampler_infer("UniformReal", _check_float_dtype), 1)


# ----------------------------------------------------------------- standard normal
def _make_standard_normal(xp):
    def standard_normal(key, shape, dtype):
        dtype = np.dtype(dtype)
        draw = dtype if dtype in (_FLOAT32, _FLOAT64) else _FLOAT32
        z = generator(key).standard_normal(shape, dtype=draw)
        return xp.asarray(z.astype(dtype, copy=False))
    return standard_normal


standard_normal_p = _random_primitive("StandardNormal", _make_standard_normal,
                                      _sampler_infer("StandardNormal", _check_float_dtype), 1)


# ----------------------------------------------------------------- truncated standard normal
_MIN_TRUNCATED_MASS = 1e-6    # below this, rejection sampling would need millions of draws


def _normal_mass(a, b):
    """P(a <= Z <= b) for a standard normal Z, accurate in both tails."""
    if a >= 0:
        return 0.5 * (math.erfc(a / math.sqrt(2)) - math.erfc(b / math.sqrt(2)))
    if b <= 0:
        return _normal_mass(-b, -a)
    return 1.0 - 0.5 * (math.erfc(-a / math.sqrt(2)) + math.erfc(b / math.sqrt(2)))


def _truncated_mass(name, a, b):
    """The probability of [a, b] under a standard normal, checked to be samplable."""
    if not a < b:
        raise ValueError(f"For '{name}', the lower bound 'a' must be less than the upper bound "
                         f"'b', but got a={a}, b={b}.")
    mass = _normal_mass(a, b)
    if mass < _MIN_TRUNCATED_MASS:
        raise ValueError(f"For '{name}', the interval [{a}, {b}] (in standard deviations from "
                         f"the mean) holds too little probability to sample from.")
    return mass


def _truncated_normal_infer(attrs, key):
    name = "TruncatedNormal"
    check_key(name, key)
    _check_float_dtype(name, attrs["dtype"])
    _truncated_mass(name, attrs["a"], attrs["b"])
    return ShapedArray(check_shape(name, attrs["shape"]), attrs["dtype"])


def _make_truncated_normal(xp):
    def truncated_normal(key, shape, a, b, dtype):
        accept = _normal_mass(a, b)
        gen = generator(key)
        n = math.prod(shape)
        out = np.empty(n, np.float64)
        filled = 0
        while filled < n:          # rejection sampling; each round proposes enough to finish
            want = n - filled
            z = gen.standard_normal(int(want / accept * 1.1) + 16)
            z = z[(z >= a) & (z <= b)][:want]
            out[filled:filled + z.size] = z
            filled += z.size
        return xp.asarray(out.reshape(shape).astype(dtype))
    return truncated_normal


truncated_normal_p = _random_primitive("TruncatedNormal", _make_truncated_normal,
                                       _truncated_normal_infer, 1)


# ----------------------------------------------------------------- uniform integers in [low, high)
def _check_int_dtype(name, dtype):
    if np.dtype(dtype).kind not in "iu":
        raise TypeError(f"For '{name}', the 'dtype' must be an int type, but got "
                        f"{dtype_name(dtype)}.")


def _uniform_int_infer(attrs, key):
    name = "UniformInt"
    check_key(name, key)
    _check_int_dtype(name, attrs["dtype"])
    if not attrs["low"] < attrs["high"]:
        raise ValueError(f"For '{name}', 'low' must be less than 'high', but got low="
                         f"{attrs['low']}, high={attrs['high']}.")
    return ShapedArray(check_shape(name, attrs["shape"]), attrs["dtype"])


def _make_uniform_int(xp):
    def uniform_int(key, shape, low, high, dtype):
        return xp.asarray(generator(key).integers(low, high, size=shape, dtype=dtype))
    return uniform_int


uniform_int_p = _random_primitive("UniformInt", _make_uniform_int, _uniform_int_infer, 1)


# ----------------------------------------------------------------- random permutation
def _randperm_infer(attrs, key):
    name = "Randperm"
    check_key(name, key)
    dtype = np.dtype(attrs["dtype"])
    if dtype.kind not in "iuf" and dtype != D.bfloat16.np:
        raise TypeError(f"For '{name}', the 'dtype' must be an int or float type, but got "
                        f"{dtype_name(dtype)}.")
    return ShapedArray((check_shape(name, (attrs["n"],))[0],), dtype)


def _make_randperm(xp):
    def randperm(key, n, dtype):
        return xp.asarray(generator(key).permutation(n).astype(dtype))
    return randperm


randperm_p = _random_primitive("Randperm", _make_randperm, _randperm_infer, 1)


# ----------------------------------------------------------------- categorical draws
def _multinomial_infer(attrs, key, probs):
    name = "Multinomial"
    check_key(name, key)
    shape = shape_of(probs)
    if len(shape) not in (1, 2):
        raise ValueError(f"For 'multinomial', the dimension of inputs must be 1d or 2d, but got "
                         f"{len(shape)}.")
    kind = np.dtype(probs.dtype).kind
    if kind not in "biuf" and np.dtype(probs.dtype) != D.bfloat16.np:
        raise TypeError(f"For 'multinomial', the 'input' must be a real tensor, but got "
                        f"{dtype_name(probs.dtype)}.")
    n = attrs["num_samples"]
    if not attrs["replacement"] and n > shape[-1]:
        raise ValueError(f"For 'multinomial', the 'num_samples' must be less than the last "
                         f"dimension of input without 'replacement', but got 'num_samples': {n} "
                         f"and 'replacement': False")
    return ShapedArray(shape[:-1] + (n,), _INT32)


def _check_weights(w):
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InvalidDistribution("For 'multinomial', the probabilities must be finite and "
                                  "non-negative.")
    if w.shape[-1] and np.any(w.sum(axis=-1) <= 0):
        raise InvalidDistribution("For 'multinomial', every distribution must have a positive sum.")


def _draw_with_replacement(gen, w, n):
    cdf = np.cumsum(w, axis=-1)
    cdf /= cdf[:, -1:]                       # the last entry is exactly 1.0
    u = gen.random((w.shape[0], n))
    rows = [np.searchsorted(c, r, side="right") for c, r in zip(cdf, u)]
    return np.minimum(np.stack(rows), w.shape[-1] - 1)


def _draw_without_replacement(gen, w, n):
    """Exponential race: category i finishes at E_i / w_i, the first n to finish win.

    Zero-weight categories come last, in random order (as MindSpore's ``log(u)/(w+eps)``).
    """
    u = gen.random(w.shape)
    with np.errstate(divide="ignore"):
        keys = np.where(w > 0, np.log(u) / np.where(w > 0, w, 1.0), -np.inf)
    order = np.lexsort((u, keys), axis=-1)[:, ::-1]
    return order[:, :n]


def _make_multinomial(xp):
    def multinomial(key, probs, num_samples, replacement):
        w = np.asarray(probs, dtype=np.float64)
        w2 = w.reshape(-1, w.shape[-1])
        _check_weights(w2)
        gen = generator(key)
        if num_samples == 0 or w2.shape[0] == 0:
            out = np.zeros((w2.shape[0], num_samples), np.int64)
        elif replacement:
            out = _draw_with_replacement(gen, w2, num_samples)
        else:
            out = _draw_without_replacement(gen, w2, num_samples)
        return xp.asarray(out.reshape(w.shape[:-1] + (num_samples,)).astype(np.int32))
    return multinomial


multinomial_p = _random_primitive("Multinomial", _make_multinomial, _multinomial_infer, 2)


# ----------------------------------------------------------------- gamma and Poisson
def _check_float_param(name, arg, x):
    if np.dtype(x.dtype).kind != "f" and np.dtype(x.dtype) != D.bfloat16.np:
        raise TypeError(f"For '{name}', the '{arg}' must be a float tensor, but got "
                        f"Tensor[{dtype_name(x.dtype)}].")


def _gamma_infer(attrs, key, alpha, beta):
    name = "Gamma"
    check_key(name, key)
    _check_float_param(name, "alpha", alpha)
    _check_float_param(name, "beta", beta)
    shape = check_shape(name, attrs["shape"])
    out = broadcast_shapes(name, shape, shape_of(alpha), shape_of(beta))
    return ShapedArray(out, common_dtype((alpha, beta)))


def _make_gamma(xp):
    def gamma(key, alpha, beta, shape):
        out = broadcast_shapes("Gamma", shape, alpha.shape, beta.shape)
        a, b = np.asarray(alpha, np.float64), np.asarray(beta, np.float64)
        if np.any(a <= 0) or np.any(b <= 0):
            raise InvalidDistribution("For 'Gamma', 'alpha' and 'beta' must be greater than 0.")
        # MindSpore's density is exp(-x/beta) / (beta^alpha Gamma(alpha)): beta is the scale
        draw = generator(key).gamma(a, b, size=out)
        return xp.asarray(draw.astype(common_dtype((alpha, beta))))
    return gamma


gamma_p = _random_primitive("Gamma", _make_gamma, _gamma_infer, 3)


def _poisson_infer(attrs, key, rate):
    name = "Poisson"
    check_key(name, key)
    _check_float_param(name, "rate", rate)
    dtype = np.dtype(attrs["dtype"])
    if dtype.kind not in "iuf" and dtype != D.bfloat16.np:
        raise TypeError(f"For '{name}', the 'dtype' must be an int or float type, but got "
                        f"{dtype_name(dtype)}.")
    shape = check_shape(name, attrs["shape"])
    return ShapedArray(broadcast_shapes(name, shape, shape_of(rate)), dtype)


def _make_poisson(xp):
    def poisson(key, rate, shape, dtype):
        out = broadcast_shapes("Poisson", shape, rate.shape)
        lam = np.asarray(rate, np.float64)
        if np.any(lam < 0) or not np.all(np.isfinite(lam)):
            raise InvalidDistribution("For 'Poisson', the rate must be finite and non-negative.")
        return xp.asarray(generator(key).poisson(lam, size=out).astype(dtype))
    return poisson


poisson_p = _random_primitive("Poisson", _make_poisson, _poisson_infer, 2)


# ----------------------------------------------------------------- choice with mask
def _choice_with_mask_infer(attrs, key, x):
    name = "RandomChoiceWithMask"
    check_key(name, key)
    if np.dtype(x.dtype) != _BOOL:
        raise TypeError(f"For primitive[{name}], the input argument[input_x] must be a type of "
                        f"{{Tensor[Bool]}}, but got Tensor[{dtype_name(x.dtype)}].")
    rank = len(shape_of(x))
    if not 1 <= rank <= 5:
        raise ValueError(f"For '{name}', the rank of 'input_x' must be in [1, 5], but got {rank}.")
    count = attrs["count"]
    return ShapedArray((count, rank), _INT32), ShapedArray((count,), _BOOL)


def _make_choice_with_mask(xp):
    def choice_with_mask(key, x, count):
        hits = np.argwhere(np.asarray(x))
        picked = hits[generator(key).permutation(len(hits))[:count]]
        index = np.zeros((count, x.ndim), np.int32)
        index[:len(picked)] = picked
        mask = np.zeros(count, np.bool_)
        mask[:len(picked)] = True
        return xp.asarray(index), xp.asarray(mask)
    return choice_with_mask


choice_with_mask_p = _random_primitive("RandomChoiceWithMask", _make_choice_with_mask,
                                       _choice_with_mask_infer, 2, multiple_results=True)


# ----------------------------------------------------------------- keys inside compiled graphs
def _make_random_key(xp):
    def random_key(state, seed, offset):
        return key_array(key_at(state, seed, offset))
    return random_key


def _random_key_infer(attrs, state):
    return ShapedArray((2,), np.uint64)


# A compiled call receives the random state ``(base, counter, global seed)`` as an input;
# each draw inside it takes the key PyNative's ``next_key`` would give at that point.
random_key_p = P.Primitive("RandomKey", _make_random_key, infer=_random_key_infer,
                           kind="opaque", effect="random", nondiff=True, n_inputs=1,
                           doc="RandomKey(state; seed, offset): the key of one draw of a "
                               "compiled call.")


def _make_random_advance(xp):
    def random_advance(state, n):
        out = np.array(state, dtype=np.uint64)
        out[1] += np.uint64(n)
        return out
    return random_advance


def _random_advance_infer(attrs, state):
    return ShapedArray((3,), np.uint64)


# The random state after ``n`` more draws: threads the state through tensor conditionals
# and loops, whose number of draws is known only when they run (spore/_jit/capture.py,
# NOTE: [Random draws in control flow]).
random_advance_p = P.Primitive("RandomAdvance", _make_random_advance,
                               infer=_random_advance_infer, kind="opaque", nondiff=True,
                               n_inputs=1, doc="RandomAdvance(state; n): the random state "
                                               "of a compiled call after n more draws.")
