"""More neural-network functions of ``mindspore.ops``: conv3d_transpose, max_unpool1d/2d/3d,
lrn, multilabel_margin_loss, gumbel_softmax, affine_grid and grid_sample.

All are composites of existing primitives (Conv3DBackpropInput, gathers, scatters,
elementwise math), so gradients, ``vmap`` and graph capture come from those primitives.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._prims.nn.conv3d import conv3d_input_grad_p
from ._extra import int_sequence
from ._utils import normalize_dim, static_int, public_functions

_Tensor = P._Tensor


def _ops():
    from .. import ops
    return ops


def _tensor(name, arg, value, ndim=None):
    if not isinstance(value, _Tensor):
        raise TypeError(f"For '{name}', the '{arg}' must be a Tensor, but got "
                        f"{type(value).__name__}.")
    if ndim is not None and value.ndim not in ndim:
        raise ValueError(f"For '{name}', the '{arg}' must be {' or '.join(map(str, ndim))}-D, "
                         f"but got {value.ndim}-D.")
    return value


def _tuple(name, arg, value, n):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) == n and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f"For '{name}', the '{arg}' must be an int or a tuple of {n} ints, but got "
                    f"{value!r}.")


# ------------------------------------------------------------------ transposed 3-D conv
def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1,
                     group=1, output_padding=0):
    """Transposed 3-D convolution (the input gradient of conv3d) of (N, C_in, D, H, W)
    ``inputs`` with a (C_in, C_out/group, kd, kh, kw) ``weight``.

    Output length per dimension: 'valid' ``(in - 1) * stride + dilation * (k - 1) + 1 +
    output_padding``; 'pad' that minus the two paddings; 'same' ``in * stride``.
    ``padding`` is an int or (front, back, top, bottom, left, right)."""
    name = "conv3d_transpose"
    x = _tensor(name, "inputs", inputs, (5,))
    w = _tensor(name, "weight", weight, (5,))
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For '{name}', the 'pad_mode' must be 'valid', 'same' or 'pad', but "
                         f"got {pad_mode!r}.")
    stride = _tuple(name, "stride", stride, 3)
    dilation = _tuple(name, "dilation", dilation, 3)
    out_pad = _tuple(name, "output_padding", output_padding, 3)
    pads = _tuple(name, "padding", padding, 6)
    group = static_int(name, "group", group)
    if pad_mode != "pad" and (any(pads) or any(out_pad)):
        raise ValueError(f"For '{name}', 'padding' and 'output_padding' need pad_mode='pad'.")
    if any(p >= s and p >= d for p, s, d in zip(out_pad, stride, dilation)):
        raise ValueError(f"For '{name}', each 'output_padding' must be smaller than the stride "
                         f"or the dilation, but got {out_pad}.")
    if x.shape[1] != w.shape[0]:
        raise ValueError(f"For '{name}', the input channels ({x.shape[1]}) must equal the "
                         f"weight's first dimension ({w.shape[0]}).")
    kernel = tuple(w.shape[2:])
    full = tuple((n - 1) * s + d * (k - 1) + 1 + op for n, s, d, k, op in
                 zip(x.shape[2:], stride, dilation, kernel, out_pad))
    shape = (x.shape[0], w.shape[1] * group) + full
    out = conv3d_input_grad_p(x, w, input_shape=shape, stride=stride, pads=(0,) * 6,
                              dilation=dilation, groups=group)
    if pad_mode == "same":
        crops = []
        for k, s, d in zip(kernel, stride, dilation):
            total = max(0, d * (k - 1) + 1 - s)
            crops += [total // 2, total - total // 2]
    else:
        crops = list(pads) if pad_mode == "pad" else [0] * 6
    if any(crops):
        out = out[:, :, crops[0]:full[0] - crops[1], crops[2]:full[1] - crops[3],
                  crops[4]:full[2] - crops[5]]
    return out


# ------------------------------------------------------------------ max unpooling
def _integer_like(name, arg, value, like, like_arg):
    """``value``: an integer tensor of the shape of ``like`` (indices, targets)."""
    t = _tensor(name, arg, value)
    if tuple(t.shape) != tuple(like.shape):
        raise ValueError(f"For '{name}', the '{arg}' must have the shape of '{like_arg}', "
                         f"{list(like.shape)}, but got {list(t.shape)}.")
    if t.dtype.is_floating_point:
        raise TypeError(f"For '{name}', the '{arg}' must be an integer tensor, but got "
                        f"{t.dtype}.")
    return t


def _max_unpool(name, nd, x, indices, kernel_size, stride, padding, output_size):
    x = _tensor(name, "x", x, (nd + 1, nd + 2))
    idx = _integer_like(name, "indices", indices, x, "x")
    kernel = _tuple(name, "kernel_size", kernel_size, nd)
    stride = kernel if stride is None or stride == 0 else _tuple(name, "stride", stride, nd)
    pad = _tuple(name, "padding", padding, nd)
    spatial = tuple(x.shape[-nd:])
    if output_size is None or (isinstance(output_size, (tuple, list)) and not output_size):
        out = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, stride, pad, kernel))
    else:
        out = int_sequence(name, "output_size", output_size)[-nd:]
        if len(out) != nd or min(out) < 1:
            raise ValueError(f"For '{name}', the 'output_size' must end with {nd} positive "
                             f"sizes, but got {output_size}.")
    lead = tuple(x.shape[:-nd])
    ops = _ops()
    size = int(np.prod(out))
    flat = x.reshape(lead + (-1,))
    where = idx.astype(D.int64).reshape(lead + (-1,))
    zeros = ops.zeros(lead + (size,), x.dtype)
    placed = ops.tensor_scatter_elements(zeros, where, flat, len(lead))
    return placed.reshape(lead + out)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d(..., return_indices=True)``: each value of (N, C, L) ``x``
    placed at its flat position ``indices`` of a zero (N, C, L_out) map."""
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d(..., return_indices=True)`` (flat h * W + w positions)."""
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d(..., return_indices=True)`` (flat positions in D*H*W)."""
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding,
                       output_size)


