"""Optimizers: five steps of each against its formula in NumPy (float64), the values
MindSpore 2.10 produced for the same run, learning-rate forms, parameter groups,
weight-decay filters, loss scale, state and errors."""
import numpy as np
import pytest

import spore as ms
from spore import nn, Parameter, Tensor
from spore._core import primitive as P
from spore.nn.optim._updates import adam_p, apply_momentum_p, sgd_p

W0 = np.array([1.0, -0.5, 2.0])
GAMMA0 = np.array([0.7, 1.3])       # named 'gamma': excluded from weight decay


def grads_at(t):
    """The gradients of step t (0-based); gamma's gradient is 0 at step 1."""
    return [np.array([0.1, -0.2, 0.3]) * (t + 1), np.array([0.05, 0.5]) * (1 - t)]


def run(make, steps=5):
    w = Parameter(Tensor(W0.astype(np.float32)), name="w")
    gamma = Parameter(Tensor(GAMMA0.astype(np.float32)), name="gamma")
    opt = make([w, gamma])
    history = []
    for t in range(steps):
        out = opt(tuple(Tensor(g.astype(np.float32)) for g in grads_at(t)))
        history.append([w.asnumpy().copy(), gamma.asnumpy().copy()])
    return opt, out, history


def reference(update, steps=5, decay=(True, False), wd=0.0, loss_scale=1.0):
    """Run ``update(i, p, g, t, state) -> new p`` on both parameters (float64); the gradient
    is g / loss_scale + wd * p for decayed parameters."""
    params = [W0.copy(), GAMMA0.copy()]
    states = [{}, {}]
    history = []
    for t in range(steps):
        for i, g in enumerate(grads_at(t)):
            g = g / loss_scale + (wd * params[i] if decay[i] else 0.0)
            params[i] = update(params[i], g, t + 1, states[i])
        history.append([p.copy() for p in params])
    return history


def assert_history(got, want, rtol=1e-4, atol=5e-6):
    for step, (g, w) in enumerate(zip(got, want)):
        for name, a, b in zip(("w", "gamma"), g, w):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                       err_msg=f"step {step + 1}, parameter {name}")


# ------------------------------------------------------------------ NumPy formulas
def sgd_rule(lr, momentum=0.0, dampening=0.0, nesterov=False):
    def update(p, g, t, s):
        if momentum == 0:
            return p - lr * g
        s["v"] = g if t == 1 else momentum * s["v"] + (1 - dampening) * g
        return p - lr * (g + momentum * s["v"] if nesterov else s["v"])
    return update


def momentum_rule(lr, mu, nesterov=False):
    def update(p, g, t, s):
        s["v"] = mu * s.get("v", 0.0) + g
        return p - lr * (g + mu * s["v"] if nesterov else s["v"])
    return update


def adam_rule(lr, b1=0.9, b2=0.999, eps=1e-8, nesterov=False, amsgrad=False):
    def update(p, g, t, s):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        s["vhat"] = np.maximum(s.get("vhat", 0.0), s["v"])
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        num = b1 * s["m"] + (1 - b1) * g if nesterov else s["m"]
        return p - lr_t * num / (np.sqrt(s["vhat"] if amsgrad else s["v"]) + eps)
    return update


def adam_weight_decay_rule(lr, wd, decayed, b1=0.9, b2=0.999, eps=1e-6):
    def update(p, g, t, s):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        u = s["m"] / (np.sqrt(s["v"]) + eps) + (wd * p if decayed(p) else 0.0)
        return p - lr * u
    return update


def adamw_rule(lr, wd=0.01, b1=0.9, b2=0.999, eps=1e-8, amsgrad=False, maximize=False):
    def update(p, g, t, s):
        g = -g if maximize else g
        p = p * (1 - lr * wd)
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        s["vmax"] = np.maximum(s.get("vmax", 0.0), s["v"])
        v = s["vmax"] if amsgrad else s["v"]
        return p - lr / (1 - b1 ** t) * s["m"] / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    return update


def rmsprop_rule(lr, rho=0.9, mu=0.0, eps=1e-10, centered=False):
    def update(p, g, t, s):
        s["ms"] = rho * s.get("ms", 1.0) + (1 - rho) * g * g
        s["mg"] = rho * s.get("mg", 0.0) + (1 - rho) * g
        denom = s["ms"] - s["mg"] ** 2 if centered else s["ms"]
        s["mom"] = mu * s.get("mom", 0.0) + lr * g / np.sqrt(denom + eps)
        return p - s["mom"]
    return update


