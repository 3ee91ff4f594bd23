"""O1 (fusion) against O0 in one process, interleaved, for a loaded machine.

usage: python bench_fusion.py [W1a W2a W2b W3 W4 W5 ...] [--rounds N] [--tiled]
  Builds each workload of bench_spore.py at O0 and at O1, then times them in turn
  (O0, O1, O0, O1, ...) so both see the same machine load, and prints one JSON line per
  workload: the median of each mode and the median of the per-round ratio O1 / O0.
  --tiled turns Numba off (the NumPy tiled fusion path of O1).
Also ``cold`` (W5 at O1 in a fresh process, empty kernel cache, then a second process
with the cache warm): the time to the first step after imports.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import harness as H
import bench_spore as B

WORKLOADS = {"W1a": B.w1, "W2a": B.w2, "W2b": B.w2, "W3": B.w3, "W4": B.w4, "W5": B.w5}


def build(workload, mode):
    """The workload's step at ``mode`` (bench_spore builds it; we keep the closure)."""
    captured = {}

    def keep(step, sync):
        out = step()
        sync(out)
        captured["step"], captured["sync"] = step, sync
        return out, {}
    real = B.measure
    B.measure = keep
    try:
        WORKLOADS[workload](workload, mode)
    finally:
        B.measure = real
    return captured["step"], captured["sync"]


def interleaved(workload, rounds):
    steps = {m: build(workload, m) for m in ("jit", "jit_O1")}
    times = {m: [] for m in steps}
    for m, (step, sync) in steps.items():        # warm up both
        for _ in range(2):
            sync(step())
    reps = 1 if workload in ("W2b", "W5") else 5
    for _ in range(rounds):
        for m, (step, sync) in steps.items():
            t0 = time.perf_counter()
            for _ in range(reps):
                sync(step())
            times[m].append((time.perf_counter() - t0) / reps * 1e3)
    ratios = [b / a for a, b in zip(times["jit"], times["jit_O1"])]
    return {"workload": workload, "O0_ms": round(statistics.median(times["jit"]), 4),
            "O1_ms": round(statistics.median(times["jit_O1"]), 4),
            "O1/O0": round(statistics.median(ratios), 3), "rounds": rounds}


_COLD = """
import time, sys
sys.path.insert(0, {here!r})
import numpy, numba, spore, harness, bench_spore as B
t = {{}}
def keep(step, sync):
    t0 = time.perf_counter(); out = step(); sync(out); t["first"] = time.perf_counter() - t0
    return out, {{}}
B.measure = keep
B.w5("W5", "jit_O1")
from spore._jit import kernelgen
print(t["first"], len(kernelgen._kernels))
"""


def cold():
    """W5 at O1: first step with an empty kernel cache, then in a second process."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, SPORE_CACHE_DIR=os.path.join(d, "spore"),
                   NUMBA_CACHE_DIR=os.path.join(d, "numba"))
        runs = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", _COLD.format(here=here)], env=env,
                                 capture_output=True, text=True, check=True).stdout.split()
            runs.append(float(out[0]))
        return {"workload": "W6-W5-O1", "cold_s": round(runs[0], 3),
                "warm_cache_s": round(runs[1], 3), "numba_kernels": int(out[1])}


def main(argv):
    rounds = 15
    if "--rounds" in argv:
        i = argv.index("--rounds")
        rounds = int(argv[i + 1])
        del argv[i:i + 2]
    if "--tiled" in argv:
        argv.remove("--tiled")
        from spore import _native
        _native.set_enabled(False)
    for w in argv or list(WORKLOADS) + ["cold"]:
        row = cold() if w == "cold" else interleaved(w, rounds)
        row["threads"] = H.THREADS
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
