"""grid_sample, affine_grid, conv3d_transpose, max_unpool1d/2d/3d, lrn, multilabel_margin_loss
and gumbel_softmax: op-table checks (references, shape rules, numerical gradients, jit)
and values probed on MindSpore 2.10 (or, where its CPU build has no kernel, PyTorch's, which
MindSpore documents)."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

THETA = np.array([[[0.8, -0.2, 0.1], [0.3, 1.1, -0.2]]], np.float32)
IMG = np.arange(12.).reshape(1, 1, 3, 4).astype(np.float32)

# PyTorch 2's F.grid_sample(IMG, 1.3 * F.affine_grid(THETA, (1, 1, 2, 3), align), ...)
GRID_SAMPLE = {
    ("bilinear", "zeros", False): [[0.093417, 1.08575, 1.65095], [5.283334, 8.23, 10.097386]],
    ("bilinear", "zeros", True): [[0.0, 0.64635, 0.745501], [5.3044, 7.72315, 4.7806]],
    ("bilinear", "border", False): [[0.633333, 2.02, 3.0], [5.283334, 8.23, 10.886667]],
    ("bilinear", "border", True): [[0.525, 2.085, 3.0], [7.12, 9.305, 10.865]],
    ("bilinear", "reflection", False): [[0.633333, 2.02, 3.0], [5.283334, 8.23, 10.886667]],
    ("bilinear", "reflection", True): [[4.845, 4.845, 3.555], [7.375, 8.625, 8.625]],
    ("nearest", "zeros", False): [[0, 2, 3], [4, 10, 11]],
    ("nearest", "zeros", True): [[0, 0, 0], [8, 9, 0]],
    ("nearest", "border", True): [[1, 2, 3], [8, 9, 11]],
    ("nearest", "reflection", True): [[5, 6, 2], [8, 9, 7]],
}


@pytest.mark.parametrize("key", sorted(GRID_SAMPLE), ids=lambda k: "-".join(map(str, k)))
def test_grid_sample_matches_pytorch(key):
    mode, padding, align = key
    grid = ops.affine_grid(ms.Tensor(THETA), (1, 1, 2, 3), align) * 1.3
    out = ops.grid_sample(ms.Tensor(IMG), grid, mode, padding, align)
    np.testing.assert_allclose(out.asnumpy()[0, 0], GRID_SAMPLE[key], atol=1e-5)
    same = ops.GridSampler2D(mode, padding, align)(ms.Tensor(IMG), grid)
    np.testing.assert_array_equal(same.asnumpy(), out.asnumpy())


def test_affine_grid_matches_pytorch():
    grid = ops.affine_grid(ms.Tensor(THETA), (1, 1, 2, 3))
    np.testing.assert_allclose(grid.asnumpy()[0, :, :, 0], [[-0.333333, 0.2, 0.733333],
                                                           [-0.533333, 0.0, 0.533333]],
                               atol=1e-6)
    theta3 = ms.Tensor(np.tile(np.eye(3, 4, dtype=np.float32), (2, 1, 1)))
    grid = ops.AffineGrid(True)(theta3, (2, 1, 2, 3, 4))
    assert grid.shape == (2, 2, 3, 4, 3)
    np.testing.assert_allclose(grid.asnumpy()[0, 0, 0, :, 0], [-1, -1 / 3, 1 / 3, 1], atol=1e-6)
    with pytest.raises(ValueError, match="theta"):
        ops.affine_grid(ms.Tensor(THETA), (1, 1, 2, 3, 4))


def _grid_input(r):
    return r.uniform(-1.1, 1.1, (2, 3, 4, 2))


def _away_from_pixels(r):
    """Grid points not on pixel rows/columns, where bilinear weights have kinks."""
    g = r.uniform(-0.9, 0.9, (2, 3, 4, 2))
    return g


CASES = [
    OpCase("grid_sample-bilinear", lambda x, g: ops.grid_sample(x, g, align_corners=False),
           None, [(2, 2, 4, 5), _away_from_pixels], rtol=1e-4),
    OpCase("grid_sample-border", lambda x, g: ops.grid_sample(x, g, "bilinear", "border", True),
           None, [(2, 2, 4, 5), _away_from_pixels], rtol=1e-4),
    OpCase("grid_sample-nearest", lambda x, g: ops.grid_sample(x, g, "nearest"), None,
           [(2, 2, 4, 5), _away_from_pixels], grad_argnums=[0]),
    OpCase("affine_grid", lambda t: ops.affine_grid(t, (2, 1, 3, 4)), None,
           [(2, 2, 3)]),
    OpCase("affine_grid-3d", lambda t: ops.affine_grid(t, (1, 1, 2, 2, 3), True), None,
           [(1, 3, 4)]),
    OpCase("conv3d_transpose", lambda x, w: ops.conv3d_transpose(x, w), None,
           [(1, 2, 2, 3, 2), (2, 3, 2, 2, 2)], rtol=1e-4),
    OpCase("conv3d_transpose-pad-stride",
           lambda x, w: ops.conv3d_transpose(x, w, "pad", 1, 2, 1, 1, 1), None,
           [(1, 2, 2, 2, 2), (2, 2, 3, 3, 3)], rtol=1e-4),
    OpCase("max_unpool1d", lambda x: ops.max_unpool1d(x, ms.Tensor(np.array([[[0, 3, 5]]])), 2),
           None, [(1, 1, 3)]),
    OpCase("max_unpool3d", lambda x: ops.max_unpool3d(
        x, ms.Tensor(np.array([[[[[0, 3], [10, 13]]]]])), (1, 2, 2)), None, [(1, 1, 1, 2, 2)]),
    OpCase("lrn", lambda x: ops.lrn(x, 2, 1.0, 0.5, 0.75), None, [(2, 5, 2, 3)], rtol=1e-4),
    OpCase("multilabel_margin_loss",
           lambda x: ops.multilabel_margin_loss(x, ms.Tensor(np.array([[3, 0, -1, 1],
                                                                       [1, 2, -1, 0]]))),
           None, [(2, 4)], domain=(-0.3, 0.3)),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


def test_conv3d_transpose_matches_mindspore_and_conv3d_adjoint():
    rng = np.random.default_rng(0)
    w = rng.uniform(-1, 1, (2, 3, 2, 2, 2)).astype(np.float32)
    x = rng.uniform(-1, 1, (1, 2, 3, 3, 3)).astype(np.float32)
    out = ops.conv3d_transpose(ms.Tensor(x), ms.Tensor(w))
    assert out.shape == (1, 3, 4, 4, 4)
    # <conv3d_transpose(x, w), y> == <x, conv3d(y, w)>: the transpose is conv3d's adjoint
    y = rng.uniform(-1, 1, out.shape).astype(np.float32)
    lhs = float((out.asnumpy() * y).sum())
    rhs = float((x * ops.conv3d(ms.Tensor(y), ms.Tensor(w)).asnumpy()).sum())
    assert abs(lhs - rhs) < 1e-3
    out = ops.conv3d_transpose(ms.Tensor(x), ms.Tensor(w), "pad", 1, 2, 1, 1, 1)
    assert out.shape == (1, 3, 5, 5, 5)         # (3 - 1) * 2 - 2 + (2 - 1) + 1 + 1
    net = ms.nn.Conv3dTranspose(2, 3, 2, stride=2)
    assert net.weight.shape == (2, 3, 2, 2, 2) and net(ms.Tensor(x)).shape == (1, 3, 6, 6, 6)
    net = ms.nn.Conv3dTranspose(2, 3, 3, pad_mode="valid", has_bias=True)
    assert net(ms.Tensor(x)).shape == (1, 3, 5, 5, 5)
    with pytest.raises(ValueError, match="pad_mode"):
        ms.nn.Conv3dTranspose(2, 3, 2, output_padding=1)


def test_max_unpool_matches_mindspore():
    out = ops.max_unpool1d(ms.Tensor([[[2., 4.]]]), ms.Tensor([[[1, 3]]], ms.int64), 2)
    assert out.asnumpy().tolist() == [[[0, 2, 0, 4]]]
    out = ops.max_unpool2d(ms.Tensor([[[[2., 4.]]]]), ms.Tensor([[[[1, 7]]]], ms.int64), 2,
                           output_size=(1, 1, 3, 4))
    assert out.asnumpy().tolist() == [[[[0, 2, 0, 0], [0, 0, 0, 4], [0, 0, 0, 0]]]]
    out = ops.MaxUnpool2D(ksize=2)(ms.Tensor([[[[2., 4.]]]]), ms.Tensor([[[[1, 3]]]], ms.int64))
    assert out.shape == (1, 1, 2, 4)
    out = ms.nn.MaxUnpool3d(2)(ms.Tensor(np.full((1, 1, 1, 1, 1), 5., np.float32)),
                               ms.Tensor(np.full((1, 1, 1, 1, 1), 6)))
    assert out.shape == (1, 1, 2, 2, 2) and out.asnumpy()[0, 0, 1, 1, 0] == 5
    pooled, idx = ms.mint.nn.functional.max_pool2d(
        ms.Tensor(np.arange(16.).reshape(1, 1, 4, 4).astype(np.float32)), 2,
        return_indices=True)
    back = ms.nn.MaxUnpool1d(2)(pooled.reshape(1, 1, 4), idx.reshape(1, 1, 4),
                                output_size=(1, 1, 16))
    assert back.asnumpy().reshape(4, 4)[1].tolist() == [0, 5, 0, 7]
    with pytest.raises(ValueError, match="indices"):
        ops.max_unpool1d(ms.Tensor([[[2., 4.]]]), ms.Tensor([[[1]]]), 2)


def test_lrn_matches_mindspore():
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.uniform(-1, 1, (1, 6, 2, 2)).astype(np.float32))
    out = ops.lrn(x, 2, 1.0, 0.5, 0.75)
    # MindSpore 2.10 CPU on the same input
    np.testing.assert_allclose(out.asnumpy()[0, 0], [[0.23345, -0.293196], [-0.632419,
                                                                            -0.560839]],
                               atol=1e-5)
    np.testing.assert_allclose(out.asnumpy()[0, 5], [[-0.568568, -0.500131], [0.289716,
                                                                             0.246697]],
                               atol=1e-5)
    np.testing.assert_array_equal(ms.nn.LRN(2, 1.0, 0.5, 0.75)(x).asnumpy(), out.asnumpy())
    np.testing.assert_array_equal(ops.LRN(2, 1.0, 0.5, 0.75)(x).asnumpy(), out.asnumpy())
    with pytest.raises(ValueError, match="norm_region"):
        ops.lrn(x, norm_region="LOCAL")


def test_multilabel_margin_loss_matches_pytorch():
    x = ms.Tensor([[0.1, 0.2, 0.4, 0.8], [0.2, 0.6, 0.1, 0.3]])
    t = ms.Tensor([[3, 0, -1, 1], [1, 2, -1, 0]], ms.int32)
    np.testing.assert_allclose(ops.multilabel_margin_loss(x, t, "none").asnumpy(), [0.85, 0.9],
                               atol=1e-6)
    np.testing.assert_allclose(ms.nn.MultilabelMarginLoss()(x, t).asnumpy(), 0.875, atol=1e-6)
    loss, is_target = ops.MultilabelMarginLoss("sum")(x, t)
    np.testing.assert_allclose(loss.asnumpy(), 1.75, atol=1e-6)
    assert is_target.asnumpy().tolist() == [[1, 0, 0, 1], [0, 1, 1, 0]]
    np.testing.assert_allclose(ops.multilabel_margin_loss(
        ms.Tensor([0.1, 0.2, 0.4, 0.8]), ms.Tensor([3, 0, -1, 1]), "none").asnumpy(), 0.85,
        atol=1e-6)


def test_gumbel_softmax():
    ms.set_seed(1)
    logits = ms.Tensor([[1., 2., 0.5], [0.1, 0.1, 3.]])
    soft = ops.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.asnumpy().sum(-1), [1, 1], rtol=1e-6)
    hard = ops.gumbel_softmax(logits, hard=True)
    assert sorted(hard.asnumpy().ravel().tolist()) == [0, 0, 0, 0, 1, 1]
    g = ops.grad(lambda t: (ops.gumbel_softmax(t, hard=True) * ms.Tensor([1., 2., 3.])).sum())(
        logits)
    assert g.shape == (2, 3) and np.isfinite(g.asnumpy()).all()
    ms.set_seed(3)
    samples = np.stack([ops.gumbel_softmax(ms.Tensor([[0., np.log(3.)]]), hard=True).asnumpy()
                        for _ in range(400)])
    assert 0.65 < samples[:, 0, 1].mean() < 0.85          # P(class 1) = 3/4
    with pytest.raises(ValueError, match="tau"):
        ops.gumbel_softmax(logits, tau=0)


def test_image_quality_metrics():
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 1, (2, 3, 16, 16)).astype(np.float32)
    b = np.clip(a + rng.normal(0, 0.1, a.shape), 0, 1).astype(np.float32)
    psnr = ms.nn.PSNR()(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    want = 10 * np.log10(1 / ((a - b) ** 2).mean((1, 2, 3)))
    np.testing.assert_allclose(psnr, want, rtol=1e-5)
    ssim = ms.nn.SSIM()
    np.testing.assert_allclose(ssim(ms.Tensor(a), ms.Tensor(a)).asnumpy(), [1, 1], atol=1e-5)
    got = ssim(ms.Tensor(a), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, _ssim_reference(a, b), rtol=1e-4)
    assert (got < 1).all() and (got > 0).all()
    with pytest.raises(ValueError, match="filter"):
        ssim(ms.Tensor(a[:, :, :8, :8]), ms.Tensor(b[:, :, :8, :8]))


def _ssim_reference(a, b, size=11, sigma=1.5, k1=0.01, k2=0.03):
    """SSIM with a separable Gaussian window, 'valid' positions, in float64."""
    x = np.arange(size) - (size - 1) / 2
    g = np.exp(-x * x / (2 * sigma * sigma))
    g /= g.sum()

    def blur(t):
        rows = np.stack([(t[..., i:i + size, :] * g[:, None]).sum(-2)
                         for i in range(t.shape[-2] - size + 1)], -2)
        return np.stack([(rows[..., j:j + size] * g).sum(-1)
                         for j in range(t.shape[-1] - size + 1)], -1)
    a, b = a.astype(np.float64), b.astype(np.float64)
    mu1, mu2 = blur(a), blur(b)
    s11, s22, s12 = blur(a * a) - mu1 ** 2, blur(b * b) - mu2 ** 2, blur(a * b) - mu1 * mu2
    c1, c2 = k1 ** 2, k2 ** 2
    m = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s11 + s22 + c2))
    return m.mean((1, 2, 3))


def test_sync_batch_norm_is_batch_norm_on_one_device():
    x = ms.Tensor(np.arange(8.).reshape(2, 2, 2, 1).astype(np.float32))
    net = ms.nn.SyncBatchNorm(2)
    # MindSpore 2.10 CPU: inference with the initial statistics divides by sqrt(1 + eps)
    np.testing.assert_allclose(net(x).asnumpy().ravel(), np.arange(8.) / np.sqrt(1 + 1e-5),
                               rtol=1e-6)
    net.set_train(True)
    ref = ms.nn.BatchNorm2d(2)
    ref.set_train(True)
    np.testing.assert_allclose(net(x).asnumpy(), ref(x).asnumpy(), rtol=1e-6)
    assert [p.name for p in net.get_parameters()] == [p.name for p in ref.get_parameters()]


def test_triplet_margin_with_distance_loss_matches_mindspore():
    a = ms.Tensor([[1., 2.], [3., 4.]])
    p = ms.Tensor([[1., 2.5], [3., 4.]])
    n = ms.Tensor([[0., 0.], [3., 4.1]])
    np.testing.assert_allclose(ms.nn.TripletMarginWithDistanceLoss()(a, p, n).asnumpy(), 0.45,
                               atol=1e-5)
    l1 = ms.nn.TripletMarginWithDistanceLoss(lambda u, v: ops.abs(u - v).sum(-1), swap=True,
                                             reduction="none", margin=0.5)
    np.testing.assert_allclose(l1(a, p, n).asnumpy(), [0, 0.4], atol=1e-6)


def test_bn_act_cells_have_mindspore_parameter_names():
    net = ms.nn.DenseBnAct(3, 2, has_bn=True, activation="relu")
    assert [q.name for q in net.get_parameters()] == [
        "dense.weight", "dense.bias", "batchnorm.moving_mean", "batchnorm.moving_variance",
        "batchnorm.gamma", "batchnorm.beta"]
    net.set_train(False)
    assert (net(ms.Tensor(np.ones((4, 3), np.float32))).asnumpy() >= 0).all()
    net = ms.nn.Conv2dBnAct(3, 2, 3, activation="leakyrelu", alpha=0.1)
    assert [q.name for q in net.get_parameters()] == ["conv.weight"]
    assert net(ms.Tensor(np.ones((1, 3, 4, 4), np.float32))).shape == (1, 2, 4, 4)
