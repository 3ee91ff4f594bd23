"""A small 2-D MatMul and the elementwise ops on its result run as one Numba call that
calls NumPy's own BLAS (NOTE: [GEMM epilogues] in spore/_jit/gemm.py): at O0 only
where the unfused graph's bits are kept, at O1 with any fusible epilogue."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Parameter, Tensor, _native
from spore._jit import fusion, gemm, kernelgen
from spore._jit.ir import format_graph

pytestmark = pytest.mark.skipif(not (_native.enabled() and gemm.register() is not None),
                                reason="needs Numba (the fast extra) and NumPy's bundled "
                                       "OpenBLAS")


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def merged(fn):
    """The merged product groups of a jitted function's compiled graphs."""
    return [n.attrs["group"] for g in ms.jit_report(fn).graphs for n in g.nodes
            if n.prim is fusion.fused_p and n.attrs["group"].gemm is not None]


def data(*shapes, seed=0, dtype=np.float32, scale=1.0):
    rng = np.random.default_rng(seed)
    return [Tensor((rng.standard_normal(s) * scale).astype(dtype)) for s in shapes]


def rigid(z, y, n=3):
    for _ in range(n):
        z = ops.tanh(ops.matmul(z, y))
    return z


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_w1a_chain_is_one_call_with_pynative_bits(level):
    x, y = data((32, 32), (32, 32), seed=1, scale=0.3)
    f = ms.jit(rigid, jit_level=level)
    np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y).asnumpy())
    (group,) = merged(f)             # three products, each with its tanh: one chain
    assert [n.prim.name for n in group.graph.nodes] == ["MatMul", "Tanh"] * 3
    assert group.chain == (3, 0) and group.exact == (level == "O0")
    assert ms.jit_report(f).kernel_count == 1
    np.testing.assert_array_equal(f(y, x).asnumpy(), rigid(y, x).asnumpy())   # new inputs


@pytest.mark.parametrize("scale", [0.05, 0.3, 2.0])
def test_w1a_chain_keeps_pynative_bits_whichever_form_its_tanh_spans_take(scale):
    # NOTE: [Tanh over spans]: at scale 0.05 every span of products takes the
    # polynomial alone; larger scales mix the forms
    x, y = data((32, 32), (32, 32), seed=3, scale=scale)
    f = ms.jit(lambda z, y: rigid(z, y, n=6), jit_level="O0")
    np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y, n=6).asnumpy())
    (group,) = merged(f)
    assert group.chain == (6, 0)
    assert "    tanh_span(q0[:m], q1[:m])" in kernelgen.kernel_source(group.epilogue)


