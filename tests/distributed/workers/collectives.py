"""Every collective against NumPy, on each dtype it supports, odd sizes, groups, in place
and not. Each rank knows every rank's input (a seeded function of the rank), so it
computes the expected result itself. Prints one line 'checked N' on success."""
import numpy as np
import ml_dtypes

import spore as ms
from spore import ops
from spore._prims import comm as C
from spore.communication import (init, get_rank, get_group_size, create_group, comm_func,
                                 get_local_rank, get_local_rank_size, destroy_group,
                                 get_process_group_ranks)
from spore.communication.management import group_comm

init()
rank, size = get_rank(), get_group_size()
assert size == 2 and get_local_rank() == rank and get_local_rank_size() == 2
assert ms.get_auto_parallel_context("device_num") == 2
assert ms.get_auto_parallel_context("global_rank") == rank

REDUCE_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                 np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
MOVE_DTYPES = REDUCE_DTYPES + [np.bool_, np.complex64]
SHAPES = [(1,), (7,), (3, 5), (2, 3, 4), (1001,)]
checked = 0


def data(r, shape, dtype):
    rng = np.random.default_rng(1000 + r)
    x = rng.integers(1, 4, size=shape)
    return x.astype(dtype)


def expect(op, arrays):
    wide = [a.astype(np.float64) if a.dtype.kind == "V" or a.dtype == np.float16 else a
            for a in arrays]
    fn = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
    return fn(np.stack(wide), axis=0).astype(arrays[0].dtype)


def same(got, want):
    global checked
    got = got.asnumpy() if hasattr(got, "asnumpy") else got
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    assert np.array_equal(got.astype(np.float64) if got.dtype.kind == "V" else got,
                          want.astype(np.float64) if want.dtype.kind == "V" else want), \
        (got, want)
    checked += 1


for dtype in REDUCE_DTYPES:
    for shape in SHAPES:
        mine = data(rank, shape, dtype)
        every = [data(r, shape, dtype) for r in range(size)]
        x = ms.Tensor(mine)
        for op in ("sum", "max", "min", "prod"):
            same(ops.AllReduce(op)(x), expect(op, every))
            same(comm_func.all_reduce(x, op)[0], expect(op, every))
            # in place, as the gradient buckets do
            buf = mine.copy().reshape(-1)
            group_comm("hccl_world_group").allreduce(buf, op, out=buf)
            same(buf.reshape(shape), expect(op, every))
        same(x, mine)                                 # the input is untouched
        rows = np.concatenate([data(r, (2 * size,) + shape[1:], dtype) for r in range(size)])
        mine2 = data(rank, (2 * size,) + shape[1:], dtype)
        every2 = [data(r, (2 * size,) + shape[1:], dtype) for r in range(size)]
        red = expect("sum", every2)
        same(ops.ReduceScatter()(ms.Tensor(mine2)), red[2 * rank:2 * rank + 2])
        same(comm_func.reduce_scatter_tensor(ms.Tensor(mine2), "max")[0],
             expect("max", every2)[2 * rank:2 * rank + 2])

for dtype in MOVE_DTYPES:
    for shape in SHAPES:
        mine = data(rank, shape, dtype)
        every = [data(r, shape, dtype) for r in range(size)]
        same(ops.AllGather()(ms.Tensor(mine)), np.concatenate(every))
        same(comm_func.all_gather_into_tensor(ms.Tensor(mine))[0], np.concatenate(every))
        for root in range(size):
            same(ops.Broadcast(root)((ms.Tensor(mine),))[0], every[root])
            same(comm_func.broadcast(ms.Tensor(mine), src=root), every[root])

# a 0-d tensor stays 0-d
same(ops.AllReduce()(ms.Tensor(np.float32(rank + 1))), np.float32(sum(range(1, size + 1))))

