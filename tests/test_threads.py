"""Spore's thread pool (spore/_core/threads.py, NOTE: [Threads]) and the elementwise
kernels it runs in chunks: the same bits as one call, only above each primitive's
threshold, with the user's thread settings honoured, and usable after fork."""
import multiprocessing
import os
import threading

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore._core import threads
from spore._core import primitive as P
from spore._prims import math as M
from spore._prims import vecmath
from spore import _native

rng = np.random.default_rng(0)


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    """Each test starts with the pool trusted (NOTE: [Starved pool])."""
    monkeypatch.setattr(threads, "_backoff", [0, 0])


@pytest.fixture
def two_threads(monkeypatch):
    """Two threads even on a one-CPU runner, whatever the environment says."""
    monkeypatch.delenv("SPORE_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setattr(threads, "_cpus", lambda: 2)
    assert threads.count() == 2


@pytest.fixture
def low_thresholds(monkeypatch):
    """Every chunked primitive chunks from 64K elements (the real thresholds reach 4M)."""
    for prim in P.REGISTRY.values():
        if prim.par_min != P._NO_CHUNKS:
            monkeypatch.setattr(prim, "par_min", 1 << 16)
        if prim.par_kernel is not None:
            monkeypatch.setattr(prim.par_kernel, "numpy_min", 1 << 16)


@pytest.fixture
def numpy_kernels(monkeypatch):
    """The NumPy kernels even where Numba would vectorise float32 tanh, exp and sigmoid
    (NOTE: [Vectorised unary kernels], tested in tests/test_vecmath.py)."""
    monkeypatch.setattr(_native, "_enabled", False)


@pytest.fixture
def spy(monkeypatch):
    """Record every chunked elementwise call."""
    calls = []
    real = threads.elementwise

    def recording(kernel, args, composite=False):
        calls.append(args)
        return real(kernel, args, composite)
    monkeypatch.setattr(threads, "elementwise", recording)
    return calls


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def _values(shape, dtype=np.float32):
    x = (rng.standard_normal(shape) * 4).astype(dtype)
    flat = x.reshape(-1)
    flat[::97] = np.nan
    flat[5::101] = np.inf
    flat[7::103] = -np.inf
    flat[9::107] = -0.0
    return x


UNARY = [ops.tanh, ops.exp, ops.sigmoid, ops.erf, ops.sqrt, ops.log, ops.relu, ops.neg,
         ops.abs, ops.floor, ops.rsqrt, ops.sin, ops.square, ops.isnan]
BINARY = [ops.add, ops.sub, ops.mul, ops.div, ops.maximum, ops.atan2, ops.greater,
          ops.floor_divide]


@pytest.mark.parametrize("op", UNARY, ids=lambda f: f.__name__)
def test_unary_chunks_give_the_bits_of_one_call(two_threads, low_thresholds, numpy_kernels,
                                                spy, op):
    x = Tensor(_values((1024, 1100)))           # above every threshold, odd chunk tail
    got = op(x).asnumpy()
    assert spy, "the call ran in chunks"
    with _one_thread():
        want = op(x).asnumpy()
    _same_bits(got, want)


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
def test_binary_chunks_give_the_bits_of_one_call(two_threads, low_thresholds, spy, op):
    x, y = Tensor(_values((700, 1000))), Tensor(_values((700, 1000)))
    got = [op(x, y).asnumpy(), op(x, 0.7).asnumpy(), op(1.5, y).asnumpy()]
    assert len(spy) == 3
    with _one_thread():
        want = [op(x, y).asnumpy(), op(x, 0.7).asnumpy(), op(1.5, y).asnumpy()]
    for g, w in zip(got, want):
        _same_bits(g, w)


class _one_thread:
    def __enter__(self):
        self.before = os.environ.get("SPORE_NUM_THREADS")
        os.environ["SPORE_NUM_THREADS"] = "1"

    def __exit__(self, *exc):
        if self.before is None:
            del os.environ["SPORE_NUM_THREADS"]
        else:
            os.environ["SPORE_NUM_THREADS"] = self.before


@pytest.mark.parametrize("case", ["broadcast-row", "broadcast-col", "strided", "zero-d",
                                  "float64", "float16", "int32", "one-row", "mixed-dtypes"])
def test_layouts_and_dtypes_give_the_bits_of_one_call(two_threads, monkeypatch, case):
    # small thresholds: every layout is chunked at a size the test can afford
    for prim in (M.add_p, M.mul_p, M.tanh_p, M.sigmoid_p, M.where_p):
        monkeypatch.setattr(prim, "par_min", 64)
    monkeypatch.setattr(threads, "CHUNK", 16)
    monkeypatch.setattr(threads, "TILE", 16)
    monkeypatch.setattr(threads, "ALIGN", 16)
    a = _values((301, 37))
    args = {
        "broadcast-row": (a, _values((37,))),
        "broadcast-col": (a, _values((301, 1))),
        "strided": (a[:, ::2], _values((19, 301)).T),
        "zero-d": (a, np.float32(2.5)),
        "float64": (a.astype(np.float64), _values((301, 37), np.float64)),
        "float16": (a.astype(np.float16), _values((301, 37), np.float16)),
        "int32": ((a * 10).astype(np.int32), (a * 3).astype(np.int32)),
        "one-row": (_values((1, 5000)), _values((1, 5000))),
        "mixed-dtypes": (a, a.astype(np.float64)),
    }[case]
    tensors = [Tensor(v) for v in args]
    results = []
    for nthreads in ("2", "1"):
        os.environ["SPORE_NUM_THREADS"] = nthreads
        try:
            results.append([ops.add(*tensors).asnumpy(), ops.mul(*tensors).asnumpy(),
                            ops.tanh(tensors[0]).asnumpy(), ops.sigmoid(tensors[1]).asnumpy(),
                            ops.where(tensors[0] > 0, *tensors).asnumpy()])
        finally:
            del os.environ["SPORE_NUM_THREADS"]
    for g, w in zip(*results):
        _same_bits(g, w)


def test_no_chunks_below_the_threshold(two_threads, numpy_kernels, spy):
    x = Tensor(_values((threads.MIN_COSTLY - 1,)))
    ops.tanh(x)
    ops.add(x, x)
    ops.mul(x, 2.0)
    assert not spy
    big = Tensor(_values((threads.MIN_COSTLY,)))
    ops.tanh(big)
    assert len(spy) == 1
    ops.add(big, big)                           # below the (higher) threshold of Add
    assert len(spy) == 1


def test_arithmetic_waits_for_larger_arrays_than_transcendentals():
    assert M.add_p.par_min == M.mul_p.par_min == threads.MIN_CHEAP
    assert M.log_p.par_min == M.sin_p.par_min == threads.MIN_COSTLY
    def vectorised(loop):
        return vecmath.MIN_SIZE[loop] if _native.installed() else None
    assert M.erf_p.par_min == (vectorised(vecmath.erf_loop) or threads.MIN_COMPOSITE)
    assert M.tanh_p.par_min == (vectorised(vecmath.tanh_loop) or threads.MIN_COSTLY)
    assert M.exp_p.par_min == (vectorised(vecmath.exp_loop) or threads.MIN_COSTLY)
    assert M.sigmoid_p.par_min == (vectorised(vecmath.sigmoid_loop) or threads.MIN_COMPOSITE)
    assert threads.MIN_COSTLY < threads.MIN_COMPOSITE < threads.MIN_CHEAP
    assert ms.ops.matmul is not None and P.REGISTRY["MatMul"].par_min == P._NO_CHUNKS


def test_chunk_boundaries_depend_on_the_size_alone():
    n = 3 * threads.CHUNK * 16 + 5
    ranges = threads.chunks(n, threads.CHUNK)
    assert ranges[0][0] == 0 and ranges[-1][1] == n and len(ranges) <= 16
    assert all(hi == lo2 for (_, hi), (lo2, _) in zip(ranges, ranges[1:]))
    assert all(lo % threads.ALIGN == 0 for lo, _ in ranges)
    assert threads.chunks(100, 4096) == [(0, 100)]


def test_environment_and_context_set_the_thread_count(monkeypatch):
    monkeypatch.setattr(threads, "_cpus", lambda: 4)
    monkeypatch.delenv("SPORE_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads.count() == 4                    # every CPU this process may use
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert threads.count() == 3
    ms.set_context(runtime_num_threads=2)          # MindSpore's setting wins over OMP's
    assert threads.count() == 2
    ms.set_context(runtime_num_threads=30)         # never more threads than CPUs
    assert threads.count() == 4
    ms.set_context(runtime_num_threads=0)          # 0: automatic again
    assert threads.count() == 3
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")   # Spore's switch wins over everything
    ms.set_context(runtime_num_threads=4)
    assert threads.count() == 1
    assert threads.pool() is None
    monkeypatch.setenv("SPORE_NUM_THREADS", "junk")
    assert threads.count() == 4


def test_one_thread_runs_everything_on_the_caller(monkeypatch, spy):
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")
    seen = set()
    threads.for_each(lambda i: seen.add(threading.get_ident()), 8)
    assert seen == {threading.get_ident()}
    x = _values((M.log_p.par_min * 2,))
    _same_bits(ops.log(Tensor(x)).asnumpy(), np.log(x))


def test_a_dataset_worker_process_uses_one_thread(monkeypatch):
    monkeypatch.setattr(threads, "_cpus", lambda: 4)
    monkeypatch.setattr(threads, "_worker", False)
    threads.set_worker_process()
    assert threads.count() == 1


def test_for_each_does_the_work_of_a_busy_pool(two_threads):
    """A pool thread that never gets to run (here: busy with another job) does not
    hold up the caller: it does every chunk itself."""
    release = threading.Event()
    blocker = threads.pool().submit(release.wait)
    try:
        done = []
        threads.for_each(done.append, 50)
        assert sorted(done) == list(range(50))
    finally:
        release.set()
        blocker.result()


def test_for_each_runs_the_whole_call_where_every_chunk_would_run_on_the_caller(
        two_threads, monkeypatch):
    """``whole`` replaces the chunks where the pool would not run any of them: one
    thread, a call from a pool thread, a starved pool backing off (NOTE: [Starved
    pool]); where the pool runs, the chunks run and ``whole`` does not."""
    calls = []

    def run():
        calls.clear()
        threads.for_each(lambda i: calls.append(i), 4, whole=lambda: calls.append("whole"))
        return list(calls)
    assert sorted(run(), key=str) == [0, 1, 2, 3]
    with _one_thread():
        assert run() == ["whole"]
    assert threads.pool().submit(run).result() == ["whole"]
    monkeypatch.setattr(threads, "_backoff", [2, 2])
    assert run() == ["whole"]
    assert threads._backoff == [1, 2]          # one call of the back-off spent
    calls.clear()
    threads.for_each(lambda i: calls.append(i), 1, whole=lambda: calls.append("whole"))
    assert calls == ["whole"]                  # a single call never goes to the pool


@pytest.mark.parametrize("kind", ["tanh", "softmax", "softmax-grad", "adam"])
def test_whole_calls_give_the_bits_of_the_chunks(two_threads, monkeypatch, kind):
    """The compiled loops that pass ``whole`` (elementwise loops over the whole array,
    row loops over every row, Adam's in-place update) give the chunks' bits."""
    if not vecmath.usable():
        pytest.skip("Numba's float32 loops are not available")
    x = _values((640, 1000)).clip(-8, 8)
    g = _values((640, 1000))

    def compute():
        if kind == "tanh":
            return ops.tanh(Tensor(x)).asnumpy()
        if kind == "softmax":
            return ops.softmax(Tensor(x), -1).asnumpy()
        if kind == "softmax-grad":
            return ms.grad(lambda a: (ops.softmax(a, -1) * Tensor(g)).sum())(
                Tensor(x)).asnumpy()
        net = ms.nn.Dense(1000, 640, weight_init="ones", bias_init="zeros")
        opt = ms.nn.Adam(net.trainable_params(), learning_rate=0.1)
        opt((Tensor(g), Tensor(g[:, 0].copy())))
        return net.weight.asnumpy()
    seen = []
    real = threads.for_each
    monkeypatch.setattr(threads, "for_each",
                        lambda body, n, whole=None: (seen.append(whole), real(body, n, whole)))
    monkeypatch.setattr(threads, "_use_pool", lambda: threads.pool())      # always chunks
    chunked = compute()
    assert seen and all(w is not None for w in seen)
    monkeypatch.setattr(threads, "_use_pool", lambda: None)                # always whole
    _same_bits(compute(), chunked)


def test_for_each_inside_a_pool_thread_runs_there(two_threads):
    seen = []

    def outer(i):
        threads.for_each(lambda j: seen.append((i, j)), 4)
    threads.for_each(outer, 3)
    assert sorted(seen) == [(i, j) for i in range(3) for j in range(4)]


def test_errors_and_errstate_reach_the_caller(two_threads, monkeypatch):
    monkeypatch.setattr(threads, "CHUNK", 16)
    monkeypatch.setattr(threads, "ALIGN", 16)
    x = np.zeros(4096, np.float32)
    with np.errstate(divide="raise"):            # the pool's threads see the caller's
        with pytest.raises(FloatingPointError):
            threads.elementwise(np.divide, (np.ones(4096, np.float32), x))

    def boom(i):
        if i == 7:
            raise KeyError("chunk 7")
    with pytest.raises(KeyError, match="chunk 7"):
        threads.for_each(boom, 16)


def _child_tanh(queue, want):
    x = np.linspace(0.01, 3, threads.MIN_COSTLY * 2, dtype=np.float32)
    queue.put(ops.log(Tensor(x)).asnumpy().tobytes() == np.log(x).tobytes()
              and ops.tanh(Tensor(x)).asnumpy().tobytes() == want)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_a_pool_of_its_own(two_threads):
    x = np.linspace(0.01, 3, threads.MIN_COSTLY * 2, dtype=np.float32)
    want = ops.tanh(Tensor(x)).asnumpy().tobytes()              # the parent's pool runs
    assert threads.pool() is not None
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_tanh, args=(queue, want))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) is True


