"""Tensor operators and methods: thin adapters that normalise MindSpore's (and the
seed programs' PyTorch-style) method signatures and call ``spore.ops``.

Kept apart from ``_tensor.py`` so the ops can import Tensor without a cycle.
Methods resolve ``ops.<name>`` when called, so they pick up every op family.
"""
from __future__ import annotations

import numpy as np

from . import _dtype as D
from . import _storage
from . import ops
from ._core import primitive as P
from ._prims import math as M
from ._prims import array as A
from ._prims.special import copy_p
from ._tensor import Tensor
from .ops import _indexing
from .ops._utils import dtype_arg

_SCALARS = (bool, int, float, complex)


# --------------------------------------------------------------------------- operators
def _reject_ndarray(other):
    if isinstance(other, np.ndarray):
        raise TypeError('Failed calling Add with "Add()(input=Tensor, other=<class '
                        '\'numpy.ndarray\'>)". The valid calling should be: '
                        '"Add()(input=<Number, Tensor>, other=<Number, Tensor>)". '
                        "Wrap the array as ms.Tensor(array) first.")


def _binary(prim, reflected=False):
    """The operator method calling ``prim``. With no handler scope active in any thread
    (``P._scopes``: nothing recording, tracing or capturing), it calls the primitive's
    eager path itself, the first thing ``Primitive.__call__`` would do: one Python frame
    less on every eager operator (W0's ``z + y``: 0.96 against 1.04 us an op)."""
    if reflected:
        def method(self, other):
            if P._scopes == 0:
                return prim.eager((other, self), {})
            return prim(other, self)
    else:
        def method(self, other):
            if P._scopes == 0:
                return prim.eager((self, other), {})
            return prim(self, other)
    return method


Tensor.__add__ = _binary(M.add_p)
Tensor.__radd__ = _binary(M.add_p, True)
Tensor.__sub__ = _binary(M.sub_p)
Tensor.__rsub__ = _binary(M.sub_p, True)
Tensor.__mul__ = _binary(M.mul_p)
Tensor.__rmul__ = _binary(M.mul_p, True)
Tensor.__truediv__ = _binary(M.div_p)
Tensor.__rtruediv__ = _binary(M.div_p, True)
Tensor.__floordiv__ = _binary(M.floor_div_p)
Tensor.__rfloordiv__ = _binary(M.floor_div_p, True)
Tensor.__mod__ = _binary(M.mod_p)
Tensor.__rmod__ = _binary(M.mod_p, True)
Tensor.__pow__ = _binary(M.pow_p)
Tensor.__rpow__ = _binary(M.pow_p, True)
Tensor.__and__ = _binary(M.bitwise_and_p)
Tensor.__rand__ = _binary(M.bitwise_and_p, True)
Tensor.__or__ = _binary(M.bitwise_or_p)
Tensor.__ror__ = _binary(M.bitwise_or_p, True)
Tensor.__xor__ = _binary(M.bitwise_xor_p)
Tensor.__rxor__ = _binary(M.bitwise_xor_p, True)
Tensor.__lshift__ = _binary(M.left_shift_p)
Tensor.__rshift__ = _binary(M.right_shift_p)
Tensor.__lt__ = _binary(M.less_p)
Tensor.__le__ = _binary(M.less_equal_p)
Tensor.__gt__ = _binary(M.greater_p)
Tensor.__ge__ = _binary(M.greater_equal_p)


def __eq__(self, other):
    if other is None:
        return False
    return M.equal_p(self, other)


def __ne__(self, other):
    if other is None:
        return True
    return M.not_equal_p(self, other)


def __matmul__(self, other):
    return ops.matmul(self, other)


def __rmatmul__(self, other):
    return ops.matmul(other, self)


def __neg__(self):
    return M.neg_p(self)


def __pos__(self):
    return self


def __abs__(self):
    return M.abs_p(self)


def __invert__(self):
    if self._data.dtype == np.bool_:
        return M.logical_not_p(self)
    return M.invert_p(self)


