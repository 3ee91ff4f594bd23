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
import itertools
import math
import os
import threading

import numpy as np

MAX_THREADS = 8

# Chunked elementwise kernels (NOTE: [Chunked elementwise]). Sizes below these run as
# one call: handing a chunk to the pool and waiting for it costs 20-30 us.
# Measured on a 2-vCPU AVX2 EPYC (float32, one call vs two chunks, median ratios):
# see docs/architecture.md, "Threads".
MIN_COSTLY = 1 << 16        # transcendental ufuncs (exp, tanh, erf, ...) and composites
MIN_CHEAP = 1 << 19         # arithmetic, comparisons: bound by memory bandwidth
ALIGN = 4096                # chunk boundaries: multiples of this many elements
CHUNK = 1 << 15             # smallest chunk of a ufunc (at most 16 chunks per call)
TILE = 1 << 15              # chunks of a composite kernel (its passes stay in cache)

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
# runs late and does few of a call's chunks; worse, the OS can stop it while it holds
# the GIL, and then the caller waits for it between its own chunks. So a call whose
# pool threads did less than a quarter of its chunks makes the next calls run on the
# caller alone: 1 call, then 2, 4, ... up to MAX_BACKOFF after successive starved
# calls; a call where they did their share resets this. Results are the same either
# way (the chunks do not change).
MAX_BACKOFF = 64
_backoff = [0, 0]           # [calls still to run alone, length of the next backoff]


def for_each(body, n):
    """Call ``body(i)`` for every ``i`` in ``range(n)``, on this thread and the pool's.

    Each thread takes the next index as it gets free, so a pool thread that the OS
    does not schedule (the cores are busy: another process, the BLAS's own threads
    spinning after a matrix product) delays the call by at most the chunk it is
    running: whatever it has not started, this thread does (NOTE: [Starved pool]).
    Each call sees this thread's context variables (NumPy's ``errstate`` is one). An
    exception in any call is raised here once the started calls have finished.
    """
    ex = pool() if n > 1 and not getattr(_tls, "busy", False) else None
    if ex is not None and _backoff[0] > 0:
        _backoff[0] -= 1
        ex = None
    if ex is None:                   # (a worker waiting on the pool could wait forever)
        for i in range(n):
            body(i)
        return
    counter = itertools.count()
    failed = []
    mine = [0]

    def work(own=None):
        for i in counter:            # next() on a count is atomic under the GIL
            if i >= n or failed:
                return
            if own is not None:
                own[0] += 1
            try:
                body(i)
            except BaseException:
                failed.append(True)
                raise

    helpers = [ex.submit(contextvars.copy_context().run, work)
               for _ in range(min(_pool_size, n - 1))]
    try:
        work(mine)
    finally:
        for f in helpers:
            if not f.cancel():       # started: wait for its chunk (and its exception)
                f.result()
    _note_share(n - mine[0], n)


def _note_share(theirs, n):
    """Back off after a call whose pool threads did under a quarter of its chunks."""
    if 4 * theirs >= n:
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
    arrays = [a for a in args if type(a) is np.ndarray and a.ndim]
    shape = arrays[0].shape if len(arrays) == 1 else np.broadcast_shapes(*(a.shape for a in arrays))
    n = math.prod(shape)
    if count() == 1 or not n:
        return kernel(*args)
    size, most = (TILE, n) if composite else (CHUNK, 16)
    if all(a.shape == shape and a.flags.c_contiguous for a in arrays):
        flat = [a.reshape(-1) if type(a) is np.ndarray and a.ndim else a for a in args]
        pick = [type(a) is np.ndarray and a.ndim == 1 for a in flat]
        out = np.empty(n, _out_dtype(kernel, flat, pick))
        _run_ranges(kernel, flat, pick, out, chunks(n, size, most), composite)
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
    _run_ranges(kernel, args, pick, out, ranges, composite)
    return out


def _out_dtype(kernel, args, pick):
    """The dtype one call gives: the kernel on empty slices of the chunked inputs."""
    return np.asarray(kernel(*[a[:0] if p else a for a, p in zip(args, pick)])).dtype


def _run_ranges(kernel, args, pick, out, ranges, composite):
    """Run ``kernel`` on each ``(lo, hi)`` range of the first axis of its inputs."""
    def body(i):
        lo, hi = ranges[i]
        part = [a[lo:hi] if p else a for a, p in zip(args, pick)]
        if composite:
            out[lo:hi] = kernel(*part)
        else:
            kernel(*part, out=out[lo:hi])
    for_each(body, len(ranges))


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
    if count() == 1 or len(ranges) < 2:
        return kernel(x, axis=axis, keepdims=keepdims)
    parts = [None] * len(ranges)
    lead = (slice(None),) * k

    def body(i):
        lo, hi = ranges[i]
        parts[i] = kernel(x[lead + (slice(lo, hi),)], axis=axis, keepdims=keepdims)
    for_each(body, len(ranges))
    return np.concatenate(parts, axis=k if keepdims else kept.index(k))
