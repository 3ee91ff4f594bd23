"""Spore's one pool of worker threads, and the chunked elementwise kernels that use it.

NOTE: [Threads]
NumPy's ufuncs run on one core but release the GIL inside their loops, so a large
elementwise kernel split into chunks runs on every core of a small thread pool.
Every parallel kernel (chunked elementwise ops, the row tiles of softmax and layer
norm, fused groups in graph mode) takes its threads from ``pool()`` here.

How many threads: ``SPORE_NUM_THREADS`` in the environment wins (``1`` turns the pool
off), then MindSpore's ``set_context(runtime_num_threads=n)`` (0: automatic), then
``OMP_NUM_THREADS``, then the CPUs this process may run on; never more than those
CPUs, nor more than MAX_THREADS. Dataset worker processes run on one thread
(``set_worker_process``): their parent already runs one worker per core. A forked
child gets a fresh pool (the parent's threads do not exist there).

Results never depend on the thread count: chunk boundaries depend only on the shape
(multiples of ALIGN elements, so every chunk starts with the alignment the whole
array has), and elementwise kernels compute each element from the same inputs, so
the chunked call gives the bits of one call.
"""
from __future__ import annotations

import contextvars
import math
import os
import threading
import time

import numpy as np

MAX_THREADS = 8

# Chunked elementwise kernels (NOTE: [Chunked elementwise]): sizes from which a kernel
# runs in chunks, measured on a 2-vCPU EPYC (float32, chunked vs one call in one
# process, BENCHMARKS.md "PyNative on both cores"): tanh/exp gain from 256K elements
# (0.53-0.78x), sigmoid's three passes from 2M (0.77-0.82x; 1.3-1.5x at 256-512K), add
# and mul, bound by memory bandwidth, only from 4M (0.87x; 1.4-3.8x below 1M).
MIN_COSTLY = 1 << 18        # transcendental ufuncs (exp, tanh, erf, ...)
MIN_COMPOSITE = 1 << 21     # kernels of several passes (sigmoid, erf, rsqrt)
MIN_CHEAP = 1 << 22         # arithmetic, comparisons, one-pass composites
ALIGN = 4096                # chunk boundaries: multiples of this many elements
CHUNK = 1 << 16             # smallest chunk of a ufunc (at most 8 chunks per call)
TILE = 1 << 16              # chunks of a composite kernel (its passes stay in cache)

_lock = threading.Lock()
_pool = None
_pool_size = 0
_override = None            # set_context(runtime_num_threads=n), None: not set
_worker = False             # a dataset worker process: one thread
_tls = threading.local()    # .busy: this thread is one of the pool's workers


_cpu_count = None


def _cpus():
    """The CPUs this process may run on (read once per process)."""
    global _cpu_count
    if _cpu_count is None:
        try:
            _cpu_count = max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            _cpu_count = max(1, os.cpu_count() or 1)
    return _cpu_count


def _env_int(name):
    value = os.environ.get(name, "").strip()
    try:
        n = int(value)
    except ValueError:
        return None
    return n if n > 0 else None


def count():
    """The number of threads parallel kernels use now (1: the caller's thread only)."""
    if _worker:
        return 1
    n = _env_int("SPORE_NUM_THREADS")
    if n is None:
        n = _override or _env_int("OMP_NUM_THREADS") or _cpus()
    return max(1, min(n, _cpus(), MAX_THREADS))


def set_runtime_threads(n):
    """``set_context(runtime_num_threads=n)``: 0 restores the automatic count."""
    global _override
    _override = int(n) if n else None


def set_worker_process():
    """Called in a dataset worker process: Spore's kernels stay on one thread there."""
    global _worker
    _worker = True


def pool():
    """The shared ``ThreadPoolExecutor`` with ``count() - 1`` workers (the caller is the
    other thread), or None when parallel kernels run on the caller alone."""
    global _pool, _pool_size
    n = count() - 1
    if n <= 0:
        return None
    if _pool is None or _pool_size != n:
        with _lock:
            if _pool is None or _pool_size != n:
                from concurrent.futures import ThreadPoolExecutor
                old = _pool
                _pool = ThreadPoolExecutor(n, thread_name_prefix="spore",
                                           initializer=_mark_worker)
                _pool_size = n
                if old is not None:
                    old.shutdown(wait=False)
    return _pool


