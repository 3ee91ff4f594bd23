"""Functions of ``mindspore.ops`` behind the A-I primitive classes: fractional max pooling
(``fractional_max_pool2d``/``3d``, TensorFlow's ``FractionalMaxPool``/``AvgPool``), patch
extraction (``ExtractImagePatches``, ``ExtractVolumePatches``), depthwise convolution,
``coalesce`` and ``deformable_conv2d``.

All are composites of existing primitives. Where a window's arg-max decides the result
(the fractional max pools) the winning flat indices are found on the host and the values
are gathered with ``gather_elements``, so the gradient reaches exactly the arg-max element
as in MindSpore; average pools are matmuls against constant averaging matrices.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import _random
from .._core import primitive as P
from .._prims.ops_a import fractional_argmax_p, window_argmax_p
from .._prims.random import uniform_real_p
from ._nn._args import int_tuple, is_int, same_pads
from ._nn_more import _ops, _tensor



def _float_tensor(name, arg, value, ranks=None):
    _tensor(name, arg, value, ranks)
    if value.dtype not in (D.float16, D.float32, D.float64):
        raise TypeError(f"For '{name}', the '{arg}' must be a Float16, Float32 or Float64 "
                        f"Tensor, but got {value.dtype}.")
    return value


# ----------------------------------------------------------------- gather by arg-max index
def _gather_flat(x, index, nd):
    """``x`` (lead + spatial) read at ``index`` (lead + out, Int64 indices into the
    flattened last ``nd`` axes): differentiable through ``gather_elements``."""
    lead = tuple(x.shape[:-nd])
    out = tuple(index.shape[len(lead):])
    flat = x.reshape(lead + (-1,))
    picked = _ops().gather_elements(flat, len(lead), index.reshape(lead + (-1,)))
    return picked.reshape(lead + out)


def _fractional_fixed(name, x, kernel, output, samples, nd):
    """(values, Int64 flat indices) of a fixed-ksize fractional max pool over the last
    ``nd`` axes of ``x`` (N, C, *spatial) with ``samples`` (N, C, nd) in [0, 1)."""
    spatial = tuple(x.shape[-nd:])
    for d in range(nd):
        if output[d] + kernel[d] - 1 > spatial[d]:
            raise ValueError(f"For '{name}', the output size {list(output)} plus the kernel size "
                             f"{list(kernel)} minus 1 must not exceed the input size "
                             f"{list(spatial)}.")
    index = fractional_argmax_p(x, samples, kernel=tuple(kernel), output=tuple(output))
    return _gather_flat(x, index, nd), index


def _samples(name, x, random_samples, nd):
    n, c = x.shape[0], x.shape[1]
    if random_samples is None:       # drawn in the graph under jit: new starts every call
        return uniform_real_p(_random.key_tensor(), shape=(n, c, nd), dtype=x._data.dtype)
    _float_tensor(name, "random_samples", random_samples, (3,))
    if tuple(random_samples.shape) != (n, c, nd):
        raise ValueError(f"For '{name}', the 'random_samples' must have shape {[n, c, nd]}, "
                         f"but got {list(random_samples.shape)}.")
    return random_samples


def _fractional_max_pool(name, nd, input, kernel_size, output_size, output_ratio,
                         return_indices, _random_samples):
    _float_tensor(name, "input", input, (nd + 1, nd + 2))
    x = input if input.ndim == nd + 2 else input.expand_dims(0)
    kernel = int_tuple(name, "kernel_size", kernel_size, nd)
    if output_size is None and output_ratio is None:
        raise ValueError(f"For '{name}', 'output_size' and 'output_ratio' can not be None at "
                         f"the same time.")
    spatial = tuple(x.shape[2:])
    if output_size is not None:
        output = int_tuple(name, "output_size", output_size, nd)
    else:
        ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else ()
        if len(ratio) != nd or not all(isinstance(r, (int, float)) and 0 < r < 1
                                       for r in ratio):
            raise ValueError(f"For '{name}', the 'output_ratio' must be a float or {nd} floats "
                             f"in (0, 1), but got {output_ratio!r}.")
        output = tuple(int(s * r) for s, r in zip(spatial, ratio))
    if any(v <= 0 for v in kernel + output):
        raise ValueError(f"For '{name}', the 'kernel_size' and the output size must be "
                         f"positive, but got {list(kernel)} and {list(output)}.")
    samples = _samples(name, x, _random_samples, nd)
    y, index = _fractional_fixed(name, x, kernel, output, samples, nd)
    if input.ndim == nd + 1:
        y, index = y.squeeze(0), index[0]
    if not return_indices:
        return y
    return y, index


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r"""2-D fractional max pooling of (N, C, H, W) or (C, H, W) ``input`` (Graham 2014):
    windows of ``kernel_size`` at pseudo-random starts giving ``output_size`` (or
    ``int(size * output_ratio)``); ``_random_samples`` (N, C, 2) in [0, 1) fixes the starts
    (drawn uniformly when None). With ``return_indices`` also the flat (H*W) Int64 indices
    of the maxima."""
    return _fractional_max_pool("fractional_max_pool2d", 2, input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    r"""3-D fractional max pooling of (N, C, D, H, W) or (C, D, H, W) ``input``; see
    ``fractional_max_pool2d`` (``_random_samples`` is (N, C, 3), indices are flat D*H*W)."""
    return _fractional_max_pool("fractional_max_pool3d", 3, input, kernel_size, output_size,
                                output_ratio, return_indices, _random_samples)


# ----------------------------------------------------------------- TensorFlow's fractional pools
def _pooling_sequence(n_in, n_out, pseudo_random, rng):
    """TensorFlow's cumulative pooling sequence (``n_out + 1`` boundaries from 0 to ``n_in``)
    whose steps are ``n_in // n_out`` or one more: pseudo-random
    ``a_i = ceil(alpha * (i + u))`` or a random shuffle of the step sizes."""
    k = n_in // n_out
    if n_in % n_out == 0:
        diff = np.full(n_out, k, np.int64)
    elif pseudo_random:
        alpha = n_in / n_out
        max_u = min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        u = rng.random() * max_u
        cum = np.empty(n_out + 1, np.int64)
        cum[0], cum[-1] = 1, n_in + 1
        cum[1:-1] = np.ceil(alpha * (np.arange(1, n_out) + u)).astype(np.int64)
        diff = np.diff(cum)
    else:
        diff = np.full(n_out, k, np.int64)
        diff[:n_in % n_out] += 1
        rng.shuffle(diff)
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _tf_pool_windows(seq, n_in, overlapping):
    """(starts, sizes) of the windows a pooling sequence defines: ``[seq[i], seq[i+1])``,
    or up to ``seq[i+1]`` inclusive (within the input) when ``overlapping``."""
    starts = seq[:-1]
    ends = np.minimum(seq[1:] + (1 if overlapping else 0), n_in)
    return starts, ends - starts


def _tf_fractional_args(name, x, pooling_ratio, seed, seed2, deterministic):
    _tensor(name, "x", x, (4,))
    if x.dtype not in (D.float32, D.float64, D.int32, D.int64):
        raise TypeError(f"For '{name}', the 'x' must be Float32, Float64, Int32 or Int64, but "
                        f"got {x.dtype}.")
    ratio = tuple(float(r) for r in pooling_ratio)
    if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0 or min(ratio[1:3]) < 1.0:
        raise ValueError(f"For '{name}', the 'pooling_ratio' must be 4 floats [1.0, row, col, "
                         f"1.0] with row, col >= 1.0, but got {list(pooling_ratio)}.")
    h, w = x.shape[1], x.shape[2]
    oh, ow = int(h // ratio[1]), int(w // ratio[2])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For '{name}', the 'pooling_ratio' {list(ratio)} leaves no output "
                         f"for an input of {h} x {w}.")
    if deterministic or seed or seed2:
        rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(seed2) & 0xFFFFFFFF])
    else:
        rng = np.random.default_rng(_random.generator(_random.next_key()).integers(1 << 62))
    return (h, w), (oh, ow), rng


def _tf_fractional(name, x, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                   seed2, reduce):
    (h, w), (oh, ow), rng = _tf_fractional_args(name, x, pooling_ratio, seed, seed2,
                                                deterministic)
    rows = _pooling_sequence(h, oh, pseudo_random, rng)
    cols = _pooling_sequence(w, ow, pseudo_random, rng)
    windows = [_tf_pool_windows(rows, h, overlapping), _tf_pool_windows(cols, w, overlapping)]
    nchw = x.transpose(0, 3, 1, 2)
    if reduce == "max":
        index = window_argmax_p(nchw, starts=tuple(tuple(int(v) for v in s) for s, _ in windows),
                                sizes=tuple(tuple(int(v) for v in z) for _, z in windows))
        y = _gather_flat(nchw, index, 2)
    else:
        mats = []
        for (starts, sizes), n_in in zip(windows, (h, w)):
            m = np.zeros((len(starts), n_in), x._data.dtype)
            for i, (s, z) in enumerate(zip(starts, sizes)):
                m[i, s:s + z] = 1.0 / z
            mats.append(P._Tensor(m))
        ops = _ops()
        y = ops.matmul(ops.matmul(mats[0], nchw), mats[1].swapaxes(0, 1))
        if x.dtype in (D.int32, D.int64):
            y = y.astype(x.dtype)
    return (y.transpose(0, 2, 3, 1), P._Tensor(rows), P._Tensor(cols))


def _tf_fractional_max_pool(x, pooling_ratio, pseudo_random=False, overlapping=False,
                            deterministic=False, seed=0, seed2=0):
    """``ops.FractionalMaxPool``: NHWC ``x`` pooled to ``floor(size / ratio)`` over windows
    a pooling sequence defines; returns ``(y, row_pooling_sequence, col_pooling_sequence)``."""
    return _tf_fractional("FractionalMaxPool", x, pooling_ratio, pseudo_random, overlapping,
                          deterministic, seed, seed2, "max")


def _tf_fractional_avg_pool(x, pooling_ratio, pseudo_random=False, overlapping=False,
                            deterministic=False, seed=0, seed2=0):
    """``ops.FractionalAvgPool``: as ``FractionalMaxPool`` with window means."""
    return _tf_fractional("FractionalAvgPool", x, pooling_ratio, pseudo_random, overlapping,
                          deterministic, seed, seed2, "avg")


# ----------------------------------------------------------------- patch extraction
def _extract_patches(name, x, kernel, strides, rates, padding):
    """(N, C, *spatial) -> (N, prod(kernel) * C, *out): the patches of every window, the
    channel axis fastest within a patch (TensorFlow's order)."""
    nd = len(kernel)
    spatial = tuple(x.shape[2:])
    if padding == "SAME":
        pads = same_pads(spatial, kernel, strides, rates)
        widths = [(0, 0), (0, 0)] + [(pads[2 * d], pads[2 * d + 1]) for d in range(nd)]
        flat = tuple(v for pair in reversed(widths) for v in pair)
        x = _ops().pad(x, flat)
        spatial = tuple(x.shape[2:])
    out = tuple((s - (k - 1) * r - 1) // st + 1
                for s, k, r, st in zip(spatial, kernel, rates, strides))
    if any(o <= 0 for o in out):
        raise ValueError(f"For '{name}', the window {list(kernel)} (rates {list(rates)}) is "
                         f"larger than the input {list(spatial)}.")
    pieces = []
    for offset in np.ndindex(*kernel):
        index = (slice(None), slice(None)) + tuple(
            slice(o * r, o * r + (n - 1) * st + 1, st)
            for o, r, n, st in zip(offset, rates, out, strides))
        pieces.append(x[index])
    stacked = _ops().stack(pieces, axis=1)             # (N, K, C, *out)
    n, c = x.shape[0], x.shape[1]
    return stacked.reshape((n, len(pieces) * c) + out)


def _padding_name(name, padding):
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"For '{name}', the 'padding' must be 'SAME' or 'VALID', but got "
                         f"{padding!r}.")
    return padding.upper()


