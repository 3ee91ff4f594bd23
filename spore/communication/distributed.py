"""The PyTorch-style process-group API: ``mindspore.ops``' communication functions and
``mindspore.mint.distributed`` (``init_process_group``, ``all_reduce(tensor)`` writing
into ``tensor``, ``isend``/``irecv``, the object collectives, ...).

NOTE: [In-place collectives]
MindSpore's ``ops.all_reduce(tensor)`` and its siblings write their result into the
tensors they are given and return a handle (``None`` unless ``async_op=True``);
``ops.set_comm_ops_inplace(False)`` switches the ``ops`` functions to returning
``(result, handle)`` instead, leaving the arguments alone. ``mint.distributed``'s are
always in place. One implementation serves both: ``_inplace(name)`` answers, and the
``mint.distributed`` functions (``always_inplace``) force it for their call. Results are
written through ``assign_p`` (the dispatch point's in-place write), except a plain eager
all-reduce of a contiguous tensor, which MPI reduces straight into the tensor's memory.

Collectives complete before they return (the handle of ``async_op=True`` is already
done); ``isend``/``irecv``/``batch_isend_irecv`` really start MPI's non-blocking calls,
so ranks may post them in either order, and their handle's ``wait`` completes them.
Ranks (``src``, ``dst``, ``peer``) are world ranks, turned into group ranks here.

Objects travel as JSON (never pickle, which would run code from the peer's bytes):
JSON-able values only (dict, list, str, int, float, bool, None; tuples arrive as lists,
dict keys as strings); anything else is a TypeError naming the function.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading

import numpy as np

from .._core import primitive as P
from .._prims import comm as C
from .._prims.array import assign_p
from .._tensor import Tensor
from . import management as M
from .store import TCPStore

__all__ = [
    "init_process_group", "destroy_process_group", "new_group", "get_rank", "get_world_size",
    "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
    "is_available", "is_initialized", "all_reduce", "all_gather", "all_gather_into_tensor",
    "all_gather_into_tensor_uneven", "reduce_scatter", "reduce_scatter_tensor",
    "reduce_scatter_tensor_uneven", "reduce", "broadcast", "barrier", "send", "recv",
    "isend", "irecv", "P2POp", "batch_isend_irecv", "all_to_all", "all_to_all_single",
    "gather_into_tensor", "scatter_tensor", "gather", "scatter", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list",
    "recv_object_list", "set_comm_ops_inplace", "CommHandle", "TCPStore"]

logger = logging.getLogger("spore")

# the functions ``set_comm_ops_inplace`` switches (MindSpore's list)
COMM_FUNCS = (
    "all_reduce", "all_gather_into_tensor", "all_gather_into_tensor_uneven", "all_to_all",
    "all_to_all_single", "all_gather", "reduce_scatter_tensor",
    "reduce_scatter_tensor_uneven", "reduce_scatter", "barrier", "broadcast", "reduce",
    "isend", "irecv", "send", "recv", "batch_isend_irecv", "all_gather_object",
    "broadcast_object_list", "gather_object", "scatter_object_list", "send_object_list",
    "recv_object_list", "gather_into_tensor", "scatter_tensor")
_INPLACE = dict.fromkeys(COMM_FUNCS, True)
_tls = threading.local()

_REDUCE_OPS = ("sum", "prod", "min", "max", "avg")


def _inplace(name):
    """Whether ``name`` writes into its arguments (NOTE: [In-place collectives])."""
    return getattr(_tls, "forced", 0) > 0 or _INPLACE.get(name, True)


def always_inplace(fn):
    """``fn`` with its in-place behaviour forced on (``mint.distributed``)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        _tls.forced = getattr(_tls, "forced", 0) + 1
        try:
            return fn(*args, **kwargs)
        finally:
            _tls.forced -= 1
    return call


def set_comm_ops_inplace(is_enable, func_list=None):
    """Make the ``ops`` communication functions (all, or those of ``func_list``) write
    into their arguments (True, the default) or return ``(result, handle)`` (False)."""
    if not isinstance(is_enable, bool):
        raise TypeError("For 'set_comm_ops_inplace', the argument 'is_enable' must be type "
                        f"of bool, but got 'is_enable' type : {type(is_enable)}.")
    if func_list is None:
        func_list = COMM_FUNCS
    elif not isinstance(func_list, (list, tuple)):
        raise TypeError(f"Expected list or tuple, but got {type(func_list)}.")
    for name in func_list:
        if name not in _INPLACE:
            raise ValueError(f"The function name in `func_list` must be correct, but got "
                             f"{name}.")
        _INPLACE[name] = is_enable
    global _last_in_place
    _last_in_place = _NO_LAST       # all_reduce's shortcut follows the new setting


