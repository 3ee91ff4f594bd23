"""``OptimizerProcess`` and ``ParameterProcess``: rebuild an optimizer over new parameter
groups, as MindSpore's boost algorithms do (gradient centralization groups, parameter
split points)."""
from __future__ import annotations

import copy

from .. import log as logger
from .._parameter import Parameter
from ..nn import Conv2d, Optimizer
from .less_batch_normalization import CommonHeadLastFN


def _rebuild_args(opt):
    """(class, init_args, init_learning_rate, init_params) of an optimizer."""
    if not isinstance(opt, Optimizer) or "init_args" not in opt.__dict__:
        raise TypeError(f"mindspore.boost rebuilds the optimizer from the arguments it was "
                        f"built with; it needs an nn.Optimizer, but got {type(opt).__name__}.")
    return type(opt), opt.init_args, opt.init_learning_rate, opt.init_params["params"]


class OptimizerProcess:
    """Rebuild ``opt`` (same class and hyper-parameters) over edited parameter groups.

    Args:
        opt (Optimizer): the optimizer to rebuild.
    """

    def __init__(self, opt):
        self.single_opt = opt
        self.opt_class, self.opt_init_args, self.learning_rate, self.origin_params = \
            _rebuild_args(opt)

    @staticmethod
    def build_params_dict(network):
        """{id(parameter): the cell owning it}."""
        params_dict = {}
        for _, cell in network.cells_and_names():
            for _, par in cell._own_params():
                params_dict[id(par)] = cell
        return params_dict

    @staticmethod
    def build_gc_params_group(params_dict, parameters):
        """Split each group into a gradient-centralized group (weights of ordinary layers)
        and the rest (``beta``/``gamma``/``bias``, grouped convolutions, normalised heads)."""
        group_params = []
        for group_param in parameters:
            if "order_params" in group_param:
                group_params.append(group_param)
                continue
            params_gc_value, params_value = [], []
            for param in group_param["params"]:
                if "beta" not in param.name and "gamma" not in param.name and \
                        "bias" not in param.name:
                    cell = params_dict[id(param)]
                    if (isinstance(cell, Conv2d) and cell.group > 1) or \
                            isinstance(cell, CommonHeadLastFN):
                        params_value.append(param)
                    else:
                        params_gc_value.append(param)
                else:
                    params_value.append(param)
            for params, gc in ((params_gc_value, True), (params_value, False)):
                if params:
                    new_group = copy.copy(group_param)
                    new_group["params"] = params
                    if gc:
                        new_group["grad_centralization"] = True
                    group_params.append(new_group)
        return group_params

    def add_grad_centralization(self, network):
        """Turn on gradient centralization for the weights of ``network``'s layers (only
        for grouped parameters, as MindSpore)."""
        params_dict = OptimizerProcess.build_params_dict(network)
        parameters = self.origin_params
        if parameters is not None and not isinstance(parameters, list):
            parameters = list(parameters)
        if not parameters:
            raise ValueError("Optimizer got an empty parameter list.")
        if not isinstance(parameters[0], (dict, Parameter)):
            raise TypeError("Only a list of Parameter or dict can be supported.")
        if isinstance(parameters[0], Parameter):
            logger.warning("Only group parameters support gradient centralization.")
            return
        self.origin_params = OptimizerProcess.build_gc_params_group(params_dict, parameters)

    def generate_new_optimizer(self):
        """A new optimizer of the same class and arguments over ``origin_params``."""
        lr = self.learning_rate if self.learning_rate is not None else \
            self.single_opt.learning_rate
        return self.opt_class(params=self.origin_params, learning_rate=lr, **self.opt_init_args)


class ParameterProcess:
    """Group parameters for boost: ``assign_parameter_group`` numbers gradient-fusion
    groups, ``generate_group_params`` maps new parameters onto the optimizer's groups."""

    def __init__(self):
        self._parameter_indices = 1

    @staticmethod
    def generate_group_params(parameters, origin_params):
        """The optimizer groups of ``origin_params`` (a list of Parameters or of group
        dicts) restricted to / extended by ``parameters`` (matched by name)."""
        origin = origin_params
        if origin is not None and not isinstance(origin, list):
            origin = list(origin)
        if not origin:
            raise ValueError("Optimizer got an empty parameter list.")
        if not isinstance(origin[0], (dict, Parameter)):
            raise TypeError("Only a list of Parameter or dict can be supported.")
        if isinstance(origin[0], Parameter):
            return [{"params": parameters}]
        return ParameterProcess._generate_new_group_params(parameters, origin)

    @staticmethod
    def _generate_new_group_params(parameters, origin):
        group_params = []
        names = [p.name for p in parameters]
        unplaced = list(names)
        widest = {}
        for group in origin:
            if "order_params" in group:
                new_group = copy.copy(group)
                new_group["order_params"] = parameters
                group_params.append(new_group)
                continue
            values = []
            for param in group["params"]:
                if param.name in names:
                    values.append(parameters[names.index(param.name)])
                    unplaced.remove(param.name)
            new_group = copy.copy(group)
            new_group["params"] = values
            group_params.append(new_group)
            if len(group) > len(widest):
                widest = copy.copy(group)
        if unplaced:
            values = [parameters[names.index(n)] for n in unplaced]
            if widest:
                widest["params"] = values
                group_params.append(widest)
            else:
                group_params.append({"params": values})
        return group_params

    def assign_parameter_group(self, parameters, split_point=None):
        """Number the gradient-fusion group (``comm_fusion``) of each parameter: a new group
        starts at each index of ``split_point`` (default: half-way)."""
        if not isinstance(parameters, (list, tuple)) or not parameters:
            return parameters
        split = split_point if split_point else [len(parameters) // 2]
        for i, param in enumerate(parameters):
            if i in split:
                self._parameter_indices += 1
            param.comm_fusion = self._parameter_indices
        return parameters
