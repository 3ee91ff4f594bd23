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


# ------------------------------------------------------------------ with nn's wrappers
# Generated with MindSpore 2.10 (CPU, NumPy 1.26) by the same program: Dense(3, 2) with the
# weights below, SoftmaxCrossEntropyWithLogits(sparse, mean), Momentum(0.1, 0.9), an unshuffled
# NumpySlicesDataset batched by 4, Model.train(2, ..., [LossMonitor(), ModelCheckpoint(
# config=CheckpointConfig(save_checkpoint_steps=4))]), then Model.eval.
MS_LOSSES = [0.6830637454986572, 0.7824682593345642, 0.7408479452133179, 0.6982086896896362,
             0.6768332123756409, 0.6942043304443359, 0.6624712347984314, 0.7194404006004333]
MS_EVAL = {"acc": 0.625, "loss": 0.6648553311824799}
MS_CKPT_NAMES = ["weight", "bias", "global_step", "learning_rate", "momentum", "moments.weight",
                 "moments.bias"]
MS_FINAL_WEIGHT = [[0.16840986907482147, -0.08112433552742004, 0.1282905638217926],
                   [-0.0184098482131958, -0.018875664100050926, 0.07170946896076202]]
MS_FINAL_MOMENTS = [[-0.018946010619401932, -0.273588627576828, 0.27959486842155457],
                    [0.018945982679724693, 0.273588627576828, -0.2795948386192322]]


def classification_model(loss_scale=1.0, **kwargs):
    net = nn.Dense(3, 2, weight_init=ms.Tensor(np.array([[0.1, -0.2, 0.3], [0.05, 0.1, -0.1]],
                                                         np.float32)), bias_init="zeros")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=loss_scale)
    return net, Model(net, loss, opt, metrics={"acc": Accuracy(), "loss": Loss()}, **kwargs)


def classification_data():
    x = (np.arange(48, dtype=np.float32).reshape(16, 3) % 7 - 3) / 4
    y = (np.arange(16) % 3 == 0).astype(np.int32)
    return ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)


def test_model_matches_mindspore(tmp_path, capsys):
    from spore.train import CheckpointConfig
    net, model = classification_model()
    assert type(model.train_network).__name__ == "TrainOneStepCell"
    assert type(model.eval_network).__name__ == "WithEvalCell"
    ckpt = ModelCheckpoint(directory=str(tmp_path),
                           config=CheckpointConfig(save_checkpoint_steps=4))
    model.train(2, classification_data(), callbacks=[LossMonitor(), ckpt])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(", loss is ")[0] for line in lines] == [
        f"epoch: {e} step: {s}" for e in (1, 2) for s in (1, 2, 3, 4)]
    np.testing.assert_allclose([float(line.split("loss is ")[1]) for line in lines], MS_LOSSES,
                               rtol=2e-6)
    result = model.eval(classification_data())
    assert result["acc"] == MS_EVAL["acc"]
    assert result["loss"] == pytest.approx(MS_EVAL["loss"], rel=1e-6)
    assert sorted(os.listdir(tmp_path)) == ["CKP-1_4.ckpt", "CKP-2_4.ckpt"]
    saved = ms.load_checkpoint(str(tmp_path / "CKP-2_4.ckpt"))
    assert list(saved) == MS_CKPT_NAMES
    assert saved["global_step"].asnumpy().tolist() == [8]
    np.testing.assert_allclose(saved["weight"].asnumpy(), MS_FINAL_WEIGHT, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(saved["moments.weight"].asnumpy(), MS_FINAL_MOMENTS, rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())


def test_model_without_optimizer_runs_forward_only(capsys):
    net = nn.Dense(3, 2)
    before = net.weight.asnumpy().copy()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    assert type(model.train_network).__name__ == "WithLossCell"
    model.train(1, classification_data(), callbacks=[LossMonitor()])
    assert len(capsys.readouterr().out.splitlines()) == 4
    np.testing.assert_array_equal(net.weight.asnumpy(), before)


def test_model_loss_column_count_error():
    x = np.ones((4, 3), np.float32)
    data = ms.dataset.NumpySlicesDataset({"a": x, "b": x, "c": x}, shuffle=False).batch(2)
    _, model = classification_model()
    with pytest.raises(ValueError, match="should return two elements, but got 3"):
        model.train(1, data)


def test_model_with_fixed_loss_scale_scales_the_sens():
    """The loss is scaled by 128 (``sens``) and the optimizer divides the gradients back."""
    from spore.amp import FixedLossScaleManager
    net, model = classification_model(
        loss_scale=128.0, loss_scale_manager=FixedLossScaleManager(128, drop_overflow_update=False))
    assert model.train_network.sens == 128
    model.train(2, classification_data())
    np.testing.assert_allclose(net.weight.asnumpy(), MS_FINAL_WEIGHT, rtol=1e-5, atol=1e-7)


def test_model_with_dynamic_loss_scale(capsys):
    """TrainOneStepWithLossScaleCell returns (loss, overflow, scale): LossMonitor prints the
    loss Tensor itself, and Model feeds the overflow flag to the manager every step."""
    from spore.amp import DynamicLossScaleManager
    manager = DynamicLossScaleManager(1024, 2, 3)
    net, model = classification_model(loss_scale_manager=manager)
    assert type(model.train_network).__name__ == "TrainOneStepWithLossScaleCell"
    model.train(2, classification_data(), callbacks=[LossMonitor(4)])
    assert manager.get_loss_scale() == 4096              # doubled after steps 3 and 6
    np.testing.assert_allclose(net.weight.asnumpy(), MS_FINAL_WEIGHT, rtol=1e-5, atol=1e-7)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "epoch: 1 step: 4, loss is " + str(ms.Tensor(np.float32(MS_LOSSES[3])))


def test_reduce_lr_on_plateau_with_a_real_optimizer():
    from spore.train import ReduceLROnPlateau
    net, model = classification_model()
    # the last losses of epochs 1 and 2 are MS_LOSSES[3] < MS_LOSSES[7]: one plateau epoch
    model.train(2, classification_data(), callbacks=[ReduceLROnPlateau("loss", 0.5, patience=0)])
    assert model.train_network.optimizer.learning_rate.asnumpy() == np.float32(0.05)
