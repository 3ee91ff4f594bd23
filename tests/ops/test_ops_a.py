"""ops names A-I (issue 17): BatchNorm's five outputs, GatherV2, DepthwiseConv2dNative, patch
extraction, fractional max/avg pooling, deformable convolution, IndexPut, EmbeddingLookup,
coalesce and the small utility primitives. Values probed on MindSpore 2.10 (CPU) are held
as constants; the ops MindSpore's CPU backend lacks (DepthwiseConv2dNative,
ExtractImagePatches, ConfusionMatrix, ...) are checked against their documented formulas
with NumPy references; every differentiable composite gets a numerical gradient check."""
import tempfile

import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, nn, ops
from tests.helpers.optable import OpCase, grad_case_fn, table_tests


def T(x, dtype=np.float32):
    return Tensor(np.array(x, dtype))


# ----------------------------------------------------------------- NumPy references
def _np_fixed_starts(u, n_in, n_out, k):
    if n_out == 1:
        return [n_in - k]
    alpha = (n_in - k) / (n_out - 1)
    starts = [int((i + u) * alpha) - int(u * alpha) for i in range(n_out - 1)]
    return starts + [n_in - k]


def _np_fractional(x, kernel, output, samples):
    """Naive fixed-window fractional max pool: values and flat indices per plane."""
    nd = len(kernel)
    lead, spatial = x.shape[:-nd], x.shape[-nd:]
    y = np.zeros(lead + tuple(output), x.dtype)
    idx = np.zeros(lead + tuple(output), np.int64)
    for plane in np.ndindex(*lead):
        u = samples[plane]
        cols = [1, 0] if nd == 2 else list(range(nd))
        starts = [_np_fixed_starts(float(u[cols[a]]), spatial[a], output[a], kernel[a])
                  for a in range(nd)]
        for o in np.ndindex(*output):
            best, where = -np.inf, 0
            for off in np.ndindex(*kernel):
                pos = tuple(starts[a][o[a]] + off[a] for a in range(nd))
                v = x[plane + pos]
                if v > best:
                    best, where = v, np.ravel_multi_index(pos, spatial)
            y[plane + o], idx[plane + o] = best, where
    return y, idx


