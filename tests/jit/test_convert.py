"""Source conversion: `if` on tensors compiles to a conditional; Python `if` stays Python."""
import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from spore._jit import CompileError


def _v(*vals):
    return Tensor(np.array(vals, np.float32))


def branchy(x, y):
    if x.sum() > 0:
        z = x * 2
        w = 1.0
    elif y.sum() > 0:
        z = y * 3
        w = 1.0
    else:
        z = x - y
        w = 1.0
    return z + w


@pytest.mark.parametrize("x,y", [((1.0, 2.0), (0.0, 0.0)), ((-5.0, 1.0), (1.0, 1.0)),
                                 ((-5.0, 1.0), (-1.0, -1.0))])
def test_tensor_if_elif_else_compiles_and_matches_pynative(x, y):
    f = ms.jit(branchy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = f(_v(*x), _v(*y))
    np.testing.assert_array_equal(got.asnumpy(), branchy(_v(*x), _v(*y)).asnumpy())
    report = ms.jit_report(f)
    assert report.compiled == 1 and not report.fallbacks


def test_one_compiled_graph_serves_both_outcomes():
    f = ms.jit(branchy)
    f(_v(1.0), _v(0.0))
    f(_v(-1.0), _v(1.0))
    f(_v(-1.0), _v(-1.0))
    assert ms.jit_report(f).compiled == 1


def test_python_if_on_python_values_keeps_python_semantics():
    @ms.jit
    def f(x, flag):
        if flag:
            return x + 1
        return x - 1
    np.testing.assert_array_equal(f(_v(1.0), True).asnumpy(), [2.0])
    np.testing.assert_array_equal(f(_v(1.0), False).asnumpy(), [0.0])


def test_a_name_assigned_in_one_branch_only_is_an_error_naming_it():
    def g(x):
        if x.sum() > 0:
            t = x * 2
        return t + 1
    with pytest.raises(CompileError, match=r"'t' is assigned in only one branch of the tensor "
                                           r"`if` at .*test_convert\.py:\d+"):
        ms.jit(g, fullgraph=True)(_v(1.0))
    with pytest.warns(RuntimeWarning, match="only one branch"):
        out = ms.jit(g)(_v(1.0))                   # PyNative runs it (x > 0 here)
    np.testing.assert_array_equal(out.asnumpy(), [3.0])


def test_an_if_that_returns_compiles_both_outcomes_in_one_graph():
    def h(x):
        if x.sum() > 0:
            return x
        return -x
    f = ms.jit(h, fullgraph=True)
    np.testing.assert_array_equal(f(_v(1.0)).asnumpy(), [1.0])
    np.testing.assert_array_equal(f(_v(-2.0)).asnumpy(), [2.0])
    assert ms.jit_report(f).compiled == 1


def test_trace_mode_does_not_convert():
    f = ms.jit(branchy, capture_mode="trace", fullgraph=True)
    with pytest.raises(CompileError, match="capture_mode='ast'"):
        f(_v(1.0), _v(1.0))


def test_graph_mode_cell_with_a_tensor_if_in_construct():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(2, 2)

        def construct(self, x):
            h = self.fc(x)
            if h.mean() > 0:
                h = ops.relu(h)
            else:
                h = -h
            return h
    ms.set_seed(0)
    net = Net()
    x = Tensor(np.ones((3, 2), np.float32))
    want = [net(x).asnumpy(), net(-x).asnumpy()]      # PyNative: one input per branch
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_array_equal(net(x).asnumpy(), want[0])
    np.testing.assert_array_equal(net(-x).asnumpy(), want[1])
    report = ms.jit_report(net)
    assert report.compiled == 1 and not report.fallbacks


def test_printing_a_traced_tensor_on_the_host_names_ops_print():
    def p(x):
        text = str(x)           # a host read (print itself is converted)
        return x + len(text)
    with pytest.raises(CompileError, match=r"printing a tensor") as e:
        ms.jit(p, fullgraph=True)(_v(1.0))
    assert "ops.Print" in str(e.value)


def test_a_python_value_that_differs_between_tensor_branches_is_named():
    def k(x):
        if x.sum() > 0:
            w = 1.0
        else:
            w = 2.0
        return x + w
    with pytest.raises(CompileError, match=r"'w' gets different Python values .* \(1\.0 vs 2\.0\)"):
        ms.jit(k, fullgraph=True)(_v(1.0))


def halve_until_small(x, limit):
    i = ms.Tensor(0, ms.int32)
    while x.sum() > limit:
        x = x * 0.5
        i = i + 1
    return x, i


@pytest.mark.parametrize("start", [1.0, 100.0, 1e6])
def test_tensor_while_compiles_to_one_loop_and_matches_pynative(start):
    f = ms.jit(halve_until_small)
    x, limit = _v(start, start), _v(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = f(x, limit)
    want = halve_until_small(x, limit)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    report = ms.jit_report(f)
    assert report.compiled == 1
    names = [n.prim.name for n in report.graphs[0].nodes]
    assert names.count("While") == 1 and "Mul" not in names   # the body is a sub-graph


def test_graph_size_does_not_grow_with_the_trip_count():
    f = ms.jit(halve_until_small)
    f(_v(4.0), _v(1.0))
    small = ms.jit_report(f).kernel_count
    f(_v(4e9), _v(1.0))
    assert ms.jit_report(f).kernel_count == small and ms.jit_report(f).compiled == 1


def test_a_python_counter_in_a_tensor_while_is_named():
    def k(x):
        i = 0
        while x.sum() > 1:
            x = x * 0.5
            i += 1
        return x, i
    with pytest.raises(CompileError, match=r"the Python value 'i' changes in the tensor while"):
        ms.jit(k, fullgraph=True)(_v(8.0))


def test_a_loop_carried_tensor_that_changes_shape_is_named():
    def k(x):
        while x.sum() > 1:
            x = ops.concat((x, x)) * 0.1
        return x
    with pytest.raises(CompileError, match=r"'x' changes shape or dtype in the while loop"):
        ms.jit(k, fullgraph=True)(_v(8.0))


def test_python_while_on_python_values_still_unrolls():
    @ms.jit
    def f(x):
        n = 0
        while n < 3:
            x = x + 1
            n += 1
        return x
    np.testing.assert_array_equal(f(_v(0.0)).asnumpy(), [3.0])


def test_builtin_print_of_tensors_prints_at_every_call_in_pynative_format(capsys):
    def f(x):
        y = x * 2
        print("y is", y, 3)
        print(f"sum={y.sum()} done")
        return y
    x = _v(1.0, 2.0)
    f(x)
    want = capsys.readouterr().out
    jf = ms.jit(f, fullgraph=True)
    jf(x)
    jf(x)
    assert capsys.readouterr().out == want * 2
    assert ms.jit_report(jf).compiled == 1


def gated(x, w):
    h = x * w
    if h.sum() > 0:
        y = ops.tanh(h) * w
    else:
        y = h * h
    return y.sum()


def test_gradients_through_a_tensor_if_inside_jit_match_pynative():
    g = ops.grad(gated, (0, 1))
    jg = ms.jit(g)
    w = _v(0.5, 1.5)
    for x in (_v(1.0, 2.0), _v(-3.0, 1.0)):
        want = g(x, w)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = jg(x, w)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    report = ms.jit_report(jg)
    assert report.compiled == 1 and not report.fallbacks


def test_a_train_step_whose_network_branches_on_a_tensor_compiles():
    class Gate(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        def construct(self, x):
            h = self.fc(x)
            if h.mean() > 0:
                h = ops.relu(h)
            else:
                h = h * 0.1
            return h
    x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    losses = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = Gate()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()),
                                   nn.SGD(net.trainable_params(), 0.5))
        losses.append([float(step(x * s, y).asnumpy()) for s in (1.0, -1.0, 1.0)])
        if mode == ms.GRAPH_MODE:
            report = ms.jit_report(step)
            assert report.compiled == 1 and not report.fallbacks
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-6)


