"""``set_seed`` / ``get_seed`` and the one random state (MindSpore 2.10 semantics, probed):
the same seed repeats every random op and initializer, op seeds repeat from run to
run, and unseeded programs differ between runs."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore import _random as R
from spore.common.initializer import Sparse, initializer

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture
def new_process():
    """Simulates a fresh process (no set_seed, a random base); restores the state after."""
    saved = (R._global_seed, R._base, R._counter)

    def start(base):
        R._global_seed, R._base, R._counter = None, base, 0

    yield start
    R._global_seed, R._base, R._counter = saved


# --------------------------------------------------------------------------- set_seed / get_seed
def test_set_seed_and_get_seed():
    assert ms.set_seed(42) is None
    assert ms.get_seed() == 42
    assert ms.common.get_seed() == 42


def test_get_seed_is_none_until_set(new_process):
    new_process(123)
    assert ms.get_seed() is None


@pytest.mark.parametrize("seed,exc,match", [
    (1.0, TypeError, r"The argument 'seed' must be type of int, but got <class 'float'>\."),
    ("1", TypeError, "must be type of int"),
    (True, TypeError, "For 'global_seed', the 'seed' must be int and must >= 0, but got 'True' "
                      "with type 'bool'."),
    (-1, ValueError, "For 'global_seed', the 'seed' must be int and must >= 0, but got '-1' "
                     "with type 'int'."),
    (2 ** 32, ValueError, r"Seed must be between 0 and 2\*\*32 - 1"),
])
def test_set_seed_rejects_bad_seeds(seed, exc, match):
    with pytest.raises(exc, match=match):
        ms.set_seed(seed)


def test_set_seed_seeds_numpy():
    ms.set_seed(3)
    a = np.random.rand(4)
    ms.set_seed(3)
    np.testing.assert_array_equal(a, np.random.rand(4))


# --------------------------------------------------------------------------- every op repeats
def _every_random_op():
    x = Tensor(np.zeros((6, 5), np.float32))
    w = Tensor(np.arange(1, 9, dtype=np.float32))
    outs = [
        ops.uniform((6, 5), Tensor(0.), Tensor(1.)),
        ops.uniform((6, 5), Tensor(0, ms.int32), Tensor(1000, ms.int32), dtype=ms.int32),
        ops.normal((6, 5), 1.0, 2.0), ops.standard_normal((6, 5)),
        ops.rand(6, 5), ops.randn(6, 5, dtype=ms.float64),
        ops.rand_like(x), ops.randn_like(x), ops.uniform_like(x, -1, 1), ops.normal_like(x),
        ops.exponential_like(x), ops.random_like(x, 0, 1000),
        ops.randint(0, 1000, (6, 5)), ops.randint_like(Tensor(np.zeros(30, np.int32)), 0, 1000),
        ops.randperm(30, seed=-1), ops.shuffle(Tensor(np.arange(30))),
        ops.bernoulli(x), ops.multinomial(w, 30), ops.multinomial(w, 8, False),
        ops.gamma((30,), Tensor(2.0), Tensor(1.0)), ops.poisson((30,), Tensor(50.0)),
        ops.choice_with_mask(Tensor(np.ones(30, bool)), 10)[0],
        ops.random_gamma(Tensor([30]), Tensor(2.0)), ops.random_poisson(Tensor([30]), Tensor(9.)),
        ops.standard_laplace((30,)), ops.laplace((30,), Tensor(0.), Tensor(1.)),
        ops.random_categorical(Tensor(np.zeros((3, 4), np.float32)), 10),
        Tensor(np.full(30, 0.5, np.float32)).bernoulli(),
        Tensor(np.zeros(30, np.float32)).uniform_(), Tensor(np.zeros(30, np.float32)).normal_(),
        Tensor(np.zeros(30, np.float32)).random_(),
    ]
    outs += [initializer(i, (6, 5)) for i in ('normal', 'uniform', 'truncatedNormal',
                                              'xavier_uniform', 'xavier_normal', 'he_uniform',
                                              'he_normal', 'orthogonal', 'variancescaling')]
    outs.append(initializer(Sparse(0.5, 1.0), (6, 5)))
    return [o.asnumpy().copy() for o in outs]


def test_same_seed_repeats_every_random_op_and_initializer():
    ms.set_seed(11)
    first = _every_random_op()
    ms.set_seed(11)
    again = _every_random_op()
    for i, (a, b) in enumerate(zip(first, again)):
        np.testing.assert_array_equal(a, b, err_msg=f"output {i}")


def test_different_seeds_give_different_numbers():
    ms.set_seed(11)
    first = _every_random_op()
    ms.set_seed(12)
    other = _every_random_op()
    for i, (a, b) in enumerate(zip(first, other)):
        assert not np.array_equal(a, b), f"output {i} did not change with the seed"


def test_consecutive_calls_differ():
    ms.set_seed(13)
    assert not np.array_equal(ops.rand(10).asnumpy(), ops.rand(10).asnumpy())
    assert not np.array_equal(ops.rand(10, seed=4).asnumpy(), ops.rand(10, seed=4).asnumpy())


def test_consecutive_streams_share_no_numbers():
    """Keys differing in their counter word give unrelated streams, not shifted copies."""
    ms.set_seed(14)
    a = ops.rand(5000, dtype=ms.float64).asnumpy()
    b = ops.rand(5000, dtype=ms.float64).asnumpy()
    assert np.intersect1d(a, b).size == 0


def test_set_seed_restarts_the_sequence_mid_program():
    ms.set_seed(15)
    a = ops.randn(4).asnumpy()
    ops.rand(100)
    ms.set_seed(15)
    np.testing.assert_array_equal(a, ops.randn(4).asnumpy())


# --------------------------------------------------------------------------- op seeds
def test_op_seed_repeats_across_runs_without_a_global_seed(new_process):
    new_process(1)
    seeded, unseeded = ops.rand(5, seed=7).asnumpy(), ops.rand(5).asnumpy()
    new_process(2)
    np.testing.assert_array_equal(seeded, ops.rand(5, seed=7).asnumpy())
    assert not np.array_equal(unseeded, ops.rand(5).asnumpy())


def test_op_seed_zero_means_unset(new_process):
    new_process(1)
    a = ops.rand(5, seed=0).asnumpy()
    new_process(2)
    assert not np.array_equal(a, ops.rand(5, seed=0).asnumpy())


def test_op_seed_is_mixed_with_the_global_seed():
    ms.set_seed(1)
    a = ops.rand(5, seed=7).asnumpy()
    ms.set_seed(2)
    b = ops.rand(5, seed=7).asnumpy()
    ms.set_seed(1)
    c = ops.rand(5, seed=8).asnumpy()
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    ms.set_seed(1)
    np.testing.assert_array_equal(a, ops.rand(5, seed=7).asnumpy())


_SCRIPT = """
import json
import spore as ms
from spore import ops
op_seed_only = ops.rand(3, seed=5).tolist()
unseeded = ops.rand(3).tolist()
ms.set_seed(9)
seeded = ops.randn(3).tolist()
print(json.dumps([op_seed_only, unseeded, seeded]))
"""


def _run_script():
    out = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_same_program_prints_the_same_numbers_in_a_new_process():
    first, second = _run_script(), _run_script()
    assert first[0] == second[0]          # an op seed alone repeats from run to run
    assert first[1] != second[1]          # no seed at all: a new stream per run
    assert first[2] == second[2]          # set_seed repeats


def test_set_seed_does_not_import_the_dataset_package_and_a_later_pipeline_uses_it():
    import subprocess
    import sys
    code = ("import sys, spore as ms; ms.set_seed(123); "
            "assert 'spore.dataset' not in sys.modules; "
            "from spore.dataset import config; assert config.get_seed() == 123 "
            "and config.seed_is_set(); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr
