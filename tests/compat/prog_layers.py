"""Layer programs: forward values and input/weight gradients of nn layers."""
import numpy as np

from ._helpers import (program, randn, set_weights, weights_of, names_of, input_grads, weight_grads, prefixed)


@program
def batchnorm(ms, seed):
    rng = np.random.default_rng(seed)
    bn = ms.nn.BatchNorm2d(3, momentum=0.8)
    set_weights(ms, bn, rng)
    bn.set_train(True)
    out = {}
    for step in range(2):
        x = randn(rng, 4, 3, 2, 3, scale=2.0) + 1.0
        out[f"train_out{step}"] = bn(ms.Tensor(x)).asnumpy()
    out.update(weights_of(bn))
    out.update(prefixed("train_grad", input_grads(ms, bn, rng, randn(rng, 2, 3, 2, 2))))
    bn.set_train(False)
    out.update(prefixed("eval", input_grads(ms, bn, rng, randn(rng, 2, 3, 2, 2))))
    bn1d = ms.nn.BatchNorm1d(4)
    set_weights(ms, bn1d, rng)
    bn1d.set_train(True)
    out["bn1d_train"] = bn1d(ms.Tensor(randn(rng, 5, 4))).asnumpy()
    out.update(weights_of(bn1d, "bn1d:"))
    return out


@program
def layernorm(ms, seed):
    rng = np.random.default_rng(seed)
    out = {}
    x = randn(rng, 2, 3, 4, 5, scale=2.0)
    variants = {"last": ((5,), -1, -1), "last_two": ((4, 5), 2, 2),
                "from_axis1": ((3, 4, 5), 1, 1), "params_axis_after_norm": ((4, 5), 1, 2)}
    for name, (shape, norm_axis, params_axis) in variants.items():
        ln = ms.nn.LayerNorm(shape, begin_norm_axis=norm_axis, begin_params_axis=params_axis,
                             epsilon=1e-5)
        set_weights(ms, ln, rng)
        out.update(prefixed(name, input_grads(ms, ln, rng, x)))
        out.update(prefixed(name, weight_grads(ms, ln, rng, x)))
    return out


@program
def activations(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    cells = {"gelu_tanh": nn.GELU(approximate=True), "gelu_erf": nn.GELU(approximate=False),
             "silu": nn.SiLU(), "softmax": nn.Softmax(axis=-1), "log_softmax": nn.LogSoftmax(1),
             "softmax_axis0": nn.Softmax(axis=0)}
    x = randn(rng, 3, 4, 2, scale=3.0)
    out = {}
    for name, cell in cells.items():
        out.update(prefixed(name, input_grads(ms, cell, rng, x)))
    return out


@program
def embedding_lstm(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    embedding = nn.Embedding(20, 6)
    lstm = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True)
    set_weights(ms, embedding, rng)
    set_weights(ms, lstm, rng)
    ids = ms.Tensor(rng.integers(0, 20, (3, 4)).astype(np.int32))
    h0, c0 = randn(rng, 4, 3, 5), randn(rng, 4, 3, 5)
    embedded = embedding(ids)
    out = {"embedded": embedded.asnumpy(), **names_of(lstm)}

    def run(x, h, c):
        output, (hn, cn) = lstm(x, (h, c))
        return output, hn, cn

    out.update(input_grads(ms, run, rng, embedded.asnumpy(), h0, c0))
    out.update(weight_grads(ms, lstm, rng, embedded.asnumpy()))
    out.update(prefixed("embedding", weight_grads(ms, embedding, rng, ids.asnumpy())))
    seq_length = ms.Tensor(np.array([4, 2, 3], np.int32))
    output, (hn, cn) = lstm(embedded, (ms.Tensor(h0), ms.Tensor(c0)), seq_length)
    out.update({"seq_len/output": output.asnumpy(), "seq_len/hn": hn.asnumpy(),
                "seq_len/cn": cn.asnumpy()})
    return out


@program
def gru(ms, seed):
    rng = np.random.default_rng(seed)
    net = ms.nn.GRU(4, 3, num_layers=2)
    set_weights(ms, net, rng)
    x, h0 = randn(rng, 5, 2, 4), randn(rng, 2, 2, 3)
    out = input_grads(ms, net, rng, x, h0)
    bi = ms.nn.GRU(4, 3, batch_first=True, bidirectional=True)
    set_weights(ms, bi, rng)
    output, hn = bi(ms.Tensor(randn(rng, 2, 5, 4)))
    out.update({"bidirectional/output": output.asnumpy(), "bidirectional/hn": hn.asnumpy()})
    return out


@program
def transformer_encoder(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = {}
    configs = {"post_norm_relu": {}, "pre_norm_gelu": {"norm_first": True, "activation": "gelu"}}
    for name, kwargs in configs.items():
        layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                           batch_first=True, **kwargs)
        set_weights(ms, layer, rng)
        layer.set_train(False)
        x = randn(rng, 2, 5, 8)
        out.update(prefixed(name, input_grads(ms, layer, rng, x)))
        mask = ms.Tensor(np.array([[False] * 5, [False] * 3 + [True] * 2]))
        out[f"{name}/padding_mask_out"] = layer(ms.Tensor(x), src_key_padding_mask=mask).asnumpy()
    return out


@program
def multihead_attention(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    mha = nn.MultiheadAttention(8, 2)
    set_weights(ms, mha, rng)
    q, k, v = randn(rng, 3, 2, 8), randn(rng, 4, 2, 8), randn(rng, 4, 2, 8)
    out = input_grads(ms, mha, rng, q, k, v)
    padding = ms.Tensor(np.array([[False, False, True, True], [False] * 4]))
    attn, weights = mha(ms.Tensor(q), ms.Tensor(k), ms.Tensor(v), key_padding_mask=padding,
                        average_attn_weights=False)
    out.update({"masked/attn": attn.asnumpy(), "masked/weights": weights.asnumpy()})
    kv = nn.MultiheadAttention(8, 2, kdim=6, vdim=5, batch_first=True)
    set_weights(ms, kv, rng)
    attn, weights = kv(ms.Tensor(randn(rng, 2, 3, 8)), ms.Tensor(randn(rng, 2, 4, 6)),
                       ms.Tensor(randn(rng, 2, 4, 5)))
    out.update({"kdim_vdim/attn": attn.asnumpy(), "kdim_vdim/weights": weights.asnumpy()})
    return out
