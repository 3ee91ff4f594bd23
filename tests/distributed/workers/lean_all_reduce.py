"""The planned eager all-reduce (NOTE: [Eager all-reduce]) against the primitive's generic
path and NumPy, on 2 ranks: repeated calls on the same input (the plan's fast path) for
every dtype, op and layout, results held or dropped, inputs changed in place between
calls, groups made, destroyed and made again, tapes and traces in between. Prints
'checked N' on success."""
import weakref

import numpy as np
import ml_dtypes

import spore as ms
from spore import ops
from spore._prims import comm as C
from spore.communication import init, get_rank, get_group_size, create_group, comm_func, \
    destroy_group

init()
rank, size = get_rank(), get_group_size()
assert size == 2
checked = 0
DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
OPS = ("sum", "max", "min", "prod")


def data(r, shape, dtype, k=0):
    x = np.random.default_rng(100 * k + r).integers(1, 4, size=shape)
    return x.astype(dtype)


def expect(op, arrays):
    wide = [a.astype(np.float64) for a in arrays]
    fn = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
    return fn(np.stack(wide), axis=0).astype(arrays[0].dtype)


def generic(x, op, group="hccl_world_group"):
    """The primitive through the dispatch point (its generic eager path)."""
    return C.all_reduce_p(x, op=op, group=group)


def same(got, want):
    global checked
    got = got.asnumpy() if hasattr(got, "asnumpy") else got
    want = want.asnumpy() if hasattr(want, "asnumpy") else want
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    assert np.array_equal(got.astype(np.float64), want.astype(np.float64)), (got, want)
    checked += 1


def raises(error, call, says, missing):
    """``call()`` raises ``error`` and ``says(message)`` holds; else ``missing``."""
    global checked
    try:
        call()
    except error as e:
        assert says(str(e)), e
        checked += 1
    else:
        raise AssertionError(missing)


# every dtype, op and layout, three calls in a row on one input: the first makes the plan,
# the others run it (the result of the first is held, of the second dropped)
for dtype in DTYPES:
    for shape in [(), (1,), (7,), (3, 5), (300, 4)]:
        base = data(rank, shape, dtype)
        every = [data(r, shape, dtype) for r in range(size)]
        for layout in ("C", "F"):
            mine = np.asfortranarray(base) if layout == "F" and base.ndim else base
            x = ms.Tensor(mine)
            for op in OPS:
                want = expect(op, every)
                for f in (ops.AllReduce(op), lambda t: comm_func.all_reduce(t, op)[0]):
                    held = f(x)
                    same(f(x), want)                    # dropped at once
                    again = f(x)
                    same(held, want)
                    same(again, want)
                    same(generic(x, op), want)
                    assert not np.shares_memory(held.asnumpy(), again.asnumpy())
                    if np.dtype(dtype).itemsize > 2 or np.dtype(dtype).kind in "iu":
                        # laid out like the input (float16 / bfloat16 go through float32)
                        assert again.asnumpy().flags.f_contiguous == (
                            layout == "F" or len(shape) < 2)

# a dropped result is reused; a held one (as a Tensor, an array or a view) never is
f = ops.AllReduce()
x = ms.Tensor(data(rank, (16,), np.float32))
want = expect("sum", [data(r, (16,), np.float32) for r in range(size)])
r1 = f(x)
at = r1.asnumpy().__array_interface__["data"][0]
del r1
r2 = f(x)
assert r2.asnumpy().__array_interface__["data"][0] == at
# placed half a page from its input (4K aliasing)
assert (at - x.asnumpy().__array_interface__["data"][0]) % 4096 == 2048
for keep in (lambda t: t, lambda t: t.asnumpy(), lambda t: t.asnumpy()[2:5]):
    kept = keep(f(x))
    before = np.array(kept, copy=True)
    for _ in range(3):
        same(f(x), want)
    assert np.array_equal(np.asarray(kept), before)
    checked += 1

# a dropped result Tensor is handed out again; one still held weakly, or given new memory
# after its array was taken, is not, and what was taken keeps its values
y = f(x)
ref = weakref.ref(y)
del y
taken = f(x)
array = taken.asnumpy()
before = array.copy()
taken += 1                      # new memory for the Tensor
del taken
for _ in range(3):
    out = f(x)
    same(out, want)
    assert not np.shares_memory(out.asnumpy(), array)
    del out
assert ref() is None and np.array_equal(array, before)
checked += 1
for shape, new_shape in (((), (1, 1)), ((6,), (3, 2)), ((6,), (6,))):
    size_ = int(np.prod(shape))
    x = ms.Tensor(data(rank, (size_,), np.int64).reshape(shape))
    for _ in range(2):
        same(f(x), expect("sum", [data(r, (size_,), np.int64).reshape(shape)
                                  for r in range(size)]))
    x.asnumpy().shape = new_shape
    same(f(x), expect("sum", [data(r, (size_,), np.int64).reshape(new_shape)
                              for r in range(size)]))