def adagrad_rule(lr, accum=0.1, update_slots=True):
    def update(p, g, t, s):
        s["h"] = s.get("h", accum) + (g * g if update_slots else 0.0)
        return p - lr * g / np.sqrt(s["h"])
    return update


def lamb_rule(lr, wd, decayed, b1=0.9, b2=0.999, eps=1e-6):
    def update(p, g, t, s):
        s["m"] = b1 * s.get("m", 0.0) + (1 - b1) * g
        s["v"] = b2 * s.get("v", 0.0) + (1 - b2) * g * g
        r = (s["m"] / (1 - b1 ** t)) / (np.sqrt(s["v"] / (1 - b2 ** t)) + eps)
        u = r + (wd * p if decayed(p) else 0.0)
        w_norm, u_norm = np.linalg.norm(p), np.linalg.norm(u)
        ratio = w_norm / u_norm if w_norm > 0 and u_norm > 0 else 1.0
        return p - lr * ratio * u
    return update


def ftrl_rule(lr, accum=0.1, power=-0.5, l1=0.0, l2=0.0):
    def update(p, g, t, s):
        n = s.get("n", accum)
        n_new = n + g * g
        s["z"] = s.get("z", 0.0) + g - (n_new ** -power - n ** -power) / lr * p
        s["n"] = n_new
        z = s["z"]
        quad = n_new ** -power / lr + 2 * l2
        return np.where(np.abs(z) > l1, (np.sign(z) * l1 - z) / quad, 0.0)
    return update


def is_w(p):
    return p.shape == W0.shape


# ------------------------------------------------------------------ five steps each
# (name, constructor, NumPy rule, rule kwargs for `reference`)
CASES = [
    ("SGD", lambda ps: nn.SGD(ps, 0.1), sgd_rule(0.1), {}),
    ("SGD-momentum-dampening-wd", lambda ps: nn.SGD(ps, 0.1, momentum=0.9, dampening=0.3,
                                                    weight_decay=0.1),
     sgd_rule(0.1, 0.9, 0.3), {"wd": 0.1}),
    ("SGD-nesterov-loss-scale", lambda ps: nn.SGD(ps, 0.1, momentum=0.9, nesterov=True,
                                                  loss_scale=2.0),
     sgd_rule(0.1, 0.9, nesterov=True), {"loss_scale": 2.0}),
    ("Momentum-wd", lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.1),
     momentum_rule(0.1, 0.9), {"wd": 0.1}),
    ("Momentum-wd-loss-scale", lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.5,
                                                      loss_scale=2.0),
     momentum_rule(0.1, 0.9), {"wd": 0.5, "loss_scale": 2.0}),
    ("Momentum-nesterov", lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True),
     momentum_rule(0.1, 0.9, nesterov=True), {}),
    ("Adam-wd", lambda ps: nn.Adam(ps, 0.1, weight_decay=0.1), adam_rule(0.1), {"wd": 0.1}),
    ("Adam-nesterov", lambda ps: nn.Adam(ps, 0.1, use_nesterov=True),
     adam_rule(0.1, nesterov=True), {}),
    ("Adam-amsgrad", lambda ps: nn.Adam(ps, 0.1, use_amsgrad=True),
     adam_rule(0.1, amsgrad=True), {}),
    ("AdamWeightDecay", lambda ps: nn.AdamWeightDecay(ps, 0.1, weight_decay=0.1),
     adam_weight_decay_rule(0.1, 0.1, is_w), {}),
    ("AdamW", lambda ps: nn.AdamW(ps, lr=0.1), adamw_rule(0.1), {}),
    ("AdamW-amsgrad-maximize", lambda ps: nn.AdamW(ps, lr=0.1, weight_decay=0.2, amsgrad=True,
                                                   maximize=True),
     adamw_rule(0.1, 0.2, amsgrad=True, maximize=True), {}),
    ("RMSProp-wd", lambda ps: nn.RMSProp(ps, 0.1, weight_decay=0.1), rmsprop_rule(0.1),
     {"wd": 0.1}),
    ("RMSProp-centered", lambda ps: nn.RMSProp(ps, 0.1, momentum=0.5, centered=True),
     rmsprop_rule(0.1, mu=0.5, centered=True), {}),
    ("Adagrad-wd", lambda ps: nn.Adagrad(ps, learning_rate=0.1, weight_decay=0.1),
     adagrad_rule(0.1), {"wd": 0.1}),
    ("Adagrad-no-slots", lambda ps: nn.Adagrad(ps, learning_rate=0.1, update_slots=False),
     adagrad_rule(0.1, update_slots=False), {}),
    ("Lamb-wd", lambda ps: nn.Lamb(ps, 0.1, weight_decay=0.1), lamb_rule(0.1, 0.1, is_w), {}),
    ("FTRL", lambda ps: nn.FTRL(ps, learning_rate=0.1), ftrl_rule(0.1), {}),
    ("FTRL-l1-l2-wd", lambda ps: nn.FTRL(ps, learning_rate=0.1, l1=0.01, l2=0.1,
                                         weight_decay=0.1),
     ftrl_rule(0.1, l1=0.01, l2=0.1), {"wd": 0.1, "decay": (True, True)}),
    ("FTRL-lr-power-0", lambda ps: nn.FTRL(ps, learning_rate=0.1, lr_power=0.0, l1=0.05),
     ftrl_rule(0.1, power=0.0, l1=0.05), {}),
]


