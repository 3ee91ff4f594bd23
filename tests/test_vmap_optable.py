"""vmap over the op tables: each case mapped over a stacked batch of 3 examples equals
the per-example results stacked (forward, gradient of the mapped function, a batch axis
that is not the first), and which primitives have a batching rule."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import spore as ms
from spore._autodiff import vmap as V
from spore._core import primitive as P
from tests.helpers.optable import case_id, make_inputs

TABLES = {"test_math_ops": "ALL", "test_array_ops": "ALL", "test_reduce_ops": "ALL",
          "test_linalg_ops": "ALL", "test_nn_ops": "TABLE", "test_conv_pool": "ALL",
          "test_losses_functional": "TABLE", "test_special_functions": "CASES",
          "test_distance_ops": "CASES", "test_conv3d": "ALL", "test_pool3d": "CASES",
          "test_ctc_loss": "CASES", "test_special_bessel_gamma": "CASES",
          "test_linalg_more": "CASES"}

CASES = [c for mod, name in TABLES.items()
         for c in getattr(importlib.import_module("tests.ops." + mod), name)]

# Their result's shape depends on the values, so examples' results cannot be stacked
# (MindSpore's vmap cannot map them either): vmap says so.
RAGGED = {"masked_select", "masked_select-broadcast"}

N = 3


def _tensor(a):
    return ms.Tensor(a) if isinstance(a, np.ndarray) else a


def _examples(case, dtype=None):
    return [make_inputs(case, dtype=dtype, seed=s) for s in range(N)]


def _batch(examples, axis):
    """The examples' array inputs stacked along ``axis`` (other inputs shared), and the
    in_axes that maps them."""
    first = examples[0]
    axes = tuple((axis if axis >= 0 else a.ndim + 1 + axis) if isinstance(a, np.ndarray)
                 else None for a in first)
    args = [np.stack([ex[i] for ex in examples], axis=ax) if ax is not None else first[i]
            for i, ax in enumerate(axes)]
    return [_tensor(a) for a in args], axes


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _per_example(case, examples):
    return [_flat(case.fn(*[_tensor(a) for a in ex], **case.kwargs)) for ex in examples]


def _check(got, outs, what, rtol=1e-5, atol=1e-5):
    got = _flat(got)
    assert len(got) == len(outs[0]), what
    for k, g in enumerate(got):
        want = np.stack([o[k].asnumpy() for o in outs])
        assert g.dtype == outs[0][k].dtype, f"{what}: dtype {g.dtype} != {outs[0][k].dtype}"
        assert g.shape == want.shape, f"{what}: shape {g.shape} != {want.shape}"
        np.testing.assert_allclose(g.asnumpy().astype(np.float64), want.astype(np.float64),
                                   rtol=rtol, atol=atol, err_msg=what, equal_nan=True)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_vmap_matches_stacked_examples(case):
    examples = _examples(case)
    args, axes = _batch(examples, 0)
    mapped = ms.vmap(lambda *a: case.fn(*a, **case.kwargs), in_axes=axes)
    if str(case) in RAGGED:
        with pytest.raises(ValueError, match="different shapes for different examples"):
            mapped(*args)
        return
    _check(mapped(*args), _per_example(case, examples), str(case))


@pytest.mark.parametrize("case", [c for c in CASES if str(c) not in RAGGED], ids=case_id)
def test_vmap_over_the_last_axis(case):
    """The batch axis last: rules that move it, and the fallback's split along it."""
    examples = _examples(case)
    args, axes = _batch(examples, -1)
    got = ms.vmap(lambda *a: case.fn(*a, **case.kwargs), in_axes=axes)(*args)
    _check(got, _per_example(case, examples), f"{case} (batch axis last)")


GRAD_CASES = [c for c in CASES if c.grad and str(c) not in RAGGED]


