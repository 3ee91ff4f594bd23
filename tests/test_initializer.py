"""``spore.common.initializer``: formulas (hand-derived from MindSpore 2.10's documented
definitions), statistics of large samples under a fixed seed, exact structure
(identity, Dirac, orthogonality, sparsity) and MindSpore's errors (probed)."""
import math

import numpy as np
import pytest

import spore as ms
from spore import Tensor
from spore.common import initializer as init
from spore.common.initializer import (Constant, Dirac, HeNormal, HeUniform, Identity,
                                      Initializer, Normal, One, Orthogonal, Sparse,
                                      TruncatedNormal, Uniform, VarianceScaling, XavierNormal,
                                      XavierUniform, Zero, initializer)


def _values(init_obj, shape, dtype=ms.float32):
    return initializer(init_obj, shape, dtype).asnumpy().astype(np.float64)


@pytest.fixture(autouse=True)
def _seeded():
    ms.set_seed(1234)


# --------------------------------------------------------------------------- names
def test_string_names_match_mindspore():
    # sorted(mindspore.common.initializer._INITIALIZER_ALIAS) on MindSpore 2.10
    assert sorted(init._INITIALIZER_ALIAS) == [
        'dirac', 'he_normal', 'he_uniform', 'henormal', 'heuniform', 'identity', 'normal',
        'one', 'ones', 'orthogonal', 'sparse', 'truncatednormal', 'uniform', 'variancescaling',
        'xavier_normal', 'xavier_uniform', 'xaviernormal', 'xavieruniform', 'zero', 'zeros']


@pytest.mark.parametrize("name,cls", [("zeros", Zero), ("ONES", One), ("normal", Normal),
                                      ("truncatedNormal", TruncatedNormal),
                                      ("xavier_uniform", XavierUniform),
                                      ("he_uniform", HeUniform), ("HeNormal", HeNormal)])
def test_names_are_case_insensitive(name, cls):
    assert init._INITIALIZER_ALIAS[name.lower()] is cls


# --------------------------------------------------------------------------- fans and gains
@pytest.mark.parametrize("shape,fans", [((30, 20), (20, 30)), ((8, 4, 3, 3), (36, 72)),
                                        ((6, 2, 5), (10, 30))])
def test_fan_in_and_fan_out(shape, fans):
    assert init._calculate_fan_in_and_fan_out(shape) == fans


@pytest.mark.parametrize("nonlinearity,param,gain", [
    ("linear", None, 1), ("conv2d", None, 1), ("sigmoid", None, 1), ("tanh", None, 5 / 3),
    ("relu", None, math.sqrt(2)), ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0, math.sqrt(2)), ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3))])
def test_gains(nonlinearity, param, gain):
    assert init._calculate_gain(nonlinearity, param) == pytest.approx(gain)


