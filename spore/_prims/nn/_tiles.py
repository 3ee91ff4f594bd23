"""Row-tiled execution of fused kernels, spread over a small thread pool.

NOTE: [Row tiles]
A softmax or layer norm makes several passes over its data (max, exp, sum,
scale). Running every pass on one block of rows while the block is in cache
turns them into about one trip to memory, and NumPy releases the GIL inside
its loops, so blocks run in parallel. Block boundaries depend only on the
shape, never on the thread count, so results are identical on every machine.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

TILE_ELEMS = 1 << 17        # elements per block (512 KiB of float32): a few fit in L2
MIN_PARALLEL_BLOCKS = 4     # below this, threads cost more than they save


def _thread_count():
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


THREADS = _thread_count()
_pool = None
_pool_pid = None


def _get_pool():
    """The worker pool (re-created in a forked child, whose copy has no threads)."""
    global _pool, _pool_pid
    if _pool is None or _pool_pid != os.getpid():
        _pool = ThreadPoolExecutor(THREADS - 1, thread_name_prefix="spore-tiles")
        _pool_pid = os.getpid()
    return _pool


def row_blocks(n_rows, row_len):
    """Consecutive ``(lo, hi)`` row ranges of about TILE_ELEMS elements covering n_rows."""
    step = max(1, TILE_ELEMS // max(row_len, 1))
    return [(lo, min(lo + step, n_rows)) for lo in range(0, n_rows, step)]


def run_blocks(body, blocks):
    """Call ``body(i, lo, hi)`` for every block; blocks are shared out among threads."""
    if THREADS == 1 or len(blocks) < MIN_PARALLEL_BLOCKS:
        for i, (lo, hi) in enumerate(blocks):
            body(i, lo, hi)
        return
    numbered = list(enumerate(blocks))
    share = -(-len(numbered) // THREADS)
    parts = [numbered[k:k + share] for k in range(0, len(numbered), share)]
    pool = _get_pool()
    futures = [pool.submit(_run_part, body, part) for part in parts[1:]]
    _run_part(body, parts[0])
    for f in futures:
        f.result()


def _run_part(body, part):
    for i, (lo, hi) in part:
        body(i, lo, hi)


def map_rows(xp, block, out, *arrays):
    """Apply ``block(*array_rows, out_rows)`` along the last axis, tile by tile.

    All arrays have ``out``'s shape; ``out`` is C-contiguous. Other backends get
    one call over the whole arrays.
    """
    n = out.shape[-1] if out.ndim else 1
    rows = out.size // max(n, 1)
    o2 = out.reshape(rows, n)
    a2 = [xp.ascontiguousarray(a).reshape(rows, n) for a in arrays]
    if xp is not np:
        block(*a2, o2)
        return out
    run_blocks(lambda i, lo, hi: block(*[a[lo:hi] for a in a2], o2[lo:hi]),
               row_blocks(o2.shape[0], n))
    return out
