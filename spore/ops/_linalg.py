"""Linear-algebra ops with MindSpore's signatures.

``matmul`` and ``einsum`` are primitives; everything else here (bmm, dense, dot,
inner, outer, tensor_dot, batch_dot, addmm, baddbmm, trace, kron, ...) is a
composite of them and the array primitives, so it needs no gradient rule of
its own. Products never promote dtypes (MindSpore raises TypeError for
``float16 @ float32``); ``outer``, ``kron`` and ``vecdot`` are elementwise
products and do promote.
"""
from __future__ import annotations

import functools
import string

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray
from .._prims import math as M
from .._prims import reduce as R
from .._prims import linalg as L
from .._prims.array import broadcast_to_p, eye_p, reshape_p, roll_p, transpose_p
from .._prims.linalg import dense_p, einsum_p, matmul_p, swap_last
from ._utils import as_tensor, normalize_dim, to_np_dtype


def _rank_error(name, arg, x, want):
    return ValueError(f"For '{name}', '{arg}' must be {want}, but got a tensor of shape "
                      f"{list(x.shape)}.")


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ----------------------------------------------------------------- matrix products
def matmul(input, other):
    """Matrix product with NumPy's rules: 1-D operands are vectors, batch dimensions
    broadcast. Both inputs must have the same dtype.

    Examples:
        >>> ops.matmul(ops.ones((2, 3)), ops.ones((3, 4))).shape
        (2, 4)
    """
    return matmul_p(input, other)


def bmm(input_x, mat2):
    """Batched matrix product of ``(*B, N, C)`` and ``(*B, C, M)`` tensors."""
    a, b = as_tensor(input_x), as_tensor(mat2)
    if a.ndim < 3:
        raise _rank_error("bmm", "input_x", a, "at least 3-D")
    if b.ndim < 3:
        raise _rank_error("bmm", "mat2", b, "at least 3-D")
    return matmul_p(a, b)


def mm(input, mat2):
    """Product of two matrices (both 2-D)."""
    a, b = as_tensor(input), as_tensor(mat2)
    for arg, x in (("input", a), ("mat2", b)):
        if x.ndim != 2:
            raise _rank_error("mm", arg, x, "2-D")
    return matmul_p(a, b)


def mv(mat, vec):
    """Matrix-vector product: ``(N, M) @ (M,) -> (N,)``."""
    a, v = as_tensor(mat), as_tensor(vec)
    if a.ndim != 2:
        raise _rank_error("mv", "mat", a, "2-D")
    if v.ndim != 1:
        raise _rank_error("mv", "vec", v, "1-D")
    return matmul_p(a, v)


def _scaled_sum(input, product, beta, alpha):
    """``beta * input + alpha * product``, skipping multiplications by one."""
    if alpha != 1:
        product = M.mul_p(product, alpha)
    if beta == 0:
        return product
    return M.add_p(M.mul_p(input, beta) if beta != 1 else input, product)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``."""
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``, as one matrix product."""
    b1, b2 = as_tensor(batch1), as_tensor(batch2)
    for arg, x in (("batch1", b1), ("batch2", b2)):
        if x.ndim != 3:
            raise _rank_error("addbmm", arg, x, "3-D")
    (nb, n, m), (nb2, m2, p) = b1.shape, b2.shape
    if nb != nb2 or m != m2:
        raise ValueError(f"For 'addbmm', 'batch1' {list(b1.shape)} and 'batch2' "
                         f"{list(b2.shape)} do not form a batch of matrix products.")
    wide = reshape_p(transpose_p(b1, perm=(1, 0, 2)), shape=(n, nb * m))
    tall = reshape_p(b2, shape=(nb * m, p))
    return _scaled_sum(input, matmul_p(wide, tall), beta, alpha)


def dense(input, weight, bias=None):
    """``input @ weight.T + bias``: ``weight`` is ``(out_channels, in_channels)`` (or 1-D)."""
    x, w = as_tensor(input), as_tensor(weight)
    if w.ndim not in (1, 2):
        raise _rank_error("dense", "weight", w, "1-D or 2-D")
    if x.ndim == 0 or x.shape[-1] != w.shape[-1]:
        raise ValueError(f"For 'dense', the last dimension of 'input' {list(x.shape)} must "
                         f"equal the last dimension of 'weight' {list(w.shape)}.")
    if _fused_dense(x, w, bias):
        return dense_p(x, w) if bias is None else dense_p(x, w, bias)
    out = matmul_p(x, w if w.ndim == 1 else swap_last(w))
    return out if bias is None else M.add_p(out, bias)