@pytest.mark.parametrize("name,make,rule,kw", CASES, ids=[c[0] for c in CASES])
def test_five_steps_match_formula(name, make, rule, kw):
    opt, out, got = run(make)
    assert_history(got, reference(rule, **kw))
    assert out is True if isinstance(opt, nn.AdamW) else out == (True, True)
    assert int(opt.state_step if isinstance(opt, nn.AdamW) else opt.global_step[0]) == 5


# The same five steps run with MindSpore 2.10 (CPU): the values after step 5.
MINDSPORE_STEP5 = {
    "SGD-momentum-dampening-wd": ([0.6661951, 0.01397142, 1.101011], [0.7128096, 1.428095]),
    "SGD-nesterov-loss-scale": ([0.782336, -0.06467211, 1.347008], [0.7246835, 1.546835]),
    "Momentum-wd": ([0.5596334, 0.1881844, 0.807266], [0.7270745, 1.570745]),
    "Momentum-wd-loss-scale": ([0.2708883, 0.08395712, 0.3955091], [0.7135372, 1.435372]),
    "Adam-wd": ([0.5030748, -0.01009059, 1.506066], [0.6629008, 1.2629]),
    "Adam-nesterov": ([0.2663868, 0.2336138, 1.266386], [0.7015362, 1.301535]),
    "Adam-amsgrad": ([0.514919, -0.01491873, 1.514919], [0.6629343, 1.262934]),
    "AdamWeightDecay": ([-1.293437, 1.769054, -0.3426102], [0.826742, 1.426542]),
    "RMSProp-wd": ([0.7708429, -0.1443843, 1.462914], [0.7323793, 1.571399]),
    "RMSProp-centered": ([0.7406645, 0.0004941076, 1.28673], [0.7380074, 1.627709]),
    "Adagrad-wd": ([0.7004032, -0.1576717, 1.6292], [0.7697533, 1.435538]),
    "FTRL": ([-0.2217537, 0.2590166, 0.1836816], [0.07834265, 0.7406592]),
}


@pytest.mark.parametrize("name", sorted(MINDSPORE_STEP5))
def test_five_steps_match_mindspore(name):
    make = {c[0]: c[1] for c in CASES}[name]
    _, _, got = run(make)
    w, gamma = MINDSPORE_STEP5[name]
    np.testing.assert_allclose(got[-1][0], w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[-1][1], gamma, rtol=1e-5, atol=1e-6)


def test_adamw_matches_mindspore_experimental_adamw():
    # mindspore.experimental.optim.AdamW(lr=0.1) on the same run, after step 5
    _, _, got = run(lambda ps: nn.AdamW(ps, lr=0.1))
    np.testing.assert_allclose(got[-1][0], [0.5109038, -0.01339867, 1.505914], atol=2e-6)
    np.testing.assert_allclose(got[-1][1], [0.6599388, 1.256945], atol=2e-6)


def test_where_spore_follows_the_documented_update():
    # MindSpore's CPU kernels ignore Momentum's use_nesterov and Adagrad's update_slots and
    # shrink FTRL's negative z the wrong way; Spore applies the documented updates.
    _, _, nesterov = run(lambda ps: nn.Momentum(ps, 0.1, 0.9, use_nesterov=True))
    _, _, plain = run(lambda ps: nn.Momentum(ps, 0.1, 0.9))
    assert not np.allclose(nesterov[-1][0], plain[-1][0])
    _, _, ftrl = run(lambda ps: nn.FTRL(ps, learning_rate=0.1, lr_power=0.0, l1=0.05))
    # step 1 of w[1]: z = -0.2, so w = (sign(z) * l1 - z) / (1 / lr) = 0.015 (CPU MS: 0.025)
    assert ftrl[0][0][1] == pytest.approx(0.015)


