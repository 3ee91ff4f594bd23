"""Op table of the differentiable mint adapters: forward against NumPy, shape rules, numerical
gradients and jit (tests/helpers/optable.py)."""
import numpy as np

from spore import mint
from spore.mint.nn import functional as F
from tests.helpers.optable import OpCase, table_tests


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _distinct(shape):
    """Inputs without ties, so max/sort/median gradients are well defined."""
    return lambda rng: rng.permutation(np.prod(shape)).reshape(shape).astype(np.float64) / 7 - 1


def _lower_median(x, axis):
    return np.take_along_axis(np.sort(x, axis), np.full(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                                                        (x.shape[axis] - 1) // 2), axis).squeeze(axis)


def _conv2d_ref(x, w, b=None, stride=1, pad=0):
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    oh, ow = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    out = np.stack([np.stack([np.einsum("nchw,ochw->no", x[:, :, i * stride:i * stride + kh,
                                                         j * stride:j * stride + kw], w)
                              for j in range(ow)], -1) for i in range(oh)], -2)
    return out if b is None else out + b[None, :, None, None]


IDX = np.array([[0, 2], [1, 1], [3, 0]])
LABELS = np.array([0, 2, 1])

CASES = [
    OpCase("add-alpha", lambda x, y: mint.add(x, y, alpha=2.5), lambda x, y: x + 2.5 * y,
           [(3, 4), (4,)]),
    OpCase("sub-alpha", lambda x, y: mint.sub(x, y, alpha=-2), lambda x, y: x + 2 * y,
           [(3, 4), (3, 1)]),
    OpCase("addcmul", lambda a, b, c: mint.addcmul(a, b, c, value=0.5),
           lambda a, b, c: a + 0.5 * b * c, [(3, 4), (3, 4), (4,)]),
    OpCase("addcdiv", lambda a, b, c: mint.addcdiv(a, b, c, value=2),
           lambda a, b, c: a + 2 * b / c, [(3, 4), (3, 4), lambda r: r.uniform(1, 2, (3, 4))]),
    OpCase("baddbmm", lambda a, b, c: mint.baddbmm(a, b, c, beta=0.5, alpha=2),
           lambda a, b, c: 0.5 * a + 2 * b @ c, [(2, 3, 2), (2, 3, 4), (2, 4, 2)]),
    OpCase("sum-dim", lambda x: mint.sum(x, (0, 2), True), lambda x: x.sum((0, 2), keepdims=True),
           [(2, 3, 4)]),
    OpCase("mean", lambda x: mint.mean(x, 1), lambda x: x.mean(1), [(3, 4)]),
    OpCase("prod", lambda x: mint.prod(x, 0), lambda x: x.prod(0), [(3, 4)]),
    OpCase("amax", lambda x: mint.amax(x, 1), lambda x: x.max(1), [_distinct((3, 4))]),
    OpCase("max-dim", lambda x: mint.max(x, 1)[0], lambda x: x.max(1), [_distinct((3, 4))]),
    OpCase("min-all", lambda x: mint.min(x), lambda x: x.min(), [_distinct((3, 4))]),
    OpCase("max-pair", mint.max, np.maximum, [(3, 4), (3, 4)]),
    OpCase("var", lambda x: mint.var(x, 1), lambda x: x.var(1, ddof=1), [(3, 5)]),
    OpCase("std", lambda x: mint.std(x, 0, correction=0, keepdim=True),
           lambda x: x.std(0, keepdims=True), [(4, 3)]),
    OpCase("median-dim", lambda x: mint.median(x, 1)[0], lambda x: _lower_median(x, 1),
           [_distinct((3, 4))]),
    OpCase("cumsum", lambda x: mint.cumsum(x, 1), lambda x: np.cumsum(x, 1), [(3, 4)]),
    OpCase("norm-fro", mint.norm, lambda x: np.linalg.norm(x), [(3, 4)]),
    OpCase("norm-p1-dim", lambda x: mint.norm(x, 3, 1), lambda x: (np.abs(x) ** 3).sum(1) ** (1 / 3),
           [(3, 4)]),
    OpCase("cat", lambda x, y: mint.cat([x, y], 1), lambda x, y: np.concatenate([x, y], 1),
           [(3, 2), (3, 4)]),
    OpCase("stack", lambda x, y: mint.stack([x, y], -1), lambda x, y: np.stack([x, y], -1),
           [(3, 2), (3, 2)]),
    OpCase("split", lambda x: mint.split(x, [1, 3], 1)[1], lambda x: x[:, 1:], [(3, 4)]),
    OpCase("chunk", lambda x: mint.chunk(x, 2, 0)[0], lambda x: x[:2], [(3, 4)]),
    OpCase("flatten", mint.flatten, lambda x: x.reshape(-1), [(2, 3, 2)]),
    OpCase("squeeze", lambda x: mint.squeeze(x, (0, 2)), lambda x: x.reshape(3), [(1, 3, 1)]),
    OpCase("transpose", lambda x: mint.transpose(x, 0, 2), lambda x: x.transpose(2, 1, 0),
           [(2, 3, 4)]),
    OpCase("narrow", lambda x: mint.narrow(x, 1, 1, 2), lambda x: x[:, 1:3], [(3, 4)]),
    OpCase("select", lambda x: mint.select(x, 0, -1), lambda x: x[-1], [(3, 4)]),
    OpCase("repeat_interleave", lambda x: mint.repeat_interleave(x, 2, 0),
           lambda x: np.repeat(x, 2, 0), [(3, 4)]),
    OpCase("diag", lambda x: mint.diag(x, 1), lambda x: np.diag(x, 1), [(4,)]),
    OpCase("diag-2d", lambda x: mint.diag(x, -1), lambda x: np.diag(x, -1), [(4, 4)]),
    OpCase("diff", lambda x: mint.diff(x, 2, 0), lambda x: np.diff(x, 2, 0), [(4, 3)]),
    OpCase("gather", lambda x: mint.gather(x, 1, mint.Tensor(IDX)),
           lambda x: np.take_along_axis(x, IDX, 1), [(3, 4)]),
    OpCase("index_select", lambda x: mint.index_select(x, 1, mint.Tensor(np.array([3, 0, 3]))),
           lambda x: x[:, [3, 0, 3]], [(3, 4)]),
    OpCase("scatter_add", lambda x, s: mint.scatter_add(x, 1, mint.Tensor(IDX), s),
           lambda x, s: x + np.stack([np.bincount(IDX[i], s[i], 4) for i in range(3)]),
           [(3, 4), (3, 2)]),
    OpCase("sort", lambda x: mint.sort(x, dim=0, descending=True)[0], lambda x: -np.sort(-x, 0),
           [_distinct((3, 4))]),
    OpCase("topk", lambda x: mint.topk(x, 2)[0], lambda x: -np.sort(-x, 1)[:, :2],
           [_distinct((3, 4))]),
    OpCase("kthvalue", lambda x: mint.kthvalue(x, 2, 1)[0], lambda x: np.sort(x, 1)[:, 1],
           [_distinct((3, 4))]),
    OpCase("softmax", lambda x: mint.softmax(x, 0), lambda x: _softmax(x, 0), [(3, 4)]),
    OpCase("cdist", mint.cdist,
           lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)), [(3, 2), (4, 2)]),
    OpCase("conv2d-pad", lambda x, w, b: F.conv2d(x, w, b, 2, 1),
           lambda x, w, b: _conv2d_ref(x, w, b, 2, 1), [(1, 2, 5, 5), (3, 2, 3, 3), (3,)],
           grad_rtol=1e-3, grad_atol=1e-4),
    OpCase("conv1d-pad", lambda x, w: F.conv1d(x, w, padding=1),
           lambda x, w: _conv2d_ref(x[:, :, None], w[:, :, None], pad=1)[:, :, 1],
           [(2, 2, 6), (3, 2, 3)]),
    OpCase("linear", F.linear, lambda x, w, b: x @ w.T + b, [(3, 4), (2, 4), (2,)]),
    OpCase("relu", F.relu, lambda x: np.maximum(x, 0), [lambda r: r.choice([-1.5, -0.5, 0.5, 1.5], (3, 4))]),
    OpCase("elu", lambda x: F.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)),
           [(3, 4)]),
    OpCase("silu", F.silu, lambda x: x / (1 + np.exp(-x)), [(3, 4)]),
    OpCase("gelu-tanh", lambda x: F.gelu(x, approximate="tanh"),
           lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
           [(3, 4)]),
    OpCase("leaky_relu", F.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x),
           [lambda r: r.choice([-1.5, -0.5, 0.5, 1.5], (3, 4))]),
    OpCase("logsigmoid", F.logsigmoid, lambda x: -np.log1p(np.exp(-x)), [(3, 4)]),
    OpCase("glu", F.glu, lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:])), [(3, 4)]),
    OpCase("prelu", F.prelu, lambda x, w: np.where(x > 0, x, w[None, :, None] * x),
           [lambda r: r.choice([-1.5, -0.5, 0.5, 1.5], (2, 3, 4)), (3,)]),
    OpCase("log_softmax", lambda x: F.log_softmax(x), lambda x: np.log(_softmax(x, 1)), [(3, 4)]),
    OpCase("normalize", F.normalize, lambda x: x / np.linalg.norm(x, axis=1, keepdims=True),
           [(3, 4)]),
    OpCase("avg_pool2d", lambda x: F.avg_pool2d(x, 2),
           lambda x: x.reshape(1, 2, 2, 2, 2, 2).mean((3, 5)), [(1, 2, 4, 4)]),
    OpCase("max_pool2d", lambda x: F.max_pool2d(x, 2),
           lambda x: x.reshape(1, 2, 2, 2, 2, 2).max((3, 5)), [_distinct((1, 2, 4, 4))]),
    OpCase("nll_loss", lambda x: F.nll_loss(x, mint.Tensor(LABELS)),
           lambda x: -x[np.arange(3), LABELS].mean(), [(3, 4)]),
    OpCase("cross_entropy", lambda x: F.cross_entropy(x, mint.Tensor(LABELS)),
           lambda x: -np.log(_softmax(x, 1))[np.arange(3), LABELS].mean(), [(3, 4)]),
    OpCase("kl_div-batchmean", lambda x, t: F.kl_div(x, t, "batchmean"),
           lambda x, t: (t * (np.log(t) - x)).sum() / 3,
           [(3, 4), lambda r: r.uniform(0.1, 1, (3, 4))]),
    OpCase("smooth_l1", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5),
           lambda x, y: np.where(np.abs(x - y) < 0.5, (x - y) ** 2, np.abs(x - y) - 0.25).mean(),
           [(3, 4), (3, 4)]),
    OpCase("bce_logits", lambda x, y: F.binary_cross_entropy_with_logits(x, y),
           lambda x, y: np.mean(np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))),
           [(3, 4), lambda r: r.uniform(0, 1, (3, 4))]),
    OpCase("pad", lambda x: F.pad(x, (1, 2)), lambda x: np.pad(x, ((0, 0), (1, 2))), [(3, 4)]),
    OpCase("inv", mint.linalg.inv, np.linalg.inv,
           [lambda r: r.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)], grad_rtol=1e-3),
    OpCase("vector_norm", lambda x: mint.linalg.vector_norm(x, 2, 1),
           lambda x: np.linalg.norm(x, axis=1), [(3, 4)]),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)
