"""MultiheadAttention and the Transformer layers against a NumPy implementation.

The NumPy attention/encoder below were checked against MindSpore 2.10's
nn.MultiheadAttention (bool attn_mask + key_padding_mask, float mask, per-head weights:
max difference 2e-6) and nn.TransformerEncoderLayer (post-norm ReLU and pre-norm GELU:
max difference 6e-7) with the same weights; parameter names and shapes were observed there.
"""
from math import erf, sqrt

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from tests.nn.layer_checks import check_grads


def softmax(z):
    z = z - z.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def np_mha(q, k, v, P, heads, prefix="", attn_mask=None, kpm=None, average=True):
    w_in, b_in = P[prefix + "in_proj_weight"], P[prefix + "in_proj_bias"]
    L, N, E = q.shape
    S, D = k.shape[0], E // heads
    (wq, wk, wv), (bq, bk, bv) = np.split(w_in, 3), np.split(b_in, 3)

    def split(x, n):
        return x.reshape(n, N, heads, D).transpose(1, 2, 0, 3)

    Q, K, V = split(q @ wq.T + bq, L), split(k @ wk.T + bk, S), split(v @ wv.T + bv, S)
    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(D)
    if attn_mask is not None:
        s = s + (np.where(attn_mask, -np.inf, 0.0) if attn_mask.dtype == bool else attn_mask)
    if kpm is not None:
        s = s + np.where(kpm, -np.inf, 0.0)[:, None, None, :]
    a = softmax(s)
    o = (a @ V).transpose(2, 0, 1, 3).reshape(L, N, E)
    o = o @ P[prefix + "out_proj.weight"].T + P[prefix + "out_proj.bias"]
    return o, (a.mean(1) if average else a)


def np_ln(x, g, b, eps=1e-5):
    m, v = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def relu(z):
    return np.maximum(z, 0)


def np_gelu(z):
    return 0.5 * z * (1 + np.vectorize(erf)(z / sqrt(2)))


def np_ff(x, P, act):
    return act(x @ P["dense1.weight"].T + P["dense1.bias"]) @ P["dense2.weight"].T + \
        P["dense2.bias"]


def np_encoder(x, P, heads, norm_first=False, act=relu):
    def sa(z):
        return np_mha(z, z, z, P, heads, "self_attn.")[0]

    def norm(i, z):
        return np_ln(z, P[f"norm{i}.gamma"], P[f"norm{i}.beta"])

    if norm_first:
        x = x + sa(norm(1, x))
        return x + np_ff(norm(2, x), P, act)
    x = norm(1, x + sa(x))
    return norm(2, x + np_ff(x, P, act))


def np_decoder(x, mem, P, heads, tgt_mask=None):
    def norm(i, z):
        return np_ln(z, P[f"norm{i}.gamma"], P[f"norm{i}.beta"])

    x = norm(1, x + np_mha(x, x, x, P, heads, "self_attn.", tgt_mask)[0])
    x = norm(2, x + np_mha(x, mem, mem, P, heads, "multihead_attn.")[0])
    return norm(3, x + np_ff(x, P, relu))


def randomize(cell, seed=0, scale=0.5):
    """Give every parameter random values; returns them by (relative) name."""
    rng = np.random.default_rng(seed)
    for p in cell.get_parameters():
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * scale))
    return {k: p.asnumpy().astype(np.float64) for k, p in cell.parameters_and_names()}


RNG = np.random.default_rng(1)
Q = RNG.standard_normal((3, 2, 4)).astype(np.float32)
K = RNG.standard_normal((5, 2, 4)).astype(np.float32)
V = RNG.standard_normal((5, 2, 4)).astype(np.float32)


# ---------------------------------------------------------------- MultiheadAttention
def test_mha_parameters():
    m = nn.MultiheadAttention(8, 2)
    assert [(p.name, p.shape) for p in m.get_parameters()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    np.testing.assert_array_equal(m.in_proj_bias.asnumpy(), 0)
    bound = np.sqrt(6 / (24 + 8))                                     # XavierUniform
    assert np.abs(m.in_proj_weight.asnumpy()).max() <= bound
    m2 = nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)
    assert [(p.name, p.shape) for p in m2.get_parameters()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 4)), ("v_proj_weight", (8, 6)),
        ("in_proj_bias", (24,)), ("bias_k", (1, 1, 8)), ("bias_v", (1, 1, 8)),
        ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]
    with pytest.raises(ValueError, match="'embed_dim' must be divisible by 'num_heads'"):
        nn.MultiheadAttention(8, 3)


