"""Bad input to math, reduction and linear-algebra ops raises TypeError/ValueError whose
message names the op (and says what was wrong), never a bare NumPy traceback."""
import numpy as np
import pytest

import spore as ms
from spore import ops


def t(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


CASES = [
    # elementwise
    ("add-shapes", lambda: ops.add(t(2, 3), t(4)), ValueError, "Add"),
    ("mul-shapes", lambda: t(2, 2) * t(3, 1, 3), ValueError, "Mul"),
    ("where-shapes", lambda: ops.where(t(2) > 0, t(3), t(2)), ValueError, "Select"),
    ("add-ndarray", lambda: ops.add(t(2), np.ones(2)), TypeError, "Add"),
    ("add-str", lambda: ops.add(t(2), "a"), TypeError, "Add"),
    ("bitwise-float", lambda: ops.bitwise_and(t(2), t(2)), TypeError, "BitwiseAnd"),
    ("div-rounding", lambda: ops.div(t(2), t(2), rounding_mode="up"), ValueError, "div"),
    ("clamp-none", lambda: ops.clamp(t(2)), ValueError, "clamp"),
    # reductions
    ("sum-axis-range", lambda: ops.sum(t(2, 3), 2), ValueError, "sum"),
    ("mean-axis-range", lambda: ops.mean(t(2, 3), -3), ValueError, "mean"),
    ("sum-axis-duplicate", lambda: ops.sum(t(2, 3), (1, -1)), ValueError, "sum"),
    ("sum-axis-float", lambda: ops.sum(t(2, 3), 1.0), TypeError, "sum"),
    ("mean-bool", lambda: ops.mean(t(2, dtype=np.bool_)), TypeError, "ReduceMean"),
    ("prod-axis", lambda: ops.prod(t(2), 1), ValueError, "prod"),
    ("amax-axis", lambda: ops.amax(t(2, 2), (0, 5)), ValueError, "amax"),
    ("amax-where-no-initial", lambda: ops.amax(t(2), where=t(2) > 0), ValueError, "amax"),
    ("max-axis", lambda: ops.max(t(2, 2), 2), ValueError, "max"),
    ("max-axis-tuple", lambda: ops.max(t(2, 2), (0, 1)), TypeError, "max"),
    ("argmax-axis", lambda: ops.argmax(t(2, 2), 3), ValueError, "argmax"),
    ("argmin-axis", lambda: ops.argmin(t(2, 2), -3), ValueError, "argmin"),
    ("median-axis", lambda: ops.median(t(2, 2), 2), ValueError, "median"),
    ("median-bool", lambda: ops.median(t(3, dtype=np.bool_)), TypeError, "Median"),
    ("cumsum-axis", lambda: ops.cumsum(t(2, 2), 2), ValueError, "cumsum"),
    ("cumsum-bool", lambda: ops.cumsum(t(3, dtype=np.bool_), 0), TypeError, "CumSum"),
    ("cummax-bool", lambda: ops.cummax(t(3, dtype=np.bool_), 0), TypeError, "Cummax"),
    ("logcumsumexp-int", lambda: ops.logcumsumexp(t(3, dtype=np.int32), 0), TypeError,
     "LogCumSumExp"),
    ("nanmean-int", lambda: ops.nanmean(t(3, dtype=np.int32)), TypeError, "nanmean"),
    ("logsumexp-axis", lambda: ops.logsumexp(t(2, 2), 4), ValueError, "logsumexp"),
    ("var-axis", lambda: ops.var(t(2, 2), 2), ValueError, "var"),
    ("norm-ord", lambda: ops.norm(t(2, 2), "bad"), ValueError, "matrix_norm"),
    ("norm-3d-ord", lambda: ops.norm(t(2, 2, 2), 2), ValueError, "norm"),
    ("norm-dims", lambda: ops.norm(t(2, 2, 2), 2, (0, 1, 2)), ValueError, "norm"),
    ("norm-str-vector", lambda: ops.norm(t(3), "fro", 0), ValueError, "norm"),
    ("matrix_norm-axis", lambda: ops.matrix_norm(t(2, 2), axis=(0, 0)), ValueError,
     "matrix_norm"),
    ("vector_norm-ord", lambda: ops.vector_norm(t(3), "nuc"), ValueError, "vector_norm"),
    # linear algebra
    ("matmul-contract", lambda: ops.matmul(t(2, 3), t(4, 2)), ValueError, "MatMul"),
    ("matmul-batch", lambda: ops.matmul(t(2, 2, 3), t(3, 3, 2)), ValueError, "MatMul"),
    ("matmul-dtypes", lambda: ops.matmul(t(2, 3, dtype=np.float16), t(3, 2)), TypeError,
     "MatMul"),
    ("matmul-0d", lambda: ops.matmul(ms.Tensor(2.0), t(3)), ValueError, "MatMul"),
    ("matmul-scalar", lambda: ops.matmul(t(3), 2.0), TypeError, "MatMul"),
    ("matmul-bool", lambda: ops.matmul(t(2, 2, dtype=np.bool_), t(2, 2, dtype=np.bool_)),
     TypeError, "MatMul"),
    ("matmul-operator", lambda: t(2, 3) @ t(2, 3), ValueError, "MatMul"),
    ("bmm-rank", lambda: ops.bmm(t(2, 3, 4), t(4, 5)), ValueError, "bmm"),
    ("mm-rank", lambda: ops.mm(t(2, 2, 3), t(3, 4)), ValueError, "mm"),
    ("mv-rank", lambda: ops.mv(t(2, 3), t(3, 1)), ValueError, "mv"),
    ("dense-shapes", lambda: ops.dense(t(2, 3), t(4, 5)), ValueError, "dense"),
    ("dense-weight-rank", lambda: ops.dense(t(2, 3), t(1, 4, 3)), ValueError, "dense"),
    ("dense-dtypes", lambda: ops.dense(t(2, 3), t(4, 3, dtype=np.float64)), TypeError,
     "MatMul"),
    ("addbmm-shapes", lambda: ops.addbmm(t(3, 5), t(2, 3, 4), t(3, 4, 5)), ValueError,
     "addbmm"),
    ("tensor_dot-dims", lambda: ops.tensor_dot(t(2, 3), t(2, 3), 1), ValueError,
     "tensor_dot"),
    ("tensor_dot-axes", lambda: ops.tensor_dot(t(2, 3), t(3, 2), "x"), TypeError, "tensor_dot"),
    ("tensor_dot-count", lambda: ops.tensor_dot(t(2, 3), t(3, 2), ((0, 1), (1,))), ValueError,
     "tensor_dot"),
    ("batch_dot-batch", lambda: ops.batch_dot(t(2, 3, 4), t(3, 4, 5)), ValueError, "batch_dot"),
    ("batch_dot-rank", lambda: ops.batch_dot(t(3), t(3, 4)), ValueError, "batch_dot"),
    ("batch_dot-axes", lambda: ops.batch_dot(t(2, 3, 4), t(2, 4, 5), 1), ValueError,
     "batch_dot"),
    ("batch_dot-axis-zero", lambda: ops.batch_dot(t(2, 3, 4), t(2, 4, 5), (0, 1)), ValueError,
     "batch_dot"),
    ("dot-dtypes", lambda: ops.dot(t(2, 3, dtype=np.float16), t(3, 2)), TypeError, "MatMul"),
    ("inner-dims", lambda: ops.inner(t(2, 3), t(2, 4)), ValueError, "inner"),
    ("vecdot-complex", lambda: ops.vecdot(t(2, dtype=np.complex64), t(2)), TypeError, "vecdot"),
    ("einsum-int", lambda: ops.einsum("ij->j", t(2, 2, dtype=np.int32)), TypeError, "Einsum"),
    ("einsum-count", lambda: ops.einsum("ij,jk->ik", t(2, 2)), ValueError, "Einsum"),
    ("einsum-char", lambda: ops.einsum("i1->i", t(2, 2)), ValueError, "Einsum"),
    ("einsum-rank", lambda: ops.einsum("ijk->i", t(2, 2)), ValueError, "Einsum"),
    ("einsum-sizes", lambda: ops.einsum("ij,jk->ik", t(2, 3), t(4, 5)), ValueError, "Einsum"),
    ("einsum-output", lambda: ops.einsum("ij->k", t(2, 3)), ValueError, "Einsum"),
    ("einsum-dtypes", lambda: ops.einsum("i,i->", t(2), t(2, dtype=np.float64)), TypeError,
     "Einsum"),
    ("einsum-equation", lambda: ops.einsum(3, t(2)), TypeError, "Einsum"),
    ("trace-rank", lambda: ops.trace(t(2, 2, 2)), ValueError, "trace"),
    ("trace-bool", lambda: ops.trace(t(2, 2, dtype=np.bool_)), TypeError, "trace"),
    ("trace-axes", lambda: t(2, 2).trace(0, 1, 1), ValueError, "trace"),
    ("inverse-square", lambda: ops.inverse(t(2, 3)), ValueError, "MatrixInverse"),
    ("inverse-int", lambda: ops.inverse(t(2, 2, dtype=np.int32)), TypeError, "MatrixInverse"),
    ("det-rank", lambda: ops.det(t(3)), ValueError, "MatrixDeterminant"),
    ("slogdet-int", lambda: ops.slogdet(t(2, 2, dtype=np.int64)), TypeError,
     "LogMatrixDeterminant"),
    ("matrix_power-square", lambda: ops.matrix_power(t(2, 3), 2), ValueError, "matrix_power"),
    ("cross-size", lambda: ops.cross(t(2, 4), t(2, 4)), ValueError, "cross"),
    ("cross-dim", lambda: ops.cross(t(3, 2), t(3, 2), 1), ValueError, "cross"),
    ("cdist-columns", lambda: ops.cdist(t(2, 3), t(2, 4)), ValueError, "cdist"),
    ("cdist-rank", lambda: ops.cdist(t(3), t(2, 3)), ValueError, "cdist"),
    # composites of elementwise ops
    ("addcdiv-int", lambda: ops.addcdiv(t(2, dtype=np.int32), t(2), t(2)), TypeError, "addcdiv"),
    ("logaddexp-int", lambda: ops.logaddexp(t(2, dtype=np.int32), t(2)), TypeError,
     "logaddexp"),
    ("addn-type", lambda: ops.addn(t(2)), TypeError, "addn"),
]


@pytest.mark.parametrize("call, exc, name", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_error_names_the_op(call, exc, name):
    with pytest.raises(exc) as info:
        call()
    message = str(info.value)
    assert f"'{name}'" in message, message
    assert type(info.value).__module__ != "numpy", message


def test_errors_are_not_deferred():
    """A failing op raises at the call, and the next (valid) op is unaffected."""
    with pytest.raises(ValueError):
        ops.matmul(t(2, 3), t(4, 2))
    assert ops.matmul(t(2, 3), t(3, 2)).shape == (2, 2)
