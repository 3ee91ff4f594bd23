"""Random ops (``mindspore.ops`` random family): thin adapters over the random primitives.

Each adapter normalises MindSpore's signature, draws a key from the global random
state (``spore._random``) and calls a primitive with the key as its first input.
Distributions with a location and scale are composites of a standard sampler, so
``normal``'s mean/stddev and ``uniform``'s bounds get gradients (reparameterisation).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import _random as R
from .._core import primitive as P
from .._prims import array as A
from .._prims import math as M
from .._prims import random as RP
from .._prims.reduce import amax_p
from ._indexing import getitem
from ._utils import is_tensor, static_int, static_shape

# --------------------------------------------------------------------------- keys and arguments


def _op_seed(name, seed):
    """Validate an op ``seed``; 0 means "not set", as in MindSpore."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"For '{name}', the 'seed' must be int, but got '{type(seed).__name__}'")
    if seed < 0:
        raise ValueError(f"For '{name}', the 'seed' must be int and must >= 0, but got '{seed}' "
                         f"with type 'int'.")
    return int(seed) or None


def _wrap_key(key):
    return P.wrap(R.key_array(key))


def _key(name, seed=None):
    """The key tensor of one random op call (advances the global random state)."""
    return R.key_tensor(_op_seed(name, seed))


def _np(dtype):
    return D.to_numpy_dtype(dtype)


def _require_tensor(name, arg, x):
    if not is_tensor(x):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got {type(x)}")


def _float_dtype(name, dtype):
    d = D.resolve(dtype)
    if d not in D.float_type:
        raise ValueError(f"For '{name}', the 'dtype' must be a float type, but got {d}.")
    return d.np


def _int_dtype(name, dtype):
    d = D.resolve(dtype)
    if d not in D.int_type:
        raise ValueError(f"For '{name}', the 'dtype' must be an int type, but got {d}.")
    return d.np


