"""The training-speed paths: they must compute exactly what the plain paths compute.

Covered: the Dense primitive behind ops.dense, matmul gradients in their operand's
memory layout, the few-rows matmul formulation, the ``needed`` mask that lets a
gradient rule skip cotangents nobody reads, and the glibc allocator tuning.
References are NumPy formulas (float64 where a gradient is compared).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor, Parameter
from spore._core import primitive as P
from spore._core.aval import ShapedArray
from spore._prims.linalg import dense_p, matmul_p
from tests.helpers.optable import OpCase, case_id, run_forward, run_grad, run_infer

RNG = np.random.default_rng(7)


def _randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.fixture
def count_calls(monkeypatch):
    """counts[name]: kernel calls of the primitives given, while the test runs."""
    counts = {}

    def watch(prim):
        kernel = prim._cpu
        counts[prim.name] = 0

        def counted(*a, **k):
            counts[prim.name] += 1
            return kernel(*a, **k)
        monkeypatch.setattr(prim, "_cpu", counted)
    return counts, watch


# ----------------------------------------------------------------- Dense
@pytest.mark.parametrize("x_shape", [(5, 3), (2, 4, 3), (3,)])
def test_dense_forward_and_gradients_match_numpy(x_shape):
    x, w, b, g = _randn(*x_shape), _randn(4, 3), _randn(4), _randn(*x_shape[:-1], 4)

    def f(x, w, b):
        return (ops.dense(x, w, b) * Tensor(g)).sum()
    gx, gw, gb = ms.grad(f, grad_position=(0, 1, 2))(Tensor(x), Tensor(w), Tensor(b))
    np.testing.assert_allclose(ops.dense(Tensor(x), Tensor(w), Tensor(b)).asnumpy(),
                               x @ w.T + b, rtol=1e-5, atol=1e-5)
    g2, x2 = g.reshape(-1, 4), x.reshape(-1, 3)
    np.testing.assert_allclose(gx.asnumpy(), g @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), g2.T @ x2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), g2.sum(0), rtol=1e-5, atol=1e-5)


def test_dense_weight_gradient_is_contiguous_in_the_weight_layout():
    w = Parameter(Tensor(_randn(16, 8)), name="w")
    gw = ms.grad(lambda x: ops.dense(x, w).sum(), grad_position=None, weights=w)(
        Tensor(_randn(4, 8)))
    assert gw._data.flags.c_contiguous


def test_dense_skips_the_input_gradient_nobody_needs(count_calls):
    counts, watch = count_calls
    watch(matmul_p)
    watch(dense_p)
    w = Parameter(Tensor(_randn(6, 5)), name="w")
    ms.grad(lambda x: ops.dense(x, w).sum(), grad_position=None, weights=w)(
        Tensor(_randn(3, 5)))
    assert counts == {"MatMul": 1, "Dense": 1}    # dw only; no dx for the data


def test_dense_second_derivative_matches_the_composite():
    x, w = Tensor(_randn(3, 4, dtype=np.float64)), Tensor(_randn(2, 4, dtype=np.float64))

    def mixed_second_derivative(product):
        def dw_sum(x, w):
            return ms.grad(lambda x, w: (product(x, w) ** 2).sum(), grad_position=1)(x, w).sum()
        return ms.grad(dw_sum, grad_position=0)(x, w).asnumpy()
    np.testing.assert_allclose(mixed_second_derivative(ops.dense),
                               mixed_second_derivative(lambda x, w: ops.matmul(x, w.T)),
                               rtol=1e-10)


def test_dense_half_precision_matches_a_float32_product_rounded_once():
    x, w, b = _randn(4, 3), _randn(2, 3), _randn(2)
    half = [Tensor(a.astype(np.float16)) for a in (x, w, b)]
    got = ops.dense(*half).asnumpy()
    xh, wh, bh = (a.astype(np.float16).astype(np.float32) for a in (x, w, b))
    want = ((xh @ wh.T).astype(np.float16) + bh.astype(np.float16))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)


def test_dense_mixed_dtypes_keep_matmul_error():
    with pytest.raises(TypeError, match="MatMul"):
        ops.dense(Tensor(_randn(2, 3, dtype=np.float64)), Tensor(_randn(4, 3)))


def test_dense_primitive_infer_rejects_bad_bias():
    with pytest.raises(ValueError, match="Dense.*'b'"):
        dense_p.infer({}, ShapedArray((2, 3), np.float32), ShapedArray((4, 3), np.float32),
                      ShapedArray((3,), np.float32))


# ----------------------------------------------------------------- matmul
def test_matmul_gradient_of_a_transposed_operand_comes_back_contiguous():
    w_np, x_np = _randn(7, 5), _randn(3, 5)
    w = Parameter(Tensor(w_np), name="w")

    def f(x):
        return (ops.matmul(x, w.T) ** 2).sum()
    gw = ms.grad(f, grad_position=None, weights=w)(Tensor(x_np))
    y = x_np @ w_np.T
    np.testing.assert_allclose(gw.asnumpy(), (2 * y).T @ x_np, rtol=1e-5, atol=1e-5)
    assert gw._data.flags.c_contiguous


def test_matmul_gradient_with_a_transposed_left_operand():
    a_np, b_np = _randn(6, 4), _randn(6, 3)

    def f(a, b):
        return (ops.matmul(a.T, b) ** 2).sum()
    ga, gb = ms.grad(f, grad_position=(0, 1))(Tensor(a_np), Tensor(b_np))
    y = a_np.T @ b_np
    np.testing.assert_allclose(ga.asnumpy(), b_np @ (2 * y).T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gb.asnumpy(), a_np @ (2 * y), rtol=1e-5, atol=1e-5)
    assert ga._data.flags.c_contiguous


@pytest.mark.parametrize("rows", [1, 8, 64, 65])
def test_matmul_with_few_rows_and_a_transposed_weight(rows):
    x, w = _randn(rows, 96), _randn(200, 96)
    got = ops.matmul(Tensor(x), Tensor(w).T).asnumpy()
    np.testing.assert_allclose(got, x.astype(np.float64) @ w.T.astype(np.float64),
                               rtol=1e-4, atol=1e-4)
    assert got.flags.c_contiguous


# ----------------------------------------------------------------- the needed mask
def test_gradient_rule_receives_which_inputs_need_a_cotangent():
    seen = []
    prim = P.Primitive("TestNeededMask", lambda xp: lambda x, y: x * y, n_inputs=2)

    @prim.def_grad(inputs=(0, 1), needed=True)
    def _rule(attrs, inputs, out, dout, needed):
        seen.append(needed)
        x, y = inputs
        return (dout * y if needed[0] else None, dout * x if needed[1] else None)
    try:
        x, y = Tensor([2.0]), Tensor([3.0])
        gx = ms.grad(lambda x: prim(x, y).sum())(x)
        gxy = ms.grad(lambda x, y: prim(x, y).sum(), grad_position=(0, 1))(x, y)
    finally:
        del P.REGISTRY["TestNeededMask"]
    assert seen == [(True, False), (True, True)]
    assert gx.asnumpy().tolist() == [3.0]
    assert [g.asnumpy().tolist() for g in gxy] == [[3.0], [2.0]]


# ----------------------------------------------------------------- allocator tuning
def _tuned_in_child(env):
    code = "import spore._core.backend as b; print(b.MALLOC_TUNED)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, **env), check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_malloc_tuning_has_an_opt_out():
    assert _tuned_in_child({"SPORE_MALLOC_TUNING": "0"}) == "False"
    assert _tuned_in_child({"SPORE_MALLOC_TUNING": "1",
                            "MALLOC_MMAP_THRESHOLD_": "131072"}) == "False"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_malloc_tuning_is_on_by_default_on_glibc():
    import ctypes
    try:
        ctypes.CDLL(None).gnu_get_libc_version
    except AttributeError:
        pytest.skip("not glibc")
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPORE_MALLOC_TUNING", "MALLOC_MMAP_THRESHOLD_",
                        "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")}
    out = subprocess.run([sys.executable, "-c",
                          "import spore._core.backend as b; print(b.MALLOC_TUNED)"],
                         capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "True"


# ----------------------------------------------------------------- patch convolutions
def _conv_reference(x, w, stride):
    """Direct NumPy convolution (valid padding) in float64."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


