"""Linear-algebra primitives. Half-precision matmuls compute in float32 and round,
since NumPy's BLAS has no half-precision GEMM."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray
from ._base import unbroadcast, np_dtype

Primitive = P.Primitive
_HALF = (np.dtype(np.float16), D.bfloat16.np)


def _matmul_shape(a, b):
    a, b = tuple(a), tuple(b)
    if not a or not b:
        raise ValueError("For 'MatMul', the inputs must be at least 1-D, but got shapes "
                         f"{list(a)} and {list(b)}.")
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"For 'MatMul', the contracted dimensions must match, but got x1 shape "
                         f"{list(a)} and x2 shape {list(b)} ({a2[-1]} != {b2[-2]}).")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(f"For 'MatMul', the batch dimensions of {list(a)} and {list(b)} "
                         "cannot broadcast.") from None
    out = tuple(batch) + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


def _matmul_infer(attrs, x, y):
    if np.dtype(x.dtype) != np.dtype(y.dtype):
        raise TypeError(f"For 'MatMul', the type of 'x2' should be same as 'x1', but got 'x1' "
                        f"with type Tensor[{D.dtype_of(x.dtype)}] and 'x2' with type "
                        f"Tensor[{D.dtype_of(y.dtype)}].")
    if np.dtype(x.dtype) == np.bool_:
        raise TypeError("For 'MatMul', bool inputs are not supported.")
    return ShapedArray(_matmul_shape(x.shape, y.shape), x.dtype)


def _make_matmul(xp):
    def matmul(x, y):
        if x.dtype in _HALF:
            return xp.matmul(x.astype(np.float32), y.astype(np.float32)).astype(x.dtype)
        return xp.matmul(x, y)
    return matmul


def _matmul_prepare(args):
    x, y = [P._unwrap_input(matmul_p, a) for a in args]
    for name, v in (("x1", x), ("x2", y)):
        if isinstance(v, (bool, int, float, complex)):
            raise TypeError(f"For 'MatMul', the input '{name}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    _matmul_infer({}, x, y) if x.dtype != y.dtype or x.ndim == 0 or y.ndim == 0 else None
    return [x, y]


matmul_p = Primitive("MatMul", _make_matmul, kind="opaque", n_inputs=2, infer=_matmul_infer,
                     prepare=_matmul_prepare)


@matmul_p.def_grad(inputs=(0, 1))
def _matmul_grad(attrs, inputs, out, dout):
    from .array import reshape_p
    x, y = inputs
    xs, ys = tuple(x.shape), tuple(y.shape)
    g = dout
    # promote 1-D operands to matrices so one formula covers every case
    x2 = reshape_p(x, shape=(1,) + xs) if len(xs) == 1 else x
    y2 = reshape_p(y, shape=ys + (1,)) if len(ys) == 1 else y
    gshape = tuple(g.shape)
    if len(xs) == 1:
        gshape = gshape[:-1] + (1,) + gshape[-1:] if len(ys) > 1 else gshape + (1,)
    if len(ys) == 1:
        gshape = gshape + (1,)
    g2 = reshape_p(g, shape=gshape) if gshape != tuple(g.shape) else g
    gx = matmul_p(g2, _mT(y2))
    gy = matmul_p(_mT(x2), g2)
    gx = unbroadcast(gx, ShapedArray(x2.shape, np_dtype(x)))
    gy = unbroadcast(gy, ShapedArray(y2.shape, np_dtype(y)))
    if len(xs) == 1:
        gx = reshape_p(gx, shape=xs)
    if len(ys) == 1:
        gy = reshape_p(gy, shape=ys)
    return gx, gy


def _mT(t):
    from .array import transpose_p
    nd = len(t.shape)
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return transpose_p(t, perm=perm)
