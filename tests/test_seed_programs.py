"""The seed documents' programs, run unmodified with `spore run` in a temporary directory.

Each program's expected output is the table in ../shared/seed_programs/README.md. Programs
that use Graph mode must compile without falling back to PyNative (the warning a fallback
prints fails them), except the deliberate NumPy call of seed001's ``error_func``.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest



def run_seed(shared_dir, name, tmp_path, timeout=600, fallbacks=()):
    """Run a seed program; its stdout. Every compiled function must compile: a fallback to
    PyNative (its warning) fails the test unless the function is named in ``fallbacks``."""
    path = shared_dir / "seed_programs" / name
    env = dict(os.environ, PYTHONWARNINGS="default")
    r = subprocess.run([sys.executable, "-m", "spore", "run", str(path)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=timeout, env=env)
    assert r.returncode == 0, f"{name} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    fell_back = re.findall(r"ms\.jit could not compile '([^']+)'", r.stderr)
    assert sorted(fell_back) == sorted(fallbacks), f"{name}: fell back: {r.stderr[-3000:]}"
    return r.stdout


TWOS = "[[2. 2.]\n [2. 2.]]"
FOURS = "[[4. 4.]\n [4. 4.]]"


def _matrix_rows(text):
    """Rows of a printed NumPy matrix (rows may wrap over several lines)."""
    body = text[text.index("["):text.rindex("]") + 1]
    rows = re.findall(r"\[([^\[\]]+)\]", body)
    return [np.array(r.split(), dtype=float) for r in rows]


def _check_identical_rows(out):
    rows = _matrix_rows(out)
    assert len(rows) == 64 and all(r.shape == (10,) for r in rows)
    assert all(np.isfinite(r).all() for r in rows)
    # The rows are the same product of identical inputs, but a BLAS may compute rows in
    # different kernel paths (block edges, AVX2 vs AVX-512 tiles): equal to float32 rounding.
    assert all(np.allclose(r, rows[0], rtol=1e-5, atol=1e-6) for r in rows)


def test_seed000_pynative_debug(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed000_pynative_debug.py", tmp_path)
    assert f"Debug Info - Intermediate value z: {TWOS}" in out
    assert f"Final Output:\n{FOURS}" in out


def test_seed000_graph_switch(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed000_graph_switch.py", tmp_path)
    assert f"Debug Info - Intermediate value z: {TWOS}" in out
    assert f"Final Output:\n{FOURS}" in out
    assert f"Graph Mode Output:\n{FOURS}" in out


def test_seed000_jit_train_step(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed000_jit_train_step.py", tmp_path)
    assert "Start warmup (Graph Compilation)..." in out and "Warmup done." in out
    assert re.search(r"100 steps finished\. Average time per step: [\d.]+ ms", out)


def test_seed001_jit_speedup(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed001_jit_speedup.py", tmp_path)
    assert re.search(r"PyNative Mode Time Cost: [\d.]+ seconds", out)
    assert "Compiling graph..." in out and "Compilation done." in out
    assert re.search(r"Graph Mode \(@jit\) Time Cost: [\d.]+ seconds", out)


def test_seed001_jit_syntax_snippets(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed001_jit_syntax_snippets.py", tmp_path,
                   fallbacks=["error_func"])
    assert "correct_func: [0.0, 0.9794, 1.8415]" in out
    assert "error_func raised: TypeError" in out
    assert "save_graphs context set" in out


def test_seed002_attention_pynative(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed002_attention_pynative.py", tmp_path)
    for line in ("Input shape: (2, 196, 256)", "Attention shape: (2, 8, 196, 196)",
                 "Output shape: (2, 196, 256)", "Gradient shape: (2, 196, 256)",
                 "Dynamic graph debugging completed!"):
        assert line in out


def test_seed002_mixed_jit_attention(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed002_mixed_jit_attention.py", tmp_path)
    for line in ("Dynamic debug: Input shape (2, 196, 256)",
                 "Dynamic debug: Q shape (2, 8, 196, 32)",
                 "Dynamic debug: Attention output shape (2, 8, 196, 32)",
                 "Mixed mode output shape: (2, 196, 256)", "Mixed mode test completed!"):
        assert line in out


@pytest.mark.slow
def test_seed002_vit_graph_train(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed002_vit_graph_train.py", tmp_path)
    losses = [float(v) for v in re.findall(r"Epoch \[\d/2\], Average Loss: ([\d.]+)", out)]
    assert len(losses) == 2 and all(np.isfinite(losses))
    assert "Training completed! Model saved." in out
    import spore as ms
    params = ms.load_checkpoint(str(tmp_path / "vit_ascend.ckpt"))
    assert len(params) == 11


def test_seed003_value_and_grad_train(shared_dir, tmp_path):
    out = run_seed(shared_dir, "seed003_value_and_grad_train.py", tmp_path)
    assert "Start training on Ascend..." in out
    losses = re.findall(r"Epoch: (\d), Loss: ([\d.eE+-]+)", out)
    assert [int(e) for e, _ in losses] == [1, 2, 3, 4, 5]


def test_seed004_pynative_network(shared_dir, tmp_path):
    _check_identical_rows(run_seed(shared_dir, "seed004_pynative_network.py", tmp_path))


def test_seed004_graph_mode_network(shared_dir, tmp_path):
    _check_identical_rows(run_seed(shared_dir, "seed004_graph_mode_network.py", tmp_path))


def test_seed004_jit_decorator(shared_dir, tmp_path):
    _check_identical_rows(run_seed(shared_dir, "seed004_jit_decorator.py", tmp_path))


def test_seed004_jit_function_call(shared_dir, tmp_path):
    _check_identical_rows(run_seed(shared_dir, "seed004_jit_function_call.py", tmp_path))


def test_seed004_jit_construct(shared_dir, tmp_path):
    _check_identical_rows(run_seed(shared_dir, "seed004_jit_construct.py", tmp_path))
