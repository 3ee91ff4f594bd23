"""MindSpore dtypes: named objects that print like MindSpore's and map to NumPy.

A Tensor stores a NumPy (or CuPy) array; its MindSpore dtype is derived from the
array's dtype through ``from_numpy``. bfloat16 comes from ``ml_dtypes``.

Promotion follows MindSpore 2.10 (which follows PyTorch): categories order
bool < int < float < complex; two tensors of one category give the wider type
(uint8 + int8 -> int16, float16 + bfloat16 -> float32); across categories the
higher category wins. Python scalars are *weak*: they never widen a tensor of
the same or a higher category (int32 + 2 -> int32, float16 + 1.5 -> float16),
and pick the default type of their category otherwise (int32 + 1.5 -> float32).
"""
from __future__ import annotations

import enum

import numpy as np

try:  # pragma: no cover - import guard
    import ml_dtypes as _ml
    _BF16 = np.dtype(_ml.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a required dependency
    _ml = None
    _BF16 = None

__all__ = ["DType", "dtype_of", "to_numpy_dtype", "resolve", "promote_types", "result_type"]

# Category ranks used by promotion.
BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class Type:
    """The base of every MindSpore type object (``mindspore.Type``): the dtypes and
    ``TensorType``."""

    __slots__ = ()


class DType(Type):
    """A MindSpore dtype (``ms.float32`` prints ``Float32``; repr ``mindspore.float32``)."""

    __slots__ = ("name", "short", "np", "category", "itemsize", "_kind")

    def __init__(self, name, short, np_dtype, category, kind):
        self.name = name          # "Float32"
        self.short = short        # "float32"
        self.np = np.dtype(np_dtype) if np_dtype is not None else None
        self.category = category
        self.itemsize = self.np.itemsize if self.np is not None else 0
        self._kind = kind         # class name MindSpore uses: Float, Int, UInt, Bool, ...

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"mindspore.{self.short}"

    def __reduce__(self):
        return (_lookup_short, (self.short,))

    # dtypes are singletons: identity equality and hashing are what we want.
    @property
    def is_floating_point(self):
        return self.category == FLOAT

    @property
    def is_complex(self):
        return self.category == COMPLEX

    @property
    def is_signed(self):
        return self.category != BOOL and not self.name.startswith("UInt")

    def to_numpy(self):
        return self.np


def _make(name, short, np_dtype, category, kind):
    return DType(name, short, np_dtype, category, kind)


bool_ = _make("Bool", "bool", np.bool_, BOOL, "Bool")
int8 = _make("Int8", "int8", np.int8, INT, "Int")
int16 = _make("Int16", "int16", np.int16, INT, "Int")
int32 = _make("Int32", "int32", np.int32, INT, "Int")
int64 = _make("Int64", "int64", np.int64, INT, "Int")
uint8 = _make("UInt8", "uint8", np.uint8, INT, "UInt")
uint16 = _make("UInt16", "uint16", np.uint16, INT, "UInt")
uint32 = _make("UInt32", "uint32", np.uint32, INT, "UInt")
uint64 = _make("UInt64", "uint64", np.uint64, INT, "UInt")
float16 = _make("Float16", "float16", np.float16, FLOAT, "Float")
float32 = _make("Float32", "float32", np.float32, FLOAT, "Float")
float64 = _make("Float64", "float64", np.float64, FLOAT, "Float")
bfloat16 = _make("BFloat16", "bfloat16", _BF16, FLOAT, "BFloat")
complex64 = _make("Complex64", "complex64", np.complex64, COMPLEX, "Complex")
complex128 = _make("Complex128", "complex128", np.complex128, COMPLEX, "Complex")

# Generic (abstract) types: usable in type checks and as annotations, not as storage.
float_ = _make("Float", "float", None, FLOAT, "Float")
int_ = _make("Int", "int", None, INT, "Int")
uint = _make("UInt", "uint", None, INT, "UInt")
number = _make("Number", "number", None, None, "Number")
string = _make("String", "string", None, None, "String")
list_ = _make("List", "list", None, None, "List")
tuple_ = _make("Tuple", "tuple", None, None, "Tuple")
tensor_type = _make("Tensor", "tensor", None, None, "TensorType")
type_none = _make("None", "none", None, None, "TypeNone")
type_type = _make("TypeType", "type_type", None, None, "TypeType")


class _IntMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, DType) and obj._kind == "Int"

    def __call__(cls, nbits=None):
        if nbits is None:
            return int_
        found = {8: int8, 16: int16, 32: int32, 64: int64}.get(nbits)
        if found is None:
            raise TypeError(f"For 'Int', the number of bits must be 8, 16, 32 or 64, but got "
                            f"{nbits!r}.")
        return found


class Int(metaclass=_IntMeta):
    """``mindspore.Int``: ``Int(32)`` is ``int32``, ``Int()`` the generic integer type, and
    ``isinstance(ms.int32, ms.Int)`` holds."""


class TensorType(Type):
    """``mindspore.TensorType(element_type)``: the type of a Tensor of that dtype."""

    __slots__ = ("_element",)

    def __init__(self, element_type=None):
        if element_type is not None and not isinstance(element_type, DType):
            element_type = resolve(element_type)
        self._element = element_type

    def element_type(self):
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element is self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __str__(self):
        return "Tensor" if self._element is None else f"Tensor[{self._element}]"

    def __repr__(self):
        return "mindspore.tensor" if self._element is None else \
            f"mindspore.tensor[{self._element.short}]"


