"""General data transforms (``mindspore.dataset.transforms``)."""
from . import transforms as transforms
from .base import TensorOperation as TensorOperation
from .transforms import (Compose as Compose, Concatenate as Concatenate,
                         Duplicate as Duplicate, Fill as Fill, Mask as Mask, OneHot as OneHot,
                         PadEnd as PadEnd, RandomApply as RandomApply,
                         RandomChoice as RandomChoice, RandomOrder as RandomOrder,
                         Relational as Relational, Slice as Slice, TypeCast as TypeCast,
                         Unique as Unique, not_random as not_random)


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from ... import _absent
    return _absent.missing(__name__, name)
