"""Write golden_confusion_matrix_metric.json with the reference MindSpore 2.10.

usage: /work/msref/bin/python make_golden_confusion_metric.py OUTDIR
Every metric name x skip_channel x calculation_method x decrease on two batches of
binarized (batch, 3, 4, 4) inputs from RandomState(0); an entry is the result, or the
exception class when MindSpore raises.
"""
import json
import sys

import numpy as np

NAMES = ["sensitivity", "specificity", "precision", "negative predictive value", "miss rate",
         "fall out", "false discovery rate", "false omission rate", "prevalence threshold",
         "threat score", "accuracy", "balanced accuracy", "f1 score",
         "matthews correlation coefficient", "fowlkes mallows index", "informedness",
         "markedness"]


def inputs():
    rs = np.random.RandomState(0)
    return [(rs.rand(*shape) > 0.5).astype(np.float32)
            for shape in ((3, 3, 4, 4), (3, 3, 4, 4), (2, 3, 4, 4), (2, 3, 4, 4))]


def main(out):
    from mindspore.train import ConfusionMatrixMetric     # the reference, not Spore
    yp, y, yp2, y2 = inputs()
    result = {}
    for name in NAMES:
        for skip in (True, False):
            for per_example in (False, True):
                decreases = ["mean", "sum", "mean_channel", "sum_channel", "sum_batch", "none"] \
                    if per_example else ["mean"]
                for dec in decreases:
                    m = ConfusionMatrixMetric(skip_channel=skip, metric_name=name,
                                              calculation_method=per_example, decrease=dec)
                    key = f"{name}|{skip}|{per_example}|{dec}"
                    try:
                        m.update(yp, y)
                        m.update(yp2, y2)
                        result[key] = np.asarray(m.eval(), dtype=float).tolist()
                    except Exception as e:      # noqa: BLE001 - recorded as the expectation
                        result[key] = type(e).__name__
    with open(f"{out}/golden_confusion_matrix_metric.json", "w") as f:
        json.dump(result, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
