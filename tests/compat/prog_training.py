"""Training programs: optimizers, learning-rate schedules, autodiff API and wrapper cells."""
import numpy as np

from ._helpers import (program, randn, set_weights, weights_of, names_of, train, mlp,
                       regression_batches)


@program
def mlp_momentum(ms, seed):
    rng = np.random.default_rng(seed)
    net = mlp(ms, (6, 16, 3))
    set_weights(ms, net, rng)
    opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    losses = train(ms, net, ms.nn.MSELoss(), opt, regression_batches(rng, 3, 4, 6, 3))
    return {"losses": losses, **weights_of(net), **names_of(net)}


def lenet(ms):
    nn = ms.nn

    class LeNet(nn.Cell):
        """LeNet-5 shaped, with every Conv2d padding mode and both pooling kinds."""

        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 5, pad_mode="valid")
            self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
            self.conv2 = nn.Conv2d(4, 6, 3, pad_mode="same", has_bias=True)
            self.pool2 = nn.AvgPool2d(kernel_size=2, stride=2)
            self.conv3 = nn.Conv2d(6, 8, 3, pad_mode="pad", padding=1, stride=2, has_bias=True)
            self.relu = nn.ReLU()
            self.flatten = nn.Flatten()
            self.fc1 = nn.Dense(8 * 2 * 2, 16)
            self.fc2 = nn.Dense(16, 10)

        def construct(self, x):
            x = self.pool1(self.relu(self.conv1(x)))
            x = self.pool2(self.relu(self.conv2(x)))
            x = self.relu(self.conv3(x))
            return self.fc2(self.relu(self.fc1(self.flatten(x))))

    return LeNet()


@program
def lenet_momentum(ms, seed):
    rng = np.random.default_rng(seed)
    net = lenet(ms)
    set_weights(ms, net, rng)
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.02, momentum=0.9)
    batches = [(randn(rng, 4, 1, 16, 16), rng.integers(0, 10, 4).astype(np.int32))
               for _ in range(3)]
    logits = net(ms.Tensor(batches[0][0])).asnumpy()
    losses = train(ms, net, loss_fn, opt, batches)
    return {"logits": logits, "losses": losses, **weights_of(net), **names_of(net)}


def small_regression(ms, rng, make_optimizer):
    net = mlp(ms, (4, 5, 2))
    set_weights(ms, net, rng)
    opt = make_optimizer(ms.nn, net.trainable_params())
    losses = train(ms, net, ms.nn.MSELoss(), opt, regression_batches(rng, 3, 6, 4, 2))
    return {"losses": losses, **weights_of(net)}


OPTIMIZERS = {
    "adam": lambda nn, p: nn.Adam(p, learning_rate=0.05),
    "adam_l2_nesterov": lambda nn, p: nn.Adam(p, learning_rate=0.05, weight_decay=0.1,
                                              use_nesterov=True),
    "adamweightdecay": lambda nn, p: nn.AdamWeightDecay(p, learning_rate=0.05,
                                                        weight_decay=0.1),
    "sgd_nesterov": lambda nn, p: nn.SGD(p, learning_rate=0.05, momentum=0.9, nesterov=True),
    "sgd_dampening_wd": lambda nn, p: nn.SGD(p, learning_rate=0.05, momentum=0.5,
                                             dampening=0.3, weight_decay=0.01),
    "rmsprop": lambda nn, p: nn.RMSProp(p, learning_rate=0.02),
    "rmsprop_centered": lambda nn, p: nn.RMSProp(p, learning_rate=0.02, momentum=0.5,
                                                 centered=True),
    "adagrad": lambda nn, p: nn.Adagrad(p, learning_rate=0.1),
    "momentum_nesterov": lambda nn, p: nn.Momentum(p, 0.05, 0.9, use_nesterov=True),
    "momentum_cosine_lr": lambda nn, p: nn.Momentum(
        p, learning_rate=nn.CosineDecayLR(0.01, 0.1, 2), momentum=0.9),
    "momentum_lr_list": lambda nn, p: nn.Momentum(
        p, learning_rate=nn.warmup_lr(0.1, 3, 1, 2), momentum=0.9),
}