# the input changed in place between calls: each call reduces its current values; its
# shape changed in place: the result has the new shape
x = ms.Tensor(data(rank, (4, 6), np.float32))
a = x.asnumpy()                 # the tensor's own memory
for k in range(3):
    a[...] = data(rank, (4, 6), np.float32, k)
    same(f(x), expect("sum", [data(r, (4, 6), np.float32, k) for r in range(size)]))
a.shape = (6, 4)
same(f(x), expect("sum", [data(r, (4, 6), np.float32, 2).reshape(6, 4) for r in range(size)]))
# one AllReduce on inputs of changing dtypes and shapes, and a Parameter
for dtype in (np.float32, np.int64, np.float32, np.float16, np.float32):
    for shape in ((5,), (2, 3), (5,)):
        x = ms.Tensor(data(rank, shape, dtype))
        same(f(x), expect("sum", [data(r, shape, dtype) for r in range(size)]))
p = ms.Parameter(ms.Tensor(data(rank, (3,), np.float32)), name="p")
for _ in range(2):
    same(f(p), expect("sum", [data(r, (3,), np.float32) for r in range(size)]))

# a tape or a trace between planned calls takes the primitive (with its gradient rule)
x = ms.Tensor(data(rank, (2, 3), np.float64))
w = float(rank + 1)
for _ in range(2):
    same(f(x), expect("sum", [data(r, (2, 3), np.float64) for r in range(size)]))
    same(ms.grad(lambda t: (f(t) * w).sum())(x), np.full((2, 3), 3.0))
    same(ms.jit(lambda t: f(t) * 2)(x), 2 * expect("sum", [data(r, (2, 3), np.float64)
                                                          for r in range(size)]))

# groups: a group in reverse order, a group of one rank, a group destroyed and made again
# under the same name between planned calls (the plan follows the group's communicator)
create_group("both", [1, 0])
g = ops.AllReduce("max", group="both")
x = ms.Tensor(data(rank, (9,), np.int32))
want = expect("max", [data(r, (9,), np.int32) for r in range(size)])
for _ in range(3):
    same(g(x), want)
    same(generic(x, "max", "both"), want)
destroy_group("both")
raises(ValueError, lambda: g(x), lambda m: "both" in m, "a destroyed group was still used")
create_group("both", [0, 1])
for _ in range(2):
    same(g(x), want)
create_group(f"alone{rank}", [rank])
alone = ops.AllReduce(group=f"alone{rank}")
for _ in range(2):
    same(alone(x), x.asnumpy())

# the in-place ops.all_reduce (MindSpore 2.10's function), called again and again on one
# Tensor (its plan's fast path): each call equals the primitive's generic path on a copy
# of the values it read, for every dtype and op, with the values changed, a strided view,
# and a group destroyed and made again under the same name in between
for dtype in DTYPES:
    for shape in [(), (7,), (3, 5)]:
        for op in OPS:
            x = ms.Tensor(data(rank, shape, dtype))
            for k in range(3):
                if k == 2:
                    x.asnumpy()[...] = data(rank, shape, dtype, 5)
                want = generic(ms.Tensor(x.asnumpy().copy()), op)
                assert ops.all_reduce(x, op) is None
                same(x, want)
view_of = ms.Tensor(data(rank, (4, 6), np.float32))
view = view_of[:, ::2]
want = expect("sum", [data(r, (4, 6), np.float32)[:, ::2] for r in range(size)])
assert ops.all_reduce(view) is None
same(view, want)
create_group("again", [0, 1])
x = ms.Tensor(data(rank, (5,), np.int64))
for round_ in range(2):
    for _ in range(2):
        want = generic(ms.Tensor(x.asnumpy().copy()), "max", "again")
        assert ops.all_reduce(x, "max", "again") is None
        same(x, want)
    destroy_group("again")
    raises(ValueError, lambda: ops.all_reduce(x, "max", "again"), lambda m: "again" in m,
           "a destroyed group was still used")
    create_group("again", [1, 0])

# bad input after plans exist (the fast paths' caches warm): the checked path's errors
x = ms.Tensor(data(rank, (3,), np.float32))
f, f(x), ops.all_reduce(x), comm_func.all_reduce(x)
for call, bad, error in ((f, None, TypeError), (f, x.asnumpy(), TypeError),
                         (lambda t: ops.all_reduce(t), x.asnumpy(), TypeError),
                         (lambda t: ops.all_reduce(t, "mean"), x, TypeError),
                         (lambda t: comm_func.all_reduce(t), None, TypeError),
                         (lambda t: comm_func.all_reduce(t, "mean"), x, ValueError)):
    raises(error, lambda: call(bad),
           lambda m: "all_reduce" in m.lower() or "allreduce" in m.lower(),
           f"no {error.__name__} for {bad!r}")
print(f"rank {rank} checked {checked}", flush=True)
