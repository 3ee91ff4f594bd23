"""Functional losses: values from MindSpore 2.10 and NumPy formulas, shape/dtype rules,
numerical gradients (cross entropy and NLL also second order) and errors."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import (OpCase, case_id, grad_case_fn, run_forward, run_grad, run_infer,
                                   table_tests)


def np_log_softmax(x, axis):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def np_nll(logp, target, weight=None, ignore=-100, reduction="mean"):
    """Class-index NLL over (N, C, d...) log-probabilities (PyTorch's definition)."""
    c = logp.shape[1]
    w = np.ones(c) if weight is None else weight
    valid = target != ignore
    t = np.where(valid, target, 0)
    picked = np.take_along_axis(logp, t[:, None], axis=1)[:, 0]
    wt = w[t] * valid
    losses = -picked * wt
    if reduction == "none":
        return losses
    return losses.sum() / (wt.sum() if reduction == "mean" else 1)


def np_cross_entropy(x, target, weight=None, ignore=-100, reduction="mean", smoothing=0.0):
    logp = np_log_softmax(x, 1)
    nll = np_nll(logp, target, weight, ignore, reduction)
    if not smoothing:
        return nll
    c = x.shape[1]
    w = np.ones(c) if weight is None else weight
    shape = (1, c) + (1,) * (x.ndim - 2)
    smooth = -(logp * w.reshape(shape)).sum(axis=1) * (target != ignore)
    if reduction == "sum":
        smooth = smooth.sum()
    elif reduction == "mean":
        valid = target != ignore
        smooth = smooth.sum() / (w[np.where(valid, target, 0)] * valid).sum()
    return (1 - smoothing) * nll + smoothing / c * smooth


def _targets(shape, classes, seed=0, ignore=None):
    def make(rng):
        t = np.random.default_rng(seed).integers(0, classes, size=shape).astype(np.int32)
        if ignore is not None:
            t.flat[::3] = ignore
        return t
    return make


W4 = np.array([0.5, 2.0, 1.0, 1.5])


def _ce(**kw):
    weight = kw.pop("weight", None)

    def fn(x, t):
        return ops.cross_entropy(x, t, None if weight is None else ms.Tensor(weight), **kw)

    def ref(x, t):
        return np_cross_entropy(x, t, weight, kw.get("ignore_index", -100),
                                kw.get("reduction", "mean"), kw.get("label_smoothing", 0.0))
    return fn, ref


def _ce_case(ident, shape=(5, 4), tshape=(5,), ignore=None, **kw):
    fn, ref = _ce(**kw)
    return OpCase("cross_entropy", fn, ref, [shape, _targets(tshape, 4, ignore=ignore)],
                  id=ident, rtol=1e-5, atol=1e-6)


def np_bce_logits(x, y, w=None, pw=None):
    log_sig = -np.logaddexp(0, -x)
    log_sig_neg = -np.logaddexp(0, x)
    pos = 1.0 if pw is None else pw
    loss = -(pos * y * log_sig + (1 - y) * log_sig_neg)
    return loss if w is None else loss * w


UNIT = (0.05, 0.95)
SIGNS = [lambda r: np.where(r.uniform(size=(3, 4)) > 0.5, 1.0, -1.0)]

TABLE = [
    _ce_case("ce"), _ce_case("ce-sum", reduction="sum"), _ce_case("ce-none", reduction="none"),
    _ce_case("ce-weight", weight=W4), _ce_case("ce-weight-none", weight=W4, reduction="none"),
    _ce_case("ce-ignore", ignore=2, ignore_index=2),
    _ce_case("ce-smoothing", label_smoothing=0.2),
    _ce_case("ce-smoothing-weight-ignore-sum", ignore=-1, ignore_index=-1, weight=W4,
             label_smoothing=0.1, reduction="sum"),
    _ce_case("ce-smoothing-weight-ignore-mean", ignore=-1, ignore_index=-1, weight=W4,
             label_smoothing=0.1),
    _ce_case("ce-NCd", shape=(3, 4, 2, 3), tshape=(3, 2, 3)),
    _ce_case("ce-NCd-none-weight", shape=(3, 4, 5), tshape=(3, 5), weight=W4, reduction="none"),
    OpCase("cross_entropy", lambda x, p: ops.cross_entropy(x, p),
           lambda x, p: -(np_log_softmax(x, 1) * p).sum(1).mean(),
           [(5, 4), lambda r: np.random.default_rng(1).dirichlet(np.ones(4), 5)],
           id="ce-probabilities", grad_argnums=[0, 1]),
    OpCase("cross_entropy",
           lambda x, p: ops.cross_entropy(x, p, ms.Tensor(W4), reduction="sum",
                                          label_smoothing=0.3),
           lambda x, p: -(np_log_softmax(x, 1) * (0.7 * p + 0.3 / 4) * W4).sum(),
           [(5, 4), lambda r: np.random.default_rng(1).dirichlet(np.ones(4), 5)],
           id="ce-probabilities-weight-smoothing", grad_argnums=[0, 1]),
    OpCase("nll_loss", lambda x, t: ops.nll_loss(ops.log_softmax(x, 1), t, ms.Tensor(W4),
                                                 ignore_index=3),
           lambda x, t: np_nll(np_log_softmax(x, 1), t, W4, 3),
           [(6, 4), _targets((6,), 4)], id="nll_loss-weight-ignore"),
    OpCase("nll_loss", lambda x, t: ops.nll_loss(x, t, reduction="none"),
           lambda x, t: np_nll(x, t, reduction="none"), [(6, 4), _targets((6,), 4)],
           id="nll_loss-none"),
    OpCase("mse_loss", ops.mse_loss, lambda a, b: ((a - b) ** 2).mean(), [(3, 4), (3, 4)],
           id="mse_loss"),
    OpCase("mse_loss", lambda a, b: ops.mse_loss(a, b, "none"), lambda a, b: (a - b) ** 2,
           [(3, 4), (4,)], id="mse_loss-broadcast-none"),
    OpCase("l1_loss", lambda a, b: ops.l1_loss(a, b, "sum"), lambda a, b: np.abs(a - b).sum(),
           [(3, 4), (3, 4)], id="l1_loss-sum"),
    OpCase("smooth_l1_loss", lambda a, b: ops.smooth_l1_loss(a, b, 0.5),
           lambda a, b: np.where(np.abs(a - b) < 0.5, (a - b) ** 2, np.abs(a - b) - 0.25),
           [(3, 4), (3, 4)], id="smooth_l1_loss-beta"),
    OpCase("smooth_l1_loss", lambda a, b: ops.smooth_l1_loss(a, b, 0.0, "mean"),
           lambda a, b: np.abs(a - b).mean(), [(3, 4), (3, 4)], id="smooth_l1_loss-beta0"),
    OpCase("huber_loss", lambda a, b: ops.huber_loss(a, b, "sum", 0.7),
           lambda a, b: np.where(np.abs(a - b) < 0.7, 0.5 * (a - b) ** 2,
                                 0.7 * (np.abs(a - b) - 0.35)).sum(),
           [(3, 4), (3, 4)], id="huber_loss"),
    OpCase("binary_cross_entropy", ops.binary_cross_entropy,
           lambda p, y: -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean(), [(3, 4), (3, 4)],
           domain=UNIT, id="binary_cross_entropy"),
    OpCase("binary_cross_entropy",
           lambda p, y, w: ops.binary_cross_entropy(p, y, w, "none"),
           lambda p, y, w: -(y * np.log(p) + (1 - y) * np.log(1 - p)) * w,
           [(3, 4), (3, 4), (4,)], domain=UNIT, id="binary_cross_entropy-weight"),
    OpCase("binary_cross_entropy_with_logits", ops.binary_cross_entropy_with_logits,
           lambda x, y: np_bce_logits(x, y).mean(), [(3, 4), (3, 4)], id="bce_with_logits"),
    OpCase("binary_cross_entropy_with_logits",
           lambda x, y, w, pw: ops.binary_cross_entropy_with_logits(x, y, w, pw, "sum"),
           lambda x, y, w, pw: np_bce_logits(x, y, w, pw).sum(),
           [(3, 4), (3, 4), (4,), lambda r: r.uniform(0.5, 2, (4,))],
           id="bce_with_logits-weight-pos_weight"),
    OpCase("kl_div", lambda x, y: ops.kl_div(x, y, "batchmean"),
           lambda x, y: (y * (np.log(y) - x)).sum() / 3, [(3, 4), (3, 4)], domain=UNIT,
           id="kl_div-batchmean", grad_argnums=[0]),
    OpCase("soft_margin_loss", ops.soft_margin_loss,
           lambda x, y: np.logaddexp(0, -y * x).mean(), [(3, 4)] + SIGNS, id="soft_margin_loss"),
    OpCase("hinge_embedding_loss", lambda x, y: ops.hinge_embedding_loss(x, y, 0.5, "none"),
           lambda x, y: np.where(y == 1, x, np.maximum(0, 0.5 - x)), [(3, 4)] + SIGNS,
           id="hinge_embedding_loss"),
    OpCase("margin_ranking_loss", lambda a, b, y: ops.margin_ranking_loss(a, b, y, 0.3),
           lambda a, b, y: np.maximum(0, -y * (a - b) + 0.3).mean(), [(3, 4), (3, 4)] + SIGNS,
           id="margin_ranking_loss"),
    OpCase("cosine_embedding_loss",
           lambda a, b, y: ops.cosine_embedding_loss(a, b, y, 0.1, "none"),
           lambda a, b, y: np.where(
               y == 1, 1 - (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1)),
               np.maximum(0, (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1)) - 0.1)),
           [(4, 5), (4, 5), lambda r: np.array([1.0, -1.0, 1.0, -1.0])],
           id="cosine_embedding_loss", grad_argnums=[0, 1]),
    OpCase("gaussian_nll_loss", lambda x, t, v: ops.gaussian_nll_loss(x, t, v, full=True),
           lambda x, t, v: (0.5 * (np.log(v) + (x - t) ** 2 / v) + 0.5 * np.log(2 * np.pi)).mean(),
           [(3, 4), (3, 4), lambda r: r.uniform(0.5, 2, (3, 4))], id="gaussian_nll_loss"),
    OpCase("multilabel_soft_margin_loss", ops.multilabel_soft_margin_loss,
           lambda x, y: -(y * -np.logaddexp(0, -x) + (1 - y) * -np.logaddexp(0, x)).mean(1).mean(),
           [(3, 4), lambda r: (r.uniform(size=(3, 4)) > 0.5).astype(np.float64)],
           id="multilabel_soft_margin_loss", grad_argnums=[0]),
]


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(TABLE)


