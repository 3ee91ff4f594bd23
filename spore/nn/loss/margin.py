"""Margin and embedding losses: thin Cells over the functional losses, or composed as
MindSpore composes them (CosineEmbeddingLoss)."""
from __future__ import annotations

from ... import ops
from ..._tensor import Tensor
from .loss import LossBase, _check_tensor

__all__ = ["TripletMarginLoss", "MarginRankingLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss",
           "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss"]


class MarginRankingLoss(LossBase):
    """max(0, −target·(input1 − input2) + margin), reduced.

    Args:
        margin (float): Default ``0.0``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 − cos(x1, x2) where labels == 1, max(0, cos(x1, x2) − margin) where labels == −1
    (cosine over axis 1), reduced.

    Args:
        margin (float): in [-1, 1]. Default ``0.0``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(margin, float):
            raise TypeError(f"For 'CosineEmbeddingLoss', the 'margin' must be float, but got "
                            f"{type(margin).__name__}.")
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', the 'margin' must be in range "
                             f"[-1.0, 1.0], but got {margin}.")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        for arg, value in (("logits_x1", logits_x1), ("logits_x2", logits_x2),
                           ("labels", labels)):
            _check_tensor(arg, value, "CosineEmbeddingLoss")
        if logits_x1.shape != logits_x2.shape:
            raise ValueError(f"For 'CosineEmbeddingLoss', 'logits_x1' and 'logits_x2' must have "
                             f"the same shape, but got {logits_x1.shape} and {logits_x2.shape}.")
        dot = ops.sum(logits_x1 * logits_x2, 1)
        norms = ops.sqrt(ops.sum(ops.square(logits_x1), 1)) * \
            ops.sqrt(ops.sum(ops.square(logits_x2), 1))
        cosine = dot / norms
        zeros = ops.zeros_like(cosine)
        positive = ops.select(labels == 1, 1.0 - cosine, zeros)
        negative = ops.select(labels == -1, ops.maximum(cosine - self.margin, 0.0), zeros)
        return self.get_loss(positive + negative)


class HingeEmbeddingLoss(LossBase):
    """x where labels > 0, max(0, margin − x) where labels < 0, reduced.

    Args:
        margin (float, int): Default ``1.0``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        if isinstance(margin, bool) or not isinstance(margin, (int, float)):
            raise TypeError(f"For 'HingeEmbeddingLoss', the 'margin' must be float or int, but "
                            f"got {type(margin).__name__}.")
        self.margin = margin

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(−labels·logits)), reduced (labels are ±1).

    Args:
        reduction (str): Default ``'mean'``.
    """

    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """Mean over classes of the binary logistic losses of multi-hot ``target``, reduced.

    Args:
        weight (Tensor): per-class weights. Default ``None``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'MultiLabelSoftMarginLoss', the 'weight' must be a Tensor, "
                            f"but got {type(weight).__name__}.")
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: mean over classes j != y of max(0, margin − x[y] + x[j]) ** p,
    optionally weighted per class, reduced.

    Args:
        p (int): 1 or 2. Default ``1``.
        margin (float): Default ``1.0``.
        reduction (str): Default ``'mean'``.
        weight (Tensor): per-class weights. Default ``None``.
    """

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        if p not in (1, 2):
            raise ValueError(f"For 'MultiMarginLoss', 'p' must be 1 or 2, but got {p}.")
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x, target, weight=None):
        w = weight if weight is not None else self.weight
        return ops.multi_margin_loss(x, target, self.p, self.margin, w, self.reduction)


class TripletMarginLoss(LossBase):
    """``max(d(x, positive) - d(x, negative) + margin, 0)`` with the p-norm distance
    (``ops.triplet_margin_loss``). A ``margin`` other than 1.0 given here overrides the
    one passed to ``construct``, as in MindSpore.

    Args:
        p (int): the norm degree. Default: ``2``.
        swap (bool): use ``min(d(x, n), d(positive, n))`` as the negative distance.
        eps (float): added inside the distance. Default: ``1e-6``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        margin (float): Default: ``1.0``.
    """

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.reduction, self.margin = p, swap, eps, reduction, \
            margin

    def construct(self, x, positive, negative, margin=1.0):
        if self.margin != 1.0:
            margin = self.margin
        return ops.triplet_margin_loss(x, positive, negative, margin=margin, p=self.p,
                                       eps=self.eps, swap=self.swap, reduction=self.reduction)
