"""Compile errors name the user's file, line and construct, and say how to rewrite it
(one test per construct that cannot be compiled). Under ``fullgraph=False`` the same
functions run in PyNative with one warning and PyNative's results."""
import collections
import contextlib
import inspect
import math
import re
import statistics
import warnings

import numpy as np
import pytest

import spore as ms
from spore import Tensor, nn, ops
from spore._jit import CompileError


def _v(*vals):
    return Tensor(np.array(vals, np.float32))


def _marked_line(fn):
    """The line of ``fn`` marked ``# <- here``."""
    lines, first = inspect.getsourcelines(fn)
    (k,) = [i for i, text in enumerate(lines) if "# <- here" in text]
    return first + k


def _expect(fn, args, construct, hint=None):
    with pytest.raises(CompileError) as e:
        ms.jit(fn, fullgraph=True)(*args)
    text = str(e.value)
    where = f"test_compile_errors.py:{_marked_line(fn)}:"
    assert where in text, text
    assert re.search(construct, text), text
    if hint:
        assert hint in text, text
    assert "# <- here" in text          # the source line is shown
    return text


SINK = []
COUNT = 0


def numpy_call(x):
    return x + np.sin(x.asnumpy())      # <- here


def numpy_ufunc_on_tensor(x):
    return np.exp(x) * 2                # <- here


def math_call(x):
    return x * math.exp(x.sum())        # <- here


def item_call(x):
    return x * x.sum().item()           # <- here


def float_call(x):
    return x * float(x[0])              # <- here


def bool_call(x):
    assert x.sum() > 0                  # <- here
    return x


def third_party(x):
    return x * statistics.fmean(x)      # <- here


def try_statement(x):
    try:                                # <- here
        y = x * 2
    except ValueError:
        y = x
    return y


def generator(x):
    yield x * 2                         # <- here


def with_unknown_manager(x):
    with open(__file__) as f:           # <- here
        f.readline()
    return x * 2


def with_suppress(x):
    with contextlib.suppress(ValueError):   # <- here
        x = x * 2
    return x


class Holder:
    pass


HOLDER = Holder()
HOLDER.cache = 1


def del_attribute(x):
    del HOLDER.cache                    # <- here
    return x * 2


def del_outer_item(x, d):
    del d["k"]                          # <- here
    return x * 2


def global_assignment(x):
    global COUNT
    COUNT = COUNT + 1                   # <- here
    return x * 2


def nonlocal_assignment_factory():
    n = 0

    def inner(x):
        nonlocal n
        n += 1                          # <- here
        return x * n
    return inner


def outer_list_append(x):
    y = x * 2
    SINK.append(y)                      # <- here
    return y


def outer_dict_store(x, d):
    d["y"] = x * 2                      # <- here
    return x


def shape_mismatch(x, y):
    return ops.matmul(x, y)             # <- here


CASES = [
    (numpy_call, lambda: (_v(1, 2),), r"Tensor\.asnumpy\(\)", "ops.sin"),
    (numpy_ufunc_on_tensor, lambda: (_v(1, 2),), r"NumPy|numpy|__array__", None),
    (math_call, lambda: (_v(1, 2),), r"float\(\)|host", None),
    (item_call, lambda: (_v(1, 2),), r"item\(\)", None),
    (float_call, lambda: (_v(1, 2),), r"float\(\)", None),
    (bool_call, lambda: (_v(1, 2),), r"bool\(\)", "assert"),
    (third_party, lambda: (_v(1, 2),), r"float\(\) of a tensor .*\(inside statistics\.fmean\)",
     "Use ops on the tensor"),
    (try_statement, lambda: (_v(1, 2),), r"a `try` statement", "outside the compiled"),
    (generator, lambda: (_v(1, 2),), r"a generator function \(`yield`\)", "Return the"),
    (with_unknown_manager, lambda: (_v(1, 2),), r"`with` on a _io\.TextIOWrapper",
     "__enter__"),
    (with_suppress, lambda: (_v(1, 2),), r"`with` on a contextlib\.suppress", None),
    (del_attribute, lambda: (_v(1, 2),), r"`del HOLDER\.cache`", None),
    (del_outer_item, lambda: (_v(1, 2), {"k": 1}), r"`del d\['k'\]` changes a Python dict",
     None),
    (global_assignment, lambda: (_v(1, 2),), r"assignment to the global name 'COUNT'",
     "once, when the function is compiled"),
    (nonlocal_assignment_factory(), lambda: (_v(1, 2),),
     r"assignment to the nonlocal name 'n'", None),
    (outer_list_append, lambda: (_v(1, 2),), r"`SINK\.append\(\.\.\.\)` changes a Python list",
     "Return the values"),
    (outer_dict_store, lambda: (_v(1, 2), {}), r"`d\['y'\] = \.\.\.` changes a Python dict",
     None),
    (shape_mismatch, lambda: (Tensor(np.ones((2, 3), np.float32)),
                              Tensor(np.ones((2, 3), np.float32))), r"(?i)matmul", None),
]


