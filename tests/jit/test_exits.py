"""Early exits in converted code (NOTE: [Early exits] in spore/_jit/convert.py): `return`
inside branches, `break`/`continue` inside loops, and `return` inside loops, in PyNative
and compiled, with tensor and Python conditions."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, ops
from spore._jit import CompileError


def _v(*vals):
    return Tensor(np.array(vals, np.float32))


def _same(a, b):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
        return
    np.testing.assert_allclose(np.asarray(a.asnumpy() if isinstance(a, Tensor) else a),
                               np.asarray(b.asnumpy() if isinstance(b, Tensor) else b),
                               rtol=1e-6)


def early_return(x):
    if x.sum() > 0:
        return x * 2
    y = x - 1
    if y.sum() < -5:
        return y * 10
    elif y.sum() < -3:
        return y * 5
    return y


def while_break(x):
    i = Tensor(0)
    while i < 10:
        x = x * 2
        if x.sum() > 50:
            break
        i = i + 1
    return x, i


def while_continue(x):
    i = Tensor(0)
    s = x * 0
    while i < 6:
        i = i + 1
        if (x * i).sum() > 8:
            continue
        s = s + x
    return s


def for_continue_python(x, n):
    s = x * 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x * i
    return s


def tensor_break_in_python_range(x):
    for i in range(8):
        x = x + 1
        if x.sum() > 7:
            break
    return x * i


def return_in_python_loop(x):
    for i in range(5):
        if i == 3:
            return x * i
        x = x + 1
    return x


def nested_loops(x):
    out = x * 0
    for i in range(3):
        j = Tensor(0)
        while j < 4:
            j = j + 1
            if (x * j).sum() > 6:
                break
            out = out + x
        if i == 1:
            break
    return out


def tensor_range_break(x, n):
    for i in range(n):
        x = x * 3
        if x.sum() > 100:
            break
    return x


CASES = [
    (early_return, (_v(1, 2),)), (early_return, (_v(-1, -2),)),
    (early_return, (_v(-2, -1.5),)), (early_return, (_v(-5, -2),)),
    (while_break, (_v(1, 2),)), (while_break, (_v(0.001, 0),)),
    (while_continue, (_v(1, 2),)), (for_continue_python, (_v(1, 2), 5)),
    (tensor_break_in_python_range, (_v(1, 2),)), (tensor_break_in_python_range, (_v(-9, -9),)),
    (return_in_python_loop, (_v(1, 2),)), (nested_loops, (_v(1, 1),)),
    (tensor_range_break, (_v(1, 2), Tensor(10))), (tensor_range_break, (_v(1, 2), Tensor(1))),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                  enumerate(CASES)])
def test_compiled_equals_pynative(fn, args):
    want = fn(*args)
    f = ms.jit(fn, fullgraph=True)
    _same(f(*args), want)
    assert not ms.jit_report(f).fallbacks


def test_one_graph_serves_every_exit():
    f = ms.jit(early_return, fullgraph=True)
    for x in ((1, 2), (-1, -2), (-2, -1.5), (-5, -2)):
        _same(f(_v(*x)), early_return(_v(*x)))
    assert ms.jit_report(f).compiled == 1


def test_break_compiles_one_loop_whatever_the_trip_count():
    f = ms.jit(while_break, fullgraph=True)
    for x in ((1, 2), (0.001, 0), (30, 30)):
        _same(f(_v(*x)), while_break(_v(*x)))
    assert ms.jit_report(f).compiled == 1


def test_python_exits_keep_python_semantics():
    """Exits on Python values behave as in Python (the lowering is exact there)."""
    def f(x, items):
        total = 0
        for k in range(10):
            if k in items:
                continue
            if k > 6:
                break
            total += k
        while True:
            total += 1
            if total > 30:
                break
        for item in items:              # not a range loop: its own exits stay native
            if item == 4:
                return x * total, item
        return x, total
    for items in ([1, 2], [4], [0, 4, 5]):
        _same(ms.jit(f, fullgraph=True)(_v(1.0), items), f(_v(1.0), items))


def test_loop_variable_after_a_converted_for_keeps_its_last_value():
    def f(x):
        for i in range(3):
            x = x + 1
        return x * i
    _same(ms.jit(f, fullgraph=True)(_v(1.0)), f(_v(1.0)))


def test_gradient_through_an_early_return():
    def loss(x):
        if x.sum() > 0:
            return (x * x).sum()
        return (x * 3).sum()
    for x in ((1, 2), (-1, -2)):
        want = ops.grad(loss)(_v(*x))
        _same(ms.jit(ops.grad(loss), fullgraph=True)(_v(*x)), want)
        _same(ops.grad(ms.jit(loss))(_v(*x)), want)


def test_gradient_through_a_loop_with_a_tensor_break():
    def loss(x):
        i = Tensor(0)
        while i < 10:
            x = x * 1.5
            if x.sum() > 20:
                break
            i = i + 1
        return (x * x).sum()
    x = _v(1, 2)
    want = ops.grad(loss)(x)
    _same(ms.jit(ops.grad(loss), fullgraph=True)(x), want)
    # five steps take the sum (3) past 20: d/dx sum((1.5**5 x)^2) = 2 * 1.5**10 x
    np.testing.assert_allclose(want.asnumpy(), 2 * 1.5 ** 10 * np.array([1, 2]), rtol=1e-5)


def test_return_inside_a_tensor_loop_says_how_to_rewrite():
    def f(x):
        i = Tensor(0)
        while i < 5:
            if x.sum() > 10:
                return x
            x = x * 2
            i = i + 1
        return -x
    with pytest.raises(CompileError, match=r"`return` inside a loop that runs as a tensor "
                                            r"loop") as e:
        ms.jit(f, fullgraph=True)(_v(1, 2))
    assert "break" in str(e.value) and "test_exits.py" in str(e.value)
    with pytest.warns(RuntimeWarning, match="could not compile"):
        _same(ms.jit(f)(_v(1, 2)), f(_v(1, 2)))


def test_functions_called_from_compiled_code_are_converted():
    def helper(x):
        if x.sum() > 0:
            return x
        return -x

    class Scaler:
        def apply(self, x):
            while x.sum() > 1:
                x = x * 0.5
            return x

    def f(x):
        return Scaler().apply(helper(x)) * 2
    g = ms.jit(f, fullgraph=True)
    for x in ((4, 4), (-3, -1)):
        _same(g(_v(*x)), f(_v(*x)))
    assert ms.jit_report(g).compiled == 1