_DENSE_DTYPES = frozenset(np.dtype(d) for d in (np.float16, np.float32, np.float64)) | {
    D.bfloat16.np}


def _fused_dense(x, w, bias):
    """Whether the Dense primitive computes this call (NOTE: [Dense]); other cases keep
    the composite, whose errors are MatMul's and Add's as in MindSpore."""
    dt = x._data.dtype
    if w.ndim != 2 or dt not in _DENSE_DTYPES or w._data.dtype != dt:
        return False
    return bias is None or (isinstance(bias, P._Tensor) and bias._data.dtype == dt
                            and tuple(bias.shape) == (w.shape[0],))


# ----------------------------------------------------------------- contractions
def _contract(name, a, b, axes_a, axes_b):
    """Contract ``a`` over ``axes_a`` with ``b`` over ``axes_b`` (one matrix product)."""
    axes_a = [normalize_dim(name, i, a.ndim, "axes") for i in axes_a]
    axes_b = [normalize_dim(name, i, b.ndim, "axes") for i in axes_b]
    if len(axes_a) != len(axes_b):
        raise ValueError(f"For '{name}', both inputs must contract the same number of axes, "
                         f"but got {len(axes_a)} and {len(axes_b)}.")
    for i, j in zip(axes_a, axes_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"For '{name}', contracted dimensions must match, but got "
                             f"{a.shape[i]} (axis {i} of {list(a.shape)}) and {b.shape[j]} "
                             f"(axis {j} of {list(b.shape)}).")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [j for j in range(b.ndim) if j not in axes_b]
    k = _size(a.shape[i] for i in axes_a)
    left = reshape_p(_permuted(a, free_a + axes_a), shape=(_size(a.shape[i] for i in free_a), k))
    right = reshape_p(_permuted(b, axes_b + free_b), shape=(k, _size(b.shape[j] for j in free_b)))
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    return reshape_p(matmul_p(left, right), shape=out_shape)


def _permuted(x, perm):
    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else transpose_p(x, perm=perm)


def tensor_dot(x1, x2, axes):
    """Sum of products over the given axes: ``axes`` an int ``n`` (the last ``n`` of ``x1``
    with the first ``n`` of ``x2``) or a pair ``(axes_x1, axes_x2)``."""
    a, b = as_tensor(x1), as_tensor(x2)
    if isinstance(axes, P._Tensor):
        axes = axes.asnumpy().tolist()
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise ValueError(f"For 'tensor_dot', 'axes' must be in [0, "
                             f"{min(a.ndim, b.ndim)}], but got {n}.")
        return _contract("tensor_dot", a, b, range(a.ndim - n, a.ndim), range(n))
    if not isinstance(axes, (tuple, list)) or len(axes) != 2:
        raise TypeError(f"For 'tensor_dot', 'axes' must be an int or a pair of axis lists, "
                        f"but got {axes!r}.")
    axes_a, axes_b = ((list(ax) if isinstance(ax, (tuple, list)) else [ax]) for ax in axes)
    return _contract("tensor_dot", a, b, axes_a, axes_b)


