"""Training programs: optimizers, learning-rate schedules, autodiff API and wrapper cells."""
import numpy as np

from ._helpers import (program, randn, set_weights, weights_of, names_of, train, mlp, regression_batches)


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