T5 = ms.Tensor(np.array([0, 2, 1, 3, 2], np.int32))


@pytest.mark.parametrize("case", [
    OpCase("cross_entropy", grad_case_fn(lambda x: ops.cross_entropy(x, T5, ms.Tensor(W4))), None,
           (5, 4), id="cross_entropy-weight"),
    OpCase("nll_loss", grad_case_fn(lambda x: ops.nll_loss(x, T5, reduction="none")), None, (5, 4),
           id="nll_loss-none"),
], ids=case_id)
def test_second_order_gradient(case):
    run_grad(case)


# ----------------------------------------------------------------- MindSpore's numbers
LOGITS = np.array([[2, 1, 0.1], [0.5, 2.5, 0.3]], np.float32)
LABELS = np.array([0, 1], np.int32)
PROBS = np.array([[0.7, 0.2, 0.1], [0, 1, 0]], np.float32)
# Generated with MindSpore 2.10 (CPU): ops.cross_entropy(Tensor(LOGITS), Tensor(LABELS), ...)
# (reference section 7 gives the first ones as well).
CROSS_ENTROPY = [
    (dict(), 0.3185395),
    (dict(reduction="sum"), 0.637079),
    (dict(weight=[1.0, 2.0, 1.0]), 0.28570947),
    (dict(ignore_index=1), 0.41702962),
    (dict(label_smoothing=0.1), 0.43687284),
    (dict(weight=[1.0, 2.0, 1.0], label_smoothing=0.1), 0.37545314),
    (dict(weight=[1.0, 2.0, 1.0], ignore_index=0, label_smoothing=0.1), 0.2827144),
]


