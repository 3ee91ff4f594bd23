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
    "ascend": "made for Ascend/GPU devices (hardware control such as streams, events, memory "
              "pools, NPU status and silent-data-corruption checks, or fused kernels only those "
              "devices have); Spore runs on the CPU",
    "mindinsight": "MindInsight summaries, lineage and profiling (a separate tool Spore does "
                   "not integrate)",
    "parallel": "model parallelism (operator sharding strategies, pipeline stages, parameter "
                "servers, strategy checkpoints); Spore offers data parallelism only",
    "internal": "part of MindSpore's implementation that its module happens to show (an "
                "imported helper, generated-op module or validator), not public API",
    "minddata_plugin": "loads a shared library compiled against MindData's C++ plugin interface "
                      "(its tensor-row and status types); Spore's data pipeline is Python and "
                      "has no such interface: give map a Python callable instead",
    "compiler": "plugs into MindSpore's C++ graph compiler (`mindspore.graph`: custom passes "
                "and backends loaded from .so plugins, per-primitive infer and wrapper "
                "registries on its graph IR); Spore's graph mode traces Python code and has "
                "no compiler plugin interface",
    "native": "compiles C++/CUDA/Ascend C kernels against MindSpore's own C++ runtime and "
              "headers, which Spore (Python over NumPy) does not have; write the kernel as a "
              "Python function for ops.Custom(func_type='pyfunc')",
    "cloud": "reads MindRecord files from cloud object storage (OBS, Minio, S3) through "
             "Huawei's storage client, which Spore does not bundle; download the files and "
             "use MindDataset",
}

def _table(**categories):
    """{name: category} from category=<names separated by spaces>."""
    return {name: category for category, names in categories.items() for name in names.split()}


_MS_ASCEND = """
    DeviceCtx Event MemPool PluggableAllocator Stream StreamCtx StreamLimitCtx
    communication_stream current_stream default_stream empty_cache get_device_limit
    get_stream_limit hal max_memory_allocated max_memory_reserved memory_allocated memory_replay
    memory_reserved memory_stats memory_summary ms_memory_recycle reset_max_memory_allocated
    reset_max_memory_reserved reset_peak_memory_stats reset_stream_limit set_cur_stream
    set_device_limit set_stream_limit synchronize use_mem_pool sdc_detect_start sdc_detect_stop
    get_sdc_detect_result stress_detect set_cpu_affinity set_kernel_launch_capture
    set_kernel_launch_group launch_blocking dispatch_threads_num set_mindio_server_info
    mindio_preload hifloat8 qint4x2 float8_e4m3fn float8_e5m2 set_dump set_memory runtime
    device_context device_manager TrainFaultTolerance ExitByRequest tools
    ConvertModelUtils ConvertNetUtils"""
_PARALLEL = """
    build_searched_strategy get_ckpt_path_with_strategy load_distributed_checkpoint
    merge_sliced_parameter restore_group_info_list export_split_mindir"""
_SUMMARY = "SummaryCollector SummaryLandscape SummaryRecord FlopsUtilizationCollector"

