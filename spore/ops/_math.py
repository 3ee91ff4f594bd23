"""Elementwise ops: MindSpore's functional signatures over the math primitives.

Activations such as gelu, silu and softplus are composites of primitives (no
gradient rule of their own).
"""
from __future__ import annotations

import math

import numpy as np

from .._prims import math as M
from .._prims import specfun as _S
from .._prims.array import cast_p
from .._prims.special import identity_p
from ._utils import as_tensor, dtype_arg, static_int

# ----------------------------------------------------------------- arithmetic


def add(input, other):
    """``input + other`` with broadcasting and MindSpore's type promotion."""
    return M.add_p(input, other)


def sub(input, other):
    """``input - other`` with broadcasting and MindSpore's type promotion."""
    return M.sub_p(input, other)


subtract = sub


def mul(input, other):
    """``input * other`` with broadcasting and MindSpore's type promotion."""
    return M.mul_p(input, other)


multiply = mul


def div(input, other, *, rounding_mode=None):
    """True division; ``rounding_mode`` ``'floor'`` or ``'trunc'`` rounds the quotient."""
    if rounding_mode is None:
        return M.div_p(input, other)
    if rounding_mode == "floor":
        return M.floor_div_p(input, other)
    if rounding_mode == "trunc":
        q = M.div_p(input, other)
        r = M.trunc_p(q)
        dt = _common_int_dtype(input, other)
        return cast_p(r, dtype=dt) if dt is not None else r
    raise ValueError(f"For 'div', 'rounding_mode' must be None, 'floor' or 'trunc', "
                     f"but got {rounding_mode!r}.")


divide = div
true_divide = div


def _common_int_dtype(a, b):
    from .._prims._base import common_dtype
    from .._core.primitive import _unwrap_input
    d = common_dtype([_unwrap_input(M.add_p, a), _unwrap_input(M.add_p, b)])
    return d if d.kind in "iu" else None


def floor_div(input, other):
    """``floor(input / other)``; integer inputs stay integers."""
    return M.floor_div_p(input, other)


floor_divide = floor_div


def floor_mod(x, y):
    """Remainder of the floored division (the sign of ``y``), as Python's ``%``."""
    return M.mod_p(x, y)


def remainder(input, other):
    """Remainder of the floored division (the sign of ``other``), as Python's ``%``."""
    return M.mod_p(input, other)


mod = remainder


def fmod(input, other):
    """Remainder of the truncated division (the sign of ``input``), as C's ``fmod``."""
    return M.fmod_p(input, other)


def pow(input, exponent):
    """``input ** exponent``; an integer raised to a negative integer truncates to 0."""
    return M.pow_p(input, exponent)


def neg(input):
    """``-input``."""
    return M.neg_p(input)


negative = neg


def abs(input):
    """``|input|``."""
    return M.abs_p(input)


absolute = abs


def exp(input):
    """``e ** input``; integers are computed in Float32."""
    return M.exp_p(input)


def expm1(input):
    """``exp(input) - 1``, accurate near 0."""
    return M.expm1_p(input)


def log(input):
    """Natural logarithm (``-inf`` at 0, NaN below); integers are computed in Float32."""
    return M.log_p(input)


def log1p(input):
    """``log(1 + input)``, accurate near 0."""
    return M.log1p_p(input)


def log2(input):
    """Base-2 logarithm."""
    return M.log2_p(input)


def log10(input):
    """Base-10 logarithm."""
    return M.mul_p(M.log_p(input), 1.0 / math.log(10.0))


def exp2(input):
    """``2 ** input``."""
    return M.pow_p(2.0, input) if not hasattr(input, "_data") else M.exp_p(
        M.mul_p(input, math.log(2.0)))


def sqrt(x):
    """Square root; integers are computed in Float32."""
    return M.sqrt_p(x)


def rsqrt(input):
    """``1 / sqrt(input)``."""
    return M.rsqrt_p(input)


def square(input):
    """``input * input``."""
    return M.square_p(input)


