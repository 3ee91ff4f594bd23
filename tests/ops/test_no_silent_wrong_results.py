"""Inputs that used to give a wrong number with no error (issue 12): NaN through norms and
medians, integer and IEEE-special hypot, dtype arguments that are not dtypes, duplicate
axes and non-Bool conditions. Expected values were probed on MindSpore 2.10 (CPU)."""
import math

import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor


def T(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


# ----------------------------------------------------------------- norms and NaN
@pytest.mark.parametrize("call", [
    lambda x: ops.norm(x),
    lambda x: x.norm(),
    lambda x: ops.vector_norm(x),
    lambda x: ops.norm(x, 2, 0),
    lambda x: ops.norm(x.reshape(1, 2), "fro"),
    lambda x: ops.matrix_norm(x.reshape(1, 2)),
], ids=["norm", "Tensor.norm", "vector_norm", "norm-ord2-dim", "norm-fro", "matrix_norm"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_norm_of_nan_is_nan_and_so_is_its_gradient(call, dtype):
    # MindSpore 2.10: ops.norm([nan, 1]) -> nan; its gradient -> [nan, nan]
    x = T([np.nan, 1.0], dtype)
    assert np.isnan(call(x).asnumpy()).all()
    g = ops.grad(lambda t: call(t).sum())(x)
    assert np.isnan(g.asnumpy()).all()


@pytest.mark.parametrize("ord", [2, -2, "nuc"])
def test_spectral_norms_of_nan_are_nan(ord):
    # was: "SVD did not converge" from LAPACK (MindSpore 2.10 returns an arbitrary number)
    x = T([[[np.nan, 1.0], [1.0, 2.0]], [[3.0, 0.0], [0.0, 4.0]]])
    out = ops.matrix_norm(x, ord).asnumpy()
    assert np.isnan(out[0]) and np.isfinite(out[1])


def test_norm_of_inf_is_inf_and_normal_values_unchanged():
    assert ops.norm(T([np.inf, 1.0])).item() == math.inf
    assert ops.norm(T([np.inf, np.nan])).asnumpy() != ops.norm(T([np.inf, np.nan])).asnumpy()
    assert ops.norm(T([3.0, 4.0])).item() == 5.0
    np.testing.assert_allclose(ops.grad(lambda t: ops.norm(t))(T([3.0, 4.0])).asnumpy(),
                               [0.6, 0.8], rtol=1e-6)


def test_norm_gradient_at_zero_stays_the_zero_subgradient():
    # a deliberate difference (docs/compatibility.md): only exact zeros are guarded
    g = ops.grad(lambda t: ops.norm(t))(T([0.0, 0.0]))
    assert g.asnumpy().tolist() == [0.0, 0.0]


# ----------------------------------------------------------------- hypot
@pytest.mark.parametrize("a, b, dtype, expected", [
    (100, 100, np.int8, 141.42135),
    (50000, 0, np.int32, 50000.0),
    (True, True, np.bool_, 1.4142135),
    (3, 4, np.int64, 5.0),
    (200, 200, np.uint8, 282.84271),
])
def test_hypot_promotes_integers_before_squaring(a, b, dtype, expected):
    out = ops.hypot(T([a], dtype), T([b], dtype))
    assert out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), [expected], rtol=1e-6)


@pytest.mark.parametrize("a, b, expected", [
    (math.inf, math.nan, math.inf), (math.nan, -math.inf, math.inf),
    (-math.inf, 0.0, math.inf), (math.nan, 1.0, math.nan), (3e38, 3e38, math.inf),
])
def test_hypot_follows_ieee(a, b, expected):
    # MindSpore 2.10: hypot(inf, nan) = hypot(nan, -inf) = inf
    out = ops.hypot(T([a]), T([b])).item()
    assert out == expected or (math.isnan(expected) and math.isnan(out))


def test_hypot_does_not_overflow_in_float32_and_keeps_float_dtypes():
    np.testing.assert_allclose(ops.hypot(T([3e30]), T([4e30])).asnumpy(), [5e30], rtol=1e-6)
    assert ops.hypot(T([3.0], np.float64), T([4.0], np.float64)).dtype == ms.float64
    assert ops.hypot(T([3], np.int32), 4).asnumpy().tolist() == [5.0]


def test_hypot_gradient():
    from tests.helpers.optable import numerical_grad
    x, y = T([3.0, -1.0, 0.5], np.float64), T([4.0, 2.0, -0.25], np.float64)
    gx, gy = ops.grad(lambda a, b: ops.hypot(a, b).sum(), (0, 1))(x, y)
    arrays = [x.asnumpy().copy(), y.asnumpy().copy()]
    nx, ny = (numerical_grad(lambda a: np.hypot(*a).sum(), arrays, i) for i in (0, 1))
    np.testing.assert_allclose(gx.asnumpy(), nx, rtol=1e-6)
    np.testing.assert_allclose(gy.asnumpy(), ny, rtol=1e-6)


# ----------------------------------------------------------------- median
@pytest.mark.parametrize("values, axis, value, index", [
    ([np.nan, 1, 2], -1, [np.nan], [0]),                  # MindSpore 2.10: (nan, 0)
    ([1, np.nan, 2, np.nan], -1, [np.nan], [1]),          # the first NaN: (nan, 1)
    ([[1, np.nan, 2], [3, 1, 2]], 1, [np.nan, 2], [1, 2]),
    ([[1, np.nan, 2], [3, 1, 2]], 0, [1, np.nan, 2], [0, 0, 0]),
    ([4.0, 1, 2, 3], -1, [2.0], [2]),                     # no NaN: the lower median
])
def test_median_with_nan_is_nan_at_the_first_nan(values, axis, value, index):
    v, i = ops.median(T(values), axis)
    np.testing.assert_array_equal(np.atleast_1d(v.asnumpy()), np.array(value, np.float32))
    assert np.atleast_1d(i.asnumpy()).tolist() == index


def test_median_nan_gradient_goes_to_the_first_nan():
    g = ops.grad(lambda t: ops.median(t)[0])(T([2.0, np.nan, 1.0, np.nan]))
    assert g.asnumpy().tolist() == [0.0, 1.0, 0.0, 0.0]


# ----------------------------------------------------------------- dtype arguments
@pytest.mark.parametrize("dtype", [None, "bogus", 3, True])
def test_cast_rejects_what_is_not_a_dtype(dtype):
    # MindSpore 2.10: "For 'Cast', the input 'dtype' should be mindspore dtype, but got None."
    with pytest.raises(TypeError, match="For 'Cast', the input 'dtype' should be mindspore dtype"):
        ops.cast(T([1.0]), dtype)


def test_astype_errors_and_python_types():
    x = T([1.0])
    with pytest.raises(TypeError, match="For Tensor.astype, the input type"):
        x.astype(None)
    with pytest.raises(TypeError, match="For Tensor.astype, the string input type.*'bogus'"):
        x.astype("bogus")
    # MindSpore 2.10: astype(float) is Float64, astype(complex) Complex128 (NumPy's meaning)
    assert x.astype(float).dtype == ms.float64
    assert x.astype(complex).dtype == ms.complex128
    assert x.astype(int).dtype == ms.int64
    assert x.astype("float16").dtype == ms.float16


def test_tensor_to_checks_the_device():
    x = T([1.0])
    # MindSpore 2.10: ValueError 'Failed to convert the value "bogus" of input 'device' ...'
    for device in ("bogus", "GPU", "cuda", "float16", ""):
        with pytest.raises(ValueError, match="For 'Tensor.to', the 'device'"):
            x.to(device)
    with pytest.raises(ValueError, match="'device'"):
        x.to(device="bogus")
    with pytest.raises(TypeError, match="Tensor.to"):
        x.to(ms.float16, "cpu")
    with pytest.raises(TypeError, match="Tensor.to"):
        x.to(3)
    assert x.to("CPU") is x and x.to("cpu", ms.float16).dtype == ms.float16
    assert x.to(ms.float16).dtype == ms.float16 and x.to(dtype=ms.int32).dtype == ms.int32
    assert x.to(T([1], np.int32)).dtype == ms.int32
    assert x.to("cpu", ms.float16, True).dtype == ms.float16


# ----------------------------------------------------------------- axes and conditions
@pytest.mark.parametrize("call", [
    lambda x: ops.flip(x, (0, 0)), lambda x: ops.flip(x, (1, -1)),
    lambda x: x.flip((0, 0)),
])
def test_flip_rejects_duplicate_dims(call):
    # MindSpore 2.10: ValueError "For ReverseV2, 'axis' cannot contain duplicate dimensions"
    with pytest.raises(ValueError, match="For 'flip', the 'dims' cannot contain duplicate"):
        call(T([[1.0, 2.0], [3.0, 4.0]]))


def test_squeeze_keeps_mindspore_210_behaviour():
    # Probed on MindSpore 2.10: duplicate squeeze axes are accepted (each axis once), a
    # size-2 axis leaves the input unchanged
    x = T([[[1.0]]])
    assert ops.squeeze(x, (0, 0)).shape == (1, 1)
    assert x.squeeze((1, -2)).shape == (1, 1)
    assert ops.squeeze(T([[1.0, 2.0]]), 1).shape == (1, 2)


def test_other_mindspore_210_behaviours_kept():
    assert ops.outer(T([[1.0, 2.0], [3.0, 4.0]]), T([1.0, 2.0])).shape == (4, 2)
    assert ops.sum(T([1, 2], np.int32)).dtype == ms.int64


@pytest.mark.parametrize("cond_dtype", [np.float32, np.int32, np.uint8])
@pytest.mark.parametrize("call", [
    lambda c, x, y: ops.where(c, x, y), lambda c, x, y: ops.select(c, x, y),
    lambda c, x, y: ops.Select()(c, x, y), lambda c, x, y: x.where(c, y),
], ids=["where", "select", "Select", "Tensor.where"])
def test_where_needs_a_bool_condition(call, cond_dtype):
    # MindSpore 2.10: TypeError "Select CPU operator[Select] fail! Unsupported data type!"
    x, y = T([1.0, 2.0]), T([3.0, 4.0])
    with pytest.raises(TypeError, match="For 'Select', the 'condition' must be a Bool tensor"):
        call(T([1, 0], cond_dtype), x, y)
    assert call(T([True, False], np.bool_), x, y).asnumpy().tolist() == [1.0, 4.0]
