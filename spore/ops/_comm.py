"""MindSpore's collective primitive classes: ``ops.AllReduce(op, group)(x)`` and the
others, thin adapters over ``spore/_prims/comm.py``."""
from __future__ import annotations

from .._prims import comm as C
from .._tensor import Tensor
from .operations import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Barrier"]

_WORLD = "hccl_world_group"


class ReduceOp:
    """The reductions of AllReduce / ReduceScatter (MindSpore's string values)."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def check_group(name, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{name}', the argument 'group' must be a str, but got "
                        f"{type(group)}.")
    return group


def check_op(name, op):
    if not isinstance(op, str):
        raise TypeError(f"For '{name}', the argument 'op' must be a str, but got {type(op)}.")
    if op not in C.REDUCE_OPS:
        raise ValueError(f"For '{name}', the argument 'op' must be one of "
                         f"{list(C.REDUCE_OPS)}, but got {op!r}.")
    return op


def check_tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', the input must be a Tensor, but got {type(x)}.")
    return x


class AllReduce(Primitive):
    """Reduces ``x`` over every rank of ``group`` (``op``: ReduceOp.SUM/MAX/MIN/PROD); every
    rank gets the result."""

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        super().__init__("AllReduce")
        self.op = check_op("AllReduce", op)
        self.group = check_group("AllReduce", group)
        self._lean = C.lean_all_reduce(self.op, self.group)

    def __call__(self, x):
        out = self._lean(x)         # NOTE: [Eager all-reduce] in spore/_prims/comm.py
        if out is None:
            out = C.all_reduce_p(check_tensor("AllReduce", x), op=self.op, group=self.group)
        return out


class AllGather(Primitive):
    """Concatenates every rank's ``x`` along the first axis, in rank order."""

    def __init__(self, group=_WORLD):
        super().__init__("AllGather")
        self.group = check_group("AllGather", group)

    def __call__(self, x):
        return C.all_gather_p(check_tensor("AllGather", x), group=self.group)


class ReduceScatter(Primitive):
    """Reduces ``x`` over the ranks and gives rank ``r`` the ``r``-th slice of the first
    axis (which the group size must divide)."""

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        super().__init__("ReduceScatter")
        self.op = check_op("ReduceScatter", op)
        self.group = check_group("ReduceScatter", group)

    def __call__(self, x):
        return C.reduce_scatter_p(check_tensor("ReduceScatter", x), op=self.op,
                                  group=self.group)


class Broadcast(Primitive):
    """Every rank gets ``root_rank``'s tensors; takes and returns a tuple of tensors."""

    def __init__(self, root_rank, group=_WORLD):
        super().__init__("Broadcast")
        if not isinstance(root_rank, int) or isinstance(root_rank, bool):
            raise TypeError(f"For 'Broadcast', the argument 'root_rank' must be an int, but got "
                            f"{type(root_rank)}.")
        self.root_rank = root_rank
        self.group = check_group("Broadcast", group)

    def __call__(self, x):
        if not isinstance(x, tuple):
            raise TypeError(f"For 'Broadcast', the input must be a tuple of Tensors, but got "
                            f"{type(x)}.")
        return tuple(C.broadcast_p(check_tensor("Broadcast", t), root=self.root_rank,
                                   group=self.group) for t in x)


class Barrier(Primitive):
    """Waits until every rank of ``group`` reaches it."""

    def __init__(self, group=_WORLD):
        super().__init__("Barrier")
        self.group = check_group("Barrier", group)

    def __call__(self):
        return C.barrier_p(group=self.group)
