"""The PyTorch-style API (mindspore.ops' communication functions, mint.distributed) and
the uneven / rooted / point-to-point primitive classes against NumPy on 2 ranks. Each
rank computes every rank's input itself (a seeded function of the rank). Prints
'checked N' on success."""
import ml_dtypes
import numpy as np

import spore as ms
from spore import ops, mint
from spore.mint import distributed as dist

assert ops.is_available() and not ops.is_initialized()
assert ops.get_rank() == -1                 # before init: -1 (MindSpore logs a warning)
ops.init_process_group()
assert ops.is_initialized()
rank, size = ops.get_rank(), ops.get_world_size()
assert size == 2 and dist.get_rank() == rank
assert ops.get_backend() == "hccl" and ops.get_process_group_ranks() == [0, 1]
peer = 1 - rank
checked = 0

DTYPES = [np.int32, np.int64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64]


def data(r, shape, dtype=np.float32, salt=0):
    rng = np.random.default_rng(100 * salt + r)
    return rng.integers(1, 5, size=shape).astype(dtype)


def same(got, want):
    global checked
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape,
                                                                 got.dtype, want.dtype)
    assert np.array_equal(got.astype(np.float64), want.astype(np.float64)), (got, want)
    checked += 1


def T(a):
    return ms.Tensor(np.array(a))


world = ops.new_group([0, 1])
assert world.startswith("hccl_2_") and ops.new_group([1, 0]) == world
assert ops.get_global_rank(world, 1) == 1 and ops.get_group_rank(world, rank) == rank
alone = ops.new_group([rank])           # each rank in a group of its own
assert ops.get_world_size(alone) == 1 and ops.get_process_group_ranks(alone) == [rank]
assert ops.new_group([peer]) == ""      # not a member: "" (MindSpore warns)