def test_mha_matches_numpy_with_masks():
    m = nn.MultiheadAttention(4, 2)
    P = randomize(m)
    am = np.zeros((3, 5), bool)
    am[0, 4] = am[2, 1] = True
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3] = True
    out, w = m(Tensor(Q), Tensor(K), Tensor(V), key_padding_mask=Tensor(kpm),
               attn_mask=Tensor(am))
    ro, rw = np_mha(Q, K, V, P, 2, attn_mask=am, kpm=kpm)
    assert out.shape == (3, 2, 4) and w.shape == (2, 3, 5)
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-5, atol=1e-6)
    fm = RNG.standard_normal((3, 5)).astype(np.float32)
    out, w = m(Tensor(Q), Tensor(K), Tensor(V), attn_mask=Tensor(fm), average_attn_weights=False)
    ro, rw = np_mha(Q, K, V, P, 2, attn_mask=fm, average=False)
    assert w.shape == (2, 2, 3, 5)
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-5, atol=1e-6)


def test_mha_need_weights_batch_first_and_unbatched():
    m = nn.MultiheadAttention(4, 2)
    P = randomize(m)
    res = m(Tensor(Q), Tensor(K), Tensor(V), need_weights=False)
    assert isinstance(res, tuple) and len(res) == 1          # MindSpore returns (output,)
    mb = nn.MultiheadAttention(4, 2, batch_first=True)
    for p, src in zip(mb.get_parameters(), m.get_parameters()):
        p.set_data(src)
    swap = lambda a: np.ascontiguousarray(a.transpose(1, 0, 2))  # noqa: E731
    out, _ = mb(Tensor(swap(Q)), Tensor(swap(K)), Tensor(swap(V)))
    np.testing.assert_allclose(out.asnumpy(), swap(np_mha(Q, K, V, P, 2)[0]), rtol=1e-5,
                               atol=1e-5)
    out, w = m(Tensor(Q[:, 0]), Tensor(K[:, 0]), Tensor(V[:, 0]))
    ro, rw = np_mha(Q[:, :1], K[:, :1], V[:, :1], P, 2)
    assert out.shape == (3, 4) and w.shape == (3, 5)
    np.testing.assert_allclose(out.asnumpy(), ro[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w.asnumpy(), rw[0], rtol=1e-5, atol=1e-6)


def test_mha_bias_kv_and_zero_attn_shapes():
    m = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True)
    out, w = m(Tensor(Q), Tensor(K), Tensor(V), attn_mask=Tensor(np.zeros((3, 5), bool)))
    assert out.shape == (3, 2, 4) and w.shape == (2, 3, 7)   # 5 keys + bias row + zero row
    np.testing.assert_allclose(w.asnumpy().sum(-1), 1.0, rtol=1e-5)


def test_mha_gradients():
    m = nn.MultiheadAttention(4, 2, dtype=ms.float64)
    q = np.random.default_rng(3).standard_normal((3, 2, 4))
    check_grads(lambda x: m(x, x, x)[0], [q], [m.in_proj_weight, m.out_proj.weight],
                rtol=1e-4, atol=1e-7)


def test_mha_mask_errors():
    m = nn.MultiheadAttention(4, 2)
    with pytest.raises(ValueError, match=r"The shape of the `attn_mask` should be \(3, 5\)"):
        m(Tensor(Q), Tensor(K), Tensor(V), attn_mask=Tensor(np.zeros((3, 4), bool)))
    with pytest.raises(ValueError, match="only support float, byte, and bool types"):
        m(Tensor(Q), Tensor(K), Tensor(V), attn_mask=Tensor(np.zeros((3, 5), np.int32)))


# ---------------------------------------------------------------- encoder / decoder
def test_encoder_layer_parameters_and_defaults():
    e = nn.TransformerEncoderLayer(8, 2, 16)
    assert [(p.name, p.shape) for p in e.get_parameters()] == [
        ("self_attn.in_proj_weight", (24, 8)), ("self_attn.in_proj_bias", (24,)),
        ("self_attn.out_proj.weight", (8, 8)), ("self_attn.out_proj.bias", (8,)),
        ("dense1.weight", (16, 8)), ("dense1.bias", (16,)), ("dense2.weight", (8, 16)),
        ("dense2.bias", (8,)), ("norm1.gamma", (8,)), ("norm1.beta", (8,)),
        ("norm2.gamma", (8,)), ("norm2.beta", (8,))]
    assert e.training is False and repr(e.dropout) == "Dropout(p=0.1)"
    assert e.norm1.epsilon == 1e-5


