"""Loss-cell programs: values and gradients for every reduction."""
import numpy as np

from ._helpers import program, randn, uniform, input_grads, prefixed


@program
def cross_entropy(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    logits = randn(rng, 6, 4, scale=2.0)
    labels = rng.integers(0, 4, 6).astype(np.int32)
    labels[2] = 1
    weight = ms.Tensor(uniform(rng, 0.5, 2.0, 4))
    probs = rng.dirichlet(np.ones(4), 6).astype(np.float32)
    out = {}
    for reduction in ("mean", "sum", "none"):
        losses = {
            "plain": nn.CrossEntropyLoss(reduction=reduction),
            "weight": nn.CrossEntropyLoss(weight=weight, reduction=reduction),
            "ignore": nn.CrossEntropyLoss(ignore_index=1, reduction=reduction),
            "smooth": nn.CrossEntropyLoss(label_smoothing=0.1, reduction=reduction),
            "all": nn.CrossEntropyLoss(weight=weight, ignore_index=1, label_smoothing=0.2,
                                       reduction=reduction),
        }
        for name, loss in losses.items():
            result = input_grads(ms, lambda z, loss=loss: loss(z, ms.Tensor(labels)), rng,
                                 logits)
            out.update(prefixed(f"{name}_{reduction}", result))
        prob_loss = nn.CrossEntropyLoss(weight=weight, label_smoothing=0.1, reduction=reduction)
        out.update(prefixed(f"probs_{reduction}", input_grads(ms, prob_loss, rng, logits, probs)))
    spatial = nn.CrossEntropyLoss(ignore_index=0)
    sp_labels = ms.Tensor(rng.integers(0, 3, (2, 2, 2)).astype(np.int32))
    out.update(prefixed("spatial", input_grads(
        ms, lambda z: spatial(z, sp_labels), rng, randn(rng, 2, 3, 2, 2))))
    return out


@program
def bce_with_logits(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    logits = randn(rng, 4, 3, scale=2.0)
    target = uniform(rng, 0.0, 1.0, 4, 3)
    weight = ms.Tensor(uniform(rng, 0.5, 2.0, 4, 3))
    pos_weight = ms.Tensor(uniform(rng, 0.5, 3.0, 3))
    out = {}
    for reduction in ("mean", "sum", "none"):
        losses = {
            "plain": nn.BCEWithLogitsLoss(reduction=reduction),
            "pos_weight": nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=pos_weight),
            "both": nn.BCEWithLogitsLoss(reduction=reduction, weight=weight,
                                         pos_weight=pos_weight),
        }
        for name, loss in losses.items():
            out.update(prefixed(f"{name}_{reduction}", input_grads(ms, loss, rng, logits, target)))
    return out
