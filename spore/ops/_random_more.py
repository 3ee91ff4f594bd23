"""More random ops of ``mindspore.ops``: multinomial draws keyed by (seed, offset), the
candidate samplers, and the samplers behind the primitive classes TruncatedNormal,
ParameterizedTruncatedNormal, Cauchy, LogNormalReverse, Randperm and NonDeterministicInts.

Every draw takes its key from the global random state (``spore._random``) or, where
MindSpore's seed is a plain kernel seed, from ``fixed_key(seed, offset)``: Graph mode
captures them like every other random op and seeds reproduce.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .. import _random as R
from .._prims import array as A
from .._prims import math as M
from .._prims import random as RP
from .._prims import random2 as RP2
from ._random import _cast, _key, _np, _require_tensor, _standard_normal, _uniform01, _wrap_key
from ._utils import is_tensor, static_shape


def _int_arg(name, arg, value, minimum=None):
    if is_tensor(value):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{name}', the '{arg}' must be int, but got {type(value).__name__}.")
    if minimum is not None and value < minimum:
        raise ValueError(f"For '{name}', the '{arg}' must be at least {minimum}, but got {value}.")
    return int(value)


def _bool_arg(name, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{name}', the '{arg}' must be bool, but got {type(value).__name__}.")
    return value


# --------------------------------------------------------------------------- multinomial
def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """``numsamples`` category indices (Int64) per row of the non-negative weights ``x``
    (1-D or 2-D). ``seed`` and ``offset`` (ints or 0-d tensors) fix the draw; seed -1
    with offset 0 draws from the global random state."""
    name = "multinomial_with_replacement"
    _require_tensor(name, "x", x)
    seed = _int_arg(name, "seed", seed, -1)
    offset = _int_arg(name, "offset", offset, 0)
    numsamples = _int_arg(name, "numsamples", numsamples, 1)
    _bool_arg(name, "replacement", replacement)
    if x._data.dtype.kind != "f":
        raise TypeError(f"For '{name}', the 'x' must be a float tensor, but got {x.dtype}.")
    key = _key(name) if (seed == -1 and offset == 0) else _wrap_key(R.fixed_key(seed, offset))
    draws = RP.multinomial_p(key, x, num_samples=numsamples, replacement=replacement)
    return _cast(draws, np.dtype(np.int64))


# --------------------------------------------------------------------------- candidate samplers
def _candidate_sampler(name, true_classes, num_true, num_sampled, unique, range_max, seed,
                       log_uniform, remove_accidental_hits):
    _require_tensor(name, "true_classes", true_classes)
    num_true = _int_arg(name, "num_true", num_true, 1)
    num_sampled = _int_arg(name, "num_sampled", num_sampled, 1)
    range_max = _int_arg(name, "range_max", range_max, 1)
    seed = _int_arg(name, "seed", seed, 0)
    _bool_arg(name, "unique", unique)
    _bool_arg(name, "remove_accidental_hits", remove_accidental_hits)
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{name}', the 'num_sampled' must be less than or equal to "
                         f"'range_max' when 'unique' is True, but got num_sampled={num_sampled}, "
                         f"range_max={range_max}.")
    if remove_accidental_hits:
        free = range_max - len(set(true_classes.asnumpy().ravel().tolist()))
        if free <= 0 or (unique and num_sampled > free):
            raise ValueError(f"For '{name}', with 'remove_accidental_hits' only {free} classes "
                             f"are left to sample {num_sampled} from.")
    return RP2.candidate_sampler_p(_key(name, seed), true_classes, name=name, num_true=num_true,
                                   num_sampled=num_sampled, unique=unique, range_max=range_max,
                                   log_uniform=log_uniform,
                                   remove_accidental_hits=remove_accidental_hits)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """``num_sampled`` classes drawn uniformly from ``[0, range_max)`` (distinct if
    ``unique``; never one of ``true_classes`` with ``remove_accidental_hits``).

    Returns ``(sampled_candidates, true_expected_count, sampled_expected_count)``: the
    expected counts are ``p * num_sampled``, or, when rejections were needed,
    ``1 - (1 - p)^num_tries``.
    """
    return _candidate_sampler("UniformCandidateSampler", true_classes, num_true, num_sampled,
                              unique, range_max, seed, False, remove_accidental_hits)


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """Like ``uniform_candidate_sampler`` with Zipf's base distribution
    ``P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)``."""
    return _candidate_sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled,
                              unique, range_max, seed, True, False)


# --------------------------------------------------------------------------- class samplers
def _shape_from_tensor(name, shape):
    if not is_tensor(shape):
        raise TypeError(f"For Primitive[{name}], the type of input argument[shape] must be "
                        f"Tensor but got {type(shape).__name__}.")
    if shape._data.dtype.kind not in "iu" or shape.ndim != 1:
        raise TypeError(f"For '{name}', the 'shape' must be a 1-D Int32 or Int64 tensor, but got "
                        f"{shape.dtype} of rank {shape.ndim}.")
    return static_shape(name, shape)


def truncated_normal_sample(shape, dtype, seed):
    """``ops.TruncatedNormal``: standard normals truncated to [-2, 2]."""
    d = D.resolve(dtype)
    if d not in (D.float16, D.float32, D.float64):
        raise TypeError(f"For 'TruncatedNormal', the 'dtype' must be Float16, Float32 or "
                        f"Float64, but got {d}.")
    shape = _shape_from_tensor("TruncatedNormal", shape)
    return RP.truncated_normal_p(_key("TruncatedNormal", seed), shape=shape, a=-2.0, b=2.0,
                                 dtype=d.np)


def parameterized_truncated_normal(shape, mean, stdevs, min, max, seed=None):
    """Normals of ``shape`` whose row i (the first axis) has mean ``mean[i]`` and standard
    deviation ``stdevs[i]``, truncated to ``[min[i], max[i]]`` (parameters of size 1 or
    ``shape[0]``, one float dtype, which the output takes)."""
    name = "ParameterizedTruncatedNormal"
    shape = _shape_from_tensor(name, shape)
    params = []
    for arg, p in (("mean", mean), ("stdevs", stdevs), ("min", min), ("max", max)):
        _require_tensor(name, arg, p)
        params.append(p)
    return RP2.parameterized_truncated_normal_p(_key(name, seed), *params, shape=shape)


def cauchy(size, median=0.0, sigma=1.0, seed=None):
    """Float32 Cauchy samples ``median + sigma * tan(pi (u - 1/2))`` of shape ``size``."""
    shape = static_shape("Cauchy", size, "size")
    for arg, v in (("median", median), ("sigma", sigma)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"For 'Cauchy', the '{arg}' must be a float, but got "
                            f"{type(v).__name__}.")
    u = _uniform01(shape, np.float64, _key("Cauchy", seed))
    draw = M.add_p(M.mul_p(M.tan_p(M.mul_p(M.sub_p(u, 0.5), math.pi)), float(sigma)),
                   float(median))
    return A.cast_p(draw, dtype=np.dtype(np.float32))


def log_normal_reverse(input, mean=1.0, std=2.0, seed=None):
    """``exp(normal(mean, std))`` of ``input``'s shape and float dtype (its values unused)."""
    _require_tensor("LogNormalReverse", "input", input)
    dt = input._data.dtype
    if dt not in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"For 'LogNormalReverse', the 'input' must be Float16, Float32 or "
                        f"Float64, but got {input.dtype}.")
    z = _standard_normal(input.shape, np.float64, _key("LogNormalReverse", seed))
    return A.cast_p(M.exp_p(M.add_p(M.mul_p(z, float(std)), float(mean))), dtype=dt)