def dot(input, other):
    """NumPy's ``dot``: the last axis of ``input`` against the second-to-last of ``other``
    (its only axis when 1-D)."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return M.mul_p(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul_p(a, b)
    return _contract("dot", a, b, [-1], [-1 if b.ndim == 1 else -2])


def inner(input, other):
    """Sum of products over the last axes of both inputs (a product when either is 0-d)."""
    a, b = as_tensor(input), as_tensor(other)
    if a.ndim == 0 or b.ndim == 0:
        return M.mul_p(a, b)
    if b.ndim == 1:
        return matmul_p(a, b) if a.shape[-1] == b.shape[0] else _contract("inner", a, b,
                                                                           [-1], [-1])
    return _contract("inner", a, b, [-1], [-1])


def outer(input, vec2):
    """Outer product of the flattened ``input`` and ``vec2``: shape ``(n, m)``."""
    a, b = as_tensor(input), as_tensor(vec2)
    return M.mul_p(reshape_p(a, shape=(_size(a.shape), 1)), reshape_p(b, shape=(1, _size(b.shape))))


ger = outer


def vecdot(x, y, *, axis=-1):
    """Dot products of vectors along ``axis`` (with broadcasting): ``sum(x * y, axis)``."""
    a, b = as_tensor(x), as_tensor(y)
    if a._data.dtype.kind == "c" or b._data.dtype.kind == "c":
        raise TypeError("For 'vecdot', complex inputs are not supported.")
    prod = M.mul_p(a, b)
    return R.sum_p(prod, axis=(normalize_dim("vecdot", axis, prod.ndim),), keepdims=False)


def batch_dot(x1, x2, axes=None):
    """Per-sample ``tensor_dot`` over one axis pair; dimension 0 is the batch.

    ``axes`` (int or pair) names the contracted axis of each input; the default is the
    last axis of ``x1`` with the second-to-last of ``x2`` (its last when ``x2`` is 2-D).
    A 2-D input is treated as a batch of vectors and its extra dimension is squeezed.
    """
    a, b = as_tensor(x1), as_tensor(x2)
    for arg, x in (("x1", a), ("x2", b)):
        if x.ndim < 2:
            raise _rank_error("batch_dot", arg, x, "at least 2-D")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"For 'batch_dot', the batch sizes must match, but got "
                         f"{a.shape[0]} and {b.shape[0]}.")
    ax_a, ax_b = _batch_dot_axes(a.ndim, b.ndim, axes)
    a_was_2d, b_was_2d = a.ndim == 2, b.ndim == 2
    if a_was_2d:
        a, ax_a = reshape_p(a, shape=(a.shape[0], 1, a.shape[1])), ax_a + 1
    if b_was_2d:
        b = reshape_p(b, shape=tuple(b.shape) + (1,))
    if a.shape[ax_a] != b.shape[ax_b]:
        raise ValueError(f"For 'batch_dot', contracted dimensions must match, but got "
                         f"{a.shape[ax_a]} and {b.shape[ax_b]} (shapes {list(a.shape)} and "
                         f"{list(b.shape)}, axes {[ax_a, ax_b]}).")
    free_a = [i for i in range(1, a.ndim) if i != ax_a]
    free_b = [j for j in range(1, b.ndim) if j != ax_b]
    n, k = a.shape[0], a.shape[ax_a]
    left = reshape_p(_permuted(a, [0] + free_a + [ax_a]),
                     shape=(n, _size(a.shape[i] for i in free_a), k))
    right = reshape_p(_permuted(b, [0, ax_b] + free_b),
                      shape=(n, k, _size(b.shape[j] for j in free_b)))
    shape = (n,) + tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    out = reshape_p(matmul_p(left, right), shape=shape)
    if a_was_2d:
        out = reshape_p(out, shape=shape[:1] + shape[2:])
    elif b_was_2d:
        out = reshape_p(out, shape=shape[:-1])
    return out


def _batch_dot_axes(nd_a, nd_b, axes):
    if axes is None:
        return nd_a - 1, nd_b - (1 if nd_b == 2 else 2)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        pair = (int(axes), int(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        pair = tuple(axes)
    else:
        raise ValueError(f"For 'batch_dot', 'axes' must be an int or a pair of ints, but got "
                         f"{axes!r}.")
    out = []
    for a, nd in zip(pair, (nd_a, nd_b)):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"For 'batch_dot', 'axes' entries must be int, but got {a!r}.")
        a = int(a) + nd if a < 0 else int(a)
        if not 0 < a < nd:
            raise ValueError(f"For 'batch_dot', 'axes' {axes!r} must name non-batch "
                             f"dimensions (1 to {nd - 1}).")
        out.append(a)
    return tuple(out)


# ----------------------------------------------------------------- einsum
def einsum(equation, *operands):
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', a, b)``.

    Supports implicit outputs (``'ij,jk'``), ``...`` with broadcasting, repeated
    subscripts (diagonals, ``'ii->i'``) and sums. Operands must share one floating dtype.
    """
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = tuple(operands[0])
    xs = [as_tensor(x) for x in operands]
    if not isinstance(equation, str):
        raise TypeError(f"For 'Einsum', 'equation' must be a str, but got "
                        f"{type(equation).__name__}.")
    for i, x in enumerate(xs):
        if x._data.dtype.kind in "biu":
            raise TypeError(f"For 'Einsum', the operands must be floating-point tensors, but "
                            f"operands[{i}] is {x.dtype}.")
    eq, targets = _explicit_equation(equation, tuple(tuple(x.shape) for x in xs))
    xs = [x if t is None else broadcast_to_p(x, shape=t) for x, t in zip(xs, targets)]
    return einsum_p(*xs, equation=eq)


