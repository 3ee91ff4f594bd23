"""Dynamic-shape declarations: ``Tensor(shape=[None, 3], dtype=...)`` and
``Cell.set_inputs`` (messages and behaviour probed on MindSpore 2.10)."""
import warnings

import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


def test_placeholder_tensor_has_minus_one_axes_and_no_values():
    t = Tensor(shape=[None, 3], dtype=ms.float32)
    assert t.shape == (-1, 3) and t.dtype == ms.float32
    assert repr(t) == "Tensor(shape=[-1, 3], dtype=Float32, value=\n)"
    assert Tensor(shape=[-1, -1], dtype=ms.int32).shape == (-1, -1)
    assert str(t) == repr(t)
    for read in (t.asnumpy, lambda: t + 1):
        with pytest.raises(ValueError, match="negative dimensions are not allowed"):
            read()
    with pytest.raises(ValueError, match="None or -1"):
        Tensor(shape=[None, -2], dtype=ms.float32)


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    before = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=before)


def test_declared_axis_takes_any_size_without_a_recompile_warning(mode):
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    assert len(net.get_inputs()) == 1 and net.get_inputs()[0].shape == (-1, 3)
    x = np.random.default_rng(0).standard_normal((11, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(1, 12):
            out = net(Tensor(x[:n]))
            assert out.shape == (n, 2)
    w, b = net.fc.weight.asnumpy(), net.fc.bias.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("bad,err,message", [
    (np.ones((2, 4), np.float32), ValueError,
     "the shape of 1th input must be the same as expected, but got expected: 3, and input: 4!"),
    (np.ones((2, 3, 1), np.float32), ValueError,
     "the dims of 1th input must be the same as expected, but got expected: 2, and input: 3!"),
    (np.ones((2, 3), np.float64), TypeError,
     "the 1th type should be Tensor[Float32], but got Tensor[Float64]!"),
])
def test_graph_mode_checks_calls_against_the_declaration(bad, err, message):
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    before = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with pytest.raises(err) as e:
            net(Tensor(bad))
    finally:
        ms.set_context(mode=before)
    assert message in str(e.value)


def test_pynative_ignores_the_declaration_as_mindspore_does():
    net = Net()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    before = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        with pytest.raises(ValueError, match="dense"):      # the op's own message
            net(Tensor(np.ones((2, 4), np.float32)))
    finally:
        ms.set_context(mode=before)


def test_get_inputs_is_none_until_declared():
    assert Net().get_inputs() is None