def _np_patches(x, kernel, strides, rates, same):
    nd = len(kernel)
    spatial = x.shape[2:]
    if same:
        pads = []
        for s, k, st, r in zip(spatial, kernel, strides, rates):
            out = -(-s // st)
            total = max((out - 1) * st + (k - 1) * r + 1 - s, 0)
            pads.append((total // 2, total - total // 2))
        x = np.pad(x, [(0, 0), (0, 0)] + pads)
        spatial = x.shape[2:]
    out = [(s - (k - 1) * r - 1) // st + 1 for s, k, r, st in zip(spatial, kernel, rates, strides)]
    n, c = x.shape[:2]
    res = np.zeros((n, int(np.prod(kernel)) * c) + tuple(out), x.dtype)
    for o in np.ndindex(*out):
        for ki, off in enumerate(np.ndindex(*kernel)):
            pos = tuple(o[a] * strides[a] + off[a] * rates[a] for a in range(nd))
            res[(slice(None), slice(ki * c, (ki + 1) * c)) + o] = x[(slice(None), slice(None))
                                                                    + pos]
    return res


def _np_depthwise(x, w, stride=1):
    k, c, kh, kw = w.shape
    n, _, h, wd = x.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, c * k, oh, ow), x.dtype)
    for ci in range(c):
        for m in range(k):
            for i in range(oh):
                for j in range(ow):
                    win = x[:, ci, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[:, ci * k + m, i, j] = (win * w[m, ci]).sum((1, 2))
    return out


# ----------------------------------------------------------------- op table
_SAMPLES2 = np.array([[[0.3, 0.6], [0.9, 0.1]]], np.float32)        # (1, 2, 2)
_SAMPLES3 = np.array([[[0.2, 0.7, 0.5]]], np.float32)               # (1, 1, 3)


def _distinct(shape):
    return lambda rng: rng.permutation(int(np.prod(shape))).reshape(shape) / 7.0 - 1.0


def _fmp2(x):
    return ops.fractional_max_pool2d(x, (2, 3), output_size=(3, 3),
                                     _random_samples=Tensor(_SAMPLES2))


def _fmp3(x):
    return ops.fractional_max_pool3d(x, 2, output_size=(2, 3, 2),
                                     _random_samples=Tensor(_SAMPLES3))


def _fmp_tf(x):
    return ops.FractionalMaxPool([1.0, 1.4, 1.6, 1.0], True, True, True, 3, 4)(x)[0]


def _fap_tf(x):
    return ops.FractionalAvgPool([1.0, 1.5, 1.3, 1.0], False, False, True, 5, 1)(x)[0]


def _patches(x):
    return ops.ExtractImagePatches([1, 1, 2, 3], [1, 1, 2, 1], [1, 1, 1, 2], "SAME")(x)


def _volume(x):
    return ops.ExtractVolumePatches([1, 1, 2, 2, 3], [1, 1, 1, 2, 2], "VALID")(x)


def _depthwise(x, w):
    return ops.DepthwiseConv2dNative(2, 2, stride=1)(x, w)


def _deform(x, w, off):
    return ops.deformable_conv2d(x, w, off, (2, 2), (1, 1, 1, 1), (0, 1, 1, 0))


def _embedding(params, idx):
    return ops.EmbeddingLookup()(params, idx, 2)


def _index_put(x, v):
    return ops.IndexPut(1)(x, v, (T([0, 1, 1], np.int32), T([2, 0, 0], np.int32)))


def _bn_infer(x, s, b, m, v):
    return ops.BatchNorm(False, 1e-3)(x, s, b, m, v)[0]


def _sampled_softmax(w, b, logits):
    sv = (T([1, 3, 5], np.int32), T(np.full((3, 2), 0.4)), T([0.3, 0.4, 0.5]))
    labels = T([[0, 2], [4, 6], [6, 0]], np.int32)
    return nn.SampledSoftmaxLoss(3, 7, num_true=2, sampled_values=sv)(w, b, labels, logits)


def _np_bn(x, s, b, m, v):
    shape = (1, -1, 1, 1)
    return (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + 1e-3) * s.reshape(shape) + \
        b.reshape(shape)


def _np_embedding(params, idx):
    local = idx - 2
    ok = (local >= 0) & (local < params.shape[0])
    return np.where(ok[..., None], params[np.where(ok, local, 0)], 0)


def _np_index_put(x, v):
    out = x.copy()
    np.add.at(out, (np.array([0, 1, 1]), np.array([2, 0, 0])), v)
    return out


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _np_lstm_step(x, h, c, w, b, forget_bias):
    g = np.concatenate([x, h], -1) @ w + b
    i, j, f, o = np.split(g, 4, -1)
    i, j, f, o = _sig(i), np.tanh(j), _sig(f + forget_bias), _sig(o)
    c = f * c + i * j
    return c, o * np.tanh(c), i, j, f, o, np.tanh(c)


def _np_dynamic_rnn(x, w, b, h, c):
    h, c = h[0], c[0]
    ys, cs = [], []
    for t in range(x.shape[0]):
        c, h, *_ = _np_lstm_step(x[t], h, c, w, b, 0.0)
        ys.append(h)
        cs.append(c)
    return np.stack(ys), np.stack(cs)


def _np_gru(x, wi, wh, bi, bh, h):
    ys = []
    k = h.shape[-1]
    for t in range(x.shape[0]):
        gi, gh = x[t] @ wi + bi, h @ wh + bh
        r = _sig(gi[:, :k] + gh[:, :k])
        z = _sig(gi[:, k:2 * k] + gh[:, k:2 * k])
        n = np.tanh(gi[:, 2 * k:] + r * gh[:, 2 * k:])
        h = (1 - z) * n + z * h
        ys.append(h)
    return np.stack(ys)


_DUMPS = tempfile.TemporaryDirectory()        # removed when the module is collected


def _dump(x):
    return ops.DumpGradient()(f"{_DUMPS.name}/g.npy", x * 3, "in")


def _lstm_cell(x, h, c, w, b):
    return ops.BasicLSTMCell(forget_bias=1.0)(x, h, c, w, b)


def _dynamic_rnn(x, w, b, h, c):
    out = ops.DynamicRNN()(x, w, b, None, h, c)
    return out[0], out[2]


def _gru(x, wi, wh, bi, bh, h):
    return ops.DynamicGRUV2()(x, wi, wh, bi, bh, None, h)[0]


CASES = [
    OpCase("fractional_max_pool2d", _fmp2,
           lambda x: _np_fractional(x, (2, 3), (3, 3), _SAMPLES2)[0], [_distinct((1, 2, 6, 7))]),
    OpCase("fractional_max_pool3d", _fmp3,
           lambda x: _np_fractional(x, (2, 2, 2), (2, 3, 2), _SAMPLES3)[0],
           [_distinct((1, 1, 4, 5, 4))]),
    OpCase("FractionalMaxPool", _fmp_tf, None, [_distinct((2, 7, 8, 3))]),
    OpCase("FractionalAvgPool", _fap_tf, None, [(2, 7, 5, 2)]),
    OpCase("ExtractImagePatches", _patches,
           lambda x: _np_patches(x, (2, 3), (2, 1), (1, 2), True), [(2, 3, 5, 6)]),
    OpCase("ExtractVolumePatches", _volume,
           lambda x: _np_patches(x, (2, 2, 3), (1, 2, 2), (1, 1, 1), False), [(1, 2, 3, 5, 6)]),
    OpCase("DepthwiseConv2dNative", _depthwise, _np_depthwise, [(2, 3, 5, 4), (2, 3, 2, 2)]),
    OpCase("deformable_conv2d", _deform, None,
           [(1, 2, 4, 4), (3, 2, 2, 2), lambda rng: rng.uniform(0.1, 0.4, (1, 12, 4, 4))],
           grad_rtol=1e-3, grad_atol=1e-4),
    OpCase("EmbeddingLookup", _embedding, _np_embedding,
           [(4, 3), lambda rng: np.array([[5, 1], [3, 2], [6, 0]], np.int32)]),
    OpCase("IndexPut", _index_put, _np_index_put, [(2, 3), (3,)]),
    OpCase("BatchNorm-inference", _bn_infer, _np_bn,
           [(2, 3, 2, 2), (3,), (3,), (3,), lambda rng: rng.uniform(0.5, 2.0, 3)]),
    OpCase("SampledSoftmaxLoss", _sampled_softmax, None, [(7, 4), (7,), (3, 4)]),
    OpCase("BasicLSTMCell", _lstm_cell, lambda *a: _np_lstm_step(*a, 1.0),
           [(2, 3), (2, 2), (2, 2), (5, 8), (8,)], rtol=1e-5, atol=1e-6),
    OpCase("DynamicRNN", _dynamic_rnn, _np_dynamic_rnn,
           [(3, 2, 2), (4, 8), (8,), (1, 2, 2), (1, 2, 2)]),
    OpCase("DumpGradient", _dump, lambda x: x * 3, [(2, 3)]),
    OpCase("DumpGradient-grad", grad_case_fn(lambda x: _dump(x) * x), None, [(2, 3)]),
    OpCase("DynamicGRUV2", _gru, _np_gru, [(3, 2, 2), (2, 6), (2, 6), (6,), (6,), (2, 2)]),
]

test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


# ----------------------------------------------------------------- fractional pooling
def test_fixed_window_fractional_max_pool_matches_mindspore():
    x = Tensor(np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5))
    rs = T([[[0.3, 0.6]]])
    want = [[6, 7, 9], [16, 17, 19], [21, 22, 24]]
    y, idx = ops.fractional_max_pool2d(x, (2, 2), output_size=(3, 3), return_indices=True,
                                       _random_samples=rs)
    assert y.asnumpy()[0, 0].tolist() == want and idx.dtype == ms.int64
    assert idx.asnumpy()[0, 0].tolist() == want
    y2, idx2 = ops.FractionalMaxPoolWithFixedKsize((2, 2), (3, 3))(x, rs)
    assert y2.asnumpy()[0, 0].tolist() == want and idx2.asnumpy()[0, 0].tolist() == want
    x3 = Tensor(np.arange(64, dtype=np.float32).reshape(1, 1, 4, 4, 4))
    y3, i3 = ops.FractionalMaxPool3DWithFixedKsize((2, 2, 2), (2, 2, 2))(x3, T([[[.3, .6, .9]]]))
    assert y3.asnumpy().ravel().tolist() == [21, 23, 29, 31, 53, 55, 61, 63]
    assert i3.asnumpy().ravel().tolist() == [21, 23, 29, 31, 53, 55, 61, 63]


def test_fractional_max_pool_against_a_naive_reference_with_random_samples():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    rs = rng.random((2, 3, 2)).astype(np.float32)
    y, idx = ops.fractional_max_pool2d(Tensor(x), (3, 2), output_size=(4, 3),
                                       return_indices=True, _random_samples=Tensor(rs))
    want_y, want_i = _np_fractional(x, (3, 2), (4, 3), rs)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(idx.asnumpy(), want_i)


def test_fractional_max_pool_ratio_unbatched_and_cells():
    x = Tensor(np.random.default_rng(0).standard_normal((3, 7, 6)).astype(np.float32))
    assert ops.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5)).shape == (3, 3, 3)
    net = nn.FractionalMaxPool2d(2, output_size=(4, 3), return_indices=True)
    y, idx = net(x.expand_dims(0))
    assert y.shape == idx.shape == (1, 3, 4, 3)
    flat = x.asnumpy().reshape(3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.asnumpy()[0].reshape(3, -1), 1),
                                  y.asnumpy()[0].reshape(3, -1))
    v = nn.FractionalMaxPool3d((1, 2, 2), output_ratio=0.5)(x.reshape(1, 1, 3, 7, 6))
    assert v.shape == (1, 1, 1, 3, 3)
    with pytest.raises(ValueError, match="can not be None"):
        nn.FractionalMaxPool2d(2)
    both = nn.FractionalMaxPool2d(2, output_size=(3, 3), output_ratio=0.5)(x)   # size wins
    assert both.shape == (3, 3, 3)
    with pytest.raises(ValueError, match="must not exceed"):
        ops.fractional_max_pool2d(x, 5, output_size=(4, 4))