class CommHandle:
    """The handle of a communication call; ``wait`` completes it (a collective has
    completed already; ``isend``/``irecv`` finish here)."""

    def __init__(self, requests=(), finish=None):
        self._requests = list(requests)
        self._finish = finish

    def wait(self):
        for r in self._requests:
            r.Wait()
        self._requests = []
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def is_completed(self):
        return not self._requests or all(r.Test() for r in self._requests)


def _handle(async_op):
    return CommHandle() if async_op else None


# ----------------------------------------------------------------- argument checks
def _group(fn, group):
    if group is None:
        return M.GlobalComm.WORLD_COMM_GROUP
    if not isinstance(group, str):
        raise TypeError(f"For {fn}, the argument 'group' must be type of string, but got "
                        f"'group' type : {type(group)}.")
    if group not in M._groups:          # before init, or an unknown name: say which call
        try:
            M.group_comm(group)
        except (RuntimeError, ValueError) as e:
            raise type(e)(f"For {fn}, {e}") from None
    return group


def _tensor(fn, x, what="input tensor"):
    if not isinstance(x, Tensor):
        raise TypeError(f"For {fn}, the {what} must be tensor, but got {type(x)}.")
    return x


def _check_async(fn, async_op):
    if not isinstance(async_op, bool):
        raise TypeError(f"For {fn}, the argument 'async_op' must be a bool, but got "
                        f"{type(async_op)}.")


def _checked(fn, tensor, group, async_op):
    """The checks every tensor collective makes: ``(group name, its Comm)``."""
    _tensor(fn, tensor)
    group = _group(fn, group)
    _check_async(fn, async_op)
    return group, M.group_comm(group)


def _check_op(fn, op):
    if not isinstance(op, str):
        raise TypeError(f"For {fn}, the input op type must be str")
    if op not in _REDUCE_OPS:
        raise TypeError(f"For {fn}, the input op value must be one of sum, prod, min, max, avg")
    return op


def _int(fn, what, v):
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError(f"For {fn}, the {what} must be int, but got {type(v)}.")
    return v


def _group_rank(fn, what, world_rank, group):
    """``world_rank`` (a world rank) as a rank of ``group``."""
    return M.get_group_rank_from_world_rank(_int(fn, what, world_rank), group)


def _check_shape(fn, out, shape):
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"For {fn}, the output tensor's shape must be {tuple(shape)}, but got "
                         f"{tuple(out.shape)}.")


def _check_dtype(fn, out, x):
    if out.dtype != x.dtype:
        raise TypeError(f"For {fn}, the output tensor must have the input's dtype {x.dtype}, "
                        f"but got {out.dtype}.")


def _array(x):
    return np.asarray(x._data)


def _avg(result, comm):
    """The sum divided by the group size (``op="avg"``), in the input's dtype."""
    a = result._data
    if a.dtype.kind in "iu":
        return P.wrap(a // comm.size)
    return P.wrap((a / comm.size).astype(a.dtype))


def _finish(name, pairs, result, async_op):
    """In place: write each ``(tensor, value)`` pair and return the handle; else
    ``(result, handle)`` (NOTE: [In-place collectives])."""
    if _inplace(name):
        for dst, value in pairs:
            assign_p(dst, value)
        return _handle(async_op)
    return result, _handle(async_op)


# ----------------------------------------------------------------- process groups
def is_available():
    """Whether the distributed module is usable: always (one rank alone, MPI under a
    launcher: NOTE: [Communication backend])."""
    return True


def is_initialized():
    """Whether ``init_process_group`` (or ``communication.init``) has run."""
    return M.GlobalComm.INITED


def init_process_group(backend="hccl", init_method=None, timeout=None, world_size=-1,
                       rank=-1, store=None, group_name="", pg_options=None, device_id=None):
    """Join the job the launcher started (``communication.init``). MindSpore accepts only
    ``backend="hccl"``; Spore runs it on MPI. The rendezvous is MPI's launcher, so
    ``init_method`` and ``store`` are refused."""
    fn = "init_process_group"
    if backend != "hccl":
        raise ValueError(f"For {fn}, only support hccl now, please setting backend to hccl or "
                         "using default value")
    for what, v in (("world_size", world_size), ("rank", rank)):
        _int(fn, what, v)
    if not isinstance(group_name, str):
        raise TypeError(f"For {fn}, 'group_name' must be a str, but got {type(group_name)}.")
    if init_method is not None or store is not None:
        raise NotImplementedError(
            "For init_process_group, Spore's job is started by an MPI launcher (msrun, "
            "mpirun), which is the rendezvous: 'init_method' and 'store' are not supported.")
    if pg_options is not None or device_id is not None:
        logger.warning("init_process_group: pg_options and device_id are ignored")
    M.init(backend)
    size = M.get_group_size(_group(fn, group_name)) if group_name else M.get_group_size()
    if world_size not in (-1, size):
        raise ValueError(f"For init_process_group, 'world_size' is wrong: the job has {size} "
                         f"ranks, but got {world_size}.")
    if rank not in (-1, M.get_rank()):
        raise ValueError(f"For init_process_group, 'rank' is wrong: this process is rank "
                         f"{M.get_rank()}, but got {rank}.")


def destroy_process_group(group=None):
    """Free ``group``; the world group (or None) ends the job's communication."""
    if group is None or group in M._backend.WORLD_NAMES:
        M.release()
    elif not isinstance(group, str):
        raise TypeError("For 'destroy_process_group', the argument 'group' must be type of "
                        f"string or None, but got 'group' type : {type(group)}.")
    else:
        M.destroy_group(_group("destroy_process_group", group))


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None):
    """A group over the world ranks ``ranks`` (the world group for None), named as
    MindSpore names it; every rank of ``ranks`` calls it. A rank outside ``ranks`` gets
    ``""``."""
    if ranks is None:
        return M.GlobalComm.WORLD_COMM_GROUP
    if not isinstance(ranks, list):
        raise TypeError(f"For new_group, ranks must be list, but got {type(ranks)}")
    ranks = sorted(ranks)
    backend = "hccl" if backend is None else backend
    if not isinstance(backend, str) or backend not in ("hccl", "mccl"):
        raise TypeError(f"For new_group, the input backend must be hccl or mccl, but got "
                        f"{backend}")
    name = f"{backend}_{len(ranks)}_" + hashlib.sha1(
        "_".join(map(str, ranks)).encode()).hexdigest()
    if name in M._groups:
        return name
    if M.get_rank() not in ranks:
        logger.warning("new_group: rank %d is not in %s", M.get_rank(), ranks)
        return ""
    M.create_group(name, ranks, pg_options)
    return name


