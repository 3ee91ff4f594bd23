"""Elementwise ops: forward vs NumPy, shape/dtype rules, numerical gradients."""
import math

import numpy as np
from scipy import special

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

POS = (0.2, 2.0)      # domain for ops defined on positives
UNIT = (-0.9, 0.9)    # domain inside (-1, 1)

SHAPES = [((3, 4),), ((2, 3, 4),), ((),)]
PAIRS = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]


def _unary(name, ref, domain=(-2.0, 2.0), grad=True, **kw):
    return [OpCase(name, getattr(ops, name), ref, shape, domain=domain, grad=grad,
                   id=f"{name}-{shape}", **kw) for shape in SHAPES]


def _binary(name, ref, domain=(-2.0, 2.0), grad=True, **kw):
    return [OpCase(name, getattr(ops, name), ref, pair, domain=domain, grad=grad,
                   id=f"{name}-{pair}", **kw) for pair in PAIRS]


def _np_gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _np_softplus(x):
    return np.log1p(np.exp(x))


UNARY = (
    _unary("neg", np.negative) + _unary("abs", np.abs, domain=(0.1, 2)) +
    _unary("exp", np.exp) + _unary("expm1", np.expm1) + _unary("log", np.log, POS) +
    _unary("log1p", np.log1p, POS) + _unary("log2", np.log2, POS) +
    _unary("sqrt", np.sqrt, POS) + _unary("rsqrt", lambda x: 1 / np.sqrt(x), POS) +
    _unary("square", np.square) + _unary("reciprocal", np.reciprocal, POS) +
    _unary("sin", np.sin) + _unary("cos", np.cos) + _unary("tan", np.tan, UNIT) +
    _unary("asin", np.arcsin, UNIT) + _unary("acos", np.arccos, UNIT) +
    _unary("atan", np.arctan) + _unary("sinh", np.sinh) + _unary("cosh", np.cosh) +
    _unary("tanh", np.tanh) + _unary("asinh", np.arcsinh) +
    _unary("acosh", np.arccosh, (1.2, 3.0)) + _unary("atanh", np.arctanh, UNIT) +
    _unary("erf", special.erf) + _unary("erfc", special.erfc) +
    _unary("sigmoid", special.expit) + _unary("relu", lambda x: np.maximum(x, 0)) +
    _unary("relu6", lambda x: np.clip(x, 0, 6), domain=(-3, 9)) +
    _unary("silu", lambda x: x * special.expit(x)) +
    _unary("mish", lambda x: x * np.tanh(_np_softplus(x))) +
    _unary("softplus", _np_softplus) + _unary("softsign", lambda x: x / (1 + np.abs(x))) +
    _unary("hardsigmoid", lambda x: np.clip(x / 6 + 0.5, 0, 1), domain=(-5, 5)) +
    _unary("hardswish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), domain=(-5, 5)) +
    _unary("leaky_relu", lambda x: np.where(x > 0, x, 0.2 * x)) +
    _unary("elu", lambda x: np.where(x > 0, x, np.expm1(x))) +
    _unary("floor", np.floor, grad=False) + _unary("ceil", np.ceil, grad=False) +
    _unary("round", np.round, grad=False) + _unary("trunc", np.trunc, grad=False) +
    _unary("sign", np.sign, grad=False) +
    [OpCase("gelu-none", ops.gelu, lambda x: 0.5 * x * (1 + special.erf(x / math.sqrt(2))),
            (3, 4), id="gelu-none"),
     OpCase("gelu-tanh", lambda x: ops.gelu(x, approximate="tanh"), _np_gelu_tanh, (3, 4),
            id="gelu-tanh"),
     OpCase("nan_to_num", ops.nan_to_num, np.nan_to_num,
            [lambda r: np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)], grad=False),
     OpCase("clamp", lambda x: ops.clamp(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5),
            (3, 4)),
     OpCase("clamp-min", lambda x: ops.clamp(x, min=0.0), lambda x: np.maximum(x, 0.0),
            (3, 4)),
     OpCase("lerp", ops.lerp, lambda a, b, w: a + w * (b - a), [(3, 4), (3, 4), (3, 4)])]
)

