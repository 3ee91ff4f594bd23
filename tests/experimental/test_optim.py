"""experimental.optim: three steps of every optimizer against the parameters MindSpore 2.10
(CPU, PyNative) produced for the same run, parameter groups, state, the ``mindspore``
alias and argument errors."""
import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, nn, ops
from spore.experimental import optim
from spore.experimental.optim import lr_scheduler

P0 = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
GRADS = [np.array([0.1, -0.2, 0.3, 0.0], np.float32),
         np.array([-0.4, 0.5, 0.05, 1.0], np.float32),
         np.array([0.2, 0.2, -0.6, -1.0], np.float32)]
# a large first gradient, then small ones: v shrinks, so AMSGrad's max(v) differs from v
SHRINKING = [np.array([1.0, -2.0, 0.5, 0.3], np.float32),
             np.array([0.01, 0.02, -0.01, 0.0], np.float32),
             np.array([0.01, -0.01, 0.02, 0.0], np.float32)]

# the parameter after three steps on GRADS, as MindSpore 2.10 computed it
MINDSPORE_3_STEPS = {
    "adam": (lambda p: optim.Adam(p, lr=0.1),
             [0.46696779131889343, -0.9985159039497375, 1.8513028621673584, -0.0698951706290245]),
    "adam_wd_maximize": (lambda p: optim.Adam(p, lr=0.1, weight_decay=0.1, maximize=True),
                         [0.5033929347991943, -0.9657901525497437, 2.005326509475708,
                          0.06957699358463287]),
    "adamw": (lambda p: optim.AdamW(p, lr=0.1),
              [0.4656130075454712, -0.9956745505332947, 1.845587134361267,
               -0.06982077658176422]),
    "adamw_amsgrad_maximize": (
        lambda p: optim.AdamW(p, lr=0.1, weight_decay=0.1, amsgrad=True, maximize=True),
        [0.5167515277862549, -0.9702353477478027, 2.086521863937378, 0.06915105134248734]),
    "sgd": (lambda p: optim.SGD(p, lr=0.1), [0.51, -1.05, 2.025, 0.0]),
    "sgd_momentum_dampening_wd": (
        lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.1),
        [0.4927810728549957, -0.9881541132926941, 1.8601768016815186, -0.07135999947786331]),
    "sgd_nesterov_maximize": (
        lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, maximize=True),
        [0.4639900028705597, -0.8952799439430237, 2.0027198791503906, 0.08099999278783798]),
    "adadelta": (lambda p: optim.Adadelta(p, lr=1.0, weight_decay=0.1, maximize=True),
                 [0.5007654428482056, -0.9958817958831787, 1.993735432624817,
                  -8.26357863843441e-05]),
    "adagrad": (lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.5, weight_decay=0.1,
                                        initial_accumulator_value=0.1),
                [0.48210465908050537, -0.9851235747337341, 1.9173306226730347,
                 -0.028946533799171448]),
    "adamax": (lambda p: optim.Adamax(p, lr=0.1, weight_decay=0.1),
               [0.42870959639549255, -0.9390712976455688, 1.812230110168457,
                -0.048767659813165665]),
    "asgd": (lambda p: optim.ASGD(p, lr=0.1, lambd=0.01, alpha=0.75, t0=1.0, weight_decay=0.1),
             [0.4934724271297455, -1.0172066688537598, 1.96039617061615, 0.00102272629737854]),
    "nadam": (lambda p: optim.NAdam(p, lr=0.1, weight_decay=0.1),
              [0.43131425976753235, -0.9993221759796143, 1.9039727449417114,
               -0.02940818853676319]),
    "radam": (lambda p: optim.RAdam(p, lr=0.1, weight_decay=0.1),
              [0.49437299370765686, -0.9851918816566467, 1.9054195880889893,
               -0.04874732345342636]),
    "rmsprop": (lambda p: optim.RMSprop(p, lr=0.01),
                [0.45321109890937805, -1.0279024839401245, 1.9728543758392334,
                 -0.029111891984939575]),
    "rmsprop_centered_momentum": (
        lambda p: optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1,
                                maximize=True),
        [0.5562257170677185, -0.9825662970542908, 1.9504836797714233, 0.07951575517654419]),
    "rprop": (lambda p: optim.Rprop(p, lr=0.1), [0.35, -0.95, 1.78, -0.1]),
}


