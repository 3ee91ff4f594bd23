"""Fused in-place update primitives for the hot optimizers: ApplyMomentum, SGD, Adam.

NOTE: [Fused updates]
Outside the matmuls, a training step's time goes to the optimizer, and written as
separate ops a momentum update is ~6 full passes over memory plus the copies of
``assign``. These primitives (MindSpore has the same ones: ``ops.ApplyMomentum``,
``ops.SGD``, ``ops.Adam``) rewrite the parameter and its state in place with
``out=`` ufuncs, the fewest passes NumPy allows. They are state effects
(``effect="state"``): graph capture keeps them, in order, as side-effect nodes, and
they have no gradient (``nondiff``). The arithmetic follows MindSpore's CPU kernels
term by term, so float32 rounding matches, with one exception: where NumPy's BLAS
is available, ApplyMomentum of a parameter of at least ``BLAS_MIN_SIZE`` elements
runs as BLAS vector routines on the BLAS threads (NOTE: [BLAS vector routines] in
``_core/backend.py``). The accumulator stays bit for bit MindSpore's (``scal`` and
``axpy`` with ``a = 1`` round as NumPy does); the parameter step
``var -= lr * accum`` is one ``axpy``, which a kernel may compute as a fused
multiply-add (rounded once) or as a multiply and an add (rounded twice, as
MindSpore): the result is within half a unit in the last place of ``lr * accum``
plus half a unit of the result of the exact value, whichever kernel OpenBLAS picks
for the CPU. Each returns the parameter it updated.

The other optimizers are composites of public ops and ``ops.assign``.
"""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._core import backend as B
from ..._core import primitive as P
from ..._core.aval import ShapedArray
from ..._native import jit
from ..._prims import vecmath
from ..._prims.optim_prims import fused_update, loop_applies
from ..._prims.nn._common import validated

_F32 = np.dtype(np.float32)

__all__ = ["apply_momentum_p", "sgd_p", "adam_p", "apply_rms_prop_p", "apply_centered_rms_prop_p"]


def _check_update(name, var, *same_shape, scalars=()):
    """The shape/dtype rule shared by the updates: state and gradient match ``var``."""
    if not D.dtype_of(var.dtype).is_floating_point:
        raise TypeError(f"For '{name}', the 'var' must be a floating-point Parameter, but got "
                        f"{np.dtype(var.dtype)}.")
    for arg, x in same_shape:
        if tuple(x.shape) != tuple(var.shape):
            raise ValueError(f"For '{name}', the shape of '{arg}' must be the same as the shape "
                             f"of 'var' {list(var.shape)}, but got {list(x.shape)}.")
    for arg, x in scalars:
        if tuple(getattr(x, "shape", ())) not in ((), (1,)):
            raise ValueError(f"For '{name}', the '{arg}' must be a scalar, but got shape "
                             f"{list(x.shape)}.")
    return ShapedArray(tuple(var.shape), var.dtype)


# ----------------------------------------------------------------- ApplyMomentum
# Below this many elements NumPy's ufuncs are quicker: a BLAS call through ctypes costs
# ~4 us (measured crossover ~65,536 float32 elements after a matmul, 2-core EPYC).
BLAS_MIN_SIZE = 1 << 16


def _blas_update(xp, *arrays):
    """NumPy BLAS's ``(axpy, scal)`` when the state arrays can be updated by them in
    place (same shape and dtype, contiguous, writable, large enough), else None."""
    first = arrays[0]
    if xp is not np or first.size < BLAS_MIN_SIZE or not all(type(a) is np.ndarray and a.shape == first.shape
                               and a.dtype == first.dtype and a.flags.c_contiguous
                               and a.flags.aligned for a in arrays):
        return None
    if not all(a.flags.writeable for a in arrays[:2]):
        return None
    return B.blas_vector_routines(first.dtype)


def _scalar(v):
    return v.item() if hasattr(v, "item") else float(v)


def _of_dtype(dtype, *scalars):
    """Whether scalar operands (arrays or Python floats) compute in ``dtype`` as given."""
    return all(getattr(v, "dtype", dtype) == dtype for v in scalars)


def _make_apply_momentum(xp):
    def apply_momentum(var, accum, lr, grad, momentum, use_nesterov=False):
        blas = None if use_nesterov or not _of_dtype(var.dtype, lr, momentum) else \
            _blas_update(xp, var, accum, grad)
        if blas is not None:
            axpy, scal = blas
            scal(_scalar(momentum), accum)
            axpy(1.0, grad, accum)                      # accum = momentum * accum + grad
            axpy(-_scalar(lr), accum, var)              # var -= lr * accum
            return var
        xp.multiply(accum, momentum, out=accum)
        xp.add(accum, grad, out=accum)                  # accum = momentum * accum + grad
        if use_nesterov:
            step = xp.multiply(grad, lr)                # var -= grad*lr + accum*momentum*lr
            step += accum * (momentum * lr)
        else:
            step = xp.multiply(accum, lr)
        xp.subtract(var, step, out=var)
        return var
    return apply_momentum


