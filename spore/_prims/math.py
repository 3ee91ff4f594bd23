"""Elementwise math primitives, each with its gradient rule beside it.

Composite activations (gelu, silu, softplus, ...) are not primitives: they are
written with these in ``spore/ops/_math.py`` and need no rule of their own.
"""
from __future__ import annotations

import math

import numpy as np

from ._base import binary, unary, ufunc, grad_for, np_dtype, dtype_name
from .._core import primitive as P
from .._core.threads import MIN_CHEAP
from .._core.aval import ShapedArray, shape_of


# ----------------------------------------------------------------- binary arithmetic
add_p = binary("Add", ufunc("add"))
sub_p = binary("Sub", ufunc("subtract"))
mul_p = binary("Mul", ufunc("multiply"))
div_p = binary("Div", ufunc("true_divide"), "int_to_float")
floor_div_p = binary("FloorDiv", ufunc("floor_divide"), nondiff=True)
mod_p = binary("FloorMod", ufunc("mod"))
fmod_p = binary("Fmod", ufunc("fmod"))
maximum_p = binary("Maximum", ufunc("maximum"))
minimum_p = binary("Minimum", ufunc("minimum"))
atan2_p = binary("Atan2", ufunc("arctan2"), "int_to_float")
# Integers and bool are computed in Float32 *before* squaring (int8 100 would wrap), and
# the ufunc follows IEEE hypot: hypot(inf, nan) is inf.
hypot_p = binary("Hypot", ufunc("hypot"), "int_to_float")


def _make_pow(xp):
    def pow_(x, y):
        # integer ** negative integer: MindSpore truncates (2 ** -1 == 0), NumPy raises
        xk = getattr(x, "dtype", np.dtype(type(x))).kind
        yk = getattr(y, "dtype", np.dtype(type(y))).kind
        if xk in "iu" and yk in "iu" and xp.any(xp.asarray(y) < 0):
            dt = x.dtype if hasattr(x, "dtype") else y.dtype
            return xp.trunc(xp.power(xp.asarray(x, xp.float64), y)).astype(dt)
        return xp.power(x, y)
    return pow_


pow_p = binary("Pow", _make_pow)


# The rules below skip the cotangent of an input nobody differentiates (a label, a
# Python scalar, a frozen weight): see ``needed`` in Primitive.def_grad.
@add_p.def_grad(needed=True)
def _add_grad(attrs, inputs, out, dout, needed):
    x, y = inputs
    return (grad_for(x, dout) if needed[0] else None,
            grad_for(y, dout) if needed[1] else None)


@sub_p.def_grad(needed=True)
def _sub_grad(attrs, inputs, out, dout, needed):
    x, y = inputs
    return (grad_for(x, dout) if needed[0] else None,
            grad_for(y, neg_p(dout)) if needed[1] else None)


@mul_p.def_grad(inputs=(0, 1), needed=True)
def _mul_grad(attrs, inputs, out, dout, needed):
    x, y = inputs
    return (grad_for(x, mul_p(dout, y)) if needed[0] else None,
            grad_for(y, mul_p(dout, x)) if needed[1] else None)


@div_p.def_grad(inputs=(1,), output=True, needed=True)
def _div_grad(attrs, inputs, out, dout, needed):
    x, y = inputs
    gx = div_p(dout, y)
    return (grad_for(x, gx) if needed[0] else None,
            grad_for(y, neg_p(mul_p(gx, out))) if needed[1] else None)


@mod_p.def_grad(inputs=(0, 1))
def _mod_grad(attrs, inputs, out, dout):
    x, y = inputs
    return grad_for(x, dout), grad_for(y, neg_p(mul_p(dout, floor_div_p(x, y))))


@fmod_p.def_grad(inputs=(0, 1))
def _fmod_grad(attrs, inputs, out, dout):
    x, y = inputs
    return grad_for(x, dout), grad_for(y, neg_p(mul_p(dout, trunc_p(div_p(x, y)))))


@maximum_p.def_grad(inputs=(0, 1))
def _maximum_grad(attrs, inputs, out, dout):
    x, y = inputs
    pick_x = greater_equal_p(x, y)
    zero = zeros_like_value(dout)
    return (grad_for(x, where_p(pick_x, dout, zero)),
            grad_for(y, where_p(pick_x, zero, dout)))


