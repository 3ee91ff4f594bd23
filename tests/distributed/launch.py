"""Run a worker script on N ranks with MPI's launcher, from pytest, with a timeout.

Tests skip (with the reason) only where MPI cannot start at all: mpi4py or the
launcher missing, or a trivial 2-rank job failing.
"""
from __future__ import annotations

import functools
import os
import pathlib
import subprocess
import sys

import pytest

WORKERS = pathlib.Path(__file__).resolve().parent / "workers"


@functools.lru_cache(maxsize=None)
def mpi_unavailable():
    """None when a 2-rank job starts here, else why not."""
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (the 'dist' extra)"
    from spore.communication.launch import find_mpiexec
    try:
        mpiexec = find_mpiexec()
    except RuntimeError as e:
        return str(e)
    code = "from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2"
    try:
        r = subprocess.run([mpiexec, "-n", "2", sys.executable, "-c", code],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "a 2-rank MPI job did not start within 60 s"
    if r.returncode:
        return f"a 2-rank MPI job failed to start: {r.stderr[-500:]}"
    return None


def needs_mpi():
    reason = mpi_unavailable()
    if reason:
        pytest.skip(reason)


def env(unset=()):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = e["OPENBLAS_NUM_THREADS"] = "1"
    for name in unset:
        e.pop(name, None)
    e.setdefault("SPORE_NATIVE", "0")
    e["PYTHONPATH"] = str(pathlib.Path(__file__).resolve().parents[2])
    return e


def run(script, *args, n=2, timeout=120, check=True, launcher=None, cwd=None, unset=()):
    """Run ``workers/<script>`` (or a path) on ``n`` ranks; returns the CompletedProcess.
    With ``check``, a non-zero exit fails the test showing the workers' output. ``unset``:
    environment variables the workers do not get."""
    needs_mpi()
    from spore.communication.launch import find_mpiexec
    path = script if os.path.isabs(str(script)) else WORKERS / script
    cmd = launcher or [find_mpiexec(), "-n", str(n)]
    cmd = list(cmd) + [sys.executable, str(path)] + [str(a) for a in args]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env(unset),
                           cwd=cwd)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{script} on {n} ranks did not finish within {timeout} s:\n"
                    f"{e.stdout}\n{e.stderr}")
    if check and r.returncode:
        pytest.fail(f"{script} on {n} ranks exited with {r.returncode}:\n{r.stdout[-4000:]}\n"
                    f"{r.stderr[-4000:]}")
    return r
