"""ms.jit on functions: compile once, run generated code, same numbers as PyNative."""
import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from spore._core import primitive as P
from spore._jit import CompileError


def _t(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


class _CountDispatch:
    """Counts calls through the dispatch point (an eager op call or a trace)."""

    def __init__(self):
        self.n = 0

    def __enter__(self):
        def make(below):
            def handler(prim, args, attrs):
                self.n += 1
                return below(prim, args, attrs)
            return handler
        self._scope = P.handler_scope(make)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)


def rigid_compute(x, y):
    z = x
    for _ in range(10):
        z = ops.tanh(ops.matmul(z, y))
    return z


def test_compiled_equals_pynative_and_captures_once():
    f = ms.jit(rigid_compute)
    x, y = _t(8, 8), _t(8, 8, seed=1) * 0.3
    want = rigid_compute(x, y)
    for _ in range(5):
        np.testing.assert_array_equal(f(x, y).asnumpy(), want.asnumpy())
    report = ms.jit_report(f)
    assert report.compiled == 1 and not report.fallbacks
    assert report.kernel_count == 20


def test_cached_call_dispatches_no_op():
    f = ms.jit(rigid_compute)
    x, y = _t(4, 4), _t(4, 4, seed=1)
    f(x, y)
    # a cached call runs generated code only: nothing reaches the dispatch point.
    # (jit runs the Python function when a handler is installed, so count with the
    # class-level hook instead of a handler: patch Primitive.__call__.)
    calls = []
    orig = P.Primitive.__call__
    P.Primitive.__call__ = lambda self, *a, **k: (calls.append(self.name), orig(self, *a, **k))[1]
    try:
        f(x, y)
    finally:
        P.Primitive.__call__ = orig
    assert calls == []


def test_new_shape_or_static_value_compiles_again():
    f = ms.jit(lambda x, n: x * n)
    f(_t(3), 2.0)
    f(_t(3), 2.0)
    f(_t(4), 2.0)
    out = f(_t(3), 3.0)
    np.testing.assert_allclose(out.asnumpy(), _t(3).asnumpy() * 3.0, rtol=1e-6)
    assert ms.jit_report(f).compiled == 3


def test_closure_and_global_tensors_are_read_at_every_call():
    w = ms.Parameter(Tensor(np.ones(3, np.float32)), name="w")
    f = ms.jit(lambda x: x * w)
    x = _t(3)
    np.testing.assert_array_equal(f(x).asnumpy(), x.asnumpy())
    ops.assign(w, Tensor(np.full(3, 2.0, np.float32)))
    np.testing.assert_array_equal(f(x).asnumpy(), 2 * x.asnumpy())
    w.set_data(Tensor(np.full(3, 3.0, np.float32)))     # replaces the array: recaptured
    np.testing.assert_array_equal(f(x).asnumpy(), 3 * x.asnumpy())


def test_a_closure_that_is_also_the_argument_is_that_argument():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    f = ms.jit(lambda t: t * x)
    np.testing.assert_array_equal(f(x).asnumpy(), [1, 4, 9])
    y = Tensor(np.array([2.0, 2.0, 2.0], np.float32))
    np.testing.assert_array_equal(f(y).asnumpy(), [2, 4, 6])   # not y * y
    np.testing.assert_array_equal(f(x).asnumpy(), [1, 4, 9])


def test_argument_structures_and_outputs():
    @ms.jit
    def f(pair, d, *, scale=1.0):
        a, b = pair
        return {"sum": (a + b) * scale, "items": [a, d["k"]], "n": 3}
    a, b, c = _t(2), _t(2, seed=1), _t(2, seed=2)
    out = f((a, b), {"k": c}, scale=2.0)
    np.testing.assert_allclose(out["sum"].asnumpy(), (a.asnumpy() + b.asnumpy()) * 2, rtol=1e-6)
    assert out["items"][0] is a and out["items"][1] is c   # inputs come back as themselves
    assert out["n"] == 3


def test_same_object_twice_is_one_input():
    f = ms.jit(lambda a, b: a * b)
    x = _t(3)
    np.testing.assert_allclose(f(x, x).asnumpy(), x.asnumpy() ** 2, rtol=1e-6)
    y = _t(3, seed=1)
    np.testing.assert_allclose(f(x, y).asnumpy(), x.asnumpy() * y.asnumpy(), rtol=1e-6)


def test_in_place_writes_to_arguments_happen_like_pynative():
    def f(x, v):
        x[0] = v
        ops.assign(v, v * 2)
        return x.sum() + v.sum()
    for fn in (f, ms.jit(f)):
        x = Tensor(np.zeros((2, 2), np.float32))
        v = Tensor(np.ones(2, np.float32))
        out = fn(x, v)
        np.testing.assert_array_equal(x.asnumpy(), [[1, 1], [0, 0]])
        np.testing.assert_array_equal(v.asnumpy(), [2, 2])
        assert float(out.asnumpy()) == 6.0


