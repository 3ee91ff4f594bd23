"""Sparse tensors: ``COOTensor``, ``CSRTensor``, ``RowTensor`` (and the old ``SparseTensor``).

NOTE: [Sparse tensors]
A sparse tensor is a container of ordinary Tensors: its index tensors (int32 or int64)
and a ``values`` Tensor, plus a static dense shape. Every operation is written with
Spore's dense operators on those tensors (gathers, segment sums, scatters), so values
carry gradients through ``grad`` and ``jit`` like any other Tensor, and nothing here
has its own kernel or gradient rule. Index tensors are taken as given: MindSpore does
not sort or deduplicate them either (``COOTensor.coalesce`` does).
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from ._tensor import Tensor


def _ops():
    from . import ops
    return ops


def _check_shape(shape, who):
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d > 0
            for d in shape):
        raise TypeError(f"For '{who}', 'shape' must be a tuple of positive ints, but got "
                        f"{shape!r}.")
    return tuple(int(d) for d in shape)


def _check_index(t, name, who):
    if not isinstance(t, Tensor):
        raise TypeError(f"For '{who}', '{name}' must be a Tensor, but got "
                        f"{type(t).__name__}.")
    if t.dtype not in (_dt().int32, _dt().int64, _dt().int16):
        raise TypeError(f"For '{who}', '{name}' must be an integer Tensor, but got {t.dtype}.")


def _dt():
    from . import _dtype
    return _dtype


class _Sparse:
    """What COOTensor and CSRTensor share: index tensors, ``values``, a dense shape."""

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._values.dtype)
    size = property(lambda self: self._values.shape[0])
    itemsize = property(lambda self: self._values.itemsize)
    ndim = property(lambda self: len(self._shape))

    def abs(self):
        return self._with_values(_ops().abs(self._values))

    def astype(self, dtype, copy=True):
        return self._with_values(self._values.astype(dtype))


class COOTensor(_Sparse):
    """A sparse tensor in coordinate format: ``indices`` [N, ndim] (int), ``values`` [N],
    ``shape`` (mindspore.COOTensor)."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        _check_index(indices, "indices", "COOTensor")
        if not isinstance(values, Tensor):
            raise TypeError(f"For 'COOTensor', 'values' must be a Tensor, but got "
                            f"{type(values).__name__}.")
        shape = _check_shape(shape, "COOTensor")
        if indices.ndim != 2 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
            raise ValueError(f"For 'COOTensor', 'indices' must be 2-D [N, ndim] and 'values' "
                             f"1-D [N], but got {list(indices.shape)} and "
                             f"{list(values.shape)}.")
        if indices.shape[1] != len(shape):
            raise ValueError(f"For 'COOTensor', 'indices' has {indices.shape[1]} columns for "
                             f"a shape of rank {len(shape)}.")
        idx = indices.asnumpy() if isinstance(indices._data, np.ndarray) else None
        if idx is not None and idx.size and ((idx < 0).any() or
                                             (idx >= np.array(shape)).any()):
            raise ValueError("For 'COOTensor', the 'indices' must be within 'shape'.")
        self._indices, self._values, self._shape = indices, values, shape


    def __repr__(self):
        return (f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, "
                f"indices={self._indices!r}, values={self._values!r})")

    def to_tuple(self):
        return self._indices, self._values, self._shape

    def to_dense(self):
        ops = _ops()
        zeros = ops.zeros(self._shape, self.dtype)
        return ops.tensor_scatter_add(zeros, self._indices, self._values)

    def to_csr(self):
        if len(self._shape) != 2:
            raise ValueError("For 'COOTensor.to_csr', only 2-D tensors convert to CSR.")
        coo = self.coalesce()
        rows = coo.indices[:, 0]
        indptr = coo2csr(rows, self._shape[0])
        return CSRTensor(indptr, coo.indices[:, 1].astype(coo.indices.dtype), coo.values,
                         self._shape)

    def add(self, other, thresh):
        return coo_add(self, other, thresh)

    def coalesce(self):
        """Indices sorted in row-major order, duplicates summed."""
        ops = _ops()
        idx = self._indices.asnumpy()
        flat = np.ravel_multi_index(tuple(idx.T.astype(np.int64)), self._shape) if idx.size \
            else np.zeros(0, np.int64)
        uniq, inverse = np.unique(flat, return_inverse=True)
        values = ops.unsorted_segment_sum(self._values, Tensor(inverse.astype(np.int32)),
                                          len(uniq))
        new_idx = np.stack(np.unravel_index(uniq, self._shape), axis=1) if len(uniq) else \
            np.zeros((0, len(self._shape)), np.int64)
        return COOTensor(Tensor(new_idx.astype(idx.dtype)), values, self._shape)

    def _with_values(self, values):
        return COOTensor(self._indices, values, self._shape)


