"""experimental.optim.lr_scheduler: the rates of every scheduler over eight steps (two
parameter groups, lr 0.1 and 0.05) as MindSpore 2.10 computed them, the closed forms of
``step(epoch)``, and how schedulers drive the optimizer."""
import numpy as np
import pytest

from spore import Parameter, Tensor
from spore.experimental import optim
from spore.experimental.optim import lr_scheduler as L


def two_group_sgd():
    a = Parameter(Tensor(np.ones(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
    return optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1)


SCHEDULERS = {
    "step": lambda o: L.StepLR(o, 2, 0.5),
    "multistep": lambda o: L.MultiStepLR(o, [2, 5, 5], 0.5),
    "exp": lambda o: L.ExponentialLR(o, 0.9),
    "cos": lambda o: L.CosineAnnealingLR(o, 3, 0.01),
    "cosw": lambda o: L.CosineAnnealingWarmRestarts(o, 2, 2, 0.01),
    "lambda": lambda o: L.LambdaLR(o, lambda e: 0.9 ** e),
    "mult": lambda o: L.MultiplicativeLR(o, lambda e: 0.9),
    "linear": lambda o: L.LinearLR(o, 0.25, 1.0, 4),
    "const": lambda o: L.ConstantLR(o, 0.5, 3),
    "poly": lambda o: L.PolynomialLR(o, 4, 2.0),
    "cyclic": lambda o: L.CyclicLR(o, 0.01, 0.1, 2, 3),
    "cyclic2": lambda o: L.CyclicLR(o, 0.01, [0.1, 0.2], 2, mode="triangular2"),
    "cyclicexp": lambda o: L.CyclicLR(o, 0.01, 0.1, 2, mode="exp_range", gamma=0.9),
    "seq": lambda o: L.SequentialLR(o, [L.ConstantLR(o, 0.5, 2), L.ExponentialLR(o, 0.9)], [3]),
}

# get_last_lr() after construction and after each of 8 step() calls (MindSpore 2.10)
MINDSPORE_RATES = {
    "step": [(0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.025, 0.0125),
              (0.025, 0.0125),
              (0.0125, 0.0062500001),
              (0.0125, 0.0062500001),
              (0.0062500001, 0.003125)],
    "multistep": [(0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.0125, 0.0062500001),
              (0.0125, 0.0062500001),
              (0.0125, 0.0062500001),
              (0.0125, 0.0062500001)],
    "exp": [(0.1, 0.050000001),
              (0.089999996, 0.044999998),
              (0.080999993, 0.040499996),
              (0.07289999, 0.036449995),
              (0.065609992, 0.032804996),
              (0.059048992, 0.029524496),
              (0.05314409, 0.026572045),
              (0.04782968, 0.02391484),
              (0.043046709, 0.021523355)],
    "cos": [(0.1, 0.050000001),
              (0.077500001, 0.039999999),
              (0.032499999, 0.019999998),
              (0.0099999998, 0.0099999998),
              (0.032499999, 0.02),
              (0.077499993, 0.039999999),
              (0.099999972, 0.04999999),
              (0.077499963, 0.039999984),
              (0.032499984, 0.019999992)],
    "cosw": [(0.1, 0.049999997),
              (0.055, 0.029999997),
              (0.1, 0.049999997),
              (0.086819805, 0.044142134),
              (0.055, 0.029999997),
              (0.023180196, 0.015857864),
              (0.1, 0.049999997),
              (0.096574582, 0.04847759),
              (0.086819805, 0.044142134)],
    "lambda": [(0.1, 0.050000001),
              (0.089999996, 0.044999998),
              (0.080999993, 0.040499996),
              (0.07289999, 0.036449995),
              (0.065609992, 0.032804996),
              (0.059048992, 0.029524496),
              (0.053144094, 0.026572047),
              (0.047829684, 0.023914842),
              (0.043046713, 0.021523356)],
    "mult": [(0.1, 0.050000001),
              (0.089999996, 0.044999998),
              (0.080999993, 0.040499996),
              (0.07289999, 0.036449995),
              (0.065609992, 0.032804996),
              (0.059048992, 0.029524496),
              (0.05314409, 0.026572045),
              (0.04782968, 0.02391484),
              (0.043046709, 0.021523355)],
    "linear": [(0.025, 0.0125),
              (0.043749999, 0.021875),
              (0.0625, 0.03125),
              (0.081249997, 0.040624999),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001)],
    "const": [(0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.1, 0.050000001)],
    "poly": [(0.1, 0.050000001),
              (0.056250002, 0.028125001),
              (0.025000002, 0.012500001),
              (0.0062500006, 0.0031250003),
              (0, 0),
              (0, 0),
              (0, 0),
              (0, 0),
              (0, 0)],
    "cyclic": [(0.0099999998, 0.0099999998),
              (0.055000015, 0.055000015),
              (0.099999994, 0.099999994),
              (0.07, 0.07),
              (0.040000007, 0.040000007),
              (0.0099999998, 0.0099999998),
              (0.055000015, 0.055000015),
              (0.099999987, 0.099999987),
              (0.070000015, 0.070000015)],
    "cyclic2": [(0.0099999998, 0.0099999998),
              (0.055, 0.105),
              (0.1, 0.2),
              (0.055, 0.105),
              (0.0099999998, 0.0099999998),
              (0.032499999, 0.057499997),
              (0.055, 0.105),
              (0.032499999, 0.057499997),
              (0.0099999998, 0.0099999998)],
    "cyclicexp": [(0.0099999998, 0.0099999998),
              (0.050499998, 0.050499998),
              (0.082899995, 0.082899995),
              (0.042804994, 0.042804994),
              (0.0099999998, 0.0099999998),
              (0.036572047, 0.036572047),
              (0.057829686, 0.057829686),
              (0.031523358, 0.031523358),
              (0.0099999998, 0.0099999998)],
    "seq": [(0.050000001, 0.025),
              (0.050000001, 0.025),
              (0.1, 0.050000001),
              (0.1, 0.050000001),
              (0.089999996, 0.044999998),
              (0.080999993, 0.040499996),
              (0.07289999, 0.036449995),
              (0.065609992, 0.032804996),
              (0.059048992, 0.029524496)],
}

# get_last_lr() after step(3), step(1), step(4) (MindSpore 2.10)
MINDSPORE_CLOSED_FORM = {
    "step": [(0.050000001, 0.025), (0.1, 0.050000001), (0.025, 0.0125)],
    "exp": [(0.07289999, 0.036449995), (0.089999996, 0.044999998), (0.065609992, 0.032804996)],
    "cos": [(0.0099999998, 0.0099999998), (0.077500001, 0.039999999), (0.032500006, 0.020000003)],
    "linear": [(0.081250004, 0.040625002), (0.043749999, 0.021875), (0.1, 0.050000001)],
    "const": [(0.1, 0.050000001), (0.050000001, 0.025), (0.1, 0.050000001)],
    "poly": [(0.0062500001, 0.003125), (0.056250002, 0.028125001), (0, 0)],
}


def rates(scheduler):
    return [float(lr.asnumpy()) for lr in scheduler.get_last_lr()]


def rates_at(scheduler, epochs):
    """The rates after ``step(epoch)`` for each epoch in turn."""
    got = []
    for epoch in epochs:
        scheduler.step(epoch)
        got.append(rates(scheduler))
    return got


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_rates_match_mindspore(name):
    opt = two_group_sgd()
    scheduler = SCHEDULERS[name](opt)
    got = [rates(scheduler)]
    for _ in range(8):
        scheduler.step()
        got.append(rates(scheduler))
    np.testing.assert_allclose(got, MINDSPORE_RATES[name], rtol=2e-6, atol=1e-9)
    # the optimizer's lr Parameters hold the scheduler's rates
    np.testing.assert_allclose([float(lr.asnumpy()) for lr in opt.lrs], got[-1], rtol=1e-7)


@pytest.mark.parametrize("name", sorted(MINDSPORE_CLOSED_FORM))
def test_step_to_an_epoch_uses_the_closed_form(name):
    got = rates_at(SCHEDULERS[name](two_group_sgd()), (3, 1, 4))
    np.testing.assert_allclose(got, MINDSPORE_CLOSED_FORM[name], rtol=2e-6, atol=1e-9)


def test_closed_forms_mindspore_cannot_compute():
    """MindSpore 2.10 raises for MultiStepLR.step(epoch) (AttributeError: 'step_size') and
    for CosineAnnealingWarmRestarts.step(epoch >= T_0) with T_mult > 1 (TypeError in its
    log call); Spore gives the rates the recursive forms reach at those epochs."""
    for name, epochs in (("multistep", (3, 1, 6)), ("cosw", (3, 1, 7))):
        got = rates_at(SCHEDULERS[name](two_group_sgd()), epochs)
        np.testing.assert_allclose(got, [MINDSPORE_RATES[name][i] for i in epochs], rtol=2e-6)


def test_reduce_lr_on_plateau_matches_mindspore():
    opt = two_group_sgd()
    scheduler = L.ReduceLROnPlateau(opt, "min", 0.5, patience=1, cooldown=1, min_lr=0.02)
    got = []
    for metric in [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9]:
        scheduler.step(Tensor(metric))
        got.append(rates(scheduler))
    np.testing.assert_allclose(got, [(0.1, 0.050000001),
           (0.1, 0.050000001),
           (0.1, 0.050000001),
           (0.050000001, 0.025),
           (0.050000001, 0.025),
           (0.050000001, 0.025),
           (0.050000001, 0.025),
           (0.025, 0.02),
           (0.025, 0.02),
           (0.025, 0.02),
           (0.02, 0.02)], rtol=2e-6)


@pytest.mark.parametrize("mode, threshold_mode, metrics, reduced", [
    ("max", "rel", [1.0, 1.0001, 1.00005, 1.0], True),   # rel: 1.0001 is not > 1.0 * 1.0001
    ("max", "abs", [1.0, 1.2, 1.3, 1.4], False),
    ("min", "abs", [1.0, 0.95, 0.9, 0.85], True),        # each gain is below the 0.1 threshold
])
def test_reduce_lr_on_plateau_modes(mode, threshold_mode, metrics, reduced):
    opt = two_group_sgd()
    scheduler = L.ReduceLROnPlateau(opt, mode, 0.5, patience=1,
                                    threshold=0.1 if threshold_mode == "abs" else 1e-4,
                                    threshold_mode=threshold_mode)
    for metric in metrics:
        scheduler.step(metric)
    assert (rates(scheduler)[0] < 0.1) is reduced


def test_scheduled_rate_reaches_the_optimizer_update():
    """SGD with StepLR(1, 0.5): MindSpore 2.10's parameter after three steps."""
    p = Parameter(Tensor(np.array([0.5, -1.0, 2.0, 0.0], np.float32)), name="w")
    opt = optim.SGD([p], lr=Tensor(0.1))
    scheduler = L.StepLR(opt, 1, 0.5)
    for g in ([0.1, -0.2, 0.3, 0.0], [-0.4, 0.5, 0.05, 1.0]):
        opt((Tensor(np.array(g, np.float32)),))
        scheduler.step()
    np.testing.assert_allclose(p.asnumpy(), [0.51, -1.005, 1.9675, -0.05], rtol=1e-6)
    np.testing.assert_allclose(rates(scheduler), [0.025])


def test_get_last_lr_is_a_snapshot_and_initial_lr_is_recorded():
    opt = two_group_sgd()
    scheduler = L.StepLR(opt, 1, 0.5)
    kept = scheduler.get_last_lr()
    scheduler.step()
    assert [float(x.asnumpy()) for x in kept] == [np.float32(0.1), np.float32(0.05)]
    assert float(opt.param_groups[0]["initial_lr"].asnumpy()) == np.float32(0.1)
    assert scheduler.last_epoch.name == "last_epoch_StepLR"
    assert float(scheduler.last_epoch.asnumpy()) == 1.0


def test_lambda_receives_the_epoch_as_a_tensor():
    seen = []
    L.LambdaLR(two_group_sgd(), [lambda e: seen.append(e) or 1.0, lambda e: 0.5])
    assert type(seen[0]) is Tensor and float(seen[0].asnumpy()) == 0.0


@pytest.mark.parametrize("make, error, words", [
    (lambda o: L.StepLR(o, 2.0), TypeError, "step_size"),
    (lambda o: L.StepLR(o, 2, 1), TypeError, "gamma"),
    (lambda o: L.StepLR("optimizer", 2), TypeError, "is not an Optimizer"),
    (lambda o: L.StepLR(o, 2, last_epoch=-2), ValueError, "Invalid last_epoch"),
    (lambda o: L.StepLR(o, 2, last_epoch=3), KeyError, "initial_lr"),
    (lambda o: L.MultiStepLR(o, (2, 3)), TypeError, "milestones"),
    (lambda o: L.LinearLR(o, start_factor=0), ValueError, "Starting multiplicative factor"),
    (lambda o: L.ConstantLR(o, factor=2.0), ValueError, "Constant multiplicative factor"),
    (lambda o: L.PolynomialLR(o, power=-1.0), ValueError, "power"),
    (lambda o: L.LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas"),
    (lambda o: L.CosineAnnealingWarmRestarts(o, 0), ValueError, "T_0"),
    (lambda o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0), ValueError, "T_mult"),
    (lambda o: L.CyclicLR(o, 0.01, 0.1, mode="bogus"), ValueError, "mode is invalid"),
    (lambda o: L.ReduceLROnPlateau(o, factor=1.0), ValueError, "less than 1.0"),
    (lambda o: L.ReduceLROnPlateau(o, mode="up"), ValueError, "mode"),
    (lambda o: L.SequentialLR(o, [L.StepLR(o, 1)], [2]), ValueError, "one more"),
    (lambda o: L.SequentialLR(o, [L.StepLR(two_group_sgd(), 1)], []), ValueError,
     "same optimizer"),
])
def test_bad_arguments_raise(make, error, words):
    with pytest.raises(error) as info:
        make(two_group_sgd())
    assert words in str(info.value)