def mixed(x, n):
    a = x * 2 if x.sum() > 0 else x * 3
    if x.sum() > 0 and not (x.mean() > 5) or x.max() > 100:
        a = a + 1
    for i in range(n):
        a = a + i
    return a


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_boolean_operators_conditional_expressions_and_tensor_range(sign):
    x, n = _v(sign * 1.0, sign * 2.0), Tensor(4, ms.int32)
    f = ms.jit(mixed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = f(x, n)
    np.testing.assert_array_equal(got.asnumpy(), mixed(x, n).asnumpy())
    names = [nd.prim.name for nd in ms.jit_report(f).graphs[0].nodes]
    assert "While" in names and "Cond" in names


def test_python_boolean_operators_keep_python_results():
    @ms.jit
    def f(x, a, b):
        return x * (1.0 if (a and not b) else 2.0), (a or b)
    out, flag = f(_v(1.0), True, False)
    assert out.asnumpy().tolist() == [1.0] and flag is True


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "jit"])
def test_loop_primitives_in_both_modes(compiled):
    def run(x, n):
        a = ops.WhileLoop()(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * 2),
                            (Tensor(0, ms.int64), x))
        b = ops.ForiLoop()(0, n, lambda i, v: v + i, x)
        c = ops.Scan()(lambda c, v: (c + v, c * v), x, [x, x * 2])
        return a, b, c
    f = ms.jit(run) if compiled else run
    x = _v(1.0)
    (i, s), b, (carry, ys) = f(x, Tensor(5, ms.int64))
    assert int(i.asnumpy()) == 10 and s.asnumpy().tolist() == [1024.0]
    assert b.asnumpy().tolist() == [11.0]
    assert carry.asnumpy().tolist() == [4.0] and [y.asnumpy().tolist() for y in ys] == [[1.0],
                                                                                      [4.0]]
    if compiled:
        report = ms.jit_report(f)
        assert report.compiled == 1 and not report.fallbacks
        assert [n.prim.name for n in report.graphs[0].nodes].count("While") == 2
    assert ops.WhileLoop()(lambda v: v.sum() < 20, lambda v: v * 2, [1, 2, 3]).tolist() == \
        [4, 8, 12]
    with pytest.raises(ValueError, match="Invalid loop_func"):
        ops.ForiLoop()(0, 2, lambda i: i, x)


