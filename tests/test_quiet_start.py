"""A quiet, quick start: no NumPy RuntimeWarnings from Spore's kernels (MindSpore prints
none), the user's own NumPy keeps warning, and ``import spore`` loads no SciPy/Numba."""
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from tests.conftest import ROOT


def _run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


KERNELS = """
    import numpy as np
    import spore as ms
    from spore import ops, Tensor
    f32 = lambda *v: Tensor(np.array(v, np.float32))
    empty = Tensor(np.zeros((0, 3), np.float32))

    def kernels():
        ops.mean(empty, 0)                                  # "Mean of empty slice"
        ops.var(empty, 0)
        ops.std(empty, 0)
        ops.cumsum(f32(np.inf, -np.inf), 0)                 # inf - inf inside NumPy
        ops.det(Tensor(np.full((2, 2), np.nan, np.float32)))
        ops.log(f32(0.0))
        f32(0.0) / f32(0.0)
        ops.exp(f32(1e30))
        ops.sqrt(f32(-1.0))
        ms.nn.BCELoss()(Tensor(np.zeros((0,), np.float32)), Tensor(np.zeros((0,), np.float32)))
"""


def test_kernels_print_no_numpy_runtime_warnings_in_any_thread():
    r = _run(KERNELS + """
    from concurrent.futures import ThreadPoolExecutor
    import threading
    kernels()
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda _: kernels(), range(2)))
    t = threading.Thread(target=kernels)
    t.start(); t.join()
    print("done")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "done" and r.stderr == ""


def test_user_numpy_code_keeps_numpy_warnings_and_error_state():
    r = _run(KERNELS + """
    state = np.geterr()
    kernels()
    assert np.geterr() == state, np.geterr()
    np.mean(np.zeros(0))                 # the user's own calls warn as without Spore
    np.log(np.zeros(1))
    """)
    assert r.returncode == 0, r.stderr
    assert "Mean of empty slice" in r.stderr and "divide by zero encountered in log" in r.stderr


@pytest.fixture
def spore_filter():
    """pytest restores the warning filters saved before collection (which imported
    Spore) around each test: install Spore's again, inside this test's filters."""
    ms._quiet.install()


class _UserConstruct(nn.Cell):
    def construct(self, x):
        np.log(np.zeros(1))              # user code run by Spore: NumPy warns as usual
        return ops.log(x * 0)           # Spore's kernel: quiet


def test_user_code_called_by_spore_still_warns(spore_filter):
    with warnings.catch_warnings(record=True) as seen:
        out = _UserConstruct()(Tensor(np.ones(2, np.float32)))
    assert np.isneginf(out.asnumpy()).all()
    assert [(str(w.message), w.filename) for w in seen] == \
        [("divide by zero encountered in log", __file__)]


def test_users_can_still_see_the_hidden_warnings(spore_filter):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", RuntimeWarning)   # newer filters come first
        ops.mean(Tensor(np.zeros((0,), np.float32)))
    assert any("Mean of empty slice" in str(w.message) for w in seen)


def test_import_spore_does_not_import_scipy_or_numba():
    r = _run("""
    import sys
    import spore
    heavy = sorted(m for m in ("scipy", "numba", "sklearn", "PIL", "matplotlib")
                   if m in sys.modules)
    print(heavy, "multiprocessing" in sys.modules)
    print(spore.dataset.GeneratorDataset.__name__, "dataset" in dir(spore))
    """)
    assert r.returncode == 0, r.stderr
    # spore.dataset (multiprocessing & co.) is imported on first use
    assert r.stdout.split("\n")[:2] == ["[] False", "GeneratorDataset True"]


def test_special_functions_load_scipy_on_first_use():
    x = Tensor(np.array([0.5, 2.0], np.float32))
    np.testing.assert_allclose(ops.lgamma(x).asnumpy(), [0.5723649, 0.0], atol=1e-6)
    np.testing.assert_allclose(ops.digamma(x).asnumpy(), [-1.9635100, 0.4227843], rtol=1e-6)
    np.testing.assert_allclose(ops.polygamma(Tensor(1), x).asnumpy(), [4.934802, 0.6449341],
                               rtol=1e-6)
    np.testing.assert_allclose(ops.erfinv(Tensor(np.array([0.5], np.float32))).asnumpy(),
                               [0.4769363], rtol=1e-6)


def test_pyproject_license_is_an_spdx_string():
    """setuptools >= 77 prints a multi-screen deprecation warning on every install for
    the old ``license = {text = ...}`` table (./dev demo, ./dev test on a fresh clone)."""
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in data["build-system"]["requires"]     # reads SPDX strings
