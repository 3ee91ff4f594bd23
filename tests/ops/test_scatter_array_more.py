"""The scatter families (tensor_scatter_mul/div/max/min, scatter_nd_*, scatter_mul/div/max/
min), inplace_* ops, block rearrangements, detection-box helpers and their primitive
classes: values and gradients probed on MindSpore 2.10, op-table checks."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, table_tests

X = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
IDX = np.array([[0, 0], [0, 0], [1, 2]], np.int32)
UPD = np.array([2., 3., 0.5], np.float32)
W = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)

# MindSpore 2.10 CPU: (output, grad of sum(out * W) w.r.t. x, w.r.t. updates)
PROBED = {
    "mul": ([[6, 2, 3], [4, 5, 3]], [[6, 2, 3], [4, 5, 3]], [1, 1, 36]),
    "div": ([[1 / 6, 2, 3], [4, 5, 12]], [[1 / 6, 2, 3], [4, 5, 12]], [-0.25, -1 / 9, -144]),
    "max": ([[3, 2, 3], [4, 5, 6]], [[0, 2, 3], [4, 5, 6]], [0, 1, 0]),
    "min": ([[1, 2, 3], [4, 5, 0.5]], [[1, 2, 3], [4, 5, 0]], [0, 0, 6]),
}


@pytest.mark.parametrize("op", sorted(PROBED))
def test_tensor_scatter_reduce_matches_mindspore(op):
    fn = getattr(ops, f"tensor_scatter_{op}")
    out, gx, gu = PROBED[op]
    x, idx, upd = ms.Tensor(X), ms.Tensor(IDX), ms.Tensor(UPD)
    np.testing.assert_allclose(fn(x, idx, upd).asnumpy(), out, rtol=1e-6)
    got = ops.grad(lambda a, u: (fn(a, idx, u) * ms.Tensor(W)).sum(), (0, 1))(x, upd)
    np.testing.assert_allclose(got[0].asnumpy(), gx, rtol=1e-6)
    np.testing.assert_allclose(got[1].asnumpy(), gu, rtol=1e-6)
    cls = getattr(ops, f"TensorScatter{op.capitalize()}")()
    np.testing.assert_array_equal(cls(x, idx, upd).asnumpy(), fn(x, idx, upd).asnumpy())
    nd = ms.Parameter(ms.Tensor(X), name="p")
    returned = getattr(ops, f"scatter_nd_{op}")(nd, idx, upd)
    np.testing.assert_allclose(nd.asnumpy(), out, rtol=1e-6)
    assert returned is nd


def test_scatter_nd_add_sub_update_are_in_place():
    for name, want in (("add", [[6, 2, 3], [4, 5, 6.5]]), ("sub", [[-4, 2, 3], [4, 5, 5.5]]),
                       ("update", [[3, 2, 3], [4, 5, 0.5]])):
        p = ms.Parameter(ms.Tensor(X), name="p")
        getattr(ops, f"scatter_nd_{name}")(p, ms.Tensor(IDX), ms.Tensor(UPD))
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6, err_msg=name)
    p = ms.Parameter(ms.Tensor(X), name="p")
    ops.ScatterNdAdd(True)(p, ms.Tensor(IDX), ms.Tensor(UPD))
    np.testing.assert_allclose(p.asnumpy(), [[6, 2, 3], [4, 5, 6.5]])


def test_row_scatters_match_mindspore():
    rows = ms.Tensor(np.array([0, 0], np.int32))
    upd = ms.Tensor(np.array([[2., 2., 2.], [3., 0.5, 1.]], np.float32))
    for name, want in (("mul", [[6, 2, 6], [4, 5, 6]]), ("div", [[1 / 6, 2, 1.5], [4, 5, 6]]),
                       ("max", [[3, 2, 3], [4, 5, 6]]), ("min", [[1, 0.5, 1], [4, 5, 6]])):
        p = ms.Parameter(ms.Tensor(X), name="p")
        out = getattr(ops, f"scatter_{name}")(p, rows, upd)
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-6, err_msg=name)
    p = ms.Parameter(ms.Tensor(X), name="p")
    ops.ScatterSub()(p, ms.Tensor(np.array([1], np.int32)), ms.Tensor([[1., 1., 1.]]))
    assert p.asnumpy().tolist() == [[1, 2, 3], [3, 4, 5]]


def test_scatter_reduce_bad_input():
    with pytest.raises(ValueError, match="updates_shape"):
        ops.tensor_scatter_mul(ms.Tensor(X), ms.Tensor(IDX), ms.Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="dtype"):
        ops.tensor_scatter_max(ms.Tensor(X), ms.Tensor(IDX), ms.Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="range"):
        ops.tensor_scatter_min(ms.Tensor(X), ms.Tensor(np.array([[5, 0]], np.int32)),
                               ms.Tensor(np.ones(1, np.float32)))


def test_inplace_ops_match_mindspore():
    x = ms.Tensor(np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32))
    v = ms.Tensor(np.array([[0.5, 1.], [2., 3.]], np.float32))
    assert ops.inplace_add(x, v, (0, 2)).asnumpy().tolist() == [[1.5, 3], [3, 4], [7, 9]]
    assert x.asnumpy().tolist() == [[1, 2], [3, 4], [5, 6]]          # not in place
    assert ops.inplace_sub(x, v, (0, 2)).asnumpy().tolist() == [[0.5, 1], [3, 4], [3, 3]]
    out = ops.inplace_update(x, v, ms.Tensor([0, 2], ms.int32))
    assert out.asnumpy().tolist() == [[0.5, 1], [3, 4], [2, 3]]
    assert ops.InplaceUpdateV2()(x, (0, 2), v).asnumpy().tolist() == out.asnumpy().tolist()
    assert ops.InplaceAdd((0, 2))(x, v).asnumpy().tolist() == [[1.5, 3], [3, 4], [7, 9]]
    p = ms.Parameter(ms.Tensor(x), name="p")
    ops.InplaceIndexAdd(0)(p, ms.Tensor([0, 2], ms.int32), v)
    assert p.asnumpy().tolist() == [[1.5, 3], [3, 4], [7, 9]]
    with pytest.raises(ValueError, match="shape"):
        ops.inplace_add(x, v, 1)


def test_block_rearrangements_match_mindspore():
    x = ms.Tensor(np.arange(6.).reshape(1, 1, 2, 3).astype(np.float32))
    out = ops.space_to_batch_nd(x, (2, 2), ((0, 0), (0, 1)))
    assert out.asnumpy().tolist() == [[[[0, 2]]], [[[1, 0]]], [[[3, 5]]], [[[4, 0]]]]
    back = ops.batch_to_space_nd(out, (2, 2), ((0, 0), (0, 1)))
    np.testing.assert_array_equal(back.asnumpy(), x.asnumpy())
    out = ops.batch_to_space_nd(ms.Tensor(np.arange(12.).reshape(4, 1, 1, 3).astype(np.float32)),
                                (2, 2), ((0, 0), (0, 1)))
    assert out.asnumpy().tolist() == [[[[0, 3, 1, 4, 2], [6, 9, 7, 10, 8]]]]
    d = ops.DepthToSpace(2)(ms.Tensor(np.arange(8.).reshape(1, 4, 1, 2).astype(np.float32)))
    assert d.asnumpy().tolist() == [[[[0, 2, 1, 3], [4, 6, 5, 7]]]]
    s = ops.SpaceToDepth(2)(ms.Tensor(np.arange(8.).reshape(1, 1, 2, 4).astype(np.float32)))
    assert s.asnumpy().tolist() == [[[[0, 2]], [[1, 3]], [[4, 6]], [[5, 7]]]]
    np.testing.assert_array_equal(ops.SpaceToDepth(2)(d).asnumpy(),
                                  np.arange(8.).reshape(1, 4, 1, 2))
    out = ops.reverse_sequence(ms.Tensor(np.arange(9.).reshape(3, 3).astype(np.float32)),
                               ms.Tensor([1, 2, 3], ms.int32), 1)
    assert out.asnumpy().tolist() == [[0, 1, 2], [4, 3, 5], [8, 7, 6]]


def test_searches_norms_and_medians_match_mindspore():
    s, v = ms.Tensor([[1., 3., 5.]]), ms.Tensor([[0., 3., 6.]])
    out = ops.LowerBound()(s, v)
    assert out.dtype == ms.int32 and out.asnumpy().tolist() == [[0, 1, 3]]
    assert ops.UpperBound()(s, v).asnumpy().tolist() == [[0, 2, 3]]
    assert ops.SearchSorted()(s, v).dtype == ms.int64
    m = ms.Tensor([[3., 4.], [6., 8.]])
    assert ops.LpNorm(1, 1)(m).asnumpy().tolist() == [7, 14]
    np.testing.assert_allclose(ops.LpNorm([0, 1], 2, True)(m).asnumpy(), [[11.18034]], rtol=1e-6)
    assert ops.EuclideanNorm()(m, ms.Tensor([1])).asnumpy().tolist() == [5, 10]
    values, idx = ops.Median(False, 1)(ms.Tensor([[3., 1., 2.], [6., 8., 7.]]))
    assert values.asnumpy().tolist() == [2, 7] and idx.asnumpy().tolist() == [2, 2]
    values, _ = ops.Median(True)(ms.Tensor([[3., 1., 2.], [6., 8., 7.]]))
    assert values.asnumpy() == 3
    a, b = ops.IdentityN()([ms.Tensor([1.]), ms.Tensor([2])])
    assert b.dtype == ms.int64
    out = ops.CumulativeLogsumexp()(ms.Tensor([1., 2., 3.]), ms.Tensor(0))
    np.testing.assert_allclose(out.asnumpy(), [1, 2.31326, 3.40761], rtol=1e-5)
    out = ops.CumulativeLogsumexp(True, True)(ms.Tensor([1., 2., 3.]), ms.Tensor(0))
    np.testing.assert_allclose(out.asnumpy()[:2], [3.3132617, 3.0], rtol=1e-6)
    assert out.asnumpy()[2] == np.finfo(np.float32).min
    assert ops.eps(ms.Tensor(np.array([1.], np.float16))).asnumpy()[0] == np.float16(2 ** -10)
    x = ms.Tensor([[1., 8., 5.], [7., 2., 9.]])
    t = ms.Tensor([1, 0], ms.int32)
    assert ops.intopk(x, t, 1).asnumpy().tolist() == [True, False]
    assert ops.InTopK(2)(x, t).asnumpy().tolist() == [True, True]


def test_box_helpers_match_mindspore():
    out = ops.iou(ms.Tensor([[0., 0., 2., 2.], [1., 1., 3., 3.]]),
                  ms.Tensor([[0., 0., 2., 2.], [0., 0., 1., 1.], [2., 2., 4., 4.]]))
    np.testing.assert_allclose(out.asnumpy(), [[1, 0.28571], [0.44444, 0.08333],
                                               [0.05882, 0.28571]], atol=1e-5)
    assert ops.IOU("iof")(ms.Tensor([[0., 0., 2., 2.]]),
                          ms.Tensor([[0., 0., 1., 1.]])).asnumpy().tolist() == [[1.0]]
    enc = ops.bounding_box_encode(ms.Tensor([[2., 2., 2., 3.]]), ms.Tensor([[1., 2., 1., 4.]]))
    np.testing.assert_allclose(enc.asnumpy(), [[-1, 0.25, 0, 0.405465]], atol=1e-6)
    dec = ops.BoundingBoxDecode((4, 4))(ms.Tensor([[4., 1., 2., 1.], [2., 2., 2., 3.]]),
                                        ms.Tensor([[3., 1., 2., 2.], [1., 2., 1., 4.]]))
    np.testing.assert_allclose(dec.asnumpy(), [[4, 0, 0, 4], [2.14086, 0, 3.85914, 4]],
                               atol=1e-5)
    boxes = ms.Tensor([[20., 5., 40., 60.], [-10., 2., 15., 20.], [0., 0., 1279., 767.],
                       [0., 0., 1280., 767.], [0., 0., 1279., 768.]])
    assert ops.check_valid(boxes, ms.Tensor([768., 1280., 1.])).asnumpy().tolist() == [
        True, False, True, False, False]
    assert ops.CheckValid()(ms.Tensor([[0., 0., 639., 383.], [0., 0., 640., 383.]]),
                            ms.Tensor([768., 1280., 0.5])).asnumpy().tolist() == [True, False]


def _distinct_rows(r):
    return np.array([[0, 1], [1, 2], [0, 0]], np.int64)


CASES = [
    OpCase("tensor_scatter_mul", lambda x, u: ops.tensor_scatter_mul(x, ms.Tensor(
        _distinct_rows(None)), u), None, [(2, 3), (3,)]),
    OpCase("tensor_scatter_div", lambda x, u: ops.tensor_scatter_div(x, ms.Tensor(
        _distinct_rows(None)), u), None, [(2, 3), lambda r: r.uniform(0.5, 2, 3)]),
    OpCase("tensor_scatter_max", lambda x, u: ops.tensor_scatter_max(x, ms.Tensor(
        _distinct_rows(None)), u), None, [(2, 3), (3,)]),
    OpCase("tensor_scatter_min-slices", lambda x, u: ops.tensor_scatter_min(
        x, ms.Tensor(np.array([[1], [0]])), u), None, [(2, 3), (2, 3)]),
    OpCase("inplace_add", lambda x, v: ops.inplace_add(x, v, (0, 2)), None, [(3, 2), (2, 2)]),
    OpCase("reverse_sequence", lambda x: ops.reverse_sequence(
        x, ms.Tensor(np.array([2, 0, 3])), 0, 1), None, [(4, 3)]),
    OpCase("space_to_batch_nd", lambda x: ops.space_to_batch_nd(x, (2, 1), ((1, 1), (0, 0))),
           None, [(1, 2, 2, 3)]),
    OpCase("batch_to_space_nd", lambda x: ops.batch_to_space_nd(x, (2, 2), ((0, 1), (1, 0))),
           None, [(4, 1, 2, 2)]),
    OpCase("iou", lambda a, g: ops.iou(a, g), None,
           [lambda r: np.sort(r.uniform(0, 4, (3, 2, 2)), 1).reshape(3, 4)[:, [0, 2, 1, 3]],
            lambda r: np.sort(r.uniform(0, 4, (2, 2, 2)), 1).reshape(2, 4)[:, [0, 2, 1, 3]]],
           grad=False),
    OpCase("bounding_box_encode", lambda a, g: ops.bounding_box_encode(a, g), None,
           [lambda r: np.concatenate([r.uniform(0, 2, (3, 2)), r.uniform(3, 5, (3, 2))], 1),
            lambda r: np.concatenate([r.uniform(0, 2, (3, 2)), r.uniform(3, 5, (3, 2))], 1)]),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)