for group in (None, world):
    for dtype in DTYPES:
        for shape in [(1,), (5,), (3, 7)]:
            every = [data(r, shape, dtype) for r in range(size)]
            wide = [a.astype(np.float64) for a in every]
            for op, fn in (("sum", np.sum), ("max", np.max), ("min", np.min),
                           ("prod", np.prod)):
                x = T(every[rank])
                assert ops.all_reduce(x, op, group) is None
                same(x, fn(np.stack(wide), 0).astype(dtype))
            x = T(every[rank])
            h = dist.all_reduce(x, "avg", group, async_op=True)
            h.wait()
            assert h.is_completed()
            same(x, ((wide[0] + wide[1]) / 2).astype(dtype)
                 if dtype not in (np.int32, np.int64) else (every[0] + every[1]) // 2)
            # all-gather into a tensor, list form, and uneven
            out = T(np.zeros((2 * shape[0],) + shape[1:], dtype))
            ops.all_gather_into_tensor(out, T(every[rank]), group)
            same(out, np.concatenate(every))
            lst = [T(np.zeros(shape, dtype)) for _ in range(size)]
            dist.all_gather(lst, T(every[rank]), group)
            for r in range(size):
                same(lst[r], every[r])
            rows = [1, 2]                       # rank r gives rows[r] rows
            parts = [data(r, (rows[r],) + shape[1:], dtype, salt=1) for r in range(size)]
            out = T(np.zeros((3,) + shape[1:], dtype))
            ops.all_gather_into_tensor_uneven(out, T(parts[rank]), rows, group)
            same(out, np.concatenate(parts))
            # reduce-scatter: even, uneven, list
            big = [data(r, (4,) + shape[1:], dtype, salt=2) for r in range(size)]
            total = (big[0].astype(np.float64) + big[1]).astype(dtype)
            out = T(np.zeros((2,) + shape[1:], dtype))
            ops.reduce_scatter_tensor(out, T(big[rank]), "sum", group)
            same(out, total[2 * rank:2 * rank + 2])
            out = T(np.zeros(((1, 3)[rank],) + shape[1:], dtype))
            dist.reduce_scatter_tensor_uneven(out, T(big[rank]), [1, 3], "sum", group)
            same(out, total[:1] if rank == 0 else total[1:])
            out = T(np.zeros(shape, dtype))
            ops.reduce_scatter(out, [T(every[rank]), T(2 * every[rank])], "sum", group)
            same(out, ((1 + rank) * (wide[0] + wide[1])).astype(dtype))
            # rooted: reduce, broadcast, gather, scatter
            for root in range(size):
                x = T(every[rank])
                ops.reduce(x, root, "max", group)
                same(x, np.maximum(every[0], every[1]) if rank == root else every[rank])
                x = T(every[rank])
                ops.broadcast(x, root, group)
                same(x, every[root])
                out = T(np.zeros((2 * shape[0],) + shape[1:], dtype))
                ops.gather_into_tensor(out, T(every[rank]), root, group)
                same(out, np.concatenate(every) if rank == root else np.zeros_like(out.asnumpy()))
                out = T(np.zeros((2,) + shape[1:], dtype))
                ops.scatter_tensor(out, T(big[root]), root, group)
                same(out, big[root][2 * rank:2 * rank + 2])
                lst = [T(np.zeros(shape, dtype)) for _ in range(size)] if rank == root else None
                dist.gather(T(every[rank]), lst, root, group)
                if rank == root:
                    for r in range(size):
                        same(lst[r], every[r])
                x = T(np.zeros(shape, dtype))
                dist.scatter(x, [T(a) for a in every] if rank == root else None, root, group)
                same(x, every[rank])
            # all-to-all: lists (uneven shapes) and single (uneven splits)
            send = [data(rank, (j + 1,) + shape[1:], dtype, salt=3 + j) for j in range(size)]
            outs = [T(np.zeros((rank + 1,) + shape[1:], dtype)) for _ in range(size)]
            ops.all_to_all(outs, [T(a) for a in send], group)
            for j in range(size):
                same(outs[j], data(j, (rank + 1,) + shape[1:], dtype, salt=3 + rank))
            splits_in = [[1, 3], [2, 2]][rank]              # rows rank -> j
            splits_out = [[1, 2], [3, 2]][rank]             # rows j -> rank
            src = [data(r, (4,) + shape[1:], dtype, salt=9) for r in range(size)]
            out = T(np.zeros((sum(splits_out),) + shape[1:], dtype))
            ops.all_to_all_single(out, T(src[rank]), splits_out, splits_in, group)
            starts = [[0, 1], [0, 2]]
            want = [src[j][starts[j][rank]:starts[j][rank] + splits_out[j]] for j in range(size)]
            same(out, np.concatenate(want))
            # point to point: blocking, and non-blocking posted in either order
            x = T(every[rank])
            if rank == 0:
                ops.send(x, 1, group)
                y = T(np.zeros(shape, dtype))
                assert ops.recv(y, 1, group) == 0
            else:
                y = T(np.zeros(shape, dtype))
                ops.recv(y, 0, group)
                ops.send(x, 0, group)
            same(y, every[peer])
            y = T(np.zeros(shape, dtype))
            hs = [ops.irecv(y, peer, group), ops.isend(T(every[rank]), peer, group)]
            for h in hs:
                h.wait()
            same(y, every[peer])
            y = T(np.zeros(shape, dtype))
            p2p = [ops.P2POp(ops.isend, T(every[rank]), peer, group),
                   ops.P2POp("irecv", y, peer, group)]
            if rank:
                p2p.reverse()
            [h] = ops.batch_isend_irecv(p2p)
            h.wait()
            same(y, every[peer])
    ops.barrier(group)

# a group of one rank: every collective is this rank's own data
x = T(data(rank, (3,)))
ops.all_reduce(x, "sum", alone)
same(x, data(rank, (3,)))

# not in place: (result, handle), arguments untouched
ops.set_comm_ops_inplace(False)
x = T(data(rank, (5,)))
out, h = ops.all_reduce(x)
assert h is None
same(out, data(0, (5,)) + data(1, (5,)))
same(x, data(rank, (5,)))
(outs, h) = ops.all_to_all([(1,), (1,)], [T(data(rank, (1,))), T(data(rank, (1,), salt=1))])
same(outs[0], data(0, (1,), salt=rank))
x = T(np.zeros(3, np.float32))
y = dist.all_reduce(T(np.ones(3, np.float32)))      # mint: in place whatever ops says
assert y is None
if rank == 0:
    ops.send(T(np.arange(3, dtype=np.float32)), 1)
else:
    same(ops.recv(x, 0), np.arange(3, dtype=np.float32))
    same(x, np.zeros(3, np.float32))
ops.set_comm_ops_inplace(True)

# objects, as JSON
objs = [None, None]
ops.all_gather_object(objs, {"rank": rank, "v": [rank, 1.5]})
assert objs == [{"rank": 0, "v": [0, 1.5]}, {"rank": 1, "v": [1, 1.5]}], objs
lst = [f"r{rank}", rank] if rank == 1 else [None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == ["r1", 1], lst
got = [None, None] if rank == 0 else None
ops.gather_object((rank, "x"), got, dst=0)
assert rank == 1 or got == [[0, "x"], [1, "x"]], got
out = [None]
ops.scatter_object_list(out, [{"to": 0}, {"to": 1}] if rank == 1 else None, src=1)
assert out == [{"to": rank}], out
if rank == 0:
    ops.send_object_list([1, "two", {"3": 3.0}], dst=1)
else:
    lst = [None] * 3
    assert ops.recv_object_list(lst, src=0) == 0 and lst == [1, "two", {"3": 3.0}], lst
try:
    ops.all_gather_object([None, None], {1, 2})
    raise AssertionError("a set is not JSON")
except TypeError as e:
    assert "JSON" in str(e)
checked += 6

# primitive classes
x = T(data(rank, (2 + rank,)))          # 2 and 3 elements
same(ops.AllGatherV()(x, [2, 3]), np.concatenate([data(0, (2,)), data(1, (3,))]))
y = ops.ReduceScatterV()(T(data(rank, (5,))), [2, 3])
same(y, (data(0, (5,)) + data(1, (5,)))[[slice(0, 2), slice(2, 5)][rank]])
x = T(data(rank, (4, 6)))
y = ops.AlltoAll(2, 0, 1)(x)
same(y, np.concatenate([data(j, (4, 6))[2 * rank:2 * rank + 2] for j in range(2)], axis=1))
y = ops.AlltoAllV()(T(data(rank, (3,))), [1, 2], [[1, 1], [2, 2]][rank])
same(y, np.concatenate([data(0, (3,))[[slice(0, 1), slice(1, 3)][rank]],
                        data(1, (3,))[[slice(0, 1), slice(1, 3)][rank]]]))
y = ops.Reduce(1)(T(data(rank, (3,))))
same(y, data(0, (3,)) + data(1, (3,)) if rank == 1 else np.zeros(1, np.float32))
y = ops.CollectiveGather(0)(T(data(rank, (2, 2))))
same(y, np.concatenate([data(0, (2, 2)), data(1, (2, 2))]) if rank == 0
     else np.zeros(1, np.float32))
y = ops.CollectiveScatter(1)(T(data(rank, (4, 2))))
same(y, data(1, (4, 2))[2 * rank:2 * rank + 2])
if rank == 0:
    ops.Send(7, 1)(T(data(0, (2, 3))))
else:
    same(ops.Receive(7, 0, [2, 3], ms.float32)(), data(0, (2, 3)))
outs = ops.BatchISendIRecv(("isend", "irecv"), (peer, peer), [(3,)], [ms.int32])(
    (T(data(rank, (3,), np.int32)),))
same(outs[1], data(peer, (3,), np.int32))


# gradients: each rule is the adjoint of its collective, summed over ranks:
#   sum_r <f(x)_r, c_r> == sum_r <x_r, grad_r>, with grad = vjp of <f(x), c>
def adjoint(f, x, c):
    fx = f(x)
    g = ops.grad(lambda v: (f(v) * c).sum())(x)
    lhs = ops.AllReduce()((fx * c).sum()).asnumpy()
    rhs = ops.AllReduce()((x * g).sum()).asnumpy()
    np.testing.assert_allclose(lhs, rhs, rtol=1e-6)


adjoint(lambda v: ops.AllGatherV()(v, [2, 3]), T(data(rank, (2 + rank,))),
        T(data(rank, (5,), salt=5)))
adjoint(lambda v: ops.ReduceScatterV()(v, [2, 3]), T(data(rank, (5,))),
        T(data(rank, (2 + rank,), salt=5)))
adjoint(lambda v: ops.AlltoAll(2, 0, 1)(v), T(data(rank, (4, 6))),
        T(data(rank, (2, 12), salt=5)))
adjoint(lambda v: ops.AlltoAllV()(v, [1, 2], [[1, 1], [2, 2]][rank]), T(data(rank, (3,))),
        T(data(rank, ([2, 4][rank],), salt=5)))
adjoint(lambda v: ops.Reduce(1)(v), T(data(rank, (2, 3))),
        T(data(rank, [(1,), (2, 3)][rank], salt=5)))
adjoint(lambda v: ops.CollectiveGather(0)(v), T(data(rank, (2, 3))),
        T(data(rank, [(4, 3), (1,)][rank], salt=5)))
adjoint(lambda v: ops.CollectiveScatter(1)(v), T(data(rank, (4, 3))),
        T(data(rank, (2, 3), salt=5)))
checked += 7

ops.destroy_process_group(alone)
ops.destroy_process_group()
assert not ops.is_initialized()
print(f"checked {checked}")