def reciprocal(input):
    """``1 / input``; integers are computed in Float32."""
    return M.reciprocal_p(input)


def sin(input):
    """Sine (radians)."""
    return M.sin_p(input)


def cos(input):
    """Cosine (radians)."""
    return M.cos_p(input)


def tan(input):
    """Tangent (radians)."""
    return M.tan_p(input)


def asin(input):
    """Inverse sine."""
    return M.asin_p(input)


def acos(input):
    """Inverse cosine."""
    return M.acos_p(input)


def atan(input):
    """Inverse tangent."""
    return M.atan_p(input)


def atan2(input, other):
    """Angle of the point ``(other, input)``: ``atan(input / other)`` in the right quadrant."""
    return M.atan2_p(input, other)


arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2


def sinh(input):
    """Hyperbolic sine."""
    return M.sinh_p(input)


def cosh(input):
    """Hyperbolic cosine."""
    return M.cosh_p(input)


def tanh(input):
    """Hyperbolic tangent."""
    return M.tanh_p(input)


def asinh(input):
    """Inverse hyperbolic sine."""
    return M.asinh_p(input)


def acosh(input):
    """Inverse hyperbolic cosine."""
    return M.acosh_p(input)


def atanh(input):
    """Inverse hyperbolic tangent."""
    return M.atanh_p(input)


arcsinh, arccosh, arctanh = asinh, acosh, atanh


def erf(input):
    """The error function."""
    return M.erf_p(input)


def erfc(input):
    """The complementary error function ``1 - erf(input)``, accurate for large inputs."""
    return M.erfc_p(input)


def floor(input):
    """Round down; integers are returned unchanged."""
    return M.floor_p(input)


def ceil(input):
    """Round up; integers are returned unchanged."""
    return M.ceil_p(input)


def round(input, *, decimals=0):
    """Round half to even; ``decimals`` rounds to that many decimal places."""
    if decimals:
        decimals = static_int("round", "decimals", decimals)
        if abs(decimals) > 308:             # beyond float64's exponent range
            raise ValueError(f"For 'round', the 'decimals' must be in [-308, 308], but got "
                             f"{decimals}.")
        scale = 10.0 ** decimals
        return M.div_p(M.round_p(M.mul_p(input, scale)), scale)
    return M.round_p(input)


def trunc(input):
    """Round towards zero; integers are returned unchanged."""
    return M.trunc_p(input)


fix = trunc


def sign(input):
    """-1, 0 or 1 by the sign of each element."""
    return M.sign_p(input)


def maximum(input, other):
    """Elementwise maximum with broadcasting."""
    return M.maximum_p(input, other)


def minimum(input, other):
    """Elementwise minimum with broadcasting."""
    return M.minimum_p(input, other)


def fmax(input, other):
    """Elementwise maximum with broadcasting."""
    return M.maximum_p(input, other)


def fmin(input, other):
    """Elementwise minimum with broadcasting."""
    return M.minimum_p(input, other)


def clamp(input, min=None, max=None):
    """Clip to ``[min, max]``; either bound may be None (not both)."""
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must not be None.")
    out = input
    if min is not None:
        out = M.maximum_p(out, min)
    if max is not None:
        out = M.minimum_p(out, max)
    if out is input:
        out = identity_p(input)
    return out


clip = clamp


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clip to ``[clip_value_min, clip_value_max]`` (see :func:`clamp`)."""
    return clamp(x, clip_value_min, clip_value_max)


def lerp(input, end, weight):
    """``input + weight * (end - input)``."""
    return M.add_p(input, M.mul_p(weight, M.sub_p(end, input)))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by ``posinf``/``neginf`` (the dtype's extremes by
    default)."""
    return M.nan_to_num_p(input, nan=nan, posinf=posinf, neginf=neginf)


def where(condition, input=None, other=None):
    """Select from ``input`` where ``condition`` holds, else ``other``."""
    if input is None and other is None:
        from ._array import nonzero
        return nonzero(condition, as_tuple=True)
    return M.where_p(condition, input, other)


