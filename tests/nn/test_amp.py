"""Mixed precision: which cells compute in float16/bfloat16 at each level, float32 master
weights and outputs, build_train_network, loss-scale managers and loss scalers.

The layers below subclass nn.Dense / nn.BatchNorm1d (so the white and black lists apply)
with a small construct that records the dtype each layer computes in.
"""
import numpy as np
import pytest

import spore as ms
from spore import amp, nn, ops, Tensor

SEEN = []


class Dense(nn.Dense):
    def construct(self, x):
        SEEN.append(("dense", x.dtype))
        w = self._cast_weight(self.weight)
        return ops.matmul(x, ops.transpose(w, (1, 0))) + self._cast_weight(self.bias)


class BatchNorm1d(nn.BatchNorm1d):
    def construct(self, x):
        SEEN.append(("bn", x.dtype))
        mean = ops.mean(x, 0, True)
        var = ops.mean(ops.square(x - mean), 0, True)
        return (x - mean) / ops.sqrt(var + 1e-5) * self._cast_weight(self.gamma) + \
            self._cast_weight(self.beta)


class Scale(nn.Cell):
    """Not on either list."""

    def construct(self, x):
        SEEN.append(("scale", x.dtype))
        return x * 0.5


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = Dense(4, 3)
        self.bn = BatchNorm1d(3)
        self.scale = Scale()
        self.fc2 = Dense(3, 2)

    def construct(self, x):
        return self.fc2(self.scale(self.bn(self.fc(x))))


X = Tensor(np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32))
Y = Tensor(np.random.default_rng(1).standard_normal((6, 2)).astype(np.float32))


def run(net):
    SEEN.clear()
    out = net(X)
    return out, list(SEEN)


F16, F32, BF16 = ms.float16, ms.float32, ms.bfloat16


@pytest.mark.parametrize("level,dtype,want", [
    ("O0", F16, [("dense", F32), ("bn", F32), ("scale", F32), ("dense", F32)]),
    ("O1", F16, [("dense", F16), ("bn", F32), ("scale", F32), ("dense", F16)]),
    ("O2", F16, [("dense", F16), ("bn", F32), ("scale", F16), ("dense", F16)]),
    ("O3", F16, [("dense", F16), ("bn", F16), ("scale", F16), ("dense", F16)]),
    ("O2", BF16, [("dense", BF16), ("bn", F32), ("scale", BF16), ("dense", BF16)]),
])
def test_levels_choose_what_runs_in_low_precision(level, dtype, want):
    net = Net()
    wrapped = amp.auto_mixed_precision(net, level, dtype)
    out, seen = run(wrapped)
    assert seen == want
    assert out.dtype == F32                                 # outputs come back in float32
    assert all(p.dtype == F32 for p in wrapped.trainable_params())   # master weights
    if level == "O0":
        assert wrapped is net
    else:
        assert wrapped._amp_level == level


def test_o2_keeps_batchnorm_in_float32_and_wraps_the_network():
    net = Net()
    wrapped = amp.auto_mixed_precision(net, "O2")
    assert type(wrapped).__name__ == "_OutputTo32" and wrapped.fc is net.fc
    assert type(net.bn).__name__ == "_OutputTo16"
    assert [p.name for p in wrapped.trainable_params()] == \
        [p.name for p in Net().trainable_params()]
    # BatchNorm's output is cast to float16 for the next layer
    SEEN.clear()
    wrapped(X)
    assert SEEN[2] == ("scale", F16)


def test_low_precision_matches_float32_within_half_precision_tolerance():
    net = Net()
    want = net(X).asnumpy()
    got = amp.auto_mixed_precision(net, "O3")(X).asnumpy()
    np.testing.assert_allclose(got, want, rtol=2e-2, atol=2e-2)
    assert not np.array_equal(got, want)                    # it did run in float16


