"""Linear-algebra primitives: matmul, einsum and singular values.

Half-precision products compute in float32 and round once, since NumPy's BLAS
has no half-precision GEMM. Everything else in ``spore.ops._linalg`` (bmm, dense,
tensor_dot, kron, trace, ...) is composed from these and the array primitives.
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
import string

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray
from ._base import dtype_name, grad_for, np_dtype, unbroadcast
from .array import reshape_p, transpose_p
from .math import mul_p, neg_p
from .reduce import sum_p

Primitive = P.Primitive
_HALF = frozenset((np.dtype(np.float16), D.bfloat16.np))
_SCALARS = (bool, int, float, complex)


def _in_float32(xp, fn, *arrays):
    """``fn(*arrays)``, computed in float32 when the inputs are half precision."""
    if arrays and arrays[0].dtype in _HALF:
        dt = arrays[0].dtype
        return xp.asarray(fn(*[a.astype(np.float32) for a in arrays])).astype(dt)
    return fn(*arrays)


def _check_same_dtype(name, named):
    """Products do not promote (MindSpore): every operand must have the first one's dtype."""
    (first, x0), rest = named[0], named[1:]
    for arg, x in rest:
        if np.dtype(x.dtype) != np.dtype(x0.dtype):
            raise TypeError(f"For '{name}', the type of '{arg}' should be same as '{first}', but "
                            f"got '{first}' with type Tensor[{dtype_name(x0.dtype)}] and '{arg}' "
                            f"with type Tensor[{dtype_name(x.dtype)}].")
    if np.dtype(x0.dtype) == np.bool_:
        raise TypeError(f"For '{name}', bool inputs are not supported.")


# ----------------------------------------------------------------- matmul
def matmul_shape(a, b):
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
    _check_same_dtype("MatMul", [("x1", x), ("x2", y)])
    xs, ys = tuple(x.shape), tuple(y.shape)
    if attrs.get("transpose_a") or attrs.get("transpose_b"):
        if len(xs) < 2 or len(ys) < 2:
            raise ValueError(f"For 'MatMul', transposed operands must be at least 2-D, but got "
                             f"shapes {list(xs)} and {list(ys)}.")
        xs = xs[:-2] + xs[:-3:-1] if attrs.get("transpose_a") else xs
        ys = ys[:-2] + ys[:-3:-1] if attrs.get("transpose_b") else ys
    return ShapedArray(matmul_shape(xs, ys), x.dtype)


def _make_matmul(xp):
    def product(x, y):
        if x.ndim > 2 and y.ndim == 2:
            # one GEMM over the folded batch: several times faster than NumPy's batched loop
            lead = x.shape[:-1]
            return product(x.reshape(-1, x.shape[-1]), y).reshape(lead + (y.shape[-1],))
        if xp is np and _few_rows_times_transposed(x, y):
            return xp.ascontiguousarray(xp.matmul(y.T, x.T).T)
        if xp is np and (x.ndim > 2 or y.ndim > 2):
            out = batched_gemm(x, y)
            if out is not None:
                return out
        return xp.matmul(x, y)

    def matmul(x, y, transpose_a=False, transpose_b=False):
        if transpose_a:
            x = xp.swapaxes(x, -1, -2)
        if transpose_b:
            y = xp.swapaxes(y, -1, -2)
        return _in_float32(xp, product, x, y)
    return matmul


def _few_rows_times_transposed(x, y):
    """``x @ w.T`` with few rows in ``x`` (a dense layer on a small batch): OpenBLAS
    computes the transposed product ``w @ x.T`` 1.4-2x faster (32 x 1024 x 1024: 0.78
    against 1.30 ms, one thread), and copying the small result back costs little."""
    return (x.ndim == 2 and y.ndim == 2 and x.shape[0] <= _FEW_ROWS
            and y.shape[1] >= 2 * x.shape[0] and y.strides[0] < y.strides[1]
            and x.flags.c_contiguous)


_FEW_ROWS = 64


