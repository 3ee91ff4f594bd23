"""Recurrent layers: RNN, LSTM and GRU (stacked, bidirectional, batch_first, seq_length),
and the single-step cells RNNCell, LSTMCell and GRUCell.

Gate layouts follow MindSpore (= PyTorch): LSTM rows (i, f, g, o), GRU rows (r, z, n).
Parameters are MindSpore's: ``weight_ih_l{k}[_reverse]``, ``weight_hh_l{k}...``,
``bias_ih_l{k}...``, ``bias_hh_l{k}...`` held in ParameterTuples (so all input weights
come first), each drawn from U(−1/√hidden, 1/√hidden).

The input projection of a whole sequence is one matmul; only the hidden-state
recurrence loops over time. With ``seq_length`` the steps past a sequence's length keep
its state and output zeros, and the reverse direction reverses each sequence within its
own length, as MindSpore does.
"""
from __future__ import annotations

import math
import warnings


from ... import ops
from ..._dtype import float16, float32, int32, int64
from ..._parameter import Parameter, ParameterTuple
from ...common.initializer import Uniform, initializer
from ..cell import Cell
from . import _checks as C
from .basic import Dropout

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ----------------------------------------------------------------- one time step
def _lstm_step(gx, state, w_hh_t, b_hh):
    h, c = state
    g = gx + ops.matmul(h, w_hh_t)
    if b_hh is not None:
        g = g + b_hh
    n = h.shape[-1]
    i = ops.sigmoid(g[..., :n])
    f = ops.sigmoid(g[..., n:2 * n])
    cand = ops.tanh(g[..., 2 * n:3 * n])
    o = ops.sigmoid(g[..., 3 * n:])
    c = f * c + i * cand
    return o * ops.tanh(c), c


def _gru_step(gx, h, w_hh_t, b_hh):
    gh = ops.matmul(h, w_hh_t)
    if b_hh is not None:
        gh = gh + b_hh
    n = h.shape[-1]
    r = ops.sigmoid(gx[..., :n] + gh[..., :n])
    z = ops.sigmoid(gx[..., n:2 * n] + gh[..., n:2 * n])
    cand = ops.tanh(gx[..., 2 * n:] + r * gh[..., 2 * n:])
    return cand + z * (h - cand)


def _rnn_step(activation):
    def step(gx, h, w_hh_t, b_hh):
        g = gx + ops.matmul(h, w_hh_t)
        if b_hh is not None:
            g = g + b_hh
        return activation(g)
    return step


_STEPS = {"LSTM": _lstm_step, "GRU": _gru_step, "RNN_TANH": _rnn_step(ops.tanh),
          "RNN_RELU": _rnn_step(ops.relu)}


def _input_projection(x, w_ih, b_ih):
    """x @ w_ih^T + b_ih over the last axis, as one 2-D product (NumPy's batched matmul is
    several times slower than a single GEMM, forward and backward)."""
    rows = ops.reshape(x, (-1, x.shape[-1]))
    gx = ops.matmul(rows, ops.transpose(w_ih, (1, 0)))
    if b_ih is not None:
        gx = gx + b_ih
    return ops.reshape(gx, tuple(x.shape[:-1]) + (w_ih.shape[0],))


# ----------------------------------------------------------------- sequence helpers
def _blend(mask, new, old):
    """new where the step is inside the sequence (mask 1), old elsewhere."""
    return old + mask * (new - old)


def _run_direction(mode, x, state, weights, masks):
    """One direction of one layer over (T, B, F) input; returns (outputs, final state)."""
    w_ih, w_hh, b_ih, b_hh = weights
    step = _STEPS[mode]
    gx = _input_projection(x, w_ih, b_ih)
    w_hh_t = ops.transpose(w_hh, (1, 0))
    outs = []
    for t in range(x.shape[0]):
        new = step(gx[t], state, w_hh_t, b_hh)
        if masks is None:
            state = new
            outs.append(new[0] if mode == "LSTM" else new)
            continue
        m = masks[t]
        if mode == "LSTM":
            state = (_blend(m, new[0], state[0]), _blend(m, new[1], state[1]))
            outs.append(new[0] * m)
        else:
            state = _blend(m, new, state)
            outs.append(new * m)
    return ops.stack(outs, 0), state


def _time_masks(seq_length, steps, dtype):
    """(T, B, 1) masks: 1 where step t is inside sequence b (ops only, so a compiled
    graph takes the lengths at run time)."""
    lengths = ops.cast(seq_length, int64)
    inside = ops.less(ops.reshape(ops.arange(steps, dtype=int64), (steps, 1)),
                      ops.reshape(lengths, (1, -1)))
    return ops.expand_dims(ops.cast(inside, dtype), 2)


