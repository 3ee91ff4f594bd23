"""Callbacks driven hook by hook (as Model drives them), checking MindSpore's printed lines."""
import os
import re

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.train import callback as C
from spore.train.callback._callback import InternalCallbackParam


class Weights(nn.Cell):
    def __init__(self, value=0.0):
        super().__init__()
        self.w = ms.Parameter(np.full(2, value, np.float32))
        self.b = ms.Parameter(np.zeros(1, np.float32))

    def construct(self, x):
        return x


class FakeOptimizer:
    def __init__(self, lr=0.1):
        self.learning_rate = ms.Parameter(np.float32(lr), name="learning_rate")


def make_params(batch_num=4, epoch_num=2, **extra):
    cb = InternalCallbackParam(cur_step_num=0, cur_epoch_num=1, batch_num=batch_num,
                               epoch_num=epoch_num, mode="train", dataset_sink_mode=False,
                               net_outputs=None, train_network=Weights(), optimizer=None)
    cb.update(extra)
    return cb


def run_epochs(callbacks, losses, batch_num=None, cb_params=None, eval_results=None):
    """Call the train hooks in Model's order: ``losses`` is a list of per-epoch lists."""
    batch_num = batch_num or len(losses[0])
    cb = cb_params or make_params(batch_num=batch_num, epoch_num=len(losses))
    ctx = C.RunContext(cb)
    manager = C._CallbackManager(callbacks)
    with manager:
        manager.on_train_begin(ctx)
        for epoch, epoch_losses in enumerate(losses, start=1):
            cb.cur_epoch_num = epoch
            manager.on_train_epoch_begin(ctx)
            for loss in epoch_losses:
                cb.cur_step_num += 1
                cb.train_dataset_element = (ms.Tensor(np.zeros((8, 3), np.float32)),)
                manager.on_train_step_begin(ctx)
                cb.net_outputs = ms.Tensor(np.float32(loss))
                manager.on_train_step_end(ctx)
            if eval_results is not None:
                cb.eval_results = eval_results[epoch - 1]
            manager.on_train_epoch_end(ctx)
            cb.pop("eval_results", None)
            if ctx.get_stop_requested():
                break
        manager.on_train_end(ctx)
    return cb


# ------------------------------------------------------------------ monitors
def test_loss_monitor_lines(capsys):
    run_epochs([C.LossMonitor()], [[0.9447814226150513, 1.0737488269805908], [0.5, 0.25]])
    assert capsys.readouterr().out.splitlines() == [
        "epoch: 1 step: 1, loss is 0.9447814226150513",     # float32 value, printed as a float
        "epoch: 1 step: 2, loss is 1.0737488269805908",
        "epoch: 2 step: 1, loss is 0.5",
        "epoch: 2 step: 2, loss is 0.25",
    ]


def test_loss_monitor_every_n_steps_and_disabled(capsys):
    run_epochs([C.LossMonitor(2)], [[1, 2, 3], [4, 5, 6]])
    assert capsys.readouterr().out.splitlines() == [
        "epoch: 1 step: 2, loss is 2.0", "epoch: 2 step: 1, loss is 4.0",
        "epoch: 2 step: 3, loss is 6.0"]
    run_epochs([C.LossMonitor(0)], [[1, 2]])
    assert capsys.readouterr().out == ""
    with pytest.raises(ValueError):
        C.LossMonitor(-1)


def test_loss_monitor_stops_on_nan_and_prints_fit_metrics(capsys):
    with pytest.raises(ValueError, match="In epoch: 1 step: 2, loss is NAN or INF, training "
                                         "process cannot continue, terminating training."):
        run_epochs([C.LossMonitor()], [[1.0, float("nan")]])
    cb = make_params(batch_num=1, metrics={"acc": 0.5})
    C.LossMonitor().on_train_epoch_end(C.RunContext(cb))
    assert capsys.readouterr().out.endswith("Eval result: epoch 1, metrics: {'acc': 0.5}\n")


def test_time_monitor_line(capsys):
    run_epochs([C.TimeMonitor()], [[1, 2, 3, 4], [1, 2, 3, 4]])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    for line in lines:
        m = re.fullmatch(r"Train epoch time: (\d+\.\d{3}) ms, per step time: (\d+\.\d{3}) ms", line)
        assert m and float(m[2]) == pytest.approx(float(m[1]) / 4, abs=1e-3)
    run_epochs([C.TimeMonitor(data_time=True)], [[1, 2]])
    assert re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms "
                        r"\(data time: \d+\.\d{3} ms\)\n", capsys.readouterr().out)