@program
def optimizers(ms, seed):
    out = {}
    for name, make in OPTIMIZERS.items():
        result = small_regression(ms, np.random.default_rng(seed), make)
        out.update({f"{name}/{key}": value for key, value in result.items()})
    return out


@program
def train_one_step(ms, seed):
    rng = np.random.default_rng(seed)
    net = mlp(ms, (5, 7, 3))
    set_weights(ms, net, rng)
    loss_fn = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, loss_fn), opt)
    step.set_train()
    losses = []
    for _ in range(3):
        x = ms.Tensor(randn(rng, 4, 5))
        y = ms.Tensor(rng.integers(0, 3, 4).astype(np.int32))
        losses.append(step(x, y).asnumpy())
    return {"losses": np.stack(losses), **weights_of(net)}


@program
def value_and_grad_aux(ms, seed):
    rng = np.random.default_rng(seed)
    net = mlp(ms, (3, 4, 2))
    set_weights(ms, net, rng)
    x, y = ms.Tensor(randn(rng, 5, 3)), ms.Tensor(randn(rng, 5, 2))
    loss_fn = ms.nn.MSELoss()

    def forward(inp, target):
        logits = net(inp)
        return loss_fn(logits, target), logits

    params = net.trainable_params()
    grad_fn = ms.value_and_grad(forward, grad_position=0, weights=params, has_aux=True)
    (loss, logits), (dx, dweights) = grad_fn(x, y)
    out = {"loss": loss.asnumpy(), "logits": logits.asnumpy(), "dx": dx.asnumpy()}
    out.update({f"grad:{p.name}": g.asnumpy() for p, g in zip(params, dweights)})
    (loss2, _), dweights_only = ms.value_and_grad(forward, None, params, has_aux=True)(x, y)
    out["loss_weights_only"] = loss2.asnumpy()
    out.update({f"grad_only:{p.name}": g.asnumpy() for p, g in zip(params, dweights_only)})
    dx_dy = ms.grad(lambda a, b: loss_fn(net(a), b), grad_position=(0, 1))(x, y)
    out.update({"grad_dx": dx_dy[0].asnumpy(), "grad_dy": dx_dy[1].asnumpy()})
    return out




@program
def lr_schedules(ms, seed):
    nn = ms.nn
    schedules = {
        "cosine": nn.CosineDecayLR(0.01, 0.1, 4),
        "exponential": nn.ExponentialDecayLR(0.1, 0.9, 2),
        "exponential_stair": nn.ExponentialDecayLR(0.1, 0.9, 2, is_stair=True),
        "polynomial": nn.PolynomialDecayLR(0.1, 0.01, 3, power=2.0),
        "warmup": nn.WarmUpLR(0.1, 3),
    }
    out = {}
    for name, schedule in schedules.items():
        out[name] = np.stack([schedule(ms.Tensor(step, ms.int32)).asnumpy()
                              for step in range(7)])
    out["warmup_lr"] = np.array(nn.warmup_lr(0.1, 6, 2, 2), np.float32)
    out["cosine_decay_lr"] = np.array(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2), np.float32)
    out["exponential_decay_lr"] = np.array(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
                                           np.float32)
    out["exponential_decay_lr_stair"] = np.array(
        nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, is_stair=True), np.float32)
    out["piecewise_constant_lr"] = np.array(
        nn.piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]), np.float32)
    return out


def conv_net(ms):
    nn = ms.nn
    return nn.SequentialCell([nn.Conv2d(2, 4, 3, has_bias=True), nn.BatchNorm2d(4), nn.ReLU(),
                              nn.Flatten(), nn.Dense(4 * 5 * 5, 3)])


def classification_batches(rng, steps, batch=4):
    return [(randn(rng, batch, 2, 5, 5), rng.integers(0, 3, batch).astype(np.int32))
            for _ in range(steps)]


