"""nn.Optimizer: the base of MindSpore-style optimizers.

NOTE: [Optimizer state]
An optimizer is a Cell whose state is Parameters, so checkpoints save it and a
compiled graph sees every update as a write to a Parameter:

* ``parameters``: the ParameterTuple being trained, in gradient order;
* ``global_step``: Int32 shape (1,), the number of steps taken so far;
* ``learning_rate``: a 0-d Float32 Parameter (constant rate), a schedule Cell
  evaluated on ``global_step`` (lists, 1-D tensors and LearningRateSchedules),
  or one of those per parameter when groups set their own ``lr``;
* per-parameter state created by subclasses (``moments.<name>``, ...).

A call ``optimizer(grads)`` prepares the gradients (weight decay on the raw
gradient, gradient centralization, then division by ``loss_scale``; so the decay
term is not divided), reads the learning rate of the current step, increments
``global_step`` and updates every parameter in place, returning ``(True,) * n``.
Weight decay without groups skips parameters whose name contains 'beta' or
'gamma' (norm layers); with groups it applies to every parameter of a group
whose ``weight_decay`` is > 0.
"""
from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Iterable

import numpy as np

from ... import ops
from ..._core import backend as B
from ..._prims.special import check_p
from ..._dtype import float32
from ..._parameter import Parameter, ParameterTuple
from ..._tensor import Tensor
from ..cell import Cell
from ..learning_rate_schedule import LearningRateSchedule
from ._checks import check_non_negative_float, check_positive_float, check_type

__all__ = ["Optimizer"]

_GROUP_KEYS = ["params", "lr", "weight_decay", "order_params", "grad_centralization"]


def _record_init_args(opt, init, args, kw):
    """Store ``init_params`` / ``init_learning_rate`` / ``init_args`` on ``opt`` (a
    parameter generator is read into a list first, so the optimizer still gets them)."""
    try:
        bound = inspect.signature(init).bind(opt, *args, **kw)
    except TypeError:
        return args, kw                 # the call itself reports the bad arguments
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop(next(iter(arguments)))                       # self
    for name, p in bound.signature.parameters.items():
        if p.kind == p.VAR_KEYWORD:
            arguments.update(arguments.pop(name, {}))
        elif p.kind == p.VAR_POSITIONAL:
            arguments.pop(name, None)
    d = opt.__dict__
    if "params" in arguments:
        params = arguments.pop("params")
        if not isinstance(params, (list, tuple, ParameterTuple)) and isinstance(params, Iterable):
            params = bound.arguments["params"] = list(params)
        d["init_params"] = {"params": params}
    if "optimizer" in arguments:
        inner = arguments.pop("optimizer")
        d["init_params"] = {"params": getattr(inner, "init_params", {}).get("params")}
    if "learning_rate" in arguments:
        lr = arguments.pop("learning_rate")
        if isinstance(lr, Tensor):
            lr = lr.asnumpy().tolist()
        d["init_learning_rate"] = None if isinstance(lr, Cell) else lr
    d["init_args"] = arguments
    return bound.args[1:], bound.kwargs


