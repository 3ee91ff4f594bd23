"""ms.set_deterministic, ms.get_rng_state / set_rng_state and ms.run_check (MindSpore 2.10's
formats and errors, probed on the reference)."""
import numpy as np
import pytest

import spore as ms


def test_set_deterministic_sets_the_context_flag():
    before = ms.get_context("deterministic")
    try:
        ms.set_deterministic(True)
        assert ms.get_context("deterministic") == "ON"
        ms.set_deterministic(False)
        assert ms.get_context("deterministic") == "OFF"
    finally:
        ms.set_context(deterministic=before)
    with pytest.raises(TypeError, match="The parameter 'deterministic' must be <class 'bool'>, "
                                        "but got <class 'int'>"):
        ms.set_deterministic(1)


def test_rng_state_is_seed_then_offset_bytes():
    ms.manual_seed(3)
    state = ms.get_rng_state()
    assert state.dtype == ms.uint8 and state.shape == (16,)
    assert state.asnumpy().tolist() == [3] + [0] * 15            # MindSpore 2.10's value
    ms.ops.rand(2)
    assert ms.get_rng_state().asnumpy()[8] == 1                  # one draw since seeding


def test_set_rng_state_replays_the_same_numbers():
    ms.manual_seed(7)
    ms.ops.rand(3)
    state = ms.get_rng_state()
    first = (ms.ops.rand(4).asnumpy(), ms.ops.randn(2).asnumpy())
    ms.set_rng_state(state)
    again = (ms.ops.rand(4).asnumpy(), ms.ops.randn(2).asnumpy())
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


def test_set_rng_state_errors():
    with pytest.raises(TypeError, match="'state' must be a Tensor"):
        ms.set_rng_state(np.zeros(16, np.uint8))
    with pytest.raises(ValueError, match="State data size must be 16, but got 3"):
        ms.set_rng_state(ms.Tensor(np.zeros(3, np.uint8)))
    with pytest.raises(TypeError, match="UInt8"):
        ms.set_rng_state(ms.Tensor(np.zeros(16, np.float32)))


def test_run_check(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert "version" in out and "The result of multiplication calculation is correct" in out
