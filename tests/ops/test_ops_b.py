"""Issue #17, mindspore.ops names I-Z and lowercase functions (spore/ops/_ops_b.py and
operations/_ops_b_classes.py): values probed on MindSpore 2.10's CPU build, or taken from
its documentation where that build has no kernel (SplitV, LerpScalar, the *_ext ops, the
in-place random fillers, MoveTo)."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from spore import Tensor
from tests.helpers.optable import OpCase, table_tests


def _v(t):
    return t.asnumpy().tolist()


X = Tensor(np.arange(24).reshape(2, 3, 4).astype(np.float32))


# ----------------------------------------------------------------- differentiable adapters
def _bidense_ref(a, b, w, bias):
    return np.einsum("ni,oij,nj->no", a, w, b) + bias


CASES = [
    OpCase("bidense", lambda a, b, w, c: ops.bidense(a, b, w, c), _bidense_ref,
           [(2, 3), (2, 4), (5, 3, 4), (5,)]),
    OpCase("PadV3-constant", lambda x: ops.PadV3()(x, (1, 2, 0, 1), 9.0),
           lambda x: np.pad(x, ((0, 1), (1, 2)), constant_values=9.0), (2, 3)),
    OpCase("PadV3-reflect", lambda x: ops.PadV3("reflect")(x, (2, 1)),
           lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1)), mode="reflect"), (1, 2, 4)),
    OpCase("PadV3-edge", lambda x: ops.PadV3("edge")(x, (1, 0, 2, 1)),
           lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1), (1, 0)), mode="edge"), (1, 2, 3, 3)),
    OpCase("SplitV", lambda x: ops.SplitV((1, -1, 2), 1, 3)(x),
           lambda x: tuple(np.split(x, [1, 3], 1)), (2, 5)),
    OpCase("StridedSlice", lambda x: ops.StridedSlice(1, 2, 0, 0, 4)(x, (0, 0, 1), (2, 2, 2),
                                                                  (1, 1, 1)),
           lambda x: x[:, :, 1], (2, 3, 4)),
    OpCase("ScatterAddWithAxis", lambda x, u: ops.ScatterAddWithAxis(1)(
        x, Tensor(np.array([[0, 2], [1, 1]], np.int32)), u),
        lambda x, u: x + np.array([[u[0, 0], 0, u[0, 1]], [0, u[1].sum(), 0]]), [(2, 3), (2, 2)]),
    OpCase("cond-fro", lambda a: ops.cond(a, "fro"),
           lambda a: np.linalg.cond(a, "fro"), [lambda r: r.normal(size=(3, 3)) + 3 * np.eye(3)],
           rtol=1e-4, grad_rtol=1e-3),
    OpCase("cond-2", lambda a: ops.cond(a), lambda a: np.linalg.cond(a),
           [lambda r: r.normal(size=(2, 3, 3)) + 3 * np.eye(3)], rtol=1e-4, grad_rtol=1e-3),
    OpCase("sparse_segment_mean", lambda x: ops.sparse_segment_mean(
        x, Tensor(np.array([0, 1, 2], np.int32)), Tensor(np.array([1, 2, 2], np.int32))),
        lambda x: np.stack([np.zeros(3, x.dtype), x[0], (x[1] + x[2]) / 2]), (3, 3)),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


# ----------------------------------------------------------------- probed values
def test_strided_slice_class_masks_match_mindspore():
    out = ops.StridedSlice(1, 2, 0, 0, 4)(X, (0, 0, 1), (2, 2, 2), (1, 1, 1))
    assert out.shape == (2, 3) and _v(out) == [[1, 5, 9], [13, 17, 21]]
    # new axis at entry 0, shrink entry 1 (TensorFlow's semantics)
    out = ops.StridedSlice(0, 0, 0, 1, 2)(Tensor(np.arange(24).reshape(2, 3, 4)),
                                           (0, 1, 0), (1, 2, 3), (1, 1, 1))
    assert out.shape == (1, 3, 4) and _v(out)[0][0] == [12, 13, 14, 15]
    with pytest.raises(ValueError, match="ellipsis_mask"):
        ops.StridedSlice(ellipsis_mask=3)
    with pytest.raises(TypeError, match="begin_mask"):
        ops.StridedSlice(begin_mask=1.0)


def test_split_v_sizes_and_errors():
    a, b, c = ops.SplitV((1, -1, 2), 2, 3)(X)
    assert (a.shape, b.shape, c.shape) == ((2, 3, 1), (2, 3, 1), (2, 3, 2))
    assert _v(c[0, 0]) == [2, 3]
    with pytest.raises(ValueError, match="num_split"):
        ops.SplitV((1, 2), 0, 3)
    with pytest.raises(ValueError, match="sum to"):
        ops.SplitV((1, 2), 0, 2)(X)


def test_pad_v3_matches_mindspore():
    x = Tensor(np.arange(6).reshape(2, 3).astype(np.float32))
    assert _v(ops.PadV3()(x, Tensor([1, 2, 0, 1]), Tensor(9.))) == [
        [9, 0, 1, 2, 9, 9], [9, 3, 4, 5, 9, 9], [9, 9, 9, 9, 9, 9]]
    out = ops.PadV3(paddings_contiguous=False)(x, Tensor([1, 2, 0, 1]), Tensor(9.))
    assert out.shape == (5, 4) and _v(out)[2] == [9, 0, 1, 2]
    x3 = Tensor(np.arange(6).reshape(1, 2, 3).astype(np.float32))
    assert _v(ops.PadV3("reflect")(x3, Tensor([1, 1]), None))[0][0] == [1, 0, 1, 2, 1]
    assert _v(ops.PadV3("edge")(x3, Tensor([2, 1]), None))[0][0] == [0, 0, 0, 1, 2, 2]
    assert _v(ops.PadV3("circular")(x3, Tensor([2, 1]), None))[0][0] == [1, 2, 0, 1, 2, 0]
    assert _v(ops.PadV3()(Tensor([1., 2, 3, 4]), Tensor([-1, 1]), Tensor(5.))) == [2, 3, 4, 5]
    assert _v(ops.PadV3()(Tensor([1, 2]), Tensor([1, 1]), Tensor(5))) == [5, 1, 2, 5]
    with pytest.raises(ValueError, match="must be equal to 4, but got 3"):
        ops.PadV3("edge")(x3, Tensor([1, 1, 1, 0]), None)
    with pytest.raises(ValueError, match="greater than or equal to 3"):
        ops.PadV3("reflect")(x, Tensor([1, 1]), None)
    with pytest.raises(ValueError, match="less than or equal to 4"):
        ops.PadV3("reflect")(Tensor(np.zeros((1, 1, 2, 2, 2), np.float32)), (1,) * 6, None)
    with pytest.raises(ValueError, match="mode"):
        ops.PadV3("symmetric")


def test_small_primitive_classes_match_mindspore():
    assert _v(ops.LerpScalar()(X, X * 2, 0.5))[0][0] == [0, 1.5, 3, 4.5]
    assert _v(ops.MaskedScatter()(Tensor([1., 2, 3]), Tensor([True, False, True]),
                                  Tensor([7., 8, 9]))) == [7, 2, 8]
    out = ops.ScatterAddWithAxis(-1)(Tensor(np.ones((2, 3), np.float32)),
                                     Tensor([[0, -1], [1, 1]]),
                                     Tensor(np.full((2, 2), 5, np.float32)))
    assert _v(out) == [[6, 1, 6], [1, 11, 1]]
    assert ops.TransposeView()(X, (2, 0, 1)).shape == (4, 2, 3)
    assert ops.TransposeExtView()(X, 0, 2).shape == (4, 3, 2)
    assert _v(ops.SelectView()(X, 1, 2)) == [[8, 9, 10, 11], [20, 21, 22, 23]]
    assert ops.TensorToTuple()(Tensor([1, 2, 3])) == (1, 2, 3)
    with pytest.raises(ValueError, match="rank"):
        ops.TensorToTuple()(X)
    out = ops.ParallelConcat()((Tensor([[1, 2]]), Tensor([[3, 4]])))
    assert out.dtype == ms.int64 and _v(out) == [[1, 2], [3, 4]]
    with pytest.raises(ValueError, match="first dimension 1"):
        ops.ParallelConcat()((Tensor([1, 2]), Tensor([3, 4])))
    assert _v(ops.SparseGatherV2()(Tensor([[1., 2, 3], [4, 5, 6]]), Tensor([1, 0, 1]), 1)) == [
        [2, 1, 2], [5, 4, 5]]
    out = ops.MapUniform()(Tensor(np.arange(8)), 4, 2)
    assert _v(out) == [0, 4, 1, 5, 2, 6, 3, 7]


def test_unique_with_pad_and_list_diff_match_mindspore():
    y, idx = ops.unique_with_pad(Tensor([5, 1, 5, 3, 1]), -1)
    assert _v(y) == [5, 1, 3, -1, -1] and _v(idx) == [0, 1, 0, 2, 1] and idx.dtype == ms.int64
    y, idx = ops.UniqueWithPad()(Tensor([1., 1, 2]), 0.)
    assert y.dtype == ms.float32 and idx.dtype == ms.int32 and _v(y) == [1, 2, 0]
    out, idx = ops.ListDiff()(Tensor([1, 2, 3, 4, 5, 6]), Tensor([1, 3, 5]))
    assert _v(out) == [2, 4, 6] and _v(idx) == [1, 3, 5] and idx.dtype == ms.int32
    assert ops.ListDiff(ms.int64)(Tensor([1, 2]), Tensor([2]))[1].dtype == ms.int64
    with pytest.raises(TypeError, match="out_idx"):
        ops.ListDiff(ms.float32)


def test_ragged_range_sparse_slice_and_dense_add_match_mindspore():
    splits, values = ops.RaggedRange(ms.int64)(Tensor([2, 5, 8]), Tensor([3, 5, 12]),
                                               Tensor([1, 1, 1]))
    assert _v(splits) == [0, 1, 1, 5] and _v(values) == [2, 8, 9, 10, 11]
    splits, values = ops.RaggedRange(ms.int32)(Tensor([2., 5, 8]), Tensor([3., 5, 12]),
                                               Tensor([1., 1, 1.5]))
    assert splits.dtype == ms.int32 and values.dtype == ms.float32
    assert _v(splits) == [0, 1, 1, 4] and _v(values) == [2, 8, 9.5, 11]
    with pytest.raises(ValueError, match="same shape"):
        ops.RaggedRange(ms.int32)(Tensor(2), Tensor([3, 5]), Tensor(1))
    i64 = ms.int64
    idx, val, shape = ops.SparseSlice()(
        Tensor([[0, 1], [1, 2], [1, 3], [2, 2]], i64), Tensor([1, 2, 3, 4], i64),
        Tensor([3, 4], i64), Tensor([0, 1], i64), Tensor([2, 3], i64))
    assert _v(idx) == [[0, 0], [1, 1], [1, 2]] and _v(val) == [1, 2, 3] and _v(shape) == [2, 3]
    out = ops.SparseTensorDenseAdd()(Tensor([[0, 0], [1, 1]]), Tensor([1., 2]), Tensor([2, 2]),
                                     Tensor(np.ones((2, 2), np.float32)))
    assert _v(out) == [[2, 1], [1, 3]]
    with pytest.raises(ValueError, match="x1_shape"):
        ops.SparseTensorDenseAdd()(Tensor([[0, 0]]), Tensor([1.]), Tensor([3, 3]),
                                   Tensor(np.ones((2, 2), np.float32)))
    res, where = ops.SubAndFilter()(Tensor(np.array([1, 3, 5, 8, 9, 16]), ms.int32), 10, 5)
    assert _v(res) == [0, 3, 4] and _v(where) == [2, 3, 4] and res.dtype == ms.int32


def test_value_dependent_primitives_fall_back_under_jit():
    @ms.jit
    def f(x, y):
        return ops.ListDiff()(x, y)[0]
    with pytest.warns(RuntimeWarning, match="dynamic shape"):
        assert _v(f(Tensor([1, 2, 3]), Tensor([2]))) == [1, 3]


def test_sparse_segment_mean_matches_mindspore():
    out = ops.sparse_segment_mean(Tensor([[0, 1, 2], [1, 2, 3], [3, 6, 7]], ms.float32),
                                  Tensor([0, 1, 2], ms.int32), Tensor([1, 2, 2], ms.int32))
    assert _v(out) == [[0, 0, 0], [0, 1, 2], [2, 4, 5]]
    with pytest.raises(ValueError, match="sorted"):
        ops.sparse_segment_mean(Tensor([[1.], [2.]]), Tensor([0, 1]), Tensor([1, 0]))


def test_ext_spellings_forward_to_the_ops():
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2), np.float32))
    assert _v(ops.einsum_ext("ij,jk->ik", a, b)) == [[3, 3], [3, 3]]
    out = ops.baddbmm_ext(Tensor(np.ones((1, 2, 2), np.float32)), a[None], b[None], beta=2,
                          alpha=0.5)
    assert _v(out) == [[[3.5, 3.5], [3.5, 3.5]]]
    with pytest.raises(TypeError):
        ops.baddbmm_ext(a, a, b, 2)          # beta and alpha are keyword-only
    assert _v(ops.isnan_ext(Tensor([1., float("nan")]))) == [False, True]
    out = ops.diff_ext(Tensor([1, 3, 6, 10]), 2)
    assert out.dtype == ms.int64 and _v(out) == [1, 1]
    out = ops.adaptive_avg_pool2d_ext(Tensor(np.arange(16.).reshape(1, 4, 4).astype(np.float32)),
                                      (2, None))
    assert _v(out) == [[[2, 3, 4, 5], [10, 11, 12, 13]]]


def test_bidense_and_cond_match_mindspore():
    out = ops.bidense(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 4), np.float32)),
                      Tensor(np.ones((5, 3, 4), np.float32)), Tensor(np.ones(5, np.float32)))
    assert out.shape == (2, 5) and _v(out)[0] == [13] * 5
    with pytest.raises(ValueError, match="weight"):
        ops.bidense(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 4), np.float32)),
                    Tensor(np.ones((5, 4, 3), np.float32)))
    a = Tensor([[1., 2], [3, 4]])
    for p, want in [(None, 14.933031), ("fro", 15.000001), (float("inf"), 21.), (1, 21.),
                    (-2, 0.06696561), ("nuc", 17.)]:
        np.testing.assert_allclose(ops.cond(a, p).asnumpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="'p'"):
        ops.cond(a, 3)
    with pytest.raises(ValueError, match="square"):
        ops.cond(Tensor(np.ones((2, 3), np.float32)))


# ----------------------------------------------------------------- in-place random fillers
@pytest.mark.parametrize("name,args", [("normal_", (1., 2.)), ("uniform_", (1., 2.)),
                                       ("exponential_", (2.,)), ("random_", (3, 7)),
                                       ("bernoulli_", (0.5,))])
def test_in_place_random_fillers_write_the_input_and_follow_the_seed(name, args):
    fn = getattr(ops, name)
    t = Tensor(np.zeros(1000, np.float32))
    ms.set_seed(3)
    out = fn(t, *args)
    assert out is t
    first = t.asnumpy().copy()
    ms.set_seed(3)
    fn(t, *args)
    np.testing.assert_array_equal(t.asnumpy(), first)
    g1, g2 = ms.Generator().manual_seed(5), ms.Generator().manual_seed(5)
    a, b = Tensor(np.zeros(50, np.float32)), Tensor(np.zeros(50, np.float32))
    fn(a, *args, generator=g1)
    fn(b, *args, generator=g2)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_in_place_random_fillers_have_the_documented_distributions():
    ms.set_seed(0)
    t = Tensor(np.zeros(20000, np.float32))
    v = ops.normal_(t, 1., 2.).asnumpy()
    assert abs(v.mean() - 1) < 0.05 and abs(v.std() - 2) < 0.05
    v = ops.uniform_(t, 1., 2.).asnumpy()
    assert v.min() >= 1 and v.max() < 2 and abs(v.mean() - 1.5) < 0.02
    v = ops.exponential_(t, 2.).asnumpy()
    assert v.min() >= 0 and abs(v.mean() - 0.5) < 0.02
    v = ops.random_(t, 3, 7).asnumpy()
    assert set(np.unique(v).tolist()) == {3, 4, 5, 6}
    v = ops.bernoulli_(t, 0.25).asnumpy()
    assert set(np.unique(v).tolist()) == {0, 1} and abs(v.mean() - 0.25) < 0.02
    v = ops.bernoulli_ext(Tensor(np.full(20000, 0.75, np.float32))).asnumpy()
    assert abs(v.mean() - 0.75) < 0.02
    ti = Tensor(np.zeros(10, np.int32))
    assert ops.uniform_(ti, 0, 5).dtype == ms.int32
    with pytest.raises(ValueError, match="lambd"):
        ops.exponential_(t, 0)
    with pytest.raises(ValueError, match="from_"):
        ops.uniform_(t, 2, 1)
    with pytest.raises(TypeError, match="input"):
        ops.normal_([1.0])


def test_inplace_sigmoid_and_stop_gradient_():
    t = Tensor([0., 1.])
    assert ops.inplace_sigmoid(t) is t
    np.testing.assert_allclose(t.asnumpy(), [0.5, 0.7310586], rtol=1e-6)

    def f(x):
        y = x * 2
        z = x * 2
        ops.stop_gradient_(z)
        return (y * 3 + z * 5).sum()
    assert _v(ms.grad(f)(Tensor([1., 2.]))) == [6, 6]
    assert ops.stop_gradient_(Tensor([1.])) is None


# ----------------------------------------------------------------- conversions and helpers
def test_conversions_move_to_and_merge():
    out = ops.scalar_to_array(2)
    assert out.dtype == ms.float32 and out.shape == () and out.asnumpy() == 2
    assert ops.ScalarToArray()(True).dtype == ms.float32
    y = ops.move_to(X, "CPU")
    assert y is not X and _v(y) == _v(X)
    assert _v(ops.MoveTo()([1, 2, 3])) == [1, 2, 3]
    with pytest.raises(ValueError, match="CPU"):
        ops.move_to(X, "Ascend")
    with pytest.raises(ValueError, match="'to'"):
        ops.move_to(X, "GPU")
    data, index = ops.merge((Tensor([1.]), Tensor([2.])))
    assert _v(data) == [1] and index.dtype == ms.int32 and index.asnumpy() == 0
    assert _v(ops.Merge()([Tensor([3.])])[0]) == [3]
    with pytest.raises(TypeError, match="tuple or list"):
        ops.Merge()(Tensor([1.]))


def test_functional_helpers():
    assert ops.tail((1, 2, 3)) == (2, 3) and ops.tail([1]) == []
    with pytest.raises(TypeError):
        ops.tail(3)
    x = Tensor(np.arange(24).reshape(2, 3, 4).astype(np.float32))
    assert _v(ops.array_reduce(ops.add, x, (1,))) == _v(x.sum(1))
    assert _v(ops.array_reduce(ops.maximum, x, (0, 2))) == _v(x.max(axis=(0, 2)))

    def f(a):
        return a
    assert ops.add_flags(f, predict=True) is f and f._func_graph_flags == {"predict": True}
    assert ops.add_flags(no_inline=True)(f)._func_graph_flags == {"predict": True,
                                                                  "no_inline": True}
    with pytest.raises(TypeError, match="bool"):
        ops.add_flags(f, x=1)
    add = ops.Partial()(lambda a, b, c: (a, b, c), 1)
    assert add(2, 3) == (1, 2, 3)

    def g(x):
        return x
    assert ops.Reusing()(g)._func_graph_flags == {"no_inline": True}


# ----------------------------------------------------------------- RowTensor helpers, modules
def test_row_tensor_helpers():
    rt = ms.RowTensor(Tensor([0, 2]), Tensor([[1., 2], [3, 4]]), (3, 2))
    assert ops.row_tensor_get_values(rt) is rt.values
    assert _v(ops.row_tensor_get_indices(rt)) == [0, 2]
    assert tuple(ops.row_tensor_get_dense_shape(rt)) == (3, 2)
    total = ops.row_tensor_add(rt, Tensor([1., 1.]))
    assert isinstance(total, ms.RowTensor) and total.values.dtype == ms.float32
    assert _v(total.to_dense()) == [[2, 3], [1, 1], [4, 5]]
    made = ops.make_row_tensor_inner(Tensor([1]), Tensor([[5., 6]]), (3, 2))
    assert _v(made.to_dense()) == [[0, 0], [5, 6], [0, 0]]
    with pytest.raises(TypeError, match="RowTensor"):
        ops.row_tensor_get_values(Tensor([1.]))
    with pytest.raises(ValueError, match="dense shape"):
        ops.row_tensor_add(rt, Tensor(np.ones((4, 2), np.float32)))


def test_recompute_block_and_the_primitive_module():
    from spore import nn

    class Block(nn.Cell):
        def construct(self, x):
            return ops.sin(x) * 2
    run = ops.recompute_block(Block())
    x = Tensor([0.5, 1.0])
    np.testing.assert_allclose(run(x).asnumpy(), 2 * np.sin([0.5, 1.0]), rtol=1e-6)
    np.testing.assert_allclose(ms.grad(lambda v: run(v).sum())(x).asnumpy(),
                               2 * np.cos([0.5, 1.0]), rtol=1e-6)
    from spore.ops.primitive import Primitive, prim_attr_register
    assert Primitive is ops.Primitive and prim_attr_register is ops.prim_attr_register
    assert ops.primitive.PrimitiveWithInfer is ops.PrimitiveWithInfer


@pytest.mark.parametrize("name", ["J", "distribute", "embed", "ref_to_embed",
                                  "make_map_parameter"])
def test_graph_internal_primitives_are_absent_with_the_reason(name):
    with pytest.raises(NotImplementedError, match="not public API"):
        getattr(ops, name)


def test_bad_arguments_name_the_op():
    with pytest.raises(TypeError, match="'normal_'.*generator"):
        ops.normal_(Tensor([1.]), generator="seed")
    with pytest.raises(TypeError, match="'bernoulli_ext'.*generator"):
        ops.bernoulli_ext(Tensor([0.5]), generator=3)
    with pytest.raises(TypeError, match="'add_flags'"):
        ops.add_flags("f", a=True)
    with pytest.raises(TypeError, match="'linearize'"):
        ops.linearize(None, Tensor([1.]))
    with pytest.raises(ValueError, match="'MaskedScatter'.*updates"):
        ops.MaskedScatter()(Tensor([1., 2.]), Tensor([True, True]), Tensor([1.]))
    with pytest.raises(TypeError, match="'MaskedScatter'.*bool"):
        ops.MaskedScatter()(Tensor([1., 2.]), Tensor([1, 0]), Tensor([1.]))
    with pytest.raises(ValueError, match="'make_row_tensor_inner'"):
        ops.make_row_tensor_inner(Tensor([0]), Tensor([[1., 2.]]), (3, 4))


def test_stop_gradient_on_an_input_and_on_a_view():
    def f(x):
        ops.stop_gradient_(x)
        return (x * 3).sum()
    assert _v(ms.grad(f)(Tensor([1., 2.]))) == [0, 0]

    def g(x):
        y = x[0:1]
        ops.stop_gradient_(y)          # MindSpore: RuntimeError for a view tensor
        return y.sum()
    with pytest.raises(RuntimeError, match="view"):
        ms.grad(g)(Tensor([1., 2.]))