@pytest.mark.parametrize("make,p0,g,want", [
    # spot values of the reference (section 8.3), all with lr 0.1
    (lambda ps: nn.SGD(ps, 0.1, momentum=0.9), 1.0, 1.0, [0.9, 0.71]),
    (lambda ps: nn.SGD(ps, 0.1, momentum=0.9, nesterov=True), 1.0, 1.0, [0.81, 0.539]),
    (lambda ps: nn.SGD(ps, 0.1, momentum=0.9, dampening=0.5), 1.0, 1.0, [0.9, 0.76, 0.584]),
    (lambda ps: nn.Momentum(ps, 0.1, 0.9), 1.0, 1.0, [0.9, 0.71]),
    (lambda ps: nn.Adam(ps, 0.1, eps=1e-8), 1.0, 1e-7, [0.975975, 0.945079]),
    (lambda ps: nn.Adam(ps, 0.1, use_nesterov=True), 1.0, 0.1, [0.81]),
    (lambda ps: nn.AdamWeightDecay(ps, 0.1, eps=1e-6), 1.0, 0.1, [0.683870]),
    (lambda ps: nn.AdamWeightDecay(ps, 0.1, eps=1e-6, weight_decay=0.5), 1.0, 0.1, [0.633870]),
    (lambda ps: nn.AdamW(ps, lr=0.1, weight_decay=0.5), 1.0, 1e-7, [0.859091]),
    (lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.5, loss_scale=2.0), 1.0, 0.1,
     [0.945]),
])
def test_reference_spot_values(make, p0, g, want):
    p = Parameter(Tensor(np.array([p0], np.float32)), name="p")
    opt = make([p])
    for value in want:
        opt((Tensor(np.array([g], np.float32)),))
        assert p.asnumpy()[0] == pytest.approx(value, abs=2e-6)


# ------------------------------------------------------------------ learning rates
def _sgd_lrs(lr, steps):
    p = Parameter(Tensor(np.zeros(1, np.float32)), name="p")
    opt = nn.SGD([p], lr)
    seen = []
    for _ in range(steps):
        seen.append(float(opt.get_lr()))
        opt((Tensor(np.ones(1, np.float32)),))
    return seen, -p.asnumpy()[0]


@pytest.mark.parametrize("lr,want", [
    (0.1, [0.1, 0.1, 0.1]),
    (1, [1.0, 1.0, 1.0]),
    (Tensor(0.25), [0.25, 0.25, 0.25]),
    (Tensor(np.array(2, np.int32)), [2.0, 2.0, 2.0]),
    ([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]),
    ((0.3, 0.2, 0.1), [0.3, 0.2, 0.1]),
    (Tensor(np.array([0.5, 0.25, 0.125], np.float32)), [0.5, 0.25, 0.125]),
    (nn.piecewise_constant_lr([1, 2, 3], [0.1, 0.05, 0.01]), [0.1, 0.05, 0.01]),
    (nn.ExponentialDecayLR(0.1, 0.5, 1), [0.1, 0.05, 0.025]),
    (nn.CosineDecayLR(0.0, 0.1, 4), [0.1, 0.0853553, 0.05]),
])
def test_learning_rate_forms(lr, want):
    seen, moved = _sgd_lrs(lr, 3)
    np.testing.assert_allclose(seen, want, rtol=1e-6)
    assert moved == pytest.approx(sum(want), rel=1e-6)      # p -= lr * 1 each step


def test_learning_rate_storage():
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
    opt = nn.SGD([p], 0.1)
    assert isinstance(opt.learning_rate, Parameter) and opt.learning_rate.name == "learning_rate"
    assert opt.learning_rate.shape == () and opt.learning_rate.dtype == ms.float32
    assert opt.get_lr() is opt.learning_rate and not opt.dynamic_lr
    listed = nn.SGD([p], [0.1, 0.2])
    assert listed.dynamic_lr
    assert listed.learning_rate.learning_rate.name == "learning_rate"
    assert listed.get_lr().shape == ()
    assert "learning_rate" in [q.name for q in listed.get_parameters()]