def test_tensorflow_fractional_pools_sequences_and_windows():
    x = np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1)
    for overlapping in (False, True):
        y, rows, cols = ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], True, overlapping, True, 1,
                                              1)(Tensor(x))
        r, c = rows.asnumpy(), cols.asnumpy()
        assert rows.dtype == ms.int64 and r[0] == 0 and r[-1] == 5 and len(r) == 4
        assert set(np.diff(r)) <= {1, 2} and set(np.diff(c)) <= {1, 2}
        extra = 1 if overlapping else 0
        for i in range(3):
            for j in range(3):
                win = x[0, r[i]:min(r[i + 1] + extra, 5), c[j]:min(c[j + 1] + extra, 5), 0]
                assert y.asnumpy()[0, i, j, 0] == win.max()
    y, rows, cols = ops.FractionalAvgPool([1.0, 2.0, 2.5, 1.0])(Tensor(x[:, :4]))
    np.testing.assert_array_equal(rows.asnumpy(), [0, 2, 4])
    c = cols.asnumpy()
    assert c.tolist() in ([0, 2, 5], [0, 3, 5])                     # a random split of 5
    want = [[x[0, r0:r1, c0:c1, 0].mean() for c0, c1 in zip(c[:-1], c[1:])]
            for r0, r1 in ((0, 2), (2, 4))]
    np.testing.assert_allclose(y.asnumpy()[0, :, :, 0], want, rtol=1e-6)
    with pytest.raises(ValueError, match="pooling_ratio"):
        ops.FractionalMaxPool([2.0, 1.5, 1.5, 1.0])(Tensor(x))


