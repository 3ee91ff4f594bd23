"""O1 with Numba: each fused group runs as one generated Numba kernel, cached in memory
and on disk, numerically equal to the unfused graph within float32 rounding."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, strategies as st

import spore as ms
from spore import nn, ops, Tensor, _native
from spore._jit import fusion, gemm, kernelgen
from spore._core import threads
from tests.jit.test_fusion import program_fn

pytestmark = pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def chain(x):
    for _ in range(50):
        x = ops.tanh(x) * 0.9 + ops.sigmoid(x) * 0.1
    return x


def groups(fn):
    """The fused groups of a jitted function's compiled graphs."""
    return [n.attrs["group"] for g in ms.jit_report(fn).graphs for n in g.nodes
            if n.prim is fusion.fused_p]


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def test_the_w2_chain_is_one_numba_kernel_within_rounding():
    x = Tensor(np.random.default_rng(0).standard_normal((256, 300)).astype(np.float32))
    f0, f1 = ms.jit(chain, jit_level="O0"), ms.jit(chain, jit_level="O1")
    got, want = f1(x).asnumpy(), f0(x).asnumpy()
    assert got.dtype == np.float32
    close(got, want, rtol=4e-6, atol=0)
    assert ms.jit_report(f1).kernel_count == 1
    (group,) = groups(f1)
    assert kernelgen.kernel_source(group) in kernelgen._kernels


def test_the_w2a_size_fuses_with_numba():
    # (1024,) is below the tiled path's threshold, not the Numba kernels'
    x = Tensor(np.random.default_rng(1).standard_normal(1024).astype(np.float32))
    f = ms.jit(chain, jit_level="O1")
    close(f(x).asnumpy(), ms.jit(chain, jit_level="O0")(x).asnumpy(), rtol=4e-6, atol=0)
    assert ms.jit_report(f).kernel_count == 1


def test_the_w2_chain_runs_one_shared_segment_loop_per_step():
    # NOTE: [Segmented fused kernels]: 50 short loops over a tile instead of one loop
    # whose body is a 250-op dependent chain; tanh and sigmoid of one value share one
    # exponential; equal steps are one function
    x = Tensor(np.random.default_rng(3).standard_normal(3000).astype(np.float32))  # 2.9 tiles
    f1 = ms.jit(chain, jit_level="O1")
    close(f1(x).asnumpy(), ms.jit(chain, jit_level="O0")(x).asnumpy(), rtol=4e-6, atol=0)
    (group,) = groups(f1)
    source = kernelgen.kernel_source(group)
    assert source.count("@njit(cache=True") == 1          # one segment function
    assert source.count("        segment0(m, ") == 50     # called once per step
    assert source.count("tanh_sigmoid_f32(") == 1 and "tanh_f32(" not in source


def test_segments_cut_only_between_dependent_transcendental_functions():
    x = Tensor(np.linspace(-2, 2, 4096, dtype=np.float32))

    def segments(fn):
        f = ms.jit(fn, jit_level="O1")
        close(f(x).asnumpy(), ms.jit(fn, jit_level="O0")(x).asnumpy())
        (group,) = groups(f)
        return [line for line in kernelgen.kernel_source(group).splitlines()
                if line.startswith("        segment")]
    assert len(segments(lambda v: ops.tanh(v * 2.0) + ops.exp(v))) == 1   # side by side
    assert len(segments(lambda v: ops.tanh(ops.exp(v) * 0.5) - v)) == 2   # one after another


