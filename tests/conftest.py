"""Test-suite set-up: a bounded hypothesis profile, context reset between tests,
and the location of the shared seed programs (tests using them skip without it)."""
import os
import pathlib
import tempfile

import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="spore-numba-"))
os.environ.setdefault("SPORE_CACHE_DIR", tempfile.mkdtemp(prefix="spore-cache-"))  # kernels
os.environ.setdefault("SPORE_NATIVE", "sync")   # compiled-path tests must run compiled code
os.environ.setdefault("SPORE_JIT_VERIFY", "1")   # the IR verifier after every compiler pass

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", max_examples=25, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

import spore  # noqa: E402
from spore import _context  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = pathlib.Path(os.environ.get("SPORE_SHARED", ROOT.parent / "shared"))


# SPORE_TEST_MODE=graph runs a test selection with GRAPH_MODE as the starting mode (every
# Cell call compiles): tests/jit/test_suite_in_graph_mode.py uses it for nn and training.
_START_GRAPH = os.environ.get("SPORE_TEST_MODE") == "graph"


@pytest.fixture(autouse=True)
def _reset_context():
    if _START_GRAPH:
        _context.set_context(mode=_context.GRAPH_MODE)
    yield
    _context.reset_for_tests()


@pytest.fixture(autouse=True)
def _restore_random_state(request):
    """Each test starts from a random state of its own, fixed by its name: what an
    unseeded test draws (initial weights, dropout masks) then depends neither on the
    tests that ran before it nor on the run, so a selection, another order or a rerun
    sees the same numbers. No global seed is set (``get_seed()`` stays None), and tests
    that call set_seed do not change what later tests draw."""
    import random
    import zlib

    import numpy as np
    from spore import _random
    from spore.dataset import config as ds_config
    saved = (_random._global_seed, _random.get_state(), np.random.get_state(),
             ds_config._seed, ds_config._seed_set)
    start = zlib.crc32(request.node.nodeid.encode())
    _random.set_state((start, 0))
    np.random.seed(start)
    random.seed(start)
    yield
    _random._global_seed = saved[0]
    _random.set_state(saved[1])
    np.random.set_state(saved[2])
    ds_config._seed, ds_config._seed_set = saved[3], saved[4]


@pytest.fixture
def shared_dir():
    if not (SHARED / "seed_programs").is_dir():
        pytest.skip("../shared/seed_programs is not present (a user's clone)")
    return SHARED
