"""``mindspore.communication.comm_func``: the collectives as functions.

``all_reduce``, ``all_gather_into_tensor`` and ``reduce_scatter_tensor`` return
``(tensor, handle)`` as MindSpore does; the handle is None (Spore's collectives
complete before returning, so ``async_op=True`` gives a handle whose ``wait`` does
nothing).
"""
from __future__ import annotations

from .._prims import comm as C
from .._tensor import Tensor
from ..ops._comm import ReduceOp, check_group, check_op
from .management import GlobalComm, get_group_rank_from_world_rank

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast",
           "barrier", "send", "recv", "ReduceOp", "CommHandle"]


class CommHandle:
    """The handle of an asynchronous collective; Spore's have completed already."""

    def wait(self):
        return None

    def is_completed(self):
        return True


def _tensor(fn, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For {fn}, the input tensor must be tensor")
    return x


def _handle(async_op):
    return CommHandle() if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """``(reduced tensor, handle)``: ``op`` over every rank's ``tensor``."""
    global _last
    last = _last                        # the very op and group of the last call: no look-up
    if op is last[0] and group is last[1]:
        lean = last[2]
    else:
        try:
            lean = _lean_all_reduce[op, group]
        except (KeyError, TypeError):   # arguments not seen before: checked here, once
            lean = _lean_all_reduce[op, group] = _AllReduce(check_op("all_reduce", op),
                                                            check_group("all_reduce", group))
        _last = (op, group, lean)
    # NOTE: [Eager all-reduce] in spore/_prims/comm.py; lean(tensor) in one frame
    return _call(lean, tensor), (CommHandle() if async_op else None)


class _AllReduce:
    """``all_reduce``'s call for one checked ``op`` and ``group``."""

    def __init__(self, op, group):
        self.op, self.group = op, group
        C.lean_setup()
        self._plan = C.NO_PLAN

    __call__ = C.all_reduce_call

    def _checked(self, t):
        return C.all_reduce_p(_tensor("all_reduce", t), op=self.op, group=self.group)


_lean_all_reduce = {}       # (op, group) -> _AllReduce(op, group), both checked
_call = C.all_reduce_call
_last = (object(), object(), None)     # (op, group, _AllReduce) of the last call


def all_gather_into_tensor(tensor, group=GlobalComm.WORLD_COMM_GROUP, async_op=False):
    """``(gathered tensor, handle)``: every rank's ``tensor`` concatenated on axis 0."""
    out = C.all_gather_p(_tensor("all_gather_into_tensor", tensor),
                         group=check_group("all_gather_into_tensor", group))
    return out, _handle(async_op)


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP,
                          async_op=False):
    """``(this rank's slice of the reduction, handle)``."""
    out = C.reduce_scatter_p(_tensor("reduce_scatter_tensor", tensor),
                             op=check_op("reduce_scatter_tensor", op),
                             group=check_group("reduce_scatter_tensor", group))
    return out, _handle(async_op)


def broadcast(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP):
    """World rank ``src``'s ``tensor`` on every rank of ``group``."""
    _tensor("broadcast", tensor)
    if not isinstance(src, int):
        raise TypeError("For broadcast, the src must be int")
    root = get_group_rank_from_world_rank(src, check_group("broadcast", group))
    return C.broadcast_p(tensor, root=root, group=group)


def barrier(group=GlobalComm.WORLD_COMM_GROUP):
    """Waits until every rank of ``group`` reaches it."""
    C.barrier_p(group=check_group("barrier", group))


def send(tensor, dst=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """Sends ``tensor`` to world rank ``dst`` (which calls ``recv``)."""
    _tensor("send", tensor)
    if not isinstance(dst, int):
        raise TypeError("For send, the dst must be int")
    C.send_p(tensor, dst=get_group_rank_from_world_rank(dst, check_group("send", group)),
             group=group, tag=tag)


def recv(tensor, src=0, group=GlobalComm.WORLD_COMM_GROUP, tag=0):
    """A tensor shaped like ``tensor`` received from world rank ``src``."""
    _tensor("recv", tensor)
    if not isinstance(src, int):
        raise TypeError("For recv, the src must be int")
    return C.receive_p(src=get_group_rank_from_world_rank(src, check_group("recv", group)),
                       shape=tuple(tensor.shape), dtype=tensor._data.dtype, group=group, tag=tag)