def _apply_momentum_infer(attrs, var, accum, lr, grad, momentum):
    return _check_update("ApplyMomentum", var, ("accumulation", accum), ("gradient", grad),
                         scalars=(("learning_rate", lr), ("momentum", momentum)))


apply_momentum_p = P.Primitive(
    "ApplyMomentum", _make_apply_momentum, kind="opaque", effect="state", nondiff=True,
    writes=(0, 1),
    n_inputs=5, infer=_apply_momentum_infer,
    doc="ApplyMomentum(var, accum, lr, grad, momentum; use_nesterov): in place.")
apply_momentum_p.returns_written_input()


# ----------------------------------------------------------------- SGD
def _make_sgd(xp):
    def sgd(var, grad, lr, accum, momentum, stat, dampening=0.0, weight_decay=0.0,
            nesterov=False):
        if weight_decay > 0:
            grad = grad + var * weight_decay
        if float(momentum) > 0:
            if dampening:
                later = accum * momentum + grad * (1.0 - dampening)
            else:
                later = xp.multiply(accum, momentum, out=accum)
                later += grad
            first = stat > 0             # per element: the first step takes grad undamped
            if first.any():
                xp.copyto(accum, xp.where(first, grad, later))
                stat[first] = 0
            elif later is not accum:
                xp.copyto(accum, later)
            step = grad + accum * momentum if nesterov else accum
        else:
            step = grad
        xp.subtract(var, step * lr, out=var)
        return var
    return sgd


def _sgd_infer(attrs, var, grad, lr, accum, momentum, stat):
    return _check_update("SGD", var, ("gradient", grad), ("accum", accum), ("stat", stat),
                         scalars=(("learning_rate", lr), ("momentum", momentum)))


sgd_p = P.Primitive(
    "SGD", _make_sgd, kind="opaque", effect="state", nondiff=True, n_inputs=6,
    writes=(0, 3, 5),
    infer=_sgd_infer,
    doc="SGD(var, grad, lr, accum, momentum, stat; dampening, weight_decay, nesterov).")
sgd_p.returns_written_input()


# ----------------------------------------------------------------- Adam (+ AMSGrad)
# NOTE: [Adam in one pass]
# NumPy's Adam makes ten passes over the parameter and its state. With Numba on, a
# float32 parameter of at least vecmath.MIN_FAST elements (contiguous, with float32
# state and scalars) is updated by one nogil loop doing the same float32 operations in
# the same order, each rounded as the ufunc rounds it (no fused multiply-add): the
# bits of the NumPy kernel, chunked on the pool from vecmath.MIN_SPLIT elements.
@jit(signature="float32[::1], float32[::1], float32[::1], float32[::1], float32, float32, "
               "float32, float32", nogil=True, dtypes=(np.dtype(np.float32),))
def adam_loop(var, m, v, grad, c1, c2, eps, lr_t):
    """The ufunc sequence of ``_make_adam`` element by element (c1 = 1 - beta1,
    c2 = 1 - beta2, lr_t the bias-corrected step)."""
    for i in range(var.size):
        g = grad[i]
        mi = m[i] + (g - m[i]) * c1
        vi = v[i] + (g * g - v[i]) * c2
        m[i] = mi
        v[i] = vi
        var[i] = var[i] - (mi * lr_t) / (np.sqrt(vi) + eps)


def _f32_scalar(a):
    """``a`` as an np.float32 where it is a one-element float32 array or scalar."""
    a = np.asarray(a)
    return a.reshape(-1)[0] if a.dtype == np.float32 and a.size == 1 else None


def _adam_fused(var, m, v, grad, c1, c2, eps, lr_t):
    """Run ``adam_loop`` (NOTE: [Adam in one pass]) and return True where it applies."""
    arrays = (var, m, v, grad)
    if var.size < vecmath.MIN_FAST:
        return False
    scalars = [_f32_scalar(c) for c in (c1, c2, eps, lr_t)]
    if any(c is None for c in scalars) or not loop_applies(arrays, _F32, vecmath.MIN_FAST):
        return False
    fused_update(adam_loop, arrays, scalars, vecmath.MIN_SPLIT, vecmath.CHUNK)
    return True


def _make_adam(xp):
    def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad, vhat=None,
             use_nesterov=False):
        one = beta1.dtype.type(1)
        lr_t = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)
        if xp is np and vhat is None and not use_nesterov and _adam_fused(
                var, m, v, grad, one - beta1, one - beta2, eps, lr_t):
            return var
        t = xp.subtract(grad, m)
        t *= one - beta1
        m += t                                          # m += (g - m) * (1 - beta1)
        t = xp.multiply(grad, grad, out=t)
        t -= v
        t *= one - beta2
        v += t                                          # v += (g*g - v) * (1 - beta2)
        if vhat is not None:
            xp.maximum(vhat, v, out=vhat)
        denom = xp.sqrt(v if vhat is None else vhat, out=t)
        denom += eps
        if use_nesterov:
            num = m * beta1 + grad * (one - beta1)
            num *= lr_t
        else:
            num = m * lr_t
        num /= denom
        xp.subtract(var, num, out=var)
        return var
    return adam


