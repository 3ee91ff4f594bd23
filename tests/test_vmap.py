"""ms.vmap / ops.vmap: in_axes and out_axes structures, Cells, nesting, composition with
grad and jit, random ops, in-place writes, and the errors MindSpore 2.10 gives (probed:
its messages are kept; it raises RuntimeError where Spore raises ValueError/TypeError)."""
from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor

X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.arange(3, dtype=np.float32)


def t(a):
    return Tensor(np.asarray(a))


def test_exported_under_both_names():
    assert ms.vmap is ops.vmap


# --------------------------------------------------------------------------- in_axes
def test_default_maps_every_argument_over_axis_0():
    got = ops.vmap(lambda a, b: a * b)(t(X), t(X))
    np.testing.assert_array_equal(got.asnumpy(), X * X)


def test_none_shares_an_argument_across_the_batch():
    got = ops.vmap(lambda a, b: a * b, in_axes=(0, None))(t(X), t(Y))
    np.testing.assert_array_equal(got.asnumpy(), X * Y)        # MindSpore: [0 1 4 0 4 10]


def test_in_axes_list_and_negative_axis():
    got = ops.vmap(lambda a, b: a * b, in_axes=[0, None])(t(X), t(Y))
    np.testing.assert_array_equal(got.asnumpy(), X * Y)
    got = ops.vmap(lambda a: a.sum(), in_axes=-1)(t(X))
    np.testing.assert_array_equal(got.asnumpy(), [3.0, 5.0, 7.0])


def test_in_axes_one_maps_over_the_second_axis():
    got = ops.vmap(lambda a: a.sum(), in_axes=1)(t(X))
    np.testing.assert_array_equal(got.asnumpy(), [3.0, 5.0, 7.0])
    got = ops.vmap(lambda a: a.sum(), in_axes=(1,))(t(X))
    np.testing.assert_array_equal(got.asnumpy(), [3.0, 5.0, 7.0])


def test_the_function_sees_one_example():
    seen = []

    def f(a):
        seen.append((a.shape, a.ndim, a.dtype, a.size))
        return a
    ops.vmap(f)(t(np.ones((4, 2, 3), np.float32)))
    assert seen == [((2, 3), 2, ms.float32, 6)]


def test_nested_in_axes_for_tuple_and_list_arguments():
    f = lambda p: p[0] + p[1]                                   # noqa: E731
    want = X + X
    got = ops.vmap(f, in_axes=((0, 1),))((t(X), t(X.T)))
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = ops.vmap(f, in_axes=([0, 1],))([t(X), t(X.T)])
    np.testing.assert_array_equal(got.asnumpy(), want)
    got = ops.vmap(f, in_axes=(0,))((t(X), t(X)))              # an int covers the tuple
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_dict_arguments_and_dict_in_axes():
    """A superset of MindSpore 2.10, which rejects dicts: keys matched, ints broadcast."""
    f = lambda d: d["a"] * d["b"]                               # noqa: E731
    got = ops.vmap(f, in_axes=({"a": 0, "b": None},))({"a": t(X), "b": t(Y)})
    np.testing.assert_array_equal(got.asnumpy(), X * Y)
    got = ops.vmap(f)({"a": t(X), "b": t(X)})
    np.testing.assert_array_equal(got.asnumpy(), X * X)


def test_python_numbers_and_keyword_arguments_are_shared():
    got = ops.vmap(lambda a, n: a * n, in_axes=(0, None))(t(X), 3)
    np.testing.assert_array_equal(got.asnumpy(), X * 3)
    got = ops.vmap(lambda a, b=1: a * b)(t(X), b=2)
    np.testing.assert_array_equal(got.asnumpy(), X * 2)


# --------------------------------------------------------------------------- out_axes
def test_out_axes_moves_the_batch_axis():
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    got = ops.vmap(lambda a: a * 2, out_axes=1)(t(x))
    assert got.shape == (3, 2, 4)
    np.testing.assert_array_equal(got.asnumpy(), np.moveaxis(x * 2, 0, 1))
    got = ops.vmap(lambda a: a * 2, out_axes=-1)(t(X))
    np.testing.assert_array_equal(got.asnumpy(), (X * 2).T)


