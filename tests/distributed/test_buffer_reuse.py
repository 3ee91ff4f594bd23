"""The pooled result buffers of the collectives (NOTE: [Buffer reuse]): a result is handed
out again only when nothing can reach it, and the fast paths give what the slow ones do."""
import gc

import ml_dtypes
import numpy as np
import pytest

import spore as ms
from spore._prims import comm as C
from spore.communication import _backend
from spore.communication import management as M

BIG = _backend.MIN_POOLED_BYTES // 4    # float32 elements of the smallest pooled size


def addr(a):
    return a.__array_interface__["data"][0]


def test_a_free_buffer_is_reused():
    pool = _backend.BufferPool()
    a = pool.empty((BIG,), np.float32)
    where = addr(a)
    del a
    assert addr(pool.empty((BIG,), np.float32)) == where


@pytest.mark.parametrize("keep", ["array", "view", "tensor", "asnumpy", "memoryview"])
def test_a_reachable_buffer_is_never_handed_out(keep):
    pool = _backend.BufferPool()
    a = pool.empty((BIG,), np.float32)
    a[:] = 7
    held = {"array": lambda: a, "view": lambda: a[10:20].reshape(2, 5),
            "tensor": lambda: ms.Tensor(a), "asnumpy": lambda: ms.Tensor(a).asnumpy(),
            "memoryview": lambda: memoryview(a)}[keep]()
    del a
    gc.collect()
    b = pool.empty((BIG,), np.float32)
    b[:] = 0
    got = held.asnumpy() if keep == "tensor" else np.asarray(held)
    assert (got == 7).all()
    del held, got
    b_at = addr(b)
    del b
    assert addr(pool.empty((BIG,), np.float32)) == b_at     # free again: reused


def test_small_results_are_not_pooled_and_slots_are_bounded():
    pool = _backend.BufferPool(slots=2)
    pool.empty((4,), np.float32)
    assert not pool._bufs
    for n in range(5):
        pool.empty((BIG + n,), np.float32)
    assert len(pool._bufs) == 2
    pool.clear()
    assert not pool._bufs


@pytest.fixture
def solo():
    M.release()
    M.init()
    yield M.group_comm("hccl_world_group")
    M.release()


DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int32, np.int64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_bucket_results_match_per_array_reduction_and_survive_the_next_step(solo, dtype):
    rng = np.random.default_rng(0)
    shapes = [(BIG // 2,), (3, 7), (BIG // 3, 2), ()]
    xs = [rng.integers(-50, 50, s).astype(dtype) for s in shapes]

    def step(arrays, scale):
        return C.fused_all_reduce_p(*[ms.Tensor(a) for a in arrays], op="sum",
                                    group="hccl_world_group", scale=scale,
                                    bucket_bytes=1 << 30)
    first = step(xs, 0.5 if np.dtype(dtype).kind != "i" else None)
    want = [a.astype(np.float64) * (0.5 if np.dtype(dtype).kind != "i" else 1) for a in xs]
    for got, w, a in zip(first, want, xs):
        assert got.shape == a.shape and got.asnumpy().dtype == a.dtype
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), w)
    # a second step while the first step's results are alive leaves them unchanged
    second = step([a * 0 for a in xs], None)
    for got, w in zip(first, want):
        np.testing.assert_allclose(got.asnumpy().astype(np.float64), w)
    assert all((s.asnumpy().astype(np.float64) == 0).all() for s in second)


def test_bucket_buffer_is_reused_once_the_step_drops_its_results(solo):
    xs = [ms.Tensor(np.ones(BIG, np.float32)), ms.Tensor(np.ones(5, np.float32))]
    kw = dict(op="sum", group="hccl_world_group", scale=None, bucket_bytes=1 << 30)
    out = C.fused_all_reduce_p(*xs, **kw)
    where = addr(out[0].asnumpy())
    del out
    again = C.fused_all_reduce_p(*xs, **kw)
    assert addr(again[0].asnumpy()) == where
    np.testing.assert_array_equal(again[1].asnumpy(), np.ones(5, np.float32))


def test_threads_never_share_a_pooled_array():
    import sys
    import threading
    pool = _backend.BufferPool()
    bad = []

    def work(tid):
        for _ in range(200):
            a = pool.empty((BIG,), np.int64)
            a[:8] = tid
            if not (a[:8] == tid).all():
                bad.append(tid)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not bad
