"""O1 elementwise fusion without Numba: one tiled NumPy kernel per run of elementwise ops,
same bits as O0 (the Numba kernels are tested in test_fusion_numba.py)."""
import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import spore as ms
from spore import ops, Tensor, _native


@pytest.fixture(autouse=True)
def tiled():
    """The NumPy tiled path: what O1 runs without the ``fast`` extra."""
    with _native.disabled():
        yield


def chain(x):
    for _ in range(50):
        x = ops.tanh(x) * 0.9 + ops.sigmoid(x) * 0.1
    return x


def test_the_w2_chain_is_one_kernel_with_the_same_bits():
    x = Tensor(np.random.default_rng(0).standard_normal((256, 300)).astype(np.float32))
    f0, f1 = ms.jit(chain, jit_level="O0"), ms.jit(chain, jit_level="O1")
    np.testing.assert_array_equal(f1(x).asnumpy(), f0(x).asnumpy())
    assert ms.jit_report(f1).kernel_count == 1
    assert ms.jit_report(f0).kernel_count == 250


UNARY = [ops.tanh, ops.sigmoid, ops.exp, ops.abs, ops.neg, ops.relu, ops.square,
         lambda t: t * 0.5, lambda t: t + 1.0, lambda t: ops.sqrt(ops.abs(t))]
BINARY = [ops.add, ops.mul, ops.sub, ops.maximum, ops.minimum]


def program_fn(program, unary, binary):
    """``f(a, b, s)`` running a random elementwise program: each step applies a unary op
    to an earlier value and combines it with the last value or the scalar ``s``."""
    def f(a, b, s):
        vals = [a, b]
        for u, bi, pick in program:
            x = unary[u](vals[pick % len(vals)])
            vals.append(binary[bi](x, vals[-1] if pick % 2 else s))
        return vals[-1], vals[len(vals) // 2]      # an escaping intermediate too
    return f


@given(st.lists(st.tuples(st.integers(0, len(UNARY) - 1), st.integers(0, len(BINARY) - 1),
                          st.integers(0, 3)), min_size=2, max_size=12),
       st.sampled_from([(64, 100), (5000,), (3, 40, 50)]))
def test_random_elementwise_graphs_fuse_to_the_same_numbers(program, shape):
    f = program_fn(program, UNARY, BINARY)
    rng = np.random.default_rng(1)
    a, b = (Tensor(rng.standard_normal(shape).astype(np.float32)) for _ in range(2))
    s = Tensor(np.float32(0.3))
    want = ms.jit(f, jit_level="O0")(a, b, s)
    got = ms.jit(f, jit_level="O1")(a, b, s)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_one_thread_gives_the_same_bits(monkeypatch):
    x = Tensor(np.random.default_rng(2).standard_normal((512, 512)).astype(np.float32))
    two = ms.jit(chain, jit_level="O1")(x).asnumpy()
    monkeypatch.setenv("SPORE_NUM_THREADS", "1")
    one = ms.jit(chain, jit_level="O1")(x).asnumpy()
    np.testing.assert_array_equal(one, two)


def test_fused_groups_appear_in_the_ir_dump(tmp_path):
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path),
                   jit_config={"jit_level": "O1"})
    ms.jit(chain)(Tensor(np.ones((64, 100), np.float32)))
    dumps = {n: (tmp_path / n).read_text() for n in os.listdir(tmp_path) if n.endswith(".ir")}
    fused = [t for n, t in dumps.items() if "fuse_elementwise" in n]
    assert fused and "FusedElementwise" in fused[0]
    assert "graph fused_Tanh" in fused[0] and "Sigmoid" in fused[0]


def test_small_arrays_are_not_fused():
    f = ms.jit(lambda x: ops.tanh(x) * 2 + 1, jit_level="O1")
    f(Tensor(np.ones(8, np.float32)))
    assert ms.jit_report(f).kernel_count == 3
