"""ops.grad / value_and_grad / GradOperation / vjp / jvp / jacobians: result structures.

Every expected structure below was observed on MindSpore 2.10 (CPU) with the same
function and inputs (reference notes §5.3, plus probes of GradOperation, vjp, jvp,
jacrev/jacfwd, frozen weights and non-tensor inputs run with the reference install).
"""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor, Parameter


@pytest.fixture
def setup():
    x = Tensor([1.0, 2.0])
    y = Tensor([3.0, 4.0])
    w = Parameter(Tensor([0.5, 0.5]), name="w")
    b = Parameter(Tensor([0.1]), name="b")

    def f(x, y):
        return (x * y * w).sum() + b.sum()

    def f_aux1(x, y):
        return f(x, y), x * 2

    def f_aux2(x, y):
        return f(x, y), x * 2, y + 1

    return dict(x=x, y=y, w=w, b=b, W=[w, b], f=f, f_aux1=f_aux1, f_aux2=f_aux2)


DX, DY, DW, DB = [1.5, 2.0], [0.5, 1.0], [3.0, 8.0], [1.0]
VALUE = 5.6


def structure(v):
    """Nested tuples of lists of floats / ints / strings, for exact comparison."""
    if isinstance(v, tuple):
        return tuple(structure(e) for e in v)
    if isinstance(v, Tensor):
        return np.round(v.asnumpy(), 5).tolist()
    return v


CASES = [
    # (kwargs, grad result, value_and_grad result)
    (dict(), DX, (VALUE, DX)),
    (dict(grad_position=1), DY, (VALUE, DY)),
    (dict(grad_position=(0, 1)), (DX, DY), (VALUE, (DX, DY))),
    (dict(grad_position=(0,)), DX, (VALUE, DX)),
    (dict(grad_position=None, weights="W"), (DW, DB), (VALUE, (DW, DB))),
    (dict(grad_position=0, weights="W"), (DX, (DW, DB)), (VALUE, (DX, (DW, DB)))),
    (dict(grad_position=(0, 1), weights="W"), ((DX, DY), (DW, DB)),
     (VALUE, ((DX, DY), (DW, DB)))),
    (dict(weights="w"), (DX, DW), (VALUE, (DX, DW))),
    (dict(grad_position=None, weights="w"), DW, (VALUE, DW)),
    (dict(return_ids=True), (0, DX), (VALUE, (0, DX))),
    (dict(grad_position=(0, 1), return_ids=True), ((0, DX), (1, DY)),
     (VALUE, ((0, DX), (1, DY)))),
    (dict(grad_position=None, weights="W", return_ids=True), (("w", DW), ("b", DB)),
     (VALUE, (("w", DW), ("b", DB)))),
    (dict(grad_position=0, weights="W", return_ids=True), ((0, DX), (("w", DW), ("b", DB))),
     (VALUE, ((0, DX), (("w", DW), ("b", DB))))),
    # one position other than 0 is a tuple holding its pair (position 0 is the bare pair);
    # MindSpore 2.10 puts the gradient's first element in that pair, Spore the gradient
    (dict(grad_position=1, return_ids=True), ((1, DY),), (VALUE, ((1, DY),))),
    (dict(grad_position=(1,), return_ids=True), ((1, DY),), (VALUE, ((1, DY),))),
    (dict(grad_position=(0,), return_ids=True), (0, DX), (VALUE, (0, DX))),
    (dict(grad_position=(1, 0), return_ids=True), ((1, DY), (0, DX)),
     (VALUE, ((1, DY), (0, DX)))),
    (dict(grad_position=1, weights="W", return_ids=True), (((1, DY),), (("w", DW), ("b", DB))),
     (VALUE, (((1, DY),), (("w", DW), ("b", DB))))),
    (dict(grad_position=(1,), weights="W", return_ids=True),
     (((1, DY),), (("w", DW), ("b", DB))), (VALUE, (((1, DY),), (("w", DW), ("b", DB))))),
    (dict(grad_position=None, weights="w", return_ids=True), ("w", DW), (VALUE, ("w", DW))),
]


def _resolve(kwargs, s):
    kw = dict(kwargs)
    if kw.get("weights") == "W":
        kw["weights"] = s["W"]
    elif kw.get("weights") == "w":
        kw["weights"] = s["w"]
    return kw


