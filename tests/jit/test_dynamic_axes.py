"""One compiled program for every size of a dynamic axis (NOTE: [Dynamic axes] in
spore/_jit/dynamic.py): the sizes share a program where the graphs generalise, compile
one by one where they do not, and give PyNative's bits either way."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops
from spore._jit import api
from spore._jit.dynamic import Dim, family_key, varying_dims


@pytest.fixture
def traces(monkeypatch):
    """The number of times any jit function traced its Python code."""
    count = [0]
    capture = api.JitFunction._capture

    def counted(self, *a, **k):
        count[0] += 1
        return capture(self, *a, **k)
    monkeypatch.setattr(api.JitFunction, "_capture", counted)
    return count


def _rng():
    return np.random.default_rng(0)


def _adam_step(net):
    """A PyNative training step of ``net``: value_and_grad, then Adam."""
    loss = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), 1e-3)
    grad_fn = ms.value_and_grad(lambda x, y: loss(net(x), y), None, opt.parameters)

    def step(x, y):
        value, grads = grad_fn(x, y)
        opt(grads)
        return value
    return step


def _train_step():
    ms.set_seed(1)
    net = nn.SequentialCell(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                            nn.Dense(4 * 6 * 6, 10))
    return _adam_step(net), net


def test_a_training_step_compiles_twice_for_seven_batch_sizes_with_pynatives_bits(traces):
    r = _rng()
    sizes = (8, 5, 7, 3, 8, 6, 1, 5)
    data = [(r.random((n, 3, 6, 6), np.float32), r.integers(0, 10, n).astype(np.int32))
            for n in sizes]
    eager, eager_net = _train_step()
    want = [eager(Tensor(x), Tensor(y)).asnumpy() for x, y in data]
    step, net = _train_step()
    compiled = ms.jit(step, dynamic=1)
    got = [compiled(Tensor(x), Tensor(y)).asnumpy() for x, y in data]
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    for p, q in zip(eager_net.get_parameters(), net.get_parameters()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())   # moving stats too
    report = ms.jit_report(compiled)
    assert report.compiled == 2            # the first size, then the shared program
    assert traces[0] == 3                  # sizes 8, 5 and 7; none after
    assert not report.fallbacks


class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        y = self.fc(x)
        return y[1:] - y[:-1], y.reshape(-1) * x.shape[0]


@pytest.fixture
def graph_mode():
    before = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=before)


def test_a_cell_with_set_inputs_shares_one_program_in_graph_mode(graph_mode, traces):
    net = Head()
    net.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    x = _rng().standard_normal((12, 3)).astype(np.float32)
    w, b = net.fc.weight.asnumpy(), net.fc.bias.asnumpy()
    for n in (4, 9, 2, 12, 7, 3):
        diff, flat = net(Tensor(x[:n]))
        y = x[:n] @ w.T + b
        np.testing.assert_allclose(diff.asnumpy(), y[1:] - y[:-1], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(flat.asnumpy(), y.reshape(-1) * n, rtol=1e-6, atol=1e-6)
    assert traces[0] == 3
    assert ms.jit_report(net._graph_construct).compiled == 2


def test_sizes_that_do_not_generalise_compile_one_by_one_with_right_results(traces):
    @ms.jit(dynamic=1)
    def unrolled(x):
        total = x[0]
        for i in range(1, x.shape[0]):          # a Python loop over the size
            total = total + x[i] * i
        return total
    x = _rng().standard_normal((6, 2)).astype(np.float32)
    for n in (2, 3, 4, 5):
        want = sum(x[i] * max(i, 1) if i else x[0] for i in range(n))
        np.testing.assert_allclose(unrolled(Tensor(x[:n])).asnumpy(), want, rtol=1e-6)
    assert ms.jit_report(unrolled).compiled == 4


def test_a_constant_that_follows_the_size_stops_sharing():
    @ms.jit(dynamic=1)
    def f(x):
        return x + Tensor(np.arange(x.shape[0], dtype=np.float32))
    for n in (2, 3, 4, 5):
        np.testing.assert_array_equal(f(Tensor(np.ones(n, np.float32))).asnumpy(),
                                      1 + np.arange(n, dtype=np.float32))
    assert ms.jit_report(f).compiled == 4


def test_a_wrong_affine_guess_is_caught_by_the_third_trace():
    @ms.jit(dynamic=1)
    def square(x):
        n = x.shape[0]
        return ops.broadcast_to(x[:1], (n * n,))    # n^2 is affine through any 2 points
    for n in (2, 3, 4, 5, 6):
        out = square(Tensor(np.full(n, 2.0, np.float32))).asnumpy()
        assert out.shape == (n * n,) and (out == 2.0).all()


def test_size_dependent_kernel_choices_are_made_per_call():
    # float32 tanh takes a vectorised loop from 4,096 elements in PyNative (with Numba):
    # the shared program must make the same choice for every size
    f = ms.jit(lambda x: ops.tanh(x) * 2, dynamic=1)
    x = _rng().standard_normal(9000).astype(np.float32) * 3
    for n in (100, 200, 300, 8192, 9000, 50):
        want = (ops.tanh(Tensor(x[:n])) * 2).asnumpy()
        np.testing.assert_array_equal(f(Tensor(x[:n])).asnumpy(), want)


def test_gradients_of_a_dynamic_function_are_right_for_every_size():
    f = ms.jit(lambda x, w: (ops.matmul(x, w).tanh() * x.shape[0]).sum(), dynamic=1)
    g = ms.grad(f, grad_position=(0, 1))
    r = _rng()
    w = r.standard_normal((3, 2)).astype(np.float32)
    for n in (2, 5, 3, 7):
        x = r.standard_normal((n, 3)).astype(np.float32)
        gx, gw = g(Tensor(x), Tensor(w))
        d = (1 - np.tanh(x @ w) ** 2) * n
        np.testing.assert_allclose(gx.asnumpy(), d @ w.T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gw.asnumpy(), x.T @ d, rtol=1e-5, atol=1e-6)
        assert float(f(Tensor(x), Tensor(w)).asnumpy()) == pytest.approx(
            float(np.tanh(x @ w).sum() * n), rel=1e-5)


def test_without_a_declaration_each_size_compiles():
    f = ms.jit(lambda x: x * 2)
    for n in (2, 3, 4):
        f(Tensor(np.ones(n, np.float32)))
    assert ms.jit_report(f).compiled == 3


def test_enable_dynamic_shares_the_program():
    @ms.enable_dynamic(x=Tensor(shape=[None, 2], dtype=ms.float32))
    @ms.jit
    def f(x):
        return x.sum(axis=0) / x.shape[0]
    x = _rng().standard_normal((9, 2)).astype(np.float32)
    for n in (3, 5, 9, 4, 2):
        np.testing.assert_allclose(f(Tensor(x[:n])).asnumpy(), x[:n].mean(axis=0), rtol=1e-6)
    assert ms.jit_report(f).compiled == 2


def test_dims_compare_as_expressions_not_as_the_traced_size():
    n = Dim(0, 1, 0, 4)
    assert n != 4 and 4 != n and n == Dim(0, 1, 0, 7)
    assert (n, 3) != (4, 3) and len({n, Dim(0, 1, 0, 5)}) == 1
    assert int(n) * 2 == 8                       # arithmetic: the traced size
    assert Dim(1, 2, -1, 9).source() == "(2 * D[1] - 1)" and n.source() == "D[0]"
    assert Dim(1, 2, -1, 9).resolve((3, 5)) == 9


def test_varying_axes_are_grouped_by_size():
    spec = lambda a, b: ((tuple, (("T", a, "<f4"), ("T", b, "<i4"))), (dict, (), ()), ())
    dims = varying_dims(spec((8, 3), (8,)), spec((5, 3), (5,)))
    assert dims == [[(0, 0), (1, 0)]]
    assert family_key(spec((8, 3), (8,)), dims) == family_key(spec((2, 3), (2,)), dims)
    assert varying_dims(spec((8, 3), (8,)), spec((5, 4), (5,))) == [[(0, 0), (1, 0)], [(0, 1)]]
    assert varying_dims(spec((8, 3), (8,)), spec((8, 3), (8,))) is None
    assert varying_dims(spec((8, 3), (8,)), spec((8, 3, 1), (8,))) is None


def test_model_train_in_graph_mode_with_a_short_last_batch(graph_mode):
    import spore.dataset as ds
    r = _rng()
    x = r.standard_normal((22, 4)).astype(np.float32)
    y = r.integers(0, 3, 22).astype(np.int32)

    def run(mode):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
        net.set_inputs(Tensor(shape=[None, 4], dtype=ms.float32))
        losses = []

        class Record(ms.train.Callback):
            def on_train_step_end(self, run_context):
                losses.append(float(run_context.original_args().net_outputs.asnumpy()))
        data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)   # 8, 8, 6
        model = ms.Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.1))
        model.train(3, data, callbacks=[Record()])
        return losses, model
    eager, _ = run(ms.PYNATIVE_MODE)
    graph, model = run(ms.GRAPH_MODE)
    assert len(eager) == 9
    np.testing.assert_allclose(graph, eager, rtol=1e-6)
    step = model._train_network._graph_construct       # the compiled TrainOneStepCell
    assert ms.jit_report(step).compiled == 2            # batch 8, then the shared program


def _chain(x, b):
    return ops.tanh(x * 2 + b).sum(axis=0) * x.shape[0], ops.sigmoid(x - b) * 0.5


def test_fused_o1_kernels_serve_every_size_of_one_shared_program(traces):
    # jit_level="O1": the fused kernel's code is shape-free, only its wrapper is per size
    r = _rng()
    b = Tensor(r.random(64, dtype=np.float32))
    sizes = (100, 50, 70, 33, 1, 2000, 50)
    xs = [Tensor(r.random((n, 64), dtype=np.float32)) for n in sizes]
    per_size = ms.jit(_chain, jit_level="O1")
    want = [tuple(o.asnumpy() for o in per_size(x, b)) for x in xs]
    traces[0] = 0
    shared = ms.jit(_chain, dynamic=1, jit_level="O1")
    for x, (w0, w1) in zip(xs, want):
        g0, g1 = shared(x, b)
        own = per_size._current[per_size._spec((x, b), {}, [], [])]
        if any(n.prim.name == "FusedElementwise" for n in own.graph.nodes):
            np.testing.assert_array_equal(g0.asnumpy(), w0)     # the same kernels: same bits
            np.testing.assert_array_equal(g1.asnumpy(), w1)
        else:         # too small to fuse alone (size 1): NumPy's ufuncs vs the 2-ulp kernel
            np.testing.assert_allclose(g0.asnumpy(), w0, rtol=1e-6)
            np.testing.assert_allclose(g1.asnumpy(), w1, rtol=1e-6)
        np.testing.assert_allclose(w0, np.tanh(x.asnumpy() * 2 + b.asnumpy()).sum(0)
                                   * x.shape[0], rtol=1e-5)
    assert traces[0] == 3
    assert ms.jit_report(shared).compiled == 2
    program = shared._current[shared._spec((xs[-1], b), {}, [], [])]
    assert program.generic
    assert any(n.prim.name == "FusedElementwise" for n in program.graph.nodes)


def test_an_o1_training_step_shares_its_program_with_pynatives_numbers(traces):
    r = _rng()
    sizes = (8, 5, 7, 3, 1, 6)
    data = [(r.random((n, 3, 6, 6), np.float32), r.integers(0, 10, n).astype(np.int32))
            for n in sizes]
    eager, eager_net = _train_step()
    want = [eager(Tensor(x), Tensor(y)).asnumpy() for x, y in data]
    step, net = _train_step()
    compiled = ms.jit(step, dynamic=1, jit_level="O1")
    got = [compiled(Tensor(x), Tensor(y)).asnumpy() for x, y in data]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for p, q in zip(eager_net.get_parameters(), net.get_parameters()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-4, atol=1e-6)
    assert ms.jit_report(compiled).compiled == 2
    assert traces[0] == 3


def _names_traced(monkeypatch):
    names = []
    capture = api.JitFunction._capture

    def counted(self, *a, **k):
        names.append(self.name)
        return capture(self, *a, **k)
    monkeypatch.setattr(api.JitFunction, "_capture", counted)
    return names


def test_gradients_taken_outside_share_the_forward_and_the_joint_program(monkeypatch):
    # grad of a compiled function: its forward and its joint (forward + backward) graph
    # each trace three sizes and compile twice, then serve every size
    names = _names_traced(monkeypatch)
    f = ms.jit(lambda x, w: (ops.matmul(x, w).tanh() * x.shape[0]).sum(), dynamic=1)
    g = ms.grad(f, grad_position=(0, 1))
    r = _rng()
    w = r.standard_normal((3, 2)).astype(np.float32)
    for n in (2, 5, 3, 7, 9, 4, 1, 5):
        x = r.standard_normal((n, 3)).astype(np.float32)
        gx, gw = g(Tensor(x), Tensor(w))
        d = (1 - np.tanh(x @ w) ** 2) * n
        np.testing.assert_allclose(gx.asnumpy(), d @ w.T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gw.asnumpy(), x.T @ d, rtol=1e-5, atol=1e-6)
    assert sum(n.endswith("<lambda>") for n in names) == 3
    assert sum(n.endswith("<lambda>_joint") for n in names) == 3
    assert ms.jit_report(f).compiled == 2
    (joint,) = f._joints.values()
    assert ms.jit_report(joint).compiled == 2


class _BNNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(),
                                      nn.Flatten(), nn.Dense(4 * 6 * 6, 10), nn.Dropout(p=0.2))

    def construct(self, x):
        return self.body(x)


def test_a_graph_mode_cell_with_set_inputs_under_a_pynative_gradient(monkeypatch):
    # the tutorials' loop: value_and_grad in PyNative of a GRAPH_MODE network whose
    # batch varies; BatchNorm's moving statistics and dropout masks included
    r = _rng()
    sizes = (8, 5, 7, 3, 8, 6, 1, 5)
    data = [(r.random((n, 3, 6, 6), np.float32), r.integers(0, 10, n).astype(np.int32))
            for n in sizes]
    results = []
    names = _names_traced(monkeypatch)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_seed(1)
        net = _BNNet()
        net.set_train()
        if mode == ms.GRAPH_MODE:
            net.set_inputs(Tensor(shape=[None, 3, 6, 6], dtype=ms.float32))
        step = _adam_step(net)
        before = ms.get_context("mode")
        ms.set_context(mode=mode)
        try:
            losses = [step(Tensor(x), Tensor(y)).asnumpy() for x, y in data]
        finally:
            ms.set_context(mode=before)
        results.append((losses, [p.asnumpy() for p in net.get_parameters()]))
    (want, want_params), (got, got_params) = results
    np.testing.assert_array_equal(got, want)
    for a, b in zip(want_params, got_params):
        np.testing.assert_array_equal(a, b)             # moving statistics too
    assert names.count("_BNNet.construct") == 3
    assert names.count("_BNNet.construct_joint") == 3


def test_batch_norm_training_shares_one_program(traces):
    step, net = _train_step()
    net.set_train()
    compiled = ms.jit(step, dynamic=1)
    r = _rng()
    for n in (8, 5, 7, 3, 6):
        compiled(Tensor(r.random((n, 3, 6, 6), np.float32)),
                 Tensor(r.integers(0, 10, n).astype(np.int32)))
    assert traces[0] == 3
    assert ms.jit_report(compiled).compiled == 2


@pytest.mark.parametrize("count", [1, 2, 3, 7, 100, 12345])
def test_bessels_correction_rounds_its_factor_once(count):
    from spore._prims.nn.bessel import bessel_correction_p
    var = _rng().random(5).astype(np.float32)
    got = bessel_correction_p(Tensor(var), count=count).asnumpy()
    want = var * np.float32(count / max(count - 1, 1))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
