"""Max, average and adaptive pooling (MindSpore 2.10 signatures).

The functional forms take PyTorch-style ``padding``/``ceil_mode``; a keyword
``pad_mode`` ('valid' | 'same' | 'pad') gives the semantics of MindSpore's
``MaxPool``/``AvgPool`` primitives and ``nn`` pooling layers instead ('same':
output ``ceil(in / stride)``, padding not counted by the average). 1-D and
3-D (unbatched) inputs run through the 2-D primitives.
"""
from __future__ import annotations

import numpy as np

from ..._core import primitive as P
from ..._prims import math as M
from ..._prims.array import cast_p, gather_d_p, getitem_p, reshape_p, transpose_p
from ..._prims.linalg import matmul_p
from ..._prims.nn import avg_pool2d_p, max_pool2d_p
from ..._prims.reduce import amax_p, argmax_p, mean_p
from .._utils import public_functions
from ._args import (ceil_extension, check_pad_mode, explicit_pads, int_tuple, is_int, positive,
                    require_rank, same_pads)

_INT64 = np.dtype(np.int64)


def _as_4d(op, x, ranks=(3, 4)):
    """(N, C, H, W) view of a 4-D or unbatched 3-D input, and how to undo it."""
    require_rank(op, "input", x, ranks)
    if x.ndim == 4:
        return x, lambda y: y
    return reshape_p(x, shape=(1,) + x.shape), lambda y: reshape_p(y, shape=y.shape[1:])


def _pool_pads(op, hw, kernel, stride, padding, dilation, ceil_mode, pad_mode):
    """(pads incl. ceil extension, pads counted by an average) for the functional forms."""
    if pad_mode is not None and check_pad_mode(op, pad_mode) != "pad":
        if pad_mode == "valid":
            return (0, 0, 0, 0), (0, 0, 0, 0)
        return same_pads(hw, kernel, stride, dilation), (0, 0, 0, 0)
    pads = explicit_pads(op, padding)
    for k, d, lo, hi in zip(kernel, dilation, pads[::2], pads[1::2]):
        if 2 * max(lo, hi) > d * (k - 1) + 1:
            raise ValueError(f"For '{op}', it is required that the `pads` is no more than "
                             f"half of the `kernel_size`, but gets pads{pads} and "
                             f"kernel_size{kernel}.")
    if not ceil_mode:
        return pads, pads
    ext = [ceil_extension(size, k, s, lo, hi, d) for size, k, s, lo, hi, d in
           zip(hw, kernel, stride, pads[::2], pads[1::2], dilation)]
    return (pads[0], pads[1] + ext[0], pads[2], pads[3] + ext[1]), pads


def _window(op, kernel_size, stride, dilation=1):
    kernel = positive(op, "kernel_size", int_tuple(op, "kernel_size", kernel_size, 2))
    stride = kernel if stride is None else positive(op, "stride",
                                                    int_tuple(op, "stride", stride, 2))
    return kernel, stride, positive(op, "dilation", int_tuple(op, "dilation", dilation, 2))


# ----------------------------------------------------------------- max pooling
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False, *, pad_mode=None):
    r"""2-D max pooling of a (N, C, H, W) (or unbatched (C, H, W)) input.

    Args:
        kernel_size (int or tuple), stride (int or tuple): default ``kernel_size``.
        padding (int or tuple): int, (pad_h, pad_w) or (top, bottom, left, right); padded
            positions never win. At most half the kernel.
        dilation (int or tuple), ceil_mode (bool): as in PyTorch.
        return_indices (bool): also return the flat ``h * W + w`` index (Int64) of each
            maximum in its input plane.
        pad_mode (str, keyword only): MindSpore's 'valid' / 'same' / 'pad' semantics
            (used by ``ops.MaxPool`` and ``nn.MaxPool2d``).

    Returns:
        Tensor, or (Tensor, Tensor) with ``return_indices``.
    """
    op = "max_pool2d"
    x4, undo = _as_4d(op, x)
    kernel, stride, dilation = _window(op, kernel_size, stride, dilation)
    pads, _ = _pool_pads(op, x4.shape[2:], kernel, stride, padding, dilation, ceil_mode,
                         pad_mode)
    attrs = dict(kernel=kernel, stride=stride, pads=pads, dilation=dilation)
    y, won = max_pool2d_p(x4, **attrs)
    if not return_indices:
        return undo(y)
    return undo(y), undo(_flat_indices(won, x4.shape[3], attrs))


