"""``mindspore.ops``' communication functions (``all_reduce``, ``isend``, ``new_group``,
the object collectives, ...): those of ``spore.communication.distributed``, in place
unless ``set_comm_ops_inplace(False)`` (NOTE: [In-place collectives])."""
from ..communication import distributed as _d

__all__ = [n for n in _d.__all__ if n not in ("gather", "scatter", "CommHandle")]
globals().update({n: getattr(_d, n) for n in __all__})