@pytest.mark.parametrize("norm_first, activation, np_act", [(False, "relu", relu),
                                                            (True, "gelu", np_gelu)])
def test_encoder_layer_matches_numpy(norm_first, activation, np_act):
    e = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.1, norm_first=norm_first,
                                   activation=activation)
    P = randomize(e)
    np.testing.assert_allclose(e(Tensor(Q)).asnumpy(), np_encoder(Q, P, 2, norm_first, np_act),
                               rtol=1e-4, atol=1e-5)


def test_encoder_layer_dropout_only_while_training():
    e = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.5)
    a, b = e(Tensor(Q)).asnumpy(), e(Tensor(Q)).asnumpy()
    np.testing.assert_array_equal(a, b)
    e.set_train()
    assert not np.allclose(e(Tensor(Q)).asnumpy(), a)


def test_encoder_stacks_equal_copies_and_norm():
    layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm((4,)))
    names = [p.name for p in enc.get_parameters()]
    assert names[0] == "layers.0.self_attn.in_proj_weight"
    assert names[12] == "layers.1.self_attn.in_proj_weight" and names[-2:] == ["norm.gamma",
                                                                              "norm.beta"]
    np.testing.assert_array_equal(enc.layers[0].dense1.weight.asnumpy(),
                                  enc.layers[1].dense1.weight.asnumpy())
    assert enc.layers[0].dense1.weight is not enc.layers[1].dense1.weight
    P0 = randomize(enc.layers[0], seed=1)
    P1 = randomize(enc.layers[1], seed=2)
    want = np_encoder(np_encoder(Q, P0, 2), P1, 2)
    want = np_ln(want, 1.0, 0.0, eps=1e-7)
    np.testing.assert_allclose(enc(Tensor(Q)).asnumpy(), want, rtol=1e-4, atol=1e-4)


def test_decoder_layer_and_decoder_match_numpy():
    d = nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)
    P = randomize(d)
    assert [k for k in P][:8:4] == ["self_attn.in_proj_weight", "multihead_attn.in_proj_weight"]
    causal = np.triu(np.ones((3, 3), bool), 1)
    got = d(Tensor(Q), Tensor(K), tgt_mask=Tensor(causal))
    np.testing.assert_allclose(got.asnumpy(), np_decoder(Q, K, P, 2, causal), rtol=1e-4,
                               atol=1e-5)
    dec = nn.TransformerDecoder(d, 1)
    Pd = randomize(dec.layers[0], seed=4)
    np.testing.assert_allclose(dec(Tensor(Q), Tensor(K)).asnumpy(), np_decoder(Q, K, Pd, 2),
                               rtol=1e-4, atol=1e-5)


def test_transformer_composes_encoder_and_decoder():
    ms.set_seed(0)
    tr = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                        dim_feedforward=16, dropout=0.0)
    bound = np.sqrt(6 / (16 + 8))                       # xavier re-initialisation of dense1
    w = tr.encoder.layers[0].dense1.weight.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    src = Tensor(RNG.standard_normal((5, 2, 8)).astype(np.float32))
    tgt = Tensor(RNG.standard_normal((3, 2, 8)).astype(np.float32))
    out = tr(src, tgt)
    assert out.shape == (3, 2, 8)
    np.testing.assert_allclose(out.asnumpy(), tr.decoder(tgt, tr.encoder(src)).asnumpy(),
                               rtol=1e-6)
    with pytest.raises(ValueError, match="must be equal to `d_model`"):
        tr(src, Tensor(np.ones((3, 2, 4), np.float32)))


def test_activation_argument_checks():
    assert nn.TransformerEncoderLayer(4, 2, 8, activation=nn.GELU()).activation is not None
    assert nn.TransformerEncoderLayer(4, 2, 8, activation=ops.gelu).activation is ops.gelu
    with pytest.raises(ValueError, match="must be nn.ReLU or nn.GELU instance"):
        nn.TransformerEncoderLayer(4, 2, 8, activation=nn.Tanh())
    with pytest.raises(ValueError, match="The activation must be relu/gelu"):
        nn.TransformerEncoderLayer(4, 2, 8, activation="tanh")