def test_gradients_reach_float32_master_weights():
    net = Net()
    wrapped = amp.auto_mixed_precision(net, "O3")
    grads = ms.value_and_grad(lambda x: ops.sum(wrapped(x)), None,
                              wrapped.trainable_params())(X)[1]
    assert all(g.dtype == F32 for g in grads)
    f32 = ms.value_and_grad(lambda x: ops.sum(net(x)), None, net.trainable_params())(X)[1]
    for g, h in zip(grads, f32):
        np.testing.assert_allclose(g.asnumpy(), h.asnumpy(), rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize("call,err,match", [
    (lambda: amp.auto_mixed_precision(Net(), "O5"), ValueError, "O5 is not supported"),
    (lambda: amp.auto_mixed_precision(Net(), "O2", dtype=ms.float32), ValueError,
     "float16, mstype.bfloat16"),
    (lambda: amp.auto_mixed_precision(lambda x: x, "O2"), TypeError, "should be Cell"),
    (lambda: amp.custom_mixed_precision(Net()), ValueError, "one of white_list and black_list"),
    (lambda: amp.custom_mixed_precision(Net(), white_list=[Dense], black_list=[]), ValueError,
     "at the same time"),
])
def test_auto_mixed_precision_errors(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_custom_mixed_precision():
    _, seen = run(amp.custom_mixed_precision(Net(), white_list=[Scale]))
    assert seen == [("dense", F32), ("bn", F32), ("scale", F16), ("dense", F32)]
    _, seen = run(amp.custom_mixed_precision(Net(), black_list=[Dense]))
    assert seen == [("dense", F32), ("bn", F16), ("scale", F16), ("dense", F32)]


def test_white_and_black_lists():
    assert nn.Dense in amp.get_white_list() and nn.Conv2d in amp.get_white_list()
    assert nn.BatchNorm1d in amp.get_black_list() and nn.LayerNorm in amp.get_black_list()
    assert nn.Dense not in amp.get_black_list()


# ------------------------------------------------------------------ build_train_network
class MSE(nn.Cell):
    def construct(self, a, b):
        SEEN.append(("loss", a.dtype))
        return ops.mean(ops.square(a - b))


def _build(level, **kwargs):
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    return net, amp.build_train_network(net, opt, MSE(), level=level, **kwargs)


def test_build_train_network_o0():
    net, step = _build("O0")
    assert type(step) is nn.TrainOneStepCell and step.training
    assert isinstance(step.network, nn.WithLossCell)
    SEEN.clear()
    loss = step(X, Y)
    assert loss.dtype == F32 and SEEN[-1] == ("loss", F32)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf on purpose
def test_build_train_network_o2_uses_dynamic_loss_scaling():
    net, step = _build("O2")
    assert isinstance(step, nn.TrainOneStepWithLossScaleCell)
    assert isinstance(step.loss_scaling_manager, nn.DynamicLossScaleUpdateCell)
    assert float(step.scale_sense) == 2.0 ** 24
    SEEN.clear()
    losses = [float(step(X, Y)[0]) for _ in range(3)]
    kinds = dict(SEEN)
    assert kinds["dense"] == F16 and kinds["bn"] == F32 and kinds["loss"] == F32
    assert all(p.dtype == F32 for p in net.trainable_params())
    # 2**24 overflows float16: the first steps are skipped and the scale halves each time
    assert float(step.scale_sense) < 2.0 ** 24
    assert np.isfinite(losses).all()


def test_build_train_network_o3_and_fixed_scale():
    net, step = _build("O3")
    assert type(step) is nn.TrainOneStepCell and not step.sense_flag
    SEEN.clear()
    step(X, Y)
    assert dict(SEEN)["bn"] == F16 and SEEN[-1] == ("loss", F32)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9, loss_scale=128.0)
    manager = amp.FixedLossScaleManager(128.0, drop_overflow_update=False)
    step = amp.build_train_network(net, opt, MSE(), level="O3", loss_scale_manager=manager)
    assert type(step) is nn.TrainOneStepCell and step.sens == 128.0


def test_build_train_network_trains():
    net, step = _build("O2", loss_scale_manager=amp.DynamicLossScaleManager(2 ** 10, 2, 50))
    first = float(step(X, Y)[0])
    for _ in range(30):
        last = float(step(X, Y)[0])
    assert last < first


@pytest.mark.parametrize("kwargs,err,match", [
    ({"level": "O5"}, ValueError, "'level' should be in"),
    ({"level": 2}, TypeError, "must be a string"),
    ({"foo": 1}, ValueError, "Unsupported arg 'foo'"),
    ({"cast_model_type": ms.int32}, TypeError, "cast_model_type"),
    ({"keep_batchnorm_fp32": 1}, TypeError, "keep_batchnorm_fp32"),
    ({"loss_scale_manager": 3}, TypeError, "loss_scale_manager"),
    ({"boost_level": "O7"}, ValueError, "boost_level"),
])
def test_build_train_network_errors(kwargs, err, match):
    net = Net()
    with pytest.raises(err, match=match):
        amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), **kwargs)


def test_build_train_network_needs_an_optimizer():
    with pytest.raises(TypeError, match="optimizer"):
        amp.build_train_network(Net(), None)


