"""Random draws inside tensor conditionals and loops (NOTE: [Random draws in control
flow] in spore/_jit/capture.py): compiled calls draw PyNative's numbers, call after call,
and leave the random state where PyNative leaves it."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops
from spore._jit import CompileError


def _v(*vals):
    return Tensor(np.array(vals, np.float32))


def branch_draws(x):
    a = ops.rand_like(x)                       # before the branch
    if x.sum() > 0:
        y = x + ops.rand_like(x) + ops.randn_like(x)
    else:
        y = x - ops.rand_like(x)
    return y + a + ops.rand_like(x)            # after it


def loop_draws(x):
    i = Tensor(0)
    while x.sum() < 10:                        # the trip count depends on the draws
        x = x + ops.rand_like(x)
        i = i + 1
    return x, i


def nested(x):
    for i in range(Tensor(3)):
        if (x * i).sum() > 2:
            x = x + ops.rand_like(x)
        else:
            x = x * 1.5
    return x + ops.randn_like(x)


def seeded_op_in_branch(x):
    if x.sum() > 0:
        y = ops.uniform(x.shape, Tensor(0.0), Tensor(1.0), seed=5)
    else:
        y = ops.zeros_like(x)
    return y + x


def _draws(fn, args, calls=3):
    ms.set_seed(11)
    out = []
    for _ in range(calls):
        r = fn(*args)
        out.append([t.asnumpy() for t in (r if isinstance(r, tuple) else (r,))])
    out.append([ops.rand_like(_v(0, 0, 0)).asnumpy()])     # where the state was left
    return out


@pytest.mark.parametrize("fn,x", [(branch_draws, (1, 2)), (branch_draws, (-1, -2)),
                                  (loop_draws, (0.5, 1)), (nested, (0.5, 0.5)),
                                  (nested, (-3, -3)), (seeded_op_in_branch, (1, 1))])
def test_compiled_draws_equal_pynative(fn, x):
    want = _draws(fn, (_v(*x),))
    f = ms.jit(fn, fullgraph=True)
    got = _draws(f, (_v(*x),))
    for w, g in zip(want, got):
        for a, b in zip(w, g):
            np.testing.assert_array_equal(b, a)
    assert ms.jit_report(f).compiled == 1


def test_dropout_in_a_tensor_branch_in_graph_mode():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            if x.mean() > 0:
                x = self.drop(x)
            return x * 2
    x = Tensor(np.ones((4, 8), np.float32))
    net = Net()
    net.set_train()
    want = _draws(net, (x,))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = _draws(net, (x,))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g[0], w[0])
    assert not np.array_equal(want[0][0], want[1][0])       # new numbers every call


def test_a_draw_in_a_while_test_is_refused_with_a_hint():
    def f(x):
        while ops.rand_like(x).sum() > 0.5:
            x = x * 0.5
        return x
    with pytest.raises(CompileError, match="random numbers drawn in the test of the while "
                                           "loop") as e:
        ms.jit(f, fullgraph=True)(_v(1, 2))
    assert "Draw them in the body" in str(e.value)


def test_no_draws_in_control_flow_keeps_the_fixed_count():
    def f(x):
        y = x + ops.rand_like(x)
        if y.sum() > 0:
            y = y * 2
        return y
    f_jit = ms.jit(f, fullgraph=True)
    want = _draws(f, (_v(1, 2),))
    got = _draws(f_jit, (_v(1, 2),))
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g[0], w[0])
    names = [n.prim.name for n in ms.jit_report(f_jit).graphs[0].nodes]
    assert "RandomAdvance" not in names