# ----------------------------------------------------------------- BatchNorm
def test_batch_norm_primitive_training_outputs_and_running_statistics():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2))
    m = Parameter(T(np.ones(3)), name="m")
    v = Parameter(T(np.ones(3)), name="v")
    out = ops.BatchNorm(is_training=True, momentum=0.2)(x, T([2.0] * 3), T([0.5] * 3), m, v)
    assert len(out) == 5 and out[0].shape == (2, 3, 2, 2)
    np.testing.assert_allclose(out[0].asnumpy()[0, 0],
                               [[-1.9576955, -1.6300027], [-1.30231, -0.97461724]], rtol=1e-6)
    np.testing.assert_array_equal(out[1].asnumpy(), [0, 0, 0])      # as MindSpore's CPU kernel
    np.testing.assert_allclose(out[3].asnumpy(), [7.5, 11.5, 15.5])
    np.testing.assert_allclose(out[4].asnumpy(), [37.25] * 3)
    np.testing.assert_allclose(m.asnumpy(), [2.3, 3.1, 3.9], rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), [9.314286] * 3, rtol=1e-6)


def test_batch_norm_primitive_inference_and_nhwc():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    ones, zeros = T(np.ones(3)), T(np.zeros(3))
    y = ops.BatchNorm()(Tensor(x), ones, zeros, ones, ones)
    np.testing.assert_allclose(y[0].asnumpy()[0, 0], [[-0.999995, 0.0], [0.999995, 1.99999]],
                               rtol=1e-5)
    assert all(not t.asnumpy().any() for t in y[1:])
    nhwc = ops.BatchNorm(data_format="NHWC")(Tensor(x.transpose(0, 2, 3, 1)), ones, zeros,
                                             ones, ones)[0]
    np.testing.assert_allclose(nhwc.asnumpy().transpose(0, 3, 1, 2), y[0].asnumpy())
    with pytest.raises(ValueError, match="data_format"):
        ops.BatchNorm(data_format="NCDHW")


# ----------------------------------------------------------------- patches, convolution
def test_extract_volume_patches_matches_mindspore_order():
    x = Tensor(np.arange(36, dtype=np.float32).reshape(1, 2, 2, 3, 3))
    p = ops.ExtractVolumePatches((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), "VALID")(x)
    assert p.shape == (1, 16, 1, 2, 2)
    assert p.asnumpy().ravel()[:20].tolist() == [0, 1, 3, 4, 18, 19, 21, 22, 1, 2, 4, 5, 19, 20,
                                                 22, 23, 3, 4, 6, 7]


def test_extract_image_patches_checks_its_arguments():
    with pytest.raises(ValueError, match="padding"):
        ops.ExtractImagePatches([1, 1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="larger than the input"):
        ops.ExtractImagePatches([1, 1, 4, 4], [1, 1, 1, 1], [1, 1, 1, 1])(T(np.ones((1, 1, 3, 3))))


def test_depthwise_conv_options_and_checks():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    got = ops.DepthwiseConv2dNative(3, (3, 3), stride=2)(Tensor(x), Tensor(w))
    np.testing.assert_allclose(got.asnumpy(), _np_depthwise(x, w, 2), rtol=1e-5, atol=1e-5)
    same = ops.DepthwiseConv2dNative(3, 3, pad_mode="same")(Tensor(x), Tensor(w))
    assert same.shape == (1, 6, 6, 6)
    with pytest.raises(ValueError, match="weight"):
        ops.DepthwiseConv2dNative(2, 3)(Tensor(x), Tensor(w))


def test_deformable_conv2d_with_zero_offsets_is_a_convolution():
    rng = np.random.default_rng(2)
    x = Tensor(rng.standard_normal((2, 4, 5, 5)).astype(np.float32))
    w = Tensor(rng.standard_normal((6, 2, 3, 3)).astype(np.float32))
    b = Tensor(rng.standard_normal(6).astype(np.float32))
    off = np.zeros((2, 3 * 2 * 9, 5, 5), np.float32)
    off[:, 2 * 2 * 9:] = 1.0                                         # masks
    got = ops.deformable_conv2d(x, w, Tensor(off), (3, 3), (1, 1, 1, 1), (1, 1, 1, 1), bias=b,
                                groups=2, deformable_groups=2)
    want = ops.conv2d(x, w, b, 1, "pad", 1, 1, 2)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)
    # a whole-pixel shift reads the neighbouring pixel
    shifted = np.zeros((1, 3, 3, 3), np.float32)
    shifted[:, 0], shifted[:, 2] = 1.0, 1.0                          # x offset +1, mask 1
    img = Tensor(np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))
    taps = ops.DeformableOffsets((1, 1, 1, 1), (0, 0, 0, 0), (1, 1))(img, Tensor(shifted))
    assert taps.asnumpy()[0, 0].tolist() == [[1, 2, 0], [4, 5, 0], [7, 8, 0]]


