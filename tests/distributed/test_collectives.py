"""Collectives on 2 ranks (loopback) and the single-rank behaviour of spore.communication."""
import re

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.communication import management as M

from . import launch


def test_every_collective_matches_numpy_on_two_ranks():
    r = launch.run("collectives.py", timeout=240)
    counts = [int(n) for n in re.findall(r"checked (\d+)", r.stdout)]
    assert len(counts) == 2 and min(counts) > 1000, r.stdout


@pytest.fixture
def solo():
    M.release()
    M.init()
    yield
    M.release()


def test_init_outside_a_launcher_is_one_rank(solo, monkeypatch):
    assert M.get_rank() == 0 and M.get_group_size() == 1
    assert M.get_local_rank() == 0 and M.get_local_rank_size() == 1
    assert M.GlobalComm.INITED and M.GlobalComm.WORLD_COMM_GROUP == "mccl_world_group"
    assert ms.get_auto_parallel_context("device_num") == 1
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for out in (ops.AllReduce()(x), ops.AllGather()(x), ops.ReduceScatter()(x),
                ops.Broadcast(0)((x,))[0], M.GlobalComm and ops.AllReduce("max")(x)):
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    M.create_group("g", [0])
    assert M.get_group_size("g") == 1
    M.destroy_group("g")


def test_collective_before_init_says_to_call_init():
    M.release()
    with pytest.raises(RuntimeError, match="call init"):
        ops.AllReduce()(ms.Tensor(np.ones(2, np.float32)))


def test_init_checks_backend_name(solo):
    with pytest.raises(TypeError, match="backend_name"):
        M.init(3)
    with pytest.raises(RuntimeError, match="'hccl', 'nccl' and 'mccl'"):
        M.init("gloo")