# the lean eager all-reduce (NOTE: [Eager all-reduce]) on every layout and input kind:
# strided views and float16 take the generic path, Fortran order keeps its element order,
# a Parameter is an input like a Tensor; inside ms.jit the call is captured as before
for n in (12, 5, 2 ** 15):          # 2 ** 15 float32: a pooled result
    base = data(rank, (2, n), np.float32)
    every = [data(r, (2, n), np.float32) for r in range(size)]
    t = ms.Tensor(base)
    for x, want in ((t[:, ::2], [e[:, ::2] for e in every]),        # views of t's data
                    (t.T, [e.T for e in every]), (t.T[1:], [e.T[1:] for e in every])):
        for op in ("sum", "max"):
            same(ops.AllReduce(op)(x), expect(op, want))
            same(comm_func.all_reduce(x, op)[0], expect(op, want))
    p = ms.Parameter(ms.Tensor(base), name="p")
    same(ops.AllReduce()(p), expect("sum", every))
    same(p, base)
same(ops.AllReduce()(ms.Tensor(data(rank, (3,), np.float16))),
     expect("sum", [data(r, (3,), np.float16) for r in range(size)]))
twice = ms.jit(lambda t: ops.AllReduce()(t) + comm_func.all_reduce(t, "max")[0])
for k in range(3):                  # new values each call: nothing was baked in at capture
    every = [data(r, (2, 3), np.float32) * (k + 1) for r in range(size)]
    same(twice(ms.Tensor(every[rank])), expect("sum", every) + expect("max", every))
for bad, exc in [(lambda: comm_func.all_reduce(ms.Tensor(np.ones(2)), "mean"), ValueError),
                 (lambda: comm_func.all_reduce(np.ones(2)), TypeError),
                 (lambda: ops.AllReduce()(np.ones(2)), TypeError),
                 (lambda: comm_func.all_reduce(ms.Tensor(np.ones(2)), ["sum"]), TypeError),
                 (lambda: comm_func.all_reduce(ms.Tensor(np.ones(2)), group=3), TypeError)]:
    try:
        bad()
    except exc as e:
        assert "all_reduce" in str(e) or "AllReduce" in str(e), e
        checked += 1
    else:
        raise AssertionError("no error")