def _reverse_within_length(x, seq_length):
    """Reverse each sequence of (T, B, F) ``x`` within its own length (an involution)."""
    steps, batch = x.shape[0], x.shape[1]
    if seq_length is None:
        return ops.flip(x, (0,))
    lengths = ops.reshape(ops.cast(seq_length, int64), (1, -1))
    t = ops.reshape(ops.arange(steps, dtype=int64), (steps, 1))
    src = ops.where(ops.less(t, lengths), lengths - 1 - t, t)
    rows = ops.reshape(src * batch + ops.reshape(ops.arange(batch, dtype=int64), (1, batch)),
                       (-1,))
    flat = ops.reshape(x, (steps * batch,) + tuple(x.shape[2:]))
    return ops.reshape(ops.gather(flat, ops.cast(rows, int32), 0), tuple(x.shape))


# ----------------------------------------------------------------- stacked layers
class _RNNBase(Cell):
    """Stacked (bi)directional recurrent layers; see the module note."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=float32):
        super().__init__()
        owner = type(self).__name__
        C.positive_int(hidden_size, "hidden_size", owner)
        C.positive_int(input_size, "input_size", owner)
        C.positive_int(num_layers, "num_layers", owner)
        if not isinstance(dropout, float):
            raise TypeError(f"For '{owner}', the type of 'dropout' must be 'float', but got "
                            f"'{type(dropout).__name__}'.")
        for arg, v in (("has_bias", has_bias), ("batch_first", batch_first),
                       ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{owner}', the type of '{arg}' should be 'bool', but got "
                                f"type '{type(v).__name__}'.")
        if not 0 <= dropout < 1:
            raise ValueError(f"For '{owner}', the 'dropout' must be a number in range [0, 1) "
                             f"representing the probability of an element being zeroed, but "
                             f"got {dropout}.")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.has_bias = has_bias
        self.batch_first = batch_first
        self.bidirectional = bidirectional
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.is_lstm = mode == "LSTM"
        self._make_parameters(input_size, hidden_size, dtype)

    def _make_parameters(self, input_size, hidden_size, dtype):
        gate = _GATES[self.mode] * hidden_size
        init = Uniform(1 / math.sqrt(hidden_size))
        lists = {"weight_ih": [], "weight_hh": [], "bias_ih": [], "bias_hh": []}
        dirs = 2 if self.bidirectional else 1
        for layer in range(self.num_layers):
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                in_size = input_size if layer == 0 else hidden_size * dirs
                shapes = {"weight_ih": (gate, in_size), "weight_hh": (gate, hidden_size)}
                if self.has_bias:
                    shapes.update(bias_ih=(gate,), bias_hh=(gate,))
                for key, shape in shapes.items():
                    lists[key].append(Parameter(initializer(init, shape, dtype=dtype),
                                                name=key + suffix))
        self.w_ih_list = ParameterTuple(lists["weight_ih"])
        self.w_hh_list = ParameterTuple(lists["weight_hh"])
        self.b_ih_list = ParameterTuple(lists["bias_ih"])
        self.b_hh_list = ParameterTuple(lists["bias_hh"])

    def _weights(self, index):
        bias = (self.b_ih_list[index], self.b_hh_list[index]) if self.has_bias else (None, None)
        return tuple(self._cast_weight(w) for w in
                     (self.w_ih_list[index], self.w_hh_list[index]) + bias)

    def construct(self, x, hx=None, seq_length=None):
        x_dtype = self._check_inputs(x, hx, seq_length)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, batch = x.shape[0], x.shape[1]
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            zeros = ops.zeros((self.num_layers * dirs, batch, self.hidden_size), x.dtype)
            hx = (zeros, zeros) if self.is_lstm else zeros
        masks = None if seq_length is None else _time_masks(seq_length, steps, x.dtype)
        layer_in, finals = x, []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                index = layer * dirs + d
                state = (hx[0][index], hx[1][index]) if self.is_lstm else hx[index]
                seq = _reverse_within_length(layer_in, seq_length) if d else layer_in
                out, final = _run_direction(self.mode, seq, state, self._weights(index), masks)
                outs.append(_reverse_within_length(out, seq_length) if d else out)
                finals.append(final)
            layer_in = outs[0] if dirs == 1 else ops.concat(outs, 2)
            if self.dropout and layer < self.num_layers - 1:
                layer_in = self.dropout_op(layer_in)
        output = ops.transpose(layer_in, (1, 0, 2)) if self.batch_first else layer_in
        output = ops.cast(output, x_dtype)
        if self.is_lstm:
            h_n = ops.stack([f[0] for f in finals], 0)
            c_n = ops.stack([f[1] for f in finals], 0)
            return output, (ops.cast(h_n, x_dtype), ops.cast(c_n, x_dtype))
        return output, ops.cast(ops.stack(finals, 0), x_dtype)

    def _check_inputs(self, x, hx, seq_length):
        owner = type(self).__name__
        C.tensor_input(x, owner, "x")
        if x.ndim != 3:
            raise ValueError(f"For primitive[{owner}], the x_shape.size() must be equal to 3, "
                             f"but got {x.ndim}.")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"For '{owner}', the last dimension of 'x' must be 'input_size' = "
                             f"{self.input_size}, but got shape {tuple(x.shape)}.")
        if hx is not None:
            states = hx if self.is_lstm else (hx,)
            if self.is_lstm and (not isinstance(hx, tuple) or len(hx) != 2):
                raise TypeError(f"For '{owner}', the 'hx' must be a tuple (h_0, c_0) of Tensors, "
                                f"but got '{type(hx).__name__}'.")
            for h in states:
                C.tensor_input(h, owner, "hx")
                if h.dtype != x.dtype or h.dtype not in (float32, float16):
                    raise TypeError(f"For '{owner}', the dtype of 'x' and 'hx' must be the same "
                                    f"float16 or float32, but got {x.dtype} and {h.dtype}.")
        if seq_length is not None:
            if seq_length.dtype not in (int32, int64):
                raise TypeError(f"For '{owner}', the 'seq_length' should be Int32 or Int64, but "
                                f"got {seq_length.dtype}.")
            batch = x.shape[0] if self.batch_first else x.shape[1]
            if seq_length.shape[0] != batch:
                raise ValueError(f"For '{owner}' batch size of x and seq_length must be equal, "
                                 f"but got {batch} of x and {seq_length.shape[0]} of seq_length.")
        return x.dtype


class RNN(_RNNBase):
    r"""Stacked Elman RNN: :math:`h_t = act(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})`.

    Args:
        input_size (int), hidden_size (int), num_layers (int): Default ``1``.
        nonlinearity (str): ``'tanh'`` (default) or ``'relu'``.
        has_bias (bool): Default ``True``; batch_first (bool): Default ``False``;
        dropout (float): between layers while training, Default ``0.0``;
        bidirectional (bool): Default ``False``; dtype: Default ``mstype.float32``.

    Inputs:
        - **x** (Tensor) - (seq_len, batch, input_size), or (batch, seq_len, input_size)
          with ``batch_first``.
        - **hx** (Tensor) - (num_directions·num_layers, batch, hidden_size). Default zeros.
        - **seq_length** (Tensor) - (batch,) int32/int64 valid lengths. Default ``None``.

    Outputs:
        (output, h_n).
    """

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', the 'nonlinearity' must be in ['tanh', 'relu'], but "
                             f"got {nonlinearity}.")
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, *args, **kwargs)


class LSTM(_RNNBase):
    r"""Stacked LSTM (gates i, f, g, o).

    Args: as RNN (without ``nonlinearity``).

    Inputs:
        - **x**, **seq_length**: as RNN.
        - **hx** (tuple) - (h_0, c_0), each (num_directions·num_layers, batch, hidden_size).

    Outputs:
        (output, (h_n, c_n)).
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    r"""Stacked GRU (gates r, z, n): :math:`h_t = (1 - z) n + z h_{t-1}`.

    Args, Inputs, Outputs: as RNN (without ``nonlinearity``).
    """

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


