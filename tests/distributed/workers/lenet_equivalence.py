"""LeNet on the digits data for 20 steps: run on 2 ranks (batch 16 each, the dataset
sharded, gradients_mean=True) or on 1 rank (batch 32); saves the final parameters to
<out>/params_<ranks>_<rank>.npz. The training loop is one of: 'cell' (TrainOneStepCell),
'model' (Model.train), 'scale' (TrainOneStepWithLossScaleCell, fixed scale), 'graph'
(TrainOneStepCell in GRAPH_MODE: the step compiles with its collectives)."""
import sys

import numpy as np
from sklearn.datasets import load_digits

import spore as ms
from spore import nn
from spore.communication import init, get_rank, get_group_size

out_dir, loop = sys.argv[1], sys.argv[2]
if loop == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
init()
rank, size = get_rank(), get_group_size()
if size > 1:
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
ms.set_seed(rank)              # ranks start different: the broadcast makes them equal


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 3, pad_mode="same")
        self.conv2 = nn.Conv2d(6, 16, 3, pad_mode="same")
        self.pool = nn.MaxPool2d(2, 2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(64, 32)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


digits = load_digits()
images = (digits.images[:640] / 16.0).astype(np.float32)[:, None]
labels = digits.target[:640].astype(np.int32)
data = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False,
                                     num_shards=size, shard_id=rank).batch(32 // size)
net = LeNet()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
if loop == "model":
    ms.Model(net, loss, opt).train(1, data)
else:
    with_loss = nn.WithLossCell(net, loss)
    if loop == "scale":
        step = nn.TrainOneStepWithLossScaleCell(with_loss, opt,
                                                ms.Tensor(np.float32(1024.0)))
    else:
        step = nn.TrainOneStepCell(with_loss, opt)
    assert step.reducer_flag == (size > 1)
    for x, y in data.create_tuple_iterator():
        step(x, y)
np.savez(f"{out_dir}/params_{size}_{rank}.npz",
         **{p.name: p.asnumpy() for p in net.get_parameters()})
if loop == "graph":
    report = ms.jit_report(step)
    assert not report.fallbacks, report.fallbacks
    kernels = [n.prim.name for g in report.graphs for n in g.nodes]
    assert ("FusedAllReduce" in kernels) == (size > 1), kernels
print(f"rank {rank} done", flush=True)
