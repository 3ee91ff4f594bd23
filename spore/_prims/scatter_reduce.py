"""TensorScatterReduce: ``x`` with ``updates`` combined into the slices addressed by the rows
of ``indices`` by multiplication, division, maximum or minimum (``attrs['op']``); repeated
indices combine in turn (``numpy.<ufunc>.at``).

Gradient rules are MindSpore's (probed on 2.10; exact where no index repeats):
mul: dx = dout * P, du = gather(dout * x) with P the product scattered onto ones;
div: dx = dout / P, du = -gather(dout * x) / u^2;
max/min: dx = dout where the output kept x, du = gather(dout) where the output is u.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray, shape_of
from .._core.primitive import PrimitiveTypeError

Primitive = P.Primitive

_UFUNCS = {"mul": "multiply", "div": "divide", "max": "maximum", "min": "minimum"}


def _infer(attrs, x, indices, updates):
    name = f"TensorScatter{attrs['op'].capitalize()}"
    if np.dtype(indices.dtype).kind not in "iu":
        raise PrimitiveTypeError(f"For '{name}', the 'indices' must be Int32 or Int64, but got "
                                 f"{np.dtype(indices.dtype)}.")
    if np.dtype(x.dtype) != np.dtype(updates.dtype):
        raise PrimitiveTypeError(f"For '{name}', 'updates' must have the dtype of 'input_x', "
                                 f"but got {np.dtype(updates.dtype)} and {np.dtype(x.dtype)}.")
    xs, ids, us = shape_of(x), shape_of(indices), shape_of(updates)
    if not ids or ids[-1] > len(xs):
        raise ValueError(f"For '{name}', the last dimension of 'indices' must not exceed the "
                         f"rank of 'input_x' ({len(xs)}), but got indices of shape {list(ids)}.")
    want = tuple(ids[:-1]) + tuple(xs[ids[-1]:])
    if tuple(us) != want:
        raise ValueError(f"For '{name}', updates_shape = indices_shape[:-1] + "
                         f"x_shape[indices_shape[-1]:], but got x_shape: {tuple(xs)}, "
                         f"indices_shape: {tuple(ids)}, updates_shape: {tuple(us)}.")
    if attrs["op"] == "div" and np.dtype(x.dtype).kind in "biu":
        raise PrimitiveTypeError(f"For '{name}', integer inputs are not supported.")
    return ShapedArray(tuple(xs), np.dtype(x.dtype))


def _make(xp):
    def kernel(x, indices, updates, op):
        out = x.copy()
        k = indices.shape[-1]
        index = tuple(indices[..., j] for j in range(k))
        for j, n in enumerate(x.shape[:k]):
            bad = (index[j] < -n) | (index[j] >= n)
            if bad.any():
                raise ValueError(f"For 'TensorScatter{op.capitalize()}', the indices must be in "
                                 f"range [{-n}, {n}) along dimension {j}.")
        getattr(xp, _UFUNCS[op]).at(out, index, updates)
        return out
    return kernel


scatter_reduce_p = Primitive("TensorScatterReduce", _make, kind="opaque", n_inputs=3,
                             infer=_infer, nondiff=False,
                             doc="x with updates combined at the rows of indices (mul, div, "
                             "max, min).")


def _gather(t, indices):
    from .. import ops
    return ops.gather_nd(t, indices)


@scatter_reduce_p.def_grad(inputs="all", output=True)
def _scatter_reduce_grad(attrs, inputs, out, dout):
    from .. import ops
    x, indices, u = inputs
    op = attrs["op"]
    if op in ("mul", "div"):
        product = scatter_reduce_p(ops.ones_like(x), indices, u, op="mul")
        dx = dout * product if op == "mul" else dout / product
        du = _gather(dout * x, indices)
        if op == "div":
            du = -du / (u * u)
        return dx, None, du
    kept_x = (out == x).astype(dout.dtype)
    du = _gather(dout, indices) * (u == _gather(out, indices)).astype(dout.dtype)
    return dout * kept_x, None, du
