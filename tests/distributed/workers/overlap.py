"""The gradient all-reduce overlapped with the backward pass (NOTE: [Overlapped buckets])
against the blocking path on 2 ranks: the same parameters, bit for bit, after a few
TrainOneStepCell steps with small buckets (so several start during the backward pass)."""
import numpy as np

import spore as ms
from spore import nn
from spore.communication import init, get_rank
from spore.nn.wrap import grad_reducer

init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                             comm_fusion={"allreduce": {"mode": "size", "config": 0.002}})


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="same")
        self.fc1 = nn.Dense(64, 32)
        self.fc2 = nn.Dense(32, 10)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.flatten(self.relu(self.conv(x)))
        return self.fc2(self.relu(self.fc1(x[:, :64])))


def train(overlap):
    grad_reducer.OVERLAP = overlap
    ms.set_seed(7 + rank)          # ranks differ: the broadcast from rank 0 makes them equal
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean")), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    rng = np.random.default_rng(rank)
    early = []
    for _ in range(4):
        x = ms.Tensor(rng.standard_normal((8, 1, 4, 4)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 10, 8).astype(np.int32))
        step(x, y)
        s = step.grad_reducer.last_step
        early.append(None if s is None else s.early)
    return {p.name: p.asnumpy() for p in net.get_parameters()}, early


blocking, none = train(False)
overlapped, early = train(True)
assert none == [None] * 4, none
assert all(e and e >= 2 for e in early), early        # started during backward
for name in blocking:
    assert np.array_equal(blocking[name], overlapped[name]), name

# one bucket (the default 64 MB): nothing to overlap, so no gradient-ready hooks at all
# after the first step (the reducer keeps the layout's answer), and the same bits
ms.set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 64}})
listened = []
from spore._autodiff import backward as _bw        # noqa: E402
spy = _bw.ready_listener


class Spy(spy):
    def __init__(self, *a):
        listened.append(1)
        super().__init__(*a)


_bw.ready_listener = Spy
one_blocking, none = train(False)
one_overlap, none2 = train(True)
_bw.ready_listener = spy
assert none == none2 == [None] * 4 and listened == [], (none2, listened)
for name in one_blocking:
    assert np.array_equal(one_blocking[name], one_overlap[name]), name
    assert np.array_equal(one_blocking[name], blocking[name]), name
print(f"rank {rank}: same bits, buckets started early per step {early}", flush=True)
