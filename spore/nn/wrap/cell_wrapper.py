"""Training wrappers: network + loss, one training step, gradients, evaluation.

NOTE: [One pass per step]
MindSpore's ``TrainOneStepCell`` runs the network and then a GradOperation over it;
in a compiled graph the two forward passes merge, but eagerly that would be two
forward passes. Here the loss and the gradients come from one ``value_and_grad``
pass. A ``sens`` (the gradient seed) is applied by differentiating
``loss * sens`` and returning ``loss`` as auxiliary output: the seed reaching the
network is exactly ``sens`` filled in the loss's shape and dtype, as in MindSpore.
"""
from __future__ import annotations

import contextlib

from types import FunctionType, MethodType

from ... import ops
from ..._dtype import float32
from ..._parameter import ParameterTuple, Parameter
from ..._tensor import Tensor
from ..cell import Cell
from ..optim._checks import check_type
from .grad_reducer import data_parallel_reducer

__all__ = ["WithLossCell", "WithEvalCell", "WithGradCell", "TrainOneStepCell",
           "ForwardValueAndGrad", "ParameterUpdate"]


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``. Created with ``auto_prefix=False``, so parameter
    names stay those of the backbone.

    Examples:
        >>> import numpy as np
        >>> import spore as ms
        >>> from spore import nn
        >>> net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
        >>> net(ms.Tensor(np.ones((3, 2), np.float32)), ms.Tensor(np.ones((3, 1), np.float32))).shape
        ()
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped backbone Cell."""
        return self._backbone


class WithEvalCell(Cell):
    """Returns ``(loss, outputs, label)`` for evaluation; ``add_cast_fp32`` computes the loss
    on float32 outputs and labels."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = check_type("add_cast_fp32", add_cast_fp32, bool, "WithEvalCell")

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = _to_float32(label)
            outputs = ops.cast(outputs, float32)
        return self._loss_fn(outputs, label), outputs, label


class WithGradCell(Cell):
    """The gradients of ``network`` (with ``loss_fn`` if given) with respect to its trainable
    parameters, as a tuple; ``sens`` is the gradient seed (default: ones)."""

    def __init__(self, network, loss_fn=None, sens=None):
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.weights = ParameterTuple(network.trainable_params())
        self.grad = ops.GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()

    def construct(self, *inputs):
        if self.sens is None:
            return self.grad(self.network_with_loss, self.weights)(*inputs)
        return self.grad(self.network_with_loss, self.weights)(*inputs, self.sens)


class TrainOneStepCell(Cell):
    """One training step: the loss of ``network`` on the inputs, its gradients with respect to
    ``optimizer.parameters``, and the optimizer update. Returns the loss computed *before*
    the update (and, with ``return_grad``, a dict of gradients keyed by parameter name).

    Args:
        network (Cell): returns the loss (e.g. a :class:`WithLossCell`).
        optimizer (Cell): updates ``optimizer.parameters`` from a tuple of gradients.
        sens (numbers.Number): the gradient seed, in the loss's shape and dtype. Default:
            ``None`` (1.0).
        return_grad (bool): also return the gradients. Default: ``False``.

    ``grad_reducer`` is applied to the gradients before the update; on one device it is
    the identity; in ``DATA_PARALLEL`` after ``init()`` it is a
    :class:`DistributedGradReducer` (and the parameters are broadcast from rank 0).
    """

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = self.optimizer.parameters
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = ops.GradOperation(get_by_list=True)
        if sens is not None and not isinstance(sens, Tensor) and sens == 0:
            raise ValueError("The input argument of 'sens' can not be 0.")
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [p.name for p in self.optimizer.parameters]
        reducer = data_parallel_reducer(self.network, self.weights)
        self.reducer_flag = reducer is not None
        self.grad_reducer = reducer if reducer is not None else _SingleDeviceReducer()

    def construct(self, *inputs):
        sens = self.sens if self.sense_flag else None
        overlap = getattr(self.grad_reducer, "overlap", None)
        # in data parallel, buckets are all-reduced during the backward pass (NOTE:
        # [Overlapped buckets] in grad_reducer.py); the reducer waits for them
        with overlap(self.weights) if overlap is not None else contextlib.nullcontext():
            loss, grads = loss_and_grads(self.network, self.weights, inputs, sens)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, dict(zip(self.weights_name, grads))
        return loss


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)`` with GradOperation's choice of gradients: of all
    inputs (``get_all``), of ``weights`` (``get_by_list``), both, or of the first input;
    with ``sens_param`` the last input is the gradient seed."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, (Cell, FunctionType, MethodType)):
            raise TypeError("For 'ForwardValueAndGrad', the argument 'network' must be cell, "
                            f"function type or method type, but got '{type(network)}'")
        if not isinstance(get_all, bool):
            raise TypeError("For 'ForwardValueAndGrad', the type of 'get_all' must be bool, but "
                            f"got '{type(get_all)}'")
        if not isinstance(get_by_list, bool):
            raise TypeError("For 'ForwardValueAndGrad', the type of 'get_by_list' must be bool, "
                            f"but got '{type(get_by_list)}'")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError("For 'ForwardValueAndGrad', when 'get_by_list' is set to True, the "
                            "argument 'weights' must be Parameters array, but got "
                            f"'{type(weights)}'")
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = weights
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self.grad = ops.GradOperation(get_all=get_all, get_by_list=get_by_list,
                                      sens_param=sens_param)

    def construct(self, *inputs):
        n = len(inputs) - (1 if self.sens_param else 0)
        positions = tuple(range(n)) if self.get_all else (None if self.get_by_list else 0)
        weights = self.weights if self.get_by_list else None
        loss, grads = ops.value_and_grad(self.network, positions, weights,
                                         sens_param=self.sens_param)(*inputs)
        if self.get_all and n == 1:        # GradOperation(get_all) always gives a tuple
            grads = ((grads[0],), grads[1]) if self.get_by_list else (grads,)
        return loss, grads


class ParameterUpdate(Cell):
    """``construct(x)`` writes ``x`` into ``param`` and returns ``x``."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be 'Parameter', but got "
                            f"{type(param)}.")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


class _SingleDeviceReducer(Cell):
    """The gradient reducer of a single device: returns its input."""

    def construct(self, x):
        return x


def loss_and_grads(network, weights, inputs, sens=None):
    """``(loss, grads)`` of ``network(*inputs)`` with respect to ``weights`` in one pass;
    ``sens`` (number or Tensor) is the gradient seed (see NOTE: [One pass per step])."""
    if sens is None:
        return ops.value_and_grad(network, None, weights)(*inputs)

    def seeded(*args):
        loss = network(*args)
        seed = ops.cast(sens, loss.dtype) if isinstance(sens, Tensor) else sens
        return loss * seed, loss

    (_, loss), grads = ops.value_and_grad(seeded, None, weights, has_aux=True)(*inputs)
    return loss, grads


def _to_float32(x):
    if isinstance(x, Tensor) and x.dtype.is_floating_point and x.dtype is not float32:
        return ops.cast(x, float32)
    return x
