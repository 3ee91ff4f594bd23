"""``mindspore.common.parameter``."""
from .._parameter import Parameter as Parameter, ParameterTuple as ParameterTuple  # noqa: F401