# ------------------------------------------------------------------ ModelCheckpoint
def test_model_checkpoint_every_step_and_prefix_suffix(tmp_path):
    run_epochs([C.ModelCheckpoint(directory=str(tmp_path))], [[1, 2], [3, 4]])
    assert sorted(os.listdir(tmp_path)) == ["CKP-1_1.ckpt", "CKP-1_2.ckpt", "CKP-2_1.ckpt",
                                            "CKP-2_2.ckpt"]
    second = C.ModelCheckpoint(directory=str(tmp_path))
    run_epochs([second], [[1]])
    assert "CKP_1-1_1.ckpt" in os.listdir(tmp_path)
    assert second.latest_ckpt_file_name == str(tmp_path / "CKP_1-1_1.ckpt")
    C.ModelCheckpoint(directory=str(tmp_path))
    run_epochs([C.ModelCheckpoint(directory=str(tmp_path))], [[1]])
    assert "CKP_2-1_1.ckpt" in os.listdir(tmp_path)


def test_model_checkpoint_steps_keep_max_and_contents(tmp_path):
    config = C.CheckpointConfig(save_checkpoint_steps=4, keep_checkpoint_max=2,
                                append_info=["epoch_num", "step_num", {"tag": "run1"}])
    cb = make_params(batch_num=4, epoch_num=3, train_network=Weights(1.5))
    run_epochs([C.ModelCheckpoint(prefix="net", directory=str(tmp_path), config=config)],
               [[1] * 4] * 3, cb_params=cb)
    assert sorted(os.listdir(tmp_path)) == ["net-2_4.ckpt", "net-3_4.ckpt"]
    saved = ms.load_checkpoint(str(tmp_path / "net-3_4.ckpt"))
    assert list(saved) == ["w", "b", "epoch_num", "step_num", "tag"]
    assert saved["w"].asnumpy().tolist() == [1.5, 1.5]
    assert (saved["epoch_num"].item(), saved["step_num"].item(), saved["tag"]) == (3, 12, "run1")


def test_model_checkpoint_saves_last_step_at_end(tmp_path):
    config = C.CheckpointConfig(save_checkpoint_steps=3)
    run_epochs([C.ModelCheckpoint(directory=str(tmp_path), config=config)], [[1] * 4])
    assert sorted(os.listdir(tmp_path)) == ["CKP-1_3.ckpt", "CKP-1_4.ckpt"]


def test_checkpoint_config_defaults_and_errors():
    cfg = C.CheckpointConfig()
    assert (cfg.save_checkpoint_steps, cfg.save_checkpoint_seconds, cfg.keep_checkpoint_max,
            cfg.keep_checkpoint_per_n_minutes) == (1, None, 5, None)
    with pytest.raises(ValueError, match="can't be all None or 0"):
        C.CheckpointConfig(save_checkpoint_steps=0, keep_checkpoint_max=0)
    with pytest.raises(ValueError, match="must be in"):
        C.CheckpointConfig(append_info=["epoch"])
    with pytest.raises(TypeError, match="saved_network"):
        C.CheckpointConfig(saved_network=1)
    with pytest.raises(ValueError, match="does not contain '/'"):
        C.ModelCheckpoint(prefix="a/b")
    with pytest.raises(TypeError, match="CheckpointConfig"):
        C.ModelCheckpoint(config={})


# ------------------------------------------------------------------ plateau callbacks
def test_early_stopping_on_eval_loss(capsys):
    stopper = C.EarlyStopping(patience=2, verbose=True)
    results = [{"eval_loss": v} for v in (1.0, 0.8, 0.85, 0.9, 0.7)]
    cb = run_epochs([stopper], [[1]] * 5, eval_results=results)
    assert cb.cur_epoch_num == 4 and stopper.stopped_epoch == 4     # no improvement in 3 and 4
    assert capsys.readouterr().out == "Epoch 00004: early stopping\n"


def test_early_stopping_restores_best_weights(capsys):
    net = Weights()
    cb = make_params(batch_num=1, epoch_num=4, train_network=net)
    stopper = C.EarlyStopping(monitor="acc", patience=1, restore_best_weights=True, verbose=True)

    class Train(C.Callback):          # the weights of epoch k are k
        def on_train_step_end(self, run_context):
            net.w.set_data(ms.Tensor(np.full(2, cb.cur_epoch_num, np.float32)))
    results = [{"acc": v} for v in (0.5, 0.9, 0.7, 0.8)]
    run_epochs([Train(), stopper], [[1]] * 4, cb_params=cb, eval_results=results)
    assert stopper.stopped_epoch == 3
    assert net.w.asnumpy().tolist() == [2.0, 2.0]                  # epoch 2 had the best acc
    assert capsys.readouterr().out.splitlines() == [
        "Restoring model weights from the end of the best epoch.", "Epoch 00003: early stopping"]


def test_early_stopping_missing_monitor_warns(capsys):
    run_epochs([C.EarlyStopping(monitor="acc")], [[1]] * 2)
    assert "Early stopping is conditioned on acc, which is not available" in \
        capsys.readouterr().err
    with pytest.raises(ValueError, match="mode should be"):
        C.EarlyStopping(mode="up")


