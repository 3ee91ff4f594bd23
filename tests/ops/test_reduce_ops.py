"""Reductions, scans and norms: forward vs NumPy, shape/dtype rules, numerical gradients,
MindSpore's output dtypes, and property-based checks of shapes and dtypes.

Expected dtypes and the few hand-written values marked "MindSpore 2.10" were
produced by running the same calls on MindSpore 2.10 (CPU, PyNative).
"""
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import spore as ms
from spore import ops
from spore._prims import reduce as R
from tests.helpers.optable import OpCase, table_tests

T = ms.Tensor


def _distinct(shape, low=-2.0, high=2.0):
    """Inputs without ties (extrema and medians have a unique position)."""
    def make(rng):
        n = int(np.prod(shape))
        return rng.permutation(np.linspace(low, high, n)).reshape(shape)
    return make


def _with_zeros(shape, zeros):
    """Uniform inputs with exact zeros at the given flat positions (zero-safe gradients)."""
    def make(rng):
        a = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)
        a.reshape(-1)[list(zeros)] = 0.0
        return a
    return make


def _np_var(x, axis=None, ddof=0, keepdims=False):
    return np.var(x, axis=axis, ddof=ddof, keepdims=keepdims)


def _np_lse(x, axis, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _np_scan(fn, x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    r = fn(x, axis=axis)
    if exclusive:
        r = np.roll(r, 1, axis)
        idx = [slice(None)] * x.ndim
        idx[axis] = 0
        r[tuple(idx)] = 0 if fn is np.cumsum else 1
    return np.flip(r, axis) if reverse else r


def _np_median(x, axis, keepdims=False):
    k = (x.shape[axis] - 1) // 2
    order = np.argsort(x, axis=axis, kind="stable")
    idx = np.take(order, [k], axis=axis)
    vals = np.take_along_axis(x, idx, axis=axis)
    if not keepdims:
        idx, vals = np.squeeze(idx, axis), np.squeeze(vals, axis)
    return vals, idx


def _np_cum_extremum(x, axis, fn):
    vals = fn.accumulate(x, axis=axis)
    pos = np.arange(x.shape[axis]).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    idx = np.maximum.accumulate(np.where(x == vals, pos, 0), axis=axis)
    return vals, idx


def _cases(name, fn, ref, shapes_kwargs, **kw):
    return [OpCase(name, fn, ref, shape, kwargs=kwargs, id=f"{name}-{shape}-{kwargs}", **kw)
            for shape, kwargs in shapes_kwargs]


AXES = [((3, 4), {}), ((3, 4), {"axis": 1}), ((2, 3, 4), {"axis": (0, 2)}),
        ((2, 3, 4), {"axis": -1, "keepdims": True}), ((), {})]


def _rename(kwargs, **names):
    return {names.get(k, k): v for k, v in kwargs.items()}


REDUCTIONS = (
    [OpCase("sum", lambda x, **k: ops.sum(x, **_rename(k, axis="dim", keepdims="keepdim")),
            lambda x, **k: np.sum(x, **k), s, kwargs=k, id=f"sum-{s}-{k}") for s, k in AXES] +
    [OpCase("mean", lambda x, **k: ops.mean(x, **_rename(k, keepdims="keep_dims")),
            lambda x, **k: np.mean(x, **k), s, kwargs=k, id=f"mean-{s}-{k}") for s, k in AXES] +
    [OpCase("prod", lambda x, **k: ops.prod(x, **_rename(k, keepdims="keep_dims")),
            lambda x, **k: np.prod(x, **k), s, kwargs=k, id=f"prod-{s}-{k}") for s, k in AXES] +
    [OpCase("prod-zeros", lambda x: ops.prod(x, 1), lambda x: np.prod(x, 1),
            [_with_zeros((3, 4), [1, 5, 6])], id="prod-zeros"),
     OpCase("prod-all-zero-row", lambda x: ops.prod(x, 0), lambda x: np.prod(x, 0),
            [_with_zeros((3, 4), [0, 4, 2])], id="prod-two-zeros")] +
    [OpCase("amax", ops.amax, lambda x, **k: np.amax(x, **k), [_distinct(s)], kwargs=k,
            id=f"amax-{s}-{k}") for s, k in AXES] +
    [OpCase("amin", ops.amin, lambda x, **k: np.amin(x, **k), [_distinct(s)], kwargs=k,
            id=f"amin-{s}-{k}") for s, k in AXES] +
    [OpCase("amax-initial", lambda x: ops.amax(x, 1, initial=0.5),
            lambda x: np.amax(x, 1, initial=0.5), [_distinct((3, 4))]),
     OpCase("amin-where", lambda x: ops.amin(x, 0, initial=1.0, where=T(np.array([True, False,
                                                                                    True, True]))),
            lambda x: np.amin(x, 0, initial=1.0, where=np.array([True, False, True, True])),
            [_distinct((3, 4))]),
     OpCase("max-axis", lambda x: ops.max(x, 1), lambda x: (np.max(x, 1), np.argmax(x, 1)),
            [_distinct((3, 4))]),
     OpCase("max-keep", lambda x: ops.max(x, -1, True),
            lambda x: (np.max(x, -1, keepdims=True), np.argmax(x, -1, keepdims=True)),
            [_distinct((2, 3, 4))]),
     OpCase("max-none", ops.max, lambda x: (np.max(x), np.array(0)), [_distinct((3, 4))]),
     OpCase("min-axis", lambda x: ops.min(x, 0), lambda x: (np.min(x, 0), np.argmin(x, 0)),
            [_distinct((3, 4))]),
     OpCase("aminmax", lambda x: ops.aminmax(x, axis=1),
            lambda x: (np.min(x, 1), np.max(x, 1)), [_distinct((3, 4))]),
     OpCase("argmax", lambda x: ops.argmax(x, 1), lambda x: np.argmax(x, 1), [_distinct((3, 4))],
            grad=False, out_dtype=ms.int64),
     OpCase("argmax-flat", ops.argmax, np.argmax, [_distinct((3, 4))], grad=False),
     OpCase("argmin", lambda x: ops.argmin(x, 0, True), lambda x: np.argmin(x, 0, keepdims=True),
            [_distinct((3, 4))], grad=False, out_dtype=ms.int32),
     OpCase("all", lambda x: ops.all(x > 0, 1), lambda x: np.all(x > 0, 1), (3, 4), grad=False),
     OpCase("any", lambda x: ops.any(x > 1, (0, 1), True),
            lambda x: np.any(x > 1, keepdims=True), (3, 4), grad=False),
     OpCase("median", lambda x: ops.median(x, 0), lambda x: _np_median(x, 0),
            [_distinct((4, 3))]),
     OpCase("median-keep", lambda x: ops.median(x, -1, True),
            lambda x: _np_median(x, -1, True), [_distinct((2, 3, 5))]),
     OpCase("count_nonzero", lambda x: ops.count_nonzero(ops.round(x), 1),
            lambda x: np.count_nonzero(np.round(x), 1), (3, 4), grad=False,
            out_dtype=ms.int32),
     OpCase("nansum", ops.nansum, np.nansum,
            [lambda r: np.array([[1.5, np.nan], [np.nan, 2.0]])]),
     OpCase("nanmean", lambda x: ops.nanmean(x, 0), lambda x: np.nanmean(x, 0),
            [lambda r: np.array([[1.5, np.nan], [3.0, 2.0]])]),
     OpCase("logsumexp", lambda x: ops.logsumexp(x, 1), lambda x: _np_lse(x, 1), (3, 4)),
     OpCase("logsumexp-keep", lambda x: ops.logsumexp(x, (0, 2), True),
            lambda x: _np_lse(x, (0, 2), True), (2, 3, 4)),
     OpCase("logsumexp-large", lambda x: ops.logsumexp(x, 0), lambda x: _np_lse(x, 0),
            [lambda r: r.uniform(80, 90, size=(5,))], grad_rtol=1e-3)] +
    [OpCase("var", lambda x, **k: ops.var(x, **k), lambda x, **k: _np_var(x, **k), s, kwargs=k,
            id=f"var-{s}-{k}")
     for s, k in [((3, 4), {}), ((3, 4), {"axis": 1, "ddof": 1}),
                  ((2, 3, 4), {"axis": (0, 2), "keepdims": True})]] +
    [OpCase("std", lambda x: ops.std(x, 0, True), lambda x: np.std(x, 0, ddof=1), (3, 4)),
     OpCase("std_mean", lambda x: ops.std_mean(x, 1),
            lambda x: (np.std(x, 1), np.mean(x, 1)), (3, 4)),
     OpCase("var_mean", ops.var_mean, lambda x: (np.var(x), np.mean(x)), (3, 4))]
)

NORMS = (
    [OpCase("norm", ops.norm, np.linalg.norm, (3, 4)),
     OpCase("norm-3d", ops.norm, lambda x: np.linalg.norm(x.reshape(-1)), (2, 3, 4)),
     OpCase("norm-dim", lambda x: ops.norm(x, dim=1, keepdim=True),
            lambda x: np.linalg.norm(x, axis=1, keepdims=True), (3, 4)),
     OpCase("norm-ord3", lambda x: ops.norm(x, 3), lambda x: np.linalg.norm(x, 3), (5,)),
     OpCase("norm-inf-vec", lambda x: ops.norm(x, float("inf")),
            lambda x: np.linalg.norm(x, np.inf), [_distinct((5,))]),
     OpCase("norm-0", lambda x: ops.norm(ops.round(x), 0),
            lambda x: np.linalg.norm(np.round(x), 0), (6,), grad=False),
     OpCase("vector_norm-1", lambda x: ops.vector_norm(x, 1, (0, 1)),
            lambda x: np.sum(np.abs(x), (0, 1)), (2, 3, 4), domain=(0.2, 2.0)),
     OpCase("vector_norm--inf", lambda x: ops.vector_norm(x, float("-inf"), 0),
            lambda x: np.min(np.abs(x), 0), [_distinct((3, 4), 0.1, 2.0)])] +
    [OpCase(f"matrix_norm-{o}", lambda x, o=o: ops.norm(x, o),
            lambda x, o=o: np.linalg.norm(x, o), [_distinct((3, 4))], id=f"norm-matrix-{o}",
            grad_rtol=1e-3, grad_atol=1e-4)
     for o in (1, -1, 2, -2, "fro", "nuc", float("inf"), float("-inf"))] +
    [OpCase("matrix_norm-batch", lambda x: ops.matrix_norm(x, "nuc", (0, 2), keepdims=True),
            lambda x: np.linalg.norm(x, "nuc", axis=(0, 2), keepdims=True),
            [_distinct((3, 2, 4))], grad_rtol=1e-3, grad_atol=1e-4)]
)


def _scan_case(name, prim, np_fn, shape, axis, exclusive, reverse, inputs=None):
    return OpCase(name, lambda x: prim(x, axis=axis, exclusive=exclusive, reverse=reverse),
                  lambda x: _np_scan(np_fn, x, axis, exclusive, reverse),
                  inputs or shape, id=f"{name}-{shape}-{axis}-ex{exclusive}-rev{reverse}")


SCANS = (
    [OpCase("cumsum", lambda x: ops.cumsum(x, 1), lambda x: np.cumsum(x, 1), (3, 4)),
     OpCase("cumsum-neg", lambda x: ops.cumsum(x, -1), lambda x: np.cumsum(x, -1), (2, 3, 4)),
     OpCase("cumprod", lambda x: ops.cumprod(x, 0), lambda x: np.cumprod(x, 0), (4, 3)),
     OpCase("cumprod-zeros", lambda x: ops.cumprod(x, 1), lambda x: np.cumprod(x, 1),
            [_with_zeros((3, 5), [2, 5, 8, 11, 14])]),
     OpCase("cumprod-two-zeros", lambda x: ops.cumprod(x, 0), lambda x: np.cumprod(x, 0),
            [_with_zeros((6,), [1, 4])]),
     OpCase("cummax", lambda x: ops.cummax(x, 1),
            lambda x: _np_cum_extremum(x, 1, np.maximum), [_distinct((3, 5))]),
     OpCase("cummin", lambda x: ops.cummin(x, 0),
            lambda x: _np_cum_extremum(x, 0, np.minimum), [_distinct((5, 2))]),
     OpCase("logcumsumexp", lambda x: ops.logcumsumexp(x, 1),
            lambda x: np.logaddexp.accumulate(x, 1), (3, 4)),
     OpCase("logcumsumexp-wide", lambda x: ops.logcumsumexp(x, 0),
            lambda x: np.logaddexp.accumulate(x, 0),
            [lambda r: np.array([-300.0, 0.0, 200.0, -50.0, 300.0])])] +
    [_scan_case("CumSum", R.cumsum_p, np.cumsum, (3, 4), ax, ex, rev)
     for ax in (0, 1) for ex in (False, True) for rev in (False, True)] +
    [_scan_case("CumProd", R.cumprod_p, np.cumprod, (3, 5), 1, ex, rev,
                [_with_zeros((3, 5), [1, 3, 7, 13, 14])])
     for ex in (False, True) for rev in (False, True)]
)

ALL = REDUCTIONS + NORMS + SCANS


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(ALL)


# ----------------------------------------------------------------- MindSpore's dtypes
DTYPES = [ms.bool_, ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64, ms.float16, ms.bfloat16,
          ms.float32, ms.float64]
INTS = {ms.bool_, ms.int8, ms.uint8, ms.int16, ms.int32, ms.int64}
FLOATS = {ms.float16, ms.bfloat16, ms.float32, ms.float64}


def _sample(dtype):
    return T(np.array([[0, 1, 2], [3, 4, 5]], np.float32)).astype(dtype)


# Output dtypes probed on MindSpore 2.10 for every input dtype (where its CPU build has a
# kernel; bfloat16 and some bool cases lack one and follow the same rule here).
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name, fn, rule", [
    ("sum", lambda x: ops.sum(x), lambda d: ms.int64 if d in INTS else d),
    ("prod", lambda x: ops.prod(x, 1), lambda d: ms.int64 if d in INTS else d),
    ("cumprod", lambda x: ops.cumprod(x, 1), lambda d: ms.int64 if d in INTS else d),
    ("amax", lambda x: ops.amax(x, 1), lambda d: d),
    ("max-values", lambda x: ops.max(x, 1)[0], lambda d: d),
    ("max-indices", lambda x: ops.max(x, 1)[1], lambda d: ms.int64),
    ("max-none-indices", lambda x: ops.max(x)[1], lambda d: ms.int64),
    ("argmax", lambda x: ops.argmax(x, 1), lambda d: ms.int64),
    ("argmin", lambda x: ops.argmin(x), lambda d: ms.int32),
    ("all", lambda x: ops.all(x), lambda d: ms.bool_),
    ("count_nonzero", lambda x: ops.count_nonzero(x), lambda d: ms.int32),
    ("norm", lambda x: ops.norm(x), lambda d: ms.float32 if d in INTS else d),
    ("nansum", lambda x: ops.nansum(x), lambda d: ms.int64 if d is ms.bool_ else d),
    ("Tensor.std", lambda x: x.std(), lambda d: ms.float32 if d in INTS else d),
    ("Tensor.argmin", lambda x: x.argmin(), lambda d: ms.int32),
])
def test_output_dtype(name, fn, rule, dtype):
    assert fn(_sample(dtype)).dtype == rule(dtype)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not ms.bool_], ids=str)