class _Inline:
    """An executor that runs each job at once on the caller: what ``executor()`` gives
    where the pool is off, so code holding a submit-and-wait plan still runs."""

    def submit(self, fn, *args, **kwargs):
        from concurrent.futures import Future
        f = Future()
        try:
            f.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            f.set_exception(exc)
        return f


_INLINE = _Inline()


def executor():
    """``pool()``, or an executor running jobs on the caller where the pool is off."""
    return pool() or _INLINE


def _mark_worker():
    _tls.busy = True


def _forget_pool():
    """After fork: the child has none of the parent's threads (nor a usable lock)."""
    global _pool, _pool_size, _lock, _cpu_count
    _pool, _pool_size, _lock, _cpu_count = None, 0, threading.Lock(), None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


# NOTE: [Starved pool]
# Where the cores are busy (other processes, more threads than cores), a pool thread
# runs late or slowly, and every hand-over between threads (a chunk, the GIL) waits
# for the OS to run the other one: a chunked call can take several times what one
# thread takes. The test is cheap: a call whose wall time is not below GAIN_NEEDED
# times the CPU time of its chunks (``time.thread_time``, all threads added) gained
# nothing from the pool, so the next calls run on the caller alone: 1 call, then 2,
# 4, ... up to MAX_BACKOFF after successive such calls; a call that gained resets
# this. Results are the same either way (the chunks do not change). A caller that can do
# all its chunks in one call with their results (``for_each(..., whole=...)``) makes that
# one call instead when it runs alone: on a VM whose pool backs off nearly always, W1b's
# 262K-element tanh took 158-164 us as 8 compiled-loop calls, 143-147 us as one.
GAIN_NEEDED = 0.9
MAX_BACKOFF = 256
_backoff = [0, 0]           # [calls still to run alone, length of the next backoff]


def for_each(body, n, whole=None):
    """Call ``body(i)`` for every ``i`` in ``range(n)``, on this thread and the pool's.

    Each thread takes the next index as it gets free, so a pool thread that the OS
    does not schedule (the cores are busy: another process, the BLAS's own threads
    spinning after a matrix product) delays the call by at most the chunk it is
    running: whatever it has not started, this thread does, and a pool thread that
    starts after the last chunk was taken does nothing (NOTE: [Starved pool]). Each
    call sees this thread's context variables (NumPy's ``errstate`` is one). An
    exception in any call is raised here once the started calls have finished.

    ``whole``, where given, does the work of all ``n`` calls in one call with the same
    results (an elementwise loop over the whole array, a row loop over all its rows).
    Where every call would run on this thread (the pool off or backing off), it runs
    instead of them: a compiled loop's dispatch costs a few microseconds a call.
    """
    ex = _use_pool() if n > 1 else None
    if ex is None:
        if whole is not None:
            whole()
            return
        for i in range(n):
            body(i)
    else:
        _share(ex, body, n)


def _use_pool():
    """The pool for the next parallel call, or None: one thread, a pool thread asking
    (it could wait on itself), or backing off (NOTE: [Starved pool])."""
    if getattr(_tls, "busy", False):
        return None
    ex = pool()
    if ex is not None and _backoff[0] > 0:
        _backoff[0] -= 1
        return None
    return ex


def _share(ex, body, n):
    job = _Job(body, n)
    t0 = time.perf_counter()
    for _ in range(min(_pool_size, n - 1)):
        ex.submit(contextvars.copy_context().run, job.work)
    job.work()
    job.wait()
    if job.error is not None:
        raise job.error
    _note_speedup(time.perf_counter() - t0, job.cpu)


class _Job:
    """The chunks of one ``for_each`` call: a thread claims the next index and counts
    itself running under one lock, so once the caller has claimed past the end it
    waits only for the chunks already running."""

    __slots__ = ("body", "n", "next", "running", "cond", "error", "cpu")

    def __init__(self, body, n):
        self.body, self.n, self.next, self.running = body, n, 0, 0
        self.cond = threading.Condition(threading.Lock())
        self.error = None
        self.cpu = 0.0              # CPU seconds the chunks took, all threads together

    def work(self):
        """Run chunks until none is left."""
        cond = self.cond
        while True:
            with cond:
                i = self.next
                if i >= self.n or self.error is not None:
                    return
                self.next = i + 1
                self.running += 1
            start = time.thread_time()
            try:
                self.body(i)
            except BaseException as exc:
                with cond:
                    if self.error is None:
                        self.error = exc
            finally:
                spent = time.thread_time() - start
                with cond:
                    self.cpu += spent
                    self.running -= 1
                    if not self.running:
                        cond.notify_all()

    def wait(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.running)