# ----------------------------------------------------------------- small primitives
def test_gather_v2_embedding_lookup_index_put_fill_v2():
    params = T(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(ops.GatherV2()(params, T([2, 0], np.int32), 1).asnumpy(),
                                  [[2, 0], [6, 4], [10, 8]])
    emb = ops.EmbeddingLookup()(T(np.arange(8).reshape(4, 2)), T([[5, 1], [3, 2]], np.int32), 2)
    assert emb.asnumpy().tolist() == [[[6, 7], [0, 0]], [[2, 3], [0, 1]]]
    put = ops.IndexPut(accumulate=1)(T(np.arange(6).reshape(2, 3)), T([10, 20]),
                                     (T([0, 1], np.int32), T([1, 2], np.int32)))
    assert put.asnumpy().tolist() == [[0, 11, 2], [3, 4, 25]]
    assert ops.FillV2()(T([2, 3], np.int32), Tensor(1.5, ms.float32)).asnumpy().tolist() == \
        [[1.5] * 3] * 2
    filled = ops.FillV2()((2, 3), Tensor(2, ms.int32))
    assert filled.dtype == ms.int32 and filled.asnumpy().tolist() == [[2] * 3] * 2
    with pytest.raises(ValueError, match="accumulate"):
        ops.IndexPut(2)


def test_coalesce_sorts_and_sums_duplicates():
    idx, val, shape = ops.Coalesce()(Tensor(np.array([[0, 0, 1, 0], [1, 1, 0, 1]], np.int64)),
                                     T([1, 2, 3, 4]), Tensor(np.array([2, 2], np.int64)))
    assert idx.asnumpy().tolist() == [[0, 1], [1, 0]]
    assert val.asnumpy().tolist() == [7, 3] and shape.asnumpy().tolist() == [2, 2]
    g = ops.grad(lambda v: ops.coalesce(Tensor(np.array([[0, 1, 0]], np.int64)), v,
                                        Tensor(np.array([3], np.int64)))[1].sum())(T([1, 2, 3]))
    assert g.asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="within"):
        ops.coalesce(Tensor(np.array([[3]], np.int64)), T([1]), Tensor(np.array([3], np.int64)))


def test_dtype_to_enum_check_numerics_float_status_dynamic_shape_copy():
    assert ops.DtypeToEnum()("op", "x", ms.float32) == 43
    assert ops.DtypeToEnum()("op", "x", ms.int64) == 35
    with pytest.raises(TypeError, match="mindspore dtype"):
        ops.DtypeToEnum()("op", "x", 3)
    x = T([1.0, 2.0])
    assert ops.CheckNumerics()(x) is x
    with pytest.raises(RuntimeError, match="NaN"):
        ops.CheckNumerics()(T([1.0, np.nan]))
    assert ops.FloatStatus()(T([1.0, np.inf])).asnumpy().tolist() == [1.0]
    assert ops.FloatStatus()(x).asnumpy().tolist() == [0.0]
    shape = ops.DynamicShape()(T(np.ones((2, 3))))
    assert shape.dtype == ms.int64 and shape.asnumpy().tolist() == [2, 3]
    dst = Parameter(T(np.zeros((2, 3))), name="dst")
    ops.CopyWithSlice()(dst, T(np.ones((2, 3))))
    assert dst.asnumpy().sum() == 6


def test_confusion_matrix_and_accidental_hits():
    cm = ops.ConfusionMatrix(4)(T([0, 1, 1, 3], np.int32), T([1, 2, 1, 3], np.int32))
    assert cm.dtype == ms.int32
    assert cm.asnumpy().tolist() == [[0, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]]
    weighted = ops.ConfusionMatrix(2)(T([0, 1, 1], np.int32), T([0, 0, 1], np.int32), T([.5, 2, 3]))
    assert weighted.asnumpy().tolist() == [[0.5, 0], [2, 3]]
    rows, cols, weights = ops.ComputeAccidentalHits(2)(
        Tensor(np.array([[1, 2], [0, 4], [3, 3]], np.int64)),
        Tensor(np.array([0, 1, 2, 3, 4], np.int64)))
    assert rows.asnumpy().tolist() == [0, 0, 1, 1, 2]
    assert cols.asnumpy().tolist() == [1, 2, 0, 4, 3]
    assert weights.dtype == ms.float32 and (weights.asnumpy() == -np.finfo(np.float32).max).all()