@program
def optimizer_groups(ms, seed):
    nn = ms.nn
    out = {}
    configs = {
        "momentum_groups": lambda net: nn.Momentum(
            [{"params": [p for p in net.trainable_params() if "weight" in p.name],
              "lr": 0.05, "weight_decay": 0.01},
             {"params": [p for p in net.trainable_params() if "weight" not in p.name]},
             {"order_params": net.trainable_params()}],
            learning_rate=0.1, momentum=0.9),
        "momentum_loss_scale_wd": lambda net: nn.Momentum(
            net.trainable_params(), 0.1, 0.9, weight_decay=0.05, loss_scale=4.0),
        "adamweightdecay_filter": lambda net: nn.AdamWeightDecay(
            net.trainable_params(), 0.05, weight_decay=0.2),
        "adam_dynamic_lr": lambda net: nn.Adam(
            net.trainable_params(), learning_rate=ms.Tensor(np.array([0.1, 0.05, 0.02],
                                                                     np.float32))),
        "sgd_lr_schedule": lambda net: nn.SGD(
            net.trainable_params(), nn.ExponentialDecayLR(0.1, 0.5, 1), momentum=0.5),
    }
    for name, make in configs.items():
        rng = np.random.default_rng(seed)
        net = conv_net(ms)
        set_weights(ms, net, rng)
        opt = make(net)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        out[f"{name}/losses"] = train(ms, net, loss_fn, opt, classification_batches(rng, 3))
        out.update(weights_of(net, f"{name}/param:"))
        out[f"{name}/global_step"] = opt.global_step.asnumpy()
    return out


