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


@program
def regression_losses(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    logits, labels = randn(rng, 3, 4), randn(rng, 3, 4)
    out = {}
    for reduction in ("mean", "sum", "none"):
        losses = {
            "mse": nn.MSELoss(reduction), "l1": nn.L1Loss(reduction),
            "smooth_l1": nn.SmoothL1Loss(beta=0.5, reduction=reduction),
            "huber": nn.HuberLoss(reduction, delta=0.7),
        }
        for name, loss in losses.items():
            out.update(prefixed(f"{name}_{reduction}", input_grads(ms, loss, rng, logits, labels)))
    out["smooth_l1_default"] = nn.SmoothL1Loss()(ms.Tensor(logits), ms.Tensor(labels)).asnumpy()
    return out


@program
def classification_losses(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    logits = randn(rng, 5, 4, scale=2.0)
    log_probs = ms.ops.log_softmax(ms.Tensor(logits), 1).asnumpy()
    labels = ms.Tensor(rng.integers(0, 4, 5).astype(np.int32))
    weight = ms.Tensor(uniform(rng, 0.5, 2.0, 4))
    probs = uniform(rng, 0.05, 0.95, 5, 4)
    targets = uniform(rng, 0.0, 1.0, 5, 4)
    dense_labels = rng.dirichlet(np.ones(4), 5).astype(np.float32)
    out = {}
    for reduction in ("mean", "sum", "none"):
        nll = nn.NLLLoss(weight=weight, ignore_index=2, reduction=reduction)
        out.update(prefixed(f"nll_{reduction}", input_grads(
            ms, lambda z, loss=nll: loss(z, labels), rng, log_probs)))
        bce = nn.BCELoss(weight=ms.Tensor(uniform(rng, 0.5, 2.0, 5, 4)), reduction=reduction)
        out.update(prefixed(f"bce_{reduction}", input_grads(ms, bce, rng, probs, targets)))
        dense = nn.SoftmaxCrossEntropyWithLogits(sparse=False, reduction=reduction)
        out.update(prefixed(f"softmax_ce_dense_{reduction}",
                            input_grads(ms, dense, rng, logits, dense_labels)))
        sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
        out.update(prefixed(f"softmax_ce_sparse_{reduction}", input_grads(
            ms, lambda z, loss=sparse: loss(z, labels), rng, logits)))
    for reduction in ("batchmean", "sum", "none"):
        kl = nn.KLDivLoss(reduction=reduction)
        out.update(prefixed(f"kl_{reduction}", input_grads(ms, kl, rng, log_probs, probs)))
    return out


@program
def pair_losses(ms, seed):
    rng = np.random.default_rng(seed)
    nn = ms.nn
    a, b = randn(rng, 5, 4), randn(rng, 5, 4)
    signs = ms.Tensor(np.sign(randn(rng, 5)).astype(np.float32))
    sign_grid = ms.Tensor(np.sign(randn(rng, 5, 4)).astype(np.float32))
    multi = ms.Tensor((rng.random((5, 4)) > 0.5).astype(np.float32))
    labels = ms.Tensor(np.array([0, 3, 1, 1, 2], np.int64))
    focal_labels = ms.Tensor(np.array([[0], [3], [1], [1], [2]], np.int32))
    out = {}
    for reduction in ("mean", "sum", "none"):
        cases = {
            "margin_ranking": lambda x, y, loss=nn.MarginRankingLoss(0.2, reduction):
                loss(x[:, 0], y[:, 0], signs),
            "cosine_embedding": lambda x, y, loss=nn.CosineEmbeddingLoss(0.1, reduction):
                loss(x, y, signs),
            "hinge_embedding": lambda x, y, loss=nn.HingeEmbeddingLoss(0.8, reduction):
                loss(x, sign_grid),
            "multilabel_soft_margin": lambda x, y, loss=nn.MultiLabelSoftMarginLoss(
                reduction=reduction): loss(x, multi),
            "gaussian_nll": lambda x, y, loss=nn.GaussianNLLLoss(full=True,
                                                                 reduction=reduction):
                loss(x, y, ms.ops.abs(y) + 0.3),
            "poisson_nll": lambda x, y, loss=nn.PoissonNLLLoss(reduction=reduction):
                loss(x, ms.ops.abs(y)),
            "poisson_nll_full": lambda x, y, loss=nn.PoissonNLLLoss(False, True,
                                                                    reduction=reduction):
                loss(ms.ops.abs(x) + 0.1, ms.ops.abs(y) * 3),
            "mae": lambda x, y, loss=nn.MAELoss(reduction): loss(x, y),
            "focal": lambda x, y, loss=nn.FocalLoss(gamma=1.5, reduction=reduction):
                loss(x, focal_labels),
        }
        for name, fn in cases.items():
            out.update(prefixed(f"{name}_{reduction}", input_grads(ms, fn, rng, a, b)))
    out.update(prefixed("rmse", input_grads(ms, nn.RMSELoss(), rng, a, b)))
    out.update(prefixed("dice", input_grads(
        ms, lambda x, y: nn.DiceLoss(1e-3)(ms.ops.sigmoid(x), multi), rng, a, b)))
    out.update(prefixed("multiclass_dice", input_grads(
        ms, lambda x, y: nn.MultiClassDiceLoss()(x, ms.ops.one_hot(labels, 4, ms.Tensor(1.0),
                                                                   ms.Tensor(0.0))), rng, a, b)))
    return out