@pytest.mark.parametrize("case", GRAD_CASES, ids=case_id)
def test_grad_of_vmap_matches_per_example_grads(case):
    """grad(sum(W * vmap(f)(x))) is each example's own gradient, stacked: the rules'
    primitives are recorded on the tape below the batching handler."""
    examples = _examples(case, dtype=np.float64)
    argnums = case.grad_argnums
    if argnums is None:
        argnums = [i for i, a in enumerate(examples[0])
                   if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    args, axes = _batch(examples, 0)
    outs = _per_example(case, examples)
    rng = np.random.default_rng(7)
    weights = [ms.Tensor(rng.uniform(0.5, 1.5, (N,) + tuple(o.shape)))
               if o._data.dtype.kind == "f" else None for o in outs[0]]

    def weighted(out, ws):
        return sum((o * w).sum() for o, w in zip(_flat(out), ws) if w is not None)

    mapped = ms.vmap(lambda *a: case.fn(*a, **case.kwargs), in_axes=axes)
    got = ms.ops.grad(lambda *a: weighted(mapped(*a), weights),
                      grad_position=tuple(argnums))(*args)
    got = _flat(got)
    for i, ex in enumerate(examples):
        ws = [None if w is None else w[i] for w in weights]
        want = _flat(ms.ops.grad(lambda *a: weighted(case.fn(*a, **case.kwargs), ws),
                                 grad_position=tuple(argnums))(*[_tensor(a) for a in ex]))
        for k, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g.asnumpy()[i], w.asnumpy(), rtol=1e-7, atol=1e-9,
                                       err_msg=f"{case}: example {i}, input {argnums[k]}")


# --------------------------------------------------------------------------- rule coverage
WITH_RULE = {
    # shapes, indexing, joins
    "Reshape", "Transpose", "BroadcastTo", "Getitem", "Concat", "Split", "Pad", "Roll",
    "Depend", "Contiguous", "GatherD",
    # reductions and scans
    "ReduceSum", "ReduceMean", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceAll",
    "ReduceAny", "Argmax", "Argmin", "CumSum", "CumProd", "LogCumSumExp", "Cummax",
    "Cummin", "Sort", "TopK",
    # linear algebra
    "MatMul", "Dense", "Einsum", "MatrixInverse", "MatrixDeterminant",
    "LogMatrixDeterminant", "SingularValues", "Svd",
    # nn
    "Softmax", "LogSoftmax", "SoftmaxGrad", "LogSoftmaxGrad", "Conv2D", "MaxPool2D",
    "AvgPool2D", "Conv2DBackpropInput", "AvgPool2DGrad", "MaxPoolScatter", "MaxPoolSelect",
    "LayerNorm", "NLLLoss",
    # in-place writes into a batched tensor
    "Assign", "SetitemInplace",
}


def test_which_primitives_have_a_batching_rule():
    """Every elementwise primitive has the broadcasting rule; the others listed here have
    their own; the rest take the loop fallback (so it is not silently everywhere)."""
    have = {name for name, p in P.REGISTRY.items() if p.batch is not None}
    elementwise = {name for name, p in P.REGISTRY.items()
                   if p.kind == "elementwise" and p.effect is None}
    assert elementwise <= have
    assert have - elementwise == WITH_RULE


def test_rules_are_used_where_they_exist(monkeypatch):
    """A function made of primitives with rules never loops."""
    looped = []
    original = V.loop
    monkeypatch.setattr(V, "loop", lambda prim, *a: looped.append(prim.name) or original(prim, *a))

    def f(x, w):
        h = ms.ops.softmax(ms.ops.matmul(x, w).reshape(2, 6), axis=-1)
        return ms.ops.relu(h).sum(axis=1) + x[0, :2].mean() + ms.ops.exp(x).T.max()
    x = ms.Tensor(np.random.default_rng(0).normal(size=(5, 3, 4)).astype(np.float32))
    w = ms.Tensor(np.random.default_rng(1).normal(size=(4, 4)).astype(np.float32))
    got = ms.vmap(f, in_axes=(0, None))(x, w)
    want = np.stack([f(ms.Tensor(x.asnumpy()[i]), w).asnumpy() for i in range(5)])
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert looped == []


def test_the_fallback_loops_once_per_example(monkeypatch):
    calls = []
    prim = P.get("Median")
    original = prim.eager

    def counting(args, attrs):
        calls.append(tuple(args[0].shape))
        return original(args, attrs)
    monkeypatch.setattr(prim, "eager", counting)
    x = ms.Tensor(np.random.default_rng(0).normal(size=(4, 3, 5)).astype(np.float32))
    values, indices = ms.vmap(lambda a: ms.ops.median(a, axis=-1))(x)
    assert calls == [(3, 5)] * 4
    for i in range(4):
        v, k = ms.ops.median(ms.Tensor(x.asnumpy()[i]), axis=-1)
        np.testing.assert_array_equal(values.asnumpy()[i], v.asnumpy())
        np.testing.assert_array_equal(indices.asnumpy()[i], k.asnumpy())
