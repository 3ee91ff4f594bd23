"""Primitives behind the A-I ops of ``ops/_ops_a.py``: the arg-max index primitives of
fractional max pooling (no gradient: the adapters gather the values with the index, so
the gradient reaches exactly the arg-max element, as in MindSpore).
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray

__all__ = ["fractional_argmax_p", "window_argmax_p", "fixed_ksize_starts"]


def fixed_ksize_starts(samples, n_in, n_out, k):
    """Window starts of fractional max pooling with a fixed window (Graham 2014, as
    PyTorch and MindSpore): ``alpha = (n_in - k) / (n_out - 1)``,
    ``start_i = int((i + u) * alpha) - int(u * alpha)``, the last window ends at the edge."""
    u = np.asarray(samples, np.float64)[:, None]
    if n_out == 1:
        return np.full((u.shape[0], 1), n_in - k, np.int64)
    alpha = (n_in - k) / (n_out - 1)
    i = np.arange(n_out, dtype=np.float64)[None, :]
    starts = (np.floor((i + u) * alpha) - np.floor(u * alpha)).astype(np.int64)
    starts[:, -1] = n_in - k
    return starts


def _flat_windows(starts, sizes, spatial):
    """Flat indices (P, prod(out), prod(kmax)) of separable windows: ``starts[d]`` and
    ``sizes[d]`` (P, out_d) per axis d; -1 where a window is shorter than the longest."""
    nd = len(spatial)
    planes = starts[0].shape[0]
    kmax = [int(s.max()) for s in sizes]
    flat = np.zeros((planes,) + tuple(s.shape[1] for s in starts) + tuple(kmax), np.int64)
    valid = np.ones(flat.shape, bool)
    stride = 1
    for d in reversed(range(nd)):
        offs = np.arange(kmax[d])
        shape = [planes] + [1] * (2 * nd)
        shape[1 + d] = starts[d].shape[1]
        shape[1 + nd + d] = kmax[d]
        flat = flat + ((starts[d][:, :, None] + offs) * stride).reshape(shape)
        valid = valid & (offs < sizes[d][:, :, None]).reshape(shape)
        stride *= spatial[d]
    flat = np.where(valid, flat, -1)
    return flat.reshape(planes, int(np.prod(flat.shape[1:1 + nd])), -1)


def _argmax_in(values, windows):
    """Flat arg-max per window: ``values`` (P, S), ``windows`` (P, O, K) with -1 pads. The
    first maximum wins; NaN beats every number."""
    planes = np.arange(values.shape[0])[:, None, None]
    picked = values[planes, np.maximum(windows, 0)].astype(np.float64)
    picked = np.where(np.isnan(picked), np.inf, picked)
    picked = np.where(windows < 0, -np.inf, picked)
    best = np.argmax(picked, axis=-1)
    return np.take_along_axis(windows, best[..., None], axis=-1)[..., 0]


def _windows_argmax(x, nd, starts, sizes):
    spatial = tuple(x.shape[-nd:])
    planes = np.asarray(x).reshape(-1, int(np.prod(spatial)))
    windows = _flat_windows(starts, sizes, spatial)
    if windows.shape[0] == 1:
        windows = np.broadcast_to(windows, (planes.shape[0],) + windows.shape[1:])
    out = tuple(s.shape[1] for s in starts)
    return _argmax_in(planes, windows).reshape(tuple(x.shape[:-nd]) + out)


# ----------------------------------------------------------------- fixed-window fractional pool
def _make_fractional_argmax(xp):
    def fractional_argmax(x, samples, *, kernel, output):
        """Samples (N, C, nd): entry 0 drives the last axis for 2-D (W, then H) and the
        first for 3-D (T, H, W), as MindSpore and PyTorch."""
        nd = len(kernel)
        x = np.asarray(x)
        u = np.asarray(samples).reshape(-1, nd)
        spatial = x.shape[-nd:]
        order = [1, 0] if nd == 2 else list(range(nd))
        starts = [fixed_ksize_starts(u[:, order[a]], spatial[a], output[a], kernel[a])
                  for a in range(nd)]
        sizes = [np.full_like(s, k) for s, k in zip(starts, kernel)]
        return _windows_argmax(x, nd, starts, sizes)
    return fractional_argmax


def _fractional_argmax_infer(attrs, x, samples):
    nd = len(attrs["kernel"])
    if samples.shape != tuple(x.shape[:-nd]) + (nd,):
        raise ValueError(f"For 'FractionalMaxPoolArgmax', the 'random_samples' must have shape "
                         f"{list(x.shape[:-nd]) + [nd]}, but got {list(samples.shape)}.")
    return ShapedArray(tuple(x.shape[:-nd]) + tuple(attrs["output"]), np.dtype(np.int64))


fractional_argmax_p = P.Primitive(
    "FractionalMaxPoolArgmax", _make_fractional_argmax, kind="opaque", nondiff=True,
    n_inputs=2, infer=_fractional_argmax_infer,
    doc="FractionalMaxPoolArgmax(x, samples; kernel, output): flat arg-max of each "
        "fixed-size fractional window.")


# ----------------------------------------------------------------- windows given by bounds
def _make_window_argmax(xp):
    def window_argmax(x, *, starts, sizes):
        """Windows shared by every plane: ``starts[d]``/``sizes[d]`` tuples per axis."""
        nd = len(starts)
        st = [np.asarray(s, np.int64)[None, :] for s in starts]
        sz = [np.asarray(s, np.int64)[None, :] for s in sizes]
        return _windows_argmax(np.asarray(x), nd, st, sz)
    return window_argmax


def _window_argmax_infer(attrs, x):
    nd = len(attrs["starts"])
    out = tuple(len(s) for s in attrs["starts"])
    return ShapedArray(tuple(x.shape[:-nd]) + out, np.dtype(np.int64))


window_argmax_p = P.Primitive(
    "WindowArgmax", _make_window_argmax, kind="opaque", nondiff=True, n_inputs=1,
    infer=_window_argmax_infer,
    doc="WindowArgmax(x; starts, sizes): flat arg-max of each separable window.")


# ----------------------------------------------------------------- ops.Custom (pyfunc)
def _custom_outputs(op, arrays):
    """Run ``op.func`` (an ``ops.Custom``) on NumPy arrays and check its results against
    the declared output shapes/dtypes (a clear error instead of MindSpore's silent
    padding or truncation)."""
    result = op.func(*arrays)
    avals = op.output_avals([a.shape for a in arrays], [a.dtype for a in arrays])
    results = result if op.multi else (result,)
    if not isinstance(results, (tuple, list)) or len(results) != len(avals):
        raise ValueError(f"For 'Custom', the function {op.func_name!r} must return "
                         f"{len(avals)} arrays, but got {type(result).__name__}.")
    out = []
    for i, (r, aval) in enumerate(zip(results, avals)):
        arr = np.asarray(r).astype(aval.dtype, copy=False)
        if arr.shape != tuple(aval.shape):
            if arr.size != int(np.prod(aval.shape, dtype=np.int64)):
                raise ValueError(f"For 'Custom', output {i} of {op.func_name!r} has shape "
                                 f"{list(arr.shape)}, but 'out_shape' declares "
                                 f"{list(aval.shape)}.")
            arr = arr.reshape(aval.shape)
        out.append(np.array(arr, order="C", copy=arr.base is not None))
    return tuple(out) if op.multi else out[0]


def _make_custom(xp):
    def custom(*arrays, op):
        return _custom_outputs(op, [np.asarray(a) for a in arrays])
    return custom


def _custom_infer(attrs, *avals):
    op = attrs["op"]
    outs = op.output_avals([tuple(a.shape) for a in avals], [np.dtype(a.dtype) for a in avals])
    return tuple(outs) if op.multi else outs[0]


def _custom_grad(attrs, inputs, out, dout):
    """The user's ``bprop(*inputs, out, dout)``: one gradient per input."""
    op = attrs["op"]
    if op.bprop is None:
        raise RuntimeError(f"For 'Custom', the function {op.func_name!r} has no 'bprop', so "
                           f"it cannot be differentiated.")
    res = op.bprop(*inputs, out, dout)
    res = tuple(res) if isinstance(res, (tuple, list)) else (res,)
    if len(res) != len(inputs):
        raise ValueError(f"For 'Custom', the 'bprop' of {op.func_name!r} must return "
                         f"{len(inputs)} gradients (one per input), but got {len(res)}.")
    return res


