"""Primitive classes of the scatter families of ``ops/_scatter_more.py``
(``ops.TensorScatterMul()(x, indices, updates)``, ``ops.ScatterNdAdd(use_locking)``,
``ops.ScatterMax()``, ...): each forwards to the functional op."""
from __future__ import annotations

from . import Primitive, _forward, _ops

__all__ = []

for _cls, _op in {"TensorScatterMul": "tensor_scatter_mul", "TensorScatterDiv": "tensor_scatter_div",
                  "TensorScatterMax": "tensor_scatter_max",
                  "TensorScatterMin": "tensor_scatter_min"}.items():
    globals()[_cls] = _forward(_cls, _op)
    __all__.append(_cls)


class _Locking(Primitive):
    """A scatter class with MindSpore's ``use_locking`` attribute (accepted: Spore runs
    one update at a time)."""
    op = None

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = bool(use_locking)
        self.add_prim_attr("use_locking", self.use_locking)

    def __call__(self, input_x, indices, updates):
        return getattr(_ops(), self.op)(input_x, indices, updates)


for _cls, _op in {"ScatterNdAdd": "scatter_nd_add", "ScatterNdSub": "scatter_nd_sub",
                  "ScatterNdUpdate": "scatter_nd_update", "ScatterNdMul": "scatter_nd_mul",
                  "ScatterNdDiv": "scatter_nd_div", "ScatterNdMax": "scatter_nd_max",
                  "ScatterNdMin": "scatter_nd_min", "ScatterMul": "scatter_mul",
                  "ScatterDiv": "scatter_div", "ScatterMax": "scatter_max",
                  "ScatterMin": "scatter_min", "ScatterSub": None,
                  "ScatterNonAliasingAdd": "scatter_nd_add"}.items():
    if _op is not None:
        globals()[_cls] = type(_cls, (_Locking,), {"op": _op, "__doc__": f"``ops.{_op}``."})
        __all__.append(_cls)


class ScatterSub(_Locking):
    """``input_x[indices] -= updates`` along the first dimension, in place."""

    def __call__(self, input_x, indices, updates):
        ops = _ops()
        return ops.scatter_add(input_x, indices, ops.neg(updates))


__all__.append("ScatterSub")
del _cls, _op