@pytest.mark.parametrize("hw", [(8, 12), (9, 13)])      # whole patches, and a cropped edge
def test_patch_convolution_and_its_gradients(hw):
    x = _randn(2, 3, *hw, dtype=np.float64)
    w = _randn(5, 3, 4, 4, dtype=np.float64)
    b = _randn(5, dtype=np.float64)
    out = ops.conv2d(Tensor(x), Tensor(w), Tensor(b), stride=4)
    want = _conv_reference(x, w, 4) + b[None, :, None, None]
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-10)
    g = _randn(*want.shape, dtype=np.float64)

    def f(x, w):
        return (ops.conv2d(x, w, stride=4) * Tensor(g)).sum()
    gx, gw = ms.grad(f, grad_position=(0, 1))(Tensor(x), Tensor(w))
    np.testing.assert_allclose(gx.asnumpy(), _numeric_grad(lambda a: _conv_reference(a, w, 4),
                                                           x, g), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw.asnumpy(), _numeric_grad(lambda a: _conv_reference(x, a, 4),
                                                           w, g), rtol=1e-6, atol=1e-8)


def test_patch_convolution_output_is_channels_last():
    """NOTE: [Patch convolutions]: the output is an NCHW view of (N, OH, OW, O) memory,
    so a ViT's flatten + transpose back to tokens is a view, not a copy."""
    x = _randn(2, 3, 8, 12)
    w = _randn(5, 3, 4, 4)
    out = ops.conv2d(Tensor(x), Tensor(w), stride=4)
    assert out.shape == (2, 5, 2, 3)
    tokens = out.flatten(start_dim=2).transpose(0, 2, 1).asnumpy()
    assert tokens.flags.c_contiguous
    want = _conv_reference(x.astype(np.float64), w.astype(np.float64), 4)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout", ["nchw", "channels_last", "channels_last_slice"])
