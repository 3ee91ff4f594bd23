"""``ops.Custom`` and its registration helpers.

``Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop)`` runs a Python function on
NumPy arrays as one primitive (``spore/_prims/ops_a.py``), differentiable through the
user's ``bprop``. ``func_type="hybrid"`` (or ``"akg"``) with a ``kernel``/``ms_kernel``
function runs the MindSpore hybrid-DSL function as Python over NumPy (its intrinsics
``output_tensor``, ``allocate``, the loop ranges and math functions are provided), as
MindSpore's own Python fallback of the DSL does. The other ``func_type`` values name
kernels compiled for Ascend/GPU toolchains (``tbe``, ``aicpu``) or C++/CUDA shared
libraries (``aot``), which Spore cannot run: a clear NotImplementedError.

The registration helpers (``CustomRegOp``, ``CpuRegOp``, ``DataType``,
``op_info_register``, ``custom_info_register``) build the same operator-information
dictionaries as MindSpore and record them in ``REGISTERED_OP_INFO``; Spore's kernels do
not need them, so registering changes nothing else (as on MindSpore's CPU for pyfunc).
"""
from __future__ import annotations

import functools
import json
import math

import numpy as np

from .. import _dtype as D
from .._core.aval import ShapedArray
from .._prims.ops_a import custom_multi_p, custom_p
from .operations import Primitive

FUNC_TYPES = ("hybrid", "akg", "tbe", "aicpu", "aot", "pyfunc")
REGISTERED_OP_INFO = []


def _resolve_dtype(value):
    return D.resolve(value) if not isinstance(value, np.dtype) else D.dtype_of(value)


class Custom(Primitive):
    """``Custom(func, out_shape=None, out_dtype=None, func_type='pyfunc', bprop=None,
    reg_info=None)``: a user operator. ``out_shape``/``out_dtype`` are values or callables
    of the input shapes/dtypes (a tuple of them for several outputs); ``bprop(*inputs,
    out, dout)`` returns one gradient per input."""

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None,
                 reg_info=None):
        super().__init__("Custom")
        if func_type not in FUNC_TYPES:
            raise ValueError(f"For 'Custom', 'func_type' must be one of {list(FUNC_TYPES)}, but "
                             f"got {func_type!r}.")
        if func_type in ("tbe", "aicpu", "aot"):
            raise NotImplementedError(
                f"For 'Custom', func_type {func_type!r} runs kernels built with Ascend/GPU "
                f"toolchains or compiled C++/CUDA libraries, which Spore (NumPy on the CPU) "
                f"cannot load; write the kernel as a Python function with "
                f"func_type='pyfunc'.")
        if not callable(func):
            raise TypeError(f"For 'Custom', 'func' must be a function when 'func_type' is "
                            f"{func_type!r}, but got {type(func).__name__}.")
        if func_type in ("hybrid", "akg"):
            func = func if getattr(func, "_ms_kernel", False) else kernel(func)
        if bprop is not None and not callable(bprop):
            raise TypeError(f"For 'Custom', 'bprop' must be a function, but got "
                            f"{type(bprop).__name__}.")
        if func_type == "pyfunc":
            for arg, v in (("out_shape", out_shape), ("out_dtype", out_dtype)):
                if v is None:
                    raise TypeError(f"For 'Custom', 'func_type': pyfunc, 'func': {func}, "
                                    f"'{arg}' must be one of [tuple, list, function], but "
                                    f"got NoneType.")
        self.func, self.func_type, self.bprop = func, func_type, bprop
        self.func_name = getattr(func, "__name__", type(func).__name__)
        self.out_shape, self.out_dtype = out_shape, out_dtype
        self.reg_info = reg_info if reg_info is not None else getattr(func, "reg_info", None)
        self.multi = isinstance(out_dtype, (tuple, list))
        self.add_prim_attr("func_type", func_type)
        self.add_prim_attr("func_name", self.func_name)

    def output_avals(self, shapes, dtypes):
        """The output shapes/dtypes for inputs of ``shapes``/``dtypes`` (NumPy dtypes)."""
        if self.out_shape is None or self.out_dtype is None:        # hybrid: run it once
            outs = self.func(*[np.zeros(s, d) for s, d in zip(shapes, dtypes)])
            outs = outs if isinstance(outs, tuple) else (outs,)
            self.multi = len(outs) > 1
            return [ShapedArray(tuple(np.shape(o)), np.asarray(o).dtype) for o in outs]
        shape = self.out_shape(*[list(s) for s in shapes]) if callable(self.out_shape) \
            else self.out_shape
        dtype = self.out_dtype(*[D.dtype_of(d) for d in dtypes]) \
            if callable(self.out_dtype) else self.out_dtype
        shapes_out = list(shape) if self.multi else [shape]
        dtypes_out = list(dtype) if self.multi else [dtype]
        if len(shapes_out) != len(dtypes_out):
            raise ValueError(f"For 'Custom', 'out_shape' and 'out_dtype' must describe the same "
                             f"number of outputs, but got {len(shapes_out)} and "
                             f"{len(dtypes_out)}.")
        return [ShapedArray(tuple(int(v) for v in s), np.dtype(_resolve_dtype(d).np))
                for s, d in zip(shapes_out, dtypes_out)]

    def __call__(self, *inputs):
        from .._tensor import Tensor
        args = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
        prim = custom_multi_p if self.multi else custom_p
        return prim(*args, op=self)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


