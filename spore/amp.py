"""Mixed precision (``mindspore.amp``): run networks in float16/bfloat16 with float32
master weights, and scale the loss so that half-precision gradients do not underflow.

NOTE: [Mixed-precision levels]
A Cell run in a low-precision ``dtype`` (``Cell.to_float``) casts its float inputs to
it and its layers cast their float32 weights on the fly; the Parameters stay
float32, so the optimizer updates float32 master weights from float32 gradients
(the gradient of a cast is cast back). The levels choose what runs in ``dtype``:

* ``O0``: nothing;
* ``O1``: the compute-heavy layers of the white list (Dense, convolutions, RNN
  cells), each returning float32;
* ``O2``: everything except the black list (BatchNorm, LayerNorm stay float32, their
  outputs cast to ``dtype``), the network's output cast to float32;
* ``O3``: everything, the output cast to float32.

``build_train_network`` adds the loss (computed in float32) and the training step,
with loss scaling when the level or a loss-scale manager asks for it.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from . import nn, ops
from ._dtype import bfloat16, float16, float32, int32
from ._parameter import Parameter
from ._tensor import Tensor
from .nn.optim._checks import check_positive_int

__all__ = ["AllFinite", "auto_mixed_precision", "build_train_network", "get_white_list", "get_black_list",
           "custom_mixed_precision", "LossScaleManager", "FixedLossScaleManager",
           "DynamicLossScaleManager", "LossScaler", "StaticLossScaler", "DynamicLossScaler",
           "all_finite"]

_LEVELS = ["O0", "O1", "O2", "O3", "auto"]
_WHITE_CELLS = ("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell")
_WHITE_PRIMS = ("Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose", "Conv2DBackpropInput",
                "MatMul", "BatchMatMul", "PReLU", "ReLU", "Ger")
_BLACK_CELLS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm")


def _classes(module, names):
    """The classes of ``names`` that ``module`` defines (layers may still be missing)."""
    return [getattr(module, n) for n in names if isinstance(getattr(module, n, None), type)]


def get_white_list():
    """The layer and primitive classes that level ``O1`` runs in low precision."""
    return _classes(nn, _WHITE_CELLS) + _classes(ops, _WHITE_PRIMS)


def get_black_list():
    """The layer classes that level ``O2`` keeps in float32."""
    return _classes(nn, _BLACK_CELLS)


# ----------------------------------------------------------------- output casts
def _cast_floats(value, dtype):
    """``value`` with every floating-point Tensor in it cast to ``dtype``."""
    if isinstance(value, Tensor):
        if value.dtype.is_floating_point and value.dtype is not dtype:
            return ops.cast(value, dtype)
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    return value


class _CastOutput(nn.Cell):
    """Runs ``backbone`` and casts its floating-point outputs to ``dtype``; other
    attributes are read from the backbone."""

    def __init__(self, backbone, dtype):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return _cast_floats(self._backbone(*args, **kwargs), self.dtype)

    def __getattr__(self, name):
        backbone = self.__dict__.get("_backbone")
        if backbone is None:
            raise AttributeError(name)
        return getattr(backbone, name)


class _OutputTo16(_CastOutput):
    def __init__(self, backbone, dtype=float16):
        super().__init__(backbone, dtype)


class _OutputTo32(_CastOutput):
    def __init__(self, backbone):
        super().__init__(backbone, float32)


def _output_to_float32_hook(cell, inputs, output):
    return _cast_floats(output, float32)


# ----------------------------------------------------------------- levels
def _white_list_to(network, dtype, white_list):
    """O1: the white-listed cells compute in ``dtype`` and return float32."""
    cells = tuple(c for c in white_list if issubclass(c, nn.Cell))
    for _, cell in network.cells_and_names():
        if isinstance(cell, cells) and not getattr(cell, "_amp_output_hook", None):
            cell.to_float(dtype)
            cell.__dict__["_amp_output_hook"] = cell.register_forward_hook(
                _output_to_float32_hook)
    return network


def _keep_black_list_fp32(network, black_list, dtype):
    """Put each black-listed child back in float32, its output cast to ``dtype``."""
    black = tuple(black_list)
    for name, child in list(network.name_cells().items()):
        if child is network:
            continue
        if isinstance(child, black):
            wrapped = _OutputTo16(child.to_float(float32), dtype)
            network._cells[name] = wrapped
            network.__dict__[name] = wrapped
        else:
            _keep_black_list_fp32(child, black, dtype)
    return network


def _auto_black_list(network, black_list, dtype):
    network.to_float(dtype)
    return _keep_black_list_fp32(network, black_list, dtype)


def auto_mixed_precision(network, amp_level="O0", dtype=float16):
    """Return ``network`` set up for mixed precision at ``amp_level`` (see NOTE:
    [Mixed-precision levels]).

    Args:
        network (Cell): the network.
        amp_level (str): ``"O0"``, ``"O1"``, ``"O2"`` or ``"O3"``. Default: ``"O0"``.
        dtype: ``mstype.float16`` or ``mstype.bfloat16``. Default: ``mstype.float16``.

    Returns:
        The network (``O0``, ``O1``) or a wrapper whose output is float32 (``O2``, ``O3``).

    Examples:
        >>> import spore as ms
        >>> from spore import nn, amp
        >>> net = amp.auto_mixed_precision(nn.Dense(4, 2), "O3")
        >>> net(ms.Tensor([[1.0, 2.0, 3.0, 4.0]])).dtype
        mindspore.float32
    """
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For amp_level '{amp_level}', the network type should be Cell.")
    if dtype not in (float16, bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got "
                         f"{dtype}.")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        network = _white_list_to(network, dtype, get_white_list())
    elif amp_level == "O2":
        network = _OutputTo32(_auto_black_list(network, get_black_list(), dtype))
    elif amp_level == "O3":
        network = _OutputTo32(network.to_float(dtype))
    elif amp_level == "auto":
        raise ValueError("The amp level 'auto' (per-operator casting) is not supported by Spore; "
                         "use 'O1', 'O2' or 'O3'.")
    else:
        raise ValueError(f"The amp level {amp_level} is not supported")
    network.__dict__["_amp_level"] = amp_level
    return network


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=float16):
    """Like ``auto_mixed_precision`` with your own lists: cells in ``white_list`` run in
    ``dtype`` (returning float32), or everything but the cells in ``black_list`` does."""
    if not isinstance(network, nn.Cell):
        raise TypeError("The network type should be Cell.")
    if white_list is None and black_list is None:
        raise ValueError("For custom_mixed_precision, one of white_list and black_list must be "
                         "provided.")
    if white_list is not None and black_list is not None:
        raise ValueError("For custom_mixed_precision, the white_list or black_list cannot be "
                         "provided at the same time, please provide one or the other.")
    if dtype not in (float16, bfloat16):
        raise ValueError(f"The dtype should be one of (mstype.float16, mstype.bfloat16), but got "
                         f"{dtype}.")
    chosen, list_name = (white_list, "white_list") if white_list is not None else \
        (black_list, "black_list")
    if not isinstance(chosen, list) or not all(isinstance(c, type) for c in chosen):
        raise TypeError(f"The type of {list_name} should be a list of classes, but got "
                        f"{chosen!r}.")
    if white_list is not None:
        return _white_list_to(network, dtype, white_list)
    return _OutputTo32(_auto_black_list(network, black_list, dtype))


# ----------------------------------------------------------------- loss-scale managers
class LossScaleManager:
    """Base of loss-scale managers: ``get_loss_scale``, ``update_loss_scale(overflow)`` and
    ``get_update_cell`` (the Cell a training step calls to update the scale)."""

    def get_loss_scale(self):
        """The current loss scale."""

    def update_loss_scale(self, overflow):
        """Update the loss scale from the overflow flag of a step."""

    def get_update_cell(self):
        """The Cell that updates the scale inside :class:`nn.TrainOneStepWithLossScaleCell`."""


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale.

    Args:
        loss_scale (float): >= 1. Default: ``128.0``.
        drop_overflow_update (bool): skip the update of a step whose gradients overflowed.
            Without it, no overflow check runs and the optimizer's own ``loss_scale`` must
            equal ``loss_scale`` (it unscales the gradients). Default: ``True``.
    """

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = drop_overflow_update

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """A fixed scale does not change."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        return nn.FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale divided by ``scale_factor`` on overflow (not below 1) and multiplied by
    it after ``scale_window`` steps without overflow.

    Args:
        init_loss_scale (float): >= 1. Default: ``2 ** 24``.
        scale_factor (int): > 0. Default: ``2``.
        scale_window (int): > 0. Default: ``2000``.
    """

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got "
                             f"{init_loss_scale}")
        self.loss_scale = init_loss_scale
        check_positive_int(scale_window, "scale_window", type(self).__name__)
        self.scale_window = scale_window
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.scale_factor = scale_factor
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"Dynamic loss scale Continuous overflow {self.bad_step} times, "
                               "has exceeded maximum threshold.")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


