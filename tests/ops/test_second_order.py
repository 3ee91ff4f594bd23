"""Gradients of gradients: the primitives that only appear in backward passes (GetitemGrad,
PadGrad, EmbeddingGrad, MaxPoolSelect, NLLLossGrad) are themselves checked against finite
differences by differentiating a first-order (or second-order) gradient."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, case_id, run_grad

IDX = ms.Tensor(np.array([[0, 2], [3, 3]], np.int32))
TARGET = ms.Tensor(np.array([1, 0, 3], np.int32))


def _grad_of(f):
    return lambda x: ops.grad(f)(x)


def _cubed_sum(t):
    return (t * t * t).sum()


CASES = [
    OpCase("getitem-grad", _grad_of(lambda t: _cubed_sum(t[1:, ::2])), None, (3, 4)),
    OpCase("getitem-advanced-grad", _grad_of(lambda t: _cubed_sum(t[ms.Tensor([0, 2, 2])])),
           None, (3, 4)),
    OpCase("pad-grad", _grad_of(lambda t: _cubed_sum(ops.pad(t, (1, 2)))), None, (3, 4)),
    OpCase("pad-reflect-grad",
           _grad_of(lambda t: _cubed_sum(ops.pad(t, (1, 2), mode="reflect"))), None, (3, 4)),
    OpCase("embedding-grad", _grad_of(lambda w: _cubed_sum(ops.embedding(IDX, w))), None,
           (4, 3)),
    OpCase("max-pool-grad", _grad_of(lambda t: _cubed_sum(ops.max_pool2d(t, 2, 2))), None,
           (1, 2, 4, 4)),
    # third order: the max-pool gradient's own gradient (MaxPoolSelect) inside the forward
    OpCase("max-pool-grad-grad",
           _grad_of(lambda t: _cubed_sum(
               _grad_of(lambda u: _cubed_sum(ops.max_pool2d(u, 2, 2)))(t))), None,
           (1, 1, 4, 4)),
    OpCase("nll-loss-grad", _grad_of(lambda t: ops.cross_entropy(t, TARGET) * 2.0), None,
           (3, 5)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient(case):
    run_grad(case)
