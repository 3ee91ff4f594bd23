"""Embedding lookup with MindSpore's (PyTorch's) padding_idx: that row gets no gradient.

EmbeddingLookup gathers rows of the table; its gradient EmbeddingGrad adds the
cotangent rows back into a zero table, leaving out ``padding_idx`` (-1 when
there is none) and, with ``scale_grad_by_freq``, dividing each row by how
often it was looked up. The gradient of EmbeddingGrad is the same gather with
the same masking and scaling, written with primitives.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from .._base import dtype_name
from .. import math as M
from ..array import getitem_p
from ._common import IndexOutOfRange, validated


def _check_indices(op, idx, rows):
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= rows):
        bad = int(idx.min()) if int(idx.min()) < 0 else int(idx.max())
        raise IndexOutOfRange(f"For '{op}', every index must be in [0, {rows}), but got {bad}.")


def _make_lookup(xp):
    def embedding_lookup(weight, indices, *, padding_idx, scale_grad_by_freq):
        _check_indices("Embedding", indices, weight.shape[0])
        return xp.take(weight, indices.astype(np.intp, copy=False), axis=0)
    return embedding_lookup


def _make_grad(xp):
    def embedding_grad(dout, indices, *, num_rows, padding_idx, scale_grad_by_freq):
        idx = indices.astype(np.intp, copy=False).ravel()
        width = dout.shape[indices.ndim:]
        table = xp.zeros((num_rows,) + tuple(width), dout.dtype)
        xp.add.at(table, idx, dout.reshape((idx.size,) + tuple(width)))
        if scale_grad_by_freq:
            counts = xp.maximum(xp.bincount(idx, minlength=num_rows), 1)
            table /= counts.reshape((num_rows,) + (1,) * len(width)).astype(dout.dtype)
        if padding_idx >= 0:
            table[padding_idx] = 0
        return table
    return embedding_grad


def _check_int(op, indices):
    if np.dtype(indices.dtype).kind not in "iu":
        raise TypeError(f"For '{op}', the 'input' indices must be an integer tensor, but got "
                        f"{dtype_name(indices.dtype)}.")


def _lookup_infer(attrs, weight, indices):
    _check_int("Embedding", indices)
    if len(weight.shape) != 2:
        raise ValueError(f"For 'Embedding', the 'weight' must be 2-D, but got shape "
                         f"{list(weight.shape)}.")
    return ShapedArray(tuple(indices.shape) + (weight.shape[1],), weight.dtype)


def _grad_infer(attrs, dout, indices):
    _check_int("EmbeddingGrad", indices)
    width = tuple(dout.shape[len(indices.shape):])
    return ShapedArray((attrs["num_rows"],) + width, dout.dtype)


embedding_lookup_p = P.Primitive("EmbeddingLookup", validated(_make_lookup, _lookup_infer),
                                 kind="opaque", n_inputs=2, infer=_lookup_infer)
embedding_grad_p = P.Primitive("EmbeddingGrad", validated(_make_grad, _grad_infer),
                               kind="opaque", n_inputs=2, infer=_grad_infer)


@embedding_lookup_p.def_grad(inputs=(1,))
def _lookup_grad(attrs, inputs, out, dout):
    weight, indices = inputs
    return embedding_grad_p(dout, indices, num_rows=weight.shape[0], **attrs), None


@embedding_grad_p.def_grad(inputs=(1,))
def _grad_grad(attrs, inputs, out, c):
    _, indices = inputs
    rows = getitem_p(c, indices, spec=(("tensor", 0),))
    idx = indices.asnumpy().astype(np.intp)
    factor = np.ones(idx.shape)
    if attrs["scale_grad_by_freq"]:
        factor /= np.bincount(idx.ravel(), minlength=attrs["num_rows"])[idx]
    if attrs["padding_idx"] >= 0:
        factor[idx == attrs["padding_idx"]] = 0
    if attrs["scale_grad_by_freq"] or attrs["padding_idx"] >= 0:
        shape = idx.shape + (1,) * (len(rows.shape) - idx.ndim)
        rows = M.mul_p(rows, P.wrap(factor.reshape(shape).astype(rows._data.dtype)))
    return rows, None
