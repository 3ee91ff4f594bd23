"""Loss cells: thin Cells over the functional losses in ``spore.ops`` (MindSpore's names,
defaults and checks: e.g. SmoothL1Loss and SoftmaxCrossEntropyWithLogits default to
``reduction='none'``, CrossEntropyLoss wants Int32 class indices)."""
from __future__ import annotations

from ... import ops
from ..._dtype import float16, float32, int32
from ..._parameter import Parameter
from ..._tensor import Tensor
from ..cell import Cell

__all__ = ["CTCLoss", "LossBase", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss",
           "CrossEntropyLoss", "NLLLoss", "SoftmaxCrossEntropyWithLogits", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_tensor(name, value, owner):
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"For '{owner}', the '{name}' must be 'Tensor', but got "
                        f"'{type(value).__name__}'")


def _positive_float(name, value, owner):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"For '{owner}', the '{name}' must be a positive float, but got "
                         f"{value}.")
    return float(value)


def _check_type(name, value, types, owner):
    if isinstance(value, bool) or not isinstance(value, types):
        want = types.__name__ if isinstance(types, type) else types[0].__name__
        raise TypeError(f"For '{owner}', the type of '{name}' should be '{want}', but got type "
                        f"'{type(value).__name__}'.")


def _dtype_name(dtype):
    return f"mindspore.{str(dtype).lower()}"


def _check_dtype(name, dtype, allowed, owner):
    if dtype not in allowed:
        raise TypeError(f"For '{owner}', the '{name}' should be one of "
                        f"[{', '.join(_dtype_name(d) for d in allowed)}], but got "
                        f"'{_dtype_name(dtype)}'.")


def _check_class_weight(weight, owner):
    if weight is not None:
        _check_type("weight", weight, Tensor, owner)
        _check_dtype("weight", weight.dtype, (float16, float32), owner)


class LossBase(Cell):
    """Base class of losses: subclasses compute element-wise losses in ``construct`` and
    reduce them with ``get_loss``.

    Args:
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"For '{type(self).__name__}', the 'reduction' must be in "
                             f"['mean', 'sum', 'none'], but got {reduction}.")
        self.reduction = reduction
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_axis(self, x):
        """All axes of ``x``: ``(0, 1, ..., x.ndim - 1)``."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """``weights * x`` reduced as ``reduction`` says, computed in float32 and returned in
        ``x``'s dtype."""
        dtype = x.dtype
        if dtype != float32:        # casts and a product by 1.0 would only copy
            x = ops.cast(x, float32)
        weights = ops.cast(weights, float32) if isinstance(weights, Tensor) else float(weights)
        if isinstance(weights, Tensor) or weights != 1.0:
            x = weights * x
        if self.reduce:
            x = ops.mean(x) if self.average else ops.sum(x)
        return x if dtype == float32 else ops.cast(x, dtype)

    def construct(self, logits, labels):
        raise NotImplementedError


class MSELoss(LossBase):
    """(logits − labels)² reduced (logits and labels broadcast).

    Args:
        reduction (str): Default ``'mean'``.
    """

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "MSELoss")
        _check_tensor("labels", labels, "MSELoss")
        return self.get_loss(ops.square(logits - labels))


class L1Loss(LossBase):
    """|logits − labels| reduced.

    Args:
        reduction (str): Default ``'mean'``.
    """

    def construct(self, logits, labels):
        return ops.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """0.5·d²/beta where |d| < beta, |d| − 0.5·beta elsewhere (d = logits − labels).

    Args:
        beta (float): Default ``1.0``.
        reduction (str): Default ``'none'``.
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """0.5·d² where |d| < delta, delta·(|d| − 0.5·delta) elsewhere, reduced.

    Args:
        reduction (str): Default ``'mean'``.
        delta (float): Default ``1.0``.
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = _positive_float("delta", delta, "HuberLoss")

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "HuberLoss")
        _check_tensor("labels", labels, "HuberLoss")
        d = ops.abs(logits - labels)
        quadratic = 0.5 * d * d
        linear = self.delta * (d - 0.5 * self.delta)
        return self.get_loss(ops.where(d < self.delta, quadratic, linear))


