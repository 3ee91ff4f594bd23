"""Gradients across the jit boundary: one JitCall on the outer tape, a compiled backward."""
import numpy as np

import spore as ms
from spore import nn, ops, Tensor


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_grad_of_a_compiled_function_records_one_jit_call():
    f = lambda x, y: (ops.tanh(x * y) ** 2).sum()          # noqa: E731
    jf = ms.jit(f)
    x, y = _t(3), _t(3, seed=1)
    want = ops.grad(f, (0, 1))(x, y)
    for _ in range(2):
        got = ops.grad(jf, (0, 1))(x, y)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
    assert ms.jit_report(jf).compiled == 1


def test_weights_read_inside_a_graph_mode_cell_get_gradients():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 1))
    loss_fn = nn.MSELoss()
    vg = ms.value_and_grad(lambda d, l: loss_fn(net(d), l), None, net.trainable_params())
    d, l = _t(5, 3), _t(5, 1, seed=1)
    loss0, g0 = vg(d, l)
    ms.set_context(mode=ms.GRAPH_MODE)
    loss1, g1 = vg(d, l)
    np.testing.assert_allclose(loss1.asnumpy(), loss0.asnumpy(), rtol=1e-6)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-7)
    assert ms.jit_report(net).compiled == 1


def test_random_draws_are_replayed_in_the_backward():
    f = lambda x: (ops.dropout(x, p=0.5) * x).sum()        # noqa: E731
    x = _t(64)
    ms.set_seed(1)
    want = ops.grad(f)(x)
    ms.set_seed(1)
    got = ops.grad(ms.jit(f))(x)
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_a_graph_that_writes_state_is_one_jit_call_and_writes_once():
    counter = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="counter")

    @ms.jit
    def f(x):
        ops.assign_add(counter, Tensor(np.ones(1, np.float32)))
        return (x * x).sum()
    for n in (1, 2, 3):
        g = ops.grad(f)(_t(3))
        np.testing.assert_allclose(g.asnumpy(), 2 * _t(3).asnumpy(), rtol=1e-6)
        assert float(counter.asnumpy()[0]) == n            # written once, not recomputed
    (info,) = f._call_infos.values()
    assert info.split                                      # recorded, from residuals


def _bn_net():
    ms.set_seed(0)
    return nn.SequentialCell(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                             nn.Dense(4 * 8 * 8, 3))


def test_batchnorm_in_graph_mode_under_value_and_grad_is_compiled_and_matches_pynative():
    """The tutorials' loop: value_and_grad of a function calling a GRAPH_MODE Cell that
    updates BatchNorm's moving statistics. The call is one JitCall; statistics, losses
    and gradients equal PyNative's step after step."""
    x, y = _t(2, 3, 8, 8), Tensor(np.array([0, 2], np.int32))

    def train(mode):
        ms.set_context(mode=mode)
        net = _bn_net()
        loss_fn = nn.CrossEntropyLoss()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        vg = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
        losses = []
        for _ in range(3):
            loss, grads = vg(x, y)
            opt(grads)
            losses.append(float(loss))
        return net, losses

    eager, want = train(ms.PYNATIVE_MODE)
    graph, got = train(ms.GRAPH_MODE)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    bn_e, bn_g = eager[1], graph[1]
    np.testing.assert_allclose(bn_g.moving_mean.asnumpy(), bn_e.moving_mean.asnumpy(),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bn_g.moving_variance.asnumpy(),
                               bn_e.moving_variance.asnumpy(), rtol=1e-5)
    report = ms.jit_report(graph)
    assert report.compiled == 1 and not report.fallbacks
    (info,) = graph.__dict__["_graph_construct"]._call_infos.values()
    assert info.split                     # one JitCall from saved residuals, not PyNative


def test_a_print_in_a_graph_under_an_outer_gradient_prints_once_per_call(capfd):
    @ms.jit
    def f(x):
        ops.Print()("value:", x.sum())
        return (x * x).sum()
    for _ in range(2):
        ops.grad(f)(Tensor(np.ones(2, np.float32)))
    out = capfd.readouterr().out
    assert out.count("value:") == 2


