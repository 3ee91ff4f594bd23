"""RNN, LSTM, GRU and their single-step cells against NumPy recurrences.

The NumPy recurrences below (gate order i, f, g, o for LSTM and r, z, n for GRU) were
checked against MindSpore 2.10's nn.LSTM/nn.GRU with the same weights (max difference
5e-8 / 4e-7); parameter names, shapes, output shapes, the zero outputs past
``seq_length`` and the error messages were observed there too.
"""
import numpy as np
import pytest

import spore as ms
from spore import nn, Tensor
from tests.nn.layer_checks import check_grads


def sig(x):
    return 1 / (1 + np.exp(-x))


def np_lstm(x, h, c, wih, whh, bih, bhh):
    outs = []
    for t in range(x.shape[0]):
        g = x[t] @ wih.T + bih + h @ whh.T + bhh
        i, f, gg, o = np.split(g, 4, axis=-1)
        c = sig(f) * c + sig(i) * np.tanh(gg)
        h = sig(o) * np.tanh(c)
        outs.append(h)
    return np.stack(outs), h, c


def np_gru(x, h, wih, whh, bih, bhh):
    outs = []
    for t in range(x.shape[0]):
        gi = x[t] @ wih.T + bih
        gh = h @ whh.T + bhh
        ir, iz, inn = np.split(gi, 3, -1)
        hr, hz, hn = np.split(gh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(inn + r * hn)
        h = (1 - z) * n + z * h
        outs.append(h)
    return np.stack(outs), h


def np_rnn(x, h, wih, whh, bih, bhh, act=np.tanh):
    outs = []
    for t in range(x.shape[0]):
        h = act(x[t] @ wih.T + bih + h @ whh.T + bhh)
        outs.append(h)
    return np.stack(outs), h


def params(cell):
    return {p.name.split(".")[-1]: p.asnumpy() for p in cell.get_parameters()}


def weights(P, suffix):
    return [P[f"{k}{suffix}"] for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 2, 3)).astype(np.float32)


def test_lstm_parameter_names_shapes_and_order():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    got = [(p.name, p.shape) for p in lstm.get_parameters()]
    assert got == [
        ("weight_ih_l0", (16, 3)), ("weight_ih_l0_reverse", (16, 3)), ("weight_ih_l1", (16, 8)),
        ("weight_ih_l1_reverse", (16, 8)), ("weight_hh_l0", (16, 4)),
        ("weight_hh_l0_reverse", (16, 4)), ("weight_hh_l1", (16, 4)),
        ("weight_hh_l1_reverse", (16, 4)), ("bias_ih_l0", (16,)), ("bias_ih_l0_reverse", (16,)),
        ("bias_ih_l1", (16,)), ("bias_ih_l1_reverse", (16,)), ("bias_hh_l0", (16,)),
        ("bias_hh_l0_reverse", (16,)), ("bias_hh_l1", (16,)), ("bias_hh_l1_reverse", (16,))]

    class P(nn.Cell):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(3, 4)

    assert [p.name for p in P().get_parameters()] == [
        "rnn.weight_ih_l0", "rnn.weight_hh_l0", "rnn.bias_ih_l0", "rnn.bias_hh_l0"]
    assert [p.name for p in nn.RNN(3, 4, has_bias=False).get_parameters()] == [
        "weight_ih_l0", "weight_hh_l0"]


def test_initial_weights_are_uniform_in_one_over_sqrt_hidden():
    ms.set_seed(3)
    for p in nn.LSTM(8, 16).get_parameters():
        v = p.asnumpy()
        assert np.abs(v).max() <= 0.25 and np.abs(v).max() > 0.2 and v.dtype == np.float32


def test_lstm_matches_numpy():
    lstm = nn.LSTM(3, 4)
    out, (h, c) = lstm(Tensor(X))
    ro, rh, rc = np_lstm(X, np.zeros((2, 4)), np.zeros((2, 4)), *weights(params(lstm), "_l0"))
    assert out.shape == (5, 2, 4) and h.shape == (1, 2, 4) and c.shape == (1, 2, 4)
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy()[0], rh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.asnumpy()[0], rc, rtol=1e-5, atol=1e-6)


def test_gru_and_rnn_match_numpy_with_initial_state():
    h0 = RNG.standard_normal((1, 2, 4)).astype(np.float32)
    gru = nn.GRU(3, 4)
    out, h = gru(Tensor(X), Tensor(h0))
    ro, rh = np_gru(X, h0[0], *weights(params(gru), "_l0"))
    np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy()[0], rh, rtol=1e-5, atol=1e-6)
    for nonlinearity, act in (("tanh", np.tanh), ("relu", lambda v: np.maximum(v, 0))):
        rnn = nn.RNN(3, 4, nonlinearity=nonlinearity)
        out, h = rnn(Tensor(X), Tensor(h0))
        ro, rh = np_rnn(X, h0[0], *weights(params(rnn), "_l0"), act=act)
        np.testing.assert_allclose(out.asnumpy(), ro, rtol=1e-5, atol=1e-6)


def test_stacked_bidirectional_lstm_matches_numpy():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    P = params(lstm)
    z = np.zeros((2, 4))
    f0, hf0, cf0 = np_lstm(X, z, z, *weights(P, "_l0"))
    b0, hb0, cb0 = np_lstm(X[::-1], z, z, *weights(P, "_l0_reverse"))
    layer1_in = np.concatenate([f0, b0[::-1]], -1)
    f1, hf1, cf1 = np_lstm(layer1_in, z, z, *weights(P, "_l1"))
    b1, hb1, cb1 = np_lstm(layer1_in[::-1], z, z, *weights(P, "_l1_reverse"))
    out, (h, c) = lstm(Tensor(X))
    np.testing.assert_allclose(out.asnumpy(), np.concatenate([f1, b1[::-1]], -1),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.asnumpy(), np.stack([hf0, hb0, hf1, hb1]), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), np.stack([cf0, cb0, cf1, cb1]), rtol=1e-5,
                               atol=1e-6)