@functools.lru_cache(maxsize=512)
def _explicit_equation(equation, shapes):
    """``equation`` with letters only and an explicit output, and for each operand the
    shape to broadcast it to (its ``...`` dimensions of size 1 meeting larger ones), or
    None."""
    xs = [ShapedArray(s, np.float32) for s in shapes]
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(xs):
        raise ValueError(f"For 'Einsum', the equation '{equation}' names {len(subs)} operands "
                         f"but {len(xs)} were given.")
    for c in eq:
        if not (c in string.ascii_letters or c in ".,->"):
            raise ValueError(f"For 'Einsum', invalid character {c!r} in equation '{equation}'.")
    fresh = iter(c for c in string.ascii_letters if c not in eq)
    ranks = [x.ndim - (len(s) - 3) for s, x in zip(subs, xs) if "..." in s]
    if any(r < 0 for r in ranks):
        raise ValueError(f"For 'Einsum', an operand has fewer dimensions than '{equation}' "
                         "names.")
    ell = [next(fresh) for _ in range(max(ranks, default=0))]
    targets = _broadcast_ellipsis(subs, xs, ell)
    subs = [s.replace("...", "".join(ell[len(ell) - (x.ndim - len(s) + 3):])) if "..." in s
            else s for s, x in zip(subs, xs)]
    if arrow:
        out = out.replace("...", "".join(ell))
    else:
        letters = "".join(subs)
        single = sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ell)
        out = "".join(ell) + "".join(single)
    return ",".join(subs) + "->" + out, targets


def _broadcast_ellipsis(subs, xs, ell):
    """Target shapes for operands whose size-1 ``...`` dimensions meet larger ones in
    other operands (None for the others)."""
    sizes = {}
    spans = []
    for s, x in zip(subs, xs):
        if "..." not in s:
            spans.append(None)
            continue
        start = s.index("...")
        r = x.ndim - (len(s) - 3)
        dims = list(range(start, start + r))
        spans.append(dims)
        for letter, d in zip(ell[len(ell) - r:], dims):
            size = x.shape[d]
            if size != 1:
                sizes.setdefault(letter, size)
    out = []
    for s, x, dims in zip(subs, xs, spans):
        if dims:
            shape = list(x.shape)
            for letter, d in zip(ell[len(ell) - len(dims):], dims):
                if shape[d] == 1 and sizes.get(letter, 1) != 1:
                    shape[d] = sizes[letter]
            if tuple(shape) != tuple(x.shape):
                out.append(tuple(shape))
                continue
        out.append(None)
    return tuple(out)


# ----------------------------------------------------------------- trace, kron
def _trace(name, input, offset=0, axis1=0, axis2=1, dtype=None):
    x = as_tensor(input)
    if x._data.dtype == np.bool_:
        raise TypeError(f"For '{name}', bool inputs are not supported.")
    if x.ndim < 2:
        raise _rank_error(name, "input", x, "at least 2-D")
    a1 = normalize_dim(name, axis1, x.ndim, "axis1")
    a2 = normalize_dim(name, axis2, x.ndim, "axis2")
    if a1 == a2:
        raise ValueError(f"For '{name}', 'axis1' and 'axis2' must differ, but both are {a1}.")
    shape = [1] * x.ndim
    shape[a1], shape[a2] = x.shape[a1], x.shape[a2]
    eye = np.eye(x.shape[a1], x.shape[a2], k=int(offset), dtype=bool)
    if a1 > a2:
        eye = eye.T
    diagonal = M.where_p(P.wrap(eye.reshape(shape)), x, 0)
    out_dtype = to_np_dtype(dtype) if dtype is not None else x._data.dtype
    return R.sum_p(diagonal, axis=tuple(sorted((a1, a2))), keepdims=False, dtype=out_dtype)


def trace(input):
    """Sum of the main diagonal of a 2-D tensor (the dtype is kept)."""
    x = as_tensor(input)
    if x.ndim != 2:
        raise _rank_error("trace", "input", x, "2-D")
    return _trace("trace", x)


def kron(input, other):
    """Kronecker product (inputs of different rank are aligned at their last dimension)."""
    a, b = as_tensor(input), as_tensor(other)
    nd = a.ndim if a.ndim > b.ndim else b.ndim
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    left = reshape_p(a, shape=tuple(s for d in sa for s in (d, 1)))
    right = reshape_p(b, shape=tuple(s for d in sb for s in (1, d)))
    return reshape_p(M.mul_p(left, right), shape=tuple(p * q for p, q in zip(sa, sb)))


