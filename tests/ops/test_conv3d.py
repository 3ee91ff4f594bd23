"""Conv3D (ops.conv3d, ops.Conv3D, nn.Conv3d): forward vs a direct NumPy definition,
MindSpore 2.10's values (probed on the reference, CPU), numerical gradients of first and
second order, and errors."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from tests.helpers.optable import OpCase, case_id, grad_case_fn, run_grad, table_tests


def np_conv3d(x, w, b=None, stride=(1, 1, 1), pads=(0,) * 6, dilation=(1, 1, 1), groups=1):
    """Direct definition: one output position at a time."""
    x = np.pad(x, ((0, 0), (0, 0), pads[0:2], pads[2:4], pads[4:6]))
    o, cg = w.shape[:2]
    k = w.shape[2:]
    out_shape = [(x.shape[2 + i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1
                 for i in range(3)]
    out = np.zeros((x.shape[0], o, *out_shape), np.float64)
    og = o // groups
    for d, h, v in np.ndindex(*out_shape):
        patch = x[:, :, d * stride[0]:d * stride[0] + dilation[0] * (k[0] - 1) + 1:dilation[0],
                  h * stride[1]:h * stride[1] + dilation[1] * (k[1] - 1) + 1:dilation[1],
                  v * stride[2]:v * stride[2] + dilation[2] * (k[2] - 1) + 1:dilation[2]]
        for g in range(groups):
            out[:, g * og:(g + 1) * og, d, h, v] = np.einsum(
                "ncijk,ocijk->no", patch[:, g * cg:(g + 1) * cg], w[g * og:(g + 1) * og])
    if b is not None:
        out += b.reshape(1, -1, 1, 1, 1)
    return out


def _ref(**geometry):
    return lambda x, w, *b: np_conv3d(x, w, *b, **geometry)


ALL = [
    OpCase("conv3d", lambda x, w: ops.conv3d(x, w), _ref(), [(2, 3, 4, 5, 4), (2, 3, 2, 3, 2)]),
    OpCase("conv3d", lambda x, w, b: ops.conv3d(x, w, b, 2, "pad", (1, 0, 2)),
           _ref(stride=(2, 2, 2), pads=(1, 1, 0, 0, 2, 2)),
           [(1, 2, 5, 4, 3), (3, 2, 3, 2, 2), (3,)], id="conv3d stride 2 pad bias"),
    OpCase("conv3d", lambda x, w: ops.conv3d(x, w, None, 1, "same", dilation=(2, 1, 1),
                                             groups=2),
           _ref(pads=(2, 2, 0, 1, 1, 1), dilation=(2, 1, 1), groups=2),
           [(1, 4, 4, 4, 3), (4, 2, 3, 2, 3)], id="conv3d same dilated groups"),
    OpCase("Conv3D", lambda x, w: ops.Conv3D(3, 2, pad_mode="pad", pad=(1, 0, 0, 1, 1, 1),
                                             stride=(1, 2, 1))(x, w),
           _ref(stride=(1, 2, 1), pads=(1, 0, 0, 1, 1, 1)), [(1, 2, 3, 5, 3), (3, 2, 2, 2, 2)],
           id="Conv3D asymmetric pads"),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)

SECOND_ORDER = [
    OpCase("conv3d", grad_case_fn(lambda x, w: ops.conv3d(x, w, None, (1, 2, 1), "pad", 1),
                                  (0, 1)), None, [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2)],
           id="d/dx,dw conv3d"),
    OpCase("conv3d", grad_case_fn(lambda x, w: ops.conv3d(x, w, groups=2), (0, 1)), None,
           [(1, 4, 3, 3, 3), (2, 2, 2, 2, 2)], id="d/dx,dw conv3d groups"),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_second_order_gradient(case):
    run_grad(case)


# ----------------------------------------------------------------- MindSpore's values
X = ms.Tensor(np.sin(np.arange(2 * 4 * 5 * 6 * 5, dtype=np.float32)).reshape(2, 4, 5, 6, 5))
W = ms.Tensor(np.cos(np.arange(6 * 2 * 3 * 2 * 3, dtype=np.float32) * 0.3).reshape(6, 2, 3, 2, 3))
W1 = ms.Tensor(np.cos(np.arange(3 * 4 * 8, dtype=np.float32) * 0.3).reshape(3, 4, 2, 2, 2))
B = ms.Tensor(np.array([0.1, -0.2, 0.3, 0.0, 0.5, -1.0], np.float32))

# name: (call, shape, first four values, sum of absolute values) from MindSpore 2.10
MINDSPORE = {
    "valid": (lambda: ops.conv3d(X, W1), (2, 3, 4, 5, 4),
              [-0.163884, 0.156617, 0.333125, 0.20336], 101.2539),
    "same_s2": (lambda: ops.conv3d(X, W, stride=2, pad_mode="same", groups=2), (2, 6, 3, 3, 3),
                [3.740235, -0.403978, -3.961007, -2.416443], 991.8303),
    "pad_bias": (lambda: ops.conv3d(X, W, B, (1, 2, 1), "pad", (1, 2, 0), groups=2),
                 (2, 6, 5, 5, 3), [0.1, 0.1, 0.1, 3.047036], 1891.7229),
    "pad_dilated": (lambda: ops.conv3d(X, W1, pad_mode="pad", padding=(1, 2, 0),
                                       dilation=(2, 1, 2)), (2, 3, 5, 9, 3),
                    [0.0, 0.0, 0.0, -0.028957], 27.3575),
    "pad1": (lambda: ops.conv3d(X, W1, pad_mode="pad", padding=1), (2, 3, 6, 7, 6),
             [0.013139, 0.075747, 0.118748, 0.052572], 214.3088),
    "primitive": (lambda: ops.Conv3D(3, 2, pad_mode="pad", pad=(1, 0, 0, 1, 1, 1), stride=2)(
        X, W1), (2, 3, 3, 3, 3), [-0.017377, 0.21164, -0.028487, -0.048328], 26.9757),
}


@pytest.mark.parametrize("name", list(MINDSPORE))
def test_matches_mindspore(name):
    call, shape, head, abs_sum = MINDSPORE[name]
    y = call().asnumpy()
    assert y.shape == shape
    np.testing.assert_allclose(y.reshape(-1)[:4], head, atol=2e-5)
    np.testing.assert_allclose(np.abs(y).sum(), abs_sum, rtol=1e-5)


def test_gradients_match_mindspore():
    def loss(x, w):
        return (ops.conv3d(x, w, stride=(1, 2, 1), pad_mode="pad", padding=(1, 2, 0),
                           groups=2) ** 2).sum()
    gx, gw = ms.grad(loss, grad_position=(0, 1))(X, W)
    np.testing.assert_allclose(gx.asnumpy().reshape(-1)[:4],
                               [12.738108, 42.851627, 62.612198, 65.018341], rtol=1e-5)
    np.testing.assert_allclose(np.abs(gx.asnumpy()).sum(), 42533.082, rtol=1e-5)
    np.testing.assert_allclose(gw.asnumpy().reshape(-1)[:4],
                               [428.082733, 375.693878, -22.106205, -43.124352], rtol=1e-5)
    np.testing.assert_allclose(np.abs(gw.asnumpy()).sum(), 56376.2656, rtol=1e-5)


def test_nn_conv3d():
    net = nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), pad_mode="pad",
                    padding=(1, 0, 2, 1, 0, 1), group=2, has_bias=True)
    for p in net.get_parameters():
        size = int(np.prod(p.shape))
        p.set_data(ms.Tensor(np.cos(np.arange(size, dtype=np.float32) * 0.3).reshape(p.shape)))
    y = net(X)
    assert y.shape == (2, 6, 2, 8, 4)
    np.testing.assert_allclose(y.asnumpy().sum(), 491.26053, rtol=1e-5)
    same = nn.Conv3d(4, 3, 3)
    assert same(X).shape == (2, 3, 5, 6, 5) and same.bias is None
    assert same.weight.shape == (3, 4, 3, 3, 3)
    assert [p.name for p in same.get_parameters()] == ["weight"]
    assert "format=NCDHW" in repr(net) and "padding=(1, 0, 2, 1, 0, 1)" in repr(net)
    grads = ms.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(X)
    assert [g.shape for g in grads] == [(6, 2, 3, 2, 3), (6,)]


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.conv3d(X, W1, pad_mode="valid", padding=1), ValueError,
     "'pad' must be zero or \\(0, 0, 0, 0, 0, 0\\) when 'pad_mode' is not \"pad\""),
    (lambda: ops.conv3d(X[0], W1), ValueError, "x shape size must be equal to 5, but got 4"),
    (lambda: ops.conv3d(X, W), ValueError, "'C_in' of input 'x' shape divide by parameter "
                                           "'group' must be equal to 'C_in' of input 'weight'"),
    (lambda: ops.conv3d(X, W1, padding=(1, 0, 2, 1, 0, 1), pad_mode="pad"), ValueError,
     "'padding' must be a tuple or list of 3 integers"),
    (lambda: ops.conv3d(X, W1, pad_mode="full"), ValueError, "'pad_mode' must be str"),
    (lambda: ops.conv3d(X[:, :, :1], W1), ValueError, "smaller than the \\(dilated\\) kernel"),
    (lambda: ops.conv3d(ms.Tensor(np.ones((1, 4, 3, 3, 3), np.int32)),
                        ms.Tensor(np.ones((3, 4, 2, 2, 2), np.int32))), TypeError, "Conv3D"),
    (lambda: nn.Conv3d(4, 3, 3, padding=1), ValueError, "'pad' must be zero"),
    (lambda: nn.Conv3d(4, 3, 3, pad_mode="pad", padding=(1, 2)), ValueError,
     "'padding size' must be int and must = 6"),
    (lambda: nn.Conv3d(4, 3, 3, data_format="NDHWC"), ValueError, "'format' must be str"),
    (lambda: nn.Conv3d(4, 3, 3, group=3), ValueError, "'group' should be divisible"),
])
def test_errors_name_the_op_and_argument(call, exc, words):
    with pytest.raises(exc, match=words):
        call()


@pytest.mark.parametrize("dtype", [ms.float16, ms.float64])
def test_keeps_dtype(dtype):
    y = ops.conv3d(X.astype(dtype), W1.astype(dtype))
    assert y.dtype == dtype
    np.testing.assert_allclose(y.asnumpy().astype(np.float64),
                               ops.conv3d(X, W1).asnumpy(), atol=0.05)
