"""Neural-network functions of ``mindspore.ops`` added for the 2.10 surface: fused
normalisations (``add_rms_norm``, ``add_layer_norm``), ``rotary_position_embedding``,
``mse_loss_ext``, 3-D adaptive pooling, 3-D grid sampling, ``col2im``, the resize kernels
of the ``Resize*`` primitives, and max pooling with arg-max indices.

All are composites of existing primitives (matmuls against constant interpolation
matrices, gathers, reductions, elementwise math), so gradients, ``vmap`` and graph capture
come from those primitives.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims.adaptive_pool import adaptive_argmax3d_p, adaptive_bounds as _bounds
from ._nn.misc import _apply_along, _bicubic_matrix, _interp_matrix
from ._nn_more import _ops, _tensor, _grid_sample_args
from ._nn_more import _source as _grid_source

_Tensor = P._Tensor


def _float_tensor(name, arg, value):
    _tensor(name, arg, value)
    if not value.dtype.is_floating_point:
        raise TypeError(f"For '{name}', the '{arg}' must be a floating-point Tensor, but got "
                        f"{value.dtype}.")
    return value


def _epsilon(name, epsilon):
    if not isinstance(epsilon, float) or not (0 < epsilon <= 1):
        raise ValueError(f"For '{name}', the 'epsilon' must be a float in (0, 1], but got "
                         f"{epsilon!r}.")
    return epsilon


# ----------------------------------------------------------------- normalisation
def add_rms_norm(x1, x2, gamma, epsilon=1e-6):
    """``x = x1 + x2`` then ``rms_norm(x, gamma, epsilon)``: returns ``(y, rstd, x)``
    (``rstd`` in Float32, the normalised axes kept with size 1)."""
    name = "add_rms_norm"
    _float_tensor(name, "x1", x1)
    _float_tensor(name, "x2", x2)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"For '{name}', the shapes of 'x1' and 'x2' must be the same, but got "
                         f"{list(x1.shape)} and {list(x2.shape)}.")
    x = x1 + x2
    y, rstd = _ops().rms_norm(x, gamma, _epsilon(name, epsilon))
    return y, rstd, x


def add_layer_norm(x1, x2, gamma, beta, epsilon=1e-5, additional_output=False):
    """``x = x1 + x2`` then layer normalisation over the last axis:
    ``(x - mean) * rstd * gamma + beta``. Returns ``(y, mean, rstd, x)``; ``mean`` and
    ``rstd`` keep the last axis with size 1 (Float32)."""
    name = "add_layer_norm"
    ops = _ops()
    for arg, v in (("x1", x1), ("x2", x2), ("gamma", gamma), ("beta", beta)):
        _float_tensor(name, arg, v)
    if not isinstance(epsilon, float):
        raise TypeError(f"For '{name}', the 'epsilon' must be a float, but got "
                        f"{type(epsilon).__name__}.")
    if not isinstance(additional_output, bool):
        raise TypeError(f"For '{name}', the 'additional_output' must be a bool, but got "
                        f"{type(additional_output).__name__}.")
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"For '{name}', the shapes of 'x1' and 'x2' must be the same, but got "
                         f"{list(x1.shape)} and {list(x2.shape)}.")
    for arg, v in (("gamma", gamma), ("beta", beta)):
        if tuple(v.shape) != tuple(x1.shape[-1:]):
            raise ValueError(f"For '{name}', the '{arg}' must have shape {list(x1.shape[-1:])} "
                             f"(the last axis of 'x1'), but got {list(v.shape)}.")
    x = x1 + x2
    xf = x.astype(D.float32) if x.dtype != D.float64 else x
    mean = xf.mean(-1, keep_dims=True)
    centred = xf - mean
    rstd = ops.rsqrt(ops.square(centred).mean(-1, keep_dims=True) + epsilon)
    y = (centred * rstd).astype(x.dtype) * gamma + beta
    return y, mean, rstd, x


def rotary_position_embedding(x, cos, sin, mode=0):
    """Rotary position embedding ``x * cos + rotate(x) * sin`` over the last axis (of even
    size D): mode 0 rotates halves (``[-x2, x1]``, GPT-NeoX), mode 1 interleaved pairs
    (``[-x1, x0, -x3, x2, ...]``, GPT-J). ``cos`` and ``sin`` broadcast against ``x``."""
    name = "rotary_position_embedding"
    ops = _ops()
    _tensor(name, "x", x, (4,))
    _tensor(name, "cos", cos, (4,))
    _tensor(name, "sin", sin, (4,))
    if not isinstance(mode, int) or isinstance(mode, bool):
        raise TypeError(f"For '{name}', the 'mode' must be an int, but got "
                        f"{type(mode).__name__}.")
    if mode not in (0, 1):
        raise ValueError(f"For '{name}', the 'mode' must be 0 or 1, but got {mode}.")
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"For '{name}', the last dimension of 'x' must be even, but got {d}.")
    if mode == 0:
        first, second = x[..., :d // 2], x[..., d // 2:]
        rotated = ops.cat((-second, first), -1)
    else:
        pairs = x.reshape(tuple(x.shape[:-1]) + (d // 2, 2))
        rotated = ops.stack((-pairs[..., 1], pairs[..., 0]), -1).reshape(tuple(x.shape))
    return x * cos + rotated * sin


def mse_loss_ext(input, target, reduction="mean"):
    """``(input - target) ** 2`` (broadcast), reduced by ``reduction`` ('mean', 'sum',
    'none'); ``input`` and ``target`` must share a dtype."""
    name = "mse_loss_ext"
    _tensor(name, "input", input)
    _tensor(name, "target", target)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"For '{name}', the 'reduction' must be 'mean', 'sum' or 'none', but "
                         f"got {reduction!r}.")
    if input.dtype != target.dtype:
        raise TypeError(f"For '{name}', the 'input' and 'target' must have the same dtype, but "
                        f"got {input.dtype} and {target.dtype}.")
    loss = _ops().square(input - target)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def log_softmax_ext(input, dim=None, dtype=None):
    """``log_softmax`` along ``dim`` (None: 0 for 0-D/1-D/3-D input, else 1, as PyTorch's
    legacy rule), computed in ``dtype`` when given."""
    name = "log_softmax_ext"
    _tensor(name, "input", input)
    x = input if dtype is None else input.astype(dtype)
    if dim is None:
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _ops().log_softmax(x, dim)


# ----------------------------------------------------------------- adaptive 3-D pooling
def _adaptive_sizes(name, x, output_size):
    if isinstance(output_size, _Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    sizes = tuple(x.shape[-3:])
    outs = (output_size,) * 3 if isinstance(output_size, int) else tuple(output_size)
    if len(outs) != 3 or not all(o is None or (isinstance(o, (int, np.integer)) and o > 0)
                                 for o in outs):
        raise ValueError(f"For '{name}', the 'output_size' must be a positive int or three "
                         f"positive ints (or None), but got {output_size!r}.")
    return tuple(s if o is None else int(o) for s, o in zip(sizes, outs))


def adaptive_avg_pool3d(input, output_size):
    """3-D adaptive average pooling of (N, C, D, H, W) or (C, D, H, W) ``input`` to
    ``output_size`` (an int, or three ints or None for "keep the input size")."""
    name = "adaptive_avg_pool3d"
    x = _float_tensor(name, "input", _tensor(name, "input", input, (4, 5)))
    outs = _adaptive_sizes(name, x, output_size)
    for axis, (size, out) in enumerate(zip(x.shape[-3:], outs)):
        if size != out:
            weights = np.zeros((out, size))
            for i, (a, b) in enumerate(_bounds(size, out)):
                weights[i, a:b] = 1.0 / (b - a)
            x = _apply_along(x, x.ndim - 3 + axis, P.wrap(weights.astype(x.dtype.np)))
    return x


def take_flat(x, index, spatial):
    """The values of ``x`` at ``index``, flat indices over its last ``spatial`` axes (the
    arg-max of a pooling window): a gather, so the gradient flows to the chosen elements."""
    ops = _ops()
    lead = tuple(x.shape[:-spatial])
    flat = x.reshape(lead + (-1,))
    idx = index.reshape(lead + (-1,))
    return ops.gather_elements(flat, len(lead), idx).reshape(tuple(index.shape))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """3-D adaptive max pooling of (N, C, D, H, W) or (C, D, H, W) ``input``; with
    ``return_indices`` also the flat (D*H*W) index of each maximum (Int32)."""
    name = "adaptive_max_pool3d"
    x = _float_tensor(name, "input", _tensor(name, "input", input, (4, 5)))
    outs = _adaptive_sizes(name, x, output_size)
    index = adaptive_argmax3d_p(x, output_size=outs)
    values = take_flat(x, index, 3)
    return (values, index.astype(D.int32)) if return_indices else values


# ----------------------------------------------------------------- 3-D grid sampling
def grid_sample3d(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Sample (N, C, D, H, W) ``input`` at the normalised (x, y, z) locations of
    (N, Do, Ho, Wo, 3) ``grid``: 'bilinear' (trilinear) or 'nearest', with 'zeros',
    'border' or 'reflection' outside. Differentiable in ``input`` and (bilinear) ``grid``."""
    ops = _ops()
    x, g = _grid_sample_args(input, grid, mode, padding_mode, 5)
    align = bool(align_corners)
    n, c, d, h, w = x.shape
    out = tuple(g.shape[1:4])
    count = out[0] * out[1] * out[2]
    g = g.astype(x.dtype)
    ix = _grid_source(g[..., 0], w, padding_mode, align)
    iy = _grid_source(g[..., 1], h, padding_mode, align)
    iz = _grid_source(g[..., 2], d, padding_mode, align)
    flat = x.reshape((n, c, d * h * w))

    def tap(zz, yy, xx):
        inside = ((xx >= 0) & (xx <= w - 1) & (yy >= 0) & (yy <= h - 1) & (zz >= 0)
                  & (zz <= d - 1))
        xi = ops.clamp(xx, 0, w - 1).astype(D.int64)
        yi = ops.clamp(yy, 0, h - 1).astype(D.int64)
        zi = ops.clamp(zz, 0, d - 1).astype(D.int64)
        index = ((zi * h + yi) * w + xi).reshape((n, 1, count))
        index = ops.broadcast_to(index, (n, c, count))
        values = ops.gather_elements(flat, 2, index).reshape((n, c) + out)
        return values * inside.astype(x.dtype).expand_dims(1)

    if mode == "nearest":
        return tap(ops.round(iz), ops.round(iy), ops.round(ix))
    x0, y0, z0 = ops.floor(ix), ops.floor(iy), ops.floor(iz)
    fx, fy, fz = ((ix - x0).expand_dims(1), (iy - y0).expand_dims(1),
                  (iz - z0).expand_dims(1))
    total = None
    for dz, wz in ((0, 1 - fz), (1, fz)):
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                term = tap(z0 + dz, y0 + dy, x0 + dx) * (wz * wy * wx)
                total = term if total is None else total + term
    return total


