"""Linear algebra: forward vs NumPy (several shapes, broadcasting), shape/dtype rules,
numerical gradients, and MindSpore's shapes and dtypes.

Shapes and dtypes marked "MindSpore 2.10" were produced by running the same calls
on MindSpore 2.10 (CPU, PyNative).
"""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

T = ms.Tensor


def _np_batch_dot(x1, x2, axes=None):
    """Reference: per-sample tensordot over one axis pair (MindSpore's batch_dot rules)."""
    a2, b2 = x1.ndim == 2, x2.ndim == 2
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - (1 if b2 else 2))
    elif isinstance(axes, int):
        axes = (axes, axes)
    ax_a, ax_b = axes[0] % x1.ndim, axes[1] % x2.ndim
    if a2:
        x1, ax_a = x1[:, None, :], ax_a + 1
    if b2:
        x2 = x2[..., None]
    out = np.stack([np.tensordot(p, q, ([ax_a - 1], [ax_b - 1])) for p, q in zip(x1, x2)])
    if a2:
        return out.reshape(out.shape[:1] + out.shape[2:])
    if b2:
        return out.reshape(out.shape[:-1])
    return out


def _np_trace(x, offset=0, axis1=0, axis2=1):
    return np.trace(x, offset, axis1, axis2)


MATMUL_SHAPES = [((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)),
                 ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3)),
                 ((2, 3, 4), (4,)), ((3, 4), (2, 4, 5))]

PRODUCTS = (
    [OpCase("matmul", ops.matmul, np.matmul, list(p), id=f"matmul-{p}") for p in MATMUL_SHAPES] +
    [OpCase("bmm", ops.bmm, np.matmul, [(2, 3, 4), (2, 4, 5)]),
     OpCase("bmm-4d", ops.bmm, np.matmul, [(2, 2, 3, 4), (2, 2, 4, 5)]),
     OpCase("mm", ops.mm, np.matmul, [(3, 4), (4, 2)]),
     OpCase("mv", ops.mv, np.matmul, [(3, 4), (4,)]),
     OpCase("dense", ops.dense, lambda x, w, b: x @ w.T + b, [(2, 3), (4, 3), (4,)]),
     OpCase("dense-nobias", ops.dense, lambda x, w: x @ w.T, [(5, 2, 3), (4, 3)]),
     OpCase("dense-1d-weight", ops.dense, lambda x, w: x @ w, [(2, 3), (3,)]),
     OpCase("dense-1d-input", ops.dense, lambda x, w, b: w @ x + b, [(3,), (4, 3), (4,)]),
     OpCase("addmm", lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=2.0),
            lambda i, a, b: 0.5 * i + 2.0 * a @ b, [(2, 4), (2, 3), (3, 4)]),
     OpCase("addmm-broadcast", ops.addmm, lambda i, a, b: i + a @ b, [(4,), (2, 3), (3, 4)]),
     OpCase("addmv", lambda i, a, v: ops.addmv(i, a, v, beta=2.0),
            lambda i, a, v: 2.0 * i + a @ v, [(2,), (2, 3), (3,)]),
     OpCase("baddbmm", lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 2.0),
            lambda i, a, b: 0.5 * i + 2.0 * a @ b, [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
     OpCase("addbmm", lambda i, a, b: ops.addbmm(i, a, b, alpha=1.5),
            lambda i, a, b: i + 1.5 * np.einsum("bij,bjk->ik", a, b),
            [(3, 5), (2, 3, 4), (2, 4, 5)]),
     OpCase("outer", ops.outer, np.outer, [(3,), (4,)]),
     OpCase("outer-2d", ops.outer, lambda a, b: np.outer(a.reshape(-1), b), [(2, 3), (4,)]),
     OpCase("dot-2d", ops.dot, np.dot, [(2, 3), (3, 4)]),
     OpCase("dot-3d", ops.dot, np.dot, [(2, 2, 3), (5, 3, 4)]),
     OpCase("dot-3d-1d", ops.dot, np.dot, [(2, 2, 3), (3,)]),
     OpCase("dot-1d", ops.dot, np.dot, [(3,), (3,)]),
     OpCase("inner-1d", ops.inner, np.inner, [(3,), (3,)]),
     OpCase("inner-2d", ops.inner, np.inner, [(2, 3), (4, 3)]),
     OpCase("inner-3d", ops.inner, np.inner, [(2, 2, 3), (4, 3)]),
     OpCase("inner-scalar", ops.inner, np.inner, [(), (2, 3)]),
     OpCase("vecdot", ops.vecdot, lambda x, y: np.sum(x * y, -1), [(2, 3), (3,)]),
     OpCase("vecdot-axis", lambda x, y: ops.vecdot(x, y, axis=0),
            lambda x, y: np.sum(x * y, 0), [(3, 2), (3, 2)])]
)

