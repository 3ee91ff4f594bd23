"""Each dataset test starts from the default pipeline configuration."""
import os

import pytest

from spore.dataset import config
from spore.dataset.engine import checks
from spore.dataset.engine.randomness import EAGER


@pytest.fixture(autouse=True)
def _restore_dataset_config():
    saved = dict(vars(config))
    yield
    for name in ("_seed", "_seed_set", "_num_parallel_workers", "_prefetch_size",
                 "_start_method"):
        setattr(config, name, saved[name])
    EAGER.reseed()


@pytest.fixture(autouse=True)
def _allow_four_workers(monkeypatch):
    """num_parallel_workers may not exceed the CPU count (MindSpore's rule); the parallel
    tests use up to 3 workers, so on smaller machines the limit is lifted to 4 to run
    them the same everywhere (test_num_parallel_workers.py checks the real rule)."""
    monkeypatch.setattr(checks, "cpu_count", lambda: max(4, os.cpu_count() or 1))