# --------------------------------------------------------------------------- constants
def test_constant_initializers():
    np.testing.assert_array_equal(_values('zeros', (2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(_values(One(), 3), np.ones(3))
    np.testing.assert_array_equal(_values(2.5, [2, 2]), np.full((2, 2), 2.5))
    np.testing.assert_array_equal(_values(Constant(-4), (3,)), [-4, -4, -4])


def test_identity_and_dirac():
    np.testing.assert_array_equal(_values('identity', (2, 3)), np.eye(2, 3))
    w = _values(Dirac(groups=2), (4, 2, 3, 5))
    want = np.zeros((4, 2, 3, 5))
    for g in range(2):
        for c in range(2):
            want[2 * g + c, c, 1, 2] = 1
    np.testing.assert_array_equal(w, want)


def test_dirac_convolution_passes_the_input_through():
    w = _values(Dirac(), (3, 3, 3))
    x = np.random.default_rng(0).normal(size=(3, 10))
    padded = np.pad(x, ((0, 0), (1, 1)))
    out = np.stack([sum(np.convolve(padded[c], w[o, c][::-1], "valid") for c in range(3))
                    for o in range(3)])
    np.testing.assert_allclose(out, x)


# --------------------------------------------------------------------------- distributions
N = (400, 500)     # 200k samples, fan_in 500, fan_out 400


def test_normal_and_uniform_defaults():
    a = _values('normal', N)
    assert abs(a.mean()) < 1e-4 and abs(a.std() - 0.01) < 1e-4
    b = _values('uniform', N)
    assert -0.07 <= b.min() < -0.0699 and 0.0699 < b.max() < 0.07
    assert abs(b.std() - 0.07 / math.sqrt(3)) < 3e-4


def test_normal_with_mean():
    a = _values(Normal(sigma=2.0, mean=5.0), N)
    assert abs(a.mean() - 5.0) < 0.02 and abs(a.std() - 2.0) < 0.02


def test_truncated_normal_bounds_are_absolute_values():
    """MindSpore 2.10: TruncatedNormal(sigma=1, a=-0.5, b=0.5) gives values in [-0.5, 0.5]
    with std 0.2835 (probed); the default (sigma 0.01, bounds ±2) is a plain N(0, 0.01²)."""
    a = _values(TruncatedNormal(sigma=1.0, a=-0.5, b=0.5), N)
    assert -0.5 <= a.min() < -0.499 and 0.499 < a.max() <= 0.5
    assert abs(a.std() - 0.2835) < 0.002
    b = _values(TruncatedNormal(sigma=1.0, mean=3.0, a=2.0, b=4.0), N)
    assert 2.0 <= b.min() and b.max() <= 4.0 and abs(b.mean() - 3.0) < 0.01
    assert abs(_values('truncatedNormal', N).std() - 0.01) < 1e-4


def test_xavier():
    bound = math.sqrt(6 / (500 + 400))
    a = _values('xavier_uniform', N)
    assert -bound <= a.min() < -0.999 * bound and 0.999 * bound < a.max() <= bound
    b = _values(XavierNormal(gain=2), N)
    assert abs(b.std() - 2 * math.sqrt(2 / 900)) < 3e-4
    c = _values(XavierUniform(gain=2), (8, 4, 3, 3))
    assert np.abs(c).max() <= 2 * math.sqrt(6 / (36 + 72))


def test_he_uniform_default_and_dense_default():
    bound = math.sqrt(2) * math.sqrt(3 / 500)          # leaky_relu with slope 0: gain √2
    a = _values('he_uniform', N)
    assert -bound <= a.min() < -0.999 * bound and 0.999 * bound < a.max() <= bound
    # nn.Dense's default HeUniform(negative_slope=√5) is U(-1/√fan_in, 1/√fan_in)
    b = _values(HeUniform(negative_slope=math.sqrt(5)), N)
    assert 0.999 / math.sqrt(500) < np.abs(b).max() <= 1 / math.sqrt(500) + 1e-7


def test_he_modes_and_nonlinearities():
    a = _values(HeUniform(mode='fan_out', nonlinearity='relu'), N)
    assert np.abs(a).max() <= math.sqrt(2) * math.sqrt(3 / 400) + 1e-7
    b = _values(HeNormal(nonlinearity='tanh'), N)
    assert abs(b.std() - 5 / 3 / math.sqrt(500)) < 3e-4
    c = _values('he_normal', N)
    assert abs(c.std() - math.sqrt(2 / 500)) < 3e-4


@pytest.mark.parametrize("mode,fan", [("fan_in", 500), ("fan_out", 400), ("fan_avg", 450)])
def test_variance_scaling(mode, fan):
    # MindSpore 2.10 samples 'truncated_normal' (the default) as a uniform of equal variance
    limit = math.sqrt(3 * 2.0 / fan)
    a = _values(VarianceScaling(scale=2.0, mode=mode), N)
    assert np.abs(a).max() <= limit + 1e-7 and np.abs(a).max() > 0.999 * limit
    b = _values(VarianceScaling(scale=2.0, mode=mode, distribution='untruncated_normal'), N)
    assert abs(b.std() - math.sqrt(2.0 / fan)) < 0.01 * math.sqrt(2.0 / fan)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3, 3)])
def test_orthogonal(shape):
    w = _values(Orthogonal(gain=2.0), shape).reshape(shape[0], -1)
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(w.shape)), atol=1e-5)


def test_sparse_zeroes_a_fixed_fraction_of_each_column():
    w = _values(Sparse(sparsity=0.3, sigma=1.0), (10, 200))
    np.testing.assert_array_equal((w == 0).sum(axis=0), 3)        # ceil(0.3 * 10)
    assert abs(w[w != 0].std() - 1.0) < 0.05


# --------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16, ms.float64])
def test_float_dtypes(dtype):
    t = initializer(Normal(1.0), (100_000,), dtype)
    assert t.dtype == dtype
    a = t.asnumpy().astype(np.float64)
    assert abs(a.std() - 1.0) < 0.02


