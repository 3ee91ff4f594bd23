"""``mindspore.nn.probability.bijector``: invertible maps with their log-Jacobians, used
by TransformedDistribution (y = forward(x))."""
from __future__ import annotations


from ... import ops
from ..._dtype import float32
from ._common import ParamCell, as_param

__all__ = ["Bijector", "Exp", "PowerTransform", "ScalarAffine", "Softplus", "GumbelCDF",
           "Invert"]


class Bijector(ParamCell):
    """Base class: subclasses define ``_forward``, ``_inverse``, ``_forward_log_jacobian``
    and ``_inverse_log_jacobian`` over their parameters; ``bijector('forward', x)`` calls
    a method by name, as MindSpore's ``construct`` does."""

    _param_names = ()

    def __init__(self, is_constant_jacobian=False, is_injective=True, name=None, dtype=None,
                 param=None):
        super().__init__()
        self._name = name or type(self).__name__
        self._dtype = dtype or float32
        self._is_constant_jacobian = bool(is_constant_jacobian)
        self._is_injective = bool(is_injective)
        self.parameters = dict(param or {})
        self._defaults = {}

    def _set_params(self, **params):
        for k, v in params.items():
            self._defaults[k] = as_param(v, self._dtype, self._name, k)

    @property
    def is_constant_jacobian(self):
        return self._is_constant_jacobian

    @property
    def is_injective(self):
        return self._is_injective

    def forward(self, value, *params):
        return self._forward(value, *self._dist_params(params))

    def inverse(self, value, *params):
        return self._inverse(value, *self._dist_params(params))

    def forward_log_jacobian(self, value, *params):
        return self._forward_log_jacobian(value, *self._dist_params(params))

    def inverse_log_jacobian(self, value, *params):
        return self._inverse_log_jacobian(value, *self._dist_params(params))

    def construct(self, name, *args, **kwargs):
        if name not in ("forward", "inverse", "forward_log_jacobian", "inverse_log_jacobian"):
            raise ValueError(f"For '{self._name}', there is no method {name!r}.")
        return getattr(self, name)(*args, **kwargs)

    def extend_repr(self):
        return self._name.lower() if type(self) is Exp else ""


class Exp(Bijector):
    """y = exp(x)."""

    def __init__(self, name="Exp"):
        super().__init__(name=name)

    def _forward(self, x):
        return ops.exp(x)

    def _inverse(self, y):
        return ops.log(y)

    def _forward_log_jacobian(self, x):
        return x * 1

    def _inverse_log_jacobian(self, y):
        return -ops.log(y)


class PowerTransform(Bijector):
    """y = (1 + c x)^(1/c), and exp(x) at c = 0."""

    _param_names = ("power",)

    def __init__(self, power=0.0, name="PowerTransform"):
        super().__init__(name=name, param={"power": power})
        if isinstance(power, (int, float)) and power < 0:
            raise ValueError(f"For '{name}', 'power' must be non-negative, but got {power}.")
        self._set_params(power=power)

    def _forward(self, x, c):
        return ops.where(c == 0, ops.exp(x), ops.pow(1 + c * x, 1 / ops.where(c == 0, 1, c)))

    def _inverse(self, y, c):
        return ops.where(c == 0, ops.log(y), (ops.pow(y, c) - 1) / ops.where(c == 0, 1, c))

    def _forward_log_jacobian(self, x, c):
        safe = ops.where(c == 0, 1, c)
        return ops.where(c == 0, x * 1, (1 / safe - 1) * ops.log1p(c * x))

    def _inverse_log_jacobian(self, y, c):
        return (c - 1) * ops.log(y)


class ScalarAffine(Bijector):
    """y = scale * x + shift."""

    _param_names = ("scale", "shift")

    def __init__(self, scale=1.0, shift=0.0, name="ScalarAffine"):
        super().__init__(is_constant_jacobian=True, name=name,
                         param={"scale": scale, "shift": shift})
        self._set_params(scale=scale, shift=shift)

    def _forward(self, x, scale, shift):
        return scale * x + shift

    def _inverse(self, y, scale, shift):
        return (y - shift) / scale

    def _forward_log_jacobian(self, x, scale, shift):
        return ops.log(ops.abs(scale))            # constant: not broadcast to x (MindSpore)

    def _inverse_log_jacobian(self, y, scale, shift):
        return -ops.log(ops.abs(scale))


class Softplus(Bijector):
    """y = log(1 + exp(k x)) / k."""

    _param_names = ("sharpness",)

    def __init__(self, sharpness=1.0, name="Softplus"):
        super().__init__(name=name, param={"sharpness": sharpness})
        self._set_params(sharpness=sharpness)

    def _forward(self, x, k):
        return ops.softplus(k * x) / k

    def _inverse(self, y, k):
        ky = k * y
        return (ky + ops.log(-ops.expm1(-ky))) / k          # log(e^{ky} - 1) / k, stably

    def _forward_log_jacobian(self, x, k):
        return -ops.softplus(-k * x)                          # log sigmoid(k x)

    def _inverse_log_jacobian(self, y, k):
        return -ops.log(-ops.expm1(-k * y))


class GumbelCDF(Bijector):
    """y = exp(-exp(-(x - loc) / scale)), the Gumbel distribution's CDF."""

    _param_names = ("loc", "scale")

    def __init__(self, loc=0.0, scale=1.0, name="GumbelCDF"):
        super().__init__(name=name, param={"loc": loc, "scale": scale})
        self._set_params(loc=loc, scale=scale)

    def _forward(self, x, loc, scale):
        return ops.exp(-ops.exp(-(x - loc) / scale))

    def _inverse(self, y, loc, scale):
        return loc - scale * ops.log(-ops.log(y))

    def _forward_log_jacobian(self, x, loc, scale):
        z = (x - loc) / scale
        return -z - ops.exp(-z) - ops.log(scale)

    def _inverse_log_jacobian(self, y, loc, scale):
        return ops.log(scale / (-ops.log(y))) - ops.log(y)


class Invert(Bijector):
    """The inverse of ``bijector``: its forward is the other's inverse."""

    def __init__(self, bijector, name=""):
        if not isinstance(bijector, Bijector):
            raise TypeError(f"For 'Invert', 'bijector' must be a Bijector, but got "
                            f"{type(bijector).__name__}.")
        super().__init__(is_constant_jacobian=bijector.is_constant_jacobian,
                         is_injective=bijector.is_injective,
                         name=name or "Invert" + bijector.name, dtype=bijector.dtype)
        self._bijector = bijector

    @property
    def bijector(self):
        return self._bijector

    def forward(self, value, *params):
        return self._bijector.inverse(value, *params)

    def inverse(self, value, *params):
        return self._bijector.forward(value, *params)

    def forward_log_jacobian(self, value, *params):
        return self._bijector.inverse_log_jacobian(value, *params)

    def inverse_log_jacobian(self, value, *params):
        return self._bijector.forward_log_jacobian(value, *params)