def test_fft_with_size_matches_mindspore():
    c = ops.FFTWithSize(1, False, False)(Tensor(np.array([1, 2, 3, 4], np.complex64)))
    np.testing.assert_allclose(c.asnumpy(), [10, -2 + 2j, -2, -2 - 2j], atol=1e-6)
    r = ops.FFTWithSize(1, False, True)(T([1, 2, 3, 4]))
    np.testing.assert_allclose(r.asnumpy(), [10, -2 + 2j, -2], atol=1e-6)
    ir = ops.FFTWithSize(1, True, True, signal_sizes=(4,))(
        Tensor(np.array([1, 2, 3], np.complex64)))
    np.testing.assert_allclose(ir.asnumpy(), [2, -0.5, 0, -0.5], atol=1e-6)


def test_assert_prints_and_raises(capsys):
    assert ops.Assert()(Tensor(True), [T([1, 2])]) is None
    with pytest.raises(RuntimeError, match="condition is false"):
        ops.Assert()(Tensor(False), [Tensor(np.array([1, 2, 3, 4, 5], np.int32))])
    assert "input data: [1 2 3]" in capsys.readouterr().out


def test_dropout_gen_mask_and_do_mask():
    mask = ops.DropoutGenMask(1, 2)((4, 50), T(0.5))
    assert mask.dtype == ms.uint8 and mask.shape == (32,)          # 200 bits -> 256
    again = ops.DropoutGenMask(1, 2)((4, 50), T(0.5))
    assert mask.asnumpy().tolist() != again.asnumpy().tolist()
    keep = np.unpackbits(mask.asnumpy(), bitorder="little")
    assert not keep[200:].any() and 50 < keep[:200].sum() < 150
    out = ops.DropoutDoMask()(T(np.ones((4, 50))), mask, T(0.5))
    np.testing.assert_array_equal(out.asnumpy().ravel(), keep[:200] * 2.0)
    assert ops.DropoutGenMask()((8,), T(1.0)).asnumpy().tolist()[0] == 255


# ----------------------------------------------------------------- fused updates, AdaFactor
def _adafactor_args(shape, rng):
    g = rng.standard_normal(shape).astype(np.float32)
    p = rng.standard_normal(shape).astype(np.float32)
    ea = rng.random(shape).astype(np.float32)
    factored = len(shape) > 1
    row = rng.random(shape[:-1] if factored else (1,)).astype(np.float32) + 0.1
    col = rng.random(shape[:-2] + shape[-1:] if factored else (1,)).astype(np.float32) + 0.1
    sq = rng.random((1,) if factored else shape).astype(np.float32) + 0.1
    return g, [p, ea, row, col, sq]


def _np_adafactor(eps, clip, beta1, beta2t, wd, lr, g, state, scale, first, decay, gnorm=None):
    p, ea, row, col, sq = (s.copy() for s in state)
    if gnorm is not None and gnorm > 1:
        g = g / gnorm
    lr = lr * max(eps[1], np.sqrt(np.mean(p ** 2))) if scale else lr
    upd = g ** 2 + eps[0]
    if g.ndim >= 2:
        row = row * beta2t + upd.mean(-1) * (1 - beta2t)
        col = col * beta2t + upd.mean(-2) * (1 - beta2t)
        upd = (1 / np.sqrt(row / row.mean(-1, keepdims=True)))[..., None] * \
            (1 / np.sqrt(col))[..., None, :] * g
    else:
        sq = sq * beta2t + upd * (1 - beta2t)
        upd = g / np.sqrt(sq)
    upd = upd / max(np.sqrt(np.mean(upd ** 2)) / clip, 1.0) * lr
    if first:
        ea = ea * beta1 + upd * (1 - beta1)
        upd = ea
    if decay:
        p = p - p * wd * lr
    return [p - upd, ea, row, col, sq]


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (5,)])
@pytest.mark.parametrize("flags", [(False, False, False), (True, True, True)])
@pytest.mark.parametrize("global_norm", [None, 2.5, 0.5])
def test_fused_ada_factor_update(shape, flags, global_norm):
    """The formula was checked against MindSpore's CPU FusedAdaFactor kernel (max difference
    2.4e-7 over these shapes and flags)."""
    g, state = _adafactor_args(shape, np.random.default_rng(0))
    params = [Parameter(Tensor(s.copy()), name=f"s{i}") for i, s in enumerate(state)]
    args = [T([1e-30, 1e-3]), T(1.0), T(0.9), T(0.3), T(0.01), T(0.05), Tensor(g)] + params
    if global_norm is None:
        ops.FusedAdaFactor(*flags)(*args)
    else:
        ops.FusedAdaFactorWithGlobalNorm(*flags)(*args, T(global_norm))
    want = _np_adafactor((1e-30, 1e-3), 1.0, 0.9, 0.3, 0.01, 0.05, g, state, *flags,
                         gnorm=global_norm)
    for got, w in zip(params, want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=2e-6, atol=1e-7)


