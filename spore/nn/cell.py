"""nn.Cell: the base of every network, with MindSpore's registration and naming rules.

NOTE: [Parameter names]
Assigning a Parameter to a Cell attribute registers it; an unnamed one takes the
attribute's name. Assigning a Cell as a child (``auto_prefix=True``, the
default) renames *all* of the child's parameters to ``<attribute>.<path inside
the child>``, so names read like ``dense_relu_sequential.0.weight``; the last
assignment wins when a cell is reachable twice. ``insert_child_to_cell`` and
``auto_prefix=False`` parents do not prefix. Checkpoints are keyed by these
names.
"""
from __future__ import annotations

import collections
import functools
import itertools
import re

from .. import _dtype as mstype
from .._autodiff import custom as _custom, tape as _tape
from .._context import execution_mode, GRAPH_MODE
from .._core import primitive as _P
from .._parameter import Parameter, ParameterTuple
from .._tensor import Tensor
from . import _hooks

_hook_ids = itertools.count()
_NAME_PREFIX = re.compile(r"^\w*[0-9a-zA-Z\_\.\-]*$", re.ASCII)


def _add_hook(registry, hook_fn, check=False):
    """Register ``hook_fn`` under a new key (compiled graphs that traced the cell are
    re-checked: the epoch moves); returns the key."""
    if check and not callable(hook_fn):
        raise TypeError(f"Expected a callable hook function, but got "
                        f"{type(hook_fn).__name__}.")
    key = next(_hook_ids)
    _P.bump_epoch()
    registry[key] = hook_fn
    return key


class _HookHandle:
    """Returned by ``register_*_hook``; ``remove()`` unregisters the hook."""

    def __init__(self, registry, key):
        self._registry = registry
        self._key = key

    def remove(self):
        self._registry.pop(self._key, None)
        _P.bump_epoch()


