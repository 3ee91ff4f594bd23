"""``ms.recompute(block, *args)`` and ``Cell.recompute()``: activation recomputation.

While a gradient is recorded, the block runs with recording paused, so the tape keeps
none of its intermediate values, only one ``Recompute`` record joining the block's
tensor inputs and trainable Parameters to its outputs. That record's gradient rule runs
the block again under a fresh gradient from the same random state (dropout draws the
same masks), with the block's other Parameters (BatchNorm's moving statistics) restored
afterwards so the second run writes nothing: the memory of a block's activations is
traded for a second forward pass. Inside a compiled graph, or with no gradient being
recorded, the block simply runs.
"""
from __future__ import annotations

from .. import _random as R
from .._core import primitive as P
from .._core.aval import ShapedArray
from . import tape as T


class _Call:
    __slots__ = ("block", "fn", "args", "kwargs", "slots", "weights", "rng", "single")

    def __init__(self, block, fn, args, kwargs, weights):
        self.block, self.fn, self.args, self.kwargs = block, fn, args, kwargs
        self.slots = [i for i, a in enumerate(args) if isinstance(a, P._Tensor)]
        self.weights = weights
        self.rng = R.get_state()

    def rebuild(self, tensors):
        args = list(self.args)
        for slot, t in zip(self.slots, tensors):
            args[slot] = t
        return args


def _make(xp):
    def recompute_join(*arrays, call):
        return tuple(arrays[len(call.slots) + len(call.weights):])
    return recompute_join


def _infer(attrs, *avals):
    call = attrs["call"]
    return tuple(ShapedArray(tuple(a.shape), a.dtype)
                 for a in avals[len(call.slots) + len(call.weights):])


recompute_p = P.Primitive("Recompute", _make, kind="opaque", multiple_results=True,
                          infer=_infer, doc="Recompute(*inputs, *weights, *outputs; call): "
                                            "a block whose activations are recomputed in "
                                            "the backward pass.")


@recompute_p.def_grad(inputs="all")
def _recompute_grad(attrs, inputs, out, dout):
    from .api import grad
    call = attrs["call"]
    n_t, n_w = len(call.slots), len(call.weights)
    if not isinstance(dout, tuple):
        dout = (dout,)
    outs = inputs[n_t + n_w:]
    douts = tuple(d if d is not None else _zeros(o) for d, o in zip(dout, outs))
    tensors = inputs[:n_t]

    def flat(*ts):
        res = call.fn(*call.rebuild(ts), **call.kwargs)
        return res if call.single else tuple(res)

    buffers = [(p, p._data.copy()) for p in call.block.get_parameters()
               if not p.requires_grad]
    saved = R.get_state()
    R.set_state(call.rng)
    try:
        positions = tuple(range(n_t)) or None
        g = grad(flat, grad_position=positions, weights=list(call.weights) or None,
                 sens_param=True)
        grads = g(*tensors, douts[0] if call.single else douts)
    finally:
        R.set_state(saved)
        for p, data in buffers:
            p._data = data
    if positions is not None and n_w:
        pos, ws = grads
    elif positions is not None:
        pos, ws = grads, ()
    else:
        pos, ws = (), grads
    pos = (pos,) if positions is not None and n_t == 1 else tuple(pos)
    ws = (ws,) if n_w == 1 and not isinstance(ws, tuple) else tuple(ws)
    return pos + ws + (None,) * len(outs)


def _zeros(t):
    from .api import _zeros_like
    return _zeros_like(t)


def recompute(block, *args, **kwargs):
    """``mindspore.recompute``: run the Cell ``block`` on ``args`` without keeping its
    activations for the backward pass (they are recomputed there)."""
    from ..nn.cell import Cell
    kwargs.pop("use_reentrant", None)
    kwargs.pop("output_recompute", None)
    kwargs.pop("early_stop", None)
    kwargs.pop("context_fn", None)
    if not isinstance(block, Cell):
        raise TypeError(f"For 'recompute', the 'block' must be a Cell, but got "
                        f"{type(block).__name__}.")
    if not T.is_recording() or P.active_capture() is not None:
        return block(*args, **kwargs)
    return recompute_call(block, args, kwargs, block)


def recompute_call(block, args, kwargs, fn=None):
    """Run ``fn`` (the Cell ``block``'s construct by default) unrecorded and record one
    ``Recompute`` joining its tensor inputs, the block's trainable Parameters and the
    outputs."""
    fn = block.construct if fn is None else fn
    weights = [p for p in block.trainable_params()]
    call = _Call(block, fn, args, kwargs, weights)
    with T.suspended(), P.handler_scope(lambda below: P._eager_handler):
        out = fn(*args, **kwargs)             # unrecorded: no activations kept
    call.single = not isinstance(out, (tuple, list))
    outs = (out,) if call.single else tuple(out)
    if not all(isinstance(o, P._Tensor) for o in outs):
        raise TypeError("For 'recompute', the block must return a Tensor or a tuple of "
                        "Tensors.")
    joined = recompute_p(*[args[i] for i in call.slots], *weights, *outs, call=call)
    return joined[0] if call.single else tuple(joined)
