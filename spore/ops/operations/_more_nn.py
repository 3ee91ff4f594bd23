"""Primitive classes of ``mindspore.ops`` added with the hooks, RNN, optimizer and 3-D
convolution primitives (adapters over ``spore._prims``, like the rest of the package)."""
from __future__ import annotations

from ..._prims.hook import hook_backward_p
from ..._tensor import Tensor
from . import Conv2D, Primitive, _ops


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


class Conv2DBackpropInput(Primitive):
    """``Conv2DBackpropInput(out_channel, kernel_size, pad_mode, pad, pad_list, mode,
    stride, dilation, group)(dout, weight, input_size)``: the gradient of ``Conv2D`` w.r.t.
    its input of shape ``input_size`` (the vector-Jacobian product of the forward op)."""

    def __init__(self, out_channel, kernel_size, pad_mode="valid", pad=0, pad_list=None, mode=1,
                 stride=1, dilation=1, group=1, data_format="NCHW"):
        super().__init__()
        stride = stride[-2:] if isinstance(stride, (tuple, list)) and len(stride) == 4 else stride
        dilation = dilation[-2:] if isinstance(dilation, (tuple, list)) and len(dilation) == 4 \
            else dilation
        if pad_list is not None and pad_mode.lower() == "pad" and not pad:
            pad = tuple(pad_list)
        self._conv = Conv2D(out_channel, kernel_size, mode, pad_mode, pad, stride, dilation,
                            group)

    def __call__(self, dout, weight, input_size):
        ops = _ops()
        _, pullback = ops.vjp(lambda x: self._conv(x, weight),
                              ops.zeros(tuple(input_size), weight.dtype))
        return pullback(dout)[0]


class Conv2DTranspose(Conv2DBackpropInput):
    """``Conv2DTranspose``: MindSpore's other name of ``Conv2DBackpropInput``."""

class ApplyRMSProp(Primitive):
    """``ApplyRMSProp()(var, mean_square, moment, learning_rate, grad, decay, momentum,
    epsilon)``: one RMSProp step, updating ``var``, ``mean_square`` and ``moment`` in place;
    returns ``var``."""

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = use_locking

    def __call__(self, var, mean_square, moment, learning_rate, grad, decay, momentum,
                 epsilon):
        from ...nn.optim._updates import apply_rms_prop_p
        return apply_rms_prop_p(var, mean_square, moment, learning_rate, grad, decay, momentum,
                                epsilon)


class ApplyCenteredRMSProp(Primitive):
    """``ApplyCenteredRMSProp()(var, mean_gradient, mean_square, moment, grad,
    learning_rate, decay, momentum, epsilon)``: one centered RMSProp step (the variance
    estimate subtracts the squared mean gradient), in place; returns ``var``."""

    def __init__(self, use_locking=False):
        super().__init__()
        self.use_locking = use_locking

    def __call__(self, var, mean_gradient, mean_square, moment, grad, learning_rate, decay,
                 momentum, epsilon):
        from ...nn.optim._updates import apply_centered_rms_prop_p
        return apply_centered_rms_prop_p(var, mean_gradient, mean_square, moment, grad,
                                         learning_rate, decay, momentum, epsilon)


__all__ = ["HookBackward", "Conv2DBackpropInput", "Conv2DTranspose", "ApplyRMSProp",
           "ApplyCenteredRMSProp"]