def _python_int(name, arg, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{name}', '{arg}' must be an int, but got {type(value)}.")
    return value


def _size(size):
    """``rand``/``randn`` sizes: ``f()``, ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``."""
    if not size:
        return (1,)
    if len(size) == 1:
        s = size[0]
        if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
            return (int(s),)
        if isinstance(s, (list, tuple)):
            return tuple(s)
        raise TypeError("If the length of the argument 'shape' is 1, the type of the argument "
                        f"'shape' must be one of ['int', 'list', 'tuple'], but got {s}.")
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError("If the length of the argument 'shape' is > 1, the type of the "
                            f"argument 'shape' must all be int, but got {s}.")
    return tuple(int(s) for s in size)


def _tuple_shape(name, shape):
    """A ``shape`` argument that MindSpore requires to be a tuple (or a 1-D int Tensor)."""
    if isinstance(shape, tuple) or is_tensor(shape):
        return static_shape(name, shape)
    raise TypeError(f"For '{name}', the type of 'shape' should be 'tuple', but got type "
                    f"'{type(shape).__name__}'.")


def _uniform01(shape, dtype, key):
    return RP.uniform_real_p(key, shape=tuple(shape), dtype=np.dtype(dtype))


def _standard_normal(shape, dtype, key):
    return RP.standard_normal_p(key, shape=tuple(shape), dtype=np.dtype(dtype))


def _cast(x, dtype):
    return x if x._data.dtype == dtype else A.cast_p(x, dtype=dtype)


# --------------------------------------------------------------------------- continuous samplers
def uniform(shape, minval, maxval, seed=None, dtype=D.float32):
    """Uniform samples in ``[minval, maxval)`` of ``shape``, broadcast with the bounds.

    Args:
        shape (tuple): shape of the samples.
        minval, maxval (Tensor): bounds, of dtype ``dtype``.
        seed (int, optional): op seed. Default ``None``.
        dtype: ``mindspore.float32`` (continuous) or ``mindspore.int32`` (discrete; the
            bounds must then hold one value each).
    """
    if not is_tensor(minval) or not is_tensor(maxval):
        raise TypeError("For functional operator[uniform], the input[minval] and input[maxval] "
                        "must be a Tensor.")
    d = D.resolve(dtype)
    if d not in (D.int32, D.float32):
        raise TypeError(f"The 'uniform' doesn't support '{d}' and expect to receive "
                        f"[mindspore.int32, mindspore.float32].")
    for bound in (minval, maxval):
        if bound.dtype != d:
            raise TypeError(f"For 'uniform', the value data type '{d}' is not consistent with "
                            f"assigned tensor data type {bound.dtype}.")
    shape = static_shape("uniform", shape)
    key = _key("uniform", seed)
    if d == D.int32:
        return RP.uniform_int_p(key, shape=shape, low=int(minval.item()), high=int(maxval.item()),
                                dtype=d.np)
    u = _uniform01(shape, d.np, key)
    return M.add_p(M.mul_p(u, M.sub_p(maxval, minval)), minval)


def _location_scale(name, arg, value):
    if not isinstance(value, (P._Tensor, int, float, np.ndarray)) or isinstance(value, bool):
        raise TypeError(f"For '{name}', the type of '{arg}' must be Tensor, int, or float, but "
                        f"got: {type(value)}")
    return value if is_tensor(value) else P._Tensor(value)


def normal(shape, mean, stddev, seed=None):
    """Normal samples ``N(mean, stddev**2)``: a standard normal of ``shape`` times ``stddev``
    plus ``mean`` (so the result broadcasts ``shape`` with the parameters' shapes)."""
    mean = _location_scale("normal", "mean", mean)
    stddev = _location_scale("normal", "stddev", stddev)
    if not isinstance(shape, tuple):
        raise TypeError(f"Type of 'shape' must be tuple, but got: {type(shape)}")
    z = _standard_normal(static_shape("normal", shape), np.float32, _key("normal", seed))
    return M.add_p(M.mul_p(z, stddev), mean)


def standard_normal(shape, seed=None):
    """Float32 samples of the standard normal distribution."""
    shape = static_shape("StandardNormal", shape)
    return _standard_normal(shape, np.float32, _key("standard_normal", seed))


def rand(*size, dtype=None, seed=None):
    """Uniform samples in ``[0, 1)``; ``rand()`` gives shape ``(1,)``."""
    dt = np.dtype(np.float32) if dtype is None else _float_dtype("rand", dtype)
    return _uniform01(_size(size), dt, _key("rand", seed))


def randn(*size, dtype=None, seed=None):
    """Standard normal samples; ``randn()`` gives shape ``(1,)``."""
    dt = np.dtype(np.float32) if dtype is None else _float_dtype("randn", dtype)
    return _standard_normal(_size(size), dt, _key("randn", seed))


def rand_like(input, seed=None, *, dtype=None):
    """Uniform samples in ``[0, 1)`` with ``input``'s shape and (by default) dtype."""
    _require_tensor("rand_like", "input", input)
    dt = _float_dtype("rand_like", input.dtype if dtype is None else dtype)
    return _uniform01(input.shape, dt, _key("rand_like", seed))


def randn_like(input, seed=None, *, dtype=None):
    """Standard normal samples with ``input``'s shape; the dtype defaults to float32
    (MindSpore 2.10 does not follow ``input``'s dtype here)."""
    _require_tensor("randn_like", "input", input)
    dt = _float_dtype("randn_like", D.float32 if dtype is None else dtype)
    return _standard_normal(input.shape, dt, _key("randn_like", seed))


def uniform_like(input, from_=0.0, to=1.0, seed=None):
    """Uniform samples in ``[from_, to)`` with ``input``'s shape and dtype
    (``Tensor.uniform_``); integer tensors receive the truncated values."""
    _require_tensor("uniform_like", "input", input)
    dt = input._data.dtype
    work = dt if dt.kind == "f" or dt == D.bfloat16.np else np.dtype(np.float32)
    u = _uniform01(input.shape, work, _key("uniform_like", seed))
    return _cast(M.add_p(M.mul_p(u, M.sub_p(to, from_)), from_), dt)


def normal_like(input, mean=0.0, std=1.0, seed=None):
    """Normal samples ``N(mean, std**2)`` with ``input``'s shape and dtype (``Tensor.normal_``)."""
    _require_tensor("normal_like", "input", input)
    dt = input._data.dtype
    work = dt if dt.kind == "f" or dt == D.bfloat16.np else np.dtype(np.float32)
    z = _standard_normal(input.shape, work, _key("normal_like", seed))
    return _cast(M.add_p(M.mul_p(z, std), mean), dt)


def exponential_like(input, lambd=1.0, seed=None):
    """Exponential samples with rate ``lambd``, ``input``'s shape and dtype
    (``Tensor.exponential_``): ``-log(1 - u) / lambd``."""
    _require_tensor("exponential_like", "input", input)
    dt = input._data.dtype
    work = dt if dt.kind == "f" or dt == D.bfloat16.np else np.dtype(np.float32)
    u = _uniform01(input.shape, work, _key("exponential_like", seed))
    return _cast(M.div_p(M.neg_p(M.log1p_p(M.neg_p(u))), lambd), dt)


# --------------------------------------------------------------------------- integer samplers
def randint(low, high, size, seed=None, *, dtype=None):
    """Integers uniform in ``[low, high)``; Int64 unless ``dtype`` is given."""
    dt = np.dtype(np.int64) if dtype is None else _int_dtype("randint", dtype)
    if not isinstance(size, tuple):
        raise ValueError(f"For 'randint', the input 'size' must be a tuple, but got {size}.")
    low = _python_int("randint", "low", low)
    high = _python_int("randint", "high", high)
    return RP.uniform_int_p(_key("randint", seed), shape=static_shape("randint", size), low=low,
                            high=high, dtype=dt)


def randint_like(input, low, high, seed=None, *, dtype=None):
    """Integers uniform in ``[low, high)`` with ``input``'s shape and (by default) dtype."""
    _require_tensor("randint_like", "input", input)
    dt = _int_dtype("randint_like", input.dtype if dtype is None else dtype)
    low = _python_int("randint_like", "low", low)
    high = _python_int("randint_like", "high", high)
    return RP.uniform_int_p(_key("randint_like", seed), shape=input.shape, low=low, high=high,
                            dtype=dt)


def random_like(input, from_=0, to=None, seed=None):
    """Integers uniform in ``[from_, to)`` stored in ``input``'s dtype (``Tensor.random_``);
    without ``to``, up to the largest integer the dtype holds exactly."""
    _require_tensor("random_like", "input", input)
    dt = input._data.dtype
    if to is None:
        to = _largest_exact_integer(dt) + 1
    return _cast(RP.uniform_int_p(_key("random_like", seed), shape=input.shape, low=static_int("random_like", "from_", from_),
                                  high=static_int("random_like", "to", to), dtype=np.dtype(np.int64)), dt)


def _largest_exact_integer(dt):
    if dt == np.bool_:
        return 1
    if dt.kind in "iu":
        return int(min(np.iinfo(dt).max, np.iinfo(np.int64).max - 1))
    bits = {np.dtype(np.float16): 11, D.bfloat16.np: 8, np.dtype(np.float32): 24}.get(dt, 53)
    return 2 ** bits


def randperm(n, seed=0, offset=0, dtype=D.int64):
    """A random permutation of ``0 .. n-1``.

    As in MindSpore, ``seed`` is the kernel's own seed: the default ``seed=0`` gives the
    same permutation on every call; ``seed=-1`` draws from the global random state.
    """
    if is_tensor(n):
        n = n.item()
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For 'randperm', the 'n' must be int, but got {type(n).__name__}.")
    if n <= 0:
        raise ValueError(f"For 'randperm', the input 'n' must be greater than 0, but got "
                         f"data: {n}.")
    dt = _np(dtype)
    if dt.kind in "iu" and n - 1 > np.iinfo(dt).max:
        raise ValueError(f"For 'randperm', the value of 'n' is {n}, it's too large for input "
                         f"'dtype'.")
    for arg, v in (("seed", seed), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"For 'randperm', the '{arg}' must be int, but got "
                            f"{type(v).__name__}.")
    if seed < -1 or offset < 0:
        raise ValueError(f"For 'randperm', the 'seed' must be -1 or non-negative and the 'offset' "
                         f"non-negative, but got seed={seed}, offset={offset}.")
    key = _key("randperm") if seed == -1 else _wrap_key(R.fixed_key(seed, offset))
    return RP.randperm_p(key, n=int(n), dtype=dt)


def shuffle(x, seed=None):
    """``x`` with its first axis randomly permuted."""
    if not is_tensor(x):
        raise TypeError(f"For Primitive[RandomShuffle], the type of input argument[input_x] must "
                        f"be Tensor but got {type(x).__name__}.")
    key = _key("shuffle", seed)
    if x.ndim == 0:
        return A.cast_p(x, dtype=x._data.dtype)       # a copy, like the other outcomes
    return getitem(x, RP.randperm_p(key, n=x.shape[0], dtype=np.dtype(np.int64)))


# --------------------------------------------------------------------------- discrete draws
def bernoulli(input, p=0.5, seed=None):
    """Samples of Bernoulli(``p``) with ``input``'s shape and dtype (1 with probability p).

    ``p`` is a float in [0, 1] or a float tensor of ``input``'s shape (or of size 1).
    """
    _require_tensor("bernoulli", "input", input)
    if seed is None or seed == -1:
        seed = None
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"For 'bernoulli', the type of 'seed' must be 'int', but got "
                        f"'{type(seed).__name__}'.")
    p = _bernoulli_p(input, p)
    u = _uniform01(input.shape, np.float32, _key("bernoulli", seed))
    return _cast(M.less_p(u, p), input._data.dtype)


