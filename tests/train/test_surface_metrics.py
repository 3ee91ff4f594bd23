"""Surface-distance metrics against values probed from MindSpore 2.10."""
import numpy as np
import pytest

import spore as ms
from spore import train

# (y_pred, y, {metric+label: MindSpore 2.10 value}); keys: hd = HausdorffDistance(),
# hdd = directed, hd90 = percentile 90, msd / msds = MeanSurfaceDistance (symmetric),
# rms = RootMeanSquareDistance(), rmss = (symmetric=True, distance_metric="chessboard")
CASES = [
    ([[2, 0, 0, 0, 0, 2, 2, 1], [0, 0, 0, 1, 1, 1, 0, 0], [2, 2, 1, 1, 1, 1, 2, 1], [1, 1, 1, 1, 1, 1, 2, 2], [2, 0, 1, 1, 1, 1, 2, 0], [2, 0, 0, 2, 2, 0, 0, 0], [0, 2, 1, 1, 0, 1, 0, 2]],
     [[1, 0, 0, 2, 1, 1, 0, 0], [1, 1, 1, 2, 2, 0, 1, 1], [0, 0, 1, 2, 0, 2, 1, 0], [1, 1, 1, 1, 1, 2, 0, 2], [2, 1, 1, 1, 1, 2, 1, 0], [1, 1, 1, 1, 1, 1, 1, 0], [0, 2, 2, 0, 1, 2, 0, 0]],
     {'hd0': 2.0, 'hdd0': 2.0, 'hd900': 1.414213562373, 'msd0': 0.8240449605, 'msds0': 0.768716654074, 'rms0': 1.052631578947, 'rmss0': 0.909561779968, 'hd1': 2.828427124746, 'hdd1': 1.0, 'hd901': 1.824264068712, 'msd1': 0.764705882353, 'msds1': 0.904666853924, 'rms1': 0.764705882353, 'rmss1': 0.993236934393}),
    ([[1, 1, 1, 1, 0, 1, 2, 0], [2, 0, 0, 2, 0, 2, 0, 1], [2, 2, 1, 1, 1, 1, 1, 0], [2, 2, 1, 1, 1, 1, 1, 2], [1, 2, 1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 2, 0, 1, 2], [1, 0, 0, 0, 1, 1, 0, 2]],
     [[1, 2, 2, 2, 0, 0, 2, 1], [2, 2, 2, 0, 0, 2, 1, 1], [0, 1, 0, 2, 2, 2, 0, 1], [0, 1, 1, 1, 1, 1, 1, 0], [2, 1, 1, 1, 1, 2, 1, 1], [2, 1, 1, 1, 1, 0, 0, 2], [2, 1, 2, 1, 0, 2, 0, 1]],
     {'hd0': 3.0, 'hdd0': 3.0, 'hd900': 2.2360679775, 'msd0': 1.268785192484, 'msds0': 1.034939271718, 'rms0': 2.4375, 'rmss0': 1.24711204851, 'hd1': 2.828427124746, 'hdd1': 2.828427124746, 'hd901': 1.414213562373, 'msd1': 0.898124097804, 'msds1': 0.831526301737, 'rms1': 1.260869565217, 'rmss1': 0.929320377285}),
]

MAKERS = {
    "hd": lambda: train.HausdorffDistance(),
    "hdd": lambda: train.HausdorffDistance(directed=True),
    "hd90": lambda: train.HausdorffDistance(percentile=90.0),
    "msd": lambda: train.MeanSurfaceDistance(),
    "msds": lambda: train.MeanSurfaceDistance(symmetric=True),
    "rms": lambda: train.RootMeanSquareDistance(),
    "rmss": lambda: train.RootMeanSquareDistance(symmetric=True, distance_metric="chessboard"),
}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_match_mindspore(case):
    x, y, want = CASES[case]
    for key, value in want.items():
        metric = MAKERS[key[:-1]]()
        metric.clear()
        metric.update(ms.Tensor(np.array(x)), ms.Tensor(np.array(y)), int(key[-1]))
        assert metric.eval() == pytest.approx(value, rel=1e-9), key


def test_small_case_and_metrics_and_errors():
    x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
    y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
    m = train.HausdorffDistance(distance_metric="chessboard")
    m.update(ms.Tensor(x), ms.Tensor(y), 1)
    assert m.eval() == 2                                 # MindSpore 2.10
    m = train.RootMeanSquareDistance(symmetric=True, distance_metric="taxicab")
    m.update(ms.Tensor(x), ms.Tensor(y), 2)
    assert m.eval() == pytest.approx(2.29128784747792)
    m = train.MeanSurfaceDistance()
    m.update(ms.Tensor(x), ms.Tensor(y), 0)
    m.update(ms.Tensor(x), ms.Tensor(y), 1)               # the last update counts
    assert m.eval() == pytest.approx(1 / 3)
    m.update(ms.Tensor(x), ms.Tensor(y), 3)               # only in y_pred: no true surface
    assert m.eval() == float("inf")
    with pytest.raises(ValueError, match="label index"):
        m.update(ms.Tensor(x), ms.Tensor(y), 7)
    with pytest.raises(ValueError, match="3 inputs"):
        m.update(ms.Tensor(x), ms.Tensor(y))
    with pytest.raises(RuntimeError, match="update"):
        train.HausdorffDistance().eval()
    with pytest.raises(ValueError, match="distance_metric"):
        train.HausdorffDistance(distance_metric="cosine")
    assert ms.nn.HausdorffDistance is train.HausdorffDistance is ms.HausdorffDistance
    assert isinstance(train.get_metric_fn("mean_surface_distance"), train.MeanSurfaceDistance)
