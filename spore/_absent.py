"""Names of MindSpore 2.10 that Spore leaves out on purpose, each with its reason.

A module lists its absent names here and ends with ``def __getattr__(name): return
_absent.missing(__name__, name)``: reaching such a name raises ``AbsentError`` (a
``NotImplementedError`` that is also an ``AttributeError``, so ``hasattr`` and
``getattr(module, name, default)`` keep working) saying why it is absent; any other
unknown name raises the usual ``AttributeError``. ``tests/compat/test_api_surface.py``
holds this table against MindSpore's public names (``docs/compatibility.md`` lists it).
"""
from __future__ import annotations

REASONS = {
    "ascend": "Ascend/GPU hardware control (device streams, events, memory pools, NPU status, "
              "silent-data-corruption checks, core binding); Spore runs on the CPU",
    "mindinsight": "MindInsight summaries, lineage and profiling (a separate tool Spore does "
                   "not integrate)",
    "parallel": "model parallelism (operator sharding strategies, pipeline stages, parameter "
                "servers, strategy checkpoints); Spore offers data parallelism only",
    "internal": "part of MindSpore's implementation that its module happens to show (an "
                "imported helper, generated-op module or validator), not public API",
}

ABSENT = {
    "mindspore": {
        **dict.fromkeys((
            "DeviceCtx", "Event", "MemPool", "PluggableAllocator", "Stream", "StreamCtx",
            "StreamLimitCtx", "communication_stream", "current_stream", "default_stream",
            "empty_cache", "get_device_limit", "get_stream_limit", "hal", "max_memory_allocated",
            "max_memory_reserved", "memory_allocated", "memory_replay", "memory_reserved",
            "memory_stats", "memory_summary", "ms_memory_recycle", "reset_max_memory_allocated",
            "reset_max_memory_reserved", "reset_peak_memory_stats", "reset_stream_limit",
            "set_cur_stream", "set_device_limit", "set_stream_limit", "synchronize",
            "use_mem_pool", "sdc_detect_start", "sdc_detect_stop", "get_sdc_detect_result",
            "stress_detect", "set_cpu_affinity", "set_kernel_launch_capture",
            "set_kernel_launch_group", "launch_blocking", "dispatch_threads_num",
            "set_mindio_server_info", "mindio_preload", "hifloat8", "qint4x2",
            "float8_e4m3fn", "float8_e5m2"), "ascend"),
        **dict.fromkeys((
            "SummaryCollector", "SummaryLandscape", "SummaryRecord", "Profiler", "EnvProfiler",
            "profiler", "FlopsUtilizationCollector", "flops_collection"), "mindinsight"),
        **dict.fromkeys((
            "Layout", "shard", "reshard", "parallel", "set_algo_parameters",
            "get_algo_parameters", "reset_algo_parameters", "set_ps_context", "get_ps_context",
            "reset_ps_context", "build_searched_strategy", "merge_pipeline_strategys",
            "get_ckpt_path_with_strategy", "sync_pipeline_shared_parameters",
            "transform_checkpoint_by_rank", "transform_checkpoints", "rank_list_for_transform",
            "load_distributed_checkpoint", "restore_group_info_list", "merge_sliced_parameter",
            "TFTCommValue", "RSCPluginHandle"), "parallel"),
        **dict.fromkeys((
            "arg_dtype_cast", "arg_handler", "get_obj_module_and_name_info",
            "is_invalid_or_jit_forbidden_method", "is_jit_forbidden_module", "default_config",
            "comm_exec_order_check", "runtime_execution_order_check", "MsDispatchMode",
            "constexpr"), "internal"),
    },
}

_ABSENT_TEXT = "is deliberately not provided by Spore"


class AbsentError(NotImplementedError, AttributeError):
    """A MindSpore name Spore leaves out on purpose (see ``spore._absent.ABSENT``)."""


def reason(module, name):
    """Why ``module.name`` (MindSpore's module name, ``mindspore...``) is absent, or None."""
    category = ABSENT.get(module, {}).get(name)
    return None if category is None else REASONS[category]


def missing(module, name):
    """The module-level ``__getattr__`` of a Spore module: raise ``AbsentError`` for a
    deliberately absent name, ``AttributeError`` for anything else."""
    ms_module = "mindspore" + module[len("spore"):]
    why = reason(ms_module, name)
    if why is not None:
        raise AbsentError(f"'{ms_module}.{name}' {_ABSENT_TEXT}: {why}.")
    raise AttributeError(f"module {module!r} has no attribute {name!r}")