@pytest.mark.parametrize("kwargs,want", CROSS_ENTROPY, ids=[str(c[0]) for c in CROSS_ENTROPY])
def test_cross_entropy_matches_mindspore(kwargs, want):
    kwargs = dict(kwargs)
    if "weight" in kwargs:
        kwargs["weight"] = ms.Tensor(np.array(kwargs["weight"], np.float32))
    loss = ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(LABELS), **kwargs)
    assert loss.shape == () and loss.dtype == ms.float32
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-5)


def test_cross_entropy_other_forms_match_mindspore():
    # MindSpore 2.10 values (see CROSS_ENTROPY)
    x, t = ms.Tensor(LOGITS), ms.Tensor(LABELS)
    np.testing.assert_allclose(ops.cross_entropy(x, t, reduction="none").asnumpy(),
                               [0.41702962, 0.22004938], rtol=1e-5)
    np.testing.assert_allclose(ops.cross_entropy(x, t, ms.Tensor([1.0, 2.0, 1.0]),
                                                 reduction="none").asnumpy(),
                               [0.41702962, 0.44009876], rtol=1e-5)
    np.testing.assert_allclose(ops.cross_entropy(x, t, label_smoothing=0.1,
                                                 reduction="none").asnumpy(),
                               [0.51369625, 0.3600494], rtol=1e-5)
    p = ms.Tensor(PROBS)
    np.testing.assert_allclose(ops.cross_entropy(x, p).asnumpy(), 0.5135395, rtol=1e-5)
    np.testing.assert_allclose(ops.cross_entropy(x, p, ms.Tensor([1.0, 2.0, 1.0])).asnumpy(),
                               0.76526713, rtol=1e-5)
    np.testing.assert_allclose(ops.cross_entropy(x, p, label_smoothing=0.2).asnumpy(),
                               0.7112062, rtol=1e-5)
    one = ops.cross_entropy(ms.Tensor(LOGITS[0]), ms.Tensor(0, ms.int32))
    np.testing.assert_allclose(one.asnumpy(), 0.41702962, rtol=1e-5)
    int64 = ops.cross_entropy(x, ms.Tensor(LABELS.astype(np.int64)))
    np.testing.assert_allclose(int64.asnumpy(), 0.3185395, rtol=1e-5)


