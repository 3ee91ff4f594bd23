"""OcclusionSensitivity (MindSpore's documented example, and properties of the maps)."""
import numpy as np
import pytest

import spore as ms
from spore import nn, Tensor
from spore.train import OcclusionSensitivity


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
        b = np.array([0.3, 0.6], np.float32)
        self.dense = nn.Dense(4, 2, weight_init=Tensor(w), bias_init=Tensor(b))

    def construct(self, x):
        return self.dense(x)


class _Conv(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, weight_init="ones", has_bias=False)

    def construct(self, x):
        return self.conv(x).mean(axis=(2, 3))


def test_mindspores_example():
    metric = OcclusionSensitivity()
    metric.update(_Dense(), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1, np.int32))
    np.testing.assert_allclose(metric.eval(), [0.29999995, 0.6, 1.0, 0.9], rtol=1e-6)


def test_bounding_box_is_a_crop_and_batching_changes_nothing():
    x = np.sin(np.arange(2 * 6 * 5)).reshape(1, 2, 6, 5).astype(np.float32)
    full = OcclusionSensitivity()
    full.update(_Conv(), x, np.array(2, np.int32))
    whole = full.eval()
    assert whole.shape == (2, 6, 5)
    boxed = OcclusionSensitivity(b_box=[0, 1, 1, 4, -1, -1])    # -1: to the last index
    boxed.update(_Conv(), x, 2)
    np.testing.assert_allclose(boxed.eval(), whole[:, 1:5, :], rtol=1e-6)
    small = OcclusionSensitivity(n_batch=7)
    small.update(_Conv(), x, 2)
    np.testing.assert_allclose(small.eval(), whole, rtol=1e-6)
    # occluding nothing the model reads changes nothing: pad with the values themselves
    same = OcclusionSensitivity(pad_val=0.0, margin=2)
    same.update(_Conv(), np.zeros_like(x), 0)
    np.testing.assert_array_equal(same.eval(), 0.0)


def test_errors():
    metric = OcclusionSensitivity()
    with pytest.raises(RuntimeError, match="before calling 'eval'"):
        metric.eval()
    with pytest.raises(RuntimeError, match="must be 1"):
        metric.update(_Dense(), np.ones((2, 4), np.float32), np.array([1, 1]))
    with pytest.raises(ValueError, match="3 inputs"):
        metric.update(_Dense(), np.ones((1, 4), np.float32))
    with pytest.raises(TypeError, match="pad_val"):
        OcclusionSensitivity(pad_val=0)
    with pytest.raises(ValueError, match="b_box"):      # 2 numbers for a rank-3 image
        OcclusionSensitivity(b_box=[0, 1]).update(_Conv(), np.ones((1, 2, 4, 4), np.float32), 1)