@pytest.mark.parametrize("kwargs, want_grad, want_vag", CASES, ids=[str(c[0]) for c in CASES])
def test_grad_and_value_and_grad_structures(setup, kwargs, want_grad, want_vag):
    s = setup
    kw = _resolve(kwargs, s)
    got = ops.grad(s["f"], **kw)(s["x"], s["y"])
    assert structure(got) == want_grad
    value, grads = ops.value_and_grad(s["f"], **kw)(s["x"], s["y"])
    assert structure(grads) == want_vag[1]
    assert isinstance(value, Tensor) and value.shape == ()
    assert value.item() == pytest.approx(VALUE)


A1 = [2.0, 4.0]
A2 = [4.0, 5.0]


@pytest.mark.parametrize("kwargs, fname, want_grad, want_vag", [
    (dict(has_aux=True), "f_aux2", (DX, (A1, A2)), ((VALUE, A1, A2), DX)),
    (dict(has_aux=True), "f_aux1", (DX, (A1,)), ((VALUE, A1), DX)),
    (dict(has_aux=True, grad_position=None, weights="W"), "f_aux1", ((DW, DB), (A1,)),
     ((VALUE, A1), (DW, DB))),
    (dict(has_aux=True, grad_position=0, weights="W"), "f_aux1", ((DX, (DW, DB)), (A1,)),
     ((VALUE, A1), (DX, (DW, DB)))),
])
def test_has_aux_structures(setup, kwargs, fname, want_grad, want_vag):
    s = setup
    kw = _resolve(kwargs, s)
    got = structure(ops.grad(s[fname], **kw)(s["x"], s["y"]))
    assert got == want_grad
    got_v = structure(ops.value_and_grad(s[fname], **kw)(s["x"], s["y"]))
    assert got_v[0][0] == pytest.approx(VALUE)
    assert got_v[0][1:] == want_vag[0][1:]
    assert got_v[1] == want_vag[1]


def test_return_ids_with_has_aux_and_one_position_other_than_0(setup):
    s = setup
    got = ops.grad(s["f_aux1"], 1, has_aux=True, return_ids=True)(s["x"], s["y"])
    assert structure(got) == (((1, DY),), (A1,))
    assert structure(ops.get_grad(got[0], 1)) == DY


def test_aliases_are_the_same_functions():
    assert ms.grad is ops.grad and ms.value_and_grad is ops.value_and_grad


def test_non_scalar_output_uses_ones_as_sens(setup):
    s = setup
    g = ops.grad(lambda x, y: x * y * s["w"])(s["x"], s["y"])
    assert structure(g) == DX


def test_tuple_output_sums_gradients_of_all_outputs(setup):
    s = setup

    def two(x, y):
        return (x * y * s["w"]).sum(), (x * 2).sum()
    assert structure(ops.grad(two)(s["x"], s["y"])) == [3.5, 4.0]
    v, g = ops.value_and_grad(two)(s["x"], s["y"])
    assert isinstance(v, tuple) and len(v) == 2
    assert structure(g) == [3.5, 4.0]


def test_sens_param(setup):
    s = setup
    g = ops.grad(lambda x, y: x * y * s["w"], sens_param=True)(s["x"], s["y"], Tensor([1.0, 0.0]))
    assert structure(g) == [1.5, 0.0]


def test_errors(setup):
    s = setup
    with pytest.raises(ValueError, match="can not be None at the same time"):
        ops.grad(s["f"], None, None)(s["x"], s["y"])
    with pytest.raises(RuntimeError, match="Position index 5 is exceed input size"):
        ops.grad(s["f"], 5)(s["x"], s["y"])
    with pytest.raises(ValueError, match="requires more than one outputs"):
        ops.grad(lambda x: x.sum(), has_aux=True)(s["x"])
    with pytest.raises(TypeError, match="expected to be a tensor, or a list or tuple"):
        ops.grad(s["f"], None, {"w": s["w"]})(s["x"], s["y"])


def test_integer_inputs_get_gradients_of_their_dtype():
    g = ops.grad(lambda a: (a * 2).sum())(Tensor([1, 2], ms.int32))
    assert g.dtype == ms.int32 and g.asnumpy().tolist() == [2, 2]


def test_unused_input_and_non_float_output_give_zeros(setup):
    s = setup
    g = ops.grad(lambda a, c: a.sum(), (0, 1))(s["x"], s["y"])
    assert structure(g) == ([1.0, 1.0], [0.0, 0.0])
    assert structure(ops.grad(lambda a: (a > 1).sum())(s["x"])) == [0.0, 0.0]


