"""mindspore.ops' communication functions, mint.distributed and the uneven / rooted /
point-to-point primitive classes: 2 ranks against NumPy (workers/process_group.py), and
one rank alone."""
import inspect
import re
import weakref

import numpy as np
import pytest

import spore as ms
from spore import ops, mint
from spore.communication import management as M
from spore.communication import distributed as D

from . import launch


def test_every_function_matches_numpy_on_two_ranks():
    r = launch.run("process_group.py", timeout=300)
    counts = [int(n) for n in re.findall(r"checked (\d+)", r.stdout)]
    assert len(counts) == 2 and min(counts) > 1000, r.stdout + r.stderr


@pytest.fixture
def solo():
    M.release()
    ops.init_process_group()
    yield
    ops.set_comm_ops_inplace(True)
    M.release()


# MindSpore 2.10's signatures (probed with inspect.signature)
SIGNATURES = {
    "all_reduce": "(tensor, op='sum', group=None, async_op=False)",
    "all_gather_into_tensor_uneven":
        "(output, input, output_split_sizes=None, group=None, async_op=False)",
    "reduce_scatter_tensor_uneven":
        "(output, input, input_split_sizes=None, op='sum', group=None, async_op=False)",
    "all_to_all_single": "(output, input, output_split_sizes=None, input_split_sizes=None, "
                         "group=None, async_op=False)",
    "reduce": "(tensor, dst, op='sum', group=None, async_op=False)",
    "barrier": "(group=None, async_op=False, device_ids=None)",
    "irecv": "(tensor, src=0, group=None, tag=0)",
    "batch_isend_irecv": "(p2p_op_list)",
    "scatter_object_list": "(scatter_object_output_list, scatter_object_input_list, src=0, "
                           "group=None)",
    "init_process_group": "(backend='hccl', init_method=None, timeout=None, world_size=-1, "
                          "rank=-1, store=None, group_name='', pg_options=None, device_id=None)",
    "new_group": "(ranks=None, timeout=None, backend=None, pg_options=None, "
                 "use_local_synchronization=False, group_desc=None)",
    "get_global_rank": "(group, group_rank)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures_are_mindsporess(name):
    assert str(inspect.signature(getattr(ops, name))) == SIGNATURES[name]
    assert str(inspect.signature(getattr(mint.distributed, name))) == SIGNATURES[name]


def test_names_of_both_modules():
    assert mint.distributed.gather and mint.distributed.scatter
    assert not hasattr(ops, "gather_object_list") and not hasattr(mint.distributed,
                                                                   "set_comm_ops_inplace")
    assert ops.operations.AlltoAll is ops.AlltoAll and ops.P2POp is mint.distributed.P2POp


def test_before_init():
    M.release()
    assert not ops.is_initialized() and ops.is_available()
    assert ops.get_rank() == -1 and ops.get_world_size() == -1
    assert ops.get_backend() == "hccl" and ops.get_backend("mccl_x") == "mccl"


def test_one_rank_alone(solo):
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.get_rank() == 0 and ops.get_world_size() == 1
    assert ops.all_reduce(x) is None and ops.all_reduce(x, "avg", async_op=True).wait() is None
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    out = ms.Tensor(np.zeros((2, 3), np.float32))
    mint.distributed.all_gather_into_tensor(out, x)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    lst = [None]
    ops.all_gather_object(lst, {"a": (1, 2)})
    assert lst == [{"a": [1, 2]}]           # JSON: tuples arrive as lists
    objs = ["x"]
    ops.broadcast_object_list(objs, 0)
    assert objs == ["x"]
    g = ops.new_group([0])
    assert ops.get_process_group_ranks(g) == [0] and ops.get_global_rank(g, 0) == 0
    ops.destroy_process_group(g)
    ops.set_comm_ops_inplace(False, ["all_reduce"])
    y, h = ops.all_reduce(x, "max")
    assert h is None and y is not x
    assert mint.distributed.all_reduce(x) is None           # mint: always in place
    np.testing.assert_array_equal(ops.AllGatherV()(x.reshape(-1), [6]).asnumpy(),
                                  np.arange(6))
    assert ops.AlltoAll(1, 0, 1)(x).shape == (2, 3)
    np.testing.assert_array_equal(ops.Reduce(0)(x).asnumpy(), x.asnumpy())


def test_objects_must_be_json(solo):
    with pytest.raises(TypeError, match="all_gather_object.*JSON.*never pickle"):
        ops.all_gather_object([None], object())
    with pytest.raises(TypeError, match="object_list must be a list"):
        ops.broadcast_object_list(("a",))


def test_arguments_are_checked(solo):
    x = ms.Tensor(np.ones(4, np.float32))
    with pytest.raises(TypeError, match="all_reduce, the input tensor must be tensor"):
        ops.all_reduce(np.ones(2))
    with pytest.raises(TypeError, match="one of sum, prod, min, max, avg"):
        ops.all_reduce(x, "mean")
    with pytest.raises(TypeError, match="group"):
        ops.all_reduce(x, group=3)
    with pytest.raises(TypeError, match="async_op"):
        ops.all_reduce(x, async_op=1)
    with pytest.raises(ValueError, match="shape"):
        ops.all_gather_into_tensor(ms.Tensor(np.ones(3, np.float32)), x)
    with pytest.raises(ValueError, match="output_split_sizes"):
        ops.all_gather_into_tensor_uneven(x, x, [1, 3])
    with pytest.raises(TypeError, match="isend or irecv"):
        ops.P2POp("send", x, 0)
    with pytest.raises(NotImplementedError, match="tag"):
        ops.P2POp(ops.isend, x, 0, tag=1)
    with pytest.raises(TypeError, match="non-empty"):
        ops.batch_isend_irecv([])
    with pytest.raises(TypeError, match="is_enable"):
        ops.set_comm_ops_inplace(1)
    with pytest.raises(ValueError, match="func_list"):
        ops.set_comm_ops_inplace(True, ["nope"])
    with pytest.raises(ValueError, match="only support hccl"):
        ops.init_process_group("nccl")
    with pytest.raises(NotImplementedError, match="launcher"):
        ops.init_process_group(init_method="tcp://127.0.0.1:1234", world_size=1, rank=0)
    with pytest.raises(ValueError, match="world_size"):
        ops.init_process_group(world_size=4)
    with pytest.raises(ValueError, match="AlltoAll.*split_count"):
        ops.AlltoAll(2, 0, 0)(x)
    with pytest.raises(ValueError, match="BatchISendIRecv"):
        ops.BatchISendIRecv(("isend",), (0, 1))
    with pytest.raises(RuntimeError, match="peer rank"):
        ops.isend(x, 0)


def test_a_small_all_reduce_result_is_reused_only_once_free(solo):
    op = ops.AllReduce()
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    first = op(x)
    held = first._data
    second = op(x)
    assert second._data is not held               # first still alive: a new array
    np.testing.assert_array_equal(first.asnumpy(), x.asnumpy())
    del first, held
    spare = weakref.ref(second._data)
    del second
    third = op(x)
    assert third._data is spare()                 # nothing held it: reused
    f_order = ms.Tensor(np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
    del third
    np.testing.assert_array_equal(op(f_order).asnumpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(op(x).asnumpy(), np.arange(6).reshape(2, 3))


def test_in_place_all_reduce_of_views_and_read_only_tensors(solo):
    base = ms.Tensor(np.arange(8, dtype=np.float32))
    assert ops.all_reduce(base) is None and ops.all_reduce(base, "max") is None
    np.testing.assert_array_equal(base.asnumpy(), np.arange(8))
    ro = np.arange(3, dtype=np.float32)
    ro.flags.writeable = False
    t = ms.Tensor.__new__(ms.Tensor)
    t._data, t._tape_ref = ro, None
    with pytest.raises(Exception, match="(?i)read-only|writ"):
        ops.all_reduce(t)


def _count_specs(monkeypatch):
    """The arrays (by shape) that the world group turns into message specs from now on."""
    from spore.communication import _backend
    made = []
    spec = _backend.SoloComm.spec
    monkeypatch.setattr(_backend.SoloComm, "spec", staticmethod(
        lambda a: made.append(a.shape) or spec(a)))
    return made


def test_repeated_in_place_all_reduce_runs_its_plan(solo, monkeypatch):
    """NOTE: [Eager all-reduce]: the second in-place call on one Tensor makes no new
    message spec; a new Tensor, a new array, a dtype changed in place make a new plan;
    an array made read-only in place is refused as by the checked path."""
    made = _count_specs(monkeypatch)
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    for _ in range(3):
        assert ops.all_reduce(x) is None
    assert made == [(2, 3)]
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    y = ms.Tensor(np.arange(4, dtype=np.int64))
    assert ops.all_reduce(y) is None and ops.all_reduce(y) is None
    assert made == [(2, 3), (4,)]
    a = y.asnumpy()
    a.dtype = np.float64                        # same memory, another dtype: a new plan
    assert ops.all_reduce(y) is None and made == [(2, 3), (4,), (4,)]
    a.flags.writeable = False
    with pytest.raises(Exception, match="(?i)read-only|writ"):
        ops.all_reduce(y)
    a.flags.writeable = True
    assert ops.all_reduce(y) is None
    with pytest.raises(TypeError, match="all_reduce"):
        ops.all_reduce(None)
    with pytest.raises(TypeError, match="all_reduce"):
        ops.all_reduce(x.asnumpy())


def test_in_place_shortcut_follows_set_comm_ops_inplace_and_groups(solo):
    """The shortcut for the last call's op and group obeys ``set_comm_ops_inplace`` and
    stops at a destroyed group (the checked path's error), working again once it is
    made anew."""
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    assert ops.all_reduce(x, "max") is None and ops.all_reduce(x, "max") is None
    ops.set_comm_ops_inplace(False, ["all_reduce"])
    y, h = ops.all_reduce(x, "max")
    assert h is None and y is not x
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    ops.set_comm_ops_inplace(True)
    assert ops.all_reduce(x, "max") is None
    g = ops.new_group([0])
    assert ops.all_reduce(x, "sum", g) is None and ops.all_reduce(x, "sum", g) is None
    ops.destroy_process_group(g)
    with pytest.raises(ValueError, match=re.escape(g)):
        ops.all_reduce(x, "sum", g)
    assert ops.new_group([0]) == g
    assert ops.all_reduce(x, "sum", g) is None
    np.testing.assert_array_equal(x.asnumpy(), np.arange(3))
