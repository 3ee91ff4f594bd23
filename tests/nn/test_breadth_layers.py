"""nn.Roll, nn.Unfold, nn.RReLU (ops.rrelu), nn.InstanceNorm1d/2d/3d, nn.TripletMarginLoss and
ops.Roll. MindSpore's CPU build has no kernel for Roll, Unfold, InstanceNorm or
TripletMarginLoss, so these follow the documented definitions, written out in NumPy here;
RReLU's behaviour (fresh slopes on every call, in training and evaluation) was probed."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from tests.helpers.optable import OpCase, run_grad

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)


# ------------------------------------------------------------------ Roll
@pytest.mark.parametrize("shift,axis", [(2, 1), ((1, -2), (2, 3)), (-7, 3)])
def test_roll_matches_numpy(shift, axis):
    got = nn.Roll(shift, axis)(ms.Tensor(X4)).asnumpy()
    np.testing.assert_array_equal(got, np.roll(X4, shift, axis))


def test_roll_errors_and_primitive_class():
    with pytest.raises(ValueError, match="the shape of 'shift' and the shape of 'axis' must be "
                                         "the same"):
        nn.Roll((1, 2), 1)
    with pytest.raises(TypeError, match="'shift' must be int"):
        nn.Roll(1.5, 0)
    assert ops.Roll(2, 0)(ms.Tensor(np.arange(5))).asnumpy().tolist() == [3, 4, 0, 1, 2]


# ------------------------------------------------------------------ Unfold
def np_extract_patches(x, k, s, r, padding):
    """ExtractImagePatches: depth index (i * kw + j) * C + c."""
    n, c, h, w = x.shape
    spans = [(k[a] - 1) * r[a] + 1 for a in range(2)]
    if padding == "valid":
        pads, outs = [(0, 0), (0, 0)], [(size - sp) // st + 1
                                         for size, sp, st in zip((h, w), spans, s)]
    else:
        outs = [-(-size // st) for size, st in zip((h, w), s)]
        totals = [max((o - 1) * st + sp - size, 0)
                  for o, st, sp, size in zip(outs, s, spans, (h, w))]
        pads = [(t // 2, t - t // 2) for t in totals]
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    out = np.zeros((n, k[0] * k[1] * c, outs[0], outs[1]), x.dtype)
    for oi, oj, i, j in np.ndindex(outs[0], outs[1], k[0], k[1]):
        rows = xp[:, :, oi * s[0] + i * r[0], oj * s[1] + j * r[1]]
        out[:, (i * k[1] + j) * c:(i * k[1] + j + 1) * c, oi, oj] = rows
    return out


@pytest.mark.parametrize("k,s,r,padding", [((2, 2), (1, 1), (1, 1), "valid"),
                                           ((3, 2), (2, 1), (1, 2), "same"),
                                           ((2, 3), (2, 3), (2, 1), "valid"),
                                           ((3, 3), (1, 2), (1, 1), "same")])
def test_unfold_matches_extract_image_patches(k, s, r, padding):
    layer = nn.Unfold([1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
    got = layer(ms.Tensor(X4)).asnumpy()
    np.testing.assert_array_equal(got, np_extract_patches(X4, k, s, r, padding))


def test_unfold_gradient_and_errors():
    layer = nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "same")
    run_grad(OpCase("Unfold", layer, None, [(1, 2, 3, 4)]))
    with pytest.raises(ValueError, match="the format of 'ksizes' must be \\[1, ksize_row, "
                                         "ksize_col, 1\\]"):
        nn.Unfold([2, 2], [1, 1, 1, 1], [1, 1, 1, 1])
    with pytest.raises(ValueError, match="'padding' must be 'valid' or 'same'"):
        nn.Unfold([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "full")
    with pytest.raises(ValueError, match="4-D"):
        layer(ms.Tensor(X4[0]))


# ------------------------------------------------------------------ RReLU
def test_rrelu_draws_slopes_in_range_on_every_call():
    x = ms.Tensor(np.array([-2.0, -1.0, 0.0, 1.0, 3.0] * 40, np.float32))
    layer = nn.RReLU(0.1, 0.3)
    for training in (True, False):          # MindSpore draws in both modes
        layer.set_train(training)
        first, second = layer(x).asnumpy(), layer(x).asnumpy()
        neg = x.asnumpy() < 0
        slopes = first[neg] / x.asnumpy()[neg]
        assert slopes.min() >= 0.1 and slopes.max() <= 0.3
        assert not np.array_equal(first, second)
        np.testing.assert_array_equal(first[~neg], x.asnumpy()[~neg])
    ms.set_seed(4)
    a = ops.rrelu(x).asnumpy()
    ms.set_seed(4)
    np.testing.assert_array_equal(ops.rrelu(x).asnumpy(), a)     # seeded: repeatable
    slopes = a[neg] / x.asnumpy()[neg]
    assert slopes.min() >= 1 / 8 and slopes.max() <= 1 / 3 + 1e-7


def test_rrelu_gradient_is_the_slope_drawn():
    x = ms.Tensor(np.array([-2.0, -0.5, 1.5], np.float32))
    out, grad = ms.value_and_grad(lambda x: ops.rrelu(x).sum())(x)
    g = grad.asnumpy()
    assert g[2] == 1.0 and 1 / 8 <= g[0] <= 1 / 3 and 1 / 8 <= g[1] <= 1 / 3
    np.testing.assert_allclose(float(out), -2.0 * g[0] - 0.5 * g[1] + 1.5, rtol=1e-6)


def test_rrelu_errors():
    with pytest.raises(ValueError, match="'upper' must be greater than or equal to 'lower'"):
        nn.RReLU(0.5, 0.2)
    with pytest.raises(TypeError, match="'lower' should be one of"):
        nn.RReLU("a")
    with pytest.raises(TypeError, match="the 'input' must be a Tensor"):
        ops.rrelu([1.0])


# ------------------------------------------------------------------ InstanceNorm
def np_instance_norm(x, gamma, beta, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axes, keepdims=True)
    var = x.var(axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean) / np.sqrt(var + eps) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 7)),
                                       (nn.InstanceNorm2d, (2, 3, 4, 5)),
                                       (nn.InstanceNorm3d, (2, 3, 2, 3, 4))])
def test_instance_norm_matches_definition(cls, shape):
    x = RNG.standard_normal(shape).astype(np.float32) * 3 + 1
    gamma = np.array([0.5, 1.0, 2.0], np.float32)
    beta = np.array([0.1, -0.2, 0.3], np.float32)
    layer = cls(3, gamma_init=ms.Tensor(gamma), beta_init=ms.Tensor(beta))
    for training in (True, False):                 # instance statistics in both modes
        layer.set_train(training)
        np.testing.assert_allclose(layer(ms.Tensor(x)).asnumpy(),
                                   np_instance_norm(x, gamma, beta), rtol=1e-5, atol=1e-5)
    assert [p.name for p in layer.get_parameters()] == ["mean", "variance", "gamma", "beta"]
    assert [p.name for p in layer.trainable_params()] == ["gamma", "beta"]
    assert not nn.InstanceNorm2d(3, affine=False).trainable_params()


def test_instance_norm_gradient_and_errors():
    layer = nn.InstanceNorm2d(2, gamma_init=ms.Tensor(np.array([0.7, 1.3], np.float32)))
    run_grad(OpCase("InstanceNorm2d", layer, None, [(2, 2, 3, 3)]))
    with pytest.raises(ValueError, match="the in_shape must have 4 dims, but got 3"):
        layer(ms.Tensor(np.ones((2, 2, 4), np.float32)))
    with pytest.raises(ValueError, match="'num_features' must be at least 1"):
        nn.InstanceNorm2d(0)
    with pytest.raises(ValueError, match="'momentum' must be a number in range \\[0, 1\\]"):
        nn.InstanceNorm2d(3, momentum=1.5)
    with pytest.raises(TypeError, match="'eps' should be 'float'"):
        nn.InstanceNorm2d(3, eps=1)


# ------------------------------------------------------------------ TripletMarginLoss
def test_triplet_margin_loss_layer():
    a = np.array([[0.3, 0.7], [0.5, 0.5]], np.float32)
    p = np.array([[0.4, 0.6], [0.5, 0.4]], np.float32)
    n = np.array([[0.0, 0.6], [0.1, 0.3]], np.float32)

    def ref(margin, norm=2, swap=False):
        d = lambda u, v: np.sum(np.abs(u - v + 1e-6) ** norm, -1) ** (1 / norm)  # noqa: E731
        neg = np.minimum(d(a, n), d(p, n)) if swap else d(a, n)
        return np.maximum(d(a, p) - neg + margin, 0)

    t = [ms.Tensor(v) for v in (a, p, n)]
    np.testing.assert_allclose(float(nn.TripletMarginLoss()(*t)), ref(1.0).mean(), rtol=1e-5)
    np.testing.assert_allclose(float(nn.TripletMarginLoss()(*t, ms.Tensor(0.2))),
                               ref(0.2).mean(), rtol=1e-5)
    # a margin set at construction overrides the one passed in (MindSpore's rule)
    np.testing.assert_allclose(float(nn.TripletMarginLoss(margin=0.5)(*t, 0.2)),
                               ref(0.5).mean(), rtol=1e-5)
    got = nn.TripletMarginLoss(p=1, swap=True, reduction="sum")(*t, 0.5)
    np.testing.assert_allclose(float(got), ref(0.5, 1, True).sum(), rtol=1e-5)
    with pytest.raises(ValueError, match="reduction"):
        nn.TripletMarginLoss(reduction="max")
