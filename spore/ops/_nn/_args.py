"""Argument normalisation shared by the nn functional adapters."""
from __future__ import annotations

import math

import numpy as np

from ..._core import primitive as P

REDUCTIONS = ("none", "mean", "sum")


def is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def int_tuple(op, arg, value, n, allowed=None):
    """``value`` (an int or a sequence of ints) as an ``n``-tuple; ``allowed`` lists the
    sequence lengths accepted (default ``(n,)``), a length-1 sequence is repeated."""
    if is_int(value):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and all(is_int(v) for v in value):
        if len(value) == 1:
            return (int(value[0]),) * n
        if len(value) in (allowed or (n,)):
            return tuple(int(v) for v in value)
        raise ValueError(f"For '{op}', the '{arg}' must be an int or a tuple/list with length "
                         f"{' or '.join(str(a) for a in (allowed or (n,)))}, but got {value}.")
    raise TypeError(f"For '{op}', the '{arg}' must be an int or a tuple/list of int, but got "
                    f"{type(value).__name__} {value!r}.")


def positive(op, arg, values):
    if any(v <= 0 for v in values):
        raise ValueError(f"For '{op}', the '{arg}' must be positive, but got {values}.")
    return values


def non_negative(op, arg, values):
    if any(v < 0 for v in values):
        raise ValueError(f"For '{op}', the '{arg}' must be non-negative, but got {values}.")
    return values


def explicit_pads(op, padding):
    """An int, (h, w) or (top, bottom, left, right) padding as a 4-tuple."""
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        ph, pw = int_tuple(op, "padding", padding, 2)
        pads = (ph, ph, pw, pw)
    else:
        pads = int_tuple(op, "padding", padding, 4, allowed=(2, 4))
    return non_negative(op, "padding", pads)


def same_pads(in_hw, khw, stride, dilation):
    """TensorFlow 'same' padding: output ceil(in / stride), the odd pixel at the end."""
    pads = []
    for size, k, s, d in zip(in_hw, khw, stride, dilation):
        out = -(-size // s)
        total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def check_pad_mode(op, pad_mode):
    if not isinstance(pad_mode, str) or pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"For '{op}', the 'pad_mode' must be str and must be in "
                         f"'['valid', 'same', 'pad']', but got '{pad_mode}'.")
    return pad_mode


def mode_pads(op, pad_mode, padding, in_hw, khw, stride, dilation):
    """(top, bottom, left, right) pads for MindSpore's pad_mode semantics."""
    check_pad_mode(op, pad_mode)
    pads = explicit_pads(op, padding)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{op}', the 'pad' must be zero when 'pad_mode' is not 'pad', but "
                         f"got 'pad': {padding} and 'pad_mode': {pad_mode}.")
    if pad_mode == "same":
        return same_pads(in_hw, khw, stride, dilation)
    return pads


def ceil_extension(size, k, s, pad_lo, pad_hi, dilation=1):
    """Extra end padding that ceil_mode needs (the last window must start inside the input
    or its leading padding, as in MindSpore and PyTorch)."""
    span = size + pad_lo + pad_hi - dilation * (k - 1) - 1
    out = -(-span // s) + 1
    if (out - 1) * s >= size + pad_lo:
        out -= 1
    return max((out - 1) * s + dilation * (k - 1) + 1 - (size + pad_lo + pad_hi), 0)


def check_reduction(op, reduction):
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"For '{op}', the 'reduction' must be str and must be in "
                         f"'{list(REDUCTIONS)}', but got '{reduction}'.")
    return reduction


def require_tensor(op, arg, x):
    if not isinstance(x, P._Tensor):
        raise TypeError(f"For '{op}', the '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    return x


def require_rank(op, arg, x, ranks):
    require_tensor(op, arg, x)
    if x.ndim not in ranks:
        want = " or ".join(f"{r}D" for r in ranks)
        raise ValueError(f"For '{op}', the '{arg}' must be a {want} Tensor, but got a "
                         f"{x.ndim}D Tensor (shape {list(x.shape)}).")
    return x


def probability(op, p):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer)):
        raise TypeError(f"For '{op}', the 'p' must be a float, but got {type(p).__name__}.")
    p = float(p)
    if not 0.0 <= p < 1.0 or math.isnan(p):
        raise ValueError(f"For '{op}', the 'p' must be a number in range [0, 1), but got {p}.")
    return p
