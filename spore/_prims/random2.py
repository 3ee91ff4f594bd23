"""More random primitives: per-row truncated normals, candidate samplers and full-range
integers. Like those of ``random.py``, each takes its key as the first input (drawn by the
adapter from ``spore._random``, so graph capture and seeds work unchanged), is
``effect="random"`` and non-differentiable.
"""
from __future__ import annotations

import math

import numpy as np

from .._core.aval import ShapedArray, shape_of
from .._random import generator
from ._base import dtype_name
from .random import (InvalidDistribution, _random_primitive, check_key, check_shape)

_FLOAT32 = np.dtype(np.float32)


# ----------------------------------------------------------------- truncated normal per row
def _ptn_infer(attrs, key, mean, stdevs, low, high):
    name = "ParameterizedTruncatedNormal"
    check_key(name, key)
    shape = check_shape(name, attrs["shape"])
    if len(shape) < 2:
        raise ValueError(f"For '{name}', the dimension of 'shape' must be at least 2, but got "
                         f"{len(shape)}.")
    dtypes = {np.dtype(p.dtype) for p in (mean, stdevs, low, high)}
    if len(dtypes) != 1 or next(iter(dtypes)).kind != "f":
        raise TypeError(f"For '{name}', 'mean', 'stdevs', 'min' and 'max' must be float tensors "
                        f"of one dtype, but got "
                        f"{[dtype_name(p.dtype) for p in (mean, stdevs, low, high)]}.")
    for arg, p in (("mean", mean), ("stdevs", stdevs), ("min", low), ("max", high)):
        size = math.prod(shape_of(p))
        if len(shape_of(p)) > 1 or size not in (1, shape[0]):
            raise ValueError(f"For '{name}', '{arg}' must be a scalar or a 1-D tensor of size "
                             f"1 or shape[0] = {shape[0]}, but got shape {list(shape_of(p))}.")
    return ShapedArray(shape, next(iter(dtypes)))


def _standard_truncated(gen, a, b):
    """One standard normal draw in [a, b] per element (float64 arrays, a < b).

    Rejection from the proposal that suits each interval: a standard normal where it
    holds at least a quarter of the mass; an exponential tail proposal (Robert, 1995) for a
    wide interval in one tail; otherwise uniform on [a, b], accepted with probability
    exp((m^2 - z^2) / 2), m the point of the interval nearest 0.
    """
    flip = a >= 0                           # put one-sided intervals in the upper tail
    lo = np.where(b <= 0, -b, a)
    hi = np.where(b <= 0, -a, b)
    mirrored = b <= 0
    one_sided = flip | mirrored
    mass = 0.5 * (np.vectorize(math.erfc)(lo / math.sqrt(2)) -
                  np.vectorize(math.erfc)(hi / math.sqrt(2)))
    mass = np.where(one_sided, mass, 1 - 0.5 * (np.vectorize(math.erfc)(-lo / math.sqrt(2)) +
                                                np.vectorize(math.erfc)(hi / math.sqrt(2))))
    rate = (lo + np.sqrt(lo * lo + 4)) / 2
    method = np.where(mass >= 0.25, 0, np.where(one_sided & (hi - lo > 1 / rate), 1, 2))
    nearest = np.where(one_sided, lo, 0.0)
    out = np.full(a.shape, np.nan)
    todo = np.ones(a.shape, bool)
    for _ in range(10000):
        n = int(todo.sum())
        if n == 0:
            break
        m, l, h = method[todo], lo[todo], hi[todo]
        z = np.where(m == 0, gen.standard_normal(n), 0.0)
        tail = l + gen.exponential(size=n) / rate[todo]
        z = np.where(m == 1, tail, z)
        z = np.where(m == 2, l + (h - l) * gen.random(n), z)
        u = gen.random(n)
        accept = (z >= l) & (z <= h)
        accept &= np.where(m == 1, u <= np.exp(-0.5 * (z - rate[todo]) ** 2), True)
        near = nearest[todo]
        accept &= np.where(m == 2, u <= np.exp(0.5 * (near * near - z * z)), True)
        idx = np.flatnonzero(todo)[accept]
        out[idx] = z[accept]
        todo[idx] = False
    return np.where(mirrored, -out, out)


