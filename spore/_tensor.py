"""Tensor: a backend array (or, during graph capture, a symbolic value) plus dtype.

The class here holds construction, attributes and printing. Operators and
methods are thin adapters over ``spore.ops`` and are attached by
``spore._tensor_methods`` once the ops exist (see NOTE: [Dispatch] in
``_core/primitive.py``).
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _dtype as D
from ._core import primitive as _P

_ACCEPTED = "['Tensor', 'ndarray', 'str_', 'list', 'tuple', 'float', 'int', 'bool', 'complex', 'bytes']"


class Tensor:
    """An n-dimensional array with MindSpore's API.

    Args:
        input_data: a NumPy array, list/tuple (nested, may contain Tensors), Python
            scalar or Tensor. Python floats give Float32, ints Int64, bools Bool;
            NumPy arrays keep their dtype (float64 stays Float64).
        dtype: optional target dtype (``ms.float32``, ``'float16'``, ``np.int32``).
        shape, init: build a tensor of ``shape`` filled by the initializer ``init``.

    Examples:
        >>> import spore as ms
        >>> ms.Tensor([1.0, 2.0]).dtype
        mindspore.float32
    """

    __slots__ = ("_data", "_tape_ref", "__weakref__")
    __array_priority__ = 1000  # numpy defers `ndarray + Tensor` to us, which then rejects it

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False,
                 device=None, **kwargs):
        self._tape_ref = None
        self._data = _make_array(input_data, dtype, shape, init)
        if _P._scopes and type(self._data) is np.ndarray:
            cap = _P.active_capture()
            if cap is not None:
                cap.note_created(self)

    # ------------------------------------------------------------------ attributes
    @property
    def dtype(self):
        return D.dtype_of(self._data.dtype)

    @property
    def shape(self):
        return tuple(self._data.shape)

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    @property
    def size(self):
        return int(self._data.size)

    def numel(self):
        return int(self._data.size)

    nelement = numel

    @property
    def itemsize(self):
        return self._data.dtype.itemsize

    @property
    def nbytes(self):
        return int(self._data.size) * self._data.dtype.itemsize

    @property
    def strides(self):
        return tuple(self._data.strides)

    @property
    def device(self):
        from ._core import backend as B
        return B.of_array(self._data).name

    @property
    def has_init(self):
        return False

    def init_data(self, *args, **kwargs):
        return self

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def asnumpy(self):
        """The data as a NumPy array (a copy for non-CPU backends)."""
        data = self._data
        if type(data) is np.ndarray:
            return data
        return _to_host(data)

    numpy = asnumpy

    @staticmethod
    def from_numpy(array):
        """A Tensor sharing memory with the NumPy array ``array`` (no copy, unlike
        ``Tensor(array)``): writes through either are seen by the other.

        Raises:
            TypeError: ``array`` is not a NumPy array (lists and NumPy scalars included),
                or its dtype has no MindSpore equivalent.
        """
        if not isinstance(array, np.ndarray):
            raise TypeError("Expected a NumPy array.")
        D.dtype_of(array.dtype)            # rejects object and other unsupported dtypes
        return Tensor._from_array(array)

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy()
        if dtype is not None:
            a = a.astype(dtype)
        return a

    def item(self):
        _host_read(self, "Tensor.item()")
        if self._data.size != 1:
            raise _one_element_error(self)
        return self.asnumpy().reshape(()).item()

    def tolist(self):
        _host_read(self, "Tensor.tolist()")
        return self.asnumpy().tolist()

    def __bool__(self):
        _host_read(self, "bool() of a tensor (a Python if/while/and/or/not on a tensor value)",
                   _BOOL_HINT)
        if self._data.size != 1:
            raise _one_element_error(self)
        return bool(self.asnumpy().reshape(()))

    def __float__(self):
        _host_read(self, "float() of a tensor")
        return float(self.item())

    def __int__(self):
        _host_read(self, "int() of a tensor")
        return int(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __contains__(self, value):
        return bool((self.asnumpy() == (value.asnumpy() if isinstance(value, Tensor) else value)).any())

    def __format__(self, spec):
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __deepcopy__(self, memo):
        t = Tensor.__new__(type(self))
        t._tape_ref = None
        t._data = self._data.copy()
        return t

    def __copy__(self):
        t = Tensor.__new__(type(self))
        t._tape_ref = None
        t._data = self._data
        return t

    def __reduce__(self):
        return (_rebuild, (self.asnumpy().copy(),))

    # ------------------------------------------------------------------ printing
    def __str__(self):
        if is_placeholder(self):
            return repr(self)
        _host_read(self, "printing a tensor (print / str / f-string)", _PRINT_HINT)
        return _format_str(self.asnumpy())

    def __repr__(self):
        if is_placeholder(self):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n)"
        _host_read(self, "printing a tensor (repr)", _PRINT_HINT)
        return format_repr(self.asnumpy())


def _rebuild(arr):
    return Tensor(arr)


_BOOL_HINT = ("Graph mode converts `if`, `while`, `for ... in range(...)`, `and`/`or`/`not` "
              "and conditional expressions on tensors (capture_mode='ast', the default), "
              "but not `assert`, a loop with an `else` clause, a generator, a lambda, or "
              "code whose source cannot be read: compute both sides and pick with "
              "ops.select / ops.where, or test outside the compiled function.")
_PRINT_HINT = ("Inside a compiled function use ops.Print(...) (it prints at every call), or "
               "print the result outside it.")


def _host_read(t, what, hint=None):
    """Refuse to read a traced tensor's values on the host, naming ``what`` did it."""
    d = t._data
    if type(d) is not np.ndarray:
        refuse = getattr(type(d), "refuse_host_read", None)
        if refuse is not None:
            refuse(d, what, hint)


