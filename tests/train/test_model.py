"""Model.train / eval / predict / fit on a tiny linear-regression problem."""
import os
import re

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore.train import (Model, LossMonitor, LambdaCallback, EarlyStopping, ModelCheckpoint,
                         Callback, TimeMonitor, Accuracy, Loss, MAE)

TRUE_W = np.array([[1.0], [-2.0], [0.5]], np.float32)


class ArrayDataset:
    """The dataset protocol Model uses: a size and a re-iterable tuple iterator."""

    def __init__(self, *columns, batch_size=4):
        self.columns = columns
        self.batch_size = batch_size

    def get_dataset_size(self):
        return -(-len(self.columns[0]) // self.batch_size)

    def create_tuple_iterator(self, num_epochs=-1, do_copy=False, **kwargs):
        return self

    def __iter__(self):
        for start in range(0, len(self.columns[0]), self.batch_size):
            yield [ms.Tensor(c[start:start + self.batch_size]) for c in self.columns]


def regression_data(n=16, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, 3)).astype(np.float32)
    return x, x @ TRUE_W


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(np.zeros((3, 1), np.float32), name="w")

    def construct(self, x):
        return ops.matmul(x, self.w)


class SGDStep(nn.Cell):
    """A self-contained training step (loss, gradient, update) returning the loss before
    the update, as TrainOneStepCell does."""

    def __init__(self, net, lr=0.3):
        super().__init__(auto_prefix=False)
        self.net = net
        self.lr = lr
        self.grad_fn = ops.value_and_grad(self.loss, None, net.trainable_params())

    def loss(self, x, y):
        return ((self.net(x) - y) ** 2).mean()

    def construct(self, x, y):
        loss, grads = self.grad_fn(x, y)
        for p, g in zip(self.net.trainable_params(), grads):
            ops.assign(p, p - self.lr * g)
        return loss


class EvalOutputs(nn.Cell):
    """(loss, logits, label) like WithEvalCell, for a 2-class problem."""

    def construct(self, logits, label):
        return logits.sum(), logits, label


def test_train_runs_steps_in_order_and_learns(capsys):
    net = Linear()
    model = Model(SGDStep(net))
    events = []
    trace = LambdaCallback(
        on_train_begin=lambda rc: events.append("begin"),
        on_train_epoch_begin=lambda rc: events.append(f"e{rc.original_args().cur_epoch_num}"),
        on_train_step_end=lambda rc: events.append(rc.original_args().cur_step_num),
        on_train_end=lambda rc: events.append("end"))
    model.train(3, ArrayDataset(*regression_data()), callbacks=[LossMonitor(), trace])
    assert events == ["begin", "e1", 1, 2, 3, 4, "e2", 5, 6, 7, 8, "e3", 9, 10, 11, 12, "end"]
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in lines[:5]] == [
        "epoch: 1 step: 1", "epoch: 1 step: 2", "epoch: 1 step: 3", "epoch: 1 step: 4",
        "epoch: 2 step: 1"]
    losses = [float(line.rsplit(" ", 1)[1]) for line in lines]
    assert losses[-1] < losses[0] / 10
    np.testing.assert_allclose(net.w.asnumpy(), TRUE_W, atol=0.05)
    assert model.train_network.training


def test_train_initial_epoch_and_sink_size(capsys):
    model = Model(SGDStep(Linear()))
    model.train(3, ArrayDataset(*regression_data()), callbacks=LossMonitor(4), initial_epoch=1)
    assert [line.split(",")[0] for line in capsys.readouterr().out.splitlines()] == [
        "epoch: 2 step: 4", "epoch: 3 step: 4"]
    model.train(1, ArrayDataset(*regression_data()), callbacks=LossMonitor(),
                dataset_sink_mode=True, sink_size=2)     # callbacks see 2-step "epochs"
    assert [line.split(",")[0] for line in capsys.readouterr().out.splitlines()] == [
        "epoch: 1 step: 1", "epoch: 1 step: 2", "epoch: 1 step: 1", "epoch: 1 step: 2"]


def test_request_stop_ends_training():
    steps = []

    class StopAt3(Callback):
        def on_train_step_end(self, run_context):
            steps.append(run_context.original_args().cur_step_num)
            if steps[-1] == 3:
                run_context.request_stop()
    Model(SGDStep(Linear())).train(5, ArrayDataset(*regression_data()), callbacks=[StopAt3()])
    assert steps == [1, 2, 3]


