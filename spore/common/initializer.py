"""``mindspore.common.initializer``: initial values for parameters.

An ``Initializer`` fills a NumPy array in place (``init(arr)``), as in MindSpore,
so user subclasses that override ``_initialize(arr)`` work unchanged.
``initializer(init, shape, dtype)`` builds a Tensor with one.

Random initializers draw from Spore's one random state (``spore._random``), so
``set_seed`` makes them repeat; the samples come from the random primitives'
kernels, run eagerly, since an initial value is data rather than part of a
computation being traced. Like MindSpore, they sample in float32 and assign
into the target array (an integer array receives the truncated values).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import _dtype as D
from .. import _random as R
from .._core import primitive as P
from .._prims import random as RP
from .._tensor import Tensor

_INITIALIZER_ALIAS = {}
_FLOAT32 = np.dtype(np.float32)


class Initializer:
    """The base class of initializers: subclasses implement ``_initialize(arr)``, which
    fills the NumPy array ``arr`` in place.

    Args:
        **kwargs: the initializer's arguments (kept for introspection).
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._seed = None

    @property
    def seed(self):
        """An explicit seed for this initializer's draws (``None``: the global state)."""
        return self._seed

    @seed.setter
    def seed(self, value):
        self._seed = value

    def _initialize(self, *kwargs):
        raise NotImplementedError('Must be overridden!')

    def __call__(self, arr):
        return self._initialize(arr)


def _register(*aliases):
    """Register a class under its lower-cased name and ``aliases`` (for string inits)."""
    def register(cls):
        for name in (cls.__name__.lower(),) + aliases:
            _INITIALIZER_ALIAS.setdefault(name, cls)
        return cls
    return register


# --------------------------------------------------------------------------- sampling
def _draw(init, prim, shape, **attrs):
    """float32 samples of a random primitive, keyed by the global state (or ``init.seed``)."""
    key = P.wrap(R.key_array(R.next_key(init.seed)))
    out = prim.eager((key,), dict(shape=tuple(shape), dtype=_FLOAT32, **attrs))
    return out._data


def _check_sigma(sigma):
    if sigma < 0:
        raise ValueError("sigma < 0")


def _normal(init, mean, sigma, shape):
    _check_sigma(sigma)
    return _draw(init, RP.standard_normal_p, shape) * np.float32(sigma) + np.float32(mean)


def _uniform(init, low, high, shape):
    u = _draw(init, RP.uniform_real_p, shape)
    return u * np.float32(high - low) + np.float32(low)


def _truncated_normal(init, low, high, mean, sigma, shape):
    """N(mean, sigma) restricted to the absolute interval [low, high]."""
    _check_sigma(sigma)
    if sigma == 0:
        return np.full(shape, np.clip(mean, low, high), _FLOAT32)
    z = _draw(init, RP.truncated_normal_p, shape, a=(low - mean) / sigma,
              b=(high - mean) / sigma)
    return z * np.float32(sigma) + np.float32(mean)


def _assign(arr, data):
    arr[...] = data