def test_reduce_lr_on_plateau(capsys):
    opt = FakeOptimizer(0.1)
    cb = make_params(batch_num=1, epoch_num=6, optimizer=opt)
    reducer = C.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, verbose=True,
                                  min_lr=0.03)
    run_epochs([reducer], [[1.0], [1.0], [1.0], [1.0]], cb_params=cb)
    assert opt.learning_rate.asnumpy() == np.float32(0.03)     # 0.1 -> 0.05 -> 0.03 (min_lr)
    assert capsys.readouterr().out.splitlines() == [
        "Epoch 00002: ReduceLROnPlateau reducing learning rate to 0.05.",
        "Epoch 00003: ReduceLROnPlateau reducing learning rate to 0.03."]
    with pytest.raises(ValueError, match="factor"):
        C.ReduceLROnPlateau(factor=1.5)


def test_learning_rate_scheduler():
    opt = FakeOptimizer(0.1)
    cb = make_params(batch_num=2, optimizer=opt)
    halve_at_3 = C.LearningRateScheduler(lambda lr, step: lr * 0.5 if step == 3 else lr)
    run_epochs([halve_at_3], [[1, 1], [1, 1]], cb_params=cb)
    assert opt.learning_rate.asnumpy() == np.float32(0.05)


# ------------------------------------------------------------------ records and lambdas
def test_history_and_lambda_callback():
    history = C.History()
    seen = []
    lam = C.LambdaCallback(on_train_epoch_end=lambda rc: seen.append(
        rc.original_args().cur_epoch_num), on_train_end=lambda rc: seen.append("end"))
    run_epochs([history, lam], [[3.0, 1.0], [2.0, 0.5]])
    assert history.epoch == {"epoch": [1, 2]}
    assert history.history == {"net_output": [1.0, 0.5]}          # last step of each epoch
    assert seen == [1, 2, "end"]


def test_callback_manager_checks_and_context():
    with pytest.raises(TypeError, match="must be Callback functions"):
        C._CallbackManager([C.LossMonitor(), "x"])
    with pytest.raises(TypeError, match="not a Callback or a list"):
        C._CallbackManager(C.LossMonitor)
    events = []

    class Ctx(C.Callback):
        def __enter__(self):
            events.append("enter")
            return self

        def __exit__(self, *err):
            events.append("exit")
    run_epochs([Ctx()], [[1]])
    assert events == ["enter", "exit"]
    with pytest.raises(TypeError, match="should be dict"):
        C.RunContext([])


def test_old_style_step_end_runs_for_train_and_eval():
    calls = []

    class Old(C.Callback):
        def step_end(self, run_context):
            calls.append(run_context.original_args().mode)
    cb = make_params()
    Old().on_train_step_end(C.RunContext(cb))
    cb.mode = "eval"
    Old().on_eval_step_end(C.RunContext(cb))
    assert calls == ["train", "eval"]


# ------------------------------------------------------------------ progress bar
def test_progress_bar_plain(capsys):
    run_epochs([C.ProgressBar(width=10, use_tqdm=False)], [[0.5, 0.25, 0.125, 0.0625]] * 2)
    out = capsys.readouterr().out
    frames = out.split("\r")[1:]
    assert len(frames) == 8
    assert frames[0].startswith("Epoch 1/2 [=>........] 1/4 loss: 0.5000 ")
    assert frames[3].startswith("Epoch 1/2 [==========] 4/4 loss: 0.0625 ")
    assert frames[3].endswith("samples/s\n")
    assert re.search(r"\d+\.\d ms/step \d+ samples/s", frames[0])
    assert frames[7].startswith("Epoch 2/2 [==========] 4/4")


def test_progress_bar_uses_tqdm_when_available(monkeypatch):
    bars = []

    class FakeTqdm:
        def __init__(self, total, unit, file, desc):
            self.total, self.desc, self.updates = total, desc, 0
            self.postfix, self.closed = "", False
            bars.append(self)

        def set_postfix_str(self, text, refresh=True):
            self.postfix = text

        def update(self, n):
            self.updates += n

        def close(self):
            self.closed = True
    from spore.train.callback import _progress
    monkeypatch.setattr(_progress, "_tqdm_class", lambda: FakeTqdm)
    run_epochs([C.ProgressBar()], [[0.5, 0.25, 0.125]] * 2)
    assert [(b.desc, b.total, b.updates, b.closed) for b in bars] == [
        ("Epoch 1/2", 3, 3, True), ("Epoch 2/2", 3, 3, True)]
    assert bars[0].postfix.startswith("loss: 0.1250 ") and bars[0].postfix.endswith("samples/s")
    monkeypatch.setattr(_progress, "_tqdm_class", lambda: None)
    with pytest.raises(ImportError, match="tqdm"):
        C.ProgressBar(use_tqdm=True)
