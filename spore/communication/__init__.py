"""``mindspore.communication``: data-parallel jobs over MPI (the ``dist`` extra).

See NOTE: [Communication backend] in ``_backend.py`` and docs/distributed.md.
"""
from .management import (GlobalComm as GlobalComm, init as init, release as release,  # noqa
                         get_rank as get_rank, get_group_size as get_group_size,
                         get_local_rank as get_local_rank,
                         get_local_rank_size as get_local_rank_size,
                         create_group as create_group, destroy_group as destroy_group,
                         get_world_rank_from_group_rank as get_world_rank_from_group_rank,
                         get_group_rank_from_world_rank as get_group_rank_from_world_rank,
                         get_process_group_ranks as get_process_group_ranks,
                         get_comm_name as get_comm_name,
                         HCCL_WORLD_COMM_GROUP as HCCL_WORLD_COMM_GROUP,
                         NCCL_WORLD_COMM_GROUP as NCCL_WORLD_COMM_GROUP,
                         MCCL_WORLD_COMM_GROUP as MCCL_WORLD_COMM_GROUP)
from . import comm_func as comm_func, management as management  # noqa: E402

__all__ = ["GlobalComm", "init", "release", "get_rank", "get_group_size", "get_local_rank",
           "get_local_rank_size", "create_group", "destroy_group",
           "get_world_rank_from_group_rank", "get_group_rank_from_world_rank",
           "get_process_group_ranks", "get_comm_name", "comm_func", "HCCL_WORLD_COMM_GROUP",
           "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP"]
