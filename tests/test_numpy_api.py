"""``spore.numpy`` (``mindspore.numpy``): values against NumPy, dtypes against MindSpore.

Dtypes and values marked "MindSpore 2.10" were produced by running the same calls with
``mindspore.numpy`` 2.10 (CPU).
"""
import numpy as np
import pytest

import spore as ms
import spore.numpy as mnp

T = ms.Tensor


def close(t, want, **kw):
    np.testing.assert_allclose(t.asnumpy(), want, **kw)


def test_reachable_as_ms_numpy():
    assert ms.numpy is mnp
    assert mnp.ndarray is ms.Tensor


# ----------------------------------------------------------------- creation
@pytest.mark.parametrize("call, dtype, value", [
    # MindSpore 2.10
    (lambda: mnp.array([1, 2]), ms.int32, [1, 2]),
    (lambda: mnp.array([1.0, 2]), ms.float32, [1.0, 2.0]),
    (lambda: mnp.array([True]), ms.bool_, [True]),
    (lambda: mnp.array(3), ms.int32, 3),
    (lambda: mnp.array([1, 2.5, True]), ms.float32, [1.0, 2.5, 1.0]),
    (lambda: mnp.array([[1, 2], [3, 4]]), ms.int32, [[1, 2], [3, 4]]),
    (lambda: mnp.array([1, 2], dtype=ms.float16), ms.float16, [1.0, 2.0]),
    (lambda: mnp.array(T(np.array([1, 2]))), ms.int64, [1, 2]),
    (lambda: mnp.array([T(1.0), T(2.0)]), ms.float32, [1.0, 2.0]),
    (lambda: mnp.asarray([1, 2]), ms.int32, [1, 2]),
    (lambda: mnp.asarray([1, 2], dtype=ms.float32), ms.float32, [1.0, 2.0]),
    (lambda: mnp.asfarray([1, 2]), ms.float32, [1.0, 2.0]),
    (lambda: mnp.zeros((2, 3)), ms.float32, np.zeros((2, 3))),
    (lambda: mnp.zeros(3, ms.int32), ms.int32, [0, 0, 0]),
    (lambda: mnp.ones(2), ms.float32, [1.0, 1.0]),
    (lambda: mnp.empty((2,)), ms.float32, [0.0, 0.0]),
    (lambda: mnp.full((2,), 3), ms.int32, [3, 3]),
    (lambda: mnp.full(2, 1.5), ms.float32, [1.5, 1.5]),
    (lambda: mnp.full((2,), True), ms.bool_, [True, True]),
    (lambda: mnp.full((2, 2), T(np.array([1, 2]))), ms.int64, [[1, 2], [1, 2]]),
    (lambda: mnp.zeros_like(T(np.array([1, 2]))), ms.int64, [0, 0]),
    (lambda: mnp.zeros_like(T(np.array([1, 2])), shape=(3,)), ms.int64, [0, 0, 0]),
    (lambda: mnp.ones_like(T(np.array([1, 2])), dtype=ms.float32), ms.float32, [1.0, 1.0]),
    (lambda: mnp.full_like(T(np.array([1, 2])), 2.7), ms.int64, [2, 2]),
    (lambda: mnp.full_like(mnp.ones(2), 2), ms.float32, [2.0, 2.0]),
    (lambda: mnp.empty_like(mnp.ones(2)), ms.float32, [0.0, 0.0]),
    (lambda: mnp.arange(3), ms.int32, [0, 1, 2]),
    (lambda: mnp.arange(1, 5), ms.int32, [1, 2, 3, 4]),
    (lambda: mnp.arange(5, 1, -1), ms.int32, [5, 4, 3, 2]),
    (lambda: mnp.arange(0, 1, 0.25), ms.float32, [0.0, 0.25, 0.5, 0.75]),
    (lambda: mnp.arange(0.5, 3), ms.float32, [0.5, 1.5, 2.5]),
    (lambda: mnp.arange(0, 3, 1.0), ms.float32, [0.0, 1.0, 2.0]),
    (lambda: mnp.arange(3, dtype=ms.float32), ms.float32, [0.0, 1.0, 2.0]),
    (lambda: mnp.linspace(0, 1, 5), ms.float32, [0.0, 0.25, 0.5, 0.75, 1.0]),
    (lambda: mnp.linspace(0, 10, 5, endpoint=False), ms.float32, [0.0, 2.0, 4.0, 6.0, 8.0]),
    (lambda: mnp.linspace(2, 3, 1), ms.float32, [2.0]),
    (lambda: mnp.linspace(0, 10, 6, dtype=ms.int32), ms.int32, [0, 2, 4, 6, 8, 10]),
    (lambda: mnp.logspace(0, 2, 3), ms.float32, [1.0, 10.0, 100.0]),
    (lambda: mnp.logspace(0, 3, 4, base=2), ms.float32, [1.0, 2.0, 4.0, 8.0]),
    (lambda: mnp.eye(2, 3, 1), ms.float32, [[0, 1, 0], [0, 0, 1]]),
    (lambda: mnp.eye(3, k=-1), ms.float32, np.eye(3, k=-1)),
    (lambda: mnp.eye(2, dtype=ms.int32), ms.int32, [[1, 0], [0, 1]]),
    (lambda: mnp.identity(2), ms.float32, [[1, 0], [0, 1]]),
])
def test_creation(call, dtype, value):
    out = call()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.asarray(value))