@minimum_p.def_grad(inputs=(0, 1))
def _minimum_grad(attrs, inputs, out, dout):
    x, y = inputs
    pick_x = less_equal_p(x, y)
    zero = zeros_like_value(dout)
    return (grad_for(x, where_p(pick_x, dout, zero)),
            grad_for(y, where_p(pick_x, zero, dout)))


@atan2_p.def_grad(inputs=(0, 1))
def _atan2_grad(attrs, inputs, out, dout):
    y, x = inputs
    denom = add_p(mul_p(x, x), mul_p(y, y))
    g = div_p(dout, denom)
    return grad_for(y, mul_p(g, x)), grad_for(x, neg_p(mul_p(g, y)))


@hypot_p.def_grad(inputs=(0, 1), output=True)
def _hypot_grad(attrs, inputs, out, dout):
    x, y = inputs
    g = div_p(dout, out)
    return grad_for(x, mul_p(g, x)), grad_for(y, mul_p(g, y))


@pow_p.def_grad(inputs=(0, 1), output=True)
def _pow_grad(attrs, inputs, out, dout):
    x, y = inputs
    gx = mul_p(dout, mul_p(y, pow_p(x, sub_p(y, 1))))
    gy = None
    if not isinstance(y, (bool, int, float)):
        safe = greater_p(x, 0)
        logx = log_p(where_p(safe, x, 1))
        gy = mul_p(dout, mul_p(out, where_p(safe, logx, 0)))
    return grad_for(x, gx), (grad_for(y, gy) if gy is not None else None)


# ----------------------------------------------------------------- comparisons & logic
_BOOL = np.dtype(np.bool_)
equal_p = binary("Equal", ufunc("equal"), out_dtype=_BOOL, nondiff=True)
not_equal_p = binary("NotEqual", ufunc("not_equal"), out_dtype=_BOOL, nondiff=True)
greater_p = binary("Greater", ufunc("greater"), out_dtype=_BOOL, nondiff=True)
greater_equal_p = binary("GreaterEqual", ufunc("greater_equal"), out_dtype=_BOOL, nondiff=True)
less_p = binary("Less", ufunc("less"), out_dtype=_BOOL, nondiff=True)
less_equal_p = binary("LessEqual", ufunc("less_equal"), out_dtype=_BOOL, nondiff=True)
logical_and_p = binary("LogicalAnd", ufunc("logical_and"), out_dtype=_BOOL, nondiff=True)
logical_or_p = binary("LogicalOr", ufunc("logical_or"), out_dtype=_BOOL, nondiff=True)
logical_xor_p = binary("LogicalXor", ufunc("logical_xor"), out_dtype=_BOOL, nondiff=True)
logical_not_p = unary("LogicalNot", ufunc("logical_not"), out_dtype=_BOOL, nondiff=True)
bitwise_and_p = binary("BitwiseAnd", ufunc("bitwise_and"), "integer", nondiff=True)
bitwise_or_p = binary("BitwiseOr", ufunc("bitwise_or"), "integer", nondiff=True)
bitwise_xor_p = binary("BitwiseXor", ufunc("bitwise_xor"), "integer", nondiff=True)
invert_p = unary("Invert", ufunc("invert"), "integer", nondiff=True)
left_shift_p = binary("LeftShift", ufunc("left_shift"), "integer", nondiff=True)
right_shift_p = binary("RightShift", ufunc("right_shift"), "integer", nondiff=True)
isnan_p = unary("IsNan", ufunc("isnan"), out_dtype=_BOOL, nondiff=True)
isinf_p = unary("IsInf", ufunc("isinf"), out_dtype=_BOOL, nondiff=True)
isfinite_p = unary("IsFinite", ufunc("isfinite"), out_dtype=_BOOL, nondiff=True)


