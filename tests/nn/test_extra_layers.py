"""nn layers that wrap one op (spore/nn/layer/extra.py); values against NumPy and MindSpore's
probed results."""
import numpy as np
import pytest

import spore as ms
from spore import mint, nn, Tensor

X = np.arange(60, dtype=np.float32).reshape(2, 1, 5, 6)


def test_ext_layers_are_mint_layers():
    for ext, name in (("AvgPool1dExt", "AvgPool1d"), ("AvgPool2dExt", "AvgPool2d"),
                      ("AvgPool3dExt", "AvgPool3d"), ("MaxPool2dExt", "MaxPool2d"),
                      ("Dropout2dExt", "Dropout2d"), ("DropoutExt", "Dropout"),
                      ("EmbeddingExt", "Embedding"), ("L1LossExt", "L1Loss"),
                      ("LayerNormExt", "LayerNorm"), ("LogSoftmaxExt", "LogSoftmax"),
                      ("PReLUExt", "PReLU"), ("AdaptiveAvgPool3d", "AdaptiveAvgPool3d"),
                      ("MaxUnpool2d", "MaxUnpool2d")):
        assert getattr(nn, ext) is getattr(mint.nn, name)
    assert nn.LayerNormExt(6)(Tensor(X)).shape == X.shape


def test_central_crop_and_image_gradients_match_mindspore():
    # MindSpore 2.10: CentralCrop(0.5) and (0.6) of a 5x6 image keep rows 1..3, columns 1..4
    for f in (0.5, 0.6):
        out = nn.CentralCrop(f)(Tensor(X))
        assert out.shape == (2, 1, 3, 4)
        assert out.asnumpy()[0, 0].tolist() == [[7, 8, 9, 10], [13, 14, 15, 16], [19, 20, 21, 22]]
    assert nn.CentralCrop(1.0)(Tensor(X)).shape == X.shape
    assert nn.CentralCrop(0.5)(Tensor(X[0])).shape == (1, 3, 4)
    with pytest.raises(ValueError, match="central_fraction"):
        nn.CentralCrop(0.0)
    dy, dx = nn.ImageGradients()(Tensor(X))
    assert dy.asnumpy()[0, 0].tolist() == [[6.0] * 6] * 4 + [[0.0] * 6]
    assert dx.asnumpy()[0, 0].tolist() == [[1.0] * 5 + [0.0]] * 5


def test_matrix_layers():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2, 2)).astype(np.float32)
    pd = a @ a.transpose(0, 2, 1) + np.eye(2, dtype=np.float32)
    np.testing.assert_allclose(nn.MatDet()(Tensor(pd)).asnumpy(), np.linalg.det(pd), rtol=1e-5)
    np.testing.assert_allclose(nn.MatInverse()(Tensor(pd)).asnumpy(), np.linalg.inv(pd),
                               rtol=1e-4, atol=1e-5)
    d = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    assert nn.MatrixDiag()(Tensor(d)).asnumpy().tolist() == [[[1, 0], [0, 2]], [[3, 0], [0, 4]]]
    m = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    assert nn.MatrixDiagPart()(Tensor(m)).asnumpy().tolist() == [[0, 4], [6, 10], [12, 16]]
    out = nn.MatrixSetDiag()(Tensor(m), Tensor(-np.ones((3, 2), np.float32))).asnumpy()
    ref = m.copy(); ref[:, [0, 1], [0, 1]] = -1
    np.testing.assert_array_equal(out, ref)


def test_reduce_log_sum_exp_and_gamma_functions():
    m = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    out = nn.ReduceLogSumExp((1, 2))(Tensor(m)).asnumpy()
    np.testing.assert_allclose(out, [3.4401865, 7.4401884, 11.440189], rtol=1e-6)   # MindSpore
    assert nn.ReduceLogSumExp(1, True)(Tensor(m)).shape == (3, 1, 2)
    x = np.array([0.5, 1.0, 3.5], np.float32)
    np.testing.assert_allclose(nn.LGamma()(Tensor(x)).asnumpy(), [0.5723649, 0.0, 1.2009736],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.DiGamma()(Tensor(x)).asnumpy(), [-1.9635100, -0.5772157,
                                                                   1.1031566], rtol=1e-5)


def test_dropout3d_and_time_distributed():
    d = nn.Dropout3d(0.5)
    x = Tensor(np.ones((2, 8, 2, 2, 2), np.float32))
    d.set_train(True)
    out = d(x).asnumpy()
    per_channel = out.reshape(2, 8, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    d.set_train(False)
    assert (d(x).asnumpy() == 1).all()
    dense = nn.Dense(6, 2, weight_init="ones", bias_init="zeros")
    inputs = np.random.default_rng(1).standard_normal((3, 4, 6)).astype(np.float32)
    out = nn.TimeDistributed(dense, time_axis=1)(Tensor(inputs))
    assert out.shape == (3, 4, 2)
    np.testing.assert_allclose(out.asnumpy(), np.repeat(inputs.sum(-1, keepdims=True), 2, -1),
                               rtol=1e-5)
    assert nn.TimeDistributed(dense, 0, reshape_with_axis=1)(Tensor(inputs)).shape == (3, 4, 2)
    g = ms.grad(lambda t: nn.TimeDistributed(dense, 1)(t).sum())(Tensor(inputs))
    assert (g.asnumpy() == 2).all()
