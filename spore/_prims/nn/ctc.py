"""CTC loss (connectionist temporal classification) and its gradient primitive.

``CTCLoss(log_probs (T, N, C), targets (N, S), input_lengths (N,), target_lengths (N,);
blank, zero_infinity)`` returns the negative log-likelihood per sample (N,) and the
forward variables ``log_alpha`` (N, T, 2S + 1) over the blank-extended targets
``[b, l1, b, l2, ..., b]``. Both recursions run in log space, vectorised over the batch;
entries outside a sample's input or extended-target length are -inf.

The gradient w.r.t. ``log_probs`` is MindSpore's (and PyTorch's) form
``exp(log_probs) - posterior``, i.e. the gradient w.r.t. the logits of a log_softmax
that produced ``log_probs``: through a log_softmax it equals the exact gradient.
Positions at or past a sample's input length get 0. A sample whose loss is infinite (no
alignment fits) gets NaN gradients, as in MindSpore; with ``zero_infinity`` its loss and
gradients are 0.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ._common import check_float

_NEG = -np.inf


def _extended(targets, blank):
    n, s = targets.shape
    ext = np.full((n, 2 * s + 1), blank, np.int64)
    ext[:, 1::2] = targets
    return ext


def _skip_allowed(ext, blank):
    """Whether position s may be reached from s - 2 (a label differing from s - 2)."""
    allowed = np.zeros(ext.shape, bool)
    allowed[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    return allowed


def _lse(*terms):
    out = terms[0]
    for t in terms[1:]:
        out = np.logaddexp(out, t)
    return out


def _emissions(lp, ext):
    """(T, N, L): log-probability of each extended label at each time."""
    return np.take_along_axis(lp, np.broadcast_to(ext[None], (lp.shape[0],) + ext.shape), axis=2)


def _forward(lp, ext, skip, il, tl, stay_ok=None):
    """``stay_ok`` (N, L): where a position may repeat at the next step (default: all;
    TensorFlow's ``ctc_merge_repeated=False`` allows it on blanks only)."""
    steps, n = lp.shape[:2]
    width = ext.shape[1]
    em = _emissions(lp, ext)
    valid_s = np.arange(width)[None, :] < (2 * tl + 1)[:, None]
    la = np.full((n, steps, width), _NEG)
    la[:, 0, 0] = em[0, :, 0]
    if width > 1:
        la[:, 0, 1] = np.where(tl > 0, em[0, :, 1], _NEG)
    for t in range(1, steps):
        prev = la[:, t - 1]
        stay = prev if stay_ok is None else np.where(stay_ok, prev, _NEG)
        step = np.concatenate([np.full((n, 1), _NEG), prev[:, :-1]], axis=1)
        jump = np.concatenate([np.full((n, 2), _NEG), prev[:, :-2]], axis=1)
        jump = np.where(skip, jump, _NEG)
        la[:, t] = _lse(stay, step, jump) + em[t]
    la = np.where(valid_s[:, None, :], la, _NEG)
    la = np.where((np.arange(steps)[None, :] < il[:, None])[:, :, None], la, _NEG)
    return la, em


def _final(la, il, tl):
    rows = np.arange(la.shape[0])
    last = la[rows, np.maximum(il - 1, 0)]
    end = last[rows, 2 * tl]
    before = np.where(tl > 0, last[rows, np.maximum(2 * tl - 1, 0)], _NEG)
    return -np.logaddexp(end, before)


def _backward(em, ext, skip, il, tl, stay_ok=None):
    steps, n, width = em.shape
    lb = np.full((n, steps, width), _NEG)
    rows = np.arange(n)
    skip_next = np.zeros_like(skip)
    skip_next[:, :-2] = skip[:, 2:]                 # may s jump to s + 2
    for t in range(steps - 1, -1, -1):
        init = np.full((n, width), _NEG)
        init[rows, 2 * tl] = em[t, rows, 2 * tl]
        has_label = tl > 0
        init[rows[has_label], 2 * tl[has_label] - 1] = em[t, rows[has_label],
                                                          2 * tl[has_label] - 1]
        if t + 1 < steps:
            nxt = lb[:, t + 1]
            stay = nxt if stay_ok is None else np.where(stay_ok, nxt, _NEG)
            step = np.concatenate([nxt[:, 1:], np.full((n, 1), _NEG)], axis=1)
            jump = np.concatenate([nxt[:, 2:], np.full((n, 2), _NEG)], axis=1)
            jump = np.where(skip_next, jump, _NEG)
            rec = _lse(stay, step, jump) + em[t]
        else:
            rec = np.full((n, width), _NEG)
        at_end = (t == il - 1)[:, None]
        inside = (t < il - 1)[:, None]
        lb[:, t] = np.where(at_end, init, np.where(inside, rec, _NEG))
    valid_s = np.arange(width)[None, :] < (2 * tl + 1)[:, None]
    return np.where(valid_s[:, None, :], lb, _NEG)


def _prepare(lp, targets, il, tl, blank):
    lp64 = lp.astype(np.float64)
    ext = _extended(targets.astype(np.int64), blank)
    return lp64, ext, _skip_allowed(ext, blank), il.astype(np.int64), tl.astype(np.int64)


def _make_ctc(xp):
    def ctc_loss(lp, targets, il, tl, *, blank, zero_infinity):
        lp64, ext, skip, il, tl = _prepare(lp, targets, il, tl, blank)
        la, _ = _forward(lp64, ext, skip, il, tl)
        loss = _final(la, il, tl)
        if zero_infinity:
            loss = np.where(np.isinf(loss), 0.0, loss)
        return loss.astype(lp.dtype), la.astype(lp.dtype)
    return ctc_loss


def loss_and_grad(lp64, ext, skip, il, tl, stay_ok=None):
    """(N,) losses and the (T, N, C) gradient ``exp(lp) - posterior`` (float64; NaN rows
    where the loss is infinite, 0 past each input length)."""
    la, em = _forward(lp64, ext, skip, il, tl, stay_ok)
    loss = _final(la, il, tl)
    lb = _backward(em, ext, skip, il, tl, stay_ok)
    steps, n, classes = lp64.shape
    # posterior of each extended position: exp(la + lb - emission + loss)
    with np.errstate(invalid="ignore"):
        log_post = la + lb - np.transpose(em, (1, 0, 2)) + loss[:, None, None]
    post = np.where(np.isfinite(log_post), np.exp(np.where(np.isfinite(log_post),
                                                           log_post, 0.0)), 0.0)
    occupancy = np.zeros((n, steps, classes))
    idx_n = np.broadcast_to(np.arange(n)[:, None, None], post.shape)
    idx_t = np.broadcast_to(np.arange(steps)[None, :, None], post.shape)
    idx_c = np.broadcast_to(ext[:, None, :], post.shape)
    np.add.at(occupancy, (idx_n, idx_t, idx_c), post)
    grad = np.exp(lp64) - np.transpose(occupancy, (1, 0, 2))
    grad = np.where(np.isinf(loss)[None, :, None], np.nan, grad)
    inside = (np.arange(steps)[:, None] < il[None, :])[:, :, None]
    return loss, np.where(inside, grad, 0.0)


def _make_ctc_grad(xp):
    def ctc_loss_grad(lp, targets, il, tl, dloss, *, blank, zero_infinity):
        lp64, ext, skip, il, tl = _prepare(lp, targets, il, tl, blank)
        loss, grad = loss_and_grad(lp64, ext, skip, il, tl)
        if zero_infinity:
            grad = np.where(np.isinf(loss)[None, :, None], 0.0, grad)
        grad = grad * np.asarray(dloss, np.float64)[None, :, None]
        return grad.astype(lp.dtype)
    return ctc_loss_grad


def _ctc_infer(attrs, lp, targets, il, tl):
    op = "CTCLoss"
    check_float(op, "log_probs", lp.dtype)
    if len(lp.shape) != 3:
        raise ValueError(f"For '{op}', the 'log_probs' must be 3-D (T, N, C), but got shape "
                         f"{list(lp.shape)}.")
    steps, n, classes = lp.shape
    if len(targets.shape) != 2 or targets.shape[0] != n:
        raise ValueError(f"For '{op}', the 'targets' must be 2-D (N, S) with N = {n}, but got "
                         f"shape {list(targets.shape)}.")
    for arg, v in (("input_lengths", il), ("target_lengths", tl)):
        if tuple(v.shape) != (n,):
            raise ValueError(f"For '{op}', the '{arg}' must have shape [{n}], but got "
                             f"{list(v.shape)}.")
    for arg, v in (("targets", targets), ("input_lengths", il), ("target_lengths", tl)):
        if np.dtype(v.dtype).kind not in "iu":
            raise TypeError(f"For '{op}', the '{arg}' must be an integer tensor, but got "
                            f"{np.dtype(v.dtype)}.")
    if not 0 <= attrs["blank"] < classes:
        raise ValueError(f"For '{op}', the 'blank' must be in [0, {classes}), but got "
                         f"{attrs['blank']}.")
    width = 2 * targets.shape[1] + 1
    return (ShapedArray((n,), lp.dtype), ShapedArray((n, steps, width), lp.dtype))


def _check_values(lp, targets, il, tl, blank):
    steps, _, classes = lp.shape
    if np.any(il < 0) or np.any(il > steps):
        raise ValueError(f"For 'CTCLoss', the 'input_lengths' must be in [0, {steps}], but got "
                         f"{il.tolist()}.")
    if np.any(tl < 0) or np.any(tl > targets.shape[1]):
        raise ValueError(f"For 'CTCLoss', the 'target_lengths' must be in [0, "
                         f"{targets.shape[1]}], but got {tl.tolist()}.")
    used = np.arange(targets.shape[1])[None, :] < tl[:, None]
    if np.any((targets < 0) & used) or np.any((targets >= classes) & used):
        raise ValueError(f"For 'CTCLoss', the 'targets' must be in [0, {classes}).")
    if np.any((targets == blank) & used):
        raise ValueError(f"For 'CTCLoss', the 'targets' must not contain the blank label "
                         f"{blank}.")


def _checked(make):
    def make_checked(xp):
        kernel = make(xp)

        def run(lp, targets, il, tl, *rest, **attrs):
            _ctc_infer(attrs, lp, targets, il, tl)
            _check_values(lp, np.asarray(targets), np.asarray(il), np.asarray(tl),
                          attrs["blank"])
            return kernel(lp, targets, il, tl, *rest, **attrs)
        return run
    return make_checked


ctc_loss_p = P.Primitive("CTCLoss", _checked(_make_ctc), kind="opaque", n_inputs=4,
                         multiple_results=True, infer=_ctc_infer)


def _ctc_grad_infer(attrs, lp, targets, il, tl, dloss):
    _ctc_infer(attrs, lp, targets, il, tl)
    return ShapedArray(tuple(lp.shape), lp.dtype)


# no second-order rule (MindSpore has none either): nondiff, so grad-of-grad sees zeros
ctc_loss_grad_p = P.Primitive("CTCLossGrad", _checked(_make_ctc_grad), kind="opaque",
                              n_inputs=5, nondiff=True, infer=_ctc_grad_infer)


@ctc_loss_p.def_grad(inputs=(0, 1, 2, 3))
def _ctc_loss_grad(attrs, inputs, out, dout):
    lp, targets, il, tl = inputs
    dloss = dout[0] if isinstance(dout, tuple) else dout
    if dloss is None:
        return (None, None, None, None)
    return (ctc_loss_grad_p(lp, targets, il, tl, dloss, **attrs), None, None, None)
