"""nn.probability: distributions and bijectors (NOTE: [Distributions]). Values of the
methods MindSpore 2.10 offers are its own (tests/data/probability_golden.json, written by
make_probability_golden.py); the methods Spore adds are checked against SciPy; samples by
their moments; gradients and Graph mode as everywhere."""
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import spore as ms
from spore import Tensor, nn, ops
from spore.nn.probability import bijector as msb
from spore.nn.probability import distribution as msd

GOLDEN = json.loads((Path(__file__).parent.parent / "data" /
                     "probability_golden.json").read_text())
INTEGER = ("Bernoulli", "Geometric", "Categorical")
METHODS = ["prob", "log_prob", "cdf", "log_cdf", "survival_function", "log_survival", "mean",
           "mode", "sd", "var", "entropy", "kl_loss", "cross_entropy"]


def _t(x, dtype=np.float32):
    return Tensor(np.array(x, dtype))


def _golden_cases():
    for name, case in GOLDEN["distributions"].items():
        for m in METHODS:
            if not (isinstance(case[m], str) and case[m].startswith("ERR")):
                yield pytest.param(name, m, id=f"{name}-{m}")


@pytest.mark.parametrize("name,method", list(_golden_cases()))
def test_values_equal_mindspores(name, method):
    case = GOLDEN["distributions"][name]
    d = getattr(msd, name)(*case["params"])
    if method in ("kl_loss", "cross_entropy"):
        got = getattr(d, method)(name, *[_t(x) for x in case["other"]])
    elif method in ("mean", "mode", "sd", "var", "entropy"):
        got = getattr(d, method)()
    else:
        got = getattr(d, method)(_t(case["value"], np.int32 if name in INTEGER else np.float32))
    want = np.array(case[method], np.float32)
    assert got.shape == want.shape
    rtol = 1e-3 if name == "Categorical" else 2e-5       # MindSpore goes through logits
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=1e-6, equal_nan=True)


def test_parameters_given_in_the_call_override_the_constructors():
    x = _t([0.3, -1.5])
    free = msd.Normal()
    np.testing.assert_allclose(free.prob(x, _t([0.0, 1.0]), _t([1.0, 2.0])).asnumpy(),
                               GOLDEN["distributions"]["Normal"]["prob"], rtol=1e-5)
    fixed = msd.Normal(0.0, 1.0)
    np.testing.assert_allclose(fixed.log_prob(x, None, _t(2.0)).asnumpy(),
                               stats.norm(0, 2).logpdf([0.3, -1.5]), rtol=1e-6)
    np.testing.assert_allclose(fixed("prob", x).asnumpy(), stats.norm.pdf([0.3, -1.5]),
                               rtol=1e-6)                               # construct by name
    with pytest.raises(ValueError, match="'sd' must be given"):
        msd.Normal(0.0).prob(x)
    with pytest.raises(NotImplementedError, match="between two Normal"):
        fixed.kl_loss("Uniform", _t(0.0), _t(1.0))
    with pytest.raises(ValueError, match="mean is undefined for Cauchy"):
        msd.Cauchy(0.0, 1.0).mean()
    with pytest.raises(NotImplementedError, match="mode is not implemented for Uniform"):
        msd.Uniform(0.0, 1.0).mode()
    assert fixed.batch_shape == () and msd.Normal([0.0, 1.0], 1.0).batch_shape == (2,)
    assert repr(msd.Uniform(0.0, 1.0)) == "Uniform(low = 0.0, high = 1.0)"


