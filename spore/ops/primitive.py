"""``mindspore.ops.primitive``: the module user code imports the primitive base classes
from (``from mindspore.ops.primitive import Primitive, prim_attr_register``)."""
from .operations import (Primitive, PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                         prim_attr_register)

__all__ = ["Primitive", "PrimitiveWithCheck", "PrimitiveWithInfer", "prim_attr_register"]
