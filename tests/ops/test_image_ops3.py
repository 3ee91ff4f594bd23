"""Colour, detection (non-maximum suppressions), crop-and-resize, CTC (TensorFlow-style
loss, greedy decoder), edit distance and morphological dilation ops: values probed on
MindSpore 2.10 (CPU) where its CPU build runs them, else its documented definitions;
numerical gradients for the differentiable ones."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from tests.helpers.optable import OpCase, run_grad, table_tests


def T(x, dtype=np.float32):
    return Tensor(np.array(x, dtype))


def _np_dilation(x, f, s, r):
    n, c, h, w = x.shape
    kh, kw = f.shape[1:]
    oh, ow = (h - (kh - 1) * r - 1) // s + 1, (w - (kw - 1) * r - 1) // s + 1
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(kh):
        for j in range(kw):
            win = x[:, :, i * r:i * r + (oh - 1) * s + 1:s, j * r:j * r + (ow - 1) * s + 1:s]
            out = np.maximum(out, win + f[None, :, i, j, None, None])
    return out


BOXES = lambda rng: np.array([[0.1, 0.0, 0.8, 0.9], [0.3, 0.2, 0.7, 0.6]])   # noqa: E731
CASES = [
    OpCase("Dilation2D", lambda x, f: ops.Dilation2D(1, 1, "valid")(x, f),
           lambda x, f: _np_dilation(x, f, 1, 1), [(2, 3, 5, 6), (3, 2, 2)]),
    OpCase("Dilation2D", lambda x, f: ops.Dilation2D(2, 2, "valid")(x, f),
           lambda x, f: _np_dilation(x, f, 2, 2), [(1, 2, 7, 7), (2, 2, 3)],
           id="Dilation2D strided dilated"),
    OpCase("CTCLoss", lambda x: ops.CTCLoss()(x, T([[0, 0], [0, 1], [1, 0]], np.int64),
                                              T([1, 0, 1], np.int32), T([4, 3], np.int32))[0],
           None, [(4, 2, 3)]),
    # Float32 output whatever the input (as MindSpore): gradient checked below instead
    OpCase("crop_and_resize", lambda x, b: ops.crop_and_resize(
        x, b, T([0, 1], np.int32), (3, 4)), None, [(2, 5, 6, 3), BOXES], grad=False),
]
test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)

IMG = T([[[0.2, 0.5, 0.7], [0.9, 0.1, 0.3]], [[0.0, 0.0, 0.0], [0.4, 0.4, 0.4]]])


def test_colour_conversions_match_mindspore():
    np.testing.assert_allclose(ops.RGBToHSV()(IMG).asnumpy(),
                               [[[0.56667, 0.71429, 0.7], [0.95833, 0.88889, 0.9]],
                                [[0, 0, 0], [0, 0, 0.4]]], rtol=1e-4)
    hsv = ops.RGBToHSV()(T([[0.3, 0.9, 0.1], [0.9, 0.3, 0.5], [1, 1, 0]], np.float64))
    assert hsv.dtype == ms.float64
    np.testing.assert_allclose(hsv.asnumpy(), [[0.29167, 0.88889, 0.9], [0.94444, 0.66667, 0.9],
                                               [0.16667, 1, 1]], rtol=1e-4)
    np.testing.assert_allclose(ops.HSVToRGB()(IMG.reshape((1, 2, 2, 3))).asnumpy()[0],
                               [[[0.63, 0.7, 0.35], [0.3, 0.27, 0.288]],
                                [[0, 0, 0], [0.24, 0.4, 0.304]]], rtol=1e-5)
    np.testing.assert_allclose(ops.HSVToRGB()(T([[[[0.95, 0.5, 0.7], [0.5, 1.0, 0.3],
                                                  [0.1, 0.5, 1.0]]]])).asnumpy()[0, 0],
                               [[0.7, 0.35, 0.455], [0, 0.3, 0.3], [1, 0.8, 0.5]], rtol=1e-5)
    np.testing.assert_allclose(ops.AdjustHue()(IMG, T(0.2)).asnumpy(),
                               [[[0.5, 0.2, 0.7], [0.9, 0.86, 0.1]], [[0, 0, 0], [0.4] * 3]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.AdjustSaturation()(IMG, T(0.5)).asnumpy(),
                               [[[0.45, 0.6, 0.7], [0.9, 0.5, 0.6]], [[0, 0, 0], [0.4] * 3]],
                               rtol=1e-5)


def test_suppressions():
    boxes = T([[0, 0, 10, 10, 0.9], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7],
               [0, 0, 10, 10, 0.95]])
    out, idx, mask = ops.NMSWithMask(0.5)(boxes)
    np.testing.assert_array_equal(idx.asnumpy(), [3, 0, 1, 2])     # by descending score
    np.testing.assert_array_equal(mask.asnumpy(), [True, False, False, True])
    np.testing.assert_array_equal(out.asnumpy()[:, 4], np.float32([0.95, 0.9, 0.8, 0.7]))
    bbox = np.array([[100.0, 100.0, 50.0, 68.0, 0.63], [150.0, 75.0, 165.0, 115.0, 0.55],
                     [12.0, 190.0, 288.0, 200.0, 0.9], [28.0, 130.0, 106.0, 172.0, 0.3]])
    bbox[:, 2:4] += bbox[:, 0:2]
    _, idx, mask = ops.NMSWithMask(0.1)(T(bbox))                  # MindSpore's doc example
    assert sorted(idx.asnumpy()[mask.asnumpy()]) == [0, 1, 2]
    keep = ops.NonMaxSuppressionV3()(boxes[:, :4], boxes[:, 4], T(3, np.int32), T(0.5),
                                     T(0.0))
    assert keep.dtype == ms.int32
    np.testing.assert_array_equal(keep.asnumpy(), [3, 2])
    keep = ops.NonMaxSuppressionV3()(boxes[:, :4], boxes[:, 4], T(1, np.int32), T(0.5), T(0.0))
    np.testing.assert_array_equal(keep.asnumpy(), [3])
    overlaps = T([[1, 0.6, 0.1], [0.6, 1, 0.2], [0.1, 0.2, 1]])
    keep = ops.NonMaxSuppressionWithOverlaps()(overlaps, T([0.8, 0.9, 0.5]), T(3, np.int32),
                                               T(0.5), T(0.0))
    np.testing.assert_array_equal(keep.asnumpy(), [1, 2])           # MindSpore 2.10
    cboxes = T([[[[0.1, 0.1, 0.5, 0.5]], [[0.12, 0.1, 0.52, 0.5]], [[0.6, 0.6, 1.2, 0.9]]]])
    scores = T([[[0.9, 0.1], [0.8, 0.7], [0.3, 0.6]]])
    b, s, c, n = ops.CombinedNonMaxSuppression()(cboxes, scores, T(2, np.int32),
                                                 T(3, np.int32), T(0.5), T(0.2))
    np.testing.assert_array_equal(n.asnumpy(), [3])
    np.testing.assert_allclose(s.asnumpy(), [[0.9, 0.7, 0.6]])
    np.testing.assert_array_equal(c.asnumpy(), [[0, 1, 1]])
    np.testing.assert_allclose(b.asnumpy()[0, 2], [0.6, 0.6, 1.0, 0.9])     # clipped


def test_crop_and_resize_matches_mindspore():
    img = T(np.arange(16).reshape(1, 4, 4, 1))
    out = ops.CropAndResize()(img, T([[0, 0, 1, 1], [0.25, 0.25, 0.75, 0.75]]),
                              T([0, 0], np.int32), (3, 3))
    np.testing.assert_allclose(out.asnumpy()[..., 0],
                               [[[0, 1.5, 3], [6, 7.5, 9], [12, 13.5, 15]],
                                [[3.75, 4.5, 5.25], [6.75, 7.5, 8.25], [9.75, 10.5, 11.25]]])
    out = ops.CropAndResize("nearest")(img, T([[0, 0, 1, 1], [0.2, 0.1, 1.2, 0.9]]),
                                       T([0, 0], np.int32), (3, 2))
    np.testing.assert_array_equal(out.asnumpy()[..., 0], [[[0, 3], [8, 11], [12, 15]],
                                                          [[4, 7], [8, 11], [0, 0]]])


def test_crop_and_resize_gradient_w_r_t_the_image():
    """The crop is linear in the image: unit steps give its exact Jacobian."""
    rng = np.random.default_rng(0)
    img = rng.uniform(-1, 1, (2, 3, 4, 2)).astype(np.float32)
    boxes, index = T([[0.1, 0.0, 0.8, 0.9], [0.3, 0.2, 1.2, 0.6]]), T([0, 1], np.int32)
    weights = Tensor(rng.uniform(0.5, 1.5, (2, 3, 4, 2)).astype(np.float32))

    def loss(x):
        return (ops.crop_and_resize(x, boxes, index, (3, 4)) * weights).sum()
    got = ms.grad(loss)(Tensor(img)).asnumpy()
    base = float(loss(Tensor(img)).asnumpy())
    want = np.zeros_like(img)
    for i in np.ndindex(*img.shape):
        step = img.copy()
        step[i] += 1.0
        want[i] = float(loss(Tensor(step)).asnumpy()) - base
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


FEAT = Tensor(np.random.RandomState(0).randn(2, 2, 5, 6).astype(np.float32))
ROIS = T([[1, -3, -2, 4, 3], [0, 3, 1, 12, 11], [1, 0.2, 0.4, 0.9, 1.3]])


def test_roi_align_matches_mindspore():
    grid = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)
    out = ops.ROIAlign(2, 2, 0.5, 2)(Tensor(grid), T([[0, 0, 0, 8, 8], [0, 2, 2, 10, 7]]))
    np.testing.assert_allclose(out.asnumpy()[:, 0], [[[7.875, 10.125], [21.375, 23.625]],
                                                     [[12.625, 14.875], [21.625, 23.875]]])
    out = ops.ROIAlign(3, 2, 1.0, 0, 1)(FEAT, ROIS).asnumpy()
    np.testing.assert_allclose(out[0, 0], [[-0.1486, -0.3428], [-0.2828, -0.279],
                                           [0.2121, -0.1084]], atol=1e-4)
    np.testing.assert_allclose(out[1, :, 0, 0], [0.383, -0.2867], atol=1e-4)
    assert np.isnan(out[2]).all()          # bins under a pixel: no sample (MindSpore: NaN)
    out = ops.ROIAlign(2, 3, 0.7, 2, 0)(FEAT, ROIS).asnumpy()
    np.testing.assert_allclose(out[2, 1], [[0.3389, 0.9073, 1.3889], [0.4449, 1.0463, 1.5494]],
                               atol=1e-4)
    np.testing.assert_allclose(out[1, 0], [[0.3748, 0.3432, 0], [0, 0, 0]], atol=1e-4)


def test_roi_align_gradient():
    run_grad(OpCase("ROIAlign", lambda x: ops.ROIAlign(2, 3, 0.7, 2, 0)(x, ROIS), None,
                    [(2, 2, 5, 6)]))


LOGITS = Tensor(np.random.RandomState(0).randn(4, 2, 3).astype(np.float32))


def test_ctc_loss_v1_matches_mindspore():
    idx, seq = T([[0, 0], [0, 1], [1, 0]], np.int64), T([4, 3], np.int32)
    loss, grad = ops.CTCLoss()(LOGITS, idx, T([1, 0, 1], np.int32), seq)
    # sample 1 (label [1]) as MindSpore 2.10 computes it
    np.testing.assert_allclose(loss.asnumpy()[1], 2.3542, rtol=1e-4)
    np.testing.assert_allclose(grad.asnumpy()[:, 1], [[0.5785, -0.4692, -0.1094],
                                                      [0.2171, -0.4172, 0.2001],
                                                      [0.2094, 0.0745, -0.284], [0, 0, 0]],
                               atol=1e-4)
    loss, grad = ops.CTCLoss(ctc_merge_repeated=False)(LOGITS, idx, T([1, 0, 1], np.int32),
                                                       seq)
    np.testing.assert_allclose(loss.asnumpy()[1], 3.2184, rtol=1e-4)
    np.testing.assert_allclose(grad.asnumpy()[:3, 1], [[0.5785, -0.3515, -0.2271],
                                                       [0.2171, 0.1546, -0.3717],
                                                       [0.2094, 0.4299, -0.6394]], atol=1e-4)
    # with merging the loss equals ctc_loss of the log-softmax (the blank the last class)
    want = ops.ctc_loss(ops.log_softmax(LOGITS, -1), T([[1, 0], [1, 0]], np.int32),
                        seq, T([2, 1], np.int32), blank=2, reduction="none")[0]
    loss, _ = ops.CTCLoss()(LOGITS, idx, T([1, 0, 1], np.int32), seq)
    np.testing.assert_allclose(loss.asnumpy(), want.asnumpy(), rtol=1e-5)
    # collapsing repeats: labels [1, 1] become [1]
    rep, _ = ops.CTCLoss(preprocess_collapse_repeated=True)(
        LOGITS, idx, T([1, 1, 1], np.int32), seq)
    np.testing.assert_allclose(rep.asnumpy()[0], loss.asnumpy()[1] * 0 + ops.CTCLoss()(
        LOGITS, T([[0, 0], [1, 0]], np.int64), T([1, 1], np.int32), seq)[0].asnumpy()[0],
        rtol=1e-6)


def test_ctc_loss_v1_gradient_is_its_gradient_output():
    idx, vals, seq = T([[0, 0], [0, 1], [1, 0]], np.int64), T([1, 0, 1], np.int32), \
        T([4, 3], np.int32)
    got = ms.grad(lambda x: ops.CTCLoss()(x, idx, vals, seq)[0].sum())(LOGITS)
    np.testing.assert_allclose(got.asnumpy(), ops.CTCLoss()(LOGITS, idx, vals, seq)[1].asnumpy(),
                               rtol=1e-6)
    x = np.random.RandomState(1).randn(4, 2, 3)
    f = lambda a: float(ops.CTCLoss()(Tensor(a), idx, vals, seq)[0].asnumpy().sum())  # noqa
    num = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[i] = 1e-6
        num[i] = (f(x + e) - f(x - e)) / 2e-6
    np.testing.assert_allclose(ops.CTCLoss()(Tensor(x), idx, vals, seq)[1].asnumpy(), num,
                               rtol=1e-4, atol=1e-6)
    loss, grad = ops.CTCLoss(ignore_longer_outputs_than_inputs=True)(
        LOGITS, T([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4], [1, 0]], np.int64),
        T([1, 0, 1, 0, 1, 1], np.int32), seq)
    assert loss.asnumpy()[0] == 0 and not grad.asnumpy()[:, 0].any()


def test_ctc_loss_v2_decoder_and_edit_distance_match_mindspore():
    lp = ops.log_softmax(LOGITS, -1)
    loss, alpha = ops.CTCLossV2()(lp, T([[1, 2], [1, 0]], np.int32), T([4, 3], np.int32),
                                  T([2, 1], np.int32))
    np.testing.assert_allclose(loss.asnumpy(), [2.4627, 1.4078], rtol=1e-4)
    assert alpha.shape == (2, 4, 5)
    probs = T(np.log([[[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]], [[0.1, 0.6, 0.3], [0.1, 0.2, 0.7]],
                      [[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]]]))
    ind, val, shape, logp = ops.CTCGreedyDecoder()(probs, T([3, 2], np.int32))
    np.testing.assert_array_equal(ind.asnumpy(), [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(val.asnumpy(), [1, 0, 0])
    np.testing.assert_array_equal(shape.asnumpy(), [2, 2])
    np.testing.assert_allclose(logp.asnumpy(), [[1.3783], [1.0498]], rtol=1e-4)
    ind, val, shape, logp = ops.ctc_greedy_decoder(probs, T([3, 3], np.int32), False)
    np.testing.assert_array_equal(val.asnumpy(), [1, 1, 0, 0])
    np.testing.assert_array_equal(shape.asnumpy(), [2, 3])
    np.testing.assert_allclose(logp.asnumpy(), [[1.3783], [1.4065]], rtol=1e-4)
    hyp = (T([[0, 0, 0], [1, 0, 1], [1, 1, 1]], np.int64), T([1, 2, 3]),
           T([2, 2, 2], np.int64))
    truth = (T([[0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1]], np.int64), T([1, 3, 2, 1]),
             T([2, 2, 2], np.int64))
    np.testing.assert_array_equal(ops.EditDistance()(*hyp, *truth).asnumpy(), [[1, 1], [1, 1]])
    hyp = (T([[0, 0], [0, 1], [0, 2]], np.int64), T([1, 2, 3]), T([1, 3], np.int64))
    truth = (T([[0, 0], [0, 1]], np.int64), T([1, 3]), T([1, 2], np.int64))
    np.testing.assert_allclose(ops.EditDistance()(*hyp, *truth).asnumpy(), [0.5])
    np.testing.assert_allclose(ops.EditDistance(False)(*hyp, *truth).asnumpy(), [1.0])


@pytest.mark.parametrize("call,err,words", [
    (lambda: ops.RGBToHSV()(T([[0.1, 0.2]])), ValueError, "last dimension"),
    (lambda: ops.HSVToRGB()(IMG), ValueError, "must be 4"),
    (lambda: ops.RGBToHSV()(T([[1, 2, 3]], np.int32)), TypeError, "RGBToHSV"),
    (lambda: ops.NMSWithMask(1), ValueError, "iou_threshold"),
    (lambda: ops.NMSWithMask(0.5)(T([[0, 0, 1, 1]])), ValueError, r"\(N, 5\)"),
    (lambda: ops.NonMaxSuppressionV3()(T([[0, 0, 1, 1]]), T([0.5]), T(1, np.int32), T(1.5),
                                       T(0.0)), ValueError, "iou_threshold"),
    (lambda: ops.CropAndResize()(IMG.reshape((1, 2, 2, 3)), T([[0, 0, 1, 1]]),
                                 T([0], np.int32), (0, 2)), ValueError, "crop_size"),
    (lambda: ops.CropAndResize("cubic"), None, None),
    (lambda: ops.CTCLoss()(LOGITS, T([[0, 0]], np.int64), T([2], np.int32), T([4, 3], np.int32)),
     ValueError, "blank"),
    (lambda: ops.CTCLoss()(LOGITS, T([[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]], np.int64),
                           T([1, 0, 1, 0, 1], np.int32), T([4, 3], np.int32)), ValueError,
     "longer"),
    (lambda: ops.Dilation2D(1, 1, "full"), ValueError, "pad_mode"),
    (lambda: ops.Dilation2D(1, 1)(T(np.ones((1, 2, 3, 3))), T(np.ones((1, 2, 2)))), ValueError,
     "channels"),
    (lambda: ops.CTCGreedyDecoder()(LOGITS, T([5, 3], np.int32)), ValueError,
     "sequence_length"),
])
def test_bad_input_names_the_op_and_argument(call, err, words):
    if err is None:
        call()                   # the method is checked when the op runs
        with pytest.raises(ValueError, match="method"):
            ops.CropAndResize("cubic")(IMG.reshape((1, 2, 2, 3)), T([[0, 0, 1, 1]]),
                                       T([0], np.int32), (2, 2))
        return
    with pytest.raises(err, match=words):
        call()
