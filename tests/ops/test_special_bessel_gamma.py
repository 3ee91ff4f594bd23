"""Bessel J/Y/K, incomplete gamma/beta, Hurwitz zeta, nn.IGamma and nn.LBeta: values
against SciPy (float64), MindSpore 2.10's probed edge values and dtype rules, the NumPy
fallbacks (used without SciPy) against SciPy, and numerical gradient checks."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore._prims import special2 as S2
from tests.helpers.optable import OpCase, table_tests

sp = pytest.importorskip("scipy.special")


def _uniform(lo, hi, shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def _bessel_case(name, ref, lo, hi):
    return OpCase(f"bessel_{name}", getattr(ops, f"bessel_{name}"), ref,
                  [_uniform(lo, hi, (3, 4))], rtol=2e-5, atol=1e-6)


CASES = [
    _bessel_case("j0", sp.j0, -12, 12), _bessel_case("j1", sp.j1, -12, 12),
    _bessel_case("y0", sp.y0, 0.5, 12), _bessel_case("y1", sp.y1, 0.5, 12),
    _bessel_case("k0", sp.k0, 0.3, 6), _bessel_case("k1", sp.k1, 0.3, 6),
    _bessel_case("k0e", sp.k0e, 0.3, 20), _bessel_case("k1e", sp.k1e, 0.3, 20),
    OpCase("igamma", ops.igamma, sp.gammainc, [_uniform(0.5, 4, (2, 3)), _uniform(0.2, 5, (2, 3))],
           rtol=2e-5),
    OpCase("igamma-broadcast", ops.igamma, sp.gammainc,
           [_uniform(0.5, 4, (2, 1)), _uniform(0.2, 5, (3,))], rtol=2e-5),
    OpCase("igammac", ops.igammac, sp.gammaincc,
           [_uniform(0.5, 4, (2, 3)), _uniform(0.2, 5, (2, 3))], rtol=2e-5),
    OpCase("nn.IGamma", nn.IGamma(), sp.gammainc,
           [_uniform(0.5, 4, (4,)), _uniform(0.2, 5, (4,))], rtol=2e-5),
    OpCase("betainc", ops.Betainc(), sp.betainc,
           [_uniform(0.5, 4, (5,)), _uniform(0.5, 4, (5,)), _uniform(0.05, 0.95, (5,))],
           rtol=2e-5, grad_argnums=(2,)),
    OpCase("zeta", ops.zeta, sp.zeta, [_uniform(1.5, 5, (2, 3)), _uniform(0.5, 4, (2, 3))],
           rtol=2e-5, grad_argnums=(1,)),
    OpCase("nn.LBeta", nn.LBeta(),
           lambda x, y: sp.gammaln(x) + sp.gammaln(y) - sp.gammaln(x + y),
           [_uniform(0.2, 5, (6,)), _uniform(0.2, 5, (6,))], rtol=2e-5, atol=2e-5),
    OpCase("nn.LBeta-large", nn.LBeta(), sp.betaln,
           [np.array([0.5, 3.0, 9.0, 20.0, 150.0, 8.5]), np.array([10.0, 30.0, 2.0, 12.0, 400.0, 9.5])],
           rtol=2e-5, atol=2e-5),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


def _f32(*values):
    return ms.Tensor(np.array(values, np.float32))


# ----------------------------------------------------------------- MindSpore's values
def test_bessel_values_match_mindspore():
    x = _f32(0.5, 1.0, 2.0, 10.0)
    probed = {   # MindSpore 2.10 CPU
        "j0": [0.938469887, 0.765197694, 0.223890796, -0.245935738],
        "y1": [-1.47147238, -0.781212807, -0.107032433, 0.249015436],
        "k1e": [2.73100948, 1.63615370, 1.03347683, 0.410766572],
        "k0": [0.924419105, 0.421024442, 0.113893896, 1.77800630e-05],
    }
    for name, want in probed.items():
        np.testing.assert_allclose(getattr(ops, f"bessel_{name}")(x).asnumpy(), want, rtol=1e-6)


def test_bessel_edges_follow_mindspore():
    x = _f32(-2.0, 0.0, np.inf, np.nan)
    np.testing.assert_allclose(ops.bessel_j0(x).asnumpy()[:2], [sp.j0(2.0), 1.0], rtol=1e-6)
    assert np.isnan(ops.bessel_j0(x).asnumpy()[2:]).all()        # J0(inf) is NaN there
    np.testing.assert_allclose(ops.bessel_j1(_f32(-2.0)).asnumpy(), [-sp.j1(2.0)], rtol=1e-6)
    np.testing.assert_array_equal(ops.bessel_y0(x).asnumpy()[:2], [-np.inf, -np.inf])
    y1 = ops.bessel_y1(x).asnumpy()
    assert y1[0] == -np.inf and np.isnan(y1[1])
    for name in ("k0", "k0e", "k1", "k1e"):
        out = getattr(ops, f"bessel_{name}")(x).asnumpy()
        np.testing.assert_array_equal(out[:3], [np.inf, np.inf, 0.0])
        assert np.isnan(out[3])


def test_igamma_edges_follow_mindspore():
    a = _f32(-1, 0, 0, 1, 1, np.inf, 1, 0.5)
    x = _f32(1, 1, 0, 0, np.inf, 1, -1, 1e-4)
    lower = ops.igamma(a, x).asnumpy()
    upper = ops.igammac(a, x).asnumpy()
    nan = np.nan
    np.testing.assert_allclose(lower, [nan, nan, 0, 0, 1, nan, nan, 0.01128341], rtol=1e-5)
    np.testing.assert_allclose(upper, [nan, nan, nan, 1, nan, nan, nan, 0.9887166], rtol=1e-5)


def test_betainc_and_zeta_edges_follow_mindspore():
    out = ops.Betainc()(_f32(0, -1, 1, 2, 1, 0.5), _f32(1, 1, 0, 2, 1, 0.5),
                        _f32(0.5, 0.5, 0.5, 0, 1, 0.5)).asnumpy()
    np.testing.assert_allclose(out, [np.nan, np.nan, np.nan, 0, 1, 0.5])
    assert np.isnan(ops.Betainc()(_f32(1, 1), _f32(1, 1), _f32(1.3, -0.5)).asnumpy()).all()
    z = ops.zeta(_f32(2, 2, 2, 2, np.inf, 1.5, 1, 0.5), _f32(0, -1, -2.5, np.inf, 1, 0.3, 1, 1))
    np.testing.assert_allclose(z.asnumpy(), [np.inf, np.inf, 9.539247, 0, 1, 8.237762,
                                             np.inf, np.nan], rtol=1e-6)
    np.testing.assert_allclose(ops.Zeta()(_f32(2.0), _f32(-1.5)).asnumpy(), [9.37924671],
                               rtol=1e-6)


def test_zeta_takes_a_number_for_either_argument():
    x = _f32(2.0, 3.0)
    np.testing.assert_allclose(ops.zeta(x, 2.0).asnumpy(), [0.644934118, 0.202056915], rtol=1e-6)
    np.testing.assert_allclose(ops.zeta(2.0, x).asnumpy(), [0.644934118, 0.394934058], rtol=1e-6)


def test_lbeta_matches_mindspore_for_large_and_small_arguments():
    out = nn.LBeta()(_f32(100.0, 1e-3), _f32(200.0, 3.0)).asnumpy()
    np.testing.assert_allclose(out, [-192.134186, 6.90625477], rtol=1e-6)


def test_gradients_match_mindspore():
    a, x = _f32(1.0, 2.0, 3.0), _f32(0.5, 2.0, 4.0)
    da, dx = ops.grad(lambda a, x: ops.igamma(a, x).sum(), grad_position=(0, 1))(a, x)
    np.testing.assert_allclose(da.asnumpy(), [-0.489457399, -0.294004619, -0.178247318],
                               rtol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), [0.606530488, 0.270670474, 0.146525025], rtol=1e-5)
    ds, dq = ops.grad(lambda s, q: ops.zeta(s, q).sum(), grad_position=(0, 1))(
        _f32(2.0, 3.0), _f32(1.0, 2.0))
    np.testing.assert_array_equal(ds.asnumpy(), [0, 0])
    np.testing.assert_allclose(dq.asnumpy(), [-2.40411401, -0.2469697], rtol=1e-6)
    grads = ops.grad(lambda a, b, x: ops.Betainc()(a, b, x).sum(), grad_position=(0, 1, 2))(
        _f32(1.0, 2.0), _f32(1.0, 3.0), _f32(0.3, 0.5))
    np.testing.assert_array_equal(grads[0].asnumpy(), [0, 0])
    np.testing.assert_allclose(grads[2].asnumpy(), [1.0, 1.5], rtol=1e-5)


# ----------------------------------------------------------------- dtype rules and errors
def test_dtypes_are_kept_and_checked():
    assert ops.bessel_j0(ms.Tensor(np.array([1.0], np.float16))).dtype == ms.float16
    assert ops.bessel_k1(ms.Tensor(np.array([1.0]))).dtype == ms.float64
    with pytest.raises(TypeError, match="BesselJ0.*Int32"):
        ops.bessel_j0(ms.Tensor(np.array([1, 2], np.int32)))
    with pytest.raises(TypeError, match="BesselY1"):
        ops.bessel_y1(1.0)
    with pytest.raises(TypeError, match="Igamma.*Float16"):
        ops.igamma(ms.Tensor(np.ones(2, np.float16)), ms.Tensor(np.ones(2, np.float16)))
    with pytest.raises(TypeError, match="Igamma.*same"):
        ops.igamma(_f32(1.0), ms.Tensor(np.array([1.0])))
    with pytest.raises(TypeError, match="Igammac"):
        ops.igammac(_f32(1.0), 2.0)
    with pytest.raises(TypeError, match="Zeta.*same"):
        ops.zeta(_f32(2.0), ms.Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError, match="Betainc"):
        ops.Betainc()(ms.Tensor(np.ones((2, 1), np.float32)), _f32(1, 3), _f32(0.3, 0.5))
    with pytest.raises(ValueError, match="Zeta"):
        ops.Zeta()(_f32(2.0, 3.0), ms.Tensor(np.ones((2, 1), np.float32)))
    with pytest.raises(TypeError, match="LBeta"):
        nn.LBeta()(_f32(1.0), ms.Tensor(np.array([1.0])))


def test_special_functions_compile_under_jit():
    f = ms.jit(lambda a, x: ops.igamma(a, x) + ops.bessel_j0(x) + ops.zeta(a + 1.5, x))
    a, x = _f32(1.0, 2.0), _f32(0.5, 3.0)
    np.testing.assert_allclose(f(a, x).asnumpy(),
                               (ops.igamma(a, x) + ops.bessel_j0(x) + ops.zeta(a + 1.5, x))
                               .asnumpy(), rtol=1e-6)


# ----------------------------------------------------------------- NumPy fallbacks
def test_bessel_j_y_fallback_matches_scipy():
    x = np.concatenate([np.linspace(1e-6, 40, 2001), [1e-30, 24.99, 25.01, 80.0, 1e3, 1e5],
                        -np.linspace(0.1, 40, 51)])
    j0, j1, y0, y1 = S2.bessel_jy_fallback(x)
    np.testing.assert_allclose(j0, sp.j0(x), atol=1e-13)
    np.testing.assert_allclose(j1, sp.j1(x), atol=1e-13)
    pos = x > 0
    for got, want in ((y0, sp.y0(x[pos])), (y1, sp.y1(x[pos]))):
        np.testing.assert_allclose(got[pos], want, rtol=1e-12, atol=1e-13)


def test_bessel_k_fallback_matches_scipy():
    x = np.concatenate([np.geomspace(1e-30, 1e5, 400), np.linspace(0.01, 30, 300)])
    k0e, k1e = S2.bessel_ke_fallback(x)
    np.testing.assert_allclose(k0e, sp.k0e(x), rtol=1e-14)
    np.testing.assert_allclose(k1e, sp.k1e(x), rtol=1e-14)


def test_incomplete_gamma_fallback_matches_scipy():
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0.01, 30, 500), [0.5, 100, 1000, 3, 3]])
    x = np.concatenate([rng.uniform(0.001, 60, 500), [1e-8, 90, 1010, 40, 700]])
    np.testing.assert_allclose(S2.igamma_fallback(a, x), sp.gammainc(a, x), rtol=1e-11,
                               atol=1e-300)
    np.testing.assert_allclose(S2.igamma_fallback(a, x, upper=True), sp.gammaincc(a, x),
                               rtol=1e-11, atol=1e-300)


def test_incomplete_beta_fallback_matches_scipy():
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.01, 50, 2000), rng.uniform(0.01, 50, 2000)
    x = rng.uniform(0, 1, 2000)
    np.testing.assert_allclose(S2.betainc_fallback(a, b, x), sp.betainc(a, b, x), rtol=1e-10,
                               atol=1e-14)
    np.testing.assert_array_equal(S2.betainc_fallback([1, 2], [2, 1], [0.0, 1.0]), [0, 1])


def test_hurwitz_zeta_fallback_matches_scipy():
    s = np.array([1.1, 2, 3, 4.5, 10, 50, 2, 2, 3, 2, 1.5])
    q = np.array([1, 1, 0.5, 3, 0.1, 2, -1.5, -2.5, -0.3, 1e6, 30])
    np.testing.assert_allclose(S2.zeta_fallback(s, q), sp.zeta(s, q), rtol=1e-14)
    assert np.isnan(S2.zeta_fallback([2.5, 0.5], [-1.5, 1.0])).all()


def test_kernels_without_scipy_give_the_same_values(monkeypatch):
    """The primitives' results do not depend on SciPy being installed."""
    from spore._prims import specfun
    monkeypatch.setattr(specfun, "_scipy", lambda name: None)
    x = np.array([0.3, 1.0, 7.5, 30.0])
    for name in ("j0", "j1", "y0", "y1"):
        index = ("j0", "j1", "y0", "y1").index(name)
        np.testing.assert_allclose(S2._jy(index)(x), getattr(sp, name)(x), rtol=1e-12)
    for order, scaled, ref in ((0, False, sp.k0), (1, True, sp.k1e)):
        np.testing.assert_allclose(S2._k(order, scaled)(x), ref(x), rtol=1e-13)


def test_primitive_classes_check_their_inputs_are_tensors():
    with pytest.raises(TypeError, match="Betainc"):
        ops.Betainc()(None, _f32(1.0), _f32(0.5))
    with pytest.raises(TypeError, match="Zeta"):
        ops.Zeta()(2.0, _f32(1.0))
