"""O1 with Numba: sums and means of fused values are computed inside the fused kernel
(NOTE: [Fused reductions] in spore/_jit/fusion.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import spore as ms
from spore import nn, ops, Tensor, _native
from spore._jit import fusion, kernelgen
from tests.jit.test_fusion_numba import close, groups

pytestmark = pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")


def names(fn):
    return [n.prim.name for g in ms.jit_report(fn).graphs for n in g.nodes]


def data(*shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [Tensor(rng.standard_normal(s).astype(dtype)) for s in shapes]


def reference(f, *args):
    """``f`` run eagerly in float64: the value both levels approximate."""
    out = f(*(Tensor(a.asnumpy().astype(np.float64)) for a in args))
    return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]


def test_the_mse_loss_tail_is_one_kernel():
    def f(p, y):
        d = ops.relu(p) - y
        return (d * d).mean()
    p, y = data((32, 1024), (32, 1024))
    f1 = ms.jit(f, jit_level="O1")
    got = f1(p, y).asnumpy()
    assert got.shape == () and got.dtype == np.float32
    (want,) = reference(f, p, y)
    close(got, want, rtol=1e-6)
    close(got, ms.jit(f, jit_level="O0")(p, y).asnumpy(), rtol=1e-5)
    assert names(f1) == ["FusedElementwise"] and ms.jit_report(f1).kernel_count == 1
    (group,) = groups(f1)
    assert [n.prim.name for n in group.reductions] == ["ReduceMean"]
    assert "tile_sum(m, " in kernelgen.kernel_source(group)


def test_a_bias_gradient_sum_joins_the_kernel_across_a_matmul():
    # the sum over the batch stands after the matmul reading the same value
    def f(d, x, w):
        g = ops.relu(d) * 2.0 + d
        return ops.matmul(x.T, g), g.sum(0), g.sum(axis=(0, 1), keepdims=True)
    d, x, w = data((64, 96), (64, 48), (48, 96), seed=1)
    f1 = ms.jit(f, jit_level="O1")
    got = f1(d, x, w)
    for a, b, c in zip(got, ms.jit(f, jit_level="O0")(d, x, w), reference(f, d, x, w)):
        assert a.shape == b.shape and a.dtype == b.dtype
        close(a.asnumpy(), c, rtol=2e-6, atol=1e-5)
    assert "ReduceSum" not in names(f1)
    (group,) = groups(f1)
    assert [n.prim.name for n in group.reductions] == ["ReduceSum", "ReduceSum"]
    assert "tile_add(m, " in kernelgen.kernel_source(group)


def test_a_reduction_of_a_value_it_does_not_compute_stays_apart():
    f1 = ms.jit(lambda x: (ops.exp(x) * 2.0, x.sum(0)), jit_level="O1")
    f1(*data((64, 64)))
    assert "ReduceSum" in names(f1)


def test_one_cheap_op_and_a_sum_are_not_worth_a_kernel():
    f1 = ms.jit(lambda x, y: (x + y).sum(0), jit_level="O1")
    f1(*data((64, 64), (64, 64)))
    assert names(f1) == ["Add", "ReduceSum"]


def test_other_axes_short_rows_and_dtypes_stay_apart():
    def f(x):
        y = ops.relu(x) * 2.0
        return y.sum(1), y.sum(dtype=ms.float64), ops.amax(y, -1), ops.prod(y, 0)
    f1 = ms.jit(f, jit_level="O1")
    f1(*data((16, 64, 8)))                  # a middle axis; last-axis rows of 8 < ROW_MIN
    assert not groups(f1)[0].reductions


def test_a_hand_written_softmax_is_three_kernels_within_rounding():
    def f(x):
        e = ops.exp(x - ops.amax(x, -1, True))
        return e / e.sum(-1, keepdims=True)
    (x,) = data((64, 197), seed=6)
    f1 = ms.jit(f, jit_level="O1")
    got = f1(x).asnumpy()
    close(got, ms.jit(f, jit_level="O0")(x).asnumpy(), rtol=1e-6, atol=1e-7)
    close(got, reference(f, x)[0], rtol=1e-6, atol=1e-7)
    # the max reads an input (no kernel computes it); the row sum joins the exp's kernel
    # and the division reads it back once per row
    assert names(f1) == ["ReduceMax", "FusedElementwise", "Div"]
    (group,) = groups(f1)
    assert [n.prim.name for n in group.reductions] == ["ReduceSum"]
    assert "s // ro" in kernelgen.kernel_source(group)


def test_layer_norm_pieces_read_row_statistics_in_the_kernel():
    def f(x, g):
        y = ops.tanh(x) * g
        mu = y.mean(-1, keep_dims=True)
        d = y - mu
        var = (d * d).mean(-1, keep_dims=True)
        return d * ops.rsqrt(var + 1e-5) * 2.0 + 1.0
    x, g = data((8, 197, 256), (256,), seed=7)
    f1 = ms.jit(f, jit_level="O1")
    got = f1(x, g).asnumpy()
    close(got, ms.jit(f, jit_level="O0")(x, g).asnumpy(), rtol=1e-5, atol=1e-5)
    close(got, reference(f, x, g)[0], rtol=1e-5, atol=1e-5)
    assert "ReduceMean" not in names(f1)
    # tanh, mul, mean | sub, square, mean | add, rsqrt (rows) | mul, mul, add
    assert ms.jit_report(f1).kernel_count == 4
    sources = [kernelgen.kernel_source(gr) for gr in groups(f1)]
    assert sum("a0 = x0[s // rx0]" in src or "[s // rx" in src for src in sources) >= 2


@pytest.mark.parametrize("shape", [(64, 100), (4, 33, 48), (5000,)])
def test_max_and_min_in_the_kernel_are_exact(shape):
    def f(x):
        y = ops.tanh(x) * 3.0 - 0.5
        return (ops.amax(y), ops.amin(y), ops.amax(y, 0), ops.amin(y, 0, True),
                ops.amax(y, -1, True), ops.amin(y, -1))
    (x,) = data(shape, seed=8)
    f1 = ms.jit(f, jit_level="O1")
    for a, b in zip(f1(x), ms.jit(f, jit_level="O0")(x)):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert "ReduceMax" not in names(f1) and "ReduceMin" not in names(f1)


def test_nan_wins_in_a_fused_maximum_and_minimum():
    def f(x):
        y = ops.abs(x) * 2.0
        return ops.amax(y), ops.amin(y, 0), ops.amax(y, -1), ops.amin(y)
    x = np.random.default_rng(9).standard_normal((40, 300)).astype(np.float32)
    x[3, 7] = x[17, 299] = np.nan
    want = ms.jit(f, jit_level="O0")(Tensor(x))
    got = ms.jit(f, jit_level="O1")(Tensor(x))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())     # NaN where NumPy has it
    assert np.isnan(got[0].asnumpy()) and np.isnan(got[2].asnumpy()[[3, 17]]).all()


@pytest.mark.parametrize("shape", [(300, 500), (4, 97, 33), (2, 70000)])
def test_one_thread_and_two_give_the_same_bits(monkeypatch, shape):
    def f(x, b):
        y = ops.tanh(x) * b + 0.5
        return y.mean(), y.sum(0), y.sum(-1), ops.amax(y, -1), ops.amin(y)
    x, b = data(shape, shape[-1:], seed=2)
    results = []
    for n in ("1", "2"):
        monkeypatch.setenv("SPORE_NUM_THREADS", n)
        results.append([o.asnumpy() for o in ms.jit(f, jit_level="O1")(x, b)])
    for a, c in zip(*results):
        np.testing.assert_array_equal(a, c)


def test_a_kernel_failure_runs_the_group_unfused(monkeypatch):
    monkeypatch.setattr(kernelgen, "load", lambda source: None)
    def f(x):
        y = ops.relu(x) - 1.0
        return (y * y).mean(), y.sum(0)
    (x,) = data((64, 64), seed=3)
    got = ms.jit(f, jit_level="O1")(x)
    want = ms.jit(f, jit_level="O0")(x)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_the_w3_step_fuses_its_loss_mean_and_bias_gradient():
    net = nn.Dense(256, 256)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: nn.MSELoss()(ops.relu(net(a)), b), None,
                                opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        return ops.depend(loss, opt(grads))
    f = ms.jit(step, jit_level="O1")
    a, b = data((32, 256), (32, 256), seed=4)
    f(a, b)
    assert "ReduceMean" not in names(f) and "ReduceSum" not in names(f)
    assert sorted(n.prim.name for g in groups(f) for n in g.reductions) == \
        ["ReduceMean", "ReduceSum"]


UNARY = [ops.tanh, ops.sigmoid, ops.relu, ops.abs, lambda t: t * 0.5, lambda t: t + 1.0,
         lambda t: ops.exp(ops.tanh(t))]                  # values stay moderate
BINARY = [ops.add, ops.sub, ops.maximum, lambda a, b: a * ops.tanh(b),
          lambda a, b: a - ops.amax(b, -1, True),            # a row statistic read back
          lambda a, b: a * b.mean(-1, keep_dims=True)]
REDUCE = [lambda t: t.sum(), lambda t: t.mean(), lambda t: t.sum(0),
          lambda t: t.mean(0, keep_dims=True), lambda t: t.sum(-1),
          lambda t: t.mean(-1, keep_dims=True), lambda t: ops.amax(t, -1),
          lambda t: ops.amin(t, 0), lambda t: ops.amax(t)]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1),
                          st.integers(0, 3)), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, len(REDUCE) - 1), st.integers(0, 7)),
                min_size=1, max_size=3),
       st.sampled_from([(64, 100), (3, 40, 50), (300,)]),
       st.sampled_from([np.float32, np.float64]))
def test_random_graphs_with_reductions_match_the_unfused_graph(program, reds, shape, dtype):
    def f(a, b):
        vals = [a, b]
        for u, bi, pick in program:
            x = UNARY[u](vals[pick % len(vals)])
            vals.append(BINARY[bi](x, vals[-1]))
        return tuple(REDUCE[r](vals[2 + pick % (len(vals) - 2)]) for r, pick in reds) \
            + (vals[-1],)
    a, b = (Tensor(np.clip(t.asnumpy(), -2, 2)) for t in data(shape, shape, seed=5,
                                                                 dtype=dtype))
    got = ms.jit(f, jit_level="O1")(a, b)
    want = ms.jit(f, jit_level="O0")(a, b)
    exact = reference(f, a, b)
    rtol = 2e-5 if dtype == np.float32 else 1e-12
    for g, w, e in zip(got, want, exact):
        assert g.dtype == w.dtype and g.shape == w.shape
        scale = np.abs(e).max() + 1.0         # a sum's error scales with its terms
        close(g.asnumpy(), e, rtol=rtol, atol=rtol * scale * 8)


def test_row_reductions_serve_every_size_of_a_shared_program():
    # dynamic axes: the kernel is classified again at each size (rows of any length)
    def f(x):
        y = ops.tanh(x) * 2.0
        e = ops.exp(y - ops.amax(y, -1, True))
        return e / e.sum(-1, keepdims=True), ops.amin(y, -1)
    shared = ms.jit(f, dynamic=1, jit_level="O1")
    for n in (100, 40, 7, 300):
        (x,) = data((n, 64), seed=n)
        for a, b in zip(shared(x), ms.jit(f, jit_level="O0")(x)):
            close(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)
