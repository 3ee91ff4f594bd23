"""``nn.Jvp`` and ``nn.Vjp``: MindSpore's Cell forms of ``ops.jvp`` and ``ops.vjp``
(deprecated there since 1.9 in favour of the functions, which they call)."""
from .cell import Cell

__all__ = ["Jvp", "Vjp"]


class Jvp(Cell):
    """``Jvp(fn)(*inputs, v)`` -> ``(fn(*inputs), J v)``: the Jacobian of ``fn`` at
    ``inputs`` times the tangents ``v`` (a tensor, or a tuple with one per input)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        from ..ops import jvp
        *inputs, v = args
        return jvp(self.fn, tuple(inputs), v)


class Vjp(Cell):
    """``Vjp(fn)(*inputs, v)`` -> ``(fn(*inputs), grads)``: the cotangent ``v`` of the
    output pulled back to each input (a tuple with one gradient per input)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        from ..ops import vjp
        *inputs, v = args
        out, pullback = vjp(self.fn, *inputs)
        return out, pullback(v)