CONTRACTIONS = [
    OpCase("tensor_dot-int", lambda a, b: ops.tensor_dot(a, b, 1),
           lambda a, b: np.tensordot(a, b, 1), [(2, 3, 4), (4, 3, 5)]),
    OpCase("tensor_dot-pairs", lambda a, b: ops.tensor_dot(a, b, ((1, 2), (1, 0))),
           lambda a, b: np.tensordot(a, b, ((1, 2), (1, 0))), [(2, 3, 4), (4, 3, 5)]),
    OpCase("tensor_dot-0", lambda a, b: ops.tensor_dot(a, b, 0),
           lambda a, b: np.tensordot(a, b, 0), [(2, 3), (4,)]),
    OpCase("tensor_dot-2", lambda a, b: ops.tensor_dot(a, b, 2),
           lambda a, b: np.tensordot(a, b, 2), [(2, 3, 4), (3, 4, 5)]),
    OpCase("batch_dot", ops.batch_dot, _np_batch_dot, [(2, 3, 4), (2, 4, 5)]),
    OpCase("batch_dot-axes", lambda a, b: ops.batch_dot(a, b, (2, 2)),
           lambda a, b: _np_batch_dot(a, b, (2, 2)), [(2, 3, 4), (2, 5, 4)]),
    OpCase("batch_dot-2d", ops.batch_dot, _np_batch_dot, [(2, 3), (2, 3)]),
    OpCase("batch_dot-2d-3d", ops.batch_dot, _np_batch_dot, [(2, 3), (2, 3, 4)]),
    OpCase("batch_dot-4d", ops.batch_dot, _np_batch_dot, [(2, 3, 4, 5), (2, 5, 6)]),
    OpCase("trace", ops.trace, np.trace, (3, 3)),
    OpCase("trace-rect", ops.trace, np.trace, (2, 3)),
    OpCase("Tensor.trace", lambda x: x.trace(1, 0, 2), lambda x: _np_trace(x, 1, 0, 2),
           (3, 2, 4)),
    OpCase("kron", ops.kron, np.kron, [(2, 3), (4, 2)]),
    OpCase("kron-1d-2d", ops.kron, np.kron, [(2,), (3, 2)]),
    OpCase("kron-3d", ops.kron, np.kron, [(2, 1, 2), (2, 3)]),
]