# NOTE: [Batched GEMM]
# NumPy's matmul runs a batch of products (attention's (B*heads, 197, 32) @ (B*heads,
# 32, 197) and their gradients) as one BLAS call per item, and OpenBLAS splits each of
# these small products over its threads: a hand-over and a wait per item. OpenBLAS
# (0.3.31 in NumPy 2.4's wheels) also has ``cblas_?gemm_batch``, which takes the items'
# addresses and gives whole items to its threads, each computed by the one-thread GEMM.
# On the 2-vCPU EPYC (loaded, interleaved) a product takes 0.7-1.0x NumPy's time, and
# the W5 training step 0.91x (more where other processes load the cores: each hand-over
# then waits for a descheduled thread; BENCHMARKS.md "helper w5mm"). It runs on the BLAS's own threads, so it does
# not compete with them as Spore's pool would; their count is the BLAS's, as for every
# matrix product. Every item is the one-thread ``?gemm`` of its operands in place (any
# row or column stride, broadcast batch axes, one call for the whole batch), so the
# result is the bits NumPy gives with one BLAS thread, whatever the thread count;
# NumPy's own two-thread products differ from those in the last bits. Only items of
# more than GEMM_BATCH_MIN multiply-adds take this path: smaller ones would go to
# OpenBLAS's small-matrix kernels there, which are not what ``?gemm`` runs (and crashed
# for some transposes in the build tested). Where the routine is missing (other BLAS
# builds) or ``SPORE_BLAS_BATCH=0``, NumPy computes.
GEMM_BATCH_MIN = 1_000_000
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_batch_routines = {}


def batched_gemm(x, y):
    """``np.matmul(x, y)`` for float32/float64 batches of large products through the
    BLAS's batch routine (NOTE: [Batched GEMM]); None where it does not apply."""
    if x.dtype != y.dtype or x.ndim < 2 or y.ndim < 2:
        return None
    plan = _batch_plan(x.shape, x.strides, y.shape, y.strides, x.dtype)
    if plan is None:
        return None
    xa, ya = x.ctypes.data, y.ctypes.data
    if xa % x.itemsize or ya % y.itemsize:
        return None                     # the BLAS needs whole elements
    gemm, shape, offsets, args, _ = plan
    out = np.empty(shape, x.dtype)
    addresses = (offsets + np.array([xa, ya, out.ctypes.data], np.int64)[:, None]
                 ).astype(np.uintp)
    a, b, c = (addresses.ctypes.data + i * addresses.strides[0] for i in range(3))
    ta, tb, m, n, k, lda, ldb, alpha, beta, ldc, count = args
    gemm(_ROW_MAJOR, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, count)
    return out


@functools.lru_cache(maxsize=256)
def _batch_plan(xshape, xstrides, yshape, ystrides, dtype):
    """What a batch-routine call needs for operands of these layouts, once per layout:
    the routine, the result's shape, each matrix's byte offset from its operand's start
    (rows: x, y, the result), the addresses of the integer, flag and scalar arguments;
    None where the routine does not apply."""
    routine = _batch_routine(dtype)
    if routine is None:
        return None
    m, k = xshape[-2:]
    n = yshape[-1]
    if m * n * k <= GEMM_BATCH_MIN or yshape[-2] != k:
        return None
    try:
        batch = np.broadcast_shapes(xshape[:-2], yshape[:-2])
    except ValueError:
        return None
    size = dtype.itemsize
    la, lb = _item_layout(xshape, xstrides, size), _item_layout(yshape, ystrides, size)
    count = math.prod(batch)
    if la is None or lb is None or count < 2:
        return None
    gemm, index, real = routine
    if max(la[1], lb[1], m, n, k, count) > np.iinfo(index).max:
        return None                     # a 32-bit BLAS and a dimension beyond its ints
    offsets = np.stack([_item_offsets(xshape, xstrides, batch),
                        _item_offsets(yshape, ystrides, batch),
                        np.arange(count, dtype=np.int64) * (m * n * size)])  # C-order result
    ints = np.array([m, n, k, la[1], lb[1], n, count], index)
    flags = np.array([la[0], lb[0]], np.intc)
    scalars = np.array([1, 0], real)
    for a in (offsets, ints, flags, scalars):
        a.flags.writeable = False
    at, step, f, r = ints.ctypes.data, ints.itemsize, flags.ctypes.data, scalars.ctypes.data
    args = (f, f + 4, at, at + step, at + 2 * step, at + 3 * step, at + 4 * step, r,
            r + size, at + 5 * step, at + 6 * step)   # the addresses of the routine's arguments
    # the last item keeps the arrays that ``args`` points into alive
    return gemm, batch + (m, n), offsets, args, (ints, flags, scalars)


