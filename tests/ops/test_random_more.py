"""Random primitive classes and samplers of MindSpore 2.10's ops surface (Gamma, Poisson,
TruncatedNormal, ParameterizedTruncatedNormal, Cauchy, LogNormalReverse, Randperm,
candidate samplers, ...): shapes and dtypes as MindSpore gives them (probed), moments and
Kolmogorov-Smirnov distances with fixed seeds and generous bounds, seeds reproducing, and
capture in Graph mode."""
import math

import numpy as np
import pytest

import spore as ms
from spore import ops

i32 = lambda *v: ms.Tensor(np.array(v, np.int32))        # noqa: E731
f32 = lambda *v: ms.Tensor(np.array(v, np.float32))      # noqa: E731


def _ks(sample, cdf):
    """The Kolmogorov-Smirnov distance of a sample from a CDF."""
    x = np.sort(np.asarray(sample, np.float64).ravel())
    n = x.size
    c = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - c), np.max(c - np.arange(n) / n))


def _normal_cdf(x):
    return 0.5 * np.vectorize(math.erfc)(-np.asarray(x) / math.sqrt(2))


# ----------------------------------------------------------------- shapes and dtypes (probed)
@pytest.mark.parametrize("make, shape, dtype", [
    (lambda: ops.Gamma(seed=3)((3, 2), f32(1, 2), f32(1, 1)), (3, 2), ms.float32),
    (lambda: ops.Poisson(seed=3)((3, 2), f32(1, 2)), (3, 2), ms.float32),
    (lambda: ops.RandomGamma(seed=3)(i32(3, 2), f32(1, 2)), (3, 2, 2), ms.float32),
    (lambda: ops.RandomPoisson(seed=3)(i32(3, 2), f32(1, 2)), (3, 2, 2), ms.int64),
    (lambda: ops.RandomPoisson(dtype=ms.int32)(i32(3, 2), f32(1, 2)), (3, 2, 2), ms.int32),
    (lambda: ops.TruncatedNormal(seed=3)(i32(3, 2)), (3, 2), ms.float32),
    (lambda: ops.TruncatedNormal(dtype=ms.float16)(i32(3, 2)), (3, 2), ms.float16),
    (lambda: ops.ParameterizedTruncatedNormal(seed=3)(i32(2, 3), f32(0, 1), f32(1, 1),
                                                      f32(-1, 0), f32(1, 2)), (2, 3), ms.float32),
    (lambda: ops.ParameterizedTruncatedNormal()(i32(2, 3), *[ms.Tensor(np.array([v]))
                                                             for v in (0.0, 1.0, -1.0, 1.0)]),
     (2, 3), ms.float64),
    (lambda: ops.StandardLaplace(seed=3)((3, 2)), (3, 2), ms.float32),
    (lambda: ops.StandardLaplace(seed=3)(i32(3, 2)), (3, 2), ms.float32),
    (lambda: ops.Cauchy([3, 2], 1.0, 2.0)(), (3, 2), ms.float32),
    (lambda: ops.LogNormalReverse(1.0, 2.0)(ms.Tensor(np.zeros((3, 2), np.float16))), (3, 2),
     ms.float16),
    (lambda: ops.Randperm(max_length=8, pad=-1)(i32(5)), (8,), ms.int32),
    (lambda: ops.RandpermV2(seed=1)(5), (5,), ms.int64),
    (lambda: ops.RandomCategorical(ms.int32)(f32(0, 0).reshape(1, 2), 4, 3), (1, 4), ms.int32),
    (lambda: ops.MultinomialWithReplacement(5, True)(f32(0, 9, 4, 0).reshape(1, 4),
                                                     ms.Tensor(2, ms.int64),
                                                     ms.Tensor(0, ms.int64)), (1, 5), ms.int64),
    (lambda: ops.multinomial_with_replacement(f32(0, 9, 4, 0), 2, 0, 2, False), (2,), ms.int64),
    (lambda: ops.RandomShuffle(seed=1)(ms.Tensor(np.arange(6.0).reshape(3, 2))), (3, 2),
     ms.float64),
    (lambda: ops.NonDeterministicInts()(i32(2, 2)), (2, 2), ms.int64),
    (lambda: ops.NonDeterministicInts(ms.int32)(i32(2, 2)), (2, 2), ms.int32),
])
def test_shapes_and_dtypes_match_mindspore(make, shape, dtype):
    out = make()
    assert out.shape == shape and out.dtype == dtype


