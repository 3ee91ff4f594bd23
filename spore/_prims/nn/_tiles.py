"""Row-tiled execution of fused kernels, spread over a small thread pool.

NOTE: [Row tiles]
A softmax or layer norm makes several passes over its data (max, exp, sum,
scale). Running every pass on one block of rows while the block is in cache
turns them into about one trip to memory, and NumPy releases the GIL inside
its loops, so blocks run in parallel on Spore's thread pool (spore/_core/threads.py). Block boundaries depend only on the
shape, never on the thread count, so results are identical on every machine.
"""
from __future__ import annotations

import numpy as np

from ..._core import threads

TILE_ELEMS = 1 << 17        # elements per block (512 KiB of float32): a few fit in L2
MIN_PARALLEL_BLOCKS = 4     # below this, threads cost more than they save


def row_blocks(n_rows, row_len):
    """Consecutive ``(lo, hi)`` row ranges of about TILE_ELEMS elements covering n_rows."""
    step = max(1, TILE_ELEMS // max(row_len, 1))
    return [(lo, min(lo + step, n_rows)) for lo in range(0, n_rows, step)]


def run_blocks(body, blocks, whole=None):
    """Call ``body(i, lo, hi)`` for every block, on Spore's thread pool (NOTE: [Threads]:
    each thread takes the next block as it gets free). ``whole``: one call doing every
    block's work with the same results, run instead where the blocks would all run on
    this thread (``threads.for_each``)."""
    if len(blocks) < MIN_PARALLEL_BLOCKS:
        if whole is not None:
            whole()
            return
        for i, (lo, hi) in enumerate(blocks):
            body(i, lo, hi)
        return
    threads.for_each(lambda i: body(i, *blocks[i]), len(blocks), whole)


def map_rows(xp, block, out, *arrays, rowwise=False):
    """Apply ``block(*array_rows, out_rows)`` along the last axis, tile by tile.

    All arrays have ``out``'s shape; ``out`` is C-contiguous. Other backends get
    one call over the whole arrays. ``rowwise``: ``block`` treats each row on its own
    (a compiled row loop, not NumPy passes that want a tile in cache), so where the
    tiles would all run on this thread, one call over every row replaces them.
    """
    n = out.shape[-1] if out.ndim else 1
    rows = out.size // max(n, 1)
    o2 = out.reshape(rows, n)
    a2 = [xp.ascontiguousarray(a).reshape(rows, n) for a in arrays]
    if xp is not np:
        block(*a2, o2)
        return out
    run_blocks(lambda i, lo, hi: block(*[a[lo:hi] for a in a2], o2[lo:hi]),
               row_blocks(o2.shape[0], n), (lambda: block(*a2, o2)) if rowwise else None)
    return out