def test_array_options():
    assert mnp.array([1, 2], ndmin=3).shape == (1, 1, 2)
    src = np.array([1.0, 2.0])
    out = mnp.array(src)
    src[0] = 9.0
    assert out.dtype == ms.float64 and out.asnumpy()[0] == 1.0      # copied
    t = T(np.array([1.0], np.float32))
    assert mnp.asarray(t) is t


def test_linspace_retstep():
    values, step = mnp.linspace(0, 1, 5, retstep=True)
    assert values.shape == (5,) and step.dtype == ms.float32 and step.item() == 0.25


# ----------------------------------------------------------------- shapes and joining
def test_shape_functions():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = T(a)
    close(mnp.transpose(x), a.transpose())
    close(mnp.transpose(x, (1, 0, 2)), a.transpose(1, 0, 2))
    close(mnp.transpose(x, [2, 0, 1]), a.transpose(2, 0, 1))
    close(mnp.reshape(x, (4, -1)), a.reshape(4, -1))
    close(mnp.reshape(mnp.arange(6), 6), np.arange(6))
    close(mnp.ravel(x), a.ravel())
    close(mnp.swapaxes(x, 0, 2), a.swapaxes(0, 2))
    close(mnp.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    assert mnp.expand_dims(mnp.ones((2, 3)), (0, 3)).shape == (1, 2, 3, 1)  # MindSpore 2.10
    assert mnp.expand_dims(mnp.ones((2, 3)), -1).shape == (2, 3, 1)
    assert mnp.squeeze(mnp.ones((1, 2, 1))).shape == (2,)
    assert mnp.squeeze(mnp.ones((1, 2, 1)), 0).shape == (2, 1)
    assert mnp.squeeze(mnp.ones((1, 2, 1)), (0, 2)).shape == (2,)
    close(mnp.tile(T(np.array([1.0, 2.0])), 2), np.tile([1.0, 2.0], 2))
    close(mnp.broadcast_to(T(np.array([1.0, 2.0])), (3, 2)), np.broadcast_to([1.0, 2.0], (3, 2)))
    close(mnp.flip(x), np.flip(a))
    close(mnp.flip(x, 1), np.flip(a, 1))
    m = np.arange(9.0).reshape(3, 3)
    close(mnp.triu(T(m), 1), np.triu(m, 1))
    close(mnp.tril(T(m)), np.tril(m))
    close(mnp.diag(T(m)), np.diag(m))
    close(mnp.diag(T(m), 1), np.diag(m, 1))
    close(mnp.diag(T(np.array([1.0, 2.0]))), np.diag([1.0, 2.0]))


def test_joining_and_splitting():
    a, b = np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)
    close(mnp.concatenate((T(a), T(b))), np.concatenate((a, b)))
    close(mnp.concatenate((T(a), T(b)), axis=1), np.concatenate((a, b), 1))
    close(mnp.concatenate((T(a), T(b)), axis=None), np.concatenate((a, b), None))
    close(mnp.stack((T(a), T(b)), -1), np.stack((a, b), -1))
    close(mnp.hstack((T(a), T(b))), np.hstack((a, b)))
    close(mnp.vstack((T(a), T(b))), np.vstack((a, b)))
    parts = mnp.split(mnp.arange(6), 3)
    assert len(parts) == 3 and parts[0].dtype == ms.int32
    close(parts[2], [4, 5])
    assert [p.shape for p in mnp.split(mnp.arange(6), [1, 4])] == [(1,), (3,), (2,)]
    with pytest.raises(ValueError, match="split"):
        mnp.split(mnp.arange(5), 2)