def test_tuple_and_nested_outputs():
    def f(a):
        return a, (a * 2, a.sum())
    got = ops.vmap(f, out_axes=(0, (1, 0)))(t(X))
    np.testing.assert_array_equal(got[0].asnumpy(), X)
    np.testing.assert_array_equal(got[1][0].asnumpy(), (X * 2).T)
    np.testing.assert_array_equal(got[1][1].asnumpy(), X.sum(1))


def test_list_results_come_back_as_a_tuple():
    got = ops.vmap(lambda a: [a, a * 2])(t(X))
    assert isinstance(got, tuple) and len(got) == 2


def test_dict_results_and_dict_out_axes():
    got = ops.vmap(lambda a: {"s": a * 3, "m": a.sum()}, out_axes={"s": 1, "m": 0})(t(X))
    assert got["s"].shape == (3, 2) and got["m"].shape == (2,)


def test_unbatched_results_are_broadcast_or_kept_with_none():
    got = ops.vmap(lambda a, b: b, in_axes=(0, None))(t(X), t(Y))
    np.testing.assert_array_equal(got.asnumpy(), np.stack([Y, Y]))   # MindSpore: broadcast
    a, b = ops.vmap(lambda a, b: (a + 1, b * 2), in_axes=(0, None),
                    out_axes=(0, None))(t(X), t(Y))
    assert a.shape == (2, 3) and b.shape == (3,)
    np.testing.assert_array_equal(b.asnumpy(), Y * 2)


def test_a_constant_result_is_broadcast_to_a_tensor():
    got = ops.vmap(lambda a: 1)(t(X))
    assert got.dtype == ms.int64 and got.asnumpy().tolist() == [1, 1]    # as MindSpore


# --------------------------------------------------------------------------- Cells
class Scale(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.full((3,), 2.0, np.float32)), name="w")

    def construct(self, a):
        return a * self.w


def test_a_cell_maps_with_its_parameters_shared():
    got = ops.vmap(Scale())(t(X))
    np.testing.assert_array_equal(got.asnumpy(), X * 2)


def test_dense_over_a_batch_of_batches():
    net = nn.Dense(3, 4)
    x = np.random.default_rng(0).normal(size=(5, 2, 3)).astype(np.float32)
    got = ops.vmap(net)(t(x))
    want = np.stack([net(t(x[i])).asnumpy() for i in range(5)])
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_per_example_weight_gradients():
    """vmap(grad(loss, weights)): one gradient of the shared weights per example."""
    net = nn.Dense(3, 2)
    rng = np.random.default_rng(0)
    x, y = t(rng.normal(size=(4, 3)).astype(np.float32)), t(rng.normal(size=(4, 2)).astype(np.float32))
    loss = lambda a, b: ((net(a) - b) ** 2).sum()              # noqa: E731
    g = ops.grad(loss, grad_position=None, weights=net.trainable_params())
    per = ops.vmap(g)(x, y)
    assert [p.shape for p in per] == [(4, 2, 3), (4, 2)]
    for i in range(4):
        want = g(x[i], y[i])
        for p, w in zip(per, want):
            np.testing.assert_allclose(p.asnumpy()[i], w.asnumpy(), rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- nesting
def test_vmap_of_vmap():
    got = ops.vmap(ops.vmap(lambda a, b: a * b))(t(X), t(X))
    np.testing.assert_array_equal(got.asnumpy(), X * X)
    outer = ops.vmap(ops.vmap(lambda a, b: a * b, in_axes=(0, None)), in_axes=(None, 0))
    got = outer(t(Y), t(X))
    assert got.shape == (2, 3, 3)                               # as MindSpore
    np.testing.assert_array_equal(got.asnumpy(), X[:, None, :] * Y[:, None])


def test_nested_out_axes():
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    got = ops.vmap(ops.vmap(lambda a: a * 2, out_axes=1))(t(x))
    np.testing.assert_array_equal(got.asnumpy(), np.swapaxes(x * 2, 1, 2))


def test_pairwise_distances_by_nesting():
    a = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    b = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    dist = lambda u, v: ops.sqrt(((u - v) ** 2).sum())          # noqa: E731
    got = ops.vmap(ops.vmap(dist, in_axes=(None, 0)), in_axes=(0, None))(t(a), t(b))
    want = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


# --------------------------------------------------------------------------- grad and jit
def f(a):
    return (ops.sin(a) * a).sum()


X64 = np.linspace(0.0, 1.0, 6).reshape(2, 3)
DF = np.cos(X64) * X64 + np.sin(X64)                 # d/da sum(sin(a) a)
D2F = 2 * np.cos(X64) - X64 * np.sin(X64)            # its diagonal second derivative


def test_vmap_of_grad_and_grad_of_vmap():
    np.testing.assert_allclose(ops.vmap(ops.grad(f))(t(X64)).asnumpy(), DF, rtol=1e-12)
    got = ops.grad(lambda a: ops.vmap(f)(a).sum())(t(X64))
    np.testing.assert_allclose(got.asnumpy(), DF, rtol=1e-12)


def test_grad_of_vmap_with_respect_to_a_shared_argument():
    """The shared argument's gradient sums over the examples."""
    g = ops.grad(lambda a, b: ops.vmap(lambda u, v: (u * v).sum(), in_axes=(0, None))(a, b)
                 .sum(), grad_position=(0, 1))(t(X64), t(X64[0]))
    np.testing.assert_allclose(g[0].asnumpy(), np.broadcast_to(X64[0], X64.shape))
    np.testing.assert_allclose(g[1].asnumpy(), X64.sum(0))


def test_grad_of_vmap_of_grad():
    """A tape started inside vmap records above the batching handler, the outer one below."""
    got = ops.grad(lambda a: ops.vmap(ops.grad(f))(a).sum())(t(X64))
    np.testing.assert_allclose(got.asnumpy(), D2F, rtol=1e-12)


def test_value_and_grad_under_vmap():
    loss, g = ops.vmap(ops.value_and_grad(f))(t(X64))
    np.testing.assert_allclose(loss.asnumpy(), (np.sin(X64) * X64).sum(1), rtol=1e-12)
    np.testing.assert_allclose(g.asnumpy(), DF, rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: ms.jit(ops.vmap(f)),
    lambda: ms.jit(lambda a: ops.vmap(f)(a)),
], ids=["jit(vmap)", "vmap-inside-jit"])
def test_compiled_without_falling_back(make):
    compiled = make()
    np.testing.assert_allclose(compiled(t(X64)).asnumpy(), (np.sin(X64) * X64).sum(1))
    assert ms.jit_report(compiled).fallbacks == []