EINSUM = [
    OpCase(f"einsum-{eq}", lambda *xs, eq=eq: ops.einsum(eq, *xs),
           lambda *xs, eq=eq: np.einsum(eq, *xs), list(shapes), id=f"einsum-{eq}")
    for eq, shapes in [
        ("ij,jk->ik", ((2, 3), (3, 4))),
        ("ij,jk", ((2, 3), (3, 4))),
        ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))),
        ("...ij,...jk->...ik", ((5, 2, 3), (5, 3, 4))),
        ("...ij,...jk->...ik", ((2, 1, 2, 3), (4, 3, 2))),
        ("i...,i...->...", ((3, 2, 2), (3, 1, 2))),
        ("ii->i", ((3, 3),)),
        ("ii", ((3, 3),)),
        ("iij->ji", ((3, 3, 2),)),
        ("ij->", ((2, 3),)),
        ("ij->j", ((2, 3),)),
        ("i,i->", ((3,), (3,))),
        ("i,j->ij", ((3,), (4,))),
        ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 2))),
        ("bhqd,bhkd->bhqk", ((2, 2, 3, 4), (2, 2, 5, 4))),
        ("ij->ji", ((2, 3),)),
        ("i j , j k -> i k", ((2, 3), (3, 4))),
        ("...->...", ((2, 3),)),
        # large enough for the matrix-product path (see test_large_einsum_uses_matmul)
        ("bhqd,bhkd->bhqk", ((2, 4, 20, 8), (2, 4, 20, 8))),
        ("abc,cbd->da", ((16, 12, 10), (10, 12, 9))),
        ("abc,cd->da", ((20, 5, 12), (12, 15))),
    ]]

def _well_conditioned(*shape):
    """Random matrices plus a multiple of the identity (safely invertible)."""
    def make(rng):
        n = shape[-1]
        return rng.uniform(-1, 1, size=shape) + 3 * np.eye(n)
    return make


def _np_cdist(a, b, p=2.0):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == np.inf:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


def _np_matrix_power(x, n):
    return np.linalg.matrix_power(x, n)


MATRIX_FUNCTIONS = [
    OpCase("inverse", ops.inverse, np.linalg.inv, [_well_conditioned(3, 3)], rtol=1e-4),
    OpCase("inverse-batch", ops.inverse, np.linalg.inv, [_well_conditioned(2, 3, 3)], rtol=1e-4),
    OpCase("det", ops.det, np.linalg.det, [_well_conditioned(3, 3)], rtol=1e-4),
    OpCase("det-batch", ops.det, np.linalg.det, [_well_conditioned(2, 2, 2)], rtol=1e-4),
    OpCase("slogdet", ops.slogdet, lambda x: tuple(np.linalg.slogdet(x)),
           [lambda r: np.array([[2.0, 1.0], [1.0, -3.0]])]),
    OpCase("logdet", ops.logdet, lambda x: np.log(np.linalg.det(x)), [_well_conditioned(3, 3)],
           rtol=1e-4),
    OpCase("matrix_power-3", lambda x: ops.matrix_power(x, 3),
           lambda x: _np_matrix_power(x, 3), [(3, 3)], rtol=1e-4),
    OpCase("matrix_power-5-batch", lambda x: ops.matrix_power(x, 5),
           lambda x: _np_matrix_power(x, 5), [(2, 2, 2)], domain=(-1, 1), rtol=1e-4),
    OpCase("matrix_power--2", lambda x: ops.matrix_power(x, -2),
           lambda x: _np_matrix_power(x, -2), [_well_conditioned(3, 3)], rtol=1e-4),
    OpCase("matrix_power-0", lambda x: ops.matrix_power(x, 0),
           lambda x: _np_matrix_power(x, 0), [(3, 3)], grad=False),
    OpCase("cross", ops.cross, lambda a, b: np.cross(a, b), [(2, 3), (2, 3)]),
    OpCase("cross-dim", lambda a, b: ops.cross(a, b, 0), lambda a, b: np.cross(a, b, axis=0),
           [(3, 2), (3, 1)]),
    OpCase("cdist", ops.cdist, _np_cdist, [(3, 4), (5, 4)]),
    OpCase("cdist-p1", lambda a, b: ops.cdist(a, b, 1.0), lambda a, b: _np_cdist(a, b, 1.0),
           [(2, 3, 4), (2, 5, 4)]),
    OpCase("cdist-inf", lambda a, b: ops.cdist(a, b, float("inf")),
           lambda a, b: _np_cdist(a, b, np.inf), [(3, 4), (5, 4)]),
    OpCase("dist", ops.dist, lambda a, b: np.linalg.norm((a - b).reshape(-1)), [(3, 4), (4,)]),
    OpCase("addr", lambda x, u, v: ops.addr(x, u, v, beta=2.0, alpha=0.5),
           lambda x, u, v: 2.0 * x + 0.5 * np.outer(u, v), [(2, 3), (2,), (3,)]),
]

