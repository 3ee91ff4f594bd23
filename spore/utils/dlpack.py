"""``mindspore.utils.dlpack``: zero-copy exchange with other array libraries."""
from .._interop import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
