"""Math, reduction and functional nn-op programs: values and result dtypes of ops.* over
float and integer inputs, and gradients of the differentiable ones."""
import numpy as np

from ._helpers import program, randn, input_grads, prefixed, run_all


@program
def elementwise_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(randn(rng, 3, 4, scale=2.0))
    pos = ms.Tensor(np.abs(randn(rng, 3, 4)) + 0.1)
    unit = ms.Tensor(np.tanh(randn(rng, 3, 4)) * 0.9)
    i = ms.Tensor(rng.integers(-7, 8, (3, 4)).astype(np.int32))
    j = ms.Tensor(np.array([[3, -2, 5, 4]] * 3, np.int32))
    h = ms.Tensor(np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997], np.float32))
    special = ms.Tensor(np.array([np.nan, np.inf, -np.inf, 1.5], np.float32))
    cases = {
        "exp": lambda: ops.exp(x), "expm1": lambda: ops.expm1(x), "log": lambda: ops.log(pos),
        "log1p": lambda: ops.log1p(pos), "log2": lambda: ops.log2(pos),
        "sqrt": lambda: ops.sqrt(pos), "rsqrt": lambda: ops.rsqrt(pos),
        "sin": lambda: ops.sin(x), "tan": lambda: ops.tan(unit), "asin": lambda: ops.asin(unit),
        "atan2": lambda: ops.atan2(x, pos), "sinh": lambda: ops.sinh(x),
        "atanh": lambda: ops.atanh(unit), "erf": lambda: ops.erf(x), "erfc": lambda: ops.erfc(x),
        "sigmoid": lambda: ops.sigmoid(x),
        "softplus": lambda: ops.softplus(x, beta=2, threshold=3),
        "round_half_even": lambda: ops.round(h),
        "floor": lambda: ops.floor(x), "trunc": lambda: ops.trunc(x), "sign": lambda: ops.sign(x),
        "int_div": lambda: ops.div(i, j), "int_floor_div": lambda: ops.floor_divide(i, j),
        "int_trunc_div": lambda: ops.div(i, j, rounding_mode="trunc"),
        "int_floor_mode": lambda: ops.div(i, j, rounding_mode="floor"),
        "remainder_int": lambda: ops.remainder(i, j), "fmod_int": lambda: ops.fmod(i, j),
        "remainder_float": lambda: ops.remainder(x, 0.7), "fmod_float": lambda: ops.fmod(x, 0.7),
        "pow_int": lambda: ops.pow(ops.abs(i), 2), "pow_float_int": lambda: ops.pow(x, 3),
        "pow_scalar_base": lambda: ops.pow(2.0, x), "square_int": lambda: ops.square(i),
        "abs_int": lambda: ops.abs(i), "neg_int": lambda: ops.neg(i),
        "sqrt_int": lambda: ops.sqrt(ops.abs(i)),
        "maximum_mixed": lambda: ops.maximum(i, x), "minimum": lambda: ops.minimum(x, pos),
        "clamp": lambda: ops.clamp(x, -1.0, 1.5), "clamp_int": lambda: ops.clamp(i, -2, 3),
        "clamp_tensor": lambda: ops.clamp(x, min=unit), "lerp": lambda: ops.lerp(x, pos, 0.3),
        "addcmul": lambda: ops.addcmul(x, pos, unit, value=0.5),
        "logaddexp": lambda: ops.logaddexp(x, unit), "xlogy": lambda: ops.xlogy(x, pos),
        "hypot": lambda: ops.hypot(x, pos), "isclose": lambda: ops.isclose(x, x + 1e-6),
        "bitwise_and": lambda: ops.bitwise_and(i, j), "logical_xor": lambda: ops.logical_xor(
            x > 0, unit > 0), "equal_mixed": lambda: ops.equal(i, ops.cast(i, ms.float32)),
        "nan_to_num": lambda: ops.nan_to_num(special, nan=0.0, posinf=9.0, neginf=-9.0),
        "nan_to_num_default": lambda: ops.nan_to_num(special),
        "float16_add": lambda: ops.add(ops.cast(x, ms.float16), 1.5),
        "int_plus_float_scalar": lambda: i + 0.5, "bool_plus_int": lambda: (x > 0) + i,
        "uint8_int8": lambda: ops.cast(ops.abs(i), ms.uint8) + ops.cast(i, ms.int8),
        "relu": lambda: ops.relu(x), "relu6": lambda: ops.relu6(x * 3),
        "gelu_none": lambda: ops.gelu(x, approximate="none"),
        "gelu_tanh": lambda: ops.gelu(x, approximate="tanh"), "silu": lambda: ops.silu(x),
        "mish": lambda: ops.mish(x), "elu": lambda: ops.elu(x), "selu": lambda: ops.selu(x),
        "hardswish": lambda: ops.hardswish(x), "hardsigmoid": lambda: ops.hardsigmoid(x),
        "leaky_relu": lambda: ops.leaky_relu(x, 0.2), "logsigmoid": lambda: ops.logsigmoid(x),
        "softsign": lambda: ops.softsign(x), "celu": lambda: ops.celu(x, 1.0),
        "hardtanh": lambda: ops.hardtanh(x, -0.5, 0.5), "softshrink": lambda: ops.softshrink(x),
    }
    return run_all(cases)


