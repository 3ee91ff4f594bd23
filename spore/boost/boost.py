"""``AutoBoost``: the boost configuration of ``Model(boost_level=...)`` and what it does to
the training network and optimizer (MindSpore's ``mindspore.boost.AutoBoost``)."""
from __future__ import annotations

import copy
import threading

from .base import OptimizerProcess, ParameterProcess
from .grad_freeze import GradientFreeze
from .less_batch_normalization import LessBN

_boost_config_mode = ["auto", "manual", "enable_all", "disable_all"]

_FEATURES = ("less_bn", "grad_freeze", "adasum", "grad_accumulation", "dim_reduce",
             "loss_scale_group")
_boost_config_level = {
    "O0": dict.fromkeys(_FEATURES, False),
    "O1": {**dict.fromkeys(_FEATURES, False), "less_bn": True, "grad_freeze": True},
    "O2": {**dict.fromkeys(_FEATURES, False), "less_bn": True, "grad_freeze": True,
           "adasum": True},
}

# config key -> AutoBoost attribute it sets
_SETTINGS = {"fn_flag": "_fn_flag", "gc_flag": "_gc_flag", "param_groups": "_param_groups",
             "freeze_type": "_freeze_type", "freeze_p": "_freeze_p",
             "total_steps": "_total_steps", "device_number": "device_number",
             "gradient_split_groups": "gradient_groups",
             "grad_accumulation_step": "grad_accumulation_step", "rho": "rho",
             "gamma": "gamma", "alpha": "alpha", "sigma": "sigma",
             "n_components": "n_components", "pca_mat_path": "pca_mat_path",
             "weight_load_dir": "weight_load_dir", "timeout": "timeout"}


class AutoBoost:
    """The process-wide boost configuration (a singleton, as in MindSpore: the first
    construction fixes the level and the config; later ``AutoBoost(...)`` calls return it).

    Args:
        level (str): ``"O0"`` (nothing), ``"O1"`` (less-BN and gradient freezing),
            ``"O2"`` (also AdaSum). Another value means ``"O0"``. Default: ``"O0"``.
        boost_config_dict (dict): ``{"boost": {"mode": "auto" | "manual" | "enable_all" |
            "disable_all", <feature>: bool}, "common": {...}, "less_bn": {...},
            "grad_freeze": {...}, "dim_reduce": {...}}`` (see MindSpore's documentation).
            Default: ``""``.
    """

    _instance_lock = threading.Lock()
    _instance = None

    def __new__(cls, *args, **kwargs):
        with AutoBoost._instance_lock:
            if AutoBoost._instance is None:
                inst = object.__new__(cls)
                inst.level = None
                inst.boost_config_dict = None
                AutoBoost._instance = inst
        return AutoBoost._instance

    def __init__(self, level="O0", boost_config_dict=""):
        if level not in _boost_config_level:
            level = "O0"
        if self.level is not None:
            return
        self.level = level
        self.boost_config_dict = boost_config_dict
        self._fn_flag = True
        self._gc_flag = True
        self._param_groups = 10
        self._freeze_type = 1
        self._freeze_p = 0.7
        self._total_steps = 65536
        self.gradient_groups = None
        self.device_number = 8
        self.grad_accumulation_step = 1
        self.rho = 0.55
        self.gamma = 0.9
        self.alpha = 0.001
        self.sigma = 0.4
        self.n_components = 32
        self.pca_mat_path = None
        self.weight_load_dir = None
        self.local_pca_mat_path = None
        self.timeout = 1800
        self.boost_config = self._get_configuration(level, boost_config_dict)
        self._param_processer = ParameterProcess()

    @classmethod
    def _reset(cls):
        """Forget the singleton (Spore's tests build several configurations)."""
        with cls._instance_lock:
            cls._instance = None

    def network_auto_process_train(self, network, optimizer):
        """``(network, optimizer)`` with the enabled boosts applied."""
        if self.boost_config.get("dim_reduce"):
            raise NotImplementedError(
                "AutoBoost's dim_reduce (PCA matrices computed from the checkpoints in "
                "weight_load_dir, spread over ranks) is not implemented in Spore; build the "
                "step with spore.boost.DimReduce and your own PCA matrix instead.")
        if self.boost_config.get("less_bn"):
            network = LessBN(network, fn_flag=self._fn_flag)
            process = OptimizerProcess(optimizer)
            groups = self._param_processer.assign_parameter_group(network.trainable_params(),
                                                                  self.gradient_groups)
            process.origin_params = ParameterProcess.generate_group_params(
                groups, process.origin_params)
            if self._gc_flag:
                process.add_grad_centralization(network)
            optimizer = process.generate_new_optimizer()
        if self.boost_config.get("grad_freeze"):
            freezer = GradientFreeze(self._param_groups, self._freeze_type, self._freeze_p,
                                     self._total_steps)
            network, optimizer = freezer.freeze_generate(network, optimizer)
        if self.boost_config.get("adasum"):
            optimizer.adasum = True
        return network, optimizer

    def network_auto_process_eval(self, network):
        """The evaluation network with the enabled boosts applied."""
        if self.boost_config.get("dim_reduce"):
            return network
        if self.boost_config.get("less_bn"):
            network = LessBN(network)
        return network

    def _get_configuration(self, level, boost_config_dict):
        config = copy.deepcopy(_boost_config_level[level])
        if not boost_config_dict:
            return config
        mode = boost_config_dict.get("boost", {}).get("mode", "auto")
        if mode not in _boost_config_mode:
            raise ValueError(f"The boost mode must be in {_boost_config_mode}, but got {mode}")
        if mode == "manual":
            for key, value in boost_config_dict["boost"].items():
                if key in config:
                    config[key] = value
        elif mode == "enable_all":
            config = dict.fromkeys(config, True)
        elif mode == "disable_all":
            config = dict.fromkeys(config, False)
        self._apply_settings(boost_config_dict, config)
        return config

    def _apply_settings(self, boost_config_dict, config):
        """Read the per-feature sections of enabled features, and ``common``."""
        for key, section in boost_config_dict.items():
            if (key in config and config[key]) or key == "common":
                for name, value in section.items():
                    if name in _SETTINGS:
                        setattr(self, _SETTINGS[name], value)
