"""Losses for segmentation and imbalanced classification: DiceLoss, MultiClassDiceLoss and
FocalLoss (composed as MindSpore composes them)."""
from __future__ import annotations

from ... import ops
from ..._dtype import int32, uint8
from ..._tensor import Tensor
from ..cell import Cell
from ..layer.activation import get_activation
from .loss import LossBase, _check_tensor, _positive_float

__all__ = ["DiceLoss", "MultiClassDiceLoss", "FocalLoss"]


class DiceLoss(LossBase):
    """1 − 2·sum(logits·label) / (sum(logits²) + sum(label²) + smooth), over all elements.

    Args:
        smooth (float): positive. Default ``1e-5``.
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = _positive_float("smooth", smooth, "DiceLoss")

    def construct(self, logits, label):
        _check_tensor("logits", logits, "DiceLoss")
        _check_tensor("labels", label, "DiceLoss")
        if logits.shape != label.shape:
            raise ValueError(f"For 'DiceLoss', the 'logits' and 'labels' must have the same "
                             f"shape, but got {logits.shape} and {label.shape}.")
        for arg, x in (("logits", logits), ("labels", label)):
            if x.dtype == uint8:
                raise TypeError(f"For 'DiceLoss', the dtype of '{arg}' can not be uint8.")
        p, t = ops.reshape(logits, (-1,)), ops.reshape(label, (-1,))
        intersection = ops.sum(p * t)
        union = ops.sum(p * p) + ops.sum(t * t)
        return 1 - 2 * intersection / (union + self.smooth)


_DICE_ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")


class MultiClassDiceLoss(LossBase):
    """The mean over classes (axis 1) of the binary DiceLoss of each class.

    Args:
        weights (Tensor): 2-D per-class weights (row i weights class i). Default ``None``.
        ignore_indiex (int): a class left out (MindSpore's spelling). Default ``None``.
        activation (str, Cell): applied to ``logits`` first. Default ``'softmax'``.
    """

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if weights is not None and not isinstance(weights, Tensor):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'weights' must be a Tensor, but got "
                            f"{type(weights).__name__}.")
        if isinstance(weights, Tensor) and weights.ndim != 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the dimension of 'weights' must be 2, "
                             f"but got {weights.ndim}.")
        if isinstance(activation, str) and activation not in _DICE_ACTIVATIONS:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'activation' must be in "
                             f"{list(_DICE_ACTIVATIONS)}, but got {activation}.")
        self.activation = get_activation(activation) if isinstance(activation, str) \
            else activation
        if self.activation is not None and not isinstance(self.activation, Cell):
            raise TypeError(f"For 'MultiClassDiceLoss', the 'activation' must be str or Cell, "
                            f"but got {type(activation).__name__}.")
        self.weights = weights
        self.ignore_indiex = ignore_indiex
        self.binary_dice = DiceLoss(smooth=1e-5)

    def construct(self, logits, label):
        _check_tensor("logits", logits, "MultiClassDiceLoss")
        _check_tensor("labels", label, "MultiClassDiceLoss")
        if logits.shape != label.shape or label.ndim < 2:
            raise ValueError(f"For 'MultiClassDiceLoss', the 'logits' and 'labels' must have the "
                             f"same shape of at least 2 dimensions, but got {logits.shape} and "
                             f"{label.shape}.")
        if self.activation is not None:
            logits = self.activation(logits)
        total = 0
        for i in range(label.shape[1]):
            if i == self.ignore_indiex:
                continue
            loss = self.binary_dice(logits[:, i], label[:, i])
            total = total + (loss * self.weights[i] if self.weights is not None else loss)
        return total / label.shape[1]


class FocalLoss(LossBase):
    """−(1 − p)^gamma · log p of the labelled class (labels (N, 1, ...) class indices) or
    weighted by one-hot/probability labels (N, C, ...), averaged over classes then reduced.

    Args:
        weight (Tensor): 1-D per-class weights. Default ``None``.
        gamma (float): Default ``2.0``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', the 'gamma' must be float, but got "
                            f"{type(gamma).__name__}.")
        if weight is not None and not isinstance(weight, Tensor):
            raise TypeError(f"For 'FocalLoss', the type of 'weight' must be a Tensor, but got "
                            f"{type(weight).__name__}.")
        if isinstance(weight, Tensor) and weight.ndim != 1:
            raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, but got "
                             f"{weight.ndim}.")
        self.weight = weight
        self.gamma = gamma

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "FocalLoss")
        _check_tensor("labels", labels, "FocalLoss")
        if labels.ndim not in (2, 3, 4) or logits.ndim != labels.ndim:
            raise ValueError(f"For 'FocalLoss', the dimensions of 'labels' must be in [2, 4] and "
                             f"equal to those of 'logits', but got {labels.ndim} and "
                             f"{logits.ndim}.")
        if labels.shape[1] not in (1, logits.shape[1]):
            raise ValueError(f"For 'FocalLoss', the channel of 'labels' must be 1 or the channel "
                             f"of 'logits' ({logits.shape[1]}), but got {labels.shape[1]}.")
        n, c = logits.shape[:2]
        logits = ops.reshape(logits, (n, c, -1))
        labels = ops.reshape(labels, (n, labels.shape[1], -1))
        log_p = ops.log_softmax(logits, 1)
        index = ops.cast(labels, int32)
        sparse = labels.shape[1] == 1
        if sparse:
            log_p = ops.squeeze(ops.gather_elements(log_p, 1, index), 1)
        p = ops.exp(log_p)
        if self.weight is not None:
            w = ops.broadcast_to(ops.reshape(self.weight, (1, c, 1)), (n, c, labels.shape[2]))
            log_p = log_p * (ops.squeeze(ops.gather_elements(w, 1, index), 1) if sparse else w)
        modulation = ops.pow(1.0 - p, self.gamma)
        if sparse:
            loss = ops.mean(-modulation * log_p, 1)
        else:
            loss = ops.mean(-modulation * labels * log_p, -1)
        return self.get_loss(loss)
