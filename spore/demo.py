"""Train a LeNet-style network on scikit-learn's 8x8 handwritten digits, end to end.

    python -m spore.demo            # full run: >= 95% test accuracy in well under a minute
    python -m spore.demo --quick    # a reduced run (CI)

The tour: ``GeneratorDataset`` -> ``Model.train`` in PyNative mode with a progress
bar and per-step times -> ``Model.eval`` on held-out digits -> ``save_checkpoint``
-> ``load_checkpoint`` into a fresh network -> identical predictions; then the same
network trained again with ``set_context(mode=GRAPH_MODE)`` and nothing else changed:
both modes' step times and accuracies, and whether their first-epoch losses agree. The
digits ship inside scikit-learn (the optional ``demo`` extra); nothing is downloaded.
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
from spore.train import Accuracy, Callback, Model, ProgressBar, TimeMonitor

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


class StepRecorder(Callback):
    """Each step's loss and wall time (the demo compares both modes with them)."""

    def __init__(self):
        self.losses, self.times, self.epochs = [], [], []
        self._start = None
        self._epoch = 0

    def on_train_epoch_begin(self, run_context):
        self._epoch += 1

    def on_train_step_begin(self, run_context):
        self._start = time.perf_counter()

    def on_train_step_end(self, run_context):
        self.times.append(time.perf_counter() - self._start)
        out = run_context.original_args().net_outputs
        out = out[0] if isinstance(out, (tuple, list)) else out
        self.losses.append(float(out.asnumpy()))
        self.epochs.append(self._epoch)

    def first_epoch_losses(self):
        return [loss for loss, e in zip(self.losses, self.epochs) if e == 1]

    def median_step_ms(self):
        return float(np.median(self.times[len(self.times) // 4:])) * 1e3


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


def train(args, mode, data, show_progress):
    """Train a fresh LeNet (same seed, so the same initial weights) in ``mode``."""
    ms.set_context(mode=mode)
    ms.set_seed(args.seed)
    train_x, train_y, test_x, test_y = data
    epochs = args.epochs or (2 if args.quick else 8)
    train_ds = make_dataset(train_x, train_y, args.batch_size, shuffle=True)
    test_ds = make_dataset(test_x, test_y, args.batch_size, shuffle=False)
    net = LeNet()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    steps = train_ds.get_dataset_size()
    schedule = nn.cosine_decay_lr(0.0, args.lr, epochs * steps, steps, epochs)
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=schedule, momentum=0.9)
    model = Model(net, loss, optimizer, metrics={"acc": Accuracy()})
    recorder = StepRecorder()
    callbacks = [ProgressBar(), TimeMonitor(), recorder] if show_progress else [recorder]
    start = time.perf_counter()
    model.train(epochs, train_ds, callbacks=callbacks)
    seconds = time.perf_counter() - start
    accuracy = float(model.eval(test_ds)["acc"])
    return net, recorder, accuracy, seconds, epochs


def run(args):
    """Train, evaluate, save, reload; train again in Graph mode; returns a summary dict."""
    ms.set_seed(args.seed)
    data = load_digits_split(args.seed)
    train_x, train_y, test_x, test_y = data
    epochs = args.epochs or (2 if args.quick else 8)
    print(f"Training LeNet on {len(train_y)} digits ({len(test_y)} held out), {epochs} epoch(s), "
          f"batch {args.batch_size}, PyNative mode")
    net, eager, accuracy, train_seconds, epochs = train(args, ms.PYNATIVE_MODE, data, True)
    print(f"Test accuracy: {accuracy:.4f} ({train_seconds:.1f} s of training)")
    path, identical = save_and_reload(net, test_x, args.out)
    print(f"Checkpoint: {path}")
    print(f"Reloaded into a fresh LeNet: predictions {'identical' if identical else 'DIFFER'}")

    print("\nThe same network, set_context(mode=GRAPH_MODE) and nothing else changed:")
    _, graph, graph_accuracy, graph_seconds, _ = train(args, ms.GRAPH_MODE, data, False)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    a, b = np.array(eager.first_epoch_losses()), np.array(graph.first_epoch_losses())
    agree = a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-6))
    diff = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
    print(f"  {'mode':<9} {'step (median)':>14} {'training':>9} {'test accuracy':>14}")
    print(f"  {'PyNative':<9} {eager.median_step_ms():>11.2f} ms {train_seconds:>7.1f} s "
          f"{accuracy:>14.4f}")
    print(f"  {'Graph':<9} {graph.median_step_ms():>11.2f} ms {graph_seconds:>7.1f} s "
          f"{graph_accuracy:>14.4f}")
    print(f"First-epoch losses ({len(a)} steps) {'agree' if agree else 'DIFFER'} between the "
          f"modes (largest difference {diff:.2e})")
    return {"accuracy": accuracy, "identical": identical, "checkpoint": path,
            "train_seconds": train_seconds, "epochs": epochs,
            "graph_accuracy": graph_accuracy, "losses_agree": agree,
            "eager_step_ms": eager.median_step_ms(), "graph_step_ms": graph.median_step_ms()}


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
    ok = summary["identical"] and summary["losses_agree"] and (
        args.quick or min(summary["accuracy"], summary["graph_accuracy"]) >= TARGET_ACCURACY)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