def test_values_crossing_segments_match_the_unfused_graph():
    def f(x, b):
        y = ops.tanh(x) * b
        z = ops.exp(y * 0.5) + y
        w = ops.sigmoid(z) * y - ops.erf(z * 0.1)
        v = ops.tanh(w) + z / (y * y + 1.0)
        return y, v, v > z
    rng = np.random.default_rng(4)
    x, b = Tensor(rng.standard_normal((37, 60)).astype(np.float32)), Tensor(np.float32(0.7))
    f1 = ms.jit(f, jit_level="O1")
    got, want = f1(x, b), ms.jit(f, jit_level="O0")(x, b)
    (group,) = groups(f1)
    source = kernelgen.kernel_source(group)
    assert source.count("        segment") >= 3 and "np.empty(" in source   # tile buffers
    for g, w in zip(got[:2], want[:2]):
        close(g.asnumpy(), w.asnumpy())
    v, z = want[1].asnumpy(), f(x, b)[1].asnumpy()
    decided = np.abs(v - z) > 1e-5 * np.abs(z)             # comparisons away from a tie
    np.testing.assert_array_equal(got[2].asnumpy()[decided], want[2].asnumpy()[decided])


def test_a_segment_loop_vectorises():
    import re
    from numba import types as T
    x = Tensor(np.ones(2048, np.float32))
    f1 = ms.jit(chain, jit_level="O1")
    f1(x)
    (group,) = groups(f1)
    ns = {}
    exec(compile(kernelgen.kernel_source(group).replace("cache=True", "cache=False"),
                 "<fused>", "exec"), ns)
    array = T.Array(T.float32, 1, "C")
    ns["segment0"].compile((T.int64, array, array))
    llvm = ns["segment0"].inspect_llvm(ns["segment0"].signatures[0])
    assert re.search(r"fdiv [a-z ]*<\d+ x float>", llvm)     # the divisions, in float32 lanes
    assert not re.search(r"<\d+ x double>", llvm)            # nothing computed in float64


def test_a_large_tanh_after_a_matmul_calls_the_vectorised_loop():
    # products of MAX_ELEMENTS or more keep their epilogue apart (smaller ones merge
    # with it: tests/jit/test_gemm_epilogue.py); a lone tanh then stays a node that
    # calls the loop O0 and PyNative call (NOTE: [Lone approximated ops]): their bits
    rng = np.random.default_rng(2)
    x, y = (Tensor(rng.standard_normal((384, 384)).astype(np.float32) * 0.05)
            for _ in range(2))
    assert 384 * 384 >= gemm.MAX_ELEMENTS

    def rigid(z, y):
        for _ in range(3):
            z = ops.tanh(ops.matmul(z, y))
        return z
    f = ms.jit(rigid, jit_level="O1")
    got = f(x, y).asnumpy()
    assert got.tobytes() == ms.jit(rigid, jit_level="O0")(x, y).asnumpy().tobytes()
    assert got.tobytes() == rigid(x, y).asnumpy().tobytes()
    assert groups(f) == []
    (graph,) = ms.jit_report(f).graphs
    assert [n.prim.name for n in graph.nodes] == ["MatMul", "Tanh"] * 3


def test_a_lone_tanh_with_a_sum_is_one_kernel():
    # the sum joins a kernel with the tanh (NOTE: [Fused reductions]): one pass
    x = Tensor(np.random.default_rng(3).standard_normal((384, 384)).astype(np.float32))
    f = ms.jit(lambda z: ops.tanh(z).sum(), jit_level="O1")
    close(f(x).asnumpy(), np.tanh(x.asnumpy()).sum(dtype=np.float64), rtol=1e-5)
    (group,) = groups(f)
    assert [n.prim.name for n in group.graph.nodes] == ["Tanh", "ReduceSum"]
    assert [r.prim.name for r in group.reductions] == ["ReduceSum"]


def test_a_single_cheap_op_is_not_a_group():
    f = ms.jit(lambda x: ops.matmul(x, x) + 1, jit_level="O1")
    f(Tensor(np.ones((32, 32), np.float32)))
    assert groups(f) == []


def test_small_arrays_stay_unfused():
    f = ms.jit(lambda x: ops.tanh(x) * 2 + 1, jit_level="O1")
    f(Tensor(np.ones(8, np.float32)))
    assert ms.jit_report(f).kernel_count == 3


UNARY = [ops.tanh, ops.sigmoid, ops.exp, ops.abs, ops.neg, ops.relu, ops.square, ops.erf,
         lambda t: t * 0.5, lambda t: t + 1.0, lambda t: ops.sqrt(ops.abs(t)),
         lambda t: ops.log(ops.abs(t) + 1.0), ops.sin, ops.reciprocal]