@pytest.mark.parametrize("dist,ref", [
    (msd.Laplace(0.5, 2.0), stats.laplace(0.5, 2.0)),
    (msd.HalfNormal(0.5, 2.0), stats.halfnorm(0.5, 2.0)),
    (msd.StudentT(5.0, 0.5, 2.0), stats.t(5.0, 0.5, 2.0)),
    (msd.Poisson(3.0), stats.poisson(3.0)),
    (msd.Gamma(2.5, 1.5), stats.gamma(2.5, scale=1 / 1.5)),
    (msd.Beta(2.0, 3.0), stats.beta(2.0, 3.0)),
], ids=["Laplace", "HalfNormal", "StudentT", "Poisson", "Gamma", "Beta"])
def test_methods_spore_adds_equal_scipy(dist, ref):
    x = np.array([0.3, 0.9, 2.5], np.float32)
    if isinstance(dist, msd.Beta):
        x = np.array([0.1, 0.4, 0.8], np.float32)
    if isinstance(dist, msd.Poisson):
        x = np.array([0.0, 2.0, 5.0], np.float32)
    discrete = isinstance(dist, msd.Poisson)
    logp = ref.logpmf(x) if discrete else ref.logpdf(x)
    np.testing.assert_allclose(dist.log_prob(Tensor(x)).asnumpy(), logp, rtol=1e-5)
    np.testing.assert_allclose(dist.cdf(Tensor(x)).asnumpy(), ref.cdf(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dist.mean().asnumpy(), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(dist.var().asnumpy(), ref.var(), rtol=1e-5)
    if not discrete:
        np.testing.assert_allclose(dist.entropy().asnumpy(), ref.entropy(), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("dist,mean,var", [
    (msd.Normal(1.0, 2.0, seed=3), 1.0, 4.0),
    (msd.Uniform(-1.0, 3.0, seed=3), 1.0, 16 / 12),
    (msd.Exponential(2.0, seed=3), 0.5, 0.25),
    (msd.Gamma(2.5, 1.5, seed=3), 2.5 / 1.5, 2.5 / 2.25),
    (msd.Beta(2.0, 3.0, seed=3), 0.4, 6 / 150),
    (msd.Poisson(3.0, seed=3), 3.0, 3.0),
    (msd.Bernoulli(0.3, seed=3), 0.3, 0.21),
    (msd.Geometric(0.4, seed=3), 1.5, 3.75),
    (msd.Gumbel(0.5, 2.0, seed=3), 0.5 + 2 * 0.5772156649, math.pi ** 2 * 4 / 6),
    (msd.Logistic(0.5, 2.0, seed=3), 0.5, 4 * math.pi ** 2 / 3),
    (msd.Laplace(0.5, 2.0, seed=3), 0.5, 8.0),
    (msd.HalfNormal(0.5, 2.0, seed=3), 0.5 + 2 * math.sqrt(2 / math.pi), 4 * (1 - 2 / math.pi)),
    (msd.StudentT(8.0, 0.5, 2.0, seed=3), 0.5, 4 * 8 / 6),
    (msd.LogNormal(0.0, 0.5, seed=3), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
    (msd.Categorical([0.2, 0.3, 0.5], seed=3), 1.3, 0.61),
], ids=lambda v: type(v).__name__ if isinstance(v, msd.Distribution) else "")
def test_samples_have_the_distributions_moments(dist, mean, var):
    ms.set_seed(7)
    s = dist.sample((40000,)).asnumpy().astype(np.float64)
    assert s.shape == (40000,)
    assert abs(s.mean() - mean) < 5 * math.sqrt(var / s.size) + 1e-3
    assert abs(s.var() - var) < 0.05 * var + 1e-3
    if isinstance(dist, (msd.Bernoulli, msd.Geometric, msd.Categorical)):
        assert dist.sample((2,)).dtype == ms.int32
    else:
        assert dist.sample((2,)).dtype == ms.float32


def test_sample_shape_is_shape_then_batch():
    assert msd.Normal([0.0, 1.0], [1.0, 2.0]).sample((3, 4)).shape == (3, 4, 2)
    assert msd.Categorical([[0.5, 0.5], [0.1, 0.9]]).sample((5,)).shape == (5, 2)
    assert msd.Normal(0.0, 1.0).sample().shape == ()
    assert msd.Gamma([2.0, 3.0], 1.0).sample((4,)).shape == (4, 2)
    assert msd.Poisson([2.0, 3.0]).sample((4,)).shape == (4, 2)
    assert msd.StudentT(3.0, [0.0, 1.0], 1.0).sample((4,)).shape == (4, 2)


def test_log_prob_and_reparameterised_samples_have_gradients():
    x = _t([0.3, -1.5, 2.0])

    def nll(mean, sd):
        return -msd.Normal().log_prob(x, mean, sd).sum()
    gm, gs = ms.grad(nll, grad_position=(0, 1))(_t(0.5), _t(2.0))
    xs = np.array([0.3, -1.5, 2.0])
    np.testing.assert_allclose(gm.asnumpy(), -((xs - 0.5) / 4).sum(), rtol=1e-5)
    np.testing.assert_allclose(gs.asnumpy(), -(((xs - 0.5) ** 2) / 8 - 1 / 2).sum(), rtol=1e-5)

    def sampled(mean, sd):
        ms.set_seed(1)
        return msd.Normal(seed=2).sample((5,), mean, sd).sum()
    gm, gs = ms.grad(sampled, grad_position=(0, 1))(_t(0.5), _t(2.0))
    ms.set_seed(1)
    z = msd.Normal(seed=2).sample((5,), _t(0.0), _t(1.0)).asnumpy()
    np.testing.assert_allclose(gm.asnumpy(), 5.0)
    np.testing.assert_allclose(gs.asnumpy(), z.sum(), rtol=1e-5)


class Policy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.dist = msd.Normal()

    def construct(self, x, a):
        mean, log_sd = ops.split(self.dense(x), 1, axis=-1)
        return self.dist.log_prob(a, mean, ops.exp(log_sd)).mean()


def test_graph_mode_gives_pynatives_values():
    net = Policy()
    x = _t(np.random.default_rng(0).standard_normal((4, 3)))
    a = _t(np.random.default_rng(1).standard_normal((4, 1)))
    eager = net(x, a).asnumpy()
    np.testing.assert_allclose(ms.jit(net.construct)(x, a).asnumpy(), eager, rtol=1e-6)


@pytest.mark.parametrize("name", list(GOLDEN["bijectors"]))
def test_bijectors_equal_mindspores(name):
    case = GOLDEN["bijectors"][name]
    bij = getattr(msb, name)(*case["args"])
    x = _t(case["x"])
    y = bij.forward(x)
    for method, arg in (("forward", x), ("inverse", y), ("forward_log_jacobian", x),
                        ("inverse_log_jacobian", y)):
        got = getattr(bij, method)(arg)
        want = np.array(case[method], np.float32)
        assert got.shape == want.shape
        np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-5, atol=2e-6)
    inv = msb.Invert(bij)
    np.testing.assert_allclose(inv.forward(y).asnumpy(), case["x"], rtol=2e-5)
    np.testing.assert_allclose(inv.forward_log_jacobian(y).asnumpy(),
                               case["inverse_log_jacobian"], rtol=2e-5, atol=2e-6)


def test_log_jacobians_are_the_derivatives():
    x = np.array([0.2, 0.7, 1.5])
    for bij in (msb.Exp(), msb.PowerTransform(0.5), msb.Softplus(1.5), msb.GumbelCDF(0.5, 2.0)):
        h = 1e-3
        up = bij.forward(_t(x + h)).asnumpy().astype(np.float64)
        down = bij.forward(_t(x - h)).asnumpy().astype(np.float64)
        slope = (up - down) / (2 * h)
        np.testing.assert_allclose(bij.forward_log_jacobian(_t(x)).asnumpy(), np.log(slope),
                                   rtol=1e-2, atol=1e-3)


def test_a_transformed_normal_is_a_lognormal():
    t = msd.TransformedDistribution(msb.Exp(), msd.Normal(0.5, 0.8))
    ref = msd.LogNormal(0.5, 0.8)
    y = _t([0.3, 1.0, 4.0])
    np.testing.assert_allclose(t.log_prob(y).asnumpy(), ref.log_prob(y).asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(t.cdf(y).asnumpy(), ref.cdf(y).asnumpy(), rtol=1e-5)
    ms.set_seed(2)
    s = t.sample((20000,)).asnumpy()
    assert (s > 0).all() and abs(np.log(s).mean() - 0.5) < 0.03
    with pytest.raises(TypeError, match="must be a Bijector"):
        msd.TransformedDistribution(msd.Normal(), msd.Normal())
    assert nn.probability.distribution.Normal is msd.Normal
