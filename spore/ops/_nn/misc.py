"""embedding, interpolate/upsample and pixel_shuffle/pixel_unshuffle.

interpolate is separable: linear, bilinear, bicubic and area resizing apply a
small (out, in) weight matrix along each spatial axis with a matmul, nearest
modes gather rows and columns, so every mode is differentiable through
existing primitives.
"""
from __future__ import annotations

import math

import numpy as np

from ..._core import primitive as P
from ..._prims import math as M
from ..._prims.array import getitem_p, reshape_p, setitem_p, transpose_p
from ..._prims.linalg import matmul_p
from ..._prims.nn import embedding_lookup_p
from ..._prims.reduce import sum_p
from ..._prims.special import stop_gradient_p
from .._utils import public_functions
from ._args import is_int, require_rank, require_tensor


# ----------------------------------------------------------------- embedding
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    """Rows of ``weight`` (num, dim) at the integer ``input`` indices.

    ``padding_idx``: that row receives no gradient. ``max_norm``: rows looked up whose
    ``norm_type``-norm exceeds it are rescaled to it, in place (as in MindSpore and
    PyTorch). ``scale_grad_by_freq``: each row's gradient is divided by how often it
    occurs in ``input``.
    """
    op = "embedding"
    require_tensor(op, "input", input)
    require_rank(op, "weight", weight, (2,))
    rows = weight.shape[0]
    pad = -1
    if padding_idx is not None:
        if not is_int(padding_idx) or not -rows <= padding_idx < rows:
            raise ValueError(f"For '{op}', the 'padding_idx' must be an int in [{-rows}, "
                             f"{rows}), but got {padding_idx}.")
        pad = int(padding_idx) % rows
    if max_norm is not None:
        for arg, v in (("max_norm", max_norm), ("norm_type", norm_type)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'embedding', the '{arg}' must be a number, but got "
                                f"{type(v).__name__}.")
        _renorm_rows(weight, input, float(max_norm), float(norm_type))
    return embedding_lookup_p(weight, input, padding_idx=pad,
                              scale_grad_by_freq=bool(scale_grad_by_freq))


def _renorm_rows(weight, input, max_norm, norm_type):
    """Rescale, in place and outside autodiff, the looked-up rows whose norm exceeds
    max_norm."""
    idx = P.wrap(np.unique(input.asnumpy().astype(np.int64)))
    spec = (("tensor", 0),)
    picked = stop_gradient_p(getitem_p(weight, idx, spec=spec))
    norms = M.pow_p(sum_p(M.pow_p(M.abs_p(picked), norm_type), axis=(1,), keepdims=True),
                    1.0 / norm_type)
    scale = M.where_p(M.greater_p(norms, max_norm), M.div_p(max_norm, M.add_p(norms, 1e-7)),
                      1.0)
    setitem_p(weight, M.mul_p(picked, scale), idx, spec=spec)


