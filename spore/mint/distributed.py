"""``mindspore.mint.distributed``: the PyTorch-style process-group API, always in place
(NOTE: [In-place collectives] in ``spore/communication/distributed.py``)."""
from ..communication import distributed as _d

__all__ = [n for n in _d.__all__ if n not in ("set_comm_ops_inplace", "CommHandle")]

_KEEP = ("P2POp", "init_process_group", "destroy_process_group", "new_group", "get_rank",
         "get_world_size", "get_backend", "get_global_rank", "get_group_rank",
         "get_process_group_ranks", "is_available", "is_initialized", "TCPStore")
globals().update({n: getattr(_d, n) if n in _KEEP else _d.always_inplace(getattr(_d, n))
                  for n in __all__})