def __getitem__(self, index):
    return _indexing.getitem(self, index)


def __setitem__(self, index, value):
    _indexing.setitem(self, index, value)


# No __iadd__, __isub__, ... : as in MindSpore 2.10's PyNative, `a += b` (and -=, *=,
# /=, //=, %=, **=, &=, |=, ^=, @=) binds `a` to a new Tensor `a + b`, leaving any other
# name for the old tensor unchanged; the explicit in-place methods (add_, ...) write.


# --------------------------------------------------------------------------- shapes
def _shape_args(args):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(Tensor([2, 3]))."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Tensor)):
        return args[0]
    return args


def reshape(self, *shape):
    return ops.reshape(self, _shape_args(shape))


def view(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], D.DType):
        return ops.view_dtype(self, shape[0])
    return ops.reshape(self, _shape_args(shape))


def view_as(self, other):
    return ops.reshape(self, other.shape)


def transpose(self, *axes, dim0=None, dim1=None):
    """``transpose()`` reverses; ``transpose(a, b)`` swaps two dims (PyTorch style, as
    MindSpore's PyNative does); ``transpose(perm)`` / ``transpose(*perm)`` permutes."""
    if dim0 is not None or dim1 is not None:
        return ops.swapaxes(self, dim0, dim1)
    if not axes:
        return ops.transpose(self, tuple(range(self.ndim - 1, -1, -1)))
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        return ops.transpose(self, tuple(axes[0]))
    if len(axes) == 2 and all(isinstance(a, (int, np.integer)) for a in axes):
        return ops.swapaxes(self, axes[0], axes[1])
    return ops.transpose(self, axes)


def permute(self, *axis):
    return ops.permute(self, _shape_args(axis))


def flatten(self, order="C", *, start_dim=0, end_dim=-1):
    if isinstance(order, int) and not isinstance(order, bool):
        start_dim, order = order, "C"
    return ops.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def expand(self, *size):
    return ops.broadcast_to(self, _shape_args(size))


def squeeze(self, *axis, dim=None):
    if dim is not None:
        return ops.squeeze(self, dim)
    if not axis:
        return ops.squeeze(self)
    return ops.squeeze(self, axis[0] if len(axis) == 1 else axis)


def unsqueeze(self, dim):
    return ops.unsqueeze(self, dim)


def expand_dims(self, axis):
    return ops.expand_dims(self, axis)


def repeat(self, *repeats):
    """PyTorch-style repeat: tile the tensor ``repeats`` times along each dimension."""
    return ops.tile(self, tuple(_shape_args(repeats)))


def tile(self, *reps):
    return ops.tile(self, tuple(_shape_args(reps)))


@property
def T(self):
    return ops.transpose(self, tuple(range(self.ndim - 1, -1, -1)))


@property
def mT(self):
    return ops.swapaxes(self, -2, -1)


def contiguous(self):
    data = self._data
    if type(data) is not np.ndarray and not hasattr(type(data), "flags"):
        from ._prims.special import contiguous_p     # a traced tensor: decided at run time
        return contiguous_p(self)
    if data.flags.c_contiguous:
        return self
    return copy_p(self)


def is_contiguous(self):
    return bool(self._data.flags.c_contiguous)


# --------------------------------------------------------------------------- dtype
# Python's float and complex mean NumPy's (64-bit) types to astype, as in MindSpore.
_ASTYPE_PYTHON = {float: np.dtype(np.float64), complex: np.dtype(np.complex128)}