# ----------------------------------------------------------------- pixel shuffle
def pixel_shuffle(input, upscale_factor):
    """(*, C * r^2, H, W) -> (*, C, H * r, W * r)."""
    op = "pixel_shuffle"
    r = _factor(op, "upscale_factor", upscale_factor)
    _require_3d(op, input)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"For '{op}', the length of third to last dimension is not divisible"
                         f"by `upscale_factor` squared.")
    lead = tuple(lead)
    k = len(lead)
    x = reshape_p(input, shape=lead + (c // (r * r), r, r, h, w))
    perm = tuple(range(k)) + tuple(k + i for i in (0, 3, 1, 4, 2))
    return reshape_p(transpose_p(x, perm=perm), shape=lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r^2, H, W)."""
    op = "pixel_unshuffle"
    r = _factor(op, "downscale_factor", downscale_factor)
    _require_3d(op, input)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"For '{op}', the height and width ({h}, {w}) must be divisible by "
                         f"'downscale_factor' {r}.")
    lead = tuple(lead)
    k = len(lead)
    x = reshape_p(input, shape=lead + (c, h // r, r, w // r, r))
    perm = tuple(range(k)) + tuple(k + i for i in (0, 2, 4, 1, 3))
    return reshape_p(transpose_p(x, perm=perm), shape=lead + (c * r * r, h // r, w // r))


def _factor(op, arg, r):
    if not is_int(r) or r <= 0:
        raise ValueError(f"For '{op}', the '{arg}' must be a positive int, but got {r!r}.")
    return int(r)


def _require_3d(op, x):
    require_tensor(op, "input", x)
    if x.ndim < 3:
        raise ValueError(f"For '{op}', the 'input' must have at least 3 dimensions, but got "
                         f"{x.ndim}.")


# ----------------------------------------------------------------- interpolate
_LINEAR = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    r"""Resize the spatial axes (all axes after the first two) of ``input``.

    Args:
        size (int or tuple): output spatial size; or
        scale_factor (float or tuple): output size ``floor(in * scale_factor)``; unless
            ``recompute_scale_factor`` is True the coordinates use ``1 / scale_factor``.
        mode (str): 'nearest' (``src = floor(dst * in / out)``), 'nearest-exact',
            'linear' (3-D input), 'bilinear' / 'bicubic' (4-D; bicubic as MindSpore's
            TensorFlow-style kernel), 'trilinear' (5-D), 'area'.
        align_corners (bool): linear modes only: map corner pixels onto each other
            (default False: half-pixel centres).
    """
    op = "interpolate"
    require_tensor(op, "input", input)
    if mode not in _MODES:
        raise ValueError(f"For '{op}', the 'mode' must be one of {list(_MODES)}, but got "
                         f"{mode!r}.")
    spatial = input.ndim - 2
    if spatial < 1 or (mode in _LINEAR and _LINEAR[mode] != spatial):
        raise ValueError(f"For '{op}', mode '{mode}' does not support a {input.ndim}-D input "
                         f"(shape {list(input.shape)}).")
    if align_corners is not None and mode not in _LINEAR:
        raise ValueError(f"For '{op}', 'align_corners' option cannot currently be set with "
                         f"the mode = {mode}, and dim = {input.ndim}D")
    out, scales = _target(op, input.shape[2:], size, scale_factor, recompute_scale_factor)
    x = input
    for axis, (n_in, n_out, scale) in enumerate(zip(input.shape[2:], out, scales), start=2):
        if n_in != n_out or scale is not None:
            x = _resize_axis(x, axis, n_in, n_out, scale, mode, bool(align_corners))
    return x


upsample = interpolate


def _target(op, in_size, size, scale_factor, recompute):
    """Output sizes, and the coordinate scales (in/out per axis, None: use the sizes)."""
    n = len(in_size)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"For '{op}', 'size' and 'scale_factor' cannot be set simultaneously"
                         if size is not None else
                         f"For '{op}', 'size' and 'scale_factor' cannot be both empty")
    if size is not None:
        sizes = (size,) * n if is_int(size) else tuple(size)
        if len(sizes) != n or not all(is_int(s) and s > 0 for s in sizes):
            raise ValueError(f"For '{op}', the 'size' must be a positive int or a tuple of {n} "
                             f"positive ints, but got {size!r}.")
        return tuple(int(s) for s in sizes), (None,) * n
    factors = (scale_factor,) * n if not isinstance(scale_factor, (tuple, list)) \
        else tuple(scale_factor)
    if len(factors) != n or not all(float(f) > 0 for f in factors):
        raise ValueError(f"For '{op}', the 'scale_factor' must be a positive float or a tuple "
                         f"of {n}, but got {scale_factor!r}.")
    out = tuple(int(math.floor(s * float(f))) for s, f in zip(in_size, factors))
    scales = (None,) * n if recompute else tuple(1.0 / float(f) for f in factors)
    return out, scales


def _resize_axis(x, axis, n_in, n_out, scale, mode, align_corners):
    if mode.startswith("nearest"):
        idx = _nearest_index(n_in, n_out, scale, exact=mode == "nearest-exact")
        spec = (("slice", None, None, None),) * axis + (("tensor", 0),)
        return getitem_p(x, P.wrap(idx), spec=spec)
    dt = np.dtype(x._data.dtype)
    if mode == "area":
        from .pool import _averaging_matrix
        weights = _averaging_matrix(n_in, n_out, dt)
    else:
        weights = _interp_matrix(n_in, n_out, scale, align_corners, cubic=mode == "bicubic")
    return _apply_along(x, axis, P.wrap(weights.astype(dt)))


def _source(n_in, n_out, scale, align_corners):
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        return dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    ratio = n_in / n_out if scale is None else scale
    return (dst + 0.5) * ratio - 0.5


def _nearest_index(n_in, n_out, scale, exact):
    ratio = n_in / n_out if scale is None else scale
    dst = np.arange(n_out, dtype=np.float64)
    src = np.floor((dst + 0.5) * ratio) if exact else np.floor(dst * ratio)
    return np.minimum(src.astype(np.int64), n_in - 1)


def _interp_matrix(n_in, n_out, scale, align_corners, cubic):
    """(n_out, n_in) interpolation weights (rows sum to 1; edges clamped)."""
    if cubic:
        return _bicubic_matrix(n_in, n_out, align_corners)
    src = np.maximum(_source(n_in, n_out, scale, align_corners), 0.0)
    weights = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    np.add.at(weights, (rows, lo), 1.0 - frac)
    np.add.at(weights, (rows, hi), frac)
    return weights


# MindSpore's bicubic mode runs its ResizeBicubic kernel, which follows TensorFlow's
# resize_bicubic rather than PyTorch: the fractional offset is rounded to 1/1024 (the
# kernel reads its weights from a table), half-pixel centres use Keys' a = -0.5 and give
# taps outside the image no weight (the rest renormalised), align_corners uses a = -0.75
# and repeats the edge pixel.
_CUBIC_TABLE = 1024


def _bicubic_matrix(n_in, n_out, align_corners):
    if align_corners and n_out > 1:
        scale = (n_in - 1) / (n_out - 1)
    else:
        scale = n_in / n_out
    dst = np.arange(n_out, dtype=np.float64)
    src = dst * scale if align_corners else (dst + 0.5) * scale - 0.5
    base = np.floor(src).astype(np.int64)
    t = np.rint((src - base) * _CUBIC_TABLE) / _CUBIC_TABLE
    taps = base[:, None] + np.arange(-1, 3)
    weights = np.stack(_cubic_weights(t, -0.75 if align_corners else -0.5), axis=1)
    clamped = np.clip(taps, 0, n_in - 1)
    if not align_corners:
        weights = np.where(clamped == taps, weights, 0.0)
        weights /= weights.sum(axis=1, keepdims=True)
    matrix = np.zeros((n_out, n_in))
    np.add.at(matrix, (np.repeat(np.arange(n_out), 4), clamped.ravel()), weights.ravel())
    return matrix


def _cubic_weights(t, a):
    """Keys' cubic convolution weights for taps at offsets -1, 0, 1, 2 from the sample."""
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _apply_along(x, axis, weights):
    """Contract ``weights`` (out, in) with axis ``axis`` of x (a matmul on the last axis)."""
    last = x.ndim - 1
    if axis == last:
        return matmul_p(x, transpose_p(weights, perm=(1, 0)))
    perm = tuple(i for i in range(x.ndim) if i != axis) + (axis,)
    moved = matmul_p(transpose_p(x, perm=perm), transpose_p(weights, perm=(1, 0)))
    inverse = tuple(int(i) for i in np.argsort(perm))
    return transpose_p(moved, perm=inverse)


__all__ = public_functions(globals(), __name__)
