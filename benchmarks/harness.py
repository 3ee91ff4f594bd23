"""Timing harness and workload data for Spore's benchmarks.

The workloads and their data are defined exactly as in the team's anchor
benchmarks (``../shared/anchor_bench/common.py``): NumPy generators seeded with
``default_rng([0, tag])``, so the check values (first-step loss, output sum)
agree across systems and a fast wrong answer cannot pass as fast. Thread
counts are pinned before NumPy loads its BLAS.
"""
import os

THREADS = int(os.environ.get("SPORE_BENCH_THREADS", "2"))
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ.setdefault(_v, str(THREADS))

import gc            # noqa: E402
import json          # noqa: E402
import statistics    # noqa: E402
import time          # noqa: E402

import numpy as np   # noqa: E402

SEED = 0
F32 = np.float32
W0_N = 10_000
W1_ITERS = 100
W2_ITERS = 50
W1_SHAPES = {"W1a": (32, 32), "W1b": (512, 512)}
W2_SHAPES = {"W2a": (1024,), "W2b": (1024, 1024)}
QUICK = os.environ.get("SPORE_BENCH_QUICK") == "1"


# --------------------------------------------------------------------------- timing
def _cpu_jiffies():
    try:
        with open("/proc/stat") as f:
            v = [int(t) for t in f.readline().split()[1:]]
    except OSError:
        return None
    return sum(v[:8]) - (v[3] + v[4]), sum(v[:8])


def own_cpu(children=False):
    """CPU seconds used by this process (and its finished children, if asked)."""
    t = os.times()
    return t[0] + t[1] + (t[2] + t[3] if children else 0.0)


def load_start(children=False):
    return time.perf_counter(), own_cpu(children), _cpu_jiffies()


def _other_load(start_wall, start_cpu, start_j, children=False):
    """Share of the machine other processes used while we measured (0 = quiet)."""
    j = _cpu_jiffies()
    if j is None or start_j is None:
        return None
    wall = time.perf_counter() - start_wall
    busy = (j[0] - start_j[0]) / os.sysconf("SC_CLK_TCK")
    ours = own_cpu(children) - start_cpu
    return round(max(0.0, busy - ours) / max(wall, 1e-9) / (os.cpu_count() or 1), 3)


def measure(step, sync, *, min_repeats=7, target_s=3.0, budget_s=45.0):
    """First call, warm-up, then >= min_repeats individually synchronised calls."""
    if QUICK:
        min_repeats, target_s, budget_s = 3, 0.2, 5.0
    gc.collect()
    t_start = time.perf_counter()
    t0 = time.perf_counter()
    out = step()
    sync(out)
    first = time.perf_counter() - t0
    first_out = out
    warm = []
    tw = time.perf_counter()
    while len(warm) < 3 or (time.perf_counter() - tw < 0.5 and len(warm) < 200):
        t0 = time.perf_counter()
        sync(step())
        warm.append(time.perf_counter() - t0)
    est = statistics.median(warm)
    remaining = budget_s - (time.perf_counter() - t_start)
    repeats = max(min_repeats, min(1000, int(min(target_s, max(remaining, 0.0)) / max(est, 1e-9))))
    times = []
    gc.collect()
    load0 = load_start()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter()
            sync(step())
            times.append(time.perf_counter() - t0)
            if len(times) >= min_repeats and time.perf_counter() - t_start > budget_s:
                break
    finally:
        gc.enable()
    return first_out, {
        "median_ms": round(statistics.median(times) * 1e3, 4),
        "min_ms": round(min(times) * 1e3, 4),
        "max_ms": round(max(times) * 1e3, 4),
        "first_call_ms": round(first * 1e3, 3),
        "repeats": len(times),
        "other_load": _other_load(*load0),
    }


def emit(framework, mode, workload, stats=None, check=None, error=None, **extra):
    rec = {"framework": framework, "mode": mode, "workload": workload}
    if error is not None:
        rec["error"] = error
    else:
        rec.update(stats)
        if workload == "W0":
            rec["us_per_op"] = round(rec["median_ms"] / W0_N * 1000, 3)
        if check is not None:
            rec["check"] = float(check)
    rec.update(extra)
    print(json.dumps(rec), flush=True)
    return rec


# --------------------------------------------------------------------------- data
def _rng(tag):
    return np.random.default_rng([SEED, tag])


def w0_data():
    return np.zeros((1,), F32), np.ones((1,), F32)


def w1_data(workload):
    r = _rng(1)
    shape = W1_SHAPES[workload]
    return ((r.standard_normal(shape) * 0.1).astype(F32),
            (r.standard_normal(shape) * 0.1).astype(F32))


def w2_data(workload):
    return _rng(2).standard_normal(W2_SHAPES[workload]).astype(F32)


def _uniform(r, shape, fan_in):
    b = 1.0 / np.sqrt(fan_in)
    return r.uniform(-b, b, size=shape).astype(F32)


def w3_data():
    r = _rng(3)
    x = r.standard_normal((32, 1024)).astype(F32)
    y = r.standard_normal((32, 1024)).astype(F32)
    return x, y, {"w": _uniform(r, (1024, 1024), 1024), "b": _uniform(r, (1024,), 1024)}


_LENET = [("conv1.w", (6, 1, 5, 5), 25), ("conv1.b", (6,), 25),
          ("conv2.w", (16, 6, 5, 5), 150), ("conv2.b", (16,), 150),
          ("fc1.w", (120, 400), 400), ("fc1.b", (120,), 400),
          ("fc2.w", (84, 120), 120), ("fc2.b", (84,), 120),
          ("fc3.w", (10, 84), 84), ("fc3.b", (10,), 84)]


def w4_data():
    r = _rng(4)
    x = r.standard_normal((32, 1, 32, 32)).astype(F32)
    labels = r.integers(0, 10, size=(32,)).astype(np.int32)
    return x, labels, {name: _uniform(r, shape, fan) for name, shape, fan in _LENET}


def w5_data():
    r = _rng(5)
    x = r.standard_normal((8, 3, 224, 224)).astype(F32)
    labels = r.integers(0, 100, size=(8,)).astype(np.int32)
    p = {
        "patch.w": _uniform(r, (256, 3, 16, 16), 3 * 16 * 16),
        "patch.b": _uniform(r, (256,), 3 * 16 * 16),
        "cls": (r.standard_normal((1, 1, 256)) * 0.02).astype(F32),
        "pos": (r.standard_normal((1, 197, 256)) * 0.02).astype(F32),
        "qkv.w": _uniform(r, (768, 256), 256),
        "qkv.b": _uniform(r, (768,), 256),
        "proj.w": _uniform(r, (256, 256), 256),
        "proj.b": _uniform(r, (256,), 256),
        "ln.g": np.ones((256,), F32),
        "ln.b": np.zeros((256,), F32),
        "head.w": _uniform(r, (100, 256), 256),
        "head.b": _uniform(r, (100,), 256),
    }
    return x, labels, p
