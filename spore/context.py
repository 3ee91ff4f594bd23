"""``mindspore.context``: the context functions and mode constants."""
from ._context import (set_context as set_context, get_context as get_context,  # noqa: F401
                       GRAPH_MODE as GRAPH_MODE, PYNATIVE_MODE as PYNATIVE_MODE,
                       STRICT as STRICT, COMPATIBLE as COMPATIBLE, LAX as LAX,
                       DEBUG as DEBUG, RELEASE as RELEASE,
                       set_auto_parallel_context as set_auto_parallel_context,
                       get_auto_parallel_context as get_auto_parallel_context,
                       reset_auto_parallel_context as reset_auto_parallel_context,
                       ParallelMode as ParallelMode,
                       set_ps_context as set_ps_context, get_ps_context as get_ps_context,
                       reset_ps_context as reset_ps_context, get_jit_config as get_jit_config)
