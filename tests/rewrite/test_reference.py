"""The same network edited the same way gives MindSpore 2.10's nodes (names, types,
targets, arguments, users), sub-tree and regenerated construct (when the reference
MindSpore is installed; tests/rewrite/reference_net.py runs under either framework)."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
MS_PYTHON = next((p for p in map(pathlib.Path, (os.environ.get("SPORE_MS_PYTHON", ""),
                                                 "/work/msref/bin/python",
                                                 "/work/venvs/ms/bin/python"))
                  if str(p) != "." and p.exists()), pathlib.Path("/nonexistent"))


def _run(python, framework):
    proc = subprocess.run([str(python), str(HERE / "reference_net.py"), framework],
                          capture_output=True, text=True, timeout=600,
                          cwd=HERE.parents[1])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not MS_PYTHON.exists(), reason="the reference MindSpore is not installed")
def test_nodes_and_code_match_mindspore():
    ours, theirs = _run(sys.executable, "spore"), _run(MS_PYTHON, "mindspore")
    assert ours["rows"] == theirs["rows"]
    assert ours["sub"] == theirs["sub"]
    assert ours["construct"] == theirs["construct"]
