"""Spore: MindSpore's programming model (PyNative and Graph mode) on NumPy.

``import spore as ms`` runs MindSpore programs with MindSpore's names, defaults
and numerics; ``spore run script.py`` runs an unmodified MindSpore script.
"""
from . import _quiet as _quiet

# NumPy's RuntimeWarnings raised for Spore's kernels (log(0), 0/0, the mean of an empty
# axis) are not shown, as MindSpore shows none; the user's own NumPy code keeps NumPy's
# behaviour (NOTE: [Quiet kernels] in _quiet.py).
_quiet.install()

from .version import __version__ as __version__  # noqa: E402

from . import _dtype as dtype                     # noqa: E402  (ms.dtype namespace)
from ._dtype import (Type as Type, TensorType as TensorType, Int as Int,  # noqa: E402
                     get_py_obj_dtype as get_py_obj_dtype, QuantDtype as QuantDtype)
from ._dtype import (bool_ as bool_, int8 as int8, int16 as int16, int32 as int32,  # noqa: E402
                     int64 as int64, uint8 as uint8, uint16 as uint16, uint32 as uint32,
                     uint64 as uint64, float16 as float16, float32 as float32,
                     float64 as float64, bfloat16 as bfloat16, complex64 as complex64,
                     complex128 as complex128, float_ as float_, int_ as int_, uint as uint,
                     number as number, string as string, list_ as list_, tuple_ as tuple_,
                     tensor_type as tensor_type, type_none as type_none,
                     dtype_to_nptype as dtype_to_nptype, pytype_to_dtype as pytype_to_dtype,
                     dtype_to_pytype as dtype_to_pytype)
from ._tensor import Tensor as Tensor             # noqa: E402
from ._parameter import Parameter as Parameter, ParameterTuple as ParameterTuple  # noqa: E402
from ._context import (set_context as set_context, get_context as get_context,  # noqa: E402
                       GRAPH_MODE as GRAPH_MODE, PYNATIVE_MODE as PYNATIVE_MODE,
                       STRICT as STRICT, COMPATIBLE as COMPATIBLE, LAX as LAX,
                       set_device as set_device, get_current_device as get_current_device,
                       set_auto_parallel_context as set_auto_parallel_context,
                       get_auto_parallel_context as get_auto_parallel_context,
                       reset_auto_parallel_context as reset_auto_parallel_context,
                       ParallelMode as ParallelMode)
from ._random import set_seed as set_seed, get_seed as get_seed  # noqa: E402
from ._runtime import (set_deterministic as set_deterministic,  # noqa: E402
                       get_rng_state as get_rng_state, set_rng_state as set_rng_state,
                       run_check as run_check)


def manual_seed(seed):
    """Seed every random op (MindSpore's ``manual_seed``; same as ``set_seed``)."""
    set_seed(seed)


def initial_seed():
    """The seed last given to ``set_seed`` / ``manual_seed`` (None if never set)."""
    return get_seed()
from . import ops as ops                          # noqa: E402
from . import _tensor_methods                     # noqa: E402,F401  (attaches Tensor methods)
from . import context as context                  # noqa: E402
from .ops import (grad as grad, value_and_grad as value_and_grad,  # noqa: E402
                  vjp as vjp, jvp as jvp, jacrev as jacrev, jacfwd as jacfwd, vmap as vmap)
from ._autodiff.api import get_grad as get_grad  # noqa: E402
from ._jit import jit as jit, jit_report as jit_report  # noqa: E402
from ._jit.config import JitConfig as JitConfig  # noqa: E402
from ._jit.mutable import mutable as mutable  # noqa: E402
from ._jit.hints import (jit_class as jit_class, lazy_inline as lazy_inline,  # noqa: E402
                         no_inline as no_inline, enable_dynamic as enable_dynamic)
from ._core.symbol import Symbol as Symbol  # noqa: E402
from ._random import Generator as Generator, default_generator as default_generator  # noqa
from ._sparse import (COOTensor as COOTensor, CSRTensor as CSRTensor,  # noqa: E402
                      RowTensor as RowTensor, SparseTensor as SparseTensor)
