"""Layer programs: forward values and input/weight gradients of nn layers."""
import numpy as np

from ._helpers import (program, randn, set_weights, weights_of, names_of, input_grads,
                       weight_grads, prefixed)


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


def layer_results(ms, rng, layers, *shapes):
    """Values, input gradients and weight gradients of each named layer on seeded inputs."""
    out = {}
    for name, layer in layers.items():
        set_weights(ms, layer, rng)
        inputs = [randn(rng, *shape) for shape in shapes]
        out.update(prefixed(name, input_grads(ms, layer, rng, *inputs)))
        if layer.trainable_params():
            out.update(prefixed(name, weight_grads(ms, layer, rng, *inputs)))
    return out


@program
def conv_variants(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    conv2d = {
        "dilated": nn.Conv2d(4, 6, 3, dilation=2, pad_mode="valid", has_bias=True),
        "grouped_same_stride2": nn.Conv2d(4, 6, 3, stride=2, group=2, pad_mode="same"),
        "same_even_kernel": nn.Conv2d(4, 2, (2, 4), stride=(1, 2), pad_mode="same"),
        "pad_tuple": nn.Conv2d(4, 3, (3, 2), pad_mode="pad", padding=(1, 2, 0, 1),
                               has_bias=True),
        "depthwise": nn.Conv2d(4, 4, 3, group=4, pad_mode="pad", padding=1),
        "transpose_same_s2": nn.Conv2dTranspose(4, 3, 3, stride=2, has_bias=True),
        "transpose_valid": nn.Conv2dTranspose(4, 2, (2, 3), stride=(2, 1), pad_mode="valid"),
        "transpose_pad": nn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode="pad", padding=1,
                                            dilation=1, has_bias=True),
        "transpose_grouped": nn.Conv2dTranspose(4, 6, 3, group=2, pad_mode="same"),
    }
    conv1d = {
        "conv1d_same": nn.Conv1d(3, 4, 3, stride=2, has_bias=True),
        "conv1d_valid_dilated": nn.Conv1d(3, 2, 2, dilation=2, pad_mode="valid"),
        "conv1d_pad": nn.Conv1d(3, 4, 3, pad_mode="pad", padding=2, has_bias=True),
        "conv1d_transpose": nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="valid",
                                               has_bias=True),
    }
    out = layer_results(ms, rng, conv2d, (2, 4, 7, 6))
    out.update(layer_results(ms, rng, conv1d, (2, 3, 9)))
    return out


@program
def pool_variants(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    pools2d = {
        "max_same_s2": nn.MaxPool2d(3, 2, pad_mode="same"),
        "max_pad_ceil": nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, ceil_mode=True),
        "max_dilated": nn.MaxPool2d(2, 1, pad_mode="pad", dilation=2),
        "avg_same_s2": nn.AvgPool2d(3, 2, pad_mode="same"),
        "avg_pad_exclude": nn.AvgPool2d(3, 2, pad_mode="pad", padding=1,
                                        count_include_pad=False),
        "avg_pad_include_ceil": nn.AvgPool2d(2, 2, pad_mode="pad", padding=1, ceil_mode=True),
        "avg_divisor": nn.AvgPool2d(2, 1, divisor_override=3),
        "adaptive_avg": nn.AdaptiveAvgPool2d((3, 2)),
        "adaptive_avg_none": nn.AdaptiveAvgPool2d((None, 4)),
        "adaptive_max": nn.AdaptiveMaxPool2d((2, 3)),
    }
    pools1d = {
        "max1d_same": nn.MaxPool1d(3, 2, pad_mode="same"),
        "avg1d_valid": nn.AvgPool1d(3, 2),
        "adaptive_avg1d": nn.AdaptiveAvgPool1d(3),
        "adaptive_max1d": nn.AdaptiveMaxPool1d(3),
    }
    out = layer_results(ms, rng, pools2d, (2, 3, 7, 5))
    out.update(layer_results(ms, rng, pools1d, (2, 3, 9)))
    max_pool = nn.MaxPool2d(2, 2, pad_mode="pad", return_indices=True)
    indices = max_pool(ms.Tensor(randn(rng, 1, 2, 4, 6)))
    out.update({"max_indices/values": indices[0].asnumpy(),
                "max_indices/indices": indices[1].asnumpy()})
    return out


