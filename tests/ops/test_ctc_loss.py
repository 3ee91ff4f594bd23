"""CTC loss (ops.ctc_loss, nn.CTCLoss): MindSpore 2.10's losses, log_alpha and gradients
(probed on the reference, CPU), a brute-force check over every alignment, numerical
gradients through a log_softmax, and errors."""
import itertools

import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from tests.helpers.optable import OpCase, table_tests

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((6, 2, 4)).astype(np.float32)
LP = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
TARGETS = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
IL, TL = np.array([6, 5], np.int32), np.array([3, 2], np.int32)


def _t(*arrays):
    return [ms.Tensor(a) for a in arrays]


def test_matches_mindspore():
    args = _t(LP, TARGETS, IL, TL)
    loss, log_alpha = ops.ctc_loss(*args, reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), [5.67371, 3.9928758], rtol=1e-6)
    assert log_alpha.shape == (2, 6, 7)
    np.testing.assert_allclose(float(ops.ctc_loss(*args)[0]), 1.9438373, rtol=1e-6)
    np.testing.assert_allclose(float(ops.ctc_loss(*args, reduction="sum")[0]), 9.666586,
                               rtol=1e-6)
    np.testing.assert_allclose(float(nn.CTCLoss()(*args)), 1.9438373, rtol=1e-6)
    grad = ms.grad(lambda x: ops.ctc_loss(x, *args[1:], reduction="sum")[0])(args[0])
    np.testing.assert_allclose(grad.asnumpy()[:, 0], [
        [0.01817, -0.61758, 0.37809, 0.22132], [-0.05913, -0.22911, -0.15426, 0.4425],
        [-0.02241, 0.10678, -0.58596, 0.50159], [-0.33474, 0.24743, -0.00228, 0.0896],
        [-0.28286, 0.32798, -0.31758, 0.27246], [-0.01253, 0.41868, -0.60739, 0.20124]],
        atol=1e-5)
    assert not grad.asnumpy()[5, 1].any()          # past sample 1's input length


def test_log_alpha_and_blank_match_mindspore():
    targets = np.array([[1, 1, 1], [1, 1, 1]], np.int32)
    loss, log_alpha = ops.ctc_loss(*_t(LP, targets, np.array([3, 6], np.int32),
                                       np.array([3, 3], np.int32)), reduction="none")
    assert np.isinf(loss.asnumpy()[0])              # "1 1 1" needs 5 steps, 3 given
    np.testing.assert_allclose(loss.asnumpy()[1], 9.773807, rtol=1e-6)
    np.testing.assert_allclose(log_alpha.asnumpy()[1, 5, :3], [-14.169582, -8.65703, -7.409601],
                               rtol=1e-6)
    np.testing.assert_allclose(log_alpha.asnumpy()[0, 2, :3], [-5.3244476, -4.397912, -4.745807],
                               rtol=1e-6)
    assert np.isneginf(log_alpha.asnumpy()[0, 3]).all()
    zeroed = ops.ctc_loss(*_t(LP, targets, np.array([3, 6], np.int32),
                              np.array([3, 3], np.int32)), reduction="none",
                          zero_infinity=True)[0]
    assert zeroed.asnumpy()[0] == 0.0

    def total(x, zero_infinity):
        return ops.ctc_loss(x, *_t(targets, np.array([3, 6], np.int32),
                                   np.array([3, 3], np.int32)), reduction="none",
                            zero_infinity=zero_infinity)[0].sum()
    # MindSpore: NaN gradients for the impossible sample (0 past its input length), or 0
    grad = ms.grad(lambda x: total(x, False))(ms.Tensor(LP)).asnumpy()
    assert np.isnan(grad[:3, 0]).all() and not grad[3:, 0].any()
    grad = ms.grad(lambda x: total(x, True))(ms.Tensor(LP)).asnumpy()
    assert not grad[:, 0].any() and np.isfinite(grad).all()
    blank3 = ops.ctc_loss(*_t(LP, np.array([[1, 2, 0], [0, 1, 2]], np.int32), IL, TL), blank=3,
                          reduction="none")[0]
    np.testing.assert_allclose(blank3.asnumpy(), [5.3894372, 3.5921936], rtol=1e-6)


def _brute_force(lp, target, blank):
    """-log of the summed probability of every path that collapses to ``target``."""
    steps, classes = lp.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == list(target):
            total += np.exp(sum(lp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("target", [[1], [1, 1], [2, 1], [1, 2, 1], []])
def test_against_every_alignment(target):
    lp = np.log(np.random.default_rng(1).dirichlet(np.ones(3), size=5))     # (T=5, C=3)
    padded = np.array([target + [1] * (3 - len(target))], np.int32)
    loss = ops.ctc_loss(*_t(lp[:, None, :], padded, np.array([5], np.int32),
                            np.array([len(target)], np.int32)), reduction="none")[0]
    np.testing.assert_allclose(loss.asnumpy()[0], _brute_force(lp, target, 0), rtol=1e-10)


def _ctc_of_logits(x):
    """CTC through a log_softmax: there the primitive's gradient is the exact one."""
    args = _t(TARGETS, IL, TL)
    return ops.ctc_loss(ops.log_softmax(x, -1), *args, reduction="none")[0]


CASES = [OpCase("ctc_loss", _ctc_of_logits, None, [(6, 2, 4)], id="ctc_loss of log_softmax")]
test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.ctc_loss(*_t(LP, TARGETS, IL, TL), reduction="max"), ValueError, "reduction"),
    (lambda: ops.ctc_loss(*_t(LP[0], TARGETS, IL, TL)), ValueError, "3-D"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS[0], IL, TL)), ValueError, "'targets' must be 2-D"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS, IL[:1], TL)), ValueError, "'input_lengths'"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS, np.array([7, 5], np.int32), TL)), ValueError,
     "'input_lengths' must be in \\[0, 6\\]"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS, IL, np.array([4, 2], np.int32))), ValueError,
     "'target_lengths' must be in"),
    (lambda: ops.ctc_loss(*_t(LP, np.array([[1, 0, 2], [3, 1, 0]], np.int32), IL, TL)),
     ValueError, "must not contain the blank"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS, IL, TL), blank=4), ValueError, "'blank' must be in"),
    (lambda: ops.ctc_loss(*_t(LP, TARGETS.astype(np.float32), IL, TL)), TypeError,
     "'targets' must be an integer"),
    (lambda: nn.CTCLoss(blank=-1), ValueError, "'blank' must be >= 0"),
    (lambda: nn.CTCLoss(zero_infinity=1), TypeError, "'zero_infinity' should be 'bool'"),
])
def test_errors(call, exc, words):
    with pytest.raises(exc, match=words):
        call()
