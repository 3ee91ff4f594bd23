"""The first step's start-up with Numba: what it imports (NOTE: [Numba without
scipy.linalg] in spore/_native.py)."""
import os
import subprocess
import sys
import textwrap

import pytest

from spore import _native

pytestmark = pytest.mark.skipif(not _native.installed(), reason="needs Numba (the fast extra)")


def _run(script):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_loading_numba_does_not_import_scipy_linalg_and_numba_still_works():
    pytest.importorskip("scipy")
    out = _run("""
        import sys
        import numpy as np
        from spore import _native
        _native.import_numba()
        print("scipy.linalg" in sys.modules)
        import numba

        @numba.njit(cache=False)
        def f(a):
            return np.dot(a, a) + np.cov(a)[()]
        print(f(np.arange(4.0)))          # BLAS still loads where Numba code asks
        print("scipy.linalg" in sys.modules)
    """)
    assert out == ["False", str(14.0 + 5.0 / 3.0), "True"]


def test_scipy_linalg_is_refused_only_to_the_loading_thread():
    finder = _native._NoScipyLinalg()
    with pytest.raises(ImportError):
        finder.find_spec("scipy.linalg.cython_blas")
    assert finder.find_spec("scipy.special") is None
    import threading
    seen = []
    t = threading.Thread(target=lambda: seen.append(finder.find_spec("scipy.linalg")))
    t.start()
    t.join()
    assert seen == [None]


def test_an_already_imported_scipy_linalg_is_left_alone():
    pytest.importorskip("scipy")
    out = _run("""
        import sys
        import scipy.linalg
        from spore import _native
        _native.import_numba()
        import numba.np.arraymath as am
        print(am._HAVE_BLAS)
    """)
    assert out == ["True"]