def test_nll_loss_all_ignored_mean_is_nan_like_mindspore():
    logp = ops.log_softmax(ms.Tensor(LOGITS))
    loss = ops.nll_loss(logp, ms.Tensor(np.array([1, 1], np.int32)), ignore_index=1)
    assert np.isnan(loss.asnumpy())


def test_regression_and_binary_losses_match_mindspore():
    # MindSpore 2.10, reference section 7 and probes: a = [[1, 2], [3, 4]],
    # b = [[1.5, 2], [2, 6]]; z = [[.5, -1], [2, 0]], y = [[1, 0], [0, 1]];
    # p = [[.2, .7], [.9, .4]], q = [[0, 1], [1, 0]]
    a = ms.Tensor(np.array([[1, 2], [3, 4]], np.float32))
    b = ms.Tensor(np.array([[1.5, 2], [2, 6]], np.float32))
    np.testing.assert_allclose(ops.mse_loss(a, b).asnumpy(), 1.3125)
    np.testing.assert_allclose(ops.l1_loss(a, b).asnumpy(), 0.875)
    np.testing.assert_allclose(ops.smooth_l1_loss(a, b).asnumpy(), [[0.125, 0], [0.5, 1.5]])
    np.testing.assert_allclose(ops.smooth_l1_loss(a, b, 2.0, "mean").asnumpy(), 0.328125)
    np.testing.assert_allclose(ops.huber_loss(a, b, "none", 2.0).asnumpy(), [[0.125, 0], [0.5, 2]])
    z = ms.Tensor(np.array([[0.5, -1], [2, 0]], np.float32))
    y = ms.Tensor(np.array([[1, 0], [0, 1]], np.float32))
    np.testing.assert_allclose(ops.binary_cross_entropy_with_logits(z, y).asnumpy(), 0.90185344,
                               rtol=1e-6)
    np.testing.assert_allclose(
        ops.binary_cross_entropy_with_logits(z, y, reduction="none").asnumpy(),
        [[0.474077, 0.31326163], [2.126928, 0.6931472]], rtol=1e-6)
    np.testing.assert_allclose(
        ops.binary_cross_entropy_with_logits(z, y, pos_weight=ms.Tensor([2.0, 1.0])).asnumpy(),
        1.0203727, rtol=1e-6)
    np.testing.assert_allclose(
        ops.binary_cross_entropy_with_logits(z, y, ms.Tensor([2.0, 1.0])).asnumpy(), 1.5521047,
        rtol=1e-6)
    p = ms.Tensor(np.array([[0.2, 0.7], [0.9, 0.4]], np.float32))
    q = ms.Tensor(np.array([[0, 1], [1, 0]], np.float32))
    np.testing.assert_allclose(ops.binary_cross_entropy(p, q).asnumpy(), 0.29900116, rtol=1e-6)
    edge = ops.binary_cross_entropy(ms.Tensor([0.0, 1.0]), ms.Tensor([1.0, 0.0]), reduction="none")
    np.testing.assert_allclose(edge.asnumpy(), [27.631021, 27.631021], rtol=1e-6)  # log clamp
    r = ms.Tensor(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32))
    logp = ops.log(p)
    np.testing.assert_allclose(ops.kl_div(logp, q).asnumpy(), 0.11550888, rtol=1e-6)
    np.testing.assert_allclose(ops.kl_div(logp, r, "sum").asnumpy(), -0.06068201, rtol=1e-5)
    np.testing.assert_allclose(ops.kl_div(logp, r, "batchmean").asnumpy(), -0.030341, rtol=1e-5)
    np.testing.assert_allclose(ops.kl_div(logp, r, "mean").asnumpy(), -0.0151705, rtol=1e-5)
    signs = ms.Tensor(np.array([[1, -1], [-1, 1]], np.float32))
    np.testing.assert_allclose(ops.hinge_embedding_loss(z, signs, 1.0, "none").asnumpy(),
                               [[0.5, 2], [0, 0]])
    np.testing.assert_allclose(ops.margin_ranking_loss(a, b, signs, 0.5, "none").asnumpy(),
                               [[1, 0.5], [1.5, 2.5]])