def _item_layout(shape, strides, size):
    """(CBLAS transpose flag, leading dimension) of each matrix of an array of this
    shape and these byte strides, or None where its rows or its columns are not
    contiguous (or not aligned) in memory."""
    rs, cs = strides[-2:]
    r, c = shape[-2:]
    if rs % size or cs % size or rs < 0 or cs < 0:
        return None
    if cs == size and rs >= c * size:
        return _NO_TRANS, rs // size
    if rs == size and cs >= r * size:
        return _TRANS, cs // size
    return None


def _item_offsets(shape, strides, batch):
    """The byte offset of each matrix of an array broadcast to the ``batch`` axes, in C
    order (a broadcast axis steps by 0)."""
    lead = len(batch) - (len(shape) - 2)
    steps = (0,) * lead + tuple(0 if s == 1 else st
                                for s, st in zip(shape[:-2], strides[:-2]))
    offsets = np.zeros((), np.int64)
    for size, step in zip(batch, steps):
        offsets = np.add.outer(offsets, np.arange(size, dtype=np.int64) * step)
    return offsets.reshape(-1)


def _batch_routine(dtype):
    """``(cblas_?gemm_batch, its integer type, its real type)`` of NumPy's OpenBLAS for
    float32/float64, or None."""
    if not _batch_routines:
        _bind_batch_routines()
    return _batch_routines.get(dtype)


def _bind_batch_routines():
    from .._core.backend import _blas_config, _numpy_blas
    _batch_routines[None] = None
    lib = _numpy_blas() if os.environ.get("SPORE_BLAS_BATCH", "1") != "0" else None
    if lib is None:
        return
    ptr = ctypes.c_void_p
    plain = np.int64 if b"USE64BITINT" in _blas_config(lib) else np.intc
    for dtype, kind, real in ((np.float32, "s", np.float32), (np.float64, "d", np.float64)):
        for name, index in ((f"scipy_cblas_{kind}gemm_batch64_", np.int64),
                            (f"cblas_{kind}gemm_batch64_", np.int64),
                            (f"cblas_{kind}gemm_batch", plain)):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes = (ctypes.c_int,) + (ptr,) * 13 + (
                    ctypes.c_int64 if index is np.int64 else ctypes.c_int, ptr)
                fn.restype = None
                _batch_routines[np.dtype(dtype)] = (fn, index, real)
                break


def _matmul_prepare(args):
    x, y = [P._unwrap_input(matmul_p, a) for a in args]
    for name, v in (("x1", x), ("x2", y)):
        if v is None or isinstance(v, _SCALARS):
            raise TypeError(f"For 'MatMul', the input '{name}' must be a Tensor, but got "
                            f"{type(v).__name__}.")
    if x.dtype != y.dtype or x.ndim == 0 or y.ndim == 0 or x.dtype == np.bool_:
        _matmul_infer({}, x, y)
    return [x, y]


matmul_p = Primitive("MatMul", _make_matmul, kind="opaque", n_inputs=2, infer=_matmul_infer,
                     prepare=_matmul_prepare)


