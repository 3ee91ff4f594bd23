"""The gradient buckets through the shared window (NOTE: [Shared-memory buckets]): the
sum of every rank's gradients on each rank, the same bits on every rank, across window
growth, several buckets in one step (the window's halves in turn), steps back to back,
the mean, the ranks meeting through the window's flags (no MPI barrier per exchange),
and release / init again. With SPORE_SHARED_BUCKETS=0 the same checks run on
MPI's Allreduce. Prints 'checked N shared=B'."""
import os

import numpy as np

import spore as ms
from spore._prims import comm as C
from spore.communication import _backend, init, get_rank, get_group_size, release
from spore.communication.management import group_comm

init()
rank, size = get_rank(), get_group_size()
shared_on = os.environ.get("SPORE_SHARED_BUCKETS", "1") != "0"
checked = 0


def data(r, shape, dtype, k):
    rng = np.random.default_rng(1000 * k + r)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, size=shape).astype(dtype)


def check_step(k, shapes, dtype, bucket_bytes, mean=False):
    global checked
    mine = [ms.Tensor(data(rank, s, dtype, k)) for s in shapes]
    outs = C.fused_all_reduce_p(*mine, op="sum", group="hccl_world_group",
                                scale=1 / size if mean else None, bucket_bytes=bucket_bytes)
    world = group_comm("hccl_world_group")
    for s, out in zip(shapes, outs):
        got = out.asnumpy()
        want = data(0, s, dtype, k)
        for r in range(1, size):                       # the sum in rank order
            want = want + data(r, s, dtype, k)
        if mean:
            want = want * dtype(1 / size)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        windowed = shared_on and sum(int(np.prod(t)) for t in shapes) * \
            np.dtype(dtype).itemsize <= _backend.SHARED_MAX_BYTES
        if windowed or np.dtype(dtype).kind != "f":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        every = world.allgather(got.reshape(1, -1).view(np.uint8))
        assert all(np.array_equal(every[0], row) for row in every), "ranks differ"
        checked += 1
    return outs


cases = [([(5,), (3, 4), ()], np.float32, 1 << 30),        # one bucket of three arrays
         ([(300, 200), (7,)], np.float64, 1 << 30),         # grows the window
         ([(10,)] * 5, np.int32, 80),                       # five buckets in one step
         ([(100000,), (3,)], np.float32, 1 << 16),          # a large array's own bucket
         ([(2,)], np.int64, 1 << 30),
         ([(1 << 20,), (5,)], np.float64, 1 << 30)]             # 8 MB: MPI's Allreduce
for k, (shapes, dtype, bucket_bytes) in enumerate(cases * 2):
    check_step(k, shapes, dtype, bucket_bytes)
kept = check_step(20, [(64, 64)], np.float32, 1 << 30)     # held across later steps
for k in range(21, 25):
    check_step(k, [(64, 64)], np.float32, 1 << 30, mean=True)
kept_want = sum(data(r, (64, 64), np.float32, 20) for r in range(size))
np.testing.assert_allclose(kept[0].asnumpy(), kept_want, rtol=1e-6)
world = group_comm("hccl_world_group")
assert bool(world._shared) == shared_on, world._shared
if shared_on:
    # the ranks meet through the window's flags: no MPI barrier once the window is made,
    # and every rank's flag stands at the number of exchanges so far
    class Counting:
        def __init__(self, node):
            self.node, self.barriers = node, 0

        def __getattr__(self, name):
            self.barriers += name in ("Barrier", "Ibarrier")
            return getattr(self.node, name)
    shared = world._shared
    shared.node = Counting(shared.node)
    for k in range(25, 29):
        check_step(k, [(64, 64), (3,)], np.float32, 1 << 30, mean=k % 2 == 0)
    assert shared.node.barriers == 0, shared.node.barriers
    shared.node = shared.node.node
    assert all(f[0] == shared.exchanges for f in [shared.flag] + shared.others)
assert not shared_on or world._shared.capacity <= _backend.SHARED_MAX_BYTES
release()
assert world._shared is None
init()
check_step(30, [(9,), (4, 4)], np.float32, 1 << 30)
print(f"rank {rank} checked {checked} shared={bool(group_comm('hccl_world_group')._shared)}",
      flush=True)
