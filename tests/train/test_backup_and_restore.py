"""BackupAndRestore: a job run again continues from its last backup (weights and
optimizer state), as MindSpore's does."""
import os

import numpy as np
import pytest

import spore as ms
from spore import nn
import spore.dataset as ds
from spore.train import Model, BackupAndRestore, Callback


class _Losses(Callback):
    def __init__(self):
        self.losses, self.epochs = [], []

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epochs.append(cb.cur_epoch_num)
        self.losses.append(float(cb.net_outputs.asnumpy()))


def _data():
    rs = np.random.RandomState(0)
    return ds.NumpySlicesDataset({"x": rs.randn(8, 3).astype(np.float32),
                                  "y": rs.randn(8, 1).astype(np.float32)},
                                 shuffle=False).batch(4)


def _model():
    ms.set_seed(0)
    net = nn.Dense(3, 1)
    return Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)), net


def test_a_run_again_continues_from_the_backup(tmp_path):
    backup = str(tmp_path / "backup")
    model, _ = _model()
    first = _Losses()
    model.train(3, _data(), callbacks=[BackupAndRestore(backup, delete_checkpoint=False),
                                       first], dataset_sink_mode=False)
    assert os.listdir(backup) == ["backup.ckpt"]
    model.train(2, _data(), callbacks=[(going_on := _Losses())], dataset_sink_mode=False)

    restarted, _ = _model()                          # a fresh job: fresh weights
    again = _Losses()
    restarted.train(2, _data(), callbacks=[BackupAndRestore(backup, save_freq=2), again],
                    dataset_sink_mode=False)
    assert again.epochs == [1, 2]                    # the count starts again (MindSpore)
    np.testing.assert_allclose(again.losses, going_on.losses, rtol=1e-6)
    assert os.path.isdir(backup) and os.listdir(backup) == []     # deleted at the end


def test_save_freq_and_argument_checks(tmp_path):
    model, _ = _model()
    seen = []

    class Peek(Callback):
        def on_train_epoch_end(self, run_context):
            seen.append(os.path.exists(tmp_path / "b" / "backup.ckpt"))
    model.train(3, _data(), callbacks=[BackupAndRestore(str(tmp_path / "b"), save_freq=2,
                                                        delete_checkpoint=False), Peek()],
                dataset_sink_mode=False)
    assert seen == [False, True, True]
    with pytest.raises(TypeError, match="should be string"):
        BackupAndRestore(3)
    with pytest.raises(TypeError, match="must be int, but got 'str'"):
        BackupAndRestore("b", save_freq="step")
    with pytest.raises(ValueError, match="must > 0, but got '0'"):
        BackupAndRestore("b", save_freq=0)
    with pytest.raises(TypeError, match="must be a bool, but got int"):
        BackupAndRestore("b", delete_checkpoint=1)
