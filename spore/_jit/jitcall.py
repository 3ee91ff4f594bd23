"""``JitCall``: a compiled function called while a gradient is taken from outside.

NOTE: [JitCall]
``grad(jit_fn)``, ``value_and_grad`` of a function calling a GRAPH_MODE Cell, ...: the
outer tape records the compiled call as one ``JitCall`` primitive whose inputs are the
call's tensors, the tensors the graph reads from outside (Parameters, closures), and the
random state it started from. Its forward returns the residuals its backward reads, and
its gradient rule runs that backward, both compiled once per entry from one joint graph
(NOTE: [JitCall residuals] in residuals.py). Where the joint graph cannot be split, or
the backward is itself differentiated, the rule is a second compiled function, cached
per entry, that recomputes the forward under a tape (the random state is rewound, so
dropout masks repeat). Graphs that write state or print (BatchNorm's moving statistics,
``ops.Print``) are recorded only with saved residuals, whose forward runs the effects
once; where there are none, or a higher-order gradient is being taken (two tapes
record), the call runs in PyNative instead: recomputing it would write or print twice.
"""
from __future__ import annotations

from .. import _random as R
from .._core import primitive as P
from .._autodiff import tape as T
from .._core.aval import ShapedArray
from .._prims.array import full_p


class CallInfo:
    """What one JitCall needs: the entry, how to rebuild arguments, its backward."""

    __slots__ = ("jit", "entry", "spec", "n_tensors", "objects", "_backward", "split",
                 "effects", "__weakref__")

    def __init__(self, jit, entry, spec, n_tensors):
        self.jit = jit
        self.entry = entry
        self.spec = spec
        self.n_tensors = n_tensors
        self.objects = entry.objects
        self._backward = None
        self.split = None          # residuals.Split once built; False: cannot be split
        self.effects = has_effects(entry)

    def __hash__(self):
        return id(self)

    def backward(self):
        if self._backward is None:
            from .api import JitFunction
            bwd = JitFunction(_flat_gradient(self))
            bwd.name = f"{self.jit.name}_backward"
            self._backward = bwd
        return self._backward


def has_effects(entry):
    """Whether the graph writes state or prints: a recomputed forward would do it twice."""
    return any(n.written or n.prim.effect in ("state", "print") for n in entry.graph.nodes)


def _make_jit_call(xp):
    def jit_call(*arrays, call):
        split = call.split
        if split:
            n_o = len(call.objects)
            return split.fwd.fn(*split.forward_inputs(arrays, call.n_tensors, n_o))
        return call.entry.compiled.fn(*arrays)
    return jit_call


def _infer(attrs, *avals):
    call = attrs["call"]
    outs = [ShapedArray(v.aval.shape, v.aval.dtype) for v in call.entry.graph.outputs]
    if call.split:
        outs += [ShapedArray(a.shape, a.dtype) for a in call.split.res_avals]
    return tuple(outs)


jit_call_p = P.Primitive("JitCall", _make_jit_call, kind="opaque", multiple_results=True,
                         infer=_infer, doc="JitCall(*inputs; call): a compiled function "
                                           "called under an outer gradient tape.")


@jit_call_p.def_grad(inputs="all", output=True)
def _jit_call_grad(attrs, inputs, out, dout):
    call = attrs["call"]
    entry = call.entry
    n_out = len(entry.graph.outputs)
    if not isinstance(dout, tuple):        # the tape hands single-output records a bare dout
        dout = (dout,)
    outs = out if isinstance(out, tuple) else (out,)     # their shapes: the graph's may be
    douts = tuple(d if d is not None else full_p(shape=o.shape, dtype=v.aval.dtype, value=0)
                  for d, o, v in zip(dout[:n_out], outs, entry.graph.outputs))  # symbolic
    n_t, n_o = call.n_tensors, len(call.objects)
    if call.split and not T.is_recording():          # NOTE: [JitCall residuals]
        residuals = out[n_out:] if isinstance(out, tuple) else ()
        grads = call.split.cotangents([r._data for r in residuals], [d._data for d in douts])
    else:
        if call.effects:
            raise RuntimeError(
                f"'{call.jit.name}' writes state or prints inside a compiled graph, and its "
                "gradient is being differentiated again, which would run those effects "
                "twice; take this gradient with the function in PyNative mode.")
        tensors = inputs[:n_t]
        saved = R.get_state()
        if entry.uses_rng:
            state = inputs[n_t + n_o]._data
            R.set_state((int(state[0]), int(state[1])))
        try:
            grads = call.backward()(*tensors, *douts)
        finally:
            R.set_state(saved)
    result = []
    for x, g in zip(inputs, tuple(grads) + (None,) * len(inputs)):
        ok = isinstance(x, P._Tensor) and x._data.dtype.kind in "fcV" and g is not None
        result.append(g if ok else None)
    return tuple(result[:len(inputs)])


def flat_forward(call):
    """``(*tensors) -> the graph-output tensors of the call``, running the Python function."""
    from .api import _Leaves, _rebuild, graph_output_tensors
    jit, spec = call.jit, call.spec

    def flat_fn(*ts):
        it = _Leaves(ts)
        static = call.entry.static_objects
        out = jit.fn(*_rebuild(spec[0], it, static), **_rebuild(spec[1], it, static))
        return tuple(graph_output_tensors(call.entry.out_spec, out))
    return flat_fn


def _flat_gradient(call):
    """``(*tensors, *douts) -> cotangents of (tensors, objects)``, recomputing the forward."""
    from .._autodiff.api import grad
    jit, n = call.jit, call.n_tensors
    objects = list(call.objects)
    flat_fn = flat_forward(call)

    positions = tuple(range(n)) or None
    g = grad(flat_fn, grad_position=positions, weights=objects or None, sens_param=True)

    def backward(*args):
        ts, ds = args[:n], args[n:]
        return flat_cotangents(g(*ts, ds), positions, objects)
    backward.__name__ = f"{jit.name}_backward"
    return backward


def flat_cotangents(grads, positions, objects):
    """The cotangents ``grad(..., grad_position=positions, weights=objects)`` returned, as
    one flat tuple: those of the positions, then those of the objects."""
    if positions is not None and objects:
        pos, ws = grads
    elif positions is not None:
        pos, ws = grads, ()
    else:
        pos, ws = (), grads
    pos = (pos,) if positions is not None and len(positions) == 1 else tuple(pos)
    ws = (ws,) if objects and len(objects) == 1 and not isinstance(ws, tuple) else tuple(ws)
    return pos + ws


def call_under_tape(jit, entry, spec, tensors):
    """Run ``entry`` as one JitCall on the recording tapes; returns the rebuilt outputs,
    or NotImplemented where its effects rule that out (the caller runs PyNative)."""
    from .api import _advance_rng, _build
    info = jit._call_infos.get(spec)
    if info is None or info.entry is not entry:       # one per entry: its compiled backward
        info = jit._call_infos[spec] = CallInfo(jit, entry, spec, len(tensors))
    effects = info.effects
    if effects and len(T.active_tapes()) > 1:
        return NotImplemented                  # a higher-order gradient recomputes
    if info.split is None:
        from .residuals import build
        info.split = build(info, tensors) or False
    if effects and not info.split:
        return NotImplemented
    ins = list(tensors) + list(entry.objects)
    if entry.uses_rng:
        ins.append(P.wrap(R.state_array()))
    outs = jit_call_p(*ins, call=info)
    if info.split:
        outs = outs[:info.split.n_out]
    _advance_rng(entry, [o._data for o in outs[-1:]])
    return _build(entry.out_spec, outs, tensors, wrap=lambda t: t)

