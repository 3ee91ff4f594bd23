"""3-D pooling (ops.max_pool3d / avg_pool3d, ops.MaxPool3D / AvgPool3D, nn.MaxPool3d /
AvgPool3d): forward vs direct NumPy loops, MindSpore 2.10's values and gradients (probed
on the reference, CPU), numerical gradients and errors."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from tests.helpers.optable import OpCase, case_id, grad_case_fn, run_grad, table_tests


def np_pool3d(x, k, s, pads, reduce, include_pad=True, dilation=(1, 1, 1)):
    """Direct loops; ``pads`` (front, back, top, bottom, left, right)."""
    n, c = x.shape[:2]
    out = [(x.shape[2 + i] + pads[2 * i] + pads[2 * i + 1] - dilation[i] * (k[i] - 1) - 1)
           // s[i] + 1 for i in range(3)]
    y = np.zeros((n, c, *out))
    for o in np.ndindex(*out):
        values, count = [], 0
        for t in np.ndindex(*k):
            pos = [o[i] * s[i] + t[i] * dilation[i] - pads[2 * i] for i in range(3)]
            if all(0 <= pos[i] < x.shape[2 + i] for i in range(3)):
                values.append(x[:, :, pos[0], pos[1], pos[2]])
                count += 1
            elif reduce == "avg" and include_pad:
                count += 1
        stacked = np.stack(values, -1)
        y[(slice(None), slice(None)) + o] = stacked.max(-1) if reduce == "max" \
            else stacked.sum(-1) / count
    return y


CASES = [
    OpCase("max_pool3d", lambda x: ops.max_pool3d(x, 2),
           lambda x: np_pool3d(x, (2, 2, 2), (2, 2, 2), (0,) * 6, "max"), [(2, 2, 4, 5, 4)]),
    OpCase("max_pool3d", lambda x: ops.max_pool3d(x, 3, (1, 2, 2), 1, dilation=(2, 1, 1)),
           lambda x: np_pool3d(x, (3, 3, 3), (1, 2, 2), (1,) * 6, "max", dilation=(2, 1, 1)),
           [(1, 2, 5, 5, 4)], id="max_pool3d pad dilation"),
    OpCase("avg_pool3d", lambda x: ops.avg_pool3d(x, 2, 2),
           lambda x: np_pool3d(x, (2, 2, 2), (2, 2, 2), (0,) * 6, "avg"), [(2, 2, 4, 5, 4)]),
    OpCase("avg_pool3d", lambda x: ops.avg_pool3d(x, 3, 2, 1, count_include_pad=False),
           lambda x: np_pool3d(x, (3, 3, 3), (2, 2, 2), (1,) * 6, "avg", include_pad=False),
           [(1, 2, 5, 4, 5)], id="avg_pool3d pad no count"),
]
test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)

SECOND_ORDER = [
    OpCase("max_pool3d", grad_case_fn(lambda x: ops.max_pool3d(x, 2, 1, 1), 0), None,
           [(1, 2, 3, 4, 3)], id="d/dx max_pool3d"),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_second_order_gradient(case):
    run_grad(case)

X = ms.Tensor(np.sin(np.arange(2 * 3 * 5 * 6 * 7, dtype=np.float32) * 1.3).reshape(2, 3, 5, 6, 7))

# name: (call, shape, first three values, sum of absolute values) from MindSpore 2.10
MINDSPORE = {
    "mp_k2": (lambda: ops.max_pool3d(X, 2), (2, 3, 2, 3, 3),
              [0.963558, 0.928467, 0.986772], 103.4652),
    "mp_k3s2p1": (lambda: ops.max_pool3d(X, 3, 2, 1), (2, 3, 3, 3, 4),
                  [0.963558, 0.963558, 0.986772], 212.3055),
    "mp_dil": (lambda: ops.max_pool3d(X, (2, 2, 3), (1, 2, 2), (1, 0, 1), dilation=(2, 1, 1)),
               (2, 3, 5, 3, 4), [0.826829, 0.928467, 0.928467], 338.79),
    "mp_ceil": (lambda: ops.max_pool3d(X, 2, 2, ceil_mode=True), (2, 3, 3, 3, 4),
                [0.963558, 0.928467, 0.986772], 195.132),
    "mp_idx": (lambda: ops.max_pool3d(X, 2, 2, return_indices=True)[1], (2, 3, 2, 3, 3),
               [1, 45, 11], 8815.0),
    "ap_k2": (lambda: ops.avg_pool3d(X, 2, 2), (2, 3, 2, 3, 3),
              [0.063901, -0.037324, 6.3e-05], 5.3049),
    "ap_pad": (lambda: ops.avg_pool3d(X, 3, 2, 1), (2, 3, 3, 3, 4),
               [0.018934, 0.002216, -0.012484], 4.7608),
    "ap_pad_nocount": (lambda: ops.avg_pool3d(X, 3, 2, 1, count_include_pad=False),
                       (2, 3, 3, 3, 4), [0.063901, 0.004987, -0.028089], 9.5472),
    "ap_ceil": (lambda: ops.avg_pool3d(X, 2, 2, ceil_mode=True), (2, 3, 3, 3, 4),
                [0.063901, -0.037324, 6.3e-05], 13.5565),
    "ap_div": (lambda: ops.avg_pool3d(X, 2, 1, 0, divisor_override=3), (2, 3, 4, 5, 6),
               [0.170404, 0.132473, -0.099531], 87.5074),
    "nn_mp_same": (lambda: nn.MaxPool3d(3, 2, pad_mode="same")(X), (2, 3, 3, 3, 4),
                   [0.963558, 0.964031, 0.986772], 212.2774),
    "nn_mp_pad": (lambda: nn.MaxPool3d(3, 1, pad_mode="pad", padding=1)(X), (2, 3, 5, 6, 7),
                  [0.963558, 0.963558, 0.963558], 1244.7126),
    "nn_ap_same": (lambda: nn.AvgPool3d(3, 2, pad_mode="same")(X), (2, 3, 3, 3, 4),
                   [-0.035859, 0.055121, -0.039371], 4.7639),
    "nn_ap_valid": (lambda: nn.AvgPool3d(2, 1)(X), (2, 3, 4, 5, 6),
                    [0.063901, 0.049677, -0.037324], 32.8153),
    "prim_mp": (lambda: ops.MaxPool3D(kernel_size=2, strides=2, pad_mode="SAME")(X),
                (2, 3, 3, 3, 4), [0.963558, 0.928467, 0.986772], 195.132),
    "prim_ap": (lambda: ops.AvgPool3D(kernel_size=2, strides=1, pad_mode="pad", pad=1)(X),
                (2, 3, 6, 7, 8), [0.0, 0.120445, 0.184882], 129.0109),
}


@pytest.mark.parametrize("name", list(MINDSPORE))
def test_matches_mindspore(name):
    call, shape, head, abs_sum = MINDSPORE[name]
    y = call()
    assert y.shape == shape
    got = y.asnumpy().astype(np.float64)
    np.testing.assert_allclose(got.reshape(-1)[:3], head, atol=2e-6)
    np.testing.assert_allclose(np.abs(got).sum(), abs_sum, rtol=2e-6, atol=1e-4)
    if name == "mp_idx":
        assert y.dtype == ms.int64


def test_gradients_match_mindspore():
    g = ms.grad(lambda x: (ops.max_pool3d(x, 3, 2, 1) ** 2).sum())(X).asnumpy()
    np.testing.assert_allclose(g.reshape(-1)[:3], [0.0, 3.854233, 0.0], atol=2e-6)
    np.testing.assert_allclose(np.abs(g).sum(), 424.611, rtol=2e-6)
    g = ms.grad(lambda x: (ops.avg_pool3d(x, 3, 2, 1, count_include_pad=False) ** 2).sum())(
        X).asnumpy()
    np.testing.assert_allclose(g.reshape(-1)[:3], [0.015975, 0.016806, 0.000831], atol=2e-6)
    np.testing.assert_allclose(np.abs(g).sum(), 13.2686, rtol=2e-5)


def test_max_gradient_goes_to_the_first_maximum_only():
    x = ms.Tensor(np.ones((1, 1, 2, 2, 2), np.float32))
    g = ms.grad(lambda x: ops.max_pool3d(x, 2).sum())(x).asnumpy()
    assert g.reshape(-1).tolist() == [1, 0, 0, 0, 0, 0, 0, 0]


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.max_pool3d(X[0], 2), ValueError, "input x rank must be equal to 5, but got 4"),
    (lambda: nn.MaxPool3d(2, 1, pad_mode="valid", padding=1), ValueError,
     "'padding' must be zero when 'pad_mode' is not 'pad'"),
    (lambda: ops.avg_pool3d(X, 0), ValueError, "'kernel_size' must be positive"),
    (lambda: ops.max_pool3d(X, 2, 1, 2), ValueError, "at most half of the kernel size"),
    (lambda: ops.max_pool3d(X[:, :, :1], 2), ValueError, "smaller than the"),
    (lambda: ops.MaxPool3D(2, 2, pad_mode="VALID", pad_list=1), ValueError, "'pad_list' must be "
                                                                            "zero"),
    (lambda: nn.AvgPool3d(2, 2, pad_mode="full"), ValueError, "'pad_mode' must be"),
])
def test_errors(call, exc, words):
    with pytest.raises(exc, match=words):
        call()