def test_where():
    cond = T(np.array([True, False]))
    assert mnp.where(cond, 1, 2).dtype == ms.int32      # MindSpore 2.10
    out = mnp.where(cond, 1, 2.5)                      # MindSpore 2.10: Float32 [1, 2.5]
    assert out.dtype == ms.float32
    close(out, [1.0, 2.5])
    close(mnp.where(cond, T(np.array([1, 2])), T(np.array([3.0, 4.0]))), [1.0, 4.0])
    close(mnp.where(T(np.array([1, 0, 2])))[0], [0, 2])


# ----------------------------------------------------------------- math
UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos",
         "arctan", "arcsinh", "arctanh", "abs", "absolute", "negative", "square", "sign",
         "floor", "ceil", "trunc", "rint", "log2", "log10", "log1p", "expm1", "exp2",
         "reciprocal", "isnan", "isinf", "isfinite"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_numpy(name):
    a = np.array([0.1, 0.5, 0.9], np.float32)
    ref = getattr(np, name)
    close(getattr(mnp, name)(T(a)), ref(a), rtol=1e-6)


BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "mod",
          "remainder", "fmod", "maximum", "minimum", "fmax", "fmin", "arctan2", "equal",
          "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
          "logical_or", "logical_xor"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_numpy(name):
    a = np.array([[0.5, 1.5, 2.5]], np.float32)
    b = np.array([[1.0], [2.0]], np.float32)
    ref = getattr(np, name)
    close(mnp.__dict__[name](T(a), T(b)), ref(a, b), rtol=1e-6)
    close(mnp.__dict__[name](T(a), 2.0), ref(a, np.float32(2.0)), rtol=1e-6)


@pytest.mark.parametrize("call, dtype, value", [
    # MindSpore 2.10
    (lambda: mnp.sqrt(mnp.arange(3)), ms.float32, np.sqrt([0, 1, 2])),
    (lambda: mnp.sin(mnp.arange(3)), ms.float32, np.sin([0, 1, 2])),
    (lambda: mnp.abs(mnp.array([-1, 2])), ms.int32, [1, 2]),
    (lambda: mnp.exp(mnp.ones(3), dtype=ms.float16), ms.float16, np.full(3, np.e)),
    (lambda: mnp.sqrt(mnp.ones(2), dtype=ms.float16), ms.float16, [1.0, 1.0]),
    (lambda: mnp.exp([1.0, 2.0]), ms.float32, np.exp([1.0, 2.0])),
    (lambda: mnp.maximum(mnp.arange(3), mnp.ones(3)), ms.float32, [1, 1, 2]),
    (lambda: mnp.maximum(mnp.arange(3), 1), ms.int32, [1, 1, 2]),
    (lambda: mnp.maximum([1, 5], [3, 2]), ms.int32, [3, 5]),
    (lambda: mnp.minimum(mnp.arange(3), 1.5), ms.float32, [0, 1, 1.5]),
    (lambda: mnp.add(mnp.ones(2), mnp.ones(2), dtype=ms.int32), ms.int32, [2, 2]),
    (lambda: mnp.add(mnp.ones(2), 1), ms.float32, [2, 2]),
    (lambda: mnp.power(mnp.arange(3), 2), ms.int32, [0, 1, 4]),
    (lambda: mnp.divide(mnp.arange(3), 2), ms.float32, [0, 0.5, 1]),
    (lambda: mnp.float_power(mnp.arange(3), 2), ms.float64, [0, 1, 4]),
    (lambda: mnp.clip(mnp.arange(5), 1, 3), ms.int32, [1, 1, 2, 3, 3]),
    (lambda: mnp.clip(mnp.arange(5), 1.5, 3), ms.int32, [1, 1, 2, 3, 3]),
    (lambda: mnp.clip(mnp.arange(5), None, 3), ms.int32, [0, 1, 2, 3, 3]),
    (lambda: mnp.round(mnp.array([1.256, 3.5]), 1), ms.float32, [1.3, 3.5]),
    (lambda: mnp.isclose(mnp.ones(2), [1.0, 1.1]), ms.bool_, [True, False]),
])
def test_math_dtypes(call, dtype, value):
    out = call()
    assert out.dtype == dtype
    np.testing.assert_allclose(out.astype(ms.float64).asnumpy(), np.asarray(value, np.float64),
                               rtol=1e-3)