def _to_host(data):
    if isinstance(data, np.ndarray):
        return np.asarray(data)
    refuse = getattr(type(data), "refuse_host_read", None)
    if refuse is not None:
        refuse(data, "Tensor.asnumpy()")
    get = getattr(data, "get", None)
    if get is not None:
        return get()
    raise TypeError(f"cannot read the value of a symbolic tensor ({data!r}) while a graph is "
                    "being captured; use ops to compute with it, or print it with ops.Print")


# ---------------------------------------------------------------------- construction
def _one_element_error(t):
    """A tensor of several elements used as a Python scalar: the error names the op whose
    argument it was when an op did the conversion (``ops.amax(x, keepdims=t)``)."""
    from .ops._utils import calling_op
    op, arg = calling_op(t)
    where = f"For '{op}', the '{arg}'" if arg else f"For '{op}', the tensor"
    return ValueError(f"{where} should have only one element, but got {t._data.size}, more "
                      "than one element is ambiguous.")


def _make_array(data, dtype, shape, init):
    try:
        npd = D.to_numpy_dtype(dtype) if dtype is not None else None
    except TypeError:
        raise TypeError(f"For 'Tensor', the 'dtype' should be a MindSpore dtype (mindspore."
                        f"float32, ...), but got {dtype!r}.") from None
    try:
        return _to_array(data, npd, dtype, shape, init)
    except OverflowError:
        e = ValueError(f"For 'Tensor', the input_data {_short(data)} holds an integer that "
                       f"does not fit in {D.dtype_of(npd) if npd is not None else 'Int64'}.")
    except (TypeError, ValueError) as exc:
        e = exc
    raise _named_by_op(e, data) from None


def _named_by_op(exc, data):
    """A construction error raised while an op converts its argument names that op and
    argument (``ops.gather(x, 2**70, 0)``); a Tensor(...) call keeps its own message."""
    from .ops._utils import calling_op
    op, arg = calling_op(data)
    if op.startswith("Tensor"):
        return exc
    cls = TypeError if isinstance(exc, TypeError) else ValueError
    return cls(f"For '{op}', the '{arg or 'input'}' cannot be made a Tensor: {exc}")