class Optimizer(Cell):
    """Base class of optimizers: holds the parameters, learning rate, weight decay and
    step counter, and the gradient preprocessing every optimizer shares.

    Args:
        learning_rate: float/int (constant), 0-d Tensor (constant), list or 1-D Tensor
            (value ``i`` at step ``i``) or a :class:`LearningRateSchedule`.
        parameters: Parameters (list or generator) or a list of group dicts with keys
            ``params`` (required), ``lr``, ``weight_decay``, ``grad_centralization``; one
            dict may instead hold ``order_params`` (the order to keep).
        weight_decay: float >= 0 or a Cell evaluated on ``global_step``.
        loss_scale: float > 0; gradients are divided by it.

    Subclasses implement ``construct(gradients)`` with ``gradients`` a tuple in the
    order of ``self.parameters``.
    """

    def __init_subclass__(cls, **kwargs):
        """Each optimizer records the arguments it was built with (``init_params``,
        ``init_learning_rate``, ``init_args``), as MindSpore's ``opt_init_args_register``
        does: ``mindspore.boost`` rebuilds optimizers over other parameter groups."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_records_init_args", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            if "init_args" not in self.__dict__:
                args, kw = _record_init_args(self, init, args, kw)
            return init(self, *args, **kw)
        __init__._records_init_args = True
        cls.__init__ = __init__

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        parameters = _as_nonempty_list(parameters, "parameters")
        if not (all(isinstance(p, Parameter) for p in parameters)
                or all(isinstance(p, dict) for p in parameters)):
            raise TypeError("For 'Optimizer', all elements of the argument 'parameters' must be "
                            "'Parameter' or 'dict', please check the 'parameters'.")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        check_type("loss_scale", loss_scale, float, self.cls_name)
        check_positive_float(loss_scale, "loss_scale", self.cls_name)
        self.loss_scale = loss_scale
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.is_group = False
        self.is_group_lr = False
        self.is_group_params_ordered = False
        self.global_step = Parameter(Tensor(np.zeros((1,), np.int32)), name="global_step")
        learning_rate = self._preprocess_single_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            self._init_groups(parameters, learning_rate, weight_decay)
        else:
            self._init_flat(parameters, learning_rate, weight_decay)
        self.reciprocal_scale = Tensor(1.0 / loss_scale, float32)
        self.need_scale = loss_scale != 1.0

    # ------------------------------------------------------------------ construction
    def _init_flat(self, parameters, learning_rate, weight_decay):
        _check_unique_names(parameters)
        self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
        self.parameters = ParameterTuple(parameters)
        weight_decay = self._preprocess_weight_decay(weight_decay)
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                 for p in parameters)
        self.dynamic_weight_decay = isinstance(weight_decay, Cell)
        self.exec_weight_decay = self.dynamic_weight_decay or weight_decay > 0
        self.weight_decay = (weight_decay if isinstance(weight_decay, Cell)
                             else Tensor(weight_decay, float32))
        self.grad_centralization_flags = (False,) * len(parameters)

    def _init_groups(self, groups, learning_rate, weight_decay):
        for group in groups:
            _check_group(group)
        self.is_group_lr = any("lr" in g for g in groups)
        if self.is_group_lr:
            _check_group_lr_sizes(groups, learning_rate, self)
        default_lr = self._build_single_lr(learning_rate, "learning_rate")
        params, lrs, decays, centralize = [], [], [], []
        order = None
        seen = set()
        for index, group in enumerate(groups):
            if "order_params" in group:
                order = list(group["order_params"])
                self.is_group_params_ordered = True
                continue
            if "lr" in group:
                lr = self._build_single_lr(self._preprocess_single_lr(group["lr"]),
                                           f"learning_rate_group_{index}")
            else:
                lr = default_lr
            decay = self._preprocess_weight_decay(group.get("weight_decay", weight_decay))
            gc = group.get("grad_centralization", False)
            check_type("grad_centralization", gc, bool, self.cls_name)
            for p in group["params"]:
                if p.name in seen:
                    raise RuntimeError(f"For 'Optimizer', the {p.name} parameter already exists, "
                                       "it does not support repeated setting. Please check "
                                       "whether the optimizer parameter has been set multiple "
                                       "times.")
                seen.add(p.name)
                params.append(p)
                lrs.append(lr)
                decays.append(decay)
                centralize.append(gc)
        if order:
            params, lrs, decays, centralize = _reorder(order, params, lrs, decays, centralize)
        self.group_params, self.group_lr = params, lrs
        self.group_weight_decay, self.group_grad_centralization = decays, centralize
        self.parameters = ParameterTuple(params)
        if self.is_group_lr:
            self.learning_rate = (_CellTuple(lrs) if self.dynamic_lr
                                  else ParameterTuple(lrs))
        else:
            self.learning_rate = default_lr
        self.decay_flags = tuple(isinstance(d, Cell) or d > 0 for d in decays)
        self.dynamic_weight_decay = any(isinstance(d, Cell) for d in decays)
        self.weight_decay = tuple(d if isinstance(d, Cell) else Tensor(d, float32)
                                  for d in decays)
        self.exec_weight_decay = any(self.decay_flags)
        self.grad_centralization_flags = tuple(centralize)

    def _preprocess_single_lr(self, learning_rate):
        """A float, a 0-d float32 Tensor, a 1-D float32 Tensor or a schedule Cell."""
        if isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool):
            learning_rate = float(learning_rate)
            check_non_negative_float(learning_rate, "learning rate", self.cls_name)
            return learning_rate
        if isinstance(learning_rate, bool):
            return float(learning_rate)
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return ops.cast(learning_rate, float32)
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError("For 'Optimizer', if 'learning_rate' is Tensor type, then the "
                                 "dimension of it should be 0 or 1, but got "
                                 f"{learning_rate.ndim}.")
            self.dynamic_lr = True
            return ops.cast(learning_rate, float32)
        if isinstance(learning_rate, Iterable) and not isinstance(learning_rate, (str, bytes)):
            self.dynamic_lr = True
            return Tensor(np.asarray(list(learning_rate), dtype=np.float32))
        if isinstance(learning_rate, (str, bytes)):
            raise ValueError(f"For '{self.cls_name}', the 'learning_rate' must be a number, a "
                             f"Tensor, a list of numbers or a LearningRateSchedule, but got the "
                             f"string {learning_rate!r}.")
        raise TypeError("For 'Optimizer', the argument 'learning_rate' must be int, float, "
                        "Tensor, Iterable or LearningRateSchedule, but got "
                        f"{type(learning_rate)}.")

    def _build_single_lr(self, learning_rate, name):
        """The stored form: a 0-d Parameter, or a Cell giving the rate of a step."""
        if isinstance(learning_rate, float):
            lr = Parameter(Tensor(learning_rate, float32), name=name)
        elif isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            lr = Parameter(learning_rate, name=name)
        elif isinstance(learning_rate, Tensor):
            return _IteratorLearningRate(learning_rate, name)
        else:
            return learning_rate
        return _ConstantLearningRate(lr) if self.is_group_lr and self.dynamic_lr else lr

    def _preprocess_weight_decay(self, weight_decay):
        """Weight decay times ``loss_scale`` (the scaled gradient is unscaled afterwards)."""
        if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
            weight_decay = float(weight_decay)
            check_non_negative_float(weight_decay, "weight_decay", self.cls_name)
            return weight_decay * self.loss_scale
        if isinstance(weight_decay, Cell):
            return _ScaledWeightDecay(weight_decay, self.loss_scale)
        raise TypeError("For 'Optimizer', the argument 'Weight_decay' must be int, float or "
                        f"Cell.but got {type(weight_decay)}")

    def clone_state(self, prefix, init=0.0):
        """Per-parameter state: Parameters like ``parameters``, named ``<prefix>.<name>``
        and filled with ``init``."""
        return ParameterTuple(_filled_like(p, init, f"{prefix}.{p.name}")
                              for p in self.parameters)

    # ------------------------------------------------------------------ per step
    def get_lr(self):
        """The learning rate of the current step: a 0-d Tensor (a tuple of them, one per
        parameter, when groups set their own ``lr``)."""
        lr = self.learning_rate
        if not self.dynamic_lr:
            return lr
        if self.is_group_lr:
            return tuple(cell(self.global_step).reshape(()) for cell in lr)
        return lr(self.global_step).reshape(())

    def get_lr_parameter(self, param):
        """The learning-rate Parameter (or schedule Cell) used for ``param`` (a Parameter or
        a list of them)."""
        if isinstance(param, Parameter):
            wanted = [param]
        elif isinstance(param, list):
            wanted = param
        else:
            raise TypeError("For 'get_lr_parameter', the 'param' must be 'Parameter' or 'list' "
                            f"type, but got {type(param)}.")
        ids = [id(p) for p in self.parameters]
        out = []
        for p in wanted:
            check_type("parameter", p, Parameter, self.cls_name)
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter {p.name} is not in "
                                 "optimizer, please check whether the argument 'param' is "
                                 "correct.")
            lr = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            out.append(lr.learning_rate
                       if isinstance(lr, (_ConstantLearningRate, _IteratorLearningRate)) else lr)
        return out if isinstance(param, list) else out[0]

    def get_weight_decay(self):
        """The weight decay of the current step (a tuple per parameter with groups), already
        multiplied by ``loss_scale``."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        if self.is_group:
            return tuple(d(self.global_step).reshape(()) if isinstance(d, Cell) else d
                         for d in self.weight_decay)
        return self.weight_decay(self.global_step).reshape(())

    def decay_weight(self, gradients):
        """``g + weight_decay * p`` for the parameters whose decay flag is set."""
        if not self.exec_weight_decay:
            return gradients
        decay = self.get_weight_decay()
        decays = decay if self.is_group else itertools.repeat(decay)
        return tuple(ops.add(ops.mul(p, _like(d, p)), g) if flag else g
                     for p, g, d, flag in zip(self.parameters, gradients, decays,
                                              self.decay_flags))

    def gradients_centralization(self, gradients):
        """Subtract the mean over all axes but the first, for flagged convolution-shaped
        gradients (ndim >= 2 and a second dimension divisible by 16)."""
        if not any(self.grad_centralization_flags):
            return gradients
        return tuple(_centralize(g) if flag else g
                     for g, flag in zip(gradients, self.grad_centralization_flags))

    def scale_grad(self, gradients):
        """Divide the gradients by ``loss_scale``."""
        if not self.need_scale:
            return gradients
        return tuple(ops.mul(g, _like(self.reciprocal_scale, g)) for g in gradients)

    def flatten_gradients(self, gradients):
        return gradients

    def preprocess(self, gradients):
        """Check the gradients, then decay, centralize and unscale them (the order matters:
        the decay term is added before the division by ``loss_scale``)."""
        gradients = self._check_gradients(gradients)
        gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        return self.scale_grad(gradients)

    def lr_per_param(self):
        """The learning rate of this step for each parameter, in parameter order."""
        lr = self.get_lr()
        return lr if self.is_group_lr else itertools.repeat(lr)

    def increment_step(self):
        ops.assign_add(self.global_step, 1)

    def _check_gradients(self, gradients):
        name = self.cls_name
        if not isinstance(gradients, tuple):
            raise RuntimeError(f"For '{name}', the gradients must be a tuple of Tensors, one "
                               "per parameter in the order of 'parameters', but got "
                               f"{type(gradients).__name__}.")
        if len(gradients) != len(self.parameters):
            raise RuntimeError(f"For '{name}', the tuple of gradients must have one gradient "
                               f"per parameter ({len(self.parameters)}), but got "
                               f"{len(gradients)}.")
        for p, g in zip(self.parameters, gradients):
            if not isinstance(g, Tensor):
                raise TypeError(f"For '{name}', the gradient of parameter '{p.name}' must be a "
                                f"Tensor, but got {type(g).__name__}.")
            if g.shape != p.shape:
                raise ValueError(f"For '{name}', the gradient of parameter '{p.name}' must have "
                                 f"the parameter's shape {list(p.shape)}, but got "
                                 f"{list(g.shape)}.")
        return gradients

    def construct(self, *hyper_params):
        raise NotImplementedError

    @property
    def unique(self):
        return True

    @property
    def target(self):
        return "CPU"


