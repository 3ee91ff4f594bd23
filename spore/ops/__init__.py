"""``spore.ops`` (``mindspore.ops``): functional ops, primitive classes and autodiff.

Every name here is a thin adapter over one primitive or a composite of
primitives (see ``docs/ops.md`` for which are primitives).
"""
from ._math import *          # noqa: F401,F403
from ._reduce import *        # noqa: F401,F403
from ._array import *         # noqa: F401,F403
from ._linalg import *        # noqa: F401,F403
from ._misc import *          # noqa: F401,F403
from ._creation import *      # noqa: F401,F403
from ._nn import *            # noqa: F401,F403
from ._random import *        # noqa: F401,F403
from ._surface import *       # noqa: F401,F403
from ._sparse_ops import *    # noqa: F401,F403
from ._extra import *         # noqa: F401,F403
from ._fft import *           # noqa: F401,F403
from ._decomp import *        # noqa: F401,F403
from ._nn_more import *       # noqa: F401,F403
from ._scatter_more import *  # noqa: F401,F403
from ._array_more import *    # noqa: F401,F403
from ._thin import *          # noqa: F401,F403
from ._nn_ops3 import *       # noqa: F401,F403
from ._image_ops3 import *    # noqa: F401,F403
from ._special_more import *  # noqa: F401,F403
from ._random_more import *   # noqa: F401,F403
from ._linalg_more import *   # noqa: F401,F403
from ._ops_b import *        # noqa: F401,F403
from ._ops_a import *         # noqa: F401,F403
from ._indexing import getitem as getitem, setitem as setitem, index_put as _index_put  # noqa
from .operations import *     # noqa: F401,F403  (primitive classes: ops.Add() ...)
from . import operations as operations, functional as functional, composite as composite  # noqa
from . import primitive as primitive  # noqa: F401  (mindspore.ops.primitive)
from ._comm import *           # noqa: F401,F403  (AllReduce, AlltoAll, Send, ...)
from . import _comm
for _name in _comm.__all__:
    setattr(operations, _name, globals()[_name])      # also ops.operations.AllReduce (P.*)
del _name
from ._comm_func import *      # noqa: F401,F403  (all_reduce, isend, new_group, ...)
from ._higher_order import (HyperMap as HyperMap, Map as Map,  # noqa: F401
                            MultitypeFuncGraph as MultitypeFuncGraph, partial as partial)
from .._autodiff.api import (grad as grad, value_and_grad as value_and_grad,
                             GradOperation as GradOperation, vjp as vjp, jvp as jvp,
                             jacrev as jacrev, jacfwd as jacfwd, get_grad as get_grad)
from ._higher_order import vmap as vmap
from ._control import ForiLoop as ForiLoop, Scan as Scan, WhileLoop as WhileLoop  # noqa: F401
from ._ops_a_custom import (Custom as Custom, CustomRegOp as CustomRegOp,  # noqa: F401
                            CpuRegOp as CpuRegOp, DataType as DataType, kernel as kernel,
                            ms_kernel as ms_kernel, op_info_register as op_info_register,
                            custom_info_register as custom_info_register)


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from .. import _absent
    return _absent.missing(__name__, name)