def _note_speedup(wall, cpu):
    """Back off after a call that took at least GAIN_NEEDED of the CPU time its chunks
    took: the pool did not make it faster than the caller alone would have been."""
    if wall < GAIN_NEEDED * cpu:
        _backoff[1] = 0
    else:
        _backoff[1] = min(2 * _backoff[1], MAX_BACKOFF) or 1
        _backoff[0] = _backoff[1]


def chunks(n, min_chunk, max_chunks=16, align=None):
    """Consecutive ``(lo, hi)`` ranges covering ``range(n)``: at most ``max_chunks`` of at
    least ``min_chunk``, boundaries at multiples of ``align``. They depend on ``n`` alone,
    never on the thread count."""
    align = align or ALIGN
    step = max(min_chunk, -(-n // max_chunks))
    step = -(-step // align) * align
    return [(lo, min(lo + step, n)) for lo in range(0, n, step)]


# NOTE: [Chunked elementwise]
# ``elementwise(kernel, args, composite)`` runs an elementwise kernel over chunks of
# its output, one chunk per thread; ``Primitive.parallel`` calls it for arrays of at
# least ``Primitive.par_min`` elements (chosen per primitive: MIN_COSTLY or
# MIN_CHEAP). Two layouts are chunked: every array input C-contiguous with the output's
# shape (or 0-d, or a Python scalar) -> flat ranges; otherwise, slices along the first
# axis of the output (an input broadcast along that axis is passed whole). A ufunc
# writes its chunk into the output (``out=``); a composite kernel (sigmoid's three
# passes) runs tile by tile so its passes stay in cache, each tile copied into place.
# The output dtype comes from the kernel called on empty slices, which is what one
# call gives.
def elementwise(kernel, args, composite=False):
    """``kernel(*args)`` computed in chunks on the pool; the same values as one call."""
    ex = _use_pool()
    if ex is None:
        return kernel(*args)
    arrays = [a for a in args if type(a) is np.ndarray and a.ndim]
    shape = arrays[0].shape if len(arrays) == 1 else np.broadcast_shapes(*(a.shape for a in arrays))
    n = math.prod(shape)
    if not n:
        return kernel(*args)
    size, most = (TILE, n) if composite else (CHUNK, 8)
    if all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        flat = [a.reshape(-1) if type(a) is np.ndarray and a.ndim else a for a in args]
        pick = [type(a) is np.ndarray and a.ndim == 1 for a in flat]
        out = np.empty(n, _out_dtype(kernel, flat, pick))
        _run_ranges(ex, kernel, flat, pick, out, chunks(n, size, most), composite)
        return out.reshape(shape)
    rows = shape[0]
    inner = n // rows
    step = 16 // math.gcd(inner, 16)    # row boundaries at multiples of 16 elements
    ranges = chunks(rows, max(1, size // inner), most, align=step)
    if len(ranges) < 2:
        return kernel(*args)
    pick = [type(a) is np.ndarray and a.ndim == len(shape) and a.shape[0] == rows
            for a in args]
    out = np.empty(shape, _out_dtype(kernel, args, pick))
    _run_ranges(ex, kernel, args, pick, out, ranges, composite)
    return out


def _out_dtype(kernel, args, pick):
    """The dtype one call gives: the kernel on empty slices of the chunked inputs."""
    return np.asarray(kernel(*[a[:0] if p else a for a, p in zip(args, pick)])).dtype


def _run_ranges(ex, kernel, args, pick, out, ranges, composite):
    """Run ``kernel`` on each ``(lo, hi)`` range of the first axis of its inputs."""
    def body(i):
        lo, hi = ranges[i]
        part = [a[lo:hi] if p else a for a, p in zip(args, pick)]
        if composite:
            out[lo:hi] = kernel(*part)
        else:
            kernel(*part, out=out[lo:hi])
    _share(ex, body, len(ranges))


# NOTE: [Chunked reductions]
# A reduction over some axes of a large array splits the first axis it keeps: each
# output element is still reduced from the same elements in the same order, so the
# chunks give the bits of one call. One condition, found by comparing NumPy's results
# on random shapes and axes: a chunk one element wide can change the order NumPy
# sums in (its iterator then walks the reduced axis innermost, pairwise), so every
# chunk is at least MIN_WIDTH wide (a short tail joins the chunk before it).
MIN_WIDTH = 16


def reduction(kernel, x, axis, keepdims):
    """``kernel(x, axis=axis, keepdims=keepdims)`` (``axis`` a sorted tuple that leaves
    some axis of ``x``) computed in chunks on the pool; the bits of one call."""
    kept = [i for i in range(x.ndim) if i not in axis]
    k = kept[0]
    n = x.shape[k]
    ranges = chunks(n, max(MIN_WIDTH, CHUNK * n // max(x.size, 1)), align=1)
    if len(ranges) > 1 and ranges[-1][1] - ranges[-1][0] < MIN_WIDTH:
        ranges[-2:] = [(ranges[-2][0], n)]
    ex = _use_pool() if len(ranges) > 1 else None
    if ex is None:
        return kernel(x, axis=axis, keepdims=keepdims)
    parts = [None] * len(ranges)
    lead = (slice(None),) * k

    def body(i):
        lo, hi = ranges[i]
        parts[i] = kernel(x[lead + (slice(lo, hi),)], axis=axis, keepdims=keepdims)
    _share(ex, body, len(ranges))
    return np.concatenate(parts, axis=k if keepdims else kept.index(k))


# NOTE: [BLAS spin]
# OpenBLAS's worker threads busy-wait after every parallel BLAS call for 2^28 CPU cycles
# (about 0.1 s) before they sleep, so during a training step one worker spins on a core
# all the time, which Spore's pool threads (softmax rows, chunked elementwise kernels,
# compiled loops) then share. ``SPORE_BLAS_SPIN=n`` (4-30) makes ``import spore``
# restart NumPy's OpenBLAS threads with a spin of 2^n cycles (``openblas_read_env``
# reads the setting, ``blas_thread_shutdown_`` stops the threads, ``blas_thread_init``
# starts them with it). It is off by default: on a loaded 2-vCPU EPYC 2^18 made W5 and
# W3 steps 0.5-0.8x as long (BENCHMARKS.md "helper w5mm"), but on the quiet machine,
# separate processes alternating, the woken threads' latency made most steps slower
# (W3 PyNative 3.44/2.86/3.69 ms against 3.39/2.30/2.81 with OpenBLAS's own spin, W5
# 87.7/58.8/73.8 against 77.5/62.6/68.3, W1b 192/227/375 against 191/223/201).
# ``OPENBLAS_THREAD_TIMEOUT`` set by the user wins (nothing is changed then); where
# NumPy's BLAS is not an OpenBLAS with these functions, nothing happens. Results never
# change: only when the threads sleep does.
_blas_spin = None           # the 2^n spin set by settle_blas_threads, None: not set


def settle_blas_threads():
    """Restart NumPy's OpenBLAS worker threads with the spin ``SPORE_BLAS_SPIN`` asks for
    (NOTE: [BLAS spin]); returns the exponent set, or None where nothing was changed."""
    global _blas_spin
    if os.environ.get("OPENBLAS_THREAD_TIMEOUT") or os.environ.get("GOTO_THREAD_TIMEOUT"):
        return None
    spin = _env_int("SPORE_BLAS_SPIN")
    if not spin:                                     # off unless asked for
        return None
    spin = min(max(spin, 4), 30)
    from .backend import _numpy_blas
    lib = _numpy_blas()
    read_env = getattr(lib, "openblas_read_env", None)
    shutdown = getattr(lib, "blas_thread_shutdown_", None)
    start = getattr(lib, "blas_thread_init", None)
    if read_env is None or shutdown is None or start is None:
        return None
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = str(spin)
    try:
        read_env()
    finally:
        del os.environ["OPENBLAS_THREAD_TIMEOUT"]    # the library keeps it; the user's
    shutdown()                                       # environment stays as it was
    # started again at once: a later openblas_set_num_threads must find them running
    # (it adds threads to a running pool; a stopped one would start its own twice)
    start()
    _blas_spin = spin
    return spin


settle_blas_threads()