def test_patch_convolution_gradients_take_any_dy_layout(layout):
    """The filter and input gradients read ``dy`` as rows of channels; where it is not
    laid out so (a plain NCHW array, a slice of a token array) they copy it first."""
    from spore._prims.nn.conv import _patch_filter_grad, _patch_input_grad
    x = _randn(2, 3, 8, 12, dtype=np.float64)
    w = _randn(5, 3, 4, 4, dtype=np.float64)
    g = _randn(2, 5, 2, 3, dtype=np.float64)
    if layout == "nchw":
        dy = g.copy()
    else:
        tokens = np.zeros((2, 7, 5))              # (N, 1 + OH*OW, O), as after a concat
        tokens[:, 1:] = g.reshape(2, 5, 6).transpose(0, 2, 1)
        rows = tokens[:, 1:] if layout == "channels_last_slice" else tokens[:, 1:].copy()
        dy = rows.transpose(0, 2, 1).reshape(2, 5, 2, 3)
        assert not dy.flags.c_contiguous
    np.testing.assert_array_equal(dy, g)
    gw = _patch_filter_grad(np, x, dy, w.shape)
    np.testing.assert_allclose(gw, _numeric_grad(lambda a: _conv_reference(x, a, 4), w, g),
                               rtol=1e-6, atol=1e-8)
    gx = np.empty_like(x)
    _patch_input_grad(np, dy, w, gx)
    np.testing.assert_allclose(gx, _numeric_grad(lambda a: _conv_reference(a, w, 4), x, g),
                               rtol=1e-6, atol=1e-8)


def _numeric_grad(fn, arr, g, eps=1e-6):
    """Central differences of sum(fn(arr) * g) for every element of ``arr``."""
    out = np.zeros_like(arr)
    for idx in np.ndindex(arr.shape):
        plus, minus = arr.copy(), arr.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = ((fn(plus) * g).sum() - (fn(minus) * g).sum()) / (2 * eps)
    return out


def test_arithmetic_rules_skip_cotangents_of_constants(count_calls):
    from spore._prims.math import mul_p, neg_p
    counts, watch = count_calls
    watch(mul_p)
    watch(neg_p)
    x, label = Tensor(_randn(3, 4)), Tensor(_randn(3, 4))
    g = ms.grad(lambda x: ((x * 0.5) - label).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.full((3, 4), 0.5, np.float32))
    assert counts == {"Mul": 2, "Neg": 0}   # forward x * 0.5, backward dout * 0.5


def test_patch_convolution_sees_in_place_writes_to_its_input():
    x = Parameter(Tensor(_randn(1, 2, 8, 8, dtype=np.float64)), name="x")
    w_np = _randn(3, 2, 4, 4, dtype=np.float64)
    w = Tensor(w_np)
    x0 = x.asnumpy().copy()
    g = _randn(1, 3, 2, 2, dtype=np.float64)

    def f(w):
        y = ops.conv2d(x, w, stride=4)
        ops.assign(x, x + 1.0)                  # after the forward pass, before backward
        return (y * Tensor(g)).sum()
    gw = ms.grad(f)(w)
    want = _numeric_grad(lambda a: _conv_reference(x0, a, 4), w_np, g)
    np.testing.assert_allclose(gw.asnumpy(), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ops.conv2d(x, w, stride=4).asnumpy(),
                               _conv_reference(x0 + 1.0, w_np, 4), rtol=1e-10)