@pytest.mark.parametrize("shapes", [((16, 1), (1, 16)), ((33, 17), (17, 65)),
                                    ((100, 300), (300, 50)), ((70, 64), (64, 5))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_product_has_numpy_matmul_bits(shapes, dtype):
    a, b = data(*shapes, seed=2, dtype=dtype)
    f = ms.jit(lambda a, b: ops.matmul(a, b) * 1.0 + 0.0, jit_level="O1")
    got = f(a, b).asnumpy()
    assert len(merged(f)) == 1
    np.testing.assert_array_equal(got, np.matmul(a.asnumpy(), b.asnumpy()))


def test_bias_and_activation_after_a_small_matmul_are_one_call():
    def f(x, w, bias):
        return ops.relu(ops.matmul(x, w) + bias)
    x, w, bias = data((64, 48), (48, 40), (40,), seed=5)
    f1 = ms.jit(f, jit_level="O1")
    np.testing.assert_array_equal(f1(x, w, bias).asnumpy(), f(x, w, bias).asnumpy())
    (graph,) = ms.jit_report(f1).graphs
    assert [n.prim.name for n in graph.nodes] == ["FusedElementwise"]
    (group,) = merged(f1)
    assert [n.prim.name for n in group.graph.nodes] == ["MatMul", "Add", "ReLU"]
    assert "MatMul" in format_graph(graph) and "test_gemm_epilogue.py" in format_graph(graph)
    # one kernel for every size: the shapes are read at run time
    x2, w2, b2 = data((20, 48), (48, 72), (72,), seed=6)
    np.testing.assert_array_equal(f1(x2, w2, b2).asnumpy(), f(x2, w2, b2).asnumpy())
    assert len({kernelgen.kernel_source(g.epilogue) for g in merged(f1)}) == 1


def test_o0_merges_only_what_keeps_its_bits():
    def f(x, w, v, bias):
        return ops.relu(ops.matmul(x, w) + bias), ops.exp(ops.matmul(x, v))
    x, w, v, bias = data((64, 48), (48, 40), (48, 40), (40,), seed=7, scale=0.2)
    f0 = ms.jit(f, jit_level="O0")
    for got, want in zip(f0(x, w, v, bias), f(x, w, v, bias)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    # exp (a vectorised loop at 2,560 elements) merges; the bias add does not at O0
    assert [[n.prim.name for n in g.graph.nodes] for g in merged(f0)] == [["MatMul", "Exp"]]
    small = ms.jit(lambda x, w: ops.tanh(ops.matmul(x, w)), jit_level="O0")
    a, b = data((8, 8), (8, 8), seed=8)            # 64 elements: NumPy's tanh at O0
    np.testing.assert_array_equal(small(a, b).asnumpy(), ops.tanh(ops.matmul(a, b)).asnumpy())
    assert merged(small) == []


def test_transposed_operands():
    a, b = data((40, 24), (56, 24), seed=9)
    mm = ops.MatMul(transpose_b=True)
    f = ms.jit(lambda a, b: ops.sigmoid(mm(a, b)), jit_level="O1")
    np.testing.assert_allclose(f(a, b).asnumpy(), ops.sigmoid(mm(a, b)).asnumpy(),
                               rtol=1e-6, atol=1e-6)
    assert len(merged(f)) == 1
    c, d = data((24, 40), (24, 56), seed=10)
    mt = ops.MatMul(transpose_a=True)
    g = ms.jit(lambda c, d: ops.tanh(mt(c, d)) * 2.0, jit_level="O1")
    np.testing.assert_allclose(g(c, d).asnumpy(), (ops.tanh(mt(c, d)) * 2.0).asnumpy(),
                               rtol=1e-6, atol=1e-6)
    assert len(merged(g)) == 1


def test_a_non_contiguous_operand_takes_the_unfused_path():
    x, y = data((32, 32), (32, 32), seed=11, scale=0.3)
    f = ms.jit(rigid, jit_level="O0")
    f(x, y)
    wide = Tensor(np.concatenate([y.asnumpy()] * 2, axis=1))
    view = wide[:, :32]                     # a strided view of the same values
    assert not view.asnumpy().flags.c_contiguous
    np.testing.assert_array_equal(f(x, view).asnumpy(), rigid(x, view).asnumpy())


def test_loops_not_usable_after_compiling_keep_pynative_bits(monkeypatch):
    x, y = data((32, 32), (32, 32), seed=12, scale=0.3)
    f = ms.jit(rigid, jit_level="O0")
    f(x, y)
    assert merged(f)
    with _native.disabled():                # O0 and PyNative take NumPy's tanh now
        np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y).asnumpy())
    # the loops still compiling in the background: the same (NOTE: [GEMM epilogues])
    monkeypatch.setattr(_native, "ready", lambda dtype: False)
    np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y).asnumpy())
    monkeypatch.undo()
    with _native.disabled():
        g = ms.jit(lambda x, y: rigid(x, y), jit_level="O0")
        np.testing.assert_array_equal(g(x, y).asnumpy(), rigid(x, y).asnumpy())
        assert merged(g) == []              # compiled without the loops: nothing merged