def test_non_tensor_inputs_are_skipped_like_mindspore(setup):
    s = setup
    assert ops.grad(lambda a: a * 2.0)(2.0) == ()
    g = ops.grad(lambda a, c: a * c, (0, 1))(s["x"], 2.0)
    assert structure(g) == [2.0, 2.0]


def test_frozen_parameter_gets_zero_gradient(setup):
    s = setup
    fz = Parameter(Tensor([2.0]), name="fz", requires_grad=False)

    def f(x, y):
        return (x * y * s["w"]).sum() + fz.sum()
    assert structure(ops.grad(f, None, [s["w"], fz])(s["x"], s["y"])) == (DW, [0.0])


def test_cell_as_function():
    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor([2.0, 3.0]), name="w")

        def construct(self, x):
            return (x * self.w).sum()
    net = Net()
    assert structure(ops.grad(net)(Tensor([1.0, 1.0]))) == [2.0, 3.0]
    assert structure(ops.grad(net, None, net.trainable_params())(Tensor([1.0, 1.0]))) == \
        ([1.0, 1.0],)


def test_stop_gradient():
    g = ops.grad(lambda a: (ops.stop_gradient(a) * a).sum())(Tensor([1.0, 2.0]))
    assert structure(g) == [1.0, 2.0]


# ------------------------------------------------------------------ GradOperation
def test_grad_operation_forms(setup):
    s = setup
    x, y, f = s["x"], s["y"], s["f"]
    pt = ms.ParameterTuple(s["W"])
    assert structure(ops.GradOperation()(f)(x, y)) == DX
    assert structure(ops.GradOperation(get_all=True)(f)(x, y)) == (DX, DY)
    assert structure(ops.GradOperation(get_by_list=True)(f, pt)(x, y)) == (DW, DB)
    assert structure(ops.GradOperation(get_all=True, get_by_list=True)(f, pt)(x, y)) == \
        ((DX, DY), (DW, DB))
    assert structure(ops.GradOperation(sens_param=True)(f)(x, y, Tensor(2.0))) == [3.0, 4.0]
    assert structure(ops.GradOperation(get_all=True)(lambda a: (a * a).sum())(x)) == \
        ([2.0, 4.0],)


# ------------------------------------------------------------------ vjp / jvp / jacobians
def sq(a):
    return a * a


def mul2(a, c):
    return a * c


def sq_aux(a):
    return a * a, a + 1


def test_vjp():
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    out, fn = ops.vjp(mul2, x, y)
    assert structure(out) == [3.0, 8.0]
    assert structure(fn(Tensor([1.0, 1.0]))) == ([3.0, 4.0], [1.0, 2.0])
    out, fn = ops.vjp(sq, x)
    assert structure(fn(Tensor([1.0, 1.0]))) == ([2.0, 4.0],)
    out, fn, aux = ops.vjp(sq_aux, x, has_aux=True)
    assert structure(aux) == [2.0, 3.0]


def test_jvp():
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    assert structure(ops.jvp(sq, x, Tensor([1.0, 1.0]))) == ([1.0, 4.0], [2.0, 4.0])
    assert structure(ops.jvp(mul2, (x, y), (Tensor([1.0, 1.0]), Tensor([1.0, 0.0])))) == \
        ([3.0, 8.0], [4.0, 4.0])
    assert structure(ops.jvp(sq_aux, x, Tensor([1.0, 1.0]), has_aux=True)) == \
        ([1.0, 4.0], [2.0, 4.0], [2.0, 3.0])


def test_jacobians():
    x, y = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    diag = [[2.0, 0.0], [0.0, 4.0]]
    assert structure(ops.jacrev(sq)(x)) == diag
    assert structure(ops.jacfwd(sq)(x)) == diag
    want = ([[3.0, 0.0], [0.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]])
    assert structure(ops.jacrev(mul2, grad_position=(0, 1))(x, y)) == want
    assert structure(ops.jacfwd(mul2, grad_position=(0, 1))(x, y)) == want
    assert structure(ops.jacrev(sq_aux, has_aux=True)(x)) == (diag, [2.0, 3.0])


# ------------------------------------------------------------------ higher order
def test_second_derivative_of_tanh():
    x = Tensor(np.linspace(-2, 2, 7))
    d2 = ops.grad(ops.grad(lambda a: ops.tanh(a).sum()))(x)
    t = np.tanh(np.linspace(-2, 2, 7))
    np.testing.assert_allclose(d2.asnumpy(), -2 * t * (1 - t * t), rtol=1e-10)


