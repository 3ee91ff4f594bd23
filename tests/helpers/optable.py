"""The op-table machinery: each op test is a record checked three ways.

* forward against a NumPy reference (several shapes, broadcasting included);
* shape/dtype rules: every primitive the op dispatches is re-inferred from its
  inputs and must agree with what the kernel produced;
* gradients against central finite differences in float64.

Family test files (``tests/ops/test_<family>_ops.py``) hold tables of
``OpCase`` records and get the three checks from ``table_tests``.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

import numpy as np
import pytest

import spore as ms
from spore._core import primitive as P


@dataclasses.dataclass
class OpCase:
    name: str
    fn: Callable                       # spore callable: fn(*tensors, **kwargs)
    ref: Callable | None               # NumPy reference: ref(*arrays, **kwargs)
    inputs: Sequence[Any]              # shapes (tuples), arrays, callables rng->array, or scalars
    kwargs: dict = dataclasses.field(default_factory=dict)
    dtype: Any = np.float32
    domain: tuple = (-2.0, 2.0)        # range of generated float inputs
    grad: bool = True                  # run the numerical gradient check
    grad_argnums: Sequence[int] | None = None   # default: every float array input
    rtol: float = 1e-5
    atol: float = 1e-6
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-5
    out_dtype: Any = None              # expected spore dtype of the output, if checked
    id: str = ""

    def __post_init__(self):
        if isinstance(self.inputs, tuple) and all(isinstance(d, int) for d in self.inputs):
            self.inputs = [self.inputs]       # a bare shape means one input of that shape

    def __str__(self):
        return self.id or self.name


def case_id(c):
    return str(c)


def make_inputs(case, dtype=None, seed=0):
    rng = np.random.default_rng(seed)
    dtype = dtype or case.dtype
    out = []
    for spec in case.inputs:
        if callable(spec):
            arr = spec(rng)
            if isinstance(arr, np.ndarray) and arr.dtype.kind == "f":
                arr = arr.astype(dtype)
            out.append(arr)
        elif isinstance(spec, tuple):
            lo, hi = case.domain
            out.append(rng.uniform(lo, hi, size=spec).astype(dtype))
        else:
            out.append(spec)
    return out


def _to_spore(v):
    return ms.Tensor(v) if isinstance(v, np.ndarray) else v


def _to_numpy(x):
    if isinstance(x, ms.Tensor):
        return x.asnumpy()
    if isinstance(x, (tuple, list)):
        return type(x)(_to_numpy(v) for v in x)
    return x


def run_forward(case):
    arrays = make_inputs(case)
    got = case.fn(*[_to_spore(a) for a in arrays], **case.kwargs)
    if case.out_dtype is not None:
        assert got.dtype == case.out_dtype, f"{case}: dtype {got.dtype} != {case.out_dtype}"
    if case.ref is None:
        return got
    want = case.ref(*arrays, **case.kwargs)
    _assert_tree_close(_to_numpy(got), want, case.rtol, case.atol, str(case))
    return got


def _assert_tree_close(got, want, rtol, atol, what):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
        for g, w in zip(got, want):
            _assert_tree_close(g, w, rtol, atol, what)
        return
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "biu" and got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=what)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=rtol, atol=atol, err_msg=what, equal_nan=True)


class _InferChecker:
    """A handler that re-derives each op's output shape/dtype with its infer rule."""

    def __init__(self):
        self.checked = []

    def __call__(self, below):
        def handler(prim, args, attrs):
            out = below(prim, args, attrs)
            if prim.infer is None:
                raise AssertionError(f"primitive {prim.name} has no shape/dtype rule")
            raw = prim.prepare(args) if prim._prepare is None else prim._prepare(args)
            aval = prim.infer(attrs, *raw)
            outs = out if isinstance(out, tuple) else (out,)
            avals = aval if isinstance(aval, tuple) else (aval,)
            assert len(outs) == len(avals), f"{prim.name}: infer gave {len(avals)} outputs"
            for o, a in zip(outs, avals):
                assert tuple(o.shape) == tuple(a.shape), \
                    f"{prim.name}: infer shape {a.shape} != kernel shape {o.shape}"
                assert np.dtype(a.dtype) == o._data.dtype, \
                    f"{prim.name}: infer dtype {a.dtype} != kernel dtype {o._data.dtype}"
            self.checked.append(prim.name)
            return out
        return handler


def run_infer(case):
    arrays = make_inputs(case)
    checker = _InferChecker()
    with P.handler_scope(checker):
        case.fn(*[_to_spore(a) for a in arrays], **case.kwargs)
    assert checker.checked, f"{case}: no primitive was dispatched"
    return checker.checked


def numerical_grad(f, arrays, argnum, eps=1e-6):
    """Central differences of scalar f w.r.t. arrays[argnum] (float64)."""
    x = arrays[argnum]
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        orig = x[i]
        x[i] = orig + eps
        fp = f(arrays)
        x[i] = orig - eps
        fm = f(arrays)
        x[i] = orig
        g[i] = (fp - fm) / (2 * eps)
    return g


def _weighted_sum(out, weights):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = None
    for o, w in zip(outs, weights):
        if w is None:
            continue
        term = (o * ms.Tensor(w)).sum()
        total = term if total is None else total + term
    return total