class Cell:
    """Base class of networks: define layers in ``__init__`` and the computation in
    ``construct``. Calling the cell runs ``construct`` (eagerly in PyNative mode).

    Args:
        auto_prefix: prefix the parameter names of child cells with their attribute name.
        flags: stored for compatibility.
    """

    def __init_subclass__(cls, **kwargs):
        """Cells built while a function is compiled are built once, with real values
        (ops in ``__init__`` run eagerly, as MindSpore builds them at compile time)."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_builds_eagerly", False):
            return

        @functools.wraps(init)
        def __init__(self, *args, **kw):
            if _P.active_capture() is None:
                return init(self, *args, **kw)
            with _P.paused():
                return init(self, *args, **kw)
        __init__._builds_eagerly = True
        cls.__init__ = __init__

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_auto_prefix"] = auto_prefix
        d["_params"] = collections.OrderedDict()
        d["_cells"] = collections.OrderedDict()
        d["_param_tuples"] = collections.OrderedDict()
        d["training"] = False
        d["requires_grad"] = False
        d["_phase"] = "train"
        d["_forward_pre_hooks"] = collections.OrderedDict()
        d["_forward_hooks"] = collections.OrderedDict()
        d["_backward_hooks"] = collections.OrderedDict()
        d["_backward_pre_hooks"] = collections.OrderedDict()
        d["_compute_dtype"] = None
        d["_jit_config"] = None
        d["_flags"] = dict(flags or {})

    # ------------------------------------------------------------------ registration
    def __setattr__(self, name, value):
        _P.bump_epoch()
        d = self.__dict__
        if "_params" not in d:
            raise AttributeError(f"The '{type(self).__name__}' object has no attribute "
                                 "'_auto_prefix'. Did you forget to call "
                                 "super().__init__() in __init__?")
        params, cells = d["_params"], d["_cells"]
        if isinstance(value, Parameter):
            self._register_parameter(name, value)
        elif isinstance(value, Cell):
            params.pop(name, None)
            cells[name] = value
            d[name] = value
            if self._auto_prefix:
                _prefix_names(value, name)
        elif isinstance(value, ParameterTuple):
            d["_param_tuples"][name] = _tuple_entries(value)
            d[name] = value
        elif name in params:
            if isinstance(value, Tensor):
                params[name].set_data(value)
            elif value is None:
                params.pop(name)
                d[name] = None
            else:
                raise TypeError(f"Parameter '{name}' already exists in network, can not assign "
                                f"this type: '{type(value)}' as a parameter.")
        else:
            if name in cells:
                if value is not None:
                    raise TypeError(f"Sub cell '{name}' already exists in network, can not "
                                    f"assign this type: '{type(value)}' as a cell.")
                cells.pop(name)
            object.__setattr__(self, name, value)

    def _register_parameter(self, name, param):
        d = self.__dict__
        d["_cells"].pop(name, None)
        if not param._user_named or param.name.startswith("Parameter#"):
            param.name = name
        d["_params"][name] = param
        d[name] = param

    def __delattr__(self, name):
        d = self.__dict__
        d["_params"].pop(name, None)
        d["_cells"].pop(name, None)
        d["_param_tuples"].pop(name, None)
        object.__delattr__(self, name)

    def insert_child_to_cell(self, child_name, child_cell):
        """Add a child cell under ``child_name`` (its parameter names are not prefixed)."""
        if not isinstance(child_name, str):
            raise TypeError(f"For 'insert_child_to_cell', the type of parameter 'child_name' "
                            f"must be str, but got {type(child_name)}.")
        if not child_name or "." in child_name:
            raise KeyError("For 'insert_child_to_cell', the parameter 'child_name' can not be "
                           "None and can not contain '.' ")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the argument 'child_cell' must be "
                            f"'Cell' if not None, but got type {type(child_cell)}.")
        d = self.__dict__
        d["_cells"][child_name] = child_cell
        d[child_name] = child_cell

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        if check_name_contain_dot and "." in param_name:
            raise KeyError("For 'insert_param_to_cell', the 'param_name' can not contain '.'.")
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the 'param' must be 'Parameter', but "
                            f"got {type(param)}.")
        self._register_parameter(param_name, param)

    # ------------------------------------------------------------------ calling
    def construct(self, *args, **kwargs):
        raise AttributeError("For 'Cell', the method 'construct' is not defined.")

    def __call__(self, *args, **kwargs):
        if type(self).construct is Cell.construct:
            raise AttributeError("For 'Cell', the method 'construct' is not defined.")
        if self._compute_dtype is not None:
            args = tuple(_cast_float(a, self._compute_dtype) for a in args)
        if self._forward_pre_hooks:
            args, kwargs = _hooks.run_forward_pre_hooks(self, args, kwargs)
        hook_call = None
        if self._backward_hooks or self._backward_pre_hooks:
            capture = _P.active_capture()
            if capture is not None:     # as in MindSpore: backward hooks run in PyNative
                capture.unsupported(f"a backward hook registered on {type(self).__name__} "
                                    "(register_backward_hook / register_backward_pre_hook)")
            hook_call, args = _hooks.hook_inputs(self, args)
        try:
            if execution_mode() == GRAPH_MODE or "_jit_fn" in self.__dict__ \
                    or _P.active_capture() is not None:
                from .._jit import run_cell
                out = run_cell(self, args, kwargs)
            else:
                if _custom.has_bprop(self) and _tape.is_recording():
                    out = _custom.call_with_bprop(self, args, kwargs)
                elif "_recompute" in self.__dict__ and _tape.is_recording():
                    from .._autodiff.recompute import recompute_call
                    out = recompute_call(self, args, kwargs)
                else:
                    out = self.construct(*args, **kwargs)
        except Exception:
            if self._forward_hooks:
                _hooks.run_forward_hooks(self, args, kwargs, None, always_only=True)
            raise
        if self._forward_hooks:
            out = _hooks.run_forward_hooks(self, args, kwargs, out)
        if hook_call is not None:
            out = _hooks.attach_backward_hooks(hook_call, out)
        return out

    def register_forward_pre_hook(self, hook_fn, *, prepend=False, with_kwargs=False):
        """``hook_fn(cell, inputs)`` runs before ``construct``; a non-None result replaces
        the inputs. ``with_kwargs``: ``hook_fn(cell, inputs, kwargs)`` returning None or
        ``(inputs, kwargs)``; ``prepend`` runs it before the hooks already registered."""
        key = _add_hook(self._forward_pre_hooks, hook_fn)
        _hooks.set_hook_options(self, self._forward_pre_hooks, key, prepend, with_kwargs, False)
        return _HookHandle(self._forward_pre_hooks, key)

    def register_forward_hook(self, hook_fn, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """``hook_fn(cell, inputs, output)`` runs after ``construct``; a non-None result
        replaces the output. ``with_kwargs``: ``hook_fn(cell, inputs, kwargs, output)``;
        ``prepend`` runs it before the hooks already registered; ``always_call`` runs it
        (with output None) also when ``construct`` raises, before the error propagates."""
        key = _add_hook(self._forward_hooks, hook_fn)
        _hooks.set_hook_options(self, self._forward_hooks, key, prepend, with_kwargs,
                                always_call)
        return _HookHandle(self._forward_hooks, key)

    def register_backward_hook(self, hook_fn):
        """``hook_fn(cell, grad_input, grad_output)`` runs in PyNative backward passes:
        ``grad_output`` holds the gradients w.r.t. the cell's outputs, ``grad_input`` those
        w.r.t. its tensor inputs (None where not differentiated); a non-None result
        replaces ``grad_input`` (see ``nn/_hooks.py``)."""
        return _HookHandle(self._backward_hooks, _add_hook(self._backward_hooks, hook_fn, check=True))

    def register_backward_pre_hook(self, hook_fn):
        """``hook_fn(cell, grad_output)`` runs in PyNative backward passes before the
        cell's own backward: ``grad_output`` holds the gradients w.r.t. the cell's outputs;
        a non-None result replaces them (see ``nn/_hooks.py``)."""
        return _HookHandle(self._backward_pre_hooks, _add_hook(self._backward_pre_hooks, hook_fn, check=True))

    # ------------------------------------------------------------------ modes
    def set_train(self, mode=True):
        """Set ``training`` on this cell and every descendant; returns self."""
        _P.bump_epoch()
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
            cell.__dict__["_phase"] = "train" if mode else "predict"
        return self

    @property
    def phase(self):
        """'train' (the default, also after set_train()) or 'predict' after set_train(False)."""
        return self._phase

    def set_grad(self, requires_grad=True):
        self.__dict__["requires_grad"] = requires_grad
        return self

    def to_float(self, dst_type):
        """Run this cell (and its children) in ``dst_type``: float inputs are cast to it and
        layers cast their float32 weights on the fly (``_cast_weight``); the master
        weights stay float32."""
        if dst_type not in (mstype.float16, mstype.float32, mstype.bfloat16):
            raise ValueError("For 'to_float', the argument 'dst_type' must be mstype.float32, "
                             "mstype.float16 or mstype.bfloat16, but got type: "
                             f"{type(dst_type)} and value: {dst_type}.")
        for _, cell in self.cells_and_names():
            cell.__dict__["_compute_dtype"] = dst_type
        return self

    def _cast_weight(self, weight):
        """``weight`` in this cell's compute dtype (set by ``to_float``); float32 weights
        are cast on the fly so that gradients still reach the float32 master copy."""
        dtype = self._compute_dtype
        if dtype is None or weight is None or weight.dtype is not mstype.float32:
            return weight
        return _cast(weight, dtype)

    def set_jit_config(self, jit_config):
        self.__dict__["_jit_config"] = jit_config

    def set_inputs(self, *inputs, **kwargs):
        """Declare the inputs ``construct`` takes, with ``None`` for the axes that vary
        (``Tensor(shape=[None, 3], dtype=ms.float32)``). In Graph mode every call is
        checked against them (MindSpore's messages) and a new size along a declared axis
        compiles without the recompile warning; PyNative ignores them, as MindSpore does."""
        if kwargs:
            raise ValueError("For 'set_inputs', keyword inputs are not supported, but got "
                             f"{sorted(kwargs)}.")
        self.__dict__["_dynamic_inputs"] = tuple(inputs)
        self.__dict__.pop("_graph_construct", None)

    def get_inputs(self):
        """The inputs declared with ``set_inputs`` (None when there are none)."""
        return self.__dict__.get("_dynamic_inputs")

    def recompute(self, **kwargs):
        """Recompute this cell's activations in the backward pass instead of keeping
        them (``ms.recompute``; the keyword options of MindSpore's parallel modes are
        accepted). Results are unchanged."""
        self.__dict__["_recompute"] = True
        return self

    def set_boost(self, boost_type):
        """Mark this cell and its children for a ``mindspore.boost`` algorithm (only
        ``"less_bn"`` exists)."""
        if boost_type not in ("less_bn",):
            raise ValueError("For 'set_boost', the argument 'boost_type' must be 'less_bn', "
                             f"but got {boost_type}.")
        return self.add_flags_recursive(less_bn=True)

    def add_flags(self, **flags):
        """Set ``flags`` as attributes of the cell and remember them (``get_flags``)."""
        self.__dict__["_flags"].update(flags)
        self.__dict__.update(flags)
        return self

    def add_flags_recursive(self, **flags):
        """``add_flags`` on this cell and every cell below it."""
        self.add_flags(**flags)
        for cell in self.cells():
            cell.add_flags_recursive(**flags)
        return self

    def get_flags(self):
        """The flags added with ``add_flags`` (or the ``flags`` argument)."""
        return self.__dict__["_flags"]

    # ------------------------------------------------------------------ traversal
    def cells_and_names(self, cells=None, name_prefix=""):
        """Yield ``(path, cell)`` depth-first, starting with ``('', self)``."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None:
                continue
            path = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, path)

    def cells(self):
        """The direct children (a view of the ordered child dict's values)."""
        return self._cells.values()

    def name_cells(self):
        return collections.OrderedDict((k, v) for k, v in self._cells.items() if v is not None)

    def _own_params(self):
        yield from self._params.items()
        for entries in self._param_tuples.values():
            yield from entries

    def parameters_and_names(self, name_prefix="", expand=True):
        """Yield ``(attribute path, Parameter)``: own parameters first, then children."""
        seen = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else \
            [(name_prefix, self)]
        for path, cell in cells:
            for name, p in cell._own_params():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{path}.{name}" if path else name), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return collections.OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename every parameter to ``prefix + <its attribute path>``."""
        if not isinstance(prefix, str):
            raise TypeError(f"expected string or bytes-like object, got "
                            f"'{type(prefix).__name__}'")
        if not _NAME_PREFIX.match(prefix):
            raise ValueError(f"The '{prefix}' is illegal, it must be match regular"
                             f"'{_NAME_PREFIX.pattern}' by flags're.ASCII.'")
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    def apply(self, fn):
        for _, cell in self.cells_and_names():
            fn(cell)
        return self

    @property
    def cls_name(self):
        return type(self).__name__

    @property
    def param_prefix(self):
        return ""

    # ------------------------------------------------------------------ printing
    def extend_repr(self):
        """Extra text shown inside this cell's parentheses (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + repr(cell).replace("\n", "\n  ")
                       for name, cell in self._cells.items()]
        if len(extra_lines) == 1 and not child_lines:
            return f"{type(self).__name__}({extra_lines[0]})"
        if not extra_lines and not child_lines:
            return f"{type(self).__name__}()"
        body = "\n  ".join(extra_lines + child_lines)
        return f"{type(self).__name__}(\n  {body}\n)"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)


def _tuple_entries(params):
    """(key, Parameter) for a ParameterTuple attribute: keyed by the names the parameters
    carry when assigned (MindSpore's rule), which must be unique."""
    entries, seen = [], set()
    for p in params:
        if any(p is q for _, q in entries):
            continue
        if p.name in seen:
            raise ValueError(f"The value {params} , its name '{p.name}' already exists. "
                             "Please set a unique name for the parameter.")
        seen.add(p.name)
        entries.append((p.name, p))
    return tuple(entries)


def _prefix_names(child, attr):
    """Rename every parameter of ``child`` to ``<attr>.<path inside child>``."""
    for path, p in child.parameters_and_names():
        p.name = f"{attr}.{path}"


def _cast_float(x, dtype):
    if isinstance(x, Tensor) and x.dtype.is_floating_point and x.dtype is not dtype:
        return _cast(x, dtype)
    return x


def _cast(x, dtype):
    from ..ops import cast
    return cast(x, dtype)
