"""MindSpore's primitive-class forms are thin adapters over the functional ops."""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor

A = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)


def t(a=A):
    return Tensor(a)


@pytest.mark.parametrize("cls, fn, args", [
    ("Add", np.add, (A, A)), ("Sub", np.subtract, (A, A)), ("Mul", np.multiply, (A, A)),
    ("RealDiv", np.divide, (A, A + 10)), ("Maximum", np.maximum, (A, -A)),
    ("Exp", np.exp, (A,)), ("Abs", np.abs, (A,)), ("Neg", np.negative, (A,)),
    ("Square", np.square, (A,)), ("Tanh", np.tanh, (A,)), ("Sqrt", np.sqrt, (np.abs(A),)),
    ("ReLU", lambda a: np.maximum(a, 0), (A,)), ("Equal", np.equal, (A, A)),
    ("Greater", np.greater, (A, -A)), ("LogicalNot", np.logical_not, (A > 0,)),
])
def test_forwarding_classes(cls, fn, args):
    prim = getattr(ops, cls)()
    got = prim(*[Tensor(a) for a in args])
    np.testing.assert_allclose(got.asnumpy(), fn(*args), rtol=1e-6)
    assert repr(prim) == f"Prim[{cls}]"


def test_reductions_with_keep_dims():
    assert ops.ReduceSum()(t(), 1).tolist() == [2.0, 3.0]
    assert ops.ReduceSum(keep_dims=True)(t()).shape == (1, 1)
    assert ops.ReduceMean(keep_dims=True)(t(), 0).shape == (1, 3)
    assert ops.ReduceMax()(t(), 1).tolist() == [3.0, 5.0]
    assert ops.ReduceMin()(t()).item() == -6.0
    assert ops.ReduceProd()(t(), 0).tolist() == [4.0, -10.0, -18.0]
    assert ops.ReduceAll()(t() > -10).item() is True
    assert ops.ReduceAny(keep_dims=True)(t() > 5, 1).tolist() == [[False], [False]]


def test_matmul_transposes_and_softmax():
    got = ops.MatMul(transpose_b=True)(t(), t())
    np.testing.assert_allclose(got.asnumpy(), A @ A.T)
    got = ops.MatMul(transpose_a=True)(t(), t())
    np.testing.assert_allclose(got.asnumpy(), A.T @ A)
    s = ops.Softmax(axis=-1)(t())
    np.testing.assert_allclose(s.asnumpy().sum(-1), [1.0, 1.0], rtol=1e-6)
    ls = ops.LogSoftmax()(t())
    np.testing.assert_allclose(np.exp(ls.asnumpy()), s.asnumpy(), rtol=1e-5)


def test_shape_and_array_classes():
    assert ops.Reshape()(t(), (3, 2)).shape == (3, 2)
    assert ops.Transpose()(t(), (1, 0)).shape == (3, 2)
    assert ops.Cast()(t(), ms.int32).dtype == ms.int32
    assert ops.Shape()(t()) == (2, 3)
    assert ops.Rank()(t()) == 2 and ops.Size()(t()) == 6
    assert ops.ExpandDims()(t(), 0).shape == (1, 2, 3)
    assert ops.Squeeze(0)(Tensor(np.ones((1, 3)))).shape == (3,)
    assert ops.Concat(axis=1)((t(), t())).shape == (2, 6)
    assert ops.Stack()([t(), t()]).shape == (2, 2, 3)
    assert [p.shape for p in ops.Split(1, 3)(t())] == [(2, 1)] * 3
    assert ops.Tile()(t(), (2, 1)).shape == (4, 3)
    assert ops.Gather()(t(), Tensor([1, 0]), 0).tolist() == A[[1, 0]].tolist()
    oh = ops.OneHot()(Tensor([0, 2]), 3, Tensor(1.0), Tensor(0.0))
    assert oh.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    idx, val = ops.ArgMaxWithValue(axis=1)(t())
    assert idx.tolist() == [2, 1] and val.tolist() == [3.0, 5.0]
    assert ops.Argmax(output_type=ms.int32)(t()).dtype == ms.int32
    assert ops.Fill()(ms.float32, (2,), 1.5).tolist() == [1.5, 1.5]
    assert ops.Zeros()((2, 2), ms.float32).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_nn_classes():
    x = Tensor(np.random.default_rng(0).standard_normal((1, 2, 6, 6)).astype(np.float32))
    w = Tensor(np.ones((3, 2, 3, 3), np.float32))
    assert ops.Conv2D(3, 3)(x, w).shape == (1, 3, 4, 4)
    assert ops.Conv2D(3, 3, pad_mode="same")(x, w).shape == (1, 3, 6, 6)
    assert ops.MaxPool(2, 2)(x).shape == (1, 2, 3, 3)
    assert ops.AvgPool(2, 2)(x).shape == (1, 2, 3, 3)
    b = ops.BiasAdd()(x, Tensor([1.0, 2.0]))
    np.testing.assert_allclose(b.asnumpy()[0, 1], x.asnumpy()[0, 1] + 2.0, rtol=1e-6)
    y, mean, var = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1)(
        x, Tensor(np.ones((2, 6, 6), np.float32)), Tensor(np.zeros((2, 6, 6), np.float32)))
    np.testing.assert_allclose(y.asnumpy().mean(), 0.0, atol=1e-5)
    logits = Tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    loss = ops.SparseSoftmaxCrossEntropyWithLogits()(logits, Tensor([0, 1], ms.int32))
    assert loss.item() == pytest.approx(0.3185, abs=1e-4)
    per, grad = ops.SoftmaxCrossEntropyWithLogits()(logits, Tensor([[1.0, 0, 0], [0, 1.0, 0]]))
    np.testing.assert_allclose(per.asnumpy(), [0.4170, 0.2200], atol=1e-4)


def test_apply_momentum_updates_in_place():
    w = ms.Parameter(Tensor([1.0]), name="w")
    acc = ms.Parameter(Tensor([0.0]), name="acc")
    ops.ApplyMomentum()(w, acc, 0.1, Tensor([1.0]), 0.9)
    ops.ApplyMomentum()(w, acc, 0.1, Tensor([1.0]), 0.9)
    assert acc.tolist() == pytest.approx([1.9]) and w.tolist() == pytest.approx([0.71])


def test_print_and_depend(capsys):
    ops.Print()("value:", Tensor([1, 2]))
    assert capsys.readouterr().out == "value:\nTensor(shape=[2], dtype=Int64, value= [1, 2])\n"
    assert ops.Depend()(t(), t()).tolist() == A.tolist()


def test_functional_and_composite_modules():
    from spore.ops import functional as F, composite as C, operations as P
    assert F.add is ops.add and P.Add is ops.Add and C.GradOperation is ops.GradOperation
    hm = ops.HyperMap()
    out = hm(ops.add, (t(), t()), (t(), t()))
    assert len(out) == 2 and out[0].tolist() == (A + A).tolist()
    f = ops.MultitypeFuncGraph("double")

    @f.register("Tensor")
    def _(x):
        return x * 2

    @f.register("Number")
    def _(x):
        return x * 3
    assert f(2) == 6 and f(t()).tolist() == (A * 2).tolist()
    with pytest.raises(TypeError, match="no implementation"):
        f("s")