def run(make, grads=GRADS, p0=P0):
    p = Parameter(Tensor(p0.copy()), name="w")
    opt = make([p])
    for g in grads:
        assert opt((Tensor(g),)) is True
    return opt, p.asnumpy()


@pytest.mark.parametrize("name", sorted(MINDSPORE_3_STEPS))
def test_three_steps_match_mindspore(name):
    make, want = MINDSPORE_3_STEPS[name]
    _, got = run(make)
    np.testing.assert_allclose(got, np.array(want, np.float32), rtol=2e-6, atol=1e-7)


def test_adam_amsgrad_divides_by_the_running_maximum_of_v():
    """MindSpore 2.10 ignores ``amsgrad`` in experimental Adam; Spore follows its documented
    formula (MindSpore's form of Adam with v replaced by max(v_hat, v)): float64 reference."""
    lr, b1, b2, eps = 0.1, 0.9, 0.5, 1e-8     # a short memory: v falls fast
    p, m, v, vmax = P0.astype(np.float64), 0.0, 0.0, 0.0
    for t, g in enumerate(SHRINKING, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        p = p - lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t) * m / (np.sqrt(vmax) + eps)
    opt, got = run(lambda ps: optim.Adam(ps, lr=lr, betas=(b1, b2), amsgrad=True), SHRINKING)
    np.testing.assert_allclose(got, p, rtol=1e-5, atol=1e-6)
    _, plain = run(lambda ps: optim.Adam(ps, lr=lr, betas=(b1, b2)), SHRINKING)
    assert np.abs(plain - got).max() > 1e-3
    np.testing.assert_allclose(opt.max_exp_avg_sq[0].asnumpy(), vmax, rtol=1e-5)


def test_adamw_amsgrad_keeps_the_maximum_second_moment():
    opt, got = run(lambda ps: optim.AdamW(ps, lr=0.1, amsgrad=True), SHRINKING)
    # MindSpore 2.10: parameter, max_exp_avg_sq and exp_avg_sq after the same three steps
    np.testing.assert_allclose(got, [0.2780951261520386, -0.7795526385307312,
                                     1.775638222694397, -0.21844926476478577], rtol=2e-6)
    np.testing.assert_allclose(opt.max_exp_avg_sq[0].asnumpy(),
                               [0.0009999871253967285, 0.003999948501586914,
                                0.0002499969268683344, 8.999884448712692e-05], rtol=2e-6)
    np.testing.assert_allclose(opt.exp_avg_sq[0].asnumpy(),
                               [0.000998188043013215, 0.003992452286183834,
                                0.0002499969268683344, 8.981893915915862e-05], rtol=2e-6)


def test_sgd_dampening_after_the_first_step():
    _, got = run(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5), GRADS[:2] * 2)
    np.testing.assert_allclose(got, [0.5303099751472473, -1.0049700736999512,
                                     1.8590549230575562, -0.18549999594688416], rtol=2e-6)


def two_groups(make, grads=GRADS[:2]):
    a = Parameter(Tensor(P0.copy()), name="a")
    b = Parameter(Tensor(P0[::-1].copy()), name="b")
    opt = make(a, b)
    for g in grads:
        opt((Tensor(g), Tensor(-g)))
    return opt, a.asnumpy(), b.asnumpy()