# ----------------------------------------------------------------- hybrid DSL in Python
def _dsl_namespace():
    """The intrinsics of MindSpore's hybrid DSL, over NumPy."""
    names = {"output_tensor": lambda shape, dtype: np.zeros(shape, np.dtype(str(dtype))),
             "allocate": lambda shape, dtype: np.zeros(shape, np.dtype(str(dtype))),
             "serial": range, "vectorize": range, "parallel": range, "reduce": range,
             "grid": lambda shape: np.ndindex(*shape),
             "rsqrt": lambda x: 1.0 / np.sqrt(x), "sqrt": np.sqrt, "exp": np.exp,
             "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh,
             "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
             "sinh": np.sinh, "cosh": np.cosh, "abs": np.abs, "fabs": np.abs, "ceil": np.ceil,
             "floor": np.floor, "trunc": np.trunc, "round": np.round, "isnan": np.isnan,
             "isinf": np.isinf, "isfinite": np.isfinite, "sign": np.sign, "power": np.power,
             "erf": np.vectorize(math.erf), "max": max, "min": min}
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
                 "uint16", "uint32", "uint64", "bool_"):
        names[name] = getattr(np, name)
    return names


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Mark a function as written in MindSpore's hybrid DSL (``@kernel`` or
    ``@kernel(reg_info=..., compile_attrs=...)``): calling it runs it as Python over NumPy
    with the DSL's intrinsics; ``ops.Custom(f, func_type='hybrid')`` runs it as an op."""
    if compile_attrs is not None and not isinstance(compile_attrs, dict):
        raise TypeError(f"For 'kernel', 'compile_attrs' must be a dict, but got "
                        f"{type(compile_attrs).__name__}.")

    def wrap(func):
        @functools.wraps(func)
        def run(*args):
            scope = dict(func.__globals__)
            for name, value in _dsl_namespace().items():
                scope.setdefault(name, value)
            local = type(func)(func.__code__, scope, func.__name__, func.__defaults__,
                               func.__closure__)
            return local(*[np.asarray(a.asnumpy() if hasattr(a, "asnumpy") else a)
                           for a in args])
        run._ms_kernel = True
        run.reg_info = reg_info
        run.compile_attrs = dict(compile_attrs or {})
        return run
    return wrap if fn is None else wrap(fn)


ms_kernel = kernel


# ----------------------------------------------------------------- registration info
class _RegOp:
    """Builder of an operator-information dictionary (MindSpore's ``RegOp`` family)."""

    def __init__(self, op_name=""):
        if not isinstance(op_name, str):
            raise TypeError(f"op_name must be a str, but got {type(op_name).__name__}.")
        self.op_name = op_name
        self.inputs, self.outputs, self.attr_, self.dtype_format_ = [], [], [], []
        self.fusion_type_ = ""
        self.target_ = None

    def _io(self, where, index, name, param_type, kwargs):
        info = {"index": index, "name": name, "param_type": param_type}
        info.update(kwargs)
        where.append({k: v for k, v in info.items() if v is not None})
        return self

    def input(self, index=None, name=None, param_type=None, **kwargs):
        return self._io(self.inputs, index, name, param_type, kwargs)

    def output(self, index=None, name=None, param_type=None, **kwargs):
        return self._io(self.outputs, index, name, param_type, kwargs)

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        info = {"name": name, "param_type": param_type, "type": value_type,
                "default_value": default_value}
        info.update(kwargs)
        self.attr_.append({k: v for k, v in info.items() if v is not None})
        return self

    def dtype_format(self, *args):
        if not all(isinstance(a, tuple) and len(a) in (2, 3) for a in args):
            raise ValueError("dtype_format takes (dtype, format) tuples such as "
                             "DataType.F32_Default.")
        self.dtype_format_.append(tuple(a[:2] for a in args))
        return self

    def fusion_type(self, fusion_type):
        self.fusion_type_ = fusion_type
        return self

    def target(self, target=None):
        if target not in (None, "Ascend", "GPU", "CPU"):
            raise ValueError(f"target must be 'Ascend', 'GPU' or 'CPU', but got {target!r}.")
        self.target_ = target
        return self

    def get_op_info(self):
        """The operator information as a dictionary."""
        info = {"op_name": self.op_name, "imply_type": self._imply_type,
                "fusion_type": self.fusion_type_, "inputs": self.inputs,
                "outputs": self.outputs, "attr": self.attr_,
                "dtype_format": [list(map(list, row)) for row in self.dtype_format_]}
        if self.target_ is not None:
            info["target"] = self.target_
        return info


