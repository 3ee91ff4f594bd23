"""Elementwise epilogues of opaque kernels run in place on their output (NOTE:
[Epilogues in place] in spore/_jit/memplan.py): same bits as PyNative, and never over
a value that is still read."""
import re

import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor
from spore._jit import memplan


def source(f):
    (entry,) = f._current.values()
    return entry.compiled.source


def in_place(f, op):
    """The generated lines of ``op`` nodes that write into one of their inputs."""
    found = []
    for line in source(f).splitlines():
        m = re.match(r"\s*(\w+) = \w+\((.*), out=(\w+)\)\s+# " + op + r"\b", line)
        if m and m.group(3) in [a.strip() for a in m.group(2).split(",")]:
            found.append(line)
    return found


def data(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [Tensor(rng.standard_normal(s).astype(np.float32)) for s in shapes]


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_attention_scale_after_a_batched_matmul_runs_in_place(level):
    def f(q, k, v):
        s = ops.matmul(q, k.swapaxes(-1, -2)) * 0.125
        return ops.matmul(ops.softmax(s, -1), v) + q
    q, k, v = data((2, 4, 40, 16), (2, 4, 40, 16), (2, 4, 40, 16), seed=1)
    f1 = ms.jit(f, jit_level=level)
    got = f1(q, k, v).asnumpy()
    np.testing.assert_array_equal(got, f(q, k, v).asnumpy())
    assert len(in_place(f1, "Mul")) == 1          # the scale writes the matmul's output
    assert len(in_place(f1, "Add")) == 1          # the residual writes the second's


def test_a_residual_add_after_dense_runs_in_place_with_pynative_bits():
    w, b = data((64, 48), (64,), seed=2)

    def f(x, r):
        return ops.relu(ops.dense(x, w, b) + r)
    x, r = data((8, 30, 48), (8, 30, 64), seed=3)
    f1 = ms.jit(f)
    np.testing.assert_array_equal(f1(x, r).asnumpy(), f(x, r).asnumpy())
    assert in_place(f1, "Add")


def test_a_gemm_output_still_read_later_is_not_written_over():
    w, = data((32, 32), seed=4)

    def f(x):
        y = ops.dense(x, w)
        z = y * 3.0 + 1.0
        return z * y, y
    (x,) = data((16, 32), seed=5)
    f1 = ms.jit(f)
    for a, b in zip(f1(x), f(x)):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    # y is an output and read by the last Mul: its buffer is never reused
    (entry,) = f1._current.values()
    graph = entry.graph
    plan = memplan.plan(graph)
    dense_out = next(n.outputs[0] for n in graph.nodes if n.prim.name == "Dense")
    assert dense_out not in plan.reuse.values()


def test_fresh_kernels_are_single_output_opaque_gemms_and_softmaxes():
    def f(x, w):
        y = ops.matmul(x, w.T)
        return ops.softmax(y, -1), ops.layer_norm(y, (y.shape[-1],), None, None)
    x, w = data((4, 24), (24, 24), seed=6)
    f1 = ms.jit(f)
    f1(x, w)
    (entry,) = f1._current.values()
    fresh = {n.prim.name for n in entry.graph.nodes if memplan.fresh_node(n)}
    assert "Softmax" in fresh and "LayerNorm" not in fresh
