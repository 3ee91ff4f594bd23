"""MindSpore's functional autodiff API on top of the tape.

Result structures follow MindSpore 2.10 exactly (see the reference notes,
section 5.3): ``grad_position=(0,)`` gives a bare gradient, has_aux extras are
always a tuple, ``value_and_grad`` returns ``((loss, *aux), grads)``, and
``return_ids`` pairs each gradient with its position or parameter name.
"""
from __future__ import annotations

import functools
import weakref

import numpy as np

from .._core import primitive as P
from .._core.aval import ShapedArray
from .._prims.array import cast_p, full_p
from .._prims.special import identity_p
from . import tape as T
from .backward import backward, current_listener

__all__ = ["grad", "value_and_grad", "GradOperation", "vjp", "jvp", "jacrev", "jacfwd",
           "get_grad"]


# --------------------------------------------------------------------------- helpers
def _is_tensor(x):
    return isinstance(x, P._Tensor)


def _ones_like(t):
    return _filled_like(t, 1)


def _zeros_like(t):
    return _filled_like(t, 0)


def _filled_like(t, value):
    """A new tensor of ``t``'s shape and dtype filled with ``value``; a ``Fill`` node while a
    graph is captured (the seeds and zero gradients of a compiled grad)."""
    arr = t._data
    if type(arr) is np.ndarray:
        return P.wrap(np.zeros(arr.shape, arr.dtype) if value == 0
                      else np.full(arr.shape, value, arr.dtype))
    if P.active_capture() is not None or isinstance(arr, ShapedArray):
        # traced, or batched by vmap (one example's seed serves every example)
        return full_p(shape=tuple(arr.shape), dtype=arr.dtype, value=value)
    from .._core import backend as B
    xp = B.of_array(arr).xp
    return P.wrap(xp.full(arr.shape, value, arr.dtype))


def _normalize_positions(grad_position, nargs):
    if grad_position is None:
        return None, False
    if isinstance(grad_position, bool) or not isinstance(grad_position, (int, tuple, list)):
        raise TypeError(f"For 'grad', the 'grad_position' must be int, tuple of int or None, "
                        f"but got {type(grad_position).__name__}.")
    single = isinstance(grad_position, int)
    positions = (grad_position,) if single else tuple(grad_position)
    if not positions:
        raise ValueError("For 'grad', the 'grad_position' must not be an empty tuple.")
    for p in positions:
        if not isinstance(p, int) or isinstance(p, bool):
            raise TypeError(f"For 'grad', every element of 'grad_position' must be int, got {p!r}.")
        if p < 0 or p >= nargs:
            raise RuntimeError(f"Position index {p} is exceed input size.")
    return positions, single or len(positions) == 1


def _normalize_weights(weights):
    """-> (list of Parameters, single?)"""
    if weights is None:
        return None, False
    from .._parameter import Parameter
    if isinstance(weights, Parameter):
        return [weights], True
    if isinstance(weights, dict) or not isinstance(weights, (list, tuple)):
        raise TypeError(f"The weights you provided is expected to be a tensor, or a list or "
                        f"tuple. but got {weights!r}")
    try:
        ws = list(weights)
    except TypeError:
        raise TypeError(f"For 'grad', the 'weights' must be a Parameter, list or tuple of "
                        f"Parameters, but got {type(weights).__name__}.") from None
    for w in ws:
        if not _is_tensor(w):
            raise TypeError(f"For 'grad', every element of 'weights' must be a Parameter, "
                            f"but got {type(w).__name__}.")
    return ws, False


def _flatten_outputs(out):
    if _is_tensor(out):
        return [out]
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_flatten_outputs(o))
        return flat
    return []


def _cast_to(g, like):
    if g._data.dtype != like._data.dtype:
        return cast_p(g, dtype=like._data.dtype)
    return g


class _Run:
    """One differentiated call: the tape, the sources' value ids and the output."""

    __slots__ = ("tape", "_pos_ids", "weight_ids", "call_args", "out")


