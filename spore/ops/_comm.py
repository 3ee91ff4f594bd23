"""MindSpore's collective primitive classes: ``ops.AllReduce(op, group)(x)`` and the
others, thin adapters over ``spore/_prims/comm.py``."""
from __future__ import annotations

import numpy as np

from .._prims import comm as C
from .._tensor import Tensor
from .operations import Primitive

__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Barrier",
           "AllGatherV", "ReduceScatterV", "AlltoAll", "AlltoAllV", "Reduce",
           "CollectiveGather", "CollectiveScatter", "Send", "Receive", "BatchISendIRecv"]

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
        C.lean_setup()
        self._plan = C.NO_PLAN

    __call__ = C.all_reduce_call        # NOTE: [Eager all-reduce] in spore/_prims/comm.py

    def _checked(self, x):
        return C.all_reduce_p(check_tensor("AllReduce", x), op=self.op, group=self.group)


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


def _rank_arg(name, what, v):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For '{name}', the argument '{what}' must be an int, but got "
                        f"{type(v)}.")
    return v


def _group_size(group):
    from ..communication import management
    return management.group_comm(group).size


def _world_to_group(name, rank, group):
    """A world rank (CollectiveGather / CollectiveScatter take global ranks) as a rank of
    ``group``."""
    from ..communication import management
    return management.get_group_rank_from_world_rank(rank, group)


class AllGatherV(Primitive):
    """Every rank's flat ``input_x`` concatenated in rank order; ``output_split_sizes``
    gives each rank's element count."""

    def __init__(self, group=_WORLD):
        super().__init__("AllGatherV")
        self.group = check_group("AllGatherV", group)

    def __call__(self, input_x, output_split_sizes):
        sizes = C._sizes("AllGatherV", output_split_sizes, _group_size(self.group),
                         "output_split_sizes")
        return C.all_gather_v_p(check_tensor("AllGatherV", input_x), sizes=sizes,
                                group=self.group)


class ReduceScatterV(Primitive):
    """``op`` over every rank's flat ``input_x``; rank r gets ``input_split_sizes[r]``
    elements (those after the first ``sum(input_split_sizes[:r])``)."""

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        super().__init__("ReduceScatterV")
        self.op = check_op("ReduceScatterV", op)
        self.group = check_group("ReduceScatterV", group)

    def __call__(self, input_x, input_split_sizes):
        sizes = C._sizes("ReduceScatterV", input_split_sizes, _group_size(self.group),
                         "input_split_sizes")
        return C.reduce_scatter_v_p(check_tensor("ReduceScatterV", input_x), sizes=sizes,
                                    op=self.op, group=self.group)


class AlltoAll(Primitive):
    """Splits ``x`` into ``split_count`` blocks along ``split_dim``, sends block j to rank
    j, and concatenates the blocks received along ``concat_dim``."""

    def __init__(self, split_count, split_dim, concat_dim, group=_WORLD):
        super().__init__("AlltoAll")
        self.split_count = _rank_arg("AlltoAll", "split_count", split_count)
        self.split_dim = _rank_arg("AlltoAll", "split_dim", split_dim)
        self.concat_dim = _rank_arg("AlltoAll", "concat_dim", concat_dim)
        self.group = check_group("AlltoAll", group)

    def __call__(self, x):
        return C.all_to_all_p(check_tensor("AlltoAll", x), split_count=self.split_count,
                              split_dim=self.split_dim, concat_dim=self.concat_dim,
                              group=self.group)


class AlltoAllV(Primitive):
    """The flat ``input_x`` split by ``send_numel_list`` (piece j to rank j); the pieces
    received (``recv_numel_list[j]`` from rank j) concatenated. Counts are in units of
    ``block_size`` elements."""

    def __init__(self, group=_WORLD, block_size=1):
        super().__init__("AlltoAllV")
        self.group = check_group("AlltoAllV", group)
        self.block_size = _rank_arg("AlltoAllV", "block_size", block_size)

    def __call__(self, input_x, send_numel_list, recv_numel_list):
        n = _group_size(self.group)
        b = self.block_size
        send = C._sizes("AlltoAllV", send_numel_list, n, "send_numel_list")
        recv = C._sizes("AlltoAllV", recv_numel_list, n, "recv_numel_list")
        return C.all_to_all_v_p(check_tensor("AlltoAllV", input_x).reshape(-1),
                                send=tuple(s * b for s in send), recv=tuple(r * b for r in recv),
                                group=self.group)


class Reduce(Primitive):
    """``op`` over every rank's ``x`` on ``dest_rank`` (a rank of ``group``); the other
    ranks get a placeholder of shape (1,)."""

    def __init__(self, dest_rank, op=ReduceOp.SUM, group=_WORLD):
        super().__init__("Reduce")
        self.dest_rank = _rank_arg("Reduce", "dest_rank", dest_rank)
        self.op = check_op("Reduce", op)
        self.group = check_group("Reduce", group)

    def __call__(self, x):
        return C.reduce_p(check_tensor("Reduce", x), root=self.dest_rank, op=self.op,
                          group=self.group)


