"""Conv epilogues at O1 (NOTE: [Conv epilogues] in spore/_prims/nn/conv.py): Conv2D and
the ReLU after it run as one Conv2DReLU kernel, MaxPoolScatter and the ReluGrad after it
as one MaxPoolScatterReluGrad kernel, with the unfused kernels' values bit for bit; a
bias gradient summed from the latter joins it (MaxPoolScatterReluGradSum), equal to
NumPy's sum to rounding (float64 accumulation)."""
import numpy as np
import pytest

import spore as ms
from spore import _native, nn, ops, Tensor
from spore._jit import conv_epilogue
from spore._prims.math import relu_grad_p, relu_p
from spore._prims.nn import conv, pool

FLOATS = [np.float32, np.float64]
GEO = dict(stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1)
POOL = dict(kernel=(2, 2), stride=(2, 2), pads=(0, 0, 0, 0), dilation=(1, 1))
ONE_EACH = ["Conv2DReLU", "MaxPoolScatterReluGradSum"]
MERGED = ONE_EACH + ["MaxPoolScatterReluGrad"]


def same_bits(a, b):
    """Equal values, NaN in the same places, the same signed zeros."""
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    zeros = b == 0
    assert np.array_equal(np.signbit(a[zeros]), np.signbit(b[zeros]))


def both_paths(fn):
    """(compiled loops, NumPy paths) results of ``fn()`` (the second as without Numba)."""
    compiled = fn()
    with _native.disabled():
        plain = fn()
    return compiled, plain


def conv_relu_cases():
    # (x shape, filter shape, pads): LeNet's two layers (direct loops, per sample and
    # batch inner), an odd channel count, a padded one, and a GEMM-path one (64 filters)
    return [((4, 1, 32, 32), (6, 1, 5, 5), (0, 0, 0, 0)),
            ((4, 6, 14, 14), (16, 6, 5, 5), (0, 0, 0, 0)),
            ((3, 2, 9, 11), (5, 2, 3, 3), (1, 1, 1, 1)),
            ((2, 3, 12, 12), (64, 3, 3, 3), (0, 0, 0, 0))]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", conv_relu_cases())
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_relu_kernel_is_relu_of_conv2d_bit_for_bit(case, dtype, bias):
    xs, ws, pads = case
    rng = np.random.default_rng(1)
    x = rng.standard_normal(xs).astype(dtype)
    x[0, 0, :3, :3] = np.nan                  # NaN outputs stay NaN, as np.maximum keeps them
    w = rng.standard_normal(ws).astype(dtype)
    w[0] = 0                                  # exact zeros (and -0.0 from a zero bias below)
    b = rng.standard_normal(ws[0]).astype(dtype)
    b[0] = -0.0
    extra = (b,) if bias else ()
    geo = dict(GEO, pads=pads)

    def fused():
        return conv.conv2d_relu_p._cpu(x, w, *extra, **geo)

    def unfused():
        return relu_p._cpu(conv.conv2d_p._cpu(x, w, *extra, **geo))
    for got, want in zip(both_paths(fused), both_paths(unfused)):
        same_bits(got, want)


def scatter_inputs(shape, dtype, seed=2):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    y = relu_p._cpu(x)
    y.flat[::7] = -0.0
    y.flat[5] = np.nan
    _, won = pool.max_pool2d_p._cpu(y, **POOL)
    oh, ow = won.shape[2:]
    dy = rng.standard_normal(won.shape).astype(dtype)
    dy.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    dy.flat[4::9] = -dy.flat[4::9]
    return dy, won, y


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 6, 28, 28), (4, 16, 10, 10), (2, 3, 7, 9), (1, 2, 4, 4)])
def test_max_pool_scatter_relu_grad_is_the_pair_bit_for_bit(shape, dtype):
    dy, won, y = scatter_inputs(shape, dtype)
    attrs = dict(POOL, input_shape=shape)

    def fused():
        return pool.max_pool_scatter_relu_grad_p._cpu(dy, won, y, **attrs)

    def unfused():
        return relu_grad_p._cpu(pool.max_pool_scatter_p._cpu(dy, won, **attrs), y)
    with np.errstate(invalid="ignore"):           # inf * 0
        pairs = list(zip(both_paths(fused), both_paths(unfused)))
    for got, want in pairs:
        same_bits(got, want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(4, 6, 28, 28), (2, 3, 7, 9)])