class CSRTensor(_Sparse):
    """A 2-D sparse tensor in compressed-row format: ``indptr`` [M + 1], ``indices`` [N]
    (column of each value), ``values`` [N], ``shape`` (mindspore.CSRTensor)."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            indptr, indices = csr_tensor.indptr, csr_tensor.indices
            values, shape = csr_tensor.values, csr_tensor.shape
        _check_index(indptr, "indptr", "CSRTensor")
        _check_index(indices, "indices", "CSRTensor")
        if not isinstance(values, Tensor):
            raise TypeError(f"For 'CSRTensor', 'values' must be a Tensor, but got "
                            f"{type(values).__name__}.")
        shape = _check_shape(shape, "CSRTensor")
        if len(shape) != 2:
            raise ValueError(f"For 'CSRTensor', only 2-D shapes are supported, but got "
                             f"{list(shape)}.")
        if indptr.ndim != 1 or indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"For 'CSRTensor', 'indptr' must be 1-D of length shape[0] + 1 "
                             f"= {shape[0] + 1}, but got {list(indptr.shape)}.")
        if indices.ndim != 1 or values.ndim != 1 or indices.shape[0] != values.shape[0]:
            raise ValueError("For 'CSRTensor', 'indices' and 'values' must be 1-D of the same "
                             "length.")
        ptr = indptr.asnumpy() if isinstance(indptr._data, np.ndarray) else None
        if ptr is not None and (ptr[0] != 0 or (np.diff(ptr) < 0).any()
                                or ptr[-1] != values.shape[0]):
            raise ValueError("For 'CSRTensor', 'indptr' must start at 0, not decrease and end "
                             "at the number of values.")
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    indptr = property(lambda self: self._indptr)

    def __repr__(self):
        return (f"CSRTensor(shape={list(self._shape)}, dtype={self.dtype}, "
                f"indptr={self._indptr!r}, indices={self._indices!r}, "
                f"values={self._values!r})")

    def to_tuple(self):
        return self._indptr, self._indices, self._values, self._shape

    def _rows(self):
        return csr2coo(self._indptr, self._values.shape[0])

    def _rows32(self):
        """The row of each value as int32 host data (segment ids for segment sums)."""
        return Tensor(_row_ids(self._indptr.asnumpy(), np.int32))

    def to_coo(self):
        ops = _ops()
        idx = ops.stack((self._rows().astype(self._indices.dtype), self._indices), 1)
        return COOTensor(idx, self._values, self._shape)

    def to_dense(self):
        return self.to_coo().to_dense()

    def add(self, b, alpha, beta):
        return csr_add(self, b, alpha, beta)

    def mv(self, dense_vector):
        return csr_mv(self, dense_vector)

    def mm(self, matrix):
        return csr_mm(self, matrix)

    def sum(self, axis):
        return csr_reduce_sum(self, axis)

    def _with_values(self, values):
        return CSRTensor(self._indptr, self._indices, values, self._shape)


class RowTensor:
    """Rows of a dense tensor: ``values[i]`` is row ``indices[i]`` of a tensor of
    ``dense_shape`` (mindspore.RowTensor; sparse gradients of embedding lookups)."""

    def __init__(self, indices=None, values=None, dense_shape=None, row_tensor=None):
        if row_tensor is not None:
            indices, values, dense_shape = (row_tensor.indices, row_tensor.values,
                                            row_tensor.dense_shape)
        _check_index(indices, "indices", "RowTensor")
        if not isinstance(values, Tensor):
            raise TypeError(f"For 'RowTensor', 'values' must be a Tensor, but got "
                            f"{type(values).__name__}.")
        dense_shape = _check_shape(dense_shape, "RowTensor")
        if indices.ndim != 1 or values.shape[0] != indices.shape[0] or \
                tuple(values.shape[1:]) != dense_shape[1:]:
            raise ValueError("For 'RowTensor', 'values' must be [len(indices), "
                             "*dense_shape[1:]].")
        self._indices, self._values, self._dense_shape = indices, values, dense_shape

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)

    def __repr__(self):
        return (f"RowTensor(dense_shape={list(self._dense_shape)}, indices={self._indices!r}, "
                f"values={self._values!r})")

    def to_dense(self):
        ops = _ops()
        zeros = ops.zeros(self._dense_shape, self._values.dtype)
        return ops.tensor_scatter_add(zeros, self._indices.reshape(-1, 1), self._values)


class SparseTensor(COOTensor):
    """The old name (MindSpore 1.x) of a coordinate-format tensor: ``SparseTensor(indices,
    values, shape)``."""

    def __init__(self, indices, values, shape):
        super().__init__(indices, values, tuple(shape))


# ----------------------------------------------------------------------------- functions
def _require(x, cls, who, name="x"):
    if not isinstance(x, cls):
        raise TypeError(f"For '{who}', '{name}' must be a {cls.__name__}, but got "
                        f"{type(x).__name__}.")


def coo2csr(coo_row, height):
    """Row indices (sorted) of a COO matrix -> the ``indptr`` of its CSR form."""
    rows = coo_row.asnumpy()
    counts = np.bincount(rows.astype(np.int64), minlength=height)[:height]
    return Tensor(np.concatenate([[0], np.cumsum(counts)]).astype(rows.dtype))


def csr2coo(indptr, length):
    """``indptr`` of a CSR matrix -> the row index of each of its ``length`` values."""
    ptr = indptr.asnumpy()
    rows = _row_ids(ptr, ptr.dtype)
    if len(rows) != length:
        raise ValueError(f"For 'csr2coo', 'indptr' describes {len(rows)} values, not "
                         f"{length}.")
    return Tensor(rows)


def _row_ids(ptr, dtype):
    """The row index of each value of a CSR structure with row pointers ``ptr``."""
    return np.repeat(np.arange(len(ptr) - 1, dtype=dtype), np.diff(ptr))


def coo_add(x1, x2, thresh):
    """The sum of two COOTensors of one shape; pairs whose value's magnitude is below
    ``thresh`` are dropped."""
    _require(x1, COOTensor, "coo_add", "x1")
    _require(x2, COOTensor, "coo_add", "x2")
    if x1.shape != x2.shape:
        raise ValueError(f"For 'coo_add', the shapes must be equal, but got {x1.shape} and "
                         f"{x2.shape}.")
    ops = _ops()
    both = COOTensor(ops.concat((x1.indices, x2.indices.astype(x1.indices.dtype)), 0),
                     ops.concat((x1.values, x2.values.astype(x1.values.dtype)), 0),
                     x1.shape).coalesce()
    keep = np.abs(both.values.asnumpy()) >= float(thresh.asnumpy()
                                                  if isinstance(thresh, Tensor) else thresh)
    where = Tensor(np.nonzero(keep)[0].astype(np.int32))
    return COOTensor(ops.gather(both.indices, where, 0), ops.gather(both.values, where, 0),
                     x1.shape)


def coo_concat(sp_input, concat_dim=0):
    """COOTensors joined along ``concat_dim``."""
    ops = _ops()
    items = list(sp_input)
    if not items:
        raise ValueError("For 'coo_concat', 'sp_input' must not be empty.")
    for x in items:
        _require(x, COOTensor, "coo_concat", "sp_input")
    rank = len(items[0].shape)
    dim = concat_dim % rank
    offset, idx, vals = 0, [], []
    for x in items:
        if len(x.shape) != rank or any(a != b for k, (a, b) in
                                       enumerate(zip(x.shape, items[0].shape)) if k != dim):
            raise ValueError("For 'coo_concat', the shapes must agree except along "
                             "'concat_dim'.")
        shift = np.zeros((1, rank), x.indices.asnumpy().dtype)
        shift[0, dim] = offset
        idx.append(x.indices + Tensor(shift))
        vals.append(x.values)
        offset += x.shape[dim]
    shape = list(items[0].shape)
    shape[dim] = offset
    return COOTensor(ops.concat(tuple(idx), 0), ops.concat(tuple(vals), 0), tuple(shape))


def csr_add(a, b, alpha, beta):
    """``alpha * a + beta * b`` of two CSRTensors."""
    _require(a, CSRTensor, "csr_add", "a")
    _require(b, CSRTensor, "csr_add", "b")
    ca, cb = a.to_coo(), b.to_coo()
    coo = coo_add(ca._with_values(ca.values * alpha), cb._with_values(cb.values * beta),
                  Tensor(np.array(0, np.float32)))
    return coo.to_csr()


def _dense_at(x, dense):
    """``dense`` broadcast to ``x``'s shape, read at ``x``'s stored positions."""
    ops = _ops()
    full = ops.broadcast_to(dense, x.shape) if tuple(dense.shape) != x.shape else dense
    coo = x.to_coo()
    return ops.gather_nd(full, coo.indices)


def csr_mul(x, y):
    """A CSRTensor times a dense tensor (broadcast to its shape), at its stored values."""
    _require(x, CSRTensor, "csr_mul")
    return x._with_values(x.values * _dense_at(x, y))


def csr_div(x, y):
    """A CSRTensor divided by a dense tensor (broadcast to its shape), at its values."""
    _require(x, CSRTensor, "csr_div")
    return x._with_values(x.values / _dense_at(x, y))


def csr_gather(indptr, indices, dense, sparse_shape):
    """The values of ``dense`` at the positions of a CSR structure."""
    ops = _ops()
    rows = csr2coo(indptr, indices.shape[0]).astype(indices.dtype)
    return ops.gather_nd(dense, ops.stack((rows, indices), 1))


def csr_mv(csr_tensor, dense_vector):
    """A CSRTensor [M, N] times a dense [N, 1] -> dense [M, 1]."""
    _require(csr_tensor, CSRTensor, "csr_mv", "csr_tensor")
    ops = _ops()
    m, n = csr_tensor.shape
    if tuple(dense_vector.shape) not in ((n, 1), (n,)):
        raise ValueError(f"For 'csr_mv', the dense vector must be [{n}, 1], but got "
                         f"{list(dense_vector.shape)}.")
    vec = dense_vector.reshape(n)
    prod = csr_tensor.values * ops.gather(vec, csr_tensor.indices, 0)
    rows = csr_tensor._rows32()
    return ops.unsorted_segment_sum(prod, rows, m).reshape(m, 1)


def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """A CSRTensor times a dense matrix (dense result) or a CSRTensor (CSR result)."""
    _require(a, CSRTensor, "csr_mm", "a")
    ops = _ops()
    if trans_a or adjoint_a:
        raise NotImplementedError("csr_mm with a transposed sparse operand is not supported")
    if isinstance(b, CSRTensor):
        dense = csr_mm(a, b.to_dense())
        return dense_to_sparse_csr(dense)
    if trans_b or adjoint_b:
        b = ops.swapaxes(b, 0, 1)
    m, n = a.shape
    if b.ndim != 2 or b.shape[0] != n:
        raise ValueError(f"For 'csr_mm', the dense matrix must have {n} rows, but got shape "
                         f"{list(b.shape)}.")
    rows_b = ops.gather(b, a.indices, 0)                       # [nnz, K]
    prod = rows_b * a.values.reshape(-1, 1)
    return ops.unsorted_segment_sum(prod, a._rows32(), m)


def csr_reduce_sum(csr_tensor, axis):
    """Sum along ``axis`` (1 or -1: MindSpore's support) -> dense [M, 1]."""
    _require(csr_tensor, CSRTensor, "csr_reduce_sum", "csr_tensor")
    if axis not in (1, -1):
        raise ValueError(f"For CSRReduceSum, `axis` should be 1 or 1-dim. But got `axis`: "
                         f"{axis}and `1- dim`: -1.")
    ops = _ops()
    m = csr_tensor.shape[0]
    return ops.unsorted_segment_sum(csr_tensor.values, csr_tensor._rows32(),
                                    m).reshape(m, 1)


def csr_softmax(logits, dtype=None):
    """Softmax over the stored values of each row."""
    _require(logits, CSRTensor, "csr_softmax", "logits")
    ops = _ops()
    vals = logits.values if dtype is None else logits.values.astype(dtype)
    rows = logits._rows32()
    m = logits.shape[0]
    row_max = ops.unsorted_segment_max(ops.stop_gradient(vals), rows, m)
    shifted = vals - ops.gather(row_max, rows, 0)
    e = ops.exp(shifted)
    total = ops.unsorted_segment_sum(e, rows, m)
    return logits._with_values(e / ops.gather(total, rows, 0))


def csr_to_coo(tensor):
    _require(tensor, CSRTensor, "csr_to_coo", "tensor")
    return tensor.to_coo()


def csr_to_dense(csr_tensor):
    _require(csr_tensor, CSRTensor, "csr_to_dense", "csr_tensor")
    return csr_tensor.to_dense()


def dense_to_sparse_coo(tensor):
    """The non-zero entries of a dense tensor as a COOTensor (row-major order)."""
    data = tensor.asnumpy()
    idx = np.stack(np.nonzero(data), axis=1).astype(np.int32)
    ops = _ops()
    values = ops.gather_nd(tensor, Tensor(idx)) if len(idx) else \
        Tensor(np.zeros(0, data.dtype))
    return COOTensor(Tensor(idx), values, tuple(tensor.shape))


def dense_to_sparse_csr(tensor):
    """The non-zero entries of a 2-D dense tensor as a CSRTensor."""
    if tensor.ndim != 2:
        raise ValueError("For 'dense_to_sparse_csr', the tensor must be 2-D.")
    return dense_to_sparse_coo(tensor).to_csr()


_UNARY = ("abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh",
          "exp", "expm1", "floor", "inv", "isfinite", "isinf", "isnan", "log", "log1p", "neg",
          "relu", "relu6", "round", "sigmoid", "sin", "sinh", "softsign", "sqrt", "square",
          "tan", "tanh")


def _unary(kind, name):
    cls = COOTensor if kind == "coo" else CSRTensor

    def op(x):
        _require(x, cls, f"{kind}_{name}")
        return x._with_values(getattr(_ops(), name)(x.values))
    op.__name__ = f"{kind}_{name}"
    op.__doc__ = f"``{name}`` of the stored values of a {cls.__name__}."
    return op


UNARY_FUNCTIONS = {f"{kind}_{name}": _unary(kind, name) for kind in ("coo", "csr")
                   for name in _UNARY}


def make_coo_tensor(indices, values, dense_shape):
    return COOTensor(indices, values, dense_shape)


def make_csr_tensor(indptr, indices, values, dense_shape):
    return CSRTensor(indptr, indices, values, dense_shape)


def make_sparse_tensor(indices, values, dense_shape):
    return SparseTensor(indices, values, dense_shape)


def make_row_tensor(indices, values, dense_shape):
    return RowTensor(indices, values, dense_shape)


def _getter(kind, field, attr):
    def get(x):
        return getattr(x, attr)
    get.__name__ = f"{kind}_tensor_get_{field}"
    get.__doc__ = f"The ``{attr}`` of a {kind.upper()}Tensor."
    return get


GETTERS = {f"{kind}_tensor_get_{field}": _getter(kind, field, attr)
           for kind, fields in (("coo", ("dense_shape", "indices", "values")),
                                ("csr", ("dense_shape", "indices", "indptr", "values")))
           for field, attr in ((f, "shape" if f == "dense_shape" else f) for f in fields)}


def _named(fn, name):
    """``fn`` whose errors name the op: an error that already names it passes through;
    a TypeError/ValueError/IndexError from below gets the op's name in front; anything
    else (an AttributeError of a non-tensor argument, an OverflowError) becomes a
    TypeError naming the op."""
    label = f"'{name}'"

    @functools.wraps(fn)
    def op(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, IndexError) as e:
            if label in str(e):
                raise
            raise type(e)(f"For {label}, {e}") from e
        except (AttributeError, OverflowError, KeyError, RuntimeError) as e:
            raise TypeError(f"For {label}, invalid arguments ({type(e).__name__}: {e}).") \
                from e
    return op


FUNCTIONS = {name: globals()[name] for name in (
    "coo2csr", "csr2coo", "coo_add", "coo_concat", "csr_add", "csr_mul", "csr_div",
    "csr_gather", "csr_mv", "csr_mm", "csr_reduce_sum", "csr_softmax", "csr_to_coo",
    "csr_to_dense", "dense_to_sparse_coo", "dense_to_sparse_csr", "make_coo_tensor",
    "make_csr_tensor", "make_sparse_tensor", "make_row_tensor")}
FUNCTIONS.update(UNARY_FUNCTIONS)
FUNCTIONS.update(GETTERS)
FUNCTIONS = {name: _named(fn, name) for name, fn in FUNCTIONS.items()}


def sparse_to_dense(indices, values, sparse_shape):
    return COOTensor(indices, values, tuple(sparse_shape)).to_dense()


def sparse_tensor_dense_matmul(indices, values, sparse_shape, dense, adjoint_st=False,
                               adjoint_dt=False):
    """A COO matrix [M, N] times a dense [N, K] -> dense [M, K] (optionally adjoints)."""
    ops = _ops()
    shape = tuple(int(d) for d in (sparse_shape.asnumpy() if isinstance(sparse_shape, Tensor)
                                   else sparse_shape))
    if adjoint_st:
        indices = ops.stack((indices[:, 1], indices[:, 0]), 1)
        shape = (shape[1], shape[0])
    if adjoint_dt:
        dense = ops.swapaxes(dense, 0, 1)
    if dense.shape[0] != shape[1]:
        raise ValueError(f"For 'SparseTensorDenseMatmul', the dense matrix must have "
                         f"{shape[1]} rows, but got {list(dense.shape)}.")
    rows_b = ops.gather(dense, indices[:, 1], 0)
    prod = rows_b * values.reshape(-1, 1).astype(dense.dtype)
    return ops.unsorted_segment_sum(prod, indices[:, 0].astype("int32"), shape[0])