def test_batch_first():
    rnn = nn.RNN(3, 4, nonlinearity="relu", batch_first=True)
    xb = np.ascontiguousarray(X.transpose(1, 0, 2))       # (batch=2, seq=5, 3)
    out, h = rnn(Tensor(xb))
    assert out.shape == (2, 5, 4) and h.shape == (1, 2, 4)
    ro, rh = np_rnn(X, np.zeros((2, 4)), *weights(params(rnn), "_l0"),
                    act=lambda v: np.maximum(v, 0))
    np.testing.assert_allclose(out.asnumpy(), ro.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)


def test_seq_length_masks_steps_past_each_length():
    lstm = nn.LSTM(3, 4, bidirectional=True)
    lengths = np.array([3, 5], np.int32)
    out, (h, c) = lstm(Tensor(X), seq_length=Tensor(lengths))
    out = out.asnumpy()
    np.testing.assert_array_equal(out[3:, 0], 0.0)           # batch 0 is 3 steps long
    P = params(lstm)
    z = np.zeros((1, 4))
    for b, n in enumerate(lengths):
        xs = X[:n, b:b + 1]
        f, hf, cf = np_lstm(xs, z, z, *weights(P, "_l0"))
        r, hr, cr = np_lstm(xs[::-1], z, z, *weights(P, "_l0_reverse"))
        np.testing.assert_allclose(out[:n, b], np.concatenate([f, r[::-1]], -1)[:, 0],
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h.asnumpy()[:, b], np.concatenate([hf, hr]), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(c.asnumpy()[:, b], np.concatenate([cf, cr]), rtol=1e-5,
                                   atol=1e-6)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_gradients_wrt_input_and_parameters(cls):
    layer = cls(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    x = np.random.default_rng(1).standard_normal((3, 2, 2))
    check_grads(lambda t: layer(t), [x], list(layer.get_parameters())[:4], rtol=1e-4,
                atol=1e-7)


def test_cells_match_numpy_and_names():
    x = X[0]
    h = RNG.standard_normal((2, 4)).astype(np.float32)
    c = RNG.standard_normal((2, 4)).astype(np.float32)
    cell = nn.LSTMCell(3, 4)
    assert [(p.name, p.shape) for p in cell.get_parameters()] == [
        ("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))]
    hh, cc = cell(Tensor(x), (Tensor(h), Tensor(c)))
    _, rh, rc = np_lstm(x[None], h, c, *weights(params(cell), ""))
    np.testing.assert_allclose(hh.asnumpy(), rh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cc.asnumpy(), rc, rtol=1e-5, atol=1e-6)
    gcell = nn.GRUCell(3, 4)
    assert [p.shape for p in gcell.get_parameters()] == [(12, 3), (12, 4), (12,), (12,)]
    _, rh = np_gru(x[None], h, *weights(params(gcell), ""))
    np.testing.assert_allclose(gcell(Tensor(x), Tensor(h)).asnumpy(), rh, rtol=1e-5, atol=1e-6)
    rcell = nn.RNNCell(3, 4, nonlinearity="relu")
    _, rh = np_rnn(x[None], h, *weights(params(rcell), ""), act=lambda v: np.maximum(v, 0))
    np.testing.assert_allclose(rcell(Tensor(x), Tensor(h)).asnumpy(), rh, rtol=1e-5, atol=1e-6)


def test_dropout_between_layers_only_in_training():
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    a = lstm(Tensor(X))[0].asnumpy()
    b = lstm(Tensor(X))[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    lstm.set_train()
    assert lstm.dropout_op.training
    assert not np.allclose(lstm(Tensor(X))[0].asnumpy(), a)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        one_layer = nn.GRU(3, 4, dropout=0.5).set_train()      # no layer after the last one
    np.testing.assert_array_equal(one_layer(Tensor(X))[0].asnumpy(),
                                  one_layer(Tensor(X))[0].asnumpy())


def test_errors():
    with pytest.raises(TypeError, match="the type of 'dropout' must be 'float', but got 'int'"):
        nn.LSTM(3, 4, dropout=1)
    with pytest.raises(ValueError, match=r"must be a number in range \[0, 1\)"):
        nn.LSTM(3, 4, dropout=1.5)
    with pytest.raises(ValueError, match="'num_layers' must be int and must > 0"):
        nn.LSTM(3, 4, num_layers=0)
    with pytest.raises(TypeError, match="the type of 'batch_first' should be 'bool'"):
        nn.LSTM(3, 4, batch_first=1)
    with pytest.raises(ValueError, match="'nonlinearity' must be in"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(TypeError, match="'hx'"):
        nn.LSTM(3, 4)(Tensor(X), Tensor(X))
    with pytest.raises(ValueError, match="x_shape.size\\(\\) must be equal to 3, but got 2"):
        nn.LSTM(3, 4)(Tensor(X[0]))
    with pytest.raises(ValueError, match="batch size of x and seq_length must be equal"):
        nn.GRU(3, 4)(Tensor(X), seq_length=Tensor(np.array([1, 2, 3], np.int32)))
