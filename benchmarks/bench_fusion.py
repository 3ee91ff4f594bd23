"""O1 (fusion) against O0 in one process, interleaved, for a loaded machine.

usage: python bench_fusion.py [W1a W2a W2b W3 W4 W5 epilogues cold ...] [--rounds N] [--tiled]
  Builds each workload of bench_spore.py at O0 and at O1, then times them in turn
  (O0, O1, O0, O1, ...) so both see the same machine load, and prints one JSON line per
  workload: the median of each mode and the median of the per-round ratio O1 / O0.
  --tiled turns Numba off (the NumPy tiled fusion path of O1).
Also ``epilogues`` (W5 at O1 with the in-place epilogues of NOTE: [Epilogues in place]
in spore/_jit/memplan.py, and without them, interleaved), and ``cold`` (W5 at O1 in a fresh process, empty kernel caches, then a second process
with the caches warm): the time to the first step after imports, with the CPU time of
its compilation phases (see ``cold``).
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


def loops_ready():
    """Wait for the background compilation of the compiled loops (NOTE: [Background
    compilation]): a first process after a change to them would otherwise time both
    modes on the NumPy paths, next to the child process compiling them."""
    import numpy as np
    from spore import _native
    if not _native.enabled():
        return
    for dtype in (np.float32, np.float64):     # a compiling child would share the cores
        if not _native.wait(np.dtype(dtype)):
            print(f"bench_fusion: the compiled {np.dtype(dtype)} loops are not ready",
                  file=sys.stderr)


def interleaved(workload, rounds):
    loops_ready()
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


def epilogues(rounds):
    """W5 at O1 with and without in-place epilogues (``memplan.fresh_node`` off while
    the second is compiled), interleaved: wall and CPU medians and their ratios."""
    from spore._jit import memplan
    real = memplan.fresh_node
    memplan.fresh_node = lambda node: False
    try:
        steps = {"without": build("W5", "jit_O1")}
    finally:
        memplan.fresh_node = real
    steps["with"] = build("W5", "jit_O1")
    wall, cpu = {m: [] for m in steps}, {m: [] for m in steps}
    for step, sync in steps.values():
        sync(step())
    for _ in range(rounds):
        for m, (step, sync) in steps.items():
            t0, c0 = time.perf_counter(), time.process_time()
            sync(step())
            wall[m].append((time.perf_counter() - t0) * 1e3)
            cpu[m].append((time.process_time() - c0) * 1e3)
    med = statistics.median
    return {"workload": "W5-epilogues", "with_ms": round(med(wall["with"]), 3),
            "without_ms": round(med(wall["without"]), 3),
            "with/without": round(med(a / b for a, b in zip(wall["with"], wall["without"])), 3),
            "cpu with/without": round(med(a / b for a, b in zip(cpu["with"], cpu["without"])),
                                      3), "rounds": rounds}


_COLD = """
import time, sys
sys.path.insert(0, {here!r})
import numpy, numba, spore, harness, bench_spore as B
from spore import _native
from spore._jit import api, kernelgen
t = {{"graph": 0.0, "kernels": 0.0, "native": 0.0}}


def timed(owner, name, key):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        c0 = time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            t[key] += time.thread_time() - c0
    setattr(owner, name, wrapper)


timed(api.JitFunction, "_compile", "graph")     # passes, codegen, the kernels within
timed(kernelgen, "load", "kernels")              # fused kernels: disk cache or Numba
timed(_native._Lazy, "compile_for", "native")  # the compiled loops of spore/_native.py


def keep(step, sync):
    for key in ("first", "step"):
        t0, c0 = time.perf_counter(), time.thread_time()
        out = step()
        sync(out)
        t[key], t[key + "_cpu"] = time.perf_counter() - t0, time.thread_time() - c0
    return out, {{}}
B.measure = keep
B.w5("W5", "jit_O1")
t["numba_kernels"] = len(kernelgen._kernels)
print(repr(t), flush=True)
_native.wait(numpy.dtype(numpy.float32))        # the next process finds the cache full
"""


def cold():
    """W5 at O1: the first step with empty kernel caches (Spore's and Numba's), then in a
    second process with both warm (the first waits for the background compilation of
    spore/_native.py's loops to fill the cache). Besides the wall time to the first
    step (``*_s``), each run reports a cached step's time (``*_step_s``), the calling
    thread's CPU seconds of the first step beyond a cached one (``*_cpu_s``: tracing,
    compilation, loading), and its CPU seconds in graph compilation (``*_graph_cpu_s``, which includes the fused kernels),
    fused-kernel loading or compilation (``*_kernels_cpu_s``) and spore/_native.py's loops
    (``*_native_cpu_s``): on a loaded machine the wall times swell with the matmuls,
    the CPU times much less."""
    import ast
    here = os.path.dirname(os.path.abspath(__file__))
    row = {"workload": "W6-W5-O1"}
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, SPORE_CACHE_DIR=os.path.join(d, "spore"),
                   NUMBA_CACHE_DIR=os.path.join(d, "numba"))
        for name in ("cold", "warm_cache"):
            out = subprocess.run([sys.executable, "-c", _COLD.format(here=here)], env=env,
                                 capture_output=True, text=True, check=True).stdout
            t = ast.literal_eval(out.strip().splitlines()[-1])
            row[f"{name}_s"] = round(t["first"], 3)
            row[f"{name}_step_s"] = round(t["step"], 3)
            row[f"{name}_cpu_s"] = round(t["first_cpu"] - t["step_cpu"], 3)
            for key in ("graph", "kernels", "native"):
                row[f"{name}_{key}_cpu_s"] = round(t[key], 3)
            row["numba_kernels"] = t["numba_kernels"]
    return row


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
        row = cold() if w == "cold" else epilogues(rounds) if w == "epilogues" \
            else interleaved(w, rounds)
        row["threads"] = H.THREADS
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