def test_running_past_the_learning_rate_list_raises():
    p = Parameter(Tensor(np.zeros(1, np.float32)), name="p")
    opt = nn.SGD([p], [0.1, 0.2])
    g = (Tensor(np.ones(1, np.float32)),)
    opt(g)
    opt(g)
    with pytest.raises(RuntimeError, match="2 steps"):
        opt(g)


def test_global_step_and_state_parameters():
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.9)
    assert opt.global_step.name == "global_step"
    assert opt.global_step.shape == (1,) and opt.global_step.dtype == ms.int32
    assert isinstance(opt.parameters, ms.ParameterTuple) and opt.parameters[0] is w
    assert opt.momentum.name == "momentum" and opt.momentum.shape == ()
    names = {p.name for p in opt.get_parameters()}
    assert names == {"global_step", "learning_rate", "w", "momentum", "moments.w"}
    opt((Tensor(np.ones(2, np.float32)),))
    assert opt.global_step.asnumpy().tolist() == [1]
    np.testing.assert_allclose(opt.moments[0].asnumpy(), [1.0, 1.0])


@pytest.mark.parametrize("make,state", [
    (lambda ps: nn.SGD(ps), ["accum.w", "stat.w"]),
    (lambda ps: nn.Adam(ps), ["moment1.w", "moment2.w", "beta1_power", "beta2_power"]),
    (lambda ps: nn.Adam(ps, use_amsgrad=True), ["vhat.w"]),
    (lambda ps: nn.AdamWeightDecay(ps), ["adam_m.w", "adam_v.w"]),
    (lambda ps: nn.AdamW(ps), ["exp_avg.w", "exp_avg_sq.w", "max_exp_avg_sq.w", "state_step"]),
    (lambda ps: nn.RMSProp(ps, centered=True), ["mean_grad.w", "mean_square.w", "moment.w"]),
    (lambda ps: nn.Adagrad(ps), ["accum.w"]),
    (lambda ps: nn.Lamb(ps, 0.1), ["lamb_m.w", "lamb_v.w"]),
    (lambda ps: nn.FTRL(ps), ["moments.w", "linear.w"]),
])
def test_state_names(make, state):
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    names = {p.name for p in make([w]).get_parameters()}
    assert set(state) <= names


