"""spore.mint.nn / mint.nn.functional / mint.optim / mint.linalg / mint.special."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, mint, nn
from spore.mint.nn import functional as F

RNG = np.random.default_rng(1)
IMG = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)


def T(a):
    return Tensor(a)


def close(t, ref, tol=1e-5):
    np.testing.assert_allclose(t.asnumpy(), ref, rtol=tol, atol=tol)


def conv2d_ref(x, w, b, stride, pad):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), np.float32)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + b[None, :, None, None]


def test_conv2d_layer_pytorch_padding_and_params():
    conv = mint.nn.Conv2d(3, 4, 3, stride=2, padding=1)
    assert [p.name for p in conv.get_parameters()] == ["weight", "bias"]
    assert conv.weight.shape == (4, 3, 3, 3)
    bound = 1 / np.sqrt(27)
    assert np.abs(conv.bias.asnumpy()).max() <= bound
    assert np.abs(conv.weight.asnumpy()).max() <= bound       # kaiming_uniform(a=√5)
    ref = conv2d_ref(IMG, conv.weight.asnumpy(), conv.bias.asnumpy(), 2, 1)
    close(conv(T(IMG)), ref, 1e-4)
    same = mint.nn.Conv2d(3, 2, 3, padding="same", bias=False)
    assert same.bias is None and same(T(IMG)).shape == (2, 2, 6, 6)
    with pytest.raises(ValueError, match="padding_mode"):
        mint.nn.Conv2d(3, 2, 3, padding_mode="reflect")


def test_conv1d_conv3d_transpose_shapes():
    x1 = T(RNG.standard_normal((2, 3, 10)).astype(np.float32))
    c1 = mint.nn.Conv1d(3, 5, 3, padding=1)
    assert c1.weight.shape == (5, 3, 3) and c1(x1).shape == (2, 5, 10)
    w = c1.weight.asnumpy()
    ref = conv2d_ref(x1.asnumpy()[:, :, None], w[:, :, None], c1.bias.asnumpy(), 1, 0)
    close(F.conv1d(x1, c1.weight, c1.bias), ref[:, :, 0], 1e-4)
    c3 = mint.nn.Conv3d(3, 2, (1, 3, 3), padding=(0, 1, 1))
    assert c3(T(np.ones((1, 3, 2, 5, 5), np.float32))).shape == (1, 2, 2, 5, 5)
    ct = mint.nn.ConvTranspose2d(3, 4, 2, stride=2)
    assert ct.weight.shape == (3, 4, 2, 2) and ct(T(IMG)).shape == (2, 4, 12, 12)


def test_linear_and_functional_linear():
    lin = mint.nn.Linear(3, 2)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    close(lin(T(x)), x @ lin.weight.asnumpy().T + lin.bias.asnumpy(), 1e-5)
    close(F.linear(T(x), lin.weight), x @ lin.weight.asnumpy().T, 1e-5)


def test_batchnorm_pytorch_momentum_and_running_stats():
    bn = mint.nn.BatchNorm2d(3)
    names = [p.name for p in bn.get_parameters()]
    assert names == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    bn.set_train(True)
    out = bn(T(IMG))
    mean, var = IMG.mean((0, 2, 3)), IMG.var((0, 2, 3))
    ref = (IMG - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    close(out, ref, 1e-4)
    close(bn.running_mean, 0.1 * mean, 1e-5)
    n = IMG.size // 3
    close(bn.running_var, 0.9 + 0.1 * var * n / (n - 1), 1e-5)
    assert bn.num_batches_tracked.asnumpy() == 1
    bn.set_train(False)
    ref = (IMG - bn.running_mean.asnumpy()[None, :, None, None]) / np.sqrt(
        bn.running_var.asnumpy()[None, :, None, None] + 1e-5)
    close(bn(T(IMG)), ref, 1e-4)
    with pytest.raises(ValueError, match="BatchNorm2d"):
        bn(T(np.ones((2, 3), np.float32)))
    plain = mint.nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    plain.set_train(False)
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    close(plain(T(x)), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), 1e-4)


def test_layernorm_groupnorm_embedding():
    ln = mint.nn.LayerNorm(6, bias=False)
    assert [p.name for p in ln.get_parameters()] == ["weight"]
    x = IMG.reshape(-1, 6)
    close(ln(T(x)), (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5),
          1e-4)
    gn = mint.nn.GroupNorm(1, 3)
    g = IMG.reshape(2, -1)
    ref = ((g - g.mean(1, keepdims=True)) / np.sqrt(g.var(1, keepdims=True) + 1e-5))
    close(gn(T(IMG)), ref.reshape(IMG.shape), 1e-4)
    emb = mint.nn.Embedding(10, 4, padding_idx=0)
    assert emb.weight.shape == (10, 4) and (emb.weight.asnumpy()[0] == 0).all()
    close(emb(T(np.array([0, 3]))), emb.weight.asnumpy()[[0, 3]])


def test_activation_layers():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    close(mint.nn.ReLU()(T(x)), np.maximum(x, 0))
    close(mint.nn.GELU(approximate="tanh")(T(x)),
          0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), 1e-5)
    close(mint.nn.Softmax(dim=1)(T(x)), np.exp(x) / np.exp(x).sum(1, keepdims=True))
    close(mint.nn.LogSoftmax(1)(T(x)), x - np.log(np.exp(x).sum(1, keepdims=True)))
    close(mint.nn.Hardtanh(-0.5, 0.5)(T(x)), np.clip(x, -0.5, 0.5))
    close(mint.nn.Threshold(0.1, 20.0)(T(x)), np.where(x > 0.1, x, 20.0))
    close(mint.nn.ELU(alpha=2.0)(T(x)), np.where(x > 0, x, 2 * (np.exp(x) - 1)), 1e-5)
    close(mint.nn.SiLU()(T(x)), x / (1 + np.exp(-x)), 1e-5)
    close(mint.nn.GLU()(T(x)), x[:, :2] / (1 + np.exp(-x[:, 2:])), 1e-5)
    p = mint.nn.PReLU(num_parameters=4, init=0.1)
    assert p.weight.shape == (4,)
    close(p(T(x)), np.where(x > 0, x, 0.1 * x), 1e-6)
    close(mint.nn.Hardswish()(T(x)), x * np.clip(x + 3, 0, 6) / 6, 1e-5)
    close(mint.nn.Softshrink(0.5)(T(x)), np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)))
    close(mint.nn.ZeroPad1d(1)(T(x)), np.pad(x, ((0, 0), (1, 1))))
    with pytest.raises(TypeError, match="Threshold"):
        mint.nn.Threshold(0.1)
    y = T(x.copy())
    assert F.relu_(y) is y and (y.asnumpy() >= 0).all()


def test_dropout_layers():
    d = mint.nn.Dropout(p=0.5)
    x = T(np.ones((200, 50), np.float32))
    d.set_train(True)
    out = d(x).asnumpy()
    assert set(np.unique(out).tolist()) <= {0.0, 2.0} and 0.4 < (out == 0).mean() < 0.6
    d.set_train(False)
    assert (d(x).asnumpy() == 1).all()
    with pytest.raises(ValueError, match="Dropout"):
        mint.nn.Dropout(1.5)


def test_pooling():
    close(mint.nn.MaxPool2d(2)(T(IMG)), IMG.reshape(2, 3, 3, 2, 3, 2).max((3, 5)))
    close(mint.nn.AvgPool2d(2)(T(IMG)), IMG.reshape(2, 3, 3, 2, 3, 2).mean((3, 5)), 1e-5)
    v, i = F.max_pool2d(T(IMG), 2, return_indices=True)
    assert i.dtype == ms.int64 and v.shape == (2, 3, 3, 3)
    x1 = IMG.reshape(2, 3, 36)
    close(mint.nn.AvgPool1d(4)(T(x1)), x1.reshape(2, 3, 9, 4).mean(-1), 1e-5)
    close(mint.nn.AdaptiveMaxPool1d(9)(T(x1)), x1.reshape(2, 3, 9, 4).max(-1))


def test_losses():
    logits = RNG.standard_normal((4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    close(mint.nn.CrossEntropyLoss()(T(logits), T(target)), -logp[np.arange(4), target].mean(),
          1e-5)
    close(F.nll_loss(T(logp), T(target), reduction="sum"), -logp[np.arange(4), target].sum(),
          1e-5)
    p = np.exp(logp)
    q = np.full((4, 3), 1 / 3, np.float32)
    close(mint.nn.KLDivLoss(reduction="batchmean")(T(logp), T(q)),
          (q * (np.log(q) - logp)).sum() / 4, 1e-5)
    close(F.kl_div(T(logp), T(np.log(q)), "sum", log_target=True), (q * (np.log(q) - logp)).sum(),
          1e-5)
    y = (RNG.random((4, 3)) > 0.5).astype(np.float32)
    ref = np.mean(np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits))))
    close(mint.nn.BCEWithLogitsLoss()(T(logits), T(y)), ref, 1e-5)
    close(mint.nn.MSELoss()(T(p), T(q)), ((p - q) ** 2).mean(), 1e-6)
    d = np.abs(p - q)
    close(mint.nn.SmoothL1Loss(beta=0.1)(T(p), T(q)),
          np.where(d < 0.1, 0.5 * d ** 2 / 0.1, d - 0.05).mean(), 1e-6)
    oh = F.one_hot(T(np.array([0, 2])))
    assert oh.dtype == ms.int64 and oh.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]


def test_functional_misc():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    close(F.normalize(T(x)), x / np.linalg.norm(x, axis=1, keepdims=True), 1e-5)
    close(F.leaky_relu(T(x)), np.where(x > 0, x, 0.01 * x))
    close(F.softmax(T(x)), np.exp(x) / np.exp(x).sum(1, keepdims=True))     # implicit dim 1
    close(F.pad(T(x), (1, 0)), np.pad(x, ((0, 0), (1, 0))))
    assert F.flatten(T(IMG)).shape == (IMG.size,)
    rm, rv = ms.Parameter(T(np.zeros(3, np.float32))), ms.Parameter(T(np.ones(3, np.float32)))
    out = F.batch_norm(T(IMG), rm, rv, training=True)
    assert out.shape == IMG.shape
    close(rm, 0.1 * IMG.mean((0, 2, 3)), 1e-5)


def test_gradient_through_layers():
    net = nn.SequentialCell([mint.nn.Conv2d(3, 2, 3, padding=1), mint.nn.BatchNorm2d(2),
                             mint.nn.ReLU(), mint.nn.Flatten(), mint.nn.Linear(72, 3)])
    net.set_train(True)
    loss_fn = mint.nn.CrossEntropyLoss()

    def loss(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(loss, None, net.trainable_params())
    optimizer = mint.optim.AdamW(net.trainable_params(), lr=0.01)
    x, y = T(IMG), T(np.array([0, 2]))
    first = None
    for _ in range(20):
        value, grads = grad_fn(x, y)
        optimizer(grads)
        first = value.asnumpy() if first is None else first
    assert value.asnumpy() < first / 2


def test_optim_linalg_special():
    from spore.experimental import optim
    assert mint.optim.Adam is optim.Adam and mint.optim.SGD is optim.SGD
    assert mint.optim.FusedAdamW is optim.AdamW
    x = RNG.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    close(mint.linalg.inv(T(x)), np.linalg.inv(x), 1e-4)
    close(mint.linalg.vector_norm(T(x), 1), np.abs(x).sum(), 1e-5)
    close(mint.linalg.matrix_norm(T(x)), np.linalg.norm(x), 1e-5)
    close(mint.linalg.norm(T(x), 2), np.linalg.norm(x, 2), 1e-4)
    close(mint.special.log_softmax(T(x), 1), x - np.log(np.exp(x).sum(1, keepdims=True)), 1e-5)
    close(mint.special.round(T(np.array([0.5, 1.5], np.float32))), [0.0, 2.0])
    close(mint.special.expm1(T(x)), np.expm1(x), 1e-5)


def test_inplace_activations():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    for fn, ref in ((F.inplace_silu, x / (1 + np.exp(-x))),
                    (lambda t: F.inplace_elu(t, 0.5), np.where(x > 0, x, 0.5 * np.expm1(x))),
                    (F.sigmoid_, 1 / (1 + np.exp(-x)))):
        t = T(x.copy())
        assert fn(t) is t
        close(t, ref, 1e-5)


def test_adaptive_avg_pool3d_windows():
    x = RNG.standard_normal((1, 2, 5, 4, 3)).astype(np.float32)
    out = mint.nn.AdaptiveAvgPool3d((2, 1, None))(T(x))
    assert out.shape == (1, 2, 2, 1, 3)
    # PyTorch's windows over depth 5 -> 2: [0, 3) and [2, 5)
    close(out, np.stack([x[:, :, 0:3].mean((2, 3)), x[:, :, 2:5].mean((2, 3))], 2)[:, :, :, None],
          1e-5)
    close(F.adaptive_avg_pool3d(T(x), 1), x.mean((2, 3, 4), keepdims=True), 1e-5)
    g = ms.grad(lambda a: F.adaptive_avg_pool3d(a, (2, 2, 2)).sum())(T(x)).asnumpy()
    assert np.isclose(g.sum(), 8 * 2)          # each output window's gradient sums to 1


def test_max_unpool2d_inverts_max_pool():
    values, indices = F.max_pool2d(T(IMG), 2, return_indices=True)
    up = mint.nn.MaxUnpool2d(2)(values, indices)
    assert up.shape == IMG.shape
    ref = np.where(IMG == np.repeat(np.repeat(IMG.reshape(2, 3, 3, 2, 3, 2).max((3, 5)), 2, 2),
                                    2, 3), IMG, 0)
    close(up, ref)
    assert F.max_unpool2d(values, indices, 2, output_size=(7, 7)).shape == (2, 3, 7, 7)


def test_optim_modules():
    from spore.experimental.optim import adam, adamw, sgd
    assert mint.optim.adam is adam and mint.optim.sgd is sgd
    assert mint.optim.adamw is adamw and mint.optim.fused_adamw.AdamW is mint.optim.FusedAdamW