ALL = PRODUCTS + CONTRACTIONS + EINSUM + MATRIX_FUNCTIONS


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


# ----------------------------------------------------------------- shapes and dtypes
def _t(*shape, dtype=np.float32):
    return T(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))


@pytest.mark.parametrize("call, shape", [
    # MindSpore 2.10 output shapes
    (lambda: ops.matmul(_t(3), _t(3)), ()),
    (lambda: ops.matmul(_t(2, 1, 3, 4), _t(5, 4, 2)), (2, 5, 3, 2)),
    (lambda: ops.dense(_t(5, 2, 3), _t(4, 3), _t(4)), (5, 2, 4)),
    (lambda: ops.dense(_t(3), _t(4, 3), _t(4)), (4,)),
    (lambda: ops.outer(_t(2, 3), _t(4)), (6, 4)),
    (lambda: ops.dot(_t(2, 2, 3), _t(5, 3, 4)), (2, 2, 5, 4)),
    (lambda: ops.inner(_t(2, 2, 3), _t(4, 3)), (2, 2, 4)),
    (lambda: ops.tensor_dot(_t(2, 3, 4), _t(4, 3, 5), 1), (2, 3, 3, 5)),
    (lambda: ops.tensor_dot(_t(2, 3, 4), _t(4, 3, 5), [[2], [0]]), (2, 3, 3, 5)),
    (lambda: ops.batch_dot(_t(2, 3), _t(2, 3)), (2, 1)),
    (lambda: ops.batch_dot(_t(2, 3, 4, 5), _t(2, 5, 6)), (2, 3, 4, 6)),
    (lambda: ops.kron(_t(2, 3), _t(4, 5)), (8, 15)),
    (lambda: ops.addbmm(_t(3, 5), _t(2, 3, 4), _t(2, 4, 5)), (3, 5)),
])
def test_shapes_match_mindspore(call, shape):
    assert call().shape == shape


@pytest.mark.parametrize("dtype", [ms.int8, ms.int32, ms.float16, ms.bfloat16, ms.float64])
def test_products_keep_dtype(dtype):
    a = _t(2, 3).astype(dtype)
    b = _t(3, 2).astype(dtype)
    assert ops.matmul(a, b).dtype == dtype
    assert ops.mm(a, b).dtype == dtype
    assert ops.trace(ops.matmul(a, b)).dtype == dtype          # MindSpore: Int32 -> Int32
    np.testing.assert_allclose(ops.matmul(a, b).astype(ms.float64).asnumpy(),
                               np.arange(6.).reshape(2, 3) @ np.arange(6.).reshape(3, 2))


def test_integer_matmul_wraps_like_mindspore():
    a = T(np.full((1, 2), 100, np.int8))
    b = T(np.full((2, 1), 2, np.int8))
    assert ops.matmul(a, b).asnumpy().tolist() == [[np.int8(400 - 512)]]


def test_half_precision_matmul_accumulates_in_float32():
    a = T(np.full((1, 4096), 0.1, np.float16))
    b = T(np.ones((4096, 1), np.float16))
    out = ops.matmul(a, b)
    assert out.dtype == ms.float16
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), 409.6, rtol=1e-3)


def test_elementwise_products_promote():
    # MindSpore 2.10: outer(int32, float32) -> Float32; kron(int32, int32) -> Int32
    assert ops.outer(_t(3, dtype=np.int32), _t(4)).dtype == ms.float32
    assert ops.kron(_t(2, dtype=np.int32), _t(4, dtype=np.int32)).dtype == ms.int32


