"""The fused optimizer updates behind ``ops.FusedAdaFactor`` (and its global-norm form),
``ops.FusedCastAdamWeightDecay`` and ``ops.FusedWeightScaleApplyMomentum``, shared with
``nn.AdaFactor``: composites of public ops computed in Float32 and written back into the
Parameters with ``ops.assign`` (no gradient flows through an update)."""
from __future__ import annotations

from .. import _dtype as D
from .._core import primitive as P


def _ops():
    from .. import ops
    return ops


def _write(target, value):
    _ops().assign(target, value.astype(target.dtype))


def _rms(x):
    ops = _ops()
    return ops.sqrt(ops.mean(ops.square(x)))


def _check_tensors(op, **tensors):
    for arg, v in tensors.items():
        if not isinstance(v, P._Tensor):
            raise TypeError(f"For '{op}', the '{arg}' must be a Parameter or Tensor, but got "
                            f"{type(v).__name__}.")


def _adafactor_step(op, eps, clip_threshold, beta1, beta2t, weight_decay, learning_rate, grad,
                    param, exp_avg, row, col, sq, scale_parameter, first_moment, decay,
                    global_norm=None):
    """One AdaFactor step in place: second moments factored into row/column means for
    tensors of rank >= 2 (a full ``sq`` otherwise), the update clipped to RMS
    ``clip_threshold``, the step scaled by ``max(eps[1], rms(param))`` when
    ``scale_parameter``, optional first moment (``beta1``) and decoupled weight decay."""
    ops = _ops()
    _check_tensors(op, gradient=grad, param=param, exp_avg=exp_avg, exp_avg_sq_row=row,
                   exp_avg_sq_col=col, exp_avg_sq=sq)
    if tuple(grad.shape) != tuple(param.shape):
        raise ValueError(f"For '{op}', the 'gradient' shape {list(grad.shape)} must equal the "
                         f"'param' shape {list(param.shape)}.")
    g = ops.stop_gradient(grad).astype(D.float32)
    if global_norm is not None and global_norm > 1:
        g = g / global_norm
    p = ops.stop_gradient(param).astype(D.float32)
    lr = learning_rate.astype(D.float32).reshape(()) if isinstance(learning_rate, P._Tensor) \
        else float(learning_rate)
    if scale_parameter:
        lr = ops.maximum(_rms(p), eps[1]) * lr
    update = ops.square(g) + eps[0]
    if g.ndim >= 2:
        new_row = row.astype(D.float32) * beta2t + update.mean(-1) * (1 - beta2t)
        new_col = col.astype(D.float32) * beta2t + update.mean(-2) * (1 - beta2t)
        _write(row, new_row)
        _write(col, new_col)
        r = ops.rsqrt(new_row / new_row.mean(-1, keep_dims=True))
        update = r.expand_dims(-1) * ops.rsqrt(new_col).expand_dims(-2) * g
    else:
        new_sq = sq.astype(D.float32) * beta2t + update * (1 - beta2t)
        _write(sq, new_sq)
        update = ops.rsqrt(new_sq) * g
    update = update / ops.maximum(_rms(update) / clip_threshold, 1.0) * lr
    if first_moment:
        new_avg = exp_avg.astype(D.float32) * beta1 + update * (1 - beta1)
        _write(exp_avg, new_avg)
        update = new_avg
    if decay:
        p = p - p * weight_decay * lr
    _write(param, p - update)


def _cast_adam_weight_decay(var, m, v, lr, beta1, beta2, eps, decay, gradient, global_norm):
    """AdamWeightDecay with the gradient cast to Float32 and divided by ``global_norm``."""
    op = "FusedCastAdamWeightDecay"
    _check_tensors(op, var=var, m=m, v=v, gradient=gradient)
    ops = _ops()
    g = ops.stop_gradient(gradient).astype(D.float32) / global_norm
    new_m = m.astype(D.float32) * beta1 + g * (1 - beta1)
    new_v = v.astype(D.float32) * beta2 + ops.square(g) * (1 - beta2)
    w = var.astype(D.float32)
    step = new_m / (ops.sqrt(new_v) + eps) + w * decay
    _write(m, new_m)
    _write(v, new_v)
    _write(var, w - step * lr)
    return var, m, v


def _weight_scale_momentum(weight_decay, loss_scale, variable, accumulation, learning_rate,
                           gradient, momentum):
    """Momentum with weight decay on a scaled gradient (MindSpore's GPU kernel)."""
    op = "FusedWeightScaleApplyMomentum"
    _check_tensors(op, variable=variable, accumulation=accumulation, gradient=gradient)
    ops = _ops()
    w = variable.astype(D.float32)
    g = (ops.stop_gradient(gradient).astype(D.float32) + w * weight_decay) * loss_scale
    acc = accumulation.astype(D.float32) * momentum + g
    lr = float(learning_rate)
    _write(accumulation, acc)
    _write(variable, w - acc * lr)
    return variable
