"""``serialize`` / ``deserialize`` / ``show`` / ``compare``: a pipeline as JSON.

Every dataset node, sampler and built-in transform keeps the arguments it was built with
(``remember_arguments``), so a pipeline is written as nested ``{"op_type", "args",
"kwargs"}`` objects; arrays, enums, dtypes and schemas have tagged forms. Reading it back
rebuilds the objects by calling the constructors of classes found in ``spore.dataset``
only (never loading code); a Python function in a pipeline is written by name and cannot
be read back (MindSpore has the same limit). The JSON is Spore's own layout, not
MindSpore's.
"""
from __future__ import annotations

import enum
import functools
import importlib
import json

import numpy as np

_PACKAGE = "spore.dataset"


def remember_arguments(cls):
    """Wrap ``cls.__init__`` so an instance keeps the arguments of its outermost
    constructor call in ``_init_args`` (subclasses are wrapped by ``__init_subclass__``)."""
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_remembers", False):
        return

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if "_init_args" not in self.__dict__:
            self.__dict__["_init_args"] = (args, kwargs)
        init(self, *args, **kwargs)

    wrapper._remembers = True
    cls.__init__ = wrapper


def _encode(value):
    from ..._dtype import DType
    from .schema import Schema
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return {"__items__": [[_encode(k), _encode(v)] for k, v in value.items()]}
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return {"__enum__": _name(type(value)), "name": value.name}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, DType):
        return {"__dtype__": str(value).lower()}
    if isinstance(value, Schema):
        return {"__schema__": json.loads(value.to_json())}
    if type(value).__module__.startswith(_PACKAGE) and hasattr(value, "__dict__") and \
            not isinstance(value, type):
        # a class without a constructor of its own takes no arguments
        args, kwargs = value.__dict__.get("_init_args", ((), {}))
        return {"op_type": _name(type(value)), "args": _encode(list(args)),
                "kwargs": _encode(kwargs)}
    if callable(value):
        return {"python_function": getattr(value, "__qualname__", type(value).__name__)}
    raise TypeError(f"serialize: cannot write a {type(value).__name__} value as JSON.")


def _name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _resolve(name):
    """A class of ``spore.dataset`` by its full name (nothing else is ever loaded)."""
    module, _, qualname = name.rpartition(".")
    if not (module == _PACKAGE or module.startswith(_PACKAGE + ".")) or "." in qualname:
        raise ValueError(f"deserialize: {name!r} is not a class of {_PACKAGE}.")
    obj = getattr(importlib.import_module(module), qualname, None)
    if not isinstance(obj, type):
        raise ValueError(f"deserialize: {name!r} is not a class of {_PACKAGE}.")
    return obj


def _decode(value):
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "op_type" in value:
        cls = _resolve(value["op_type"])
        args = [_decode(a) for a in value.get("args", [])]
        kwargs = {k: _decode(v) for k, v in value.get("kwargs", {}).items()}
        return cls(*args, **kwargs)
    if "__enum__" in value:
        return _resolve(value["__enum__"])[value["name"]]
    if "__ndarray__" in value:
        return np.array(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if "__dtype__" in value:
        from ... import _dtype as D
        return D.resolve(value["__dtype__"])
    if "__schema__" in value:
        from .schema import Schema
        schema = Schema()
        schema.from_json(value["__schema__"])
        return schema
    if "__items__" in value:
        return {_decode(k): _decode(v) for k, v in value["__items__"]}
    if "python_function" in value:
        raise ValueError(f"deserialize: the pipeline holds the Python function "
                         f"{value['python_function']!r}, which JSON cannot carry; build that "
                         "step in code.")
    return {k: _decode(v) for k, v in value.items()}


def serialize(dataset, json_filepath=""):
    """The pipeline ending at ``dataset`` as a dict (also written to ``json_filepath``)."""
    from .dataset import Dataset
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: 'dataset' must be a Dataset, but got "
                        f"{type(dataset).__name__}.")
    tree = _encode(dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(tree, f, indent=2)
    return tree


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline a ``serialize`` dict (or the JSON file it wrote) describes."""
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("deserialize: give exactly one of 'input_dict' and 'json_filepath'.")
    if json_filepath is not None:
        with open(json_filepath, encoding="utf-8") as f:
            input_dict = json.load(f)
    if not isinstance(input_dict, dict) or "op_type" not in input_dict:
        raise ValueError("deserialize: the input is not a serialized pipeline (no 'op_type').")
    return _decode(input_dict)


def show(dataset, indentation=2):
    """Print the pipeline's JSON (``indentation`` None: one line)."""
    if indentation is not None and (isinstance(indentation, bool) or
                                    not isinstance(indentation, int) or indentation < 0):
        raise TypeError("show: 'indentation' must be a non-negative int or None.")
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2):
    """Whether two pipelines are built the same way (same JSON)."""
    return serialize(pipeline1) == serialize(pipeline2)