# ----------------------------------------------------------------- single-step cells
class _CellBase(Cell):
    """One recurrent step; parameters ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, mode, input_size, hidden_size, has_bias, dtype):
        super().__init__()
        owner = type(self).__name__
        self.input_size = C.positive_int(input_size, "input_size", owner)
        self.hidden_size = C.positive_int(hidden_size, "hidden_size", owner)
        self.has_bias = C.boolean(has_bias, "has_bias", owner)
        self.mode = mode
        gate = _GATES[mode] * hidden_size
        init = Uniform(1 / math.sqrt(hidden_size))
        self.weight_ih = Parameter(initializer(init, (gate, input_size), dtype=dtype))
        self.weight_hh = Parameter(initializer(init, (gate, hidden_size), dtype=dtype))
        self.bias_ih = self.bias_hh = None
        if has_bias:
            self.bias_ih = Parameter(initializer(init, (gate,), dtype=dtype))
            self.bias_hh = Parameter(initializer(init, (gate,), dtype=dtype))

    def _step(self, x, state):
        w_ih, w_hh, b_ih, b_hh = (self._cast_weight(w) for w in
                                  (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh))
        gx = _input_projection(x, w_ih, b_ih)
        return _STEPS[self.mode](gx, state, ops.transpose(w_hh, (1, 0)), b_hh)

    def _zeros(self, x):
        return ops.zeros(tuple(x.shape[:-1]) + (self.hidden_size,), x.dtype)


class RNNCell(_CellBase):
    """One Elman RNN step: ``h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Args:
        input_size (int), hidden_size (int), has_bias (bool): Default ``True``,
        nonlinearity (str): ``'tanh'`` (default) or ``'relu'``, dtype.

    Inputs: **x** (batch, input_size), **hx** (batch, hidden_size) (Default zeros).
    """

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=float32):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', the 'nonlinearity' must be in ['tanh', 'relu'], "
                             f"but got {nonlinearity}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx=None):
        return self._step(x, self._zeros(x) if hx is None else hx)


class GRUCell(_CellBase):
    """One GRU step (inputs as RNNCell); returns h'."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__("GRU", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        return self._step(x, self._zeros(x) if hx is None else hx)


class LSTMCell(_CellBase):
    """One LSTM step; ``hx`` is (h, c) (Default zeros); returns (h', c')."""

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=float32):
        super().__init__("LSTM", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx=None):
        if hx is None:
            hx = (self._zeros(x), self._zeros(x))
        return self._step(x, hx)
