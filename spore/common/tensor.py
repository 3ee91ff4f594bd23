"""``mindspore.common.tensor``."""
from .._tensor import Tensor as Tensor  # noqa: F401