def _window_arg(name, arg, value, nd):
    """A 2+nd list [1, 1, *v] (MindSpore's form), or nd values, as nd positive ints."""
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(values) == nd + 2 and tuple(values[:2]) == (1, 1):
        values = values[2:]
    out = int_tuple(name, arg, values if len(values) != 1 else values[0], nd)
    if any(v <= 0 for v in out):
        raise ValueError(f"For '{name}', the '{arg}' must be positive, but got {list(value)}.")
    return out


def _extract_image_patches(input_x, ksizes, strides, rates, padding="VALID"):
    """``ops.ExtractImagePatches``: NCHW patches (N, kh * kw * C, out_h, out_w)."""
    name = "ExtractImagePatches"
    _tensor(name, "input_x", input_x, (4,))
    return _extract_patches(name, input_x, _window_arg(name, "ksizes", ksizes, 2),
                            _window_arg(name, "strides", strides, 2),
                            _window_arg(name, "rates", rates, 2), _padding_name(name, padding))


def _extract_volume_patches(input_x, kernel_size, strides, padding):
    """``ops.ExtractVolumePatches``: NCDHW patches (N, kd * kh * kw * C, out_d, out_h,
    out_w)."""
    name = "ExtractVolumePatches"
    _tensor(name, "input_x", input_x, (5,))
    return _extract_patches(name, input_x, _window_arg(name, "kernel_size", kernel_size, 3),
                            _window_arg(name, "strides", strides, 3), (1, 1, 1),
                            _padding_name(name, padding))


