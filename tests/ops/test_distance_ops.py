"""cosine_similarity and pdist: values from MindSpore 2.10 and numerical gradients."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

X = np.array([[1.0, 2, 3], [4, 5, 6], [0, 1, 0]], np.float32)


def test_values_match_mindspore():
    # printed by MindSpore 2.10: ops.pdist(x), ops.cosine_similarity(x, x[::-1])
    np.testing.assert_allclose(ops.pdist(ms.Tensor(X)).asnumpy(),
                               [5.196152, 3.3166249, 8.246211], rtol=1e-6)
    np.testing.assert_allclose(ops.cosine_similarity(ms.Tensor(X), ms.Tensor(X[::-1])).asnumpy(),
                               [0.5345225, 1.0, 0.5345225], rtol=1e-6)


def _np_pdist(x, p=2.0):
    i, j = np.triu_indices(x.shape[0], k=1)
    return (np.abs(x[i] - x[j]) ** p).sum(-1) ** (1 / p)


def _np_cos(a, b, dim=1):
    return (a * b).sum(dim) / (np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim))


CASES = [
    OpCase("pdist", ops.pdist, _np_pdist, (5, 3)),
    OpCase("pdist-p1", lambda x: ops.pdist(x, 1.0), lambda x: _np_pdist(x, 1.0), (4, 3),
           id="pdist-p1"),
    OpCase("cosine_similarity", ops.cosine_similarity, _np_cos, [(4, 3), (4, 3)]),
    OpCase("cosine_similarity-dim0", lambda a, b: ops.cosine_similarity(a, b, dim=0),
           lambda a, b: _np_cos(a, b, 0), [(4, 3), (1, 3)], id="cosine_similarity-dim0"),
]


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


def test_pdist_needs_a_matrix():
    with pytest.raises(ValueError, match="pdist"):
        ops.pdist(ms.Tensor([1.0, 2.0]))