# ----------------------------------------------------------------- unary math
neg_p = unary("Neg", ufunc("negative"))
abs_p = unary("Abs", ufunc("absolute"))
sign_p = unary("Sign", ufunc("sign"), nondiff=True)
square_p = unary("Square", ufunc("square"))
exp_p = unary("Exp", ufunc("exp"), "int_to_float")
expm1_p = unary("Expm1", ufunc("expm1"), "int_to_float")
log_p = unary("Log", ufunc("log"), "int_to_float")
log1p_p = unary("Log1p", ufunc("log1p"), "int_to_float")
log2_p = unary("Log2", ufunc("log2"), "int_to_float")
sqrt_p = unary("Sqrt", ufunc("sqrt"), "int_to_float")
reciprocal_p = unary("Reciprocal", ufunc("reciprocal"), "int_to_float")
sin_p = unary("Sin", ufunc("sin"), "int_to_float")
cos_p = unary("Cos", ufunc("cos"), "int_to_float")
tan_p = unary("Tan", ufunc("tan"), "int_to_float")
asin_p = unary("Asin", ufunc("arcsin"), "int_to_float")
acos_p = unary("ACos", ufunc("arccos"), "int_to_float")
atan_p = unary("Atan", ufunc("arctan"), "int_to_float")
sinh_p = unary("Sinh", ufunc("sinh"), "int_to_float")
cosh_p = unary("Cosh", ufunc("cosh"), "int_to_float")
tanh_p = unary("Tanh", ufunc("tanh"), "int_to_float")
asinh_p = unary("Asinh", ufunc("arcsinh"), "int_to_float")
acosh_p = unary("Acosh", ufunc("arccosh"), "int_to_float")
atanh_p = unary("Atanh", ufunc("arctanh"), "int_to_float")


def _keep_int(fname):
    """floor/ceil/round/trunc: identity on integers (MindSpore's CPU kernel lacks them)."""
    def make(xp):
        f = getattr(xp, fname)
        return lambda x: x.copy() if x.dtype.kind in "biu" else f(x)
    return make


floor_p = unary("Floor", _keep_int("floor"), nondiff=True, chunks="cheap")
ceil_p = unary("Ceil", _keep_int("ceil"), nondiff=True, chunks="cheap")
round_p = unary("Round", _keep_int("rint"), nondiff=True, chunks="cheap")
trunc_p = unary("Trunc", _keep_int("trunc"), nondiff=True, chunks="cheap")


def _make_rsqrt(xp):
    def rsqrt(x):
        r = xp.asarray(xp.sqrt(x))        # 0-d ufunc results are scalars: keep an array
        return xp.reciprocal(r, out=r)
    return rsqrt


rsqrt_p = unary("Rsqrt", _make_rsqrt, "int_to_float", chunks="costly")


def _make_sigmoid(xp):
    def stable(x):
        e = xp.asarray(xp.abs(x))         # 0-d ufunc results are scalars: keep an array
        xp.negative(e, out=e)
        xp.exp(e, out=e)                  # e = exp(-|x|): never overflows
        r = xp.asarray(e + 1)
        xp.reciprocal(r, out=r)           # 1 / (1 + e)
        return xp.where(x >= 0, r, e * r)

    def sigmoid(x):
        if x.dtype.itemsize < 4:          # float16 would lose its small outputs
            return stable(x)
        # 1 / (1 + exp(-x)) in three passes: exp overflows to inf only where the
        # true value is below float32's normal range, and 1 / inf is its 0 (NumPy's
        # overflow warning is hidden as every kernel's is: NOTE: [Quiet kernels]; an
        # errstate here cost as much as the three passes on small arrays)
        e = xp.asarray(xp.negative(x))
        xp.exp(e, out=e)
        e += 1
        return xp.reciprocal(e, out=e)
    return sigmoid


sigmoid_p = unary("Sigmoid", _make_sigmoid, "int_to_float", chunks="costly")


def _make_relu(xp):
    def relu(x):
        return xp.maximum(x, x.dtype.type(0))
    return relu


relu_p = unary("ReLU", _make_relu, chunks="cheap")


def _erf_numpy(x):
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover - exercised by test_erf_fallback
        return erf_fallback(x)
    return erf(x)


def erf_fallback(x):
    """Exact (libm) erf for hosts without SciPy: slower, same values."""
    f = np.frompyfunc(math.erf, 1, 1)
    return f(x).astype(x.dtype)


def _make_erf(xp):
    if xp is np:
        return _erf_numpy
    from cupyx.scipy.special import erf  # pragma: no cover - GPU only
    return erf


def _make_erfc(xp):
    if xp is np:
        def erfc(x):
            try:
                from scipy.special import erfc as f
            except ImportError:  # pragma: no cover
                return (1.0 - erf_fallback(x.astype(np.float64))).astype(x.dtype)
            return f(x)
        return erfc
    from cupyx.scipy.special import erfc  # pragma: no cover
    return erfc


