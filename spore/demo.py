"""Train a LeNet-style network on scikit-learn's 8x8 handwritten digits, end to end.

    python -m spore.demo            # full run: >= 95% test accuracy in well under a minute
    python -m spore.demo --quick    # a reduced run (CI)

The tour: ``GeneratorDataset`` -> ``Model.train`` in PyNative mode with a progress
bar and per-step times -> ``Model.eval`` on held-out digits -> ``save_checkpoint``
-> ``load_checkpoint`` into a fresh network -> identical predictions. The digits
ship inside scikit-learn (the optional ``demo`` extra); nothing is downloaded.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import spore as ms
from spore import nn
from spore.dataset import GeneratorDataset
from spore.train import Accuracy, Model, ProgressBar, TimeMonitor

TARGET_ACCURACY = 0.95


class LeNet(nn.Cell):
    """Two conv/pool stages and two dense layers, sized for 1x8x8 images."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(1, 16, 3, pad_mode="same"), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 32, 3, pad_mode="same"), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.flatten = nn.Flatten()
        self.classifier = nn.SequentialCell(nn.Dense(32 * 2 * 2, 64), nn.ReLU(),
                                            nn.Dense(64, num_classes))

    def construct(self, x):
        return self.classifier(self.flatten(self.features(x)))


class DigitsSource:
    """Random-access rows ``(image (1, 8, 8) float32 in [0, 1], label int32)``."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __getitem__(self, index):
        return self.images[index], self.labels[index]

    def __len__(self):
        return len(self.labels)


def load_digits_split(seed, test_fraction=0.2):
    """The 1797 digits as (train_images, train_labels, test_images, test_labels)."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("The demo reads scikit-learn's bundled digits: pip install 'spore[demo]' "
                 "(or scikit-learn).")
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


def make_dataset(images, labels, batch_size, shuffle):
    source = DigitsSource(images, labels)
    return GeneratorDataset(source, ["image", "label"], shuffle=shuffle).batch(batch_size)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m spore.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="2 epochs (a smoke test; the accuracy target is not checked)")
    parser.add_argument("--epochs", type=int, default=None, help="training epochs (default 8)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1,
                        help="peak learning rate (cosine decay to 0, Momentum 0.9)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None,
                        help="folder for the checkpoint (default: a new temporary folder)")
    return parser.parse_args(argv)


def run(args):
    """Train, evaluate, save, reload; returns a summary dict."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(args.seed)
    train_x, train_y, test_x, test_y = load_digits_split(args.seed)
    epochs = args.epochs or (2 if args.quick else 8)
    train_ds = make_dataset(train_x, train_y, args.batch_size, shuffle=True)
    test_ds = make_dataset(test_x, test_y, args.batch_size, shuffle=False)

    net = LeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps = train_ds.get_dataset_size()
    schedule = nn.cosine_decay_lr(0.0, args.lr, epochs * steps, steps, epochs)
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=schedule, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"acc": Accuracy()})
    print(f"Training LeNet on {len(train_y)} digits ({len(test_y)} held out), {epochs} epoch(s), "
          f"batch {args.batch_size}, PyNative mode")
    start = time.perf_counter()
    model.train(epochs, train_ds, callbacks=[ProgressBar(), TimeMonitor()])
    train_seconds = time.perf_counter() - start

    accuracy = float(model.eval(test_ds)["acc"])
    print(f"Test accuracy: {accuracy:.4f} ({train_seconds:.1f} s of training)")
    path, identical = save_and_reload(net, test_x, args.out)
    print(f"Checkpoint: {path}")
    print(f"Reloaded into a fresh LeNet: predictions {'identical' if identical else 'DIFFER'}")
    return {"accuracy": accuracy, "identical": identical, "checkpoint": path,
            "train_seconds": train_seconds, "epochs": epochs}


def save_and_reload(net, images, out_dir):
    """Save ``net``, load the file into a new LeNet, compare their logits on ``images``."""
    out_dir = out_dir or tempfile.mkdtemp(prefix="spore-demo-")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "lenet_digits.ckpt")
    ms.save_checkpoint(net, path)
    fresh = LeNet()
    not_loaded, _ = ms.load_param_into_net(fresh, ms.load_checkpoint(path))
    before = Model(net).predict(ms.Tensor(images)).asnumpy()
    after = Model(fresh).predict(ms.Tensor(images)).asnumpy()
    return path, not not_loaded and np.array_equal(before, after)


def main(argv=None):
    args = parse_args(argv)
    summary = run(args)
    ok = summary["identical"] and (args.quick or summary["accuracy"] >= TARGET_ACCURACY)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
