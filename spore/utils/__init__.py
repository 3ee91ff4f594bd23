"""``spore.utils`` (``mindspore.utils``): DLPack exchange (``from_dlpack``, ``to_dlpack``
and the ``dlpack`` module that holds them). MindSpore's other names here control Ascend
clusters (fault tolerance, silent-data-corruption checks, dry runs) and are absent."""
from . import dlpack as dlpack
from .dlpack import from_dlpack as from_dlpack, to_dlpack as to_dlpack

__all__ = ["dlpack", "from_dlpack", "to_dlpack"]