def test_nn_adafactor_matches_mindspore_after_three_steps():
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    b0 = rng.standard_normal(4).astype(np.float32)
    grads = [(rng.standard_normal((3, 4)).astype(np.float32),
              rng.standard_normal(4).astype(np.float32)) for _ in range(3)]
    probed = {  # MindSpore 2.10 CPU: w[0, :4] and b after three steps
        "default": (dict(), [0.12683254, -0.13358797, 0.63813347, 0.10219297],
                    [-2.3216927, -0.21799895, -1.2463111, -0.73115045]),
        "no-moment": (dict(beta1=0.0, scale_parameter=False),
                      [0.12095815, -0.15134045, 0.62479085, 0.09662852],
                      [-2.3117976, -0.20514728, -1.2566626, -0.73048294]),
        "fixed-lr": (dict(learning_rate=0.05, relative_step=False, weight_decay=0.1),
                     [0.12992397, -0.1380778, 0.62231046, 0.09030391],
                     [-2.2613523, -0.21059220, -1.2224969, -0.71181172]),
        "warmup": (dict(warmup_init=True, compression=True),
                   [0.12573013, -0.13210534, 0.64042228, 0.10489994],
                   [-2.3250303, -0.21879093, -1.2459116, -0.7322675]),
    }
    for name, (cfg, want_w, want_b) in probed.items():
        w = Parameter(Tensor(w0.copy()), name="w")
        b = Parameter(Tensor(b0.copy()), name="b")
        opt = nn.AdaFactor([w, b], **cfg)
        for gw, gb in grads:
            opt((Tensor(gw), Tensor(gb)))
        np.testing.assert_allclose(w.asnumpy()[0], want_w, rtol=1e-5, err_msg=name)
        np.testing.assert_allclose(b.asnumpy(), want_b, rtol=1e-5, err_msg=name)
    names = {p.name for p in opt.parameters_dict().values()} if hasattr(opt, "parameters_dict") \
        else {p.name for p in opt.get_parameters()}
    assert {"exp_avg_sq_row_w", "exp_avg_sq_col_w", "exp_avg_sq_b", "afactor_step"} <= names


def test_nn_adafactor_argument_checks():
    w = Parameter(T(np.ones((2, 2))), name="w")
    with pytest.raises(ValueError, match="relative_step"):
        nn.AdaFactor([w], learning_rate=0.1)
    with pytest.raises(ValueError, match="warmup_init"):
        nn.AdaFactor([w], learning_rate=0.1, relative_step=False, warmup_init=True)
    with pytest.raises(ValueError, match="decay_rate"):
        nn.AdaFactor([w], decay_rate=1.5)


def test_fused_cast_adam_weight_decay_matches_mindspore():
    rng = np.random.default_rng(0)
    var = rng.standard_normal(4).astype(np.float32)
    m, v = rng.random(4).astype(np.float32), rng.random(4).astype(np.float32)
    g = rng.standard_normal(4).astype(np.float16)
    params = [Parameter(Tensor(a.copy()), name=f"a{i}") for i, a in enumerate([var, m, v])]
    ops.FusedCastAdamWeightDecay()(*params, T(0.1), T(0.9), T(0.99), T(1e-8), T(0.01),
                                   Tensor(g), T(0.5))
    probed = [[0.0948499, -0.2127223, 0.6079633, -0.22329712],
              [0.26709932, 0.77773, 0.29675335, 0.51006246],
              [0.7542683, 0.9276358, 0.8698049, 0.02416877]]
    for p, want in zip(params, probed):
        np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5)


def test_fused_weight_scale_apply_momentum():
    var = Parameter(T([1.0, -2.0]), name="var")
    acc = Parameter(T([0.5, 0.5]), name="acc")
    ops.FusedWeightScaleApplyMomentum()(T(0.1), T(0.5), var, acc, T(0.2), T([2.0, 4.0]), T(0.9))
    g = (np.array([2.0, 4.0]) + 0.1 * np.array([1.0, -2.0])) * 0.5
    want_acc = 0.9 * 0.5 + g
    np.testing.assert_allclose(acc.asnumpy(), want_acc, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), np.array([1.0, -2.0]) - 0.2 * want_acc, rtol=1e-6)


def test_sampled_softmax_loss_matches_mindspore():
    rng = np.random.default_rng(0)
    w = Tensor(rng.standard_normal((7, 3)).astype(np.float32))
    b = Tensor(rng.standard_normal(7).astype(np.float32))
    logits = Tensor(rng.standard_normal((4, 3)).astype(np.float32))
    labels = T([[0, 1], [2, 3], [4, 5], [6, 0]], np.int32)
    sv = (T([1, 3, 5], np.int32), T(np.full((4, 2), 0.4)), T([0.3, 0.4, 0.5]))
    loss = nn.SampledSoftmaxLoss(3, 7, num_true=2, sampled_values=sv)(w, b, labels, logits)
    np.testing.assert_allclose(loss.asnumpy(), [2.2161074, 1.8001516, 1.6787846, 1.6060638],
                               rtol=1e-5)
    sampled = nn.SampledSoftmaxLoss(2, 9, num_true=1)(
        Tensor(rng.standard_normal((9, 3)).astype(np.float32)), T(np.zeros(9)),
        T([[1], [4]], np.int32), Tensor(rng.standard_normal((2, 3)).astype(np.float32)))
    assert sampled.shape == (2,) and (sampled.asnumpy() > 0).all()
    with pytest.raises(ValueError, match="num_sampled"):
        nn.SampledSoftmaxLoss(8, 7)