# ----------------------------------------------------------------- depthwise convolution
def _depthwise_conv2d_native(x, weight, channel_multiplier, kernel_size, pad_mode, pad, stride,
                             dilation):
    """``ops.DepthwiseConv2dNative``: each input channel c convolved with
    ``weight[k, c]`` for k < channel_multiplier, output channel ``c * multiplier + k``."""
    name = "DepthwiseConv2dNative"
    _tensor(name, "x", x, (4,))
    _tensor(name, "weight", weight, (4,))
    c = x.shape[1]
    kh, kw = kernel_size
    if tuple(weight.shape) != (channel_multiplier, c, kh, kw):
        raise ValueError(f"For '{name}', the 'weight' must have shape "
                         f"{[channel_multiplier, c, kh, kw]}, but got {list(weight.shape)}.")
    w = weight.transpose(1, 0, 2, 3).reshape((c * channel_multiplier, 1, kh, kw))
    return _ops().conv2d(x, w, None, stride, pad_mode, pad, dilation, c)


# ----------------------------------------------------------------- coalesce
def coalesce(x_indices, x_values, x_shape):
    """Sort the COO indices (ndim, N) lexicographically and sum the values of duplicates:
    returns ``(y_indices, y_values, y_shape)``."""
    name = "coalesce"
    _tensor(name, "x_indices", x_indices, (2,))
    _tensor(name, "x_values", x_values, (1,))
    _tensor(name, "x_shape", x_shape, (1,))
    if x_indices.dtype != D.int64 or x_shape.dtype != D.int64:
        raise TypeError(f"For '{name}', the 'x_indices' and 'x_shape' must be Int64, but got "
                        f"{x_indices.dtype} and {x_shape.dtype}.")
    if x_values.dtype not in (D.float16, D.float32, D.float64):
        raise TypeError(f"For '{name}', the 'x_values' must be Float16, Float32 or Float64, "
                        f"but got {x_values.dtype}.")
    idx = x_indices.asnumpy()
    shape = x_shape.asnumpy()
    if idx.shape[1] != x_values.shape[0] or idx.shape[0] != shape.shape[0]:
        raise ValueError(f"For '{name}', 'x_indices' {list(idx.shape)} must be (len(x_shape), "
                         f"len(x_values)) = ({shape.shape[0]}, {x_values.shape[0]}).")
    if np.any(idx < 0) or np.any(idx >= shape[:, None]):
        raise ValueError(f"For '{name}', the 'x_indices' must be within 'x_shape' "
                         f"{shape.tolist()}.")
    flat = np.ravel_multi_index(tuple(idx), tuple(shape)) if idx.size else np.zeros(0, np.int64)
    unique, inverse = np.unique(flat, return_inverse=True)
    y_idx = np.stack(np.unravel_index(unique, tuple(shape))).astype(np.int64).reshape(
        idx.shape[0], -1)
    seg = P._Tensor(inverse.reshape(-1, 1).astype(np.int64))
    zeros = _ops().zeros((len(unique),), x_values.dtype)
    y_values = _ops().tensor_scatter_add(zeros, seg, x_values)
    return P._Tensor(y_idx), y_values, P._Tensor(shape.copy())


