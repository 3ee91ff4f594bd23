"""Loss cells: values, reductions, options, gradients and errors.

Expected numbers and messages were produced by MindSpore 2.10 (CPU) on the same inputs
(reference notes §7 plus a loss probe run with the reference install); the hand-checkable
ones are also derived in comments.
"""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from tests.nn.layer_checks import check_grads


def t32(a):
    return Tensor(np.asarray(a, np.float32))


LOGITS = t32([[2, 1, 0.1], [0.5, 2.5, 0.3]])
LABELS = Tensor(np.array([0, 1], np.int32))
A = t32([[1, 2, 3], [4, 5, 6]])
B = t32([[1.5, 2, 2], [4, 3, 6.5]])
P = t32([[0.2, 0.9], [0.6, 0.4]])
Q = t32([[0, 1], [1, 0]])


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- LossBase
class WeightedAbs(nn.LossBase):
    def construct(self, x, w):
        return self.get_loss(x, w)


def test_lossbase_get_loss_and_axis():
    close(WeightedAbs()(A, t32([1, 0, 2])), 3.8333333)          # (1+0+6+4+0+12)/6
    close(WeightedAbs("sum")(A, 2.0), 42.0)
    close(WeightedAbs("none")(A, 2.0), [[2, 4, 6], [8, 10, 12]])
    out = WeightedAbs()(Tensor(np.ones((2, 2), np.float16)), 1.0)
    assert out.dtype == ms.float16 and out.shape == ()
    assert WeightedAbs().get_axis(A) == (0, 1)
    with pytest.raises(ValueError, match=r"For 'WeightedAbs', the 'reduction' must be in "
                                         r"\['mean', 'sum', 'none'\], but got avg."):
        WeightedAbs("avg")


# ---------------------------------------------------------------- regression losses
def test_mse_loss():
    close(nn.MSELoss()(A, B), 0.9166667)                          # (0.25+1+4+0.25)/6
    close(nn.MSELoss("sum")(A, B), 5.5)
    close(nn.MSELoss("none")(A, B), [[0.25, 0, 1], [0, 4, 0.25]])
    close(nn.MSELoss()(A, t32([1, 2, 3])), 4.5)                   # broadcasting
    close(nn.MSELoss()(A, Tensor(np.array([[1, 2, 2], [4, 3, 6]], np.int32))), 0.8333333)
    assert nn.MSELoss()(A, B).dtype == ms.float32
    with pytest.raises(ValueError, match="For 'MSELoss', the 'reduction' must be in"):
        nn.MSELoss("avg")
    with pytest.raises(TypeError, match="For 'MSELoss', the 'labels' must be"):
        nn.MSELoss()(A, np.ones((2, 3), np.float32))


def test_l1_and_smooth_l1_and_huber():
    close(nn.L1Loss()(A, B), 0.6666667)
    close(nn.L1Loss("sum")(A, B), 4.0)
    close(nn.L1Loss("none")(A, B), [[0.5, 0, 1], [0, 2, 0.5]])
    close(nn.SmoothL1Loss()(A, B), [[0.125, 0, 0.5], [0, 1.5, 0.125]])   # default 'none'
    close(nn.SmoothL1Loss(beta=0.5, reduction="mean")(A, B), 0.5)
    close(nn.SmoothL1Loss(reduction="sum")(A, B), 2.25)
    close(nn.HuberLoss(delta=0.6)(A, B), 0.2816667)
    with pytest.raises(ValueError, match="For 'SmoothL1Loss', the 'reduction' must be in"):
        nn.SmoothL1Loss(reduction="x")


# ---------------------------------------------------------------- classification losses
def test_cross_entropy_loss_matches_reference():
    close(nn.CrossEntropyLoss()(LOGITS, LABELS), 0.3185395)
    close(nn.CrossEntropyLoss(reduction="none")(LOGITS, LABELS), [0.4170296, 0.2200494])
    close(nn.CrossEntropyLoss(reduction="sum")(LOGITS, LABELS), 0.6370790)
    close(nn.CrossEntropyLoss(weight=t32([1, 2, 1]))(LOGITS, LABELS), 0.2857095)
    close(nn.CrossEntropyLoss(ignore_index=1)(LOGITS, LABELS), 0.4170296)
    close(nn.CrossEntropyLoss(label_smoothing=0.1)(LOGITS, LABELS), 0.4368728)
    close(nn.CrossEntropyLoss(weight=t32([1, 2, 1]), label_smoothing=0.2)(LOGITS, LABELS),
          0.4651968)
    close(nn.CrossEntropyLoss()(LOGITS, t32([[1, 0, 0], [0, 1, 0]])), 0.3185395)
    close(nn.CrossEntropyLoss()(LOGITS, t32([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1]])), 0.7235395)
    close(nn.CrossEntropyLoss()(t32([2, 1, 0.1]), Tensor(np.array(0, np.int32))), 0.4170296)