# --------------------------------------------------------------------------- fans and gains
def _calculate_fan_in_and_fan_out(shape):
    """(fan_in, fan_out): a 2-D weight is (out, in); a conv weight (out, in, *kernel)."""
    dims = len(shape)
    if dims < 2:
        raise ValueError("'fan_in' and 'fan_out' can not be computed for tensor with fewer than"
                         f" 2 dimensions, but got dimensions {dims}.")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(shape, mode):
    mode = mode.lower()
    valid = ['fan_in', 'fan_out']
    if mode not in valid:
        raise ValueError(f"'mode' {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(shape)
    return fan_in if mode == 'fan_in' else fan_out


_LINEAR_GAINS = ('linear', 'conv1d', 'conv2d', 'conv3d', 'conv_transpose1d', 'conv_transpose2d',
                 'conv_transpose3d', 'sigmoid')


def _calculate_gain(nonlinearity, param=None):
    """The gain that keeps activations' variance for ``nonlinearity``."""
    if nonlinearity in _LINEAR_GAINS:
        return 1
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        return math.sqrt(2.0 / (1 + _negative_slope(param) ** 2))
    raise ValueError("For 'HeUniform', the argument 'nonlinearity' should be one of "
                     "['sigmoid', 'tanh', 'relu' or 'leaky_relu'], "
                     f"but got {nonlinearity}.")


def _negative_slope(param):
    if param is None:
        return 0.01
    if isinstance(param, (int, float)) and not isinstance(param, bool):
        return param
    raise ValueError(f"For 'HeUniform', 'negative_slope' {param} is not a valid number."
                     "When 'nonlinearity' has been set to 'leaky_relu', 'negative_slope' should "
                     f"be int or float type, but got {type(param)}.")


# --------------------------------------------------------------------------- constants
@_register('zeros')
class Zero(Initializer):
    """Fills with 0."""

    def _initialize(self, arr):
        arr.fill(0)


@_register('ones')
class One(Initializer):
    """Fills with 1."""

    def _initialize(self, arr):
        arr.fill(1)


class Constant(Initializer):
    """Fills with ``value``.

    Args:
        value (Union[int, float, numpy.ndarray]): the value (an array broadcasts).
    """

    def __init__(self, value):
        super().__init__(value=value)
        self.value = value

    def _initialize(self, arr):
        _assign(arr, self.value)


@_register()
class Identity(Initializer):
    """A 2-D identity matrix (ones on the main diagonal)."""

    def _initialize(self, arr):
        if len(arr.shape) != 2:
            raise ValueError('For Identity initializer, the dimension of the initialized tensor '
                             f'should be 2, but got {len(arr.shape)}.')
        _assign(arr, np.eye(arr.shape[0], arr.shape[1]))


@_register()
class Dirac(Initializer):
    """A convolution weight (3-D to 5-D) that passes its input through: per group, output
    channel ``i`` reads input channel ``i`` at the kernel's centre.

    Args:
        groups (int): number of groups of the convolution. Default ``1``.
    """

    def __init__(self, groups=1):
        super().__init__(groups=groups)
        self.groups = groups

    def _initialize(self, arr):
        shape = arr.shape
        if len(shape) not in (3, 4, 5):
            raise ValueError("For Dirac initializer, only support to initialize tensor with "
                             f"dimension of 3, 4 or 5, but got {len(shape)}.")
        if shape[0] % self.groups != 0:
            raise ValueError("For Dirac initializer, the first dimension of the initialized "
                             "tensor must be divisible by groups, but got first dimension"
                             f"{shape[0]}, groups{self.groups}.")
        per_group = shape[0] // self.groups
        centre = tuple(s // 2 for s in shape[2:])
        data = np.zeros(shape)
        for g in range(self.groups):
            for c in range(min(per_group, shape[1])):
                data[(g * per_group + c, c) + centre] = 1
        _assign(arr, data)


# --------------------------------------------------------------------------- random
@_register()
class Normal(Initializer):
    """Samples of N(``mean``, ``sigma``²).

    Args:
        sigma (float): standard deviation. Default ``0.01``.
        mean (float): mean. Default ``0.0``.
    """

    def __init__(self, sigma=0.01, mean=0.0):
        super().__init__(sigma=sigma, mean=mean)
        self.sigma = sigma
        self.mean = mean

    def _initialize(self, arr):
        _assign(arr, _normal(self, self.mean, self.sigma, arr.shape))


@_register()
class Uniform(Initializer):
    """Samples of U(-``scale``, ``scale``).

    Args:
        scale (float): the bound. Default ``0.07``.
    """

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _initialize(self, arr):
        _assign(arr, _uniform(self, -self.scale, self.scale, arr.shape))


@_register()
class TruncatedNormal(Initializer):
    """Samples of N(``mean``, ``sigma``²) restricted to the values in [``a``, ``b``].

    Args:
        sigma (float): standard deviation. Default ``0.01``.
        mean (float): mean. Default ``0.0``.
        a, b (float): the lower and upper bound of the values. Default ``-2.0``, ``2.0``.
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        super().__init__(sigma=sigma, mean=mean, a=a, b=b)
        self.sigma = sigma
        self.mean = mean
        self.a = a
        self.b = b

    def _initialize(self, arr):
        _assign(arr, _truncated_normal(self, self.a, self.b, self.mean, self.sigma, arr.shape))


@_register('xavier_uniform')
class XavierUniform(Initializer):
    """Glorot uniform: U(-bound, bound), bound = gain·√(6 / (fan_in + fan_out)).

    Args:
        gain (float): scaling factor. Default ``1``.
    """

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        bound = self.gain * math.sqrt(6.0 / (fan_in + fan_out))
        _assign(arr, _uniform(self, -bound, bound, arr.shape))


@_register('xavier_normal')
class XavierNormal(Initializer):
    """Glorot normal: N(0, sigma²), sigma = gain·√(2 / (fan_in + fan_out)).

    Args:
        gain (float): scaling factor. Default ``1``.
    """

    def __init__(self, gain=1):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        sigma = self.gain * math.sqrt(2.0 / (fan_in + fan_out))
        _assign(arr, _normal(self, 0, sigma, arr.shape))


class _He(Initializer):
    """Shared arguments of the Kaiming (He) initializers: std = gain / √fan."""

    def __init__(self, negative_slope=0, mode='fan_in', nonlinearity='leaky_relu'):
        super().__init__(negative_slope=negative_slope, mode=mode, nonlinearity=nonlinearity)
        self.negative_slope = negative_slope
        self.mode = mode
        self.nonlinearity = nonlinearity

    def _std(self, shape):
        fan = _calculate_correct_fan(shape, self.mode)
        return _calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan)


@_register('he_uniform')
class HeUniform(_He):
    """Kaiming uniform: U(-bound, bound), bound = √3 · gain / √fan.

    Args:
        negative_slope (Union[int, float]): slope of the leaky ReLU that follows. Default ``0``.
        mode (str): ``'fan_in'`` or ``'fan_out'``. Default ``'fan_in'``.
        nonlinearity (str): ``'relu'``, ``'leaky_relu'``, ``'tanh'``, ``'sigmoid'``, ``'linear'``
            or a convolution name. Default ``'leaky_relu'``.
    """

    def _initialize(self, arr):
        bound = math.sqrt(3.0) * self._std(arr.shape)
        _assign(arr, _uniform(self, -bound, bound, arr.shape))


@_register('he_normal')
class HeNormal(_He):
    """Kaiming normal: N(0, std²), std = gain / √fan (arguments as ``HeUniform``)."""

    def _initialize(self, arr):
        _assign(arr, _normal(self, 0, self._std(arr.shape), arr.shape))


@_register()
class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``; dimensions past the first are flattened.

    Args:
        gain (float): scaling factor. Default ``1.0``.
    """

    def __init__(self, gain=1.):
        super().__init__(gain=gain)
        self.gain = gain

    def _initialize(self, arr):
        if len(arr.shape) < 2:
            raise ValueError('For Orthogonal initializer, the dimension of the initialized tensor '
                             f'should be no less than 2, but got {len(arr.shape)}.')
        rows = arr.shape[0]
        cols = math.prod(arr.shape) // rows
        data = _normal(self, 0, 1, (rows, cols))
        tall = data.T if rows < cols else data
        q, r = np.linalg.qr(tall)
        q = q * np.sign(np.diag(r))      # the sign fix makes q uniform over orthogonal matrices
        if rows < cols:
            q = q.T
        _assign(arr, (q * self.gain).reshape(arr.shape))


@_register()
class Sparse(Initializer):
    """A 2-D N(0, ``sigma``²) matrix with a fraction ``sparsity`` of each column set to 0.

    Args:
        sparsity (float): the fraction of zeros per column.
        sigma (float): standard deviation of the non-zeros. Default ``0.01``.
    """

    def __init__(self, sparsity, sigma=0.01):
        super().__init__(sparsity=sparsity, sigma=sigma)
        self.sparsity = sparsity
        self.sigma = sigma

    def _initialize(self, arr):
        if len(arr.shape) != 2:
            raise ValueError('For Sparse initializer, the dimension of the initialized tensor '
                             f'should be 2, but got {len(arr.shape)}.')
        rows, cols = arr.shape
        zeros = int(np.ceil(self.sparsity * rows))
        data = _normal(self, 0, self.sigma, arr.shape)
        # per column, the rows with the smallest of i.i.d. uniform keys: a random subset
        keys = _uniform(self, 0, 1, arr.shape)
        picked = np.argsort(keys, axis=0)[:zeros]
        data[picked, np.arange(cols)] = 0
        _assign(arr, data)


@_register()
class VarianceScaling(Initializer):
    """Samples scaled to the fan: variance ``scale / n`` with n = fan_in, fan_out or their mean.

    Args:
        scale (float): the scaling factor (> 0). Default ``1.0``.
        mode (str): ``'fan_in'``, ``'fan_out'`` or ``'fan_avg'``. Default ``'fan_in'``.
        distribution (str): ``'uniform'``, ``'truncated_normal'`` or ``'untruncated_normal'``.
            Default ``'truncated_normal'``.

    Note: as in MindSpore 2.10, ``'truncated_normal'`` samples the uniform distribution
    U(-√(3·scale/n), √(3·scale/n)) (same variance); ``'untruncated_normal'`` samples
    N(0, scale/n).
    """

    def __init__(self, scale=1.0, mode='fan_in', distribution='truncated_normal'):
        super().__init__(scale=scale, mode=mode, distribution=distribution)
        if scale <= 0.:
            raise ValueError("For VarianceScaling initializer, the argument 'scale' must be "
                             f"greater than 0, but got {scale}.")
        if mode not in ['fan_in', 'fan_out', 'fan_avg']:
            raise ValueError("For VarianceScaling initializer, the argument 'mode' must be "
                             f"fan_in, fan_out or fan_avg, but got {mode}.")
        if distribution not in ['uniform', 'truncated_normal', 'untruncated_normal']:
            raise ValueError("For VarianceScaling initializer, the argument 'distribution' must "
                             "be uniform, truncated_norm or untruncated_norm, but got "
                             f"{distribution}.")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution

    def _initialize(self, arr):
        fan_in, fan_out = _calculate_fan_in_and_fan_out(arr.shape)
        fan = {'fan_in': fan_in, 'fan_out': fan_out, 'fan_avg': (fan_in + fan_out) / 2.}[self.mode]
        variance = self.scale / max(1., fan)
        if self.distribution == 'untruncated_normal':
            data = _normal(self, 0, math.sqrt(variance), arr.shape)
        else:
            limit = math.sqrt(3.0 * variance)
            data = _uniform(self, -limit, limit, arr.shape)
        _assign(arr, data)


# --------------------------------------------------------------------------- initializer()
def initializer(init, shape=None, dtype=D.float32):
    """A Tensor of ``shape`` and ``dtype`` filled by ``init``.

    Args:
        init (Union[Tensor, str, Initializer, numbers.Number]): a Tensor (returned as is; its
            shape must equal ``shape``), the name of an initializer (``'normal'``, ``'ones'``,
            ``'he_uniform'``, ...), an Initializer, or a number (``Constant``).
        shape (Union[tuple, list, int]): the shape (positive dimensions).
        dtype: the dtype. Default ``mindspore.float32``.

    Examples:
        >>> import spore as ms
        >>> from spore.common.initializer import initializer, One
        >>> initializer(One(), [1, 2], ms.float32)
        Tensor(shape=[1, 2], dtype=Float32, value=
        [[ 1.00000000e+00,  1.00000000e+00]])
    """
    if not isinstance(init, (Tensor, numbers.Number, str, Initializer)):
        raise TypeError("For 'initializer', the type of the 'init' argument should be 'Tensor', "
                        f"'number', 'string' or 'initializer', but got {type(init)}.")
    if isinstance(init, Tensor):
        return _checked_tensor(init, shape)
    shape = _normalise_shape(shape)
    if isinstance(init, str):
        cls = _INITIALIZER_ALIAS.get(init.lower())
        if cls is None:
            raise ValueError(f"For 'initializer', the class corresponding to '{init}' was not "
                             "found.")
        init = cls()
    elif isinstance(init, numbers.Number):
        init = Constant(init)
    if shape is None:
        shape = getattr(init, "shape", None)
        if shape is None:
            raise ValueError(f"For 'initializer', the argument 'shape' must be given for "
                             f"{type(init).__name__}.")
    arr = np.zeros(shape, D.to_numpy_dtype(dtype))
    init(arr)
    return P.wrap(arr)


def _checked_tensor(init, shape):
    if shape is None:
        return init
    want = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if init.shape != want:
        raise ValueError("For 'initializer', the shape of the 'init' argument should be same as "
                         "the argument 'shape', but got the 'init' shape "
                         f"{list(init.shape)} and the 'shape' {shape}.")
    return init


def _normalise_shape(shape):
    if shape is None:
        return None
    if isinstance(shape, list):
        shape = tuple(shape)
    elif isinstance(shape, numbers.Number):
        shape = (shape,)
    for value in shape:
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError("For 'initializer', the argument 'shape' is invalid, the value of "
                             f"'shape' must be positive integer, but got {shape}")
    return shape


__all__ = ['Initializer', 'initializer', 'TruncatedNormal', 'Normal', 'Uniform', 'HeUniform',
           'HeNormal', 'XavierUniform', 'XavierNormal', 'One', 'Zero', 'Constant', 'Identity',
           'Sparse', 'Dirac', 'Orthogonal', 'VarianceScaling']
