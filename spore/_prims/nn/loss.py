"""Negative log-likelihood over class indices: the fused core of cross_entropy.

NLLLoss picks ``-weight[t] * logp[n, t, ...]`` for every target ``t`` (skipping
``ignore_index``) and reduces; it also returns the total weight (the 'mean'
denominator), as MindSpore's primitive does. It is linear in ``logp``, and
NLLLossGrad, which scatters the cotangent back, is its transpose, so each is
the other's gradient. Targets and weights get no gradient.

Inputs: logp (N, C, d...), target (N, d...) integer, total weight (NLLLossGrad
only), optional class weight (C,). Attributes: ``ignore_index``, ``reduction``
('none' | 'sum' | 'mean'); NLLLossGrad carries ``input_shape``.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from .._base import dtype_name
from ._common import IndexOutOfRange, check_float, validated


def _picked_weights(xp, target, n_classes, weight, ignore_index, dtype):
    """(class index per sample with ignored ones set to 0, weight per sample, 0 if ignored)."""
    t = target.astype(np.intp, copy=False)
    valid = t != ignore_index
    t = xp.where(valid, t, 0)
    if t.size and (int(t.min()) < 0 or int(t.max()) >= n_classes):
        bad = int(t.min()) if int(t.min()) < 0 else int(t.max())
        raise IndexOutOfRange(f"For 'NLLLoss', each target must be in [0, {n_classes}) or equal "
                         f"ignore_index ({ignore_index}), but got {bad}.")
    w = valid.astype(dtype) if weight is None else xp.where(valid, weight.astype(dtype)[t], 0)
    return t, w


def _make_nll_loss(xp):
    def nll_loss(logp, target, *weight, ignore_index, reduction):
        t, w = _picked_weights(xp, target, logp.shape[1], weight[0] if weight else None,
                               ignore_index, logp.dtype)
        picked = xp.take_along_axis(logp, t[:, None], axis=1)[:, 0]
        losses = picked * w
        xp.negative(losses, out=losses)
        total = xp.asarray(w.sum(), dtype=logp.dtype)
        if reduction == "none":
            return losses, total
        loss = losses.sum(dtype=logp.dtype)
        if reduction == "mean":
            with np.errstate(invalid="ignore"):     # every target ignored: 0 / 0 = nan
                loss = loss / total
        return xp.asarray(loss, dtype=logp.dtype), total
    return nll_loss


def _make_nll_loss_grad(xp):
    def nll_loss_grad(dout, target, total, *weight, input_shape, ignore_index, reduction):
        t, w = _picked_weights(xp, target, input_shape[1], weight[0] if weight else None,
                               ignore_index, dout.dtype)
        coef = w * dout
        xp.negative(coef, out=coef)
        if reduction == "mean":
            coef /= total
        grad = xp.zeros(input_shape, dout.dtype)
        xp.put_along_axis(grad, t[:, None], coef[:, None], axis=1)
        return grad
    return nll_loss_grad


# ----------------------------------------------------------------- shape rules
def _check_target(op, shape, target):
    if np.dtype(target.dtype).kind not in "iu":
        raise TypeError(f"For '{op}', the 'target' must be an integer tensor of class "
                        f"indices, but got {dtype_name(target.dtype)}.")
    want = (shape[0],) + tuple(shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(f"For '{op}', the 'target' shape must be {list(want)} for input "
                         f"shape {list(shape)}, but got {list(target.shape)}.")


def _check_weight(op, n_classes, weight, dtype):
    if weight and tuple(weight[0].shape) != (n_classes,):
        raise ValueError(f"For '{op}', the 'weight' must have shape [{n_classes}], but got "
                         f"{list(weight[0].shape)}.")
    if weight:
        check_float(op, "weight", weight[0].dtype)


def _check_reduction(op, reduction):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"For '{op}', the 'reduction' must be in ['none', 'mean', 'sum'], "
                         f"but got {reduction!r}.")


def _nll_loss_infer(attrs, logp, target, *weight):
    op = "NLLLoss"
    check_float(op, "logits", logp.dtype)
    if len(logp.shape) < 2:
        raise ValueError(f"For '{op}', the 'logits' must have at least 2 dimensions (N, C), "
                         f"but got shape {list(logp.shape)}.")
    _check_target(op, logp.shape, target)
    _check_weight(op, logp.shape[1], weight, logp.dtype)
    _check_reduction(op, attrs["reduction"])
    shape = tuple(target.shape) if attrs["reduction"] == "none" else ()
    return ShapedArray(shape, logp.dtype), ShapedArray((), logp.dtype)


def _nll_loss_grad_infer(attrs, dout, target, total, *weight):
    op = "NLLLossGrad"
    shape = tuple(attrs["input_shape"])
    check_float(op, "dout", dout.dtype)
    _check_target(op, shape, target)
    _check_weight(op, shape[1], weight, dout.dtype)
    _check_reduction(op, attrs["reduction"])
    want = tuple(target.shape) if attrs["reduction"] == "none" else ()
    if tuple(dout.shape) != want:
        raise ValueError(f"For '{op}', the 'dout' must have shape {list(want)}, but got "
                         f"{list(dout.shape)}.")
    return ShapedArray(shape, dout.dtype)


nll_loss_p = P.Primitive("NLLLoss", validated(_make_nll_loss, _nll_loss_infer), kind="opaque",
                         multiple_results=True, infer=_nll_loss_infer)
nll_loss_grad_p = P.Primitive("NLLLossGrad", validated(_make_nll_loss_grad,
                                                       _nll_loss_grad_infer),
                              kind="opaque", infer=_nll_loss_grad_infer)


# ----------------------------------------------------------------- gradient rules
@nll_loss_p.def_grad(inputs=(1, 2), output=True)
def _nll_loss_grad(attrs, inputs, out, douts):
    logp, target, *weight = inputs
    dloss = douts[0]
    if dloss is None:
        return (None,) * len(inputs)
    g = nll_loss_grad_p(dloss, target, out[1], *weight, input_shape=tuple(logp.shape), **attrs)
    return (g, None) + (None,) * len(weight)


@nll_loss_grad_p.def_grad(inputs=(1, 2, 3))
def _nll_loss_grad_grad(attrs, inputs, out, c):
    _, target, total, *weight = inputs
    loss, _ = nll_loss_p(c, target, *weight, ignore_index=attrs["ignore_index"],
                         reduction=attrs["reduction"])
    return (loss, None, None) + (None,) * len(weight)
