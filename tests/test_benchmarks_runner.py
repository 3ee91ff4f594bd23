"""CI smoke run of the benchmark runner on a tiny setting (no timing is asserted)."""
import json
import subprocess
import sys

from tests.conftest import ROOT


def test_runner_quick_smoke(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                        "--workloads", "W0,W1a", "--systems", "spore,numpy",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    spore = {(x["workload"], x["mode"]): x for x in recs if x["framework"] == "spore"}
    assert spore[("W0", "pynative")]["check"] == 10000.0
    assert spore[("W0", "pynative")]["repeats"] >= 3
    assert "us_per_op" in spore[("W0", "pynative")]
    # workloads whose features do not exist yet say so instead of vanishing
    assert "error" in spore[("W1a", "jit")]
    report = (tmp_path / "report.md").read_text()
    assert "W0 dispatch" in report and "spore" in report
