"""mindspore.boost: AutoBoost levels and config, less-BN heads, gradient freezing and
accumulation, boosted training steps and Model(boost_level=...) (MindSpore 2.10's rules)."""
import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.boost import (AutoBoost, BoostTrainOneStepCell, BoostTrainOneStepWithLossScaleCell,
                         FreezeOpt, GradientAccumulation, GradientFreeze, LessBN,
                         OptimizerProcess, ParameterProcess)
from spore.boost.less_batch_normalization import CommonHeadLastFN


@pytest.fixture(autouse=True)
def _fresh_autoboost():
    AutoBoost._reset()
    yield
    AutoBoost._reset()


def _data(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return (ms.Tensor(rng.random((n, 4)).astype(np.float32)),
            ms.Tensor(rng.integers(0, 3, n).astype(np.int32)))


def _loss_net(net):
    return nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))


def _np(params):
    return [p.asnumpy().copy() for p in params]


# ---------------------------------------------------------------------- AutoBoost
def test_levels_and_singleton():
    boost = AutoBoost("O1")
    assert boost.boost_config == {"less_bn": True, "grad_freeze": True, "adasum": False,
                                  "grad_accumulation": False, "dim_reduce": False,
                                  "loss_scale_group": False}
    assert AutoBoost() is boost and AutoBoost("O2").level == "O1"   # the first one wins
    AutoBoost._reset()
    assert AutoBoost("O2").boost_config["adasum"] is True
    AutoBoost._reset()
    assert AutoBoost("O9").level == "O0"
    assert not any(AutoBoost().boost_config.values())


def test_config_modes_and_sections():
    cfg = {"boost": {"mode": "manual", "less_bn": False, "grad_accumulation": True},
           "common": {"device_number": 4},
           "grad_accumulation": {"grad_accumulation_step": 4},
           "grad_freeze": {"param_groups": 3}}
    boost = AutoBoost("O1", cfg)
    assert boost.boost_config["less_bn"] is False and boost.boost_config["grad_freeze"] is True
    assert boost.boost_config["grad_accumulation"] is True
    assert (boost.device_number, boost.grad_accumulation_step, boost._param_groups) == (4, 4, 3)
    AutoBoost._reset()
    # a section of a disabled feature is not read
    boost = AutoBoost("O0", {"grad_freeze": {"param_groups": 3}})
    assert boost._param_groups == 10
    AutoBoost._reset()
    assert all(AutoBoost("O0", {"boost": {"mode": "enable_all"}}).boost_config.values())
    AutoBoost._reset()
    assert not any(AutoBoost("O2", {"boost": {"mode": "disable_all"}}).boost_config.values())
    AutoBoost._reset()
    with pytest.raises(ValueError, match="The boost mode must be in"):
        AutoBoost("O1", {"boost": {"mode": "fast"}})


# ---------------------------------------------------------------------- LessBN
def test_common_head_last_fn_is_a_normalised_dense():
    head = CommonHeadLastFN(4, 3)
    x, _ = _data()
    w = head.weight.asnumpy()
    xn = x.asnumpy() / np.linalg.norm(x.asnumpy(), axis=1, keepdims=True)
    wn = w / np.linalg.norm(w, axis=1, keepdims=True)
    np.testing.assert_allclose(head(x).asnumpy(), xn @ wn.T + head.bias.asnumpy(), rtol=1e-5)
    assert head.multiplier.asnumpy().tolist() == [1.0]


def test_less_bn_replaces_the_last_dense_of_each_cell():
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    weight = net[2].weight.asnumpy().copy()
    wrapped = LessBN(net, fn_flag=True)
    assert isinstance(net[0], nn.Dense) and isinstance(net[2], CommonHeadLastFN)
    np.testing.assert_array_equal(net[2].weight.asnumpy(), weight)
    assert not net[2].has_bias
    assert net.get_flags()["less_bn"] and net[0].less_bn and net.get_flags()["defer_inline"]
    x, _ = _data()
    np.testing.assert_allclose(wrapped(x).asnumpy(), net(x).asnumpy())
    head = net[2]
    LessBN(net, fn_flag=True)                      # already boosted: left as it is
    assert net[2] is head
    with pytest.raises(ValueError, match="must be 'less_bn'"):
        net.set_boost("fast")


