"""``spore.numpy`` (``mindspore.numpy``): NumPy-style functions that return Tensors.

Every function is a thin wrapper over ``spore.ops``. MindSpore's defaults apply:
Python integers become Int32 (``arange(3)``, ``array([1, 2])``), Python floats
Float32, and ``zeros``/``ones``/``eye`` are Float32.
"""
from ._creation import *      # noqa: F401,F403
from ._array import *         # noqa: F401,F403
from ._math import *          # noqa: F401,F403
from ._random import *        # noqa: F401,F403
from ._more import *          # noqa: F401,F403
from ._windows_stats import *  # noqa: F401,F403
from ._indexing_hist import *  # noqa: F401,F403
from . import fft as fft  # noqa: F401
from .._dtype import (bool_ as bool_, int8 as int8, int16 as int16, int32 as int32,  # noqa: F401
                      int64 as int64, uint8 as uint8, float16 as float16, float32 as float32,
                      float64 as float64)
from .._tensor import Tensor as ndarray  # noqa: F401


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from .. import _absent
    return _absent.missing(__name__, name)