def run_grad(case, seed=0):
    """ops.grad of sum(w * fn(x)) against finite differences, in float64."""
    arrays = make_inputs(case, dtype=np.float64, seed=seed)
    argnums = case.grad_argnums
    if argnums is None:
        argnums = [i for i, a in enumerate(arrays)
                   if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    assert argnums, f"{case}: no differentiable input"
    probe = case.fn(*[_to_spore(a) for a in arrays], **case.kwargs)
    probes = probe if isinstance(probe, (tuple, list)) else (probe,)
    rng = np.random.default_rng(seed + 1)
    weights = [rng.uniform(0.5, 1.5, size=p.shape) if p._data.dtype.kind == "f" else None
               for p in probes]

    def loss_spore(*ts):
        return _weighted_sum(case.fn(*ts, **case.kwargs), weights)

    def loss_np(arrs):
        out = case.fn(*[_to_spore(a) for a in arrs], **case.kwargs)
        return float(_weighted_sum(out, weights).asnumpy())

    grads = ms.ops.grad(loss_spore, grad_position=tuple(argnums))(
        *[_to_spore(a) for a in arrays])
    if len(argnums) == 1:
        grads = (grads,)
    for k, g in zip(argnums, grads):
        want = numerical_grad(loss_np, [a.copy() if isinstance(a, np.ndarray) else a
                                        for a in arrays], k)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=case.grad_rtol, atol=case.grad_atol,
                                   err_msg=f"{case}: gradient of input {k}")


def grad_case_fn(f, positions=None):
    """``args -> d/d(args) sum(f(args) * W)`` for a fixed positive W drawn once.

    Makes a first-order gradient into an op-table case of its own, so the
    backward primitives it runs get their gradients checked too (second order).
    ``positions`` defaults to every argument.
    """
    weights = {}

    def fn(*args):
        if "w" not in weights:
            weights["w"] = ms.Tensor(np.random.default_rng(9).uniform(0.5, 1.5, f(*args).shape))
        pos = tuple(range(len(args))) if positions is None else positions
        return ms.ops.grad(lambda *a: (f(*a) * weights["w"]).sum(), grad_position=pos)(*args)
    return fn


def _assert_same(got, want, what):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), what
        for g, w in zip(got, want):
            _assert_same(g, w, what)
        return
    if isinstance(want, ms.Tensor):
        assert isinstance(got, ms.Tensor), f"{what}: got {type(got).__name__}"
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy(), err_msg=what)
    else:
        assert got == want, what


def _assert_close_tree(got, want, what):
    """Gradients through a JitCall recompute the forward: equal to rounding."""
    if isinstance(want, (tuple, list)):
        for g, w in zip(got, want):
            _assert_close_tree(g, w, what)
        return
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-12, atol=1e-12,
                               err_msg=what)


def run_jit(case, with_grad=True):
    """The op under ``ms.jit`` (forward, and its gradient taken inside the compiled
    function) gives the same numbers as PyNative, without falling back. Returns the
    report's fallbacks (empty when it compiled)."""
    import warnings
    arrays = make_inputs(case)
    args = [_to_spore(a) for a in arrays]
    want = case.fn(*args, **case.kwargs)
    compiled = ms.jit(lambda *ts: case.fn(*ts, **case.kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = compiled(*args)
    _assert_same(got, want, f"{case} under jit")
    fallbacks = ms.jit_report(compiled).fallbacks
    if not (with_grad and case.grad):
        return fallbacks
    arrays = make_inputs(case, dtype=np.float64)
    args = [_to_spore(a) for a in arrays]
    argnums = case.grad_argnums
    if argnums is None:
        argnums = [i for i, a in enumerate(arrays)
                   if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    probe = case.fn(*args, **case.kwargs)
    probes = probe if isinstance(probe, (tuple, list)) else (probe,)
    rng = np.random.default_rng(1)
    weights = [rng.uniform(0.5, 1.5, size=p.shape) if p._data.dtype.kind == "f" else None
               for p in probes]

    def loss(*ts):
        return _weighted_sum(case.fn(*ts, **case.kwargs), weights)
    grad_fn = ms.ops.grad(loss, grad_position=tuple(argnums))
    want = grad_fn(*args)
    compiled = ms.jit(grad_fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = compiled(*args)
    _assert_same(got, want, f"{case}: gradient under jit")
    # grad of a compiled function: one JitCall whose rule is a compiled backward graph
    inner = ms.jit(lambda *ts: case.fn(*ts, **case.kwargs))
    across = ms.ops.grad(lambda *ts: _weighted_sum(inner(*ts), weights),
                         grad_position=tuple(argnums))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = across(*args)
    _assert_close_tree(got, want, f"{case}: gradient across the jit boundary")
    return fallbacks + ms.jit_report(compiled).fallbacks + ms.jit_report(inner).fallbacks


def table_tests(cases, *, grad=True):
    """The op-table checks of ``cases`` as pytest test functions, for a family test
    file to bind at module level::

        test_forward, test_infer_matches_kernel, test_gradient = table_tests(ALL)

    ``grad=False`` leaves out ``test_gradient`` (a table of non-differentiable ops).
    """
    @pytest.mark.parametrize("case", cases, ids=case_id)
    def test_forward(case):
        run_forward(case)

    @pytest.mark.parametrize("case", cases, ids=case_id)
    def test_infer_matches_kernel(case):
        run_infer(case)

    @pytest.mark.parametrize("case", cases, ids=case_id)
    def test_jit_matches_pynative(case):
        fallbacks = run_jit(case, with_grad=grad)
        if case.name not in JIT_FALLBACK_OK:
            assert not fallbacks, f"{case} fell back to PyNative under jit: {fallbacks}"

    if not grad:
        return test_forward, test_infer_matches_kernel, test_jit_matches_pynative

    @pytest.mark.parametrize("case", [c for c in cases if c.grad], ids=case_id)
    def test_gradient(case):
        run_grad(case)
    return test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative


# Ops whose output shape depends on their values (MindSpore's dynamic-shape ops): a
# compiled function that uses them runs in PyNative, naming the op.
JIT_FALLBACK_OK = {"masked_select", "masked_select-broadcast"}