def _or_minus_one(name, fn, group):
    group = _group(name, group)
    try:
        return fn(group)
    except (RuntimeError, ValueError) as e:
        logger.warning("%s", e)
        return -1


def get_rank(group=None):
    """This process's rank in ``group`` (-1 when it is not in it or before init)."""
    return _or_minus_one("get_rank", M.get_rank, group)


def get_world_size(group=None):
    """The number of ranks of ``group`` (-1 when unavailable)."""
    return _or_minus_one("get_world_size", M.get_group_size, group)


def get_backend(group=None):
    """The backend name MindSpore reports: ``"hccl"`` for the default group."""
    if group is None:
        return "hccl"
    if not isinstance(group, str):
        raise TypeError("For 'get_backend', the argument 'group' must be type of string or "
                        f"None, but got 'group' type : {type(group)}.")
    for name in ("hccl", "mccl"):
        if name in group:
            return name
    return M.GlobalComm.BACKEND


def get_global_rank(group, group_rank):
    """The world rank of rank ``group_rank`` of ``group``."""
    _int("get_global_rank", "group_rank", group_rank)
    if group is None:
        return group_rank
    return M.get_world_rank_from_group_rank(_group("get_global_rank", group), group_rank)


def get_group_rank(group, global_rank):
    """The rank in ``group`` of world rank ``global_rank``."""
    _int("get_group_rank", "global_rank", global_rank)
    return M.get_group_rank_from_world_rank(global_rank, _group("get_group_rank", group))


def get_process_group_ranks(group=None):
    """The world ranks of ``group``."""
    return M.get_process_group_ranks(_group("get_process_group_ranks", group))


# ----------------------------------------------------------------- collectives
def all_reduce(tensor, op="sum", group=None, async_op=False):
    """``op`` (sum, prod, min, max, avg) over every rank's ``tensor``."""
    last = _last_in_place           # NOTE: [Eager all-reduce]: the arguments of last time
    if op is last[0] and group is last[1] and async_op is False and last[2](tensor):
        return None
    if async_op is False and _INPLACE["all_reduce"]:
        try:
            lean = _lean_in_place[op, group]
        except (KeyError, TypeError):   # not seen yet (or unhashable): the checked path
            lean = None
        if lean is not None and lean(tensor):
            _remember_in_place(op, group, lean)
            return None
    fn = "all_reduce"
    _tensor(fn, tensor)
    _check_op(fn, op)
    name = _group(fn, group)
    _check_async(fn, async_op)
    comm = M.group_comm(name)
    if _inplace(fn) and op != "avg":
        lean = _lean_in_place[op, group] = C.lean_all_reduce_inplace(op, name)
        if lean(tensor):
            if async_op is False and _INPLACE["all_reduce"]:
                _remember_in_place(op, group, lean)
            return _handle(async_op)
    out = C.all_reduce_p(tensor, op="sum" if op == "avg" else op, group=name)
    if op == "avg":
        out = _avg(out, comm)
    return _finish(fn, [(tensor, out)], out, async_op)


