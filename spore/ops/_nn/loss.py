"""Functional losses (MindSpore 2.10 signatures; PyTorch's formulas, which MindSpore follows).

cross_entropy / nll_loss with class indices run on the fused NLLLoss primitive
(after the fused LogSoftmax); every other loss is a composite of elementwise
and reduction primitives.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import primitive as P
from ..._prims import math as M
from ..._prims.array import cast_p, gather_d_p, reshape_p
from ..._prims.nn import log_softmax_p, nll_loss_p
from ..._prims.reduce import mean_p, sum_p
from ..._prims.special import stop_gradient_p
from .._utils import as_tensor, public_functions
from ._args import check_reduction, is_int, require_tensor

_LOG_EPS = 1e-12    # MindSpore's BinaryCrossEntropy clamps probabilities to this


def _reduce(loss, reduction):
    if reduction == "mean":
        return mean_p(loss, axis=None, keepdims=False)
    if reduction == "sum":
        return sum_p(loss, axis=None, keepdims=False)
    return loss


def _weighted(loss, weight):
    return loss if weight is None else M.mul_p(loss, weight)


def _is_float(x):
    d = np.dtype(x._data.dtype)
    return d.kind == "f" or d.name == "bfloat16"


# ----------------------------------------------------------------- cross entropy / nll
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    r"""Cross entropy between logits ``input`` and ``target``.

    ``input`` is (N, C), (N, C, d1, ...) or (C,). ``target`` holds class indices
    (integer, shape (N, d1, ...)) or class probabilities (float, the shape of ``input``).

    Args:
        weight (Tensor, optional): (C,) rescaling of each class.
        ignore_index (int): class-index targets equal to it contribute nothing (and are
            left out of the 'mean' denominator). Default ``-100``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. With class indices 'mean'
            divides by the summed weights of the targets, with probabilities by the number
            of samples.
        label_smoothing (float): mix the target with the uniform distribution:
            ``(1 - e) * target + e / C``.
    """
    op = "cross_entropy_loss"     # MindSpore 2.10 words its errors so
    check_reduction(op, reduction)
    if not is_int(ignore_index):
        raise TypeError(f"For '{op}', the 'ignore_index' must be int, but got "
                        f"{type(ignore_index).__name__}.")
    require_tensor(op, "input", input)
    require_tensor(op, "target", target)
    logp = log_softmax_p(input, axis=1 if input.ndim > 1 else 0)
    if _is_float(target):
        return _soft_target_loss(op, logp, target, weight, reduction, label_smoothing)
    return _class_index_loss(op, logp, target, weight, ignore_index, reduction,
                             label_smoothing)


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """Negative log-likelihood of the class indices ``target`` under log-probabilities
    ``inputs`` ((N, C), (N, C, d1, ...) or (C,)); arguments as in ``cross_entropy``."""
    op = "nll_loss"
    check_reduction(op, reduction)
    require_tensor(op, "inputs", inputs)
    require_tensor(op, "target", target)
    return _class_index_loss(op, inputs, target, weight, ignore_index, reduction,
                             label_smoothing)


def _class_index_loss(op, logp, target, weight, ignore_index, reduction, smoothing):
    unbatched = logp.ndim == 1
    if unbatched:
        logp = reshape_p(logp, shape=(1,) + logp.shape)
        target = reshape_p(target, shape=(1,) + target.shape)
    extra = () if weight is None else (weight,)
    loss, total = nll_loss_p(logp, target, *extra, ignore_index=int(ignore_index),
                             reduction=reduction)
    if smoothing:
        smooth = _smoothing_term(logp, target, weight, ignore_index, reduction, total)
        loss = M.add_p(M.mul_p(loss, 1.0 - smoothing),
                       M.mul_p(smooth, smoothing / logp.shape[1]))
    if unbatched and reduction == "none":
        loss = reshape_p(loss, shape=())
    return loss


def _smoothing_term(logp, target, weight, ignore_index, reduction, total):
    """-sum_c w_c logp_c per sample (ignored samples 0), reduced like the nll term."""
    per_class = logp if weight is None else M.mul_p(logp, _class_axis(weight, logp))
    term = M.neg_p(sum_p(per_class, axis=(1,), keepdims=False))
    keep = cast_p(M.not_equal_p(target, int(ignore_index)), dtype=np.dtype(logp._data.dtype))
    term = M.mul_p(term, keep)
    if reduction == "none":
        return term
    summed = sum_p(term, axis=None, keepdims=False)
    return M.div_p(summed, total) if reduction == "mean" else summed


def _class_axis(weight, x):
    return reshape_p(weight, shape=(1, weight.shape[0]) + (1,) * (x.ndim - 2))


def _soft_target_loss(op, logp, target, weight, reduction, smoothing):
    if tuple(target.shape) != tuple(logp.shape):
        raise ValueError(f"For '{op}', a probability 'target' must have the shape of the "
                         f"'input' {list(logp.shape)}, but got {list(target.shape)}.")
    axis = 1 if logp.ndim > 1 else 0
    if smoothing:
        target = M.add_p(M.mul_p(target, 1.0 - smoothing), smoothing / logp.shape[axis])
    terms = M.mul_p(logp, target)
    if weight is not None:
        terms = M.mul_p(terms, _class_axis(weight, logp) if logp.ndim > 1 else weight)
    loss = M.neg_p(sum_p(terms, axis=(axis,), keepdims=False))
    return _reduce(loss, reduction)


# ----------------------------------------------------------------- regression losses
def mse_loss(input, target, reduction="mean"):
    """``(input - target) ** 2`` (broadcast), reduced."""
    check_reduction("mse_loss", reduction)
    diff = M.sub_p(input, target)
    return _reduce(M.mul_p(diff, diff), reduction)


def l1_loss(input, target, reduction="mean"):
    """``|input - target|`` (broadcast), reduced."""
    check_reduction("l1_loss", reduction)
    return _reduce(M.abs_p(M.sub_p(input, target)), reduction)


def _require_number(op, arg, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{op}', the '{arg}' must be a number, but got "
                        f"{type(value).__name__}.")


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta = 0``: L1)."""
    check_reduction("smooth_l1_loss", reduction)
    _require_number("smooth_l1_loss", "beta", beta)
    if beta < 0:
        raise ValueError(f"For 'smooth_l1_loss', the 'beta' must be non-negative, but got "
                         f"{beta}.")
    d = M.abs_p(M.sub_p(input, target))
    if beta == 0:
        return _reduce(d, reduction)
    quad = M.mul_p(M.mul_p(d, d), 0.5 / beta)
    return _reduce(M.where_p(M.less_p(d, beta), quad, M.sub_p(d, 0.5 * beta)), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    check_reduction("huber_loss", reduction)
    _require_number("huber_loss", "delta", delta)
    if delta <= 0:
        raise ValueError(f"For 'huber_loss', the 'delta' must be positive, but got {delta}.")
    d = M.abs_p(M.sub_p(input, target))
    quad = M.mul_p(M.mul_p(d, d), 0.5)
    lin = M.mul_p(M.sub_p(d, 0.5 * delta), delta)
    return _reduce(M.where_p(M.less_p(d, delta), quad, lin), reduction)


# ----------------------------------------------------------------- binary losses
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """``-w (y log p + (1 - y) log(1 - p))`` for probabilities ``logits``; the logs are
    taken of probabilities clamped to at least 1e-12, as MindSpore does."""
    check_reduction("binary_cross_entropy", reduction)
    log_p = M.log_p(M.maximum_p(logits, _LOG_EPS))
    log_q = M.log_p(M.maximum_p(M.sub_p(1.0, logits), _LOG_EPS))
    loss = M.neg_p(M.add_p(M.mul_p(labels, log_p), M.mul_p(M.sub_p(1.0, labels), log_q)))
    return _reduce(_weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    r"""Sigmoid + binary cross entropy in one stable formula:
    ``w ((1 - y) x + (1 + (pw - 1) y) softplus(-x))``."""
    check_reduction("binary_cross_entropy_with_logits", reduction)
    softplus_neg = M.add_p(M.log1p_p(M.exp_p(M.neg_p(M.abs_p(input)))),
                           M.relu_p(M.neg_p(input)))
    scale = M.add_p(M.mul_p(target, M.sub_p(pos_weight, 1.0)), 1.0) \
        if pos_weight is not None else None
    pos = softplus_neg if scale is None else M.mul_p(scale, softplus_neg)
    loss = M.add_p(M.mul_p(M.sub_p(1.0, target), input), pos)
    return _reduce(_weighted(loss, weight), reduction)


def kl_div(logits, labels, reduction="mean"):
    r"""``labels * (log(labels) - logits)`` (0 where ``labels`` is 0), reduced; 'batchmean'
    divides the sum by the batch size. As in MindSpore, ``labels`` get no gradient."""
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"For 'kl_div', the 'reduction' must be str and must be in "
                         f"'['none', 'mean', 'sum', 'batchmean']', but got '{reduction}'.")
    labels = stop_gradient_p(labels) if isinstance(labels, P._Tensor) else labels
    positive = M.greater_p(labels, 0)
    log_labels = M.log_p(M.where_p(positive, labels, 1.0))
    loss = M.mul_p(labels, M.sub_p(log_labels, logits))
    if reduction == "batchmean":
        total = sum_p(loss, axis=None, keepdims=False)
        return M.div_p(total, logits.shape[0] if logits.ndim else 1)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, reduction="mean"):
    """``log(1 + exp(-y x))`` for targets y in {-1, 1}, reduced."""
    check_reduction("soft_margin_loss", reduction)
    z = M.neg_p(M.mul_p(target, input))
    loss = M.add_p(M.log1p_p(M.exp_p(M.neg_p(M.abs_p(z)))), M.relu_p(z))
    return _reduce(loss, reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``x`` where the target is 1, ``max(0, margin - x)`` where it is -1, reduced."""
    check_reduction("hinge_embedding_loss", reduction)
    hinge = M.relu_p(M.sub_p(margin, inputs))
    loss = M.where_p(M.equal_p(targets, 1), inputs, hinge)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -y (x1 - x2) + margin)``, reduced."""
    check_reduction("margin_ranking_loss", reduction)
    loss = M.relu_p(M.add_p(M.neg_p(M.mul_p(target, M.sub_p(input1, input2))), margin))
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos(x1, x2)`` where the target is 1, ``max(0, cos - margin)`` where it is -1
    (cosine along the last axis)."""
    check_reduction("cosine_embedding_loss", reduction)
    input1, input2 = as_tensor(input1), as_tensor(input2)
    axis = (input1.ndim - 1,)
    dot = sum_p(M.mul_p(input1, input2), axis=axis, keepdims=False)
    n1 = sum_p(M.mul_p(input1, input1), axis=axis, keepdims=False)
    n2 = sum_p(M.mul_p(input2, input2), axis=axis, keepdims=False)
    cos = M.div_p(dot, M.sqrt_p(M.add_p(M.mul_p(n1, n2), 1e-12)))
    loss = M.where_p(M.equal_p(target, 1), M.sub_p(1.0, cos), M.relu_p(M.sub_p(cos, margin)))
    return _reduce(loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """``0.5 (log(max(var, eps)) + (x - target)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)``
    with ``full``), reduced."""
    check_reduction("gaussian_nll_loss", reduction)
    v = M.maximum_p(var, eps)
    diff = M.sub_p(x, target)
    loss = M.mul_p(M.add_p(M.log_p(v), M.div_p(M.mul_p(diff, diff), v)), 0.5)
    if full:
        loss = M.add_p(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """``-mean_c w_c (y log sigmoid(x) + (1 - y) log sigmoid(-x))`` per sample, reduced."""
    check_reduction("multilabel_soft_margin_loss", reduction)
    input = as_tensor(input)
    log_sig = M.neg_p(M.add_p(M.log1p_p(M.exp_p(M.neg_p(M.abs_p(input)))),
                              M.relu_p(M.neg_p(input))))
    log_sig_neg = M.sub_p(log_sig, input)
    terms = M.add_p(M.mul_p(target, log_sig), M.mul_p(M.sub_p(1.0, target), log_sig_neg))
    terms = _weighted(terms, weight)
    loss = M.neg_p(mean_p(terms, axis=(input.ndim - 1,), keepdims=False))
    return _reduce(loss, reduction)


def _p_distance(x, y, p, eps):
    """``||x - y + eps||_p`` along the last axis (PyTorch's pairwise_distance)."""
    x = as_tensor(x)
    diff = M.abs_p(M.add_p(M.sub_p(x, y), eps))
    return M.pow_p(sum_p(M.pow_p(diff, p), axis=(x.ndim - 1,), keepdims=False), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the p-norm distance along the last
    axis; ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance."""
    check_reduction("triplet_margin_loss", reduction)
    _require_number("triplet_margin_loss", "p", p)
    if p <= 0:
        raise ValueError(f"For 'triplet_margin_loss', the 'p' must be positive, but got {p}.")
    d_pos = _p_distance(anchor, positive, p, eps)
    d_neg = _p_distance(anchor, negative, p, eps)
    if swap:
        d_neg = M.minimum_p(d_neg, _p_distance(positive, negative, p, eps))
    return _reduce(M.relu_p(M.add_p(M.sub_p(d_pos, d_neg), margin)), reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """Multi-class hinge loss over (N, C) scores: ``sum_{j != y} max(0, margin - x[y] +
    x[j]) ** p / C`` per sample (times ``weight[y]``)."""
    op = "multi_margin_loss"
    check_reduction(op, reduction)
    if p not in (1, 2):
        raise ValueError(f"For '{op}', the 'p' must be 1 or 2, but got {p}.")
    require_tensor(op, "input", input)
    if input.ndim != 2:
        raise ValueError(f"For '{op}', the 'input' must be 2-D (N, C), but got shape "
                         f"{list(input.shape)}.")
    n, c = input.shape
    index = reshape_p(target, shape=(n, 1))
    picked = gather_d_p(input, index, axis=1)
    terms = M.relu_p(M.add_p(M.sub_p(margin, picked), input))
    if p == 2:
        terms = M.mul_p(terms, terms)
    others = M.not_equal_p(P.wrap(np.arange(c)), index)
    terms = M.mul_p(terms, cast_p(others, dtype=np.dtype(input._data.dtype)))
    loss = M.div_p(sum_p(terms, axis=(1,), keepdims=False), c)
    if weight is not None:
        loss = M.mul_p(loss, gather_d_p(weight, reshape_p(target, shape=(n,)), axis=0))
    return _reduce(loss, reduction)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """Connectionist temporal classification loss of (T, N, C) log-probabilities against
    padded (N, S) targets; returns ``(loss, log_alpha)`` as MindSpore does.

    ``reduction='mean'`` divides each sample's loss by its target length (at least 1)
    and averages over the batch; ``'sum'`` adds the losses; ``'none'`` keeps the (N,)
    losses. ``zero_infinity`` replaces infinite losses (no alignment of the target fits
    the input) and their gradients by 0. ``log_alpha`` (N, T, 2S + 1) holds the forward
    variables over the blank-extended targets (-inf outside each sample's lengths).
    """
    from ..._prims.nn.ctc import ctc_loss_p
    op = "ctc_loss"
    check_reduction(op, reduction)
    for arg, v in (("log_probs", log_probs), ("targets", targets),
                   ("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        require_tensor(op, arg, v)
    if isinstance(blank, bool) or not isinstance(blank, int):
        raise TypeError(f"For '{op}', the 'blank' must be an int, but got {type(blank).__name__}.")
    if not isinstance(zero_infinity, bool):
        raise TypeError(f"For '{op}', the 'zero_infinity' must be a bool, but got "
                        f"{type(zero_infinity).__name__}.")
    loss, log_alpha = ctc_loss_p(log_probs, targets, input_lengths, target_lengths, blank=blank,
                                 zero_infinity=zero_infinity)
    if reduction == "sum":
        loss = sum_p(loss, axis=None, keepdims=False)
    elif reduction == "mean":
        lengths = M.maximum_p(cast_p(target_lengths, dtype=np.dtype(loss._data.dtype)), 1)
        loss = mean_p(M.div_p(loss, lengths), axis=None, keepdims=False)
    return loss, log_alpha


__all__ = public_functions(globals(), __name__)