def _run_forward(fn, args, positions, weights, by_object=True):
    """Run ``fn`` on a new tape with the differentiated inputs and weights watched.

    NOTE: [Sources are objects]
    ``grad``, ``value_and_grad``, ``GradOperation`` and ``vjp`` differentiate the
    tensor *object*, as MindSpore's PyNative (and PyTorch) do: a tensor passed at two
    positions, or passed and also used as a closure, a global or a weight, is one
    source whose gradient sums every use, and a Parameter with
    ``requires_grad=False`` gets zeros even when passed as an input. An outer tape
    keeps its own id on the same object, so grad of grad follows all uses too.
    MindSpore's ``jvp``, ``jacrev`` and ``jacfwd`` differentiate the argument only
    (a closure over the same tensor is a constant): ``by_object=False`` gives each
    position a distinct source, an identity of the argument.
    """
    run = _Run()
    run.tape = T.Tape()
    call_args = list(args)
    with T.recording(run.tape):
        if not by_object:
            for p in positions or ():
                _check_source(args, p)
                call_args[p] = identity_p(args[p])   # still connected to any outer tape
        run._pos_ids, run.weight_ids = _watch_sources(run.tape, call_args, positions, weights)
        run.call_args = call_args
        capture = P.active_capture()
        if capture is not None:          # inside a compiled function: source-converted
            fn = capture.converted(fn)
        run.out = fn(*call_args)
    return run


def _check_source(args, p):
    if not _is_tensor(args[p]):
        raise TypeError(f"For 'grad', the input at position {p} must be a Tensor to be "
                        f"differentiated, but got {type(args[p]).__name__}.")


def _watch_sources(tape, args, positions, weights):
    """Value ids of the differentiated inputs and weights, one per tensor object
    (None for a Parameter with ``requires_grad=False``)."""
    by_object = {}

    def watch(t):
        if not getattr(t, "requires_grad", True):
            return None
        vid = by_object.get(id(t))
        if vid is None:
            vid = by_object[id(t)] = tape.watch(t)
        return vid

    pos_ids = {}
    for p in positions or ():
        _check_source(args, p)
        pos_ids[p] = watch(args[p])
    return pos_ids, [watch(w) for w in weights or ()]


def _seeds(outputs, sens):
    flat = _flatten_outputs(outputs)
    if sens is None:
        return [(o, _ones_like(o)) for o in flat]
    sens_flat = _flatten_outputs(sens)
    if len(sens_flat) != len(flat):
        raise ValueError(f"For 'grad', the sens must match the outputs: got {len(sens_flat)} "
                         f"sens tensors for {len(flat)} outputs.")
    return [(o, _cast_to(s, o)) for o, s in zip(flat, sens_flat)]


def _assemble(pos_grads, w_grads, positions, pos_single, weights, w_single, return_ids):
    if return_ids:
        pos_grads = [(p, g) for p, g in zip(positions or (), pos_grads)]
        w_grads = [(w.name, g) for w, g in zip(weights or (), w_grads)]
    pos_part = None
    if positions is not None:
        pos_part = pos_grads[0] if pos_single else tuple(pos_grads)
        if return_ids and pos_single and positions[0] != 0:
            pos_part = (pos_part,)     # MindSpore 2.10: ((1, g),), but (0, g) for position 0
    w_part = None
    if weights is not None:
        w_part = w_grads[0] if w_single else tuple(w_grads)
    if positions is None:
        return w_part
    if weights is None:
        return pos_part
    return (pos_part, w_part)


