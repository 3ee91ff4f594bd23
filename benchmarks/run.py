"""Run the standard workloads for Spore and the reference systems, side by side.

usage: python benchmarks/run.py [--workloads W0,W1a,...] [--torch-python PATH]
           [--jax-python PATH] [--ms-python PATH] [--anchor-dir DIR] [--out DIR]
           [--quick] [--device CPU|GPU] [--systems spore,numpy,torch,jax,mindspore]
           [--modes pynative,eager,...] [--passes N]

Every measurement runs in a fresh process, one after another, with threads
pinned to 2. With ``--passes N`` each workload's systems run N times in turn
(A, B, C, A, B, C, ...; each pass starts one system later), so every system is
measured next to the others several times: a machine whose speed drifts over
minutes (a shared VM) then shows up as spread between passes instead of as a
false ratio. The report takes each system's median over its passes and each
ratio as the median of the ratios within a pass. Spore is measured by ``bench_spore.py``; NumPy, PyTorch, JAX and
MindSpore by the team's anchor scripts (``../shared/anchor_bench``) run with
the interpreters given (a system without an interpreter or anchor scripts is
skipped with a note). Results go to ``OUT/results.jsonl``; ``OUT/report.md``
and ``OUT/plot.png`` are made from them by ``report.py``.
"""
import argparse
import datetime
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
WORKLOADS = ["W0", "W1a", "W1b", "W2a", "W2b", "W3", "W4", "W5", "W1a-grad", "W1b-grad",
             "import", "while"]
GRAD = {"W1a-grad", "W1b-grad"}
TRAIN = {"W3", "W4", "W5"}
COLD_WORKLOADS = {"W4", "W5"}   # workloads whose first step loads or compiles Numba loops

# (system, mode, script, which interpreter option)
PLAN = [
    ("spore", "pynative", "spore", None),
    ("spore", "pynative_cold", "spore", None),
    ("spore", "pynative_warm", "spore", None),
    ("spore", "jit", "spore", None),
    ("spore", "jit_O1", "spore", None),
    ("numpy", "numpy", "bench_numpy.py", "numpy_python"),
    ("torch", "eager", "bench_torch.py", "torch_python"),
    ("torch", "compile", "bench_torch.py", "torch_python"),
    ("torch", "compile_model", "bench_torch.py", "torch_python"),
    ("jax", "op-by-op", "bench_jax.py", "jax_python"),
    ("jax", "jit", "bench_jax.py", "jax_python"),
    ("mindspore", "pynative", "bench_mindspore.py", "ms_python"),
    ("mindspore", "jit", "bench_mindspore.py", "ms_python"),
]


def applies(workload, system, mode):
    if mode in ("pynative_cold", "pynative_warm"):   # the first step with Numba's disk
        return workload in COLD_WORKLOADS            # cache empty, and filled beforehand
    if workload == "import":    # Spore's own start-up (the record carries NumPy's for scale)
        return (system, mode) == ("spore", "pynative")
    if workload == "while":     # compiled tensor loop vs PyNative (the control-flow issue)
        return system == "spore"
    if workload in GRAD:        # measured against PyTorch eager by ref_torch_extra.py only
        return system == "spore" or (system, mode) == ("torch", "eager")
    if workload == "W0" and mode not in ("pynative", "numpy", "eager", "op-by-op"):
        return False
    if mode == "compile_model" and workload not in TRAIN:
        return False
    return True


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--systems", default="spore,numpy,torch,jax,mindspore")
    p.add_argument("--modes", default=None,
                   help="only these modes, e.g. pynative,eager (default: every mode)")
    p.add_argument("--torch-python", help="python with torch (CPU) for the PyTorch columns")
    p.add_argument("--jax-python", help="python with jax (defaults to --torch-python)")
    p.add_argument("--ms-python", help="python with mindspore 2.10 and numpy<2")
    p.add_argument("--numpy-python", default=sys.executable)
    p.add_argument("--anchor-dir", default=str(HERE.parent.parent / "shared" / "anchor_bench"))
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true", help="few repeats (CI smoke run)")
    p.add_argument("--device", default="CPU", choices=["CPU", "GPU"])
    p.add_argument("--timeout", type=int, default=600)
    p.add_argument("--passes", type=int, default=1,
                   help="measure each workload's systems N times in turn (default 1)")
    return p.parse_args(argv)


