"""GRAPH_MODE Cells, @jit construct, ms.jit(cell), training steps and Model in both modes."""
import os

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    return request.param


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid")
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.drop = nn.Dropout(p=0.25)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 3 * 3, 3)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv(x))))
        return self.fc(self.drop(self.flat(x)))


def _copy_params(src, dst):
    for (_, a), (_, b) in zip(src.parameters_and_names(), dst.parameters_and_names()):
        b.set_data(a.data.copy() if hasattr(a.data, "copy") else a)


def _clone(cls):
    ms.set_seed(1)
    a = cls()
    ms.set_seed(1)
    b = cls()
    return a, b


def test_graph_mode_cell_compiles_and_matches_pynative():
    net = MLP()
    x = _t(5, 8)
    want = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x).asnumpy()
    got2 = net(x).asnumpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got2, want)
    report = ms.jit_report(net)
    assert report.compiled == 1 and not report.fallbacks


def test_jit_on_construct_and_jit_of_a_cell():
    class Net(MLP):
        @ms.jit
        def construct(self, x):
            return self.fc2(self.relu(self.fc1(x)))
    ms.set_seed(0)
    a = Net()
    ms.set_seed(0)
    b = MLP()
    x = _t(2, 8)
    np.testing.assert_array_equal(a(x).asnumpy(), b(x).asnumpy())
    c = ms.jit(b)
    assert c is b
    np.testing.assert_array_equal(c(x).asnumpy(), a(x).asnumpy())
    assert ms.jit_report(c).compiled == 1


def _train(net, opt_cls, steps, x, y, **opt_kw):
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = opt_cls(net.trainable_params(), **opt_kw)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    step.set_train()
    return [float(step(x, y).asnumpy()) for _ in range(steps)]


@pytest.mark.parametrize("opt_cls,kw", [(nn.Momentum, dict(learning_rate=0.1, momentum=0.9)),
                                        (nn.Adam, dict(learning_rate=0.01))],
                         ids=["momentum", "adam"])
def test_train_one_step_cell_same_numbers_in_both_modes(opt_cls, kw):
    x = _t(6, 1, 8, 8)
    y = Tensor(np.array([0, 1, 2, 0, 1, 2], np.int32))
    runs = {}
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(5)
        net = ConvNet()
        ms.set_seed(11)              # the dropout masks
        losses = _train(net, opt_cls, 4, x, y, **kw)
        runs[m] = (losses, [p.asnumpy().copy() for p in net.get_parameters()])
    (l0, p0), (l1, p1) = runs[ms.PYNATIVE_MODE], runs[ms.GRAPH_MODE]
    np.testing.assert_allclose(l1, l0, rtol=1e-6)
    for a, b in zip(p0, p1):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)


def test_set_train_switches_graph_and_back():
    x = _t(2, 1, 8, 8)
    outs = {}
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(2)
        net = ConvNet()
        seq = []
        for training in (False, True, False, True):
            net.set_train(training)
            ms.set_seed(9)
            seq.append(net(x).asnumpy())
        outs[m] = seq
    for a, b in zip(outs[ms.PYNATIVE_MODE], outs[ms.GRAPH_MODE]):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)
    assert ms.jit_report(net).compiled == 2     # one graph per mode, reused after the flip


def test_model_train_in_graph_mode_matches_pynative():
    from spore.dataset import NumpySlicesDataset
    from spore.train import Model
    rng = np.random.default_rng(0)
    data = rng.standard_normal((32, 8)).astype(np.float32)
    labels = rng.integers(0, 3, 32).astype(np.int32)
    finals = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(4)
        net = MLP()
        ds = NumpySlicesDataset({"x": data, "y": labels}, shuffle=False).batch(8)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        model.train(2, ds)
        finals.append(net(Tensor(data)).asnumpy())
    np.testing.assert_allclose(finals[1], finals[0], rtol=1e-5, atol=1e-6)


def test_save_graphs_writes_one_file_per_pass_and_a_dot(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    f = ms.jit(lambda x: ops.tanh(x) * 2 + ops.tanh(x))
    f(_t(3))
    files = sorted(os.listdir(tmp_path))
    irs = [n for n in files if n.endswith(".ir")]
    assert [n.split("_")[0] for n in irs] == ["00", "01", "02", "03", "04", "05", "06"]
    assert any("capture" in n for n in irs) and any("cse" in n for n in irs)
    assert any(n.endswith(".dot") for n in files)
    text = (tmp_path / [n for n in irs if "capture" in n][0]).read_text()
    assert "Tanh" in text and "test_graph_mode.py" in text
    after_cse = (tmp_path / [n for n in irs if "cse" in n][0]).read_text()
    assert after_cse.count("Tanh(") == 1 and text.count("Tanh(") == 2


def test_custom_bprop_cell_inside_a_compiled_gradient():
    class Scaled(nn.Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 10,)
    cell = Scaled()
    g = ops.grad(lambda x: (cell(x) ** 2).sum())
    jg = ms.jit(g)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(jg(x).asnumpy(), [60.0, 120.0])
    np.testing.assert_array_equal(jg(x).asnumpy(), g(x).asnumpy())
    assert not ms.jit_report(jg).fallbacks


def test_backward_hooks_make_the_step_run_in_pynative_every_call():
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = MLP()
    calls = []
    net.fc2.register_backward_hook(lambda cell, gin, gout: calls.append(1))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9))
    with pytest.warns(RuntimeWarning, match="backward hook"):
        step(_t(4, 8), _t(4, 3, seed=1))
    step(_t(4, 8), _t(4, 3, seed=1))
    assert len(calls) == 2
    (fb,) = ms.jit_report(step).fallbacks
    assert "register_backward_hook" in fb.construct


def test_forward_hooks_and_mixed_precision_are_traced():
    x = _t(3, 8)
    y = Tensor(np.array([0, 1, 2], np.int32))
    runs = []
    for m in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=m)
        ms.set_seed(3)
        net = MLP()
        net.fc1.register_forward_hook(lambda cell, inputs, out: out * 2)
        amp_net = ms.amp.auto_mixed_precision(net, "O2")
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        step = nn.TrainOneStepCell(nn.WithLossCell(amp_net, loss),
                                   nn.Momentum(net.trainable_params(), 0.1, 0.9))
        runs.append([float(step(x, y).asnumpy()) for _ in range(3)])
        if m == ms.GRAPH_MODE:
            assert not ms.jit_report(step).fallbacks
    np.testing.assert_allclose(runs[1], runs[0], rtol=1e-6)
