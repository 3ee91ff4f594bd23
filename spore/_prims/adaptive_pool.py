"""The arg-max primitive of adaptive 3-D max pooling: for each adaptive window (PyTorch's
bounds ``[floor(i*size/out), ceil((i+1)*size/out))``) the flat D*H*W index of its maximum.
No gradient (an index); ``ops.adaptive_max_pool3d`` gathers the values with it, so the
gradient flows through the gather."""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray

__all__ = ["adaptive_argmax3d_p", "adaptive_bounds"]


def adaptive_bounds(size, out):
    """The adaptive windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _window_argmax(xp, x, outs):
    """Flat (over the last three axes) indices of each adaptive window's maximum (the first
    one on ties; NaN wins)."""
    d, h, w = x.shape[-3:]
    lead = x.shape[:-3]
    index = np.zeros(lead + tuple(outs), np.int64)
    for i, (d0, d1) in enumerate(adaptive_bounds(d, outs[0])):
        for j, (h0, h1) in enumerate(adaptive_bounds(h, outs[1])):
            for k, (w0, w1) in enumerate(adaptive_bounds(w, outs[2])):
                win = x[..., d0:d1, h0:h1, w0:w1].reshape(lead + (-1,))
                pos = np.where(np.isnan(win).any(-1), np.isnan(win).argmax(-1), win.argmax(-1))
                dd, hh, ww = np.unravel_index(pos, (d1 - d0, h1 - h0, w1 - w0))
                index[..., i, j, k] = ((dd + d0) * h + hh + h0) * w + ww + w0
    return index


def _make_adaptive_argmax3d(xp):
    def kernel(x, output_size):
        return _window_argmax(xp, np.asarray(x), output_size)
    return kernel


def _adaptive_argmax3d_infer(attrs, x):
    return ShapedArray(tuple(x.shape[:-3]) + tuple(attrs["output_size"]), np.dtype(np.int64))


adaptive_argmax3d_p = P.Primitive(
    "AdaptiveMaxPool3DArgmax", _make_adaptive_argmax3d, kind="opaque", nondiff=True,
    n_inputs=1, infer=_adaptive_argmax3d_infer,
    doc="AdaptiveMaxPool3DArgmax(x; output_size): flat arg-max index of each window.")


