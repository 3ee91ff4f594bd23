"""Random ops: shape/dtype rules, distributions, gradients of location/scale, errors.

Random numbers cannot be compared with MindSpore's (different generators), so the
checks are: shapes and dtypes as MindSpore 2.10 gives them (probed), statistics of
large samples under a fixed seed (bounds are many standard errors wide, and the
seed is fixed, so they cannot flake), exact properties (permutations, distinct
draws) and MindSpore's error types/messages for bad input (probed).
"""
import math

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore._prims import random as RP
from spore import _random as R
from tests.helpers.optable import OpCase, case_id, run_forward, run_grad, run_infer


def _f32(*shape):
    return lambda rng: rng.uniform(0.1, 1.0, size=shape).astype(np.float32)


def _bool(*shape):
    return lambda rng: rng.uniform(size=shape) < 0.5


# --------------------------------------------------------------------------- shape/dtype table
# (dtypes and shapes as MindSpore 2.10 returns them, probed on its CPU build)
CASES = [
    OpCase("uniform", lambda: ops.uniform((2, 3), Tensor(0.), Tensor(1.)), None, [],
           out_dtype=ms.float32),
    OpCase("uniform-bcast", lambda lo: ops.uniform((2, 3), lo, Tensor(2.)), None, [(2, 2, 3)],
           out_dtype=ms.float32, id="uniform-bcast"),
    OpCase("uniform-int32", lambda: ops.uniform((4,), Tensor(1, ms.int32), Tensor(5, ms.int32),
                                                dtype=ms.int32), None, [], out_dtype=ms.int32),
    OpCase("normal", lambda m, s: ops.normal((3,), m, s), None, [(2, 1), ()],
           out_dtype=ms.float32),
    OpCase("normal-f64", lambda m: ops.normal((3,), m, 1.0), None, [(3,)], dtype=np.float64,
           out_dtype=ms.float64, id="normal-f64"),
    OpCase("standard_normal", lambda: ops.standard_normal((2, 3)), None, [],
           out_dtype=ms.float32),
    OpCase("rand", lambda: ops.rand(2, 3), None, [], out_dtype=ms.float32),
    OpCase("rand-f16", lambda: ops.rand((4,), dtype=ms.float16), None, [], out_dtype=ms.float16,
           id="rand-f16"),
    OpCase("rand-bf16", lambda: ops.rand(4, dtype=ms.bfloat16), None, [], out_dtype=ms.bfloat16,
           id="rand-bf16"),
    OpCase("randn-f64", lambda: ops.randn([2, 2], dtype=ms.float64), None, [],
           out_dtype=ms.float64, id="randn-f64"),
    OpCase("rand_like", ops.rand_like, None, [(2, 3)], dtype=np.float16, out_dtype=ms.float16),
    OpCase("randn_like", ops.randn_like, None, [(2, 3)], dtype=np.float64,
           out_dtype=ms.float32),     # MindSpore 2.10: randn_like defaults to float32
    OpCase("uniform_like", lambda x: ops.uniform_like(x, -1.0, 1.0), None, [(3,)],
           dtype=np.float64, out_dtype=ms.float64),
    OpCase("normal_like", lambda x: ops.normal_like(x, 2.0, 0.5), None, [(3,)],
           out_dtype=ms.float32),
    OpCase("exponential_like", ops.exponential_like, None, [(3,)], out_dtype=ms.float32),
    OpCase("randint", lambda: ops.randint(0, 10, (2, 3)), None, [], out_dtype=ms.int64),
    OpCase("randint-int32", lambda: ops.randint(-5, 5, (4,), dtype=ms.int32), None, [],
           out_dtype=ms.int32, id="randint-int32"),
    OpCase("randint_like", lambda x: ops.randint_like(x, 0, 10), None,
           [lambda rng: np.zeros(3, np.int32)], out_dtype=ms.int32),
    OpCase("random_like", lambda x: ops.random_like(x, 0, 10), None, [(3,)],
           out_dtype=ms.float32),
    OpCase("randperm", lambda: ops.randperm(8), None, [], out_dtype=ms.int64),
    OpCase("randperm-f32", lambda: ops.randperm(8, dtype=ms.float32), None, [],
           out_dtype=ms.float32, id="randperm-f32"),
    OpCase("shuffle", ops.shuffle, None, [(4, 3)], out_dtype=ms.float32),
    OpCase("bernoulli", ops.bernoulli, None, [(2, 3)], out_dtype=ms.float32),
    OpCase("bernoulli-int", lambda x: ops.bernoulli(x, 0.3), None,
           [lambda rng: np.arange(4)], out_dtype=ms.int64, id="bernoulli-int"),
    OpCase("multinomial", lambda p: ops.multinomial(p, 5), None, [_f32(4)],
           out_dtype=ms.int32),
    OpCase("multinomial-2d-norep", lambda p: ops.multinomial(p, 3, False), None, [_f32(2, 4)],
           out_dtype=ms.int32, id="multinomial-2d-norep"),
    OpCase("gamma", lambda a, b: ops.gamma((3, 1, 2), a, b), None, [_f32(2, 2), _f32(1)],
           out_dtype=ms.float32),
    OpCase("poisson", lambda m: ops.poisson((4, 1), m), None, [_f32(2)], out_dtype=ms.float32),
    OpCase("choice_with_mask", lambda x: ops.choice_with_mask(x, 4), None, [_bool(2, 3)]),
    OpCase("random_gamma", lambda a: ops.random_gamma(Tensor([3, 2], ms.int32), a), None,
           [_f32(3)], dtype=np.float16, out_dtype=ms.float16),
    OpCase("random_poisson", lambda r: ops.random_poisson(Tensor([3, 2]), r, dtype=ms.int32),
           None, [_f32(3)], dtype=np.float64, out_dtype=ms.int32),
    OpCase("standard_laplace", lambda: ops.standard_laplace((3, 2)), None, [],
           out_dtype=ms.float32),
    OpCase("laplace", lambda m, s: ops.laplace((3, 1), m, s), None, [(2,), _f32(1)],
           out_dtype=ms.float32),
    OpCase("random_categorical", lambda x: ops.random_categorical(x, 4), None, [(2, 3)],
           out_dtype=ms.int64),
    OpCase("random_categorical-int16", lambda x: ops.random_categorical(x, 4, dtype=ms.int16),
           None, [(1, 3)], out_dtype=ms.int16, id="random_categorical-int16"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_infer_agrees_with_kernel(case):
    ms.set_seed(0)
    run_forward(case)
    assert run_infer(case)


SHAPES = [
    (lambda: ops.rand(), (1,)),                     # MindSpore: rand() has shape (1,)
    (lambda: ops.rand((2, 3)), (2, 3)),
    (lambda: ops.randn(2, 3), (2, 3)),
    (lambda: ops.uniform((), Tensor(0.), Tensor(1.)), ()),
    (lambda: ops.uniform((2, 0), Tensor(0.), Tensor(1.)), (2, 0)),
    (lambda: ops.uniform(Tensor([2, 3]), Tensor(0.), Tensor(1.)), (2, 3)),
    (lambda: ops.uniform((2, 3), Tensor(np.zeros((2, 2, 3), np.float32)), Tensor(1.)),
     (2, 2, 3)),
    (lambda: ops.normal((3,), Tensor(np.zeros((2, 1), np.float32)), 1.0), (2, 3)),
    (lambda: ops.gamma((3, 1, 2), Tensor(np.ones((2, 2), np.float32)), Tensor([1.])),
     (3, 2, 2)),
    (lambda: ops.poisson((4, 1), Tensor([5., 10.])), (4, 2)),
    (lambda: ops.multinomial(Tensor([[1., 2.], [3., 4.], [1., 1.]]), 4), (3, 4)),
    (lambda: ops.multinomial(Tensor([1., 2.]), 0), (0,)),
    (lambda: ops.choice_with_mask(Tensor([True, False, True]))[0], (256, 1)),
    (lambda: ops.shuffle(Tensor(1.5)), ()),
    (lambda: ops.random_gamma(Tensor([3, 2], ms.int32), Tensor([1., 2., 3.])), (3, 2, 3)),
    (lambda: ops.random_poisson(Tensor([3, 2]), Tensor(np.ones((2, 2), np.float32))),
     (3, 2, 2, 2)),
    (lambda: ops.laplace((3, 1), Tensor([1., 2.]), Tensor(2.)), (3, 2)),
    (lambda: ops.random_categorical(Tensor(np.zeros((5, 3), np.float32)), 7), (5, 7)),
]


@pytest.mark.parametrize("fn,shape", SHAPES)
def test_output_shapes(fn, shape):
    assert fn().shape == shape


# --------------------------------------------------------------------------- distributions
N = 200_000


def _stats(t):
    a = t.asnumpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


def test_uniform_moments_and_range():
    ms.set_seed(1)
    mean, std, lo, hi = _stats(ops.uniform((N,), Tensor(-2.), Tensor(6.)))
    assert abs(mean - 2.0) < 0.05 and abs(std - 8 / math.sqrt(12)) < 0.02
    assert -2.0 <= lo < -1.99 and 5.99 < hi < 6.0


def test_uniform_int32_covers_the_half_open_range():
    ms.set_seed(1)
    a = ops.uniform((N,), Tensor(1, ms.int32), Tensor(5, ms.int32), dtype=ms.int32).asnumpy()
    counts = np.bincount(a, minlength=6)
    assert counts[0] == 0 and counts[5] == 0
    np.testing.assert_allclose(counts[1:5] / N, 0.25, atol=0.01)


def test_normal_moments():
    ms.set_seed(2)
    mean, std, _, _ = _stats(ops.normal((N,), 3.0, 0.5))
    assert abs(mean - 3.0) < 0.01 and abs(std - 0.5) < 0.01


def test_normal_broadcasts_one_sample_over_the_parameters():
    """MindSpore draws ``shape`` samples and broadcasts: rows with equal parameters are equal."""
    ms.set_seed(2)
    out = ops.normal((3,), Tensor(np.zeros((2, 1), np.float32)), Tensor(1.)).asnumpy()
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("fn", [lambda: ops.standard_normal((N,)), lambda: ops.randn(N),
                                lambda: ops.randn(N, dtype=ms.float64),
                                lambda: ops.randn_like(Tensor(np.zeros(N, np.float32)))])
def test_standard_normal_moments(fn):
    ms.set_seed(3)
    a = fn().asnumpy().astype(np.float64)
    assert abs(a.mean()) < 0.01 and abs(a.std() - 1) < 0.01
    assert abs(((a - a.mean()) ** 3).mean()) < 0.03          # symmetric
    assert abs(((a / a.std()) ** 4).mean() - 3) < 0.1         # normal kurtosis


@pytest.mark.parametrize("dtype", [ms.float16, ms.bfloat16, ms.float32, ms.float64])
def test_rand_lies_in_unit_interval(dtype):
    ms.set_seed(4)
    a = ops.rand(N, dtype=dtype).asnumpy().astype(np.float64)
    assert a.min() >= 0 and a.max() < 1
    assert abs(a.mean() - 0.5) < 0.01 and abs(a.std() - math.sqrt(1 / 12)) < 0.01


def test_randint_is_uniform_on_low_to_high_minus_one():
    ms.set_seed(5)
    a = ops.randint(-3, 4, (N,)).asnumpy()
    assert a.min() == -3 and a.max() == 3
    np.testing.assert_allclose(np.bincount(a + 3) / N, 1 / 7, atol=0.01)


def test_bernoulli_frequency_and_dtype():
    ms.set_seed(6)
    x = Tensor(np.zeros(N, np.float64))
    out = ops.bernoulli(x, 0.3)
    assert out.dtype == ms.float64
    a = out.asnumpy()
    assert set(np.unique(a)) == {0.0, 1.0} and abs(a.mean() - 0.3) < 0.01


def test_bernoulli_per_element_probabilities():
    ms.set_seed(6)
    p = np.tile(np.array([0.0, 0.25, 1.0], np.float32), (N // 3, 1))
    a = ops.bernoulli(Tensor(np.zeros(p.shape, np.int32)), Tensor(p)).asnumpy()
    assert a.dtype == np.int32
    np.testing.assert_allclose(a.mean(axis=0), [0.0, 0.25, 1.0], atol=0.01)
    assert a[:, 0].max() == 0 and a[:, 2].min() == 1


def test_multinomial_with_replacement_frequencies():
    ms.set_seed(7)
    w = np.array([0.0, 9.0, 4.0, 0.0, 7.0], np.float32)      # unnormalised weights
    a = ops.multinomial(Tensor(w), N).asnumpy()
    np.testing.assert_allclose(np.bincount(a, minlength=5) / N, w / w.sum(), atol=0.01)


def test_multinomial_without_replacement_draws_distinct_in_weighted_order():
    ms.set_seed(8)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    rows = 50_000
    a = ops.multinomial(Tensor(np.tile(w, (rows, 1)).astype(np.float32)), 2, False).asnumpy()
    assert np.all(a[:, 0] != a[:, 1])
    s = w.sum()
    first = w / s
    second = np.array([sum(w[i] / s * w[j] / (s - w[i]) for i in range(4) if i != j)
                       for j in range(4)])
    np.testing.assert_allclose(np.bincount(a[:, 0], minlength=4) / rows, first, atol=0.012)
    np.testing.assert_allclose(np.bincount(a[:, 1], minlength=4) / rows, second, atol=0.012)


def test_multinomial_without_replacement_takes_zero_weights_last():
    """As MindSpore (which ranks by log(u)/(w+1e-6)): positive weights first, then zeros."""
    ms.set_seed(8)
    a = ops.multinomial(Tensor([0., 9., 4., 0.]), 4, False).asnumpy()
    assert sorted(a[:2]) == [1, 2] and sorted(a[2:]) == [0, 3]


def test_gamma_moments_use_beta_as_scale():
    """MindSpore's density is exp(-x/beta) / (beta^alpha Gamma(alpha)): mean alpha*beta."""
    ms.set_seed(9)
    a = ops.gamma((N,), Tensor(3.0), Tensor(2.0)).asnumpy().astype(np.float64)
    assert abs(a.mean() - 6.0) < 0.05 and abs(a.var() - 12.0) < 0.3 and a.min() > 0


def test_random_gamma_and_random_poisson_moments():
    ms.set_seed(9)
    g = ops.random_gamma(Tensor([N], ms.int32), Tensor([0.5, 4.0], ms.float64)).asnumpy()
    np.testing.assert_allclose(g.mean(axis=0), [0.5, 4.0], rtol=0.02)
    np.testing.assert_allclose(g.var(axis=0), [0.5, 4.0], rtol=0.04)
    p = ops.random_poisson(Tensor([N]), Tensor([3.0]), dtype=ms.int64).asnumpy()[:, 0]
    assert abs(p.mean() - 3.0) < 0.03 and abs(p.var() - 3.0) < 0.06


def test_laplace_moments():
    """Laplace(mu, b): mean mu, variance 2 b^2, P(X < mu) = 1/2, E|X - mu| = b."""
    ms.set_seed(9)
    a = ops.laplace((N,), Tensor(1.5), Tensor(0.5)).asnumpy().astype(np.float64)
    assert abs(a.mean() - 1.5) < 0.01 and abs(a.var() - 0.5) < 0.01
    assert abs((a < 1.5).mean() - 0.5) < 0.01 and abs(np.abs(a - 1.5).mean() - 0.5) < 0.005
    assert np.all(np.isfinite(a))


def test_random_categorical_samples_the_softmax():
    ms.set_seed(9)
    logits = np.array([[0.0, 1.0, 2.0], [5.0, 0.0, 0.0]], np.float32)
    a = ops.random_categorical(Tensor(logits), N).asnumpy()
    want = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    for row in range(2):
        np.testing.assert_allclose(np.bincount(a[row], minlength=3) / N, want[row], atol=0.01)


def test_poisson_moments():
    ms.set_seed(10)
    a = ops.poisson((N, 2), Tensor([0.5, 30.0])).asnumpy().astype(np.float64)
    np.testing.assert_allclose(a.mean(axis=0), [0.5, 30.0], rtol=0.02)
    np.testing.assert_allclose(a.var(axis=0), [0.5, 30.0], rtol=0.03)
    assert np.all(a == np.round(a))


def test_exponential_moments():
    ms.set_seed(11)
    a = ops.exponential_like(Tensor(np.zeros(N, np.float32)), 4.0).asnumpy().astype(np.float64)
    assert a.min() >= 0 and abs(a.mean() - 0.25) < 0.005 and abs(a.std() - 0.25) < 0.005


def test_truncated_normal_primitive_stays_in_bounds():
    ms.set_seed(12)
    key = Tensor(R.key_array(R.next_key()))
    z = RP.truncated_normal_p(key, shape=(N,), a=-0.5, b=1.5, dtype=np.dtype(np.float32))
    a = z.asnumpy().astype(np.float64)
    assert -0.5 <= a.min() < -0.49 and 1.49 < a.max() <= 1.5
    # mean of N(0,1) truncated to [a, b]: (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)       # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))               # noqa: E731
    assert abs(a.mean() - (phi(-0.5) - phi(1.5)) / (cdf(1.5) - cdf(-0.5))) < 0.01


# --------------------------------------------------------------------------- exact properties
def test_randperm_is_a_permutation():
    out = ops.randperm(1000, seed=-1).asnumpy()
    np.testing.assert_array_equal(np.sort(out), np.arange(1000))
    assert not np.array_equal(out, np.arange(1000))


def test_randperm_seed_is_a_kernel_seed():
    """MindSpore: the default seed=0 gives the same permutation on every call; seed=-1 draws
    from the global state; offset moves to another stream."""
    np.testing.assert_array_equal(ops.randperm(50).asnumpy(), ops.randperm(50).asnumpy())
    assert not np.array_equal(ops.randperm(50, seed=1).asnumpy(), ops.randperm(50).asnumpy())
    assert not np.array_equal(ops.randperm(50, seed=1, offset=3).asnumpy(),
                              ops.randperm(50, seed=1).asnumpy())
    assert not np.array_equal(ops.randperm(50, seed=-1).asnumpy(),
                              ops.randperm(50, seed=-1).asnumpy())


def test_shuffle_permutes_the_first_axis_only():
    ms.set_seed(13)
    x = np.arange(60).reshape(20, 3)
    out = ops.shuffle(Tensor(x)).asnumpy()
    assert out.dtype == np.int64
    rows = sorted(map(tuple, out))
    assert rows == list(map(tuple, x)) and not np.array_equal(out, x)


def test_choice_with_mask_picks_distinct_true_positions():
    ms.set_seed(14)
    x = np.zeros((4, 5), bool)
    x[[0, 1, 3, 3], [2, 4, 0, 1]] = True
    index, mask = ops.choice_with_mask(Tensor(x), 6)
    index, mask = index.asnumpy(), mask.asnumpy()
    assert index.dtype == np.int32 and mask.dtype == np.bool_
    np.testing.assert_array_equal(mask, [True] * 4 + [False] * 2)
    picked = sorted(map(tuple, index[:4]))
    assert picked == sorted(zip(*np.nonzero(x)))
    np.testing.assert_array_equal(index[4:], 0)


def test_choice_with_mask_count_below_true_entries():
    ms.set_seed(14)
    index, mask = ops.choice_with_mask(Tensor(np.ones(10, bool)), 4)
    assert mask.asnumpy().all() and len(set(index.asnumpy()[:, 0])) == 4


def test_half_precision_uniforms_never_round_up_to_one():
    ms.set_seed(15)
    for dt in (ms.float16, ms.bfloat16):
        assert ops.rand(N, dtype=dt).asnumpy().astype(np.float64).max() < 1.0


# --------------------------------------------------------------------------- primitives
def test_random_primitives_are_pure_functions_of_their_key():
    key = Tensor(R.key_array((123, 4)))
    for prim, attrs in [(RP.uniform_real_p, {}), (RP.standard_normal_p, {})]:
        a = prim(key, shape=(5,), dtype=np.dtype(np.float32)).asnumpy()
        b = prim(key, shape=(5,), dtype=np.dtype(np.float32)).asnumpy()
        np.testing.assert_array_equal(a, b)
    other = RP.uniform_real_p(Tensor(R.key_array((123, 5))), shape=(5,),
                              dtype=np.dtype(np.float32)).asnumpy()
    assert not np.array_equal(other, RP.uniform_real_p(key, shape=(5,),
                                                       dtype=np.dtype(np.float32)).asnumpy())


def test_random_primitives_are_random_effects_without_gradients():
    for prim in (RP.uniform_real_p, RP.standard_normal_p, RP.truncated_normal_p,
                 RP.uniform_int_p, RP.randperm_p, RP.multinomial_p, RP.gamma_p, RP.poisson_p,
                 RP.choice_with_mask_p):
        assert prim.effect == "random" and prim.nondiff and prim.infer is not None


def test_key_must_be_a_uint64_pair():
    with pytest.raises(TypeError, match="'key' must be a UInt64 tensor of shape"):
        RP.uniform_real_p(Tensor([1, 2]), shape=(2,), dtype=np.dtype(np.float32))


# --------------------------------------------------------------------------- gradients
def _seeded(fn):
    """The same random draw on every call (finite differences call ``fn`` many times)."""
    def call(*args):
        ms.set_seed(21)
        return fn(*args)
    return call


def test_normal_gradients_by_reparameterisation():
    ms.set_seed(21)
    z = ops.standard_normal((3, 4)).asnumpy()
    gm, gs = ops.grad(_seeded(lambda m, s: ops.normal((3, 4), m, s).sum()), (0, 1))(
        Tensor(0.5), Tensor(2.0))
    assert float(gm.asnumpy()) == pytest.approx(12.0)
    assert float(gs.asnumpy()) == pytest.approx(float(z.sum()), rel=1e-5)


def test_normal_gradients_numerically():
    run_grad(OpCase("normal", _seeded(lambda m, s: ops.normal((3, 4), m, s)), None,
                    [(3, 4), (4,)], domain=(0.5, 2.0)))


def test_uniform_gradients_by_reparameterisation():
    """uniform = u * (maxval - minval) + minval: d/dminval = 1 - u, d/dmaxval = u."""
    ms.set_seed(21)
    u = ops.rand(3, 4).asnumpy().astype(np.float64)
    lo, hi = Tensor(np.full(4, -1.0, np.float32)), Tensor(np.full((3, 4), 2.0, np.float32))
    glo, ghi = ops.grad(_seeded(lambda a, b: ops.uniform((3, 4), a, b).sum()), (0, 1))(lo, hi)
    np.testing.assert_allclose(glo.asnumpy(), (1 - u).sum(axis=0), rtol=1e-5)
    np.testing.assert_allclose(ghi.asnumpy(), u, rtol=1e-5)


def test_samplers_pass_no_gradient_to_their_template():
    x = Tensor(np.ones(3, np.float32))
    g = ops.grad(lambda t: (ops.rand_like(t) * t).sum())(x)
    assert g.shape == (3,) and np.all(g.asnumpy() >= 0) and np.all(g.asnumpy() < 1)


# --------------------------------------------------------------------------- Tensor methods
def test_inplace_samplers_write_into_the_tensor():
    ms.set_seed(22)
    t = Tensor(np.zeros(N, np.float32))
    assert t.uniform_(2.0, 3.0) is t
    a = t.asnumpy()
    assert a.min() >= 2.0 and a.max() < 3.0 and abs(a.mean() - 2.5) < 0.01
    t.normal_(5.0, 0.1)
    assert abs(t.asnumpy().mean() - 5.0) < 0.01 and abs(t.asnumpy().std() - 0.1) < 0.01
    t.exponential_(2.0)
    assert abs(t.asnumpy().mean() - 0.5) < 0.01
    t.random_(3, 7)
    assert set(np.unique(t.asnumpy())) == {3.0, 4.0, 5.0, 6.0}
    t.bernoulli_(0.75)
    assert abs(t.asnumpy().mean() - 0.75) < 0.01


def test_random_without_upper_bound_uses_the_dtype_range():
    ms.set_seed(22)
    a = Tensor(np.zeros(1000, np.float16)).random_().asnumpy().astype(np.float64)
    assert a.min() >= 0 and a.max() <= 2 ** 11 and np.all(a == np.round(a))
    b = Tensor(np.zeros(1000, np.int8)).random_().asnumpy()
    assert b.min() >= 0 and b.max() <= 127 and b.max() > 100


def test_integer_tensor_uniform_receives_truncated_values():
    ms.set_seed(22)
    a = Tensor(np.zeros(1000, np.int32)).uniform_(0, 10).asnumpy()
    assert a.dtype == np.int32 and a.min() == 0 and a.max() == 9


def test_tensor_sampling_methods():
    ms.set_seed(23)
    p = Tensor(np.tile(np.array([0.0, 0.5, 1.0], np.float32), (N // 3, 1)))
    np.testing.assert_allclose(p.bernoulli().asnumpy().mean(axis=0), [0, 0.5, 1], atol=0.01)
    counts = np.bincount(Tensor([1.0, 3.0]).multinomial(N).asnumpy(), minlength=2)
    np.testing.assert_allclose(counts / N, [0.25, 0.75], atol=0.01)
    u = Tensor(np.zeros((2, 3), np.float64)).uniform(-1.0, 1.0)
    assert u.dtype == ms.float64 and u.shape == (2, 3)


# --------------------------------------------------------------------------- errors
# messages as MindSpore 2.10 prints them (probed), except where noted
ERRORS = [
    (lambda: ops.uniform((2,), 0., 1.), TypeError, r"input\[minval\] and input\[maxval\] must"),
    (lambda: ops.uniform((2,), Tensor(0.), Tensor(1.), dtype=ms.float64), TypeError,
     "doesn't support 'Float64'"),
    (lambda: ops.uniform((2,), Tensor(1), Tensor(5), dtype=ms.int32), TypeError,
     "value data type 'Int32' is not consistent with assigned tensor data type Int64"),
    (lambda: ops.uniform((2, -3), Tensor(0.), Tensor(1.)), ValueError,
     "1th dimension of input shape must be greater than or equal to 0, but got -3"),
    (lambda: ops.uniform((2,), Tensor(0.), Tensor(1.), seed=1.5), TypeError,
     "the 'seed' must be int"),
    (lambda: ops.uniform((2,), Tensor(0.), Tensor(1.), seed=-1), ValueError,
     "the 'seed' must be int and must >= 0"),
    (lambda: ops.normal([3], 0., 1.), TypeError, "Type of 'shape' must be tuple"),
    (lambda: ops.normal((3,), "a", 1.), TypeError, "the type of 'mean' must be Tensor, int"),
    (lambda: ops.rand(2, dtype=ms.int32), ValueError, "'dtype' must be a float type"),
    (lambda: ops.rand(2.0), TypeError, "must be one of \\['int', 'list', 'tuple'\\]"),
    (lambda: ops.rand(2, 2.0), TypeError, "must all be int"),
    (lambda: ops.randn(2, dtype=ms.int64), ValueError, "'dtype' must be a float type"),
    (lambda: ops.rand_like([1., 2.]), TypeError, "the 'input' must be a Tensor"),
    (lambda: ops.rand_like(Tensor([1, 2])), ValueError, "'dtype' must be a float type"),
    (lambda: ops.randint(0, 10, [2, 3]), ValueError, "the input 'size' must be a tuple"),
    (lambda: ops.randint(0, 10, (3,), dtype=ms.float32), ValueError, "must be an int type"),
    (lambda: ops.randint(0.5, 5, (3,)), TypeError, "'low' must be an int"),
    # MindSpore raises RuntimeError here; bad arguments raise ValueError in Spore
    (lambda: ops.randint(5, 5, (3,)), ValueError, "'low' must be less than 'high'"),
    (lambda: ops.randint_like(Tensor(np.zeros(2, np.float16)), 0, 3), ValueError,
     "must be an int type, but got Float16"),
    (lambda: ops.randperm(0), ValueError, "'n' must be greater than 0"),
    (lambda: ops.randperm(300, dtype=ms.uint8), ValueError, "too large for input 'dtype'"),
    (lambda: ops.shuffle([1, 2, 3]), TypeError, "must be Tensor"),
    (lambda: ops.bernoulli(Tensor(np.zeros((2, 3), np.float32)), Tensor([0., 1., .5])),
     ValueError, "'x' and 'p' should have same shape or 'p' have a size of 1"),
    (lambda: ops.bernoulli(Tensor([1.]), 1.5), ValueError, r"p should be in \[0, 1\]"),
    (lambda: ops.bernoulli(Tensor([1.]), Tensor(1)), TypeError, "argument\\[p\\] must be"),
    (lambda: ops.bernoulli(Tensor([1.]), 0.5, seed=3.0), TypeError, "type of 'seed' must be"),
    (lambda: ops.multinomial(Tensor(np.ones((2, 2, 2), np.float32)), 1), ValueError,
     "must be 1d or 2d, but got 3"),
    (lambda: ops.multinomial(Tensor([0., 9., 4., 0.]), 5, False), ValueError,
     "'num_samples' must be less than the last dimension"),
    (lambda: ops.multinomial(Tensor([1., 2.]), 1.0), TypeError, "num_samples"),
    (lambda: ops.multinomial(Tensor([1., -1.]), 1), ValueError, "finite and non-negative"),
    (lambda: ops.multinomial(Tensor([0., 0.]), 1), ValueError, "positive sum"),
    (lambda: ops.gamma((3,), 1., 1.), TypeError, "'alpha' must be Tensor\\[Float32\\]"),
    (lambda: ops.gamma((3,), Tensor(1., ms.float64), Tensor(1.)), TypeError,
     "'alpha' must be Tensor\\[Float32\\], but got Tensor\\[Float64\\]"),
    (lambda: ops.gamma((3,), Tensor(-1.), Tensor(1.)), ValueError, "greater than 0"),
    (lambda: ops.poisson([3], Tensor(5.)), TypeError, "type of 'shape' should be 'tuple'"),
    (lambda: ops.poisson((3,), Tensor(5)), TypeError,
     "'mean' must be Tensor\\[Float32\\], but got Tensor\\[Int64\\]"),
    (lambda: ops.choice_with_mask(Tensor([1., 0.]), 2), TypeError, "Tensor\\[Bool\\]"),
    (lambda: ops.choice_with_mask(Tensor([True]), 0), ValueError, "greater than 0"),
    (lambda: ops.random_gamma((3, 2), Tensor([1.])), TypeError, "'shape' must be a 1-D int"),
    (lambda: ops.random_poisson((3, 2), Tensor([1.])), TypeError, "'shape' must be a 1-D int"),
    (lambda: ops.random_poisson(Tensor([2]), Tensor([1])), TypeError, "must be a float tensor"),
    (lambda: ops.laplace((3,), 1., 2.), TypeError, "must be a Tensor"),
    (lambda: ops.random_categorical(Tensor([0., 1.]), 4), ValueError, "only support 2D"),
    (lambda: ops.random_categorical(Tensor([[0., 1.]]), 4, dtype=ms.float32), TypeError,
     "'dtype' must be Int16, Int32 or Int64"),
]


@pytest.mark.parametrize("fn,exc,match", ERRORS)
def test_bad_input_raises_like_mindspore(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
