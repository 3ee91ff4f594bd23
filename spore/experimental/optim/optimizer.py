"""experimental.optim.Optimizer: the base of MindSpore's PyTorch-style optimizers.

NOTE: [Experimental optimizers]
``mindspore.experimental.optim`` keeps PyTorch's interface on a Cell: hyper-parameters
live in ``param_groups`` (dicts holding ``params``, ``lr``, ``weight_decay`` and the
optimizer's own keys, defaults from ``defaults``), and a call ``optimizer(grads)`` takes
the gradients of ``optimizer.parameters`` (all groups, in order) and updates every
parameter in place. Each group's ``lr`` is a 0-d float32 Parameter named
``learning_rate_group_<i>`` (also listed in ``optimizer.lrs``): the schedulers of
``lr_scheduler`` write new rates into those Parameters, so a schedule reaches the
optimizer without either knowing about the other.

Per-parameter state is a ParameterTuple per slot (``exp_avg.<name>``, ...; the names
MindSpore gives, so checkpoints match), created with :meth:`Optimizer.add_state`. A
group added later with :meth:`add_param_group` gets its state too (MindSpore creates
state once, in ``__init__``). Step counters (``state_step`` / ``step_t``) are 0-d int32
Parameters incremented once per call, shared by all groups.

The update formulas follow MindSpore 2.10's implementations term by term (the same
float32 operations in the same order), including where they differ from PyTorch (Adam
adds ``eps`` to the uncorrected ``sqrt(v)``); docs/nn.md lists them.
"""
from __future__ import annotations

import collections
import logging
from collections.abc import Iterable

import numpy as np

from ... import ops
from ..._dtype import float32
from ..._parameter import Parameter, ParameterTuple
from ..._tensor import Tensor
from ...nn.cell import Cell

__all__ = ["Optimizer"]

_logger = logging.getLogger("spore")


class Optimizer(Cell):
    """Base class of the experimental optimizers.

    Args:
        params: an iterable of Parameters, or of dicts each holding ``params`` and any
            hyper-parameter to override for that group.
        defaults (dict): the hyper-parameters of groups that do not set them.

    Subclasses implement ``construct(gradients)``; ``gradients`` is a tuple in the order
    of ``self.parameters``, and the gradients of group ``i`` are
    ``gradients[self.group_start_id[i]:self.group_start_id[i + 1]]``.
    """

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        groups = _as_nonempty_list(params)
        self.defaults = defaults
        self.state = collections.defaultdict(dict)
        self.param_groups = []
        self.parameters = ParameterTuple()
        self.lrs = []
        self.group_start_id = [0]
        self._slots = {}
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key == "params":
                    continue
                value = group[key]
                shown = value.value() if key == "lr" and isinstance(value, Parameter) else value
                lines.append(f"    {key}: {shown}")
        return "\n".join(lines) + "\n)"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyper-parameters (missing keys take
        ``defaults``); the new parameters get fresh optimizer state."""
        group_id = len(self.param_groups)
        group = self._checked_group(param_group)
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        lr = _lr_parameter(group.get("lr"), f"learning_rate_group_{group_id}")
        group["lr"] = lr
        group["weight_decay"] = _non_negative_float(group.get("weight_decay", 0.0),
                                                    "weight_decay", type(self).__name__)
        new = tuple(group["params"])
        self.parameters = ParameterTuple(self.parameters + new)
        self.lrs.append(lr)
        self.param_groups.append(group)
        self.group_start_id.append(self.group_start_id[-1] + len(new))
        for attr, (prefix, init) in self._slots.items():
            setattr(self, attr, ParameterTuple(getattr(self, attr) + _clones(new, prefix, init)))

    def _checked_group(self, group):
        if not isinstance(group, dict):
            raise TypeError(f"For '{type(self).__name__}', a param group must be a dict, but "
                            f"got {type(group).__name__}.")
        if "params" not in group:
            raise KeyError(f"For '{type(self).__name__}', a param group must have the key "
                           "'params'.")
        params = group["params"]
        if isinstance(params, Parameter):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("Optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError("Optimizer can only optimize Parameters, but one of the params "
                                f"is {type(p).__name__}.")
        if len(params) != len(set(map(id, params))):
            _logger.warning("Optimizer contains a parameter group with duplicate parameters.")
        held = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in held for p in params):
            raise ValueError("some parameters appear in more than one parameter group.")
        group["params"] = params
        return group

    # ------------------------------------------------------------------ helpers for subclasses
    def add_state(self, attr, prefix, init=0.0):
        """Per-parameter state: a ParameterTuple ``self.<attr>`` of Parameters named
        ``<prefix>.<param name>``, filled with ``init``, kept in step with the groups."""
        self._slots[attr] = (prefix, init)
        setattr(self, attr, ParameterTuple(_clones(self.parameters, prefix, init)))

    def add_step_counter(self, name):
        """A 0-d int32 Parameter counting the calls (``state_step`` / ``step_t``)."""
        setattr(self, name, Parameter(Tensor(np.array(0, np.int32)), name=name))

    @staticmethod
    def count_step(counter):
        ops.assign(counter, counter + Tensor(np.array(1, np.int32)))

    def groups(self, gradients):
        """``(group, lr, params, grads, slice)`` for each group: the lr Parameter, the
        group's parameters and its slice of ``gradients`` (negated with ``maximize``)."""
        gradients = tuple(gradients)
        if len(gradients) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', the number of gradients "
                             f"({len(gradients)}) must equal the number of parameters "
                             f"({len(self.parameters)}).")
        for i, group in enumerate(self.param_groups):
            part = slice(self.group_start_id[i], self.group_start_id[i + 1])
            grads = gradients[part]
            if group.get("maximize", False):
                grads = tuple(ops.neg(g) for g in grads)
            yield group, self.lrs[i], self.parameters[part], grads, part

    @staticmethod
    def _decay_weight(weight_decay, params, gradients):
        """L2 weight decay folded into the gradients: ``g + weight_decay * p``."""
        if weight_decay == 0.0:
            return tuple(gradients)
        return tuple(ops.cast(Tensor(weight_decay, float32), p.dtype) * p + g
                     for p, g in zip(params, gradients))

    def construct(self, *hyper_params):
        raise NotImplementedError