# ------------------------------------------------------------------ normalisation, losses
def check_norm_region(norm_region):
    """LRN normalises across channels only (MindSpore's one region)."""
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'LRN', the 'norm_region' must be str and must be in "
                         f"'['ACROSS_CHANNELS']', but got '{norm_region}'.")


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalisation across channels of (N, C, H, W) ``x``:
    ``x / (bias + alpha * sum_{|c' - c| <= depth_radius} x[c']^2) ** beta``."""
    name = "lrn"
    x = _tensor(name, "x", x, (4,))
    check_norm_region(norm_region)
    r = static_int(name, "depth_radius", depth_radius)
    if r < 0:
        raise ValueError(f"For '{name}', the 'depth_radius' must be non-negative, but got {r}.")
    ops = _ops()
    sq = ops.square(x)
    c = x.shape[1]
    padded = ops.pad(sq, (0, 0, 0, 0, r, r))
    window = sum(padded[:, k:k + c] for k in range(2 * r + 1))
    return x / ops.pow(float(bias) + float(alpha) * window, float(beta))


def multilabel_margin_loss(input, target, reduction="mean"):
    """Multi-label hinge loss: for each sample, the targets are ``target``'s class indices
    up to the first -1; the loss sums ``max(0, 1 - (x[j] - x[i]))`` over target classes j and
    non-target classes i, divided by the number of classes."""
    name = "multilabel_margin_loss"
    x = _tensor(name, "input", input, (1, 2))
    t = _integer_like(name, "target", target, x, "input")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For '{name}', the 'reduction' must be 'none', 'mean' or 'sum', but "
                         f"got {reduction!r}.")
    ops = _ops()
    one = x.ndim == 1
    if one:
        x, t = x.reshape((1, -1)), t.reshape((1, -1))
    c = x.shape[1]
    t = t.astype(D.int64)
    valid = ops.cumprod((t >= 0).astype(x.dtype), 1)              # before the first -1
    safe = ops.clamp(t, 0, c - 1)
    hot = ops.one_hot(safe, c, _Tensor(1.0, x.dtype), _Tensor(0.0, x.dtype))  # (N, J, C)
    is_target = ops.clamp((hot * valid.expand_dims(-1)).sum(1), 0.0, 1.0)     # (N, C)
    x_target = ops.gather_elements(x, 1, safe)                                 # (N, J)
    margins = ops.relu(1 - x_target.expand_dims(-1) + x.expand_dims(1))        # (N, J, C)
    per = (margins * valid.expand_dims(-1) * (1 - is_target).expand_dims(1)).sum((1, 2)) / c
    if reduction == "mean":
        return per.mean()
    if reduction == "sum":
        return per.sum()
    return per.reshape(()) if one else per


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """Samples of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise g; ``hard`` gives one-hot samples whose gradient is the soft one's."""
    name = "gumbel_softmax"
    x = _tensor(name, "logits", logits)
    if not x.dtype.is_floating_point:
        raise TypeError(f"For '{name}', the 'logits' must be a floating-point tensor, but got "
                        f"{x.dtype}.")
    if not isinstance(tau, numbers.Real) or tau <= 0:
        raise ValueError(f"For '{name}', the 'tau' must be a positive float, but got {tau}.")
    d = normalize_dim(name, dim, x.ndim, "dim")
    ops = _ops()
    u = ops.rand_like(x)
    eps = float(np.finfo(x.dtype.np).tiny)
    gumbel = -ops.log(-ops.log(u + eps) + eps)
    soft = ops.softmax((x + gumbel) / float(tau), d)
    if not hard:
        return soft
    index = soft.argmax(d)
    one_hot = ops.one_hot(index, x.shape[d], _Tensor(1.0, x.dtype), _Tensor(0.0, x.dtype), d)
    return one_hot - ops.stop_gradient(soft) + soft