def _make_ptn(xp):
    def parameterized_truncated_normal(key, mean, stdevs, low, high, shape):
        dtype = np.dtype(mean.dtype)
        rows = shape[0]
        per_row = [np.broadcast_to(np.asarray(p, np.float64).reshape(-1), (rows,))
                   for p in (mean, stdevs, low, high)]
        mu, sigma, lo, hi = per_row
        if np.any(sigma <= 0) or np.any(lo >= hi):
            raise InvalidDistribution("For 'ParameterizedTruncatedNormal', 'stdevs' must be "
                                      "positive and 'min' less than 'max'.")
        inner = math.prod(shape[1:])
        a = np.repeat((lo - mu) / sigma, inner)
        b = np.repeat((hi - mu) / sigma, inner)
        z = _standard_truncated(generator(key), a, b)
        out = np.repeat(mu, inner) + np.repeat(sigma, inner) * z
        return xp.asarray(np.clip(out, np.repeat(lo, inner), np.repeat(hi, inner))
                          .reshape(shape).astype(dtype))
    return parameterized_truncated_normal


parameterized_truncated_normal_p = _random_primitive(
    "ParameterizedTruncatedNormal", _make_ptn, _ptn_infer, 5)


# ----------------------------------------------------------------- candidate samplers
def _candidate_infer(attrs, key, true_classes):
    name = attrs["name"]
    check_key(name, key)
    shape = shape_of(true_classes)
    dtype = np.dtype(true_classes.dtype)
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"For '{name}', the 'true_classes' must be Int32 or Int64, but got "
                        f"{dtype_name(dtype)}.")
    if len(shape) != 2 or shape[1] != attrs["num_true"]:
        raise ValueError(f"For '{name}', the 'true_classes' must be 2-D with num_true = "
                         f"{attrs['num_true']} columns, but got shape {list(shape)}.")
    n = attrs["num_sampled"]
    return (ShapedArray((n,), dtype), ShapedArray(tuple(shape), _FLOAT32),
            ShapedArray((n,), _FLOAT32))


def _class_probability(k, range_max, log_uniform):
    k = np.asarray(k, np.float64)
    if log_uniform:
        return (np.log(k + 2) - np.log(k + 1)) / math.log(range_max + 1)
    return np.full(k.shape, 1.0 / range_max)


def _expected_count(p, num_sampled, num_tries):
    """How often a class of probability p is expected among the samples: p * n without
    rejection, the chance of drawing it at least once in num_tries draws with it."""
    if num_tries == num_sampled:
        return p * num_sampled
    return -np.expm1(num_tries * np.log1p(-p))


def _make_candidate_sampler(xp):
    def candidate_sampler(key, true_classes, name, num_true, num_sampled, unique, range_max,
                          log_uniform, remove_accidental_hits):
        gen = generator(key)
        truth = np.asarray(true_classes)
        banned = set(truth.ravel().tolist()) if remove_accidental_hits else set()

        def draw(n):
            u = gen.random(n)
            if log_uniform:
                k = np.floor(np.exp(u * math.log(range_max + 1))).astype(np.int64) - 1
                return np.clip(k, 0, range_max - 1)
            return np.minimum((u * range_max).astype(np.int64), range_max - 1)

        picked, seen, tries = [], set(), 0
        while len(picked) < num_sampled:
            batch = draw(max(16, 2 * (num_sampled - len(picked))))
            for k in batch.tolist():
                if k in banned:             # accidental hits are not tries of the sampler
                    continue
                tries += 1
                if unique and k in seen:
                    continue
                seen.add(k)
                picked.append(k)
                if len(picked) == num_sampled:
                    break
        sampled = np.array(picked, truth.dtype)
        true_count = _expected_count(_class_probability(truth, range_max, log_uniform),
                                     num_sampled, tries)
        sampled_count = _expected_count(_class_probability(sampled, range_max, log_uniform),
                                        num_sampled, tries)
        return (xp.asarray(sampled), xp.asarray(true_count.astype(np.float32)),
                xp.asarray(sampled_count.astype(np.float32)))
    return candidate_sampler


candidate_sampler_p = _random_primitive("CandidateSampler", _make_candidate_sampler,
                                        _candidate_infer, 2, multiple_results=True)


# ----------------------------------------------------------------- full-range integers
def _random_ints_infer(attrs, key):
    name = "NonDeterministicInts"
    check_key(name, key)
    dtype = np.dtype(attrs["dtype"])
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"For '{name}', the 'dtype' must be Int32 or Int64, but got "
                        f"{dtype_name(dtype)}.")
    return ShapedArray(check_shape(name, attrs["shape"]), dtype)


def _make_random_ints(xp):
    def random_ints(key, shape, dtype):
        info = np.iinfo(dtype)
        return xp.asarray(generator(key).integers(info.min, info.max, size=shape, dtype=dtype,
                                                  endpoint=True))
    return random_ints


random_ints_p = _random_primitive("NonDeterministicInts", _make_random_ints, _random_ints_infer,
                                  1)
