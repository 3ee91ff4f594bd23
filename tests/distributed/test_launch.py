"""Launching: msrun, mpirun + python, `spore run` under mpirun, and faults."""
import os
import subprocess
import sys
import time

import pytest

from spore.communication import launch as L

from . import launch

HELLO = launch.WORKERS / "hello_mindspore.py"


def _msrun(*args, timeout=120):
    launch.needs_mpi()
    cmd = [sys.executable, "-m", "spore.communication.launch", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=launch.env())


def test_msrun_writes_one_log_per_worker(tmp_path):
    logs = tmp_path / "logs"
    r = _msrun("--worker_num=2", "--local_worker_num=2", f"--log_dir={logs}",
               HELLO)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(logs)) == ["worker_0.log", "worker_1.log"]
    for rank in (0, 1):
        assert f"rank {rank} of 2 sum 3" in (logs / f"worker_{rank}.log").read_text()


def test_msrun_join_shows_output_and_logs(tmp_path):
    logs = tmp_path / "logs"
    r = _msrun("--worker_num=2", "--join=True", f"--log_dir={logs}",
               HELLO)
    assert r.returncode == 0, r.stderr
    assert "rank 0 of 2 sum 3" in r.stdout and "rank 1 of 2 sum 3" in r.stdout
    assert "rank 1 of 2 sum 3" in (logs / "worker_1.log").read_text()


def test_spore_run_under_mpirun():
    launch.needs_mpi()
    cmd = [L.find_mpiexec(), "-n", "2", sys.executable, "-m", "spore", "run", str(HELLO)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=launch.env())
    assert r.returncode == 0, r.stderr
    assert "rank 0 of 2 sum 3" in r.stdout and "rank 1 of 2 sum 3" in r.stdout


def test_mpirun_runs_a_script_on_two_ranks():
    """``mpirun -n 2 python train.py`` (MPICH's other name for its launcher)."""
    mpirun = os.path.join(os.path.dirname(L.find_mpiexec()), "mpirun")
    if not os.path.exists(mpirun):
        pytest.skip("no mpirun next to mpiexec")
    r = launch.run("hello_spore.py", launcher=[mpirun, "-n", "2"])
    assert "rank 0 of 2 sum 3" in r.stdout and "rank 1 of 2 sum 3" in r.stdout


def test_msrun_rejects_multi_host_and_bad_counts():
    with pytest.raises(SystemExit, match="hosts file"):
        L.main(["--worker_num=4", "--local_worker_num=2", "x.py"])
    with pytest.raises(SystemExit, match="positive"):
        L.main(["--worker_num=0", "x.py"])


@pytest.mark.parametrize("mode", ["collective", "bucket", "before_init"])
def test_a_raising_rank_ends_the_job_with_its_message(mode):
    start = time.monotonic()
    r = launch.run("fault.py", mode, timeout=60, check=False)
    took = time.monotonic() - start
    assert r.returncode != 0
    assert took < 30, took
    want = "rank one failed before init" if mode == "before_init" else \
        "rank one failed on purpose"
    assert want in r.stderr
    assert "aborting the job" in r.stderr


@pytest.mark.slow
def test_example_trains_with_msrun(tmp_path):
    pytest.importorskip("sklearn")
    example = launch.WORKERS.parents[2] / "examples" / "lenet_digits_dp.py"
    r = _msrun("--worker_num=2", "--local_worker_num=2", f"--log_dir={tmp_path / 'logs'}",
               "--join=True", example, "--epochs", "1", "--ckpt_dir", tmp_path / "ckpt",
               timeout=240)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "rank 0/2: 45 steps per epoch" in r.stdout
    assert "rank 1/2: 45 steps per epoch" in r.stdout
    assert os.listdir(tmp_path / "ckpt") == ["lenet-1_45.ckpt"]