def select(cond, x, y):
    """``x`` where ``cond`` holds, else ``y`` (MindSpore's name for :func:`where`)."""
    return M.where_p(cond, x, y)


# ----------------------------------------------------------------- more arithmetic (composites)
def _require_float(name, *xs):
    for x in xs:
        d = getattr(getattr(x, "_data", None), "dtype", None)
        if d is not None and d.kind in "biu":
            raise TypeError(f"For '{name}', the inputs must be floating-point tensors, but got "
                            f"{x.dtype}.")


def addcmul(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 * tensor2``."""
    return M.add_p(input, M.mul_p(M.mul_p(tensor1, tensor2), value))


def addcdiv(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 / tensor2`` (floating-point inputs)."""
    _require_float("addcdiv", input, tensor1, tensor2)
    return M.add_p(input, M.mul_p(M.div_p(tensor1, tensor2), value))


def addn(x):
    """Sum of a list or tuple of tensors of one shape and dtype."""
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError("For 'addn', 'x' must be a non-empty list or tuple of tensors.")
    out = x[0]
    for t in x[1:]:
        out = M.add_p(out, t)
    return out if len(x) > 1 else identity_p(out)


accumulate_n = addn


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow (floating-point inputs)."""
    _require_float("logaddexp", input, other)
    m = M.maximum_p(input, other)
    gap = M.where_p(M.equal_p(input, other), 0.0, M.neg_p(M.abs_p(M.sub_p(input, other))))
    return M.add_p(m, M.log1p_p(M.exp_p(gap)))


def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow (floating-point inputs)."""
    _require_float("logaddexp2", input, other)
    m = M.maximum_p(input, other)
    gap = M.where_p(M.equal_p(input, other), 0.0, M.neg_p(M.abs_p(M.sub_p(input, other))))
    return M.add_p(m, M.mul_p(M.log1p_p(M.exp_p(M.mul_p(gap, math.log(2.0)))),
                              1.0 / math.log(2.0)))


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input`` is 0 (even if ``other <= 0``)."""
    undefined = M.logical_and_p(M.equal_p(input, 0), M.less_equal_p(other, 0))
    return M.mul_p(input, M.log_p(M.where_p(undefined, 1, other)))


def xdivy(x, y):
    """``x / y``, and 0 where ``x`` is 0 (even if ``y`` is 0)."""
    undefined = M.logical_and_p(M.equal_p(x, 0), M.equal_p(y, 0))
    return M.div_p(x, M.where_p(undefined, 1, y))


def hypot(input, other):
    """``sqrt(input**2 + other**2)`` without overflow; integers and bool give Float32."""
    return M.hypot_p(input, other)


def deg2rad(x):
    """Degrees to radians."""
    return M.mul_p(x, math.pi / 180.0)


def rad2deg(x):
    """Radians to degrees."""
    return M.mul_p(x, 180.0 / math.pi)


def logit(input, eps=None):
    """``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]``."""
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))):
        raise TypeError(f"For 'logit', the 'eps' must be a float, but got {type(eps).__name__}.")
    p = input if eps is None else clamp(input, eps, 1.0 - eps)
    return M.log_p(M.div_p(p, M.sub_p(1.0, p)))


def float_power(input, exponent):
    """``input ** exponent`` computed in Float64 (Complex128 for complex inputs)."""
    def widen(v):
        if hasattr(v, "_data"):
            return cast_p(v, dtype=np.complex128 if v._data.dtype.kind == "c" else np.float64)
        return v
    return M.pow_p(widen(input), widen(exponent))


def positive(input):
    """``+input`` (a copy)."""
    return identity_p(input)


def frac(x):
    """The fractional part, ``x - trunc(x)`` (with the sign of ``x``)."""
    return M.sub_p(x, M.trunc_p(x))


def truncate_div(x, y):
    """Division rounded towards zero."""
    return div(x, y, rounding_mode="trunc")


def truncate_mod(x, y):
    """Remainder of the truncated division (the sign of ``x``), i.e. ``fmod``."""
    return M.fmod_p(x, y)


floordiv = floor_div
floormod = floor_mod


def inv(x):
    """``1 / x``."""
    return M.reciprocal_p(x)


def isposinf(input):
    """Whether each element is ``+inf`` (Bool)."""
    return M.logical_and_p(M.isinf_p(input), M.greater_p(input, 0))


def isneginf(input):
    """Whether each element is ``-inf`` (Bool)."""
    return M.logical_and_p(M.isinf_p(input), M.less_p(input, 0))


def heaviside(input, values):
    """0 where ``input < 0``, 1 where ``input > 0`` and ``values`` where it is 0."""
    input = as_tensor(input)
    step = M.where_p(M.greater_p(input, 0), 1, 0)
    return cast_p(M.where_p(M.equal_p(input, 0), values, step), dtype=input._data.dtype)


def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0 (its gradient there is 0, not NaN)."""
    zero = M.equal_p(input, 0)
    scaled = M.mul_p(M.where_p(zero, 1.0, input), math.pi)
    return M.where_p(zero, 1.0, M.div_p(M.sin_p(scaled), scaled))