custom_p = P.Primitive("Custom", _make_custom, kind="opaque", infer=_custom_infer)
custom_multi_p = P.Primitive("CustomMulti", _make_custom, kind="opaque", infer=_custom_infer,
                             multiple_results=True)
custom_p.def_grad(inputs="all", output=True)(_custom_grad)
custom_multi_p.def_grad(inputs="all", output=True)(_custom_grad)
__all__ += ["custom_p", "custom_multi_p"]


# ----------------------------------------------------------------- ops.DumpGradient
_DUMP_COUNTS = {}


def _make_dump_gradient(xp):
    def dump_gradient(x, *, path):
        return x
    return dump_gradient


dump_gradient_p = P.Primitive(
    "DumpGradient", _make_dump_gradient, kind="opaque", n_inputs=1,
    infer=lambda attrs, x: ShapedArray(tuple(x.shape), np.dtype(x.dtype)),
    doc="DumpGradient(x; path): the identity; its gradient is saved to "
        "<path stem>_<dtype>_<n>.npy on the way back.")


def _make_dump_save(xp):
    def dump_save(g, *, path):
        """Save ``g`` as MindSpore does (``<stem>_<dtype>_<n>.npy``, n counting the dumps
        to ``path``) and return it; runs when executed, eagerly or in a compiled graph."""
        import os
        stem = path[:-4] if path.endswith(".npy") else path
        n = _DUMP_COUNTS.get(path, 0)
        _DUMP_COUNTS[path] = n + 1
        data = np.asarray(g)
        os.makedirs(os.path.dirname(os.path.abspath(stem)), exist_ok=True)
        np.save(f"{stem}_{data.dtype.name}_{n}.npy", data)
        return data.copy()
    return dump_save


dump_save_p = P.Primitive(
    "DumpGradientSave", _make_dump_save, kind="opaque", n_inputs=1, effect="print",
    infer=lambda attrs, g: ShapedArray(tuple(g.shape), np.dtype(g.dtype)),
    doc="DumpGradientSave(g; path): save g to <path stem>_<dtype>_<n>.npy, return it.")


@dump_gradient_p.def_grad()
def _dump_gradient_grad(attrs, inputs, out, dout):
    return (dump_save_p(dout, path=attrs["path"]),)


@dump_save_p.def_grad()
def _dump_save_grad(attrs, inputs, out, dout):
    return (dout,)


__all__ += ["dump_gradient_p", "dump_save_p"]