# ------------------------------------------------------------------ spatial transformers
def _base_coords(n, align_corners, dtype):
    if n == 1:
        return np.zeros(1, dtype)
    values = np.linspace(-1, 1, n)
    if not align_corners:
        values = values * (n - 1) / n
    return values.astype(dtype)


def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps ``theta`` ((N, 2, 3) for 2-D, (N, 3, 4) for 3-D)
    over an output of ``size`` (N, C, H, W) or (N, C, D, H, W): (N, H, W, 2) or
    (N, D, H, W, 3) normalised (x, y[, z]) coordinates."""
    name = "affine_grid"
    t = _tensor(name, "theta", theta, (3,))
    if not t.dtype.is_floating_point:
        raise TypeError(f"For '{name}', the 'theta' must be a float tensor, but got {t.dtype}.")
    size = tuple(int(s) for s in size)
    spatial = size[2:]
    nd = len(spatial)
    if nd not in (2, 3) or tuple(t.shape[1:]) != (nd, nd + 1) or t.shape[0] != size[0]:
        raise ValueError(f"For '{name}', 'theta' must be (N, 2, 3) with a 4-D 'size' or "
                         f"(N, 3, 4) with a 5-D one, but got {list(t.shape)} and {list(size)}.")
    dtype = t.dtype.np
    axes = [_base_coords(n, align_corners, dtype) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")                 # each (D,) H, W
    coords = [mesh[k] for k in reversed(range(nd))]          # x (width) first
    base = np.stack(coords + [np.ones_like(mesh[0])], -1).reshape(-1, nd + 1)
    # grid[n, p, k] = sum_j base[p, j] theta[n, k, j], as a broadcast product and sum (a
    # batched matmul of a constant picks a different summation order under jit)
    grid = (_Tensor(base).reshape((1, -1, 1, nd + 1)) * t.expand_dims(1)).sum(-1)
    return grid.reshape((size[0],) + spatial + (nd,))


def _unnormalize(coord, n, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (n - 1)
    return ((coord + 1) * n - 1) / 2


def _reflect(coord, lo, span):
    """Reflect coordinates into [lo, lo + span] (PyTorch's reflection padding)."""
    ops = _ops()
    if span <= 0:
        return ops.zeros_like(coord)
    c = ops.abs(coord - lo)
    flips = ops.floor(c / span)
    extra = c - flips * span
    even = ops.fmod(flips, 2) == 0
    return ops.where(even, extra + lo, span - extra + lo)


def _source(coord, n, padding_mode, align_corners):
    ops = _ops()
    c = _unnormalize(coord, n, align_corners)
    if padding_mode == "reflection":
        c = _reflect(c, 0.0, n - 1.0) if align_corners else _reflect(c, -0.5, float(n))
    if padding_mode in ("border", "reflection"):
        c = ops.clamp(c, 0, n - 1)
    return c


def _grid_sample_args(input, grid, mode, padding_mode, rank):
    """(input, grid) of a ``rank``-D grid_sample, checked: their ranks, the mode, the
    padding mode, and a grid of (N, *spatial_out, rank - 2) with the input's N."""
    name = "grid_sample"
    x = _tensor(name, "input", input, (rank,))
    g = _tensor(name, "grid", grid, (rank,))
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"For '{name}', the 'mode' must be 'bilinear' or 'nearest' for "
                         f"{rank}-D inputs, but got {mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For '{name}', the 'padding_mode' must be 'zeros', 'border' or "
                         f"'reflection', but got {padding_mode!r}.")
    spatial = rank - 2
    if g.shape[0] != x.shape[0] or g.shape[rank - 1] != spatial:
        outs = ", ".join(("D_out", "H_out", "W_out")[3 - spatial:])
        raise ValueError(f"For '{name}', the 'grid' must be (N, {outs}, {spatial}) with the "
                         f"N of 'input', but got {list(g.shape)} and {list(x.shape)}.")
    return x, g


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) ``input`` at the normalised (x, y) locations of (N, Ho, Wo, 2)
    ``grid`` (-1 and 1 are the edges; pixel centres unless ``align_corners``): 'bilinear'
    or 'nearest' interpolation, 'zeros', 'border' or 'reflection' outside. Differentiable
    in ``input`` and (bilinear) ``grid``."""
    x, g = _grid_sample_args(input, grid, mode, padding_mode, 4)
    ops = _ops()
    align = bool(align_corners)
    n, c, h, w = x.shape
    ho, wo = g.shape[1], g.shape[2]
    g = g.astype(x.dtype)
    ix = _source(g[..., 0], w, padding_mode, align)
    iy = _source(g[..., 1], h, padding_mode, align)
    flat = x.reshape((n, c, h * w))

    def tap(yy, xx):
        inside = (xx >= 0) & (xx <= w - 1) & (yy >= 0) & (yy <= h - 1)
        xi = ops.clamp(xx, 0, w - 1).astype(D.int64)
        yi = ops.clamp(yy, 0, h - 1).astype(D.int64)
        index = (yi * w + xi).reshape((n, 1, ho * wo))
        index = ops.broadcast_to(index, (n, c, ho * wo))
        values = ops.gather_elements(flat, 2, index).reshape((n, c, ho, wo))
        return values * inside.astype(x.dtype).expand_dims(1)

    if mode == "nearest":
        return tap(ops.round(iy), ops.round(ix))
    x0 = ops.floor(ix)
    y0 = ops.floor(iy)
    wx1 = (ix - x0).expand_dims(1)
    wy1 = (iy - y0).expand_dims(1)
    wx0, wy0 = 1 - wx1, 1 - wy1
    return (tap(y0, x0) * wy0 * wx0 + tap(y0, x0 + 1) * wy0 * wx1
            + tap(y0 + 1, x0) * wy1 * wx0 + tap(y0 + 1, x0 + 1) * wy1 * wx1)


__all__ = [n for n in public_functions(globals(), __name__) if n != "check_norm_region"]
