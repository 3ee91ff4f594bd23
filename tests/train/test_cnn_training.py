"""ResNet-18/50 and VGG blocks trained with ``value_and_grad`` and an optimizer step, in
train and eval mode: the residual ``out += identity`` (a new Tensor, as MindSpore's
PyNative makes it), BatchNorm writing its running statistics after a MaxPool (a primitive
with several results) was recorded, and the gradients checked against finite differences.
"""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor


def _conv(cin, cout, k, stride=1):
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="same", has_bias=False)


class BasicBlock(nn.Cell):
    """ResNet-18/34's block: two 3x3 convolutions and the identity (or a 1x1 projection)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1, self.bn1 = _conv(cin, cout, 3, stride), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = _conv(cout, cout, 3), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.SequentialCell([_conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down is not None:
            identity = self.down(x)
        out += identity
        return self.relu(out)


class Bottleneck(nn.Cell):
    """ResNet-50's block: 1x1 reduce, 3x3, 1x1 expand (x4) and a projection shortcut."""

    def __init__(self, cin, width, stride=1):
        super().__init__()
        cout = width * 4
        self.conv1, self.bn1 = _conv(cin, width, 1), nn.BatchNorm2d(width)
        self.conv2, self.bn2 = _conv(width, width, 3, stride), nn.BatchNorm2d(width)
        self.conv3, self.bn3 = _conv(width, cout, 1), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down = nn.SequentialCell([_conv(cin, cout, 1, stride), nn.BatchNorm2d(cout)])

    def construct(self, x):
        identity = self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += identity
        return self.relu(out)


def _stem(cout):
    """ResNet's stem: 7x7 stride-2 convolution, BatchNorm, ReLU, 3x3 stride-2 MaxPool."""
    return [_conv(3, cout, 7, 2), nn.BatchNorm2d(cout), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")]


def _head(cin, classes=5):
    return [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dense(cin, classes)]


def resnet18_like():
    return nn.SequentialCell(_stem(8) + [BasicBlock(8, 8), BasicBlock(8, 16, stride=2)]
                             + _head(16))


def resnet50_like():
    return nn.SequentialCell(_stem(8) + [Bottleneck(8, 4), Bottleneck(16, 4, stride=2)]
                             + _head(16))


def vgg_like():
    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, pad_mode="same"), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, pad_mode="same"), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.MaxPool2d(kernel_size=2, stride=2)]
    return nn.SequentialCell(block(3, 8) + block(8, 8) + [nn.Flatten(), nn.Dense(8 * 4 * 4, 5)])


NETS = {"resnet18": resnet18_like, "resnet50": resnet50_like, "vgg": vgg_like}


def _batch(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 3, 16, 16)).astype(np.float32)
    y = rng.integers(0, 5, 4).astype(np.int32)
    return Tensor(x), Tensor(y)


def _bn_stats(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters() if "moving" in p.name}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name", sorted(NETS))
def test_value_and_grad_and_an_optimizer_step(name, train):
    ms.set_seed(1)
    net = NETS[name]()
    net.set_train(train)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    x, y = _batch()
    before = _bn_stats(net)
    loss, grads = grad_fn(x, y)
    assert len(grads) == len(net.trainable_params())
    for p, g in zip(net.trainable_params(), grads):
        assert g.shape == p.shape and np.isfinite(g.asnumpy()).all(), p.name
    assert any(np.abs(g.asnumpy()).max() > 0 for g in grads)
    after = _bn_stats(net)
    changed = [k for k in before if not np.array_equal(before[k], after[k])]
    assert (len(changed) == len(before)) if train else not changed   # running stats
    opt(grads)
    losses = [loss.item()]
    for _ in range(3):
        loss, grads = grad_fn(x, y)
        opt(grads)
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def _in_float64(net):
    """The same network with float64 parameters (new Parameters, same names), so that
    finite differences are not swamped by float32 rounding."""
    for _, cell in net.cells_and_names():
        for attr, p in list(cell._params.items()):
            setattr(cell, attr, ms.Parameter(Tensor(p.asnumpy().astype(np.float64)), name=p.name,
                                             requires_grad=p.requires_grad))
    return net


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("name", sorted(NETS))
def test_gradients_match_finite_differences(name, train):
    """The directional derivative along the gradient g, (L(w + eps g) - L(w - eps g)) / 2 eps,
    is |g|^2 (BatchNorm's train-mode output does not depend on its running statistics)."""
    ms.set_seed(2)
    net = _in_float64(NETS[name]())
    net.set_train(train)
    rng = np.random.default_rng(3)
    if not train:      # eval mode: running statistics other than the initial 0 / 1
        for p in net.get_parameters():
            if "moving" in p.name:
                p.set_data(Tensor(rng.uniform(0.5, 1.5, p.shape)))
    x = Tensor(_batch(1)[0].asnumpy().astype(np.float64))
    params = net.trainable_params()
    weights = Tensor(np.linspace(-1, 1, 5))

    def loss(x):
        return (net(x) * weights).sum()

    _, grads = ms.value_and_grad(loss, None, params)(x)
    assert all(g.dtype == ms.float64 for g in grads)
    sq = sum(float((g.asnumpy() ** 2).sum()) for g in grads)
    eps = 1e-7 / np.sqrt(sq)
    base = [p.asnumpy().copy() for p in params]

    def shifted(sign):
        for p, b, g in zip(params, base, grads):
            p.set_data(Tensor(b + sign * eps * g.asnumpy()))
        return float(loss(x).asnumpy())
    numeric = (shifted(1) - shifted(-1)) / (2 * eps)
    assert numeric == pytest.approx(sq, rel=1e-5)


def test_residual_add_leaves_the_identity_unchanged():
    block = BasicBlock(4, 4)
    block.set_train(False)
    x = Tensor(np.random.default_rng(0).standard_normal((1, 4, 5, 5)).astype(np.float32))
    kept = x.asnumpy().copy()
    block(x)
    np.testing.assert_array_equal(x.asnumpy(), kept)
    g = ms.grad(lambda t: block(t).sum())(x)
    assert g.shape == x.shape and np.isfinite(g.asnumpy()).all()


def test_issue_repro_maxpool_then_batchnorm_under_value_and_grad():
    net = nn.SequentialCell([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same"),
                             nn.Conv2d(4, 4, 3), nn.BatchNorm2d(4)])
    net.set_train()
    x, _ = _batch()
    loss, grads = ms.value_and_grad(lambda t: (net(t) ** 2).sum(), None,
                                    net.trainable_params())(x)
    assert len(grads) == len(net.trainable_params()) and np.isfinite(loss.item())


def test_an_inplace_write_after_a_several_result_primitive_keeps_its_saved_results():
    w = Tensor(np.array([1.0, 10.0, 100.0], np.float32))

    def f(t):
        vals, idx = ops.sort(t * 1.0)
        out = (vals * w).sum()
        idx.mul_(0)          # the sort gradient's saved indices must not see this
        vals.mul_(0)
        return out
    g = ms.grad(f)(Tensor(np.array([3.0, 1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [100.0, 1.0, 10.0])
