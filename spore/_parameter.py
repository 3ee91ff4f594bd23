"""Parameter: a named, mutable Tensor owned by a Cell (also ``nn.Parameter``)."""
from __future__ import annotations

import itertools

import numpy as np

from ._core import primitive as _P
from ._tensor import Tensor, _make_array

_unnamed = itertools.count(2)   # MindSpore's first unnamed parameter is "Parameter#2"
MAX_NAME_LEN = 1024


def _default_array(default_input):
    if isinstance(default_input, bool):
        return np.asarray(default_input)
    if isinstance(default_input, int):
        return np.asarray(default_input, dtype=np.int32)   # int -> Int32 0-d, as MindSpore
    if isinstance(default_input, Tensor):
        return default_input._data.copy() if isinstance(default_input._data, np.ndarray) \
            else default_input._data.copy()
    return _make_array(default_input, None, None, None)


class Parameter(Tensor):
    """A Tensor with a name and ``requires_grad``, updated in place by optimizers.

    Args:
        default_input: Tensor, NumPy array, list or Python number (an int gives Int32).
        name: unique name; unnamed parameters get ``Parameter#<n>`` and are renamed
            after their attribute when assigned to a Cell.
        requires_grad: whether ``trainable_params`` and gradients include it.
    """

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        self._tape_ref = None
        self._data = _default_array(default_input)
        self._user_named = bool(name)
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer
        self.is_init = True

    # -- name / flags ----------------------------------------------------------
    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        if value is None or value == "":
            value = f"Parameter#{next(_unnamed)}"
        elif not isinstance(value, str):
            raise TypeError(f"The type of the Parameter's name must be str, but got "
                            f"{type(value).__name__}.")
        elif len(value) > MAX_NAME_LEN:
            raise ValueError(f"The length of the Parameter's name must not exceed "
                             f"{MAX_NAME_LEN}, but got {len(value)}.")
        self._name = value

    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"The 'requires_grad' of a Parameter must be bool, but got "
                            f"{type(value).__name__}.")
        self._requires_grad = value

    # -- data ------------------------------------------------------------------
    @property
    def data(self):
        """A plain Tensor sharing this parameter's memory."""
        t = Tensor.__new__(Tensor)
        t._tape_ref = None
        t._data = self._data
        return t

    def value(self):
        return self.data

    def set_data(self, data, slice_shape=False):
        """Replace the value (cast to the parameter's dtype); returns the Parameter."""
        if isinstance(data, Tensor):
            arr = data._data
        elif isinstance(data, (int, float, bool, np.ndarray, np.generic)):
            arr = np.asarray(data)
        else:
            raise TypeError(f"For 'Parameter.set_data', the argument 'data' must be a Tensor, "
                            f"int or float, but got {type(data).__name__}.")
        if arr.dtype != self._data.dtype:
            arr = arr.astype(self._data.dtype)
        elif arr is self._data:
            return self
        else:
            arr = arr.copy()
        self._data = arr
        _P.bump_epoch()
        return self

    def init_data(self, *args, **kwargs):
        return self

    def clone(self, init="same"):
        """A new Parameter with a copy of the data (or ``init``-initialised), same name."""
        if init == "same":
            data = self._data.copy()
        else:
            from .common.initializer import initializer
            data = initializer(init, self.shape, self.dtype)._data
        p = Parameter(Tensor._from_array(data), name=self.name, requires_grad=self.requires_grad)
        return p

    def copy(self):
        return self.clone()

    def __deepcopy__(self, memo):
        p = Parameter.__new__(Parameter)
        p.__dict__.update(self.__dict__)
        p._tape_ref = None
        p._data = self._data.copy()
        return p

    def __reduce__(self):
        return (_rebuild_parameter, (np.asarray(self.asnumpy()).copy(), self.name,
                                     self.requires_grad))

    @property
    def param_info(self):
        return self

    @property
    def sliced(self):
        return False

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__


def _rebuild_parameter(arr, name, requires_grad):
    return Parameter(arr, name=name, requires_grad=requires_grad)


class ParameterTuple(tuple):
    """A tuple of Parameters (what ``optimizer.parameters`` is)."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple input should be Parameter, but got "
                                f"{type(p).__name__}.")
        return super().__new__(cls, items)

    def clone(self, prefix, init="same"):
        """New Parameters named ``<prefix>.<name>``, copied or ``init``-initialised."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError("For 'ParameterTuple.clone', the 'prefix' must be a non-empty str.")
        out = []
        for p in self:
            q = p.clone(init)
            q.name = f"{prefix}.{p.name}"
            out.append(q)
        return ParameterTuple(out)


def _from_array(arr):
    t = Tensor.__new__(Tensor)
    t._tape_ref = None
    t._data = arr
    return t


Tensor._from_array = staticmethod(_from_array)
_P._set_parameter_class(Parameter)