def _differentiate(fn, args, grad_position, weights, has_aux, return_ids, sens_param,
                   with_value):
    if grad_position is None and weights is None:
        raise ValueError("`grad_position` and `weight` can not be None at the same time.")
    sens = None
    if sens_param:
        if not args:
            raise ValueError("For 'grad' with sens_param=True, the last input must be the sens.")
        args, sens = args[:-1], args[-1]
    positions, pos_single = _normalize_positions(grad_position, len(args))
    if positions is not None:
        # MindSpore silently skips inputs that are not tensors (e.g. Python floats)
        tensor_positions = tuple(p for p in positions if _is_tensor(args[p]))
        if tensor_positions != positions:
            positions = tensor_positions or None
            pos_single = len(tensor_positions) == 1
            if positions is None and weights is None:
                return ((), ()) if has_aux else ()
    ws, w_single = _normalize_weights(weights)
    run = _run_forward(fn, args, positions, ws)
    out = run.out
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise ValueError("When has_aux is True, origin fn requires more than one outputs.")
        loss, aux = out[0], tuple(out[1:])
        seeds = _seeds(loss, sens)
    else:
        loss, aux = out, None
        seeds = _seeds(out, sens)
    pos_grads, w_grads = _gradients(run, seeds, positions, ws)
    grads = _assemble(pos_grads, w_grads, positions, pos_single, ws, w_single, return_ids)
    if with_value:
        value = (loss,) + aux if has_aux else out
        return value, grads
    if has_aux:
        return grads, aux
    return grads


def _gradients(run, seeds_for, positions, weights):
    try:
        return _gradients_keep(run, seeds_for, positions, weights)
    finally:
        run.tape.release()


# --------------------------------------------------------------------------- public API
def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False, sens_param=False):
    """Gradient of ``fn`` with respect to inputs (``grad_position``) and/or ``weights``.

    Returns a function with ``fn``'s signature (plus a trailing ``sens`` if
    ``sens_param``) that returns the gradients in MindSpore's structure.

    Examples:
        >>> import spore as ms
        >>> from spore import ops
        >>> ops.grad(lambda x: (x * x).sum())(ms.Tensor([1.0, 2.0]))
        Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """
    @functools.wraps(fn if callable(fn) and hasattr(fn, "__name__") else _anon)
    def grad_fn(*args):
        return _differentiate(fn, args, grad_position, weights, has_aux, return_ids, sens_param,
                              with_value=False)
    return grad_fn


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False,
                   sens_param=False):
    """Like :func:`grad`, but returns ``(value, grads)`` (``((loss, *aux), grads)`` with aux)."""
    @functools.wraps(fn if callable(fn) and hasattr(fn, "__name__") else _anon)
    def value_and_grad_fn(*args):
        return _differentiate(fn, args, grad_position, weights, has_aux, return_ids, sens_param,
                              with_value=True)
    return value_and_grad_fn


def _anon(*args):
    pass


