"""``mindspore.common.dtype`` (often imported as ``mstype``): the same dtype objects."""
from .._dtype import *  # noqa: F401,F403
from .._dtype import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,  # noqa: F401
                      float16, float32, float64, bfloat16, complex64, complex128, float_, int_,
                      uint, number, string, list_, tuple_, tensor_type, type_none, float_type,
                      int_type, uint_type, number_type, all_types, complex_type, signed_type,
                      DType, dtype_to_nptype, pytype_to_dtype, dtype_to_pytype)

half, single, double = float16, float32, float64
short, intc, intp, long = int16, int32, int64, int64
byte, ubyte = int8, uint8
cfloat, cdouble = complex64, complex128
