"""The internal conditional: ``cond(pred, true_fn, false_fn, *operands)`` in a graph.

NOTE: [Conditionals]
Spore's own tensor branches (the loss-scale wrappers' ``if not overflow:
optimizer(grads)``) call ``spore.ops._control.cond``. In PyNative it is a Python ``if``.
While a graph is captured, both branches are traced into sub-graphs (``Capture.branch``):
the tensors a branch reads from outside become inputs of the ``Cond`` node, and the
Parameters a branch writes get new values after it. The generated code calls only the
taken branch, so its effects (the optimizer's in-place updates) happen only when it is
taken, as in PyNative.
"""
from __future__ import annotations

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .._prims.array import full_p


def _make_cond(xp):
    def cond(pred, *free, branches, out_avals):
        # codegen replaces ``branches`` by compiled functions (see codegen.specialize)
        raise RuntimeError("Cond runs only inside compiled code")
    return cond


def _cond_infer(attrs, pred, *free):
    return tuple(ShapedArray(a.shape, a.dtype) for a in attrs["out_avals"])


cond_p = P.Primitive("Cond", _make_cond, kind="opaque", effect="state", writes=(),
                     multiple_results=True, infer=_cond_infer,
                     doc="Cond(pred, *free; branches, out_avals): runs one of two sub-graphs.")


class CondCall:
    """The Python side of a recorded conditional: its branch functions, their operands,
    the tensors the branches read (the Cond's inputs) and the output structure."""

    __slots__ = ("true_fn", "false_fn", "operands", "objs", "tree")

    def __init__(self, true_fn, false_fn, operands, objs, tree):
        self.true_fn = true_fn
        self.false_fn = false_fn
        self.operands = operands
        self.objs = objs
        self.tree = tree

    def __repr__(self):
        return "<cond branches>"


@cond_p.def_grad(inputs="all")
def _cond_grad(attrs, inputs, out, dout):
    """A conditional over the branches' gradients: the taken branch is recomputed under a
    tape that watches the tensors it read, seeded with ``dout``."""
    from .._autodiff.api import grad
    from ..ops import _control
    call = attrs["_py"]
    if not isinstance(dout, tuple):
        dout = (dout,)
    douts = tuple(d if d is not None else full_p(shape=a.shape, dtype=a.dtype, value=0)
                  for d, a in zip(dout, attrs["out_avals"]))
    diff = [i for i, o in enumerate(call.objs) if o._data.dtype.kind in "fcV"]
    weights = [call.objs[i] for i in diff]

    def branch(fn):
        def run():
            from .capture import _flatten_out
            def outputs():
                leaves = []
                _flatten_out(fn(*call.operands), leaves)
                return tuple(leaves)
            return tuple(grad(outputs, None, weights, sens_param=True)(douts))
        return run
    grads = _control.cond(inputs[0], branch(call.true_fn), branch(call.false_fn)) \
        if diff else ()
    result = [None] * len(inputs)
    for k, i in enumerate(diff):
        result[1 + i] = grads[k]
    return tuple(result)


def compiled_cond(true_fn, false_fn):
    def run(pred, *free):
        return true_fn(*free) if pred else false_fn(*free)
    return run


def _make_while(xp):
    def while_loop(*args, cond, body, n_carried):
        raise RuntimeError("While runs only inside compiled code")
    return while_loop


def _while_infer(attrs, *avals):
    return tuple(ShapedArray(a.shape, a.dtype) for a in avals[:attrs["n_carried"]])


while_p = P.Primitive("While", _make_while, kind="opaque", effect="state", writes=(),
                      multiple_results=True, infer=_while_infer,
                      doc="While(*carried, *free; cond, body, n_carried): a loop of sub-graphs.")


def compiled_while(cond_fn, body_fn, n, call=None):
    """The loop; with ``call`` (a loop differentiated from outside) each iteration's
    carried values are kept on a stack for the backward loop (NOTE: [Loop gradients])."""
    if call is None:
        def run(*args):
            carried, free = args[:n], args[n:]
            while cond_fn(*carried, *free)[0]:
                carried = body_fn(*carried, *free)
            return carried
        return run

    def run_recording(*args):
        carried, free = args[:n], args[n:]
        stack = []
        while cond_fn(*carried, *free)[0]:
            stack.append(carried)
            carried = body_fn(*carried, *free)
        call.stack = stack
        return carried
    return run_recording


# NOTE: [Loop gradients]
# A tensor ``while`` under a gradient tape inside a compiled function is recorded as one
# ``While`` whose inputs are the initial carried values and the tensors the body reads.
# Its forward pushes each iteration's carried values on a run-time stack; its gradient is
# a ``WhileGrad`` node that pops them in reverse, running the body's vjp (a sub-graph
# traced once) and summing the cotangents of the tensors read. The trip count may depend
# on tensor values: JAX's reverse mode cannot do this, MindSpore's can.
class WhileCall:
    """The Python side of a recorded loop: the body, its operands, the positions that are
    carried, the tensors the body reads (inputs after the carried values), the stack."""

    __slots__ = ("body_fn", "values", "carried", "objs", "stack")

    def __init__(self, body_fn, values, carried, objs):
        self.body_fn = body_fn
        self.values = values
        self.carried = carried
        self.objs = objs
        self.stack = []

    def __repr__(self):
        return "<loop body>"


@while_p.def_grad(inputs="all", output=True)
def _while_grad(attrs, inputs, out, dout):
    call = attrs.get("_py")
    capture = P.active_capture()
    if call is None or capture is None:
        raise RuntimeError("a While loop is differentiated only inside compiled code")
    from .._autodiff import tape as T
    if T.is_recording():
        # the backward loop is itself recorded (grad of grad): WhileGrad has no gradient
        # of its own, so the trace stops here rather than give zeros (PyNative runs it)
        from .capture import GraphBreak
        raise GraphBreak("a gradient of a gradient through a tensor while loop")
    return capture.while_grad(call, attrs["n_carried"], inputs, out, dout)


def _make_while_grad(xp):
    def while_grad(*args, vjp, n_carried, n_weights, out_avals, _py):
        raise RuntimeError("WhileGrad runs only inside compiled code")
    return while_grad


def _while_grad_infer(attrs, *avals):
    return tuple(ShapedArray(a.shape, a.dtype) for a in attrs["out_avals"])


while_grad_p = P.Primitive("WhileGrad", _make_while_grad, kind="opaque", effect="state",
                           writes=(), multiple_results=True, infer=_while_grad_infer,
                           nondiff=True, doc="WhileGrad(*final, *dout, *free; vjp, ...): the "
                                             "reverse loop of a recorded While.")


def compiled_while_grad(vjp_fn, n, n_weights, call, out_avals):
    def run(*args):
        d, free = args[n:2 * n], args[2 * n:]
        acc = None
        for s in reversed(call.stack):
            res = vjp_fn(*s, *d, *free)
            d, dw = res[:n], res[n:]
            acc = dw if acc is None else tuple(a + b for a, b in zip(acc, dw))
        if acc is None:
            acc = tuple(np.zeros(shape, dt) for shape, dt in out_avals[n:])
        call.stack = []
        return tuple(d) + tuple(acc)
    return run