def test_grad_compositions_compiled():
    for fn in (lambda a: ops.grad(lambda b: ops.vmap(f)(b).sum())(a),
               lambda a: ops.vmap(ops.grad(f))(a)):
        compiled = ms.jit(fn)
        np.testing.assert_allclose(compiled(t(X64)).asnumpy(), DF, rtol=1e-12)
        assert ms.jit_report(compiled).fallbacks == []


def test_grad_across_a_compiled_vmap():
    compiled = ms.jit(lambda a: ops.vmap(f)(a).sum())
    np.testing.assert_allclose(ops.grad(compiled)(t(X64)).asnumpy(), DF, rtol=1e-12)
    assert ms.jit_report(compiled).fallbacks == []


def test_vmap_in_a_cell_in_graph_mode():
    class Net(nn.Cell):
        def construct(self, x):
            return ops.vmap(lambda r: (r * r).sum())(x)
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = Net()(t(X64))
    finally:
        ms.set_context(mode=mode)
    np.testing.assert_allclose(got.asnumpy(), (X64 * X64).sum(1))


def test_a_compiled_function_under_vmap_runs_batched():
    got = ops.vmap(ms.jit(f))(t(X64))
    np.testing.assert_allclose(got.asnumpy(), (np.sin(X64) * X64).sum(1), rtol=1e-12)


# --------------------------------------------------------------------------- random ops
def _dropout(a):
    return ops.dropout(a, p=0.5)


@pytest.mark.parametrize("wrap", [lambda g: g, ms.jit], ids=["pynative", "jit"])
def test_each_example_draws_its_own_numbers(wrap):
    ones = t(np.ones((4, 64), np.float32))
    masks = wrap(ops.vmap(_dropout))(ones).asnumpy()
    assert len({m.tobytes() for m in masks}) == 4
    noise = wrap(ops.vmap(lambda a: a + ops.standard_normal((64,))))(t(np.zeros((4, 64), np.float32)))
    assert len({r.tobytes() for r in noise.asnumpy()}) == 4


def test_nested_random_draws_are_all_distinct():
    masks = ops.vmap(ops.vmap(_dropout))(t(np.ones((3, 3, 64), np.float32))).asnumpy()
    assert len({m.tobytes() for m in masks.reshape(9, 64)}) == 9