def test_third_derivative():
    x = Tensor([1.0, 2.0, 3.0], ms.float64)
    f = lambda a: (a ** 4).sum()   # noqa: E731
    d3 = ops.grad(ops.grad(ops.grad(f)))(x)
    np.testing.assert_allclose(d3.asnumpy(), 24 * np.array([1.0, 2.0, 3.0]))


def test_hessian_vector_product():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    A = Tensor(a)

    def quad(x):
        return (x * ops.matmul(A, x)).sum() + (x * x * x).sum()
    x = Tensor([0.5, -1.0], ms.float64)
    v = Tensor([1.0, 2.0], ms.float64)
    hvp = ops.grad(lambda x: (ops.grad(quad)(x) * v).sum())(x)
    hess = a + a.T + np.diag(6 * np.array([0.5, -1.0]))
    np.testing.assert_allclose(hvp.asnumpy(), hess @ np.array([1.0, 2.0]))


def test_no_recording_outside_grad():
    from spore._core import primitive as P
    assert P.current_handler() is None
    t = Tensor([1.0]) * 2
    assert t._tape_ref is None


# ------------------------------------------------------------------ Cell.bprop
class _ScaledMul(ms.nn.Cell):
    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout * 100, dout * 2


class _TwoOut(ms.nn.Cell):
    def construct(self, x):
        return x * 2, x * 3

    def bprop(self, x, out, dout):
        return (dout[0] * 10 + dout[1],)


