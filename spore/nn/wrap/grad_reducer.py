"""``nn.DistributedGradReducer``: all-reduce the gradients of a data-parallel step.

NOTE: [Gradient buckets]
One all-reduce per parameter pays MPI's per-call latency for every tensor (LeNet
has 10, a transformer hundreds). The reducer instead packs consecutive gradients of
one dtype into buckets of at most ``bucket_size_mb`` megabytes, all-reduces each
bucket in place as one buffer, divides by the degree when ``mean`` is set, and
hands back views of the bucket (``FusedAllReduce`` in ``spore/_prims/comm.py``).
The bucket size is ``set_auto_parallel_context(comm_fusion={"allreduce": {"mode":
"size", "config": MB}})`` (MindSpore's key), 64 MB by default.
"""
from __future__ import annotations

import numpy as np

from ..._context import get_auto_parallel_context
from ..._prims import comm as C
from ..cell import Cell

__all__ = ["DistributedGradReducer", "broadcast_parameters", "data_parallel_reducer"]

DEFAULT_BUCKET_MB = 64


def bucket_size_mb():
    """The all-reduce bucket size set by ``comm_fusion`` (mode "size"), else the default."""
    cfg = get_auto_parallel_context("comm_fusion").get("allreduce") or {}
    if cfg.get("mode") == "size" and cfg.get("config"):
        return float(cfg["config"])
    return DEFAULT_BUCKET_MB


class DistributedGradReducer(Cell):
    """All-reduces a tuple of gradients over ``group`` (sum, or the mean over ``degree``
    ranks when ``mean``), in a few fused buckets (see NOTE: [Gradient buckets]).

    Args:
        parameters (list): the parameters whose gradients are reduced (their order is the
            gradients' order).
        mean (bool): divide the sum by ``degree``. Default: ``None``, the context's
            ``gradients_mean``.
        degree (int): the divisor for ``mean``. Default: ``None``, the group's size.
        fusion_type (int): accepted for compatibility.
        group (str): the communication group. Default: the world group.
        bucket_size_mb (float): the largest bucket. Default: ``None``, from ``comm_fusion``.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group="hccl_world_group", bucket_size_mb=None):
        super().__init__(auto_prefix=False)
        from ...communication.management import get_group_size
        if mean is None:
            mean = get_auto_parallel_context("gradients_mean")
        if degree is None:
            degree = get_group_size(group)
        if not isinstance(degree, int) or isinstance(degree, bool) or degree <= 0:
            raise ValueError("For 'DistributedGradReducer', the 'degree' must be a positive "
                             f"int, but got {degree}.")
        self.mean = bool(mean)
        self.degree = degree
        self.group = group
        self.fusion_type = fusion_type
        self.bucket_bytes = int((bucket_size_mb or globals()["bucket_size_mb"]()) * 2 ** 20)
        self.n_params = len(parameters)

    def construct(self, grads):
        grads = tuple(grads)
        if not grads:
            return grads
        return C.fused_all_reduce_p(*grads, op="sum", group=self.group,
                                    scale=1.0 / self.degree if self.mean else None,
                                    bucket_bytes=self.bucket_bytes)


def broadcast_parameters(params, root=0, group="hccl_world_group"):
    """Overwrite every parameter with rank ``root``'s value, so all ranks start equal."""
    from ...communication.management import group_comm
    comm = group_comm(group)
    if comm.size == 1:
        return
    for p in params:
        data = p._data
        if not (isinstance(data, np.ndarray) and data.flags.c_contiguous
                and data.flags.writeable):
            data = np.array(data, order="C", copy=True)
        comm.bcast_inplace(data, root)
        if data is not p._data:
            p.set_data(data)


def data_parallel_reducer(network, weights):
    """The gradient reducer of a training step built in DATA_PARALLEL (or HYBRID_PARALLEL)
    after ``init()``, with the network's parameters broadcast from rank 0 so every rank
    starts equal; None when training on one device."""
    from ..._context import ParallelMode
    from ...communication.management import GlobalComm
    mode = get_auto_parallel_context("parallel_mode")
    if mode not in (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL) \
            or not GlobalComm.INITED:
        return None
    broadcast_parameters(network.get_parameters())
    return DistributedGradReducer(weights, get_auto_parallel_context("gradients_mean"))