def _flat_indices(won, width, attrs):
    """Flat ``h * W + w`` input index of each window's winning tap (Int64)."""
    kw = attrs["kernel"][1]
    (sh, sw), (dh, dw) = attrs["stride"], attrs["dilation"]
    pt, _, pl, _ = attrs["pads"]
    oh, ow = won.shape[2:]
    tap = cast_p(won, dtype=_INT64)
    row0 = P.wrap((np.arange(oh, dtype=np.int64) * sh - pt)[:, None])
    col0 = P.wrap(np.arange(ow, dtype=np.int64) * sw - pl)
    rows = M.add_p(row0, M.mul_p(M.floor_div_p(tap, kw), dh))
    cols = M.add_p(col0, M.mul_p(M.mod_p(tap, kw), dw))
    return M.add_p(M.mul_p(rows, width), cols)


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False, *, pad_mode=None):
    """1-D max pooling of a (N, C, L) (or (C, L)) input; indices are positions along L."""
    op = "max_pool1d"
    require_rank(op, "input", x, (2, 3))
    x2 = reshape_p(x, shape=x.shape[:-1] + (1, x.shape[-1]))
    k, s, d = (int_tuple(op, a, v, 1)[0] if v is not None else None
               for a, v in (("kernel_size", kernel_size), ("stride", stride),
                            ("dilation", dilation)))
    p = int_tuple(op, "padding", padding, 2)
    out = max_pool2d(x2, (1, k), None if s is None else (1, s), (0, 0) + p, (1, d),
                     return_indices, ceil_mode, pad_mode=pad_mode)
    squeeze = (lambda t: reshape_p(t, shape=t.shape[:-2] + t.shape[-1:]))
    return tuple(squeeze(t) for t in out) if return_indices else squeeze(out)


