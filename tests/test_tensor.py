"""Tensor and Parameter: construction, attributes, printing (reference notes §3, §4)."""
import copy

import numpy as np
import pytest

import spore as ms
from spore import Tensor, Parameter


@pytest.mark.parametrize("data, dtype, shape", [
    (np.ones([2, 2]), ms.float64, (2, 2)),
    (np.array([1, 2, 3]), ms.int64, (3,)),
    (np.array([1, 2], np.int32), ms.int32, (2,)),
    (np.array([1.5], np.float16), ms.float16, (1,)),
    (np.array([True]), ms.bool_, (1,)),
    (np.array([1 + 2j], np.complex64), ms.complex64, (1,)),
    ([1, 2, 3], ms.int64, (3,)),
    ((1, 2), ms.int64, (2,)),
    ([1.0, 2.0], ms.float32, (2,)),
    ([1, 2.5], ms.float32, (2,)),
    ([True, False], ms.bool_, (2,)),
    (1, ms.int64, ()),
    (1.5, ms.float32, ()),
    (True, ms.bool_, ()),
    (np.float32(3), ms.float32, ()),
    ([], ms.float32, (0,)),
])
def test_construction_dtypes(data, dtype, shape):
    t = Tensor(data)
    assert t.dtype == dtype and t.shape == shape


def test_construction_with_dtype_and_from_tensors():
    assert Tensor(np.ones([2, 2]), ms.float32).dtype == ms.float32
    assert Tensor(2, ms.float16).dtype == ms.float16
    t = Tensor(Tensor([1, 2]), ms.float32)
    assert t.dtype == ms.float32 and t.tolist() == [1.0, 2.0]
    s = Tensor([Tensor(1.0), Tensor(2.0)])
    assert s.dtype == ms.float32 and s.tolist() == [1.0, 2.0]
    assert Tensor([1, 2], "float16").dtype == ms.float16
    assert Tensor([1, 2], np.float64).dtype == ms.float64


def test_construction_copies_numpy_input():
    a = np.zeros(3, np.float32)
    t = Tensor(a)
    a[0] = 5
    assert t.asnumpy()[0] == 0


def test_bad_input_types():
    with pytest.raises(TypeError, match="'input_data' should be one of"):
        Tensor(None)
    with pytest.raises(TypeError):
        Tensor("abc")
    with pytest.raises(ValueError, match="ragged"):
        Tensor([[1, 2], [3]])


def test_attributes():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == (2, 3, 4) and t.ndim == 3 and t.dim() == 3
    assert t.size == 24 and t.numel() == 24 and len(t) == 2
    assert t.nbytes == 96 and t.itemsize == 4 and t.strides == (48, 16, 4)
    assert t.dtype is ms.float32 and t.device == "CPU" and t.has_init is False
    assert isinstance(t.asnumpy(), np.ndarray) and isinstance(t.numpy(), np.ndarray)
    assert t.T.shape == (4, 3, 2) and t.mT.shape == (2, 4, 3)
    assert t.type() == "Float32"


def test_scalar_extraction():
    assert Tensor([3.5]).item() == 3.5 and isinstance(Tensor([3.5]).item(), float)
    assert isinstance(Tensor([3]).item(), int)
    assert float(Tensor(2.5)) == 2.5 and int(Tensor(2.7)) == 2
    assert bool(Tensor([0])) is False
    with pytest.raises(ValueError, match="only one element"):
        Tensor([1.0, 2.0]).item()
    with pytest.raises(ValueError, match="only one element"):
        bool(Tensor([1.0, 2.0]))
    assert Tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]


def test_repr_formats():
    assert repr(Tensor(np.ones((2, 2), np.float32))) == (
        "Tensor(shape=[2, 2], dtype=Float32, value=\n"
        "[[ 1.00000000e+00,  1.00000000e+00],\n"
        " [ 1.00000000e+00,  1.00000000e+00]])")
    assert repr(Tensor([1, 2, 3])) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(Tensor(2.5)) == "Tensor(shape=[], dtype=Float32, value= 2.5)"
    assert repr(Tensor([], ms.float32)) == "Tensor(shape=[0], dtype=Float32, value= )"
    assert repr(Tensor([1.5], ms.float16)) == \
        "Tensor(shape=[1], dtype=Float16, value= [ 1.5000e+00])"
    assert repr(Tensor([0.1, 2.0], ms.float64)) == \
        "Tensor(shape=[2], dtype=Float64, value= [ 1.00000000e-01,  2.00000000e+00])"