def test_mean_keeps_dtype(dtype):
    assert ops.mean(_sample(dtype)).dtype == dtype


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d is not ms.bool_], ids=str)
def test_cumsum_dtypes(dtype):
    """ops.cumsum keeps integer dtypes; Tensor.cumsum widens narrow integers to Int32."""
    x = _sample(dtype)
    assert ops.cumsum(x, 1).dtype == dtype
    narrow = dtype in INTS and dtype not in (ms.int32, ms.int64)
    assert x.cumsum(0).dtype == (ms.int32 if narrow else dtype)


def test_cum_extremum_index_dtypes():
    x = T(np.array([1.0, 3.0, 2.0], np.float32))
    assert ops.cummax(x, 0)[1].dtype == ms.int64
    assert ops.cummin(x, 0)[1].dtype == ms.int32       # MindSpore 2.10's choice


# ----------------------------------------------------------------- values from MindSpore
def test_integer_mean_truncates_towards_zero():
    # MindSpore 2.10: mean([-1, -2]) == -1, mean([3, 4]) == 3, both Int32
    assert ops.mean(T(np.array([-1, -2], np.int32))).item() == -1
    assert ops.mean(T(np.array([3, 4], np.int32))).item() == 3
    np.testing.assert_array_equal(ops.mean(T(np.array([[1, 2], [4, 4]], np.int32)), 1).asnumpy(),
                                  [1, 4])