def test_softmax_and_layer_norm_tiles_use_the_shared_pool(two_threads, monkeypatch):
    used = []
    real = threads.for_each
    monkeypatch.setattr(threads, "for_each",
                        lambda body, n, whole=None: (used.append(n), real(body, n, whole)))
    x = Tensor(_values((512, 1024)).clip(-5, 5))
    two = ops.softmax(x, -1).asnumpy()
    assert used
    with _one_thread():
        one = ops.softmax(x, -1).asnumpy()
    _same_bits(two, one)


# ----------------------------------------------------------------- reductions
def test_reductions_keeping_an_axis_give_the_bits_of_one_call(two_threads, monkeypatch):
    """Random shapes and axes (NOTE: [Chunked reductions]): chunks of the first kept
    axis, never narrower than MIN_WIDTH, reduce in NumPy's order."""
    from spore._prims import reduce as R
    monkeypatch.setattr(threads, "MIN_CHEAP", 64)
    monkeypatch.setattr(threads, "CHUNK", 64)
    chunked = []
    real = threads.reduction
    monkeypatch.setattr(threads, "reduction",
                        lambda *a: (chunked.append(a[2]), real(*a))[1])
    prims = [R.sum_p, R.mean_p, R.amax_p, R.amin_p, R.prod_p]
    r = np.random.default_rng(11)
    for trial in range(60):
        nd = int(r.integers(2, 5))
        shape = tuple(int(v) for v in r.integers(1, 40 if nd > 3 else 200, nd))
        axis = tuple(sorted(r.choice(nd, int(r.integers(1, nd)), replace=False).tolist()))
        dtype = (np.float32, np.float64)[trial % 2]
        x = Tensor(_values(shape, dtype) if trial % 3 else
                   r.standard_normal(shape).astype(dtype))
        for prim in prims:
            for keepdims in (False, True):
                got = prim(x, axis=axis, keepdims=keepdims).asnumpy()
                with _one_thread():
                    want = prim(x, axis=axis, keepdims=keepdims).asnumpy()
                _same_bits(got, want)
    assert len(chunked) > 100