# ---------------------------------------------------------------------- helpers
def _filled_like(p, value, name):
    xp = B.of_array(p._data).xp
    return Parameter(Tensor._from_array(xp.full(p.shape, value, p._data.dtype)), name=name)


def _as_nonempty_list(parameters, what):
    if parameters is None:
        raise ValueError(f"For 'Optimizer', the argument {what} can not be None.")
    if not isinstance(parameters, Iterable) or isinstance(parameters, (str, bytes, Tensor)):
        raise TypeError(f"For 'Optimizer', the argument {what} must be Iterable type, but got "
                        f"{type(parameters)}.")
    parameters = list(parameters)
    if not parameters:
        raise ValueError(f"For 'Optimizer', the argument {what} must not be empty.")
    return parameters


def _check_unique_names(parameters):
    seen = set()
    for p in parameters:
        if p.name in seen:
            raise ValueError(f"The value {p!r} , its name '{p.name}' already exists. Please set "
                             "a unique name for the parameter.")
        seen.add(p.name)


def _check_group(group):
    bad = [k for k in group if k not in _GROUP_KEYS]
    if bad:
        raise KeyError(f"For 'Optimizer', the key in group params must be one of in "
                       f"{_GROUP_KEYS}, but got {bad}.")
    if "order_params" in group:
        if len(group) > 1:
            raise ValueError("For 'Optimizer', the order params dict in group parameters should "
                             f"only include the 'order_params' key, but got {group.keys()}.")
        if not isinstance(group["order_params"], Iterable):
            raise TypeError("For 'Optimizer', the value of 'order_params' in group parameters "
                            f"should be Iterable type, but got {type(group['order_params'])}.")
        return
    if "params" not in group:
        raise KeyError("For 'Optimizer', every group of parameters must have the key 'params'.")
    params = _as_nonempty_list(group["params"], "group `params`")
    for index, p in enumerate(params):
        if not isinstance(p, Parameter):
            raise TypeError("For 'Optimizer', the element in group parameters must be Parameter "
                            f"type, but got {type(p)} at index {index}.")
    group["params"] = params