# ---------------------------------------------------------------------- parameter groups
def test_parameter_and_optimizer_process():
    net = nn.SequentialCell(nn.Dense(4, 8), nn.BatchNorm1d(8), nn.Dense(8, 3))
    params = net.trainable_params()
    ParameterProcess().assign_parameter_group(params, [2, 4])
    assert [p.comm_fusion for p in params] == [1, 1, 2, 2, 3, 3]
    assert ParameterProcess.generate_group_params(params[:2], params) == [{"params": params[:2]}]
    groups = ParameterProcess.generate_group_params(
        params, [{"params": params[:2], "lr": 0.5}, {"params": params[2:4]}])
    assert [len(g["params"]) for g in groups] == [2, 2, 2] and groups[2]["lr"] == 0.5
    opt = nn.Momentum([{"params": params, "weight_decay": 0.01}], 0.1, 0.9)
    process = OptimizerProcess(opt)
    process.add_grad_centralization(net)
    gc, rest = process.origin_params
    assert gc["grad_centralization"] and [p.name for p in gc["params"]] == \
        ["0.weight", "2.weight"]
    assert "grad_centralization" not in rest and len(rest["params"]) == 4
    new = process.generate_new_optimizer()
    assert type(new) is nn.Momentum and float(new.momentum.asnumpy()) == pytest.approx(0.9)
    assert [p.name for p in new.parameters] == ["0.weight", "2.weight", "0.bias", "1.gamma",
                                                "1.beta", "2.bias"]
    assert new.grad_centralization_flags == (True, True, False, False, False, False)
    with pytest.raises(ValueError, match="empty parameter list"):
        ParameterProcess.generate_group_params(params, [])


# ---------------------------------------------------------------------- accumulation
def test_gradient_accumulation_updates_every_n_steps_with_the_mean():
    w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    opt = nn.SGD([w], learning_rate=1.0)
    acc = GradientAccumulation(2, opt)
    g1, g2 = ms.Tensor(np.array([1., 2., 3.], np.float32)), ms.Tensor(np.full(3, 3., np.float32))
    acc(ms.Tensor(0.0), (g1,))
    np.testing.assert_array_equal(w.asnumpy(), np.ones(3))
    acc(ms.Tensor(0.0), (g2,))
    np.testing.assert_allclose(w.asnumpy(), 1 - (g1.asnumpy() + g2.asnumpy()) / 2)
    assert int(acc._accumulation_step.asnumpy()) == 0
    np.testing.assert_array_equal(acc._grad_accumulation[0].asnumpy(), np.zeros(3))


def test_boost_step_with_grad_accumulation_config():
    AutoBoost("O0", {"boost": {"mode": "manual", "grad_accumulation": True},
                     "grad_accumulation": {"grad_accumulation_step": 2}})
    net = nn.Dense(4, 3)
    opt = nn.SGD(net.trainable_params(), 0.5)
    step = BoostTrainOneStepCell(_loss_net(net), opt)
    assert step.use_grad_accumulation and step.max_accumulation_step == 2
    x, y = _data()
    before = _np(net.trainable_params())
    loss_and_grad = ms.value_and_grad(_loss_net(net), None, opt.parameters)
    _, g = loss_and_grad(x, y)
    step(x, y)
    for a, b in zip(before, _np(net.trainable_params())):
        np.testing.assert_array_equal(a, b)
    step(x, y)
    for a, grad, p in zip(before, g, net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), a - 0.5 * grad.asnumpy(), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------- freezing
def test_freeze_index_sequences_and_groups():
    freeze = GradientFreeze(3, 0, 0.5, 10)
    seq = freeze.generate_freeze_index_sequence(3, 0, 0.5, 10)
    assert seq[:8] == [0, 0, 1, 2, 0, 0, 1, 2] and len(seq) >= int(10 * 1.01)
    assert freeze.generate_freeze_index_sequence(1, 0, 0.5, 10) == [0] * 10
    np.random.seed(0)
    seq = freeze.generate_freeze_index_sequence(3, 1, 0.7, 100)
    assert seq[0] == 0 and set(seq) <= {0, 1, 2} and seq.count(0) > seq.count(2) > 0
    with pytest.raises(ValueError, match="Unsupported freezing training strategy"):
        freeze.generate_freeze_index_sequence(3, 5, 0.5, 10)
    net = nn.SequentialCell(*[nn.Dense(4, 4) for _ in range(6)])
    groups = freeze.split_parameters_groups(net, 2)
    assert [len(g) for g in groups] == [12, 8]      # group i: everything from i * stride on


def test_freeze_opt_builds_one_optimizer_per_group():
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    params = net.trainable_params()
    opt = nn.Momentum(params, 0.1, 0.9)
    freeze = FreezeOpt(opt, [params[:2], params[2:]], [0, 1, 1])
    assert freeze.groups_num == 2 and freeze.train_strategy.asnumpy().tolist() == [0, 1, 1]
    assert [len(o.parameters) for o in freeze.opts] == [2, 2]
    assert all(type(o) is nn.Momentum for o in freeze.opts)
    state = [p.name for p in freeze.opts[1].get_parameters()
             if all(p is not q for q in params)]
    assert state and all(n.startswith("boost_1.") for n in state)
    with pytest.raises(TypeError, match="must be an Optimizer instance"):
        FreezeOpt(net)
    with pytest.raises(ValueError, match="'train_parameter_groups' must also be specified"):
        FreezeOpt(opt, train_strategy=[0])
    with pytest.raises(ValueError, match="should be int number"):
        FreezeOpt(opt, [params], [0.5])