_lean_in_place = {}     # (op, group argument) -> C.lean_all_reduce_inplace, both checked
_NO_LAST = (object(), object(), None)
_last_in_place = _NO_LAST   # (op, group, lean) of the last in-place call, tested by identity


def _remember_in_place(op, group, lean):
    """Let the next ``all_reduce`` with these very ``op`` and ``group`` objects go
    straight to ``lean`` (set only while ``all_reduce`` is in place without forcing:
    ``set_comm_ops_inplace`` forgets it)."""
    global _last_in_place
    _last_in_place = (op, group, lean)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` concatenated on axis 0, into ``output_tensor``."""
    _tensor("all_gather_into_tensor", input_tensor)
    group = _group("all_gather_into_tensor", group)
    _check_async("all_gather_into_tensor", async_op)
    out = C.all_gather_p(input_tensor, group=group)
    if _inplace("all_gather_into_tensor"):
        _tensor("all_gather_into_tensor", output_tensor, "output tensor")
        _check_shape("all_gather_into_tensor", output_tensor, out.shape)
    return _finish("all_gather_into_tensor", [(output_tensor, out)], out, async_op)


def _rows(x):
    """The elements of one row (axis 0) of ``x``."""
    return int(np.prod(x.shape[1:], dtype=np.int64)) if len(x.shape) else 1


def _split_sizes(fn, what, sizes, total, n):
    """The first-dimension sizes per rank: ``sizes`` checked, or ``total`` split evenly."""
    if sizes is None or (isinstance(sizes, (list, tuple)) and not sizes):
        if total % n:
            raise ValueError(f"For {fn}, the first dimension {total} must be divisible by the "
                             f"group size {n} when '{what}' is not given.")
        return (total // n,) * n
    sizes = C._sizes(fn, sizes, n, what)
    if sum(sizes) != total:
        raise ValueError(f"For {fn}, '{what}' must add up to {total}, but got {list(sizes)}.")
    return sizes


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None,
                                  async_op=False):
    """Every rank's ``input`` (first dimensions ``output_split_sizes``, which default to
    an even split of ``output``'s) concatenated on axis 0, into ``output``."""
    fn = "all_gather_into_tensor_uneven"
    _tensor(fn, output, "output tensor")
    group, comm = _checked(fn, input, group, async_op)
    sizes = _split_sizes(fn, "output_split_sizes", output_split_sizes, output.shape[0],
                         comm.size)
    row = _rows(output)
    out = C.all_gather_v_p(input.reshape(-1), sizes=tuple(s * row for s in sizes),
                           group=group).reshape(output.shape)
    return _finish(fn, [(output, out)], out, async_op)


def _reduce_scatter(fn, x, op, group):
    comm = M.group_comm(group)
    out = C.reduce_scatter_p(x, op="sum" if op == "avg" else op, group=group)
    return _avg(out, comm) if op == "avg" else out


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """``op`` over every rank's ``input``; rank r gets the r-th block of axis 0."""
    fn = "reduce_scatter_tensor"
    _tensor(fn, input)
    _check_op(fn, op)
    group = _group("reduce_scatter_tensor", group)
    _check_async("reduce_scatter_tensor", async_op)
    out = _reduce_scatter(fn, input, op, group)
    if _inplace(fn):
        _tensor(fn, output, "output tensor")
        _check_shape(fn, output, out.shape)
    return _finish(fn, [(output, out)], out, async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum", group=None,
                                 async_op=False):
    """``op`` over every rank's ``input``; rank r gets ``input_split_sizes[r]`` rows."""
    fn = "reduce_scatter_tensor_uneven"
    _tensor(fn, output, "output tensor")
    _check_op(fn, op)
    group, comm = _checked(fn, input, group, async_op)
    sizes = _split_sizes(fn, "input_split_sizes", input_split_sizes, input.shape[0],
                         comm.size)
    row = _rows(input)
    out = C.reduce_scatter_v_p(input.reshape(-1), sizes=tuple(s * row for s in sizes),
                               op="sum" if op == "avg" else op, group=group)
    out = out.reshape((sizes[comm.rank],) + tuple(input.shape[1:]))
    if op == "avg":
        out = _avg(out, comm)
    return _finish(fn, [(output, out)], out, async_op)


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """``op`` over every rank's ``tensor``, into world rank ``dst``'s ``tensor`` (the
    others' are left as they are)."""
    fn = "reduce"
    _check_op(fn, op)
    group, comm, root = _rooted(fn, tensor, "dst", dst, group, async_op)
    out = C.reduce_p(tensor, root=root, op="sum" if op == "avg" else op, group=group)
    if comm.rank != root:
        return _finish(fn, [], out, async_op)
    if op == "avg":
        out = _avg(out, comm)
    return _finish(fn, [(tensor, out)], out, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """World rank ``src``'s ``tensor`` into every rank's ``tensor``."""
    _tensor("broadcast", tensor)
    group = _group("broadcast", group)
    _check_async("broadcast", async_op)
    root = _group_rank("broadcast", "src", src, group)
    out = C.broadcast_p(tensor, root=root, group=group)
    return _finish("broadcast", [(tensor, out)], out, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Waits until every rank of ``group`` reaches it."""
    _check_async("barrier", async_op)
    C.barrier_p(group=_group("barrier", group))
    return _handle(async_op)


def send(tensor, dst=0, group=None, tag=0):
    """Sends ``tensor`` to world rank ``dst`` (which calls ``recv``)."""
    _tensor("send", tensor)
    group = _group("send", group)
    C.send_p(tensor, dst=_group_rank("send", "dst", dst, group), group=group, tag=tag)


def recv(tensor, src=0, group=None, tag=0):
    """Receives from world rank ``src`` into ``tensor`` (returns 0); not in place, the
    received tensor."""
    _tensor("recv", tensor)
    group = _group("recv", group)
    out = C.receive_p(src=_group_rank("recv", "src", src, group), shape=tuple(tensor.shape),
                      dtype=np.asarray(tensor._data).dtype, group=group, tag=tag)
    if _inplace("recv"):
        assign_p(tensor, out)
        return 0
    return out


def _contiguous(tensor):
    """A contiguous copy of ``tensor``'s values that MPI may read until the wait."""
    return np.array(_array(tensor), order="C", copy=True)


def isend(tensor, dst=0, group=None, tag=0):
    """Starts sending ``tensor`` to world rank ``dst``; the handle's ``wait`` completes it."""
    _tensor("isend", tensor)
    group = _group("isend", group)
    comm = M.group_comm(group)
    a = _contiguous(tensor)
    request = comm.isend(a, _group_rank("isend", "dst", dst, group), tag)
    return CommHandle([request], finish=lambda: a)


def irecv(tensor, src=0, group=None, tag=0):
    """Starts receiving from world rank ``src``; the handle's ``wait`` completes it and
    writes ``tensor`` (not in place: ``(tensor received after the wait, handle)``)."""
    _tensor("irecv", tensor)
    group = _group("irecv", group)
    comm = M.group_comm(group)
    a = np.empty(tuple(tensor.shape), _array(tensor).dtype)
    request = comm.irecv(a, _group_rank("irecv", "src", src, group), tag)
    if _inplace("irecv"):
        return CommHandle([request], finish=lambda: assign_p(tensor, P.wrap(a)))
    out = P.wrap(a)
    return out, CommHandle([request])


class P2POp:
    """One point-to-point operation of ``batch_isend_irecv``: ``op`` is ``isend`` or
    ``irecv`` (the function or its name), ``peer`` a world rank."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        name = op if isinstance(op, str) else getattr(op, "__name__", None)
        if name not in ("isend", "irecv") or not isinstance(op, str) and getattr(
                op, "__wrapped__", op) not in (isend, irecv):
            raise TypeError(f"Expected op to be of type isend or irecv, but got {op}")
        _tensor("P2POp", tensor)
        _int("P2POp", "peer", peer)
        if tag != 0:
            raise NotImplementedError("tag is not support yet.")
        self.op, self.tensor, self.peer, self.group, self.tag = op, tensor, peer, group, tag

    @property
    def kind(self):
        return self.op if isinstance(self.op, str) else self.op.__name__


def batch_isend_irecv(p2p_op_list):
    """Starts every operation of ``p2p_op_list`` (one group); returns ``[handle]`` whose
    ``wait`` completes them all and writes the received tensors."""
    if not isinstance(p2p_op_list, (list, tuple)) or not p2p_op_list:
        raise TypeError("For batch_isend_irecv, p2p_op_list must be a non-empty list of "
                        f"P2POp, but got {p2p_op_list!r}.")
    if any(not isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("For batch_isend_irecv, the elements in p2p_op_list must be type of "
                        "P2POp.")
    group = p2p_op_list[0].group
    if any(p.group != group for p in p2p_op_list):
        raise TypeError("For batch_isend_irecv, the group name in p2p_op_list must be "
                        "consistent.")
    group = _group("batch_isend_irecv", group)
    comm = M.group_comm(group)
    requests, keep, received = [], [], []
    for p in p2p_op_list:
        peer = M.get_group_rank_from_world_rank(p.peer, group)
        if p.kind == "isend":
            a = _contiguous(p.tensor)
            keep.append(a)
            requests.append(comm.isend(a, peer, p.tag))
        else:
            a = np.empty(tuple(p.tensor.shape), _array(p.tensor).dtype)
            received.append((p.tensor, a))
            requests.append(comm.irecv(a, peer, p.tag))

    def finish():
        keep.clear()
        for t, a in received:
            assign_p(t, P.wrap(a))
    return [CommHandle(requests, finish)]


def _flat_cat(tensors):
    arrays = [_array(t).reshape(-1) for t in tensors]
    return np.concatenate(arrays) if arrays else np.empty(0, np.float32)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank r's ``input_tensor_list[j]`` goes to rank j's ``output_tensor_list[r]`` (not
    in place, the output list may hold shapes)."""
    fn = "all_to_all"
    group = _group("all_to_all", group)
    _check_async("all_to_all", async_op)
    comm = M.group_comm(group)
    for what, lst in (("input_tensor_list", input_tensor_list),
                      ("output_tensor_list", output_tensor_list)):
        if not isinstance(lst, (list, tuple)) or len(lst) != comm.size:
            raise ValueError(f"For {fn}, '{what}' must be a list of {comm.size} items (the "
                             f"group size), but got {lst!r}.")
    for t in input_tensor_list:
        _tensor(fn, t)
    dtype = _array(input_tensor_list[0]).dtype
    shapes = [tuple(t.shape) if isinstance(t, Tensor) else tuple(t) for t in output_tensor_list]
    if _inplace(fn):
        for t in output_tensor_list:
            _tensor(fn, t, "output tensor")
    recv = tuple(int(np.prod(s, dtype=np.int64)) for s in shapes)
    send_ = tuple(int(np.prod(t.shape, dtype=np.int64)) for t in input_tensor_list)
    flat = C.all_to_all_v_p(P.wrap(_flat_cat(input_tensor_list).astype(dtype)), send=send_,
                            recv=recv, group=group)
    outs, start = [], 0
    for shape, count in zip(shapes, recv):
        outs.append(flat[start:start + count].reshape(shape))
        start += count
    return _finish(fn, list(zip(output_tensor_list, outs)), tuple(outs), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rank r's ``input`` split on axis 0 by ``input_split_sizes`` (piece j to rank j);
    ``output`` gets the pieces received, ``output_split_sizes[j]`` rows from rank j."""
    fn = "all_to_all_single"
    group, comm = _checked(fn, input, group, async_op)
    if not isinstance(output, (Tensor, list, tuple)):
        raise TypeError(f"For {fn}, 'output' must be a Tensor (or, not in place, a shape), "
                        f"but got {type(output)}.")
    out_shape = tuple(output.shape) if isinstance(output, Tensor) else tuple(output)
    sizes_in = _split_sizes(fn, "input_split_sizes", input_split_sizes, input.shape[0],
                            comm.size)
    sizes_out = _split_sizes(fn, "output_split_sizes", output_split_sizes, out_shape[0],
                             comm.size)
    row = _rows(input)
    out = C.all_to_all_v_p(input.reshape(-1), send=tuple(s * row for s in sizes_in),
                           recv=tuple(s * row for s in sizes_out), group=group)
    out = out.reshape(out_shape)
    if _inplace(fn):
        _tensor(fn, output, "output tensor")
    return _finish(fn, [(output, out)], out, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor`` into ``tensor_list`` (one per rank, in rank order)."""
    fn = "all_gather"
    group, comm = _checked(fn, tensor, group, async_op)
    gathered = C.all_gather_p(tensor.reshape((1,) + tuple(tensor.shape)), group=group)
    outs = tuple(gathered[r] for r in range(comm.size))
    if _inplace(fn):
        if not isinstance(tensor_list, list) or len(tensor_list) != comm.size:
            raise TypeError(f"For {fn}, 'tensor_list' must be a list of {comm.size} tensors.")
        for t in tensor_list:
            _tensor(fn, t, "tensor_list item")
            _check_shape(fn, t, tensor.shape)
    return _finish(fn, list(zip(tensor_list or (), outs)), outs, async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """``op`` over every rank's ``input_list``; rank r gets the reduction of the r-th
    items, into ``output``."""
    fn = "reduce_scatter"
    _check_op(fn, op)
    group = _group("reduce_scatter", group)
    _check_async("reduce_scatter", async_op)
    comm = M.group_comm(group)
    if not isinstance(input_list, (list, tuple)) or len(input_list) != comm.size:
        raise TypeError(f"For {fn}, 'input_list' must be a list of {comm.size} tensors.")
    for t in input_list:
        _tensor(fn, t)
    shape = tuple(input_list[0].shape)
    stacked = P.wrap(np.stack([_array(t) for t in input_list]))
    out = _reduce_scatter(fn, stacked, op, group).reshape(shape)
    if _inplace(fn):
        _tensor(fn, output, "output tensor")
        _check_shape(fn, output, shape)
    return _finish(fn, [(output, out)], out, async_op)


def _rooted(fn, tensor, what, rank, group, async_op):
    """The checks of a rooted collective: ``(group name, its Comm, the root's rank in
    the group)``; ``rank`` (argument ``what``) is a world rank."""
    group, comm = _checked(fn, tensor, group, async_op)
    return group, comm, _group_rank(fn, what, rank, group)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """Every rank's ``input_tensor`` concatenated on axis 0, into world rank ``dst``'s
    ``output_tensor``."""
    fn = "gather_into_tensor"
    group, comm, root = _rooted(fn, input_tensor, "dst", dst, group, async_op)
    out = C.collective_gather_p(input_tensor, root=root, group=group)
    if comm.rank != root:
        return _finish(fn, [], out, async_op)
    if _inplace(fn):
        _tensor(fn, output_tensor, "output tensor")
        _check_shape(fn, output_tensor, out.shape)
    return _finish(fn, [(output_tensor, out)], out, async_op)


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """World rank ``src``'s ``input_tensor`` split evenly on axis 0: rank r's piece into
    its ``output_tensor``."""
    fn = "scatter_tensor"
    group, _, root = _rooted(fn, input_tensor, "src", src, group, async_op)
    out = C.collective_scatter_p(input_tensor, root=root, group=group)
    if _inplace(fn):
        _tensor(fn, output_tensor, "output tensor")
        _check_shape(fn, output_tensor, out.shape)
    return _finish(fn, [(output_tensor, out)], out, async_op)


def gather(tensor, gather_list, dst=0, group=None, async_op=False):
    """Every rank's ``tensor`` into world rank ``dst``'s ``gather_list`` (one per rank)."""
    fn = "gather"
    group, comm, root = _rooted(fn, tensor, "dst", dst, group, async_op)
    out = C.collective_gather_p(tensor.reshape((1,) + tuple(tensor.shape)), root=root,
                                group=group)
    if comm.rank != root:
        return _handle(async_op)
    if not isinstance(gather_list, list) or len(gather_list) != comm.size:
        raise TypeError(f"For {fn}, 'gather_list' must be a list of {comm.size} tensors on "
                        f"the destination rank.")
    for r, t in enumerate(gather_list):
        _tensor(fn, t, "gather_list item")
        assign_p(t, out[r])
    return _handle(async_op)


def scatter(tensor, scatter_list, src=0, group=None, async_op=False):
    """World rank ``src``'s ``scatter_list[r]`` into rank r's ``tensor``."""
    fn = "scatter"
    group, comm, root = _rooted(fn, tensor, "src", src, group, async_op)
    dtype = _array(tensor).dtype
    if comm.rank == root:
        if not isinstance(scatter_list, list) or len(scatter_list) != comm.size:
            raise TypeError(f"For {fn}, 'scatter_list' must be a list of {comm.size} tensors "
                            f"on the source rank.")
        for t in scatter_list:
            _tensor(fn, t, "scatter_list item")
            _check_shape(fn, t, tensor.shape)
        whole = np.stack([_array(t).astype(dtype) for t in scatter_list])
    else:
        whole = np.empty((comm.size,) + tuple(tensor.shape), dtype)
    out = C.collective_scatter_p(P.wrap(whole), root=root, group=group)
    assign_p(tensor, out.reshape(tuple(tensor.shape)))
    return _handle(async_op)


# ----------------------------------------------------------------- objects (as JSON)
def _encode(fn, obj):
    try:
        text = json.dumps(obj, allow_nan=True)
    except (TypeError, ValueError) as e:
        raise TypeError(f"For {fn}, Spore exchanges objects as JSON (never pickle): the "
                        f"object must be JSON-serialisable (dict, list, str, int, float, "
                        f"bool, None), but {e}") from None
    return np.frombuffer(text.encode("utf-8"), np.uint8)


def _decode(data):
    return json.loads(bytes(np.asarray(data, np.uint8)).decode("utf-8"))


def _gather_bytes(comm, data, root=None):
    """Every rank's byte array, to every rank (``root`` None) or to ``root`` (others get
    None): the lengths first, then the bytes."""
    lengths = comm.allgather(np.array([data.size], np.int64))
    counts = tuple(int(n) for n in lengths)
    if root is None:
        flat = comm.allgatherv(data, counts)
    else:
        flat = comm.gatherv(data, root, counts)
        if flat is None:
            return None
    starts = np.concatenate([[0], np.cumsum(counts)])
    return [flat[starts[r]:starts[r + 1]] for r in range(comm.size)]


def _check_list(fn, what, lst):
    if not isinstance(lst, list):
        raise TypeError(f"For {fn}, the {what} must be a list")


def all_gather_object(object_list, obj, group=None):
    """Every rank's ``obj`` into ``object_list`` (one per rank, JSON-able objects)."""
    fn = "all_gather_object"
    _check_list(fn, "object_list", object_list)
    comm = M.group_comm(_group("all_gather_object", group))
    if len(object_list) != comm.size:
        raise TypeError(f"For {fn}, the object_list must have {comm.size} items (the group "
                        f"size), but got {len(object_list)}.")
    for r, data in enumerate(_gather_bytes(comm, _encode(fn, obj))):
        object_list[r] = _decode(data)


def gather_object(obj, object_gather_list=None, dst=0, group=None):
    """Every rank's ``obj`` into world rank ``dst``'s ``object_gather_list``."""
    fn = "gather_object"
    group = _group("gather_object", group)
    comm = M.group_comm(group)
    root = _group_rank(fn, "dst", dst, group)
    if comm.rank == root:
        _check_list(fn, "object_gather_list", object_gather_list)
        if len(object_gather_list) != comm.size:
            raise TypeError(f"For {fn}, the object_gather_list must have {comm.size} items on "
                            f"the destination rank.")
    pieces = _gather_bytes(comm, _encode(fn, obj), root)
    if pieces is not None:
        for r, data in enumerate(pieces):
            object_gather_list[r] = _decode(data)


def _bcast_bytes(comm, data, root):
    n = comm.bcast(np.array([0 if data is None else data.size], np.int64), root)
    buf = data if comm.rank == root else np.empty(int(n[0]), np.uint8)
    return comm.bcast(buf, root)


def broadcast_object_list(object_list, src=0, group=None, device=None):
    """World rank ``src``'s ``object_list`` items into every rank's ``object_list``."""
    fn = "broadcast_object_list"
    _check_list(fn, "object_list", object_list)
    group = _group("broadcast_object_list", group)
    comm = M.group_comm(group)
    root = _group_rank(fn, "src", src, group)
    data = _encode(fn, object_list) if comm.rank == root else None
    items = _decode(_bcast_bytes(comm, data, root))
    if comm.rank != root:
        object_list[:len(items)] = items


def scatter_object_list(scatter_object_output_list, scatter_object_input_list, src=0,
                        group=None):
    """World rank ``src``'s ``scatter_object_input_list[r]`` into rank r's
    ``scatter_object_output_list[0]``."""
    fn = "scatter_object_list"
    _check_list(fn, "scatter_object_output_list", scatter_object_output_list)
    if not scatter_object_output_list:
        raise TypeError(f"For {fn}, the scatter_object_output_list must not be empty")
    group = _group("scatter_object_list", group)
    comm = M.group_comm(group)
    root = _group_rank(fn, "src", src, group)
    counts = (0,) * comm.size
    data = None
    if comm.rank == root:
        _check_list(fn, "scatter_object_input_list", scatter_object_input_list)
        if len(scatter_object_input_list) != comm.size:
            raise TypeError(f"For {fn}, the scatter_object_input_list must have {comm.size} "
                            f"items on the source rank.")
        pieces = [_encode(fn, o) for o in scatter_object_input_list]
        counts = tuple(p.size for p in pieces)
        data = np.concatenate(pieces)
    counts = tuple(int(c) for c in comm.bcast(np.array(counts, np.int64), root))
    scatter_object_output_list[0] = _decode(comm.scatterv(data, root, counts, np.uint8))


def send_object_list(object_list, dst, group=None, device=None):
    """Sends ``object_list``'s items (JSON-able) to world rank ``dst``."""
    fn = "send_object_list"
    _check_list(fn, "object_list", object_list)
    group = _group("send_object_list", group)
    comm = M.group_comm(group)
    peer = _group_rank(fn, "dst", dst, group)
    if peer == comm.rank:
        raise ValueError("Invalid destination rank: destination rank should not be the same "
                         "as the rank of the current process.")
    data = _encode(fn, list(object_list))
    comm.send(np.array([data.size], np.int64), peer, 0)
    comm.send(data, peer, 0)


def recv_object_list(object_list, src=0, group=None, device=None):
    """Receives world rank ``src``'s ``send_object_list`` into ``object_list``; 0."""
    fn = "recv_object_list"
    _check_list(fn, "object_list", object_list)
    group = _group("recv_object_list", group)
    comm = M.group_comm(group)
    peer = _group_rank(fn, "src", src, group)
    n = comm.recv((1,), np.dtype(np.int64), peer, 0)
    items = _decode(comm.recv((int(n[0]),), np.dtype(np.uint8), peer, 0))
    object_list[:len(items)] = items
    return 0

