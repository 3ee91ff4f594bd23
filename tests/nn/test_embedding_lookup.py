"""nn.EmbeddingLookup, nn.MultiFieldEmbeddingLookup, nn.AdamOffload and
nn.no_init_parameters (values probed on MindSpore 2.10)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn

TABLE = np.arange(30, dtype=np.float32).reshape(10, 3) / 10 - 1
IDS = np.array([[1, 5, 2, 7], [9, 0, 1, 3]], np.int32)
FIELDS = np.array([[0, 1, 1, 2], [1, 0, 0, 2]], np.int32)
VALUES = np.array([[1.0, 0.5, -2.0, 1.5], [2.0, 1.0, 0.0, 3.0]], np.float32)
ZERO_FIELD = np.array([[1.0, 0.5, -2.0, 0.0], [0.0, 0.0, 0.0, 0.0]], np.float32)
R = {k: TABLE[k] for k in range(10)}
# MindSpore 2.10's outputs for these inputs, field by field
WANT = {
    "SUM": [[R[1], 0.5 * R[5] - 2 * R[2], 1.5 * R[7]], [R[0], 2 * R[9], 3 * R[3]]],
    "MAX": [[R[1], np.maximum(0.5 * R[5], -2 * R[2]), 1.5 * R[7]], [R[0], 2 * R[9], 3 * R[3]]],
    "MEAN": [[R[1], (0.5 * R[5] - 2 * R[2]) / 2.5, R[7]], [R[0], R[9], R[3]]],
}


def test_embedding_lookup_gathers_rows_with_mindspores_table():
    e = nn.EmbeddingLookup(10, 3, param_init=Tensor(TABLE))
    assert e.embedding_table.name == "embedding_table" and e.embedding_table.shape == (10, 3)
    np.testing.assert_array_equal(e(Tensor(IDS)).asnumpy(), TABLE[IDS])
    ms.set_seed(1)
    assert nn.EmbeddingLookup(10, 3)(Tensor(IDS)).shape == (2, 4, 3)
    g = ms.grad(lambda t: e(t).sum(), None, e.trainable_params())(Tensor(IDS))[0]
    np.testing.assert_array_equal(g.asnumpy()[:, 0], np.bincount(IDS.ravel(), minlength=10))


def test_max_norm_clips_each_row():
    e = nn.EmbeddingLookup(10, 3, param_init=Tensor(TABLE), max_norm=1.0)
    rows = TABLE[IDS]
    norm = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(e(Tensor(IDS)).asnumpy(), rows * np.minimum(1 / norm, 1),
                               rtol=1e-6)


@pytest.mark.parametrize("operator", ["SUM", "MAX", "MEAN"])
def test_multi_field_lookup_combines_each_field(operator):
    m = nn.MultiFieldEmbeddingLookup(10, 3, field_size=3, param_init=Tensor(TABLE),
                                     operator=operator)
    out = m(Tensor(IDS), Tensor(VALUES), Tensor(FIELDS)).asnumpy()
    if operator == "MEAN":      # a field's sum over its summed |values|
        want = np.array([[R[1], (0.5 * R[5] - 2 * R[2]) / 2.5, R[7]],
                         [R[0], R[9], R[3]]], np.float32)
    else:
        want = np.array(WANT[operator], np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    padded = m(Tensor(IDS), Tensor(ZERO_FIELD), Tensor(FIELDS)).asnumpy()
    assert (padded[1] == 0).all() and (padded[0, 2] == 0).all()     # zero values are padding


def test_lookup_arguments_are_checked():
    with pytest.raises(ValueError, match="'target' must be one of"):
        nn.EmbeddingLookup(10, 3, target="GPU")
    with pytest.raises(ValueError, match="'sparse' must be True"):
        nn.EmbeddingLookup(10, 3, sparse=False)
    with pytest.raises(ValueError, match="'operator' must be one of"):
        nn.MultiFieldEmbeddingLookup(10, 3, 2, operator="MIN")
    with pytest.raises(ValueError, match="'slice_mode' must be one of"):
        nn.EmbeddingLookup(10, 3, slice_mode="rows")


def test_adam_offload_is_adam_and_no_init_parameters_keeps_values():
    ms.set_seed(0)
    a = nn.Dense(2, 2)
    ms.set_seed(0)
    with nn.no_init_parameters():
        b = nn.Dense(2, 2)
    np.testing.assert_array_equal(a.weight.asnumpy(), b.weight.asnumpy())
    assert nn.utils.no_init_parameters is nn.no_init_parameters
    x = Tensor(np.ones((3, 2), np.float32))
    steps = []
    for opt_cls, net in ((nn.Adam, a), (nn.AdamOffload, b)):
        opt = opt_cls(net.trainable_params(), learning_rate=0.1, weight_decay=0.01)
        grad_fn = ms.value_and_grad(lambda t: net(t).sum(), None, opt.parameters)
        for _ in range(3):
            opt(grad_fn(x)[1])
        steps.append(net.weight.asnumpy())
    np.testing.assert_array_equal(steps[0], steps[1])