def test_gradient_through_a_tensor_if_against_finite_differences():
    from tests.helpers.optable import numerical_grad
    jg = ms.jit(ops.grad(gated, (0, 1)))
    rng = np.random.default_rng(0)
    for sign in (1.0, -1.0):
        x = sign * np.abs(rng.standard_normal(3)) + 0.1 * sign
        w = np.abs(rng.standard_normal(3)) + 0.5
        got = jg(Tensor(x), Tensor(w))

        def f(arrays):
            return float(gated(Tensor(arrays[0]), Tensor(arrays[1])).asnumpy())
        for k, g in enumerate(got):
            np.testing.assert_allclose(g.asnumpy(), numerical_grad(f, [x.copy(), w.copy()], k),
                                       rtol=1e-5, atol=1e-7)


def grow(x, w):
    while x.sum() < 10.0:
        x = x * w + 0.5
    return (x * x).sum()


def test_gradients_through_a_data_dependent_while_match_pynative_and_finite_differences():
    from tests.helpers.optable import numerical_grad
    g = ops.grad(grow, (0, 1))
    jg = ms.jit(g)
    w = np.array([1.5, 1.2])
    for scale in (1.0, 3.0, 8.0):                 # different trip counts, one graph
        x = np.array([0.5, 1.0]) * scale
        got = jg(Tensor(x), Tensor(w))
        want = g(Tensor(x), Tensor(w))

        def f(arrays):
            return float(grow(Tensor(arrays[0]), Tensor(arrays[1])).asnumpy())
        for k, (a, b) in enumerate(zip(got, want)):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-10)
            np.testing.assert_allclose(a.asnumpy(), numerical_grad(f, [x.copy(), w.copy()], k),
                                       rtol=1e-5, atol=1e-7)
    report = ms.jit_report(jg)
    assert report.compiled == 1 and not report.fallbacks
    names = [n.prim.name for n in report.graphs[0].nodes]
    assert "While" in names and "WhileGrad" in names