# ----------------------------------------------------------------- MatMul transpose attributes
def _swap(a, flag):
    return np.swapaxes(a, -1, -2) if flag else a


MATMUL_T_CASES = [
    OpCase(f"matmul-t{int(ta)}{int(tb)}-{len(sa)}d{len(sb)}d",
           lambda x, y, ta=ta, tb=tb: matmul_p(x, y, transpose_a=ta, transpose_b=tb),
           lambda x, y, ta=ta, tb=tb: _swap(x, ta) @ _swap(y, tb), [sa, sb])
    for ta in (False, True) for tb in (False, True)
    for sa, sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 5))]
    for sa, sb in [(sa[:-2] + sa[:-3:-1] if ta else sa, sb[:-2] + sb[:-3:-1] if tb else sb)]
]


@pytest.mark.parametrize("case", MATMUL_T_CASES, ids=case_id)
def test_matmul_transpose_attributes(case):
    run_forward(case)
    run_infer(case)
    run_grad(case)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_second_derivative_with_transposed_operands(ta, tb):
    a = _randn(2, 3, 4, dtype=np.float64)
    b = _randn(2, 4, 3, dtype=np.float64)
    x, y = Tensor(_swap(a, ta).copy()), Tensor(_swap(b, tb).copy())

    def f(x, y):
        return (matmul_p(x, y, transpose_a=ta, transpose_b=tb) ** 2).sum()
    hx = ms.grad(lambda x, y: ms.grad(f, grad_position=1)(x, y).sum(), grad_position=0)(x, y)
    # by hand: dB = 2 A^T A B, so S = sum(dB) = 2 sum_ikml A_ik A_im B_ml and
    # dS/dA = 2 (A B 1 + A 1 B^T) with 1 a matrix of ones
    ones = np.ones((2, 4, 3))
    want = 2 * (a @ ones @ np.swapaxes(b, -1, -2) + a @ b @ np.swapaxes(ones, -1, -2))
    np.testing.assert_allclose(hx.asnumpy(), _swap(want, ta), rtol=1e-10)


# ----------------------------------------------------------------- fused activation gradients
def test_tanh_second_derivative_through_tanh_grad():
    x = _randn(5, dtype=np.float64)
    d2 = ms.grad(lambda x: ms.grad(lambda x: ops.tanh(x).sum())(x).sum())(Tensor(x))
    t = np.tanh(x)
    np.testing.assert_allclose(d2.asnumpy(), -2 * t * (1 - t * t), rtol=1e-12)


def test_relu_gradient_and_its_derivative_in_the_cotangent():
    x, w = _randn(6, dtype=np.float64), _randn(6, dtype=np.float64)

    def dx_sum(x, w):
        return ms.grad(lambda x, w: (ops.relu(x) * w).sum())(x, w).sum()
    gx = ms.grad(lambda x, w: (ops.relu(x) * w).sum())(Tensor(x), Tensor(w))
    gw = ms.grad(dx_sum, grad_position=1)(Tensor(x), Tensor(w))
    np.testing.assert_array_equal(gx.asnumpy(), w * (x > 0))
    np.testing.assert_array_equal(gw.asnumpy(), (x > 0).astype(np.float64))


# ----------------------------------------------------------------- ApplyMomentum on BLAS
from spore._core import backend as B  # noqa: E402
from spore.nn.optim import _updates as U  # noqa: E402
from spore.nn.optim._updates import apply_momentum_p  # noqa: E402


def _momentum_state(n=5000):
    var, acc, g = _randn(n), _randn(n), _randn(n)
    lr, m = np.float32(0.1), np.float32(0.9)
    acc_want = acc * m + g                           # MindSpore's order: two roundings
    return var, acc, g, lr, m, acc_want, var - acc_want * lr