erf_p = unary("Erf", _make_erf, "int_to_float", chunks="costly")
erfc_p = unary("Erfc", _make_erfc, "int_to_float", chunks="costly")


def _make_nan_to_num(xp):
    def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
        return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
    return nan_to_num


nan_to_num_p = unary("NanToNum", _make_nan_to_num, chunks="cheap")


# ----------------------------------------------------------------- fused activation gradients
# The backward passes of tanh and ReLU as one dispatch each instead of three (they run
# once per layer per step); MindSpore has the same TanhGrad and ReluGrad primitives.
def _make_tanh_grad(xp):
    def tanh_grad(y, dy):
        return dy * (1 - y * y)                     # y = tanh(x)
    return tanh_grad


def _make_relu_grad(xp):
    def relu_grad(dy, y):
        return dy * (y > 0).astype(dy.dtype)        # y = relu(x)
    return relu_grad


tanh_grad_p = binary("TanhGrad", _make_tanh_grad, "float", chunks="cheap")
relu_grad_p = binary("ReluGrad", _make_relu_grad, chunks="cheap")


@tanh_grad_p.def_grad(inputs=(0, 1), needed=True)
def _tanh_grad_grad(attrs, inputs, out, c, needed):
    y, dy = inputs
    return (grad_for(y, mul_p(mul_p(c, dy), mul_p(y, -2))) if needed[0] else None,
            grad_for(dy, tanh_grad_p(y, c)) if needed[1] else None)


@relu_grad_p.def_grad(inputs=(1,))
def _relu_grad_grad(attrs, inputs, out, c):
    dy, y = inputs
    return grad_for(dy, relu_grad_p(c, y)), None   # piecewise constant in y


# ----------------------------------------------------------------- gradient rules
def _rule(prim, fn, inputs=(0,), output=False):
    """Register ``fn(x, out, dout) -> dx`` as the rule of a unary primitive."""
    @prim.def_grad(inputs=inputs, output=output)
    def rule(attrs, ins, out, dout):
        x = ins[0]
        return (grad_for(x, fn(x, out, dout)),)
    return rule


_rule(neg_p, lambda x, out, g: neg_p(g), inputs=())
_rule(abs_p, lambda x, out, g: mul_p(g, sign_p(x)))
_rule(square_p, lambda x, out, g: mul_p(g, mul_p(x, 2)))
_rule(exp_p, lambda x, out, g: mul_p(g, out), inputs=(), output=True)
_rule(expm1_p, lambda x, out, g: mul_p(g, add_p(out, 1)), inputs=(), output=True)
_rule(log_p, lambda x, out, g: div_p(g, x))
_rule(log1p_p, lambda x, out, g: div_p(g, add_p(x, 1)))
_rule(log2_p, lambda x, out, g: div_p(g, mul_p(x, math.log(2.0))))
_rule(sqrt_p, lambda x, out, g: div_p(g, mul_p(out, 2)), inputs=(), output=True)
_rule(rsqrt_p, lambda x, out, g: mul_p(g, mul_p(pow_p(out, 3), -0.5)), inputs=(), output=True)
_rule(reciprocal_p, lambda x, out, g: neg_p(mul_p(g, mul_p(out, out))), inputs=(), output=True)
_rule(sin_p, lambda x, out, g: mul_p(g, cos_p(x)))
_rule(cos_p, lambda x, out, g: neg_p(mul_p(g, sin_p(x))))
_rule(tan_p, lambda x, out, g: mul_p(g, add_p(mul_p(out, out), 1)), inputs=(), output=True)
_rule(asin_p, lambda x, out, g: mul_p(g, rsqrt_p(sub_p(1, mul_p(x, x)))))
_rule(acos_p, lambda x, out, g: neg_p(mul_p(g, rsqrt_p(sub_p(1, mul_p(x, x))))))
_rule(atan_p, lambda x, out, g: div_p(g, add_p(mul_p(x, x), 1)))
_rule(sinh_p, lambda x, out, g: mul_p(g, cosh_p(x)))
_rule(cosh_p, lambda x, out, g: mul_p(g, sinh_p(x)))
_rule(tanh_p, lambda x, out, g: tanh_grad_p(out, g), inputs=(), output=True)
_rule(asinh_p, lambda x, out, g: mul_p(g, rsqrt_p(add_p(mul_p(x, x), 1))))
_rule(acosh_p, lambda x, out, g: mul_p(g, rsqrt_p(sub_p(mul_p(x, x), 1))))
_rule(atanh_p, lambda x, out, g: div_p(g, sub_p(1, mul_p(x, x))))
_rule(sigmoid_p, lambda x, out, g: mul_p(g, mul_p(out, sub_p(1, out))), inputs=(), output=True)
_rule(relu_p, lambda x, out, g: relu_grad_p(g, out), inputs=(), output=True)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_rule(erf_p, lambda x, out, g: mul_p(g, mul_p(exp_p(neg_p(mul_p(x, x))), _TWO_OVER_SQRT_PI)))
_rule(erfc_p, lambda x, out, g: mul_p(g, mul_p(exp_p(neg_p(mul_p(x, x))), -_TWO_OVER_SQRT_PI)))
_rule(nan_to_num_p, lambda x, out, g: mul_p(g, cast_bool_like(isfinite_p(x), g)))


