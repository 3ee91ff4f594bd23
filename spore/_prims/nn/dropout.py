"""Dropout: a random primitive, a pure function of its key input.

Dropout(x, key) zeroes elements with probability ``p`` and scales the rest by
1/(1-p); it also returns the keep mask (MindSpore's primitive does), which its
gradient reuses. ``channel_dims`` > 0 drops whole channels: the mask has the
first ``channel_dims`` axes of x and size 1 elsewhere (dropout1d/2d/3d).
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ..._random import generator
from .. import math as M
from ..array import cast_p
from ._common import check_float, compute_dtype, validated

_BOOL = np.dtype(np.bool_)


def mask_shape(shape, channel_dims):
    if not channel_dims:
        return tuple(shape)
    return tuple(shape[:channel_dims]) + (1,) * (len(shape) - channel_dims)


def _keep_mask(key, shape, p):
    """Each element kept with probability 1 - p, from 16 random bits per element: four
    per raw 64-bit Philox draw, five times faster than float uniforms; p is resolved to
    1/65536."""
    size = math.prod(shape)
    bits = generator(key).bit_generator.random_raw(-(-size // 4)).view(np.uint16)[:size]
    return (bits >= np.uint16(min(round(p * 65536), 65535))).reshape(shape)


def _make_dropout(xp):
    def dropout(x, key, *, p, channel_dims):
        keep = xp.asarray(_keep_mask(key, mask_shape(x.shape, channel_dims), p))
        y = xp.multiply(x.astype(compute_dtype(x.dtype), copy=False), keep)
        y *= 1.0 / (1.0 - p)
        return y.astype(x.dtype, copy=False), keep
    return dropout


def _dropout_infer(attrs, x, key):
    check_float("Dropout", "x", x.dtype)
    if tuple(key.shape) != (2,) or np.dtype(key.dtype) != np.uint64:
        raise TypeError("For 'Dropout', the 'key' must be a UInt64 tensor of shape [2].")
    if not 0.0 <= attrs["p"] < 1.0:
        raise ValueError(f"For 'Dropout', the 'p' must be in range [0, 1), but got "
                         f"{attrs['p']}.")
    return (ShapedArray(x.shape, x.dtype),
            ShapedArray(mask_shape(x.shape, attrs["channel_dims"]), _BOOL))


dropout_p = P.Primitive("Dropout", validated(_make_dropout, _dropout_infer), kind="opaque",
                        effect="random", n_inputs=2, multiple_results=True,
                        infer=_dropout_infer)


@dropout_p.def_grad(inputs=(), output=True)
def _dropout_grad(attrs, inputs, out, douts):
    dy = douts[0]
    if dy is None:
        return None, None
    scale = M.mul_p(cast_p(out[1], dtype=np.dtype(dy._data.dtype)), 1.0 / (1.0 - attrs["p"]))
    return M.mul_p(dy, scale), None