BINARY = (
    _binary("add", np.add) + _binary("sub", np.subtract) + _binary("mul", np.multiply) +
    _binary("div", np.divide, domain=POS) + _binary("maximum", np.maximum) +
    _binary("minimum", np.minimum) + _binary("pow", np.power, domain=POS) +
    _binary("atan2", np.arctan2, domain=POS) + _binary("remainder", np.mod, domain=POS) +
    _binary("fmod", np.fmod, domain=POS) +
    _binary("floor_div", np.floor_divide, domain=POS, grad=False) +
    _binary("equal", np.equal, grad=False) + _binary("not_equal", np.not_equal, grad=False) +
    _binary("greater", np.greater, grad=False) + _binary("less", np.less, grad=False) +
    _binary("greater_equal", np.greater_equal, grad=False) +
    _binary("less_equal", np.less_equal, grad=False) +
    _binary("logical_and", np.logical_and, grad=False) +
    _binary("logical_or", np.logical_or, grad=False) +
    _binary("logical_xor", np.logical_xor, grad=False) +
    [OpCase("where", lambda c, x, y: ops.where(c > 0, x, y),
            lambda c, x, y: np.where(c > 0, x, y), [(3, 4), (3, 4), (4,)], grad_argnums=[1, 2]),
     OpCase("mul-scalar", lambda x: ops.mul(x, 2.5), lambda x: x * np.float32(2.5), (3, 4)),
     OpCase("rsub-scalar", lambda x: 1.0 - x, lambda x: 1.0 - x, (3, 4)),
     OpCase("rpow-scalar", lambda x: 2.0 ** x, lambda x: 2.0 ** x, (3, 4), rtol=1e-5)]
)

def _np_logit(p, eps=None):
    p = p if eps is None else np.clip(p, eps, 1 - eps)
    return np.log(p / (1 - p))


COMPOSITES = [
    OpCase("addcmul", lambda i, a, b: ops.addcmul(i, a, b, 0.5), lambda i, a, b: i + 0.5 * a * b,
           [(3, 4), (4,), (3, 1)]),
    OpCase("addcdiv", lambda i, a, b: ops.addcdiv(i, a, b, 2.0), lambda i, a, b: i + 2.0 * a / b,
           [(3, 4), (3, 4), (4,)], domain=POS),
    OpCase("addn", lambda a, b, c: ops.addn([a, b, c]), lambda a, b, c: a + b + c,
           [(2, 3), (2, 3), (2, 3)]),
    OpCase("logaddexp", ops.logaddexp, np.logaddexp, [(3, 4), (4,)]),
    OpCase("logaddexp-large", ops.logaddexp, np.logaddexp,
           [lambda r: np.array([800.0, -800.0, 3.0]), lambda r: np.array([799.0, -801.0, 3.5])]),
    OpCase("logaddexp2", ops.logaddexp2, np.logaddexp2, [(3, 4), (3, 4)]),
    OpCase("xlogy", ops.xlogy, lambda x, y: x * np.log(y),
           [lambda r: np.array([0.0, 1.5, 2.0]), lambda r: np.array([0.5, 2.0, 3.0])]),
    OpCase("xlogy-zeros", ops.xlogy, lambda x, y: np.where(x == 0, 0.0, x * np.log(y)),
           [lambda r: np.array([0.0, 0.0, 2.0]), lambda r: np.array([0.0, -1.0, 3.0])],
           grad=False),
    OpCase("xdivy", ops.xdivy, lambda x, y: x / y,
           [lambda r: np.array([0.0, 1.5, 2.0]), lambda r: np.array([0.5, 2.0, 3.0])]),
    OpCase("xdivy-zeros", ops.xdivy, lambda x, y: np.where(x == 0, 0.0, x / np.where(y == 0, 1, y)),
           [lambda r: np.array([0.0, 1.5]), lambda r: np.array([0.0, 2.0])], grad=False),
    OpCase("hypot", ops.hypot, np.hypot, [(3, 4), (3, 4)], domain=POS),
    OpCase("deg2rad", ops.deg2rad, np.deg2rad, (3, 4)),
    OpCase("rad2deg", ops.rad2deg, np.rad2deg, (3, 4), grad_rtol=1e-3),
    OpCase("logit", ops.logit, _np_logit, (3, 4), domain=(0.1, 0.9)),
    OpCase("logit-eps", lambda x: ops.logit(x, eps=0.2), lambda x: _np_logit(x, 0.2),
           [lambda r: np.array([0.0, 0.5, 0.7, 1.0])], grad=False),
    OpCase("float_power", ops.float_power, np.float_power, [(3, 4), (3, 4)], domain=POS,
           out_dtype=ms.float64),
    OpCase("frac", ops.frac, lambda x: x - np.trunc(x), (3, 4), domain=(-3.0, 3.0)),
    OpCase("truncate_mod", ops.truncate_mod, np.fmod, [(3, 4), (4,)], domain=POS),
    OpCase("inv", ops.inv, np.reciprocal, (3, 4), domain=POS),
    OpCase("sinc", ops.sinc, np.sinc, [lambda r: np.array([0.0, 0.3, -1.5, 2.25])]),
    OpCase("heaviside", ops.heaviside, np.heaviside,
           [lambda r: np.array([-1.5, 0.0, 2.0]), lambda r: np.array([0.5, 0.25, 0.75])],
           grad=False),
    OpCase("isposinf", ops.isposinf, np.isposinf,
           [lambda r: np.array([np.inf, -np.inf, 1.0])], grad=False),
    OpCase("isneginf", ops.isneginf, np.isneginf,
           [lambda r: np.array([np.inf, -np.inf, 1.0])], grad=False),
]



