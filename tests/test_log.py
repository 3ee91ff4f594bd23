"""ms.log, ms.get_level, ms.get_log_config (MindSpore 2.10: '2' and
{'GLOG_v': '2', 'GLOG_logtostderr': '1'} by default)."""
import logging

import pytest

import spore as ms


def test_defaults(monkeypatch):
    for name in ("GLOG_v", "GLOG_logtostderr", "GLOG_log_dir"):
        monkeypatch.delenv(name, raising=False)
    assert ms.get_level() == "2"
    assert ms.get_log_config() == {"GLOG_v": "2", "GLOG_logtostderr": "1"}
    assert ms.log.get_level is ms.get_level


def test_environment_sets_the_level(monkeypatch, caplog):
    monkeypatch.setenv("GLOG_v", "1")
    monkeypatch.setenv("GLOG_log_dir", "/tmp/logs")
    assert ms.get_level() == "1"
    assert ms.get_log_config()["GLOG_log_dir"] == "/tmp/logs"
    with caplog.at_level(logging.DEBUG, logger="spore"):
        ms.log.info("shown at level 1")
        ms.log.debug("hidden at level 1")
    messages = [r.getMessage() for r in caplog.records if r.name == "spore"]
    assert "shown at level 1" in messages and "hidden at level 1" not in messages
    monkeypatch.setenv("GLOG_v", "9")
    with pytest.raises(ValueError, match="GLOG_v"):
        ms.get_level()


def test_version_module():
    assert ms.version.__version__ == ms.__version__
