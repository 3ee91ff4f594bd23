"""ms.recompute / Cell.recompute(): the block's activations are recomputed in the
backward pass; values, gradients, random draws and written statistics are unchanged."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor


class _Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.drop = nn.Dropout(p=0.3)
        self.calls = 0

    def construct(self, x):
        self.calls += 1
        return ops.tanh(self.drop(self.bn(self.dense(x)))) * 2


class _Net(nn.Cell):
    def __init__(self, how):
        super().__init__()
        self.block = _Block()
        self.head = nn.Dense(6, 1)
        self.how = how
        if how == "cell":
            self.block.recompute()

    def construct(self, x):
        h = ms.recompute(self.block, x) if self.how == "function" else self.block(x)
        return (self.head(h) ** 2).mean()


def _run(how):
    ms.set_seed(7)
    net = _Net(how)
    x = Tensor(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
    vg = ms.value_and_grad(net, grad_position=0, weights=net.trainable_params())
    ms.set_seed(11)
    loss, (gx, gw) = vg(x)
    return net, loss, gx, gw


@pytest.mark.parametrize("how", ["function", "cell"])
def test_recompute_gives_the_same_values_gradients_and_statistics(how):
    net0, loss0, gx0, gw0 = _run("none")
    net1, loss1, gx1, gw1 = _run(how)
    assert net0.block.calls == 1 and net1.block.calls == 2      # recomputed once
    np.testing.assert_allclose(loss1.asnumpy(), loss0.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(gx1.asnumpy(), gx0.asnumpy(), rtol=1e-5, atol=1e-7)
    assert len(gw1) == len(gw0)
    for a, b in zip(gw1, gw0):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)
    for name in ("moving_mean", "moving_variance"):            # written once, not twice
        np.testing.assert_allclose(getattr(net1.block.bn, name).asnumpy(),
                                   getattr(net0.block.bn, name).asnumpy(), rtol=1e-6)


def test_mindspores_example():
    class MyCell(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.conv = nn.Conv2d(2, 2, 2, has_bias=False, weight_init="ones")
            self.relu = ops.ReLU()

        def construct(self, x):
            return self.relu(ms.recompute(self.conv, x))
    grad = ops.grad(MyCell())(Tensor(np.ones([2, 2, 2, 2], np.float32) * 2))
    np.testing.assert_array_equal(grad.asnumpy(), np.tile([[2., 4.], [4., 8.]], (2, 2, 1, 1)))


def test_without_a_gradient_or_inside_a_graph_the_block_just_runs():
    ms.set_seed(1)
    block = nn.Dense(3, 2)
    x = Tensor(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(ms.recompute(block, x).asnumpy(), block(x).asnumpy())
    f = ms.jit(lambda t: (ms.recompute(block, t) ** 2).sum())
    np.testing.assert_allclose(ops.grad(f)(x).asnumpy(),
                               ops.grad(lambda t: (block(t) ** 2).sum())(x).asnumpy(),
                               rtol=1e-6)
    with pytest.raises(TypeError, match="must be a Cell"):
        ms.recompute(lambda t: t, x)


def test_recompute_gradient_against_finite_differences():
    ms.set_seed(2)
    block = nn.SequentialCell(nn.Dense(3, 4, dtype=ms.float64), nn.Tanh())
    for p in block.get_parameters():
        p.set_data(Tensor(p.asnumpy().astype(np.float64)))
    x0 = np.random.default_rng(3).standard_normal((2, 3))

    def loss(t):
        return (ms.recompute(block, t) ** 3).sum()
    got = ops.grad(loss)(Tensor(x0)).asnumpy()
    eps, want = 1e-6, np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        hi, lo = x0.copy(), x0.copy()
        hi[idx] += eps
        lo[idx] -= eps
        want[idx] = (float(loss(Tensor(hi))) - float(loss(Tensor(lo)))) / (2 * eps)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