def test_one_example_draws_what_the_plain_call_draws():
    ms.set_seed(5)
    got = ops.vmap(_dropout)(t(np.ones((1, 16), np.float32)))
    ms.set_seed(5)
    want = _dropout(t(np.ones((16,), np.float32)))
    np.testing.assert_array_equal(got.asnumpy()[0], want.asnumpy())


# --------------------------------------------------------------------------- in-place writes
def test_writes_into_a_batched_tensor():
    def f(a, b):
        c = a * 1
        c[0] = 7.0
        c.copy_(c + b)
        return c
    got = ops.vmap(f)(t(X), t(X))
    want = X * 1
    want[:, 0] = 7.0
    np.testing.assert_array_equal(got.asnumpy(), want + X)


def test_writes_into_a_tensor_mapped_over_another_axis():
    def write(a):
        a[0] = 5.0
        return a

    def write_copy(a):
        b = a * 1
        b[0] = 5.0
        return b
    x = np.ones((2, 3), np.float32)
    with pytest.raises(RuntimeError, match="mapped over axis 1 of its argument"):
        ops.vmap(write, in_axes=1)(t(x))
    got = ops.vmap(write_copy, in_axes=1)(t(x))
    np.testing.assert_array_equal(got.asnumpy(), [[5.0, 1.0]] * 3)


def test_writing_per_example_values_into_a_shared_tensor_is_refused():
    shared = ms.Parameter(t(Y), name="shared")

    def f(a):
        ops.assign(shared, a)
        return a
    with pytest.raises(RuntimeError, match="'Assign' cannot run over a batch"):
        ops.vmap(f)(t(X))


# --------------------------------------------------------------------------- errors
def test_mismatched_axis_sizes():
    with pytest.raises(ValueError, match=r"'axis_size' of each argument in the scope of "
                                         r"'vmap' should be equal, but got 2 and 3"):
        ops.vmap(lambda a, b: a + b)(t(X), t(Y))


def test_in_axes_errors():
    add = lambda a, b: a + b                                    # noqa: E731
    with pytest.raises(ValueError, match="must be equal to the number of arguments of "
                                         "'fn': 2, but got size: 3"):
        ops.vmap(add, in_axes=(0, 0, 0))(t(X), t(X))
    for bad in ("a", 1.0, True):
        with pytest.raises(TypeError, match="can only be of type Int or None"):
            ops.vmap(add, in_axes=bad)
    with pytest.raises(ValueError, match=r"The axis: 5 in 'in_axes' is out of bounds for "
                                         r"array of dimension \[-2,2\)"):
        ops.vmap(lambda a: a, in_axes=5)(t(X))
    with pytest.raises(ValueError, match="cannot be a single None"):
        ops.vmap(add, in_axes=None)
    with pytest.raises(ValueError, match="must be a Tensor, but got int"):
        ops.vmap(lambda a, n: a * n)(t(X), 3)
    with pytest.raises(ValueError, match="failed to get 'axis_size'"):
        ops.vmap(lambda a: a, in_axes=(None,))(t(X))
    with pytest.raises(ValueError, match="2 entries for a tuple of 3"):
        ops.vmap(lambda p: p[0], in_axes=((0, 1),))((t(X), t(X), t(X)))
    with pytest.raises(ValueError, match=r"dimension \[0,0\)"):
        ops.vmap(lambda a: a)(t(np.float32(1.0)))


def test_out_axes_errors():
    with pytest.raises(ValueError, match="'out_axes' of 'vmap' cannot be a single None"):
        ops.vmap(lambda a: a, out_axes=None)
    with pytest.raises(ValueError, match="cannot be all None"):
        ops.vmap(lambda a: (a, a), out_axes=(None, None))
    with pytest.raises(ValueError, match="number of results of 'fn': 2, but got size: 3"):
        ops.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(t(X))
    with pytest.raises(ValueError, match=r"The axis: 3 in 'out_axes' is out of bounds for "
                                         r"array of dimension \[-2,2\)"):
        ops.vmap(lambda a: a, out_axes=3)(t(X))
    with pytest.raises(ValueError, match="must not depend on the mapped inputs"):
        ops.vmap(lambda a: (a, a), out_axes=(0, None))(t(X))
    with pytest.raises(TypeError, match="consisting of tensors or constants"):
        ops.vmap(lambda a: None)(t(X))


def test_fn_must_be_callable():
    with pytest.raises(TypeError, match="'fn' must be a function or a Cell"):
        ops.vmap(3)


