"""A plain MindSpore training script: LeNet on scikit-learn's 8x8 digits.

It imports ``mindspore`` and nothing from Spore, so it runs unchanged on both:

    spore run examples/lenet_digits.py --epochs 3     # Spore (the import is aliased)
    python examples/lenet_digits.py --epochs 3        # MindSpore, where it is installed

It trains with ``Model.train`` and MindSpore's callbacks, evaluates, saves a
checkpoint in MindSpore's ``.ckpt`` format and loads it back.
"""
import argparse
import os
import tempfile

import numpy as np
import mindspore as ms
from mindspore import nn
from mindspore.dataset import GeneratorDataset
from mindspore.train import Accuracy, LossMonitor, Model, TimeMonitor
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


def datasets(batch_size, limit):
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(labels))
    test, train = order[:360], order[360:][:limit]
    train_rows = [(images[i], labels[i]) for i in train]
    test_rows = [(images[i], labels[i]) for i in test]
    train_ds = GeneratorDataset(train_rows, ["image", "label"], shuffle=True).batch(batch_size)
    test_ds = GeneratorDataset(test_rows, ["image", "label"], shuffle=False).batch(batch_size)
    return train_ds, test_ds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="use only N training digits")
    args = parser.parse_args()

    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    ms.set_seed(0)
    train_ds, test_ds = datasets(32, args.limit)
    net = LeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"acc": Accuracy()})
    steps = train_ds.get_dataset_size()
    model.train(args.epochs, train_ds, callbacks=[LossMonitor(steps), TimeMonitor()])
    print("Test accuracy:", model.eval(test_ds)["acc"])

    path = os.path.join(tempfile.mkdtemp(), "lenet.ckpt")
    ms.save_checkpoint(net, path)
    fresh = LeNet()
    ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    x = ms.Tensor(next(test_ds.create_tuple_iterator())[0].asnumpy())
    same = np.array_equal(net(x).asnumpy(), fresh(x).asnumpy())
    print("Checkpoint", path, "reloaded, same predictions:", same)


if __name__ == "__main__":
    main()
