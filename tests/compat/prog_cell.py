"""Cell programs: parameter and cell names, containers, hooks, Tensor-method conventions and
the statistics of default initialisers (random, so compared as moments or bounds)."""
from collections import OrderedDict

import numpy as np

from ._helpers import program, randn, set_weights, input_grads, prefixed


def nested_net(ms):
    nn = ms.nn

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(3, 3)
            self.norm = nn.BatchNorm1d(3)
            self.scale = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="scale")

        def construct(self, x):
            return self.norm(self.dense(x)) * self.scale

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), Block()])
            self.heads = nn.CellList([nn.Dense(3, 3), nn.Dense(3, 2, has_bias=False)])
            self.named = nn.SequentialCell(OrderedDict([("first", nn.Dense(2, 2)),
                                                        ("act", nn.Tanh())]))
            self.conv = nn.Conv1d(1, 2, 2, has_bias=True)

        def construct(self, x):
            x = self.seq(x)
            for cell in self.heads:
                x = cell(x)
            return self.named(x)

    return Net()


@program
def cell_names(ms, seed):
    net = nested_net(ms)
    return {
        "parameters_and_names": np.array([name for name, _ in net.parameters_and_names()]),
        "parameter_names": np.array([p.name for p in net.get_parameters()]),
        "trainable": np.array([p.name for p in net.trainable_params()]),
        "untrainable": np.array([p.name for p in net.untrainable_params()]),
        "cells_and_names": np.array([name for name, _ in net.cells_and_names()]),
        "name_cells": np.array(list(net.name_cells())),
        "parameters_dict": np.array(list(net.parameters_dict())),
    }


@program
def cell_hooks(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    net = nn.SequentialCell([nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 2)])
    set_weights(ms, net, rng)
    seen = {}

    def pre_hook(cell, inputs):
        seen["pre_input"] = inputs[0].asnumpy()
        return (inputs[0] * 2,)

    def forward_hook(cell, inputs, output):
        seen["forward_input"] = inputs[0].asnumpy()
        seen["forward_output"] = output.asnumpy()
        return output + 1

    def backward_hook(cell, grad_input, grad_output):
        seen["backward_grad_input"] = grad_input[0].asnumpy()
        seen["backward_grad_output"] = grad_output[0].asnumpy()
        return (grad_input[0] * 3,)

    handles = [net[0].register_forward_pre_hook(pre_hook),
               net[1].register_forward_hook(forward_hook),
               net[2].register_backward_hook(backward_hook)]
    result = prefixed("hooked", input_grads(ms, net, rng, randn(rng, 2, 3)))
    for handle in handles:
        handle.remove()
    result.update(prefixed("removed", input_grads(ms, net, rng, randn(rng, 2, 3))))
    result.update({f"seen/{key}": value for key, value in seen.items()})
    return result