def _adam_infer(attrs, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad,
                vhat=None):
    state = (("m", m), ("v", v), ("gradient", grad)) + ((("vhat", vhat),) if vhat is not None
                                                        else ())
    scalars = (("beta1_power", beta1_power), ("beta2_power", beta2_power), ("lr", lr),
               ("beta1", beta1), ("beta2", beta2), ("epsilon", eps))
    return _check_update("Adam", var, *state, scalars=scalars)


adam_p = P.Primitive(
    "Adam", _make_adam, kind="opaque", effect="state", nondiff=True, infer=_adam_infer,
    writes=(0, 1, 2, 10),
    doc="Adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, eps, grad[, vhat]; "
        "use_nesterov): bias correction through the step size; vhat enables AMSGrad.")
adam_p.returns_written_input()


# ----------------------------------------------------------------- RMSProp (+ centered)
# MindSpore's CPU kernels, term by term: s += (g*g - s) * (1 - rho); [centered:
# m += (g - m) * (1 - rho), denominator s - m*m]; mom = mom*momentum + lr*g /
# sqrt(denominator + eps); var -= mom. The centered update matches MindSpore bit for bit;
# the plain kernel's mean square differs from it in the last bit for ~5% of elements.
def _rms_prop_update(xp, var, mean_grad, mean_square, moment, grad, lr, decay, momentum,
                     epsilon):
    rest = var.dtype.type(1) - xp.asarray(decay, var.dtype)
    t = xp.multiply(grad, grad)
    t -= mean_square
    t *= rest
    mean_square += t
    denom = mean_square
    if mean_grad is not None:
        t = xp.subtract(grad, mean_grad, out=t)
        t *= rest
        mean_grad += t
        denom = mean_square - xp.multiply(mean_grad, mean_grad)
    step = xp.multiply(lr, grad)
    step /= xp.sqrt(denom + epsilon)
    moment *= momentum
    moment += step
    var -= moment
    return var


def _make_apply_rms_prop(xp):
    def apply_rms_prop(var, mean_square, moment, lr, grad, decay, momentum, epsilon):
        return _rms_prop_update(xp, var, None, mean_square, moment, grad, lr, decay, momentum,
                                epsilon)
    return apply_rms_prop


def _make_apply_centered_rms_prop(xp):
    def apply_centered_rms_prop(var, mean_grad, mean_square, moment, grad, lr, decay, momentum,
                                epsilon):
        return _rms_prop_update(xp, var, mean_grad, mean_square, moment, grad, lr, decay,
                                momentum, epsilon)
    return apply_centered_rms_prop


_RMS_SCALARS = ("learning_rate", "decay", "momentum", "epsilon")


def _apply_rms_prop_infer(attrs, var, mean_square, moment, lr, grad, decay, momentum, epsilon):
    return _check_update("ApplyRMSProp", var, ("mean_square", mean_square), ("moment", moment),
                         ("grad", grad),
                         scalars=tuple(zip(_RMS_SCALARS, (lr, decay, momentum, epsilon))))


def _apply_centered_rms_prop_infer(attrs, var, mean_grad, mean_square, moment, grad, lr, decay,
                                   momentum, epsilon):
    return _check_update("ApplyCenteredRMSProp", var, ("mean_gradient", mean_grad),
                         ("mean_square", mean_square), ("moment", moment), ("grad", grad),
                         scalars=tuple(zip(_RMS_SCALARS, (lr, decay, momentum, epsilon))))


# validated: an in-place update checks its operands before writing anything
apply_rms_prop_p = P.Primitive(
    "ApplyRMSProp", validated(_make_apply_rms_prop, _apply_rms_prop_infer), kind="opaque",
    effect="state", nondiff=True,
    n_inputs=8, infer=_apply_rms_prop_infer,
    doc="ApplyRMSProp(var, mean_square, moment, lr, grad, decay, momentum, epsilon): in place.")
apply_rms_prop_p.returns_written_input()
apply_centered_rms_prop_p = P.Primitive(
    "ApplyCenteredRMSProp",
    validated(_make_apply_centered_rms_prop, _apply_centered_rms_prop_infer), kind="opaque",
    effect="state",
    nondiff=True, n_inputs=9, infer=_apply_centered_rms_prop_infer,
    doc="ApplyCenteredRMSProp(var, mean_gradient, mean_square, moment, grad, lr, decay, "
        "momentum, epsilon): in place.")
apply_centered_rms_prop_p.returns_written_input()
