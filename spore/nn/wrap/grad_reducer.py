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

import contextlib
import os

import numpy as np

from ..._context import get_auto_parallel_context
from ..._core import primitive as P
from ..._prims import comm as C
from ...communication import _backend
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
        step = self._step
        if step is not None or self.last_step is not None:
            self._step = None           # (Cell.__setattr__ is not free: only on a change)
            self.last_step = step
        if step is not None:
            out = step.finish(len(grads))
            if out is not None:
                return out
        return C.fused_all_reduce_p(*grads, op="sum", group=self.group,
                                    scale=self._scale(), bucket_bytes=self.bucket_bytes)

    _step = last_step = None

    def _scale(self):
        return 1.0 / self.degree if self.mean else None

    def overlap(self, weights):
        """A context for the backward pass that computes the gradients of ``weights``:
        each bucket is all-reduced (MPI's non-blocking Iallreduce) as soon as its last
        gradient is final, while the backward pass goes on; the reducer's next call waits
        for them (NOTE: [Overlapped buckets]). A no-op context where it does not apply."""
        if self._step is not None:
            self._step = None
        layout = self._layouts.get(id(weights))
        if layout is not None and layout[0] is weights and len(layout[1]) < 2:
            return _NO_OVERLAP          # one bucket: nothing to overlap it with
        from ...communication.management import group_comm
        from ..._autodiff.backward import ready_listener
        comm = group_comm(self.group)
        if not OVERLAP or P._scopes or comm.size == 1 or not weights or \
                comm.mpi is None:
            return _NO_OVERLAP
        arrays = [w._data for w in weights]
        if any(type(a) is not np.ndarray or a.dtype not in _backend.NATIVE_DTYPES
               for a in arrays):
            return _NO_OVERLAP
        if layout is None or layout[0] is not weights:
            layout = (weights, list(C._buckets(arrays, self.bucket_bytes)))
            self._layouts = {id(weights): layout}
            if len(layout[1]) < 2:
                return _NO_OVERLAP
        self._step = _OverlappedStep(comm, layout[1], len(arrays), self._scale())
        return ready_listener(weights, self._step.ready)

    _layouts = {}


# NOTE: [Overlapped buckets]
# In PyNative a data-parallel TrainOneStepCell computes its gradients under a
# ``ready_listener`` (NOTE: [Gradient-ready hooks] in spore/_autodiff/backward.py): the
# backward pass reports each weight's gradient once it is final, and the bucket it
# belongs to (the same buckets as the blocking path, ``_buckets``) is packed into one
# buffer and handed to MPI's non-blocking all-reduce (Iallreduce, in place) when its last
# gradient arrives, so the exchange of the last layers' gradients overlaps the backward
# pass through the first layers. The bucket completed by the backward pass's last report
# has nothing left to overlap with: it takes the blocking path's reduction (the shared
# window on one node, NOTE: [Shared-memory buckets]), so a model whose gradients fit
# one bucket (W4's) runs exactly as without overlap. MPI advances a non-blocking
# collective only inside MPI calls, so each later report also tests the pending requests. The reducer's call, before
# the optimizer, waits for every bucket (without spinning: ``wait_patiently``), scales by
# 1/degree when ``mean`` is set and hands out views of the buckets, as the blocking path
# does. A sum of two ranks' buffers is the same whichever side adds (addition is
# commutative), so on 2 ranks the result has the blocking path's bits; with more ranks
# MPI's algorithm decides the order of the additions, as it does for the blocking path's
# larger buckets. Under jit, with reduced-precision or non-NumPy weights, on one rank or
# with ``SPORE_OVERLAP_GRADS=0`` the blocking path runs. Where the weights' gradients make
# one bucket (W4's at the default size) there is nothing to overlap: the reducer keeps
# that answer with the layout and skips the gradient-ready hooks from then on (a walk
# over the tape's records and a report per weight: CPU for no gain).
OVERLAP = os.environ.get("SPORE_OVERLAP_GRADS", "1") != "0"
_NO_OVERLAP = contextlib.nullcontext()


class _OverlappedStep:
    """One step's buckets, each all-reduced as soon as its gradients are all final."""

    def __init__(self, comm, buckets, n, scale):
        self.comm, self.buckets, self.scale = comm, buckets, scale
        self.grads = [None] * n
        self.left = [len(b) for b in buckets]
        self.bucket_of = [0] * n
        for b, members in enumerate(buckets):
            for i in members:
                self.bucket_of[i] = b
        self.pending = []               # (bucket, flat buffer, request), in start order
        self.broken = False
        self.early = 0                  # buckets started while gradients were still due
        self.late = []                  # buckets complete only at the end of backward

    def ready(self, k, grad):
        a = grad._data
        if type(a) is not np.ndarray:   # not a NumPy array: the blocking path instead
            self.broken = True
            return
        self.grads[k] = a
        b = self.bucket_of[k]
        self.left[b] -= 1
        if self.left[b] == 0 and not self.broken:
            if any(self.left):          # gradients still due: overlap with them
                self._start(b)
                self.early += 1
            else:                       # the backward pass is over: the blocking path
                self.late.append(b)
        for _, _, request in self.pending:      # MPI progresses them only when called
            request.Test()

    def _start(self, b):
        arrays = [self.grads[i] for i in self.buckets[b]]
        n = sum(a.size for a in arrays)
        flat = self.comm.result_buffer((n,), arrays[0].dtype)
        np.concatenate([a.reshape(-1) for a in arrays], out=flat)
        self.pending.append((b, flat, self.comm.iallreduce(flat, "sum")))

    def finish(self, n):
        """The reduced gradients (Tensors), or None where the step did not run as
        planned (then nothing is pending and the caller takes the blocking path)."""
        if self.broken or n != len(self.grads) or any(self.left):
            for _, _, request in self.pending:
                request.Wait()
            return None
        outs = [None] * n
        for b, flat, request in self.pending:
            _backend.wait_patiently(request)
            if self.scale is not None:
                if flat.dtype.kind == "f":
                    np.multiply(flat, flat.dtype.type(self.scale), out=flat)
                else:
                    flat //= int(round(1 / self.scale))
            start = 0
            for i in self.buckets[b]:
                a = self.grads[i]
                outs[i] = flat[start:start + a.size].reshape(a.shape)
                start += a.size
        for b in self.late:
            C._reduce_bucket(self.comm, self.grads, self.buckets[b], "sum", self.scale, outs)
        return tuple(P.wrap(o) for o in outs)


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