def test_python_value_prints_show_once_at_compile_and_not_for_an_aborted_trace(capsys):
    def ok(x):
        print("compiling", 3)
        return x + 1
    f = ms.jit(ok)
    f(_v(1.0))
    f(_v(1.0))
    assert capsys.readouterr().out == "compiling 3\n"       # once, at compile time

    def aborts(x):
        print("before the host read")
        return x + float(x.sum())
    with pytest.warns(RuntimeWarning):
        ms.jit(aborts)(_v(1.0))
    assert capsys.readouterr().out == "before the host read\n"   # from the PyNative run only


class _Accumulator:
    """MindSpore's gradient-accumulation tutorial: a plain object whose ``__call__``
    branches on a Parameter, called from a compiled step."""

    def __init__(self, optimizer, steps):
        self.optimizer = optimizer
        self.inner_grads = optimizer.parameters.clone(prefix="accumulate_", init="zeros")
        self.zeros = optimizer.parameters.clone(prefix="zeros_", init="zeros")
        self.counter = ms.Parameter(Tensor(1, ms.int32), "counter_")
        self.steps = steps
        self.map = ops.HyperMap()

    def __call__(self, grads):
        self.map(ops.partial(ops.assign_add), self.inner_grads, grads)
        if self.counter % self.steps == 0:
            self.optimizer(self.inner_grads)
            self.map(ops.partial(ops.assign), self.inner_grads, self.zeros)
        ops.assign_add(self.counter, Tensor(1, ms.int32))
        return True


def _accumulating_step(compiled):
    ms.set_seed(0)
    net = nn.Dense(4, 3)
    opt = nn.SGD(net.trainable_params(), 0.1)
    acc = _Accumulator(opt, 3)
    grad_fn = ms.value_and_grad(lambda x, y: ops.mse_loss(net(x), y), None,
                                net.trainable_params())

    def step(x, y):
        loss, grads = grad_fn(x, y)
        return ops.depend(loss, acc(grads))
    return (ms.jit(step) if compiled else step), net, acc


def test_a_callable_object_called_from_compiled_code_is_converted():
    r = np.random.default_rng(0)
    data = [(Tensor(r.random((5, 4), dtype=np.float32)), Tensor(r.random((5, 3), dtype=np.float32)))
            for _ in range(7)]
    runs = []
    for compiled in (False, True):
        step, net, acc = _accumulating_step(compiled)
        with warnings.catch_warnings():
            warnings.simplefilter("error")           # no fallback to PyNative
            losses = [step(x, y).asnumpy() for x, y in data]
        runs.append((losses, net.weight.asnumpy(), acc.inner_grads[0].asnumpy(),
                     int(acc.counter.asnumpy())))
        if compiled:
            assert not ms.jit_report(step).fallbacks
    (l0, w0, g0, c0), (l1, w1, g1, c1) = runs
    np.testing.assert_array_equal(l1, l0)
    np.testing.assert_array_equal(w1, w0)          # updated at steps 3 and 6 only
    np.testing.assert_array_equal(g1, g0)          # the 7th step's gradient, accumulated
    assert c0 == c1 == 8
    assert np.abs(g1).sum() > 0