def _bernoulli_p(input, p):
    if is_tensor(p):
        if p._data.dtype.kind != "f":
            raise TypeError(f"For primitive[Bernoulli], the input argument[p] must be a type of "
                            f"{{Tensor[Float32], Tensor[Float64]}}, but got Tensor[{p.dtype}].")
        if p.size != 1 and p.shape != input.shape:
            raise ValueError("For 'Bernoulli', 'x' and 'p' should have same shape or 'p' have "
                             "a size of 1.")
        return p
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"For 'bernoulli', 'p' must be a float or a Tensor, but got {type(p)}.")
    if not 0 <= p <= 1:
        raise ValueError(f"For bernoulli, p should be in [0, 1], but got {p}.")
    return float(p)


def multinomial(input, num_samples, replacement=True, seed=None):
    """``num_samples`` category indices (Int32) per row of the weights ``input`` (1-D or 2-D).

    Weights need not be normalised. Without replacement each row yields distinct
    indices, drawn in order (weighted sampling without replacement).
    """
    _require_tensor("multinomial", "input", input)
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)):
        raise TypeError(f"For primitive[Multinomial], the input argument[num_samples] must be a "
                        f"type of {{Int32, Int64}}, but got {type(num_samples).__name__}.")
    if num_samples < 0:
        raise ValueError(f"For 'multinomial', the 'num_samples' must be non-negative, but got "
                         f"{num_samples}.")
    return RP.multinomial_p(_key("multinomial", seed), input, num_samples=int(num_samples),
                            replacement=bool(replacement))