def test_reading_batched_values_on_the_host_is_refused():
    """As MindSpore (a Python if on a batched value: 'the source axis of args in Switch
    must be None'): the examples' values differ."""
    def branch(a):
        return a if a.sum() > 3 else -a
    with pytest.raises(ValueError, match="bool\\(\\) of a tensor .* mapped over a batch"):
        ops.vmap(branch)(t(X))
    with pytest.raises(ValueError, match="asnumpy"):
        ops.vmap(lambda a: a.asnumpy())(t(X))
    seen = []
    ops.vmap(lambda a: seen.append(getattr(a._data, "flags", None)) or a)(t(X))
    assert seen == [None]          # optional attributes read with a default stay optional


def test_results_whose_shape_depends_on_values():
    mask = t(np.array([[True, False, True], [False, False, True]]))
    with pytest.raises(ValueError, match="different shapes for different examples"):
        ops.vmap(ops.masked_select)(t(X), mask)


# --------------------------------------------------------------------------- rules and loops
def test_an_elementwise_primitive_defined_later_gets_the_broadcasting_rule():
    from spore._core.aval import ShapedArray
    from spore._core.primitive import Primitive
    from spore._prims._batching import rule_for
    from spore._core import primitive as P
    cube = Primitive("TestVmapCube", lambda xp: lambda a: a * a * a, kind="elementwise",
                     infer=lambda attrs, a: ShapedArray(a.shape, a.dtype))
    try:
        got = ops.vmap(cube, in_axes=1)(t(X))
        np.testing.assert_array_equal(got.asnumpy(), (X ** 3).T)
        assert rule_for(cube) is not None
    finally:
        del P.REGISTRY["TestVmapCube"]     # the registry is global: leave it as found


def test_the_loop_fallback_compiles_and_differentiates():
    x = np.random.default_rng(0).normal(size=(4, 3, 5))
    per = lambda a: ops.median(a, axis=-1)[0] * 2               # noqa: E731 (Median loops)
    want = np.stack([per(t(x[i])).asnumpy() for i in range(4)])
    compiled = ms.jit(ops.vmap(per))
    np.testing.assert_allclose(compiled(t(x)).asnumpy(), want, rtol=1e-12)
    assert ms.jit_report(compiled).fallbacks == []
    g = ops.grad(lambda a: ops.vmap(per)(a).sum())(t(x))
    for i in range(4):
        np.testing.assert_allclose(g.asnumpy()[i], ops.grad(lambda a: per(a).sum())(t(x[i])).asnumpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_nll_loss_reduces_each_example_on_its_own(reduction, weighted, ignore_index, monkeypatch):
    """One NLLLoss call over every example's samples, reduced per example (example 1's
    targets are all ignored with ignore_index=2: its mean is 0/0 = nan, as alone)."""
    from spore._autodiff import vmap as V
    looped = []
    original = V.loop
    monkeypatch.setattr(V, "loop", lambda prim, *a, **k: looped.append(prim.name)
                        or original(prim, *a, **k))
    rng = np.random.default_rng(0)
    logits = t(rng.normal(size=(4, 3, 5)))
    labels = t(np.array([[1, 0, 4], [2, 2, 2], [0, 1, 3], [4, 4, 0]], np.int32))
    weight = t(rng.uniform(0.5, 1.5, 5)) if weighted else None
    f = lambda x, y: ops.nll_loss(x, y, weight=weight, reduction=reduction,   # noqa: E731
                                  ignore_index=ignore_index)
    got = ops.vmap(f)(logits, labels)
    shared = ops.vmap(f, in_axes=(0, None))(logits, labels[0])
    grads = ops.grad(lambda x: ops.vmap(f)(x, labels).sum())(logits)
    assert looped == []
    for i in range(4):
        np.testing.assert_allclose(got.asnumpy()[i], f(logits[i], labels[i]).asnumpy(),
                                   rtol=1e-12, equal_nan=True)
        np.testing.assert_allclose(shared.asnumpy()[i], f(logits[i], labels[0]).asnumpy(),
                                   rtol=1e-12, equal_nan=True)
        want = ops.grad(lambda x: f(x, labels[i]).sum())(logits[i])
        np.testing.assert_allclose(grads.asnumpy()[i], want.asnumpy(), rtol=1e-12,
                                   equal_nan=True)


# --------------------------------------------------------------------------- model ensembling
class Lin(nn.Cell):
    def __init__(self, k):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.full((3,), float(k), np.float32)), name="w")

    def construct(self, a):
        return a * self.w