class CrossEntropyLoss(LossBase):
    """Softmax cross entropy between logits (N, C, d...) and Int32 class indices (N, d...)
    or class probabilities (N, C, d...).

    Args:
        weight (Tensor): per-class weights (float16/float32). Default ``None``.
        ignore_index (int): label ignored (class indices only). Default ``-100``.
        reduction (str): Default ``'mean'`` (weighted mean over non-ignored samples).
        label_smoothing (float): in [0, 1]. Default ``0.0``.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        owner = "CrossEntropyLoss"
        _check_type("ignore_index", ignore_index, int, owner)
        _check_type("label_smoothing", label_smoothing, float, owner)
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For '{owner}', the 'label_smoothing' must be in range of "
                             f"[0.0, 1.0], but got {label_smoothing} with type 'float'.")
        _check_class_weight(weight, owner)
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "CrossEntropyLoss")
        _check_tensor("labels", labels, "CrossEntropyLoss")
        _check_cross_entropy_inputs(logits, labels, "CrossEntropyLoss")
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                 self.label_smoothing)


def _check_cross_entropy_inputs(logits, labels, owner):
    _check_dtype("logits", logits.dtype, (float16, float32), owner)
    lshape, yshape = tuple(logits.shape), tuple(labels.shape)
    if logits.ndim == labels.ndim:
        _check_dtype("labels", labels.dtype, (float16, float32), owner)
        if lshape != yshape:
            raise ValueError(f"For '{owner}', the shape of 'logits' should be (N, C, d_0, d_1, "
                             f"...), and the shape of 'labels' should be (N, C, d_0, d_1, ...), "
                             f"but get 'logits' shape: {lshape} and 'labels' shape: {yshape}.")
    elif labels.ndim == logits.ndim - 1:
        if labels.dtype != int32:
            raise TypeError(f"For '{owner}', the 'labels' should be Int32, but got "
                            f"'{_dtype_name(labels.dtype)}'.")
        if logits.ndim != 1 and (lshape[0],) + lshape[2:] != yshape:
            raise ValueError(f"For '{owner}', the shape of 'logits' should be (N, C, d_0, d_1, "
                             f"...), and the shape of 'labels' should be (N, d_0, d_1, ...), but "
                             f"get 'logits' shape: {lshape} and 'labels' shape: {yshape}.")
    else:
        raise ValueError(f"For '{owner}', the rank of 'logits' and 'labels' should be:\n"
                         f"1. 'logits.ndim == labels.ndim' for probabilities, \n"
                         f"2. 'logits.ndim - 1 == labels.ndim' for class indices, \n"
                         f"but get 'logits' rank: {logits.ndim} and 'labels' rank: "
                         f"{labels.ndim}.")


class NLLLoss(LossBase):
    """Negative log likelihood of log-probabilities (N, C, d...) at class indices (N, d...).

    Args:
        weight (Tensor): per-class weights. Default ``None``.
        ignore_index (int): Default ``-100``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        _check_type("ignore_index", ignore_index, int, "NLLLoss")
        _check_class_weight(weight, "NLLLoss")
        self.weight = weight
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """−Σ labels·log_softmax(logits) over the last axis, per sample.

    Args:
        sparse (bool): labels are class indices (int32/int64) instead of a distribution of
            the logits' dtype. Default ``False``.
        reduction (str): Default ``'none'``.
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', the 'sparse' must be a bool, "
                            f"but got {type(sparse).__name__}.")
        self.sparse = sparse

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "SoftmaxCrossEntropyWithLogits")
        _check_tensor("labels", labels, "SoftmaxCrossEntropyWithLogits")
        if self.sparse and logits.ndim == 2:
            # class indices over (N, C): the fused cross entropy is the same quantity
            return ops.cross_entropy(logits, labels, reduction=self.reduction)
        if self.sparse:
            labels = ops.one_hot(labels, logits.shape[-1], ops.ones((), logits.dtype),
                                 ops.zeros((), logits.dtype))
        elif labels.dtype != logits.dtype:
            raise TypeError("For primitive[SoftmaxCrossEntropyWithLogits], the input type must "
                            "be same.")
        else:
            labels = ops.stop_gradient(labels)     # MindSpore's bprop gives labels no gradient
        per_sample = -ops.sum(labels * ops.log_softmax(logits, -1), -1)
        return self.get_loss(per_sample)


class BCELoss(LossBase):
    """Binary cross entropy of probabilities against targets of the same dtype.

    Args:
        weight (Tensor): rescales each element (broadcast). Default ``None``.
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "BCELoss")
        _check_tensor("labels", labels, "BCELoss")
        if labels.dtype != logits.dtype:
            raise TypeError(f"For primitive[BinaryCrossEntropy], the input and target should "
                            f"have same type, but got: {logits.dtype} and {labels.dtype}.")
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy on logits (a stable sigmoid + BCE).

    Args:
        reduction (str): Default ``'mean'``.
        weight (Tensor): per-element weights (broadcast). Default ``None``.
        pos_weight (Tensor): weight of positive examples per class. Default ``None``.
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__()
        for name, value in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(value, Parameter):
                raise TypeError(f"For 'BCEWithLogitsLoss', the '{name}' can not be a Parameter.")
        self.reduction = reduction
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        _check_tensor("input", logits, "BCEWithLogitsLoss")
        _check_tensor("target", labels, "BCEWithLogitsLoss")
        if not labels.dtype.is_floating_point:
            raise TypeError(f"For primitive[BCEWithLogitsLoss], the input argument[target] must "
                            f"be a type of {{BFloat16, Float16, Float32}}, but got "
                            f"{labels.dtype}.")
        return ops.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                    self.reduction)


class KLDivLoss(LossBase):
    """Kullback-Leibler divergence ``labels·(log(labels) − logits)`` with log-probability
    ``logits``; ``reduction`` may also be ``'batchmean'`` (checked when called, as in
    MindSpore).

    Args:
        reduction (str): Default ``'mean'``.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def construct(self, logits, labels):
        _check_tensor("logits", logits, "KLDivLoss")
        _check_tensor("labels", labels, "KLDivLoss")
        return ops.kl_div(logits, labels, self.reduction)


class CTCLoss(LossBase):
    """Connectionist temporal classification loss (``ops.ctc_loss``), returning the loss
    only: ``construct(log_probs (T, N, C), targets (N, S), input_lengths (N,),
    target_lengths (N,))``.

    Args:
        blank (int): the blank label. Default: ``0``.
        reduction (str): ``'none'``, ``'mean'`` (per-sample loss divided by its target
            length, then averaged) or ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): infinite losses and their gradients become 0. Default:
            ``False``.
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        if isinstance(blank, bool) or not isinstance(blank, int):
            raise TypeError(f"For 'CTCLoss', the type of 'blank' should be 'int', but got "
                            f"'{type(blank).__name__}'.")
        if blank < 0:
            raise ValueError(f"For 'CTCLoss', the 'blank' must be >= 0, but got {blank}.")
        if not isinstance(zero_infinity, bool):
            raise TypeError(f"For 'CTCLoss', the type of 'zero_infinity' should be 'bool', but "
                            f"got '{type(zero_infinity).__name__}'.")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        return ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                            self.reduction, self.zero_infinity)[0]
