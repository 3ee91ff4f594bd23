"""``ops.operations._grad_ops`` (MindSpore's tests import it as ``G``) and
``ops.Conv2DBackpropInput``: argument orders and values probed on MindSpore 2.10 (CPU)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore.ops.operations import _grad_ops as G

A = Tensor(np.array([[0.5, -0.2, 0.8]], np.float32))
D = Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))

# (class, expected) for G.<cls>()(dy, x)
DY_X = [
    ("ReluGrad", [1.0, 0.0, 3.0]), ("ReLU6Grad", [1.0, 0.0, 3.0]),
    ("SoftplusGrad", [0.62246, 0.90033, 2.06992]), ("SiLUGrad", [0.73996, 0.80133, 2.58331]),
    ("HSigmoidGrad", [0.16667, 0.33333, 0.5]), ("HSwishGrad", [0.66667, 0.86667, 2.3]),
]
# (class, expected) for G.<cls>()(y_or_x, dy)
Y_DY = [
    ("TanhGrad", [0.75, 1.92, 1.08]), ("SigmoidGrad", [0.25, -0.48, 0.48]),
    ("SqrtGrad", [1.0, -5.0, 1.875]), ("RsqrtGrad", [-0.0625, 0.008, -0.768]),
    ("ReciprocalGrad", [-0.25, -0.08, -1.92]), ("InvGrad", [-0.25, -0.08, -1.92]),
    ("AsinGrad", [1.1547, 2.04124, 5.0]), ("ACosGrad", [-1.1547, -2.04124, -5.0]),
    ("AtanGrad", [0.8, 1.92308, 1.82927]), ("AsinhGrad", [0.88682, 1.96066, 2.2431]),
    ("AcoshGrad", [1.91903, -9.93364, 3.37798]),
    ("LogSoftmaxGrad", [-8.89233, -2.91238, -10.35324]),
]


@pytest.mark.parametrize("name,want", DY_X, ids=[n for n, _ in DY_X])
def test_activation_grads_take_dy_then_x(name, want):
    np.testing.assert_allclose(getattr(G, name)()(D, A).asnumpy()[0], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,want", Y_DY, ids=[n for n, _ in Y_DY])
def test_math_grads_take_y_then_dy(name, want):
    np.testing.assert_allclose(getattr(G, name)()(A, D).asnumpy()[0], want, rtol=1e-4, atol=1e-5)


def test_boundaries_match_mindspore():
    ones = Tensor(np.ones(4, np.float32))
    assert G.ReLU6Grad()(ones, Tensor([0.0, 6.0, 3.0, -1.0])).asnumpy().tolist() == [0, 1, 1, 0]
    np.testing.assert_allclose(G.HSigmoidGrad()(ones, Tensor([-3.0, 3.0, 0.0, 5.0])).asnumpy(),
                               [0, 0, 1 / 6, 0], rtol=1e-6)
    assert G.HSwishGrad()(ones, Tensor([-3.0, 3.0, 0.0, 5.0])).asnumpy().tolist() == \
        [-0.5, 1.5, 0.5, 1.0]
    assert G.ReluGrad()(ones[:3], Tensor([0.0, 1.0, -1.0])).asnumpy().tolist() == [0, 1, 0]
    x = Tensor([0.5, -0.5, 0.6, -0.7])
    assert G.SoftShrinkGrad(0.5)(ones, x).asnumpy().tolist() == [0, 0, 1, 1]
    assert G.HShrinkGrad(0.5)(ones, x).asnumpy().tolist() == [0, 0, 1, 1]


def test_softmax_and_bias_grads():
    lsg = G.LogSoftmaxGrad(0)(Tensor([[-1.0, -2.0], [-0.5, -0.1]]),
                              Tensor([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(lsg.asnumpy(), [[-0.4715178, 1.1879883], [0.5738773, -1.4290247]],
                               rtol=1e-5)
    y = ops.softmax(Tensor([[1.0, 2.0, 0.5]]))
    dy = Tensor([[1.0, -1.0, 2.0]])
    want = ms.grad(lambda x: (ops.softmax(x) * dy).sum())(Tensor([[1.0, 2.0, 0.5]]))
    np.testing.assert_allclose(G.SoftmaxGrad()(y, dy).asnumpy(), want.asnumpy(), rtol=1e-6)
    g = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert G.BiasAddGrad("NHWC")(g).asnumpy().tolist() == [60, 66, 72, 78]
    assert G.BiasAddGrad()(g).asnumpy().tolist() == [60, 92, 124]
    with pytest.raises(ValueError, match="BiasAddGrad.*data_format"):
        G.BiasAddGrad("HWCN")


def _pool_inputs():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((1, 2, 4, 4)).astype(np.float32))
    w = Tensor(rng.standard_normal((3, 2, 3, 3)).astype(np.float32))
    return x, w


def test_pool_grads():
    x, _ = _pool_inputs()
    dy = Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))
    got = G.MaxPoolGrad(kernel_size=2, strides=2)(x, ops.MaxPool(2, 2)(x), dy).asnumpy()
    assert got.tolist() == [[[[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 3], [0, 2, 0, 0]],
                             [[0, 0, 0, 5], [0, 4, 0, 0], [6, 0, 0, 0], [0, 0, 0, 7]]]]
    got = G.AvgPoolGrad(kernel_size=2, strides=2)(x, ops.AvgPool(2, 2)(x), dy).asnumpy()
    assert got[0, 0].tolist() == [[0, 0, .25, .25], [0, 0, .25, .25], [.5, .5, .75, .75],
                                  [.5, .5, .75, .75]]
    assert got[0, 1, 3].tolist() == [1.5, 1.5, 1.75, 1.75]


def test_conv2d_backprop_filter_and_input():
    x, w = _pool_inputs()
    dout = Tensor(np.ones((1, 3, 4, 4), np.float32))
    gw = G.Conv2DBackpropFilter(3, 3, pad_mode="pad", pad=1, pad_list=(1, 1, 1, 1))(
        dout, x, (3, 2, 3, 3))
    assert gw.shape == (3, 2, 3, 3)
    np.testing.assert_allclose(gw.asnumpy().sum(), -71.110985, rtol=1e-5)
    gx = ops.Conv2DBackpropInput(3, 3, pad_mode="pad", pad=1)(dout, w, (1, 2, 4, 4))
    assert gx.shape == (1, 2, 4, 4)
    np.testing.assert_allclose(gx.asnumpy().sum(), 108.72878, rtol=1e-5)
    assert issubclass(ops.Conv2DTranspose, ops.Conv2DBackpropInput)
    conv = ops.Conv2D(3, 3, pad_mode="pad", pad=1)
    want = ms.grad(lambda x: conv(x, w).sum())(x)
    np.testing.assert_allclose(gx.asnumpy(), want.asnumpy(), rtol=1e-6)


def test_module_path_imports():
    from spore.ops.operations import _grad_ops
    assert _grad_ops is G and "ReluGrad" in G.__all__