def test_full_reductions_and_small_arrays_run_as_one_call(two_threads, monkeypatch):
    calls = []
    monkeypatch.setattr(threads, "reduction", lambda *a: calls.append(a))
    monkeypatch.setattr(threads, "MIN_CHEAP", 1 << 19)
    x = Tensor(_values((1024, 600)))                      # above MIN_CHEAP
    ops.sum(x)                                            # no axis kept
    ops.sum(Tensor(_values((100, 100))), 0)               # below the threshold
    ops.sum(Tensor(_values((1024, 600), np.float16)), 0)  # float16 accumulates in float32
    assert not calls
    ops.sum(x, 0)
    assert len(calls) == 1


def test_a_starved_pool_is_left_alone_for_a_while(two_threads, monkeypatch):
    """NOTE: [Starved pool]: calls the pool did not speed up (here its only thread is
    busy) make the next calls run on the caller alone, for 1, 2, 4, ... calls; a call
    it sped up resets this."""
    monkeypatch.setattr(threads, "_backoff", [0, 0])
    release = threading.Event()
    blocker = threads.pool().submit(release.wait)         # the only pool thread is busy
    submitted = []
    real_pool = threads.pool
    monkeypatch.setattr(threads, "pool", lambda: (submitted.append(1), real_pool())[1])
    try:
        threads.for_each(lambda i: None, 8)
        assert threads._backoff == [1, 1]
        threads.for_each(lambda i: None, 8)               # runs alone
        assert threads._backoff == [0, 1]
        threads.for_each(lambda i: None, 8)               # tries the pool: starved again
        assert threads._backoff == [2, 2]
    finally:
        release.set()
        blocker.result()
    threads._note_speedup(0.6, 1.0)                      # 1 s of chunks in 0.6 s: a gain
    assert threads._backoff[1] == 0
    monkeypatch.setattr(threads, "_backoff", [0, 0])
    helped = threading.Event()
    caller = threading.get_ident()

    def body(i):
        if threading.get_ident() == caller:
            helped.wait(30)                               # until the pool thread runs one
        else:
            helped.set()
    threads.for_each(body, 8)
    assert helped.is_set()


def test_a_call_no_faster_than_its_chunks_cpu_time_counts_as_starved(monkeypatch):
    monkeypatch.setattr(threads, "_backoff", [0, 0])
    threads._note_speedup(1.0, 1.0)                      # shared, but no faster than alone
    assert threads._backoff == [1, 1]
    threads._note_speedup(2.0, 1.0)
    assert threads._backoff == [2, 2]


def test_the_executor_runs_jobs_on_the_caller_when_the_pool_is_off(monkeypatch):
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")
    ex = threads.executor()
    assert ex.submit(lambda a, b: a + b, 2, b=3).result() == 5
    with pytest.raises(KeyError):
        ex.submit(lambda: {}["x"]).result()
