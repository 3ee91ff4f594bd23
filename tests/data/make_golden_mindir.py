"""Write the golden MindIR files with the reference MindSpore 2.10 (see README.md).

usage: cd /tmp && /work/msref/bin/python make_golden_mindir.py OUTDIR
Each network has closed-form weights (no random initialisation), is exported in
inference mode with ``mindspore.export``, and its output on a closed-form input is saved
next to it (``<name>_out.npz``, computed by MindSpore) for Spore's loader to match.
"""
import sys

import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


def closed_form(net):
    for k, p in enumerate(net.get_parameters()):
        n = int(np.prod(p.shape))
        values = np.cos(np.arange(n, dtype=np.float64) * 0.37 + k) * 0.5
        if "variance" in p.name:
            values = np.abs(values) + 0.5
        p.set_data(Tensor(values.reshape(p.shape).astype(np.float32)))
    return net


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="pad", padding=1, has_bias=True)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flat = nn.Flatten()
        self.fc1 = nn.Dense(576, 32)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.bn(self.conv1(x))))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.relu(self.fc1(self.flat(x)))
        return ops.softmax(self.fc2(x), -1)


class Ops(nn.Cell):
    """Many operators and constant conventions: scalars, axis tuples, dtype ids, tuples."""

    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm((8,))
        self.conv = nn.Conv2d(2, 2, 3, pad_mode="pad", padding=1, has_bias=True)
        self.avg = nn.AvgPool2d(2, 2)
        self.w = ms.Parameter(Tensor(np.ones((8, 8), np.float32)), name="w")
        self.emb = nn.Embedding(10, 8)

    def construct(self, x, idx):
        y = x * 2.0 + 1.0 - x / 3.0
        y = ops.rsqrt(ops.abs(y) + 1)
        y = self.ln(y)
        y = ops.gelu(y) + ops.sigmoid(y) + ops.tanh(y) + ops.exp(y) + \
            ops.sqrt(ops.abs(y)) + ops.log(ops.abs(y) + 1)
        y = ops.matmul(y, self.w)
        z = self.avg(self.conv(y.reshape(2, 2, 2, 8)))
        z = z.transpose(0, 2, 3, 1).reshape(2, -1)
        c = ops.concat((z, z), axis=1)
        m = c.mean(axis=1, keep_dims=True) + c.sum(axis=-1, keepdims=True) + \
            c.max(axis=1, keepdims=True)
        e = self.emb(idx).astype(ms.float16).astype(ms.float32)
        bm = ops.bmm(e, e.transpose(0, 2, 1))
        s = ops.squeeze(ops.expand_dims(m, 0), 0)
        r = ops.maximum(s, 0.5) + ops.minimum(s, 0.2) + ops.pow(s, 2) + ops.square(s) + \
            ops.neg(s)
        return r, bm, ops.log_softmax(c, -1), ops.relu6(c), c[:, 1:3]


class Cnn(nn.Cell):
    """Same-padded, grouped, depthwise and transposed convolutions, activations MindSpore
    exports as their own operators, clamps, selects, adaptive pooling, argmax, resizing."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.mp = nn.MaxPool2d(3, 2, pad_mode="same")
        self.c2 = nn.Conv2d(8, 8, 3, group=2, pad_mode="same")
        self.dw = nn.Conv2d(8, 8, 3, group=8, pad_mode="pad", padding=1)
        self.up = nn.Conv2dTranspose(8, 4, 2, stride=2)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))
        self.drop = nn.Dropout(p=0.3)
        self.fc = nn.Dense(4, 5)
        self.act = nn.LeakyReLU(0.1)
        self.silu = nn.SiLU()
        self.hs = nn.HSwish()
        self.sm = nn.Softmax()

    def construct(self, x):
        y = self.mp(ops.relu(self.bn(self.c1(x))))
        y = y + self.silu(self.c2(y))
        y = self.act(self.dw(y)) + self.hs(y)
        y = ops.clip(self.up(y), -1.0, 1.0)
        y = ops.where(y > 0, y, y * 0.5)
        y = self.drop(ops.flatten(self.gap(y)))
        out = self.sm(self.fc(y))
        return out, ops.argmax(out, 1), ops.ResizeNearestNeighbor((4, 4))(x)


def main(out):
    x = Tensor((np.sin(np.arange(2 * 3 * 16 * 16) * 0.3)).reshape(2, 3, 16, 16)
               .astype(np.float32))
    net = closed_form(Cnn())
    net.set_train(False)
    ms.export(net, x, file_name=f"{out}/golden_cnn", file_format="MINDIR")
    np.savez(f"{out}/golden_cnn_out.npz", *[o.asnumpy() for o in net(x)])

    x = Tensor((np.sin(np.arange(2 * 32 * 32)) * 2).reshape(2, 1, 32, 32).astype(np.float32))
    net = closed_form(LeNet())
    net.set_train(False)
    ms.export(net, x, file_name=f"{out}/golden_lenet", file_format="MINDIR")
    np.savez(f"{out}/golden_lenet_out.npz", net(x).asnumpy())
    x = Tensor((np.cos(np.arange(64)) * 1.5).reshape(2, 4, 8).astype(np.float32))
    idx = Tensor(np.array([[1, 2], [3, 9]], np.int32))
    net = closed_form(Ops())
    net.set_train(False)
    ms.export(net, x, idx, file_name=f"{out}/golden_ops", file_format="MINDIR")
    np.savez(f"{out}/golden_ops_out.npz", *[o.asnumpy() for o in net(x, idx)])


if __name__ == "__main__":
    main(sys.argv[1])