def get_py_obj_dtype(obj):
    """``mindspore.get_py_obj_dtype``: the MindSpore type of a Python object."""
    from ._tensor import Tensor
    if isinstance(obj, Tensor):
        return TensorType(obj.dtype)
    if isinstance(obj, Type) or (isinstance(obj, type) and issubclass(obj, Type)):
        return type_type
    if isinstance(obj, bool):
        return bool_
    if isinstance(obj, int):
        return int64
    if isinstance(obj, float):
        return float64
    if isinstance(obj, tuple):
        return tuple_
    if isinstance(obj, list):
        return list_
    if obj is None:
        return type_none
    if isinstance(obj, type) and issubclass(obj, np.generic):
        return dtype_of(np.dtype(obj))
    raise TypeError(f"For 'get_py_obj_dtype', the type of {obj!r} is not supported.")

ALL = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       float16, float32, float64, bfloat16, complex64, complex128)

float_type = (float16, float32, float64, bfloat16)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
signed_type = int_type + float_type + (complex64, complex128)
complex_type = (complex64, complex128)
number_type = int_type + uint_type + float_type + complex_type
all_types = (bool_,) + number_type

_BY_NP = {d.np: d for d in ALL if d.np is not None}
_BY_SHORT = {d.short: d for d in ALL + (float_, int_, uint, number, string, list_, tuple_,
                                        tensor_type, type_none)}
_BY_SHORT.update({"bool_": bool_, "half": float16, "single": float32, "double": float64,
                  "float": float32, "int": int32, "long": int64, "short": int16,
                  "byte": int8, "ubyte": uint8, "intc": int32, "intp": int64,
                  "cfloat": complex64, "cdouble": complex128})


def _lookup_short(short):
    return _BY_SHORT[short]


def dtype_of(np_dtype) -> DType:
    """The MindSpore dtype of a NumPy dtype (raises TypeError for unsupported ones)."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        pass
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"Spore does not support the NumPy dtype {np_dtype!r}") from None


def resolve(spec) -> DType:
    """Accept a DType, NumPy dtype/type, string (``'float16'``, ``'Float16'``) or Python type."""
    if isinstance(spec, DType):
        return spec
    if spec is bool:
        return bool_
    if spec is int:
        return int64
    if spec is float:
        return float32
    if spec is complex:
        return complex64
    if isinstance(spec, str):
        key = spec.lower().replace("mindspore.", "")
        if key in _BY_SHORT:
            return _BY_SHORT[key]
    try:
        return dtype_of(np.dtype(spec))
    except TypeError:
        raise TypeError(f"Cannot interpret {spec!r} as a dtype") from None


def to_numpy_dtype(spec) -> np.dtype:
    d = resolve(spec)
    if d.np is None:
        raise TypeError(f"{d} is an abstract type; it cannot be used as a storage dtype")
    return d.np


# --------------------------------------------------------------------------- promotion

def _rank_in_category(d: DType):
    return d.itemsize


def promote_types(a: DType, b: DType) -> DType:
    """Promotion of two tensor dtypes (MindSpore 2.10 / PyTorch rules)."""
    if a is b:
        return a
    return _PROMOTE[(a, b)]


def _promote_slow(a: DType, b: DType) -> DType:
    if a.category != b.category:
        hi, lo = (a, b) if a.category > b.category else (b, a)
        if hi.category == COMPLEX and lo.category == FLOAT and lo.itemsize >= 8:
            return complex128
        return hi
    if a.category == FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a.category == INT:
        ua, ub = not a.is_signed, not b.is_signed
        if ua == ub:
            return a if a.itemsize >= b.itemsize else b
        s, u = (b, a) if ua else (a, b)
        if s.itemsize > u.itemsize:
            return s
        return {1: int16, 2: int32, 4: int64}.get(u.itemsize, int64)
    return a if a.itemsize >= b.itemsize else b


_PROMOTE = {(a, b): _promote_slow(a, b) for a in ALL for b in ALL}

# Default dtypes of weak Python scalars by category.
_SCALAR_DEFAULT = {BOOL: bool_, INT: int64, FLOAT: float32, COMPLEX: complex64}


def scalar_category(x):
    if isinstance(x, bool):
        return BOOL
    if isinstance(x, int):
        return INT
    if isinstance(x, float):
        return FLOAT
    if isinstance(x, complex):
        return COMPLEX
    raise TypeError(f"not a Python scalar: {type(x).__name__}")


def promote_with_scalar(d: DType, category: int) -> DType:
    """Dtype of ``tensor(d) op python_scalar(category)``."""
    if category <= d.category:
        return d
    return _SCALAR_DEFAULT[category]


def result_type(*dtypes_or_scalars) -> DType:
    """Promotion over DTypes (strong) and Python scalars (weak)."""
    strong = None
    weak = -1
    for x in dtypes_or_scalars:
        if isinstance(x, DType):
            strong = x if strong is None else promote_types(strong, x)
        else:
            weak = max(weak, scalar_category(x))
    if strong is None:
        return _SCALAR_DEFAULT[weak]
    if weak < 0:
        return strong
    return promote_with_scalar(strong, weak)


def dtype_to_nptype(d):
    return to_numpy_dtype(d).type


def pytype_to_dtype(t):
    return resolve(t)


def dtype_to_pytype(d):
    d = resolve(d)
    return {BOOL: bool, INT: int, FLOAT: float, COMPLEX: complex}[d.category]


class QuantDtype(enum.Enum):
    """``mindspore.QuantDtype``: the integer widths of quantization, ``INT1`` .. ``INT16``
    (0 .. 15) and ``UINT1`` .. ``UINT16`` (100 .. 115). ``value()`` is a method, as in
    MindSpore."""

    _ignore_ = ["_k"]
    for _k in range(1, 17):
        vars()[f"INT{_k}"] = _k - 1
    for _k in range(1, 17):
        vars()[f"UINT{_k}"] = 99 + _k

    def __str__(self):
        return self.name

    def value(self):
        return self._value_