def test_write_through_a_view_is_seen_like_pynative():
    def f(x):
        y = x.reshape((4,))
        ops.assign(x, x + 1)
        return y * 1
    a, b = Tensor(np.zeros((2, 2), np.float32)), Tensor(np.zeros((2, 2), np.float32))
    np.testing.assert_array_equal(ms.jit(f)(a).asnumpy(), f(b).asnumpy())


def test_randomness_is_fresh_each_call_and_follows_pynative():
    def f(x):
        return ops.dropout(x, p=0.5) + ops.rand_like(x)
    x = Tensor(np.ones((64,), np.float32))
    ms.set_seed(7)
    eager = [f(x).asnumpy() for _ in range(3)]
    ms.set_seed(7)
    jf = ms.jit(f)
    compiled = [jf(x).asnumpy() for _ in range(3)]
    for e, c in zip(eager, compiled):
        np.testing.assert_array_equal(e, c)
    assert not np.array_equal(compiled[0], compiled[1])


def test_fallback_warns_once_with_file_line_and_runs_pynative():
    def f(x):
        return x + float(x.sum().asnumpy())
    jf = ms.jit(f)
    x = _t(3)
    with pytest.warns(RuntimeWarning, match=r"test_jit_api\.py:\d+: Tensor\.asnumpy\(\)"):
        out = jf(x)
    np.testing.assert_allclose(out.asnumpy(), f(x).asnumpy(), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jf(x)                                  # decided once: no second warning
    (fb,) = ms.jit_report(jf).fallbacks
    assert fb.filename.endswith("test_jit_api.py") and "asnumpy" in fb.construct
    assert "float(x.sum().asnumpy())" in fb.source


def test_fullgraph_makes_a_fallback_an_error_at_the_users_line():
    @ms.jit(fullgraph=True)
    def f(x):
        return x + np.sin(x.asnumpy())
    with pytest.raises(CompileError, match=r"test_jit_api\.py:\d+: Tensor\.asnumpy\(\)") as e:
        f(_t(3))
    assert "np.sin(x.asnumpy())" in str(e.value)


def test_aborted_trace_leaves_the_random_state_alone():
    def f(x):
        y = ops.rand_like(x)
        return y + float(y.sum().asnumpy())
    ms.set_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ms.jit(f)(_t(2))
    after_jit = ops.rand_like(_t(2)).asnumpy()
    ms.set_seed(3)
    f(_t(2))
    np.testing.assert_array_equal(after_jit, ops.rand_like(_t(2)).asnumpy())


def test_error_in_compiled_code_names_the_users_line():
    @ms.jit
    def f(x, i):
        return ops.gather(x, i, 0)
    x = _t(3)
    f(x, Tensor(np.array([0], np.int32)))
    with pytest.raises(Exception) as e:
        f(x, Tensor(np.array([7], np.int32)))
    notes = "\n".join(getattr(e.value, "__notes__", []))
    assert "test_jit_api.py" in notes and "ops.gather(x, i, 0)" in notes


def test_grad_of_a_compiled_function_equals_grad_of_the_function():
    f = lambda x, y: (ops.tanh(x * y) ** 2).sum()      # noqa: E731
    x, y = _t(3), _t(3, seed=1)
    want = ops.grad(f, grad_position=(0, 1))(x, y)
    got = ops.grad(ms.jit(f), grad_position=(0, 1))(x, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_grad_inside_jit_lands_in_one_graph():
    f = lambda x: (ops.sin(x) * x).sum()                # noqa: E731
    g = ms.jit(ops.grad(f))
    x = _t(5)
    np.testing.assert_array_equal(g(x).asnumpy(), ops.grad(f)(x).asnumpy())
    names = [n.prim.name for n in ms.jit_report(g).graphs[0].nodes]
    assert "Sin" in names and "Cos" in names


def test_ops_print_prints_at_every_call(capsys):
    @ms.jit
    def f(x):
        ops.Print()("value:", x)
        return x + 1
    x = Tensor(np.array([1.0], np.float32))
    f(x)
    f(x)
    assert capsys.readouterr().out.count("value:") == 2


def test_depend_keeps_the_write_before_the_read():
    v = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="v")

    @ms.jit
    def f(x):
        w = ops.assign(v, x)
        return ops.depend(v * 2, w)
    np.testing.assert_array_equal(f(Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])


def test_jit_decorator_forms_and_config():
    assert ms.ms_function is ms.jit
    f = ms.jit(jit_level="O0")(lambda x: x + 1)
    assert float(f(Tensor(np.array(1.0, np.float32))).asnumpy()) == 2.0
    with pytest.raises(ValueError, match="capture_mode"):
        ms.jit(lambda x: x, capture_mode="magic")
    with pytest.raises(ValueError, match="jit_level"):
        ms.JitConfig(jit_level="O9")
    with pytest.raises(TypeError, match="jit_report"):
        ms.jit_report(lambda x: x)


def test_cells_built_inside_a_compiled_function_are_built_once():
    made = []

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            made.append(1)
            self.fc = nn.Dense(4, 2)

        def construct(self, x):
            return self.fc(x)

    @ms.jit
    def run(x):
        return Net()(x)
    x = _t(3, 4)
    a = run(x)
    b = run(x)
    assert len(made) == 1
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_repeated_recompiles_warn_naming_the_argument():
    f = ms.jit(lambda x: x + 1)
    with pytest.warns(RuntimeWarning, match="argument 0"):
        for n in range(1, 10):
            f(_t(n))


def test_gradients_follow_object_identity_inside_jit_as_in_pynative():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g = ops.grad(lambda t: (t * x).sum())
    np.testing.assert_array_equal(g(x).asnumpy(), [2, 4, 6])          # PyNative
    jg = ms.jit(g)
    np.testing.assert_array_equal(jg(x).asnumpy(), [2, 4, 6])         # the same compiled
    y = Tensor(np.array([5.0, 5.0, 5.0], np.float32))
    np.testing.assert_array_equal(jg(y).asnumpy(), [1, 2, 3])         # y is not x
    np.testing.assert_array_equal(jg(x).asnumpy(), [2, 4, 6])


def test_mutable_scalars_are_inputs_not_constants():
    f = ms.jit(lambda x, s: x * s)
    x = Tensor(np.ones(2, np.float32))
    for s in (3.0, 4.0, 2.5):
        np.testing.assert_array_equal(f(x, ms.mutable(s)).asnumpy(), [s, s])
    assert ms.jit_report(f).compiled == 1
    assert ms.mutable(2) == 2 and isinstance(ms.mutable(2), int)
    assert isinstance(ms.mutable((1, 2.0)), tuple)
    with pytest.raises(TypeError, match="For 'mutable'.*got ndarray"):
        ms.mutable(np.ones(2))
    with pytest.raises(TypeError, match="For 'mutable'.*got str"):
        ms.mutable("s")


def test_a_value_dependent_op_names_itself_in_the_fallback():
    f = ms.jit(lambda x: ops.unique_consecutive(x))
    with pytest.warns(RuntimeWarning, match=r"inside ops\.unique_consecutive"):
        out = f(Tensor(np.array([1, 1, 2, 2, 1], np.int32)))
    np.testing.assert_array_equal(out.asnumpy(), [1, 2, 1])


def test_a_cell_built_inside_a_compiled_function_holds_real_tensors():
    class Buffered(nn.Cell):
        def __init__(self):
            super().__init__()
            self.buf = ops.ones((3,), ms.float32) * 2      # ops in __init__ run eagerly
            self.fc = nn.Dense(3, 3)

        def construct(self, x):
            return self.fc(x) + self.buf
    made = []

    @ms.jit
    def run(x):
        cell = Buffered()
        made.append(cell)
        return cell(x)
    x = _t(2, 3)
    out = run(x)
    (cell,) = made
    np.testing.assert_array_equal(cell.buf.asnumpy(), [2, 2, 2])      # a real array
    np.testing.assert_allclose(cell(x).asnumpy(), out.asnumpy(), rtol=1e-6)


def test_compiling_one_key_does_not_hold_up_another():
    """The compile lock is per cache key: while one thread traces a (1,)-shaped call
    (held inside the traced function), another thread compiles and runs a (2,) call."""
    import threading
    started, release = threading.Event(), threading.Event()

    def f(x):
        if x.shape[0] == 1:
            started.set()
            release.wait(30)
        return x * 2
    jf = ms.jit(f)
    results = {}

    def call(n):
        results[n] = jf(Tensor(np.ones(n, np.float32))).asnumpy()
    a = threading.Thread(target=call, args=(1,))
    a.start()
    assert started.wait(30)
    b = threading.Thread(target=call, args=(2,))
    b.start()
    b.join(30)
    finished_while_a_traced = not b.is_alive()
    release.set()
    a.join(30)
    assert finished_while_a_traced
    np.testing.assert_array_equal(results[1], [2.0])
    np.testing.assert_array_equal(results[2], [2.0, 2.0])