def test_boost_step_trains_one_group_per_step():
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    params = net.trainable_params()
    opt = nn.SGD(params, 0.1)
    step = BoostTrainOneStepCell(_loss_net(net), FreezeOpt(opt, [params[:2], params[2:]],
                                                            [1, 0]))
    x, y = _data()
    before = _np(params)
    loss = step(x, y)
    assert loss.shape == ()
    after = _np(params)
    assert all((a == b).all() for a, b in zip(before[:2], after[:2]))     # group 0 frozen
    assert not any((a == b).all() for a, b in zip(before[2:], after[2:]))
    step(x, y)
    final = _np(params)
    assert not any((a == b).all() for a, b in zip(after[:2], final[:2]))
    assert int(step.step.asnumpy()) == 0                                  # wrapped around


def test_plain_boost_step_matches_train_one_step_cell():
    x, y = _data()
    ms.set_seed(3)
    a = nn.Dense(4, 3)
    ms.set_seed(3)
    b = nn.Dense(4, 3)
    step_a = BoostTrainOneStepCell(_loss_net(a), nn.Momentum(a.trainable_params(), 0.1, 0.9))
    step_b = nn.TrainOneStepCell(_loss_net(b), nn.Momentum(b.trainable_params(), 0.1, 0.9))
    for _ in range(3):
        np.testing.assert_allclose(step_a(x, y).asnumpy(), step_b(x, y).asnumpy(), rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")      # an infinite scale makes nan
def test_loss_scale_step_skips_overflowing_updates():
    net = nn.Dense(4, 3)
    opt = nn.SGD(net.trainable_params(), 0.1)
    manager = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0 ** 10, scale_factor=2,
                                            scale_window=1000)
    step = BoostTrainOneStepWithLossScaleCell(_loss_net(net), opt, manager)
    x, y = _data()
    before = _np(net.trainable_params())
    loss, overflow, scale = step(x, y)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 10
    assert not (before[0] == net.weight.asnumpy()).all()
    step.set_sense_scale(ms.Tensor(np.float32(np.inf)))
    before = _np(net.trainable_params())
    _, overflow, scale = step(x, y)
    assert bool(overflow.asnumpy())
    np.testing.assert_array_equal(before[0], net.weight.asnumpy())
    with pytest.raises(ValueError, match="must be \\(1,\\) or \\(\\)"):
        BoostTrainOneStepWithLossScaleCell(_loss_net(net), opt, ms.Tensor(np.ones(2)))
    with pytest.raises(TypeError, match="must be Cell or Tensor"):
        BoostTrainOneStepWithLossScaleCell(_loss_net(net), opt, 2.0)


def test_dim_reduce_is_reported_as_not_implemented():
    AutoBoost("O0", {"boost": {"mode": "manual", "dim_reduce": True}})
    net = nn.Dense(4, 3)
    with pytest.raises(NotImplementedError, match="dim_reduce"):
        AutoBoost().network_auto_process_train(net, nn.SGD(net.trainable_params()))


# ---------------------------------------------------------------------- Model
class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 16)
        self.bn = nn.BatchNorm1d(16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 16)
        self.fc3 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.bn(self.fc1(x))))))


def test_model_boost_level_o1_rebuilds_network_and_optimizer():
    import spore.dataset as ds
    net = _Net()
    opt = nn.Momentum([{"params": net.trainable_params()}], 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, opt, metrics={"acc"}, boost_level="O1",
                     boost_config_dict={"grad_freeze": {"param_groups": 2, "total_steps": 20}})
    assert isinstance(model._network, LessBN) and isinstance(net.fc3, CommonHeadLastFN)
    assert isinstance(model._optimizer, FreezeOpt) and len(model._optimizer.opts) == 2
    assert type(model._train_network) is BoostTrainOneStepCell
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.random((24, 4)).astype(np.float32),
                                  "y": rng.integers(0, 3, 24).astype(np.int32)},
                                 shuffle=False).batch(8)
    before = net.fc1.weight.asnumpy().copy()
    model.train(1, data)
    assert not (before == net.fc1.weight.asnumpy()).all()
    assert set(model.eval(data)) == {"acc"}


