"""``cond``: a tensor conditional that Spore's own Cells use (see NOTE: [Conditionals]
in ``spore/_jit/control.py``)."""
from __future__ import annotations

from .._core import primitive as P


def cond(pred, true_fn, false_fn, *operands):
    """``true_fn(*operands)`` if ``pred`` (a tensor holding one bool) else
    ``false_fn(*operands)``. In a compiled function both branches become sub-graphs and
    only the taken one runs (its effects included)."""
    capture = P.active_capture()
    if capture is not None:
        return capture.cond(pred, true_fn, false_fn, operands)
    return true_fn(*operands) if bool(pred) else false_fn(*operands)