def _specialize_matmul(attrs, avals):
    """Compiled code calls ``np.matmul`` itself for plain float32/64 2-D products: the
    eager kernel's layout choices only pick among equal results for these."""
    x, y = avals
    if attrs.get("transpose_a") or attrs.get("transpose_b") or not hasattr(x, "shape") \
            or not hasattr(y, "shape") or len(x.shape) != 2 or len(y.shape) != 2:
        return None
    if x.dtype != y.dtype or x.dtype not in (np.float32, np.float64):
        return None
    return np.matmul


matmul_p.specializer = _specialize_matmul


# NOTE: [MatMul gradients]
# MatMul takes MindSpore's ``transpose_a``/``transpose_b`` attributes, so the
# gradient products g B^T and A^T g run without separate Transpose ops. Each
# cotangent is computed in its operand's memory layout (see ``_transposed``): a
# transposed view such as ``w.T`` gets the transpose of a contiguous product, so
# the cotangent reaching ``w`` is contiguous and the optimizer's elementwise
# update streams memory in order.
@matmul_p.def_grad(inputs=(0, 1), needed=True)
def _matmul_grad(attrs, inputs, out, dout, needed):
    x, y = inputs
    ta, tb = attrs.get("transpose_a", False), attrs.get("transpose_b", False)
    xs, ys = tuple(x.shape), tuple(y.shape)
    # promote 1-D operands to matrices so one formula covers every case (the transpose
    # attributes come only with operands of 2 or more dimensions)
    x2 = reshape_p(x, shape=(1,) + xs) if len(xs) == 1 else x
    y2 = reshape_p(y, shape=ys + (1,)) if len(ys) == 1 else y
    gshape = tuple(dout.shape)
    if len(xs) == 1:
        gshape = gshape[:-1] + (1,) + gshape[-1:] if len(ys) > 1 else gshape + (1,)
    if len(ys) == 1:
        gshape = gshape + (1,)
    g2 = reshape_p(dout, shape=gshape) if gshape != tuple(dout.shape) else dout
    gx = gy = None
    if needed[0]:
        gx = unbroadcast(_grad_left(x2, y2, g2, ta, tb), ShapedArray(x2.shape, np_dtype(x)))
        gx = reshape_p(gx, shape=xs) if len(xs) == 1 else gx
    if needed[1]:
        if len(x2.shape) > 2 and len(y2.shape) == 2 and not ta:
            # a shared matrix: one GEMM over the folded batch instead of a batch of products
            rows = math.prod(x2.shape[:-1])
            gy = _grad_right(reshape_p(x2, shape=(rows, x2.shape[-1])), y2,
                             reshape_p(g2, shape=(rows, g2.shape[-1])), False, tb)
        else:
            gy = unbroadcast(_grad_right(x2, y2, g2, ta, tb),
                             ShapedArray(y2.shape, np_dtype(y)))
        gy = reshape_p(gy, shape=ys) if len(ys) == 1 else gy
    return gx, gy


def _grad_left(x, y, g, ta, tb):
    """Cotangent of ``x`` in ``op(x) @ op(y)``: dA = g op(y)^T, transposed when ``ta``."""
    flip = _transposed(x)               # computed transposed, handed back as a view
    if ta != flip:
        r = matmul_p(y, g, transpose_a=tb, transpose_b=True)            # dA^T
    else:
        r = matmul_p(g, y, transpose_b=not tb)                          # dA
    return swap_last(r) if flip else r


def _grad_right(x, y, g, ta, tb):
    """Cotangent of ``y`` in ``op(x) @ op(y)``: dB = op(x)^T g, transposed when ``tb``."""
    flip = _transposed(y)
    if tb != flip:
        r = matmul_p(g, x, transpose_a=True, transpose_b=ta)            # dB^T
    else:
        r = matmul_p(x, g, transpose_a=not ta)                          # dB
    return swap_last(r) if flip else r


def _transposed(t):
    """Whether a concrete operand's last two axes are stored swapped (a transposed view,
    e.g. ``w.T`` in ``dense``). Symbolic values (no data) count as not transposed."""
    data = getattr(t, "_data", None)
    strides = getattr(data, "strides", None)
    if strides is None or len(strides) < 2 or 1 in data.shape[-2:]:
        return False
    return strides[-1] > strides[-2]