@program
def tensor_methods(ms, seed):
    m = ms.Tensor(np.array([[0.0, 1, 2], [3, 4, 5]], np.float32))
    i = ms.Tensor(np.array([[1, 2, 3], [4, 5, 7]], np.int32))
    b = ms.Tensor(np.array([True, False, True]))
    calls = {
        "sum_int32": lambda: i.sum(), "sum_bool": lambda: b.sum(),
        "mean_int32": lambda: i.mean(), "mean_keep": lambda: m.mean(axis=1, keep_dims=True),
        "max_all": lambda: m.max(), "max_dim": lambda: m.max(0), "max_axis": lambda: m.max(axis=1),
        "min_dim_keep": lambda: m.min(dim=1, keepdim=True),
        "argmax": lambda: m.argmax(), "argmax_dim": lambda: m.argmax(1),
        "argmin": lambda: m.argmin(), "std": lambda: m.std(), "var_axis": lambda: m.var(0),
        "prod_int": lambda: i.prod(), "cumsum_int": lambda: i.cumsum(1),
        "all": lambda: b.all(), "any_axis": lambda: (m > 3).any(1),
        "transpose_swap": lambda: m.transpose(0, 1), "t3_swap": lambda: m.reshape(1, 2, 3)
        .transpose(-2, -1), "flatten_start": lambda: m.reshape(1, 2, 3).flatten(1),
        "view": lambda: m.view(3, 2), "expand": lambda: m[:1].expand(3, -1),
        "squeeze_noop": lambda: m.squeeze(0), "unsqueeze": lambda: m.unsqueeze(-1),
        "int_div": lambda: i / i, "floor_div": lambda: i // 2, "mod_neg": lambda: (-i) % 3,
        "int_plus_float": lambda: i + 1.5, "int_plus_int": lambda: i + 2,
        "pow_int": lambda: i ** 2, "rpow": lambda: 2 ** m, "neg_floor_div": lambda: (-m) // 4,
        "topk": lambda: m.topk(2), "sort_desc": lambda: m.sort(descending=True),
        "clip": lambda: m.clip(1, 3), "norm": lambda: m.norm(), "softmax": lambda: m.softmax(0),
        "gather_dim": lambda: m.gather(1, ms.Tensor(np.array([[2], [0]], np.int64))),
        "chunk": lambda: m.chunk(2, 1), "split": lambda: m.split(2, 1),
        "tile": lambda: m.tile((2,)), "where": lambda: m.where(m > 2, -m),
        "item_list": lambda: ms.Tensor(np.array(m.tolist(), np.float32)),
        "astype_str": lambda: m.astype("float16"), "int_method": lambda: m.int(),
        "long_method": lambda: m.long(), "bool_method": lambda: m.bool(),
        "double": lambda: m.double(),
    }
    out = {}
    for name in ("add_", "mul_"):
        t = m.copy()
        getattr(t, name)(2.0)
        out[f"in_place/{name}"] = t.asnumpy()
    for name, call in calls.items():
        res = call()
        if isinstance(res, (tuple, list)):
            out.update({f"{name}[{k}]": r.asnumpy() for k, r in enumerate(res)})
        else:
            out[name] = res.asnumpy()
    return out


def moments(prefix, values):
    """Scale, bias and shape (kurtosis: 1.8 uniform, 3 normal) of a large sample."""
    values = values.astype(np.float64).ravel()
    std = values.std()
    kurtosis = np.mean((values - values.mean()) ** 4) / std ** 4
    return {f"stat:{prefix}/std": np.array(std),
            f"stat:{prefix}/mean_over_std": np.array(values.mean() / std),
            f"stat:{prefix}/kurtosis": np.array(kurtosis)}


@program
def default_init(ms, seed):
    nn = ms.nn
    ms.set_seed(seed)
    cells = {
        "dense": nn.Dense(256, 512), "conv2d": nn.Conv2d(32, 64, 5, has_bias=True),
        "conv2d_transpose": nn.Conv2dTranspose(64, 32, 5, has_bias=True),
        "conv1d": nn.Conv1d(64, 128, 5, has_bias=True), "embedding": nn.Embedding(4096, 64),
        "lstm": nn.LSTM(64, 128), "gru": nn.GRU(64, 128), "rnn_cell": nn.RNNCell(64, 128),
        "mha": nn.MultiheadAttention(128, 4),
        "encoder_layer": nn.TransformerEncoderLayer(128, 4, dim_feedforward=256),
        "prelu": nn.PReLU(), "layernorm": nn.LayerNorm((64,)), "batchnorm": nn.BatchNorm2d(16),
    }
    out = {}
    for name, cell in cells.items():
        for p in cell.get_parameters():
            value = p.asnumpy()
            if value.size >= 1024:
                out.update(moments(f"{name}/{p.name}", value))
            elif value.std() > 0:    # a small uniform sample: its bound
                out[f"stat:{name}/{p.name}/max_abs"] = np.array(np.abs(value).max())
            else:
                out[f"{name}/{p.name}"] = value
    init = ms.common.initializer
    shape = (128, 256)
    for name in ("Normal", "Uniform", "XavierUniform", "XavierNormal", "HeUniform", "HeNormal",
                 "TruncatedNormal", "Orthogonal"):
        out.update(moments(f"initializer/{name}",
                           init.initializer(getattr(init, name)(), shape, ms.float32).asnumpy()))
    out["initializer/Constant"] = init.initializer(init.Constant(0.3), (2, 2)).asnumpy()
    out["initializer/One_int"] = init.initializer("ones", (3,), ms.int32).asnumpy()
    out["initializer/Identity"] = init.initializer(init.Identity(), (2, 3)).asnumpy()
    out["initializer/Dirac"] = init.initializer(init.Dirac(2), (4, 2, 3)).asnumpy()
    return out