def _assigned(x, y):
    """An in-place copy inside a differentiated function (the tape's AssignValue)."""
    z = x * 1.0
    z.copy_(y)
    return z * x


PLUMBING = [
    OpCase("nan_to_num-finite", ops.nan_to_num, np.nan_to_num, (3, 4), id="nan_to_num-finite"),
    OpCase("identity", ops.identity, np.copy, (3, 4)),
    OpCase("positive", ops.positive, np.copy, (3, 4)),      # the Identity primitive
    OpCase("depend", ops.depend, lambda x, y: x, [(3,), (3,)], grad_argnums=[0]),
    OpCase("copy_-under-grad", _assigned, lambda x, y: y * x, [(3, 4), (3, 4)],
           id="copy_-under-grad"),
]

ALL = UNARY + BINARY + COMPOSITES + PLUMBING


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


# ----------------------------------------------------------------- properties
from hypothesis import given, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from tests.test_dtype_promotion import ADD_MUL, DIV, DTYPES  # noqa: E402  (probed tables)

_NAMES = sorted(DTYPES)


def _values(shape, name, seed):
    """Small values exactly representable in every dtype (no overflow, no rounding)."""
    a = np.random.default_rng(seed).integers(1, 4, size=shape).astype(np.float32)
    return ms.Tensor(a).astype(DTYPES[name])


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=3),
       st.sampled_from(_NAMES), st.sampled_from(_NAMES), st.sampled_from(["add", "mul", "div"]),
       st.integers(0, 2 ** 16))
def test_property_binary_broadcast_and_promotion(shapes, a_name, b_name, op, seed):
    (sa, sb), result_shape = shapes.input_shapes, shapes.result_shape
    x, y = _values(sa, a_name, seed), _values(sb, b_name, seed + 1)
    out = {"add": ops.add, "mul": ops.mul, "div": ops.div}[op](x, y)
    assert out.shape == result_shape
    assert str(out.dtype) == (DIV if op == "div" else ADD_MUL)[(a_name, b_name)]
    fx, fy = x.astype(ms.float64).asnumpy(), y.astype(ms.float64).asnumpy()
    want = {"add": np.add, "mul": np.multiply, "div": np.divide}[op](fx, fy)
    if out.dtype == ms.bool_:
        want = want != 0
    np.testing.assert_allclose(out.astype(ms.float64).asnumpy(), want, rtol=1e-2)


@given(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3), st.sampled_from(_NAMES),
       st.sampled_from(["exp", "sqrt", "sin", "tanh", "abs", "neg", "square"]),
       st.integers(0, 2 ** 16))
def test_property_unary_shapes_and_dtypes(shape, name, op, seed):
    x = _values(shape, name, seed)
    if op == "neg" and name in ("bool", "uint8"):
        return
    out = getattr(ops, op)(x)
    assert out.shape == tuple(shape)
    integral = name in ("bool", "int8", "uint8", "int16", "int32", "int64")
    if op in ("exp", "sqrt", "sin", "tanh"):
        assert out.dtype == (ms.float32 if integral else x.dtype)
    else:
        assert out.dtype == x.dtype
    ref = {"exp": np.exp, "sqrt": np.sqrt, "sin": np.sin, "tanh": np.tanh, "abs": np.abs,
           "neg": np.negative, "square": np.square}[op]
    want = ref(x.astype(ms.float64).asnumpy())
    np.testing.assert_allclose(out.astype(ms.float64).asnumpy(), want, rtol=1e-2, atol=1e-2)
