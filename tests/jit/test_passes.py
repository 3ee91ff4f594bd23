"""Compiler passes on small hand-built graphs: invariants, effects, and equal numbers."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor
from spore._core.aval import ShapedArray
from spore._jit import codegen, passes
from spore._jit.ir import Graph, GraphError, Node, Value, format_graph, signature, verify
from spore._prims import math as M
from spore._prims.array import assign_p, full_p, reshape_p
from spore._prims.random import uniform_real_p
from spore._prims.special import print_p
from tests.jit.test_jit_api import rigid_compute

F32 = np.dtype(np.float32)


def _node(g, prim, inputs, attrs=None, n_out=1, shape=(3,), dtype=F32, written=()):
    node = Node(prim, inputs, attrs or {}, ())
    node.outputs = tuple(Value(ShapedArray(shape, dtype), node) for _ in range(n_out))
    node.written = tuple((i, node.outputs[0] if i == 0 else Value(inputs[i].aval, node))
                         for i in written)
    g.nodes.append(node)
    return node.outputs[0] if n_out == 1 else node.outputs


def _graph():
    g = Graph("t")
    x = g.add_input(ShapedArray((3,), F32), "arg")
    return g, x


def _run(g, *arrays):
    return codegen.generate(g).fn(*arrays)


def test_dce_drops_unused_pure_nodes_and_keeps_effects():
    g, x = _graph()
    used = _node(g, M.tanh_p, [x])
    _node(g, M.exp_p, [x])                                       # unused, pure
    _node(g, print_p, [x], {"spec": (("tensor", 0),)}, shape=(), dtype=np.dtype(bool))
    _node(g, uniform_real_p, [x], {"shape": (3,), "dtype": F32})  # unused random draw
    g.outputs = [used]
    out, changed = passes.dce(g)
    assert changed
    assert [n.prim.name for n in out.nodes] == ["Tanh", "Print"]
    verify(out)


def test_dce_keeps_state_writes():
    g, x = _graph()
    w = _node(g, assign_p, [x, 1.0], written=(0,))
    g.outputs = [_node(g, M.exp_p, [x])]
    out, _ = passes.dce(g)
    assert "Assign" in [n.prim.name for n in out.nodes] and w is not None


def test_cse_merges_equal_pure_nodes_but_not_random_ones():
    g, x = _graph()
    a = _node(g, M.tanh_p, [x])
    b = _node(g, M.tanh_p, [x])
    k = g.add_input(ShapedArray((2,), np.dtype(np.uint64)), "rng")
    r1 = _node(g, uniform_real_p, [k], {"shape": (3,), "dtype": F32})
    r2 = _node(g, uniform_real_p, [k], {"shape": (3,), "dtype": F32})
    s = _node(g, M.add_p, [a, b])
    g.outputs = [_node(g, M.add_p, [s, _node(g, M.add_p, [r1, r2])])]
    out, changed = passes.cse(g)
    assert changed
    names = [n.prim.name for n in out.nodes]
    assert names.count("Tanh") == 1 and names.count("UniformReal") == 2
    verify(out)
    arr = np.array([0.1, 0.2, 0.3], np.float32)
    key = np.array([1, 2], np.uint64)
    np.testing.assert_array_equal(_run(g, arr, key)[0], _run(out, arr, key)[0])


def test_cse_does_not_merge_across_a_write():
    g, x = _graph()
    view = _node(g, reshape_p, [x], {"shape": (3,)})
    before = _node(g, M.mul_p, [view, 2.0])
    _node(g, assign_p, [x, 5.0], written=(0,))
    after = _node(g, M.mul_p, [view, 2.0])
    g.outputs = [before, after]
    out, _ = passes.cse(g)
    assert [n.prim.name for n in out.nodes].count("Mul") == 2
    a, b = _run(out, np.ones(3, np.float32))
    np.testing.assert_array_equal(a, [2, 2, 2])
    np.testing.assert_array_equal(b, [10, 10, 10])      # the view sees the write, as eagerly


def test_constant_folding_evaluates_constant_subgraphs():
    g, x = _graph()
    c = _node(g, full_p, [], {"shape": (3,), "dtype": F32, "value": 2})
    c2 = _node(g, M.mul_p, [c, 3.0])
    g.outputs = [_node(g, M.add_p, [x, c2])]
    out, changed = passes.fold_constants(g)
    assert changed and [n.prim.name for n in out.nodes] == ["Add"]
    np.testing.assert_array_equal(out.consts[-1].const, [6, 6, 6])
    np.testing.assert_array_equal(_run(out, np.zeros(3, np.float32))[0], [6, 6, 6])


def test_verifier_catches_use_before_definition_and_bad_avals():
    g, x = _graph()
    orphan = Value(ShapedArray((3,), F32))
    g.outputs = [_node(g, M.add_p, [x, orphan])]
    with pytest.raises(GraphError, match="before it is defined"):
        verify(g)
    g, x = _graph()
    g.outputs = [_node(g, M.tanh_p, [x], shape=(4,))]
    with pytest.raises(GraphError, match="shape rule"):
        verify(g)


def test_printer_and_signature():
    g, x = _graph()
    g.outputs = [_node(g, M.mul_p, [_node(g, M.tanh_p, [x]), 2.0])]
    text = format_graph(g)
    assert "Tanh(" in text and "Float32[3]" in text and "return" in text
    g2, x2 = _graph()
    g2.outputs = [_node(g2, M.mul_p, [_node(g2, M.tanh_p, [x2]), 2.0])]
    assert signature(g) == signature(g2)      # value numbering does not matter
    g2.nodes[1].inputs = (g2.nodes[1].inputs[0], 3.0)
    assert signature(g) != signature(g2)


def test_memory_plan_reuses_matmul_and_ufunc_buffers():
    """A chain of plain matmuls and tanh runs in two buffers: each tanh overwrites its
    input, each matmul writes into the buffer that died before it, never its own input."""
    import re
    rng = np.random.default_rng(0)
    x = Tensor(rng.random((8, 8)).astype(np.float32))
    y = Tensor((rng.random((8, 8)) * 0.1).astype(np.float32))
    f = ms.jit(rigid_compute)
    np.testing.assert_array_equal(f(x, y).asnumpy(), rigid_compute(x, y).asnumpy())
    report = ms.jit_report(f)
    assert report.peak_bytes == 2 * 8 * 8 * 4
    source = report.entries[0].compiled.source
    matmuls = [line for line in source.splitlines() if "# MatMul" in line]
    assert len(matmuls) == 10 and sum("out=" in line for line in matmuls) >= 8
    for line in matmuls:
        m = re.match(r"\s*(\w+) = \w+\((\w+), (\w+)(?:, out=(\w+))?\)", line)
        assert m and m.group(4) not in (m.group(2), m.group(3)), line
