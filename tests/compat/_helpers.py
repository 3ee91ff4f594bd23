"""Shared pieces of the compatibility programs: the registry, seeded values, the
functional training loop and gradient probes. Imports NumPy only (see ``programs.py``)."""
import numpy as np

PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


# ------------------------------------------------------------------ helpers
def randn(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def uniform(rng, low, high, *shape):
    return rng.uniform(low, high, shape).astype(np.float32)


def set_weights(ms, net, rng, scale=0.5):
    """Give every parameter a seeded value; scales and variances stay positive."""
    for p in sorted(net.get_parameters(), key=lambda p: p.name):
        if p.name.endswith(("gamma", "variance")):
            value = uniform(rng, 0.5, 1.5, *p.shape)
        else:
            value = uniform(rng, -scale, scale, *p.shape)
        p.set_data(ms.Tensor(value))


def weights_of(net, prefix="param:"):
    return {prefix + p.name: p.asnumpy().copy() for p in net.get_parameters()}


def names_of(net):
    return {"param_names": np.array(sorted(p.name for p in net.get_parameters()))}


def weighted_sum(ms, out, cot):
    """A scalar whose gradient with respect to ``out`` is ``cot`` (a seeded cotangent)."""
    return (out * ms.Tensor(cot)).sum()


def train(ms, net, loss_fn, optimizer, batches):
    """The MindSpore 2.x functional training loop; returns the loss of every step."""
    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    losses = []
    for x, y in batches:
        loss, grads = grad_fn(ms.Tensor(x), ms.Tensor(y))
        optimizer(grads)
        losses.append(loss.asnumpy())
    return np.stack(losses)


def mlp(ms, sizes):
    nn = ms.nn
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Dense(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.SequentialCell(layers)


def regression_batches(rng, steps, batch, n_in, n_out):
    return [(randn(rng, batch, n_in), randn(rng, batch, n_out)) for _ in range(steps)]


# ------------------------------------------------------------------ gradient probes
def input_grads(ms, fn, rng, *inputs):
    """Forward outputs and gradients of a seeded weighted sum of them w.r.t. every input."""
    tensors = [ms.Tensor(a) for a in inputs]
    outs = fn(*tensors)
    outs = outs if isinstance(outs, tuple) else (outs,)
    cots = [randn(rng, *o.shape) for o in outs]

    def scalar(*args):
        res = fn(*args)
        res = res if isinstance(res, tuple) else (res,)
        return sum(weighted_sum(ms, o, c) for o, c in zip(res, cots))

    grads = ms.grad(scalar, grad_position=tuple(range(len(tensors))))(*tensors)
    grads = grads if isinstance(grads, tuple) else (grads,)
    result = {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}
    result.update({f"dinput{i}": g.asnumpy() for i, g in enumerate(grads)})
    return result


def weight_grads(ms, net, rng, *inputs):
    """Gradients of a seeded weighted sum of ``net``'s output w.r.t. its trainable weights."""
    tensors = [ms.Tensor(a) for a in inputs]
    out = net(*tensors)
    out = out[0] if isinstance(out, tuple) else out
    cot = randn(rng, *out.shape)
    params = net.trainable_params()

    def scalar(*args):
        res = net(*args)
        return weighted_sum(ms, res[0] if isinstance(res, tuple) else res, cot)

    grads = ms.grad(scalar, None, params)(*tensors)
    return {f"grad:{p.name}": g.asnumpy() for p, g in zip(params, grads)}


def prefixed(prefix, result):
    return {f"{prefix}/{key}": value for key, value in result.items()}


# ------------------------------------------------------------------ op sweeps
def values(result):
    """Tensors (and tuples/lists of them) as NumPy arrays under numbered names."""
    if isinstance(result, (tuple, list)):
        return {f"[{i}]": r.asnumpy() for i, r in enumerate(result)}
    return {"": result.asnumpy()}


def run_all(cases):
    out = {}
    for name, thunk in cases.items():
        out.update({name + key: value for key, value in values(thunk()).items()})
    return out
