"""Adadelta, AdaMax, ASGD, Rprop, LazyAdam, ProximalAdagrad: the five-step run of
``test_optim.py`` against MindSpore 2.10 (CPU; values after step 1 and step 5), their
state names, return values and argument errors."""
import numpy as np
import pytest

from spore import nn, Parameter, Tensor
from tests.nn.test_optim import run

CASES = {
    "Adadelta": lambda ps: nn.Adadelta(ps, learning_rate=1.0),
    "Adadelta-rho-eps-wd": lambda ps: nn.Adadelta(ps, learning_rate=0.5, rho=0.8, epsilon=1e-4,
                                                  weight_decay=0.1),
    "AdaMax": lambda ps: nn.AdaMax(ps, learning_rate=0.1),
    "AdaMax-wd": lambda ps: nn.AdaMax(ps, learning_rate=0.1, beta1=0.8, beta2=0.9, eps=1e-6,
                                      weight_decay=0.1),
    "ASGD": lambda ps: nn.ASGD(ps, learning_rate=0.1),
    "ASGD-t0-wd": lambda ps: nn.ASGD(ps, learning_rate=0.1, lambd=0.01, alpha=0.5, t0=2.0,
                                     weight_decay=0.1),
    "Rprop": lambda ps: nn.Rprop(ps, learning_rate=0.1),
    "Rprop-etas": lambda ps: nn.Rprop(ps, learning_rate=0.1, etas=(0.4, 1.5),
                                      step_sizes=(0.01, 0.2), weight_decay=0.1),
    "LazyAdam": lambda ps: nn.LazyAdam(ps, learning_rate=0.1),
    "LazyAdam-nesterov-wd": lambda ps: nn.LazyAdam(ps, learning_rate=0.1, use_nesterov=True,
                                                   weight_decay=0.1),
    "ProximalAdagrad": lambda ps: nn.ProximalAdagrad(ps, learning_rate=0.1),
    "ProximalAdagrad-l1-l2": lambda ps: nn.ProximalAdagrad(ps, learning_rate=0.1, l1=0.01,
                                                           l2=0.1, accum=0.2),
}

# MindSpore 2.10 (CPU): w after step 5, gamma after step 5, w after step 1
MINDSPORE = {
    "Adadelta": ([0.975795, -0.4757887, 1.9757875], [0.7100563, 1.3100727],
                 [0.9968393, -0.4968381, 1.9968379]),
    "Adadelta-rho-eps-wd": ([0.9211318, -0.4161147, 1.9188285], [0.73342, 1.3359963],
                            [0.9888889, -0.4888641, 1.9888308]),
    "AdaMax": ([0.6247041, -0.1247041, 1.624704], [0.6314834, 1.2314833], [0.9, -0.4, 1.9]),
    "AdaMax-wd": ([0.5832013, -0.1030868, 1.5926721], [0.6520247, 1.2520229],
                  [0.9000005, -0.4000004, 1.9000002]),
    "ASGD": ([0.8499549, -0.199985, 1.5499151], [0.7249641, 1.5499275],
             [0.98999, -0.479995, 1.96998]),
    "ASGD-t0-wd": ([0.7986256, -0.1778772, 1.4496275], [0.7214606, 1.5430207],
                   [0.979, -0.4745, 1.9480001]),
    "Rprop": ([0.2558399, 0.2441601, 1.2558398], [0.964, 1.564], [0.9, -0.4, 1.9]),
    "Rprop-etas": ([0.15, 0.35, 1.1499999], [1.0500001, 1.65], [0.9, -0.4, 1.9]),
    "LazyAdam": ([0.514919, -0.0149187, 1.5149186], [0.6629008, 1.2629004],
                 [0.9000003, -0.4000002, 1.9000001]),
    "LazyAdam-nesterov-wd": ([0.2720985, 0.2328079, 1.2690616], [0.7015362, 1.3015355],
                             [0.8100003, -0.3100002, 1.8100002]),
    "ProximalAdagrad": ([0.7317089, -0.1635605, 1.6346341], [0.7697533, 1.4355383],
                        [0.9698489, -0.4465477, 1.9311752]),
    "ProximalAdagrad-l1-l2": ([0.6922827, -0.1670398, 1.5652691], [0.6697268, 1.3647577],
                              [0.9551529, -0.4479894, 1.9070218]),
}

