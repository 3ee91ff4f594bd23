"""``mindspore.communication``: start the job, ranks, group sizes, groups.

``init()`` joins the MPI job the launcher started (``msrun``, ``mpirun``); started
alone it is a job of one rank (see NOTE: [Communication backend]). Groups are named;
the world group answers to MindSpore's three names (``hccl_world_group``,
``nccl_world_group``, ``mccl_world_group``).
"""
from __future__ import annotations

import os
import sys
import time

from . import _backend

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"

_BACKENDS = ("hccl", "nccl", "mccl")


class GlobalComm:
    """The communication state MindSpore exposes: backend, world group name, whether
    ``init`` ran."""
    BACKEND = "hccl"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False
    CHECK_ENVS = True


_groups = {}        # group name -> Comm (the world under each of its names)
_world = None


def init(backend_name=None):
    """Join the job: MPI under a launcher, one rank alone. ``backend_name`` takes
    MindSpore's names (``"hccl"``, ``"nccl"``, ``"mccl"``); on Spore each means MPI."""
    global _world
    if backend_name is not None and not isinstance(backend_name, str):
        raise TypeError("For 'init', the argument 'backend_name' must be a string, but got "
                        f"the type : {type(backend_name)}")
    if backend_name is not None and backend_name not in _BACKENDS:
        raise RuntimeError("For 'init', the argument 'backend_name' must be one of 'hccl', "
                           f"'nccl' and 'mccl', but got 'backend_name' : {backend_name}")
    if _world is not None:
        return
    _world = _backend.start()
    for name in _backend.WORLD_NAMES:
        _groups[name] = _world
    _groups_changed()
    if backend_name in ("hccl", "nccl") and _world.rank == 0:
        print(f"[spore] init: backend '{backend_name}' runs as MPI on the CPU", file=sys.stderr)
    GlobalComm.BACKEND = "mccl"
    GlobalComm.WORLD_COMM_GROUP = MCCL_WORLD_COMM_GROUP
    GlobalComm.INITED = True
    from .._context import _auto_parallel_defaults_from_world
    _auto_parallel_defaults_from_world(_world.rank, _world.size)


def release():
    """Leave the job: free the groups made by ``create_group``, the gradient buckets'
    shared window and the pooled result buffers (MPI itself ends at exit). Collective,
    like MindSpore's: every rank calls it."""
    global _world
    for name, comm in list(_groups.items()):
        if comm is not _world:
            comm.free()
    if _world is not None:
        _world.free_shared()
    _groups.clear()
    _groups_changed()
    _backend.POOL.clear()
    _world = None
    GlobalComm.INITED = False


def group_comm(group):
    """The Comm of ``group`` (a name); clear errors before ``init`` or for unknown names."""
    if not isinstance(group, str):
        raise TypeError(f"The type of communication group name must be type of string, but got "
                        f"'group' type : {type(group)}.")
    comm = _groups.get(group)
    if comm is None:
        if _world is None:
            raise RuntimeError("spore.communication: call init() before using communication "
                               f"group '{group}' (init() outside a launcher runs one rank).")
        raise ValueError(f"spore.communication: the communication group '{group}' does not "
                         f"exist; create it with create_group (known: {sorted(_groups)}).")
    return comm


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in ``group``."""
    return group_comm(group).rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in ``group``."""
    return group_comm(group).size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank among the ranks of its host."""
    _world_only(group, "get_local_rank")
    return group_comm(group).local_rank


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks on this process's host."""
    _world_only(group, "get_local_rank_size")
    return group_comm(group).local_size


def _world_only(group, fn):
    if isinstance(group, str) and group in _groups and group not in _backend.WORLD_NAMES:
        raise ValueError(f"For '{fn}', only the world group is supported, but got group "
                         f"'{group}'.")


