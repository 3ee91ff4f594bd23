"""Custom gradients: a Cell with a ``bprop(self, *inputs, out, dout)`` method.

While a gradient is recorded, such a cell's ``construct`` runs with recording
paused, and one ``CellBprop`` primitive then joins the cell's tensor inputs to
its outputs on the tape; that primitive's gradient rule calls the cell's
``bprop``, which returns one gradient per input (MindSpore's contract).
Parameters used inside the cell get no gradient from it, as in MindSpore.
"""
from __future__ import annotations

from .._core import primitive as P
from .._core.aval import ShapedArray


class _Call:
    """One call of a bprop cell: the cell, its arguments and which of them are tensors."""

    __slots__ = ("cell", "args", "tensor_slots", "single")

    def __init__(self, cell, args):
        self.cell = cell
        self.args = args
        self.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, P._Tensor)]
        self.single = True

    def rebuild(self, tensors):
        args = list(self.args)
        for slot, t in zip(self.tensor_slots, tensors):
            args[slot] = t
        return args


def _make_cell_bprop(xp):
    def cell_bprop(*arrays, call):
        """Inputs are the cell's tensor inputs, then its (already computed) outputs."""
        return tuple(arrays[len(call.tensor_slots):])
    return cell_bprop


def _infer(attrs, *avals):
    outs = avals[len(attrs["call"].tensor_slots):]
    return tuple(ShapedArray(tuple(o.shape), o.dtype) for o in outs)


cell_bprop_p = P.Primitive("CellBprop", _make_cell_bprop, kind="opaque",
                           multiple_results=True, infer=_infer)


@cell_bprop_p.def_grad(inputs=tuple(range(256)), output=True)
def _cell_bprop_grad(attrs, inputs, out, dout):
    call = attrs["call"]
    n_in = len(call.tensor_slots)
    if not isinstance(dout, tuple):        # the tape hands single-output records a bare dout
        dout = (dout,)
    dout = tuple(d if d is not None else _zeros(o) for d, o in zip(dout, out))
    full_inputs = call.rebuild(inputs[:n_in])
    res = call.cell.bprop(*full_inputs, out[0] if call.single else tuple(out),
                          dout[0] if call.single else dout)
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) != len(full_inputs):
        raise ValueError(f"For '{type(call.cell).__name__}.bprop', the number of returned "
                         f"gradients ({len(res)}) must equal the number of inputs "
                         f"({len(full_inputs)}).")
    return tuple(res[slot] for slot in call.tensor_slots) + (None,) * (len(inputs) - n_in)


def _zeros(t):
    from .api import _zeros_like
    return _zeros_like(t)


def call_with_bprop(cell, args, kwargs):
    """Run ``cell`` unrecorded, then record it as one primitive with the cell's bprop."""
    call = _Call(cell, args)
    capture = P.active_capture()
    # unrecorded: straight to the kernels, or (inside a compiled function) to the graph
    base = P._eager_handler if capture is None else capture.handle
    with P.handler_scope(lambda below: base):
        out = cell.construct(*args, **kwargs)
    call.single = not isinstance(out, tuple)
    outs = (out,) if call.single else tuple(out)
    joined = cell_bprop_p(*[args[i] for i in call.tensor_slots], *outs, call=call)
    return joined[0] if call.single else joined


def has_bprop(cell):
    return callable(getattr(type(cell), "bprop", None))