# ------------------------------------------------------------------ loss-scale managers
def test_fixed_loss_scale_manager():
    m = amp.FixedLossScaleManager()
    assert m.get_loss_scale() == 128.0 and m.get_drop_overflow_update()
    assert isinstance(m.get_update_cell(), nn.FixedLossScaleUpdateCell)
    assert amp.FixedLossScaleManager(drop_overflow_update=False).get_update_cell() is None
    m.update_loss_scale(True)
    assert m.get_loss_scale() == 128.0
    with pytest.raises(ValueError, match=">= 1"):
        amp.FixedLossScaleManager(0.5)


def test_dynamic_loss_scale_manager():
    m = amp.DynamicLossScaleManager(16, 2, 2)
    seen = []
    for overflow in [False, False, False, True, False, False, True, True]:
        m.update_loss_scale(overflow)
        seen.append(m.get_loss_scale())
    assert seen == [16, 32, 32, 16.0, 16.0, 32.0, 16.0, 8.0]      # MindSpore 2.10's sequence
    assert amp.DynamicLossScaleManager().get_loss_scale() == 2 ** 24
    cell = amp.DynamicLossScaleManager(16, 2, 2).get_update_cell()
    assert isinstance(cell, nn.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 16
    with pytest.raises(ValueError, match="init_loss_scale"):
        amp.DynamicLossScaleManager(0.5)
    with pytest.raises(ValueError, match="'scale_window' must be int and must > 0"):
        amp.DynamicLossScaleManager(scale_window=0)
    with pytest.raises(ValueError, match="scale_factor"):
        amp.DynamicLossScaleManager(scale_factor=0)


def test_managers_are_also_in_spore_train():
    assert ms.train.FixedLossScaleManager is amp.FixedLossScaleManager
    assert ms.train.DynamicLossScaleManager is amp.DynamicLossScaleManager
    assert issubclass(amp.DynamicLossScaleManager, ms.train.LossScaleManager)


def test_mindspore_module_paths_of_amp():
    # older MindSpore programs import from these modules
    from spore.train import amp as train_amp
    from spore.train import loss_scale_manager
    assert loss_scale_manager.FixedLossScaleManager is amp.FixedLossScaleManager
    assert loss_scale_manager.DynamicLossScaleManager is amp.DynamicLossScaleManager
    assert loss_scale_manager.LossScaleManager is amp.LossScaleManager
    assert train_amp.build_train_network is amp.build_train_network
    assert train_amp.auto_mixed_precision is amp.auto_mixed_precision


def test_loss_scalers_and_all_finite():
    static = amp.StaticLossScaler(1024)
    (scaled,) = static.scale((Tensor(1.0),))
    assert float(scaled) == 1024.0
    assert float(static.unscale(Tensor(2048.0))) == 2.0 and static.adjust(Tensor(True)) is False
    dynamic = amp.DynamicLossScaler(1024, 2, 3)
    seen = []
    for finite in [True, True, True, False]:
        assert dynamic.adjust(Tensor(finite))
        seen.append((float(dynamic.scale_value), int(dynamic.counter)))
    assert seen == [(1024.0, 1), (1024.0, 2), (2048.0, 0), (1024.0, 0)]   # as MindSpore 2.10
    assert not bool(amp.all_finite((Tensor([1.0, np.inf]),)))
    assert bool(amp.all_finite((Tensor([1.0, 2.0]), Tensor(3.0))))
    with pytest.raises(ValueError, match="scale_value"):
        amp.StaticLossScaler(0.5)


@pytest.mark.parametrize("level,bn_input", [("O2", F32), ("O3", F16)])
def test_real_layers(level, bn_input):
    net = nn.SequentialCell(nn.Dense(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dense(8, 2))
    seen = {}

    def record(name):
        def hook(cell, args):
            seen[name] = args[0].dtype
        return hook
    net[1].register_forward_pre_hook(record("bn"))
    net[3].register_forward_pre_hook(record("dense"))
    out = amp.auto_mixed_precision(net, level).set_train()(X)
    assert out.dtype == F32 and seen == {"bn": bn_input, "dense": F16}
    assert all(p.dtype == F32 for p in net.get_parameters())


def test_all_finite_primitive():
    a = Tensor(np.array([1.0, 2.0], np.float32))
    b = Tensor(np.array([np.inf], np.float32))
    f = ms.amp.AllFinite()
    assert bool(f((a,)).asnumpy()) is True and bool(f((a, b)).asnumpy()) is False
    assert f([a, a]).dtype == ms.bool_ and f((a,)).shape == ()
    with pytest.raises(TypeError, match="non-empty tuple"):
        f(a)