@pytest.mark.parametrize("args, kwargs, error, match", [
    ((0,), {}, ValueError, "must be int and must > 0, but got '0'"),
    ((1.5,), {}, TypeError, "must be int, but got 'float'"),
    ((1,), {"dataset_sink_mode": 1}, TypeError, "must be a bool, but got int"),
    ((2,), {"initial_epoch": 2}, ValueError, "'epoch' must bigger than parameter 'initial_epoch'"),
    ((1,), {"sink_size": 0}, ValueError, "'sink_size' must be -1 or positive, but got 0"),
])
def test_train_argument_errors(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        Model(SGDStep(Linear())).train(*args, ArrayDataset(*regression_data()), **kwargs)


def test_constructor_errors():
    net = Linear()
    with pytest.raises(TypeError, match="The type of 'network' should be 'Cell'"):
        Model(1)
    with pytest.raises(ValueError, match="`eval_network` must not be None"):
        Model(net, metrics={"acc"})
    with pytest.raises(ValueError, match="Auto mixed precision will not work"):
        Model(net, amp_level="O2")
    with pytest.raises(ValueError, match="should be 'loss_scale_manager'"):
        Model(net, foo=1)
    with pytest.raises(ValueError, match="length of it must be three"):
        Model(net, metrics={"acc"}, eval_network=EvalOutputs(), eval_indexes=[0, 1])
    with pytest.raises(ValueError, match="'optimizer' can not be None"):
        Model(net, loss_scale_manager=object())


def test_eval_with_eval_network_and_indexes():
    logits = np.array([[2.0, 1.0], [0.0, 3.0], [1.0, 0.5], [0.2, 0.1], [1.0, 2.0]], np.float32)
    labels = np.array([0, 1, 1, 0, 0], np.int32)
    model = Model(Linear(), eval_network=EvalOutputs(), eval_indexes=[0, 1, 2],
                  metrics={"acc": Accuracy(), "loss": Loss()})
    result = model.eval(ArrayDataset(logits, labels, batch_size=2))
    assert result["acc"] == pytest.approx(3 / 5)                 # rows 0, 1, 3 are right
    batch_sums = [logits[:2].sum(), logits[2:4].sum(), logits[4:].sum()]
    assert result["loss"] == pytest.approx(np.mean(batch_sums))
    assert not model.eval_network.training
    with pytest.raises(ValueError, match="'metrics' can not be None or empty"):
        Model(Linear()).eval(ArrayDataset(logits, labels))


def test_eval_without_indexes_passes_all_outputs():
    x, y = regression_data(8)

    class Pair(nn.Cell):
        def construct(self, x, y):
            return ops.matmul(x, ms.Tensor(TRUE_W)), y
    model = Model(Linear(), eval_network=Pair(), metrics={"mae": MAE()})
    assert model.eval(ArrayDataset(x, y)) == {"mae": pytest.approx(0.0, abs=1e-6)}


def test_predict():
    net = Linear()
    net.w.set_data(ms.Tensor(TRUE_W))
    x = np.ones((2, 3), np.float32)
    out = Model(net).predict(ms.Tensor(x))
    np.testing.assert_allclose(out.asnumpy(), x @ TRUE_W)
    with pytest.raises(TypeError, match="but got type ndarray"):
        Model(net).predict(x)
    with pytest.raises(ValueError, match="can not be empty"):
        Model(net).predict(ms.Tensor(np.zeros((0, 3), np.float32)))


class StepWithEval(nn.Cell):
    """Eval network of the regression problem: (loss, prediction, label)."""

    def __init__(self, net):
        super().__init__(auto_prefix=False)
        self.net = net

    def construct(self, x, y):
        pred = self.net(x)
        return ((pred - y) ** 2).mean(), pred, y


def test_fit_evaluates_and_early_stopping_sees_eval_loss(capsys):
    net = Linear()
    model = Model(SGDStep(net, lr=0.0), eval_network=StepWithEval(net), eval_indexes=[0, 1, 2],
                  metrics={"mae": MAE()})
    stopper = EarlyStopping(patience=2, verbose=True)
    data = regression_data()
    model.fit(10, ArrayDataset(*data), ArrayDataset(*data), callbacks=[LossMonitor(4), stopper])
    out = capsys.readouterr().out.splitlines()
    mae = np.abs(data[1]).sum() / 16                 # w stays 0 with lr=0
    assert out[0].startswith("epoch: 1 step: 4, loss is ")
    shown = re.fullmatch(r"Eval result: epoch 1, metrics: \{'mae': ([\d.]+)\}", out[1])
    assert shown and float(shown[1]) == pytest.approx(mae)
    assert stopper.stopped_epoch == 3 and out[-1] == "Epoch 00003: early stopping"


def test_fit_valid_frequency_and_errors():
    evals = []

    class Watch(Callback):
        def on_eval_end(self, run_context):
            evals.append(run_context.original_args().metrics["mae"])
    net = Linear()
    model = Model(SGDStep(net), eval_network=StepWithEval(net), eval_indexes=[0, 1, 2],
                  metrics={"mae": MAE()})
    data = regression_data()
    model.fit(4, ArrayDataset(*data), ArrayDataset(*data), valid_frequency=2, callbacks=[Watch()])
    assert len(evals) == 2 and evals[1] < evals[0]
    with pytest.raises(TypeError, match="valid_frequency"):
        model.fit(1, ArrayDataset(*data), ArrayDataset(*data), valid_frequency=1.0)
    with pytest.raises(ValueError, match="'metrics' can not beNone"):
        Model(SGDStep(net)).fit(1, ArrayDataset(*data), ArrayDataset(*data))


def test_old_style_callbacks_warn_in_train_and_fail_in_fit(capsys):
    class Old(Callback):
        def step_end(self, run_context):
            pass
    net = Linear()
    model = Model(SGDStep(net), eval_network=StepWithEval(net), metrics={"mae": MAE()})
    model.train(1, ArrayDataset(*regression_data()), callbacks=[Old()])
    assert "For Old callback, {'step_end'} methods may not be supported" in capsys.readouterr().err
    with pytest.raises(ValueError, match="For Old callback"):
        model.fit(1, ArrayDataset(*regression_data()), callbacks=[Old()])


def test_model_checkpoint_saves_the_train_network(tmp_path):
    net = Linear()
    step = SGDStep(net)
    Model(step).train(2, ArrayDataset(*regression_data()), callbacks=[
        ModelCheckpoint(prefix="lin", directory=str(tmp_path)), TimeMonitor()])
    files = sorted(os.listdir(tmp_path))
    assert files == ["lin-1_4.ckpt", "lin-2_1.ckpt", "lin-2_2.ckpt", "lin-2_3.ckpt",
                     "lin-2_4.ckpt"]                  # keep_checkpoint_max=5 of 8 saves
    saved = ms.load_checkpoint(str(tmp_path / "lin-2_4.ckpt"))
    np.testing.assert_array_equal(saved["w"].asnumpy(), net.w.asnumpy())
