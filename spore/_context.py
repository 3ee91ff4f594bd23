"""``set_context`` / ``get_context``: MindSpore's keys, defaults and error messages.

Every key is validated and stored; the execution mode is read in one place,
``execution_mode()``, by whoever needs it (Cell calls, ``Model``).
"""
from __future__ import annotations

import os
import warnings

GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT, COMPATIBLE, LAX = 0, 1, 2
DEBUG, RELEASE = 0, 1

_TARGETS = ["CPU", "GPU", "Ascend", "Davinci"]
_JIT_CONFIG_KEYS = {"jit_level": ["O0", "O1", "O2"], "infer_boost": ["on", "off"]}

_DEPRECATED = {
    "device_target": "Please use the api mindspore.set_device() instead.",
    "device_id": "Please use the api mindspore.set_device() instead.",
    "save_graphs": "Please use the env MS_DEV_SAVE_GRAPHS instead.",
    "save_graphs_path": "Please use the env MS_DEV_SAVE_GRAPHS_PATH instead.",
    "max_call_depth": "Please use the api mindspore.set_recursion_limit() instead.",
    "pynative_synchronize": "Please use the api mindspore.runtime.launch_blocking() instead.",
    "enable_graph_kernel": "Please use jit_config={'jit_level': 'O1'} instead.",
}
_REMOVED = {
    "precompile_only": "has been removed since MindSpore 2.10 version. Please use the env "
                       "MS_DEV_PRECOMPILE_ONLY instead.",
    "grad_for_scalar": "has been removed.",
    "exception_dump": "has been removed since MindSpore 2.6 version.",
}

_DEFAULTS = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": 0,
    "save_graphs_path": ".",
    "enable_graph_kernel": False,
    "jit_config": {},
    "jit_syntax_level": LAX,
    "max_call_depth": 1000,
    "pynative_synchronize": False,
    "runtime_num_threads": os.cpu_count() or 1,
    "deterministic": "OFF",
    "print_file_path": "",
    "check_bprop": False,
    "enable_compile_cache": False,
    "compile_cache_path": "",
    "inter_op_parallel_num": 0,
    "max_device_memory": "1024GB",
    "memory_optimize_level": "O0",
    "ascend_config": {},
    "gpu_config": {},
    "enable_reduce_precision": True,
    "aoe_tune_mode": "",
    "aoe_config": {},
    "debug_level": RELEASE,
    "variable_memory_max_size": "0",
    "mempool_block_size": "1GB",
    "op_timeout": 900,
    "env_config_path": "",
    "graph_kernel_flags": "",
    "enable_auto_mixed_precision": False,
    "reserve_class_name_in_scope": True,
    "enable_profiling": False,
    "profiling_options": "",
    "auto_tune_mode": "",
    "disable_format_transform": False,
    "device_type": "",
}

_context = dict(_DEFAULTS)
_context["jit_config"] = {}
_warned_fallback = set()


def _type_check(key, value, types):
    if not isinstance(value, types) or (bool not in _as_tuple(types) and isinstance(value, bool)
                                        and int in _as_tuple(types)):
        t = types if not isinstance(types, tuple) else types[0]
        raise TypeError(f"The parameter '{key}' must be {t}, but got {type(value)}")


def _as_tuple(t):
    return t if isinstance(t, tuple) else (t,)


def _check_mode(v):
    _type_check("mode", v, int)
    if v not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError("For 'context.set_context', the argument 'mode' should be "
                         "context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), but got "
                         f"{v}.")
    return v


def _check_device_target(v):
    _type_check("device_target", v, str)
    if v not in _TARGETS:
        raise ValueError(f"For 'context.set_context', 'device_target' must be one of "
                         f"{_TARGETS}, but got {v}.")
    return resolve_device(v)


def resolve_device(target):
    """The best device present for ``target``: GPU needs CuPy and a GPU; else CPU (warn once)."""
    if target == "Davinci":
        target = "Ascend"
    if target == "CPU":
        return "CPU"
    if target == "GPU" and gpu_available():
        return "GPU"
    best = "GPU" if gpu_available() else "CPU"
    if target not in _warned_fallback:
        _warned_fallback.add(target)
        warnings.warn(f"Spore has no {target} backend on this machine; running on {best} "
                      f"instead.", RuntimeWarning, stacklevel=4)
    return best