def test_the_product_is_not_moved_past_a_state_write():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.eye(32, dtype=np.float32) * 0.5), name="w")

        def construct(self, x):
            y = ops.matmul(x, self.w)
            ops.assign(self.w, self.w * 2.0)
            return ops.tanh(y)
    x, = data((32, 32), seed=13)
    eager, graph = Net(), Net()
    f = ms.jit(graph.construct, jit_level="O1")
    for _ in range(2):
        np.testing.assert_array_equal(f(x).asnumpy(), eager(x).asnumpy())
    np.testing.assert_array_equal(graph.w.asnumpy(), eager.w.asnumpy())
    assert merged(f) == []


def test_a_product_read_by_another_kernel_is_not_merged():
    x, y = data((32, 32), (32, 32), seed=14)

    def f(x, y):
        p = ops.matmul(x, y)
        return ops.tanh(p), ops.matmul(p, y)
    g = ms.jit(f, jit_level="O1")
    for got, want in zip(g(x, y), f(x, y)):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
    assert merged(g) == []


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_gradients_through_merged_products(level):
    x, y = data((32, 32), (32, 32), seed=15, scale=0.3)
    loss = lambda x, y: rigid(x, y).sum()          # noqa: E731
    g = ops.grad(loss, grad_position=(0, 1))
    jg = ms.jit(g, jit_level=level)
    for got, want in zip(jg(x, y), g(x, y)):
        if level == "O0":
            np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
        else:
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    assert merged(jg)


def test_an_operand_that_the_epilogue_reads_too():
    x, w = data((40, 40), (40, 40), seed=16, scale=0.2)
    f = ms.jit(lambda x, w: ops.tanh(ops.matmul(x, w)) + x * w, jit_level="O1")
    np.testing.assert_allclose(f(x, w).asnumpy(),
                               (ops.tanh(ops.matmul(x, w)) + x * w).asnumpy(), rtol=1e-6)
    (group,) = merged(f)
    assert [n.prim.name for n in group.graph.nodes] == ["MatMul", "Tanh", "Mul", "Add"]


