"""``mindspore.common``: dtype, Tensor, Parameter and initializers."""
from . import dtype as dtype  # noqa: F401
from .._tensor import Tensor as Tensor  # noqa: F401
from .._parameter import Parameter as Parameter, ParameterTuple as ParameterTuple  # noqa: F401
from .._random import set_seed as set_seed, get_seed as get_seed  # noqa: F401
from . import initializer as initializer  # noqa: F401,E402