# ----------------------------------------------------------------- average pooling
def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0, *, pad_mode=None):
    r"""2-D average pooling of a (N, C, H, W) (or unbatched (C, H, W)) input.

    Args:
        kernel_size (int or tuple): Default ``1``. stride (int or tuple): Default ``1``.
        padding (int or tuple): int, (pad_h, pad_w) or (top, bottom, left, right).
        ceil_mode (bool): windows may run past the end (they must start inside).
        count_include_pad (bool): whether zero padding counts in the divisor (the ceil-mode
            overhang never does).
        divisor_override (int): divide by this instead (``0`` or None: off).
        pad_mode (str, keyword only): MindSpore's 'valid' / 'same' / 'pad' semantics.
    """
    op = "avg_pool2d"
    x4, undo = _as_4d(op, input_x)
    kernel, stride, _ = _window(op, kernel_size, stride)
    pads, user = _pool_pads(op, x4.shape[2:], kernel, stride, padding, (1, 1), ceil_mode,
                            pad_mode)
    if divisor_override is not None and not is_int(divisor_override):
        raise TypeError(f"For '{op}', the 'divisor_override' must be an int, but got "
                        f"{divisor_override!r}.")
    counted = user if count_include_pad else (0, 0, 0, 0)
    y = avg_pool2d_p(x4, kernel=kernel, stride=stride, pads=pads, count_pads=counted,
                     divisor=int(divisor_override or 0))
    return undo(y)


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling of a (N, C, L) input; ``padding`` is an int or (left, right)."""
    op = "avg_pool1d"
    require_rank(op, "input_x", input_x, (3,))
    x4 = reshape_p(input_x, shape=input_x.shape[:2] + (1, input_x.shape[2]))
    k = int_tuple(op, "kernel_size", kernel_size, 1)[0]
    s = int_tuple(op, "stride", stride, 1)[0]
    y = avg_pool2d(x4, (1, k), (1, s), (0, 0) + int_tuple(op, "padding", padding, 2),
                   ceil_mode, count_include_pad)
    return reshape_p(y, shape=y.shape[:2] + y.shape[3:])


# ----------------------------------------------------------------- adaptive pooling
def _output_hw(op, output_size, hw):
    if output_size is None or is_int(output_size):
        sizes = (output_size, output_size)
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 2:
        sizes = tuple(output_size)
    else:
        raise ValueError(f"For '{op}', the 'output_size' must be an int or a tuple of 2 ints "
                         f"(None keeps a size), but got {output_size!r}.")
    out = tuple(size if o is None else o for o, size in zip(sizes, hw))
    if not all(is_int(o) and o > 0 for o in out):
        raise ValueError(f"For '{op}', the 'output_size' must be positive, but got "
                         f"{output_size!r}.")
    return tuple(int(o) for o in out)


def _bins(size, out):
    """PyTorch/MindSpore adaptive windows: [floor(i*size/out), ceil((i+1)*size/out))."""
    i = np.arange(out)
    return (i * size) // out, -(-((i + 1) * size) // out)


def _averaging_matrix(size, out, dtype):
    start, end = _bins(size, out)
    cols = np.arange(size)
    inside = (cols >= start[:, None]) & (cols < end[:, None])
    return inside / (end - start)[:, None].astype(dtype)


def adaptive_avg_pool2d(input, output_size):
    """Average over adaptive windows so the output is ``output_size`` (None keeps a size)."""
    op = "adaptive_avg_pool2d"
    x, undo = _as_4d(op, input)
    n, c, h, w = x.shape
    oh, ow = _output_hw(op, output_size, (h, w))
    if h % oh == 0 and w % ow == 0:
        blocks = reshape_p(x, shape=(n, c, oh, h // oh, ow, w // ow))
        return undo(mean_p(blocks, axis=(3, 5), keepdims=False))
    dt = np.dtype(x._data.dtype)
    rows = P.wrap(_averaging_matrix(h, oh, dt).astype(dt))
    cols = P.wrap(_averaging_matrix(w, ow, dt).T.astype(dt))
    return undo(matmul_p(matmul_p(rows, x), cols))


def adaptive_avg_pool1d(input, output_size):
    """Average over adaptive windows of a (N, C, L) input."""
    require_rank("adaptive_avg_pool1d", "input", input, (3,))
    x4 = reshape_p(input, shape=input.shape[:2] + (1, input.shape[2]))
    y = adaptive_avg_pool2d(x4, (1, output_size))
    return reshape_p(y, shape=y.shape[:2] + y.shape[3:])


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows; with ``return_indices`` also the flat ``h * W + w`` index
    (Int64) of each maximum."""
    op = "adaptive_max_pool2d"
    x, undo = _as_4d(op, input)
    h, w = x.shape[2:]
    oh, ow = _output_hw(op, output_size, (h, w))
    if h % oh == 0 and w % ow == 0:
        out = max_pool2d(x, (h // oh, w // ow), return_indices=return_indices)
    else:
        out = _adaptive_max_gather(x, oh, ow, return_indices)
    return tuple(undo(t) for t in out) if return_indices else undo(out)


def _window_table(size, out):
    """(out, kmax) input positions of each adaptive window, short windows padded with their
    own last position (a repeated element never changes a maximum)."""
    start, end = _bins(size, out)
    offsets = np.arange(int((end - start).max()))
    return np.minimum(start[:, None] + offsets, end[:, None] - 1)


def _adaptive_max_gather(x, oh, ow, return_indices):
    n, c, h, w = x.shape
    rows, cols = _window_table(h, oh), _window_table(w, ow)
    kh, kw = rows.shape[1], cols.shape[1]
    idx_r = P.wrap(rows.reshape(oh, kh, 1, 1))
    idx_c = P.wrap(cols.reshape(1, 1, ow, kw))
    win = getitem_p(x, idx_r, idx_c, spec=(("ellipsis",), ("tensor", 0), ("tensor", 1)))
    win = reshape_p(transpose_p(win, perm=(0, 1, 2, 4, 3, 5)), shape=(n, c, oh, ow, kh * kw))
    values = amax_p(win, axis=(4,), keepdims=False)
    if not return_indices:
        return values
    flat = (rows[:, None, :, None] * w + cols[None, :, None, :]).reshape(oh, ow, kh * kw)
    table = P.wrap(np.ascontiguousarray(np.broadcast_to(flat, (n, c, oh, ow, kh * kw))))
    pick = argmax_p(win, axis=4, keepdims=True)
    index = gather_d_p(table, pick, axis=4)
    return values, reshape_p(index, shape=(n, c, oh, ow))


def adaptive_max_pool1d(input, output_size):
    """Max over adaptive windows of a (N, C, L) input."""
    require_rank("adaptive_max_pool1d", "input", input, (3,))
    x4 = reshape_p(input, shape=input.shape[:2] + (1, input.shape[2]))
    y = adaptive_max_pool2d(x4, (1, output_size))
    return reshape_p(y, shape=y.shape[:2] + y.shape[3:])



# ----------------------------------------------------------------- power-average pooling
def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    r"""Power-average pooling: :math:`(\sum_{window} x^p)^{1/p}` over 2-D windows (a window
    cut short by ``ceil_mode`` is scaled up to the full kernel size, as in MindSpore)."""
    op = "lp_pool2d"
    x4, undo = _as_4d(op, x)
    kernel, stride, _ = _window(op, kernel_size, stride)
    return undo(_lp_pool(x4, float(norm_type), kernel, stride, ceil_mode))


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over 1-D windows of a (N, C, L) or (C, L) input."""
    op = "lp_pool1d"
    require_rank(op, "x", x, (2, 3))
    k = int_tuple(op, "kernel_size", kernel_size, 1)[0]
    s = k if stride is None else int_tuple(op, "stride", stride, 1)[0]
    x4 = reshape_p(x, shape=(1,) * (3 - x.ndim) + x.shape[:-1] + (1, x.shape[-1]))
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)):
        raise TypeError(f"For 'lp_pool1d', the 'norm_type' must be a number, but got "
                        f"{type(norm_type).__name__}.")
    y = _lp_pool(x4, float(norm_type), (1, k), (1, s), ceil_mode)
    return reshape_p(y, shape=x.shape[:-1] + (y.shape[-1],))


def _lp_pool(x, p, kernel, stride, ceil_mode):
    pads, _ = _pool_pads("lp_pool2d", x.shape[2:], kernel, stride, 0, (1, 1), ceil_mode, None)
    mean = avg_pool2d_p(M.pow_p(x, p), kernel=kernel, stride=stride, pads=pads,
                        count_pads=(0, 0, 0, 0), divisor=0)
    total = M.mul_p(M.mul_p(M.sign_p(mean), M.relu_p(M.abs_p(mean))), kernel[0] * kernel[1])
    return M.pow_p(total, 1.0 / p)


__all__ = public_functions(globals(), __name__)