# ----------------------------------------------------------------- build_train_network
def _level_config(level):
    return {
        "O0": {"keep_batchnorm_fp32": False, "cast_model_type": float32,
               "loss_scale_manager": None},
        "O1": {"keep_batchnorm_fp32": False, "cast_model_type": float32,
               "loss_scale_manager": None},
        "O2": {"keep_batchnorm_fp32": True, "cast_model_type": float16,
               "loss_scale_manager": DynamicLossScaleManager()},
        "O3": {"keep_batchnorm_fp32": False, "cast_model_type": float16,
               "loss_scale_manager": None},
        "auto": {"keep_batchnorm_fp32": False, "cast_model_type": float32,
                 "loss_scale_manager": None},
    }[level]


def _check_level(level, boost_level):
    if not isinstance(level, str):
        raise TypeError(f"The argument `level` must be a string in {_LEVELS},but got type "
                        f"{type(level)}.")
    if level not in _LEVELS:
        raise ValueError(f"The 'level' should be in : {_LEVELS}, but got {level}.")
    if boost_level not in ("O0", "O1", "O2"):
        raise ValueError(f"The 'boost_level' should be in : ['O0', 'O1', 'O2'], but got "
                         f"{boost_level}.")


def _check_kwargs(kwargs):
    for arg in kwargs:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    if "cast_model_type" in kwargs and kwargs["cast_model_type"] not in (float16, float32):
        raise TypeError(f"The type of 'cast_model_type' should be one of [Float16, Float32], "
                        f"but got {kwargs['cast_model_type']}.")
    if "keep_batchnorm_fp32" in kwargs and not isinstance(kwargs["keep_batchnorm_fp32"], bool):
        raise TypeError("The type of 'keep_batchnorm_fp32' should be 'bool', but got type "
                        f"'{type(kwargs['keep_batchnorm_fp32']).__name__}'.")
    manager = kwargs.get("loss_scale_manager")
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError("The type of 'loss_scale_manager' should be 'LossScaleManager', but got "
                        f"type '{type(manager).__name__}'.")