# ----------------------------------------------------------------- comparisons and logic
def equal(input, other):
    """``input == other`` (Bool)."""
    return M.equal_p(input, other)


eq = equal


def not_equal(input, other):
    """``input != other`` (Bool)."""
    return M.not_equal_p(input, other)


ne = not_equal


def greater(input, other):
    """``input > other`` (Bool)."""
    return M.greater_p(input, other)


gt = greater


def greater_equal(input, other):
    """``input >= other`` (Bool)."""
    return M.greater_equal_p(input, other)


ge = greater_equal


def less(input, other):
    """``input < other`` (Bool)."""
    return M.less_p(input, other)


lt = less


def less_equal(input, other):
    """``input <= other`` (Bool)."""
    return M.less_equal_p(input, other)


le = less_equal


def logical_and(input, other):
    """Elementwise logical AND (Bool)."""
    return M.logical_and_p(input, other)


def logical_or(input, other):
    """Elementwise logical OR (Bool)."""
    return M.logical_or_p(input, other)


def logical_xor(input, other):
    """Elementwise logical XOR (Bool)."""
    return M.logical_xor_p(input, other)


def logical_not(input):
    """Elementwise logical NOT (Bool)."""
    return M.logical_not_p(input)


def bitwise_and(input, other):
    """Bitwise AND of bool or integer tensors."""
    return M.bitwise_and_p(input, other)


def bitwise_or(input, other):
    """Bitwise OR of bool or integer tensors."""
    return M.bitwise_or_p(input, other)


def bitwise_xor(input, other):
    """Bitwise XOR of bool or integer tensors."""
    return M.bitwise_xor_p(input, other)


def bitwise_not(input):
    """Bitwise NOT of bool or integer tensors."""
    return M.invert_p(input)


invert = bitwise_not


def bitwise_left_shift(input, other):
    """``input << other`` for integer tensors."""
    return M.left_shift_p(input, other)


def bitwise_right_shift(input, other):
    """``input >> other`` for integer tensors."""
    return M.right_shift_p(input, other)


def isnan(input):
    """Whether each element is NaN (Bool)."""
    return M.isnan_p(input)


def isinf(input):
    """Whether each element is infinite (Bool)."""
    return M.isinf_p(input)


def isfinite(input):
    """Whether each element is finite (Bool)."""
    return M.isfinite_p(input)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (Bool)."""
    diff = M.abs_p(M.sub_p(input, other))
    tol = M.add_p(atol, M.mul_p(rtol, M.abs_p(other)))
    close = M.less_equal_p(diff, tol)
    if equal_nan:
        close = M.logical_or_p(close, M.logical_and_p(M.isnan_p(input), M.isnan_p(other)))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element satisfies :func:`isclose` (a Python bool)."""
    from .._prims.reduce import all_p
    return bool(all_p(isclose(input, other, rtol, atol, equal_nan)).item())