def test_a_second_process_loads_the_merged_kernel_from_the_disk_cache(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, spore as ms
        from spore import ops, Tensor
        from spore._jit import kernelgen
        f = ms.jit(lambda x, y: ops.tanh(ops.matmul(x, y)), jit_level="O1")
        x = Tensor(np.linspace(-1, 1, 1024, dtype=np.float32).reshape(32, 32))
        out = f(x, x.T.copy())
        (kernel,) = kernelgen._kernels.values()
        print(sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values()),
              repr(float(out.asnumpy().sum())))
    """)
    env = dict(os.environ, SPORE_CACHE_DIR=str(tmp_path / "spore"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=ROOT)
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True).stdout.split() for _ in range(2)]
    assert runs[0][:2] == ["0", "1"]        # compiled by the first process
    assert runs[1][:2] == ["1", "0"]        # loaded by the second, BLAS symbol and all
    assert runs[0][2] == runs[1][2]


def test_constants_and_operand_flags_do_not_collide():
    x, = data((32, 32), seed=17, scale=0.3)
    w = np.eye(32, dtype=np.float32) * 0.5
    f = ms.jit(lambda x: ops.tanh(ops.matmul(x, Tensor(w))) + Tensor(w), jit_level="O1")
    np.testing.assert_allclose(f(x).asnumpy(), np.tanh(x.asnumpy() @ w) + w, rtol=1e-6)
    assert merged(f)


def test_o0_does_not_merge_while_the_loops_compile_in_the_background(monkeypatch):
    monkeypatch.setattr(_native, "ready", lambda dtype: False)
    x, y = data((32, 32), (32, 32), seed=18, scale=0.3)
    f = ms.jit(rigid, jit_level="O0")
    np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y).asnumpy())
    assert merged(f) == []
    g = ms.jit(rigid, jit_level="O1")               # O1 compiles its kernels anyway
    np.testing.assert_allclose(g(x, y).asnumpy(), rigid(x, y).asnumpy(), rtol=1e-5,
                               atol=1e-6)
    assert [g.chain for g in merged(g)] == [(3, 0)]


def links(fn):
    """(chain length or 1, operand) of each merged product of a jitted function."""
    return [g.chain or (1, None) for g in merged(fn)]


@pytest.mark.parametrize("n", [2, 3, 4, 7])
def test_chains_of_every_length_keep_pynative_bits(n):
    x, y = data((32, 32), (32, 32), seed=19, scale=0.3)
    f = ms.jit(lambda x, y: rigid(x, y, n), jit_level="O0")
    for a, b in ((x, y), (y, x)):
        np.testing.assert_array_equal(f(a, b).asnumpy(), rigid(a, b, n).asnumpy())
    assert links(f) == [(n, 0)]


def test_a_chain_through_the_second_operand_or_an_operand_the_epilogue_reads():
    w, z = data((32, 32), (32, 32), seed=20, scale=0.3)

    def left(w, z):                          # z = tanh(w @ z): the chain feeds operand b
        for _ in range(4):
            z = ops.tanh(ops.matmul(w, z))
        return z

    def residual(w, z):                      # z = relu(z @ w + z): a and the epilogue
        for _ in range(3):
            z = ops.relu(ops.matmul(z, w) + z)
        return z
    f = ms.jit(left, jit_level="O0")
    np.testing.assert_array_equal(f(w, z).asnumpy(), left(w, z).asnumpy())
    assert links(f) == [(4, 1)]
    g = ms.jit(residual, jit_level="O1")
    np.testing.assert_allclose(g(w, z).asnumpy(), residual(w, z).asnumpy(), rtol=1e-6,
                               atol=1e-6)
    assert links(g) == [(3, 0)]             # z is operand a, which the epilogue reads too


def test_a_chain_stops_at_a_value_read_elsewhere_and_at_a_state_write():
    x, y = data((32, 32), (32, 32), seed=22, scale=0.3)

    def two_outputs(x, y):
        mid = rigid(x, y, 3)
        return mid, rigid(mid, y, 2)
    f = ms.jit(two_outputs, jit_level="O0")
    for got, want in zip(f(x, y), two_outputs(x, y)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    assert links(f) == [(3, 0), (2, 0)]

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.y = Parameter(Tensor(y.asnumpy()), name="y")
            self.count = Parameter(Tensor(np.zeros(1, np.float32)), name="count")

        def construct(self, z):
            z = rigid(z, self.y, 2)
            ops.assign(self.count, self.count + 1.0)
            return rigid(z, self.y, 2)
    eager, graph = Net(), Net()
    g = ms.jit(graph.construct, jit_level="O0")
    for _ in range(2):
        np.testing.assert_array_equal(g(x).asnumpy(), eager(x).asnumpy())
    np.testing.assert_array_equal(graph.count.asnumpy(), [2.0])
    assert links(g) == [(2, 0), (2, 0)]


def test_different_products_do_not_chain():
    x, y = data((32, 32), (32, 32), seed=23, scale=0.3)

    def mixed(x, y):
        z = ops.tanh(ops.matmul(x, y))
        z = ops.exp(ops.matmul(z, y) * 0.1)    # another epilogue
        return ops.tanh(ops.matmul(z, y))
    f = ms.jit(mixed, jit_level="O1")
    np.testing.assert_allclose(f(x, y).asnumpy(), mixed(x, y).asnumpy(), rtol=1e-5,
                               atol=1e-6)
    assert links(f) == [(1, None)] * 3


def test_a_non_contiguous_operand_of_a_chain_and_loops_switched_off():
    x, y = data((32, 32), (32, 32), seed=24, scale=0.3)
    f = ms.jit(lambda x, y: rigid(x, y, 5), jit_level="O0")
    f(x, y)
    assert links(f) == [(5, 0)]
    view = Tensor(np.concatenate([y.asnumpy()] * 2, axis=1))[:, :32]
    np.testing.assert_array_equal(f(x, view).asnumpy(), rigid(x, view, 5).asnumpy())
    with _native.disabled():                # NumPy's tanh in PyNative: the unfused chain too
        np.testing.assert_array_equal(f(x, y).asnumpy(), rigid(x, y, 5).asnumpy())
