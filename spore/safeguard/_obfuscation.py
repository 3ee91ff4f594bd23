"""Weight obfuscation (``mindspore.safeguard``): ``obfuscate_ckpt`` multiplies chosen weights
of every checkpoint in a folder by random factors (or permutes them) and returns the factors'
inverses, which a deployment feeds to the network; ``load_obf_params_into_net`` checks the
configuration and returns the network, as MindSpore 2.10 does (its network rewriting is
gone from that release).

NOTE: [Obfuscation config]
``obf_config`` has three lists. ``obf_metadata_config``: ``{name, shape, type ('random':
integers in [1, obfuscate_scale) as float16, or 'rearrange': a permutation), save_metadata,
metadata_op ('invert', 'mul', 'matmul'), layers}``: the factors; with ``layers`` one per layer,
``${layer}`` in the name standing for the layer. ``weight_obf_config``: ``{target
('a/b/weight', ``${layer}`` allowed), weight_obf_ops: [{name: 'mul' | 'permuate' | 'matmul',
input_x, input_y, transpose_a, transpose_b}], layers}``: a parameter ``a.b.weight`` is
obfuscated when its name with ``/`` for ``.`` equals a target. ``network_obf_config``:
checked only. ``target_modules=['path/to/cell', 'dense1|dense2']`` (with an optional
``'obfuscate_layers:all'`` / ``'obfuscate_layers:N'``) is shorthand for one 'random' factor
applied to those cells' weight and bias.
"""
from __future__ import annotations

import os
import re
from string import Template

import numpy as np

from .. import ops
from .._dtype import float16, int32
from .._tensor import Tensor
from ..nn.cell import Cell
from ..nn.layer.container import CellList
from ..train._log import logger
from ..train.serialization import load_checkpoint, save_checkpoint

__all__ = ["obfuscate_ckpt", "load_obf_params_into_net"]

_CONFIG_TYPES = ("obf_metadata_config", "weight_obf_config", "network_obf_config")
_METADATA_TYPES = ("random", "rearrange")
_METADATA_OPS = {"mul": ops.mul, "matmul": ops.matmul, "invert": ops.inv}


# ------------------------------------------------------------------ target_modules
def _check_target_modules(network, target_modules):
    """MindSpore's checks; the number of layers the third value asks for (None: all)."""
    if not isinstance(target_modules, list):
        raise TypeError(f"target_modules type should be list, but got {type(target_modules)}.")
    if len(target_modules) < 2:
        raise ValueError("target_modules should contain at least two string values, in the form "
                         f"of ['A/B/C', 'D1|D2'],but got {target_modules}.")
    path, names = target_modules[0], target_modules[1]
    if not isinstance(path, str) or not isinstance(names, str):
        raise TypeError(f"The values of target_modules should be string, but got {type(path)} "
                        f"and {type(names)}.")
    if not names:
        raise ValueError(f"{names} should be a non-empty string value, in the form of 'D1|D2'")
    if not re.fullmatch(r"[A-Za-z0-9_/]*", path) or not re.fullmatch(r"[A-Za-z0-9_|]*", names):
        raise ValueError(f"please check the input 'target_modules'{target_modules},it should be in "
                         "the form of ['A/B/C', 'D1|D2'].target_modules[0] can only contain "
                         "uppercase and lowercase letters, numbers, '_' and '/',target_modules[1] "
                         "can only contain uppercase and lowercase letters, numbers, '_' and '|'")
    cell = _walk(network, path)
    found = [n for n in names.split("|") if hasattr(cell, n)]
    for n in names.split("|"):
        if n not in found:
            logger.warning("%s does not exist in the path %s", n, path)
    if not found:
        raise ValueError(f"all targets {names.split('|')} do not exist in the path {path}.")
    if len(target_modules) >= 3:
        parts = str(target_modules[2]).split(":")
        if len(parts) != 2 or parts[0] != "obfuscate_layers" or \
                not (parts[1] == "all" or parts[1].isdigit()):
            raise ValueError("The third value of target_modules should be in the format of "
                             "'obfuscate_layers:all' or'obfuscate_layers:int'")