def test_a_celllist_runs_its_models_as_one_batch():
    """MindSpore's model ensembling: model i on example i, or every model on the same
    input with in_axes=None (probed: [[0 1 2] [0 2 4] [0 3 6]])."""
    models = nn.CellList([Lin(1), Lin(2), Lin(3)])
    got = ops.vmap(models, in_axes=None)(t(Y))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 1, 2], [0, 2, 4], [0, 3, 6]])
    got = ops.vmap(models, in_axes=0)(t(np.arange(9, dtype=np.float32).reshape(3, 3)))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 1, 2], [6, 8, 10], [18, 21, 24]])
    got = ops.vmap(models, in_axes=None, out_axes=1)(t(Y))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 0, 0], [1, 2, 3], [2, 4, 6]])
    assert all(isinstance(m.w, ms.Parameter) for m in models)     # put back afterwards


def test_ensemble_of_dense_networks_and_their_gradients():
    models = nn.CellList([nn.SequentialCell(nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2))
                          for _ in range(3)])
    x = t(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    got = ops.vmap(models, in_axes=None)(x)
    want = np.stack([m(x).asnumpy() for m in models])
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, atol=1e-6)
    params = models.trainable_params()
    loss = lambda a: ops.vmap(models, in_axes=None)(a).sum()     # noqa: E731
    grads = ops.grad(loss, grad_position=None, weights=params)(x)
    for k, m in enumerate(models):
        own = ops.grad(lambda a: m(a).sum(), grad_position=None, weights=m.trainable_params())(x)
        for g, w in zip(grads[4 * k:4 * k + 4], own):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6, atol=1e-6)
    compiled = ms.jit(lambda a: ops.vmap(models, in_axes=None)(a))
    np.testing.assert_allclose(compiled(x).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_ensemble_errors():
    with pytest.raises(ValueError, match="consistent with the cell size of the input "
                                         "'CellList'.*axis_size: 3 and the cell size: 2"):
        ops.vmap(nn.CellList([Lin(1), Lin(2)]))(t(np.ones((3, 3), np.float32)))
    with pytest.raises(ValueError, match="Parameter size of each cell should be consistent, "
                                         "but get 1 and 2"):
        ops.vmap(nn.CellList([Lin(1), nn.Dense(3, 3)]), in_axes=None)
    with pytest.raises(ValueError, match="the size of 'CellList' must be greater than 1, "
                                         "but got 1"):
        ops.vmap(nn.CellList([Lin(1)]), in_axes=None)


def test_per_example_gradients_of_a_cnn_loop_only_for_the_filter_gradient(monkeypatch):
    """Convolution, pooling and their input gradients fold the batch into the samples
    axis; the filter gradient (one per example) is the only primitive that loops."""
    from spore._autodiff import vmap as V
    looped = []
    original = V.loop
    monkeypatch.setattr(V, "loop", lambda prim, *a, **k: looped.append(prim.name)
                        or original(prim, *a, **k))
    rng = np.random.default_rng(0)
    net = nn.SequentialCell(nn.Conv2d(1, 4, 3, pad_mode="same"), nn.ReLU(),
                            nn.MaxPool2d(2, 2), nn.AvgPool2d(2, 2), nn.Flatten(),
                            nn.Dense(4 * 2 * 2, 3))
    x = t(rng.normal(size=(5, 1, 1, 8, 8)).astype(np.float32))
    y = t(rng.normal(size=(5, 1, 3)).astype(np.float32))
    g = ops.grad(lambda a, b: ((net(a) - b) ** 2).sum(), grad_position=0,
                 weights=net.trainable_params())
    from spore import _native
    with _native.disabled():          # the NumPy kernels: no loops to compile here
        gx, gw = ops.vmap(g)(x, y)
    assert looped == ["Conv2DBackpropFilter"]
    for i in range(5):
        with _native.disabled():
            want_x, want_w = g(x[i], y[i])
        np.testing.assert_allclose(gx.asnumpy()[i], want_x.asnumpy(), rtol=1e-5, atol=1e-6)
        for got, want in zip(gw, want_w):
            np.testing.assert_allclose(got.asnumpy()[i], want.asnumpy(), rtol=1e-5, atol=1e-6)