STATE = {
    "Adadelta": ["accum.gamma", "accum.w", "accum_update.gamma", "accum_update.w"],
    "AdaMax": ["beta1_power", "moment1.gamma", "moment1.w", "moment2.gamma", "moment2.w"],
    "ASGD": ["ax_.gamma", "ax_.w", "eta_gamma", "eta_w", "mu_gamma", "mu_w"],
    "Rprop": ["prev.gamma", "prev.w", "step_size.gamma", "step_size.w"],
    "LazyAdam": ["beta1_power", "beta2_power", "moment1.gamma", "moment1.w", "moment2.gamma",
                 "moment2.w"],
    "ProximalAdagrad": ["accum.gamma", "accum.w"],
}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_five_steps_match_mindspore(name):
    opt, out, got = run(CASES[name])
    w5, gamma5, w1 = MINDSPORE[name]
    np.testing.assert_allclose(got[0][0], w1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[-1][0], w5, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[-1][1], gamma5, rtol=1e-5, atol=1e-6)
    assert int(opt.global_step[0]) == 5
    # MindSpore's ASGD and Rprop return True, the others one True per parameter
    assert out is True if name.startswith(("ASGD", "Rprop")) else out == (True, True)


@pytest.mark.parametrize("name", sorted(STATE))
def test_state_names(name):
    opt, _, _ = run(CASES[name], steps=1)
    names = sorted(p.name for p in opt.get_parameters())
    want = sorted(STATE[name] + ["gamma", "global_step", "learning_rate", "w"])
    assert names == want


def _params():
    return [Parameter(Tensor(np.ones(2, np.float32)), name="w")]


@pytest.mark.parametrize("make,exc,words", [
    (lambda: nn.Adadelta(_params(), rho=1.5), ValueError,
     "'rho' must be in range of \\[0.0, 1.0\\], but got 1.5"),
    (lambda: nn.Adadelta(_params(), epsilon=-1.0), ValueError, "'epsilon' must be float and "
                                                               "must >= 0"),
    (lambda: nn.AdaMax(_params(), beta1=1.0), ValueError, "'beta1' must be in range of "
                                                          "\\(0.0, 1.0\\)"),
    (lambda: nn.ASGD(_params(), lambd=1), TypeError, "type of 'lambd' should be 'float'"),
    (lambda: nn.Rprop(_params(), etas=(2.0, 1.0)), ValueError, "etas should be in the range"),
    (lambda: nn.Rprop(_params(), etas=[0.5, 1.2]), TypeError, "'etas' must be a tuple"),
    (lambda: nn.Rprop(_params(), step_sizes=(2.0, 1.0)), ValueError, "minimal <= maximal"),
    (lambda: nn.ProximalAdagrad(_params(), l1=-1.0), ValueError, "'l1' must be float and "
                                                                 "must >= 0"),
    (lambda: nn.ProximalAdagrad(_params(), accum=1), TypeError, "type of 'accum' should be "
                                                                "'float'"),
    (lambda: nn.LazyAdam(_params(), beta2=0.0), ValueError, "'beta2' must be in range"),
])
def test_argument_errors(make, exc, words):
    with pytest.raises(exc, match=words):
        make()


def test_trains_a_dense_layer():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((16, 3)).astype(np.float32))
    y = Tensor(rng.standard_normal((16, 1)).astype(np.float32))
    for make in (lambda ps: nn.Adadelta(ps), lambda ps: nn.AdaMax(ps, 0.05),
                 lambda ps: nn.ASGD(ps, 0.05), lambda ps: nn.Rprop(ps, 0.01),
                 lambda ps: nn.LazyAdam(ps, 0.05), lambda ps: nn.ProximalAdagrad(ps, 0.1, 0.5)):
        net = nn.Dense(3, 1)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), make(net.trainable_params()))
        first = float(step(x, y))
        for _ in range(20):
            last = float(step(x, y))
        assert last < first, type(step.optimizer).__name__