def _walk(network, path):
    """The cell at ``path`` (a ``CellList`` on the way: its cells are searched in turn)."""
    parts = path.split("/") if path else []
    stack, cell, i = [network], network, 0
    while stack and i < len(parts):
        cell = stack.pop()
        if hasattr(cell, parts[i]):
            cell = getattr(cell, parts[i])
            i += 1
            if isinstance(cell, CellList):
                stack.extend(cell)
            elif isinstance(cell, Cell):
                stack.append(cell)
            else:
                raise TypeError("Target_modules[0] should be a subgraph and it's type should be "
                                f"nn.Cell(nn.CellList),but got type {type(cell)}")
    if path and i != len(parts):
        raise ValueError(f"the path {path} does not exist.")
    return cell


def _config_from_target_modules(target_modules):
    """The ``obf_config`` a ``target_modules`` list stands for (NOTE: [Obfuscation config]).

    With a layer count the ``blocks`` part of the path becomes ``blocks/${layer}`` and each
    layer gets its own factor ``obf_metadata_${layer}``."""
    path, names = target_modules[0], target_modules[1].split("|")
    metadata = {"name": "obf_metadata", "shape": [1], "type": "random", "save_metadata": True,
                "metadata_op": "invert"}
    factor, layers = "obf_metadata", []
    if len(target_modules) >= 3:
        count = target_modules[2].split(":")[1]
        layers = list(range(12 if count == "all" else int(count)))
        path = path.replace("blocks", "blocks/${layer}")
        factor = metadata["name"] = "obf_metadata_${layer}"
        metadata["layers"] = layers
    weights, network = [], []
    for name in names:
        for leaf in ("weight", "bias"):
            target = "/".join(p for p in (path, name, leaf) if p)     # '' is the network
            weights.append({"target": target, "layers": layers,
                            "weight_obf_ops": [{"name": "mul", "input_x": "weight",
                                                "input_y": factor}]})
        network.append({"module": "/" + path, "target": name, "layers": layers,
                        "insert_new_input": [{"name": factor}],
                        "insert_ops": [{"name": "mul", "input_x": "weight", "input_y": factor}]})
    return {"obf_metadata_config": [metadata], "weight_obf_config": weights,
            "network_obf_config": network}


# ------------------------------------------------------------------ obf_config checks
def _check_config(obf_config, config_type):
    for key in obf_config:
        if key not in _CONFIG_TYPES:
            raise TypeError(f"config_type must be str, and in {list(_CONFIG_TYPES)}, but got {key}.")
    entries = obf_config.get(config_type)
    if not isinstance(entries, list):
        raise TypeError(f"obf_config[] type of should be list, but got {type(entries)}.")
    for entry in entries:
        if not isinstance(entry, dict):
            raise TypeError(f"obf_config[][] type should be dict, but got {type(entry)}.")
        _ENTRY_CHECKS[config_type](entry)
        layers = entry.get("layers")
        if layers is not None and (not isinstance(layers, list) or
                                   not all(isinstance(x, int) for x in layers)):
            raise TypeError(f"obf_config[][]['layers'] type should be list of int, but got "
                            f"{layers!r}.")


def _need(entry, key, kind, what):
    value = entry.get(key)
    if not value or not isinstance(value, kind):
        raise TypeError(f"obf_config[][]['{key}'] type should be {what}, but got {type(value)}.")
    return value


def _check_metadata_entry(entry):
    _need(entry, "name", str, "str")
    if not all(isinstance(x, int) for x in _need(entry, "shape", list, "list")):
        raise TypeError("shape[] type should be int.")
    if not isinstance(entry.get("save_metadata", True), bool):
        raise TypeError("obf_config[][]['save_metadata'] type should be bool.")
    kind = entry.get("type")
    if kind is not None and kind not in _METADATA_TYPES:
        raise TypeError(f"obf_config[][]['type'] should be str and must in "
                        f"{list(_METADATA_TYPES)}, but got {kind!r}.")


def _check_ops(entries, key):
    if not isinstance(entries, list):
        raise TypeError(f"obf_config[][]['{key}'] type should be list, but got {type(entries)}.")
    for op in entries:
        for field in ("name", "input_x", "input_y"):
            if not isinstance(op.get(field), str):
                raise TypeError(f"{field} type should be str, but got {type(op.get(field))}.")
        for field in ("transpose_a", "transpose_b"):
            if not isinstance(op.get(field, False), bool):
                raise TypeError(f"{field} type should be bool, but got {type(op.get(field))}.")


def _check_weight_entry(entry):
    _need(entry, "target", str, "str")
    _check_ops(entry.get("weight_obf_ops", []), "weight_obf_ops")


