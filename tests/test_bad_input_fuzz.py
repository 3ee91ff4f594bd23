"""Every bad input is a clear error naming the op (issue 12).

The table in ``tests/helpers/badinput.py`` feeds every public ``spore.ops`` name and the
Tensor operators None, strings, wrong dtypes and ranks, bad and duplicate axes, empty and
0-d tensors, NaN/inf and overflowing ints, one argument at a time. Each call must return or
raise TypeError / ValueError / IndexError / RuntimeError whose message names the op (or a
primitive or public op it is built from). The named cases below were each a bare Python or
NumPy error before.
"""
import numpy as np
import pytest

import spore as ms
from spore import ops, Tensor, _native

from tests.helpers import badinput


def test_every_public_op_survives_the_bad_input_table():
    # the compiled loops compile for a dtype all at once on first use (seconds with an
    # empty Numba cache): done here, so the per-call time limit measures the calls
    for dtype in (np.float32, np.float64):
        _native.ready(np.dtype(dtype))
    counts, failures = badinput.run_table()
    shown = "\n".join(f"{op} {arg}: {problem}" for op, arg, problem in failures[:30])
    assert not failures, f"{len(failures)} unclear errors, e.g.\n{shown}"
    assert counts["tried"] > 20000 and counts["clear"] > 10000, counts


def test_the_table_covers_every_public_op():
    covered = {name for names, _, _ in badinput.cases() for name in names}
    public = {name for names, _ in badinput.public_ops() for name in names}
    # primitive classes that cannot be built without arguments have no cases
    missing = {n for n in public - covered if not isinstance(getattr(ops, n), type)}
    assert not missing, sorted(missing)
    assert "Tensor.__add__" in covered and "Tensor.__getitem__" in covered


X = Tensor(np.array([1.0, 2.0], np.float32))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum",
                                  "atan2", "hypot", "exp", "log", "sqrt", "neg", "abs", "sin",
                                  "tanh", "sigmoid", "floor", "eq", "ne", "lt", "ge",
                                  "logical_and", "bitwise_and", "remainder", "fmod"])
def test_none_to_an_elementwise_op_is_a_type_error_naming_it(name):
    fn = getattr(ops, name)
    args = (None,) if fn.__code__.co_argcount == 1 else (X, None)
    with pytest.raises(TypeError) as info:
        fn(*args)
    assert "For '" in str(info.value) and "NoneType' object" not in str(info.value)


@pytest.mark.parametrize("op", ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
                                "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__",
                                "__mod__", "__pow__", "__rpow__", "__matmul__", "__lt__",
                                "__ge__", "__and__", "__or__"])
def test_none_to_a_tensor_operator_is_a_type_error_naming_the_op(op):
    with pytest.raises(TypeError, match=r"For '\w+'"):
        getattr(X, op)(None)


def test_comparing_with_none_is_still_identity():
    assert (X == None) is False and (X != None) is True    # noqa: E711 (as MindSpore)


def test_sign_of_bool_names_the_op():
    # was: TypeError _UFuncNoLoopError.__init__() missing ... 'dtypes'
    with pytest.raises(TypeError, match="For 'Sign'.*Bool"):
        ops.sign(Tensor(np.array([True])))


@pytest.mark.parametrize("call, name", [
    (lambda x: ops.chunk(x, 2), "chunk"), (lambda x: ops.split(x, 1), "split"),
    (lambda x: ops.unbind(x), "unbind"), (lambda x: ops.tensor_split(x, 2), "tensor_split"),
])
def test_splitting_a_0d_tensor_names_the_op(call, name):
    # was: IndexError tuple index out of range
    with pytest.raises(ValueError, match=f"For '{name}', the input must be at least 1-D"):
        call(Tensor(1.0))


@pytest.mark.parametrize("end", [float("nan"), float("inf")])
def test_arange_to_nan_or_inf(end):
    with pytest.raises(ValueError, match="For 'Range'.*finite"):
        ops.arange(0, end)


def test_tensor_of_huge_ints():
    with pytest.raises(ValueError, match="For 'Tensor'.*does not fit"):
        Tensor(2 ** 70)
    with pytest.raises(ValueError, match="For 'Tensor'.*does not fit"):
        Tensor([1, 2 ** 70])
    with pytest.raises(ValueError, match="For 'Tensor'.*does not fit in Int32"):
        Tensor(2 ** 40, ms.int32)
    # MindSpore 2.10: Tensor(2**63) is UInt64
    big = Tensor(2 ** 63)
    assert big.dtype == ms.uint64 and big.item() == 2 ** 63
    with pytest.raises(ValueError, match="For 'gather', the 'input_indices'"):
        ops.gather(X, 2 ** 70, 0)


def test_tensor_shape_and_dtype_errors():
    with pytest.raises(ValueError, match="For 'Tensor', the 'shape' must be a tuple of "
                                         "non-negative ints"):
        Tensor(shape=(-2, 2), dtype=ms.float32)
    with pytest.raises(TypeError, match="For 'Tensor', the 'dtype'"):
        Tensor([1.0], "bogus")
    with pytest.raises(TypeError, match="For Tensor.astype, the string input type"):
        X.astype("bogus")


def test_a_several_element_tensor_used_as_a_scalar_names_the_op():
    with pytest.raises(ValueError, match="For 'amax', the 'keepdims' should have only one"):
        ops.amax(X, keepdims=Tensor(np.array([1, 0])))
    with pytest.raises(ValueError, match="For 'Tensor.item'"):
        X.item()


def test_indexing_errors_name_the_op():
    with pytest.raises(IndexError, match="For 'Tensor.__getitem__', index 5 is out of bounds"):
        X[5]
    with pytest.raises(IndexError, match="For 'getitem', Only support integers"):
        ops.getitem(X, "a")


def test_an_error_in_user_code_inside_a_cell_is_not_blamed_on_the_cell():
    from spore import nn

    class Net(nn.Cell):
        def construct(self, x):
            return Tensor(2 ** 70) + x

    with pytest.raises(ValueError, match="^For 'Tensor', the input_data"):
        Net()(X)

    class Net2(nn.Cell):
        def construct(self, x):
            return ops.amax(x, keepdims=Tensor(np.array([1, 0])))

    with pytest.raises(ValueError, match="^For 'amax', the 'keepdims'"):
        Net2()(X)