def test_groups_override_the_defaults():
    opt, a, b = two_groups(lambda a, b: optim.Adam(
        [{"params": [a], "lr": 0.1, "weight_decay": 0.1}, {"params": [b], "betas": (0.5, 0.9)}],
        lr=0.01))
    np.testing.assert_allclose(a, [0.44293418526649475, -0.9205098748207092,
                                   1.8073846101760864, -0.07441341131925583], rtol=2e-6)
    np.testing.assert_allclose(b, [0.0021763320546597242, 1.9968732595443726,
                                   -0.9836397767066956, 0.5091893672943115], rtol=2e-6)
    first, second = opt.param_groups
    assert first["betas"] == (0.9, 0.999) and second["betas"] == (0.5, 0.9)
    assert first["weight_decay"] == 0.1 and second["weight_decay"] == 0.0
    assert [lr.name for lr in opt.lrs] == ["learning_rate_group_0", "learning_rate_group_1"]
    assert second["lr"] is opt.lrs[1] and float(second["lr"].asnumpy()) == np.float32(0.01)
    assert opt.group_start_id == [0, 1, 2]


def test_adagrad_groups_share_the_step_counter():
    opt, a, b = two_groups(lambda a, b: optim.Adagrad(
        [{"params": [a]}, {"params": [b], "lr_decay": 0.5}], lr=0.1))
    np.testing.assert_allclose(a, [0.49701422452926636, -0.9928476810455322,
                                   1.883560061454773, -0.10000000149011612], rtol=2e-6)
    np.testing.assert_allclose(b, [0.03532383590936661, 1.9618984460830688,
                                   -0.8890400528907776, 0.5666666626930237], rtol=2e-6)
    assert int(opt.step_t.asnumpy()) == 2


@pytest.mark.parametrize("make", [
    lambda ps: optim.Adam(ps, lr=0.05, amsgrad=True), lambda ps: optim.NAdam(ps, lr=0.05),
    lambda ps: optim.ASGD(ps, lr=0.05), lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9),
    lambda ps: optim.Rprop(ps, lr=0.05)], ids=["adam", "nadam", "asgd", "sgd", "rprop"])
def test_add_param_group_later_equals_groups_at_construction(make):
    def train(late):
        a = Parameter(Tensor(P0.copy()), name="a")
        b = Parameter(Tensor(P0[::-1].copy()), name="b")
        if late:
            opt = make([a])
            opt.add_param_group({"params": b, "lr": 0.1})
        else:
            opt = make([{"params": [a]}, {"params": [b], "lr": 0.1}])
        for g in GRADS:
            opt((Tensor(g), Tensor(g * 2)))
        return a.asnumpy(), b.asnumpy()

    for x, y in zip(train(True), train(False)):
        np.testing.assert_array_equal(x, y)


def test_state_is_parameters_named_like_mindspore():
    net = nn.Dense(3, 2)
    names = {n for n, _ in optim.Adam(net.trainable_params()).parameters_and_names()}
    assert {"exp_avg.weight", "exp_avg_sq.bias", "max_exp_avg_sq.weight",
            "state_step"} <= names
    names = {n for n, _ in optim.SGD(net.trainable_params(), lr=0.1).parameters_and_names()}
    assert {"accum.weight", "stat.bias"} <= names
    names = {n for n, _ in optim.Rprop(net.trainable_params()).parameters_and_names()}
    assert {"prev.weight", "step_size.bias", "step_t"} <= names


def test_lr_forms_and_repr():
    p = Parameter(Tensor(P0.copy()), name="w")
    opt = optim.SGD([p], lr=Tensor(0.5))
    assert opt.lrs[0].dtype == ms.float32 and float(opt.lrs[0].asnumpy()) == 0.5
    opt = optim.Adam([p], lr=1)
    assert float(opt.param_groups[0]["lr"].asnumpy()) == 1.0
    text = repr(opt)
    assert text.startswith("Adam (\nParameter Group 0\n") and "    lr: 1.0\n" in text
    assert "    betas: (0.9, 0.999)\n" in text and text.endswith(")")