def test_missing_mpi_runtime_names_the_extra(monkeypatch):
    import builtins
    from spore.communication import _backend
    real = builtins.__import__

    def no_mpi(name, *a, **k):
        if name.startswith("mpi4py"):
            raise ImportError("No module named 'mpi4py'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mpi)
    monkeypatch.setenv("PMI_SIZE", "2")
    with pytest.raises(RuntimeError, match=r"spore\[dist\]"):
        _backend.start()


def test_op_and_group_arguments_are_checked():
    with pytest.raises(ValueError, match="AllReduce"):
        ops.AllReduce("mean")
    with pytest.raises(TypeError, match="group"):
        ops.AllGather(group=1)
    with pytest.raises(TypeError, match="root_rank"):
        ops.Broadcast("0")
    assert ops.ReduceOp.SUM == "sum" and ops.operations.AllReduce is ops.AllReduce


def test_collectives_are_comm_effects():
    from spore._prims import comm
    for p in (comm.all_reduce_p, comm.all_gather_p, comm.reduce_scatter_p, comm.broadcast_p,
              comm.barrier_p, comm.send_p, comm.receive_p, comm.fused_all_reduce_p):
        assert p.effect == "comm"


from spore._prims import comm as C  # noqa: E402


def test_buckets_split_by_size_and_dtype():
    xs = [np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(2, np.float64),
          np.zeros(100, np.float64), np.zeros(1, np.float64)]
    assert list(C._buckets(xs, 32)) == [[0, 1], [2], [3], [4]]
    assert list(C._buckets(xs, 10 ** 6)) == [[0, 1], [2, 3, 4]]


def test_fused_all_reduce_gradient_with_an_unused_output():
    M.release()
    M.init()
    try:
        x = ms.Tensor(np.ones(3, np.float32))
        y = ms.Tensor(np.ones(2, np.float32))

        def f(a, b):
            out = C.fused_all_reduce_p(a, b, op="sum", group="hccl_world_group", scale=None,
                                       bucket_bytes=1024)
            return (out[0] * 2).sum()
        ga, gb = ms.grad(f, (0, 1))(x, y)
        np.testing.assert_array_equal(ga.asnumpy(), [2, 2, 2])
        np.testing.assert_array_equal(gb.asnumpy(), [0, 0])
    finally:
        M.release()


def test_eager_all_reduce_takes_the_lean_path(solo, monkeypatch):
    """NOTE: [Eager all-reduce]: a contiguous Tensor of a native dtype skips the dispatch
    point's generic path; a strided view, float16, a tape or a trace take it, with equal
    values."""
    from spore.communication import comm_func
    generic, calls = C.all_reduce_p.eager, []
    monkeypatch.setattr(C.all_reduce_p, "eager", lambda a, k: calls.append(1) or generic(a, k))
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ms.Tensor(base)
    for x in (t, t.T, ms.Tensor(np.float64(2.5)), ms.Tensor(np.arange(5, dtype=np.int8)),
              ms.Parameter(t, name="p")):      # t.T: a Fortran-ordered view
        for out in (ops.AllReduce()(x), comm_func.all_reduce(x)[0], ops.AllReduce("max")(x)):
            np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
            assert out.dtype == x.dtype and not np.shares_memory(out.asnumpy(), x._data)
    assert calls == []
    for x in (t[:, ::2], ms.Tensor(base.astype(np.float16))):
        assert not x._data.flags.c_contiguous or x.dtype == ms.float16
        np.testing.assert_array_equal(ops.AllReduce()(x).asnumpy(), x.asnumpy())
    assert len(calls) == 2
    g = ms.grad(lambda t: (ops.AllReduce()(t) * 3).sum())(ms.Tensor(base))
    np.testing.assert_array_equal(g.asnumpy(), np.full((3, 4), 3, np.float32))
    f = ms.jit(lambda t: comm_func.all_reduce(t)[0] * 2)
    for k in (1, 2):
        np.testing.assert_array_equal(f(ms.Tensor(base * k)).asnumpy(), base * k * 2)
    with pytest.raises(TypeError, match="all_reduce"):
        comm_func.all_reduce(base)
    with pytest.raises(ValueError, match="all_reduce"):
        comm_func.all_reduce(ms.Tensor(base), "mean")


@pytest.mark.parametrize("n, shared", [(2, "1"), (3, "1"), (2, "0")])
def test_gradient_buckets_through_the_shared_window(n, shared, monkeypatch):
    """NOTE: [Shared-memory buckets]: the bucket sums on 2 and 3 ranks, and with the
    window turned off (MPI's Allreduce), checked on every rank."""
    monkeypatch.setenv("SPORE_SHARED_BUCKETS", shared)
    r = launch.run("shared_buckets.py", n=n, timeout=240)
    lines = re.findall(r"checked (\d+) shared=(True|False)", r.stdout)
    assert len(lines) == n and all(int(c) > 30 for c, _ in lines), r.stdout
    assert {s for _, s in lines} == {"True" if shared == "1" else "False"}, r.stdout


def test_planned_all_reduce_matches_the_primitive_on_two_ranks():
    """NOTE: [Eager all-reduce]: repeated calls on one input run its plan; values, dtypes,
    layouts, ops, held and dropped results, inputs changed in place and groups made again
    agree with the primitive's generic path and NumPy on every rank."""
    r = launch.run("lean_all_reduce.py", timeout=300)
    counts = [int(n) for n in re.findall(r"checked (\d+)", r.stdout)]
    assert len(counts) == 2 and min(counts) > 3000, r.stdout


def test_repeated_all_reduce_reuses_its_plan(solo, monkeypatch):
    """The second call on the same input makes no new message specs and, once the first
    result is dropped, no new result array; a held result is never written again."""
    from spore.communication import _backend, comm_func
    made = []
    spec = _backend.SoloComm.spec
    monkeypatch.setattr(_backend.SoloComm, "spec", staticmethod(
        lambda a: made.append(a.shape) or spec(a)))
    for f in (ops.AllReduce("max"), lambda t: comm_func.all_reduce(t, "min")[0]):
        made.clear()
        x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
        first = f(x)
        assert len(made) == 2                       # the input's and the result's
        at = first.asnumpy().ctypes.data
        del first
        for _ in range(3):
            out = f(x)
            np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
            assert out.asnumpy().ctypes.data == at
            del out
        assert len(made) == 2
        held = f(x)
        x.asnumpy()[...] += 1                       # read again by the next call
        np.testing.assert_array_equal(f(x).asnumpy(), x.asnumpy())
        np.testing.assert_array_equal(held.asnumpy(), x.asnumpy() - 1)
        assert len(made) == 4                       # a new result: the old one was held


def test_planned_all_reduce_hands_out_a_result_again_only_when_unreachable(solo,
                                                                           monkeypatch):
    """NOTE: [Eager all-reduce]: a dropped result Tensor is handed out again by the next
    call; one still held (strongly, through its array or a view, or weakly), or whose
    tensor was given new memory after its array was taken, never is, and keeps its
    values; an input whose shape changed in place (0-d, 1-d and 2-d) gives a result of
    the new shape."""
    import weakref
    from spore.communication import comm_func
    made = []
    monkeypatch.setattr(C, "_new_tensor", lambda cls: made.append(1) or object.__new__(cls))
    for f in (ops.AllReduce(), lambda t: comm_func.all_reduce(t)[0]):
        x = ms.Tensor(np.arange(4, dtype=np.float32))
        made.clear()
        for _ in range(3):
            f(x)
        assert len(made) == 1                       # dropped: the same Tensor again
        held = f(x)
        weak = f(x)
        ref = weakref.ref(weak)
        del weak
        taken = f(x)
        view = taken.asnumpy()[1:]
        renewed = f(x)
        array = renewed.asnumpy()
        renewed += 10                               # new memory for the Tensor
        del renewed, taken
        kept = [(held, held.asnumpy().copy()), (view, view.copy()),
                (array, array.copy())]
        x.asnumpy()[...] += 1
        want = x.asnumpy().copy()
        for _ in range(3):
            out = f(x)
            np.testing.assert_array_equal(out.asnumpy(), want)
            assert all(out is not k and not np.shares_memory(out.asnumpy(), k)
                       for k, _ in kept)
            del out
        for k, values in kept:
            np.testing.assert_array_equal(np.asarray(k), values)
        assert ref() is None                        # freed once its plan went
    f = ops.AllReduce()
    for shape, new_shape in (((), (1, 1)), ((6,), (2, 3)), ((2, 3), (3, 2)), ((6,), (6,))):
        x = ms.Tensor(np.arange(6, dtype=np.float32)[:int(np.prod(shape))].reshape(shape))
        for _ in range(2):
            assert f(x).shape == shape
        x.asnumpy().shape = new_shape
        out = f(x)
        assert out.shape == new_shape
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())