# ----------------------------------------------------------------- where
def _make_where(xp):
    def where(cond, x, y):
        return xp.where(cond, x, y)
    return where


def _where_infer(attrs, cond, x, y):
    from ._base import broadcast_shapes, common_dtype
    _check_condition(cond)
    shape = broadcast_shapes("Select", shape_of(cond), shape_of(x), shape_of(y))
    return ShapedArray(shape, common_dtype([x, y]))


def _check_condition(cond):
    """MindSpore's Select takes only a Bool condition (a float mask is a TypeError, not a
    silent ``!= 0``)."""
    if isinstance(cond, bool):
        return
    d = getattr(cond, "dtype", None)
    if d is None or np.dtype(d) != _BOOL:
        got = type(cond).__name__ if d is None else dtype_name(d)
        raise TypeError(f"For 'Select', the 'condition' must be a Bool tensor, but got {got}.")


def _where_prepare(args):
    """Promote the two value inputs as MindSpore does; the condition must be bool."""
    from ._base import common_dtype
    cond, x, y = [P._unwrap_input(where_p, a) for a in args]
    _check_condition(cond)
    if x is None or y is None:
        raise TypeError("For 'Select', the 'input' and 'other' must be Tensors or numbers, "
                        "but got None.")
    dt = common_dtype([x, y])
    x = x.astype(dt) if not isinstance(x, (bool, int, float, complex)) and x.dtype != dt else x
    y = y.astype(dt) if not isinstance(y, (bool, int, float, complex)) and y.dtype != dt else y
    if isinstance(x, (bool, int, float, complex)) and isinstance(y, (bool, int, float, complex)):
        x = np.asarray(x, dtype=dt)
    return [cond, x, y]


where_p = P.Primitive("Select", _make_where, kind="elementwise", n_inputs=3, infer=_where_infer,
                      prepare=_where_prepare).chunked(MIN_CHEAP, composite=True)


@where_p.def_grad(inputs=(0,))
def _where_grad(attrs, inputs, out, dout):
    cond, x, y = inputs
    zero = zeros_like_value(dout)
    return None, grad_for(x, where_p(cond, dout, zero)), grad_for(y, where_p(cond, zero, dout))


# ----------------------------------------------------------------- small helpers for rules
def zeros_like_value(t):
    """A zero that broadcasts against ``t`` and takes its dtype (a weak Python scalar)."""
    return 0


def cast_bool_like(mask, g):
    from .array import cast_p
    return cast_p(mask, dtype=np_dtype(g))


# ----------------------------------------------------------------- vectorised float32 kernels
# NOTE: [Vectorised unary kernels] (spore/_prims/vecmath.py): with Numba, large float32
# tanh, exp, sigmoid and erf run one-pass vectorised loops, in both modes.
from . import vecmath as _vecmath  # noqa: E402

_vecmath.install(tanh_p, _vecmath.tanh_loop)
_vecmath.install(exp_p, _vecmath.exp_loop)
_vecmath.install(sigmoid_p, _vecmath.sigmoid_loop)
_vecmath.install(erf_p, _vecmath.erf_loop)