def test_adamw_param_groups():
    a = Parameter(Tensor(np.ones(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="b")
    opt = nn.AdamW([{"params": [a], "lr": 0.5}, {"params": [b], "weight_decay": 0.0}], lr=0.1)
    assert [sorted(k for k in g if k != "params") for g in opt.param_groups][0] == \
        ["amsgrad", "betas", "eps", "lr", "maximize", "weight_decay"]
    lrs = [float(g["lr"]) for g in opt.param_groups]
    assert lrs == pytest.approx([0.5, 0.1])
    assert opt.param_groups[1]["lr"].name == "learning_rate_group_1"
    opt((Tensor(np.full(2, 1e-7, np.float32)), Tensor(np.full(2, 1e-7, np.float32))))
    # first step: p * (1 - lr * wd) - lr * m_hat / (sqrt(v_hat) + eps), m_hat/sqrt(v_hat) ~ 1
    assert a.asnumpy()[0] == pytest.approx(1 * (1 - 0.5 * 0.01) - 0.5 * 0.90909, abs=1e-5)
    assert b.asnumpy()[0] == pytest.approx(1 - 0.1 * 0.90909, abs=1e-5)
    with pytest.raises(ValueError, match="more than one parameter group"):
        nn.AdamW([{"params": [a]}, {"params": [a]}])


# ------------------------------------------------------------------ groups and decay filters
def test_weight_decay_skips_beta_and_gamma_without_groups():
    ps = [Parameter(Tensor(np.ones(1, np.float32)), name=n)
          for n in ("dense.weight", "ln.gamma", "ln.beta", "bn.gamma_extra")]
    opt = nn.SGD(ps, 0.1, weight_decay=0.5)
    assert opt.decay_flags == (True, False, False, False)
    opt(tuple(Tensor(np.zeros(1, np.float32)) for _ in ps))
    assert [float(p.asnumpy()[0]) for p in ps] == pytest.approx([0.95, 1.0, 1.0, 1.0])


def test_param_groups_lr_and_weight_decay():
    # reference section 8.2: w1 = 1 - 0.5 * (1 + 0.1 * 1) = 0.45; a group without its own
    # values uses the optimizer's; with groups the beta/gamma filter does not apply
    w1 = Parameter(Tensor(np.ones(2, np.float32)), name="w1")
    gamma = Parameter(Tensor(np.ones(2, np.float32)), name="gamma")
    w3 = Parameter(Tensor(np.ones(2, np.float32)), name="w3")
    opt = nn.Momentum([{"params": [w1], "lr": 0.5, "weight_decay": 0.1},
                       {"params": [gamma], "weight_decay": 0.2}, {"params": [w3]}],
                      0.1, 0.9, weight_decay=0.01)
    assert opt.is_group and opt.is_group_lr
    assert opt.decay_flags == (True, True, True)
    lrs = opt.get_lr()
    assert isinstance(lrs, tuple) and [p.name for p in lrs] == \
        ["learning_rate_group_0", "learning_rate", "learning_rate"]
    assert opt.get_lr_parameter(w1).name == "learning_rate_group_0"
    assert [p.name for p in opt.get_lr_parameter([gamma, w3])] == ["learning_rate"] * 2
    g = tuple(Tensor(np.ones(2, np.float32)) for _ in range(3))
    assert opt(g) == (True, True, True)
    assert w1.asnumpy()[0] == pytest.approx(0.45)
    assert gamma.asnumpy()[0] == pytest.approx(1 - 0.1 * 1.2)
    assert w3.asnumpy()[0] == pytest.approx(1 - 0.1 * 1.01)


def test_group_with_zero_weight_decay_is_not_decayed():
    a = Parameter(Tensor(np.ones(1, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(1, np.float32)), name="b")
    opt = nn.Momentum([{"params": [a], "weight_decay": 0.1}, {"params": [b]}], 0.1, 0.9)
    assert opt.decay_flags == (True, False) and opt.is_group and not opt.is_group_lr
    assert opt.get_lr() is opt.learning_rate


def test_group_dynamic_learning_rates():
    a = Parameter(Tensor(np.zeros(1, np.float32)), name="a")
    b = Parameter(Tensor(np.zeros(1, np.float32)), name="b")
    opt = nn.SGD([{"params": [a], "lr": [0.1, 0.2]}, {"params": [b]}], 0.5)
    assert opt.dynamic_lr and opt.is_group_lr
    g = tuple(Tensor(np.ones(1, np.float32)) for _ in range(2))
    assert [float(x) for x in opt.get_lr()] == pytest.approx([0.1, 0.5])
    opt(g)
    assert [float(x) for x in opt.get_lr()] == pytest.approx([0.2, 0.5])
    opt(g)
    assert (-a.asnumpy()[0], -b.asnumpy()[0]) == pytest.approx((0.3, 1.0))
    with pytest.raises(ValueError, match="same size"):
        nn.SGD([{"params": [a], "lr": [0.1, 0.2]}, {"params": [b], "lr": [0.1]}], 0.5)


def test_order_params():
    a = Parameter(Tensor(np.zeros(1, np.float32)), name="a")
    b = Parameter(Tensor(np.zeros(1, np.float32)), name="b")
    opt = nn.Momentum([{"params": [a], "lr": 0.2}, {"params": [b]}, {"order_params": [b, a]}],
                      0.1, 0.9)
    assert [p.name for p in opt.parameters] == ["b", "a"]
    assert [p.name for p in opt.get_lr()] == ["learning_rate", "learning_rate_group_0"]
    opt((Tensor(np.ones(1, np.float32)), Tensor(np.ones(1, np.float32))))
    assert (a.asnumpy()[0], b.asnumpy()[0]) == pytest.approx((-0.2, -0.1))


def test_dynamic_weight_decay_cell():
    w = Parameter(Tensor(np.ones(1, np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.0, weight_decay=nn.WarmUpLR(1.0, 2))
    g = (Tensor(np.zeros(1, np.float32)),)
    opt(g)                  # step 0: decay 0
    opt(g)                  # step 1: decay 0.5 -> w = 1 - 0.1 * 0.5
    assert w.asnumpy()[0] == pytest.approx(0.95)
    with pytest.raises(TypeError, match="dynamic weight decay"):
        nn.SGD([w], 0.1, weight_decay=nn.WarmUpLR(1.0, 2))


def test_gradient_centralization_group():
    w = Parameter(Tensor(np.zeros((2, 16), np.float32)), name="w")
    opt = nn.SGD([{"params": [w], "grad_centralization": True}], 1.0)
    g = np.arange(32, dtype=np.float32).reshape(2, 16)
    opt((Tensor(g),))
    np.testing.assert_allclose(w.asnumpy(), -(g - g.mean(axis=1, keepdims=True)))


# ------------------------------------------------------------------ construction errors
def P_(name="a"):
    return Parameter(Tensor(np.ones(2, np.float32)), name=name)


@pytest.mark.parametrize("make,err,match", [
    (lambda: nn.SGD([], 0.1), ValueError, "must not be empty"),
    (lambda: nn.SGD(None, 0.1), ValueError, "can not be None"),
    (lambda: nn.SGD(3, 0.1), TypeError, "Iterable"),
    (lambda: nn.SGD([Tensor(np.ones(2, np.float32))], 0.1), TypeError, "'Parameter' or 'dict'"),
    (lambda: nn.SGD([P_(), {"params": [P_("b")]}], 0.1), TypeError, "'Parameter' or 'dict'"),
    (lambda: nn.SGD([P_("a"), P_("a")], 0.1), ValueError, "its name 'a' already exists"),
    (lambda: nn.SGD([P_()], -0.1), ValueError, "must be float and must >= 0"),
    (lambda: nn.SGD([P_()], "x"), ValueError, "learning_rate"),
    (lambda: nn.SGD([P_()], Tensor(np.ones((2, 2), np.float32))), ValueError,
     "dimension of it should be 0 or 1"),
    (lambda: nn.SGD([P_()], object()), TypeError, "learning_rate"),
    (lambda: nn.SGD([P_()], 0.1, weight_decay=-1.0), ValueError, "'weight_decay' must be"),
    (lambda: nn.SGD([P_()], 0.1, weight_decay="a"), TypeError, "Weight_decay"),
    (lambda: nn.SGD([P_()], 0.1, loss_scale=0.0), ValueError, "'loss_scale' must be float"),
    (lambda: nn.SGD([P_()], 0.1, loss_scale="a"), TypeError, "'loss_scale'"),
    (lambda: nn.SGD([{"params": [P_()], "foo": 1}], 0.1), KeyError, "foo"),
    (lambda: (lambda a: nn.SGD([{"params": [a]}, {"params": [a]}], 0.1))(P_()), RuntimeError,
     "already exists"),
    (lambda: nn.SGD([{"params": [P_("a")]}, {"params": [P_("b")]}, {"order_params": [P_("a")]}],
                    0.1), ValueError, "length of order parameters"),
    (lambda: nn.SGD([{"params": [P_()]}, {"order_params": [P_()], "lr": 0.1}], 0.1),
     ValueError, "only include the 'order_params'"),
    (lambda: nn.SGD([{"params": [Tensor(np.ones(2, np.float32))]}], 0.1), TypeError,
     "must be Parameter type"),
    (lambda: nn.SGD([{"params": []}], 0.1), ValueError, "must not be empty"),
    (lambda: nn.Momentum([P_()], 0.1, 1), TypeError, "'momentum' should be 'float'"),
    (lambda: nn.Momentum([P_()], 0.1, -0.5), ValueError, "at least 0.0"),
    (lambda: nn.Momentum([P_()], 0.1, 0.9, use_nesterov=1), TypeError, "bool"),
    (lambda: nn.SGD([P_()], 0.1, momentum="a"), TypeError, "'momentum' must be float"),
    (lambda: nn.SGD([P_()], 0.1, momentum=-1.0), ValueError, "at least 0.0"),
    (lambda: nn.SGD([P_()], 0.1, momentum=0.9, dampening=-1.0), ValueError, "dampening"),
    (lambda: nn.SGD([P_()], 0.1, nesterov=True), ValueError, "'nesterov' is true"),
    (lambda: nn.Adam([P_()], 0.1, beta1=1.0), ValueError, r"range of \(0.0, 1.0\)"),
    (lambda: nn.Adam([P_()], 0.1, beta1=0), TypeError, "'beta1' should be 'float'"),
    (lambda: nn.Adam([P_()], 0.1, eps=0.0), ValueError, "'eps' must be float and must > 0"),
    (lambda: nn.Adam([P_()], 0.1, foo=1), KeyError, "invalid keys"),
    (lambda: nn.Adam([P_()], 0.1, use_amsgrad=True, use_lazy=True), ValueError, "use_amsgrad"),
    (lambda: nn.RMSProp([P_()], 0.1, decay=-0.1), ValueError, "'decay' must be float"),
    (lambda: nn.RMSProp([P_()], 0.1, epsilon=1), TypeError, "'epsilon' should be 'float'"),
    (lambda: nn.Adagrad([P_()], accum=-0.1), ValueError, "'accum' must be float"),
    (lambda: nn.Adagrad([P_()], accum=1), TypeError, "'accum' should be 'float'"),
    (lambda: nn.FTRL([P_()], learning_rate=[0.1, 0.2]), ValueError, "dynamic learning rate"),
    (lambda: nn.FTRL([P_()], lr_power=0.5), ValueError, "'lr_power' must be <= 0.0"),
    (lambda: nn.AdamW([P_()], lr=-1.0), ValueError, "Invalid learning rate"),
    (lambda: nn.AdamW([P_()], betas=(1.0, 0.9)), ValueError, "index 0"),
])
def test_construction_errors(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_call_errors():
    a, b = P_("a"), P_("b")
    opt = nn.SGD([a, b], 0.1)
    g = Tensor(np.ones(2, np.float32))
    with pytest.raises(RuntimeError, match="tuple"):
        opt([g, g])
    with pytest.raises(RuntimeError, match="one gradient per parameter"):
        opt((g,))
    with pytest.raises(ValueError, match="parameter 'a'.*shape"):
        opt((Tensor(np.ones(3, np.float32)), g))
    np.testing.assert_array_equal(a.asnumpy(), [1.0, 1.0])      # nothing was updated
    assert opt.global_step.asnumpy().tolist() == [0]


# ------------------------------------------------------------------ fused update primitives
def _args(*shapes):
    return [Tensor(np.linspace(0.5, 1.5, int(np.prod(s))).reshape(s).astype(np.float32))
            for s in shapes]


@pytest.mark.parametrize("prim,shapes,attrs", [
    (apply_momentum_p, [(3, 2), (3, 2), (), (3, 2), ()], {"use_nesterov": True}),
    (sgd_p, [(4,), (4,), (), (4,), (), (4,)], {"dampening": 0.1, "nesterov": False}),
    (adam_p, [(2, 3)] * 3 + [()] * 6 + [(2, 3)], {"use_nesterov": False}),
    (adam_p, [(2, 3)] * 3 + [()] * 6 + [(2, 3)] * 2, {"use_nesterov": True}),
])
def test_fused_update_infer_agrees_with_kernel(prim, shapes, attrs):
    args = _args(*shapes)
    out = prim(*args, **attrs)
    assert out is args[0]                     # returns the parameter it updated
    aval = prim.infer(attrs, *[a._data for a in args])
    assert aval.shape == tuple(out.shape) and aval.dtype == out._data.dtype
    assert prim.effect == "state" and prim.nondiff


def test_fused_update_rejects_bad_shapes_and_dtypes():
    var, accum, grad = _args((3,), (3,), (2,))
    lr, mom = _args((), ())
    with pytest.raises(ValueError, match="ApplyMomentum.*'gradient'"):
        apply_momentum_p(var, accum, lr, grad, mom)
    ivar = Tensor(np.ones(3, np.int32))
    with pytest.raises(TypeError, match="floating-point"):
        apply_momentum_p.infer({}, ivar._data, accum._data, lr._data, accum._data, mom._data)


def test_fused_updates_are_recorded_as_nothing_on_a_tape():
    # an optimizer step inside a gradient computation changes state but is not differentiated
    w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
    opt = nn.Momentum([w], 0.1, 0.9)

    def f(x):
        opt((ms.ops.mul(x, 0) + 1,))
        return (x * x).sum()
    g = ms.ops.grad(f)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(w.asnumpy(), [0.9, 0.9])
    assert P.get("ApplyMomentum") is apply_momentum_p


def test_half_precision_parameters():
    w = Parameter(Tensor(np.ones(3, np.float16)), name="w")
    opt = nn.Adam([w], 0.1)
    opt((Tensor(np.full(3, 0.5, np.float16)),))
    assert w.dtype == ms.float16 and opt.moment1[0].dtype == ms.float16
    np.testing.assert_allclose(w.asnumpy(), 0.9, atol=1e-3)


def test_dynamic_weight_decay_on_a_scalar_parameter():
    s = Parameter(Tensor(np.float32(1.0)), name="s")
    opt = nn.Momentum([{"params": [s], "weight_decay": nn.WarmUpLR(1.0, 1)}], 0.1, 0.0)
    opt((Tensor(np.float32(0.0)),))
    opt((Tensor(np.float32(0.0)),))
    assert s.shape == () and float(s) == pytest.approx(0.9)