@program
def grad_transforms(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    net = mlp(ms, (3, 4, 2))
    set_weights(ms, net, rng)
    params = ms.ParameterTuple(net.trainable_params())
    x, y = ms.Tensor(randn(rng, 2, 3)), ms.Tensor(randn(rng, 2, 2))
    sens = ms.Tensor(np.float32(2.5))

    def loss_fn(a, b):
        return ((net(a) - b) ** 2).mean()

    out = {}
    grads = ops.GradOperation(get_all=True)(loss_fn)(x, y)
    out.update({f"get_all[{i}]": g.asnumpy() for i, g in enumerate(grads)})
    grads = ops.GradOperation(get_by_list=True)(loss_fn, params)(x, y)
    out.update({f"get_by_list[{i}]": g.asnumpy() for i, g in enumerate(grads)})
    inputs_and_weights = ops.GradOperation(get_all=True, get_by_list=True, sens_param=True)(
        loss_fn, params)(x, y, sens)
    out.update({f"all_sens/inputs[{i}]": g.asnumpy() for i, g in enumerate(inputs_and_weights[0])})
    out.update({f"all_sens/weights[{i}]": g.asnumpy()
                for i, g in enumerate(inputs_and_weights[1])})
    out["first_input"] = ops.GradOperation()(loss_fn)(x, y).asnumpy()
    value, grads = ms.value_and_grad(loss_fn, grad_position=(0, 1))(x, y)
    out.update({"vg/value": value.asnumpy(), "vg/dx": grads[0].asnumpy(),
                "vg/dy": grads[1].asnumpy()})
    def doubled(a):
        return net(a) * 2

    def row_sums(a):
        return net(a).sum(axis=1)

    def scaled_tanh(a):
        return ops.tanh(a) * 3

    # named functions: MindSpore's jvp/jacrev compile their function and cannot parse lambdas
    out_v, vjp_fn = ops.vjp(doubled, x)
    out.update({"vjp/out": out_v.asnumpy(),
                "vjp/dx": vjp_fn(ms.Tensor(randn(rng, 2, 2)))[0].asnumpy()})
    out_j, tangent = ops.jvp(row_sums, x, ms.Tensor(randn(rng, 2, 3)))
    out.update({"jvp/out": out_j.asnumpy(), "jvp/tangent": tangent.asnumpy()})
    jac = ops.jacrev(scaled_tanh, grad_position=0)(ms.Tensor(randn(rng, 3)))
    out["jacrev"] = jac.asnumpy()
    return out


@program
def amp_levels(ms, seed):
    nn = ms.nn
    out = {}
    for level in ("O1", "O2", "O3"):
        rng = np.random.default_rng(seed)
        net = conv_net(ms)
        set_weights(ms, net, rng)
        amp_net = ms.amp.auto_mixed_precision(net, level)
        x = ms.Tensor(randn(rng, 2, 2, 5, 5))
        logits = amp_net(x)
        out[f"{level}/logits"] = logits.asnumpy().astype(np.float32)
        out[f"{level}/dtype"] = np.array(str(logits.dtype))
    rng = np.random.default_rng(seed)
    net = conv_net(ms)
    set_weights(ms, net, rng)
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    step = ms.amp.build_train_network(net, opt, nn.SoftmaxCrossEntropyWithLogits(
        sparse=True, reduction="mean"), level="O2", loss_scale_manager=None)
    losses = [step(ms.Tensor(x), ms.Tensor(y)).asnumpy().astype(np.float32)
              for x, y in classification_batches(rng, 2)]
    out["build_train_network_O2/losses"] = np.stack(losses)
    out.update({k: v.astype(np.float32) for k, v in weights_of(net, "O2/param:").items()})
    return out


@program
def model_amp_loss_scale(ms, seed):
    """Model(..., amp_level=..., loss_scale_manager=...) as a mixed-precision tutorial wires
    it (MindSpore's CPU build accepts only no manager or a fixed one without overflow
    dropping, so those are the configurations compared)."""
    nn = ms.nn
    out = {}
    configs = {
        "O1": ("O1", None, 1.0),
        "O2_fixed": ("O2", lambda: ms.FixedLossScaleManager(64.0, drop_overflow_update=False),
                     64.0),
        "O3_fixed": ("O3", lambda: ms.amp.FixedLossScaleManager(16.0, False), 16.0),
        "O3": ("O3", None, 1.0),
    }
    for name, (level, manager, opt_scale) in configs.items():
        rng = np.random.default_rng(seed)
        net = conv_net(ms)
        set_weights(ms, net, rng)
        # MindSpore's O1 rewrites the network and keeps BatchNorm in the mode it had then
        # (see docs/compatibility.md): put it in training mode first, as training needs
        net.set_train()
        x = randn(rng, 12, 2, 5, 5)
        y = rng.integers(0, 3, 12).astype(np.int32)
        data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
        loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = nn.Momentum(net.trainable_params(), 0.05, 0.9, loss_scale=opt_scale)
        kwargs = {} if manager is None else {"loss_scale_manager": manager()}
        model = ms.Model(net, loss_fn, opt, metrics={"acc": ms.train.Accuracy()},
                         amp_level=level, **kwargs)
        model.train(2, data, dataset_sink_mode=False)
        out[f"{name}/train_network"] = np.array(type(model.train_network).__name__)
        out[f"{name}/eval_acc"] = np.array(model.eval(data, dataset_sink_mode=False)["acc"])
        logits = model.predict(ms.Tensor(x[:3]))
        out[f"{name}/predict"] = logits.asnumpy().astype(np.float32)
        out[f"{name}/predict_dtype"] = np.array(str(logits.dtype))
        out.update({k: v.astype(np.float32) for k, v in weights_of(net, f"{name}/param:").items()})
    return out


@program
def model_train_eval(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    net = conv_net(ms)
    set_weights(ms, net, rng)
    x = randn(rng, 12, 2, 5, 5)
    y = rng.integers(0, 3, 12).astype(np.int32)
    data = ms.dataset.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    model = ms.Model(net, loss_fn, opt, metrics={"acc": ms.train.Accuracy(),
                                                 "loss": ms.train.Loss()})
    model.train(2, data, dataset_sink_mode=False)
    metrics = model.eval(data, dataset_sink_mode=False)
    out = {f"eval/{key}": np.array(value) for key, value in metrics.items()}
    out["predict"] = model.predict(ms.Tensor(x[:3])).asnumpy()
    out.update(weights_of(net))
    return out
