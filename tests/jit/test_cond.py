"""The internal tensor conditional: a Python if in PyNative, two sub-graphs when compiled,
with only the taken branch's effects."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from spore.ops._control import cond


def _scalar(v, dtype=np.float32):
    return Tensor(np.array(v, dtype))


def step(flag, x, p):
    def bump():
        ops.assign(p, p + x)
        return p * 2

    def keep():
        return p * 3
    return cond(flag, bump, keep)


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "jit"])
def test_only_the_taken_branch_runs_and_writes(compiled):
    p = ms.Parameter(_scalar([1.0, 1.0]), name="p")
    f = ms.jit(step) if compiled else step
    x = _scalar([1.0, 2.0])
    out = f(_scalar(True, np.bool_), x, p)
    np.testing.assert_array_equal(p.asnumpy(), [2, 3])
    np.testing.assert_array_equal(out.asnumpy(), [4, 6])
    out = f(_scalar(False, np.bool_), x, p)
    np.testing.assert_array_equal(p.asnumpy(), [2, 3])            # not written
    np.testing.assert_array_equal(out.asnumpy(), [6, 9])
    out = f(_scalar(True, np.bool_), x, p)
    np.testing.assert_array_equal(p.asnumpy(), [3, 5])
    if compiled:
        report = ms.jit_report(f)
        assert report.compiled == 1 and not report.fallbacks
        names = [n.prim.name for n in report.graphs[0].nodes]
        assert "Cond" in names


def test_branches_with_different_shapes_fall_back_naming_the_conditional():
    f = ms.jit(lambda flag, x: cond(flag, lambda: x, lambda: x.sum()))
    with pytest.warns(RuntimeWarning, match="branches of a tensor conditional"):
        out = f(_scalar(False, np.bool_), _scalar([1.0, 2.0]))
    assert float(out.asnumpy()) == 3.0


def test_loss_scale_step_skips_the_update_on_overflow_in_graph_mode():
    x = Tensor(np.ones((2, 3), np.float32))
    y = Tensor(np.zeros((2, 1), np.float32))
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(0)
        net = nn.Dense(3, 1)
        manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 140, scale_factor=2,
                                                scale_window=2)
        step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, nn.MSELoss()),
                                                nn.SGD(net.trainable_params(), 0.1),
                                                scale_sense=manager)
        rows = []
        for _ in range(3):
            w = net.weight.asnumpy().copy()
            loss, overflow, scale = step(x, y)
            rows.append((bool(overflow.asnumpy()), float(scale.asnumpy()),
                         bool(np.array_equal(w, net.weight.asnumpy()))))
        results.append(rows)
        if mode == ms.GRAPH_MODE:
            assert not ms.jit_report(step).fallbacks
    assert results[0] == results[1]
    assert results[0][0][0] and results[0][0][2]       # overflow: weights unchanged


def _loop_sum(x):
    i = ms.Tensor(0)
    while i < 3:
        x = ops.sin(x) * 1.5
        i = i + 1
    return x.sum()


def _branch_sum(x):
    if x.sum() > 0:
        y = ops.sin(x) * x
    else:
        y = ops.cos(x)
    return y.sum()


def test_second_order_through_a_tensor_loop_falls_back_never_zeros():
    x = ms.Tensor(np.array([0.3, 0.5]))
    want = ops.grad(ops.grad(_loop_sum))(x)
    with pytest.warns(RuntimeWarning, match="a gradient of a gradient through a tensor while"):
        got = ms.jit(ops.grad(ops.grad(_loop_sum)))(x)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-12)
    assert np.abs(want.asnumpy()).min() > 1          # not zeros
    np.testing.assert_allclose(ops.grad(ms.jit(ops.grad(_loop_sum)))(x).asnumpy(),
                               want.asnumpy(), rtol=1e-12)


def test_second_order_through_a_tensor_branch_compiles():
    for v in ([0.3, 0.5], [-0.3, -0.5]):
        x = ms.Tensor(np.array(v))
        want = ops.grad(ops.grad(_branch_sum))(x)
        f = ms.jit(ops.grad(ops.grad(_branch_sum)), fullgraph=True)
        np.testing.assert_allclose(f(x).asnumpy(), want.asnumpy(), rtol=1e-12)