@program
def more_activations(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    cells = {
        "relu6": nn.ReLU6(), "mish": nn.Mish(), "sigmoid": nn.Sigmoid(),
        "log_sigmoid": nn.LogSigmoid(), "tanh": nn.Tanh(), "tanhshrink": nn.Tanhshrink(),
        "hswish": nn.HSwish(), "hsigmoid": nn.HSigmoid(), "softsign": nn.Softsign(),
        "selu": nn.SeLU(), "fast_gelu": nn.FastGelu(), "leaky_relu": nn.LeakyReLU(0.1),
        "elu": nn.ELU(1.0), "celu": nn.CELU(1.3), "hardtanh": nn.Hardtanh(-0.5, 1.5),
        "softshrink": nn.SoftShrink(0.3),
        "hshrink": nn.HShrink(0.4), "threshold": nn.Threshold(0.2, -1.0),
        "softmin": nn.Softmin(axis=1), "prelu": nn.PReLU(3, 0.1),
    }
    return layer_results(ms, rng, cells, (2, 3, 4))


@program
def norm_variants(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = layer_results(ms, rng, {"group_norm": nn.GroupNorm(2, 4, eps=1e-3)}, (2, 4, 3, 2))
    cases = {
        "affine_false": (nn.BatchNorm2d(3, affine=False), (4, 3, 2, 2)),
        "batch_stats_in_eval": (nn.BatchNorm2d(3, use_batch_statistics=True), (4, 3, 2, 2)),
        "bn1d_3d_input": (nn.BatchNorm1d(3, momentum=0.5), (4, 3, 5)),
        "bn3d": (nn.BatchNorm3d(2), (2, 2, 2, 3, 2)),
    }
    for name, (bn, shape) in cases.items():
        set_weights(ms, bn, rng)
        bn.set_train(name != "batch_stats_in_eval")
        out[f"{name}/out"] = bn(ms.Tensor(randn(rng, *shape, scale=2.0))).asnumpy()
        out.update(weights_of(bn, f"{name}/param:"))
    return out


@program
def rnn_variants(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = {}
    rnn = nn.RNN(3, 4, num_layers=2, nonlinearity="relu", has_bias=False)
    set_weights(ms, rnn, rng)
    out.update(prefixed("rnn_relu", input_grads(ms, rnn, rng, randn(rng, 5, 2, 3),
                                                randn(rng, 2, 2, 4))))
    out.update(names_of(rnn))
    lstm = nn.LSTM(3, 4, batch_first=True)
    set_weights(ms, lstm, rng)
    output, (hn, cn) = lstm(ms.Tensor(randn(rng, 2, 5, 3)))
    out.update({"lstm_zero_state/output": output.asnumpy(), "lstm_zero_state/hn": hn.asnumpy(),
                "lstm_zero_state/cn": cn.asnumpy()})
    cells = {"rnn_cell": (nn.RNNCell(3, 4, nonlinearity="tanh"), 1),
             "gru_cell": (nn.GRUCell(3, 4), 1), "lstm_cell": (nn.LSTMCell(3, 4), 2)}
    for name, (cell, n_states) in cells.items():
        set_weights(ms, cell, rng)
        x, h = randn(rng, 2, 3), randn(rng, 2, 4)
        if n_states == 1:
            out.update(prefixed(name, input_grads(ms, cell, rng, x, h)))
        else:
            c = randn(rng, 2, 4)
            out.update(prefixed(name, input_grads(ms, lambda a, b, d, cell=cell: cell(a, (b, d)),
                                                  rng, x, h, c)))
    return out


@program
def transformer_stack(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = {}
    decoder = nn.TransformerDecoderLayer(8, 2, dim_feedforward=12, dropout=0.0)
    set_weights(ms, decoder, rng)
    tgt, memory = randn(rng, 3, 2, 8), randn(rng, 4, 2, 8)
    causal = np.triu(np.full((3, 3), -np.inf, np.float32), 1)
    out.update(prefixed("decoder", input_grads(
        ms, lambda t, m: decoder(t, m, tgt_mask=ms.Tensor(causal)), rng, tgt, memory)))
    encoder = nn.TransformerEncoder(
        nn.TransformerEncoderLayer(8, 2, dim_feedforward=12, dropout=0.0), 2,
        norm=nn.LayerNorm((8,)))
    set_weights(ms, encoder, rng)
    out.update(prefixed("encoder_stack", input_grads(ms, encoder, rng, randn(rng, 4, 2, 8))))
    out.update(names_of(encoder))
    model = nn.Transformer(8, 2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=12, dropout=0.0, batch_first=True)
    set_weights(ms, model, rng)
    src, tgt = randn(rng, 2, 4, 8), randn(rng, 2, 3, 8)
    out["transformer/out"] = model(ms.Tensor(src), ms.Tensor(tgt)).asnumpy()
    bool_mask = ms.Tensor(np.triu(np.ones((3, 3), bool), 1))
    out["transformer/bool_tgt_mask"] = model(ms.Tensor(src), ms.Tensor(tgt),
                                             tgt_mask=bool_mask).asnumpy()
    return out


@program
def basic_layers(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    layers = {
        "dense_tanh": nn.Dense(5, 3, activation="tanh"),
        "dense_no_bias": nn.Dense(5, 4, has_bias=False, activation=nn.ReLU()),
        "flatten_from_2": nn.Flatten(start_dim=2),
        "dropout_eval": nn.Dropout(p=0.5),
        "identity": nn.Identity(),
    }
    for cell in layers.values():
        cell.set_train(False)
    out = layer_results(ms, rng, layers, (2, 3, 5))
    embedding = nn.Embedding(7, 3, padding_idx=2)
    out["embedding_padding_initial"] = embedding.embedding_table.asnumpy()[2]
    set_weights(ms, embedding, rng)
    ids = np.array([[2, 1, 2], [6, 0, 3]], np.int32)
    out.update(prefixed("embedding_padding", weight_grads(ms, embedding, rng, ids)))
    out["embedding_padding/out"] = embedding(ms.Tensor(ids)).asnumpy()
    return out


@program
def padding_layers(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    layers3 = {
        "pad_constant": nn.Pad(((0, 0), (1, 2), (2, 1))),
        "pad_reflect": nn.Pad(((0, 0), (1, 1), (2, 1)), mode="REFLECT"),
        "pad_symmetric": nn.Pad(((1, 0), (2, 1), (0, 3)), mode="SYMMETRIC"),
        "constant_pad1d": nn.ConstantPad1d((1, 3), 0.5),
        "reflection_pad1d": nn.ReflectionPad1d(2),
        "replication_pad1d": nn.ReplicationPad1d((3, 1)),
    }
    layers4 = {
        "zero_pad2d": nn.ZeroPad2d((1, 0, 2, 1)),
        "constant_pad2d": nn.ConstantPad2d(1, -1.0),
        "reflection_pad2d": nn.ReflectionPad2d((1, 2, 0, 1)),
        "replication_pad2d": nn.ReplicationPad2d(2),
        "constant_pad3d": nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 2.0),
        "replication_pad3d": nn.ReplicationPad3d(1),
    }
    out = layer_results(ms, rng, layers3, (2, 4, 5))
    out.update(layer_results(ms, rng, layers4, (1, 2, 4, 5)))
    return out


@program
def shape_layers(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    layers = {
        "upsample_nearest": nn.Upsample(scale_factor=2.0, mode="nearest",
                                        recompute_scale_factor=True),
        "upsample_bilinear": nn.Upsample(size=(5, 9), mode="bilinear", align_corners=True),
        "pixel_shuffle": nn.PixelShuffle(2),
        "pixel_unshuffle": nn.PixelUnshuffle(2),
        "softmax2d": nn.Softmax2d(),
        "glu": nn.GLU(axis=1),
        "unflatten": nn.Unflatten(1, (2, 2)),
        "tril": nn.Tril(), "triu": nn.Triu(),
        "channel_shuffle": nn.ChannelShuffle(2),
        "norm": nn.Norm(axis=1, keep_dims=True),
        "moments": nn.Moments(axis=(2, 3), keep_dims=True),
        "matmul": lambda x: nn.MatMul(transpose_x2=True)(x, x),
    }
    out = {}
    for name, layer in layers.items():
        out.update(prefixed(name, input_grads(ms, layer, rng, randn(rng, 2, 4, 4, 6))))
    out["one_hot"] = nn.OneHot(depth=4, on_value=2.0, off_value=-1.0)(
        ms.Tensor(np.array([[0, 3], [1, 2]], np.int32))).asnumpy()
    out["one_hot_axis0"] = nn.OneHot(axis=0, depth=3)(
        ms.Tensor(np.array([2, 0], np.int32))).asnumpy()
    out["range"] = nn.Range(1.0, 8.0, 1.5)().asnumpy()
    out["l1_regularizer"] = nn.L1Regularizer(0.5)(ms.Tensor(randn(rng, 3, 4))).asnumpy()
    return out


@program
def linear_layers(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = {}
    linear = nn.Linear(5, 3)
    out.update(layer_results(ms, rng, {"linear": linear}, (2, 5)))
    out.update(names_of(linear))
    bidense = nn.BiDense(3, 4, 2)
    set_weights(ms, bidense, rng)
    out.update(prefixed("bidense", input_grads(ms, bidense, rng, randn(rng, 5, 3),
                                               randn(rng, 5, 4))))
    return out


@program
def lp_pool_clip_margin(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    out = prefixed("lp_pool2d", input_grads(ms, nn.LPPool2d(2, 2), rng, randn(rng, 2, 3, 4, 6)))
    out.update(prefixed("lp_pool1d", input_grads(ms, nn.LPPool1d(3, 3, stride=2), rng,
                                                 randn(rng, 2, 3, 9))))
    clip = nn.ClipByNorm()     # with an axis, MindSpore 2.10's CPU kernel is wrong (test_layers)
    out.update(prefixed("clip_by_norm", input_grads(
        ms, lambda x: clip(x, ms.Tensor(np.float32(1.5))), rng, randn(rng, 3, 4))))
    labels = ms.Tensor(np.array([0, 3, 1, 1, 2], np.int64))
    for reduction in ("mean", "sum", "none"):
        loss = nn.MultiMarginLoss(reduction=reduction)
        out.update(prefixed(f"multi_margin_{reduction}", input_grads(
            ms, lambda x, loss=loss: loss(x, labels), rng, randn(rng, 5, 4))))
    return out