@program
def special_functions(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    pos = randn(rng, 3, 4) ** 2 + 0.1
    unit = np.tanh(randn(rng, 3, 4)) * 0.9
    out = prefixed("erfinv", input_grads(ms, ops.erfinv, rng, unit))
    out.update(prefixed("lgamma", input_grads(ms, ops.lgamma, rng, pos)))
    out.update(prefixed("digamma", input_grads(ms, ops.digamma, rng, pos)))
    return out


@program
def distance_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    a, b = randn(rng, 3, 4, 5), randn(rng, 3, 4, 5)
    out = prefixed("cosine_similarity", input_grads(
        ms, lambda x, y: ops.cosine_similarity(x, y, dim=1), rng, a, b))
    out.update(prefixed("pdist", input_grads(ms, ops.pdist, rng, a[0])))
    return out


@program
def reduction_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    x = ms.Tensor(randn(rng, 3, 4, 5))
    i = ms.Tensor(rng.integers(-5, 6, (3, 4)).astype(np.int32))
    b = ms.Tensor(rng.random((3, 4)) > 0.5)
    cases = {
        "sum": lambda: ops.sum(x), "sum_axes": lambda: ops.sum(x, (0, 2), keepdim=True),
        "sum_int": lambda: ops.sum(i), "sum_bool": lambda: ops.sum(b, 1),
        "mean": lambda: ops.mean(x, 1), "mean_int": lambda: ops.mean(i),
        "reduce_sum": lambda: ops.ReduceSum(keep_dims=True)(x, 1),
        "reduce_mean": lambda: ops.ReduceMean()(x, (0, 1)),
        "prod": lambda: ops.prod(x, 2), "prod_int": lambda: ops.prod(i, 0),
        "amax": lambda: ops.amax(x, (1, 2)), "amin": lambda: ops.amin(x, 0, keepdims=True),
        "max_all": lambda: ops.max(x), "max_axis": lambda: ops.max(x, 1, keepdims=True),
        "min_int": lambda: ops.min(i, 1), "argmax_all": lambda: ops.argmax(x),
        "argmin_all": lambda: ops.argmin(x), "std": lambda: ops.std(x, 1),
        "std_ddof": lambda: ops.std(x, 2, ddof=1), "var": lambda: ops.var(x, (0, 1)),
        "var_mean": lambda: ops.var_mean(x, 1), "std_mean": lambda: ops.std_mean(x, -1),
        "logsumexp": lambda: ops.logsumexp(x, 1), "norm": lambda: ops.norm(x),
        "norm_1_axis": lambda: ops.norm(x, 1, 2), "norm_inf": lambda: ops.norm(x, float("inf"),
                                                                                (1, 2)),
        "norm_fro": lambda: ops.norm(x[0], "fro"), "norm_nuc": lambda: ops.norm(x[0], "nuc"),
        "cumsum": lambda: ops.cumsum(x, 1), "cumsum_int": lambda: ops.cumsum(i, 0),
        "cumprod": lambda: ops.cumprod(x, 2), "cummax": lambda: ops.cummax(x, 1),
        "cummin": lambda: ops.cummin(i, 1), "logcumsumexp": lambda: ops.logcumsumexp(x, 0),
        "all": lambda: ops.all(b), "any_axis": lambda: ops.any(b, 1),
        "count_nonzero": lambda: ops.count_nonzero(i, 1), "median": lambda: ops.median(x, 1),
        "mean_keep": lambda: ops.mean(x, (1, 2), True),
    }
    return run_all(cases)


@program
def linalg_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    a = ms.Tensor(randn(rng, 2, 3, 4))
    b = ms.Tensor(randn(rng, 2, 4, 5))
    sq = ms.Tensor(randn(rng, 3, 3) + 3 * np.eye(3, dtype=np.float32))
    v = ms.Tensor(randn(rng, 4))
    cases = {
        "matmul": lambda: ops.matmul(a, b), "matmul_broadcast": lambda: ops.matmul(a, b[0]),
        "matmul_vec": lambda: ops.matmul(a, v), "bmm": lambda: ops.bmm(a, b),
        "dot": lambda: ops.dot(a[0], b[0]), "inner": lambda: ops.inner(a, v),
        "outer": lambda: ops.outer(v, v), "tensor_dot": lambda: ops.tensor_dot(a, b, ((2,), (1,))),
        "batch_dot": lambda: ops.batch_dot(a, ops.transpose(b, (0, 2, 1))[:, :3], (2, 2)),
        "trace": lambda: ops.trace(sq),
        "inverse": lambda: ops.inverse(sq), "det": lambda: ops.det(sq),
        "slogdet": lambda: ops.slogdet(sq), "matrix_power": lambda: ops.matrix_power(sq, 3),
        "cross": lambda: ops.cross(a[:, :, :3], a[:, :, 1:], dim=-1),
        "cdist": lambda: ops.cdist(a, ops.transpose(b, (0, 2, 1))[:, :, :4]),
        "kron": lambda: ops.kron(sq, sq[:2, :2]), "addmm": lambda: ops.addmm(
            sq, sq, sq, beta=0.5, alpha=2.0), "dense": lambda: ops.dense(a, b[0].T, b[0, 0]),
    }
    return run_all(cases)


@program
def functional_nn_ops(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    img = randn(rng, 2, 3, 6, 5)
    w = randn(rng, 4, 3, 3, 3, scale=0.3)
    cases = {
        "conv2d_pad": lambda t: ops.conv2d(t, ms.Tensor(w), pad_mode="pad", padding=1,
                                           stride=2),
        "conv2d_same_dilated": lambda t: ops.conv2d(t, ms.Tensor(w), pad_mode="same",
                                                    dilation=2),
        "max_pool2d": lambda t: ops.max_pool2d(t, 3, 2, 1),
        "max_pool2d_ceil": lambda t: ops.max_pool2d(t, 2, 2, ceil_mode=True),
        "avg_pool2d": lambda t: ops.avg_pool2d(t, 2, 1, 1, count_include_pad=False),
        "adaptive_avg_pool2d": lambda t: ops.adaptive_avg_pool2d(t, (4, 3)),
        "adaptive_max_pool2d": lambda t: ops.adaptive_max_pool2d(t, (2, 2)),
        "batch_norm_train": lambda t: ops.batch_norm(
            t, ms.Tensor(np.zeros(3, np.float32)), ms.Tensor(np.ones(3, np.float32)),
            ms.Tensor(np.full(3, 1.5, np.float32)), ms.Tensor(np.full(3, 0.5, np.float32)),
            training=True),
        "group_norm": lambda t: ops.group_norm(t, 3),
        "softmax": lambda t: ops.softmax(t, 1), "log_softmax": lambda t: ops.log_softmax(t, -1),
        "dropout_eval": lambda t: ops.dropout(t, 0.5, training=False),
        "upsample_nearest": lambda t: ops.upsample(t, scale_factor=2.0, mode="nearest",
                                                   recompute_scale_factor=True),
        "flatten": lambda t: ops.flatten(t, start_dim=2),
    }
    out = {}
    for name, fn in cases.items():
        out.update(prefixed(name, input_grads(ms, fn, rng, img)))
    return out


@program
def functional_losses(ms, seed):
    rng = np.random.default_rng(seed)
    ops = ms.ops
    logits, target = randn(rng, 4, 3), randn(rng, 4, 3)
    probs = 1.0 / (1.0 + np.exp(-logits))
    labels = ms.Tensor(np.array([0, 2, 1, 2], np.int32))
    signs = ms.Tensor(np.sign(randn(rng, 4)).astype(np.float32))
    cases = {
        "mse": lambda a, b: ops.mse_loss(a, b, "sum"),
        "l1": lambda a, b: ops.l1_loss(a, b), "smooth_l1": lambda a, b: ops.smooth_l1_loss(
            a, b, 0.5, "mean"), "huber": lambda a, b: ops.huber_loss(a, b, "mean", 0.6),
        "cross_entropy": lambda a, b: ops.cross_entropy(a, labels, label_smoothing=0.1),
        "cross_entropy_probs": lambda a, b: ops.cross_entropy(a, ops.softmax(b, 1)),
        "nll": lambda a, b: ops.nll_loss(ops.log_softmax(a, 1), labels, ignore_index=1),
        "bce": lambda a, b: ops.binary_cross_entropy(ops.sigmoid(a), ops.sigmoid(b)),
        "bce_logits": lambda a, b: ops.binary_cross_entropy_with_logits(
            a, ops.sigmoid(b), ms.Tensor(np.ones((4, 3), np.float32)),
            ms.Tensor(np.full(3, 2.0, np.float32))),
        "kl_div": lambda a, b: ops.kl_div(ops.log_softmax(a, 1), ops.softmax(b, 1), "batchmean"),
        "margin_ranking": lambda a, b: ops.margin_ranking_loss(a[:, 0], b[:, 0], signs, 0.1),
        "cosine_embedding": lambda a, b: ops.cosine_embedding_loss(a, b, signs, 0.2),
        "multilabel_soft_margin": lambda a, b: ops.multilabel_soft_margin_loss(
            a, ops.cast(b > 0, ms.float32)),
        "gaussian_nll": lambda a, b: ops.gaussian_nll_loss(a, b, ops.abs(b) + 0.5),
    }
    out = {}
    for name, fn in cases.items():
        out.update(prefixed(name, input_grads(ms, fn, rng, logits, target)))
    out["probs_unused"] = probs
    return out