def test_second_order_through_a_graph_that_writes_state_runs_in_pynative_and_writes_once():
    counter = ms.Parameter(Tensor(np.zeros(1, np.float32)), name="counter")

    @ms.jit
    def f(x):
        ops.assign_add(counter, Tensor(np.ones(1, np.float32)))
        return (ops.sin(x) * x).sum()
    x = Tensor(np.array([0.3, 1.2]))
    got = ops.grad(ops.grad(f))(x)
    xs = x.asnumpy()
    np.testing.assert_allclose(got.asnumpy(), 2 * np.cos(xs) - xs * np.sin(xs), rtol=1e-12)
    assert float(counter.asnumpy()[0]) == 1.0


def test_a_jit_call_with_many_inputs_gives_every_one_its_gradient():
    # more than 8 inputs: a rule that reads "all" inputs of a variadic primitive saw the
    # ninth as a shape only
    ms.set_seed(0)
    net = nn.LSTM(3, 4, num_layers=2)
    x = _t(2, 5, 3)
    vg = ms.value_and_grad(lambda x: net(x)[0].sum(), None, net.trainable_params())
    _, want = vg(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    _, got = vg(x)
    assert len(got) == 8
    for a, b in zip(want, got):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-7)


def test_backward_runs_from_saved_residuals_and_is_built_once():
    """NOTE: [JitCall residuals]: the forward returns what the backward reads, the
    backward is compiled once per entry and the forward is not recomputed."""
    def f(x, y):
        return (ops.tanh(ops.matmul(x, y)) ** 2).sum()
    jf = ms.jit(f)
    g = ops.grad(jf, grad_position=(0, 1))
    rng = np.random.default_rng(0)
    x = Tensor(rng.random((4, 4)).astype(np.float32))
    y = Tensor(rng.random((4, 4)).astype(np.float32))
    want = ops.grad(f, grad_position=(0, 1))(x, y)
    for _ in range(3):
        got = g(x, y)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    (info,) = jf._call_infos.values()
    assert info.split and info.split.res_avals          # residuals saved
    assert info._backward is None                       # the recomputing backward unused


def test_second_order_through_a_compiled_call_recomputes_and_is_exact():
    def f(x):
        return (ops.sin(x) * x).sum()
    x = Tensor(np.array([0.3, 1.2, -0.7]))
    want = ops.grad(ops.grad(f))(x)
    got = ops.grad(ops.grad(ms.jit(f)))(x)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-12)
    # d2/dx2 sum(x sin x) = 2 cos x - x sin x
    np.testing.assert_allclose(got.asnumpy(), 2 * np.cos(x.asnumpy()) -
                               x.asnumpy() * np.sin(x.asnumpy()), rtol=1e-12)


def test_a_tensor_built_inside_a_compiled_function_is_a_constant_never_written():
    """``Tensor(host data)`` inside the function is a constant of the graph; writes to it
    write a copy, so each call starts from the same zeros (it was an input object, and
    the first call's object kept every later call's writes)."""
    @ms.jit
    def f(x):
        t = Tensor(np.zeros(3, np.float32))
        t[0] = x.sum()
        ops.assign_add(t, Tensor(np.ones(3, np.float32)))
        return t * 2
    x = Tensor(np.ones(2, np.float32))
    for scale in (1, 1, 2):
        got = f(x * scale).asnumpy()
        np.testing.assert_array_equal(got, [2 * (2 * scale + 1), 2, 2])
    (entry,) = [e for es in f._cache.values() for e in es]
    assert not entry.objects                 # constants, not inputs read by identity


def test_a_copy_of_an_outside_tensor_made_in_a_compiled_function_reads_it_every_call():
    w = ms.Parameter(Tensor(np.ones(2, np.float32)), name="w")

    @ms.jit
    def f(x):
        return Tensor(w) * x + Tensor(w, ms.float64).astype(ms.float32)
    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), [2, 2])
    ops.assign(w, Tensor(np.full(2, 3, np.float32)))      # in place: no recompile
    np.testing.assert_array_equal(f(x).asnumpy(), [6, 6])