def _check_group_lr_sizes(groups, learning_rate, opt):
    """Per-step (1-D) learning rates of all groups must have the same length."""
    sizes = {len(learning_rate)} if isinstance(learning_rate, Tensor) and \
        learning_rate.ndim == 1 else set()
    for group in groups:
        if "lr" in group:
            lr = opt._preprocess_single_lr(group["lr"])
            if isinstance(lr, Tensor) and lr.ndim == 1:
                sizes.add(len(lr))
    if len(sizes) > 1:
        raise ValueError("For 'Optimizer', the Tensor type dynamic learning rate in group must be "
                         "the same size as the argument 'learning_rate'.")


def _reorder(order, params, *columns):
    if len(order) != len(params):
        raise ValueError("For 'Optimizer',the length of order parameters must be the same as the "
                         f"length of group parameters, but got order parameters' length "
                         f"{len(order)}, group parameters' length {len(params)}.")
    position = {p.name: i for i, p in enumerate(order)}
    missing = [p.name for p in params if p.name not in position]
    if missing:
        raise ValueError(f"For 'Optimizer', the parameters {missing} are in a group but not in "
                         "'order_params'.")
    ranks = sorted(range(len(params)), key=lambda i: position[params[i].name])
    return ([params[i] for i in ranks],) + tuple([col[i] for i in ranks] for col in columns)