def gpu_available():
    from ._core import backend as B
    return "GPU" in B.available()


def _check_device_id(v):
    _type_check("device_id", v, int)
    if not 0 <= v <= 4095:
        raise ValueError(f"For 'context.set_context', the argument 'device_id' must be in range "
                         f"[0, 4095], but got {v}.")
    return v


def _check_save_graphs(v):
    if isinstance(v, bool):
        return 2 if v else 0
    if not isinstance(v, int) or not 0 <= v <= 3:
        raise ValueError(f"value for save_graphs should be 0-3 but got '{v}'")
    return v


def _check_save_graphs_path(v):
    _type_check("save_graphs_path", v, str)
    os.makedirs(v, exist_ok=True)
    return v


def _check_jit_config(v):
    if not isinstance(v, dict):
        raise TypeError(f"The parameter 'jit_config' must be {dict}, but got {type(v)}")
    for k, val in v.items():
        if k not in _JIT_CONFIG_KEYS:
            raise ValueError(f"For 'context.set_context', the key of argument 'jit_config' must "
                             f"be one of {_JIT_CONFIG_KEYS}, but got {k}.")
        if val not in _JIT_CONFIG_KEYS[k]:
            raise ValueError(f"For 'jit_config', the value of argument {k} must be one of "
                             f"{_JIT_CONFIG_KEYS[k]}, but got {val}.")
    return dict(v)


def _check_bool(key):
    def check(v):
        _type_check(key, v, bool)
        return v
    return check


def _check_int(key, lo=None):
    def check(v):
        _type_check(key, v, int)
        if lo is not None and v < lo:
            raise ValueError(f"For 'context.set_context', the argument '{key}' must be >= {lo}, "
                             f"but got {v}.")
        return v
    return check


def _check_choice(key, choices):
    def check(v):
        if v not in choices:
            raise ValueError(f"For 'context.set_context', the argument '{key}' must be one of "
                             f"{choices}, but got {v}.")
        return v
    return check


def _check_str(key):
    def check(v):
        _type_check(key, v, str)
        return v
    return check


def _check_dict(key):
    def check(v):
        if not isinstance(v, dict):
            raise TypeError(f"The parameter '{key}' must be {dict}, but got {type(v)}")
        return dict(v)
    return check


_CHECKS = {
    "mode": _check_mode,
    "device_target": _check_device_target,
    "device_id": _check_device_id,
    "save_graphs": _check_save_graphs,
    "save_graphs_path": _check_save_graphs_path,
    "enable_graph_kernel": _check_bool("enable_graph_kernel"),
    "jit_config": _check_jit_config,
    "jit_syntax_level": _check_choice("jit_syntax_level", [STRICT, COMPATIBLE, LAX]),
    "max_call_depth": _check_int("max_call_depth", 1),
    "pynative_synchronize": _check_bool("pynative_synchronize"),
    "runtime_num_threads": _check_int("runtime_num_threads", 0),
    "deterministic": _check_choice("deterministic", ["ON", "OFF"]),
    "print_file_path": _check_str("print_file_path"),
    "check_bprop": _check_bool("check_bprop"),
    "enable_compile_cache": _check_bool("enable_compile_cache"),
    "compile_cache_path": _check_str("compile_cache_path"),
    "inter_op_parallel_num": _check_int("inter_op_parallel_num", 0),
    "max_device_memory": _check_str("max_device_memory"),
    "memory_optimize_level": _check_choice("memory_optimize_level", ["O0", "O1"]),
    "ascend_config": _check_dict("ascend_config"),
    "gpu_config": _check_dict("gpu_config"),
    "debug_level": _check_choice("debug_level", [DEBUG, RELEASE]),
    "op_timeout": _check_int("op_timeout", 0),
}