def equal_all(x, y):
    """Whether both tensors have the same shape and equal elements (a Python bool)."""
    from .._prims.reduce import all_p
    x, y = as_tensor(x), as_tensor(y)
    return bool(x.shape == y.shape and all_p(M.equal_p(x, y)).item())


# ----------------------------------------------------------------- activations (composites)
def sigmoid(input):
    """``1 / (1 + exp(-input))``, computed without overflow."""
    return M.sigmoid_p(input)


def relu(input, inplace=False):
    """``max(input, 0)``."""
    return M.relu_p(input)


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return M.minimum_p(M.relu_p(x), 6.0)


def leaky_relu(input, alpha=0.2):
    """``x`` where positive, ``alpha * x`` elsewhere (MindSpore's default alpha is 0.2)."""
    return M.where_p(M.greater_p(input, 0), input, M.mul_p(input, alpha))


def elu(input_x, alpha=1.0):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return M.where_p(M.greater_p(input_x, 0), input_x, M.mul_p(M.expm1_p(input_x), alpha))


def selu(input_x):
    """Scaled ELU with the self-normalising constants."""
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return M.mul_p(elu(input_x, alpha), scale)


def celu(x, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return M.add_p(M.relu_p(x), M.minimum_p(0.0, M.mul_p(M.expm1_p(M.div_p(x, alpha)), alpha)))


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(input, approximate="none"):
    """GELU; ``approximate='tanh'`` uses the tanh formula, ``'none'`` the exact erf one."""
    if approximate == "tanh":
        inner = M.mul_p(M.add_p(input, M.mul_p(M.mul_p(M.mul_p(input, input), input), 0.044715)),
                        _SQRT_2_OVER_PI)
        return M.mul_p(M.mul_p(input, 0.5), M.add_p(M.tanh_p(inner), 1.0))
    if approximate == "none":
        return M.mul_p(M.mul_p(input, 0.5), M.add_p(M.erf_p(M.mul_p(input, 1 / math.sqrt(2.0))),
                                                    1.0))
    raise ValueError(f"For 'gelu', 'approximate' must be 'none' or 'tanh', "
                     f"but got {approximate!r}.")


def fast_gelu(x):
    """GELU approximated as ``x * sigmoid(1.702 x)``."""
    return M.mul_p(x, M.sigmoid_p(M.mul_p(x, 1.702)))


def silu(input):
    """``x * sigmoid(x)``."""
    return M.mul_p(input, M.sigmoid_p(input))


def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold`` (stable form)."""
    x = M.mul_p(input, beta) if beta != 1 else input
    soft = M.add_p(M.log1p_p(M.exp_p(M.neg_p(M.abs_p(x)))), M.relu_p(x))
    if beta != 1:
        soft = M.div_p(soft, beta)
    return M.where_p(M.greater_p(x, threshold), input, soft)


def mish(input):
    """``x * tanh(softplus(x))``."""
    return M.mul_p(input, M.tanh_p(softplus(input)))


def softsign(x):
    """``x / (1 + |x|)``."""
    return M.div_p(x, M.add_p(M.abs_p(x), 1.0))


def hardsigmoid(input):
    """``clip(x / 6 + 1/2, 0, 1)``."""
    return M.minimum_p(M.maximum_p(M.add_p(M.div_p(input, 6.0), 0.5), 0.0), 1.0)


def hardswish(x):
    """``x * hardsigmoid(x)``."""
    return M.mul_p(x, hardsigmoid(x))


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """Clip to ``[min_val, max_val]``."""
    return clamp(input, min_val, max_val)


def logsigmoid(x):
    """``log(sigmoid(x))``, computed without overflow."""
    return M.neg_p(softplus(M.neg_p(x)))


def tanhshrink(input):
    """``x - tanh(x)``."""
    return M.sub_p(input, M.tanh_p(input))


def softshrink(input, lambd=0.5):
    """Shrink towards 0 by ``lambd``; 0 inside ``[-lambd, lambd]``."""
    return M.where_p(M.greater_p(input, lambd), M.sub_p(input, lambd),
                     M.where_p(M.less_p(input, -lambd), M.add_p(input, lambd), 0.0))


def hardshrink(input, lambd=0.5):
    """``x`` where ``|x| > lambd``, else 0."""
    return M.where_p(M.greater_p(M.abs_p(input), lambd), input, 0.0)


def threshold(input, thr, value):
    """``input`` where ``input > thr``, else ``value``."""
    return M.where_p(M.greater_p(input, thr), input, value)


def cast(input, dtype):
    """Cast to ``dtype`` (a MindSpore dtype, NumPy dtype or name; None is a TypeError)."""
    return cast_p(as_tensor(input), dtype=dtype_arg("Cast", dtype))


def lgamma(input):
    """``log(|Gamma(x)|)``."""
    return _S.lgamma_p(input)


def digamma(input):
    """``d/dx lgamma(x)``."""
    return _S.digamma_p(input)


def polygamma(n, input):
    """The ``n``-th derivative of digamma (``n`` an int or 0-d integer tensor)."""
    from ._utils import static_int
    order = static_int("polygamma", "n", n)
    if order < 0:
        raise ValueError(f"For 'polygamma', 'n' must be non-negative, but got {order}.")
    if order == 0:
        return _S.digamma_p(input)
    return _S.polygamma_p(input, n=order)


def erfinv(input):
    """The inverse error function on (-1, 1)."""
    return _S.erfinv_p(input)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale ``x`` (a tensor or a tuple/list of tensors, clipped jointly) so its total
    ``norm_type``-norm is at most ``max_norm``: ``x * min(1, max_norm / (norm + 1e-6))``."""
    from ._reduce import vector_norm
    tensors = [as_tensor(t) for t in (x if isinstance(x, (tuple, list)) else [x])]
    norms = [vector_norm(t, norm_type) for t in tensors]
    if len(norms) == 1:
        total = norms[0]
    else:
        from ._array import stack
        total = vector_norm(stack(norms), norm_type)
    if error_if_nonfinite and not bool(M.isfinite_p(total).item()):
        raise RuntimeError(f"For 'clip_by_norm', the total norm of order {norm_type} is "
                           "non-finite, so it cannot be clipped.")
    scale = M.minimum_p(M.div_p(max_norm, M.add_p(total, 1e-6)), 1.0)
    clipped = [M.mul_p(t, cast_p(scale, dtype=t._data.dtype)) for t in tensors]
    return type(x)(clipped) if isinstance(x, (tuple, list)) else clipped[0]


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (norms clamped to ``eps``)."""
    from .._prims.reduce import sum_p, normalize_axis
    x1, x2 = as_tensor(x1), as_tensor(x2)
    axis = normalize_axis("cosine_similarity", dim, max(len(x1.shape), len(x2.shape)))
    dot = sum_p(M.mul_p(x1, x2), axis=axis, keepdims=False)
    n1 = M.sqrt_p(sum_p(M.mul_p(x1, x1), axis=axis, keepdims=False))
    n2 = M.sqrt_p(sum_p(M.mul_p(x2, x2), axis=axis, keepdims=False))
    return M.div_p(dot, M.maximum_p(M.mul_p(n1, n2), eps))


def pdist(input, p=2.0):
    """p-norm distances between every pair of rows (i < j) of an (N, M) tensor: shape
    ``(N*(N-1)/2,)``."""
    from .._prims.array import getitem_p
    from ._linalg import cdist
    input = as_tensor(input)
    if len(input.shape) != 2:
        raise ValueError(f"For 'pdist', the 'input' must be 2-D, but got {len(input.shape)}-D.")
    n = input.shape[0]
    rows, cols = np.triu_indices(n, k=1)
    full = cdist(input, input, p)
    from .._core.primitive import wrap
    return getitem_p(full, wrap(rows.astype(np.int64)), wrap(cols.astype(np.int64)),
                     spec=(("tensor", 0), ("tensor", 1)))


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