def fill_numba_cache(env, timeout):
    """Compile every float32 loop into ``env``'s NUMBA_CACHE_DIR, as a machine that ran
    Spore before has them: the next process's first step only loads what it uses."""
    code = "from spore import _native; _native.compile_here('float32')"
    subprocess.run([sys.executable, "-c", code], env=dict(env, SPORE_NATIVE="sync"),
                   cwd=HERE, capture_output=True, timeout=timeout, check=False)


def run_one(cmd, cwd, env, timeout):
    try:
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout}s"
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if lines:
        return json.loads(lines[-1]), None
    tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or [f"exit status {r.returncode}"]
    return None, tail[0][:300]


def _interleaved(entries, passes):
    """``(pass, entry)`` pairs: every entry once per pass, each pass rotated by one so no
    system is always measured first. The cold first-step modes run in the first pass
    only (their figure is one first call, and filling a cache takes minutes)."""
    passes = max(1, int(passes))
    order = []
    for p in range(passes):
        k = p % len(entries) if entries else 0
        for entry in entries[k:] + entries[:k]:
            if p and entry[1] in ("pynative_cold", "pynative_warm"):
                continue
            order.append((p, entry))
    return order


def main(argv=None):
    args = parse(argv)
    args.jax_python = args.jax_python or args.torch_python
    out_dir = pathlib.Path(args.out or HERE.parent / "bench_results" /
                           datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.jsonl"
    systems = set(args.systems.split(","))
    modes = set(args.modes.split(",")) if args.modes else None
    anchor = pathlib.Path(args.anchor_dir)
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2", MKL_NUM_THREADS="2",
               SPORE_BENCH_DEVICE=args.device)
    if args.quick:
        env["SPORE_BENCH_QUICK"] = "1"
    notes = []
    with open(results, "w") as f:
        for wl in args.workloads.split(","):
            chosen = [entry for entry in PLAN if entry[0] in systems
                      and applies(wl, entry[0], entry[1])
                      and (modes is None or entry[1] in modes)]
            for pass_no, (system, mode, script, py_opt) in _interleaved(chosen, args.passes):
                run_env = env
                if system == "spore":
                    cmd = [sys.executable, str(HERE / "bench_spore.py"), wl, mode]
                    cwd = HERE
                    if mode in ("pynative_cold", "pynative_warm"):
                        run_env = dict(env, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="numba-"))
                    if mode == "pynative_warm":
                        fill_numba_cache(run_env, args.timeout)
                else:
                    py = getattr(args, py_opt)
                    if not py or (wl not in GRAD and not (anchor / script).exists()):
                        note = f"{system}: skipped (no interpreter given or no anchor scripts)"
                        if note not in notes:
                            notes.append(note)
                        continue
                    cmd, cwd = [py, script, wl, mode], anchor
                    if wl in GRAD:
                        cmd, cwd = [py, str(HERE / "ref_torch_extra.py"), wl, mode], HERE
                t0 = time.perf_counter()
                rec, err = run_one(cmd, cwd, run_env, args.timeout)
                if rec is None:
                    rec = {"framework": system, "mode": mode, "workload": wl, "error": err}
                rec.setdefault("framework", system)
                if args.passes > 1:
                    rec["pass"] = pass_no
                print(f"[{time.perf_counter() - t0:6.1f}s] {json.dumps(rec)}", flush=True)
                f.write(json.dumps(rec) + "\n")
                f.flush()
    (out_dir / "notes.txt").write_text("\n".join(notes) + "\n")
    from report import write_report
    write_report(out_dir)
    print(f"results: {results}\nreport: {out_dir / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
