"""``msrun``: start a data-parallel job on this host under MPI's launcher.

``msrun --worker_num=2 --local_worker_num=2 --log_dir=logs train.py args...``
runs ``mpiexec -n 2 python -m spore run train.py args...`` (MPICH's launcher from
the ``dist`` extra; ``spore run`` lets ``import mindspore`` resolve to Spore): each worker's output goes to ``<log_dir>/worker_<rank>.log`` and, with
``--join``, is also shown here. Multi-host jobs use MPI's hosts file instead
(``mpiexec -f hosts -n N python train.py``, docs/distributed.md).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from ._backend import EXTRA_HINT


def find_mpiexec():
    """MPI's launcher: the one installed next to this Python (the MPICH wheel), else on
    PATH; a RuntimeError naming the extra when there is none."""
    here = os.path.dirname(sys.executable)
    for name in ("mpiexec", "mpirun"):
        path = os.path.join(here, name)
        if os.access(path, os.X_OK):
            return path
    for name in ("mpiexec", "mpirun"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError(f"msrun: MPI's launcher (mpiexec) was not found; {EXTRA_HINT}.")


def _parser():
    p = argparse.ArgumentParser(
        prog="msrun", description="Start a Spore data-parallel job on this host (MPI).")
    p.add_argument("--worker_num", type=int, default=8, help="workers in the whole job")
    p.add_argument("--local_worker_num", type=int, default=None,
                   help="workers on this host (default: worker_num)")
    p.add_argument("--master_addr", default="127.0.0.1", help="accepted; MPI connects ranks")
    p.add_argument("--master_port", type=int, default=8118, help="accepted; MPI connects ranks")
    p.add_argument("--node_rank", type=int, default=-1, help="accepted (single host)")
    p.add_argument("--log_dir", default="", help="per-worker log files worker_<rank>.log")
    p.add_argument("--join", type=_bool, default=False,
                   help="also show the workers' output here")
    p.add_argument("--cluster_time_out", type=int, default=600, help="accepted")
    p.add_argument("--bind_core", type=_bool, default=False, help="accepted")
    p.add_argument("--sim_level", type=int, default=-1, help="accepted")
    p.add_argument("task_script", help="the training script")
    p.add_argument("task_script_args", nargs=argparse.REMAINDER)
    return p


def _bool(s):
    if s.lower() in ("true", "1", "yes"):
        return True
    if s.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected True or False, got {s!r}")


def command(args, mpiexec):
    """The mpiexec command line for parsed msrun ``args``."""
    cmd = [mpiexec, "-n", str(args.local_worker_num)]
    if args.log_dir:
        pattern = os.path.join(args.log_dir, "worker_%r.log")
        cmd += ["-outfile-pattern", pattern, "-errfile-pattern", pattern]
    else:
        cmd += ["-prepend-pattern", "[worker %r] "]
    # through `spore run`, so a script importing mindspore runs unchanged
    return cmd + [sys.executable, "-u", "-m", "spore", "run", args.task_script] \
        + list(args.task_script_args)


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.local_worker_num is None:
        args.local_worker_num = args.worker_num
    if args.worker_num < 1 or args.local_worker_num < 1:
        raise SystemExit("msrun: --worker_num and --local_worker_num must be positive")
    if args.local_worker_num != args.worker_num:
        raise SystemExit("msrun: a job spanning several hosts runs under MPI's hosts file: "
                         "mpiexec -f hosts -n N python script.py (see docs/distributed.md)")
    try:
        mpiexec = find_mpiexec()
    except RuntimeError as e:
        raise SystemExit(str(e)) from None
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
    if args.join and args.log_dir:
        return _run_tee(command(args, mpiexec), args.log_dir, args.local_worker_num)
    return subprocess.call(command(args, mpiexec))


def _run_tee(cmd, log_dir, workers):
    """Run the job (each worker writing its log file) and show the files' new lines here
    as they grow, each prefixed ``[worker <rank>]``."""
    paths = [os.path.join(log_dir, f"worker_{r}.log") for r in range(workers)]
    for path in paths:                     # no stale lines from an earlier job
        if os.path.exists(path):
            os.remove(path)
    proc = subprocess.Popen(cmd)
    offsets, partial = [0] * workers, [""] * workers
    while True:
        done = proc.poll() is not None
        for r, path in enumerate(paths):
            offsets[r], partial[r] = _show_new_lines(r, path, offsets[r], partial[r], done)
        if done:
            return proc.returncode
        time.sleep(0.1)


def _show_new_lines(rank, path, offset, partial, final):
    try:
        with open(path, errors="replace") as f:
            f.seek(offset)
            text = f.read()
            offset = f.tell()
    except OSError:
        return offset, partial
    lines = (partial + text).split("\n")
    partial = lines.pop()
    if final and partial:
        lines.append(partial)
        partial = ""
    for line in lines:
        sys.stdout.write(f"[worker {rank}] {line}\n")
    sys.stdout.flush()
    return offset, partial


if __name__ == "__main__":
    sys.exit(main())