# ----------------------------------------------------------------- reductions
@pytest.mark.parametrize("call, dtype, value", [
    # MindSpore 2.10 (except std of integers: see test_std_of_integers)
    (lambda: mnp.mean(mnp.arange(4)), ms.int32, 1),
    (lambda: mnp.mean(mnp.ones((2, 3)), 1), ms.float32, [1, 1]),
    (lambda: mnp.mean(mnp.ones((2, 3)), dtype=ms.float16), ms.float16, 1),
    (lambda: mnp.mean(mnp.array([[1, 2], [4, 4]]), 1), ms.int32, [1, 4]),
    (lambda: mnp.sum(mnp.arange(4)), ms.int64, 6),
    (lambda: mnp.sum(T(np.array([True, True]))), ms.int64, 2),
    (lambda: mnp.sum(mnp.ones(3), initial=10), ms.float32, 13),
    (lambda: mnp.sum(mnp.ones((2, 3)), 1, keepdims=True), ms.float32, [[3], [3]]),
    (lambda: mnp.sum(mnp.ones((2, 3, 4)), (0, 2)), ms.float32, [8, 8, 8]),
    (lambda: mnp.nansum(mnp.array([1.0, np.nan])), ms.float32, 1),
    (lambda: mnp.std(mnp.array([1.0, 2, 3, 4]), ddof=1), ms.float32, 1.2909944),
    (lambda: mnp.std(mnp.array([[1.0, 2], [3, 5]]), 0), ms.float32, [1.0, 1.5]),
    (lambda: mnp.var(mnp.array([1.0, 2, 3, 4])), ms.float32, 1.25),
    (lambda: mnp.var(mnp.array([[1.0, 2], [3, 5]]), 1, keepdims=True), ms.float32,
     [[0.25], [1.0]]),
    (lambda: mnp.amax(mnp.array([[1.0, 5], [3, 2]]), 0), ms.float32, [3, 5]),
    (lambda: mnp.amax(mnp.array([[1.0, 5], [3, 2]]), 0, initial=4), ms.float32, [4, 5]),
    (lambda: mnp.amax(mnp.array([[1.0, 5], [3, 2]]), 0, initial=0,
                      where=T(np.array([True, False]))), ms.float32, [3, 0]),
    (lambda: mnp.amin(mnp.arange(4)), ms.int32, 0),
    (lambda: mnp.max(mnp.array([1.0, 3])), ms.float32, 3),
    (lambda: mnp.min(mnp.array([1.0, 3])), ms.float32, 1),
    (lambda: mnp.amax(mnp.arange(4)), ms.int32, 3),
    (lambda: mnp.ptp(mnp.array([1.0, 5, 3])), ms.float32, 4),
    (lambda: mnp.argmax(mnp.array([1.0, 5, 3])), ms.int64, 1),
    (lambda: mnp.argmin(mnp.array([3.0, 1, 2])), ms.int32, 1),
    (lambda: mnp.argmin(mnp.array([[3.0, 1], [0, 2]]), 1), ms.int32, [1, 0]),
    (lambda: mnp.cumsum(mnp.ones((2, 2))), ms.float32, [1, 2, 3, 4]),
    (lambda: mnp.cumsum(mnp.arange(3)), ms.int32, [0, 1, 3]),
    (lambda: mnp.cumsum(T(np.array([1, 2], np.int8))), ms.int32, [1, 3]),
    (lambda: mnp.cumsum(T(np.array([True, True]))), ms.int32, [1, 2]),
    (lambda: mnp.cumsum(mnp.ones((2, 2)), 1, ms.int32), ms.int32, [[1, 2], [1, 2]]),
    (lambda: mnp.count_nonzero(mnp.arange(3)), ms.int32, 2),
    (lambda: mnp.average(mnp.array([1.0, 2, 3]), weights=mnp.array([1.0, 1, 2])), ms.float32,
     2.25),
    (lambda: mnp.all(mnp.array([1, 0])), ms.bool_, False),
    (lambda: mnp.any(mnp.array([1, 0])), ms.bool_, True),
])
def test_reductions(call, dtype, value):
    out = call()
    assert out.dtype == dtype
    np.testing.assert_allclose(out.astype(ms.float64).asnumpy(), np.asarray(value, np.float64),
                               rtol=1e-5)


