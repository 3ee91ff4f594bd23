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


def _loop_error(e, op="WhileLoop"):
    return ValueError(f"For '{op}', Invalid loop_func, please check input arguments and "
                      f"return value, error info: {e}")


def _check_callable(op, name, fn):
    if not callable(fn):
        raise TypeError(f"For '{op}', the '{name}' must be callable, but got "
                        f"{type(fn).__name__}.")


def _check_bound(op, name, value):
    if isinstance(value, P._Tensor):
        if value.dtype.is_floating_point or value.ndim != 0 and value.size != 1:
            raise TypeError(f"For '{op}', the '{name}' must be an int or a one-element int "
                            f"tensor, but got a {value.dtype} tensor of shape {value.shape}.")
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{op}', the '{name}' must be an int or a one-element int tensor, "
                        f"but got {type(value).__name__}.")


def _as_state(value):
    """A list or tuple of Python numbers becomes a Tensor (MindSpore's loop primitives do)."""
    from .._tensor import Tensor
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, (bool, int, float)) for v in value):
        return Tensor(list(value))
    return value


def _flatten(value):
    if isinstance(value, (tuple, list)):
        flat, trees = [], []
        for v in value:
            f, t = _flatten(v)
            flat += f
            trees.append(t)
        return flat, (type(value), tuple(trees))
    return [value], None


def _unflatten(tree, flat):
    it = iter(flat)

    def build(t):
        if t is None:
            return next(it)
        return t[0](build(c) for c in t[1])
    return build(tree)


def _while(cond_func, loop_func, val, where):
    """``while cond_func(val): val = loop_func(val)``: a ``While`` node once the test is
    a traced tensor inside a compiled function, Python's loop otherwise."""
    capture = P.active_capture()
    while True:
        try:
            test = cond_func(val)
        except Exception as e:
            if capture is not None:
                raise                   # a trace's own errors keep their meaning
            raise ValueError(f"For 'WhileLoop', invalid cond_func, error info: {e}") from e
        if capture is not None and isinstance(test, P._Tensor):
            flat, tree = _flatten(val)

            def test_flat(*f):
                return cond_func(_unflatten(tree, f))

            def body_flat(*f):
                out = _flatten(loop_func(_unflatten(tree, f)))[0]
                return tuple(out)
            names = tuple(f"state[{i}]" for i in range(len(flat)))
            return _unflatten(tree, capture.while_loop(test_flat, body_flat, tuple(flat), names,
                                                       where))
        if not test:
            return val
        try:
            val = loop_func(val)
        except Exception as e:
            if capture is not None:
                raise
            raise _loop_error(e) from e


class WhileLoop:
    """``WhileLoop()(cond_func, loop_func, init_val)``: repeat ``loop_func`` while
    ``cond_func`` holds; compiled as one loop when the test is a tensor."""

    def __call__(self, cond_func, loop_func, init_val):
        _check_callable("WhileLoop", "cond_func", cond_func)
        _check_callable("WhileLoop", "loop_func", loop_func)
        return _while(cond_func, loop_func, _as_state(init_val), "in ops.WhileLoop ")


class ForiLoop:
    """``ForiLoop()(lower, upper, loop_func, init_val, unroll=True)``: ``val =
    loop_func(i, val)`` for ``i`` in ``[lower, upper)``; a compiled loop when a bound is
    a traced tensor."""

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        _check_bound("ForiLoop", "lower", lower)
        _check_bound("ForiLoop", "upper", upper)
        _check_callable("ForiLoop", "loop_func", loop_func)
        val = _as_state(init_val)
        capture = P.active_capture()
        if capture is None or not any(isinstance(b, P._Tensor) for b in (lower, upper)):
            lo = int(lower) if isinstance(lower, P._Tensor) else lower
            hi = int(upper) if isinstance(upper, P._Tensor) else upper
            for i in range(lo, hi):
                try:
                    val = loop_func(i, val)
                except Exception as e:
                    raise _loop_error(e, "ForiLoop") from e
            return val
        from .._tensor import Tensor
        from .. import _dtype
        i0 = lower if isinstance(lower, P._Tensor) else Tensor(lower, _dtype.int64)
        state = (i0, val)
        out = _while(lambda s: s[0] < upper, lambda s: (s[0] + 1, loop_func(s[0], s[1])),
                     state, "in ops.ForiLoop ")
        return out[1]


class Scan:
    """``Scan()(loop_func, init, xs, length=None, unroll=True)``: ``carry, y =
    loop_func(carry, x)`` over ``xs`` (or ``length`` times with ``x=None``); returns
    ``(carry, [ys])``."""

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        _check_callable("Scan", "loop_func", loop_func)
        if xs is None:
            if isinstance(length, bool) or not isinstance(length, int) or length < 0:
                raise TypeError(f"For 'Scan', the 'length' must be a non-negative int when "
                                f"'xs' is None, but got {length!r}.")
            items = [None] * length
        elif isinstance(xs, (list, tuple)) or (isinstance(xs, P._Tensor) and xs.ndim > 0):
            items = list(xs)
        else:
            raise TypeError(f"For 'Scan', the 'xs' must be a list, a tuple, a tensor of at "
                            f"least one dimension or None, but got {type(xs).__name__}.")
        carry, ys = init, []
        for x in items:
            try:
                carry, y = loop_func(carry, x)
            except Exception as e:
                raise _loop_error(e, "Scan") from e
            ys.append(y)
        return carry, ys