@pytest.mark.skipif(B.blas_vector_routines(np.float32) is None, reason="no BLAS vector routines")
def test_apply_momentum_on_blas_is_within_one_rounding_of_each_step(monkeypatch):
    calls = []
    routines = B.blas_vector_routines

    def counted(dtype):
        calls.append(dtype)
        return routines(dtype)
    monkeypatch.setattr(B, "blas_vector_routines", counted)
    var, acc, g, lr, m, acc_want, var_two_roundings = _momentum_state(U.BLAS_MIN_SIZE)
    v, a = Parameter(Tensor(var.copy()), name="v"), Parameter(Tensor(acc.copy()), name="a")
    apply_momentum_p(v, a, Tensor(lr), Tensor(g), Tensor(m))
    assert calls                                   # the BLAS path ran
    np.testing.assert_array_equal(a.asnumpy(), acc_want)
    # axpy may fuse var - lr * accum (one rounding) or not (MindSpore's two): any kernel
    # is within half an ulp of the rounded product plus half an ulp of the result
    step = acc_want.astype(np.float64) * np.float64(lr)
    exact, got = var.astype(np.float64) - step, v.asnumpy()
    bound = (np.spacing(np.abs(step.astype(np.float32))).astype(np.float64) / 2
             + np.spacing(np.abs(got)).astype(np.float64) / 2)
    assert np.all(np.abs(got.astype(np.float64) - exact) <= bound)


def test_apply_momentum_of_a_small_parameter_is_mindspores_rounding():
    var, acc, g, lr, m, acc_want, var_two_roundings = _momentum_state(U.BLAS_MIN_SIZE - 1)
    v, a = Parameter(Tensor(var.copy()), name="v"), Parameter(Tensor(acc.copy()), name="a")
    apply_momentum_p(v, a, Tensor(lr), Tensor(g), Tensor(m))
    np.testing.assert_array_equal(a.asnumpy(), acc_want)
    np.testing.assert_array_equal(v.asnumpy(), var_two_roundings)


def test_apply_momentum_falls_back_to_numpy_rounding():
    var, acc, g, lr, m, acc_want, var_two_roundings = _momentum_state(64)
    transposed = Tensor(g.reshape(8, 8).T.copy()).T   # a strided gradient: NumPy path
    assert not transposed._data.flags.c_contiguous
    v = Parameter(Tensor(var.reshape(8, 8).copy()), name="v")
    a = Parameter(Tensor(acc.reshape(8, 8).copy()), name="a")
    apply_momentum_p(v, a, Tensor(lr), transposed, Tensor(m))
    np.testing.assert_array_equal(a.asnumpy().ravel(), acc_want)
    np.testing.assert_array_equal(v.asnumpy().ravel(), var_two_roundings)


def test_apply_momentum_rejects_a_gradient_of_another_shape():
    v, a = Parameter(Tensor(_randn(8)), name="v"), Parameter(Tensor(_randn(8)), name="a")
    with pytest.raises(ValueError, match="ApplyMomentum"):
        apply_momentum_p(v, a, Tensor(np.float32(0.1)), Tensor(_randn(4)),
                         Tensor(np.float32(0.9)))


def test_blas_vector_routines_have_an_opt_out():
    code = ("import numpy as np; from spore._core import backend as B; "
            "print(B.blas_vector_routines(np.float32) is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, SPORE_BLAS_VECTOR="0"), check=True)
    assert out.stdout.strip() == "True"


@pytest.mark.skipif(B.blas_vector_routines(np.float64) is None, reason="no BLAS vector routines")
def test_blas_vector_routines_compute_axpy_and_scal():
    axpy, scal = B.blas_vector_routines(np.float64)
    x, y = np.arange(4.0), np.ones(4)
    axpy(2.0, x, y)
    scal(0.5, y)
    np.testing.assert_array_equal(y, (np.ones(4) + 2.0 * np.arange(4.0)) * 0.5)


# ----------------------------------------------------------------- conv filter-gradient layouts
@pytest.mark.parametrize("limit", [0, 1 << 62])       # one GEMM over the batch / per sample
def test_conv_filter_gradient_in_both_layouts(monkeypatch, limit):
    from spore._prims.nn import conv as C
    monkeypatch.setattr(C, "_BATCHED_GEMM_LIMIT", limit)
    x, dy = _randn(2, 3, 7, 6, dtype=np.float64), _randn(2, 4, 7, 6, dtype=np.float64)
    dw = C.conv2d_filter_grad_p(Tensor(x), Tensor(dy), filter_shape=(4, 3, 3, 3),
                                stride=(1, 1), pads=(1, 1, 1, 1), dilation=(1, 1), groups=1)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((4, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            want[:, :, i, j] = np.einsum("nohw,nchw->oc", dy, xp[:, :, i:i + 7, j:j + 6])
    np.testing.assert_allclose(dw.asnumpy(), want, rtol=1e-10)