def padded_randperm(n, max_length=1, pad=-1, dtype=D.int32):
    """``ops.Randperm``: a permutation of ``0 .. n-1`` in a vector of ``max_length``
    (truncated if n is larger, the rest filled with ``pad``)."""
    name = "Randperm"
    if not is_tensor(n) or n._data.dtype.kind not in "iu" or n.size != 1:
        raise TypeError(f"For '{name}', the 'n' must be an int Tensor of shape (1,), but got "
                        f"{n!r}.")
    count = int(n.asnumpy().reshape(-1)[0])
    if count < 0:
        raise ValueError(f"For '{name}', the 'n' must be non-negative, but got {count}.")
    dt = _np(dtype)
    if dt.kind not in "iu":
        raise TypeError(f"For '{name}', the 'dtype' must be an int type, but got {dtype}.")
    from ._array import concat
    from ._creation import full
    from ._indexing import getitem
    kept = min(count, max_length)
    pieces = []
    if kept:
        perm = RP.randperm_p(_key(name), n=count, dtype=dt)
        pieces.append(perm if kept == count else getitem(perm, slice(0, kept)))
    if max_length > kept:
        pieces.append(full((max_length - kept,), pad, dtype=D.dtype_of(dt)))
    return pieces[0] if len(pieces) == 1 else concat(pieces)


def non_deterministic_ints(shape, dtype=D.int64):
    """Integers drawn uniformly over the whole range of ``dtype`` (Int32 or Int64)."""
    shape = _shape_from_tensor("NonDeterministicInts", shape)
    return RP2.random_ints_p(_key("NonDeterministicInts"), shape=shape, dtype=_np(dtype))


__all__ = ["multinomial_with_replacement", "uniform_candidate_sampler",
           "log_uniform_candidate_sampler"]
