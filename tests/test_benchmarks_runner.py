"""CI smoke run of the benchmark runner on a tiny setting (no timing is asserted)."""
import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def _benchmarks_module(name):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def test_runner_quick_smoke(tmp_path):
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
                        "--workloads", "W0,W1a", "--systems", "spore,numpy", "--passes", "2",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    recs = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    # two passes, each measuring every system of a workload before the next workload
    assert [(x["workload"], x["framework"], x["pass"]) for x in recs if x["mode"] != "jit"
            and x["mode"] != "jit_O1"] == [
        ("W0", "spore", 0), ("W0", "numpy", 0), ("W0", "numpy", 1), ("W0", "spore", 1),
        ("W1a", "spore", 0), ("W1a", "numpy", 0), ("W1a", "numpy", 1), ("W1a", "spore", 1)]
    spore = {(x["workload"], x["mode"]): x for x in recs if x["framework"] == "spore"}
    assert spore[("W0", "pynative")]["check"] == 10000.0
    assert spore[("W0", "pynative")]["repeats"] >= 3
    assert "us_per_op" in spore[("W0", "pynative")]
    # the compiled mode computes what PyNative computes (the shared check value)
    assert spore[("W1a", "jit")]["check"] == pytest.approx(spore[("W1a", "pynative")]["check"],
                                                           rel=1e-6, abs=1e-12)
    assert spore[("W1a", "jit")]["repeats"] >= 3
    report = (tmp_path / "report.md").read_text()
    assert "W0 dispatch" in report and "spore" in report
    assert "Summary" in report and "2 passes" in report
    assert "| W1a |" in report.split("Ratios the issues target")[1]      # O0 ÷ PyNative


def test_passes_rotate_and_run_cold_modes_once():
    run = _benchmarks_module("run")
    entries = [("a", "pynative", None, None), ("b", "eager", None, None),
               ("a", "pynative_cold", None, None)]
    order = [(p, e[0] + ":" + e[1]) for p, e in run._interleaved(entries, 3)]
    assert order == [(0, "a:pynative"), (0, "b:eager"), (0, "a:pynative_cold"),
                     (1, "b:eager"), (1, "a:pynative"),
                     (2, "a:pynative"), (2, "b:eager")]
    assert [p for p, _ in run._interleaved(entries[:1], 1)] == [0]


def test_merged_passes_pair_ratios_within_a_pass():
    report = _benchmarks_module("report")
    recs = [_rec("spore", "pynative", "W3", 2.0, 50.0, other_load=0.01, **{"pass": 0}),
            _rec("torch", "eager", "W3", 4.0, **{"pass": 0}),
            # the machine got twice as slow in pass 1: both systems' times doubled
            _rec("spore", "pynative", "W3", 4.0, 70.0, other_load=0.03, **{"pass": 1}),
            _rec("torch", "eager", "W3", 8.0, **{"pass": 1}),
            _rec("spore", "pynative", "W3", 3.0, 60.0, other_load=0.02, **{"pass": 2}),
            _rec("torch", "eager", "W3", 2.0, **{"pass": 2})]
    merged = {(r["framework"], r["mode"]): r for r in report.merge_passes(recs)}
    spore, torch = merged[("spore", "pynative")], merged[("torch", "eager")]
    assert (spore["median_ms"], spore["min_ms"], spore["max_ms"]) == (3.0, 2.0, 4.0)
    assert spore["first_call_ms"] == 60.0 and spore["other_load"] == 0.03
    assert spore["passes"] == 3 and spore["by_pass"] == {0: 2.0, 1: 4.0, 2: 3.0}
    assert report.pass_ratios(spore, torch) == [0.5, 0.5, 1.5]
    # the median of same-pass ratios (0.5), not the ratio of medians (3 / 4)
    assert report._pair(spore, torch) == "0.50 (0.50–1.50)"
    rows = "\n".join(report.target_ratios(list(merged.values())))
    assert "| W3 | 0.50 (0.50–1.50) |" in rows
    # records of a one-pass run keep their plain ratio
    assert report._pair(_rec("spore", "jit", "W3", 3.0), _rec("spore", "pynative", "W3", 2.0)) \
        == "1.50"


