"""Spore on the standard workloads, written with the MindSpore API.

usage: python bench_spore.py WORKLOAD MODE      (one JSON line on stdout)
  WORKLOAD  W0 W1a W1b W2a W2b W3 W4 W5, W1a-grad / W1b-grad (gradient of rigid_compute),
            import (``import spore`` in fresh interpreters), while (a tensor loop of 1,000
            iterations)
  MODE      pynative | jit | jit_O1
A mode whose features do not exist yet reports an "error" line saying so.
"""
import os
import statistics
import subprocess
import sys
import time
import warnings

import harness as H
from harness import measure, emit

import numpy as np

import spore as ms
from spore import nn, ops, Tensor, Parameter

FW = "spore"
# pynative_cold: PyNative with an empty Numba cache (run.py gives it a fresh
# NUMBA_CACHE_DIR), for the first-step time of a new machine; pynative_warm: the
# same with that cache filled by another process beforehand (a machine that ran
# Spore before)
MODES = ("pynative", "pynative_cold", "pynative_warm", "jit", "jit_O1")


def compile_fn(fn, mode):
    if mode in ("pynative", "pynative_cold", "pynative_warm"):
        return fn
    if not hasattr(ms, "jit"):
        raise NotImplementedError("not yet available: Graph mode (ms.jit) is not implemented")
    return ms.jit(fn, jit_level="O1") if mode == "jit_O1" else ms.jit(fn)


def sync(out):
    for t in (out if isinstance(out, (tuple, list)) else (out,)):
        t.asnumpy()


def load(param, arr):
    param.set_data(Tensor(arr))


def w0(workload, mode):
    if mode != "pynative":
        raise NotImplementedError("W0 is an eager-only workload")
    z0, y = (Tensor(a) for a in H.w0_data())

    def step():
        z = z0
        for _ in range(H.W0_N):
            z = z + y
        return z
    out, stats = measure(step, sync)
    return stats, out.asnumpy()[0]


def w1(workload, mode):
    x, y = (Tensor(a) for a in H.w1_data(workload))

    def rigid(x, y):
        z = x
        for _ in range(H.W1_ITERS):
            z = ops.tanh(ops.matmul(z, y))
        return z
    f = compile_fn(rigid, mode)
    out, stats = measure(lambda: f(x, y), sync)
    return stats, out.asnumpy().sum()


def w2(workload, mode):
    x = Tensor(H.w2_data(workload))

    def chain(x):
        for _ in range(H.W2_ITERS):
            x = ops.tanh(x) * 0.9 + ops.sigmoid(x) * 0.1
        return x
    f = compile_fn(chain, mode)
    out, stats = measure(lambda: f(x), sync)
    return stats, out.asnumpy().sum()


def w1_grad(workload, mode):
    """Gradient of the seed's rigid_compute w.r.t. both inputs (sum of the output)."""
    x, y = (Tensor(a) for a in H.w1_data(workload.replace("-grad", "")))

    def rigid_sum(x, y):
        z = x
        for _ in range(H.W1_ITERS):
            z = ops.tanh(ops.matmul(z, y))
        return z.sum()
    g = compile_fn(ms.grad(rigid_sum, grad_position=(0, 1)), mode)
    out, stats = measure(lambda: g(x, y), sync)
    return stats, out[0].asnumpy().sum() + out[1].asnumpy().sum()


def while_loop(workload, mode):
    """The control-flow issue's loop: a tensor ``while`` of 1,000 iterations of small ops
    (one compiled loop; PyNative runs it op by op)."""
    x, n = Tensor(np.linspace(0, 1, 4).astype(np.float32)), Tensor(1000)

    def loop(x, n):
        i = Tensor(0)
        while i < n:
            x = x * 0.999 + 0.001
            i = i + 1
        return x
    f = compile_fn(loop, mode)
    out, stats = measure(lambda: f(x, n), sync)
    return stats, out.asnumpy().sum()


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(1024, 1024)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.relu = nn.ReLU()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(400, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class TinyViT(nn.Cell):
    def __init__(self, p):
        super().__init__()
        self.patch = nn.Conv2d(3, 256, 16, stride=16, pad_mode="valid", has_bias=True)
        self.cls = Parameter(Tensor(p["cls"]), name="cls")
        self.pos = Parameter(Tensor(p["pos"]), name="pos")
        self.qkv = nn.Dense(256, 768)
        self.proj = nn.Dense(256, 256)
        self.ln = nn.LayerNorm((256,), epsilon=1e-5)
        self.head = nn.Dense(256, 100)
        self.scale = 32 ** -0.5

    def construct(self, x):
        b = x.shape[0]
        x = self.patch(x).flatten(2).transpose(0, 2, 1)            # (B,196,256)
        x = ops.concat((self.cls.expand(b, -1, -1), x), 1) + self.pos
        qkv = self.qkv(x).reshape(b, 197, 3, 8, 32).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                            # (B,8,197,32)
        att = ops.softmax(ops.matmul(q, k.transpose(-2, -1)) * self.scale, -1)
        o = ops.matmul(att, v).transpose(0, 2, 1, 3).reshape(b, 197, 256)
        h = self.ln(x + self.proj(o))
        return self.head(h[:, 0])


def train(net, loss_fn, opt, x, y, mode):
    def forward(x, y):
        return loss_fn(net(x), y)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)

    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        return ops.depend(loss, opt(grads))
    f = compile_fn(train_step, mode)
    net.set_train()
    out, stats = measure(lambda: f(x, y), sync)
    return stats, out.asnumpy()