def _float32_tensor(name, arg, x):
    """MindSpore's Gamma/Poisson kernels take float32 parameter tensors only."""
    got = f"Tensor[{x.dtype}]" if is_tensor(x) else type(x).__name__
    if not is_tensor(x) or x.dtype != D.float32:
        raise TypeError(f"For '{name}', the element of '{arg}' must be Tensor[Float32], but got "
                        f"{got}.")
    return x


def gamma(shape, alpha, beta, seed=None):
    """Gamma samples with shape ``alpha`` and scale ``beta`` (float32 tensors); the result
    broadcasts ``shape`` with the parameters' shapes."""
    alpha = _float32_tensor("Gamma", "alpha", alpha)
    beta = _float32_tensor("Gamma", "beta", beta)
    return RP.gamma_p(_key("gamma", seed), alpha, beta, shape=_tuple_shape("Gamma", shape))


def poisson(shape, mean, seed=None):
    """Poisson samples (float32) with rate ``mean`` (a float32 tensor); the result broadcasts
    ``shape`` with ``mean``'s shape."""
    mean = _float32_tensor("Poisson", "mean", mean)
    return RP.poisson_p(_key("poisson", seed), mean, shape=_tuple_shape("Poisson", shape),
                        dtype=np.dtype(np.float32))


def _shape_tensor(name, shape):
    """The leading shape of ``random_gamma``/``random_poisson``: a 1-D int tensor."""
    if not is_tensor(shape) or shape._data.dtype.kind not in "iu":
        raise TypeError(f"For '{name}', the 'shape' must be a 1-D int32 or int64 Tensor, but got "
                        f"{type(shape).__name__}.")
    return static_shape(name, shape)


def random_gamma(shape, alpha, seed=None):
    """Gamma(``alpha``, 1) samples of shape ``shape + alpha.shape`` in ``alpha``'s dtype."""
    _require_tensor("random_gamma", "alpha", alpha)
    lead = _shape_tensor("RandomGamma", shape)
    one = P.wrap(np.ones((), alpha._data.dtype))
    return RP.gamma_p(_key("random_gamma", seed), alpha, one, shape=lead + alpha.shape)


def random_poisson(shape, rate, seed=None, dtype=D.float32):
    """Poisson(``rate``) samples of shape ``shape + rate.shape`` in ``dtype``."""
    _require_tensor("random_poisson", "rate", rate)
    lead = _shape_tensor("RandomPoisson", shape)
    return RP.poisson_p(_key("random_poisson", seed), rate, shape=lead + rate.shape,
                        dtype=_np(dtype))