@pytest.mark.parametrize("fn,args,construct,hint", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_error_names_file_line_and_construct(fn, args, construct, hint):
    _expect(fn, args(), construct, hint)


@pytest.mark.parametrize("fn,args", [(c[0], c[1]) for c in CASES
                                     if c[0] not in (shape_mismatch, generator)],
                         ids=[c[0].__name__ for c in CASES
                              if c[0] not in (shape_mismatch, generator)])
def test_without_fullgraph_the_function_runs_in_pynative(fn, args):
    if fn.__name__ == "inner":            # a counter in a closure: one per run
        fn = nonlocal_assignment_factory()
        want = nonlocal_assignment_factory()(*args())
        with pytest.warns(RuntimeWarning, match="could not compile"):
            got = ms.jit(fn)(*args())
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
        return
    SINK.clear()
    HOLDER.cache = 1
    try:
        want = fn(*args())
    except Exception as err:            # noqa: BLE001 - fails in PyNative too
        with pytest.warns(RuntimeWarning, match="could not compile"):
            with pytest.raises(type(err)) as e:
                ms.jit(fn)(*args())
        notes = "\n".join(getattr(e.value, "__notes__", []))
        assert "in PyNative mode because it could not be compiled" in notes, notes
        assert f"test_compile_errors.py:{_marked_line(fn)}" in notes, notes
        return
    SINK.clear()
    HOLDER.cache = 1
    with pytest.warns(RuntimeWarning, match="could not compile"):
        got = ms.jit(fn)(*args())
    assert type(got) is type(want)
    if isinstance(want, Tensor):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want


def test_side_effects_on_the_functions_own_objects_compile():
    """Containers the function creates, Spore's own managers, ``del`` of a local name and
    Python-value ``try``-free code are fine."""
    def f(x):
        outs = []
        table = {}
        for i in range(3):
            outs.append(x * i)
            table[i] = outs[-1]
        del table[0]
        tmp = x + 1
        del tmp
        with contextlib.nullcontext():
            y = sum(table.values(), x * 0)
        return y + outs[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = ms.jit(f, fullgraph=True)
        np.testing.assert_array_equal(g(_v(1, 2)).asnumpy(), f(_v(1, 2)).asnumpy())


def test_a_cell_that_mutates_its_own_list_falls_back_naming_the_line():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seen = []

        def construct(self, x):
            self.seen.append(x.shape)
            return x * 2
    net = Net()
    with pytest.raises(CompileError, match=r"`self\.seen\.append\(\.\.\.\)` changes a Python "
                                           r"list"):
        ms.jit(net.construct, fullgraph=True)(_v(1, 2))


def test_no_error_leaves_traced_values_in_outer_objects():
    with pytest.warns(RuntimeWarning):
        ms.jit(outer_list_append)(_v(1, 2))
    assert len(SINK) == 1 and isinstance(SINK[0], Tensor)
    np.testing.assert_array_equal(SINK[0].asnumpy(), [2, 4])    # PyNative's real value


def test_deque_and_set_mutation_are_refused_too():
    q = collections.deque()

    def f(x):
        q.append(1)
        return x
    with pytest.raises(CompileError, match="changes a Python deque"):
        ms.jit(f, fullgraph=True)(_v(1))