def test_integer_dtypes_receive_truncated_values():
    t = initializer(Normal(10.0), (100_000,), ms.int32)
    a = t.asnumpy()
    # std of trunc(N(0, 10²)) is about 9.6 (MindSpore 2.10 gives 9.63)
    assert t.dtype == ms.int32 and abs(a.std() - 9.6) < 0.2
    np.testing.assert_array_equal(initializer(2.5, (2,), ms.int32).asnumpy(), [2, 2])


def test_scalar_shape():
    assert initializer('ones', ()).shape == ()
    assert initializer('normal', ()).shape == ()


# --------------------------------------------------------------------------- entry points
def test_initializer_returns_tensors_as_they_are():
    t = Tensor([1., 2.])
    assert initializer(t, (2,)) is t
    assert initializer(t) is t


def test_tensor_and_parameter_take_initializers():
    t = Tensor(shape=(2, 3), dtype=ms.float32, init=One())
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3)))
    p = ms.Parameter(initializer('zeros', [4], ms.float16), name="b")
    assert p.dtype == ms.float16 and p.shape == (4,)


def test_initializers_fill_numpy_arrays_in_place():
    arr = np.zeros((300, 200), np.float64)
    HeUniform()(arr)
    assert np.abs(arr).max() <= math.sqrt(6 / 200) and np.abs(arr).max() > 0.1


def test_custom_initializer_subclass():
    class Arange(Initializer):
        def _initialize(self, arr):
            arr[...] = np.arange(arr.size).reshape(arr.shape)

    np.testing.assert_array_equal(_values(Arange(), (2, 2)), [[0, 1], [2, 3]])
    with pytest.raises(NotImplementedError, match="Must be overridden"):
        Initializer()(np.zeros(2))


def test_initializers_follow_the_global_seed():
    inits = ['normal', 'uniform', 'truncatedNormal', 'xavier_uniform', 'xavier_normal',
             'he_uniform', 'he_normal', 'orthogonal', Sparse(0.5), 'variancescaling']

    def build(seed):
        ms.set_seed(seed)
        return [initializer(i, (8, 6)).asnumpy() for i in inits]

    first, again, other = build(5), build(5), build(6)
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)
    assert not np.array_equal(first[0], initializer('normal', (8, 6)).asnumpy())


# --------------------------------------------------------------------------- errors (probed)
ERRORS = [
    (lambda: initializer([1, 2], (2,)), TypeError, "the type of the 'init' argument should be"),
    (lambda: initializer('foo', (2,)), ValueError, "the class corresponding to 'foo' was not"),
    (lambda: initializer('ones', (2, 0)), ValueError, "must be positive integer"),
    (lambda: initializer('ones', (2, -1)), ValueError, "must be positive integer"),
    (lambda: initializer('ones'), ValueError, "'shape' must be given"),
    (lambda: initializer(Tensor([1., 2.]), (3,)), ValueError,
     "the shape of the 'init' argument should be same as the argument 'shape'"),
    (lambda: initializer('xavier_uniform', (3,)), ValueError,
     "'fan_in' and 'fan_out' can not be computed for tensor with fewer than 2 dimensions"),
    (lambda: initializer(HeUniform(mode='fan'), (3, 2)), ValueError, "'mode' fan not supported"),
    (lambda: initializer(HeUniform(nonlinearity='gelu'), (3, 2)), ValueError,
     "'nonlinearity' should be one of"),
    (lambda: initializer(HeUniform(negative_slope=True), (3, 2)), ValueError,
     "is not a valid number"),
    (lambda: initializer('identity', (2, 3, 4)), ValueError, "should be 2, but got 3"),
    (lambda: initializer(Dirac(), (4, 2)), ValueError, "dimension of 3, 4 or 5, but got 2"),
    (lambda: initializer(Dirac(groups=3), (4, 2, 3)), ValueError, "divisible by groups"),
    (lambda: initializer('orthogonal', (4,)), ValueError, "no less than 2"),
    (lambda: initializer(Sparse(0.5), (4,)), ValueError, "should be 2, but got 1"),
    (lambda: VarianceScaling(scale=0), ValueError, "'scale' must be greater than 0"),
    (lambda: VarianceScaling(mode='avg'), ValueError, "'mode' must be fan_in, fan_out"),
    (lambda: VarianceScaling(distribution='normal'), ValueError, "'distribution' must be"),
    (lambda: initializer(Normal(sigma=-1.0), (2,)), ValueError, "sigma < 0"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS)
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