class GradOperation:
    """The legacy higher-order gradient: ``GradOperation(get_all, get_by_list, sens_param)``.

    ``GradOperation()(fn)(x, y)`` is the gradient of the first input;
    ``get_all=True`` gives all inputs' gradients as a tuple; ``get_by_list=True``
    is called as ``grad_op(fn, weights)`` and gives the weights' gradients.
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise TypeError("For 'GradOperation' with get_by_list=True, the weights must be given: "
                            "grad_op(fn, weights).")

        def grad_fn(*args):
            nargs = len(args) - (1 if self.sens_param else 0)
            if self.get_all:
                positions = tuple(range(nargs)) if nargs else None
            else:
                positions = 0 if nargs else None
            ws = weights if self.get_by_list else None
            if positions is None and ws is None:
                return ()
            pos_arg = positions
            res = _differentiate(fn, args, pos_arg, ws, False, False, self.sens_param,
                                 with_value=False)
            if self.get_all and positions is not None and len(positions) == 1:
                # get_all always gives a tuple, even for one input
                if ws is None:
                    return (res,)
                return ((res[0],), res[1])
            if self.get_by_list and not self.get_all and ws is not None:
                # get_by_list alone: only the weights' gradients
                return res[1] if positions is not None else res
            return res
        return grad_fn


# --------------------------------------------------------------------------- vjp / jvp / jacobians
def vjp(fn, *inputs, weights=None, has_aux=False):
    """``(outputs, vjp_fn)`` (``(outputs, vjp_fn, aux)`` with has_aux); ``vjp_fn(v)`` gives
    the input cotangents as a tuple (also for a single input)."""
    positions = tuple(range(len(inputs)))
    ws, _ = _normalize_weights(weights)
    run = _run_forward(fn, inputs, positions, ws)
    out = run.out
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise ValueError("When has_aux is True, origin fn requires more than one outputs.")
        out, aux = out[0], out[1:]
        aux = aux[0] if len(aux) == 1 else tuple(aux)

    def vjp_fn(*v):
        sens = v[0] if len(v) == 1 else v
        seeds = _seeds(out, sens)
        pos_grads, w_grads = _gradients_keep(run, seeds, positions, ws)
        res = tuple(pos_grads)          # a tuple even for one input, as MindSpore
        if ws is not None:
            return res, tuple(w_grads)
        return res

    # the arguments and weights keep this tape's value ids until vjp_fn is gone
    weakref.finalize(vjp_fn, run.tape.release)
    if has_aux:
        return out, vjp_fn, aux
    return out, vjp_fn


def _gradients_keep(run, seeds_for, positions, weights):
    """The gradients of the sources, leaving the tape usable for further vjp calls."""
    tape = run.tape
    seeds = {}
    for o, g in seeds_for:
        vid = tape.id_of(o)
        if vid is not None:
            seeds[vid] = g if vid not in seeds else seeds[vid] + g
    listener = current_listener() if weights else None
    if listener is None or not listener.accepts(weights):
        ct = backward(tape.records, seeds)
    else:                               # NOTE: [Gradient-ready hooks] in backward.py
        def ready(k, g):
            w = weights[k]
            listener(k, _cast_to(g, w) if g is not None else _zeros_like(w))
        ct = backward(tape.records, seeds, ready=(run.weight_ids, ready))
    pos_grads = [_grad_or_zeros(ct, run._pos_ids[p], run.call_args[p]) for p in positions or ()]
    w_grads = [_grad_or_zeros(ct, vid, w) for w, vid in zip(weights or (), run.weight_ids)]
    return pos_grads, w_grads


def _grad_or_zeros(ct, vid, like):
    g = ct.get(vid) if vid is not None else None
    return _cast_to(g, like) if g is not None else _zeros_like(like)


def jvp(fn, inputs, v, has_aux=False):
    """Forward-mode product ``(outputs, J v)``, derived by transposing the vjp (double vjp)."""
    from .._prims.math import mul_p
    from .._prims.reduce import sum_p
    single_in = _is_tensor(inputs)
    ins = (inputs,) if single_in else tuple(inputs)
    vs = (v,) if _is_tensor(v) else tuple(v)
    if len(vs) != len(ins):
        raise ValueError(f"For 'jvp', 'v' must match 'inputs': got {len(vs)} tangents for "
                         f"{len(ins)} inputs.")
    positions = tuple(range(len(ins)))
    run = _run_forward(fn, ins, positions, None, by_object=False)
    out = run.out
    aux = None
    if has_aux:
        out, aux = out[0], out[1:]
        aux = aux[0] if len(aux) == 1 else tuple(aux)
    flat_out = _flatten_outputs(out)
    outer = T.Tape()
    try:
        with T.recording(outer):
            us = []
            for o in flat_out:
                u = _zeros_like(o)
                outer.watch(u)
                us.append(u)
            seeds = {}
            for o, u in zip(flat_out, us):
                vid = run.tape.id_of(o)
                if vid is not None:
                    seeds[vid] = u
            ct = backward(run.tape.records, seeds)
            total = None
            for p, t in zip(positions, vs):
                g = ct.get(run._pos_ids[p])
                if g is None:
                    continue
                term = sum_p(mul_p(g, _cast_to(t, g) if _is_tensor(t) else t), axis=None,
                             keepdims=False)
                total = term if total is None else total + term
        if total is None:
            tangents = [_zeros_like(o) for o in flat_out]
        else:
            ct2 = backward(outer.records, {outer.id_of(total): _ones_like(total)})
            tangents = [_cast_to(ct2[outer.id_of(u)], o) if outer.id_of(u) in ct2
                        else _zeros_like(o) for u, o in zip(us, flat_out)]
    finally:
        outer.release()
        run.tape.release()
    jv = tangents[0] if _is_tensor(out) else _restructure(out, iter(tangents))
    if has_aux:
        return out, jv, aux
    return out, jv


def _stack(tensors, axis=0):
    """Equal-shaped tensors joined along a new axis (primitives only: this layer sits
    below ``spore.ops``)."""
    from .._prims.array import concat_p, reshape_p
    shape = tuple(tensors[0].shape)
    a = axis % (len(shape) + 1)
    new = shape[:a] + (1,) + shape[a:]
    return concat_p(*[reshape_p(t, shape=new) for t in tensors], axis=a)


def _restructure(template, it):
    if _is_tensor(template):
        return next(it)
    if isinstance(template, (tuple, list)):
        return type(template)(_restructure(t, it) for t in template)
    return template


def _basis(t, k):
    arr = np.zeros(t._data.size, t._data.dtype)
    arr[k] = 1
    return P.wrap(arr.reshape(t._data.shape))


def jacrev(fn, grad_position=0, has_aux=False):
    """Jacobian by reverse mode: ``out.shape + input.shape`` per differentiated input."""
    from .._prims.array import reshape_p

    def jac_fn(*args):
        positions, single = _normalize_positions(grad_position, len(args))
        run = _run_forward(fn, args, positions, None, by_object=False)
        out = run.out
        aux = None
        if has_aux:
            out, aux = out[0], out[1:]
        rows = {p: [] for p in positions}
        try:
            for k in range(max(out._data.size, 1) if out._data.size else 0):
                pos_grads, _ = _gradients_keep(run, [(out, _basis(out, k))], positions, None)
                for p, g in zip(positions, pos_grads):
                    rows[p].append(g)
        finally:
            run.tape.release()
        jacs = []
        for p in positions:
            a = args[p]
            if rows[p]:
                j = reshape_p(_stack(rows[p], 0), shape=tuple(out.shape) + tuple(a.shape))
            else:
                j = P.wrap(np.zeros(tuple(out.shape) + tuple(a.shape), a._data.dtype))
            jacs.append(j)
        res = jacs[0] if single else tuple(jacs)
        if has_aux:
            return res, (aux[0] if len(aux) == 1 else tuple(aux))
        return res
    return jac_fn


def jacfwd(fn, grad_position=0, has_aux=False):
    """Jacobian by forward mode (one jvp per input element)."""
    from .._prims.array import reshape_p, transpose_p

    def jac_fn(*args):
        positions, single = _normalize_positions(grad_position, len(args))
        jacs = []
        aux = None
        for p in positions:
            a = args[p]
            cols = []
            out = None

            def f_p(x, p=p):
                call = list(args)
                call[p] = x
                return fn(*call)
            for k in range(a._data.size):
                res = jvp(f_p, a, _basis(a, k), has_aux=has_aux)
                out, t = res[0], res[1]
                if has_aux:
                    aux = res[2]
                cols.append(t)
            if out is None:
                out = f_p(a)[0] if has_aux else f_p(a)
            if cols:
                j = _stack(cols, -1)     # out.shape + (n,)
                j = reshape_p(j, shape=tuple(out.shape) + tuple(a.shape))
            else:
                j = P.wrap(np.zeros(tuple(out.shape) + tuple(a.shape), a._data.dtype))
            jacs.append(j)
        res = jacs[0] if single else tuple(jacs)
        if has_aux:
            return res, aux
        return res
    return jac_fn


def get_grad(gradients, identifier):
    """Pick one gradient out of a ``return_ids=True`` result by its position (int) or its
    Parameter (or parameter name)."""
    key = identifier.name if hasattr(identifier, "name") and not isinstance(identifier, int) \
        else identifier
    found = _find_grad(gradients, key)
    if found is _MISSING:
        raise RuntimeError(f"Can not find the gradient for identifier {key!r} in the given "
                           "gradients; they must come from grad(..., return_ids=True).")
    return found


_MISSING = object()


def _find_grad(tree, key):
    if isinstance(tree, tuple):
        if len(tree) == 2 and isinstance(tree[0], (int, str)) and _is_tensor(tree[1]):
            return tree[1] if tree[0] == key and type(tree[0]) is type(key) else _MISSING
        for item in tree:
            found = _find_grad(item, key)
            if found is not _MISSING:
                return found
    return _MISSING


P.composite_vjp = vjp          # second-order rules of composite gradients (primitive.py)