def test_str_is_numpy_text():
    assert str(Tensor(np.ones((2, 2), np.float32))) == "[[1. 1.]\n [1. 1.]]"
    assert str(Tensor([1, 2, 3])) == "[1 2 3]"
    assert str(Tensor([True, False])) == "[ True False]"
    assert f"{Tensor(2.5)}" == "2.5"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{Tensor(2.5):.4f}"
    assert str([Tensor([1])]) == "[Tensor(shape=[1], dtype=Int64, value= [1])]"


def test_dtypes_print_like_mindspore():
    assert str(ms.float32) == "Float32" and repr(ms.float32) == "mindspore.float32"
    assert str(ms.bfloat16) == "BFloat16" and str(ms.uint8) == "UInt8"
    assert ms.float is ms.float32 and ms.float_ is not ms.float32 and str(ms.float_) == "Float"
    assert ms.dtype.float32 is ms.float32 and ms.common.dtype.int64 is ms.int64
    assert ms.float32 != "Float32"
    assert ms.dtype_to_nptype(ms.float16) is np.float16


def test_misc_protocols():
    t = Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert (t == None) is False and (t != None) is True   # noqa: E711
    assert 1.0 in t and 9.0 not in t
    assert [r.tolist() for r in t] == [[1.0, 2.0], [3.0, 4.0]]
    assert np.array(t).dtype == np.float32
    d = copy.deepcopy(t)
    d[0, 0] = 9.0
    assert t.asnumpy()[0, 0] == 1.0
    assert isinstance(hash(t), int)


def test_tensor_plus_ndarray_is_rejected():
    with pytest.raises(TypeError, match="numpy"):
        Tensor([1.0]) + np.ones(1)
    with pytest.raises(TypeError, match="numpy"):
        np.ones(1) + Tensor([1.0])


def test_tensor_plus_list_tuple_and_numpy_scalar():
    assert (Tensor([1.0, 2.0]) + [1.0, 1.0]).tolist() == [2.0, 3.0]
    assert (Tensor([1.0, 2.0]) + (1.0, 1.0)).tolist() == [2.0, 3.0]
    r = Tensor([1.0], ms.float32) + np.float64(2)
    assert r.dtype == ms.float32 and r.tolist() == [3.0]


# ------------------------------------------------------------------ Parameter
def test_parameter_basics():
    p = Parameter(Tensor([1.0, 2.0]), name="w", requires_grad=False)
    assert isinstance(p, Tensor) and p.name == "w" and p.requires_grad is False
    assert repr(p) == "Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=False)"
    assert type(p * 2) is Tensor
    assert type(p.data) is Tensor and p.data is not p
    p.name = "v"
    p.requires_grad = True
    assert p.name == "v" and p.requires_grad


def test_parameter_defaults_from_python_values():
    assert Parameter(2).dtype == ms.int32 and Parameter(2).shape == ()
    assert Parameter(1.5).dtype == ms.float32
    assert Parameter([1.0, 2.0]).dtype == ms.float32
    assert Parameter(np.ones(2, np.float32)).dtype == ms.float32
    assert Parameter(Tensor([1.0])).name.startswith("Parameter#")


def test_parameter_set_data_and_clone():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    assert p.set_data(Tensor([3, 4], ms.int32)) is p
    assert p.dtype == ms.float32 and p.tolist() == [3.0, 4.0]
    p.set_data(Tensor([1.0, 2.0, 3.0]))
    assert p.shape == (3,)
    q = p.clone()
    assert q.name == "w" and q is not p
    q.set_data(Tensor([0.0, 0.0, 0.0]))
    assert p.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(TypeError):
        p.set_data("x")


def test_parameter_data_shares_memory():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.data[0] = 7.0
    assert p.tolist()[0] == 7.0


def test_parameter_tuple_clone():
    pt = ms.ParameterTuple([Parameter(Tensor([1.0]), name="a"),
                            Parameter(Tensor([2.0]), name="b")])
    m = pt.clone("moments", init="zeros")
    assert [p.name for p in m] == ["moments.a", "moments.b"]
    assert [p.tolist() for p in m] == [[0.0], [0.0]]
    with pytest.raises(TypeError):
        ms.ParameterTuple([Tensor([1.0])])


def test_nn_parameter_is_parameter():
    assert ms.nn.Parameter is Parameter


def test_from_numpy_shares_memory_and_misc_top_level():
    a = np.zeros(3, np.float32)
    t = ms.from_numpy(a)
    a[0] = 5
    assert t.tolist()[0] == 5.0
    assert ms.mutable(t) is t and ms.is_tensor(t) and not ms.is_tensor(a)
    ms.set_recursion_limit(50)
    with pytest.raises(ValueError):
        ms.set_recursion_limit(0)