def set_context(**kwargs):
    """Set execution context keys (see MindSpore's ``set_context``); returns None.

    ``device_target`` is applied first; if it fails nothing else in the call is applied.
    ``"Ascend"`` (or ``"GPU"`` without a GPU) falls back to the best device present
    with one warning.
    """
    for key in kwargs:
        if key in _REMOVED:
            raise ValueError(f"For 'context.set_context', '{key}' {_REMOVED[key]}")
        if key not in _context and key not in _CHECKS:
            raise ValueError(f"For 'context.set_context', the keyword argument {key} is not "
                             "recognized! For detailed usage of 'set_context', please refer to "
                             "the Mindspore official website.")
    updates = {}
    ordered = sorted(kwargs, key=lambda k: k != "device_target")
    for key in ordered:
        check = _CHECKS.get(key)
        updates[key] = check(kwargs[key]) if check else kwargs[key]
    if updates:
        from ._core.primitive import bump_epoch
        bump_epoch()
    for key, value in updates.items():
        _context[key] = value
        if key == "jit_config":
            _context["jit_level"] = value.get("jit_level", "")
        if key == "enable_graph_kernel" and value:
            _context.setdefault("jit_level", "O1")
        if key == "runtime_num_threads":
            from ._core import threads
            threads.set_runtime_threads(value)
    return None


def get_context(attr_key):
    """The stored value of one context key."""
    if attr_key == "jit_level":
        return _context.get("jit_config", {}).get("jit_level", "")
    if attr_key not in _context:
        raise ValueError(f"For 'context.get_context', the argument {attr_key} is not "
                         "recognized! For detailed usage of 'get_context', please refer to the "
                         "Mindspore official website.")
    value = _context[attr_key]
    return dict(value) if isinstance(value, dict) else value


def execution_mode():
    """The one place the execution mode is read (GRAPH_MODE or PYNATIVE_MODE)."""
    return _context["mode"]


def device_target():
    return _context["device_target"]


# ----------------------------------------------------------------- set_device
class DeviceInfo(tuple):
    @property
    def device_target(self):
        return self[0]

    @property
    def device_id(self):
        return self[1]


_device_set = None


def set_device(device_target, device_id=None):
    """Choose the device once per process (MindSpore's ``mindspore.set_device``)."""
    global _device_set
    if device_target not in ("CPU", "GPU", "Ascend"):
        raise ValueError(f"The argument 'device_target' must be one of ['CPU', 'GPU', 'Ascend'], "
                         f"but got {device_target}.")
    if device_id is not None and (not isinstance(device_id, int) or device_id < 0):
        raise ValueError(f"The argument 'device_id' must be a non-negative int, but got "
                         f"{device_id}.")
    request = (device_target, device_id or 0)
    if _device_set is not None and _device_set != request:
        raise RuntimeError("The 'mindspore.set_device' can not be modified.")
    _device_set = request
    _context["device_target"] = resolve_device(device_target)
    _context["device_id"] = device_id or 0


def get_current_device():
    return DeviceInfo((_context["device_target"], _context["device_id"]))