def swap_last(t):
    """Transpose of the last two dimensions (a view)."""
    return transpose_p(t, perm=_SWAP_LAST[len(t.shape)])


_SWAP_LAST = {nd: tuple(range(nd - 2)) + (nd - 1, nd - 2) for nd in range(2, 33)}


# ----------------------------------------------------------------- dense
# NOTE: [Dense]
# ``x @ w.T + b`` as one primitive rather than transpose, matmul and add: one
# dispatch and one tape record instead of three, the bias added in place into the
# product, and a gradient that produces ``dw`` directly in the weight's (out, in)
# layout (no transposed view for the optimizer to stream through). Leading
# dimensions of ``x`` are folded into one GEMM. The public ``ops.dense`` uses it for
# floating-point inputs of one dtype with a 2-D weight and a (out,) bias; other
# cases are composites of matmul and add.
def _dense_infer(attrs, x, w, *bias):
    _check_same_dtype("Dense", [("x", x), ("w", w)] + [("b", b) for b in bias])
    if len(w.shape) != 2:
        raise ValueError(f"For 'Dense', the 'w' must be 2-D, but got shape {list(w.shape)}.")
    if not x.shape or x.shape[-1] != w.shape[1]:
        raise ValueError(f"For 'Dense', the last dimension of 'x' {list(x.shape)} must equal "
                         f"the last dimension of 'w' {list(w.shape)}.")
    if bias and tuple(bias[0].shape) != (w.shape[0],):
        raise ValueError(f"For 'Dense', the 'b' must have shape [{w.shape[0]}], but got "
                         f"{list(bias[0].shape)}.")
    return ShapedArray(tuple(x.shape[:-1]) + (w.shape[0],), x.dtype)


def _make_dense(xp):
    product = _make_matmul(xp)

    def dense(x, w, *bias):
        _dense_infer({}, x, w, *bias)
        y = product(x.reshape(-1, x.shape[-1]), w.T)
        if bias:
            y += bias[0]
        return y.reshape(x.shape[:-1] + (w.shape[0],))
    return dense


dense_p = Primitive("Dense", _make_dense, kind="opaque", infer=_dense_infer)


@dense_p.def_grad(inputs=(0, 1), needed=True)
def _dense_grad(attrs, inputs, out, dout, needed):
    """dx = g w, dw = g^T x (batch folded into the GEMM), db = g summed over rows."""
    x, w, *bias = inputs
    gx = matmul_p(dout, w) if needed[0] else None
    gw = None
    if needed[1]:
        rows = math.prod(x.shape[:-1])
        g2 = reshape_p(dout, shape=(rows, w.shape[0]))
        gw = matmul_p(g2, reshape_p(x, shape=(rows, w.shape[1])), transpose_a=True)
    grads = (gx, gw)
    if bias:
        lead = tuple(range(len(dout.shape) - 1))
        grads += (sum_p(dout, axis=lead, keepdims=False) if needed[2] and lead else
                  dout if needed[2] else None,)
    return grads


# ----------------------------------------------------------------- einsum
# The primitive takes an explicit equation over letters only ("ij,jk->ik"); the
# public op expands "..." and implicit outputs before calling it.
def parse_equation(equation):
    """``"ij,jk->ik"`` -> (["ij", "jk"], "ik")."""
    lhs, out = equation.split("->")
    return lhs.split(","), out


def letter_sizes(name, subs, shapes):
    """Map each subscript letter to its size, checking ranks and agreement."""
    sizes = {}
    for k, (sub, shape) in enumerate(zip(subs, shapes)):
        if len(sub) != len(shape):
            raise ValueError(f"For '{name}', operand {k} has {len(shape)} dimensions but its "
                             f"subscripts '{sub}' name {len(sub)}.")
        for letter, s in zip(sub, shape):
            if sizes.setdefault(letter, s) != s:
                raise ValueError(f"For '{name}', subscript '{letter}' has size {sizes[letter]} "
                                 f"in one operand and {s} in another (operand {k}).")
    return sizes