def _like(scalar, t):
    """A 0-d hyper-parameter tensor in ``t``'s dtype (so it does not promote ``t``)."""
    return scalar if scalar.dtype == t.dtype else ops.cast(scalar, t.dtype)


def _centralize(g):
    if g.ndim < 2 or g.shape[1] % 16 != 0:
        return g
    return ops.sub(g, ops.mean(g, tuple(range(1, g.ndim)), True))


class _CellTuple(Cell):
    """An indexable tuple of schedule Cells (the per-parameter learning rates)."""

    def __init__(self, cells):
        super().__init__(auto_prefix=False)
        self.__dict__["_items"] = tuple(cells)
        for index, cell in enumerate(self._items):
            self.insert_child_to_cell(str(index), cell)

    def __getitem__(self, index):
        return self._items[index]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


class _ConstantLearningRate(LearningRateSchedule):
    """A constant rate in a list of per-step schedules (groups mixing both kinds)."""

    def __init__(self, learning_rate):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return ops.identity(self.learning_rate)


class _IteratorLearningRate(LearningRateSchedule):
    """Element ``global_step`` of a 1-D tensor of per-step rates."""

    def __init__(self, learning_rate, name):
        super().__init__()
        self.learning_rate = Parameter(learning_rate, name=name)

    def construct(self, global_step):
        n = self.learning_rate.shape[0]
        # a runtime check rather than try/except, so it holds in compiled code too
        check_p(global_step >= n, global_step,
                message=f"For 'Optimizer', the learning rate was given for {n} steps, but "
                        "step {0[0]} was reached: give a longer list of learning rates.")
        return self.learning_rate[global_step]


class _ScaledWeightDecay(Cell):
    """A weight-decay schedule Cell times ``loss_scale``."""

    def __init__(self, weight_decay, loss_scale):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = Tensor(loss_scale, float32)

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale
