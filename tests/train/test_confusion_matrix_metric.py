"""ConfusionMatrixMetric against MindSpore 2.10 (tests/data/golden_confusion_matrix_metric.json,
written by tests/data/make_golden_confusion_metric.py with the reference)."""
import json
import pathlib

import numpy as np
import pytest

from spore.train import ConfusionMatrixMetric
from tests.data.make_golden_confusion_metric import inputs

GOLDEN = json.loads((pathlib.Path(__file__).resolve().parents[1] / "data" /
                     "golden_confusion_matrix_metric.json").read_text())


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_every_metric_and_mode_matches_mindspore(key):
    name, skip, per_example, decrease = key.split("|")
    metric = ConfusionMatrixMetric(skip_channel=skip == "True", metric_name=name,
                                   calculation_method=per_example == "True", decrease=decrease)
    yp, y, yp2, y2 = inputs()
    want = GOLDEN[key]
    if isinstance(want, str):       # MindSpore fails (it cannot accumulate per-example arrays)
        with pytest.raises(ValueError, match="use 'mean' or 'sum'"):
            metric.update(yp, y)
        return
    metric.update(yp, y)
    metric.update(yp2, y2)
    np.testing.assert_allclose(np.asarray(metric.eval(), float), want, rtol=1e-12,
                               equal_nan=True)


def test_mindspores_example_and_errors():
    metric = ConfusionMatrixMetric(skip_channel=True, metric_name="tpr",
                                   calculation_method=False, decrease="mean")
    metric.update(np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[0], [1]]]))
    np.testing.assert_array_equal(metric.eval(), [0.5])
    with pytest.raises(NotImplementedError, match="not implemented"):
        ConfusionMatrixMetric(metric_name="nope")
    with pytest.raises(ValueError, match="decrease"):
        ConfusionMatrixMetric(decrease="max")
    with pytest.raises(ValueError, match="binarized"):
        metric.update(np.ones((2, 2)), np.full((2, 2), 0.5))
    empty = ConfusionMatrixMetric(calculation_method=True)
    with pytest.raises(RuntimeError, match="number of samples is 0"):
        empty.eval()