class CollectiveGather(Primitive):
    """Every rank's ``x`` concatenated on axis 0 on world rank ``dest_rank``; the others
    get a placeholder of shape (1,)."""

    def __init__(self, dest_rank, group=_WORLD):
        super().__init__("CollectiveGather")
        self.dest_rank = _rank_arg("CollectiveGather", "dest_rank", dest_rank)
        self.group = check_group("CollectiveGather", group)

    def __call__(self, x):
        root = _world_to_group("CollectiveGather", self.dest_rank, self.group)
        return C.collective_gather_p(check_tensor("CollectiveGather", x), root=root,
                                     group=self.group)


class CollectiveScatter(Primitive):
    """World rank ``src_rank``'s ``x`` split evenly on axis 0: rank r gets block r."""

    def __init__(self, src_rank=0, group=_WORLD):
        super().__init__("CollectiveScatter")
        self.src_rank = _rank_arg("CollectiveScatter", "src_rank", src_rank)
        self.group = check_group("CollectiveScatter", group)

    def __call__(self, x):
        root = _world_to_group("CollectiveScatter", self.src_rank, self.group)
        return C.collective_scatter_p(check_tensor("CollectiveScatter", x), root=root,
                                      group=self.group)


class Send(Primitive):
    """Sends ``x`` to ``dest_rank`` (a rank of ``group``), matched by ``Receive`` with
    the same ``sr_tag``."""

    def __init__(self, sr_tag, dest_rank, group=_WORLD, group_back=_WORLD):
        super().__init__("Send")
        self.sr_tag = _rank_arg("Send", "sr_tag", sr_tag)
        self.dest_rank = _rank_arg("Send", "dest_rank", dest_rank)
        self.group = check_group("Send", group)
        self.group_back = check_group("Send", group_back)

    def __call__(self, x):
        return C.send_p(check_tensor("Send", x), dst=self.dest_rank, group=self.group,
                        tag=self.sr_tag)


class Receive(Primitive):
    """Receives a ``(shape, dtype)`` tensor from ``src_rank`` (a rank of ``group``)
    sent by ``Send`` with the same ``sr_tag``. Inputs, if any, are ignored."""

    def __init__(self, sr_tag, src_rank, shape, dtype, group=_WORLD, group_back=_WORLD):
        super().__init__("Receive")
        self.sr_tag = _rank_arg("Receive", "sr_tag", sr_tag)
        self.src_rank = _rank_arg("Receive", "src_rank", src_rank)
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"For 'Receive', the argument 'shape' must be a list or tuple, "
                            f"but got {type(shape)}.")
        self.shape = tuple(int(d) for d in shape)
        self.dtype = dtype
        self.group = check_group("Receive", group)
        self.group_back = check_group("Receive", group_back)

    def __call__(self, *args):
        return C.receive_p(src=self.src_rank, shape=self.shape, dtype=_np_dtype(self.dtype),
                           group=self.group, tag=self.sr_tag)


def _np_dtype(dtype):
    from .._dtype import to_numpy_dtype
    return to_numpy_dtype(dtype)


class BatchISendIRecv(Primitive):
    """Posts every send and receive of ``op_types`` ("isend" / "irecv", with their
    ``remote_ranks``, ranks of ``group``) at once and waits for all: a tuple with the
    received tensors at the "irecv" positions and placeholders at the "isend" ones."""

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
                 group=_WORLD):
        super().__init__("BatchISendIRecv")
        for what, v in (("op_types", op_types), ("remote_ranks", remote_ranks)):
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"For 'BatchISendIRecv', '{what}' must be a tuple or list, but "
                                f"got {type(v)}.")
        if len(op_types) != len(remote_ranks):
            raise ValueError("For 'BatchISendIRecv', 'op_types' and 'remote_ranks' must have "
                             "the same length.")
        if any(t not in ("isend", "irecv") for t in op_types):
            raise ValueError(f"For 'BatchISendIRecv', 'op_types' must hold 'isend' or 'irecv', "
                             f"but got {op_types}.")
        receive_shapes = list(receive_shapes or ())
        receive_dtypes = list(receive_dtypes or ())
        if len(receive_shapes) != len(receive_dtypes) or \
                len(receive_shapes) != list(op_types).count("irecv"):
            raise ValueError("For 'BatchISendIRecv', 'receive_shapes' and 'receive_dtypes' "
                             "must have one item per 'irecv'.")
        self.op_types, self.remote_ranks = tuple(op_types), tuple(remote_ranks)
        self.receive_shapes = [tuple(s) for s in receive_shapes]
        self.receive_dtypes = [_np_dtype(d) for d in receive_dtypes]
        self.group = check_group("BatchISendIRecv", group)

    def __call__(self, input_x):
        from ..communication import management
        from .._core.primitive import wrap
        comm = management.group_comm(self.group)
        sends = iter(input_x or ())
        recvs = iter(zip(self.receive_shapes, self.receive_dtypes))
        requests, outs = [], []
        for kind, peer in zip(self.op_types, self.remote_ranks):
            if kind == "isend":
                a = np.array(np.asarray(check_tensor("BatchISendIRecv", next(sends))._data),
                             order="C", copy=True)
                requests.append(comm.isend(a, peer, 0))
                outs.append(a)
            else:
                shape, dtype = next(recvs)
                a = np.empty(shape, dtype)
                requests.append(comm.irecv(a, peer, 0))
                outs.append(a)
        for r in requests:
            r.Wait()
        return tuple(wrap(a) if k == "irecv" else wrap(np.zeros((), np.float32))
                     for k, a in zip(self.op_types, outs))