def test_batched_matmul_with_a_shared_matrix_folds_the_batch():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5, 4)).astype(np.float32)
    w = rng.normal(size=(4, 6)).astype(np.float32)
    np.testing.assert_allclose(ops.matmul(T(x[:, ::2]), T(w)).asnumpy(), x[:, ::2] @ w,
                               rtol=1e-5, atol=1e-5)
    gw = ops.grad(lambda w_: ops.matmul(T(x), w_).sum())(T(w))
    np.testing.assert_allclose(gw.asnumpy(), np.einsum("bik->k", x)[:, None] * np.ones(6),
                               rtol=1e-5, atol=1e-4)


def test_einsum_gradient_of_gradient():
    """The einsum rule is itself an einsum, so it can be differentiated again."""
    rng = np.random.default_rng(1)
    a = T(rng.normal(size=(3, 3)))
    f = lambda x: ops.einsum("ij,jk,ki->", x, x, x)      # noqa: E731  trace(x^3)
    h = ops.grad(lambda x: ops.grad(f)(x).sum())(a)
    # d/dX sum(3 (X^2)^T) = 3 d/dX sum(X^2): entry (p, q) = sum_j X[q, j] + sum_i X[i, p]
    x = a.asnumpy()
    want = 3 * (x.sum(1)[None, :] + x.sum(0)[:, None])
    np.testing.assert_allclose(h.asnumpy(), want, rtol=1e-10)


def test_tensor_methods():
    a, b = _t(2, 3), _t(3, 2)
    np.testing.assert_array_equal(a.mm(b).asnumpy(), a.asnumpy() @ b.asnumpy())
    np.testing.assert_array_equal(a.inner(a).asnumpy(), np.inner(a.asnumpy(), a.asnumpy()))
    assert _t(3, 3).trace().item() == 12.0
    np.testing.assert_array_equal(a.matmul(b).asnumpy(), a.asnumpy() @ b.asnumpy())
    np.testing.assert_array_equal((a @ b).asnumpy(), a.asnumpy() @ b.asnumpy())


def test_norm_gradient_at_zero_is_zero():
    """The 2-norm's gradient at a zero vector is the zero subgradient, not NaN (so cdist of
    a set with itself trains)."""
    g = ops.grad(lambda x: ops.norm(x))(T(np.zeros(3, np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0, 0.0])
    x = T(np.arange(6.0).reshape(3, 2))
    g = ops.grad(lambda t: ops.cdist(t, t).sum())(x)
    assert np.isfinite(g.asnumpy()).all()


def test_matrix_function_dtypes():
    # MindSpore 2.10: matrix_power of Int32 stays Int32; inverse of Int32 is a TypeError
    m = T(np.array([[2, 1], [1, 3]], np.int32))
    assert ops.matrix_power(m, 2).dtype == ms.int32
    assert ops.matrix_power(m, 2).asnumpy().tolist() == [[5, 5], [5, 10]]
    with pytest.raises(TypeError, match="MatrixInverse"):
        ops.inverse(m)
    assert ops.det(m.astype(ms.float16)).dtype == ms.float16


@pytest.mark.parametrize("equation, shapes, fused", [
    ("bhqd,bhkd->bhqk", ((2, 4, 20, 8), (2, 4, 20, 8)), True),
    ("abc,cd->da", ((20, 5, 12), (12, 15)), True),
    ("ij,jk->ik", ((2, 3), (3, 4)), False),           # small: NumPy's einsum loop
    ("ii,ij->j", ((40, 40), (40, 40)), False),        # a diagonal: NumPy's einsum
])
def test_large_einsum_uses_matmul(equation, shapes, fused):
    from spore._prims.linalg import _einsum_plan
    plan = _einsum_plan(equation, shapes, (np.dtype(np.float32),) * len(shapes))
    assert (plan is not None) == fused