def astype(self, dtype, copy=True):
    """Cast to ``dtype``: a MindSpore dtype, a NumPy or Python type, or a dtype name."""
    if isinstance(dtype, type) and dtype in _ASTYPE_PYTHON:
        return ops.cast(self, _ASTYPE_PYTHON[dtype])
    try:
        want = None if dtype is None or isinstance(dtype, bool) else D.to_numpy_dtype(dtype)
    except TypeError:
        want = None
    if want is None and isinstance(dtype, str):
        raise TypeError(f"For Tensor.astype, the string input type must be a dtype name such "
                        f"as 'float32', 'int64' or 'bool_', but got {dtype!r}.")
    if want is None:
        raise TypeError("For Tensor.astype, the input type must be a MindSpore dtype "
                        "(mindspore.float32, ...), a NumPy type or a dtype name, but got "
                        f"{dtype!r}.")
    return ops.cast(self, want)


# The devices Tensor.to accepts (MindSpore's enum); every one keeps the tensor on the host.
_DEVICES = ("CPU", "cpu", "Ascend", "npu")


def to(self, *args, device=None, dtype=None, non_blocking=False, copy=False):
    """``to(dtype)``, ``to(device[, dtype])`` or ``to(other_tensor)`` (its dtype).

    A device must be one of MindSpore's names; the tensor stays where it is.
    """
    args = list(args)
    if args and isinstance(args[0], Tensor):
        dtype = args.pop(0).dtype
    elif args and (args[0] is None or isinstance(args[0], str)):
        device = args.pop(0)
        if args and not isinstance(args[0], bool):
            dtype = args.pop(0)
    elif args and not isinstance(args[0], bool):
        dtype = args.pop(0)
    if len(args) > 2 or not all(isinstance(a, bool) for a in args):
        raise TypeError(f"For 'Tensor.to', expected to(device, dtype, non_blocking, copy), "
                        f"to(dtype, ...) or to(other_tensor, ...), but got extra arguments "
                        f"{tuple(args)!r}.")
    if device is not None and device not in _DEVICES:
        raise ValueError(f"For 'Tensor.to', the 'device' must be one of {list(_DEVICES)}, "
                         f"but got {device!r}.")
    if dtype is None:
        return self
    return ops.cast(self, dtype_arg("Tensor.to", dtype))


def type_(self, dtype=None):
    if dtype is None:
        return str(self.dtype)
    return ops.cast(self, dtype)


def _caster(dt):
    def method(self, *args, **kwargs):
        return ops.cast(self, dt)
    return method


# --------------------------------------------------------------------------- reductions
def _axis_kw(axis, dim, default=None):
    if dim is not None:
        return dim
    return axis if axis is not None else default


def sum(self, axis=None, dtype=None, keepdims=False, initial=None, *, dim=None, keepdim=None):
    axis = _axis_kw(axis, dim)
    keep = keepdims if keepdim is None else keepdim
    r = ops.sum(self, axis, bool(keep), dtype=dtype)
    if initial is not None:
        r = r + initial
    return r


def mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, keepdims=None, dtype=None):
    axis = _axis_kw(axis, dim)
    keep = keep_dims
    if keepdim is not None:
        keep = keepdim
    if keepdims is not None:
        keep = keepdims
    x = ops.cast(self, dtype) if dtype is not None else self
    return ops.mean(x, axis, bool(keep))


def prod(self, axis=None, keep_dims=False, dtype=None, *, dim=None, keepdim=None):
    axis = _axis_kw(axis, dim)
    keep = keep_dims if keepdim is None else keepdim
    return ops.prod(self, axis, bool(keep), dtype)


def _extremum(amax_fn, arg_fn):
    def method(self, *args, **kwargs):
        ms_style = any(k in kwargs for k in ("axis", "keepdims", "initial", "where",
                                             "return_indices"))
        if ms_style:
            axis = kwargs.get("axis", args[0] if args else None)
            keep = kwargs.get("keepdims", args[1] if len(args) > 1 else False)
            values = amax_fn(self, axis, keep)
            if kwargs.get("initial") is not None:
                values = (M.maximum_p if amax_fn is ops.amax else M.minimum_p)(
                    values, kwargs["initial"])
            if kwargs.get("return_indices"):
                return values, arg_fn(self, axis, keep)
            return values
        dim = kwargs.get("dim", args[0] if args else None)
        keep = kwargs.get("keepdim", args[1] if len(args) > 1 else False)
        if dim is None:
            return amax_fn(self, None, keep)
        if isinstance(dim, Tensor):           # torch's max(other): elementwise
            return (M.maximum_p if amax_fn is ops.amax else M.minimum_p)(self, dim)
        return amax_fn(self, dim, keep), arg_fn(self, dim, keep)
    return method