@pytest.mark.parametrize("special", [False, True])
def test_the_sum_variant_adds_the_channel_sums(shape, dtype, special):
    dy, won, y = scatter_inputs(shape, dtype)
    if not special:                               # finite data: sums to compare closely
        dy[np.isnan(dy) | np.isinf(dy)] = 1.5
    attrs = dict(POOL, input_shape=shape)
    dx_alone = pool.max_pool_scatter_relu_grad_p._cpu(dy, won, y, **attrs)
    with np.errstate(invalid="ignore"):
        results = both_paths(lambda: pool.max_pool_scatter_relu_grad_sum_p._cpu(
            dy, won, y, **attrs))
        want = dx_alone.sum(axis=(0, 2, 3), dtype=np.float64)
    for dx, sums in results:
        same_bits(dx, dx_alone)
        assert sums.dtype == dtype and sums.shape == (shape[1],)
        assert np.array_equal(np.isnan(sums), np.isnan(want))
        assert np.array_equal(np.isnan(want), np.isnan(sums))
        fine = ~np.isnan(want)
        np.testing.assert_allclose(sums[fine], want[fine].astype(dtype), rtol=1e-6, atol=0)
    assert special == bool(np.isnan(want).any())


def test_max_pool_scatter_relu_grad_other_windows_run_the_pair():
    shape = (2, 3, 9, 9)
    rng = np.random.default_rng(3)
    y = relu_p._cpu(rng.standard_normal(shape).astype(np.float32))
    attrs = dict(kernel=(3, 3), stride=(2, 2), pads=(1, 1, 1, 1), dilation=(1, 1))
    _, won = pool.max_pool2d_p._cpu(y, **attrs)
    dy = rng.standard_normal(won.shape).astype(np.float32)
    got = pool.max_pool_scatter_relu_grad_p._cpu(dy, won, y, input_shape=shape, **attrs)
    want = relu_grad_p._cpu(pool.max_pool_scatter_p._cpu(dy, won, input_shape=shape,
                                                          **attrs), y)
    same_bits(got, want)


def test_bad_inputs_name_the_op():
    dy, won, y = scatter_inputs((2, 3, 8, 8), np.float32)
    with pytest.raises(ValueError, match="MaxPoolScatterReluGrad.*'y'"):
        pool.max_pool_scatter_relu_grad_p._cpu(dy, won, y[:, :2], input_shape=y.shape,
                                               **POOL)
    x = np.ones((1, 1, 6, 6), np.float16)
    with pytest.raises(TypeError, match="Conv2DReLU.*float32 or float64"):
        conv.conv2d_relu_p._cpu(x, np.ones((2, 1, 3, 3), np.float16), **GEO)


# --------------------------------------------------------------------------- the pass
class ConvPool(nn.Cell):
    """LeNet's feature layers: (conv -> relu -> 2x2 max pool) twice, then a linear head."""

    def __init__(self, dtype):
        super().__init__()
        rng = np.random.default_rng(4)
        kind = ms.float32 if dtype == np.float32 else ms.float64
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True, dtype=kind)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True, dtype=kind)
        self.fc = nn.Dense(400, 10, dtype=kind)
        for p in self.trainable_params():
            p.set_data(Tensor((rng.standard_normal(p.shape) * 0.2).astype(dtype)))
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc(ops.flatten(x))


def grad_step(dtype=np.float32):
    net = ConvPool(dtype)

    def loss(x):
        return (net(x) ** 2).mean()
    return ms.value_and_grad(loss, None, net.trainable_params())


CONV_BIASES = (1, 3)          # conv1.bias, conv2.bias among ConvPool's parameters


def close_sums(got, want):
    """Equal to rounding: float64 accumulation against NumPy's float32 pairwise sum."""
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-5 if got.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def names(f):
    return [n.prim.name for g in ms.jit_report(f).graphs for n in g.nodes]