def test_cross_entropy_loss_spatial():
    x = t32(np.arange(12).reshape(2, 3, 2) / 5)
    y = Tensor(np.array([[0, 2], [1, 1]], np.int32))
    close(nn.CrossEntropyLoss()(x, y), 1.1512502)
    close(nn.CrossEntropyLoss(reduction="none")(x, y), [[1.5512502, 0.7512503],
                                                      [1.1512502, 1.1512501]])


def test_cross_entropy_loss_errors():
    with pytest.raises(TypeError, match="For 'CrossEntropyLoss', the 'labels' should be Int32, "
                                        "but got 'mindspore.int64'."):
        nn.CrossEntropyLoss()(LOGITS, Tensor(np.array([0, 1], np.int64)))
    with pytest.raises(TypeError, match="the type of 'label_smoothing' should be 'float', but "
                                        "got type 'int'"):
        nn.CrossEntropyLoss(label_smoothing=0)
    with pytest.raises(ValueError, match=r"'label_smoothing' must be in range of \[0.0, 1.0\]"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(TypeError, match="the type of 'ignore_index' should be 'int'"):
        nn.CrossEntropyLoss(ignore_index=1.0)
    with pytest.raises(TypeError, match="the type of 'weight' should be 'Tensor', but got type "
                                        "'ndarray'"):
        nn.CrossEntropyLoss(weight=np.ones(3))
    with pytest.raises(TypeError, match=r"'weight' should be one of \[mindspore.float16, "
                                        r"mindspore.float32\], but got 'mindspore.int32'"):
        nn.CrossEntropyLoss(weight=Tensor(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="the shape of 'logits' should be"):
        nn.CrossEntropyLoss()(LOGITS, Tensor(np.array([0, 1, 2], np.int32)))
    with pytest.raises(ValueError, match="the rank of 'logits' and 'labels' should be"):
        nn.CrossEntropyLoss()(LOGITS, Tensor(np.array([[[0]]], np.int32)))
    with pytest.raises(TypeError, match="'logits' should be one of"):
        nn.CrossEntropyLoss()(Tensor(np.ones((1, 3))), Tensor(np.array([0], np.int32)))


def test_nll_loss():
    logp = ops.log_softmax(LOGITS, 1)
    close(nn.NLLLoss()(logp, LABELS), 0.3185391)
    close(nn.NLLLoss(weight=t32([1, 2, 1]))(logp, LABELS), 0.2857095)
    close(nn.NLLLoss(ignore_index=0, reduction="sum")(logp, LABELS), 0.2200503)
    close(nn.NLLLoss(reduction="none")(logp, LABELS), [0.4170278, 0.2200503])
    close(nn.NLLLoss()(logp, Tensor(np.array([0, 1], np.int64))), 0.3185391)


def test_softmax_cross_entropy_with_logits():
    onehot = t32([[1, 0, 0], [0, 1, 0]])
    close(nn.SoftmaxCrossEntropyWithLogits()(LOGITS, onehot), [0.4170299, 0.2200495])
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(LOGITS, LABELS), [0.4170299, 0.2200495])
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(LOGITS, LABELS),
          0.3185394)
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")(LOGITS, LABELS),
          0.6370795)
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(LOGITS, Tensor(np.array([0, 1],
                                                                               np.int64))),
          [0.4170299, 0.2200495])
    close(nn.SoftmaxCrossEntropyWithLogits(reduction="mean")(
        LOGITS, t32([[0.5, 0.5, 0], [0.2, 0.3, 0.5]])), 1.3185399)
    z = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    y = np.array([[0, 3, 1], [2, 2, 0]], np.int32)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    want = -np.take_along_axis(logp, y[..., None], -1)[..., 0]
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(z), Tensor(y)), want)
    with pytest.raises(TypeError, match="the input type must be same"):
        nn.SoftmaxCrossEntropyWithLogits()(LOGITS, Tensor(np.array([[1, 0, 0], [0, 1, 0]],
                                                                   np.int32)))
    with pytest.raises(TypeError, match="the 'sparse' must be a bool, but got int"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=1)