def test_gpu_request_without_gpu_backend_is_skipped_not_relabelled(tmp_path):
    import os
    env = dict(os.environ, SPORE_BENCH_DEVICE="GPU", SPORE_BENCH_QUICK="1")
    r = subprocess.run([sys.executable, "bench_spore.py", "W0", "pynative"],
                       cwd=ROOT / "benchmarks", env=env, capture_output=True, text=True,
                       timeout=120)
    rec = json.loads(r.stdout.strip().splitlines()[-1])
    import spore as ms
    with pytest.warns(RuntimeWarning):
        ms.set_context(device_target="GPU")
    if ms.get_context("device_target") == "GPU":
        pytest.skip("this machine has a GPU backend")
    assert rec["device"] == "GPU" and "no GPU backend" in rec["error"]
    assert "median_ms" not in rec


def _rec(fw, mode, wl, ms_, first=None, **kw):
    return dict(framework=fw, mode=mode, workload=wl, median_ms=ms_, min_ms=ms_, max_ms=ms_,
                first_call_ms=first, **kw)


def test_report_summary_ratios_and_compile_times():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.pop(0)
    recs = [_rec("spore", "pynative", "W3", 3.0), _rec("torch", "eager", "W3", 2.0),
            _rec("numpy", "numpy", "W3", 6.0), _rec("torch", "compile", "W3", 1.0, 900.0),
            dict(framework="spore", mode="jit", workload="W3", error="not yet available")]
    summary = "\n".join(report.summary(recs))
    row = next(ln for ln in summary.splitlines() if ln.startswith("| W3 "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # Spore 3 ms: ÷ NumPy 0.50, ÷ torch eager 1.50, ÷ torch.compile 3.00, others absent
    assert cells[:5] == ["W3", "3.00", "0.50", "1.50", "3.00"] and cells[5:] == ["-"] * 3
    compile_rows = "\n".join(report.compile_times(recs))
    assert "| torch | compile | - | 900 | - | - |" in compile_rows
    assert "| spore | jit | - | not yet available | - | - |" in compile_rows


def test_report_shows_cold_and_warm_first_steps():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
        import run
    finally:
        sys.path.pop(0)
    assert run.applies("W4", "spore", "pynative_cold")
    assert not run.applies("W3", "spore", "pynative_cold")
    recs = [_rec("spore", "pynative", "W4", 5.0, 40.0), _rec("spore", "pynative_cold", "W4",
                                                              6.0, 900.0)]
    rows = "\n".join(report.first_steps(recs))
    assert "| W4 | 900 | 40.00 | 5.00 |" in rows
    assert report.first_steps(recs[:1]) == []


def test_import_row_measures_fresh_interpreters():
    import os
    env = dict(os.environ, SPORE_BENCH_QUICK="1")
    r = subprocess.run([sys.executable, "bench_spore.py", "import", "pynative"],
                       cwd=ROOT / "benchmarks", env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout.strip().splitlines()[-1])
    assert rec["workload"] == "import" and rec["repeats"] == 3
    assert 0 < rec["min_ms"] <= rec["median_ms"] <= rec["max_ms"]
    # each import is part of its process, so the medians keep that order (the slowest
    # import may well outlast the median process on a loaded machine)
    assert rec["median_ms"] < rec["process_ms"]
    assert rec["numpy_ms"] > 0 and rec["check"] > 100          # modules loaded
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import report
    finally:
        sys.path.pop(0)
    table = "\n".join(report.tables([rec]))
    assert "`import spore` in a fresh interpreter" in table and "`import numpy` alone" in table
