"""Each dataset test starts from the default pipeline configuration."""
import pytest

from spore.dataset import config
from spore.dataset.engine.randomness import EAGER


@pytest.fixture(autouse=True)
def _restore_dataset_config():
    saved = dict(vars(config))
    yield
    for name in ("_seed", "_seed_set", "_num_parallel_workers", "_prefetch_size",
                 "_start_method"):
        setattr(config, name, saved[name])
    EAGER.reseed()