def test_choice_with_mask_class():
    index, mask = ops.RandomChoiceWithMask(count=4, seed=1)(ms.Tensor(np.array([[True, False],
                                                                              [True, True]])))
    assert index.shape == (4, 2) and index.dtype == ms.int32
    np.testing.assert_array_equal(mask.asnumpy(), [True, True, True, False])
    picked = {tuple(r) for r in index.asnumpy()[:3].tolist()}
    assert picked == {(0, 0), (1, 0), (1, 1)}


# ----------------------------------------------------------------- distributions
def test_truncated_normal_stays_in_two_standard_deviations():
    ms.set_seed(1)
    x = ops.TruncatedNormal()(i32(20000)).asnumpy()
    assert x.min() >= -2 and x.max() <= 2
    mass = _normal_cdf(2) - _normal_cdf(-2)
    assert _ks(x, lambda v: (_normal_cdf(v) - _normal_cdf(-2)) / mass) < 0.015


@pytest.mark.parametrize("mean, std, lo, hi", [
    (0.0, 1.0, -1.0, 1.0),        # central: normal proposal
    (0.0, 1.0, 3.0, 10.0),        # upper tail: exponential proposal
    (2.0, 0.5, -10.0, -1.0),      # lower tail, mirrored
    (0.0, 1.0, 4.0, 4.05),        # narrow in the tail: uniform proposal
    (1.0, 3.0, 0.9, 1.1),         # narrow in the middle
])
def test_parameterized_truncated_normal_matches_its_cdf(mean, std, lo, hi):
    ms.set_seed(2)
    shape = i32(4, 2500)
    params = [f32(v) for v in (mean, std, lo, hi)]
    x = ops.ParameterizedTruncatedNormal()(shape, *params).asnumpy().astype(np.float64)
    assert x.min() >= lo and x.max() <= hi
    a, b = (lo - mean) / std, (hi - mean) / std
    # in the far tails compute the CDF through erfc to keep its precision
    upper = lambda v: 0.5 * np.vectorize(math.erfc)(np.asarray(v) / math.sqrt(2))  # noqa
    if a > 0:
        cdf = lambda v: (upper(a) - upper((v - mean) / std)) / (upper(a) - upper(b))  # noqa
    else:
        cdf = lambda v: ((_normal_cdf((v - mean) / std) - _normal_cdf(a))  # noqa
                         / (_normal_cdf(b) - _normal_cdf(a)))
    assert _ks(x, cdf) < 0.02


def test_parameterized_truncated_normal_uses_one_parameter_set_per_row():
    ms.set_seed(3)
    x = ops.ParameterizedTruncatedNormal()(i32(2, 4000), f32(-5, 5), f32(1, 2), f32(-6, 0),
                                           f32(-4, 100)).asnumpy()
    assert -6 <= x[0].min() and x[0].max() <= -4 and abs(x[0].mean() + 5) < 0.05
    assert x[1].min() >= 0 and abs(x[1].mean() - 5) < 0.15


def test_cauchy_median_and_quartiles():
    ms.set_seed(4)
    x = ops.Cauchy([40000], 1.0, 2.0)().asnumpy()
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    assert abs(q2 - 1.0) < 0.06 and abs(q1 - (1 - 2)) < 0.1 and abs(q3 - 3) < 0.1


def test_log_normal_reverse_moments_of_its_log():
    ms.set_seed(5)
    x = ops.LogNormalReverse(1.0, 2.0)(ms.Tensor(np.zeros(40000, np.float64))).asnumpy()
    logs = np.log(x)
    assert abs(logs.mean() - 1.0) < 0.04 and abs(logs.std() - 2.0) < 0.04