def get_world_rank_from_group_rank(group, group_rank_id):
    """The world rank of rank ``group_rank_id`` of ``group``."""
    ranks = group_comm(group).world_ranks
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"For 'get_world_rank_from_group_rank', 'group_rank_id' must be in "
                         f"[0, {len(ranks)}), but got {group_rank_id}.")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id, group):
    """The rank in ``group`` of world rank ``world_rank_id``."""
    ranks = group_comm(group).world_ranks
    if world_rank_id not in ranks:
        raise ValueError(f"For 'get_group_rank_from_world_rank', world rank {world_rank_id} is "
                         f"not in group '{group}' (ranks {list(ranks)}).")
    return ranks.index(world_rank_id)


def get_process_group_ranks(group=GlobalComm.WORLD_COMM_GROUP):
    """The world ranks of ``group``, in group-rank order."""
    return list(group_comm(group).world_ranks)


def create_group(group, rank_ids, options=None):
    """A new group ``group`` over the world ranks ``rank_ids``; every member calls it."""
    world = group_comm(MCCL_WORLD_COMM_GROUP)
    if not isinstance(group, str):
        raise TypeError(f"For 'create_group', the argument 'group' must be a string, but got "
                        f"{type(group)}.")
    if group in _groups:
        raise ValueError(f"For 'create_group', the group '{group}' already exists.")
    ids = list(rank_ids) if isinstance(rank_ids, (list, tuple)) else None
    if not ids or any(not isinstance(r, int) or not 0 <= r < world.size for r in ids) \
            or len(set(ids)) != len(ids):
        raise ValueError(f"For 'create_group', 'rank_ids' must be a non-empty list of distinct "
                         f"ranks in [0, {world.size}), but got {rank_ids}.")
    if world.rank not in ids:
        raise ValueError(f"For 'create_group', 'rank_ids' must include this rank "
                         f"({world.rank}), but got {rank_ids}.")
    _groups[group] = world.split(group, sorted(ids))
    _groups_changed()


def destroy_group(group):
    """Free a group made by ``create_group`` (the world group cannot be destroyed)."""
    if group in _backend.WORLD_NAMES:
        raise ValueError("For 'destroy_group', the world group cannot be destroyed.")
    group_comm(group).free()
    del _groups[group]
    _groups_changed()


def _groups_changed():
    """Every change of ``_groups`` calls this: the eager all-reduce's plans made before
    are stale (NOTE: [Eager all-reduce] in ``spore/_prims/comm.py``)."""
    from .._prims import comm
    comm.groups_changed()


def get_comm_name(group=GlobalComm.WORLD_COMM_GROUP):
    """The communicator's name (the group name here)."""
    return group_comm(group).name


# ----------------------------------------------------------------- checkpoints
def writes_checkpoint(path):
    """Whether this rank writes the checkpoint ``path``. In a data-parallel job every rank
    holds the same parameters, so rank 0 alone writes (no ranks racing on one file);
    MindSpore's per-rank layout is kept when asked for by naming the rank in the path
    (a folder ``rank_<r>``, as MindSpore's examples do): then every rank writes its own."""
    from .._context import data_parallel_degree
    if data_parallel_degree() == 1:
        return True
    rank = _world.rank
    if rank == 0:
        return True
    parts = os.path.normpath(os.path.abspath(path)).split(os.sep)
    return f"rank_{rank}" in parts or f"rank{rank}" in parts


# ----------------------------------------------------------------- faults
_hooked = False
_ABORT_GRACE_S = 0.5


def install_fault_hook():
    """Under an MPI launcher, an exception that reaches the top of a rank prints its
    traceback and aborts the whole job (MPI_Abort), so the other ranks stop instead of
    waiting forever in a collective or in ``init``. Installed when Spore is imported
    under a launcher, so it covers errors raised before ``init()`` too."""
    global _hooked
    if _hooked or not _backend.under_launcher():
        return
    _hooked = True
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        rank = os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "?"))
        sys.stderr.write(f"[spore] rank {rank}: {kind.__name__}: {value}; aborting the job\n")
        sys.stderr.flush()
        # the launcher forwards a rank's output asynchronously and MPI_Abort tears it
        # down at once: on a busy machine the traceback was lost; give it a moment
        time.sleep(_ABORT_GRACE_S)
        _backend.abort(1)

    sys.excepthook = hook


install_fault_hook()
