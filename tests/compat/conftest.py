"""Programs seed the global random state (``ms.set_seed``) so that their random initial
values repeat; each test here puts the state back, so the rest of the suite sees its
defaults (e.g. the dataset seed 5489)."""
import random

import numpy as np
import pytest

from spore import _random
from spore.dataset import config as ds_config


@pytest.fixture(autouse=True)
def _restore_random_state():
    spore_state = (_random._global_seed, _random._base, _random._counter)
    dataset_state = (ds_config._seed, ds_config._seed_set)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    yield
    _random._global_seed, _random._base, _random._counter = spore_state
    ds_config._seed, ds_config._seed_set = dataset_state
    np.random.set_state(numpy_state)
    random.setstate(python_state)
