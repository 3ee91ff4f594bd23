"""``ConfusionMatrixMetric``: rates derived from per-channel confusion matrices (TPR, PPV,
F1, MCC, ...) of one-hot predictions, for classification and segmentation."""
from __future__ import annotations

import numpy as np

from .metric import Metric

# every accepted name (spaces or underscores, any case) -> the short name
_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate"),
    "tnr": ("specificity", "selectivity", "true_negative_rate"),
    "ppv": ("precision", "positive_predictive_value"),
    "npv": ("negative_predictive_value",),
    "fnr": ("miss_rate", "false_negative_rate"),
    "fpr": ("fall_out", "false_positive_rate"),
    "fdr": ("false_discovery_rate",),
    "for": ("false_omission_rate",),
    "pt": ("prevalence_threshold",),
    "ts": ("threat_score", "critical_success_index", "csi"),
    "acc": ("accuracy",),
    "ba": ("balanced_accuracy",),
    "f1": ("f1_score",),
    "mcc": ("matthews_correlation_coefficient",),
    "fm": ("fowlkes_mallows_index",),
    "bm": ("informedness", "bookmaker_informedness"),
    "mk": ("markedness", "deltap"),
}
_SHORT = {alias: short for short, names in _ALIASES.items() for alias in names + (short,)}
_DECREASES = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _short_name(name):
    short = _SHORT.get(name.replace(" ", "_").lower())
    if short is None:
        raise NotImplementedError(f"For 'ConfusionMatrixMetric', the metric {name!r} is not "
                                  "implemented.")
    return short


def _ratio(num, den):
    """num / den, NaN where den is 0 (an undefined rate)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _metric(short, cm):
    """The metric of confusion matrices ``cm[..., (tp, fp, tn, fn)]``."""
    tp, fp, tn, fn = (cm[..., k] for k in range(4))
    p, n = tp + fn, fp + tn
    tpr, tnr = _ratio(tp, p), _ratio(tn, n)
    ppv, npv = _ratio(tp, tp + fp), _ratio(tn, tn + fn)
    with np.errstate(invalid="ignore", divide="ignore"):
        table = {
            "tpr": lambda: tpr, "tnr": lambda: tnr, "ppv": lambda: ppv, "npv": lambda: npv,
            "fnr": lambda: _ratio(fn, p), "fpr": lambda: _ratio(fp, n),
            "fdr": lambda: _ratio(fp, fp + tp), "for": lambda: _ratio(fn, fn + tn),
            "pt": lambda: _ratio(np.sqrt(tpr * (1 - tnr)) + tnr - 1, tpr + tnr - 1),
            "ts": lambda: _ratio(tp, tp + fn + fp), "acc": lambda: _ratio(tp + tn, p + n),
            "ba": lambda: (tpr + tnr) / 2, "f1": lambda: _ratio(2 * tp, 2 * tp + fn + fp),
            "mcc": lambda: _ratio(tp * tn - fp * fn,
                                  np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))),
            "fm": lambda: np.sqrt(ppv * tpr), "bm": lambda: tpr + tnr - 1,
            "mk": lambda: ppv + npv - 1,
        }
        return table[short]()


def _confusion(y_pred, y, keep_first_channel):
    """[batch, channel, 4] counts (tp, fp, tn, fn) of binarized one-hot inputs."""
    if not keep_first_channel:
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"For 'ConfusionMatrixMetric.update', the predicted value and the "
                         f"true value must have the same shape, but got {y_pred.shape} and "
                         f"{y.shape}.")
    b, c = y_pred.shape[:2]
    yp = y_pred.reshape(b, c, -1).astype(float)
    yt = y.reshape(b, c, -1).astype(float)
    tp = ((yp + yt) == 2).sum(axis=2)
    tn = ((yp + yt) == 0).sum(axis=2)
    pos = yt.sum(axis=2)
    return np.stack([tp, yt.shape[-1] - pos - tn, tn, pos - tp], axis=-1).astype(float)


def _reduce(chart, decrease):
    """(value, count of defined entries) of a [batch, channel] chart (NaN: undefined)."""
    defined = ~np.isnan(chart)
    chart = np.where(defined, chart, 0.0)
    count = defined.astype(float)
    if decrease == "mean":
        per_example = count.sum(axis=1)
        value = _ratio(chart.sum(axis=1), per_example)
        value = np.where(per_example > 0, value, 0.0)
        examples = (per_example > 0).sum()
        return (value.sum() / examples if examples else 0.0), float(examples)
    if decrease == "sum":
        return chart.sum(), count.sum()
    raise ValueError(f"For 'ConfusionMatrixMetric', decrease={decrease!r} gives one value per "
                     "example or channel, but with calculation_method=True the metric "
                     "accumulates one value over batches: use 'mean' or 'sum'.")


class ConfusionMatrixMetric(Metric):
    """Rates from confusion matrices of one-hot (binarized) ``y_pred`` and ``y`` shaped
    (batch, channel, ...). ``calculation_method=False`` accumulates the counts of every
    batch and computes the metric once; ``True`` computes it per example and channel and
    averages (``decrease``). As in MindSpore, ``skip_channel=False`` leaves the first
    channel (background) out and ``True`` keeps it."""

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False,
                 decrease="mean"):
        super().__init__()
        for arg, value in (("skip_channel", skip_channel),
                           ("calculation_method", calculation_method)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'ConfusionMatrixMetric', the '{arg}' must be bool, but "
                                f"got {type(value).__name__}.")
        if not isinstance(metric_name, str):
            raise TypeError(f"For 'ConfusionMatrixMetric', the 'metric_name' must be str, but "
                            f"got {type(metric_name).__name__}.")
        if decrease not in _DECREASES:
            raise ValueError(f"For 'ConfusionMatrixMetric', the 'decrease' must be one of "
                             f"{list(_DECREASES)}, but got {decrease!r}.")
        self.skip_channel = skip_channel
        self.metric_name = metric_name
        self._short = _short_name(metric_name)
        self.calculation_method = calculation_method
        self.decrease = decrease
        self.clear()

    def clear(self):
        self._total = 0.0
        self._count = 0.0
        self._counts = np.zeros(4)

    def update(self, *inputs):
        if len(inputs) != 2:
            raise ValueError(f"For 'ConfusionMatrixMetric.update', it needs 2 inputs "
                             f"(predicted value, true value), but got {len(inputs)}.")
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if not np.all(y.astype(np.uint8) == y):
            raise ValueError("For 'ConfusionMatrix.update', the true value (input[1]) must be "
                             "a binarized ndarray.")
        if y_pred.ndim < 2:
            raise ValueError(f"For 'ConfusionMatrix.update', the predicted value (input[0]) "
                             f"must have at least 2 dimensions, but got {y_pred.ndim}.")
        if y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1):
            self.calculation_method = False      # classification: counts only (MindSpore)
        cm = _confusion(y_pred, y, self.skip_channel)
        if self.calculation_method:
            value, count = _reduce(_metric(self._short, cm), self.decrease)
            self._total += value * count
            self._count += count
        else:
            self._counts += cm.reshape(-1, 4).sum(axis=0)

    def eval(self):
        if self.calculation_method:
            if self._count == 0:
                raise RuntimeError("The 'ConfusionMatrixMetric' can not be calculated, because "
                                   "the number of samples is 0, please check whether your "
                                   "inputs(predicted value, true value) are empty, or has "
                                   "called update method before calling eval method.")
            return self._total / self._count
        return np.atleast_1d(_metric(self._short, self._counts[None]))