BINARY = [ops.add, ops.mul, ops.sub, ops.maximum, ops.minimum,
          lambda a, b: ops.select(a > b, a, b)]


@given(st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1),
                          st.integers(0, 3)), min_size=2, max_size=12),
       st.sampled_from([(64, 100), (5000,), (3, 40, 50), (300,)]),
       st.sampled_from([np.float32, np.float64]))
def test_random_elementwise_graphs_match_the_unfused_graph(program, shape, dtype):
    f = program_fn(program, UNARY, BINARY)
    rng = np.random.default_rng(1)
    a, b = (Tensor(rng.standard_normal(shape).astype(dtype)) for _ in range(2))
    s = Tensor(dtype(0.3))
    want = ms.jit(f, jit_level="O0")(a, b, s)
    got = ms.jit(f, jit_level="O1")(a, b, s)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        close(g.asnumpy(), w.asnumpy(), rtol=rtol, atol=rtol)


@given(st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1),
                          st.integers(0, 3)), min_size=2, max_size=10),
       st.sampled_from([((64, 100), (100,)), ((3, 40, 50), (40, 50)),
                        ((3, 40, 50), (1, 1, 50)), ((9, 7, 33), (7, 33)),
                        ((300, 500), (1, 500))]))      # the last: two threads
def test_random_graphs_with_trailing_broadcast_inputs_match_the_unfused_graph(program, shapes):
    # b broadcasts along the leading axes (a bias, a per-row pattern): ops mixing it with
    # full-shape values fuse, the kernel reading it tile by tile
    f = program_fn(program, UNARY, BINARY)
    rng = np.random.default_rng(2)
    a = Tensor(rng.standard_normal(shapes[0]).astype(np.float32))
    b = Tensor(rng.standard_normal(shapes[1]).astype(np.float32))
    s = Tensor(np.float32(0.3))
    want = ms.jit(f, jit_level="O0")(a, b, s)
    got = ms.jit(f, jit_level="O1")(a, b, s)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        close(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-5)


def test_bias_and_activation_after_a_matmul_are_one_epilogue():
    def f(x, w, bias):
        return ops.relu(ops.matmul(x, w) + bias)
    rng = np.random.default_rng(5)
    # a product of MAX_ELEMENTS or more: its epilogue is a group of its own
    x, w = (Tensor(rng.standard_normal(s).astype(np.float32)) for s in ((512, 48), (48, 260)))
    bias = Tensor(rng.standard_normal(260).astype(np.float32))
    f1 = ms.jit(f, jit_level="O1")
    got = f1(x, w, bias).asnumpy()
    np.testing.assert_array_equal(got, ms.jit(f, jit_level="O0")(x, w, bias).asnumpy())
    (graph,) = ms.jit_report(f1).graphs
    assert [n.prim.name for n in graph.nodes] == ["MatMul", "FusedElementwise"]
    assert ms.jit_report(f1).kernel_count == 2
    (group,) = groups(f1)
    assert [n.prim.name for n in group.graph.nodes] == ["Add", "ReLU"]
    assert kernelgen.kernel_source(group) in kernelgen._kernels      # a Numba kernel
    # the kernel depends on which inputs broadcast, not on their sizes
    wide = Tensor(rng.standard_normal((48, 272)).astype(np.float32))
    f1(x, wide, Tensor(np.ones((1, 272), np.float32)))
    assert len({kernelgen.kernel_source(g) for g in groups(f1)}) == 1


def test_broadcast_inputs_without_numba_stay_unfused():
    with _native.disabled():
        f = ms.jit(lambda x, b: ops.tanh(x + b) * 2.0, jit_level="O1")
        f(Tensor(np.ones((64, 100), np.float32)), Tensor(np.ones(100, np.float32)))
    assert [n.prim.name for g in groups(f) for n in g.graph.nodes] == ["Tanh", "Mul"]


