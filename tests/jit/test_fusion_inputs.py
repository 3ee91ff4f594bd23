"""How O1's Numba kernels read their inputs: a broadcast scalar in place, a
non-contiguous array copied once before the call (never through a failed call)."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor, _native
from spore._jit import kernelgen
from spore._core import threads
from tests.jit.test_fusion_numba import close, groups

pytestmark = pytest.mark.skipif(not _native.enabled(), reason="needs Numba (the fast extra)")


def _counting(run):
    """Wrap the kernel a fused group's runner calls; returns the list of calls."""
    calls = []
    kernel = run.__globals__["_kernel"]

    def counted(*args):
        calls.append(args)
        return kernel(*args)
    run.__globals__["_kernel"] = counted
    return calls


def test_a_broadcast_scalar_is_read_in_place():
    # the gradient of a mean: BroadcastTo of a (1, 1) value feeding Mul, Mul, ReluGrad
    def f(x, s):
        g = ops.broadcast_to(s.reshape(1, 1), x.shape)
        return ops.relu(x) * g * 2.0 + x
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((32, 64)).astype(np.float32))
    s = Tensor(np.float32(0.25))
    f1 = ms.jit(f, jit_level="O1")
    close(f1(x, s).asnumpy(), ms.jit(f, jit_level="O0")(x, s).asnumpy())
    (graph,) = ms.jit_report(f1).graphs
    assert "BroadcastTo" not in [n.prim.name for n in graph.nodes]
    (group,) = groups(f1)
    assert sorted(v.aval.size for v in group.inputs) == [1, 32 * 64]
    source = kernelgen.kernel_source(group)
    assert any(f"a{i} = x{i}[0]" in source for i in range(2))


def test_the_mean_gradient_of_a_training_step_reaches_the_kernel_as_a_scalar():
    net = nn.Dense(64, 64)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: nn.MSELoss()(ops.relu(net(a)), b), None,
                                opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        return ops.depend(loss, opt(grads))
    f = ms.jit(step, jit_level="O1")
    f(Tensor(np.ones((16, 64), np.float32)), Tensor(np.zeros((16, 64), np.float32)))
    names = [n.prim.name for g in ms.jit_report(f).graphs for n in g.nodes]
    assert "BroadcastTo" not in names
    for group in groups(f):
        assert all(v.aval.size in (1, 16 * 64) for v in group.inputs)


@pytest.mark.parametrize("make", [
    lambda base: np.broadcast_to(base[:1, :1], (32, 64)),        # stride 0
    lambda base: base.T,                                          # transposed
], ids=["stride0", "transposed"])
def test_a_non_contiguous_input_is_copied_before_one_call(make):
    f = ms.jit(lambda x: ops.exp(x) * 0.5 + x, jit_level="O1")
    f(Tensor(np.zeros((32, 64), np.float32)))
    run = kernelgen.compile_group(groups(f)[0], threads.for_each)
    calls = _counting(run)
    x = make(np.linspace(-1, 1, 64 * 32, dtype=np.float32).reshape(64, 32))
    (got,) = run(x)
    assert len(calls) == 1                   # no failed call retried with copies
    close(got, np.exp(x) * np.float32(0.5) + x)
