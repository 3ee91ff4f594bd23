"""Batched matrix products through OpenBLAS's strided batch routine (NOTE: [Batched GEMM]
in spore/_prims/linalg.py): each item gives the bits of NumPy's product on one BLAS
thread, whatever the thread count; layouts, broadcasting and small products."""
import os
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore._prims import linalg as L
from tests.helpers.blas import blas_threads

T = ms.Tensor
needs_routine = pytest.mark.skipif(L._batch_routine(np.dtype(np.float32)) is None,
                                   reason="NumPy's BLAS has no strided batch GEMM")


def _one_thread(fn):
    """``fn()`` with NumPy's BLAS on one thread (the threads restored after)."""
    control = blas_threads()
    if control is None:
        pytest.skip("cannot set the BLAS thread count")
    setn, getn = control
    before = getn()
    setn(1)
    try:
        return fn()
    finally:
        setn(before)


def _operands(rng, batch_a, batch_b, m, k, n, ta=False, tb=False, dtype=np.float32):
    a = rng.standard_normal(batch_a + ((k, m) if ta else (m, k))).astype(dtype)
    b = rng.standard_normal(batch_b + ((n, k) if tb else (k, n))).astype(dtype)
    return (a.swapaxes(-1, -2) if ta else a), (b.swapaxes(-1, -2) if tb else b)


LAYOUTS = [
    # batch of a, batch of b, m, k, n, a transposed, b transposed
    ((64,), (64,), 197, 32, 197, False, False),      # attention scores q @ k^T
    ((64,), (64,), 197, 197, 32, False, False),      # att @ v
    ((8, 8), (8, 8), 197, 32, 197, False, True),     # q @ k given as k with transpose_b
    ((6,), (6,), 120, 150, 90, True, False),         # a^T g
    ((6,), (6,), 120, 150, 90, True, True),
    ((3, 1), (1, 4), 110, 100, 120, False, False),   # broadcast batch axes
    ((), (5,), 110, 100, 120, False, False),         # a matrix times a batch
]


@needs_routine
@pytest.mark.parametrize("batch_a,batch_b,m,k,n,ta,tb", LAYOUTS)
def test_batched_product_is_one_blas_thread_numpy_product(batch_a, batch_b, m, k, n, ta, tb):
    a, b = _operands(np.random.default_rng(0), batch_a, batch_b, m, k, n, ta, tb)
    got = L.batched_gemm(a, b)
    assert got is not None and got.flags.c_contiguous and got.dtype == np.float32
    np.testing.assert_array_equal(got, _one_thread(lambda: np.matmul(a, b)))
    exact = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, exact, rtol=1e-4, atol=1e-3)


@needs_routine
def test_strided_items_of_a_permuted_view():
    """q, k, v of attention are views into one (3, B, H, L, D) permutation of the qkv
    product: rows 768 apart, batch axes that do not fold into one stride."""
    rng = np.random.default_rng(1)
    qkv = rng.standard_normal((4, 197, 3, 8, 32)).astype(np.float32).transpose(2, 0, 3, 1, 4)
    q, k = qkv[0], qkv[1]
    got = L.batched_gemm(q, k.swapaxes(-1, -2))
    np.testing.assert_array_equal(got, _one_thread(lambda: np.matmul(q, k.swapaxes(-1, -2))))


@needs_routine
def test_result_does_not_depend_on_the_blas_thread_count():
    a, b = _operands(np.random.default_rng(2), (16,), (16,), 197, 64, 197)
    np.testing.assert_array_equal(L.batched_gemm(a, b),
                                  _one_thread(lambda: L.batched_gemm(a, b)))


@needs_routine
def test_float64_batches():
    a, b = _operands(np.random.default_rng(3), (4,), (4,), 128, 100, 128, dtype=np.float64)
    got = L.batched_gemm(a, b)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, _one_thread(lambda: np.matmul(a, b)))


@pytest.mark.parametrize("make", [
    lambda r: _operands(r, (4,), (4,), 50, 50, 50),                  # small items
    lambda r: _operands(r, (1,), (1,), 200, 200, 200),               # one item
    lambda r: _operands(r, (4,), (4,), 200, 200, 200, dtype=np.int32),
    lambda r: (np.ones((4, 200, 400), np.float32)[..., ::2], np.ones((4, 200, 200), np.float32)),
    lambda r: (np.ones((4, 200, 200), np.float32), np.ones((4, 200, 200), np.float64)),
])
def test_other_products_are_left_to_numpy(make):
    a, b = make(np.random.default_rng(4))
    assert L.batched_gemm(a, b) is None