def _einsum_infer(attrs, *xs):
    subs, out = parse_equation(attrs["equation"])
    if len(subs) != len(xs):
        raise ValueError(f"For 'Einsum', the equation names {len(subs)} operands but "
                         f"{len(xs)} were given.")
    _check_same_dtype("Einsum", [(f"operands[{i}]", x) for i, x in enumerate(xs)])
    sizes = letter_sizes("Einsum", subs, [tuple(x.shape) for x in xs])
    for letter in out:
        if letter not in sizes or out.count(letter) > 1:
            raise ValueError(f"For 'Einsum', output subscript '{letter}' must appear exactly "
                             "once in the output and at least once in the inputs.")
    return ShapedArray(tuple(sizes[c] for c in out), xs[0].dtype)


# Below this many multiply-adds NumPy's direct einsum loop beats any reshaping.
_SMALL_EINSUM = 1 << 14


def _make_einsum(xp):
    def einsum(*xs, equation):
        plan = _einsum_plan(equation, tuple(x.shape for x in xs),
                            tuple(np.dtype(x.dtype) for x in xs))
        if plan is None:
            # NumPy's own path search pays off only beyond two operands
            return _in_float32(xp, lambda *a: xp.einsum(equation, *a, optimize=len(a) > 2),
                               *xs)
        return _in_float32(xp, lambda a, b: _pair_by_matmul(xp, plan, a, b), *xs)
    return einsum


@functools.lru_cache(maxsize=512)
def _einsum_plan(equation, shapes, dtypes):
    """Validate once per signature; for a large two-operand contraction without
    diagonals, the transposes and reshapes that turn it into one matrix product."""
    _einsum_infer({"equation": equation}, *[ShapedArray(s, d) for s, d in zip(shapes, dtypes)])
    subs, out = parse_equation(equation)
    sizes = letter_sizes("Einsum", subs, shapes)
    work = float(np.prod([float(v) for v in sizes.values()]))
    if len(subs) != 2 or work <= _SMALL_EINSUM or any(len(set(s)) != len(s) for s in subs):
        return None
    sa, sb = subs
    private_a = tuple(i for i, c in enumerate(sa) if c not in sb + out)
    private_b = tuple(i for i, c in enumerate(sb) if c not in sa + out)
    sa = "".join(c for c in sa if c in sb + out)
    sb = "".join(c for c in sb if c in sa + out)
    batch = [c for c in sa if c in sb and c in out]
    inner = [c for c in sa if c in sb and c not in out]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]

    def size(letters):
        return int(np.prod([sizes[c] for c in letters], dtype=np.int64))

    done = batch + left + right
    return (private_a, private_b,
            [sa.index(c) for c in batch + left + inner], (size(batch), size(left), size(inner)),
            [sb.index(c) for c in batch + inner + right], (size(batch), size(inner), size(right)),
            tuple(sizes[c] for c in done), [done.index(c) for c in out])


# Below this many multiply-adds NumPy's direct einsum loop beats any reshaping.
_SMALL_EINSUM = 1 << 14


def _pair_by_matmul(xp, plan, a, b):
    """A two-operand contraction as one (batched) matrix product: BLAS instead of
    einsum's element loop. Letters only in one operand and not in the output are
    summed first."""
    private_a, private_b, perm_a, shape_a, perm_b, shape_b, shape_out, perm_out = plan
    a = a.sum(axis=private_a) if private_a else a
    b = b.sum(axis=private_b) if private_b else b
    a2 = a.transpose(perm_a).reshape(shape_a)
    b2 = b.transpose(perm_b).reshape(shape_b)
    r = xp.matmul(a2[0], b2[0]) if shape_a[0] == 1 else xp.matmul(a2, b2)
    return xp.ascontiguousarray(r.reshape(shape_out).transpose(perm_out))


einsum_p = Primitive("Einsum", _make_einsum, kind="opaque", infer=_einsum_infer)