class _Outer(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = _ScaledMul()
        self.w = Parameter(Tensor([2.0, 2.0]), name="w")

    def construct(self, x):
        return (self.inner(x, self.w) * x).sum()


def test_cell_bprop_replaces_the_gradient():
    """Values observed on MindSpore 2.10 with the same cells."""
    g = ops.grad(_ScaledMul(), (0, 1))(Tensor([1.0, 2.0]), Tensor([3.0, 4.0]))
    assert structure(g) == ([100.0, 100.0], [2.0, 2.0])

    def f(x):
        a, b = _TwoOut()(x)
        return a.sum() + (b * 2).sum()
    assert structure(ops.grad(f)(Tensor([1.0, 2.0]))) == [12.0, 12.0]
    o = _Outer()
    g = ops.grad(o, 0, o.trainable_params())(Tensor([1.0, 2.0]))
    assert structure(g) == ([102.0, 204.0], ([2.0, 4.0],))
    assert structure(_ScaledMul()(Tensor([1.0]), Tensor([3.0]))) == [3.0]


def test_cell_bprop_must_return_one_gradient_per_input():
    class Bad(ms.nn.Cell):
        def construct(self, x, y):
            return x + y

        def bprop(self, x, y, out, dout):
            return (dout,)
    with pytest.raises(ValueError, match="number of returned gradients"):
        ops.grad(Bad())(Tensor([1.0]), Tensor([2.0]))


def test_top_level_transforms_and_get_grad(setup):
    s = setup
    assert (ms.vjp, ms.jvp, ms.jacrev, ms.jacfwd) == (ops.vjp, ops.jvp, ops.jacrev, ops.jacfwd)
    res = ops.grad(s["f"], (0, 1), s["W"], return_ids=True)(s["x"], s["y"])
    assert structure(ms.get_grad(res, 1)) == DY
    assert structure(ms.get_grad(res, s["w"])) == DW
    assert structure(ms.get_grad(res, "b")) == DB
    with pytest.raises(RuntimeError, match="Can not find the gradient"):
        ms.get_grad(res, 7)


# ----------------------------------------------------------------- sources are tensor objects
# MindSpore 2.10 PyNative differentiates the input object: every use of the same tensor
# (another position, a closure, a weight) receives gradient. Constants probed there.
X3 = [1.0, 2.0, 3.0]
TWICE = [2.0, 4.0, 6.0]


def _x3():
    return Tensor(np.array(X3, np.float32))


def test_closure_over_the_differentiated_tensor_gets_its_gradient():
    x = _x3()
    assert structure(ops.grad(lambda t: (t * x).sum())(x)) == TWICE
    value, g = ops.value_and_grad(lambda t: (t * x).sum())(x)
    assert value.item() == 14.0 and structure(g) == TWICE
    assert structure(ops.GradOperation()(lambda t: (t * x).sum())(x)) == TWICE
    assert structure(ops.grad(lambda t: t * x, sens_param=True)(x, Tensor(np.ones(3, np.float32)))) \
        == TWICE
    (loss, aux), g = ops.value_and_grad(lambda t: ((t * x).sum(), t), has_aux=True)(x)
    assert structure(g) == TWICE


def test_closure_with_a_layer_norm_like_cell():
    ln = ms.nn.LayerNorm((3,), epsilon=1e-5)
    x = Tensor(np.array([[1.0, 2.0, 4.0]], np.float32))
    got = ops.grad(lambda t: (ln(t) * x).sum())(x)
    both = ops.grad(lambda a, b: (ln(a) * b).sum(), grad_position=(0, 1))(x, Tensor(x.asnumpy()))
    np.testing.assert_allclose(got.asnumpy(), (both[0] + both[1]).asnumpy(), rtol=1e-6)


def test_a_tensor_passed_twice_is_one_source():
    x = _x3()
    f = lambda a, b: (a * b).sum()  # noqa: E731
    assert structure(ops.grad(f)(x, x)) == TWICE
    assert structure(ops.grad(f, grad_position=1)(x, x)) == TWICE
    assert structure(ops.grad(f, grad_position=(0, 1))(x, x)) == (TWICE, TWICE)
    assert structure(ops.GradOperation(get_all=True)(f)(x, x)) == (TWICE, TWICE)


def test_vjp_follows_the_object_too():
    x, one = _x3(), Tensor(np.ones(3, np.float32))
    assert structure(ops.vjp(lambda t: t * x, x)[1](one)) == (TWICE,)
    assert structure(ops.vjp(lambda a, b: a * b, x, x)[1](one)) == (TWICE, TWICE)
    w = Parameter(_x3(), name="w")
    assert structure(ops.vjp(lambda t: t * w, w, weights=[w])[1](one)) == ((TWICE,), (TWICE,))


def test_a_weight_that_is_also_an_input():
    w = Parameter(_x3(), name="w")
    f = lambda t: (t * w).sum()  # noqa: E731
    assert structure(ops.grad(f, 0, [w])(w)) == (TWICE, (TWICE,))
    assert structure(ops.grad(f, None, [w])(w)) == (TWICE,)
    assert structure(ops.grad(f)(w)) == TWICE
    assert structure(ops.GradOperation(get_all=True, get_by_list=True)(f, [w])(w)) == \
        ((TWICE,), (TWICE,))
    # the same weight listed twice gets its whole gradient in both places
    x = _x3()
    assert structure(ops.grad(f, None, [w, w])(x)) == (X3, X3)


def test_a_frozen_parameter_passed_as_an_input_gets_zeros():
    w = Parameter(_x3(), name="w", requires_grad=False)
    assert structure(ops.grad(lambda t: (t * t).sum())(w)) == [0.0, 0.0, 0.0]
    assert structure(ops.grad(lambda t: (t * w).sum(), 0, [w])(w)) == ([0.0] * 3, ([0.0] * 3,))
    one = Tensor(np.ones(3, np.float32))
    assert structure(ops.vjp(lambda t: t * t, w)[1](one)) == ([0.0] * 3,)


def test_nested_grad_follows_the_object():
    x = _x3()
    # inner: d/du sum(u*u*x) with u and x the same tensor = 3x^2; outer: 6x
    assert structure(ops.grad(lambda t: ops.grad(lambda u: (u * u * x).sum())(t).sum())(x)) \
        == [6.0, 12.0, 18.0]
    assert structure(ops.grad(lambda t: ops.grad(lambda u: (u * t).sum())(t).sum())(x)) \
        == [2.0, 2.0, 2.0]
    assert structure(ops.grad(lambda t: ops.grad(lambda u: (u * u * t).sum())(x).sum())(x)) \
        == [6.0, 12.0, 18.0]


def test_jvp_and_jacobians_differentiate_the_argument_only():
    # MindSpore's forward-mode and Jacobian transforms treat a closure as a constant
    x, one = _x3(), Tensor(np.ones(3, np.float32))
    out, t = ops.jvp(lambda u: u * x, x, one)
    assert structure(t) == X3
    assert structure(ops.jacrev(lambda u: u * x)(x)) == np.diag(X3).tolist()
    assert structure(ops.jacfwd(lambda u: u * x)(x)) == np.diag(X3).tolist()


def test_vjp_releases_its_sources_with_its_function():
    import gc
    x = _x3()
    _, fn = ops.vjp(lambda t: t * t, x)
    assert x._tape_ref
    del fn
    gc.collect()
    assert x._tape_ref is None
