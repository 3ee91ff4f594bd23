"""mindspore.Type, TensorType, Int and get_py_obj_dtype (printed forms probed from
MindSpore 2.10)."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor


def test_type_hierarchy_and_int():
    assert isinstance(ms.float32, ms.Type) and isinstance(ms.int32, ms.Type)
    assert isinstance(ms.int32, ms.Int) and not isinstance(ms.float32, ms.Int)
    assert not isinstance(ms.uint8, ms.Int)
    assert ms.Int(32) is ms.int32 and str(ms.Int()) == "Int" and str(ms.Int(16)) == "Int16"
    with pytest.raises(TypeError, match="bits"):
        ms.Int(12)
    assert isinstance(Tensor(np.ones(2, np.float32)).dtype, ms.Type)


def test_tensor_type():
    t = ms.TensorType(ms.float32)
    assert (str(t), repr(t)) == ("Tensor[Float32]", "mindspore.tensor[float32]")
    assert t.element_type() is ms.float32 and t == ms.TensorType(ms.float32)
    assert t != ms.TensorType(ms.float16) and isinstance(t, ms.Type)
    assert len({t, ms.TensorType(ms.float32)}) == 1


def test_get_py_obj_dtype():
    got = [str(ms.get_py_obj_dtype(o)) for o in
           (Tensor(np.ones(2, np.float32)), 1, 1.0, True, ms.float32, (1, 2), [1], np.float32)]
    assert got == ["Tensor[Float32]", "Int64", "Float64", "Bool", "TypeType", "Tuple", "List",
                   "Float32"]
    with pytest.raises(TypeError, match="not supported"):
        ms.get_py_obj_dtype(object())


def test_quant_dtype():
    members = list(ms.QuantDtype)
    assert len(members) == 32 and members[0].name == "INT1" and members[-1].name == "UINT16"
    assert ms.QuantDtype.INT8.value() == 7 and ms.QuantDtype.UINT16.value() == 115
    assert str(ms.QuantDtype.INT4) == "INT4" and ms.QuantDtype(100) is ms.QuantDtype.UINT1