def test_std_of_integers():
    """Float32, and the true standard deviation. (MindSpore 2.10 subtracts a truncated
    integer mean first and reports 1.2247449 for arange(4); Spore does not copy that.)"""
    out = mnp.std(mnp.arange(4))
    assert out.dtype == ms.float32
    assert out.item() == pytest.approx(np.std([0, 1, 2, 3]), rel=1e-6)


def test_average_returned_and_axis():
    x = np.arange(6.0).reshape(2, 3)
    w = np.array([1.0, 2.0, 3.0])
    avg, scale = mnp.average(T(x), axis=1, weights=T(w), returned=True)
    close(avg, np.average(x, axis=1, weights=w))
    close(scale, [6.0, 6.0])


# ----------------------------------------------------------------- products
def test_products():
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    b = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    close(mnp.dot(T(a), T(b)), a @ b)
    close(mnp.dot(mnp.ones(3), mnp.ones(3)), 3.0)
    close(mnp.dot(mnp.ones((2, 3)), mnp.ones(3)), [3.0, 3.0])
    assert mnp.dot(mnp.arange(3), mnp.arange(3)).dtype == ms.int32   # MindSpore 2.10: Int32 5
    close(mnp.matmul(T(a), T(b)), a @ b)
    assert mnp.matmul(mnp.ones((2, 2)), mnp.ones((2, 2)), dtype=ms.float16).dtype == ms.float16
    close(mnp.tensordot(mnp.ones((2, 3, 4)), mnp.ones((3, 4, 5))), np.full((2, 5), 12.0))
    close(mnp.outer(mnp.arange(2), mnp.arange(3)), np.outer(np.arange(2), np.arange(3)))
    close(mnp.inner(mnp.arange(2), mnp.arange(2)), 1)
    close(mnp.kron(mnp.arange(2), mnp.arange(3)), np.kron(np.arange(2), np.arange(3)))
    close(mnp.trace(mnp.ones((3, 3))), 3.0)
    close(mnp.trace(T(np.arange(24.0).reshape(2, 3, 4)), 1, 1, 2),
          np.trace(np.arange(24.0).reshape(2, 3, 4), 1, 1, 2))
    with pytest.raises(TypeError, match="MatMul"):
        mnp.dot(mnp.arange(3), mnp.ones(3))                   # MindSpore 2.10: TypeError


# ----------------------------------------------------------------- random
def test_random_shapes_and_dtypes():
    ms.set_seed(5)
    assert mnp.randn(2, 3).shape == (2, 3) and mnp.randn(2, 3).dtype == ms.float32
    assert mnp.randn((32, 4)).shape == (32, 4)
    assert mnp.randn(2, dtype=ms.float64).dtype == ms.float64
    r = mnp.rand(1000)
    assert r.dtype == ms.float32 and 0.0 <= r.asnumpy().min() and r.asnumpy().max() < 1.0
    assert mnp.rand().shape == (1,)                               # MindSpore 2.10
    i = mnp.randint(5, shape=(200,))
    assert i.dtype == ms.int32 and set(i.asnumpy().tolist()) <= set(range(5))
    j = mnp.randint(1, 5, (200,))
    assert set(j.asnumpy().tolist()) == {1, 2, 3, 4}
    assert mnp.randint(1, 5).shape == (1,)
    with pytest.raises(ValueError, match="dtype"):
        mnp.randn(2, dtype=ms.int32)


def test_random_follows_the_global_seed():
    ms.set_seed(7)
    a = mnp.randn(4)
    ms.set_seed(7)
    np.testing.assert_array_equal(a.asnumpy(), mnp.randn(4).asnumpy())
    # the seed program's use: a Tensor made from an ms.numpy tensor
    assert T(mnp.randn(32, 8), ms.float32).shape == (32, 8)