@einsum_p.def_grad(inputs="all")
def _einsum_grad(attrs, inputs, out, dout):
    """The cotangent of operand k is itself an einsum: the output cotangent and the other
    operands contracted back to operand k's subscripts (see ``_grad_equation``)."""
    subs, out_sub = parse_equation(attrs["equation"])
    sizes = letter_sizes("Einsum", subs, [tuple(x.shape) for x in inputs])
    grads = []
    for k, x in enumerate(inputs):
        others = [(s, t) for j, (s, t) in enumerate(zip(subs, inputs)) if j != k]
        eq, constants = _grad_equation(out_sub, [s for s, _ in others], subs[k], sizes)
        extra = [P.wrap(c.astype(np_dtype(dout))) for c in constants]
        g = einsum_p(dout, *[t for _, t in others], *extra, equation=eq)
        grads.append(grad_for(x, g))
    return tuple(grads)


def _grad_equation(out_sub, other_subs, target, sizes):
    """Equation (and constant operands) giving the cotangent of an operand with subscripts
    ``target``. A letter repeated in ``target`` (a diagonal) is written once and tied to
    its copies by identity matrices; a letter no other operand names (summed only
    inside this operand) is broadcast back by a vector of ones."""
    used = set(out_sub).union(*other_subs, target)
    fresh = iter(c for c in string.ascii_letters if c not in used)
    result, seen, inputs, constants = [], set(), [out_sub] + list(other_subs), []
    for letter in target:
        if letter in seen:
            twin = next(fresh)
            inputs.append(letter + twin)
            constants.append(np.eye(sizes[letter]))
            result.append(twin)
        else:
            seen.add(letter)
            result.append(letter)
    available = set("".join(inputs))
    for letter in sorted(seen - available):
        inputs.append(letter)
        constants.append(np.ones(sizes[letter]))
    return ",".join(inputs) + "->" + "".join(result), constants


# ----------------------------------------------------------------- singular values
def _svdvals_infer(attrs, x):
    d = np.dtype(x.dtype)
    if not (d.kind in "fc" or d == D.bfloat16.np):
        raise TypeError(f"For 'SingularValues', the input must be a floating-point tensor, "
                        f"but got {dtype_name(d)}.")
    if len(x.shape) < 2:
        raise ValueError(f"For 'SingularValues', the input must be at least 2-D, but got "
                         f"shape {list(x.shape)}.")
    m, n = x.shape[-2:]
    real = np.dtype(np.float32) if d == np.complex64 else (
        np.dtype(np.float64) if d == np.complex128 else d)
    return ShapedArray(tuple(x.shape[:-2]) + (min(m, n),), real)


def _make_svdvals(xp):
    def svdvals(x):
        values = lambda a: xp.linalg.svd(a, compute_uv=False)      # noqa: E731
        bad = ~xp.isfinite(x).all(axis=(-2, -1))
        if not bad.any():
            return _in_float32(xp, values, x)
        # LAPACK does not converge on NaN/inf: those matrices get NaN singular values
        s = _in_float32(xp, values, xp.where(bad[..., None, None], 0, x))
        s[bad] = np.nan
        return s
    return svdvals


def _make_svd(xp):
    def svd(x):
        half = x.dtype in _HALF
        u, s, vh = xp.linalg.svd(x.astype(np.float32) if half else x, full_matrices=False)
        if half:
            u, s, vh = u.astype(x.dtype), s.astype(x.dtype), vh.astype(x.dtype)
        return s, u, vh
    return svd


def _svd_infer(attrs, x):
    s = _svdvals_infer(attrs, x)
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = tuple(x.shape[:-2])
    return (s, ShapedArray(batch + (m, k), x.dtype), ShapedArray(batch + (k, n), x.dtype))


svdvals_p = Primitive("SingularValues", _make_svdvals, kind="opaque", n_inputs=1,
                      infer=_svdvals_infer)
