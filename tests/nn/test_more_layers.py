"""Padding, shape and math cells and the margin/regression/segmentation losses added for
MindSpore compatibility. Their values against MindSpore 2.10 are in tests/compat (programs
padding_layers, shape_layers, linear_layers, pair_losses); here: NumPy references where
MindSpore's CPU build has no kernel, gradients of composed cells, and argument errors."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from spore.ops._array import mirror_pad
from tests.nn.layer_checks import check_grads

RNG = np.random.default_rng(0)


def t32(a):
    return Tensor(np.asarray(a, np.float32))


def test_pad_modes_match_mindspore_doc_examples():
    # the outputs listed in MindSpore 2.10's nn.Pad docstring
    x = t32([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(nn.Pad(((1, 1), (2, 2)), "REFLECT")(x).asnumpy()[:2],
                                  [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]])
    np.testing.assert_array_equal(nn.Pad(((1, 1), (2, 2)), "SYMMETRIC")(x).asnumpy()[:2],
                                  [[2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2]])
    assert nn.Pad(((1, 1), (2, 2)))(x).asnumpy().sum() == 45


def test_symmetric_mirror_pad_gradient():
    check_grads(lambda t: mirror_pad(t, ((2, 1), (0, 3)), "SYMMETRIC"),
                [RNG.standard_normal((3, 4))])
    with pytest.raises(ValueError, match="symmetric mode"):
        mirror_pad(t32(np.ones((2, 3))), ((3, 0), (0, 0)), "SYMMETRIC")


def test_padding_layer_errors():
    with pytest.raises(ValueError, match="'mode' must be str"):
        nn.Pad(((1, 1),), mode="EDGE")
    with pytest.raises(TypeError, match="'paddings' must be tuple"):
        nn.Pad([[1, 1]])
    with pytest.raises(ValueError, match="must equal to 2"):
        nn.ConstantPad1d((1, 2, 3, 4), 0.0)
    with pytest.raises(ValueError, match="no more than 4"):
        nn.ZeroPad2d((1,) * 6)
    with pytest.raises(ValueError, match=">= 0"):
        nn.ReflectionPad2d((1, -1, 0, 0))
    with pytest.raises(TypeError, match="'value' must be in"):
        nn.ConstantPad2d(1, "0")
    # replicate pads may crop, as ops.pad does
    assert nn.ReplicationPad1d((-1, 2))(t32(np.ones((1, 2, 5)))).shape == (1, 2, 6)


def test_shape_cell_errors():
    with pytest.raises(ValueError, match="must be even"):
        nn.GLU()(t32(np.ones((2, 3))))
    with pytest.raises(ValueError, match="3 or 4 dims"):
        nn.Softmax2d()(t32(np.ones((2, 3))))
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.ChannelShuffle(2)(t32(np.ones((1, 3, 2, 2))))
    with pytest.raises(TypeError, match="'Moments'"):
        nn.Moments()(Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="'delta' can not be zero"):
        nn.Range(0, 3, 0)
    assert nn.Unflatten(-1, (2, 3))(t32(np.ones((4, 6)))).shape == (4, 2, 3)
    assert nn.Range(5)().dtype == ms.int32 and nn.Range(0.5, 2)().dtype == ms.float32


def test_moments_variance_passes_no_gradient_through_the_mean():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    g = ms.grad(lambda t: nn.Moments(axis=1)(t)[1].sum())(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, 2 * (x - x.mean(1, keepdims=True)) / 4, rtol=1e-5)


def test_bidense_gradients():
    cell = nn.BiDense(3, 2, 4, dtype=ms.float64)
    check_grads(cell, [RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))],
                cell.trainable_params())


def test_soft_margin_loss_matches_numpy():
    # MindSpore 2.10's CPU build has no SoftMarginLoss kernel: NumPy reference
    x, y = RNG.standard_normal((4, 3)), np.sign(RNG.standard_normal((4, 3)))
    want = np.log1p(np.exp(-y * x))
    for reduction, reduce in (("mean", np.mean), ("sum", np.sum), ("none", lambda v: v)):
        got = nn.SoftMarginLoss(reduction)(Tensor(x), Tensor(y)).asnumpy()
        np.testing.assert_allclose(got, reduce(want), rtol=1e-10)


def test_dice_loss_gradients():
    # (FocalLoss reduces in float32 as MindSpore's losses do, so its gradients are checked
    # against MindSpore's in tests/compat rather than by float64 finite differences)
    target = Tensor((RNG.random((3, 3)) > 0.5).astype(np.float64))
    check_grads(lambda z: nn.MultiClassDiceLoss()(z, target), [RNG.standard_normal((3, 3))],
                rtol=1e-4)


def test_loss_argument_errors():
    with pytest.raises(TypeError, match="'margin' must be float"):
        nn.CosineEmbeddingLoss(1)
    with pytest.raises(ValueError, match=r"range \[-1.0, 1.0\]"):
        nn.CosineEmbeddingLoss(1.5)
    with pytest.raises(TypeError, match="'gamma' must be float"):
        nn.FocalLoss(gamma=2)
    with pytest.raises(ValueError, match="dimensions of 'labels'"):
        nn.FocalLoss()(t32(np.ones((2, 3))), Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError, match="'smooth' must be a positive"):
        nn.DiceLoss(0)
    with pytest.raises(ValueError, match="'activation' must be in"):
        nn.MultiClassDiceLoss(activation="gelu")
    with pytest.raises(ValueError, match="'eps' must be a float"):
        nn.GaussianNLLLoss(eps=0.0)
    with pytest.raises(TypeError, match="can not be unsigned"):
        nn.RMSELoss()(Tensor(np.ones(2, np.uint8)), Tensor(np.ones(2, np.uint8)))
    assert ops.isclose(nn.MAELoss("sum")(t32([1, -2]), t32([0, 0])), t32(3.0)).all()
