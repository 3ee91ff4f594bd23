"""Training programs for ``experimental.optim``: every optimizer on a small regression,
parameter groups, and learning-rate schedulers driving the optimizer."""
import numpy as np

from ._helpers import program, set_weights, weights_of, train, mlp, regression_batches

OPTIMIZERS = {
    "adam": lambda o, p: o.Adam(p, lr=0.05),
    "adam_wd_maximize": lambda o, p: o.Adam(p, lr=0.05, weight_decay=0.1, maximize=True),
    "adamw": lambda o, p: o.AdamW(p, lr=0.05, weight_decay=0.1),
    "adamw_amsgrad_maximize": lambda o, p: o.AdamW(p, lr=0.05, amsgrad=True, maximize=True),
    "sgd_nesterov": lambda o, p: o.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "sgd_dampening_wd": lambda o, p: o.SGD(p, lr=0.05, momentum=0.5, dampening=0.3,
                                           weight_decay=0.01),
    "adadelta": lambda o, p: o.Adadelta(p, lr=1.0, weight_decay=0.01),
    "adagrad": lambda o, p: o.Adagrad(p, lr=0.1, lr_decay=0.1),
    "adamax": lambda o, p: o.Adamax(p, lr=0.05),
    "asgd": lambda o, p: o.ASGD(p, lr=0.05, t0=2.0),
    "nadam": lambda o, p: o.NAdam(p, lr=0.05),
    "radam": lambda o, p: o.RAdam(p, lr=0.05),
    "rmsprop_centered": lambda o, p: o.RMSprop(p, lr=0.02, momentum=0.5, centered=True),
    "rprop": lambda o, p: o.Rprop(p, lr=0.05),
}


def regression(ms, rng, make_optimizer, steps=3, schedule=None):
    """A small MLP trained with the functional loop; ``schedule(opt)`` steps after each batch."""
    net = mlp(ms, (4, 5, 2))
    set_weights(ms, net, rng)
    opt = make_optimizer(net.trainable_params())
    scheduler = schedule(opt) if schedule else None
    losses, rates = [], []
    for batch in regression_batches(rng, steps, 6, 4, 2):
        losses.append(train(ms, net, ms.nn.MSELoss(), opt, [batch])[0])
        if scheduler is not None:
            scheduler.step()
            rates.append([lr.asnumpy() for lr in scheduler.get_last_lr()])
    out = {"losses": np.stack(losses), **weights_of(net)}
    if rates:
        out["rates"] = np.array(rates, np.float32)
    return out


@program
def experimental_optimizers(ms, seed):
    optim = ms.experimental.optim
    out = {}
    for name, make in OPTIMIZERS.items():
        result = regression(ms, np.random.default_rng(seed), lambda p: make(optim, p))
        out.update({f"{name}/{key}": value for key, value in result.items()})
    return out


@program
def experimental_groups_and_schedules(ms, seed):
    optim = ms.experimental.optim
    sched = optim.lr_scheduler

    def groups(params):
        weights = [p for p in params if "weight" in p.name]
        others = [p for p in params if "weight" not in p.name]
        return [{"params": weights, "weight_decay": 0.05}, {"params": others, "lr": 0.02}]

    configs = {
        "adamw_groups_cosine": (lambda p: optim.AdamW(groups(p), lr=0.05),
                                lambda o: sched.CosineAnnealingLR(o, T_max=3, eta_min=0.001)),
        "sgd_groups_step": (lambda p: optim.SGD(groups(p), lr=0.1, momentum=0.9),
                            lambda o: sched.StepLR(o, step_size=2, gamma=0.5)),
        "adam_linear_warmup": (lambda p: optim.Adam(p, lr=0.05),
                               lambda o: sched.LinearLR(o, start_factor=0.25, total_iters=3)),
        "rmsprop_cyclic": (lambda p: optim.RMSprop(p, lr=0.01),
                           lambda o: sched.CyclicLR(o, 0.005, 0.05, step_size_up=2)),
        "sgd_sequential": (lambda p: optim.SGD(p, lr=0.1),
                           lambda o: sched.SequentialLR(
                               o, [sched.ConstantLR(o, 0.5, 2), sched.ExponentialLR(o, 0.8)],
                               [2])),
    }
    out = {}
    for name, (make, schedule) in configs.items():
        result = regression(ms, np.random.default_rng(seed), make, steps=5, schedule=schedule)
        out.update({f"{name}/{key}": value for key, value in result.items()})
    return out
