"""NumPy's OpenBLAS threads restarted with a short spin at import where SPORE_BLAS_SPIN
asks (NOTE: [BLAS spin] in spore/_core/threads.py): they stop using a core soon after a
product, the user's own setting wins, and results do not change."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from spore._core import threads
from spore._core.backend import _numpy_blas
from tests.helpers.blas import blas_threads
from tests.conftest import ROOT

needs_openblas = pytest.mark.skipif(
    getattr(_numpy_blas(), "blas_thread_shutdown_", None) is None,
    reason="NumPy's BLAS is not an OpenBLAS with blas_thread_shutdown_")

PROBE = """
    import os, time, numpy as np
    a = np.random.default_rng(0).random((600, 600), dtype=np.float32)
    before = a @ a
    import spore
    from spore._core import threads
    after = a @ a
    cpu = []
    for _ in range(5):
        a @ a
        c = time.process_time()
        time.sleep(0.05)
        cpu.append(time.process_time() - c)
    print(threads._blas_spin, sorted(cpu)[2], bool((before == after).all()),
          "OPENBLAS_THREAD_TIMEOUT" in os.environ)
"""


def _probe(**env):
    full = {k: v for k, v in os.environ.items()
            if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT", "SPORE_BLAS_SPIN")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(PROBE)], cwd=ROOT, env=full,
                         capture_output=True, text=True, timeout=300, check=True).stdout.split()
    spin = None if out[0] == "None" else int(out[0])
    return spin, float(out[1]), out[2] == "True", out[3] == "True"


@needs_openblas
def test_threads_sleep_soon_after_a_product_and_results_do_not_change():
    spin, idle_cpu, same, leaked = _probe(SPORE_BLAS_SPIN="18")
    assert spin == 18
    # a worker spinning through the 50 ms sleep would add up to 50 ms of CPU time
    assert idle_cpu < 0.01
    assert same and not leaked


@needs_openblas
@pytest.mark.parametrize("env,expected", [
    ({}, None),                                             # off by default
    ({"SPORE_BLAS_SPIN": "0"}, None),                       # OpenBLAS's own spin
    ({"OPENBLAS_THREAD_TIMEOUT": "26", "SPORE_BLAS_SPIN": "12"}, None),   # the user's wins
    ({"SPORE_BLAS_SPIN": "12"}, 12),
    ({"SPORE_BLAS_SPIN": "99"}, 30),                        # clipped to OpenBLAS's range
])
def test_settings(env, expected):
    spin, _, same, leaked = _probe(**env)
    assert spin == expected and same
    assert leaked == ("OPENBLAS_THREAD_TIMEOUT" in env)


@needs_openblas
def test_settling_again_keeps_products_working(monkeypatch):
    a = np.random.default_rng(1).random((300, 300), dtype=np.float32)
    want = a @ a
    monkeypatch.setenv("SPORE_BLAS_SPIN", "18")
    monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    assert threads.settle_blas_threads() == 18
    np.testing.assert_array_equal(a @ a, want)


@needs_openblas
def test_more_blas_threads_after_settling(monkeypatch):
    """The threads run again after settling, so adding threads later (MPI ranks and
    users call openblas_set_num_threads) grows a running pool."""
    control = blas_threads()
    if control is None:
        pytest.skip("no openblas_set_num_threads")
    setn, getn = control
    a = np.random.default_rng(2).random((700, 700), dtype=np.float32)
    want = a.astype(np.float64) @ a.astype(np.float64)
    before = getn()
    monkeypatch.setenv("SPORE_BLAS_SPIN", "18")
    threads.settle_blas_threads()
    try:
        setn(before + 2)
        np.testing.assert_allclose(a @ a, want, rtol=1e-4)
    finally:
        setn(before)
    np.testing.assert_allclose(a @ a, want, rtol=1e-4)