def _apply_level(network, config, level):
    if config["cast_model_type"] == float16:
        network.to_float(float16)
        if config["keep_batchnorm_fp32"]:
            _keep_black_list_fp32(network, get_black_list(), float16)
        return network
    if level == "O2" and not config["keep_batchnorm_fp32"]:
        return network.to_float(float16)
    if level in ("O2", "O3"):          # cast_model_type float32 overrides the level
        return network
    return auto_mixed_precision(network, level)


class _WithLossCellFP32(nn.Cell):
    """WithLossCell for a low-precision backbone: the loss is computed in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(_cast_floats(out, float32), _cast_floats(label, float32))


def _add_loss_network(network, loss_fn, cast_model_type):
    if not isinstance(loss_fn, nn.Cell):
        raise TypeError(f"The type of 'loss_fn' should be 'Cell', but got type "
                        f"'{type(loss_fn).__name__}'.")
    low = cast_model_type in (float16, bfloat16) or \
        getattr(network, "_amp_level", None) in ("O2", "O3", "auto")
    return _WithLossCellFP32(network, loss_fn) if low else nn.WithLossCell(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training-step Cell for ``network`` at a mixed-precision level.

    Args:
        network (Cell): the network (or network + loss if ``loss_fn`` is None).
        optimizer (Cell): the optimizer.
        loss_fn (Cell): the loss; computed in float32. Default: ``None``.
        level (str): ``"O0"`` (float32), ``"O1"`` (white list in float16), ``"O2"`` (float16
            except BatchNorm/LayerNorm, dynamic loss scaling), ``"O3"`` (all float16).
        boost_level (str): ``"O0"``; ``"O1"`` / ``"O2"`` build the step with
            :class:`spore.boost.BoostTrainOneStepCell` (or its loss-scale variant).
        kwargs: ``cast_model_type`` (float16/float32), ``keep_batchnorm_fp32`` (bool) and
            ``loss_scale_manager`` (a :class:`LossScaleManager` or None) override the level.

    Returns:
        :class:`nn.TrainOneStepWithLossScaleCell` when the loss-scale manager has an update
        cell, else :class:`nn.TrainOneStepCell` (seeded with the manager's fixed scale),
        in training mode (their ``spore.boost`` variants for boost levels O1/O2).
    """
    from . import boost
    if not isinstance(optimizer, (nn.Optimizer, nn.AdamW, boost.FreezeOpt)):
        raise TypeError("The type of 'optimizer' should be one of '['Optimizer', 'AdamW', "
                        f"'FreezeOpt']', but got type '{type(optimizer).__name__}'.")
    _check_level(level, boost_level)
    enable_boost = boost_level in ("O1", "O2")
    _check_kwargs(kwargs)
    config = dict(_level_config(level), **kwargs)
    network = _apply_level(network, config, level)
    if loss_fn:
        network = _add_loss_network(network, loss_fn, config["cast_model_type"])
    manager = config["loss_scale_manager"]
    loss_scale = None
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            step = boost.BoostTrainOneStepWithLossScaleCell if enable_boost else \
                nn.TrainOneStepWithLossScaleCell
            return step(network, optimizer, scale_sense=update_cell).set_train()
    step = boost.BoostTrainOneStepCell if enable_boost else nn.TrainOneStepCell
    return step(network, optimizer, loss_scale).set_train()


