"""MindSpore's first CTCLoss primitive (TensorFlow's ``ctc_loss``): logits (T, B, C), the
labels as a sparse tensor (``labels_indices`` (K, 2) of (batch, position), ``labels_values``
(K,)), ``sequence_length`` (B,); the blank is the last class. Returns the (B,) losses and
their (T, B, C) gradient w.r.t. the logits, which is also what its gradient rule scales.

``ctc_merge_repeated=False`` forbids a label to stay across steps (only blanks repeat), as
TensorFlow does; ``preprocess_collapse_repeated`` merges repeated labels first;
``ignore_longer_outputs_than_inputs`` gives 0 loss and gradient to a sample whose labels
do not fit its input. The recursions are those of ``nn/ctc.py``.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .nn import ctc as C
from .nn._common import check_float, validated

__all__ = ["ctc_loss_v1_p"]


def _dense_labels(indices, values, batch, collapse):
    rows = [[] for _ in range(batch)]
    for (b, _), v in sorted(zip(map(tuple, indices.tolist()), values.tolist())):
        rows[b].append(int(v))
    if collapse:
        rows = [[v for j, v in enumerate(r) if j == 0 or v != r[j - 1]] for r in rows]
    lengths = np.array([len(r) for r in rows], np.int64)
    dense = np.zeros((batch, max(int(lengths.max(initial=0)), 1)), np.int64)
    for b, r in enumerate(rows):
        dense[b, :len(r)] = r
    return dense, lengths


def _make(xp):
    def ctc_loss_v1(x, indices, values, seq_len, *, preprocess_collapse_repeated,
                    ctc_merge_repeated, ignore_longer_outputs_than_inputs):
        steps, batch, classes = x.shape
        blank = classes - 1
        x64 = np.asarray(x, np.float64)
        lp = x64 - x64.max(-1, keepdims=True)
        lp = lp - np.log(np.exp(lp).sum(-1, keepdims=True))
        targets, tl = _dense_labels(np.asarray(indices), np.asarray(values), batch,
                                    preprocess_collapse_repeated)
        il = np.asarray(seq_len).astype(np.int64)
        if np.any(il < 0) or np.any(il > steps):
            raise ValueError(f"For 'CTCLoss', the 'sequence_length' must be in [0, {steps}], "
                             f"but got {il.tolist()}.")
        if np.any((targets < 0) | (targets >= blank)):
            raise ValueError(f"For 'CTCLoss', the 'labels_values' must be in [0, {blank}) "
                             f"(the last class {blank} is the blank).")
        too_long = tl > il
        if too_long.any() and not ignore_longer_outputs_than_inputs:
            raise ValueError(f"For 'CTCLoss', the labels of samples {np.flatnonzero(too_long)} "
                             f"are longer than their inputs; set "
                             f"'ignore_longer_outputs_than_inputs' to skip them.")
        ext = C._extended(targets, blank)
        stay = None if ctc_merge_repeated else (ext == blank)
        loss, grad = C.loss_and_grad(lp, ext, C._skip_allowed(ext, blank), il,
                                     np.minimum(tl, il), stay)
        loss = np.where(too_long, 0.0, loss)
        grad = np.where(too_long[None, :, None], 0.0, grad)
        return loss.astype(x.dtype), grad.astype(x.dtype)
    return ctc_loss_v1


def _infer(attrs, x, indices, values, seq_len):
    op = "CTCLoss"
    check_float(op, "x", x.dtype)
    if len(x.shape) != 3:
        raise ValueError(f"For '{op}', the 'x' must be 3-D (max_time, batch, classes), but got "
                         f"shape {list(x.shape)}.")
    batch = x.shape[1]
    if len(indices.shape) != 2 or indices.shape[1] != 2 or len(values.shape) != 1 or \
            indices.shape[0] != values.shape[0]:
        raise ValueError(f"For '{op}', the 'labels_indices' must be (K, 2) and 'labels_values' "
                         f"(K,), but got {list(indices.shape)} and {list(values.shape)}.")
    if tuple(seq_len.shape) != (batch,):
        raise ValueError(f"For '{op}', the 'sequence_length' must have shape [{batch}], but "
                         f"got {list(seq_len.shape)}.")
    for arg, v in (("labels_indices", indices), ("labels_values", values),
                   ("sequence_length", seq_len)):
        if np.dtype(v.dtype).kind not in "iu":
            raise TypeError(f"For '{op}', the '{arg}' must be an integer tensor, but got "
                            f"{np.dtype(v.dtype)}.")
    return ShapedArray((batch,), x.dtype), ShapedArray(tuple(x.shape), x.dtype)


ctc_loss_v1_p = P.Primitive(
    "CTCLossV1", validated(_make, _infer), kind="opaque", multiple_results=True, n_inputs=4,
    infer=_infer, doc="CTCLoss (TensorFlow form): (loss, gradient) of logits vs sparse labels.")


@ctc_loss_v1_p.def_grad(inputs=(), output=True)
def _ctc_loss_v1_grad(attrs, inputs, out, dout):
    from .math import mul_p
    from .array import reshape_p
    dloss = dout[0]
    if dloss is None:
        return (None, None, None, None)
    n = out[0].shape[0]
    return (mul_p(out[1], reshape_p(dloss, shape=(1, n, 1))), None, None, None)