def test_training_loop_with_value_and_grad_and_a_scheduler():
    """The documented usage: grads of optimizer.parameters, optimizer(grads), scheduler.step()."""
    rng = np.random.default_rng(0)
    # Initial weights and targets come from this test's own generator, not the global seed,
    # so the loss curve does not depend on which tests ran before this one.
    net = nn.Dense(4, 1, weight_init=Tensor(rng.standard_normal((1, 4)).astype(np.float32)),
                   bias_init="zeros")
    x_np = rng.standard_normal((16, 4)).astype(np.float32)
    true_w = rng.standard_normal((4, 1)).astype(np.float32)
    x = Tensor(x_np)
    y = Tensor(x_np @ true_w + 0.1 * rng.standard_normal((16, 1)).astype(np.float32))
    loss_fn = nn.MSELoss()
    opt = optim.AdamW(net.trainable_params(), lr=0.05)
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)
    losses = []
    for _ in range(20):
        loss, grads = grad_fn(x, y)
        opt(grads)
        scheduler.step()
        losses.append(float(loss.asnumpy()))
    assert losses[-1] < 0.7 * losses[0]
    np.testing.assert_allclose(float(opt.lrs[0].asnumpy()), 0.05 * 0.9 ** 20, rtol=1e-5)


def test_mindspore_alias_resolves_experimental_optim():
    from spore import _alias
    _alias.install()
    try:
        import mindspore
        import mindspore.experimental.optim as ms_optim
        from mindspore.experimental.optim.lr_scheduler import StepLR
        assert ms_optim is optim and StepLR is lr_scheduler.StepLR
        assert mindspore.experimental.optim.AdamW is optim.AdamW
    finally:
        _alias.uninstall()


def test_module_layout_matches_mindspore():
    assert sorted(optim.__all__) == ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax",
                                     "NAdam", "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD"]
    from spore.experimental.optim import adamw, sgd  # per-optimizer modules, as in MindSpore
    assert adamw.AdamW is optim.AdamW and sgd.SGD is optim.SGD
    assert ms.experimental.optim is optim


def test_custom_optimizer_on_the_base_class():
    """MindSpore's documented subclassing pattern: param_groups and group_start_id."""
    class MySGD(optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, {"lr": lr})

        def construct(self, gradients):
            for group_id, group in enumerate(self.param_groups):
                start = self.group_start_id[group_id]
                for i, param in enumerate(group["params"]):
                    ops.assign(param, param - gradients[start + i] * group["lr"])
            return True

    a = Parameter(Tensor(P0.copy()), name="a")
    opt = MySGD([a], 0.5)
    opt.add_param_group({"params": Parameter(Tensor(np.ones(2, np.float32)), name="b")})
    assert len(opt.parameters) == 2
    opt((Tensor(GRADS[0]), Tensor(np.ones(2, np.float32))))
    np.testing.assert_allclose(a.asnumpy(), P0 - 0.5 * GRADS[0])
    np.testing.assert_allclose(opt.parameters[1].asnumpy(), [0.5, 0.5])


# ---------------------------------------------------------------------- errors
def _param():
    return Parameter(Tensor(P0.copy()), name="w")


@pytest.mark.parametrize("make, error, words", [
    (lambda: optim.Adam([_param()], lr=-0.1), ValueError, "Invalid learning rate"),
    (lambda: optim.Adam([_param()], betas=(1.0, 0.9)), ValueError, "beta parameter at index 0"),
    (lambda: optim.Adam([_param()], weight_decay=-1.0), ValueError, "weight_decay"),
    (lambda: optim.AdamW([_param()], eps=-1.0), ValueError, "eps"),
    (lambda: optim.Adam([_param()], lr=Tensor(np.array([0.1, 0.2], np.float32))),
     ValueError, "scalar Tensor"),
    (lambda: optim.Adam([_param()], lr="0.1"), TypeError, "lr"),
    (lambda: optim.Adam(5), TypeError, "Iterable"),
    (lambda: optim.Adam([{"params": {_param()}}]), TypeError, "sets"),
    (lambda: optim.Adam([]), ValueError, "must not be empty"),
    (lambda: optim.Adam(None), ValueError, "can not be None"),
    (lambda: optim.Adam([1.0]), TypeError, "can only optimize Parameters"),
    (lambda: optim.SGD([_param()], lr=0.1, nesterov=True), ValueError, "nesterov"),
    (lambda: optim.SGD([_param()], lr=0.1, momentum=-1), ValueError, "momentum"),
    (lambda: optim.SGD([_param()], lr=0.1, maximize=1), TypeError, "maximize"),
    (lambda: optim.Adadelta([_param()], rho=1.5), ValueError, "rho"),
    (lambda: optim.Adagrad([_param()], lr=0.0), ValueError, "lr"),
    (lambda: optim.Rprop([_param()], etas=(1.5, 1.2)), ValueError, "etas[0]"),
    (lambda: optim.Rprop([_param()], etas=(0.5, 1.0)), ValueError, "etas[1]"),
    (lambda: optim.ASGD([_param()], lambd=1), TypeError, "lambd"),
    (lambda: optim.RMSprop([_param()], alpha=-0.1), ValueError, "alpha"),
    (lambda: optim.NAdam([_param()], betas=(0.9, 1.0)), ValueError, "betas[1]"),
])
def test_bad_arguments_raise(make, error, words):
    with pytest.raises(error, match=None) as info:
        make()
    assert words in str(info.value)