def _check_network_entry(entry):
    _need(entry, "target", str, "str")
    _need(entry, "module", str, "str")
    inputs = entry.get("insert_new_input", [])
    if not isinstance(inputs, list) or not all(isinstance(i.get("name"), str) for i in inputs):
        raise TypeError("obf_config[][]['insert_new_input'] type should be a list of "
                        "{'name': str}.")
    _check_ops(entry.get("insert_ops", []), "insert_ops")


_ENTRY_CHECKS = {"obf_metadata_config": _check_metadata_entry,
                 "weight_obf_config": _check_weight_entry,
                 "network_obf_config": _check_network_entry}


def _resolve_config(network, target_modules, obf_config, config_types):
    if obf_config is None:
        _check_target_modules(network, target_modules)
        logger.warning("'target_modules and obf_ratios' will be deprecated and removed in a "
                       "future version, use 'obf_config' instead.")
        obf_config = _config_from_target_modules(target_modules)
    if not isinstance(obf_config, dict):
        raise TypeError(f"obf_config type should be dict, but got {type(obf_config)}.")
    if not obf_config:
        raise ValueError("'obf_config' is empty or not valid, please check the input.")
    for config_type in config_types:
        _check_config(obf_config, config_type)
    return obf_config


# ------------------------------------------------------------------ obfuscation
def _factors(obf_config, scale):
    """({name: factor Tensor}, {name: saved ndarray}) from ``obf_metadata_config``."""
    factors, saved = {}, {}
    for entry in obf_config.get("obf_metadata_config", []):
        layers = entry.get("layers") or [None]
        for layer in layers:
            name = entry["name"] if layer is None else \
                Template(entry["name"]).safe_substitute(layer=str(layer))
            if layer is None and name in factors:
                continue
            factor = _factor(entry.get("shape"), entry.get("type"), scale)
            factors[name] = factor
            if entry.get("save_metadata", False) and factor is not None:
                op = entry.get("metadata_op")
                if op is not None and op not in _METADATA_OPS:
                    raise KeyError(f"'op name' must be in {list(_METADATA_OPS)}, but got {op}.")
                kept = factor if op is None else _METADATA_OPS[op](factor)
                saved[name] = kept.asnumpy()
    return factors, saved


def _factor(shape, kind, scale):
    if kind == "random":
        return Tensor(np.random.randint(1, scale, size=shape), dtype=float16)
    if kind == "rearrange" and len(shape) == 1:
        return Tensor(np.random.permutation(shape[0]), dtype=int32)
    if kind == "rearrange" and len(shape) == 2:
        return Tensor(np.identity(shape[0])[:, np.random.permutation(shape[1])], dtype=int32)
    return None


def _apply_ops(param, factors, obf_ops, layer):
    """``param`` through the ops, or None when an input is missing (MindSpore logs it)."""
    def name_of(op, key):
        return Template(op.get(key, "")).safe_substitute(layer=str(layer))

    out = param
    for op in obf_ops:
        kind = op.get("name")
        if kind == "mul":
            y = factors.get(name_of(op, "input_y"))
            if y is None:
                return None
            out = ops.mul(out, ops.cast(y, param.dtype))
        elif kind == "permuate":
            p = factors.get(name_of(op, "input_x"))
            if p is None:
                return None
            out = out[p]
        elif kind == "matmul":
            x, y = (factors.get(n) if n.startswith("obf_metadata") else out
                    for n in (name_of(op, "input_x"), name_of(op, "input_y")))
            if x is None or y is None:
                return None
            x = ops.transpose(x, (1, 0)) if op.get("transpose_a", False) else x
            y = ops.transpose(y, (1, 0)) if op.get("transpose_b", False) else y
            out = ops.matmul(ops.cast(x, param.dtype), ops.cast(y, param.dtype))
        else:
            logger.error("unsupported op, op must be matmul or permuate or mul, but got %s.", kind)
            return None
    return out


def _obfuscate_file(path, factors, obf_config, saved_path):
    try:
        params = load_checkpoint(path)
    except (ValueError, TypeError, OSError):
        logger.error("Load checkpoint failed for file %s.", path)
        return False
    for name, param in params.items():
        if isinstance(param, str):
            continue
        slashed = name.replace(".", "/")
        for entry in obf_config.get("weight_obf_config", []):
            target, obf_ops = entry.get("target"), entry.get("weight_obf_ops")
            if not target or not obf_ops:
                raise KeyError("target or obf_ops is None.")
            for layer in entry.get("layers") or [None]:
                wanted = target if layer is None else \
                    Template(target).safe_substitute(layer=str(layer))
                if wanted != slashed:
                    continue
                out = _apply_ops(param.value(), factors, obf_ops, layer)
                if out is None:
                    logger.error("obfuscate weight %s failed.", name)
                    return False
                param.set_data(out)
    base = os.path.basename(path).split(".")[0]
    save_checkpoint([{"name": k, "data": v} for k, v in params.items()],
                    os.path.join(os.path.realpath(saved_path), base + "_obf.ckpt"))
    return True


