"""``LessBN``: MindSpore's "less BatchNorm" boost: the network's last Dense layer becomes a
normalised classifier head (``CommonHeadLastFN``), which lets training converge with fewer
BatchNorm layers."""
from __future__ import annotations

import numpy as np

from .. import ops
from .._dtype import float32
from .._parameter import Parameter
from .._tensor import Tensor
from ..common.initializer import initializer
from ..nn import Cell, Dense


class CommonHeadLastFN(Cell):
    """A Dense head on L2-normalised inputs and weights, times a learned scalar:
    ``multiplier * (normalize(x) @ normalize(W).T + b)``.

    Args:
        in_channels (int), out_channels (int): the layer's sizes.
        weight_init, bias_init: initializers (or Tensors) of the weight and the bias.
        has_bias (bool): add a bias. Default: ``True``.
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True):
        super().__init__()
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels]),
                                requires_grad=True, name="weight")
        self.x_norm = ops.L2Normalize(axis=1)
        self.w_norm = ops.L2Normalize(axis=1)
        self.fc = ops.MatMul(transpose_a=False, transpose_b=True)
        self.multiplier = Parameter(Tensor(np.ones([1]), float32), requires_grad=True,
                                    name="multiplier")
        self.has_bias = has_bias
        if has_bias:
            self.bias_add = ops.BiasAdd()
            self.bias = Parameter(initializer(bias_init, [out_channels]), requires_grad=True,
                                  name="bias")

    def construct(self, x):
        x = self.fc(self.x_norm(x), self.w_norm(self.weight))
        if self.has_bias:
            x = self.bias_add(x, self.bias)
        return self.multiplier * x


class LessBN(Cell):
    """Wrap ``network`` for the less-BN boost; with ``fn_flag`` the last Dense layer of each
    cell that has Dense children is replaced by a :class:`CommonHeadLastFN` built from its
    weight (the bias is dropped, as in MindSpore).

    Args:
        network (Cell): the network.
        fn_flag (bool): replace the last Dense layers. Default: ``False``.
    """

    def __init__(self, network, fn_flag=False):
        super().__init__()
        self.network = network
        if "less_bn" not in self.network.get_flags():
            self.network.set_boost("less_bn")
            if fn_flag:
                self._convert_to_less_bn_net(self.network)
            self.network.add_flags(defer_inline=True)

    @staticmethod
    def _convert_dense(subcell):
        prefix = subcell.weight.name.rsplit(".", 1)[0] if "." in subcell.weight.name else ""
        new = CommonHeadLastFN(subcell.in_channels, subcell.out_channels, subcell.weight,
                               subcell.bias, False)
        if prefix:
            for _, p in new.parameters_and_names():
                p.name = f"{prefix}.{p.name}"
        return new

    def construct(self, *inputs):
        return self.network(*inputs)

    def _convert_to_less_bn_net(self, net):
        dense_name, dense_list = [], []
        for name, subcell in net.name_cells().items():
            if subcell is net:
                continue
            if isinstance(subcell, Dense):
                dense_name.append(name)
                dense_list.append(subcell)
            else:
                self._convert_to_less_bn_net(subcell)
        if dense_list:
            net.insert_child_to_cell(dense_name[-1], LessBN._convert_dense(dense_list[-1]))
