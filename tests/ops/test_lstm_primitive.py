"""ops.LSTM (the primitive class): MindSpore's flat CPU weight layout, values probed on
MindSpore 2.10 (CPU), gradients by finite differences, and errors."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops
from tests.helpers.optable import OpCase, run_grad


def _weight_size(layers, dirs, input_size, hidden, bias=True):
    gates = 4 * hidden
    size = sum(gates * (input_size if layer == 0 else hidden * dirs) * dirs + gates * hidden * dirs
               for layer in range(layers))
    return size + (layers * dirs * gates if bias else 0)


def _inputs(layers, dirs, input_size=2, hidden=2, steps=3, batch=1, bias=True):
    """Deterministic inputs (the same expressions ran on MindSpore)."""
    size = _weight_size(layers, dirs, input_size, hidden, bias)
    w = np.sin(np.arange(size, dtype=np.float32) * 0.7).reshape(-1, 1, 1) * 0.5
    x = np.cos(np.arange(steps * batch * input_size, dtype=np.float32)).reshape(
        steps, batch, input_size)
    n = layers * dirs * batch * hidden
    h = np.linspace(-0.5, 0.5, n, dtype=np.float32).reshape(layers * dirs, batch, hidden)
    c = np.linspace(0.3, -0.3, n, dtype=np.float32).reshape(layers * dirs, batch, hidden)
    return [Tensor(a) for a in (x, h, c, w)]


# (num_layers, bidirectional, has_bias): output, h_n, c_n flattened, from MindSpore 2.10
MINDSPORE = {
    (1, False, True): ([-0.024932, 0.182816, 0.008073, 0.123659, 0.050324, 0.104046],
                       [0.050324, 0.104046], [0.086814, 0.173462]),
    (1, True, True): ([-0.090537, 0.098379, 0.114563, -0.197252, -0.054552, -0.069506,
                       0.122558, -0.063625, -0.034942, -0.132881, 0.071784, -0.079549],
                      [-0.034942, -0.132881, 0.114563, -0.197252],
                      [-0.105561, -0.328444, 0.219765, -0.420859]),
    (2, False, True): ([0.045419, -0.124126, 0.060023, -0.112985, 0.068154, -0.108278],
                       [-0.034942, -0.132881, 0.068154, -0.108278],
                       [-0.105561, -0.328444, 0.184389, -0.301232]),
    (1, False, False): ([-0.018676, 0.127254, 0.005601, 0.027138, 0.046682, -0.005492],
                        [0.046682, -0.005492], [0.10516, -0.010978]),
}


@pytest.mark.parametrize("config", list(MINDSPORE), ids=str)
def test_matches_mindspore(config):
    layers, bidirectional, bias = config
    dirs = 2 if bidirectional else 1
    out = ops.LSTM(2, 2, layers, bias, bidirectional, 0.0)(*_inputs(layers, dirs, bias=bias))
    assert len(out) == 5
    for got, want in zip(out[:3], MINDSPORE[config]):
        np.testing.assert_allclose(got.asnumpy().reshape(-1), want, atol=2e-6)
    assert out[0].shape == (3, 1, 2 * dirs) and out[1].shape == (layers * dirs, 1, 2)


def test_same_as_nn_lstm_with_summed_biases():
    rng = np.random.default_rng(0)
    net = nn.LSTM(3, 4, num_layers=1, bidirectional=True)
    x = Tensor(rng.standard_normal((5, 2, 3)).astype(np.float32))
    h = Tensor(rng.standard_normal((2, 2, 4)).astype(np.float32))
    c = Tensor(rng.standard_normal((2, 2, 4)).astype(np.float32))
    want, (h_n, c_n) = net(x, (h, c))
    params = {p.name.split(".")[-1]: p.asnumpy() for p in net.get_parameters()}
    suffixes = ["l0", "l0_reverse"]
    flat = [params[f"weight_ih_{s}"].ravel() for s in suffixes] + \
        [params[f"weight_hh_{s}"].ravel() for s in suffixes] + \
        [(params[f"bias_ih_{s}"] + params[f"bias_hh_{s}"]) for s in suffixes]
    w = Tensor(np.concatenate(flat).reshape(-1, 1, 1))
    out = ops.LSTM(3, 4, 1, True, True, 0.0)(x, h, c, w)
    for got, ref in zip(out[:3], (want, h_n, c_n)):
        np.testing.assert_allclose(got.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)


def _lstm_fn(layers, bidirectional):
    op = ops.LSTM(2, 2, layers, True, bidirectional, 0.0)
    return lambda x, h, c, w: op(x, h, c, w)[:3]


@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_gradient_matches_finite_differences(layers, bidirectional):
    dirs = 2 if bidirectional else 1
    shapes = [(3, 2, 2), (layers * dirs, 2, 2), (layers * dirs, 2, 2),
              (_weight_size(layers, dirs, 2, 2), 1, 1)]
    run_grad(OpCase("LSTM", _lstm_fn(layers, bidirectional), None, shapes, domain=(-1.0, 1.0)))


@pytest.mark.parametrize("ctor,exc,words", [
    ((4, 5, 0, True, False, 0.0), ValueError, "'num_layers' must be int and must > 0"),
    ((4, 0, 1, True, False, 0.0), ValueError, "'hidden_size' must be int and must > 0"),
    ((4, 5, 1, True, False, 1.5), ValueError, "'dropout' must be in range of \\[0, 1\\]"),
    ((4, 5, 1, 1, False, 0.0), TypeError, "'has_bias' should be 'bool'"),
])
def test_constructor_errors(ctor, exc, words):
    with pytest.raises(exc, match=words):
        ops.LSTM(*ctor)


def test_input_errors():
    z = lambda *s: Tensor(np.zeros(s, np.float32))      # noqa: E731
    op = ops.LSTM(4, 5, 1, True, False, 0.0)
    with pytest.raises(ValueError, match="h_shape: \\[2, 2, 5\\] must be equal to \\[1, 2, 5\\]"):
        op(z(3, 2, 4), z(2, 2, 5), z(1, 2, 5), z(180, 1, 1))
    with pytest.raises(ValueError, match="x_shape.size\\(\\) must be equal to 3"):
        op(z(3, 2), z(1, 2, 5), z(1, 2, 5), z(180, 1, 1))
    with pytest.raises(ValueError, match="x_shape\\[2\\] must be equal to 4, but got 3"):
        op(z(3, 2, 3), z(1, 2, 5), z(1, 2, 5), z(180, 1, 1))
    with pytest.raises(ValueError, match="size of 'w' must be 200"):
        op(z(3, 2, 4), z(1, 2, 5), z(1, 2, 5), z(180, 1, 1))