# Python ints in [2**63, 2**64) give UInt64, as in MindSpore; larger ones are an error.
_INT64_MAX = 2 ** 63 - 1
_UINT64_MAX = 2 ** 64 - 1


def _short(data):
    text = repr(data)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_dynamic(shape):
    from ._core.symbol import Symbol
    return isinstance(shape, (tuple, list)) and any(d is None or isinstance(d, Symbol) or (
        isinstance(d, numbers.Integral) and not isinstance(d, bool) and d == -1) for d in shape)


def _placeholder(shape, npd):
    """``Tensor(shape=[None, 3], dtype=...)``: the declaration of a dynamic-shape input
    (``shape=None``: of any rank, shown as ``(-2,)``)."""
    from ._core.aval import Placeholder
    from ._core.symbol import Symbol
    if shape is None:
        return Placeholder((-2,), npd or np.float32)
    dims = []
    symbols = tuple(d if isinstance(d, Symbol) else None for d in shape)
    for d in shape:
        if d is None or isinstance(d, Symbol) or d == -1:
            dims.append(-1)
        elif isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0:
            dims.append(int(d))
        else:
            raise ValueError(f"For 'Tensor', each dimension of a dynamic 'shape' must be a "
                             f"non-negative int, None or -1, but got {shape!r}.")
    return Placeholder(tuple(dims), npd or np.float32,
                       symbols if any(x is not None for x in symbols) else None)


def is_placeholder(t):
    """Whether ``t`` is a dynamic-shape declaration (no values)."""
    from ._core.aval import Placeholder
    return isinstance(t, Tensor) and type(t._data) is Placeholder


def _check_shape(shape):
    dims = (shape,) if isinstance(shape, numbers.Integral) else shape
    if not isinstance(dims, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0
            for d in dims):
        raise ValueError(f"For 'Tensor', the 'shape' must be a tuple of non-negative ints "
                         f"(None or -1 for a dynamic axis), but got {shape!r}.")
    return tuple(int(d) for d in dims)


def _to_array(data, npd, dtype, shape, init):
    if init is not None:
        if shape is None:
            raise ValueError("For 'Tensor', 'shape' must be given together with 'init'.")
        from .common import initializer as _init
        arr = _init.initializer(init, shape, dtype or D.float32)._data
        return arr.astype(npd) if npd is not None and arr.dtype != npd else arr
    if data is None:
        if shape is not None:
            if _is_dynamic(shape):
                return _placeholder(shape, npd)
            return np.zeros(_check_shape(shape), npd or np.float32)
        if dtype is not None:                  # Tensor(shape=None, dtype=...): any rank
            return _placeholder(None, npd)
        raise TypeError(f"For 'Tensor', the type of 'input_data' should be one of {_ACCEPTED}, "
                        "but got type 'NoneType'.")
    if isinstance(data, Tensor):
        arr = data._data
        if _P.active_capture() is not None or (not isinstance(arr, np.ndarray) and
                                               hasattr(type(arr), "refuse_host_read")):
            # while a graph is captured, the copy or cast is a graph node (of a traced
            # tensor, or of a concrete one read at every call: never a stale copy); a
            # tensor batched by vmap copies through the batching handler
            if npd is not None and np.dtype(npd) != arr.dtype:
                return _P.get("Cast")(data, dtype=np.dtype(npd))._data
            return _P.get("Copy")(data)._data
        if not isinstance(arr, np.ndarray):
            return arr.astype(npd) if npd is not None else arr.copy()
        return arr.astype(npd) if npd is not None else arr.copy()
    if isinstance(data, np.ndarray):
        D.dtype_of(data.dtype)  # rejects unsupported dtypes (object, strings)
        return data.astype(npd) if npd is not None else np.array(data, copy=True)
    if isinstance(data, np.generic):
        arr = np.asarray(data)
        D.dtype_of(arr.dtype)
        return arr.astype(npd) if npd is not None else arr
    if isinstance(data, bool):
        return np.asarray(data, dtype=npd or np.bool_)
    if isinstance(data, numbers.Integral):
        if npd is None and _INT64_MAX < data <= _UINT64_MAX:
            return np.asarray(data, dtype=np.uint64)
        return np.asarray(data, dtype=npd or np.int64)
    if isinstance(data, numbers.Real):
        return np.asarray(data, dtype=npd or np.float32)
    if isinstance(data, numbers.Complex):
        return np.asarray(data, dtype=npd or np.complex64)
    if isinstance(data, (list, tuple)):
        return _from_sequence(data, npd)
    if hasattr(data, "__array__") or hasattr(data, "__cuda_array_interface__"):
        from ._core import backend as B
        try:
            B.of_array(data)
            return data.astype(npd) if npd is not None else data.copy()
        except TypeError:
            return _make_array(np.asarray(data), dtype, shape, init)
    raise TypeError(f"For 'Tensor', the type of 'input_data' should be one of {_ACCEPTED}, "
                    f"but got type '{type(data).__name__}'.")