# ----------------------------------------------------------------- col2im
def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sum the sliding-window columns (N, C, kh*kw, L) of ``input_x`` back into an image
    (N, C, *output_size): the adjoint of ``Im2Col`` (``ops.fold`` of the flattened
    columns)."""
    name = "col2im"
    x = _tensor(name, "input_x", input_x, (4,))
    if isinstance(output_size, _Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    n, c, k, l = x.shape
    return _ops().fold(x.reshape((n, c * k, l)), tuple(output_size), kernel_size, dilation,
                       padding_value, stride)


# ----------------------------------------------------------------- resize kernels
def resize_weights(n_in, n_out, mode, align_corners=False, half_pixel=False):
    """(n_out, n_in) weights of one axis of MindSpore's (TensorFlow-style) resize kernels:
    ``mode`` 'linear', 'nearest', 'cubic' or 'area'; the source coordinate of output ``i``
    is ``i * scale`` (``scale = in/out``; with ``align_corners`` ``(in-1)/(out-1)``), or,
    with ``half_pixel``, ``(i + 0.5) * scale - 0.5``."""
    if mode == "cubic" and (half_pixel or align_corners):
        return _bicubic_matrix(n_in, n_out, align_corners)
    if mode == "linear" and (half_pixel or align_corners):
        return _interp_matrix(n_in, n_out, None, align_corners, cubic=False)
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    dst = np.arange(n_out, dtype=np.float64)
    weights = np.zeros((n_out, n_in))
    rows = np.arange(n_out)
    if mode == "nearest":
        if align_corners:
            src = np.floor(dst * scale + 0.5)          # round half away from zero
        elif half_pixel:
            src = np.floor((dst + 0.5) * scale)
        else:
            src = np.floor(dst * scale)
        weights[rows, np.clip(src.astype(np.int64), 0, n_in - 1)] = 1.0
        return weights
    if mode == "area":
        for i in range(n_out):
            lo, hi = i * scale, (i + 1) * scale
            for j in range(int(math.floor(lo)), min(int(math.ceil(hi)), n_in)):
                weights[i, j] = (min(hi, j + 1) - max(lo, j)) / scale
        return weights
    src = dst * scale
    if mode == "cubic":                                # asymmetric, a = -0.75, edges repeat
        base = np.floor(src).astype(np.int64)
        from ._nn.misc import _CUBIC_TABLE, _cubic_weights
        t = np.rint((src - base) * _CUBIC_TABLE) / _CUBIC_TABLE
        taps = np.clip(base[:, None] + np.arange(-1, 3), 0, n_in - 1)
        w = np.stack(_cubic_weights(t, -0.75), axis=1)
        np.add.at(weights, (np.repeat(rows, 4), taps.ravel()), w.ravel())
        return weights
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    frac = src - lo
    np.add.at(weights, (rows, lo), 1.0 - frac)
    np.add.at(weights, (rows, hi), frac)
    return weights


def resize(x, axes, sizes, mode, align_corners=False, half_pixel=False, dtype=None):
    """Resize ``x`` along ``axes`` to ``sizes`` with ``resize_weights``; ``dtype`` is the
    compute/output dtype (default: ``x``'s)."""
    if dtype is not None and x.dtype != dtype:
        x = x.astype(dtype)
    for axis, size in zip(axes, sizes):
        n_in = x.shape[axis]
        if n_in == size and not (mode == "area"):
            continue
        weights = resize_weights(n_in, int(size), mode, align_corners, half_pixel)
        if mode == "nearest":
            x = _ops().gather(x, P.wrap(weights.argmax(1)), axis)
            continue
        x = _apply_along(x, axis, P.wrap(weights.astype(x.dtype.np)))
    return x


__all__ = ["add_rms_norm", "add_layer_norm", "rotary_position_embedding", "mse_loss_ext",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "col2im"]
