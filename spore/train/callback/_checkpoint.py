"""ModelCheckpoint and CheckpointConfig: save the training network during training.

Files are ``<prefix>-<epoch>_<step in epoch>.ckpt`` in ``directory``. If files
of the same prefix already exist there when the callback is created, the prefix
becomes ``<prefix>_<n>`` (``CKP_1-1_1.ckpt``) so runs never overwrite each other.
The saved network is ``cb_params.train_network`` (network + optimizer state).
"""
from __future__ import annotations

import os
import stat
import time

from ..._parameter import Parameter
from ..._tensor import Tensor
from ...nn.cell import Cell
from .. import serialization
from .._log import logger
from ._callback import Callback

_INFO_KEYS = ("epoch_num", "step_num")


def _non_negative_int(name, value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'CheckpointConfig', the type of '{name}' must be int, but got "
                        f"{type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For 'CheckpointConfig', the '{name}' must be a non-negative int, but "
                         f"got {value}.")
    return value


class CheckpointConfig:
    """When and what ``ModelCheckpoint`` saves.

    Args:
        save_checkpoint_steps (int): save every N steps (default 1).
        save_checkpoint_seconds (int): save every N seconds (used when steps is 0/None).
        keep_checkpoint_max (int): keep at most N files of this prefix (default 5).
        keep_checkpoint_per_n_minutes (int): keep one file per N minutes (when max is 0).
        saved_network (Cell): save this network instead of the training network.
        append_info (list): ``"epoch_num"``, ``"step_num"`` and/or one dict of extra
            entries to store in every file.
        crc_check (bool), format (str), integrated_save, async_save, enc_key, enc_mode:
            passed to ``save_checkpoint``.
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt",
                 **kwargs):
        steps = _non_negative_int("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _non_negative_int("save_checkpoint_seconds", save_checkpoint_seconds)
        keep_max = _non_negative_int("keep_checkpoint_max", keep_checkpoint_max)
        per_minutes = _non_negative_int("keep_checkpoint_per_n_minutes",
                                        keep_checkpoint_per_n_minutes)
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(f"For 'CheckpointConfig', the type of 'saved_network' must be None or "
                            f"Cell, but got {str(type(saved_network))}.")
        if not (steps or seconds or keep_max or per_minutes):
            raise ValueError("For 'CheckpointConfig', the input arguments 'save_checkpoint_steps', "
                             "'save_checkpoint_seconds', 'keep_checkpoint_max' and "
                             "'keep_checkpoint_per_n_minutes' can't be all None or 0.")
        for name, value in (("integrated_save", integrated_save),
                            ("exception_save", exception_save), ("crc_check", crc_check),
                            ("remove_redundancy", remove_redundancy)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'CheckpointConfig', the type of '{name}' must be bool, but "
                                f"got {type(value).__name__}.")
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"For 'CheckpointConfig', the 'format' must be 'ckpt' or "
                             f"'safetensors', but got {format}.")
        if format == "safetensors" and (enc_key is not None or enc_mode != "AES-GCM" or crc_check
                                        or exception_save):
            raise ValueError("For 'save_checkpoint', when format is 'safetensors', other param "
                             "must be default.")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = None if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = per_minutes
        if keep_max:
            self._keep_checkpoint_per_n_minutes = None
        elif not per_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = integrated_save
        self._async_save = serialization._check_async_save(async_save)
        self._saved_network = saved_network
        self._append_dict = self._handle_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._crc_check = crc_check
        self._format = format
        self.exception_save = exception_save
        self.remove_redundancy = remove_redundancy

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)
    append_dict = property(lambda self: self._append_dict)

    def get_checkpoint_policy(self):
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}

    @staticmethod
    def _handle_append_info(append_info):
        if append_info is None or append_info == []:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' must be list,but "
                            f"got {str(type(append_info))}.")
        result = {key: 0 for key in _INFO_KEYS if key in append_info}
        dicts = [e for e in append_info if isinstance(e, dict)]
        for element in append_info:
            if not isinstance(element, (str, dict)):
                raise TypeError(f"For 'CheckpointConfig', the type of 'append_info' element must "
                                f"be str or dict,but got {str(type(element))}.")
            if isinstance(element, str) and element not in _INFO_KEYS:
                raise ValueError(f"For 'CheckpointConfig', the value of element in the argument "
                                 f"'append_info' must be in {list(_INFO_KEYS)}, but got {element}.")
        if len(dicts) > 1:
            raise TypeError(f"For 'CheckpointConfig', the element of 'append_info' must has only "
                            f"one dict, but got {len(dicts)}")
        for key, value in (dicts[0].items() if dicts else ()):
            if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Parameter,
                                                                  Tensor)):
                raise TypeError(f"For 'CheckpointConfig', the key type of the dict 'append_info' "
                                f"must be string, the value type must be int or float or bool, "
                                f"but got key type {type(key)}, value type {type(value)}")
            result[key] = value
        return result


def unique_prefix(directory, prefix):
    """``prefix`` or ``prefix_<n>`` so no existing checkpoint in ``directory`` is reused:
    ``CKP-1_1.ckpt`` present -> ``CKP_1``; ``CKP_3-2_1.ckpt`` present -> ``CKP_4``."""
    suffix = 0
    for filename in os.listdir(directory):
        stem, ext = os.path.splitext(filename)
        if ext not in (".ckpt", ".safetensors") or filename.endswith("_breakpoint.ckpt"):
            continue
        if not filename.startswith(prefix) or filename[len(prefix):][:1].isalpha():
            continue
        rest = filename[len(prefix):]
        dash = rest.find("-")
        if dash == 0:
            suffix = max(suffix, 1)
        elif dash > 0 and rest[1:dash].isdigit():
            suffix = max(suffix, int(rest[1:dash]) + 1)
    return f"{prefix}_{suffix}" if suffix else prefix


class CheckpointManager:
    """The checkpoint files of one prefix in a folder, oldest removed first."""

    def __init__(self, format="ckpt"):
        self._format = format
        self._files = []

    @property
    def ckpoint_filelist(self):
        return list(self._files)

    @property
    def ckpoint_num(self):
        return len(self._files)

    def update_ckpoint_filelist(self, directory, prefix):
        """Files named ``<prefix>-<digits, '-' and '_'>.<format>`` in ``directory``."""
        ext = f".{self._format}"
        self._files = [os.path.join(directory, name) for name in os.listdir(directory)
                       if name.endswith(ext) and name.startswith(prefix + "-")
                       and not any(c.isalpha() for c in name[len(prefix):-len(ext)])]

    def remove_ckpoint_file(self, file_name):
        try:
            os.chmod(file_name, stat.S_IWRITE | stat.S_IREAD)
            os.remove(file_name)
            self._files.remove(file_name)
        except (OSError, ValueError):
            logger.warning("Failed to remove the older ckpt file %s.", file_name)

    def remove_oldest_ckpoint_file(self):
        self.remove_ckpoint_file(min(self._files, key=lambda f: (os.stat(f).st_mtime_ns, f)))

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the files younger than ``minutes``, keep only the oldest."""
        recent = [f for f in self._files if cur_time - os.path.getmtime(f) < 60 * minutes]
        if recent:
            oldest = min(recent, key=os.path.getmtime)
            for name in recent:
                if name != oldest:
                    self.remove_ckpoint_file(name)