def test_kl_div_gradients_like_mindspore():
    # MindSpore 2.10: ms.grad(lambda a, b: ops.kl_div(a, b, 'sum'), (0, 1)) gives -labels for
    # the logits and zeros for the labels (its KLDivLoss has no label gradient)
    labels = ms.Tensor(np.array([[0.0, 1.0], [0.5, 0.5]]))
    logits = ms.Tensor(np.log(np.array([[0.3, 0.7], [0.4, 0.6]])))
    g_x, g_y = ops.grad(lambda x, y: ops.kl_div(x, y, "sum"), grad_position=(0, 1))(logits,
                                                                                    labels)
    np.testing.assert_allclose(g_x.asnumpy(), -labels.asnumpy())
    np.testing.assert_array_equal(g_y.asnumpy(), 0)


# ----------------------------------------------------------------- errors
@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(LABELS), reduction="avg"),
     ValueError, ["cross_entropy_loss", "reduction", "avg"]),
    (lambda: ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(np.array([0, 5], np.int32))),
     ValueError, ["NLLLoss", "[0, 3)", "5"]),
    (lambda: ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(np.array([0.0, 1.0], np.float32))),
     ValueError, ["cross_entropy_loss", "target", "shape"]),
    (lambda: ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(np.array([[0, 1]], np.int32))),
     ValueError, ["NLLLoss", "target"]),
    (lambda: ops.cross_entropy(ms.Tensor(LOGITS), ms.Tensor(LABELS), ms.Tensor([1.0, 2.0])),
     ValueError, ["NLLLoss", "weight"]),
    (lambda: ops.nll_loss(ms.Tensor(LOGITS), ms.Tensor(LABELS), reduction="batchmean"),
     ValueError, ["nll_loss", "reduction"]),
    (lambda: ops.mse_loss(ms.Tensor([1.0]), ms.Tensor([1.0]), "avg"), ValueError,
     ["mse_loss", "reduction"]),
    (lambda: ops.kl_div(ms.Tensor([1.0]), ms.Tensor([1.0]), "avg"), ValueError,
     ["kl_div", "batchmean"]),
    (lambda: ops.smooth_l1_loss(ms.Tensor([1.0]), ms.Tensor([1.0]), -1.0), ValueError,
     ["smooth_l1_loss", "beta"]),
    (lambda: ops.cross_entropy(LOGITS, ms.Tensor(LABELS)), TypeError,
     ["cross_entropy_loss", "input", "Tensor"]),
])
def test_loss_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_nll_loss_grad_infer_matches_kernel():
    case = OpCase("nll_loss", grad_case_fn(lambda x: ops.cross_entropy(x, T5, ms.Tensor(W4))),
                  None, (5, 4))
    assert {"NLLLossGrad", "LogSoftmaxGrad"} <= set(run_infer(case))


