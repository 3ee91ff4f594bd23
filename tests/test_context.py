"""set_context / get_context: MindSpore's keys, defaults, validation and messages."""
import warnings

import pytest

import spore as ms
from spore import context


def test_constants_and_module_aliases():
    assert ms.PYNATIVE_MODE == 1 and ms.GRAPH_MODE == 0
    assert context.PYNATIVE_MODE == 1 and context.GRAPH_MODE == 0
    assert context.set_context is ms.set_context and context.get_context is ms.get_context
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)


def test_defaults():
    assert ms.get_context("mode") == 1
    assert ms.get_context("device_target") == "CPU"
    assert ms.get_context("device_id") == 0
    assert ms.get_context("save_graphs") == 0
    assert ms.get_context("save_graphs_path") == "."
    assert ms.get_context("jit_config") == {}
    assert ms.get_context("jit_level") == ""
    assert ms.get_context("max_call_depth") == 1000
    assert ms.get_context("pynative_synchronize") is False
    assert ms.get_context("enable_graph_kernel") is False


def test_set_and_get_round_trip(tmp_path):
    assert ms.set_context(mode=ms.GRAPH_MODE) is None
    assert ms.get_context("mode") == 0
    ms.set_context(save_graphs=True, save_graphs_path=str(tmp_path / "g"))
    assert ms.get_context("save_graphs") == 2       # True is stored as 2
    assert (tmp_path / "g").is_dir()                # created immediately
    ms.set_context(jit_config={"jit_level": "O0"})
    assert ms.get_context("jit_config") == {"jit_level": "O0"}
    assert ms.get_context("jit_level") == "O0"
    ms.set_context(enable_graph_kernel=True)
    assert ms.get_context("enable_graph_kernel") is True


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"foo": 1}, ValueError, "the keyword argument foo is not recognized"),
    ({"mode": "graph"}, TypeError, "The parameter 'mode' must be <class 'int'>"),
    ({"mode": 5}, ValueError, "should be context.GRAPH_MODE (0) or context.PYNATIVE_MODE (1), "
                              "but got 5"),
    ({"device_target": "cpu"}, ValueError, "'device_target' must be one of"),
    ({"device_id": -1}, ValueError, "must be in range [0, 4095], but got -1"),
    ({"save_graphs": 4}, ValueError, "value for save_graphs should be 0-3 but got '4'"),
    ({"jit_config": {"jit_level": "O3"}}, ValueError, "must be one of ['O0', 'O1', 'O2'], "
                                                      "but got O3"),
    ({"jit_config": {"foo": 1}}, ValueError, "the key of argument 'jit_config' must be one of"),
    ({"precompile_only": True}, ValueError, "has been removed since MindSpore 2.10"),
])
def test_errors(kwargs, exc, message):
    with pytest.raises(exc) as info:
        ms.set_context(**kwargs)
    assert message in str(info.value)


def test_failed_device_target_applies_nothing_else():
    with pytest.raises(ValueError):
        ms.set_context(mode=ms.GRAPH_MODE, device_target="TPU")
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_ascend_falls_back_with_one_warning(monkeypatch):
    from spore import _context
    monkeypatch.setattr(_context, "_warned_fallback", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.set_context(device_target="Ascend")
        ms.set_context(device_target="Ascend")
    assert ms.get_context("device_target") == "CPU"
    assert sum("no Ascend backend" in str(w.message) for w in caught) == 1


def test_get_context_unknown_key():
    with pytest.raises(ValueError, match="the argument foo is not recognized"):
        ms.get_context("foo")


def test_set_device():
    ms.set_device("CPU")
    info = ms.get_current_device()
    assert info == ("CPU", 0) and info.device_target == "CPU" and info.device_id == 0
    ms.set_device("CPU")                        # same values: no-op
    with pytest.raises(RuntimeError, match="can not be modified"):
        ms.set_device("CPU", 1)
    with pytest.raises(ValueError, match="must be one of"):
        ms.set_device("cpu")
