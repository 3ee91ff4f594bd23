"""Data-parallel benchmarks (issue 18): all-reduce bus bandwidth and W4 samples/s.

usage:
  python benchmarks/bench_dist.py allreduce [--ranks 2] [--rounds 5] [--max-bytes N]
  python benchmarks/bench_dist.py w4 [--ranks 2] [--steps 60] [--rounds 5]
  python benchmarks/bench_dist.py overhead [--rounds 5]

The script launches itself under MPI's launcher (the ``dist`` extra) with one BLAS
thread per rank and prints one JSON line per measurement, then a summary:

* ``allreduce``: float32 arrays of 1 KB to 64 MB between the ranks. Four ways of
  reducing the same arrays: mpi4py's own ``Comm.Allreduce`` into a preallocated
  output (the reference), ``ops.AllReduce`` (Spore's primitive: a new output tensor
  each call), ``ops.all_reduce`` (MindSpore 2.10's function: in place) and the gradient
  reducer's bucket (``DistributedGradReducer`` on one
  gradient: copy into the bucket, the sum through the shared window, or MPI's
  Allreduce in place with ``SPORE_SHARED_BUCKETS=0``, then the mean). Bus bandwidth is
  ``2 (n - 1) / n * bytes / time`` (the NCCL-tests convention); the median over
  interleaved rounds is reported, and the median of the per-round ratios to mpi4py.
* ``w4``: the W4 workload (LeNet-5 train step, batch 32 per rank, momentum SGD)
  through ``nn.TrainOneStepCell``: 1 rank alone vs ``--ranks`` ranks in
  DATA_PARALLEL, each with one thread; samples/s = ranks * 32 / step time. Both run
  in one job, in interleaved rounds of ``--steps`` steps (the other ranks sleep while
  rank 0 runs the one-rank round), so both see the same machine; the summary gives
  the median and the spread of the per-round ratios, and rank 0's CPU time per step
  (what data parallelism adds to each rank's work, whatever share of the cores it
  got), with the part of it spent waiting for the other ranks. Alternate jobs with
  ``SPORE_SHARED_BUCKETS=0`` and without to compare MPI's all-reduce of the buckets
  with the shared window. ``--baselines`` adds rounds where every rank runs the
  one-device step at once, without and with a barrier per step: what the machine
  gives independent ranks and ranks in lockstep, the ceiling for data parallelism.

* ``overhead``: CPU time per 1 KB all-reduce on one rank (MPI's all-reduce is then
  a copy): mpi4py's call, Spore's communicator, ``ops.AllReduce``,
  ``comm_func.all_reduce``; the fixed cost
  Spore's layers add, whatever share of the cores the process gets.

The machine this ran on is shared; compare ratios taken in the same run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _launch(argv, ranks):
    from spore.communication.launch import find_mpiexec
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1", SPORE_BENCH_THREADS="1", SPORE_BENCH_WORKER="1")
    cmd = [find_mpiexec(), "-n", str(ranks), sys.executable, os.path.abspath(__file__)] + argv
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(out.stdout + out.stderr)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


# --------------------------------------------------------------------------- all-reduce
def allreduce_worker(args):
    import numpy as np
    from mpi4py import MPI
    import spore as ms
    from spore import nn, ops
    from spore.communication import init, get_rank, get_group_size
    init()
    rank, n = get_rank(), get_group_size()
    comm = MPI.COMM_WORLD
    reduce_op = ops.AllReduce()
    sizes = [2 ** k for k in range(10, 27, 2)]          # 1 KB ... 64 MB
    for nbytes in [b for b in sizes if b <= args.max_bytes]:
        x = np.random.default_rng(rank).random(nbytes // 4, dtype=np.float32)
        t = ms.Tensor(x)
        t_in_place = ms.Tensor(x.copy())
        out = np.empty_like(x)
        grad = ms.Parameter(ms.Tensor(x), name="g")
        reducer = nn.DistributedGradReducer([grad], mean=True)
        # enough calls that one timing spans several scheduler slices (shared machine)
        reps = max(3, min(2000, (64 << 20) // nbytes // 4))

        def mpi():
            comm.Allreduce(x, out, op=MPI.SUM)

        def spore_op():
            reduce_op(t)

        def spore_in_place():
            ops.all_reduce(t_in_place)

        def spore_bucket():
            reducer((t,))

        calls = (("mpi4py", mpi), ("spore", spore_op), ("spore_in_place", spore_in_place),
                 ("spore_bucket", spore_bucket))
        times = {name: [] for name, _ in calls}
        for _, fn in calls:
            fn()                                      # warm up
        for _ in range(args.rounds):
            for name, fn in calls:
                comm.Barrier()
                start = time.perf_counter()
                for _ in range(reps):
                    fn()
                elapsed = (time.perf_counter() - start) / reps
                times[name].append(comm.allreduce(elapsed, op=MPI.MAX))
        if rank == 0:
            for name, ts in times.items():
                med = statistics.median(ts)
                busbw = 2 * (n - 1) / n * nbytes / med / 1e9
                # the same round's mpi4py time over this one's (adjacent in time: steadier
                # than the ratio of the medians when the machine's load moves)
                paired = statistics.median(a / b for a, b in zip(times["mpi4py"], ts))
                print(json.dumps({"bench": "allreduce", "impl": name, "bytes": nbytes,
                                  "ranks": n, "median_us": med * 1e6, "busbw_GBps": busbw,
                                  "paired_ratio": paired}),
                      flush=True)


def allreduce_main(args):
    rows = _launch(["allreduce", "--rounds", str(args.rounds), "--max-bytes",
                    str(args.max_bytes)], args.ranks)
    for r in rows:
        print(json.dumps(r))
    print("\n| size | mpi4py Allreduce GB/s (us) | Spore ops.AllReduce GB/s (us, ratio) | "
          "Spore ops.all_reduce in place GB/s (us, ratio) | Spore bucket GB/s (us, ratio) |"
          "\n|---|---|---|---|---|")
    by = {(r["bytes"], r["impl"]): r for r in rows}
    for nbytes in sorted({r["bytes"] for r in rows}):
        ref = by[(nbytes, "mpi4py")]
        cells = [f"{r['busbw_GBps']:.3g} ({r['median_us']:.3g}, "
                 f"{r['busbw_GBps'] / ref['busbw_GBps']:.2f}x)"
                 for r in (by[(nbytes, k)] for k in ("spore", "spore_in_place", "spore_bucket"))]
        print(f"| {_size(nbytes)} | {ref['busbw_GBps']:.3g} ({ref['median_us']:.3g}) | "
              + " | ".join(cells) + " |")
    print("\nmedian of the per-round ratios (mpi4py's time in the same round / Spore's):")
    for nbytes in sorted({r["bytes"] for r in rows}):
        print(f"  {_size(nbytes)}: " + ", ".join(
            f"{k} {by[(nbytes, k)]['paired_ratio']:.2f}x"
            for k in ("spore", "spore_in_place", "spore_bucket")))


def overhead_worker(args):
    """CPU time per call on one rank (where MPI's all-reduce is a copy): the fixed cost
    each layer adds, which the scheduler's share of the cores does not change."""
    import numpy as np
    from mpi4py import MPI
    import spore as ms
    from spore import ops
    from spore.communication import init, comm_func
    from spore.communication.management import group_comm
    init()
    comm, group = MPI.COMM_WORLD, group_comm("hccl_world_group")
    x = np.random.default_rng(0).random(256, dtype=np.float32)        # 1 KB
    out, t, reduce_op = np.empty_like(x), ms.Tensor(x), ops.AllReduce()
    t_in_place = ms.Tensor(x.copy())
    calls = {"mpi4py Comm.Allreduce": lambda: comm.Allreduce(x, out, op=MPI.SUM),
             "Spore communicator (NumPy in, new array out)": lambda: group.allreduce(x, "sum"),
             "Spore ops.AllReduce (Tensor in, Tensor out)": lambda: reduce_op(t),
             "Spore comm_func.all_reduce (Tensor in, Tensor out)":
                 lambda: comm_func.all_reduce(t),
             "mpi4py Comm.Allreduce in place (IN_PLACE)":
                 lambda: comm.Allreduce(MPI.IN_PLACE, out, op=MPI.SUM),
             "Spore ops.all_reduce (in place, MindSpore 2.10's function)":
                 lambda: ops.all_reduce(t_in_place)}
    best = {name: float("inf") for name in calls}
    for _ in range(args.rounds):
        for name, fn in calls.items():
            start = time.thread_time()
            for _ in range(5000):
                fn()
            best[name] = min(best[name], (time.thread_time() - start) / 5000 * 1e6)
    for name, us in best.items():
        print(json.dumps({"bench": "overhead", "call": name, "cpu_us": us}), flush=True)


def overhead_main(args):
    rows = _launch(["overhead", "--rounds", str(args.rounds)], 1)
    print("\n| 1 KB all-reduce, 1 rank | CPU us per call (min of rounds) |\n|---|---|")
    for r in rows:
        print(f"| {r['call']} | {r['cpu_us']:.2f} |")


def _size(n):
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"


# --------------------------------------------------------------------------- W4
def _idle_until_all_arrive(comm):
    """A barrier that sleeps between polls, so waiting ranks leave the cores to rank 0
    while it runs the one-rank steps (MPI's own Barrier spins)."""
    req = comm.Ibarrier()
    while not req.Test():
        time.sleep(5e-4)


def _w4_step(p, data_parallel):
    import spore as ms
    from spore import nn
    from bench_spore import lenet5
    if data_parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
    else:
        ms.reset_auto_parallel_context()
    net = lenet5(p)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    net.set_train()
    return step


def w4_worker(args):
    sys.path.insert(0, HERE)
    import harness as H
    from mpi4py import MPI
    import spore as ms
    from spore.communication import init, get_rank, get_group_size
    init()
    rank, n = get_rank(), get_group_size()
    x, labels, p = H.w4_data()
    xt, yt = ms.Tensor(x + rank), ms.Tensor(labels)     # each rank its own batch
    single, dp = _w4_step(p, False), _w4_step(p, True)
    comm = MPI.COMM_WORLD
    from spore.communication import _backend

    def lockstep(a, b):             # one-device steps that meet once per step, no data
        single(a, b)
        _backend.wait_patiently(comm.Ibarrier())
    rounds = [("1 rank", single, 1), ("dp", dp, n)]
    if args.baselines:
        rounds += [("alone", single, n), ("lockstep", lockstep, n)]
    for _, step, _ in rounds:
        for _ in range(5):
            step(xt, yt)
    waited = _time_waits()
    for _ in range(args.rounds):                 # interleaved: 1 rank, n ranks, 1 rank, ...
        for mode, step, ranks in rounds:
            _idle_until_all_arrive(comm)
            waited[0] = 0.0
            start, cpu = time.perf_counter(), time.process_time()
            if rank < ranks:
                for _ in range(args.steps):
                    step(xt, yt)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            _idle_until_all_arrive(comm)
            elapsed = comm.allreduce(elapsed, op=MPI.MAX) / args.steps
            if rank == 0:
                print(json.dumps({"bench": "w4", "mode": mode, "ranks": ranks,
                                  "step_ms": elapsed * 1e3,
                                  "cpu_ms_rank0": cpu / args.steps * 1e3,
                                  "wait_cpu_ms_rank0": waited[0] / args.steps * 1e3,
                                  "samples_per_s": ranks * 32 / elapsed}), flush=True)


def _time_waits():
    """Count the CPU time spent waiting for the other ranks (``wait_for_flags``: the
    gradient buckets' barrier in the shared window; ``wait_patiently``: MPI's requests,
    the overlapped buckets) into the returned cell, so that rank 0's CPU per step splits
    into waiting and work."""
    from spore.communication import _backend
    waited = [0.0]

    def timed(wait):
        def timed_wait(*args):
            start = time.thread_time()
            try:
                return wait(*args)
            finally:
                waited[0] += time.thread_time() - start
        return timed_wait
    _backend.wait_patiently = timed(_backend.wait_patiently)
    _backend.wait_for_flags = timed(_backend.wait_for_flags)
    return waited


def w4_main(args):
    rows = _launch(["w4", "--steps", str(args.steps), "--rounds", str(args.rounds)]
                   + ["--baselines"] * args.baselines, args.ranks)
    for r in rows:
        print(json.dumps(r))
    one = [r for r in rows if r["mode"] == "1 rank"]
    many = [r for r in rows if r["mode"] == "dp"]
    ratios = sorted(b["samples_per_s"] / a["samples_per_s"] for a, b in zip(one, many))
    med = lambda rs, k: statistics.median(r[k] for r in rs)      # noqa: E731
    print(f"\nW4 samples/s: 1 rank x 1 thread {med(one, 'samples_per_s'):.0f}; {args.ranks} "
          f"ranks x 1 thread {med(many, 'samples_per_s'):.0f} "
          f"({med(many, 'samples_per_s') / med(one, 'samples_per_s'):.2f}x; per round "
          f"{ratios[0]:.2f}x-{ratios[-1]:.2f}x, median {statistics.median(ratios):.2f}x)")
    print(f"rank 0 CPU per step: 1 rank {med(one, 'cpu_ms_rank0'):.2f} ms, {args.ranks} ranks "
          f"{med(many, 'cpu_ms_rank0'):.2f} ms (of which {med(many, 'wait_cpu_ms_rank0'):.2f} ms "
          f"waiting for the other ranks)")
    for mode, what in (("alone", "each stepping alone at once (no communication)"),
                       ("lockstep", "each stepping alone, with a barrier per step")):
        rs = [r for r in rows if r["mode"] == mode]
        if rs:
            ratio = statistics.median(b["samples_per_s"] / a["samples_per_s"]
                                      for a, b in zip(one, rs))
            print(f"{args.ranks} ranks {what}: {med(rs, 'samples_per_s'):.0f} samples/s "
                  f"(median per-round ratio to 1 rank {ratio:.2f}x), "
                  f"rank 0 CPU per step {med(rs, 'cpu_ms_rank0'):.2f} ms (of which "
                  f"{med(rs, 'wait_cpu_ms_rank0'):.2f} ms waiting)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", choices=["allreduce", "w4", "overhead"])
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--baselines", action="store_true",
                    help="w4: also rounds of the ranks stepping alone at once, without "
                         "and with a barrier per step (the machine's ceiling for scaling)")
    ap.add_argument("--max-bytes", type=int, default=64 << 20,
                    help="allreduce: the largest array (bytes)")
    args = ap.parse_args()
    worker = os.environ.get("SPORE_BENCH_WORKER") == "1"
    run = {"allreduce": (allreduce_main, allreduce_worker), "w4": (w4_main, w4_worker),
           "overhead": (overhead_main, overhead_worker)}[args.bench]
    run[worker](args)


if __name__ == "__main__":
    main()
