"""Primitive classes of ``mindspore.ops`` added with the hooks, RNN, optimizer and 3-D
convolution primitives (adapters over ``spore._prims``, like the rest of the package)."""
from __future__ import annotations

from ..._prims.hook import hook_backward_p
from ..._tensor import Tensor
from . import Conv2D, Primitive, _ops


def _require_tensor(op, arg, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                        f"{type(value).__name__}.")


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
        _require_tensor("Conv2DBackpropInput", "dout", dout)
        _require_tensor("Conv2DBackpropInput", "weight", weight)
        if not isinstance(input_size, (tuple, list)) or len(input_size) != 4:
            raise ValueError(f"For 'Conv2DBackpropInput', the 'input_size' must be a tuple of 4 "
                             f"ints, but got {input_size!r}.")
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


class LSTM(Primitive):
    """``LSTM(input_size, hidden_size, num_layers, has_bias, bidirectional, dropout)(x, h, c,
    w)``: a stacked LSTM over ``x`` of shape (seq_len, batch, input_size) from states ``h``,
    ``c`` of shape (num_layers * directions, batch, hidden_size), all weights in one flat
    tensor ``w``.

    ``w`` holds MindSpore's CPU layout: every input-to-hidden matrix (gates i, f, g, o by
    rows, then its input columns) for each layer and direction, then every hidden-to-hidden
    matrix in the same order, then, with ``has_bias``, one bias of 4 * hidden_size per layer
    and direction (the sum of the input and hidden biases of ``nn.LSTM``).

    Returns ``(output, h_n, c_n, reserve, state)``; ``reserve`` and ``state`` are (1, 1)
    zeros (MindSpore's are kernel workspaces). Differentiable through ``ops.grad``.
    """

    def __init__(self, input_size, hidden_size, num_layers, has_bias, bidirectional, dropout,
                 proj_size=0):
        super().__init__()
        for arg, value in (("input_size", input_size), ("hidden_size", hidden_size),
                           ("num_layers", num_layers)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"For 'LSTM', the '{arg}' must be int and must > 0, but got "
                                 f"'{value}' with type '{type(value).__name__}'.")
        for arg, value in (("has_bias", has_bias), ("bidirectional", bidirectional)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'LSTM', the type of '{arg}' should be 'bool', but got "
                                f"type '{type(value).__name__}'.")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or \
                not 0 <= dropout <= 1:
            raise ValueError(f"For 'LSTM', the 'dropout' must be in range of [0, 1], but got "
                             f"{dropout} with type '{type(dropout).__name__}'.")
        if proj_size:
            raise ValueError("For 'LSTM', 'proj_size' is not supported on CPU (only 0).")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.bidirectional, self.dropout = has_bias, bidirectional, float(dropout)
        self.num_directions = 2 if bidirectional else 1

    def _blocks(self):
        """(layer, direction, input width) of each weight block, in ``w``'s order."""
        dirs, hidden = self.num_directions, self.hidden_size
        return [(layer, d, self.input_size if layer == 0 else hidden * dirs)
                for layer in range(self.num_layers) for d in range(dirs)]

    def _unpack(self, w):
        ops, gates = _ops(), 4 * self.hidden_size
        blocks = self._blocks()
        sizes = [gates * width for _, _, width in blocks] + [gates * self.hidden_size] * \
            len(blocks) + ([gates] * len(blocks) if self.has_bias else [])
        if w.size != sum(sizes):
            raise ValueError(f"For 'LSTM', the size of 'w' must be {sum(sizes)} for these sizes, "
                             f"but got {w.size}.")
        parts = ops.split(ops.reshape(w, (-1,)), sizes)
        n = len(blocks)
        weights = {}
        for k, (layer, d, width) in enumerate(blocks):
            bias = parts[2 * n + k] if self.has_bias else None
            weights[layer, d] = (ops.reshape(parts[k], (gates, width)),
                                 ops.reshape(parts[n + k], (gates, self.hidden_size)), bias, None)
        return weights

    def _check(self, x, h, c):
        for arg, v in (("x", x), ("h", h), ("c", c)):
            _require_tensor("LSTM", arg, v)
        if x.ndim != 3:
            raise ValueError(f"For primitive[LSTM], the x_shape.size() must be equal to 3, but "
                             f"got {x.ndim}.")
        if x.shape[2] != self.input_size:
            raise ValueError(f"For primitive[LSTM], the x_shape[2] must be equal to "
                             f"{self.input_size}, but got {x.shape[2]}.")
        want = (self.num_layers * self.num_directions, x.shape[1], self.hidden_size)
        for arg, state in (("h", h), ("c", c)):
            if tuple(state.shape) != want:
                raise ValueError(f"For primitive[LSTM], the {arg}_shape: {list(state.shape)} "
                                 f"must be equal to {list(want)}")

    def __call__(self, x, h, c, w):
        from ...nn.layer.rnns import _run_direction
        ops = _ops()
        self._check(x, h, c)
        _require_tensor("LSTM", "w", w)
        weights = self._unpack(w)
        layer_in, hs, cs = x, [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(self.num_directions):
                index = layer * self.num_directions + d
                seq = ops.flip(layer_in, (0,)) if d else layer_in
                out, (h_n, c_n) = _run_direction("LSTM", seq, (h[index], c[index]),
                                                 weights[layer, d], None)
                outs.append(ops.flip(out, (0,)) if d else out)
                hs.append(h_n)
                cs.append(c_n)
            layer_in = outs[0] if len(outs) == 1 else ops.concat(outs, 2)
            if self.dropout and layer < self.num_layers - 1:
                layer_in = ops.dropout(layer_in, p=self.dropout)
        placeholder = ops.zeros((1, 1), x.dtype)
        return layer_in, ops.stack(hs, 0), ops.stack(cs, 0), placeholder, placeholder


class Conv3D(Primitive):
    """``Conv3D(out_channel, kernel_size, mode=1, pad_mode='valid', pad=0, stride=1,
    dilation=1, group=1, data_format='NCDHW')(x, weight)``; ``pad`` is an int or (front,
    back, top, bottom, left, right)."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCDHW"):
        super().__init__()
        if data_format != "NCDHW":
            raise ValueError(f"For 'Conv3D', the 'data_format' must be 'NCDHW', but got "
                             f"'{data_format}'.")
        self.out_channel, self.kernel_size = out_channel, kernel_size
        self.pad_mode, self.pad, self.stride = pad_mode, pad, stride
        self.dilation, self.group = dilation, group

    def __call__(self, x, weight, bias=None):
        from .._nn.conv3d import conv3d_ms
        stride = self.stride[-3:] if isinstance(self.stride, (tuple, list)) else self.stride
        dilation = self.dilation[-3:] if isinstance(self.dilation, (tuple, list)) \
            else self.dilation
        return conv3d_ms(x, weight, bias, stride, self.pad_mode.lower(), self.pad, dilation,
                         self.group)


class Roll(Primitive):
    """``Roll(shifts, dims=None)(x)``: ``ops.roll`` as a primitive class."""

    def __init__(self, shifts, dims=None):
        super().__init__()
        self.shifts, self.dims = shifts, dims

    def __call__(self, x):
        return _ops().roll(x, self.shifts, self.dims)


class MaxPool3D(Primitive):
    """``MaxPool3D(kernel_size=1, strides=1, pad_mode='VALID', pad_list=0, ceil_mode=None,
    data_format='NCDHW')(x)``; sizes are ints, 3-tuples or 5-tuples (1, 1, d, h, w)."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                 data_format="NCDHW"):
        super().__init__()
        from .._nn.pool3d import _triple
        self.kernel_size = _triple("MaxPool3D", "kernel_size", kernel_size)
        self.strides = _triple("MaxPool3D", "strides", strides)
        self.pad_mode, self.pad_list, self.ceil_mode = pad_mode.lower(), pad_list, bool(ceil_mode)
        if self.pad_mode != "pad" and pad_list not in (0, (0,) * 3, (0,) * 6):
            raise ValueError(f"For 'MaxPool3D', the 'pad_list' must be zero or (0, 0, 0, 0, 0, "
                             f"0) when 'pad_mode' is not \"pad\", but got 'pad_list' is "
                             f"{pad_list} and 'pad_mode' is {self.pad_mode}.")

    def __call__(self, x):
        from .._nn.pool3d import _check_rank, max_pool3d_ms
        _check_rank("MaxPool3D", x)
        return max_pool3d_ms(x, self.kernel_size, self.strides, self.pad_list, (1, 1, 1),
                             self.ceil_mode, False, self.pad_mode)


class AvgPool3D(Primitive):
    """``AvgPool3D(kernel_size=1, strides=1, pad_mode='valid', pad=0, ceil_mode=False,
    count_include_pad=True, divisor_override=0, data_format='NCDHW')(x)``."""

    def __init__(self, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=0, data_format="NCDHW"):
        super().__init__()
        from .._nn.pool3d import _triple
        self.kernel_size = _triple("AvgPool3D", "kernel_size", kernel_size)
        self.strides = _triple("AvgPool3D", "strides", strides)
        self.pad_mode, self.pad, self.ceil_mode = pad_mode.lower(), pad, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def __call__(self, x):
        from .._nn.pool3d import _check_rank, avg_pool3d_ms
        _check_rank("AvgPool3D", x)
        return avg_pool3d_ms(x, self.kernel_size, self.strides, self.pad, self.ceil_mode,
                             self.count_include_pad, self.divisor_override, self.pad_mode)


__all__ = ["HookBackward", "Conv2DBackpropInput", "Conv2DTranspose", "ApplyRMSProp",
           "ApplyCenteredRMSProp", "LSTM", "Conv3D", "Roll", "MaxPool3D", "AvgPool3D"]
