"""A plain MindSpore data-parallel training script: LeNet on scikit-learn's 8x8 digits.

It imports ``mindspore`` and nothing from Spore. On Spore (the ``dist`` extra):

    msrun --worker_num=2 --local_worker_num=2 --log_dir=logs --join=True \
        examples/lenet_digits_dp.py --epochs 3
    mpirun -n 2 spore run examples/lenet_digits_dp.py --epochs 3     # the same job
    spore run examples/lenet_digits_dp.py --epochs 3                 # one rank alone

Every rank reads its own shard of the training rows (``num_shards``/``shard_id``),
computes gradients on its batch of 16, and ``TrainOneStepCell`` all-reduces them
(``gradients_mean=True``), so each step trains on 32 rows in all, as one process with
batch 32 would. Rank 0 writes the checkpoint.
"""
import argparse
import os
import tempfile

import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.communication import init, get_rank, get_group_size
from mindspore.dataset import GeneratorDataset
from mindspore.train import Accuracy, LossMonitor, Model, ModelCheckpoint, CheckpointConfig
from sklearn.datasets import load_digits


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, pad_mode="same")
        self.conv2 = nn.Conv2d(16, 32, 3, pad_mode="same")
        self.pool = nn.MaxPool2d(2, 2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(128, 64)
        self.fc2 = nn.Dense(64, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


def datasets(global_batch, rank, size):
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(labels))
    test, train = order[:360], order[360:]
    train_rows = [(images[i], labels[i]) for i in train]
    test_rows = [(images[i], labels[i]) for i in test]
    train_ds = GeneratorDataset(train_rows, ["image", "label"], shuffle=True,
                                num_shards=size, shard_id=rank).batch(global_batch // size)
    test_ds = GeneratorDataset(test_rows, ["image", "label"], shuffle=False).batch(32)
    return train_ds, test_ds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--ckpt_dir", default=os.path.join(tempfile.gettempdir(), "lenet_dp"))
    args = parser.parse_args()

    ms.set_context(mode=ms.PYNATIVE_MODE)
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    ms.set_seed(0)
    train_ds, test_ds = datasets(32, rank, size)
    net = LeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"acc": Accuracy()})
    steps = train_ds.get_dataset_size()
    ckpt = ModelCheckpoint("lenet", args.ckpt_dir,
                           CheckpointConfig(save_checkpoint_steps=steps, keep_checkpoint_max=1))
    model.train(args.epochs, train_ds, callbacks=[LossMonitor(steps), ckpt])
    acc = model.eval(test_ds)["acc"]
    print(f"rank {rank}/{size}: {steps} steps per epoch, test accuracy {acc:.3f}")
    if rank == 0:
        print("checkpoint:", ckpt.latest_ckpt_file_name)


if __name__ == "__main__":
    main()
