"""Fused gradient primitives (TanhGrad, ReluGrad) against finite differences: each is
reached by differentiating a first-order gradient that dispatches it."""
import pytest

from spore import ops
from tests.helpers.optable import OpCase, case_id, run_grad


def _grad_of(f):
    return lambda x: ops.grad(f)(x)


CASES = [
    OpCase("tanh-grad", _grad_of(lambda t: (ops.tanh(t) * t).sum()), None, (3, 4)),
    # relu(t) * t: its gradient relu'(t) t + relu(t) runs ReluGrad with a cotangent of t
    OpCase("relu-grad", _grad_of(lambda t: (ops.relu(t) * t).sum()), None, (3, 4)),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gradient(case):
    run_grad(case)
