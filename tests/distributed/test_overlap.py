"""The gradient all-reduce overlapped with the backward pass: the tape's gradient-ready
hooks (one process) and the overlapped buckets against the blocking path (2 ranks)."""
import numpy as np

import spore as ms
from spore import nn, ops
from spore._autodiff.backward import ready_listener

from . import launch


def test_overlapped_buckets_give_the_blocking_paths_bits_on_two_ranks():
    r = launch.run("overlap.py", timeout=240)
    assert r.stdout.count("same bits") == 2, r.stdout + r.stderr


class _Chain(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = ms.Parameter(ms.Tensor(np.full(3, 2.0, np.float32)), name="a")
        self.b = ms.Parameter(ms.Tensor(np.full(3, 3.0, np.float32)), name="b")
        self.unused = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="unused")

    def construct(self, x):
        return ((x * self.a).sin() * self.b).sum()


def test_each_weight_is_reported_once_when_final_with_its_gradient():
    net = _Chain()
    weights = (net.a, net.b, net.unused)
    seen = []
    x = ms.Tensor(np.array([0.1, 0.2, 0.3], np.float32))
    with ready_listener(weights, lambda k, g: seen.append((k, g.asnumpy().copy()))):
        _, grads = ops.value_and_grad(net, None, weights)(x)
    # the unused weight first (final from the start), then b (read last), then a
    assert [k for k, _ in seen] == [2, 1, 0]
    for k, g in seen:
        np.testing.assert_array_equal(g, grads[k].asnumpy())


def test_a_listener_for_other_weights_hears_nothing():
    net = _Chain()
    seen = []
    x = ms.Tensor(np.ones(3, np.float32))
    with ready_listener((net.b, net.a), lambda k, g: seen.append(k)):
        ops.value_and_grad(net, None, (net.a, net.b))(x)
    assert seen == []