# large results come from the pool (NOTE: [Buffer reuse]): a result anyone can reach is
# never overwritten by the next call, a dropped one is reused; bf16/f16/int too
from spore.communication import _backend  # noqa: E402
for dtype in (np.float32, np.float16, ml_dtypes.bfloat16, np.int32, np.int64):
    n = _backend.POOL.min_bytes // np.dtype(dtype).itemsize + 3
    mine, every = data(rank, (n,), dtype), [data(r, (n,), dtype) for r in range(size)]
    first = ops.AllReduce()(ms.Tensor(mine))
    kept = ops.AllReduce("max")(ms.Tensor(mine)).asnumpy()
    view = ops.AllReduce("min")(ms.Tensor(mine)).asnumpy()[1:5]
    for op in ("prod", "sum"):
        same(ops.AllReduce(op)(ms.Tensor(mine)), expect(op, every))
    same(first, expect("sum", every))
    same(kept, expect("max", every))
    same(view, expect("min", every)[1:5])
    if dtype in (np.float32, np.int32, np.int64):          # reduced without a wide copy
        r1 = ops.AllReduce()(ms.Tensor(mine))
        at = r1.asnumpy().__array_interface__["data"][0]
        del r1
        r2 = ops.AllReduce()(ms.Tensor(mine))
        assert r2.asnumpy().__array_interface__["data"][0] == at
        same(r2, expect("sum", every))
    # the data-movement collectives' pooled results, held across the next call
    g1 = ops.AllGather()(ms.Tensor(mine))
    b0 = ops.Broadcast(0)((ms.Tensor(mine),))[0]
    b1 = comm_func.broadcast(ms.Tensor(mine), src=1)
    rows = [data(r, (2 * size, n // 2), dtype) for r in range(size)]
    rs = ops.ReduceScatter()(ms.Tensor(rows[rank]))
    for _ in range(2):
        ops.AllGather()(ms.Tensor(mine * 0))
        ops.Broadcast(0)((ms.Tensor(mine * 0),))
        ops.ReduceScatter()(ms.Tensor(rows[rank] * 0))
    same(g1, np.concatenate(every))
    same(b0, every[0])
    same(b1, every[1])
    same(rs, expect("sum", rows)[2 * rank:2 * rank + 2])
    # the gradient buckets: several arrays in one pooled buffer, the mean, step after step
    arrays = [data(rank, (n // 2,), dtype), data(rank, (3, 4), dtype), data(rank, (), dtype)]
    alls = [[data(r, a.shape, dtype) for r in range(size)] for a in arrays]
    kw = dict(op="sum", group="hccl_world_group", bucket_bytes=1 << 30)
    mean = np.dtype(dtype).kind != "i"
    step1 = C.fused_all_reduce_p(*map(ms.Tensor, arrays), scale=1 / size if mean else None,
                                 **kw)
    step2 = C.fused_all_reduce_p(*map(ms.Tensor, arrays), scale=None, **kw)
    for a, e, s1, s2 in zip(arrays, alls, step1, step2):
        total = expect("sum", e)
        same(s2, total)
        if mean:
            np.testing.assert_allclose(s1.asnumpy().astype(np.float64),
                                       total.astype(np.float64) / size, rtol=1e-2)
        else:
            same(s1, total)
        checked += 1

# errors name the op and argument
for bad, exc in [(lambda: ops.AllReduce()(ms.Tensor(np.array([True]))), TypeError),
                 (lambda: ops.AllReduce("mean"), ValueError),
                 (lambda: ops.ReduceScatter()(ms.Tensor(np.ones(3, np.float32))), ValueError),
                 (lambda: ops.AllReduce(group="nope")(ms.Tensor(np.ones(3))), ValueError)]:
    try:
        bad()
    except exc as e:
        assert "AllReduce" in str(e) or "ReduceScatter" in str(e) or "nope" in str(e), e
        checked += 1
    else:
        raise AssertionError("no error")

# groups: a group of rank 1 alone, and a group of both in reverse order
create_group("solo1", [1]) if rank == 1 else None
if rank == 1:
    same(ops.AllReduce(group="solo1")(ms.Tensor(np.ones(3, np.float32))),
         np.ones(3, np.float32))
    destroy_group("solo1")
create_group("both", [1, 0])
assert get_process_group_ranks("both") == [0, 1]
same(ops.AllGather(group="both")(ms.Tensor(np.full(2, rank, np.int32))),
     np.array([0, 0, 1, 1], np.int32))

# point to point
payload = np.arange(6, dtype=np.float32).reshape(2, 3)
if rank == 0:
    comm_func.send(ms.Tensor(payload), dst=1, tag=4)
else:
    same(comm_func.recv(ms.Tensor(np.zeros((2, 3), np.float32)), src=0, tag=4), payload)
comm_func.barrier()
ops.Barrier()()

# gradients: rank r's loss is (r + 1) * sum(f(x)); the cotangent of each collective sums
# every rank's loss
x = ms.Tensor(data(rank, (4, 3), np.float64))
w = float(rank + 1)
total_w = sum(r + 1.0 for r in range(size))
same(ms.grad(lambda t: (ops.AllReduce()(t) * w).sum())(x), np.full((4, 3), total_w))
g = ms.grad(lambda t: (ops.AllGather()(t) * w).sum())(x)
same(g, np.full((4, 3), total_w))
g = ms.grad(lambda t: (ops.ReduceScatter()(t) * w).sum())(x)
same(g, np.full((4, 3), np.repeat([r + 1.0 for r in range(size)], 2)[:, None]))
g = ms.grad(lambda t: (ops.Broadcast(0)((t,))[0] * w).sum())(x)
same(g, np.full((4, 3), total_w if rank == 0 else 0.0))
every = [data(r, (4, 3), np.float64) for r in range(size)]
mx = np.max(np.stack(every), 0)
g = ms.grad(lambda t: (ops.AllReduce("max")(t) * w).sum())(x)
same(g, total_w * (every[rank] == mx))
pr = np.prod(np.stack(every), 0)
g = ms.grad(lambda t: (ops.AllReduce("prod")(t) * w).sum())(x)
assert np.allclose(g.asnumpy(), total_w * pr / every[rank])
print(f"rank {rank} checked {checked}", flush=True)