# ----------------------------------------------------------------- functional loss scalers
def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return tuple(_map(fn, x) for x in inputs)
    return fn(inputs)


def _leaves(inputs):
    if isinstance(inputs, (tuple, list)):
        for x in inputs:
            yield from _leaves(x)
    else:
        yield inputs


def all_finite(inputs):
    """A 0-d bool Tensor: whether every element of every Tensor in ``inputs`` is finite."""
    flags = [ops.all(ops.isfinite(x)) for x in _leaves(inputs)]
    result = flags[0]
    for flag in flags[1:]:
        result = ops.logical_and(result, flag)
    return result


class AllFinite:
    """The primitive behind ``all_finite``: ``AllFinite()(gradients)`` is a 0-d bool
    Tensor, whether every element of the tuple of tensors ``gradients`` is finite
    (MindSpore 2.10's CPU build has no kernel for it)."""

    def __call__(self, gradients):
        if not isinstance(gradients, (tuple, list)) or not gradients:
            raise TypeError("For 'AllFinite', the input must be a non-empty tuple of "
                            f"Tensors, but got {type(gradients).__name__}.")
        return all_finite(gradients)


class LossScaler(ABC):
    """Base of the functional loss scalers used with ``value_and_grad`` loops."""

    @abstractmethod
    def scale(self, inputs):
        """``inputs`` (a Tensor or a tuple of them) multiplied by the scale."""

    @abstractmethod
    def unscale(self, inputs):
        """``inputs`` divided by the scale."""

    @abstractmethod
    def adjust(self, grads_finite):
        """Update the scale from whether this step's gradients were finite."""


def _check_scale_value(scale_value):
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)):
        raise TypeError(f"The type of 'scale_value' should be one of '['float', 'int']', but got "
                        f"type '{type(scale_value).__name__}'.")
    if scale_value < 1.0:
        raise ValueError(f"The argument 'scale_value' must be > 1, but got {scale_value}")
    return Parameter(Tensor(scale_value, float32), name="scale_value")


class _ScalingMixin:
    def scale(self, inputs):
        return _map(lambda x: x * ops.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * ops.cast(ops.reciprocal(self.scale_value), x.dtype), inputs)


class StaticLossScaler(_ScalingMixin, LossScaler):
    """A constant scale (``scale_value`` >= 1); ``adjust`` does nothing and returns False."""

    def __init__(self, scale_value):
        self.scale_value = _check_scale_value(scale_value)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(_ScalingMixin, LossScaler):
    """A scale divided by ``scale_factor`` (not below 1) when gradients are not finite and
    multiplied by it after ``scale_window`` finite steps in a row.

    Examples:
        >>> import spore as ms
        >>> from spore import amp
        >>> scaler = amp.DynamicLossScaler(1024, 2, 1000)
        >>> scaler.adjust(ms.Tensor(False))
        True
        >>> float(scaler.scale_value)
        512.0
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        self.scale_value = _check_scale_value(scale_value)
        self.scale_window = check_positive_int(scale_window, "scale_window")
        self.scale_factor = check_positive_int(scale_factor, "scale_factor")
        self.counter = Parameter(Tensor(np.zeros((), np.int32)), name="counter")

    def adjust(self, grads_finite):
        grown = self.scale_value * self.scale_factor
        at_window = self.counter == self.scale_window - 1
        keep_or_grow = ops.where(at_window, ops.where(ops.isfinite(grown), grown,
                                                      self.scale_value), self.scale_value)
        shrunk = ops.maximum(self.scale_value / self.scale_factor, 1.0)
        ops.assign(self.scale_value, ops.where(grads_finite, keep_or_grow, shrunk))
        finite = ops.cast(grads_finite, int32)
        ops.assign(self.counter, (self.counter + 1) % self.scale_window * finite)
        return True


def __getattr__(name):
    """MindSpore names Spore leaves out on purpose raise NotImplementedError saying why
    (spore/_absent.py)."""
    from . import _absent
    return _absent.missing(__name__, name)