def test_kernels_are_keyed_by_structure_and_dtype_not_shape():
    f = ms.jit(lambda x: ops.tanh(x) * 3.0 - x, jit_level="O1")
    for shape in [(40, 50), (7, 300), (2, 3, 700), (5000,)]:
        f(Tensor(np.ones(shape, np.float32)))
    sources = {kernelgen.kernel_source(g) for g in groups(f)}
    assert len(groups(f)) == 4 and len(sources) == 1
    f(Tensor(np.ones((40, 50), np.float64)))
    assert len({kernelgen.kernel_source(g) for g in groups(f)}) == 2


def test_the_kernel_file_lives_in_the_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SPORE_CACHE_DIR", str(tmp_path))
    x = Tensor(np.ones((30, 40), np.float32))
    f = ms.jit(lambda x: ops.exp(x) * 1.25 + 0.125, jit_level="O1")
    np.testing.assert_allclose(f(x).asnumpy(), np.exp(1, dtype=np.float32) * 1.25 + 0.125,
                               rtol=1e-6)
    files = os.listdir(tmp_path / "kernels")
    assert any(n.startswith("fused_") and n.endswith(".py") for n in files)


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, spore as ms
        from spore import ops, Tensor
        from spore._jit import kernelgen
        f = ms.jit(lambda x: ops.sigmoid(ops.tanh(x) * 0.75 - 0.5), jit_level="O1")
        out = f(Tensor(np.linspace(-3, 3, 4096, dtype=np.float32)))
        (kernel,) = kernelgen._kernels.values()
        print(sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values()),
              float(out.asnumpy().sum()))
    """)
    env = dict(os.environ, SPORE_CACHE_DIR=str(tmp_path / "spore"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONPATH=ROOT)
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, check=True).stdout.split() for _ in range(2)]
    assert runs[0][:2] == ["0", "1"]        # compiled by the first process
    assert runs[1][:2] == ["1", "0"]        # loaded by the second
    assert runs[0][2] == runs[1][2]


def test_two_threads_and_one_give_the_same_bits(monkeypatch):
    x = Tensor(np.random.default_rng(3).standard_normal((512, 512)).astype(np.float32))
    assert x.size >= kernelgen.PARALLEL_MIN
    two = ms.jit(chain, jit_level="O1")(x).asnumpy()
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")
    one = ms.jit(chain, jit_level="O1")(x).asnumpy()
    np.testing.assert_array_equal(one, two)


def test_without_numba_o1_takes_the_tiled_path_with_o0_bits():
    x = Tensor(np.random.default_rng(4).standard_normal((64, 100)).astype(np.float32))
    with _native.disabled():
        got = ms.jit(chain, jit_level="O1")(x).asnumpy()
        want = ms.jit(chain, jit_level="O0")(x).asnumpy()
    np.testing.assert_array_equal(got, want)


def test_a_numba_failure_warns_once_and_takes_the_tiled_path(monkeypatch):
    def broken(source):
        raise RuntimeError("no compiler today")
    monkeypatch.setattr(kernelgen, "_import", broken)
    monkeypatch.setattr(kernelgen, "_kernels", {})
    monkeypatch.setattr(kernelgen, "_warned", False)
    x = Tensor(np.random.default_rng(5).standard_normal((64, 100)).astype(np.float32))
    with pytest.warns(RuntimeWarning, match="fall back to NumPy"):
        got = ms.jit(chain, jit_level="O1")(x).asnumpy()
    np.testing.assert_array_equal(got, ms.jit(chain, jit_level="O0")(x).asnumpy())
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.jit(lambda x: ops.exp(x) - 1.0, jit_level="O1")(x)     # no second warning


def test_a_broadcast_group_whose_kernel_fails_runs_tiled_with_o0_bits(monkeypatch):
    monkeypatch.setattr(kernelgen, "load", lambda source: None)     # compilation failed
    def f(x, b):
        return ops.tanh(x + b) * 2.0
    rng = np.random.default_rng(6)
    x = Tensor(rng.standard_normal((64, 100)).astype(np.float32))
    b = Tensor(rng.standard_normal((1, 100)).astype(np.float32))
    f1 = ms.jit(f, jit_level="O1")
    np.testing.assert_array_equal(f1(x, b).asnumpy(), ms.jit(f, jit_level="O0")(x, b).asnumpy())
    assert groups(f1)


def test_unsupported_dtypes_take_the_tiled_path():
    x = Tensor(np.linspace(-2, 2, 5000).astype(np.float16))
    f = ms.jit(lambda x: ops.tanh(x) * 0.5 + 0.25, jit_level="O1")
    f(x)
    (group,) = groups(f)
    assert kernelgen.kernel_source(group) is None
    np.testing.assert_array_equal(
        f(x).asnumpy(), ms.jit(lambda x: ops.tanh(x) * 0.5 + 0.25, jit_level="O0")(x).asnumpy())


def test_comparisons_and_relu_grad_in_a_training_step():
    rng = np.random.default_rng(6)
    x = Tensor(rng.standard_normal((64, 256)).astype(np.float32))
    y = Tensor(rng.standard_normal((64, 256)).astype(np.float32))
    results = []
    for level in ("O0", "O1"):
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 256), nn.Tanh()])
        wrng = np.random.default_rng(7)             # the same weights for both levels
        for p in net.trainable_params():
            p.set_data(Tensor((wrng.standard_normal(p.shape) * 0.05).astype(np.float32)))
        opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
        grad_fn = ms.value_and_grad(lambda a, b: nn.MSELoss()(net(a), b), None,
                                    opt.parameters)

        def step(a, b):
            loss, grads = grad_fn(a, b)
            return ops.depend(loss, opt(grads))
        f = ms.jit(step, jit_level=level)
        losses = [float(f(x, y).asnumpy()) for _ in range(3)]
        results.append((losses, [p.asnumpy() for p in net.trainable_params()]))
    (l0, p0), (l1, p1) = results
    close(l1, l0, rtol=1e-5)
    for a, b in zip(p1, p0):
        close(a, b, rtol=1e-4, atol=1e-5)     # Adam scales tiny gradient differences


def test_strided_and_read_only_inputs_are_accepted():
    f = ms.jit(lambda x: ops.exp(x) * 0.5, jit_level="O1")
    f(Tensor(np.zeros(2048, np.float32)))
    run = kernelgen.compile_group(groups(f)[0], threads.for_each)
    base = np.linspace(-1, 1, 4096, dtype=np.float32)
    strided = base[::2]
    base.flags.writeable = False
    (got,) = run(strided)
    np.testing.assert_allclose(got, np.exp(strided) * np.float32(0.5), rtol=1e-6)
    (got,) = run(base[:2048])
    np.testing.assert_allclose(got, np.exp(base[:2048]) * np.float32(0.5), rtol=1e-6)


def test_adam_updates_each_parameter_with_one_kernel():
    net = nn.SequentialCell([nn.Dense(64, 64), nn.ReLU(), nn.Dense(64, 8)])
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    grad_fn = ms.value_and_grad(lambda a, b: nn.MSELoss()(net(a), b), None, opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        return ops.depend(loss, opt(grads))
    f = ms.jit(step, jit_level="O1")
    f(Tensor(np.ones((16, 64), np.float32)), Tensor(np.ones((16, 8), np.float32)))
    (graph,) = ms.jit_report(f).graphs
    names = [n.prim.name for n in graph.nodes]
    assert names.count("Adam") == len(net.trainable_params()) == 4


def test_infinite_and_nan_literals():
    def f(x):
        return ops.minimum(x * 2.0, float("inf")) + ops.maximum(x, float("-inf")) * 0.5, \
            x * float("nan") + 1.0
    x = Tensor(np.linspace(-3, 3, 1000, dtype=np.float32))
    f1 = ms.jit(f, jit_level="O1")
    got, want = f1(x), ms.jit(f, jit_level="O0")(x)
    assert groups(f1) and all(kernelgen.kernel_source(g) in kernelgen._kernels   # compiled
                              for g in groups(f1))
    for g, w in zip(got, want):
        close(g.asnumpy(), w.asnumpy())


class _Block(nn.Cell):
    """W5's one-block ViT (benchmarks/bench_spore.py, TinyViT) at a test's size."""

    def __init__(self, dim=64, heads=4, patch=8):
        super().__init__()
        rng = np.random.default_rng(7)
        self.heads, self.dim = heads, dim
        self.patch = nn.Conv2d(3, dim, patch, stride=patch, pad_mode="valid", has_bias=True)
        self.cls = ms.Parameter(Tensor(rng.standard_normal((1, 1, dim)).astype(np.float32)
                                       * 0.02), name="cls")
        self.pos = ms.Parameter(Tensor(rng.standard_normal((1, 17, dim)).astype(np.float32)
                                       * 0.02), name="pos")
        self.qkv = nn.Dense(dim, 3 * dim)
        self.proj = nn.Dense(dim, dim)
        self.ln = nn.LayerNorm((dim,), epsilon=1e-5)
        self.head = nn.Dense(dim, 10)
        self.scale = (dim // heads) ** -0.5

    def construct(self, x):
        b, d, h = x.shape[0], self.dim, self.heads
        x = self.patch(x).flatten(2).transpose(0, 2, 1)
        x = ops.concat((self.cls.expand(b, -1, -1), x), 1) + self.pos
        qkv = self.qkv(x).reshape(b, 17, 3, h, d // h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = ops.softmax(ops.matmul(q, k.transpose(-2, -1)) * self.scale, -1)
        o = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, 17, d)
        return self.head(self.ln(x + self.proj(o))[:, 0])


def _vit_step(level):
    net = _Block()
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        return ops.depend(loss, opt(grads))
    return ms.jit(step, jit_level=level), net


def test_the_vit_step_compiles_few_distinct_kernels_and_matches_o0():
    # the bound for W5: at most 15 distinct fused kernels (keyed by structure)
    rng = np.random.default_rng(8)
    x = Tensor(rng.standard_normal((4, 3, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 4).astype(np.int32))
    (f1, n1), (f0, n0) = _vit_step("O1"), _vit_step("O0")
    for p1, p0 in zip(n1.trainable_params(), n0.trainable_params()):
        p1.set_data(Tensor(p0.asnumpy().copy()))            # the same initial weights
    for _ in range(2):
        close(f1(x, y).asnumpy(), f0(x, y).asnumpy(), rtol=1e-4, atol=1e-5)
    for p1, p0 in zip(n1.trainable_params(), n0.trainable_params()):
        close(p1.asnumpy(), p0.asnumpy(), rtol=1e-4, atol=1e-5)
    sources = {kernelgen.kernel_source(g) for g in groups(f1)}
    assert len(sources) <= 15        # today 0: its elementwise ops sit between opaque
                                     # kernels or broadcast (no fused epilogues yet)


def test_a_segment_of_one_tanh_runs_span_by_span_with_the_unfused_bits():
    # NOTE: [Tanh over spans]: the tanh after the exponential is a segment of its own
    # (one op of an array into an output): tanh_span, the bits of the unfused graph
    rng = np.random.default_rng(11)
    x = Tensor(np.concatenate([rng.standard_normal(3000) * 0.05 - 4.0,   # tanh's input small
                               rng.standard_normal(3000) * 3,             # mixed and large
                               np.full(500, np.nan)]).astype(np.float32))

    def fn(v):
        return ops.tanh(ops.exp(v) * 0.5 - 0.01)
    f1 = ms.jit(fn, jit_level="O1")
    want = ms.jit(fn, jit_level="O0")(x).asnumpy()
    assert f1(x).asnumpy().view(np.uint32).tobytes() == want.view(np.uint32).tobytes()
    (group,) = groups(f1)
    calls = [line.strip() for line in kernelgen.kernel_source(group).splitlines()
             if line.strip().startswith("tanh_span(")]
    assert calls == ["tanh_span(q0[:m], q1[:m])  # Tanh"]
