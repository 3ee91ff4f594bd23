"""OnRequestExit: a signal (or, with MS_ENABLE_GRACEFUL_EXIT=1, a JSON config file) asks
training to save its state and stop. The step counts and file names are MindSpore 2.10's,
probed with the same 4-step epochs and a SIGTERM sent at the end of step 2."""
import json
import os
import signal

import numpy as np
import pytest

import spore as ms
from spore import nn
import spore.dataset as ds
from spore.train import Callback, Model, OnRequestExit


class _Steps(Callback):
    """Records (epoch, step) and raises ``sig`` in this process at the end of step
    ``at``."""

    def __init__(self, at=None, sig=signal.SIGTERM, hook=None):
        self.steps, self.at, self.sig, self.hook = [], at, sig, hook

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        self.steps.append((p.cur_epoch_num, p.cur_step_num))
        if p.cur_step_num == self.at:
            if self.hook:
                self.hook()
            else:
                os.kill(os.getpid(), self.sig)


def _train(callbacks, epochs=3):
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    data = ds.NumpySlicesDataset({"x": np.ones((8, 3), np.float32),
                                  "y": np.ones((8, 1), np.float32)}, shuffle=False).batch(2)
    model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.1))
    model.train(epochs, data, callbacks=callbacks, dataset_sink_mode=False)
    return net


@pytest.fixture
def restore_sigterm():
    old = signal.getsignal(signal.SIGTERM)
    yield
    signal.signal(signal.SIGTERM, old)


def test_signal_saves_the_checkpoint_when_training_ends(tmp_path, monkeypatch,
                                                        restore_sigterm):
    monkeypatch.delenv("MS_ENABLE_GRACEFUL_EXIT", raising=False)
    steps = _Steps(at=2)
    exit_cb = OnRequestExit(save_mindir=False, file_name="LeNet", directory=str(tmp_path))
    net = _train([exit_cb, steps])
    assert len(steps.steps) == 12                 # MindSpore 2.10 trains on to the end
    assert exit_cb.exit
    path = tmp_path / "rank_0" / "LeNet_train.ckpt"
    assert sorted(os.listdir(tmp_path / "rank_0")) == ["LeNet_train.ckpt"]
    saved = ms.load_checkpoint(str(path))
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())


def test_graceful_exit_stops_after_the_next_step(tmp_path, monkeypatch, restore_sigterm):
    monkeypatch.setenv("MS_ENABLE_GRACEFUL_EXIT", "1")
    steps = _Steps(at=2)
    _train([OnRequestExit(save_mindir=False, file_name="LeNet", directory=str(tmp_path)),
            steps])
    assert steps.steps == [(1, 1), (1, 2), (1, 3)]
    assert os.path.isfile(tmp_path / "rank_0" / "LeNet_train.ckpt")


def test_config_file_requests_the_exit(tmp_path, monkeypatch, restore_sigterm):
    monkeypatch.setenv("MS_ENABLE_GRACEFUL_EXIT", "1")
    config = tmp_path / "exit.json"
    config.write_text(json.dumps({"GracefulExit": 0}))
    steps = _Steps(at=5, hook=lambda: config.write_text(json.dumps({"GracefulExit": 1})))
    _train([OnRequestExit(save_mindir=False, directory=str(tmp_path),
                          config_file=str(config)), steps])
    assert steps.steps[-1] == (2, 6)
    saved = ms.load_checkpoint(str(tmp_path / "rank_0" / "Net_train.ckpt"))
    assert int(saved["step_num"]) == 6 and int(saved["epoch_num"]) == 2


def test_a_saved_checkpoint_is_loaded_when_training_begins(tmp_path, monkeypatch,
                                                           restore_sigterm):
    monkeypatch.delenv("MS_ENABLE_GRACEFUL_EXIT", raising=False)
    folder = tmp_path / "rank_0"
    folder.mkdir()
    ms.set_seed(1)
    source = nn.Dense(3, 1)
    source.weight.set_data(ms.Tensor(np.full((1, 3), 7.0, np.float32)))
    ms.save_checkpoint(source, str(folder / "Net_train.ckpt"))

    class Weight(Callback):
        def on_train_begin(self, run_context):
            net = run_context.original_args().network
            self.seen = net.weight.asnumpy().copy()

    seen = Weight()
    _train([OnRequestExit(save_mindir=False, directory=str(tmp_path)), seen], epochs=1)
    np.testing.assert_array_equal(seen.seen, np.full((1, 3), 7.0, np.float32))


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="save_ckpt"):
        OnRequestExit(save_ckpt=1)
    with pytest.raises(ValueError, match="save_mindir"):
        OnRequestExit(save_mindir="yes")
    with pytest.raises(ValueError, match="SIGKILL"):
        OnRequestExit(sig=signal.SIGKILL)
    with pytest.raises(ValueError, match="sig"):
        OnRequestExit(sig="SIGTERM")
    assert ms.train.OnRequestExit is ms.OnRequestExit


def test_save_mindir_never_costs_the_checkpoint(tmp_path, monkeypatch, restore_sigterm):
    import warnings
    monkeypatch.delenv("MS_ENABLE_GRACEFUL_EXIT", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _train([OnRequestExit(directory=str(tmp_path)), _Steps(at=2)], epochs=1)
    files = os.listdir(tmp_path / "rank_0")
    assert "Net_train.ckpt" in files
    assert "Net_train.mindir" in files or any("mindir" in str(w.message) for w in caught)