# ----------------------------------------------------------------- parallel context
class ParallelMode:
    """The values of ``set_auto_parallel_context(parallel_mode=...)``. Spore runs
    ``STAND_ALONE`` and ``DATA_PARALLEL`` (gradients all-reduced across ranks); the model
    parallel modes are accepted and trained as data parallel."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


def _parallel_defaults():
    return {"parallel_mode": ParallelMode.STAND_ALONE, "device_num": 1, "global_rank": 0,
            "gradients_mean": False, "parameter_broadcast": False, "gradient_fp32_sync": True,
            "loss_repeated_mean": True, "full_batch": False, "dataset_strategy": "data_parallel",
            "comm_fusion": {"openstate": True,
                            "allreduce": {"mode": "auto", "config": None},
                            "allgather": {"mode": "auto", "config": None},
                            "reducescatter": {"mode": "auto", "config": None}},
            "search_mode": "recursive_programming", "enable_parallel_optimizer": False,
            "strategy_ckpt_load_file": "", "strategy_ckpt_save_file": "",
            "pipeline_stages": 1, "grad_accumulation_step": 1, "all_reduce_fusion_config": [],
            "auto_parallel_search_mode": "recursive_programming", "enable_alltoall": False,
            "parallel_optimizer_config": {}, "optimizer_weight_shard_size": -1}


_auto_parallel = _parallel_defaults()
_auto_parallel_set = set()      # keys the user set (init() fills device_num/global_rank otherwise)


def _check_parallel_value(key, value):
    bools = ("gradients_mean", "parameter_broadcast", "gradient_fp32_sync", "loss_repeated_mean",
             "full_batch", "enable_parallel_optimizer", "enable_alltoall")
    if key == "parallel_mode":
        if value not in ParallelMode.MODE_LIST:
            raise ValueError("The context configuration parameter 'parallel_mode' only support "
                             "'stand_alone', 'data_parallel', 'hybrid_parallel', "
                             "'semi_auto_parallel' and 'auto_parallel', but got the value : "
                             f"{value}.")
    elif key in bools:
        _type_check(key, value, bool)
    elif key in ("device_num", "global_rank"):
        _type_check(key, value, int)
        low = 1 if key == "device_num" else 0
        if value < low:
            kind = "a positive" if low else "a non-negative"
            raise ValueError(f"The context configuration parameter '{key}' must be {kind} "
                             f"integer, but got the value of {key} : {value}.")
    elif key == "comm_fusion":
        _type_check(key, value, dict)
    return value


def set_auto_parallel_context(**kwargs):
    """Set the parallel configuration (MindSpore's keys and checks). Spore trains
    ``DATA_PARALLEL``: ``gradients_mean`` averages instead of summing the all-reduced
    gradients; ``comm_fusion={"allreduce": {"mode": "size", "config": MB}}`` sets the
    gradient bucket size; ``parameter_broadcast`` broadcasts rank 0's parameters."""
    for key, value in kwargs.items():
        if key not in _auto_parallel:
            raise ValueError(f"Set context keyword {key} is not recognized!")
        _check_parallel_value(key, value)
    for key, value in kwargs.items():
        if key == "comm_fusion":
            merged = dict(_auto_parallel["comm_fusion"])
            merged.update(value)
            value = merged
        _auto_parallel[key] = value
        _auto_parallel_set.add(key)


def get_auto_parallel_context(key):
    """The value of one parallel-context key."""
    if key not in _auto_parallel:
        raise ValueError(f"Get context keyword {key} is not recognized!")
    return _auto_parallel[key]


def reset_auto_parallel_context():
    """Every parallel-context key back to its default (device_num and global_rank follow
    the job when ``init()`` ran)."""
    _auto_parallel.clear()
    _auto_parallel.update(_parallel_defaults())
    _auto_parallel_set.clear()
    from .communication import management
    if management.GlobalComm.INITED:
        _auto_parallel_defaults_from_world(management.get_rank(), management.get_group_size())


def _auto_parallel_defaults_from_world(rank, size):
    """``init()`` tells the context the job's size and this rank, unless the user set them."""
    if "device_num" not in _auto_parallel_set:
        _auto_parallel["device_num"] = size
    if "global_rank" not in _auto_parallel_set:
        _auto_parallel["global_rank"] = rank


def data_parallel_degree():
    """The number of ranks gradients are reduced over: the job's size in DATA_PARALLEL
    (and the modes trained as it) after ``init()``; 1 stand-alone."""
    if _auto_parallel["parallel_mode"] == ParallelMode.STAND_ALONE:
        return 1
    from .communication import management
    if not management.GlobalComm.INITED:
        return 1
    return management.get_group_size()


_ps = {}


def set_ps_context(**kwargs):
    _ps.update(kwargs)


def get_ps_context(key):
    return _ps.get(key)


def reset_ps_context():
    _ps.clear()


def get_jit_config():
    return get_context("jit_config")


def reset_for_tests():
    """Restore every key to its default (used by the test suite between tests)."""
    global _device_set
    _context.clear()
    _context.update(_DEFAULTS)
    _context["jit_config"] = {}
    _device_set = None
    _auto_parallel.clear()
    _auto_parallel.update(_parallel_defaults())
    _auto_parallel_set.clear()
    from ._core import threads
    threads.set_runtime_threads(0)