class ModelCheckpoint(Callback):
    """Save checkpoints during training as ``<prefix>-<epoch>_<step>.ckpt``.

    Args:
        prefix (str): file name prefix (no '/'); made unique in ``directory``.
        directory (str): the folder (created if missing; default: the current directory).
        config (CheckpointConfig): when to save and how many files to keep.
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        super().__init__()
        if callable(prefix) or callable(directory):
            raise NotImplementedError("Spore's ModelCheckpoint takes a str 'prefix' and "
                                      "'directory' (callables are not supported).")
        if not isinstance(prefix, str) or "/" in prefix:
            raise ValueError(f"For 'ModelCheckpoint', the argument 'prefix' for checkpoint file "
                             f"name is invalid, it must be callable or string that does not "
                             f"contain '/', but got {prefix}.")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the type of argument 'config' should be "
                            f"'CheckpointConfig', but got {type(config)}.")
        self._config = config if config is not None else CheckpointConfig()
        self._directory = os.getcwd() if directory is None else _make_directory(directory)
        self._prefix = unique_prefix(self._directory, prefix)
        self._manager = CheckpointManager(self._config.format)
        self._append_dict = dict(self._config.append_dict or {})
        self._append_base = {k: self._append_dict.get(k, 0) for k in _INFO_KEYS}
        self._latest_ckpt_file_name = ""
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._last_time_for_keep = time.time()

    @property
    def latest_ckpt_file_name(self):
        return self._latest_ckpt_file_name

    def step_end(self, run_context):
        self._save_ckpt(run_context.original_args())

    def end(self, run_context):
        self._save_ckpt(run_context.original_args(), force=True)
        serialization.wait_async_save()

    def _due(self, cb_params, force):
        cfg = self._config
        if cfg.save_checkpoint_steps:
            return force or cb_params.cur_step_num >= \
                self._last_triggered_step + cfg.save_checkpoint_steps
        if cfg.save_checkpoint_seconds:
            now = time.time()
            if force or now - self._last_time > cfg.save_checkpoint_seconds:
                self._last_time = now
                return True
        return False

    def _save_ckpt(self, cb_params, force=False):
        if cb_params.cur_step_num == self._last_triggered_step or not self._due(cb_params, force):
            return
        step_in_epoch = (cb_params.cur_step_num - 1) % cb_params.batch_num + 1
        name = f"{self._prefix}-{cb_params.cur_epoch_num}_{step_in_epoch}.{self._config.format}"
        if serialization._writes_here(self._directory):     # only the ranks that write prune
            self._prune_old_files()
        self._last_time_for_keep = time.time()
        self._last_triggered_step = cb_params.cur_step_num
        self._update_append_dict(cb_params)
        network = self._config.saved_network or cb_params.train_network
        path = os.path.join(self._directory, name)
        serialization.save_checkpoint(network, path, self._config.integrated_save,
                                      self._config.async_save, self._append_dict or None,
                                      self._config.enc_key, self._config.enc_mode,
                                      crc_check=self._config.crc_check,
                                      format=self._config.format)
        self._latest_ckpt_file_name = path
        if "latest_ckpt_file" in cb_params:
            cb_params.latest_ckpt_file = path
            cb_params.last_save_ckpt_step = cb_params.cur_step_num

    def _prune_old_files(self):
        cfg = self._config
        self._manager.update_ckpoint_filelist(self._directory, self._prefix)
        if cfg.keep_checkpoint_max and 0 < cfg.keep_checkpoint_max <= self._manager.ckpoint_num:
            self._manager.remove_oldest_ckpoint_file()
        elif cfg.keep_checkpoint_per_n_minutes:
            now = time.time()
            if now - self._last_time_for_keep < cfg.keep_checkpoint_per_n_minutes * 60:
                self._manager.keep_one_ckpoint_per_minutes(cfg.keep_checkpoint_per_n_minutes, now)

    def _update_append_dict(self, cb_params):
        if "epoch_num" in self._append_dict:
            self._append_dict["epoch_num"] = self._append_base["epoch_num"] + \
                cb_params.cur_epoch_num
        if "step_num" in self._append_dict:
            self._append_dict["step_num"] = self._append_base["step_num"] + cb_params.cur_step_num


def _make_directory(path):
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"For 'ModelCheckpoint', the 'directory' must be a non-empty str, but got "
                         f"{path!r}.")
    path = os.path.realpath(path)
    os.makedirs(path, exist_ok=True)
    return path