def test_matmul_op_values_for_every_path():
    """ops.matmul agrees with NumPy whichever path computes it."""
    rng = np.random.default_rng(5)
    for a, b in (_operands(rng, (8,), (8,), 150, 80, 120),
                 _operands(rng, (2, 3), (2, 3), 150, 80, 120, ta=True, tb=True),
                 (rng.standard_normal((4, 200, 400)).astype(np.float32)[..., ::2],
                  rng.standard_normal((4, 200, 150)).astype(np.float32))):
        got = ops.matmul(T(a), T(b)).asnumpy()
        np.testing.assert_allclose(got, np.matmul(a.astype(np.float64), b.astype(np.float64)),
                                   rtol=1e-4, atol=1e-3)


@needs_routine
def test_gradients_of_a_batched_product():
    """Both cotangents are batched products themselves (transpose attributes)."""
    rng = np.random.default_rng(6)
    a, b = _operands(rng, (4,), (4,), 130, 90, 110)
    g = rng.standard_normal((4, 130, 110)).astype(np.float32)
    grad = ms.grad(lambda x, y: (ops.matmul(x, y) * T(g)).sum(), grad_position=(0, 1))
    da, db = (t.asnumpy() for t in grad(T(a), T(b)))
    g64 = g.astype(np.float64)
    np.testing.assert_allclose(da, g64 @ b.astype(np.float64).swapaxes(-1, -2),
                               rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(db, a.astype(np.float64).swapaxes(-1, -2) @ g64,
                               rtol=1e-4, atol=1e-3)


@needs_routine
def test_pynative_and_compiled_graph_give_the_same_bits():
    rng = np.random.default_rng(7)
    q, k = _operands(rng, (2, 8), (2, 8), 197, 32, 197)
    v = rng.standard_normal((2, 8, 197, 32)).astype(np.float32)

    def attention(q, k, v):
        s = ops.softmax(ops.matmul(q, k) * 0.125, -1)
        return ops.matmul(s, v).sum()
    step = ms.value_and_grad(attention, grad_position=(0, 1, 2))
    eager = step(T(q), T(k), T(v))
    graph = ms.jit(step)(T(q), T(k), T(v))
    for e, c in zip([eager[0], *eager[1]], [graph[0], *graph[1]]):
        np.testing.assert_array_equal(e.asnumpy(), c.asnumpy())


def test_switched_off_by_the_environment():
    code = ("import numpy as np; from spore._prims import linalg as L; "
            "a = np.ones((4, 200, 200), np.float32); "
            "print(L.batched_gemm(a, a) is None)")
    env = dict(os.environ, SPORE_BLAS_BATCH="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "True"


def test_a_32_bit_blas_leaves_dimensions_beyond_its_ints_to_numpy(monkeypatch):
    calls = []
    monkeypatch.setitem(L._batch_routines, np.dtype(np.float32),
                        (lambda *args: calls.append(args), np.intc, np.float32))
    L._batch_plan.cache_clear()         # plans keep the routine they were made with
    try:
        buf = np.zeros(16, np.float32)
        # rows 2^31 elements apart: never read, the routine is not called
        x = np.lib.stride_tricks.as_strided(buf, (2, 120, 100), (0, 4 << 31, 4))
        y = np.zeros((2, 100, 120), np.float32)
        assert L.batched_gemm(x, y) is None and not calls
        assert L.batched_gemm(np.zeros((2, 120, 100), np.float32), y) is not None and calls
    finally:
        L._batch_plan.cache_clear()

@needs_routine
def test_plans_follow_each_layout_and_each_call_reads_its_own_operands():
    """A plan is made once per shapes and strides (``_batch_plan``); arrays of the same
    shape in another layout get their own, and every call reads the arrays it is given."""
    rng = np.random.default_rng(3)
    qkv = rng.standard_normal((2, 197, 3, 4, 32)).astype(np.float32).transpose(2, 0, 3, 1, 4)
    for q in (qkv[0], np.ascontiguousarray(qkv[0]), qkv[1], np.ascontiguousarray(qkv[2])):
        k = rng.standard_normal((2, 4, 32, 197)).astype(np.float32)
        got = L.batched_gemm(q, k)
        assert got is not None
        np.testing.assert_array_equal(got, _one_thread(lambda: np.matmul(q, k)))