def lenet_input(dtype=np.float32, n=4):
    return Tensor(np.random.default_rng(5).standard_normal((n, 1, 32, 32)).astype(dtype))


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
@pytest.mark.parametrize("dtype", FLOATS)
def test_lenet_features_merge_at_o1_only_with_o0_and_pynative_values(dtype):
    x = lenet_input(dtype)
    step = grad_step(dtype)
    o0, o1 = ms.jit(step, jit_level="O0"), ms.jit(step, jit_level="O1")
    want = step(x)
    for f in (o0, o1):
        loss, grads = f(x)
        same_bits(loss.asnumpy(), want[0].asnumpy())
        for k, (g, w) in enumerate(zip(grads, want[1])):
            if f is o1 and k in CONV_BIASES:      # summed in float64 by the merged kernel
                close_sums(g.asnumpy(), w.asnumpy())
            else:
                same_bits(g.asnumpy(), w.asnumpy())
    n0, n1 = names(o0), names(o1)
    assert [n1.count(k) for k in ONE_EACH] == [2, 2]
    assert not any(k in n0 for k in MERGED)
    assert n1.count("Conv2D") == n1.count("ReLU") == 0
    assert n1.count("MaxPoolScatter") == n1.count("ReluGrad") == 0
    assert n1.count("ReduceSum") == n0.count("ReduceSum") - 2
    assert ms.jit_report(o0).kernel_count - ms.jit_report(o1).kernel_count == 6


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
def test_graph_mode_cell_merges_too():
    net = ConvPool(np.float32)
    x = lenet_input()
    want = net(x).asnumpy()
    net.set_jit_config(ms.JitConfig(jit_level="O1"))
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        got = net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    same_bits(got, want)
    assert names(net).count("Conv2DReLU") == 2


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
def test_a_conv_output_read_elsewhere_is_not_merged():
    w = Tensor(np.random.default_rng(6).standard_normal((4, 1, 3, 3)).astype(np.float32))

    def both(x):
        c = ops.conv2d(x, w)
        return ops.relu(c), c * 2                 # the convolution itself is read again

    def returned(x):
        c = ops.conv2d(x, w)
        return ops.relu(c), c                     # ... or is an output

    x = Tensor(np.random.default_rng(7).standard_normal((2, 1, 10, 10)).astype(np.float32))
    for fn in (both, returned):
        f = ms.jit(fn, jit_level="O1")
        for got, want in zip(f(x), fn(x)):
            same_bits(got.asnumpy(), want.asnumpy())
        assert "Conv2DReLU" not in names(f)


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
def test_pool_of_a_relu_gradient_merges_without_a_convolution():
    def f(x):
        return ms.grad(lambda x: (ops.max_pool2d(ops.relu(x), 2, 2) ** 2).sum())(x)
    x = Tensor(np.random.default_rng(8).standard_normal((2, 3, 12, 12)).astype(np.float32))
    g = ms.jit(f, jit_level="O1")
    same_bits(g(x).asnumpy(), f(x).asnumpy())
    assert "MaxPoolScatterReluGrad" in names(g)


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
@pytest.mark.parametrize("axis,keepdims,joins", [((0, 2, 3), False, True),
                                                 ((0, -2, -1), False, True),
                                                 ((0, 2, 3), True, False),
                                                 ((2, 3), False, False)])
def test_which_sums_of_the_relu_gradient_join_the_scatter(axis, keepdims, joins):
    def f(x):
        def loss(x):
            p = ops.max_pool2d(ops.relu(x), 2, 2)
            return (p * p).sum()
        g = ms.grad(loss)(x)
        return g, g.sum(axis=axis, keepdims=keepdims)
    x = Tensor(np.random.default_rng(9).standard_normal((2, 3, 8, 8)).astype(np.float32))
    j = ms.jit(f, jit_level="O1")
    (g1, s1), (g0, s0) = j(x), f(x)
    same_bits(g1.asnumpy(), g0.asnumpy())
    close_sums(s1.asnumpy(), s0.asnumpy())
    assert ("MaxPoolScatterReluGradSum" in names(j)) == joins
    assert ("MaxPoolScatterReluGrad" in names(j)) != joins


def test_without_numba_o1_keeps_the_unfused_nodes():
    x = lenet_input()
    step = grad_step()
    with _native.disabled():                      # PyNative's convolutions take the GEMM too
        want = step(x)
        f = ms.jit(step, jit_level="O1")
        loss, grads = f(x)
        n1 = names(f)
    same_bits(loss.asnumpy(), want[0].asnumpy())
    for g, w in zip(grads, want[1]):
        same_bits(g.asnumpy(), w.asnumpy())
    assert not any(k in n1 for k in MERGED)
    assert n1.count("Conv2D") == 2


def test_the_pass_leaves_graphs_without_the_pattern_alone():
    from spore._jit.ir import Graph
    g = Graph("empty")
    assert conv_epilogue.conv_epilogues(g) == (g, False)


@pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")
def test_o1_gradients_match_finite_differences_of_the_o1_loss():
    """The merged kernels' gradients (the bias sums included) against central
    differences of the compiled loss itself, in float64."""
    net = ConvPool(np.float64)
    x = lenet_input(np.float64, n=2)
    params = net.trainable_params()

    def loss(x):
        return (net(x) ** 2).mean()
    grads = ms.jit(ms.grad(loss, None, params), jit_level="O1")(x)
    f = ms.jit(loss, jit_level="O1")
    f(x)
    assert "Conv2DReLU" in names(f)
    rng = np.random.default_rng(10)
    for k in (0, 1, 2, 3):                        # conv1/conv2 weights and biases
        p, g = params[k], grads[k].asnumpy()
        base = p.asnumpy().copy()
        for flat in rng.choice(base.size, 3, replace=False):
            def at(delta):
                v = base.copy()
                v.flat[flat] += delta
                p.set_data(Tensor(v))
                return float(f(x).asnumpy())
            eps = 1e-6
            numeric = (at(eps) - at(-eps)) / (2 * eps)
            p.set_data(Tensor(base))
            np.testing.assert_allclose(g.flat[flat], numeric, rtol=1e-5, atol=1e-8)