# ----------------------------------------------------------------- deformable convolution
def _bilinear_at(x, py, px):
    """Bilinear samples of ``x`` (N, C, H, W) at float positions ``py``/``px`` (N, G, K, L)
    with zeros outside; the C channels split into G groups: (N, C, K, L)."""
    ops = _ops()
    n, c, h, w = x.shape
    g = py.shape[1]
    y0, x0 = ops.floor(py), ops.floor(px)
    out = None
    for dy in (0, 1):
        for dx in (0, 1):
            yi, xi = y0 + dy, x0 + dx
            wy = 1 - ops.abs(py - yi)
            wx = 1 - ops.abs(px - xi)
            inside = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
            flat = (ops.clamp(yi, 0, h - 1) * w + ops.clamp(xi, 0, w - 1)).astype(D.int64)
            flat = flat.reshape((n, g, 1, -1)).broadcast_to((n, g, c // g, flat[0, 0].size))
            vals = ops.gather_elements(x.reshape((n, g, c // g, h * w)), 3, flat)
            weight = (wy * wx * inside.astype(x.dtype)).reshape((n, g, 1, -1))
            term = vals * weight
            out = term if out is None else out + term
    return out.reshape((n, c) + tuple(py.shape[2:]))


def _deformable_offsets(x, offsets, kernel, strides, pads, dilations, deformable_groups,
                        modulated):
    """MindSpore's ``DeformableOffsets``: sample (N, C, H, W) ``x`` at every kernel tap of
    every output position shifted by ``offsets`` (N, 3 * G * kh * kw, oh, ow): x offsets,
    then y offsets, then masks (used when ``modulated``); returns (N, C, oh * kh, ow * kw)."""
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    dh, dw = dilations
    top, _, left, _ = pads
    g = deformable_groups
    oh, ow = offsets.shape[2], offsets.shape[3]
    k = kh * kw
    base_y = (np.arange(oh) * sh - top)[None, :, None, None] + \
        (np.arange(kh) * dh)[None, None, :, None]                        # (1, oh, kh, 1)
    base_x = (np.arange(ow) * sw - left)[:, None, None] + (np.arange(kw) * dw)[None, None, :]
    base_y = np.broadcast_to(base_y.reshape(oh, kh, 1, 1), (oh, kh, ow, kw))
    base_x = np.broadcast_to(base_x.reshape(1, 1, ow, kw), (oh, kh, ow, kw))
    dt = x._data.dtype

    def taps(part):         # (N, G*K, oh, ow) -> (N, G, oh, kh, ow, kw)
        t = offsets[:, part * g * k:(part + 1) * g * k].reshape((n, g, kh, kw, oh, ow))
        return t.transpose(0, 1, 4, 2, 5, 3)
    off_x, off_y = taps(0), taps(1)
    py = off_y + P._Tensor(base_y.astype(dt))
    px = off_x + P._Tensor(base_x.astype(dt))
    sampled = _bilinear_at(x, py.reshape((n, g, 1, -1)), px.reshape((n, g, 1, -1)))
    sampled = sampled.reshape((n, c, oh, kh, ow, kw))
    if modulated:
        mask = taps(2).reshape((n, g, 1, oh, kh, ow, kw))
        sampled = (sampled.reshape((n, g, c // g, oh, kh, ow, kw)) * mask).reshape(
            (n, c, oh, kh, ow, kw))
    return sampled.reshape((n, c, oh * kh, ow * kw))


def _four(name, arg, value):
    values = tuple(value) if isinstance(value, (tuple, list)) else None
    if values is None or len(values) != 4 or not all(is_int(v) for v in values):
        raise ValueError(f"For '{name}', the '{arg}' must be a tuple of 4 ints, but got "
                         f"{value!r}.")
    return tuple(int(v) for v in values)


def _deformable_args(name, x, offsets, kernel_size, strides, pads, dilations, deformable_groups,
                     data_format="NCHW"):
    """Checked geometry of a deformable convolution: (kernel, strides, pads, dilations, G)."""
    _float_tensor(name, "x", x, (4,))
    _float_tensor(name, "offsets", offsets, (4,))
    if data_format != "NCHW":
        raise ValueError(f"For '{name}', the 'data_format' must be 'NCHW', but got "
                         f"{data_format!r}.")
    kernel = int_tuple(name, "kernel_size", kernel_size, 2)
    st, pd, dl = (_four(name, a, v) for a, v in
                  (("strides", strides), ("pads", pads), ("dilations", dilations)))
    if st[:2] != (1, 1) or dl[:2] != (1, 1):
        raise ValueError(f"For '{name}', the 'strides' and 'dilations' must be (1, 1, h, w), "
                         f"but got {list(st)} and {list(dl)}.")
    g = deformable_groups
    if not is_int(g) or g <= 0 or x.shape[1] % g:
        raise ValueError(f"For '{name}', the 'deformable_groups' must be positive and divide "
                         f"the {x.shape[1]} channels, but got {deformable_groups}.")
    h, w = x.shape[2], x.shape[3]
    oh = (h + pd[0] + pd[1] - (kernel[0] - 1) * dl[2] - 1) // st[2] + 1
    ow = (w + pd[2] + pd[3] - (kernel[1] - 1) * dl[3] - 1) // st[3] + 1
    want = (x.shape[0], 3 * g * kernel[0] * kernel[1], oh, ow)
    if tuple(offsets.shape) != want:
        raise ValueError(f"For '{name}', the 'offsets' must have shape {list(want)}, but got "
                         f"{list(offsets.shape)}.")
    return kernel, st[2:], pd, dl[2:], g


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    r"""Deformable convolution (v2 when ``modulated``): every kernel tap reads ``x`` at its
    regular position shifted by learned ``offsets`` (bilinear, zero outside), scaled by a
    mask; then an ordinary convolution of ``weight`` (C_out, C_in / groups, kh, kw) over
    the sampled taps. ``offsets`` is (N, 3 * deformable_groups * kh * kw, H_out, W_out)."""
    name = "deformable_conv2d"
    _float_tensor(name, "weight", weight, (4,))
    kernel, st, pd, dl, g = _deformable_args(name, x, offsets, kernel_size, strides, padding,
                                             dilations, deformable_groups)
    if tuple(weight.shape[2:]) != kernel:
        raise ValueError(f"For '{name}', the 'weight' spatial size {list(weight.shape[2:])} "
                         f"must equal the 'kernel_size' {list(kernel)}.")
    sampled = _deformable_offsets(x, offsets, kernel, st, pd, dl, g, modulated)
    return _ops().conv2d(sampled, weight, bias, kernel, "valid", 0, 1, groups)


__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "coalesce", "deformable_conv2d"]


# ----------------------------------------------------------------- glimpses
def _glimpse_noise(x, kind, shape):
    """Fill values for glimpse pixels outside the image, as MindSpore's CPU kernel draws
    them (probed): uniform in [-1, 1), or normal with mean 10 and standard deviation 0.5,
    whatever the image."""
    gen = _random.generator(_random.next_key())
    if kind == "uniform":
        noise = gen.uniform(-1.0, 1.0, shape)
    elif kind == "gaussian":
        noise = gen.normal(10.0, 0.5, shape)
    else:
        noise = np.zeros(shape)
    return P._Tensor(noise.astype(x._data.dtype))


def _extract_glimpse(x, size, offsets, centered, normalized, noise):
    """``ops.ExtractGlimpse``: (N, gh, gw, C) windows of NHWC ``x`` centred at ``offsets``
    (y, x) per image: pixels when neither ``centered`` nor ``normalized``, fractions of the
    size when ``normalized``, measured from the image centre (in [-1, 1] when both) when
    ``centered``; pixels outside the image take ``noise``."""
    name = "ExtractGlimpse"
    _tensor(name, "x", x, (4,))
    _tensor(name, "size", size, (1,))
    _tensor(name, "offsets", offsets, (2,))
    if size.size != 2 or size.dtype.is_floating_point or size.dtype.is_complex:
        raise ValueError(f"For '{name}', the 'size' must be 2 integers, but got {size.dtype} of "
                         f"shape {list(size.shape)}.")
    gh, gw = (int(v) for v in size.asnumpy())
    n, h, w, c = x.shape
    off = offsets.asnumpy().astype(np.float64)
    if off.shape != (n, 2) or gh <= 0 or gw <= 0:
        raise ValueError(f"For '{name}', the 'offsets' must be ({n}, 2) and the 'size' positive, "
                         f"but got {list(off.shape)} and {[gh, gw]}.")
    cy, cx = off[:, 0], off[:, 1]
    if normalized:
        cy, cx = cy * h, cx * w
    if centered:
        cy, cx = cy / 2 + h / 2, cx / 2 + w / 2
    top = np.trunc(cy - gh / 2).astype(np.int64)
    left = np.trunc(cx - gw / 2).astype(np.int64)
    rows = top[:, None] + np.arange(gh)                                 # (N, gh)
    cols = left[:, None] + np.arange(gw)                                # (N, gw)
    inside = ((rows >= 0) & (rows < h))[:, :, None] & ((cols >= 0) & (cols < w))[:, None, :]
    flat = np.clip(rows, 0, h - 1)[:, :, None] * w + np.clip(cols, 0, w - 1)[:, None, :]
    index = np.broadcast_to(flat.reshape(n, -1, 1), (n, gh * gw, c)).astype(np.int64)
    picked = _ops().gather_elements(x.reshape((n, h * w, c)), 1, P._Tensor(index.copy()))
    picked = picked.reshape((n, gh, gw, c))
    mask = P._Tensor(np.broadcast_to(inside[..., None], (n, gh, gw, c)).copy())
    return _ops().where(mask, picked, _glimpse_noise(x, noise, (n, gh, gw, c)))