def test_standard_laplace_and_gamma_classes_have_their_moments():
    ms.set_seed(6)
    lap = ops.StandardLaplace()((40000,)).asnumpy()
    assert abs(lap.mean()) < 0.03 and abs(lap.var() - 2.0) < 0.1
    g = ops.Gamma()((40000,), f32(3.0), f32(2.0)).asnumpy()
    assert abs(g.mean() - 6.0) < 0.1 and abs(g.var() - 12.0) < 0.6
    p = ops.RandomPoisson()(i32(40000), f32(4.0)).asnumpy()
    assert abs(p.mean() - 4.0) < 0.06 and abs(p.var() - 4.0) < 0.2


def test_multinomial_with_replacement_frequencies_and_seeds():
    w = f32(0, 9, 4, 0, 7)
    x = ops.multinomial_with_replacement(w, 7, 1, 20000, True).asnumpy()
    freq = np.bincount(x, minlength=5) / x.size
    np.testing.assert_allclose(freq, np.array([0, 9, 4, 0, 7]) / 20, atol=0.015)
    again = ops.multinomial_with_replacement(w, 7, 1, 20000, True).asnumpy()
    np.testing.assert_array_equal(x, again)             # (seed, offset) fixes the draw
    other = ops.multinomial_with_replacement(w, 7, 2, 20000, True).asnumpy()
    assert not np.array_equal(x, other)
    distinct = ops.multinomial_with_replacement(w, -1, 0, 3, False).asnumpy()
    assert sorted(distinct.tolist()) == [1, 2, 4]


def test_randperm_pads_and_truncates():
    ms.set_seed(7)
    out = ops.Randperm(max_length=8, pad=-1)(i32(5)).asnumpy()
    assert sorted(out[:5].tolist()) == [0, 1, 2, 3, 4] and out[5:].tolist() == [-1] * 3
    short = ops.Randperm(max_length=3, dtype=ms.int64)(i32(5))
    assert short.dtype == ms.int64 and len(set(short.asnumpy().tolist())) == 3
    assert ops.Randperm(max_length=2, pad=7)(i32(0)).asnumpy().tolist() == [7, 7]


def test_non_deterministic_ints_cover_the_whole_range():
    ms.set_seed(8)
    x = ops.NonDeterministicInts(ms.int32)(i32(20000)).asnumpy().astype(np.float64)
    span = 2.0 ** 32
    assert abs(x.mean()) < 0.02 * span and x.min() < -0.45 * span and x.max() > 0.45 * span


# ----------------------------------------------------------------- candidate samplers
def test_uniform_candidate_sampler_matches_mindspore_counts():
    ms.set_seed(9)
    sampled, true_count, sampled_count = ops.UniformCandidateSampler(1, 3, True, 5)(
        ms.Tensor(np.array([[1], [3]], np.int64)))
    assert sampled.dtype == ms.int64 and len(set(sampled.asnumpy().tolist())) == 3
    assert true_count.shape == (2, 1) and sampled_count.shape == (3,)
    # 0.6 = 3/5 when no rejection happened; 1 - (1 - 1/5)^tries otherwise (tries > 3)
    counts = true_count.asnumpy()
    assert np.allclose(counts, 0.6) or (counts > 0.6).all()
    out = ops.uniform_candidate_sampler(ms.Tensor(np.array([[1], [3]], np.int32)), 1, 3, False, 5)
    assert out[0].dtype == ms.int32
    np.testing.assert_allclose(out[1].asnumpy(), [[0.6], [0.6]], rtol=1e-6)


def test_uniform_candidate_sampler_removes_accidental_hits():
    ms.set_seed(10)
    truth = ms.Tensor(np.array([[1], [3]], np.int64))
    for _ in range(20):
        sampled = ops.uniform_candidate_sampler(truth, 1, 3, True, 5, 0, True)[0].asnumpy()
        assert sorted(sampled.tolist()) == [0, 2, 4]
    with pytest.raises(ValueError, match="remove_accidental_hits"):
        ops.uniform_candidate_sampler(truth, 1, 4, True, 5, 0, True)


