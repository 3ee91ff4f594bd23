"""MindSpore's fused recurrent primitives of the Ascend backend, as composites of public ops:
``BasicLSTMCell`` (one step), ``DynamicRNN`` (an LSTM over time) and ``DynamicGRUV2``.
MindSpore's CPU build has no kernel for them; these follow their documented formulas
(TensorFlow's LSTMBlockCell gate order i, j, f, o), so gradients come from the ops."""
from __future__ import annotations

from .. import _ops_a as F
from . import Primitive, _ops
from ._ops_a_classes import _bool, _check

__all__ = ["BasicLSTMCell", "DynamicRNN", "DynamicGRUV2"]


def _float(op, arg, value):
    _check(isinstance(value, (int, float)) and not isinstance(value, bool), TypeError,
           f"For '{op}', the '{arg}' must be a float, but got {type(value).__name__}.")
    return float(value)


def _lstm_gates(ops, x, h, w, b, forget_bias):
    """``[x, h] @ w + b`` split into the activated gates i, j, f, o."""
    gates = ops.matmul(ops.cat((x, h), -1), w) + b
    i, j, f, o = ops.split(gates, gates.shape[-1] // 4, -1)
    return (ops.sigmoid(i), ops.tanh(j), ops.sigmoid(f + forget_bias), ops.sigmoid(o))


def _check_lstm(op, x, h, w, b):
    F._float_tensor(op, "w", w, (2,))
    F._float_tensor(op, "b", b, (1,))
    n_in, hidden = x.shape[-1], h.shape[-1]
    _check(tuple(w.shape) == (n_in + hidden, 4 * hidden), ValueError,
           f"For '{op}', the 'w' must have shape {[n_in + hidden, 4 * hidden]}, but got "
           f"{list(w.shape)}.")
    _check(tuple(b.shape) == (4 * hidden,), ValueError,
           f"For '{op}', the 'b' must have shape {[4 * hidden]}, but got {list(b.shape)}.")


class BasicLSTMCell(Primitive):
    """``BasicLSTMCell(keep_prob=1.0, forget_bias=1.0, state_is_tuple=True,
    activation='tanh')(x, h, c, w, b)`` -> ``(ct, ht, it, jt, ft, ot, tanhct)``: one LSTM
    step, ``[x, h] @ w + b`` split into gates i, j, f, o;
    ``c' = sigmoid(f + forget_bias) * c + sigmoid(i) * tanh(j)``,
    ``h' = sigmoid(o) * tanh(c')``. ``keep_prob < 1`` drops inputs in training."""

    def __init__(self, keep_prob=1.0, forget_bias=1.0, state_is_tuple=True,
                 activation="tanh"):
        super().__init__()
        op = "BasicLSTMCell"
        self.keep_prob = _float(op, "keep_prob", keep_prob)
        _check(0.0 < self.keep_prob <= 1.0, ValueError,
               f"For '{op}', the 'keep_prob' must be in (0, 1], but got {keep_prob}.")
        self.forget_bias = _float(op, "forget_bias", forget_bias)
        self.state_is_tuple = _bool(op, "state_is_tuple", state_is_tuple)
        _check(activation == "tanh", ValueError,
               f"For '{op}', the 'activation' must be 'tanh', but got {activation!r}.")
        self.activation = activation

    def __call__(self, x, h, c, w, b):
        op = "BasicLSTMCell"
        ops = _ops()
        for arg, v in (("x", x), ("h", h), ("c", c)):
            F._float_tensor(op, arg, v, (2,))
        _check_lstm(op, x, h, w, b)
        if self.keep_prob < 1.0:
            x = ops.dropout(x, 1.0 - self.keep_prob)
        i, j, f, o = _lstm_gates(ops, x, h, w, b, self.forget_bias)
        ct = f * c + i * j
        tanhct = ops.tanh(ct)
        return ct, o * tanhct, i, j, f, o, tanhct


class DynamicRNN(Primitive):
    """``DynamicRNN(cell_type='LSTM', direction='UNIDIRECTIONAL', cell_depth=1,
    use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
    activation='tanh', forget_bias=0.0, is_training=True)(x, w, b, seq_length, init_h,
    init_c)`` -> ``(y, output_h, output_c, i, j, f, o, tanhc)``, each (num_step, batch,
    hidden): an LSTM over time-major ``x`` (the BasicLSTMCell step; ``cell_clip > 0`` clips
    the cell state). ``seq_length`` must be None (all sequences full length)."""

    def __init__(self, cell_type="LSTM", direction="UNIDIRECTIONAL", cell_depth=1,
                 use_peephole=False, keep_prob=1.0, cell_clip=-1.0, num_proj=0, time_major=True,
                 activation="tanh", forget_bias=0.0, is_training=True):
        super().__init__()
        op = "DynamicRNN"
        for arg, v, allowed in (("cell_type", cell_type, "LSTM"),
                                ("direction", direction, "UNIDIRECTIONAL"),
                                ("activation", activation, "tanh")):
            _check(v == allowed, ValueError,
                   f"For '{op}', the '{arg}' must be {allowed!r}, but got {v!r}.")
        _check(cell_depth == 1 and num_proj == 0 and not use_peephole and time_major,
               ValueError, f"For '{op}', only cell_depth=1, num_proj=0, use_peephole=False and "
                           f"time_major=True are supported (as MindSpore).")
        self.keep_prob = _float(op, "keep_prob", keep_prob)
        self.cell_clip = _float(op, "cell_clip", cell_clip)
        self.forget_bias = _float(op, "forget_bias", forget_bias)
        self.is_training = _bool(op, "is_training", is_training)

    def __call__(self, x, w, b, seq_length, init_h, init_c):
        op = "DynamicRNN"
        ops = _ops()
        F._float_tensor(op, "x", x, (3,))
        F._float_tensor(op, "init_h", init_h, (2, 3))
        F._float_tensor(op, "init_c", init_c, (2, 3))
        _check(seq_length is None, ValueError,
               f"For '{op}', the 'seq_length' must be None (full-length sequences).")
        h, c = init_h.reshape(init_h.shape[-2:]), init_c.reshape(init_c.shape[-2:])
        _check_lstm(op, x, h, w, b)
        outs = {k: [] for k in ("h", "c", "i", "j", "f", "o", "tanhc")}
        for t in range(x.shape[0]):
            xt = x[t]
            if self.is_training and self.keep_prob < 1.0:
                xt = ops.dropout(xt, 1.0 - self.keep_prob)
            i, j, f, o = _lstm_gates(ops, xt, h, w, b, self.forget_bias)
            c = f * c + i * j
            if self.cell_clip > 0:
                c = ops.clamp(c, -self.cell_clip, self.cell_clip)
            tanhc = ops.tanh(c)
            h = o * tanhc
            for k, v in zip(outs, (h, c, i, j, f, o, tanhc)):
                outs[k].append(v)
        stacked = {k: ops.stack(v, 0) for k, v in outs.items()}
        return (stacked["h"], stacked["h"], stacked["c"], stacked["i"], stacked["j"],
                stacked["f"], stacked["o"], stacked["tanhc"])


class DynamicGRUV2(Primitive):
    """``DynamicGRUV2(direction='UNIDIRECTIONAL', cell_depth=1, keep_prob=1.0,
    cell_clip=-1.0, num_proj=0, time_major=True, activation='tanh', gate_order='rzh',
    reset_after=True, is_training=True)(x, weight_input, weight_hidden, bias_input,
    bias_hidden, seq_length, init_h)`` -> ``(y, output_h, update, reset, new, hidden_new)``,
    each (num_step, batch, hidden): ``r, z = sigmoid(x W_i + b_i + h W_h + b_h)`` (in
    ``gate_order``), ``hidden_new = h W_hn + b_hn``, ``n = tanh(x W_in + b_in + r *
    hidden_new)`` (``reset_after``; else the reset applies to ``h`` first),
    ``h' = (1 - z) * n + z * h``."""

    def __init__(self, direction="UNIDIRECTIONAL", cell_depth=1, keep_prob=1.0,
                 cell_clip=-1.0, num_proj=0, time_major=True, activation="tanh",
                 gate_order="rzh", reset_after=True, is_training=True):
        super().__init__()
        op = "DynamicGRUV2"
        _check(direction == "UNIDIRECTIONAL" and activation == "tanh" and cell_depth == 1
               and num_proj == 0 and time_major, ValueError,
               f"For '{op}', only direction='UNIDIRECTIONAL', activation='tanh', cell_depth=1, "
               f"num_proj=0 and time_major=True are supported (as MindSpore).")
        _check(gate_order in ("rzh", "zrh"), ValueError,
               f"For '{op}', the 'gate_order' must be 'rzh' or 'zrh', but got {gate_order!r}.")
        self.gate_order, self.reset_after = gate_order, _bool(op, "reset_after", reset_after)
        self.keep_prob = _float(op, "keep_prob", keep_prob)
        self.cell_clip = _float(op, "cell_clip", cell_clip)
        self.is_training = _bool(op, "is_training", is_training)

    def __call__(self, x, weight_input, weight_hidden, bias_input, bias_hidden, seq_length,
                 init_h):
        op = "DynamicGRUV2"
        ops = _ops()
        F._float_tensor(op, "x", x, (3,))
        _check(seq_length is None, ValueError,
               f"For '{op}', the 'seq_length' must be None (full-length sequences).")
        F._float_tensor(op, "weight_input", weight_input, (2,))
        F._float_tensor(op, "weight_hidden", weight_hidden, (2,))
        F._float_tensor(op, "init_h", init_h, (2,))
        for arg, v in (("bias_input", bias_input), ("bias_hidden", bias_hidden)):
            if v is not None:
                F._float_tensor(op, arg, v, (1,))
        h = init_h
        hidden = h.shape[-1]
        _check(tuple(weight_input.shape) == (x.shape[-1], 3 * hidden)
               and tuple(weight_hidden.shape) == (hidden, 3 * hidden), ValueError,
               f"For '{op}', the weights must be {[x.shape[-1], 3 * hidden]} and "
               f"{[hidden, 3 * hidden]}, but got {list(weight_input.shape)} and "
               f"{list(weight_hidden.shape)}.")
        zero = ops.zeros((3 * hidden,), x.dtype)
        b_i = zero if bias_input is None else bias_input
        b_h = zero if bias_hidden is None else bias_hidden
        outs = {k: [] for k in ("h", "z", "r", "n", "hn")}
        first, second = (0, 1) if self.gate_order == "rzh" else (1, 0)
        for t in range(x.shape[0]):
            gi = ops.split(ops.matmul(x[t], weight_input) + b_i, hidden, -1)
            wh = ops.split(weight_hidden, hidden, -1)
            bh = ops.split(b_h, hidden, -1)
            r = ops.sigmoid(gi[first] + ops.matmul(h, wh[first]) + bh[first])
            z = ops.sigmoid(gi[second] + ops.matmul(h, wh[second]) + bh[second])
            if self.reset_after:
                hn = ops.matmul(h, wh[2]) + bh[2]
                n = ops.tanh(gi[2] + r * hn)
            else:
                hn = ops.matmul(r * h, wh[2]) + bh[2]
                n = ops.tanh(gi[2] + hn)
            h = (1 - z) * n + z * h
            if self.cell_clip > 0:
                h = ops.clamp(h, -self.cell_clip, self.cell_clip)
            for k, v in zip(outs, (h, z, r, n, hn)):
                outs[k].append(v)
        s = {k: ops.stack(v, 0) for k, v in outs.items()}
        return s["h"], s["h"], s["z"], s["r"], s["n"], s["hn"]
