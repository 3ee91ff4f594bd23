"""softmax family, dropout, normalisation, embedding, interpolate and pixel shuffle:
forward vs NumPy and MindSpore's values, shape/dtype rules, numerical gradients, errors."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from tests.helpers.optable import OpCase, case_id, grad_case_fn, run_grad, run_infer, table_tests


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def np_normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def np_batch_norm_train(x, w, b, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return np_normalize(x, axes, eps) * w.reshape(shape) + b.reshape(shape)


def np_group_norm(x, groups, w, b, eps=1e-5):
    n = x.shape[0]
    y = np_normalize(x.reshape(n, groups, -1), (2,), eps).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return y * w.reshape(shape) + b.reshape(shape)


def np_pixel_shuffle(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r), x.dtype)
    for ch in range(c):
        oc, rem = divmod(ch, r * r)
        i, j = divmod(rem, r)
        out[:, oc, i::r, j::r] = x[:, ch]
    return out


IDX = np.array([[0, 3, 1], [2, 3, 3]])

TABLE = [
    OpCase("softmax", ops.softmax, np_softmax, (3, 5), id="softmax"),
    OpCase("softmax", lambda x: ops.softmax(x, 0), lambda x: np_softmax(x, 0), (3, 5),
           id="softmax-axis0"),
    OpCase("softmax", lambda x: ops.softmax(x, 1), lambda x: np_softmax(x, 1), (2, 3, 4),
           id="softmax-middle-axis"),
    OpCase("softmax", lambda x: ops.softmax(x, -1), np_softmax,
           [lambda r: r.uniform(-40, 40, (2, 300, 600))], id="softmax-many-tiles-large-logits",
           grad=False),
    OpCase("log_softmax", lambda x: ops.log_softmax(x, -1), np_log_softmax,
           [lambda r: r.uniform(-40, 40, (2, 300, 600))], id="log_softmax-many-tiles",
           grad=False, rtol=1e-5, atol=1e-4),
    OpCase("log_softmax", ops.log_softmax, np_log_softmax, (3, 5), id="log_softmax"),
    OpCase("log_softmax", lambda x: ops.log_softmax(x, 1), lambda x: np_log_softmax(x, 1),
           (2, 3, 4), id="log_softmax-axis1"),
    OpCase("softmin", ops.softmin, lambda x: np_softmax(-x), (3, 5), id="softmin"),
    OpCase("layer_norm", lambda x, g, b: ops.layer_norm(x, (4,), g, b),
           lambda x, g, b: np_normalize(x, (-1,), 1e-5) * g + b, [(3, 4), (4,), (4,)],
           id="layer_norm", rtol=1e-4, atol=1e-5),
    OpCase("layer_norm", lambda x: ops.layer_norm(x, (3, 4), eps=1e-3),
           lambda x: np_normalize(x, (1, 2), 1e-3), (2, 3, 4), id="layer_norm-2d-no-affine",
           rtol=1e-4, atol=1e-5),
    OpCase("layer_norm", lambda x, g: ops.layer_norm(x, 5, g),
           lambda x, g: np_normalize(x, (-1,), 1e-5) * g, [(2, 3, 5), (5,)],
           id="layer_norm-weight-only", rtol=1e-4, atol=1e-5),
    OpCase("layer_norm", lambda x: ops.layer_norm(x, (300,)),
           lambda x: np_normalize(x, (-1,), 1e-5), (700, 300), id="layer_norm-many-tiles",
           rtol=1e-4, atol=1e-5, grad=False),
    OpCase("batch_norm", lambda x, w, b: ops.batch_norm(x, None, None, w, b, True),
           np_batch_norm_train, [(4, 3, 2, 2), (3,), (3,)], id="batch_norm-train",
           rtol=1e-4, atol=1e-5),
    OpCase("batch_norm", lambda x, w, b: ops.batch_norm(x, None, None, w, b, True),
           np_batch_norm_train, [(5, 3), (3,), (3,)], id="batch_norm-train-2d", rtol=1e-4,
           atol=1e-5),
    OpCase("batch_norm", lambda x: ops.batch_norm(x, None, None, None, None, True, eps=1e-3),
           lambda x: np_normalize(x, (0, 2), 1e-3), (6, 3, 4), id="batch_norm-train-no-affine",
           rtol=1e-4, atol=1e-5),
    OpCase("batch_norm", lambda x, w: ops.batch_norm(x, None, None, w, None, True),
           lambda x, w: np_batch_norm_train(x, w, np.zeros_like(w)), [(6, 3, 2, 2), (3,)],
           id="batch_norm-train-weight-only", rtol=1e-4, atol=1e-5),
    OpCase("batch_norm", lambda x, m, v: ops.batch_norm(x, m, v, None, None, False),
           lambda x, m, v: (x - m.reshape(1, -1, 1)) / np.sqrt(v.reshape(1, -1, 1) + 1e-5),
           [(4, 3, 2), (3,), lambda r: r.uniform(0.5, 2.0, (3,))], id="batch_norm-eval",
           grad_argnums=[0], rtol=1e-4, atol=1e-5),
    OpCase("group_norm", lambda x, w, b: ops.group_norm(x, 2, w, b),
           lambda x, w, b: np_group_norm(x, 2, w, b), [(2, 4, 3, 2), (4,), (4,)],
           id="group_norm", rtol=1e-4, atol=1e-5),
    OpCase("instance_norm", lambda x, w, b: ops.instance_norm(x, weight=w, bias=b),
           lambda x, w, b: np_group_norm(x, x.shape[1], w, b), [(2, 3, 4, 2), (3,), (3,)],
           id="instance_norm", rtol=1e-4, atol=1e-5),
    OpCase("embedding", lambda w: ops.embedding(ms.Tensor(IDX), w), lambda w: w[IDX], (4, 3),
           id="embedding"),
    OpCase("interpolate", lambda x: ops.interpolate(x, size=(5, 7), mode="bilinear",
                                                    align_corners=True),
           None, (1, 2, 3, 4), id="interpolate-bilinear-align-corners"),
    OpCase("interpolate", lambda x: ops.interpolate(x, size=(5, 7), mode="bilinear"),
           None, (1, 2, 3, 4), id="interpolate-bilinear"),
    OpCase("interpolate", lambda x: ops.interpolate(x, size=(5, 3)), None, (1, 2, 3, 4),
           id="interpolate-nearest"),
    OpCase("interpolate", lambda x: ops.interpolate(x, scale_factor=2.0, mode="linear"), None,
           (2, 2, 4), id="interpolate-linear-scale"),
    OpCase("interpolate", lambda x: ops.interpolate(x, size=(2, 3), mode="area"), None,
           (1, 2, 5, 7), id="interpolate-area"),
    OpCase("interpolate", lambda x: ops.interpolate(x, size=(4, 5), mode="bicubic"), None,
           (1, 1, 3, 3), id="interpolate-bicubic"),
    OpCase("pixel_shuffle", lambda x: ops.pixel_shuffle(x, 2),
           lambda x: np_pixel_shuffle(x, 2), (2, 8, 2, 3), id="pixel_shuffle"),
    OpCase("pixel_unshuffle", lambda x: ops.pixel_unshuffle(x, 2), None, (2, 2, 4, 6),
           id="pixel_unshuffle"),
]


test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(TABLE)


SECOND_ORDER = [
    OpCase("softmax", grad_case_fn(ops.softmax), None, (3, 5), id="softmax"),
    OpCase("log_softmax", grad_case_fn(lambda x: ops.log_softmax(x, 0)), None, (3, 5),
           id="log_softmax"),
    OpCase("layer_norm", grad_case_fn(lambda x, g, b: ops.layer_norm(x, (4,), g, b)), None,
           [(3, 4), (4,), (4,)], id="layer_norm"),
    OpCase("layer_norm", grad_case_fn(lambda x: ops.layer_norm(x, (2, 4))), None, (3, 2, 4),
           id="layer_norm-no-affine"),
    OpCase("batch_norm", grad_case_fn(lambda x, w, b: ops.batch_norm(x, None, None, w, b, True)),
           None, [(4, 3, 2), (3,), (3,)], id="batch_norm"),
    OpCase("batch_norm", grad_case_fn(lambda x: ops.batch_norm(x, None, None, None, None, True)),
           None, (5, 2, 3), id="batch_norm-no-affine"),
]


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_second_order_gradient(case):
    run_grad(case)


# ----------------------------------------------------------------- softmax
def test_softmax_matches_mindspore_and_dtype_argument():
    # MindSpore 2.10: ops.softmax(Tensor(arange(12).reshape(3, 4) / 5))[0]
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 5)
    np.testing.assert_allclose(ops.softmax(x).asnumpy()[0],
                               [0.1806572, 0.22065504, 0.26950887, 0.32917893], rtol=1e-6)
    half = ops.softmax(x, dtype=ms.float16)
    assert half.dtype == ms.float16
    np.testing.assert_allclose(half.asnumpy()[0], [0.1807, 0.2207, 0.2695, 0.3293], atol=1e-3)
    assert ops.softmax(x.astype(ms.bfloat16)).dtype == ms.bfloat16
    assert x.softmax(0).shape == (3, 4)


def test_softmax_is_stable_and_exact_at_extremes():
    x = ms.Tensor(np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 0.0]], np.float32))
    np.testing.assert_allclose(ops.softmax(x).asnumpy(), [[1, 0, 0], [0, 0.5, 0.5]])
    np.testing.assert_allclose(ops.log_softmax(x).asnumpy()[0], [0, -1000, -2000])


def test_softmax_rows_far_below_zero_or_above_the_exp_limit():
    # exercises both sides of NOTE: [Softmax without the max pass] in spore/_prims/nn/softmax.py
    rng = np.random.default_rng(0)
    low = rng.standard_normal((4, 7)) - 300.0            # exp underflows: exact recompute
    mixed = np.vstack([rng.standard_normal((4, 7)), low]).astype(np.float32)
    high = (rng.standard_normal((4, 7)) + 90.0).astype(np.float32)     # exp would overflow
    for x in (mixed, high):
        np.testing.assert_allclose(ops.softmax(ms.Tensor(x)).asnumpy(), np_softmax(x),
                                   rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ops.log_softmax(ms.Tensor(x)).asnumpy(), np_log_softmax(x),
                                   rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.softmax(ms.Tensor([1, 2, 3])), TypeError, ["Softmax", "Int64"]),
    (lambda: ops.softmax(ms.Tensor([1.0, 2.0]), axis=(0,)), TypeError, ["axis", "int"]),
    (lambda: ops.softmax(ms.Tensor([[1.0, 2.0]]), axis=2), ValueError, ["Softmax", "[-2,2)"]),
    (lambda: ops.log_softmax(ms.Tensor([1, 2])), TypeError, ["LogSoftmax"]),
    (lambda: ops.softmax(ms.Tensor(1.0)), ValueError, ["Softmax", "axis"]),
])
def test_softmax_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


# ----------------------------------------------------------------- dropout
def test_dropout_mask_scale_and_gradient():
    x = ms.Tensor(np.full((200, 300), 2.0, np.float32))
    y = ops.dropout(x, p=0.3, seed=7).asnumpy()
    kept = y != 0
    assert 0.66 < kept.mean() < 0.74
    np.testing.assert_allclose(y[kept], 2.0 / 0.7, rtol=1e-6)
    ms.set_seed(5)
    g, out = None, None

    def f(x):
        nonlocal out
        out = ops.dropout(x, p=0.3)
        return out.sum()
    g = ops.grad(f)(x).asnumpy()
    np.testing.assert_allclose(g, (out.asnumpy() != 0) / 0.7, rtol=1e-6)


def test_dropout_is_reproducible_with_seeds():
    x = ms.Tensor(np.ones((8, 16), np.float32))
    ms.set_seed(11)
    a = ops.dropout(x, 0.5, seed=3).asnumpy()
    b = ops.dropout(x, 0.5, seed=3).asnumpy()
    ms.set_seed(11)
    np.testing.assert_array_equal(ops.dropout(x, 0.5, seed=3).asnumpy(), a)
    np.testing.assert_array_equal(ops.dropout(x, 0.5, seed=3).asnumpy(), b)
    assert not np.array_equal(a, b)    # a fresh mask on each call


def test_dropout_identity_cases():
    x = ms.Tensor(np.arange(6, dtype=np.float32))
    assert ops.dropout(x, 0.5, training=False) is x
    assert ops.dropout(x, 0.0) is x


def test_channel_dropout_zeroes_whole_channels():
    x = ms.Tensor(np.ones((16, 8, 3, 3), np.float32))
    y = ops.dropout2d(x, 0.5).asnumpy()
    per_channel = y.reshape(16, 8, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    y1 = ops.dropout1d(ms.Tensor(np.ones((6, 5), np.float32)), 0.5).asnumpy()
    assert np.all((y1 == 0).all(-1) | (y1 == 2).all(-1))


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.dropout(ms.Tensor([1.0]), 1.0), ValueError, ["dropout", "[0, 1)"]),
    (lambda: ops.dropout(ms.Tensor([1.0]), -0.1), ValueError, ["dropout", "p"]),
    (lambda: ops.dropout(ms.Tensor([1, 2]), 0.5), TypeError, ["Dropout", "Int64"]),
    (lambda: ops.dropout2d(ms.Tensor(np.ones((3, 2, 2), np.float32))), ValueError,
     ["dropout2d", "4D"]),
])
def test_dropout_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


# ----------------------------------------------------------------- normalisation
def test_batch_norm_updates_running_statistics_like_mindspore():
    # MindSpore 2.10: ops.batch_norm(x, rm=Parameter(zeros(3)), rv=Parameter(ones(3)), ones,
    # zeros, training=True, momentum=0.1) with x = default_rng(0).standard_normal((4, 3, 2, 2))
    x = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
    rm = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="rm")
    rv = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="rv")
    w, b = ms.Tensor(np.ones(3, np.float32)), ms.Tensor(np.zeros(3, np.float32))
    y = ops.batch_norm(ms.Tensor(x), rm, rv, w, b, training=True, momentum=0.1)
    np.testing.assert_allclose(y.asnumpy().ravel()[:4],
                               [0.3449426, 0.05853651, 0.9166687, 0.3218043], rtol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), [-0.01848019, 0.02247695, 0.01683502], rtol=1e-5)
    np.testing.assert_allclose(rv.asnumpy(), [0.98644555, 0.97652924, 0.9740679], rtol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1),
                               rtol=1e-6)
    evaluated = ops.batch_norm(ms.Tensor(x), rm, rv, w, b)
    np.testing.assert_allclose(evaluated.asnumpy().ravel()[:2], [0.14519706, -0.11440206],
                               rtol=1e-5)


def test_batch_norm_training_gradient_ignores_running_statistics():
    x = ms.Tensor(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))
    rm = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="m")
    rv = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="v")
    w = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    g = ops.grad(lambda x: (ops.batch_norm(x, rm, rv, w, None, True) ** 2).sum())(x)
    assert g.shape == (4, 3) and np.isfinite(g.asnumpy()).all()
    assert not np.allclose(rm.asnumpy(), 0)


def test_group_norm_matches_mindspore():
    # MindSpore 2.10: ops.group_norm(arange(24).reshape(2, 4, 3), 2, arange(4), ones(4))
    x = ms.Tensor(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    y = ops.group_norm(x, 2, ms.Tensor(np.arange(4, dtype=np.float32)),
                       ms.Tensor(np.ones(4, np.float32)))
    np.testing.assert_allclose(y.asnumpy().ravel()[:8], [1, 1, 1, 1.2927696, 1.8783085,
                                                          2.4638476, -1.9276952, -0.7566171],
                               rtol=1e-5)


def test_instance_norm_running_statistics():
    x = np.random.default_rng(2).standard_normal((4, 3, 5)).astype(np.float32)
    rm, rv = ms.Tensor(np.zeros(3, np.float32)), ms.Tensor(np.ones(3, np.float32))
    ops.instance_norm(ms.Tensor(x), rm, rv, momentum=0.5)
    np.testing.assert_allclose(rm.asnumpy(), 0.5 * x.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(rv.asnumpy(), 0.5 + 0.5 * x.var(axis=2, ddof=1).mean(0),
                               rtol=1e-5)
    y = ops.instance_norm(ms.Tensor(x), rm, rv, use_input_stats=False)
    want = (x - rm.asnumpy()[:, None]) / np.sqrt(rv.asnumpy()[:, None] + 1e-5)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5)


def test_layer_norm_half_precision():
    x = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
    y = ops.layer_norm(ms.Tensor(x).astype(ms.float16), (8,))
    assert y.dtype == ms.float16
    np.testing.assert_allclose(y.astype(ms.float32).asnumpy(), np_normalize(x, (-1,), 1e-5),
                               atol=5e-3)


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.layer_norm(ms.Tensor(np.ones((2, 3), np.float32)), (4,)), ValueError,
     ["layer_norm", "normalized_shape"]),
    (lambda: ops.layer_norm(ms.Tensor(np.ones((2, 3), np.float32)), (3,),
                            ms.Tensor(np.ones(2, np.float32))), ValueError, ["LayerNorm", "gamma"]),
    (lambda: ops.layer_norm(ms.Tensor(np.ones((2, 3), np.int32)), (3,)), TypeError,
     ["LayerNorm", "Int32"]),
    (lambda: ops.group_norm(ms.Tensor(np.ones((2, 4, 3), np.float32)), 3), ValueError,
     ["num_groups"]),
    (lambda: ops.batch_norm(ms.Tensor(np.ones((2, 3), np.float32)), None, None, None, None),
     ValueError, ["running_mean"]),
])
def test_norm_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


# ----------------------------------------------------------------- embedding
def test_embedding_padding_idx_gets_no_gradient():
    w = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    idx = ms.Tensor(np.array([0, 2, 2, 3], np.int32))
    out = ops.embedding(idx, w, padding_idx=2)
    np.testing.assert_array_equal(out.asnumpy(), w.asnumpy()[[0, 2, 2, 3]])
    g = ops.grad(lambda w: ops.embedding(idx, w, padding_idx=-2).sum())(w).asnumpy()
    np.testing.assert_array_equal(g[:, 0], [1, 0, 0, 1])


def test_embedding_scale_grad_by_freq_and_second_order():
    w = ms.Tensor(np.random.default_rng(0).standard_normal((4, 3)))
    idx = ms.Tensor(np.array([[0, 2], [2, 2]]))
    g = ops.grad(lambda w: ops.embedding(idx, w, scale_grad_by_freq=True).sum())(w).asnumpy()
    np.testing.assert_allclose(g[:, 0], [1, 0, 1, 0])
    case = OpCase("embedding", grad_case_fn(lambda w: ops.embedding(idx, w, 1, None, 2.0, True)),
                  None, (4, 3))
    run_grad(case)
    assert "EmbeddingGrad" in run_infer(case)


def test_embedding_max_norm_renormalises_rows_in_place():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)
    w = ms.Parameter(ms.Tensor(table), name="table")
    out = ops.embedding(ms.Tensor(np.array([0, 1])), w, max_norm=1.0)
    np.testing.assert_allclose(out.asnumpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-5)
    np.testing.assert_allclose(w.asnumpy()[2], [6.0, 8.0])      # not looked up: unchanged


@pytest.mark.parametrize("call,exc,words", [
    (lambda: ops.embedding(ms.Tensor([0, 4]), ms.Tensor(np.ones((4, 2), np.float32))),
     ValueError, ["Embedding", "[0, 4)"]),
    (lambda: ops.embedding(ms.Tensor([0.0]), ms.Tensor(np.ones((4, 2), np.float32))),
     TypeError, ["Embedding", "Float32"]),
    (lambda: ops.embedding(ms.Tensor([0]), ms.Tensor(np.ones((4, 2), np.float32)), 4),
     ValueError, ["padding_idx"]),
])
def test_embedding_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for word in words:
        assert word in str(info.value)


# ----------------------------------------------------------------- interpolate, pixel shuffle
X23 = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
# Generated with MindSpore 2.10 (CPU): ops.interpolate(Tensor(X23), size=(4, 5), mode=...).
# Its bicubic mode is TensorFlow's resize_bicubic, not PyTorch's (PyTorch gives -0.41241 first).
RESIZE = [
    (dict(size=(4, 5)), [0, 0, 1, 1, 2, 0, 0, 1, 1, 2]),
    (dict(size=(4, 5), mode="bilinear"), [0, 0.4, 1, 1.6, 2, 0.75, 1.15, 1.75, 2.35, 2.75]),
    (dict(size=(4, 5), mode="bilinear", align_corners=True),
     [0, 0.5, 1, 1.5, 2, 1, 1.5, 2, 2.5, 3]),
    (dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
     [0, 0.4, 1, 1.6, 2, 1.5, 1.9, 2.5, 3.1, 3.5]),
    (dict(size=(4, 5), mode="nearest-exact"), [0, 0, 1, 2, 2, 0, 0, 1, 2, 2]),
    (dict(size=(1, 2), mode="area"), [2, 3]),
    (dict(size=(4, 5), mode="bicubic"), [-0.34023148, 0.0416573, 0.7352942, 1.4289312,
                                         1.8108199, 0.545903, 0.9277918, 1.6214286, 2.3150654,
                                         2.6969538]),
    (dict(size=(4, 5), mode="bicubic", align_corners=True),
     [0, 0.40625, 1, 1.59375, 2, 0.9433866, 1.3496366, 1.9433866, 2.5371363, 2.9433866]),
]


@pytest.mark.parametrize("kwargs,want", RESIZE, ids=[str(r[0]) for r in RESIZE])
def test_interpolate_matches_reference(kwargs, want):
    got = ops.interpolate(ms.Tensor(X23), **kwargs).asnumpy().ravel()[:len(want)]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_interpolate_1d_and_downsampling_match_mindspore():
    # MindSpore 2.10: ops.interpolate(arange(4).reshape(1, 1, 4), size=7[, mode='linear']),
    # the same as (1, 1, 1, 4) to (1, 7) with mode='bicubic', and
    # ops.interpolate(arange(25).reshape(1, 1, 5, 5), size=(2, 3)[, mode='bilinear'])
    x4 = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 4))
    np.testing.assert_allclose(ops.interpolate(x4, size=7).asnumpy().ravel(),
                               [0, 0, 1, 1, 2, 2, 3])
    np.testing.assert_allclose(
        ops.interpolate(x4, size=7, mode="linear").asnumpy().ravel(),
        [0, 0.35714287, 0.9285714, 1.5, 2.0714285, 2.642857, 3], rtol=1e-6)
    row = ms.Tensor(np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4))   # bicubic, 4 -> 7
    np.testing.assert_allclose(
        ops.interpolate(row, size=(1, 7), mode="bicubic").asnumpy().ravel(),
        [-0.0792164, 0.26413983, 0.9241701, 1.5, 2.0758297, 2.73586, 3.0792162], rtol=1e-5)
    x25 = ms.Tensor(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    np.testing.assert_allclose(ops.interpolate(x25, size=(2, 3)).asnumpy().ravel(),
                               [0, 1, 3, 10, 11, 13])
    np.testing.assert_allclose(
        ops.interpolate(x25, size=(2, 3), mode="bilinear").asnumpy().ravel(),
        [4.0833335, 5.75, 7.416666, 16.583334, 18.25, 19.916666], rtol=1e-5)
    assert ops.upsample(x25, size=(3, 3)).shape == (1, 1, 3, 3)


def test_pixel_shuffle_matches_mindspore_and_round_trips():
    # MindSpore 2.10: ops.pixel_shuffle(arange(16).reshape(1, 4, 2, 2), 2)
    x = ms.Tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 2, 2))
    y = ops.pixel_shuffle(x, 2)
    np.testing.assert_array_equal(y.asnumpy().ravel()[:8], [0, 4, 1, 5, 8, 12, 9, 13])
    np.testing.assert_array_equal(ops.pixel_unshuffle(y, 2).asnumpy(), x.asnumpy())
    assert ops.pixel_shuffle(ms.Tensor(np.ones((4, 2, 2), np.float32)), 2).shape == (1, 4, 4)


@pytest.mark.parametrize("call,words", [
    (lambda: ops.interpolate(ms.Tensor(X23), size=(4, 5), scale_factor=2.0), ["simultaneously"]),
    (lambda: ops.interpolate(ms.Tensor(X23)), ["both empty"]),
    (lambda: ops.interpolate(ms.Tensor(X23), size=(4, 5), align_corners=True),
     ["align_corners", "nearest"]),
    (lambda: ops.interpolate(ms.Tensor(X23), size=4, mode="linear"), ["linear", "4-D"]),
    (lambda: ops.interpolate(ms.Tensor(X23), size=4, mode="cubic"), ["mode"]),
    (lambda: ops.pixel_shuffle(ms.Tensor(np.ones((1, 3, 2, 2), np.float32)), 2),
     ["pixel_shuffle", "divisible"]),
])
def test_resize_errors(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_dropout_primitive_gradient_with_a_fixed_key():
    from spore._prims.nn import dropout_p
    key = ms.Tensor(np.array([3, 4], np.uint64))
    run_grad(OpCase("Dropout", lambda x: dropout_p(x, key, p=0.4, channel_dims=0)[0], None,
                    (4, 5)))
    run_grad(OpCase("Dropout", lambda x: dropout_p(x, key, p=0.4, channel_dims=2)[0], None,
                    (3, 4, 2, 2)))


@pytest.mark.parametrize("case", SECOND_ORDER, ids=case_id)
def test_gradient_primitives_infer_matches_kernel(case):
    assert {"SoftmaxGrad", "LogSoftmaxGrad", "LayerNormGrad",
            "BatchNormGrad"} & set(run_infer(case))