def standard_laplace(shape, seed=None):
    """Float32 samples of the Laplace distribution with mean 0 and scale 1.

    One uniform ``u`` gives both halves: its leading bit picks the sign and the rest,
    ``2u mod 1``, an Exp(1) magnitude ``-log(1 - r)``, which stays finite.
    """
    shape = static_shape("standard_laplace", shape)
    u = _uniform01(shape, np.float32, _key("standard_laplace", seed))
    twice = M.mul_p(u, 2.0)
    magnitude = M.neg_p(M.log1p_p(M.neg_p(M.sub_p(twice, M.floor_p(twice)))))
    return M.where_p(M.less_p(u, 0.5), M.neg_p(magnitude), magnitude)


def laplace(shape, mean, lambda_param, seed=None):
    """Laplace samples with location ``mean`` and scale ``lambda_param`` (Tensors): a
    standard Laplace sample of ``shape`` times ``lambda_param`` plus ``mean``."""
    _require_tensor("laplace", "mean", mean)
    _require_tensor("laplace", "lambda_param", lambda_param)
    return M.add_p(M.mul_p(standard_laplace(shape, seed), lambda_param), mean)


def random_categorical(logits, num_sample, seed=0, dtype=D.int64):
    """``num_sample`` category indices per row of the 2-D unnormalised log-probabilities."""
    _require_tensor("random_categorical", "logits", logits)
    if logits.ndim != 2:
        raise ValueError("For 'random_categorical', logits shape size only support 2D, but got "
                         f"{logits.ndim}D.")
    d = D.resolve(dtype)
    if d not in (D.int16, D.int32, D.int64):
        raise TypeError(f"For 'random_categorical', the 'dtype' must be Int16, Int32 or Int64, "
                        f"but got {d}.")
    shifted = M.sub_p(logits, amax_p(logits, axis=(1,), keepdims=True))
    draws = multinomial(M.exp_p(shifted), num_sample, True, seed)
    return _cast(draws, d.np)


def choice_with_mask(input_x, count=256, seed=None):
    """Up to ``count`` random positions of the True entries of a bool tensor.

    Returns ``(index, mask)``: index (Int32, ``(count, rank)``) and mask (Bool,
    ``(count,)``) telling which rows of index are real picks (the rest are zeros).
    """
    _require_tensor("choice_with_mask", "input_x", input_x)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"For 'choice_with_mask', the 'count' must be int, but got "
                        f"{type(count).__name__}.")
    if count <= 0:
        raise ValueError(f"For 'choice_with_mask', the 'count' must be greater than 0, but got "
                         f"{count}.")
    return RP.choice_with_mask_p(_key("choice_with_mask", seed), input_x, count=int(count))


# --------------------------------------------------------------------------- Tensor methods
def _tensor_bernoulli(self, *, generator=None):
    """``Tensor.bernoulli()``: 1 with the probability held in each element."""
    u = _uniform01(self.shape, np.float32, _key("bernoulli"))
    return _cast(M.less_p(u, self), self._data.dtype)


def _tensor_bernoulli_(self, p=0.5, *, generator=None):
    return A.assign_p(self, bernoulli(self, p))


def _tensor_exponential_(self, lambd=1, *, generator=None):
    return A.assign_p(self, exponential_like(self, lambd))


def _tensor_random_(self, from_=0, to=None, *, generator=None):
    return A.assign_p(self, random_like(self, from_, to))


def _tensor_uniform(self, from_=0.0, to=1.0, generator=None):
    return uniform_like(self, from_, to)


def _tensor_multinomial(self, num_samples, replacement=True, seed=None):
    return multinomial(self, num_samples, replacement, seed)


TENSOR_METHODS = {
    "bernoulli": _tensor_bernoulli, "bernoulli_": _tensor_bernoulli_,
    "exponential_": _tensor_exponential_, "random_": _tensor_random_,
    "uniform": _tensor_uniform, "multinomial": _tensor_multinomial,
}

__all__ = ["uniform", "normal", "standard_normal", "rand", "randn", "rand_like", "randn_like",
           "uniform_like", "normal_like", "exponential_like", "randint", "randint_like",
           "random_like", "randperm", "shuffle", "bernoulli", "multinomial", "gamma", "poisson",
           "random_gamma", "random_poisson", "standard_laplace", "laplace", "random_categorical",
           "choice_with_mask"]