def _check_dir(name, path):
    if not isinstance(path, str):
        raise TypeError(f"{name} must be string, but got {type(path)}.")
    if not os.path.exists(path):
        raise ValueError(f"{path} is not exist, please check the input {name}.")
    if not os.path.isdir(path):
        raise TypeError(f"{name} must be a directory path, but got {path}.")


def obfuscate_ckpt(network, ckpt_files, target_modules=None, obf_config=None, saved_path="./",
                   obfuscate_scale=100):
    """Obfuscate every ``.ckpt`` file in the folder ``ckpt_files`` (and its sub-folders, saved
    to matching sub-folders) into ``<name>_obf.ckpt`` under ``saved_path``.

    Args:
        network (Cell): the network the checkpoints belong to (checks ``target_modules``).
        ckpt_files (str): the folder of checkpoint files.
        target_modules (list[str]): ``['path/to/cell', 'dense1|dense2']`` (with an optional
            ``'obfuscate_layers:all'`` or ``'obfuscate_layers:N'``); used without
            ``obf_config``.
        obf_config (dict): NOTE: [Obfuscation config].
        saved_path (str): the folder for the obfuscated files.
        obfuscate_scale (Union[float, int]): random factors are integers in
            ``[1, obfuscate_scale)``.

    Returns:
        dict: ``{factor name: ndarray}``, the saved metadata (by default each factor's
        float16 inverse), which the network multiplies back at run time.
    """
    if not isinstance(network, Cell):
        raise TypeError(f"network must be nn.Cell, but got {type(network)}.")
    _check_dir("ckpt_files", ckpt_files)
    _check_dir("saved_path", saved_path)
    obf_config = _resolve_config(network, target_modules, obf_config,
                                 ("obf_metadata_config", "weight_obf_config"))
    if isinstance(obfuscate_scale, bool) or not isinstance(obfuscate_scale, (float, int)) or \
            obfuscate_scale <= 1:
        raise ValueError(f"obfuscate_scale must be float or int, and larger than 1, but got "
                         f"{obfuscate_scale}.")
    factors, saved = _factors(obf_config, obfuscate_scale)
    root = os.path.realpath(ckpt_files)
    for name in sorted(os.listdir(root)):
        sub = os.path.join(root, name)
        if os.path.isdir(sub):
            out = os.path.join(os.path.realpath(saved_path), name)
            os.makedirs(out, mode=0o700, exist_ok=True)
            for file in sorted(os.listdir(sub)):
                if file.endswith(".ckpt"):
                    _obfuscate_file(os.path.join(sub, file), factors, obf_config, out)
        elif name.endswith(".ckpt"):
            _obfuscate_file(sub, factors, obf_config, saved_path)
    return saved


def load_obf_params_into_net(network, target_modules=None, obf_ratios=None, obf_config=None,
                             data_parallel_num=1, **kwargs):
    """Check the obfuscation configuration against ``network`` and return the network, as
    MindSpore 2.10 does (load the ``*_obf.ckpt`` file into it with ``load_checkpoint``)."""
    if not isinstance(network, Cell):
        raise TypeError(f"network must be nn.Cell, but got {type(network)}.")
    if obf_ratios is not None and not isinstance(obf_ratios, Tensor):
        raise TypeError(f"obf_ratios must be Tensor, but got {type(obf_ratios)}.")
    if obf_ratios is not None and obf_ratios.size == 0:
        raise ValueError("obf_ratios can not be empty.")
    for key in ("ignored_func_decorators", "ignored_class_decorators"):
        value = kwargs.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError(f"{key} must be list[str], but got {value!r}.")
    _resolve_config(network, target_modules, obf_config, ("network_obf_config",))
    if isinstance(data_parallel_num, bool) or not isinstance(data_parallel_num, int) or \
            data_parallel_num <= 0:
        raise ValueError(f"data_parallel_num must be positive number, but got "
                         f"{data_parallel_num}.")
    return network