def _argmax64(x, axis, keep):
    return ops.argmax(x, axis, keep)


def _argmin64(x, axis, keep):
    return ops.cast(ops.argmin(x, axis, keep), D.int64)


def argmax(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    axis = _axis_kw(axis, dim)
    keep = keepdims if keepdim is None else keepdim
    return ops.argmax(self, axis, bool(keep))


def argmin(self, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Tensor.argmin gives Int32 (MindSpore's quirk; ops.argmax gives Int64)."""
    axis = _axis_kw(axis, dim)
    keep = keepdims if keepdim is None else keepdim
    return ops.cast(ops.argmin(self, axis, bool(keep)), D.int32)


def std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None,
        unbiased=None):
    axis = _axis_kw(axis, dim)
    if correction is not None:
        ddof = correction
    if unbiased is not None:
        ddof = 1 if unbiased else 0
    keep = keepdims if keepdim is None else keepdim
    return ops.std(self, axis, ddof, bool(keep))


def var(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None, keepdim=None,
        unbiased=None):
    axis = _axis_kw(axis, dim)
    if correction is not None:
        ddof = correction
    if unbiased is not None:
        ddof = 1 if unbiased else 0
    keep = keepdims if keepdim is None else keepdim
    return ops.var(self, axis, ddof, bool(keep))


def all_(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    axis = _axis_kw(axis, dim)
    keep = keep_dims if keepdim is None else keepdim
    return ops.all(self, axis, bool(keep))


def any_(self, axis=None, keep_dims=False, *, dim=None, keepdim=None):
    axis = _axis_kw(axis, dim)
    keep = keep_dims if keepdim is None else keepdim
    return ops.any(self, axis, bool(keep))


def cumsum(self, axis=None, dtype=None, *, dim=None):
    axis = _axis_kw(axis, dim, 0)
    return ops.cumsum(self, axis, dtype)


def cumprod(self, dim=0, dtype=None):
    return ops.cumprod(self, dim, dtype)


def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None, p=None):
    if p is not None and p != "fro":
        ord = p
    return ops.norm(self, ord, dim, keepdim, dtype=dtype)


# --------------------------------------------------------------------------- misc methods
def clip(self, min=None, max=None):
    return ops.clamp(self, min, max)


def copy_(self, src, non_blocking=False):
    return A.assign_p(self, src)


def copy(self):
    return copy_p(self)


def fill_(self, value):
    return A.assign_p(self, value)


def zero_(self):
    return A.assign_p(self, 0)


def _inplace(name):
    def method(self, *args, **kwargs):
        return A.assign_p(self, getattr(ops, name)(self, *args, **kwargs))
    method.__name__ = name + "_"
    method.__doc__ = f"In-place ``{name}`` (writes into this tensor's memory)."
    return method


def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    return A.assign_p(self, ops.uniform_like(self, from_, to))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    return A.assign_p(self, ops.normal_like(self, mean, std))


def masked_fill_(self, mask, value):
    return A.assign_p(self, ops.masked_fill(self, mask, value))


def index_put_(self, indices, values, accumulate=False):
    return A.assign_p(self, ops.index_put(self, indices, values, accumulate))


def detach(self):
    return ops.stop_gradient(self)


def _attach():
    methods = {
        "__eq__": __eq__, "__ne__": __ne__, "__matmul__": __matmul__,
        "__rmatmul__": __rmatmul__, "__neg__": __neg__, "__pos__": __pos__,
        "__abs__": __abs__, "__invert__": __invert__, "__getitem__": __getitem__,
        "__setitem__": __setitem__,
        "reshape": reshape, "view": view, "view_as": view_as, "transpose": transpose,
        "permute": permute, "flatten": flatten, "expand": expand, "squeeze": squeeze,
        "unsqueeze": unsqueeze, "expand_dims": expand_dims, "repeat": repeat, "tile": tile,
        "T": T, "mT": mT, "contiguous": contiguous, "is_contiguous": is_contiguous,
        "astype": astype, "to": to, "type": type_,
        "float": _caster(D.float32), "half": _caster(D.float16), "int": _caster(D.int32),
        "long": _caster(D.int64), "bool": _caster(D.bool_), "double": _caster(D.float64),
        "bfloat16": _caster(D.bfloat16), "short": _caster(D.int16), "byte": _caster(D.uint8),
        "sum": sum, "mean": mean, "prod": prod,
        "max": _extremum(ops.amax, _argmax64), "min": _extremum(ops.amin, _argmin64),
        "argmax": argmax, "argmin": argmin, "std": std, "var": var, "all": all_, "any": any_,
        "cumsum": cumsum, "cumprod": cumprod, "norm": norm,
        "clip": clip, "clamp": clip, "copy_": copy_, "copy": copy, "clone": copy,
        "fill_": fill_, "zero_": zero_, "uniform_": uniform_, "normal_": normal_,
        "masked_fill_": masked_fill_, "index_put_": index_put_, "detach": detach,
        "untyped_storage": _storage.untyped_storage,
    }
    for name, fn in methods.items():
        setattr(Tensor, name, fn)

    # plain forwards: Tensor.<name>(*args) == ops.<name>(self, *args)
    for name in FORWARDED:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _forward(name))
    for name in INPLACE:
        setattr(Tensor, name + "_", _inplace(name))
    # families may add methods of their own: a TENSOR_METHODS dict in their ops module
    from .ops import _math, _reduce, _array, _linalg, _misc, _creation, _nn, _random
    for module in (_math, _reduce, _array, _linalg, _misc, _creation, _nn, _random):
        for name, fn in getattr(module, "TENSOR_METHODS", {}).items():
            setattr(Tensor, name, fn)


def _forward(name):
    def method(self, *args, **kwargs):
        return getattr(ops, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``ops.{name}(self, ...)``."
    return method


FORWARDED = (
    "add", "sub", "mul", "div", "divide", "true_divide", "floor_divide", "remainder", "fmod",
    "pow", "neg", "negative", "abs", "absolute", "exp", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "erf", "erfc", "sigmoid", "relu", "floor", "ceil", "round", "trunc", "sign", "maximum",
    "minimum", "lerp", "nan_to_num", "isnan", "isinf", "isfinite", "isclose", "allclose",
    "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and", "bitwise_or",
    "bitwise_xor", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
    "eq", "ne", "gt", "ge", "lt", "le", "subtract", "multiply",
    "amax", "amin", "logsumexp", "matmul", "bmm", "dot", "outer", "swapaxes", "swapdims",
    "broadcast_to", "expand_as", "gather", "gather_elements", "index_select", "masked_fill",
    "masked_select", "scatter", "scatter_add", "split", "chunk", "unbind", "narrow", "roll",
    "flip", "sort", "argsort", "topk", "unique", "tril", "triu", "diag", "repeat_interleave",
    "softmax", "log_softmax", "where", "nonzero", "count_nonzero", "addmm", "trace",
    "std_mean", "var_mean", "index_add", "take", "diagonal", "fliplr", "flipud", "t",
    "new_zeros", "new_ones", "new_full", "new_empty", "sum_to_size", "softplus",
)

INPLACE = ("add", "sub", "mul", "div", "clamp", "pow", "neg", "abs", "exp", "log", "sqrt",
           "sigmoid", "relu", "tanh", "floor", "ceil", "round", "sign", "square",
           "remainder", "fmod", "floor_divide", "lerp", "nan_to_num")


_attach()