def test_binary_cross_entropy_losses():
    close(nn.BCELoss()(P, Q), 0.3375388)
    close(nn.BCELoss(reduction="none")(P, Q), [[0.2231435, 0.1053605], [0.5108256, 0.5108256]])
    with pytest.raises(TypeError, match="the input and target should have same type"):
        nn.BCELoss()(P, Tensor(np.array([[0, 1], [1, 0]], np.int32)))
    # weight broadcast over rows: 2·0.2231435 + 0.1053605 + 2·0.5108256 + 0.5108256 (MindSpore
    # 2.10's CPU kernel zeroes the second row here, 0.5516476: a kernel bug, not API)
    close(nn.BCELoss(weight=t32([2, 1]), reduction="sum")(P, Q), 2.0841239)
    z, y = t32([[0.5, -1], [2, 0]]), t32([[1, 0], [0, 1]])
    close(nn.BCEWithLogitsLoss()(z, y), 0.9018534)
    close(nn.BCEWithLogitsLoss(reduction="none")(z, y), [[0.4741, 0.3133], [2.1269, 0.6931]],
          rtol=1e-4, atol=1e-4)
    close(nn.BCEWithLogitsLoss(pos_weight=t32([2, 1]))(z, y), 1.0203727)
    close(nn.BCEWithLogitsLoss(weight=t32([2, 1]))(z, y), 1.5521, rtol=1e-4)
    with pytest.raises(TypeError, match="For 'BCEWithLogitsLoss', the 'weight' can not be a "
                                        "Parameter."):
        nn.BCEWithLogitsLoss(weight=ms.Parameter(t32([1, 1])))
    with pytest.raises(TypeError):
        nn.BCEWithLogitsLoss()(z, Tensor(np.array([[1, 0], [0, 1]], np.int32)))


def test_kl_div_loss():
    logp = ops.log(P)
    target = t32([[0.3, 0.7], [0.5, 0.5]])
    close(nn.KLDivLoss()(logp, Q), 0.1540464)
    close(nn.KLDivLoss("sum")(logp, Q), 0.6161858)
    close(nn.KLDivLoss("none")(logp, target), [[0.1216394, -0.1759202],
                                               [-0.0911609, 0.1115716]])
    close(nn.KLDivLoss("batchmean")(logp, target), -0.0169351)
    close(nn.KLDivLoss("mean")(logp, target), -0.0084675)
    nn.KLDivLoss("avg")                       # MindSpore checks the reduction when called
    with pytest.raises(ValueError):
        nn.KLDivLoss("avg")(logp, target)


# ---------------------------------------------------------------- gradients
def test_loss_gradients():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    labels = Tensor(np.array([0, 3, 1], np.int32))
    # LossBase.get_loss computes in float32 (as MindSpore): closed forms instead of differences
    gx, gy = ms.grad(nn.MSELoss(), grad_position=(0, 1))(Tensor(x), Tensor(y))
    np.testing.assert_allclose(gx.asnumpy(), 2 * (x - y) / 12, rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), -2 * (x - y) / 12, rtol=1e-5)
    d = x - y
    gh = ms.grad(nn.HuberLoss(delta=0.5))(Tensor(x), Tensor(y))
    np.testing.assert_allclose(gh.asnumpy(), np.clip(d, -0.5, 0.5) / 12, rtol=1e-5)
    g = ms.grad(lambda a: nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(
        a, labels))(Tensor(x))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(g.asnumpy(), (e / e.sum(1, keepdims=True) - np.eye(4)[[0, 3, 1]])
                               / 3, rtol=1e-5, atol=1e-7)
    probs = rng.uniform(0.1, 0.9, (3, 4))
    target = rng.uniform(0, 1, (3, 4))
    check_grads(lambda a: nn.BCELoss()(a, Tensor(target)), [probs], rtol=1e-4)
    check_grads(lambda a: nn.BCEWithLogitsLoss()(a, Tensor(target)), [x], rtol=1e-4)
    check_grads(lambda a: nn.L1Loss()(a, Tensor(y)), [x], rtol=1e-4)


def test_cross_entropy_loss_gradient_float32():
    # float32 logits only (as MindSpore); check d/dlogits = (softmax - onehot) / N
    logits = np.array([[2, 1, 0.1], [0.5, 2.5, 0.3]], np.float32)
    g = ms.grad(lambda z: nn.CrossEntropyLoss()(z, LABELS))(Tensor(logits))
    e = np.exp(logits - logits.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(g.asnumpy(), (sm - np.eye(3)[[0, 1]]) / 2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, arg", [
    (lambda v: nn.HuberLoss(delta=v), "'HuberLoss', the 'delta'"),
    (lambda v: nn.DiceLoss(smooth=v), "'DiceLoss', the 'smooth'"),
])
@pytest.mark.parametrize("value", [0, -1.5, True, "1"])
def test_positive_float_arguments(make, arg, value):
    with pytest.raises(ValueError, match=f"For {arg} must be a positive float, but got {value}"):
        make(value)


def test_positive_float_arguments_are_stored_as_float():
    assert type(nn.HuberLoss(delta=2).delta) is float and nn.HuberLoss(delta=2).delta == 2.0
    assert type(nn.DiceLoss(smooth=1).smooth) is float and nn.DiceLoss(smooth=1).smooth == 1.0
