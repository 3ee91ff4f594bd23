"""LU, Householder QR, least squares, nuclear norm, tridiagonal products, the
MatrixDiag*V3 family, NthElement, HistogramFixedWidth, CompareAndBitpack and Quantile:
values MindSpore 2.10 printed (CPU), NumPy/SciPy references, gradients of the composites
against finite differences, and errors."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from spore._prims import linalg2 as L2
from tests.helpers.optable import OpCase, table_tests

sl = pytest.importorskip("scipy.linalg")

A = np.array([[2.0, 1, 1], [4, 3, 3], [8, 7, 9]], np.float32)
LU, PIV = sl.lu_factor(A)


def _t(a, dtype=None):
    return ms.Tensor(np.asarray(a, dtype) if dtype else np.asarray(a))


def _lu_inputs(rng, batch=(2,), n=3, k=2):
    a = rng.standard_normal(batch + (n, n)) + 3 * np.eye(n)
    lus, pivs = zip(*[sl.lu_factor(m) for m in a.reshape(-1, n, n)])
    return (np.stack(lus).reshape(a.shape), np.stack(pivs).reshape(batch + (n,)) + 1,
            rng.standard_normal(batch + (n, k)))


def _lu_solve_ref(lu, piv, b):
    out = np.empty_like(b)
    for i in np.ndindex(b.shape[:-2]):
        out[i] = sl.lu_solve((lu[i], piv[i] - 1), b[i])
    return out


def _householder_inputs(rng, m=4, n=3):
    a = rng.standard_normal((m, n))
    raw, tau = np.linalg.qr(a, mode="raw")
    return raw.T.copy(), tau


def _q_of(h, tau):
    m, n = h.shape
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.zeros(m)
        v[i], v[i + 1:] = 1.0, h[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q


_RNG = np.random.default_rng(0)
_LU, _PIV, _B = _lu_inputs(_RNG)
_H, _TAU = _householder_inputs(_RNG)
_C = _RNG.standard_normal((4, 2))
_CR = _RNG.standard_normal((2, 4))

CASES = [
    OpCase("lu_solve", lambda b, lu: ops.lu_solve(b, lu, ms.Tensor(_PIV.astype(np.int32))),
           lambda b, lu: _lu_solve_ref(lu, _PIV, b), [_B, _LU], rtol=1e-4, atol=1e-5),
    OpCase("lu_unpack", lambda lu: ops.lu_unpack(lu, ms.Tensor(_PIV.astype(np.int32)))[1:],
           lambda lu: (np.tril(lu, -1) + np.eye(3), np.triu(lu)), [_LU]),
    OpCase("orgqr", lambda h, t: ops.orgqr(h, t),
           lambda h, t: _q_of(h, t)[:, :3], [_H, _TAU], rtol=1e-4, atol=1e-5),
    OpCase("ormqr-left", lambda h, t, c: ops.ormqr(h, t, c),
           lambda h, t, c: _q_of(h, t) @ c, [_H, _TAU, _C], rtol=1e-4, atol=1e-5),
    OpCase("ormqr-left-transpose", lambda h, t, c: ops.ormqr(h, t, c, True, True),
           lambda h, t, c: _q_of(h, t).T @ c, [_H, _TAU, _C], rtol=1e-4, atol=1e-5),
    OpCase("ormqr-right", lambda h, t, c: ops.Ormqr(False, False)(h, t, c),
           lambda h, t, c: c @ _q_of(h, t), [_H, _TAU, _CR], rtol=1e-4, atol=1e-5),
    OpCase("ormqr-right-transpose", lambda h, t, c: ops.ormqr(h, t, c, False, True),
           lambda h, t, c: c @ _q_of(h, t).T, [_H, _TAU, _CR], rtol=1e-4, atol=1e-5),
    OpCase("MatrixSolveLs", lambda a, b: ops.MatrixSolveLs()(a, b, ms.Tensor(0.5)),
           lambda a, b: np.linalg.solve(a.T @ a + 0.5 * np.eye(2), a.T @ b),
           [(4, 2), (4, 1)], rtol=1e-4, atol=1e-5),
    OpCase("MatrixSolveLs-wide", lambda a, b: ops.MatrixSolveLs()(a, b, ms.Tensor(0.25)),
           lambda a, b: a.T @ np.linalg.solve(a @ a.T + 0.25 * np.eye(2), b),
           [(2, 3), (2, 2)], rtol=1e-4, atol=1e-5),
    OpCase("MatrixSolveLs-slow", lambda a, b: ops.MatrixSolveLs(fast=False)(a, b, ms.Tensor(1.0)),
           lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], [(4, 2), (4, 1)], rtol=1e-4,
           atol=1e-5, grad=False),
    OpCase("NuclearNorm", lambda x: ops.NuclearNorm()(x),
           lambda x: np.linalg.svd(x, compute_uv=False).sum(), [(3, 4)], rtol=1e-5),
    OpCase("NuclearNorm-dim", lambda x: ops.NuclearNorm([0, 2], True)(x),
           lambda x: np.linalg.svd(x.transpose(1, 0, 2), compute_uv=False).sum(-1)
           .reshape(1, 3, 1), [(2, 3, 4)], rtol=1e-5),
    OpCase("TridiagonalMatMul", lambda a, b, c, r: ops.TridiagonalMatMul()(a, b, c, r),
           lambda a, b, c, r: (np.diag(b[0]) + np.diag(a[0, :-1], 1) + np.diag(c[0, 1:], -1)) @ r,
           [(1, 4), (1, 4), (1, 4), (4, 3)]),
    OpCase("matrix_diag-band", lambda x: ops.matrix_diag(x, k=_t([-1, 1], np.int32),
                                                         num_rows=_t(3, np.int32),
                                                         num_cols=_t(4, np.int32),
                                                         padding_value=_t(0.5, np.float32)),
           None, [(2, 3, 3)]),
    OpCase("matrix_diag_part", lambda x: ops.matrix_diag_part(x, _t([-1, 2], np.int32),
                                                              _t(0.0, np.float32)),
           None, [(2, 3, 4)]),
    OpCase("matrix_set_diag", lambda x, d: ops.matrix_set_diag(x, d, _t([0, 1], np.int32)),
           None, [(3, 4), (2, 3)]),
    OpCase("NthElement", lambda x: ops.NthElement()(x, 1), lambda x: np.sort(x, -1)[..., 1],
           [(3, 5)]),
    OpCase("NthElement-reverse", lambda x: ops.NthElement(True)(x, 0), lambda x: x.max(-1),
           [(2, 3, 4)]),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


# ----------------------------------------------------------------- MindSpore's values
def test_lu_solve_and_unpack_match_mindspore():
    lu, piv = ms.Tensor(LU.astype(np.float32)), ms.Tensor((PIV + 1).astype(np.int32))
    b = ms.Tensor(np.array([[1.0], [2], [3]], np.float32))
    np.testing.assert_allclose(ops.lu_solve(b, lu, piv).asnumpy(), [[0.5], [0.5], [-0.5]],
                               atol=1e-5)
    np.testing.assert_allclose(ops.LuSolve()(b, lu, piv).asnumpy(), [[0.5], [0.5], [-0.5]],
                               atol=1e-5)
    p, lower, upper = ops.LuUnpack()(lu, piv)
    np.testing.assert_array_equal(p.asnumpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    np.testing.assert_allclose((p @ lower @ upper).asnumpy(), A, rtol=1e-5)
    p, lower, upper = ops.lu_unpack(ms.Tensor(np.arange(6.0).reshape(2, 3).astype(np.float32)),
                                    ms.Tensor(np.array([1, 2], np.int32)))
    np.testing.assert_array_equal(p.asnumpy(), np.eye(2))
    np.testing.assert_array_equal(lower.asnumpy(), [[1, 0], [3, 1]])
    np.testing.assert_array_equal(upper.asnumpy(), [[0, 1, 2], [0, 4, 5]])
    p, lower, upper = ops.lu_unpack(lu, piv, unpack_data=False)
    assert lower is None and upper is None and p.shape == (3, 3)


def test_lu_pivots_to_permutation_batched():
    piv = np.array([[3, 3, 3], [1, 2, 3]], np.int32)
    perm = L2.lu_permutation_p(ms.Tensor(piv), rows=3).asnumpy()
    np.testing.assert_array_equal(perm, [[2, 0, 1], [0, 1, 2]])
    with pytest.raises(ValueError, match="LU_pivots"):
        L2.lu_permutation_p(ms.Tensor(np.array([0, 1], np.int32)), rows=2)


def test_geqrf_matches_mindspore_and_lapack():
    y, tau = ops.geqrf(ms.Tensor(np.array([[-2.0, -1.0], [1.0, 2.0]], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[2.23607, 1.78885], [-0.23607, 1.34164]], rtol=1e-5)
    np.testing.assert_allclose(tau.asnumpy(), [1.89443, 0.0], rtol=1e-5)
    # a zero pivot: MindSpore reflects to +|x| (LAPACK to -|x|)
    y, tau = ops.Geqrf()(ms.Tensor(np.arange(6.0).reshape(3, 2).astype(np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[4.47214, 5.81378], [-0.44721, -1.09545],
                                             [-0.89443, 0.35746]], rtol=1e-4)
    np.testing.assert_allclose(tau.asnumpy(), [1.0, 1.7734], rtol=1e-4)
    rng = np.random.default_rng(1)
    for shape in ((5, 3), (3, 5), (4, 4)):
        a = rng.standard_normal(shape)
        raw, t = np.linalg.qr(a, mode="raw")
        y, tau = ops.geqrf(ms.Tensor(a))
        np.testing.assert_allclose(y.asnumpy(), raw.T, atol=1e-12)
        np.testing.assert_allclose(tau.asnumpy(), t, atol=1e-12)
    c = rng.standard_normal((2, 4, 3)) + 1j * rng.standard_normal((2, 4, 3))
    y, tau = ops.geqrf(ms.Tensor(c))
    for i in range(2):
        raw, t = np.linalg.qr(c[i], mode="raw")
        np.testing.assert_allclose(y.asnumpy()[i], raw.T, atol=1e-12)
        np.testing.assert_allclose(tau.asnumpy()[i], t, atol=1e-12)


def test_orgqr_matches_mindspore_and_rebuilds_q():
    h = np.array([[-114.6, 10.9, 1.1], [-0.304, 38.07, 69.38], [-0.45, -0.17, 62.0]], np.float32)
    q = ops.orgqr(ms.Tensor(h), ms.Tensor(np.array([1.55, 1.94, 0.0], np.float32)))
    np.testing.assert_allclose(q.asnumpy(), [[-0.55, -0.21289, 0.8138],
                                             [0.4712, -0.87528, 0.08241],
                                             [0.6975, 0.4256, 0.57773]], atol=1e-4)
    a = np.random.default_rng(2).standard_normal((2, 5, 3))
    y, tau = ops.geqrf(ms.Tensor(a))
    q = ops.orgqr(y, tau).asnumpy()
    r = np.triu(y.asnumpy())[:, :3]
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, 1, 2) @ q, np.broadcast_to(np.eye(3), (2, 3, 3)),
                               atol=1e-12)


def test_matrix_solve_ls_matches_mindspore():
    a = ms.Tensor(np.array([[1.0, 2], [3, 4], [5, 6]], np.float32))
    b = ms.Tensor(np.array([[1.0], [2], [4]], np.float32))
    np.testing.assert_allclose(ops.MatrixSolveLs()(a, b, ms.Tensor(0.0)).asnumpy(),
                               [[0.66667], [0.08333]], rtol=1e-4)
    np.testing.assert_allclose(ops.MatrixSolveLs()(a, b, ms.Tensor(0.5)).asnumpy(),
                               [[0.42294], [0.2724]], rtol=1e-4)
    np.testing.assert_allclose(ops.MatrixSolveLs(False)(a, b, ms.Tensor(0.5)).asnumpy(),
                               [[0.66667], [0.08333]], rtol=1e-4)
    wide = ms.Tensor(np.array([[1.0, 2, 3], [3, 4, 5]], np.float32))
    np.testing.assert_allclose(ops.MatrixSolveLs()(wide, ms.Tensor(np.array([[1.0], [2]],
                                                                             np.float32)),
                                                   ms.Tensor(0.5)).asnumpy(),
                               [[0.13333], [0.16], [0.18667]], rtol=1e-4)


def test_matrix_logarithm_matches_mindspore():
    x = np.array([[1 + 2j, 2 + 1j], [4 + 1j, 5 + 2j]], np.complex64)
    out = ops.MatrixLogarithm()(ms.Tensor(x))
    assert out.dtype == ms.complex64
    np.testing.assert_allclose(out.asnumpy(), [[0.69156 + 1.71618j, 0.64665 - 0.34928j],
                                               [1.02426 - 0.88737j, 1.44678 + 0.64001j]],
                               atol=1e-4)
    np.testing.assert_allclose(L2.logm_eig(x.astype(np.complex128)), out.asnumpy(), atol=1e-4)
    batch = np.stack([x, np.eye(2, dtype=np.complex64) * 2])
    logs = ops.MatrixLogarithm()(ms.Tensor(batch)).asnumpy()
    np.testing.assert_allclose(logs[1], np.eye(2) * np.log(2), atol=1e-6)
    with pytest.raises(TypeError, match="MatrixLogarithm"):
        ops.MatrixLogarithm()(ms.Tensor(np.eye(2, dtype=np.float32)))


def test_nuclear_norm_and_tridiagonal_match_mindspore():
    x = ms.Tensor(np.array([[1.0, 2, 3], [4, 5, 6]], np.float32))
    np.testing.assert_allclose(ops.NuclearNorm()(x).asnumpy(), 10.2809, rtol=1e-5)
    y = ms.Tensor(np.arange(24.0).reshape(2, 3, 4).astype(np.float32))
    out = ops.NuclearNorm(dim=[1, 2], keepdim=True)(y)
    np.testing.assert_allclose(out.asnumpy(), [[[24.364639]], [[62.49508]]], rtol=1e-5)
    with pytest.raises(ValueError, match="input_size must be equal to 2"):
        ops.NuclearNorm()(y)
    diag = lambda *v: ms.Tensor(np.array([v], np.float32))      # noqa: E731
    out = ops.TridiagonalMatMul()(diag(1, 2, 3), diag(4, 5, 6), diag(7, 8, 9),
                                  ms.Tensor(np.arange(9.0).reshape(3, 3).astype(np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[3, 8, 13], [27, 42, 57], [63, 78, 93]])
    with pytest.raises(ValueError, match="superdiag"):
        ops.TridiagonalMatMul()(ms.Tensor(np.ones(3, np.float32)), diag(4, 5, 6), diag(7, 8, 9),
                                ms.Tensor(np.ones((3, 3), np.float32)))


X3 = np.array([[8, 9, 0], [1, 2, 3], [0, 4, 5]], np.float32)
Y34 = np.arange(1, 13).reshape(3, 4).astype(np.float32)
i32 = lambda v: ms.Tensor(np.array(v, np.int32))                # noqa: E731
f32 = lambda v: ms.Tensor(np.array(v, np.float32))              # noqa: E731


@pytest.mark.parametrize("call, want", [
    (lambda: ops.MatrixDiagV3()(ms.Tensor(X3), i32([-1, 1]), i32(3), i32(3), f32(0)),
     [[1, 9, 0], [0, 2, 0], [0, 4, 3]]),
    (lambda: ops.matrix_diag(ms.Tensor(X3), i32([-1, 1]), i32(3), i32(3), f32(0), "LEFT_LEFT"),
     [[1, 8, 0], [0, 2, 9], [0, 4, 3]]),
    (lambda: ops.matrix_diag(f32([1, 2, 3])), np.diag([1, 2, 3])),
    (lambda: ops.matrix_diag(f32([1, 2, 3]), k=1, padding_value=9),
     [[9, 1, 9, 9], [9, 9, 2, 9], [9, 9, 9, 3], [9, 9, 9, 9]]),
    (lambda: ops.matrix_diag(f32([1, 2]), i32(1), i32(-1), i32(-1), f32(9)),
     [[9, 1, 9], [9, 9, 2], [9, 9, 9]]),
    (lambda: ops.matrix_diag(f32([1, 2]), i32(1), i32(4), i32(-1), f32(9)),
     [[9, 1, 9], [9, 9, 2], [9, 9, 9], [9, 9, 9]]),
    (lambda: ops.MatrixDiagPartV3()(ms.Tensor(Y34), i32([-1, 2]), f32(0)),
     [[0, 3, 8], [2, 7, 12], [1, 6, 11], [5, 10, 0]]),
    (lambda: ops.matrix_diag_part(ms.Tensor(Y34), i32([-1, 2]), f32(7), "RIGHT_RIGHT"),
     [[7, 3, 8], [2, 7, 12], [1, 6, 11], [7, 5, 10]]),
    (lambda: ops.matrix_diag_part(ms.Tensor(Y34), i32([-2, 0]), f32(7), "LEFT_RIGHT"),
     [[1, 6, 11], [7, 5, 10], [7, 7, 9]]),
    (lambda: ops.matrix_diag_part(ms.Tensor(Y34), i32(0), f32(7)), [1, 6, 11]),
    (lambda: ops.MatrixSetDiagV3()(ms.Tensor(Y34), f32([[-1, -2, -3], [-4, -5, -6]]),
                                   i32([0, 1])),
     [[-4, -1, 3, 4], [5, -5, -2, 8], [9, 10, -6, -3]]),
    (lambda: ops.matrix_set_diag(ms.Tensor(Y34), f32([-1, -2, -3])),
     [[-1, 2, 3, 4], [5, -2, 7, 8], [9, 10, -3, 12]]),
    (lambda: ops.matrix_set_diag(ms.Tensor(Y34), f32([-1, -2]), k=-1),
     [[1, 2, 3, 4], [-1, 6, 7, 8], [9, -2, 11, 12]]),
])
def test_matrix_diag_family_matches_mindspore(call, want):
    np.testing.assert_array_equal(call().asnumpy(), want)


def test_matrix_diag_family_round_trips_batches():
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    k = i32([-2, 1])
    part = ops.matrix_diag_part(ms.Tensor(x), k, ms.Tensor(0.0))
    assert part.shape == (2, 3, 4, 4)
    rebuilt = ops.matrix_diag(part, k, i32(4), i32(5), ms.Tensor(0.0))
    band = np.triu(np.tril(x, 1), -2)
    np.testing.assert_array_equal(rebuilt.asnumpy(), band)
    zeroed = ops.matrix_set_diag(ms.Tensor(x), ms.Tensor(np.zeros((2, 3, 4, 4))), k)
    np.testing.assert_array_equal(zeroed.asnumpy(), x - band)


def test_matrix_diag_errors():
    with pytest.raises(TypeError, match="MatrixDiagPartV3.*k"):
        ops.matrix_diag_part(ms.Tensor(Y34), 1, 7.0)
    with pytest.raises(ValueError, match="align"):
        ops.matrix_diag(f32([1, 2]), align="MIDDLE")
    with pytest.raises(ValueError, match="k\\[0\\]"):
        ops.matrix_diag(ms.Tensor(X3), i32([1, -1]))
    with pytest.raises(ValueError, match="num_rows"):
        ops.matrix_diag(f32([1, 2]), 0, 1, 1)
    with pytest.raises(ValueError, match="diagonal"):
        ops.matrix_set_diag(ms.Tensor(Y34), f32([1, 2]))


def test_nth_element_histogram_bitpack_match_mindspore():
    x = ms.Tensor(np.array([[1, 5, 2], [3, 7, 4]], np.float32))
    np.testing.assert_array_equal(ops.NthElement()(x, ms.Tensor(1, ms.int32)).asnumpy(), [2, 4])
    out = ops.NthElement(reverse=True)(ms.Tensor(np.array([[1, 5, 2], [3, 7, 4]], np.int32)), 0)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [5, 7]
    assert ops.NthElement()(f32([1, 5, 2]), 2).asnumpy() == 5
    with pytest.raises(ValueError, match="n_value must be less than 3"):
        ops.NthElement()(f32([1, 5, 2]), 3)
    h = ops.HistogramFixedWidth(5)(f32([-1.0, 0.0, 1.5, 2.0, 5.0, 15]), f32([0.0, 5.0]))
    assert h.dtype == ms.int32 and h.asnumpy().tolist() == [2, 1, 1, 0, 2]
    h = ops.HistogramFixedWidth(3)(i32([1, 2, 3, 9]), i32([0, 9]))
    assert h.asnumpy().tolist() == [2, 1, 1]
    bits = ops.CompareAndBitpack()(f32([1, 2, 3, 4, 5, 6, 7, 8]), ms.Tensor(6, ms.float32))
    assert bits.dtype == ms.uint8 and bits.asnumpy().tolist() == [3]
    bits = ops.CompareAndBitpack()(ms.Tensor(np.arange(16).reshape(2, 8).astype(np.int32)),
                                   ms.Tensor(np.array(3, np.int32)))
    assert bits.asnumpy().tolist() == [[15], [255]]
    bits = ops.CompareAndBitpack()(ms.Tensor(np.array([True, False] * 4)), ms.Tensor(False))
    assert bits.asnumpy().tolist() == [85]
    with pytest.raises(ValueError, match="% 8"):
        ops.CompareAndBitpack()(f32(np.arange(6.0)), ms.Tensor(3.0, ms.float32))


def test_quantile_class_forwards_to_quantile():
    x = ms.Tensor(np.array([[1.0, 5, 2], [3, np.nan, 4]], np.float32))
    q = f32([0.25, 0.5])
    out = ops.Quantile(dim=1, keep_dims=True, ignore_nan=True)(x, q)
    np.testing.assert_allclose(out.asnumpy(), [[[1.5], [3.25]], [[2.0], [3.5]]])
    assert np.isnan(ops.Quantile()(x, q).asnumpy()).all()
    np.testing.assert_allclose(ops.Quantile(dim=1)(ms.Tensor(np.array([[1.0, 5, 2], [3, 7, 4]],
                                                                       np.float32)),
                                                   ms.Tensor(0.5, ms.float32)).asnumpy(), [2, 4])


def test_linalg_errors():
    lu, piv = ms.Tensor(LU.astype(np.float32)), ms.Tensor((PIV + 1).astype(np.int32))
    with pytest.raises(TypeError, match="lu_solve"):
        ops.lu_solve(ms.Tensor(np.ones((3, 1))), lu, piv)
    with pytest.raises(ValueError, match="lu_solve"):
        ops.lu_solve(ms.Tensor(np.ones((2, 1), np.float32)), lu, piv)
    with pytest.raises(TypeError, match="geqrf"):
        ops.geqrf(ms.Tensor(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError, match="orgqr"):
        ops.orgqr(ms.Tensor(np.ones((2, 3))), ms.Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="ormqr"):
        ops.ormqr(ms.Tensor(np.ones((3, 3))), ms.Tensor(np.ones(3)), ms.Tensor(np.ones((3, 3))),
                  left=1)
    with pytest.raises(ValueError, match="MatrixSolveLs"):
        ops.MatrixSolveLs()(ms.Tensor(np.ones((3, 2))), ms.Tensor(np.ones((2, 1))), 0.0)


def test_bad_argument_kinds_name_the_op():
    lu = ms.Tensor(LU.astype(np.float32))
    with pytest.raises(TypeError, match="lu_unpack.*LU_pivots"):
        ops.lu_unpack(lu, None)
    with pytest.raises(TypeError, match="MatrixSolveLs.*l2"):
        ops.MatrixSolveLs()(ms.Tensor(np.ones((3, 2))), ms.Tensor(np.ones((3, 1))),
                            ms.Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="MatrixDiagV3.*Int32"):
        ops.matrix_diag(f32([1, 2]), k=2 ** 70)