def test_integer_sums_widen_before_overflow():
    # MindSpore 2.10: sum of int32 [2**31-1, 5] is Int64 2147483652; prod of [1e5, 1e5] 1e10
    assert ops.sum(T(np.array([2 ** 31 - 1, 5], np.int32))).item() == 2147483652
    assert ops.prod(T(np.array([100000, 100000], np.int32))).item() == 10 ** 10
    assert ops.cumprod(T(np.array([100, 100], np.int8)), 0).asnumpy().tolist() == [100, 10000]


def test_max_without_axis_returns_constant_index():
    values, index = ops.max(T(np.array([1.0, 3.0, 4.0, 2.0], np.float32)))
    assert values.item() == 4.0 and index.item() == 0 and index.shape == ()


def test_max_ties_take_the_first_index_and_gradient():
    x = T(np.array([4.0, 1.0, 4.0], np.float32))
    assert ops.max(x, 0)[1].item() == 0
    g = ops.grad(lambda t: ops.max(t, 0)[0])(x)
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 0.0, 0.0])


def test_amax_gradient_spreads_over_ties():
    g = ops.grad(lambda t: ops.amax(t))(T(np.array([4.0, 1.0, 4.0], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [0.5, 0.0, 0.5])


def test_cummax_ties_take_the_last_index():
    # MindSpore 2.10: cummax([1,3,2,3,5]) indices [0,1,1,3,4]; cummin([3,1,2,1,0]) [0,1,1,3,4]
    assert ops.cummax(T(np.array([1., 3., 2., 3., 5.], np.float32)), 0)[1].asnumpy().tolist() \
        == [0, 1, 1, 3, 4]
    assert ops.cummin(T(np.array([3., 1., 2., 1., 0.], np.float32)), 0)[1].asnumpy().tolist() \
        == [0, 1, 1, 3, 4]


def test_norm_values_match_mindspore():
    # MindSpore 2.10 on [[0,1,2],[3,4,5]]: 7.4161983, ord=1 7.0, ord=2 7.3484697,
    # ord=-2 1.0000001, 'nuc' 8.34847, inf 12.0
    m = T(np.arange(6, dtype=np.float32).reshape(2, 3))
    for ord, want in [(None, 7.4161983), (1, 7.0), (2, 7.3484697), (-2, 1.0), ("nuc", 8.34847),
                      (float("inf"), 12.0)]:
        assert ops.norm(m, ord).item() == pytest.approx(want, rel=1e-5), ord


def test_std_with_one_element_and_ddof_is_nan():
    assert np.isnan(ops.std(T(np.array([1.0], np.float32)), ddof=1).item())


def test_reduce_functional_forms_treat_empty_axis_as_all():
    m = T(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert ops.reduce_sum(m).item() == 15.0
    assert ops.reduce_sum(m, (), True).shape == (1, 1)
    assert ops.sum(m, ()).item() == 15.0
    np.testing.assert_array_equal(ops.reduce_max(m, 1).asnumpy(), [2.0, 5.0])
    assert ops.reduce_mean(m, 0, True).shape == (1, 3)


def test_half_precision_sums_accumulate_in_float32():
    x = T(np.full(4096, 0.1, np.float16))
    np.testing.assert_allclose(ops.sum(x).item(), 409.6, rtol=1e-3)   # fp16 running sums stall
    assert ops.sum(x).dtype == ms.float16
    assert ops.mean(x.astype(ms.bfloat16)).dtype == ms.bfloat16


def test_cumprod_gradient_memory_is_linear():
    """The rule works on long axes (an O(n^2) or O(n^3) formulation could not)."""
    x = T(np.where(np.arange(20000) % 7 == 3, 0.0, 1.0001).astype(np.float64))
    g = ops.grad(lambda t: ops.cumprod(t, 0).sum())(x)
    assert g.shape == (20000,) and np.isfinite(g.asnumpy()).all()
    # the gradient at the first zero is the sum of the products that skip it
    want = np.cumprod(np.where(np.arange(20000) == 3, 1.0, x.asnumpy()))[3:10].sum()
    np.testing.assert_allclose(g.asnumpy()[3], want)


@pytest.mark.parametrize("values", [[0.5, 2.0, 0.7, 3.0], [0.5, 2.0, 0.0, 3.0],
                                    [0.0, 2.0, 1.5, 3.0]])
def test_cumprod_second_order_gradient(values):
    """Second derivatives are exact with at most one zero on the axis."""
    x = T(np.array(values))
    f = lambda t: ops.cumprod(t, 0).sum()    # noqa: E731
    h = ops.grad(lambda t: ops.grad(f)(t).sum())(x)
    # d2/dx_i dx_j of sum_k prod_{m<=k} x_m, summed over i
    eps, base = 1e-6, ops.grad(f)(x).asnumpy().sum()
    num = []
    for j in range(4):
        y = x.asnumpy().copy()
        y[j] += eps
        num.append((ops.grad(f)(T(y)).asnumpy().sum() - base) / eps)
    np.testing.assert_allclose(h.asnumpy(), num, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------- properties
_float_arrays = st.integers(0, 3).flatmap(lambda nd: hnp.arrays(
    np.float32, hnp.array_shapes(min_dims=nd, max_dims=nd, min_side=1, max_side=4),
    elements=st.floats(-100, 100, width=32)))


@st.composite
def _array_and_axis(draw):
    a = draw(_float_arrays)
    axes = draw(st.none() | st.lists(st.integers(0, max(a.ndim - 1, 0)), unique=True,
                                     max_size=a.ndim).map(tuple))
    if a.ndim == 0:
        axes = None
    return a, axes, draw(st.booleans())


@given(_array_and_axis())
def test_property_reductions_match_numpy(case):
    a, axis, keep = case
    x = T(a)
    ax = None if axis == () else axis
    for ours, ref in [(ops.sum(x, axis, keep), np.sum(a, ax, keepdims=keep, dtype=np.float64)),
                      (ops.amax(x, axis, keep), np.amax(a, ax, keepdims=keep)),
                      (ops.mean(x, axis, keep), np.mean(a, ax, keepdims=keep,
                                                        dtype=np.float64))]:
        assert ours.shape == np.shape(ref)
        assert ours.dtype == ms.float32
        np.testing.assert_allclose(ours.asnumpy(), ref, rtol=1e-4, atol=1e-3)


@given(hnp.arrays(st.sampled_from([np.int8, np.uint8, np.int16, np.int32, np.int64]),
                  hnp.array_shapes(max_dims=3, max_side=4),
                  elements=st.integers(0, 3)),
       st.booleans(), st.booleans())
def test_property_integer_sum_and_prod_are_int64(a, keep, as_bool):
    a = a.astype(np.bool_) if as_bool else a
    x = T(a)
    s = ops.sum(x, 0, keep)
    assert s.dtype == ms.int64
    np.testing.assert_array_equal(s.asnumpy(), np.sum(a, 0, keepdims=keep, dtype=np.int64))
    p = ops.prod(x, None)
    assert p.dtype == ms.int64 and p.item() == np.prod(a, dtype=np.int64)


@given(_float_arrays.filter(lambda a: a.ndim >= 1), st.booleans(), st.booleans())
def test_property_scans_match_numpy(a, exclusive, reverse):
    x = T(a.astype(np.float64))
    axis = a.ndim - 1
    got = R.cumsum_p(x, axis=axis, exclusive=exclusive, reverse=reverse).asnumpy()
    np.testing.assert_allclose(got, _np_scan(np.cumsum, a.astype(np.float64), axis, exclusive,
                                             reverse), rtol=1e-9, atol=1e-9)
