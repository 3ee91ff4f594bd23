"""Primitive classes of ``mindspore.ops`` added with the hooks, RNN, optimizer and 3-D
convolution primitives (adapters over ``spore._prims``, like the rest of the package)."""
from __future__ import annotations

from ..._prims.hook import hook_backward_p
from ..._tensor import Tensor
from . import Primitive


def _check_hook(hook_fn):
    if not callable(hook_fn):
        raise TypeError(f"Expected a callable hook function, but got {type(hook_fn).__name__}.")
    return hook_fn


class HookBackward(Primitive):
    """Identity in the forward pass; in the backward pass ``hook_fn(grads)`` sees the tuple
    of gradients w.r.t. the inputs and may return replacements (None keeps them).

    One input returns a Tensor, several a tuple (PyNative only, as in MindSpore).

    Examples:
        >>> import spore as ms
        >>> from spore import ops
        >>> double = ops.HookBackward(lambda grads: grads[0] * 2)
        >>> print(ms.grad(lambda x: double(x * 3))(ms.Tensor(1.0)))
        6.0
    """

    def __init__(self, hook_fn, cell_id=""):
        super().__init__()
        self.hook_fn = _check_hook(hook_fn)
        self.cell_id = cell_id

    def __call__(self, *inputs):
        for x in inputs:
            if not isinstance(x, Tensor):
                raise TypeError(f"For 'HookBackward', the element of 'input' must be Tensor, "
                                f"but got {type(x).__name__}.")
        if not inputs:
            raise ValueError("For 'HookBackward', the input must not be empty.")
        out = hook_backward_p(*inputs, hook_fn=self.hook_fn)
        return out[0] if len(inputs) == 1 else tuple(out)


__all__ = ["HookBackward"]