def np_triplet(a, p, n, margin=1.0, norm=2, eps=1e-6, swap=False):
    def dist(x, y):
        return (np.abs(x - y + eps) ** norm).sum(-1) ** (1 / norm)
    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return np.maximum(dist(a, p) - d_neg + margin, 0)


def np_multi_margin(x, y, p=1, margin=1, weight=None):
    n, c = x.shape
    picked = x[np.arange(n), y][:, None]
    terms = np.maximum(0, margin - picked + x) ** p
    terms[np.arange(n), y] = 0
    loss = terms.sum(1) / c
    return loss * weight[y] if weight is not None else loss


TARGETS = np.array([0, 2, 3])


@pytest.mark.parametrize("case", [
    OpCase("triplet_margin_loss", ops.triplet_margin_loss,
           lambda a, p, n: np_triplet(a, p, n).mean(), [(3, 4), (3, 4), (3, 4)], id="triplet"),
    OpCase("triplet_margin_loss",
           lambda a, p, n: ops.triplet_margin_loss(a, p, n, 0.5, 1, swap=True, reduction="none"),
           lambda a, p, n: np_triplet(a, p, n, 0.5, 1, swap=True), [(3, 4), (3, 4), (3, 4)],
           id="triplet-p1-swap"),
    OpCase("multi_margin_loss",
           lambda x: ops.multi_margin_loss(x, ms.Tensor(TARGETS)),
           lambda x: np_multi_margin(x, TARGETS).mean(), (3, 4), id="multi_margin"),
    OpCase("multi_margin_loss",
           lambda x, w: ops.multi_margin_loss(x, ms.Tensor(TARGETS), 2, 2, w, "none"),
           lambda x, w: np_multi_margin(x, TARGETS, 2, 2, w), [(3, 4), (4,)],
           id="multi_margin-p2-weight"),
], ids=case_id)
def test_margin_losses(case):
    run_forward(case)
    run_infer(case)
    run_grad(case)


def test_multi_margin_loss_matches_mindspore():
    # MindSpore 2.10: ops.multi_margin_loss(a, Tensor([0, 2, 3], int64)), a from
    # default_rng(0).standard_normal((3, 4)) as float32
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.multi_margin_loss(ms.Tensor(a), ms.Tensor(TARGETS)).asnumpy(),
                               0.3772534, rtol=1e-6)