def w3(workload, mode):
    x, y, p = H.w3_data()
    net = MLP()
    load(net.fc.weight, p["w"])
    load(net.fc.bias, p["b"])
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    return train(net, nn.MSELoss(), opt, Tensor(x), Tensor(y), mode)


def lenet5(p):
    """LeNet5 with the shared W4 initial weights ``p``."""
    net = LeNet5()
    for name in ("conv1", "conv2", "fc1", "fc2", "fc3"):
        cell = getattr(net, name)
        load(cell.weight, p[name + ".w"])
        load(cell.bias, p[name + ".b"])
    return net


def w4(workload, mode):
    x, labels, p = H.w4_data()
    net = lenet5(p)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return train(net, loss_fn, opt, Tensor(x), Tensor(labels), mode)


def w5(workload, mode):
    x, labels, p = H.w5_data()
    net = TinyViT(p)
    for name in ("patch", "qkv", "proj", "head"):
        cell = getattr(net, name)
        load(cell.weight, p[name + ".w"])
        load(cell.bias, p[name + ".b"])
    load(net.ln.gamma, p["ln.g"])
    load(net.ln.beta, p["ln.b"])
    opt = nn.Adam(net.trainable_params(), learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return train(net, loss_fn, opt, Tensor(x), Tensor(labels), mode)


_IMPORT_CHILD = ("import sys, time; t, c = time.perf_counter(), time.process_time(); "
                 "import {0}; "
                 "print(time.perf_counter() - t, time.process_time() - c, len(sys.modules))")


def import_time(workload, mode):
    """``import spore`` in fresh interpreters: the import alone (median_ms; cpu_ms its
    CPU time, which other load inflates less), the whole process (process_ms) and
    ``import numpy`` alone (numpy_ms) for scale. The bytecode cache is warmed by the
    first, separately reported import, as a user's would be."""
    if mode != "pynative":
        raise NotImplementedError("the import row has no compiled mode")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def child(module):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", _IMPORT_CHILD.format(module)], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        return (float(out[0]) * 1e3, (time.perf_counter() - t0) * 1e3, int(out[2]),
                float(out[1]) * 1e3)
    first = child("spore")[0]
    load0 = H.load_start(children=True)
    runs = [child("spore") for _ in range(3 if H.QUICK else 9)]
    other_load = H._other_load(*load0, children=True)
    numpy_ms = statistics.median(child("numpy")[0] for _ in range(3 if H.QUICK else 5))
    times = [r[0] for r in runs]
    stats = {"median_ms": round(statistics.median(times), 2), "min_ms": round(min(times), 2),
             "max_ms": round(max(times), 2), "first_call_ms": round(first, 2),
             "repeats": len(times),
             "process_ms": round(statistics.median(r[1] for r in runs), 2),
             "cpu_ms": round(statistics.median(r[3] for r in runs), 2),
             "numpy_ms": round(numpy_ms, 2), "other_load": other_load}
    return stats, runs[-1][2]          # check: modules loaded by `import spore`


RUN = {"W0": w0, "W1a": w1, "W1b": w1, "W2a": w2, "W2b": w2, "W3": w3, "W4": w4, "W5": w5,
       "W1a-grad": w1_grad, "W1b-grad": w1_grad, "import": import_time, "while": while_loop}


def main(argv):
    if len(argv) != 3 or argv[1] not in RUN or argv[2] not in MODES:
        sys.exit(f"usage: {argv[0]} {{{'|'.join(RUN)}}} {{{'|'.join(MODES)}}}")
    workload, mode = argv[1], argv[2]
    device = os.environ.get("SPORE_BENCH_DEVICE", "CPU")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the fallback is reported below instead
        ms.set_context(device_target=device)
    if ms.get_context("device_target") != device:   # no such backend: skip, don't relabel CPU
        emit(FW, mode, workload, error=f"skipped: Spore has no {device} backend here",
             device=device)
        return 1
    ms.set_seed(H.SEED)
    sync(Tensor(np.ones((2,), np.float32)) + 1)   # warm the runtime before any first call
    try:
        stats, check = RUN[workload](workload, mode)
    except Exception as e:   # report, don't hide, a workload Spore cannot do yet
        msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
        emit(FW, mode, workload, error=msg, device=device)
        return 1
    emit(FW, mode, workload, stats, check, device=device)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