def test_planned_all_reduce_places_its_result_half_a_page_from_its_input(solo):
    """NOTE: [Eager all-reduce]: a plan's result starts half a page (modulo 4 KB) from its
    input, whatever their sizes and layouts, so that MPI's copy of the input into it does
    not suffer 4K aliasing; its values, layout and memory are a result's as before."""
    from spore.communication import comm_func
    from spore._prims.comm import _address
    f = ops.AllReduce()
    for shape, order in (((), "C"), ((1,), "C"), ((256,), "C"), ((1024,), "C"),
                         ((5000,), "C"), ((40, 60), "F"), ((0, 3), "C")):
        base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        x = ms.Tensor(np.asarray(base, order=order))
        for out in (f(x), f(x), comm_func.all_reduce(x)[0]):
            np.testing.assert_array_equal(out.asnumpy(), base)
            got = out.asnumpy()
            assert got.strides == x.asnumpy().strides and not np.shares_memory(got, x._data)
            assert (_address(got) - _address(x.asnumpy())) % 4096 == 2048


def test_ranks_of_a_node_share_its_cores():
    """NOTE: [Cores per rank]: 2 ranks, no thread variables: each takes half the cores
    (at least one) in Spore's pool and OpenBLAS."""
    from spore.communication._backend import THREAD_VARS
    r = launch.run("cores.py", timeout=120, unset=THREAD_VARS)
    assert len(re.findall(r"threads \d+", r.stdout)) == 2, r.stdout


def test_planned_all_reduce_follows_its_tensor_and_groups(solo, monkeypatch):
    """NOTE: [Eager all-reduce]: a plan is for one Tensor: another Tensor on the same array
    makes a new input spec; a group destroyed and made again under the same name between
    planned calls is looked up again (the group table's epoch); ``None`` and arrays fail
    as on the checked path."""
    from spore.communication import _backend, comm_func
    made = []
    spec = _backend.SoloComm.spec
    monkeypatch.setattr(_backend.SoloComm, "spec", staticmethod(
        lambda a: made.append(a.shape) or spec(a)))
    f = ops.AllReduce()
    x = ms.Tensor(np.arange(4, dtype=np.float32))
    f(x)
    f(x)
    assert len(made) == 2
    twin = ms.Tensor.__new__(ms.Tensor)
    twin._data, twin._tape_ref = x._data, None
    np.testing.assert_array_equal(f(twin).asnumpy(), np.arange(4))
    assert len(made) == 3                       # the input's spec again; the result reused
    for bad in (None, x.asnumpy()):
        with pytest.raises(TypeError, match="AllReduce"):
            f(bad)
        with pytest.raises(TypeError, match="all_reduce"):
            comm_func.all_reduce(bad)
    M.create_group("pair", [0])
    g = ops.AllReduce("max", group="pair")
    for _ in range(2):
        np.testing.assert_array_equal(g(x).asnumpy(), np.arange(4))
    old = M.group_comm("pair")
    M.destroy_group("pair")
    with pytest.raises(ValueError, match="pair"):
        g(x)
    M.create_group("pair", [0])
    assert M.group_comm("pair") is not old
    made.clear()
    np.testing.assert_array_equal(g(x).asnumpy(), np.arange(4))
    assert len(made) == 2                       # a new plan on the new communicator
    M.destroy_group("pair")