from ._autodiff.recompute import recompute as recompute  # noqa: E402
from ._autodiff.tape import (saved_tensors_hooks as saved_tensors_hooks,  # noqa: E402
                             register_saved_tensors_hooks as register_saved_tensors_hooks)
from .train.data_sink import data_sink as data_sink  # noqa: E402
from .train.mindir import load_mindir as load_mindir, save_mindir as save_mindir  # noqa: E402

ms_function = jit        # the seeds' (MindSpore 1.x) name for ms.jit

float = float32
double = float64
half = float16
single = float32
int = int32
long = int64
short = int16
byte = int8
ubyte = uint8
bool = bool_
intc = int32
intp = int64
uintc = uint32
uintp = uint64
ushort = uint16
cfloat = complex64
cdouble = complex128


def tensor(input_data=None, dtype=None, **kwargs):
    """``ms.tensor(data, dtype)``: same as ``Tensor(data, dtype)``."""
    return Tensor(input_data, dtype, **kwargs)


def is_tensor(obj):
    """Whether ``obj`` is a Tensor (or Parameter)."""
    return isinstance(obj, Tensor)


from_numpy = Tensor.from_numpy
from ._storage import UntypedStorage as UntypedStorage  # noqa: E402
from ._interop import (from_dlpack as from_dlpack, to_dlpack as to_dlpack,  # noqa: E402
                       frombuffer as frombuffer, seed as seed, swap_tensors as swap_tensors)


_recursion_limit = 1000


def set_recursion_limit(recursion_limit=1000):
    """Graph-compilation recursion limit (stored; PyNative does not recurse)."""
    global _recursion_limit
    import builtins     # `int` here is ms.int (int32): this module shadows the builtins
    if not isinstance(recursion_limit, builtins.int) or recursion_limit <= 0:
        raise ValueError(f"For 'set_recursion_limit', the 'recursion_limit' must be a positive "
                         f"int, but got {recursion_limit}.")
    _recursion_limit = recursion_limit


from . import common as common                    # noqa: E402
from . import nn as nn                            # noqa: E402
from . import numpy as numpy                      # noqa: E402
from . import train as train                      # noqa: E402
from . import amp as amp                          # noqa: E402
from . import communication as communication      # noqa: E402
from .train import *  # noqa: E402,F401,F403  (ms.Model, ms.save_checkpoint, callbacks, metrics)
from . import experimental as experimental      # noqa: E402
from . import mint as mint                        # noqa: E402
from . import rewrite as rewrite                  # noqa: E402
from . import boost as boost                      # noqa: E402
from .rewrite import (SymbolTree as SymbolTree, Node as Node, NodeType as NodeType,  # noqa: E402
                      ScopedValue as ScopedValue)
from . import log as log                          # noqa: E402
from . import version as version                  # noqa: E402
from .log import get_level as get_level, get_log_config as get_log_config  # noqa: E402


_MINDRECORD_NAMES = ("FileReader", "FileWriter", "SUCCESS", "FAILED", "MindPage", "Cifar10ToMR",
                     "Cifar100ToMR", "CsvToMR", "ImageNetToMR", "MnistToMR", "TFRecordToMR",
                     "set_enc_key", "set_enc_mode", "set_dec_mode")


def __getattr__(name):
    """``spore.dataset`` is imported on first use: it brings multiprocessing, sockets and
    subprocesses, which a script that never builds a pipeline does not need at start-up.
    MindSpore names Spore leaves out on purpose raise NotImplementedError (_absent.py)."""
    import importlib
    if name in ("dataset", "multiprocessing", "utils", "onnx", "safeguard"):
        return importlib.import_module("." + name, __name__)
    if name in ("obfuscate_ckpt", "load_obf_params_into_net"):
        return getattr(importlib.import_module(".safeguard", __name__), name)
    if name in _MINDRECORD_NAMES:                             # MindRecord, as MindSpore has them
        return getattr(importlib.import_module(".mindrecord", __name__), name)
    from . import _absent
    return _absent.missing(__name__, name)


def __dir__():
    return sorted(set(globals()) | {"dataset", "multiprocessing", "utils", "onnx", "safeguard"})