# ----------------------------------------------------------------- inverse, determinants
def inverse(input):
    """Inverse of a (batch of) square matrices (floating-point or complex)."""
    return L.inverse_p(as_tensor(input))


def det(input):
    """Determinant of a (batch of) square matrices."""
    return L.det_p(as_tensor(input))


matrix_determinant = det


def slogdet(input):
    """``(sign, log|det|)`` of a (batch of) square matrices."""
    return L.slogdet_p(as_tensor(input))


log_matrix_determinant = slogdet


def logdet(input):
    """``log(det(input))``: NaN where the determinant is negative, -inf where it is 0."""
    sign, logabs = slogdet(input)
    return M.where_p(M.greater_p(sign, 0), logabs,
                     M.where_p(M.equal_p(sign, 0), float("-inf"), float("nan")))


def matrix_power(input, n):
    """``input`` multiplied by itself ``n`` times (``n < 0``: powers of the inverse;
    ``n == 0``: identity matrices)."""
    x = as_tensor(input)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise _rank_error("matrix_power", "input", x, "a (batch of) square matrices")
    n = int(n)
    if n == 0:
        k = x.shape[-1]
        return broadcast_to_p(eye_p(n=k, m=k, dtype=x._data.dtype), shape=tuple(x.shape))
    if n < 0:
        x, n = inverse(x), -n
    result, square = None, x
    while n:                                   # binary powering: O(log n) products
        if n & 1:
            result = square if result is None else matmul_p(result, square)
        n >>= 1
        if n:
            square = matmul_p(square, square)
    return result


# ----------------------------------------------------------------- cross, distances, addr
def cross(input, other, dim=None):
    """Cross product of 3-vectors along ``dim`` (default: the first dimension of size 3)."""
    a, b = as_tensor(input), as_tensor(other)
    shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
    if dim is None:
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise ValueError(f"For 'cross', no dimension of size 3 in shape {list(shape)}.")
        dim = dims[0]
    d = normalize_dim("cross", dim, len(shape), "dim")
    if shape[d] != 3:
        raise ValueError(f"For 'cross', dimension {d} must have size 3, but the inputs "
                         f"broadcast to {list(shape)}.")
    a, b = broadcast_to_p(a, shape=shape), broadcast_to_p(b, shape=shape)

    def rolled(t, k):
        return roll_p(t, shifts=(k,), axes=(d,))
    # (a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1}, indices modulo 3
    return M.sub_p(M.mul_p(rolled(a, -1), rolled(b, -2)), M.mul_p(rolled(a, -2), rolled(b, -1)))


def cdist(x1, x2, p=2.0):
    """p-norm distances between the rows of ``x1`` ``(.., P, M)`` and ``x2`` ``(.., R, M)``:
    shape ``(.., P, R)``."""
    a, b = as_tensor(x1), as_tensor(x2)
    for arg, x in (("x1", a), ("x2", b)):
        if x.ndim < 2:
            raise _rank_error("cdist", arg, x, "at least 2-D")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"For 'cdist', 'x1' and 'x2' must have the same number of columns, "
                         f"but got {a.shape[-1]} and {b.shape[-1]}.")
    from ._reduce import vector_norm
    rows = reshape_p(a, shape=tuple(a.shape[:-1]) + (1, a.shape[-1]))
    cols = reshape_p(b, shape=tuple(b.shape[:-2]) + (1,) + tuple(b.shape[-2:]))
    return vector_norm(M.sub_p(rows, cols), p, -1)


def dist(input, other, p=2):
    """The p-norm of ``input - other`` (all elements)."""
    from ._reduce import vector_norm
    return vector_norm(M.sub_p(as_tensor(input), as_tensor(other)), p)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``beta * x + alpha * outer(vec1, vec2)``."""
    return _scaled_sum(x, outer(vec1, vec2), beta, alpha)


# ----------------------------------------------------------------- Tensor methods
def _tensor_trace(self, offset=0, axis1=0, axis2=1, dtype=None):
    """``Tensor.trace``: NumPy's signature (sum of a diagonal between two axes)."""
    return _trace("trace", self, offset, axis1, axis2, dtype)


TENSOR_METHODS = {
    "trace": _tensor_trace, "mm": mm, "inner": inner, "baddbmm": baddbmm, "addbmm": addbmm,
    "addmv": addmv, "kron": kron, "mv": mv, "vecdot": vecdot,
}


from ._utils import public_functions as _public_functions  # noqa: E402

__all__ = _public_functions(globals(), __name__)