svd_p = Primitive("Svd", _make_svd, kind="opaque", n_inputs=1, multiple_results=True,
                  nondiff=True, infer=_svd_infer)


@svdvals_p.def_grad(inputs=(0,))
def _svdvals_grad(attrs, inputs, out, dout):
    """d sigma_i = u_i^T dA v_i, so dA = U diag(dS) V^H."""
    (x,) = inputs
    _, u, vh = svd_p(x)
    ds = reshape_p(dout, shape=tuple(dout.shape[:-1]) + (1, dout.shape[-1]))
    return (grad_for(x, matmul_p(mul_p(u, ds), vh)),)


# ----------------------------------------------------------------- inverse and determinants
def _square_infer(name):
    def infer(attrs, x):
        d = np.dtype(x.dtype)
        if not (d.kind in "fc" or d == D.bfloat16.np):
            raise TypeError(f"For '{name}', the input must be a floating-point or complex "
                            f"tensor, but got {dtype_name(d)}.")
        if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"For '{name}', the input must be a (batch of) square matrices, "
                             f"but got shape {list(x.shape)}.")
        return ShapedArray(tuple(x.shape), d)
    return infer


def _make_inverse(xp):
    def inverse(x):
        _square_infer("MatrixInverse")({}, x)
        return _in_float32(xp, xp.linalg.inv, x)
    return inverse


inverse_p = Primitive("MatrixInverse", _make_inverse, kind="opaque", n_inputs=1,
                      infer=_square_infer("MatrixInverse"))


@inverse_p.def_grad(inputs=(), output=True)
def _inverse_grad(attrs, inputs, out, dout):
    """d(A^-1) = -A^-1 dA A^-1, so dA = -A^-T g A^-T."""
    (x,) = inputs
    inv_t = swap_last(out)
    return (grad_for(x, neg_p(matmul_p(inv_t, matmul_p(dout, inv_t)))),)


def _det_infer(attrs, x, name="MatrixDeterminant"):
    s = _square_infer(name)(attrs, x)
    return ShapedArray(tuple(x.shape[:-2]), s.dtype)


def _make_det(xp):
    def det(x):
        _square_infer("MatrixDeterminant")({}, x)
        return xp.asarray(_in_float32(xp, xp.linalg.det, x))
    return det


det_p = Primitive("MatrixDeterminant", _make_det, kind="opaque", n_inputs=1, infer=_det_infer)


@det_p.def_grad(inputs=(0,), output=True)
def _det_grad(attrs, inputs, out, dout):
    """d det(A) = det(A) tr(A^-1 dA), so dA = g det(A) A^-T (A must be invertible)."""
    (x,) = inputs
    scale = reshape_p(mul_p(dout, out), shape=tuple(out.shape) + (1, 1))
    return (grad_for(x, mul_p(scale, swap_last(inverse_p(x)))),)


def _slogdet_infer(attrs, x):
    s = _det_infer(attrs, x, "LogMatrixDeterminant")
    return s, s


def _make_slogdet(xp):
    def slogdet(x):
        _square_infer("LogMatrixDeterminant")({}, x)
        half = x.dtype in _HALF
        sign, logabs = xp.linalg.slogdet(x.astype(np.float32) if half else x)
        sign, logabs = xp.asarray(sign), xp.asarray(logabs)
        return (sign.astype(x.dtype), logabs.astype(x.dtype)) if half else (sign, logabs)
    return slogdet


slogdet_p = Primitive("LogMatrixDeterminant", _make_slogdet, kind="opaque", n_inputs=1,
                      multiple_results=True, infer=_slogdet_infer)


@slogdet_p.def_grad(inputs=(0,))
def _slogdet_grad(attrs, inputs, out, douts):
    """The sign is piecewise constant; d log|det A| = tr(A^-1 dA), so dA = g A^-T."""
    (x,) = inputs
    g = douts[1]
    if g is None:
        return (None,)
    g = reshape_p(g, shape=tuple(g.shape) + (1, 1))
    return (grad_for(x, mul_p(g, swap_last(inverse_p(x)))),)
