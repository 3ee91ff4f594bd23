"""Primitive classes of spore/ops/operations/_more_prims.py and the ops functions of
spore/ops/_surface.py: values probed from MindSpore 2.10 or NumPy's."""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor


def T(a, dtype=None):
    return Tensor(np.asarray(a), dtype)


def test_values_probed_from_mindspore():
    assert ops.Xdivy()(T([0.0, 2.0]), T([0.0, 4.0])).asnumpy().tolist() == [0.0, 0.5]
    assert ops.Rint()(T([0.5, 1.5, -2.5])).asnumpy().tolist() == [0.0, 2.0, -2.0]
    assert ops.MulNoNan()(T([np.inf, 2.0]), T([0.0, 4.0])).asnumpy().tolist() == [0.0, 8.0]
    assert ops.DivNoNan()(T([1.0, 2.0]), T([0.0, 4.0])).asnumpy().tolist() == [0.0, 0.5]
    assert ops.Cross()(T([[1.0, 0, 0]]), T([[0.0, 1, 0]])).asnumpy().tolist() == [[0, 0, 1]]
    values, indices = ops.Cummax(0)(T([1.0, 3.0, 2.0]))
    assert values.asnumpy().tolist() == [1, 3, 3] and indices.asnumpy().tolist() == [0, 1, 1]
    assert ops.Pack(1)([T([1, 2]), T([3, 4])]).asnumpy().tolist() == [[1, 3], [2, 4]]
    assert [t.asnumpy().tolist() for t in ops.Unpack(0)(T([[1, 2], [3, 4]]))] == [[1, 2], [3, 4]]
    assert ops.ReverseV2([0])(T([1, 2, 3])).asnumpy().tolist() == [3, 2, 1]
    assert ops.MatrixPower(2)(T([[[1.0, 1.0], [0.0, 1.0]]])).asnumpy().tolist() == \
        [[[1, 2], [0, 1]]]
    assert ops.Slice()(T([[1, 2, 3], [4, 5, 6]]), (0, 1), (2, 2)).asnumpy().tolist() == \
        [[2, 3], [5, 6]]
    a, b = ops.SquareSumAll()(T([1.0, 2.0]), T([3.0, 4.0]))
    assert (a.asnumpy(), b.asnumpy()) == (5.0, 25.0)
    assert ops.EqualCount()(T([1, 2, 3]), T([1, 0, 3])).asnumpy().tolist() == [2]
    assert ops.CountNonZero([1])(T([[0, 1], [2, 3]])).asnumpy().tolist() == [1, 2]
    assert ops.bucketize(T([1.0, 5.0, 3.0]), [2.0, 4.0]).asnumpy().tolist() == [0, 2, 1]
    assert ops.bucketize(T([1.0, 5.0, 3.0]), [2.0, 4.0]).dtype == ms.int32


def test_attribute_classes_forward_to_the_functional_ops():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.Cdist(1.0)(T(x), T(x)).asnumpy(),
                               np.abs(x[:, None] - x[None]).sum(-1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ops.CeLU(2.0)(T(x)).asnumpy(),
                               np.where(x > 0, x, 2 * np.expm1(x / 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.HShrink(0.5)(T(x)).asnumpy(),
                               np.where(np.abs(x) > 0.5, x, 0))
    np.testing.assert_allclose(ops.GLU()(T(x)).asnumpy(), x[:, :2] / (1 + np.exp(-x[:, 2:])),
                               rtol=1e-5)
    np.testing.assert_allclose(ops.Tril(-1)(T(x)).asnumpy(), np.tril(x, -1))
    np.testing.assert_allclose(ops.Triu(1)(T(x)).asnumpy(), np.triu(x, 1))
    assert ops.IsClose(atol=10.0)(T(x), T(x + 1)).asnumpy().all()
    rows, cols = ops.TrilIndices(3, 3)().asnumpy()
    assert (rows.tolist(), cols.tolist()) == tuple(map(list, np.tril_indices(3)))
    np.testing.assert_allclose(ops.LogSpace(3, 2)(T(0.0), T(2.0)).asnumpy(), [1, 2, 4])
    std, mean = ops.ReduceStd((1,))(T(x))
    np.testing.assert_allclose(std.asnumpy(), x.std(1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), x.mean(1), rtol=1e-5)
    np.testing.assert_allclose(ops.Pdist()(T(x)).asnumpy(),
                               [np.linalg.norm(x[i] - x[j]) for i in range(3)
                                for j in range(i + 1, 3)], rtol=1e-5)
    assert ops.Multinomial()(T([[0.0, 1.0]]), 3).asnumpy().tolist() == [[1, 1, 1]]
    with pytest.raises(TypeError, match="Cummax"):
        ops.Cummax()


def test_losses():
    logp = np.log(np.full((2, 3), 1 / 3, np.float32))
    loss, total = ops.NLLLoss()(T(logp), T(np.array([0, 2], np.int32)),
                                T(np.ones(3, np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), np.log(3), rtol=1e-6)
    assert total.asnumpy() == 2
    a, p, n = (T(np.full((2, 3), v, np.float32)) for v in (0.0, 1.0, 3.0))
    out = ops.TripletMarginLoss()(a, p, n, T(1.0))
    np.testing.assert_allclose(out.asnumpy(), max(np.sqrt(3) - np.sqrt(27) + 1, 0), atol=1e-5)
    with pytest.raises(TypeError, match="TripletMarginLoss"):
        ops.TripletMarginLoss()(a, p, n, "abc")


def test_functional_twins_of_mint():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_allclose(ops.diff(T(x), axis=0).asnumpy(), np.diff(x, axis=0))
    np.testing.assert_allclose(ops.glu(T(x), 1).asnumpy(), x[:, :2] / (1 + np.exp(-x[:, 2:])),
                               rtol=1e-5)
    np.testing.assert_allclose(ops.prelu(T(x - 6), T(np.array([0.5], np.float32))).asnumpy(),
                               np.where(x > 6, x - 6, 0.5 * (x - 6)))
    assert ops.searchsorted(T([1.0, 2.0, 3.0]), T([2.5])).asnumpy().tolist() == [2]
    np.testing.assert_allclose(ops.histc(T([1.0, 2.0, 1.0]), bins=4, min=0, max=3).asnumpy(),
                               [0, 2, 1, 0])                 # MindSpore 2.10's result
    assert ops.Tensor is ms.Tensor
    with pytest.raises(ValueError, match="glu"):
        ops.glu(T(np.ones((2, 3), np.float32)))
    with pytest.raises(TypeError, match="diff"):
        ops.diff([1, 2])
    with pytest.raises(ValueError, match="histc"):
        ops.histc(T(x), bins=0)