def test_log_uniform_candidate_sampler_probabilities():
    truth = ms.Tensor(np.array([[1, 2], [3, 4]], np.int64))
    _, true_count, _ = ops.log_uniform_candidate_sampler(truth, 2, 3, False, 5)
    p = np.log((np.array([[1, 2], [3, 4]]) + 2) / (np.array([[1, 2], [3, 4]]) + 1)) / np.log(6)
    np.testing.assert_allclose(true_count.asnumpy(), 3 * p, rtol=1e-6)   # MindSpore: 0.6789, ...
    ms.set_seed(11)
    draws = np.concatenate([ops.log_uniform_candidate_sampler(truth, 2, 50, False, 5)[0]
                            .asnumpy() for _ in range(200)])
    freq = np.bincount(draws, minlength=5) / draws.size
    np.testing.assert_allclose(freq, np.log((np.arange(5) + 2) / (np.arange(5) + 1)) / np.log(6),
                               atol=0.02)


def test_candidate_sampler_errors():
    truth = ms.Tensor(np.array([[1], [3]], np.int64))
    with pytest.raises(ValueError, match="num_sampled"):
        ops.uniform_candidate_sampler(truth, 1, 6, True, 5)
    with pytest.raises(ValueError, match="num_true"):
        ops.uniform_candidate_sampler(truth, 2, 3, True, 5)
    with pytest.raises(TypeError, match="true_classes"):
        ops.uniform_candidate_sampler(ms.Tensor(np.array([[1.0]])), 1, 1, True, 5)
    with pytest.raises(TypeError, match="unique"):
        ops.log_uniform_candidate_sampler(truth, 1, 3, 1, 5)


# ----------------------------------------------------------------- errors, seeds, graph mode
def test_bad_arguments_raise():
    with pytest.raises(TypeError, match="TruncatedNormal"):
        ops.TruncatedNormal()((3, 2))
    with pytest.raises(TypeError, match="TruncatedNormal"):
        ops.TruncatedNormal(dtype=ms.int32)(i32(3))
    with pytest.raises(ValueError, match="ParameterizedTruncatedNormal"):
        ops.ParameterizedTruncatedNormal()(i32(3, 2), f32(0, 1), f32(1), f32(-1), f32(1))
    with pytest.raises(ValueError, match="ParameterizedTruncatedNormal"):
        ops.ParameterizedTruncatedNormal()(i32(3, 2), f32(0), f32(1), f32(1), f32(-1))
    with pytest.raises(TypeError, match="LogNormalReverse"):
        ops.LogNormalReverse()(i32(1, 2))
    with pytest.raises(TypeError, match="Cauchy"):
        ops.Cauchy(3)
    with pytest.raises(ValueError, match="Randperm"):
        ops.Randperm(max_length=0)
    with pytest.raises(TypeError, match="NonDeterministicInts"):
        ops.NonDeterministicInts(ms.float32)(i32(2))
    with pytest.raises(ValueError, match="seed"):
        ops.multinomial_with_replacement(f32(1, 1), -2, 0, 1)


def test_seeds_reproduce_draws():
    def draws():
        ms.set_seed(12)
        return [ops.TruncatedNormal()(i32(4)).asnumpy(), ops.Cauchy([4])().asnumpy(),
                ops.ParameterizedTruncatedNormal()(i32(2, 2), f32(0), f32(1), f32(-1), f32(1))
                .asnumpy(), ops.NonDeterministicInts()(i32(3)).asnumpy(),
                ops.uniform_candidate_sampler(i32(1, 2).reshape(2, 1), 1, 3, True, 9)[0].asnumpy()]
    for a, b in zip(draws(), draws()):
        np.testing.assert_array_equal(a, b)


def test_graph_mode_draws_fresh_keys_like_pynative():
    def f(x):
        return (ops.TruncatedNormal()(ms.Tensor(np.array([3], np.int32))) + x,
                ops.ParameterizedTruncatedNormal()(ms.Tensor(np.array([1, 3], np.int32)), x[:1],
                                                   x[:1] + 1, x[:1] - 1, x[:1] + 1))
    x = f32(0, 0, 0)
    ms.set_seed(13)
    eager = [f(x) for _ in range(2)]
    compiled = ms.jit(f)
    ms.set_seed(13)
    graph = [compiled(x) for _ in range(2)]
    for e, g in zip(eager, graph):
        for a, b in zip(e, g):
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert not np.array_equal(graph[0][0].asnumpy(), graph[1][0].asnumpy())