def test_a_parameter_in_two_groups_is_rejected():
    p = _param()
    opt = optim.Adam([p])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": p})


def test_wrong_number_of_gradients_is_a_clear_error():
    opt = optim.Adam([_param()])
    with pytest.raises(ValueError, match="Adam.*number of gradients"):
        opt((Tensor(GRADS[0]), Tensor(GRADS[1])))


# ---------------------------------------------------------------------- graph mode
ALL_OPTIMIZERS = {
    "Adam": dict(lr=0.05, amsgrad=True), "AdamW": dict(lr=0.05),
    "SGD": dict(lr=0.05, momentum=0.9), "Adadelta": {}, "Adagrad": dict(lr=0.05),
    "Adamax": dict(lr=0.05), "ASGD": dict(lr=0.05, t0=2.0), "NAdam": dict(lr=0.05),
    "RAdam": dict(lr=0.05), "RMSprop": dict(lr=0.05, centered=True),
    "Rprop": dict(lr=0.05),
}


def train_dense(name, compile_step, steps=4):
    """A Dense layer trained by ``name`` with an ExponentialLR schedule; the step function
    (gradients + update) runs eagerly or through ``ms.jit``."""
    rng = np.random.default_rng(0)
    net = nn.Dense(4, 2)
    for p in net.get_parameters():
        p.set_data(Tensor(rng.uniform(-0.5, 0.5, p.shape).astype(np.float32)))
    opt = getattr(optim, name)(net.trainable_params(), **ALL_OPTIMIZERS[name])
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    loss_fn = nn.MSELoss()
    grad_fn = ms.value_and_grad(lambda a, b: loss_fn(net(a), b), None, opt.parameters)

    def step(a, b):
        loss, grads = grad_fn(a, b)
        opt(grads)
        return loss

    step = ms.jit(step) if compile_step else step
    x = Tensor(rng.standard_normal((8, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((8, 2)).astype(np.float32))
    for _ in range(steps):
        step(x, y)
        scheduler.step()
    return step, [p.asnumpy() for p in net.trainable_params()]


@pytest.mark.parametrize("name", sorted(ALL_OPTIMIZERS))
def test_jit_train_step_compiles_and_matches_pynative(name):
    """The whole update is captured (no fallback), and the rate a scheduler writes between
    calls reaches the compiled graph (the lr Parameter is an input, not a constant)."""
    step, compiled = train_dense(name, True)
    report = ms.jit_report(step)
    assert report.compiled == 1 and not report.fallbacks
    _, eager = train_dense(name, False)
    for a, b in zip(compiled, eager):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", ["Adam", "ASGD", "Rprop", "RAdam"])
def test_graph_mode_optimizer_call_matches_pynative(name):
    results = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        opt, got = run(lambda ps: getattr(optim, name)(ps, lr=0.1))
        results.append(got)
    np.testing.assert_array_equal(results[0], results[1])
    assert ms.jit_report(opt).compiled == 1
