"""The training demo (reduced with --quick) and the example script run under `spore run`."""
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("sklearn", reason="the demo reads scikit-learn's bundled digits")

from spore import demo  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_demo_quick(tmp_path, capsys):
    assert demo.main(["--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Training LeNet on 1438 digits (359 held out), 2 epoch(s), batch 32" in out
    assert re.search(r"\rEpoch 2/2 \[=+\] 45/45 loss: \d+\.\d{4} [\d.]+ ms/step \d+ samples/s\n",
                     out)
    assert re.search(r"Train epoch time: [\d.]+ ms, per step time: [\d.]+ ms", out)
    accuracy = float(re.search(r"Test accuracy: (\d\.\d{4})", out)[1])
    assert accuracy > 0.75                      # two epochs (0.83 with seed 1); chance is 0.1
    assert "predictions identical" in out
    assert (tmp_path / "lenet_digits.ckpt").exists()


def test_example_runs_under_spore_run(tmp_path):
    run = subprocess.run([sys.executable, "-m", "spore", "run",
                          str(ROOT / "examples" / "lenet_digits.py"), "--epochs", "1",
                          "--limit", "256"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert re.search(r"epoch: 1 step: 8, loss is [\d.]+\n", run.stdout)
    assert re.search(r"Checkpoint .*lenet\.ckpt reloaded, same predictions: True", run.stdout)