def test_model_boost_level_o0_and_missing_metrics_leave_the_network():
    net = _Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, opt)
    assert type(model._train_network) is nn.TrainOneStepCell
    AutoBoost._reset()
    model = ms.Model(net, loss, opt, boost_level="O1")          # nothing to evaluate with
    assert model._network is net and model._optimizer is opt
    assert type(model._train_network) is BoostTrainOneStepCell
    assert ms.boost.AutoBoost is AutoBoost


# ---------------------------------------------------------------------- what boost relies on
def test_optimizers_record_their_init_arguments():
    net = nn.Dense(2, 2)
    opt = nn.Momentum(net.get_parameters(), 0.1, 0.9, weight_decay=0.01)
    assert opt.init_args == {"momentum": 0.9, "weight_decay": 0.01, "loss_scale": 1.0,
                             "use_nesterov": False}
    assert opt.init_learning_rate == 0.1
    assert [p.name for p in opt.init_params["params"]] == ["weight", "bias"]
    assert len(opt.parameters) == 2                   # the generator was read once, for both
    adam = nn.Adam(net.trainable_params(), learning_rate=ms.Tensor([0.1, 0.2]))
    assert adam.init_learning_rate == pytest.approx([0.1, 0.2]) and "kwargs" not in adam.init_args
    sched = nn.ExponentialDecayLR(0.1, 0.9, 4)
    assert nn.SGD(net.trainable_params(), sched).init_learning_rate is None


def test_cell_flags():
    net = nn.SequentialCell(nn.Dense(2, 2))
    assert net.add_flags(sink_mode=True) is net and net.sink_mode is True
    assert net.get_flags() == {"sink_mode": True}
    net.add_flags_recursive(mode=1)
    assert net[0].mode == 1 and net[0].get_flags() == {"mode": 1}


def test_loss_scale_step_accumulates_when_configured():
    AutoBoost("O0", {"boost": {"mode": "manual", "grad_accumulation": True},
                     "grad_accumulation": {"grad_accumulation_step": 2}})
    net = nn.Dense(4, 3)
    step = BoostTrainOneStepWithLossScaleCell(_loss_net(net), nn.SGD(net.trainable_params(), 0.1),
                                              ms.Tensor(np.float32(8.0)))
    x, y = _data()
    before = net.weight.asnumpy().copy()
    loss, overflow, scale = step(x, y)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 8.0
    np.testing.assert_array_equal(before, net.weight.asnumpy())
    step(x, y)
    assert not (before == net.weight.asnumpy()).all()


def test_dim_reduce_step_matches_its_formulas():
    from spore.boost import DimReduce
    rng = np.random.default_rng(0)
    x = rng.random((8, 3)).astype(np.float32)
    t = rng.random((8, 1)).astype(np.float32)
    net = nn.Dense(3, 1, has_bias=False)
    w0 = net.weight.asnumpy().copy()                     # (1, 3)
    loss_net = nn.WithLossCell(net, nn.MSELoss())
    weights = ms.ParameterTuple(net.trainable_params())
    clone = weights.clone(prefix="weights_clone", init="same")
    pca = np.linalg.qr(rng.random((3, 2)))[0].T.astype(np.float32)      # (2, 3) orthonormal
    dim = DimReduce(loss_net, nn.SGD(weights, 1.0), weights, pca, 2, 0.55, 0.9, 0.001, 0.4,
                    0, 1)
    xt, tt = ms.Tensor(x), ms.Tensor(t)
    loss, grads = ms.value_and_grad(loss_net, None, weights)(xt, tt)
    dim(loss, grads, ms.Tensor(np.float32(1.0)), weights, clone, xt, tt)

    def f(w):
        return float(np.mean((x @ w.reshape(3, 1) - t) ** 2))

    g = grads[0].asnumpy().reshape(3, 1)
    gk = pca @ g
    dk = -gk                                              # B starts as the identity
    dn = (pca.T @ dk).reshape(1, 3)
    rho = next((r for r in (1.0, 0.55) if f(w0 + r * dn) < f(w0) + 0.4 * r * (gk.T @ dk).item()),
               0.0)
    m = g.reshape(1, 3) - (pca.T @ gk).reshape(1, 3)
    expect = w0 - (0.001 * m - rho * dn)
    np.testing.assert_allclose(net.weight.asnumpy(), expect, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(clone[0].asnumpy(), expect, rtol=1e-4, atol=1e-6)
    assert bool(dim.gk_last_init.asnumpy())
    with pytest.raises(NotImplementedError, match="rank_size > 1"):
        DimReduce(loss_net, nn.SGD(weights, 1.0), weights, pca, 2, 0.55, 0.9, 0.001, 0.4, 0, 2)
