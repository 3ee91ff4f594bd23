"""Shared checks for the nn layer tests: gradients of a cell's output w.r.t. its inputs and
its parameters against central finite differences (everything in float64)."""
from __future__ import annotations

import numpy as np

import spore as ms
from spore import Tensor


def _outputs(out):
    if isinstance(out, (tuple, list)):
        flat = []
        for o in out:
            flat.extend(_outputs(o))
        return flat
    return [out] if isinstance(out, Tensor) and out.dtype.is_floating_point else []


def _weighted_loss(fn, weights):
    def loss(*args):
        outs = _outputs(fn(*args))
        total = None
        for o, w in zip(outs, weights):
            term = (o * Tensor(w)).sum()
            total = term if total is None else total + term
        return total
    return loss


def _numeric(f, arr, eps):
    g = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):
        orig = arr[i]
        arr[i] = orig + eps
        fp = f()
        arr[i] = orig - eps
        fm = f()
        arr[i] = orig
        g[i] = (fp - fm) / (2 * eps)
    return g


def check_grads(fn, arrays, params=(), rtol=1e-5, atol=1e-7, eps=1e-6, seed=0):
    """``ms.grad`` of sum(w · fn(*arrays)) (random w) w.r.t. every float64 array and every
    parameter in ``params`` must match central differences."""
    arrays = [np.array(a) if isinstance(a, np.ndarray) else a for a in arrays]
    positions = tuple(i for i, a in enumerate(arrays)
                      if isinstance(a, np.ndarray) and a.dtype == np.float64)
    to_t = lambda arrs: [Tensor(a) if isinstance(a, np.ndarray) else a for a in arrs]  # noqa
    rng = np.random.default_rng(seed)
    weights = [rng.uniform(0.5, 1.5, o.shape) for o in _outputs(fn(*to_t(arrays)))]
    loss = _weighted_loss(fn, weights)
    params = list(params)
    got = ms.grad(loss, grad_position=positions or None, weights=params or None)(*to_t(arrays))
    if positions and params:
        got_x, got_p = got
    elif positions:
        got_x, got_p = got, ()
    else:
        got_x, got_p = (), got
    if positions and len(positions) == 1:
        got_x = (got_x,)
    if params and len(params) == 1 and not isinstance(got_p, tuple):
        got_p = (got_p,)

    def value():
        return float(loss(*to_t(arrays)).asnumpy())

    for pos, g in zip(positions, got_x):
        want = _numeric(value, arrays[pos], eps)
        np.testing.assert_allclose(g.asnumpy(), want, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of input {pos}")
    for p, g in zip(params, got_p):
        data = p.asnumpy().copy()

        def value_p():
            p.set_data(Tensor(data))
            return value()

        want = _numeric(value_p, data, eps)
        p.set_data(Tensor(data))
        np.testing.assert_allclose(g.asnumpy(), want, rtol=rtol, atol=atol,
                                   err_msg=f"gradient of parameter {p.name}")