def test_extract_glimpse_matches_mindspore():
    x = T(np.arange(16).reshape(1, 4, 4, 1))

    def glimpse(size, offsets, **kw):
        return ops.ExtractGlimpse(**kw)(x, T(size, np.int32), T(offsets)).asnumpy().ravel()

    zero = dict(uniform_noise=False, noise="zero")
    assert glimpse([2, 2], [[0, 0]]).tolist() == [5, 6, 9, 10]
    assert glimpse([3, 3], [[0, 1]], centered=False, normalized=False, **zero).tolist() == \
        [0, 0, 0, 0, 1, 2, 4, 5, 6]
    assert glimpse([3, 2], [[1, -1.5]], normalized=False, **zero).tolist() == [4, 5, 8, 9, 12, 13]
    assert glimpse([2, 3], [[0.5, 0.3]], centered=False, **zero).tolist() == [4, 5, 6, 8, 9, 10]
    big = ops.ExtractGlimpse(**zero)(T(np.arange(120).reshape(2, 5, 6, 2)), T([3, 4], np.int32),
                                     T([[0.5, -0.3], [-0.9, 0.9]])).asnumpy().ravel()
    assert big.tolist() == [24, 25, 26, 27, 28, 29, 30, 31, 36, 37, 38, 39, 40, 41, 42, 43, 48,
                            49, 50, 51, 52, 53, 54, 55, 0, 0, 0, 0, 0, 0, 0, 0, 66, 67, 68, 69,
                            70, 71, 0, 0, 78, 79, 80, 81, 82, 83, 0, 0]
    outside = np.concatenate([glimpse([40, 40], [[0, 0]])[:600], glimpse([40, 40], [[0, 0]])[-600:]])
    assert -1.0 <= outside.min() and outside.max() < 1.0 and outside.std() > 0.4
    gauss = ops.ExtractGlimpse(uniform_noise=False, noise="gaussian")(
        x, T([40, 40], np.int32), T([[0, 0]])).asnumpy().ravel()[:600]
    assert abs(gauss.mean() - 10.0) < 0.2 and abs(gauss.std() - 0.5) < 0.1
    grad = ops.grad(lambda v: ops.ExtractGlimpse(**zero)(v, T([2, 2], np.int32),
                                                          T([[0, 0]])).sum())(x)
    assert grad.asnumpy()[0, :, :, 0].tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0],
                                                   [0, 0, 0, 0]]
    with pytest.raises(ValueError, match="noise"):
        ops.ExtractGlimpse(noise="gaussian")


def test_bad_inputs_are_clear_errors_naming_the_op():
    p = Parameter(T([1.0, 2.0]), name="p")
    with pytest.raises(TypeError, match="FusedAdaFactor.*beta1"):
        ops.FusedAdaFactor()(T([1e-30, 1e-3]), T(1.0), "x", T(0.3), T(0.0), T(0.1), T([1, 1]),
                             p, p, p, p, p)
    with pytest.raises(TypeError, match="DropoutGenMask.*keep_prob"):
        ops.DropoutGenMask()((2, 2), T([0.5, 0.5]))
    with pytest.raises(TypeError, match="DynamicRNN.*init_h"):
        ops.DynamicRNN()(T(np.ones((2, 1, 2))), T(np.ones((4, 8))), T(np.ones(8)), None, None,
                         None)
    with pytest.raises(ValueError, match="ExtractGlimpse.*size"):
        ops.ExtractGlimpse()(T(np.ones((1, 4, 4, 1))), T([2, 2, 2], np.int32), T([[0, 0]]))
    with pytest.raises(ValueError, match="deformable_groups"):
        ops.deformable_conv2d(T(np.ones((1, 2, 3, 3))), T(np.ones((1, 2, 1, 1))),
                              T(np.ones((1, 3, 3, 3))), 1, (1, 1, 1, 1), (0, 0, 0, 0),
                              deformable_groups="2")
    with pytest.raises(TypeError, match="op_info_register"):
        ops.op_info_register(3)


def test_fractional_max_pool_draws_its_starts_in_the_graph_under_jit():
    # the random window starts come from the one random state: a compiled call draws
    # new ones every call, the same ones PyNative draws from the same seed
    x = Tensor(np.random.default_rng(0).random((1, 2, 9, 9), dtype=np.float32))
    f = ms.jit(lambda x: ops.fractional_max_pool2d(x, 2, output_size=(4, 4)))
    ms.set_seed(5)
    first, second = f(x).asnumpy(), f(x).asnumpy()
    ms.set_seed(5)
    want = [ops.fractional_max_pool2d(x, 2, output_size=(4, 4)).asnumpy() for _ in range(2)]
    assert (first != second).any()
    np.testing.assert_array_equal(first, want[0])
    np.testing.assert_array_equal(second, want[1])
    assert not ms.jit_report(f).fallbacks