# ---------------------------------------------------------------------- helpers
def _as_nonempty_list(params):
    if params is None:
        raise ValueError("For 'Optimizer', the argument params can not be None.")
    if not isinstance(params, Iterable) or isinstance(params, (str, bytes, Tensor)):
        raise TypeError(f"For 'Optimizer', the argument params must be Iterable type, but got "
                        f"{type(params)}.")
    params = list(params)
    if not params:
        raise ValueError("For 'Optimizer', the argument params must not be empty.")
    return params


def _non_negative_float(value, name, cls_name):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls_name}', the argument '{name}' must be int or float, but "
                        f"got {type(value).__name__}.")
    if not value >= 0:
        raise ValueError(f"For '{cls_name}', the '{name}' must be >= 0, but got {value}.")
    return float(value)


def _lr_parameter(lr, name):
    """A group's learning rate as a 0-d float32 Parameter (from a number or 0-d Tensor)."""
    if isinstance(lr, Tensor):
        if lr.ndim != 0:
            raise ValueError("For 'Optimizer', if 'learning_rate' is a Tensor, then it should "
                             f"be scalar Tensor, but got shape {lr.shape}.")
        return Parameter(Tensor(lr.asnumpy().astype(np.float32)), name=name)
    value = _non_negative_float(lr, "learning rate", "Optimizer")
    return Parameter(Tensor(value, float32), name=name)


def _clones(params, prefix, init):
    return tuple(Parameter(Tensor._from_array(np.full(p.shape, init, p.asnumpy().dtype)),
                           name=f"{prefix}.{p.name}") for p in params)


def step_tensor(counter):
    """A step counter as float32 (the exponent of the bias corrections)."""
    return ops.cast(counter, float32)


def check_betas(betas, cls_name):
    """``betas`` is a pair of floats in [0, 1)."""
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise TypeError(f"For '{cls_name}', 'betas' must be a tuple of two floats, but got "
                        f"{betas!r}.")
    for i, beta in enumerate(betas):
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def check_at_least(value, name, cls_name, low=0.0, inclusive=True):
    """MindSpore's ``lr`` / ``eps`` / ``weight_decay`` checks: a number >= low (or > low)."""
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"For '{cls_name}', if '{name}' is a Tensor, then it should be "
                             f"scalar Tensor, but got shape {value.shape}.")
        value = float(value.asnumpy().reshape(-1)[0])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls_name}', the '{name}' must be int or float, but got "
                        f"{type(value).__name__}.")
    if value < low or (not inclusive and value == low) or value != value:
        relation = "greater than or equal to" if inclusive else "greater than"
        raise ValueError(f"For '{cls_name}', the '{name}' must be {relation} {low}, but got "
                         f"{value}.")
    return value



def check_in_range(value, name, cls_name, low, high, low_inclusive=True, high_inclusive=False):
    """A float hyper-parameter in an interval (``rho``, ``betas[i]``, ``etas[0]``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"For '{cls_name}', the '{name}' must be float, but got "
                        f"{type(value).__name__}.")
    above = value >= low if low_inclusive else value > low
    below = value <= high if high_inclusive else value < high
    if not (above and below):
        interval = ("[" if low_inclusive else "(") + f"{low}, {high}" + \
            ("]" if high_inclusive else ")")
        raise ValueError(f"For '{cls_name}', the '{name}' must be in range of {interval}, but "
                         f"got {value}.")
    return value


def f32(*values):
    """Hyper-parameters as 0-d float32 Tensors: MindSpore's compiled updates compute with
    them in float32 (``1 - beta2`` is ``1 - float32(beta2)``), so Spore does too."""
    return tuple(Tensor(np.array(v, np.float32)) for v in values)


def check_adaptive_args(cls_name, lr, eps, weight_decay, betas):
    """The checks Adamax, NAdam and RAdam share: lr and eps > 0, weight_decay >= 0 and
    each beta in [0, 1)."""
    check_at_least(lr, "lr", cls_name, inclusive=False)
    check_at_least(eps, "eps", cls_name, inclusive=False)
    check_at_least(weight_decay, "weight_decay", cls_name)
    for i, beta in enumerate(betas):
        check_in_range(beta, f"betas[{i}]", cls_name, 0.0, 1.0)