def _from_sequence(data, npd):
    flat_kind = _sequence_kind(data)
    host = _nested_to_host(data)
    if npd is None:
        npd = {"bool": np.bool_, "int": np.int64, "float": np.float32,
               "complex": np.complex64, "empty": np.float32}.get(flat_kind)
    try:
        arr = np.array(host, dtype=npd)
    except ValueError as e:
        raise ValueError(f"For 'Tensor', the nested sequence is ragged or invalid: {e}") from None
    if npd is None:
        D.dtype_of(arr.dtype)
    return arr


def _nested_to_host(x):
    if isinstance(x, Tensor):
        return x.asnumpy()
    if isinstance(x, (list, tuple)):
        return [_nested_to_host(v) for v in x]
    return x


def _sequence_kind(x):
    """Kind of the Python scalars in a nested sequence, or None if it holds arrays/Tensors."""
    kinds = set()
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, bool):
            kinds.add(0)
        elif isinstance(v, numbers.Integral) and not isinstance(v, np.generic):
            kinds.add(1)
        elif isinstance(v, numbers.Real) and not isinstance(v, np.generic):
            kinds.add(2)
        elif isinstance(v, numbers.Complex) and not isinstance(v, np.generic):
            kinds.add(3)
        else:
            return None  # Tensors / numpy scalars: let numpy decide the dtype
    if not kinds:
        return "empty"
    return ("bool", "int", "float", "complex")[max(kinds)]


# ---------------------------------------------------------------------- printing
def _format_str(a):
    if a.dtype == D.bfloat16.np:
        a = a.astype(np.float32)
    return str(a)


def _float_formatter(a):
    digits = 4 if a.dtype == np.float16 else 8
    return lambda v: f"{v: .{digits}e}"


def format_repr(a, separator=", "):
    """MindSpore's ``repr``: ``Tensor(shape=[2, 2], dtype=Float32, value=\\n[[...]])``."""
    dt = D.dtype_of(a.dtype)
    head = f"Tensor(shape={list(a.shape)}, dtype={dt}, value="
    if a.dtype == D.bfloat16.np:
        a = a.astype(np.float32)
        body = np.array2string(a, separator=separator, threshold=1000)
    elif a.ndim == 0:
        v = a.item()
        body = f"{v:.6g}" if isinstance(v, float) else str(v)
        if isinstance(v, bool):
            body = str(v)
    elif a.size == 0:
        body = ""
    elif a.dtype.kind == "f":
        body = np.array2string(a, separator=separator, threshold=1000,
                               formatter={"float_kind": _float_formatter(a)})
    else:
        body = np.array2string(a, separator=separator, threshold=1000)
    sep = "\n" if a.ndim >= 2 else " "
    return f"{head}{sep}{body})"


_P._set_tensor_class(Tensor)
