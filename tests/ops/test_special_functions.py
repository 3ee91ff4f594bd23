"""lgamma, digamma, polygamma, erfinv and clip_by_norm: values from MindSpore 2.10, SciPy
references, numerical gradients, and the SciPy-free fallbacks."""
import numpy as np
import pytest
from scipy import special

import spore as ms
from spore import ops
from spore._prims import specfun as S
from tests.helpers.optable import OpCase, table_tests

POS = (0.3, 4.0)
CASES = [
    OpCase("lgamma", ops.lgamma, special.gammaln, (3, 4), domain=POS),
    OpCase("digamma", ops.digamma, special.psi, (3, 4), domain=POS),
    OpCase("polygamma-1", lambda x: ops.polygamma(1, x), lambda x: special.polygamma(1, x),
           (3, 4), domain=POS, id="polygamma-1", rtol=1e-4),
    OpCase("polygamma-2", lambda x: ops.polygamma(2, x), lambda x: special.polygamma(2, x),
           (5,), domain=POS, id="polygamma-2", rtol=1e-4),
    OpCase("erfinv", ops.erfinv, special.erfinv, (3, 4), domain=(-0.9, 0.9), rtol=1e-5),
]


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


def test_values_printed_by_mindspore():
    x = ms.Tensor(np.array([0.5, 1.5, 3.0], np.float32))
    np.testing.assert_allclose(ops.lgamma(x).asnumpy(), [0.5723649, -0.12078223, 0.6931472],
                               rtol=1e-6)
    np.testing.assert_allclose(ops.digamma(x).asnumpy(), [-1.9635109, 0.03648992, 0.9227842],
                               rtol=1e-5)
    np.testing.assert_allclose(ops.polygamma(ms.Tensor(1), x).asnumpy(),
                               [4.934802, 0.93480223, 0.39493406], rtol=1e-6)
    np.testing.assert_allclose(ops.erfinv(ms.Tensor([0.1, -0.5, 0.9])).asnumpy(),
                               [0.08885599, -0.47693628, 1.1630871], rtol=1e-6)


def test_clip_by_norm_matches_mindspore():
    np.testing.assert_allclose(ops.clip_by_norm(ms.Tensor([3.0, 4.0]), 1.0).asnumpy(),
                               [0.5999999, 0.79999983], rtol=1e-6)
    a, b = ops.clip_by_norm((ms.Tensor([3.0, 4.0]), ms.Tensor([1.0])), 1.0)
    np.testing.assert_allclose(a.asnumpy(), [0.588348329, 0.784464419], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.196116105], rtol=1e-6)
    small = ops.clip_by_norm(ms.Tensor([0.3, 0.4]), 1.0)
    np.testing.assert_allclose(small.asnumpy(), [0.3, 0.4], rtol=1e-6)
    with pytest.raises(RuntimeError, match="non-finite"):
        ops.clip_by_norm(ms.Tensor([np.inf, 1.0]), 1.0, error_if_nonfinite=True)


def test_fallbacks_agree_with_scipy():
    y = np.linspace(-0.999, 0.999, 101)
    np.testing.assert_allclose(S.erfinv_fallback(y), special.erfinv(y), atol=1e-12)
    x = np.concatenate([np.linspace(0.05, 30, 200), [-0.3, -1.7, -2.5]])
    np.testing.assert_allclose(S.polygamma_fallback(0, x), special.psi(x), atol=1e-12)
    np.testing.assert_allclose(S.polygamma_fallback(2, x[:200]), special.polygamma(2, x[:200]),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(S.lgamma_fallback(x), special.gammaln(x), atol=1e-12)
    assert np.isinf(S.erfinv_fallback(np.array([1.0]))[0])
    with pytest.raises(ValueError, match="SciPy"):
        S.polygamma_fallback(1, np.array([-0.5]))


def test_polygamma_order_must_be_non_negative():
    with pytest.raises(ValueError, match="non-negative"):
        ops.polygamma(-1, ms.Tensor([1.0]))