class CpuRegOp(_RegOp):
    """Operator information of a CPU kernel: ``CpuRegOp(op_name).input(0, 'x')...``."""
    _imply_type = "CPU"

    def attr(self, name=None, value_type=None, value=None, **kwargs):
        return super().attr(name, None, value_type, None, value=value, **kwargs)


class CustomRegOp(_RegOp):
    """Operator information of an ``ops.Custom`` kernel (``.target('CPU')`` and so on)."""
    _imply_type = ""

    def __init__(self, op_name="Custom"):
        super().__init__(op_name)

    def input(self, index=None, name=None, param_type="required", **kwargs):
        return super().input(index, name, param_type, **kwargs)

    def output(self, index=None, name=None, param_type="required", **kwargs):
        return super().output(index, name, param_type, **kwargs)


_DT = {"BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16",
       "I32": "int32", "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16",
       "F32": "float32", "F64": "float64", "BF16": "bfloat16", "C64": "complex64",
       "C128": "complex128"}
_REAL = "BOOL I8 U8 I16 U16 I32 U32 I64 U64 F16 F32 F64 BF16".split()
_FORMATS = [  # (suffix, format, dtypes)
    ("None", "", ["None"] + _REAL),
    ("Default", "DefaultFormat", ["None"] + _REAL + ["C64", "C128"]),
    ("5HD", "NC1HWC0", _REAL), ("FracZ", "FRACTAL_Z", _REAL), ("FracNZ", "FRACTAL_NZ", _REAL),
    ("C1HWNCoC0", "C1HWNCoC0", _REAL), ("NCHW", "NCHW", _REAL), ("NHWC", "NHWC", _REAL),
    ("HWCN", "HWCN", _REAL), ("NDHWC", "NDHWC", _REAL), ("ChannelLast", "ChannelLast", _REAL),
    ("NCDHW", "NCDHW", "I8 U8 I32 F16 F32 BF16".split()),
    ("NDC1HWC0", "NDC1HWC0", "I8 U8 I32 F16 F32 BF16".split()),
    ("NC1HWC0", "NC1HWC0", ["I8", "U8"]),
    ("DHWCN", "DHWCN", ["F16", "F32", "BF16"]),
    ("FRACTAL_Z_3D", "FRACTAL_Z_3D", ["F16", "F32", "BF16"]),
    ("FracZNLSTM", "FRACTAL_ZN_LSTM", ["F16", "F32", "BF16"]),
    ("FracZNRNN", "FRACTAL_ZN_RNN", ["F16", "F32", "BF16"]),
    ("ND_RNNBIAS", "ND_RNN_BIAS", ["F16", "F32", "BF16"]),
]


def _data_type_table():
    table = {}
    for suffix, fmt, dtypes in _FORMATS:
        for t in dtypes:
            table[f"{t}_{suffix}"] = (_DT.get(t, ""), fmt)
    for suffix, kind, dtypes in (("Default_Tuple", "tuple", _REAL + ["C64", "C128"]),
                                 ("Default_List", "list", _REAL)):
        for t in dtypes:
            table[f"{t}_{suffix}"] = (_DT[t], "DefaultFormat", kind)
    return table


DataType = type("DataType", (), dict(
    _data_type_table(),
    __doc__="(dtype, format) pairs for ``RegOp.dtype_format``: ``DataType.F32_Default`` is "
            "``('float32', 'DefaultFormat')``."))


def _op_info_dict(op_info, op="op_info_register"):
    if isinstance(op_info, _RegOp):
        return op_info.get_op_info()
    if isinstance(op_info, str):
        try:
            return json.loads(op_info)
        except ValueError:
            raise ValueError(f"For '{op}', the 'op_info' string must be JSON.") from None
    if isinstance(op_info, dict):
        return op_info
    raise TypeError(f"For '{op}', the 'op_info' must be a dict, a JSON string or a RegOp, "
                    f"but got {type(op_info).__name__}.")


def op_info_register(op_info):
    """Decorator recording ``op_info`` (a RegOp's ``get_op_info()`` dict or its JSON) in
    ``REGISTERED_OP_INFO``; the decorated function is returned unchanged."""
    info = _op_info_dict(op_info)

    def register(func):
        REGISTERED_OP_INFO.append(info)
        return func
    return register


def custom_info_register(*reg_info):
    """Decorator attaching registration information to a custom-op function
    (``func.reg_info``), which ``ops.Custom`` then uses when no ``reg_info`` is given."""
    infos = [_op_info_dict(r, "custom_info_register") for r in reg_info]

    def decorator(func):
        func.reg_info = infos if len(infos) != 1 else infos[0]
        return func
    return decorator
