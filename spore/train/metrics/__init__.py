"""Metrics (``mindspore.train`` / ``mindspore.nn``): accumulate over batches, then ``eval``."""
from .metric import Metric as Metric, rearrange_inputs as rearrange_inputs
from .accuracy import (Accuracy as Accuracy,
                       TopKCategoricalAccuracy as TopKCategoricalAccuracy,
                       Top1CategoricalAccuracy as Top1CategoricalAccuracy,
                       Top5CategoricalAccuracy as Top5CategoricalAccuracy)
from .precision_recall import Precision as Precision, Recall as Recall, Fbeta as Fbeta, F1 as F1
from .error import MAE as MAE, MSE as MSE
from .loss import Loss as Loss
from .confusion_matrix import ConfusionMatrix as ConfusionMatrix
from .confusion_matrix_metric import ConfusionMatrixMetric as ConfusionMatrixMetric
from .occlusion_sensitivity import OcclusionSensitivity as OcclusionSensitivity
from .roc import ROC as ROC, auc as auc
from .similarity import CosineSimilarity as CosineSimilarity, Dice as Dice
from .text import BleuScore as BleuScore, Perplexity as Perplexity
from .surface import (HausdorffDistance as HausdorffDistance,
                      MeanSurfaceDistance as MeanSurfaceDistance,
                      RootMeanSquareDistance as RootMeanSquareDistance)

__all__ = ["names", "get_metric_fn", "get_metrics", "Metric", "rearrange_inputs", "Accuracy",
           "TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy",
           "Precision", "Recall", "Fbeta", "F1", "MAE", "MSE", "Loss", "ConfusionMatrix", "ConfusionMatrixMetric", "OcclusionSensitivity", "ROC",
           "auc", "Dice", "CosineSimilarity", "Perplexity", "BleuScore", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance"]

_FACTORY = {
    "accuracy": Accuracy, "acc": Accuracy, "precision": Precision, "recall": Recall, "F1": F1,
    "topk": TopKCategoricalAccuracy, "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy, "mae": MAE, "mse": MSE, "loss": Loss,
    "confusion_matrix": ConfusionMatrix, "dice": Dice, "roc": ROC, "auc": auc,
    "bleu_score": BleuScore, "cosine_similarity": CosineSimilarity, "perplexity": Perplexity,
    "hausdorff_distance": HausdorffDistance, "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
}


def names():
    """The names ``get_metric_fn`` accepts, sorted."""
    return sorted(_FACTORY)


def get_metric_fn(name, *args, **kwargs):
    """A new metric by name (``'acc'``, ``'precision'``, ...), constructed with the arguments."""
    if name not in _FACTORY:
        raise KeyError(f"For 'get_metric_fn', unsupported metric {name}, please refer to official "
                       f"website for more details about supported metrics.")
    return _FACTORY[name](*args, **kwargs)


def get_metrics(metrics):
    """Normalise ``Model``'s ``metrics``: a dict name -> Metric, or a set of names."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(name, str) or not isinstance(metric, Metric):
                raise TypeError(f"For 'get_metrics', if 'metrics' is dict, the key in 'metrics' "
                                f"must be string and value in 'metrics' must be Metric, but got "
                                f"key:{type(name)}, value:{type(metric)}.")
        return metrics
    if isinstance(metrics, set):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"For 'get_metrics', the argument 'metrics' must be None, dict or set, but "
                    f"got {metrics}")
