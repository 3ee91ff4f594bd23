"""The optimizer-update primitives of ``mindspore.ops`` beyond the fused hot ones of
``nn/optim/_updates.py``: Adagrad and its variants, AdaMax, Adadelta, AMSGrad, AddSign,
PowerSign, FTRL, proximal descent, Keras momentum, and the sparse (row-indexed) forms.

NOTE: [Update primitives]
Each update is one pure step function ``step(xp, values) -> {state name: new array}`` over
named NumPy arrays (state, gradient and hyper-parameters, the scalars already in the
variable's dtype). ``dense_update`` makes a primitive of it whose kernel writes the new
state into the input buffers (``Primitive(writes=...)``: graph capture sees the writes,
eager calls return the first written input). ``sparse_update`` runs the same step on the
rows of the state that ``indices`` selects (duplicate indices first summed, as MindSpore's
CPU kernels do) and scatters the rows back. The formulas are MindSpore 2.10's documented
ones; docs/compatibility.md lists where its CPU kernels differ from their own docs.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._core import primitive as P
from .._core.aval import ShapedArray
from .._core import threads
from .._native import jit
from . import vecmath
from .nn._common import validated

__all__ = ["dense_update", "sparse_update", "UPDATES"]

UPDATES = {}          # name -> primitive, for the op classes and the docs


def _check_float_state(name, arg, x):
    if not D.dtype_of(x.dtype).is_floating_point:
        raise TypeError(f"For '{name}', the '{arg}' must be a floating-point Tensor, but got "
                        f"{np.dtype(x.dtype)}.")


def _check_scalar(name, arg, x):
    shape = tuple(getattr(x, "shape", ()))
    if shape not in ((), (1,)):
        raise ValueError(f"For '{name}', the '{arg}' must be a scalar, but got shape "
                         f"{list(shape)}.")


def _check_like(name, arg, x, want, what="'var'"):
    if tuple(x.shape) != tuple(want):
        raise ValueError(f"For '{name}', the shape of '{arg}' must be the same as the shape "
                         f"of {what} {list(want)}, but got {list(x.shape)}.")


def _infer(name, args, state, scalars, sparse, out):
    """The shape/dtype rule: state like ``var``, ``grad`` like ``var`` (or its rows when
    sparse), hyper-parameters scalars; the result is ``var``'s aval (or ``out``'s)."""
    def infer(attrs, *avals):
        vals = dict(zip(args, avals))
        var = vals[state[0]]
        for arg in state:
            _check_float_state(name, arg, vals[arg])
            _check_like(name, arg, vals[arg], var.shape, f"'{state[0]}'")
        for arg in scalars:
            if arg in vals:
                _check_scalar(name, arg, vals[arg])
        grad = vals.get("grad")
        if sparse:
            idx = vals["indices"]
            if np.dtype(idx.dtype).kind not in "iu" or len(idx.shape) != 1:
                raise TypeError(f"For '{name}', the 'indices' must be a 1-D integer Tensor, but "
                                f"got {np.dtype(idx.dtype)} of shape {list(idx.shape)}.")
            if not grad.shape or grad.shape[0] != idx.shape[0] or \
                    tuple(grad.shape[1:]) != tuple(var.shape[1:]):
                raise ValueError(f"For '{name}', the 'grad' must have shape "
                                 f"{[idx.shape[0]] + list(var.shape[1:])} (one row per index), "
                                 f"but got {list(grad.shape)}.")
        elif grad is not None:
            _check_like(name, "grad", grad, var.shape)
        ref = vals[out] if out else var
        return ShapedArray(tuple(ref.shape), ref.dtype)
    return infer


def _as_dtype(xp, values, names, dtype):
    for n in names:
        if n in values:
            values[n] = xp.asarray(values[n], dtype=dtype).reshape(())


def dense_update(name, args, state, scalars, step, *, doc, returns=None):
    """A primitive ``name(*args; attrs)`` applying ``step`` in place to ``state`` (the
    input names it writes, the first being the returned one unless ``returns`` names a
    fresh output computed by ``step`` under that key)."""
    def make(xp):
        def kernel(*arrays, **attrs):
            values = dict(zip(args, arrays))
            dtype = values[state[0]].dtype
            _as_dtype(xp, values, scalars, dtype)
            new = step(xp, values, **attrs)
            for s in state:
                if s in new:
                    xp.copyto(values[s], new[s], casting="unsafe")
            return new[returns] if returns else values[state[0]]
        return kernel

    return _register(name, make, args, state, scalars, False, doc, not returns)


def sparse_update(name, args, state, scalars, step, *, doc, lazy=True):
    """The row-sparse form of ``step``: ``grad`` holds one row per entry of ``indices``.
    ``lazy`` updates only those rows; otherwise (``FusedSparseAdam``) every row steps, the
    others with a zero gradient."""
    def make(xp):
        def kernel(*arrays, **attrs):
            values = dict(zip(args, arrays))
            dtype = values[state[0]].dtype
            _as_dtype(xp, values, scalars, dtype)
            indices = xp.asarray(values.pop("indices")).astype(np.int64)
            n = values[state[0]].shape[0]
            if indices.size and (indices.min() < -n or indices.max() >= n):
                raise ValueError(f"For '{name}', the 'indices' must be in [{-n}, {n}), but got "
                                 f"values from {int(indices.min())} to {int(indices.max())}.")
            indices = indices % n if n else indices
            rows, inverse = xp.unique(indices, return_inverse=True)
            grad = xp.zeros((len(rows),) + values["grad"].shape[1:], dtype)
            xp.add.at(grad, inverse.reshape(-1), values["grad"].astype(dtype, copy=False))
            if not lazy:
                full = xp.zeros_like(values[state[0]])
                full[rows] = grad
                rows, grad = slice(None), full
            sub = {k: (v[rows] if k in state else v) for k, v in values.items()}
            sub["grad"] = grad
            new = step(xp, sub, **attrs)
            for s in state:
                if s in new:
                    values[s][rows] = new[s]
            return values[state[0]]
        return kernel

    return _register(name, make, args, state, scalars, True, doc, True)


def _register(name, make, args, state, scalars, sparse, doc, returns_var):
    """The state-effect primitive of an update kernel factory (its inputs checked first)."""
    infer = _infer(name, args, state, scalars, sparse, state[0])
    prim = P.Primitive(name, validated(make, infer), kind="opaque", effect="state",
                       nondiff=True, n_inputs=len(args), infer=infer,
                       writes=tuple(args.index(s) for s in state), doc=doc)
    if returns_var:
        prim.returns_written_input()
    UPDATES[name] = prim
    return prim


# ----------------------------------------------------------------- step functions
def _one(v):
    return v.dtype.type(1)


def _adagrad(xp, s, update_slots=True, epsilon=None):
    accum = s["accum"] + s["grad"] * s["grad"] if update_slots else s["accum"]
    denom = xp.sqrt(accum)
    if epsilon is not None:
        denom = denom + s["var"].dtype.type(epsilon)
    return {"var": s["var"] - s["lr"] * s["grad"] / denom, "accum": accum}


def _adadelta(xp, s, epsilon=None):
    eps = s["epsilon"] if epsilon is None else s["var"].dtype.type(epsilon)
    rho, g = s["rho"], s["grad"]
    accum = rho * s["accum"] + (_one(rho) - rho) * g * g
    update = xp.sqrt(s["accum_update"] + eps) / xp.sqrt(accum + eps) * g
    accum_update = rho * s["accum_update"] + (_one(rho) - rho) * update * update
    return {"var": s["var"] - s["lr"] * update, "accum": accum, "accum_update": accum_update}


def _adamax(xp, s):
    b1, g = s["beta1"], s["grad"]
    m = b1 * s["m"] + (_one(b1) - b1) * g
    v = xp.maximum(s["beta2"] * s["v"], xp.abs(g))
    var = s["var"] - s["lr"] / (_one(b1) - s["beta1_power"]) * (m / (v + s["epsilon"]))
    return {"var": var, "m": m, "v": v}


def _adagrad_da(xp, s):
    ga = s["gradient_accumulator"] + s["grad"]
    gsq = s["gradient_squared_accumulator"] + s["grad"] * s["grad"]
    step = xp.asarray(s["global_step"]).astype(s["var"].dtype)
    l1, l2, lr = s["l1"], s["l2"], s["lr"]
    shrunk = xp.sign(ga) * xp.maximum(xp.abs(ga) - l1 * step, 0) if l1 > 0 else ga
    var = -shrunk * lr / (l2 * step * lr + xp.sqrt(gsq))
    return {"var": var, "gradient_accumulator": ga, "gradient_squared_accumulator": gsq}


def _amsgrad(xp, s, beta1=None, beta2=None, epsilon=None):
    dt = s["var"].dtype.type
    b1 = s["beta1"] if beta1 is None else dt(beta1)
    b2 = s["beta2"] if beta2 is None else dt(beta2)
    eps = s["epsilon"] if epsilon is None else dt(epsilon)
    g, one = s["grad"], dt(1)
    m = b1 * s["m"] + (one - b1) * g
    v = b2 * s["v"] + (one - b2) * g * g
    vhat = xp.maximum(s["vhat"], v)
    lr_t = s["lr"] * xp.sqrt(one - s["beta2_power"]) / (one - s["beta1_power"])
    return {"var": s["var"] - lr_t * m / (xp.sqrt(vhat) + eps), "m": m, "v": v, "vhat": vhat}


def _sign_step(xp, s, power):
    beta, g = s["beta"], s["grad"]
    m = beta * s["m"] + (_one(beta) - beta) * g
    agree = xp.sign(g) * xp.sign(m) * s["sign_decay"]
    scale = xp.exp(s["logbase"] * agree) if power else s["alpha"] + agree
    return {"var": s["var"] - s["lr"] * scale * g, "m": m}


def _ftrl(xp, s, lr=None, l1=None, l2=None, lr_power=None, l2_shrinkage=None):
    dt = s["var"].dtype.type
    lr = s["lr"] if lr is None else dt(lr)
    l1 = s["l1"] if l1 is None else dt(l1)
    l2 = s["l2"] if l2 is None else dt(l2)
    lr_power = s["lr_power"] if lr_power is None else dt(lr_power)
    var, g = s["var"], s["grad"]
    accum = s["accum"] + g * g
    g_shrunk = g + dt(2) * dt(l2_shrinkage) * var if l2_shrinkage else g
    sigma = (xp.power(accum, -lr_power) - xp.power(s["accum"], -lr_power)) / lr
    linear = s["linear"] + g_shrunk - sigma * var
    quadratic = xp.power(accum, -lr_power) / lr + dt(2) * l2
    new_var = xp.where(xp.abs(linear) > l1, (xp.sign(linear) * l1 - linear) / quadratic, dt(0))
    return {"var": new_var.astype(var.dtype, copy=False), "accum": accum, "linear": linear}


def _prox(xp, prox, lr, l1, l2):
    one = prox.dtype.type(1)
    return xp.sign(prox) / (one + lr * l2) * xp.maximum(xp.abs(prox) - lr * l1,
                                                          prox.dtype.type(0))


def _proximal_adagrad(xp, s):
    """The proximal map scales with the per-element Adagrad rate ``lr / sqrt(accum)``."""
    accum = s["accum"] + s["grad"] * s["grad"]
    lr = s["lr"] / xp.sqrt(accum)
    prox = s["var"] - lr * s["grad"]
    return {"var": _prox(xp, prox, lr, s["l1"], s["l2"]), "accum": accum}


def _rms_prop(xp, s, rho, momentum, epsilon):
    dt = s["var"].dtype.type
    rho, momentum, epsilon = dt(rho), dt(momentum), dt(epsilon)
    g = s["grad"]
    ms = rho * s["ms"] + (dt(1) - rho) * g * g
    mom = momentum * s["mom"] + s["lr"] * g / xp.sqrt(ms + epsilon)
    return {"var": s["var"] - mom, "ms": ms, "mom": mom}


def _adam_rows(xp, s, use_nesterov=False):
    b1, b2, g = s["beta1"], s["beta2"], s["grad"]
    one = _one(b1)
    m = b1 * s["m"] + (one - b1) * g
    v = b2 * s["v"] + (one - b2) * g * g
    lr_t = s["lr"] * xp.sqrt(one - s["beta2_power"]) / (one - s["beta1_power"])
    num = m * b1 + (one - b1) * g if use_nesterov else m
    return {"var": s["var"] - lr_t * num / (xp.sqrt(v) + s["epsilon"]), "m": m, "v": v}


# ----------------------------------------------------------------- dense primitives
_LR = ("lr",)
apply_ada_max_p = dense_update(
    "ApplyAdaMax", ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"),
    ("var", "m", "v"), ("beta1_power", "lr", "beta1", "beta2", "epsilon"),
    lambda xp, s: _adamax(xp, s), doc="ApplyAdaMax: AdaMax step, in place.")
apply_adadelta_p = dense_update(
    "ApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
    ("var", "accum", "accum_update"), ("lr", "rho", "epsilon"),
    lambda xp, s: _adadelta(xp, s), doc="ApplyAdadelta: Adadelta step, in place.")
apply_adagrad_p = dense_update(
    "ApplyAdagrad", ("var", "accum", "lr", "grad"), ("var", "accum"), _LR, _adagrad,
    doc="ApplyAdagrad(var, accum, lr, grad; update_slots): Adagrad step, in place.")
apply_adagrad_v2_p = dense_update(
    "ApplyAdagradV2", ("var", "accum", "lr", "grad"), ("var", "accum"), _LR, _adagrad,
    doc="ApplyAdagradV2(var, accum, lr, grad; epsilon, update_slots): in place.")
apply_adagrad_da_p = dense_update(
    "ApplyAdagradDA", ("var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
                       "lr", "l1", "l2", "global_step"),
    ("var", "gradient_accumulator", "gradient_squared_accumulator"), ("lr", "l1", "l2"),
    lambda xp, s: _adagrad_da(xp, s), doc="ApplyAdagradDA: dual-averaging Adagrad, in place.")
apply_adam_with_amsgrad_p = dense_update(
    "ApplyAdamWithAmsgrad", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr", "grad"),
    ("var", "m", "v", "vhat"), ("beta1_power", "beta2_power", "lr"), _amsgrad,
    doc="ApplyAdamWithAmsgrad(...; beta1, beta2, epsilon): AMSGrad step, in place.")
apply_adam_with_amsgrad_v2_p = dense_update(
    "ApplyAdamWithAmsgradV2", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr",
                               "beta1", "beta2", "epsilon", "grad"),
    ("var", "m", "v", "vhat"),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"), _amsgrad,
    doc="ApplyAdamWithAmsgradV2: AMSGrad step with tensor betas, in place.")
apply_add_sign_p = dense_update(
    "ApplyAddSign", ("var", "m", "lr", "alpha", "sign_decay", "beta", "grad"), ("var", "m"),
    ("lr", "alpha", "sign_decay", "beta"), lambda xp, s: _sign_step(xp, s, False),
    doc="ApplyAddSign: AddSign step, in place.")
apply_power_sign_p = dense_update(
    "ApplyPowerSign", ("var", "m", "lr", "logbase", "sign_decay", "beta", "grad"), ("var", "m"),
    ("lr", "logbase", "sign_decay", "beta"), lambda xp, s: _sign_step(xp, s, True),
    doc="ApplyPowerSign: PowerSign step, in place.")
apply_ftrl_p = dense_update(
    "ApplyFtrl", ("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"),
    ("var", "accum", "linear"), ("lr", "l1", "l2", "lr_power"), lambda xp, s: _ftrl(xp, s),
    doc="ApplyFtrl: FTRL-proximal step, in place.")
apply_gradient_descent_p = dense_update(
    "ApplyGradientDescent", ("var", "alpha", "grad"), ("var",), ("alpha",),
    lambda xp, s: {"var": s["var"] - s["alpha"] * s["grad"]},
    doc="ApplyGradientDescent: var -= alpha * delta, in place.")
apply_keras_momentum_p = dense_update(
    "ApplyKerasMomentum", ("var", "accum", "lr", "grad", "momentum"), ("var", "accum"),
    ("lr", "momentum"),
    lambda xp, s, use_nesterov=False: _keras_momentum(s, use_nesterov),
    doc="ApplyKerasMomentum(...; use_nesterov): Keras-style momentum, in place.")
apply_proximal_adagrad_p = dense_update(
    "ApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad"), ("var", "accum"),
    ("lr", "l1", "l2"), lambda xp, s: _proximal_adagrad(xp, s),
    doc="ApplyProximalAdagrad: proximal Adagrad step, in place.")
apply_proximal_gradient_descent_p = dense_update(
    "ApplyProximalGradientDescent", ("var", "alpha", "l1", "l2", "grad"), ("var",),
    ("alpha", "l1", "l2"),
    lambda xp, s: {"var": _prox(xp, s["var"] - s["alpha"] * s["grad"], s["alpha"], s["l1"],
                                s["l2"])},
    doc="ApplyProximalGradientDescent: proximal gradient step, in place.")


def _keras_momentum(s, use_nesterov):
    accum = s["accum"] * s["momentum"] - s["lr"] * s["grad"]
    step = accum * s["momentum"] - s["lr"] * s["grad"] if use_nesterov else accum
    return {"var": s["var"] + step, "accum": accum}


def _adam_no_update(xp, s, use_nesterov=False):
    s = dict(s, var=xp.zeros_like(s["m"]))
    new = _adam_rows(xp, s, use_nesterov)
    new["update"] = new.pop("var")
    return new


adam_no_update_param_p = dense_update(
    "AdamNoUpdateParam", ("m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                          "epsilon", "grad"), ("m", "v"),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"), _adam_no_update,
    returns="update",
    doc="AdamNoUpdateParam: Adam's moments in place; returns the step to add to the weight.")


# ----------------------------------------------------------------- sparse primitives
sparse_apply_adagrad_p = sparse_update(
    "SparseApplyAdagrad", ("var", "accum", "grad", "indices"), ("var", "accum"), (),
    lambda xp, s, lr, update_slots=True, epsilon=None:
        _adagrad(xp, dict(s, lr=s["var"].dtype.type(lr)), update_slots, epsilon),
    doc="SparseApplyAdagrad(var, accum, grad, indices; lr, update_slots[, epsilon]).")
sparse_apply_adadelta_p = sparse_update(
    "SparseApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "grad", "indices"),
    ("var", "accum", "accum_update"), ("lr", "rho"), _adadelta,
    doc="SparseApplyAdadelta(...; epsilon): Adadelta on the indexed rows.")
sparse_apply_ftrl_p = sparse_update(
    "SparseApplyFtrl", ("var", "accum", "linear", "grad", "indices"), ("var", "accum", "linear"),
    (), _ftrl, doc="SparseApplyFtrl(...; lr, l1, l2, lr_power[, l2_shrinkage]).")
sparse_apply_proximal_adagrad_p = sparse_update(
    "SparseApplyProximalAdagrad", ("var", "accum", "lr", "l1", "l2", "grad", "indices"),
    ("var", "accum"), ("lr", "l1", "l2"), lambda xp, s: _proximal_adagrad(xp, s),
    doc="SparseApplyProximalAdagrad: proximal Adagrad on the indexed rows.")
sparse_apply_rms_prop_p = sparse_update(
    "SparseApplyRMSProp", ("var", "ms", "mom", "lr", "grad", "indices"), ("var", "ms", "mom"),
    ("lr",), _rms_prop, doc="SparseApplyRMSProp(...; rho, momentum, epsilon).")
_ADAM_ARGS = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
              "grad", "indices")
_ADAM_SCALARS = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")
fused_sparse_adam_p = sparse_update(
    "FusedSparseAdam", _ADAM_ARGS, ("var", "m", "v"), _ADAM_SCALARS, _adam_rows, lazy=False,
    doc="FusedSparseAdam: Adam over every row, the gradient given for the indexed ones.")
fused_sparse_lazy_adam_p = sparse_update(
    "FusedSparseLazyAdam", _ADAM_ARGS, ("var", "m", "v"), _ADAM_SCALARS, _adam_rows,
    doc="FusedSparseLazyAdam: Adam on the indexed rows only.")


# NOTE: [AdamWeightDecay in one pass]
# nn.AdamWeightDecay runs this primitive (as MindSpore 2.10's does, with decay 0.0 for
# the parameters it does not decay). Its float32 arithmetic follows MindSpore's CPU
# kernel, probed: its SIMD loop computes m and v with fused multiply-adds, ``m = fma(g -
# m, 1 - beta1, m)`` and ``v = fma(fma(g, g, -v), 1 - beta2, v)`` (Spore: the same bits),
# and the parameter step ``var - lr * (m / (sqrt(v) + eps) + decay * var)`` (Spore: in
# float64, rounded once, which gives MindSpore's bits for all but ~0.1% of elements and
# is 1 ulp from them there; MindSpore's exact rounding sequence was not found). A float32 fused multiply-add is the float64 product (exact for float32 factors)
# plus the addend, rounded to float32 (rounding twice differs from one rounding only when
# the float64 sum falls on a float32 half-way point: never in the probe's 10^5 elements).
# The NumPy kernel computes exactly these float64 operations array by array; with Numba,
# a float32 parameter of at least vecmath.MIN_FAST elements (contiguous, float32 state)
# runs them in one nogil loop, element by element, so both give the same bits, chunked
# on the pool from AWD_MIN_SPLIT elements. Other dtypes take MindSpore's scalar formula
# ``m += (g - m) * (1 - beta1)``, ``v += (g*g - v) * (1 - beta2)`` in their own precision.
@jit(signature="float32[::1], float32[::1], float32[::1], float32[::1], float64, float64, "
               "float64, float64, float64", nogil=True, dtypes=(np.dtype(np.float32),))
def adam_weight_decay_loop(var, m, v, grad, c1, c2, eps, decay, lr):
    """The float64 operations of ``_adam_weight_decay_f32`` element by element (c1 = 1 -
    beta1 and c2 = 1 - beta2 as float32 values, every scalar widened to float64)."""
    for i in range(var.size):
        g = grad[i]
        mi = np.float32(np.float64(g - m[i]) * c1 + np.float64(m[i]))
        gg = np.float32(np.float64(g) * np.float64(g) - np.float64(v[i]))
        vi = np.float32(np.float64(gg) * c2 + np.float64(v[i]))
        m[i] = mi
        v[i] = vi
        x = np.float64(var[i])
        var[i] = np.float32(x - lr * (np.float64(mi) / (np.sqrt(np.float64(vi)) + eps)
                                      + decay * x))


# Measured (2-vCPU AVX2 EPYC at load 10, interleaved medians): two chunks on the pool
# cost 1.1-1.6x one call below 256K elements and break even from there (the loop is
# compute-bound, float64 division and square root, so a quiet machine gains more).
AWD_MIN_SPLIT = 1 << 18


def fused_update(loop, arrays, scalars, min_split, chunk):
    """Run the in-place update ``loop(*arrays, *scalars)`` over flat views of the
    same-shape C-contiguous ``arrays``, in chunks on the pool (at most 8, boundaries from
    the size alone, so the bits of one call) from ``min_split`` elements."""
    flat = [a.reshape(-1) for a in arrays]
    n = flat[0].size
    ranges = threads.chunks(n, chunk, 8) if n >= min_split else [(0, n)]

    def body(i):
        lo, hi = ranges[i]
        loop(*[a[lo:hi] for a in flat], *scalars)
    threads.for_each(body, len(ranges), whole=lambda: loop(*flat, *scalars))


def loop_applies(arrays, dtype, min_size):
    """Whether a one-pass update loop can take ``arrays`` (NumPy arrays of one shape and
    ``dtype``, C-contiguous, the first writable, at least ``min_size`` elements) now:
    Numba on and the float32 loops loaded."""
    first = arrays[0]
    return (first.size >= min_size and all(
        type(a) is np.ndarray and a.dtype == dtype and a.flags.c_contiguous
        and a.shape == first.shape for a in arrays) and first.flags.writeable
        and vecmath.usable())


_F32 = np.dtype(np.float32)


def _adam_weight_decay_f32(s, c1, c2):
    """NOTE: [AdamWeightDecay in one pass], array by array, in place (one float64 and
    one float32 scratch array): the float32 results are rounded from float64 ones."""
    w = np.float64
    var, m, v, g = s["var"], s["m"], s["v"], s["grad"]
    wide = np.empty(var.shape, w)
    narrow = np.subtract(g, m)
    np.multiply(narrow, w(c1), out=wide, dtype=w)
    wide += m
    np.copyto(m, wide, casting="same_kind")                 # m = fma(g - m, c1, m)
    np.multiply(g, g, out=wide, dtype=w)
    wide -= v
    np.copyto(narrow, wide, casting="same_kind")            # fma(g, g, -v)
    np.multiply(narrow, w(c2), out=wide, dtype=w)
    wide += v
    np.copyto(v, wide, casting="same_kind")                 # v = fma(that, c2, v)
    np.sqrt(v, out=wide, dtype=w)
    wide += w(s["epsilon"])
    np.divide(m, wide, out=wide, dtype=w)
    decayed = np.multiply(var, w(s["decay"]), dtype=w)
    wide += decayed
    wide *= w(s["lr"])
    np.subtract(var, wide, out=wide, dtype=w)
    np.copyto(var, wide, casting="same_kind")
    return {}


def _adam_weight_decay(xp, s):
    b1, b2, g = s["beta1"], s["beta2"], s["grad"]
    one = _one(b1)
    c1, c2 = one - b1, one - b2
    if xp is np and s["var"].dtype == _F32:
        arrays = [s["var"], s["m"], s["v"], g]
        if loop_applies(arrays, _F32, vecmath.MIN_FAST):
            scalars = [float(x) for x in (c1, c2, s["epsilon"], s["decay"], s["lr"])]
            fused_update(adam_weight_decay_loop, arrays, scalars, AWD_MIN_SPLIT,
                         vecmath.CHUNK)
            return {}
        return _adam_weight_decay_f32(s, c1, c2)
    m = s["m"] + (g - s["m"]) * c1
    v = s["v"] + (g * g - s["v"]) * c2
    update = m / (xp.sqrt(v) + s["epsilon"]) + s["decay"] * s["var"]
    return {"var": s["var"] - s["lr"] * update, "m": m, "v": v}


adam_weight_decay_p = dense_update(
    "AdamWeightDecay", ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "grad"),
    ("var", "m", "v"), ("lr", "beta1", "beta2", "epsilon", "decay"), _adam_weight_decay,
    doc="AdamWeightDecay: Adam without bias correction, decoupled weight decay, in place.")