ABSENT = {
    "mindspore": _table(
        ascend=_MS_ASCEND,
        mindinsight=_SUMMARY + " Profiler EnvProfiler profiler flops_collection",
        parallel=_PARALLEL + """ Layout shard reshard parallel set_algo_parameters
            get_algo_parameters reset_algo_parameters set_ps_context get_ps_context
            reset_ps_context merge_pipeline_strategys sync_pipeline_shared_parameters
            transform_checkpoint_by_rank transform_checkpoints rank_list_for_transform
            TFTCommValue RSCPluginHandle dryrun parameter_broadcast load_segmented_checkpoints
            unified_safetensors""",
        compiler="graph",
        internal="""arg_dtype_cast arg_handler get_obj_module_and_name_info
            is_invalid_or_jit_forbidden_method is_jit_forbidden_module default_config
            comm_exec_order_check runtime_execution_order_check MsDispatchMode constexpr"""),
    "mindspore.ops": _table(
        ascend="""flash_attention_score fused_infer_attention_score incre_flash_attention
            prompt_flash_attention speed_fusion_attention sparse_flash_attention
            lightning_indexer nsa_compress nsa_compress_attention nsa_select_attention
            moe_distribute_combine moe_distribute_dispatch moe_init_routing_v2
            moe_token_permute moe_token_unpermute ring_attention_update all_gather_matmul
            matmul_reduce_scatter PagedAttention PagedAttentionMask ReshapeAndCache
            ApplyRotaryPosEmb GroupTopk NPUAllocFloatStatus NPUClearFloatStatus
            NPUGetFloatStatus AiCPURegOp AkgAscendRegOp AkgGpuRegOp TBERegOp GetNext
            GeSwitch""",
        native="CustomOpBuilder",
        mindinsight="HistogramSummary ImageSummary ScalarSummary TensorSummary",
        parallel="""Reshard reshard AlltoAllVC all_to_all_v_c NeighborExchange NeighborExchangeV2
            Pull Push MapCacheIdx""",
        internal="""P arg_dtype_cast arg_handler array_ops auto_generate
            cpp_create_prim_instance_helper functional_overload gen_extend_func gen_ops_def
            gen_ops_prim linalg_ops other_ops pyboost_inner_prim signature function
            communication deprecated tensor_operator_registry vm_impl_registry get_vm_impl_fn
            prim_arg_register constexpr dict_getitem dict_setitem make_dict make_list
            make_tuple make_slice make_range list_getitem list_setitem list_len list_equal
            tuple_getitem tuple_setitem tuple_len tuple_equal tuple_div tuple_reversed
            tuple_to_array env_get environ_add environ_create environ_get environ_set in_dict
            not_in_dict is_ is_not ms_hasnext ms_next iter_converter hastype typeof bool_and
            bool_eq bool_not bool_or string_concat string_eq scalar_add scalar_div scalar_eq
            scalar_floordiv scalar_ge scalar_gt scalar_le scalar_log scalar_lt scalar_max
            scalar_min scalar_mod scalar_mul scalar_ne scalar_pow scalar_sub scalar_uadd
            scalar_usub augassign_add augassign_div augassign_floordiv augassign_mod
            augassign_mul augassign_sub SliceGetItem geswitch switch switch_layer
            array_to_scalar is_sequence_shape_unknown is_sequence_value_unknown
            is_dynamic_sequence_element_unknown is_tensor_bool_cond isconstant shape_mul
            reduced_shape broadcast_gradient_args mixed_precision_cast tensor_add tensor_sub
            tensor_mul tensor_div tensor_floordiv tensor_mod tensor_pow tensor_exp
            tensor_expm1 tensor_ge tensor_gt tensor_le tensor_lt tensor_muls tensor_slice
            dyn_shape zip_operation hyper_add UpdateState PyExecute
            J distribute embed ref_to_embed make_map_parameter"""),
    "mindspore.nn": _table(
        parallel="""PipelineCell PipelineGradReducer MicroBatchInterleaved
            AdaSumByDeltaWeightWrapCell AdaSumByGradWrapCell VirtualDatasetCellTriple
            GradAccumulationCell""",
        ascend="""OptTFTWrapper thor Conv2dThor DenseThor EmbeddingThor
            EmbeddingLookupThor GetNextSingleOp"""),
    "mindspore.numpy": _table(
        internal="""array_creations array_creations_module array_ops array_ops_module
            logic_module logic_ops math_module math_ops numeric_types utils utils_const
            dtypes"""),
    "mindspore.train": _table(
        mindinsight=_SUMMARY + " summary",
        parallel=_PARALLEL,
        ascend="TrainFaultTolerance ConvertModelUtils ConvertNetUtils train_thor",
        internal="""anf_ir_pb2 checkpoint_pb2 lineage_pb2 mind_ir_pb2 node_strategy_pb2
            summary_pb2"""),
    "mindspore.amp": _table(
        ascend="AscendEnvChecker NPUClearFloatStatusV2 NPUGetFloatStatusV2",
        internal="""JitExecutor_ MSContext constexpr context jit jit_class logger mstype mutable
            os validator"""),
    "mindspore.dataset": _table(
        internal="""atexit copy glob import_module json multiprocessing np numbers os platform
            signal stat sys threading time uuid warnings weakref Enum GeneratorType typing
            check_add_column check_batch check_bucket_batch_by_length check_concat
            check_device_send check_dict_iterator check_filter check_iterator_cleanup
            check_map check_output_shape check_padded_batch check_project check_recv
            check_rename check_repeat check_save check_schema check_send check_shuffle
            check_skip check_split check_sync_update check_sync_wait check_take
            check_to_device_send check_total_batch check_tuple_iterator check_zip
            check_zip_dataset cde close_worker worker_is_alive WorkerTarget FuncWrapper
            BlockReleasePair DummyIterator ITERATORS_LIST MAX_METADATA_LENGTH
            DE_C_INTER_SENTENCEPIECE_MODE OffloadToManualOffloadMode ShuffleToShuffleMode
            shuffle_to_shuffle_mode int_to_mstype mstype_to_int mstype_to_detype
            flatten_single_lists replace_none select_sampler to_list validator logger ms
            mstype GetOffloadModel encrypt ExceptionHandler""",
        cloud="OBSMindDataset sync_wait_for_dataset",
        ascend="TransferDataset"),
    "mindspore.dataset.vision": _table(internal="py_transforms_util validators"),
    "mindspore.dataset.transforms": _table(internal="py_transforms_util validators vision",
                                           minddata_plugin="Plugin"),
    "mindspore.dataset.text": _table(internal="platform validators"),
    "mindspore.mint": _table(
        ascend="npu_gelu",
        internal="""cdist_ equal_ext_op flatten_ext softmax_ext squeeze_impl constexpr
            jit_forbidden_register jit_view_unsupported mindspore ops functional"""),
    "mindspore.mint.nn": _table(
        internal="""layer nn ops kl_div_ext mse_loss_ext nllloss upsample_bilinear2d_op
            upsample_nearest2d_op"""),
    "mindspore.mint.nn.functional": _table(
        internal="""adaptive_avg_pool3d_ext elu_ext hardtanh_op threshold_op silu_func norm_ext
            ops validator"""),
    "mindspore.mint.special": _table(internal="round_op"),
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
