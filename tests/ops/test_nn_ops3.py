"""Resize, 3-D adaptive pooling, 3-D grid sampling, Im2Col/Col2Im, pooling with arg-max,
data-format maps, channel dropout and the fused normalisations of ops (values probed on
MindSpore 2.10, CPU; the Ascend-only ones checked against their documented formulas),
with numerical gradient checks for the differentiable ones."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, mint, nn, ops
from tests.helpers.optable import OpCase, table_tests


def T(x, dtype=np.float32):
    return Tensor(np.array(x, dtype))


def _np_rms(x, g, eps=1e-6):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g


def _np_layer(x, g, b, eps=1e-5):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) * g + b


def _np_rope(x, c, s, mode):
    d = x.shape[-1]
    if mode == 0:
        rot = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1)
    else:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)
    return x * c + rot * s


def _np_log_softmax(x, axis):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def _np_adaptive(x, outs, reduce):
    out = np.zeros(x.shape[:-3] + tuple(outs))
    for idx in np.ndindex(*outs):
        sl = tuple(slice(i * s // o, -(-(i + 1) * s // o))
                   for i, s, o in zip(idx, x.shape[-3:], outs))
        win = x[(Ellipsis,) + sl].reshape(x.shape[:-3] + (-1,))
        out[(Ellipsis,) + idx] = reduce(win, -1)
    return out


GAMMA = lambda rng: rng.uniform(0.5, 1.5, (4,))    # noqa: E731
CASES = [
    OpCase("add_rms_norm", lambda a, b, g: ops.add_rms_norm(a, b, g)[0],
           lambda a, b, g: _np_rms(a + b, g), [(3, 4), (3, 4), GAMMA], rtol=1e-4),
    OpCase("add_layer_norm", lambda a, b, g, c: ops.add_layer_norm(a, b, g, c)[0],
           lambda a, b, g, c: _np_layer(a + b, g, c), [(3, 4), (3, 4), GAMMA, (4,)],
           rtol=1e-4, atol=1e-5),
    OpCase("rotary_position_embedding", lambda x, c, s: ops.rotary_position_embedding(x, c, s),
           lambda x, c, s: _np_rope(x, c, s, 0), [(2, 1, 3, 4), (1, 1, 3, 4), (1, 1, 3, 4)]),
    OpCase("rotary_position_embedding", lambda x, c, s: ops.rotary_position_embedding(x, c, s, 1),
           lambda x, c, s: _np_rope(x, c, s, 1), [(2, 1, 3, 4), (1, 1, 3, 4), (1, 1, 3, 4)],
           id="rotary_position_embedding interleaved"),
    OpCase("mse_loss_ext", lambda a, b: ops.mse_loss_ext(a, b),
           lambda a, b: ((a - b) ** 2).mean(), [(2, 3), (3,)]),
    OpCase("LogSoftmaxExt", lambda x: ops.LogSoftmaxExt()(x, 0),
           lambda x: _np_log_softmax(x, 0), [(3, 4)]),
    OpCase("adaptive_avg_pool3d", lambda x: ops.adaptive_avg_pool3d(x, (2, None, 3)),
           lambda x: _np_adaptive(x, (2, 4, 3), np.mean), [(1, 2, 3, 4, 5)]),
    OpCase("adaptive_max_pool3d", lambda x: ops.adaptive_max_pool3d(x, (2, 3, 2)),
           lambda x: _np_adaptive(x, (2, 3, 2), np.max), [(2, 3, 4, 5, 3)]),
    OpCase("ResizeBilinearV2", lambda x: ops.ResizeBilinearV2()(x, (5, 3)), None, [(1, 2, 3, 4)]),
    OpCase("ResizeBilinearV2", lambda x: ops.ResizeBilinearV2(half_pixel_centers=True)(x, (5, 3)),
           None, [(1, 2, 3, 4)], id="ResizeBilinearV2 half pixel"),
    OpCase("ResizeBicubic", lambda x: ops.ResizeBicubic()(x, (5, 3)), None, [(1, 1, 3, 4)]),
    # ResizeArea computes in Float32 whatever the input (as MindSpore): no float64 check
    OpCase("ResizeArea", lambda x: ops.ResizeArea()(x, (2, 3)), None, [(1, 3, 4, 2)],
           grad=False),
    OpCase("ResizeLinear1D", lambda x: ops.ResizeLinear1D("half_pixel")(x, (6,)), None,
           [(1, 2, 4)]),
    OpCase("UpsampleTrilinear3D", lambda x: ops.UpsampleTrilinear3D()(x, (3, 4, 5)), None,
           [(1, 1, 2, 3, 4)]),
    OpCase("GridSampler3D", lambda x, g: ops.GridSampler3D()(x, g), None,
           [(1, 2, 2, 3, 4), lambda rng: rng.uniform(-0.9, 0.9, (1, 2, 2, 2, 3))],
           grad_rtol=1e-3, grad_atol=1e-4),
    OpCase("Im2Col", lambda x: ops.Im2Col(2, 1)(x), None, [(1, 2, 4, 4)]),
    OpCase("Col2Im", lambda x: ops.Col2Im(2)(x, (4, 4)), None, [(1, 2, 4, 9)]),
    OpCase("MaxPoolWithArgmax", lambda x: ops.MaxPoolWithArgmax(2, 2)(x)[0], None,
           [(1, 2, 4, 4)]),
]
test_forward, test_infer_matches_kernel, test_gradient, test_jit_matches_pynative = \
    table_tests(CASES)


IMG = T(np.arange(12).reshape(1, 1, 3, 4))
# MindSpore 2.10 (CPU) values
RESIZE = [
    (lambda: ops.ResizeBilinearV2()(IMG, T([5, 3], np.int32)),
     [[0, 1.33333, 2.66667], [2.4, 3.73333, 5.06667], [4.8, 6.13333, 7.46667],
      [7.2, 8.53333, 9.86667], [8, 9.33333, 10.66667]]),
    (lambda: ops.ResizeBilinearV2(half_pixel_centers=True)(IMG, (5, 3)),
     [[0.16667, 1.5, 2.83333], [1.76667, 3.1, 4.43333], [4.16667, 5.5, 6.83333],
      [6.56667, 7.9, 9.23333], [8.16667, 9.5, 10.83333]]),
    (lambda: ops.ResizeBilinearV2(align_corners=True)(IMG, (5, 3)),
     [[0, 1.5, 3], [2, 3.5, 5], [4, 5.5, 7], [6, 7.5, 9], [8, 9.5, 11]]),
    (lambda: ops.ResizeNearestNeighborV2()(IMG, (5, 3)),
     [[0, 1, 2], [0, 1, 2], [4, 5, 6], [4, 5, 6], [8, 9, 10]]),
    (lambda: ops.ResizeNearestNeighborV2(half_pixel_centers=True)(IMG, (5, 3)),
     [[0, 2, 3], [0, 2, 3], [4, 6, 7], [8, 10, 11], [8, 10, 11]]),
    (lambda: ops.ResizeNearestNeighborV2(align_corners=True)(IMG, (5, 3)),
     [[0, 2, 3], [4, 6, 7], [4, 6, 7], [8, 10, 11], [8, 10, 11]]),
    (lambda: ops.ResizeBicubic()(IMG, (5, 3)),
     [[0, 1.3701, 2.74101], [2.01441, 3.38451, 4.75542], [5.08896, 6.45906, 7.82997],
      [7.39139, 8.76149, 10.1324], [8.43186, 9.80196, 11.17287]]),
]


@pytest.mark.parametrize("i", range(len(RESIZE)))
def test_resize_values_match_mindspore(i):
    call, want = RESIZE[i]
    np.testing.assert_allclose(call().asnumpy()[0, 0], want, rtol=1e-4, atol=1e-4)


def test_resize_area_linear1d_and_upsample3d_match_mindspore():
    out = ops.ResizeArea()(T(np.arange(12).reshape(1, 3, 4, 1)), T([2, 3], np.int32))
    assert out.shape == (1, 2, 3, 1) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy()[0, :, :, 0], [[1.58333, 2.83333, 4.08333],
                                                           [6.91667, 8.16667, 9.41667]],
                               rtol=1e-5)
    line = T(np.arange(4).reshape(1, 1, 4))
    np.testing.assert_allclose(ops.ResizeLinear1D()(line, T([6], np.int64)).asnumpy()[0, 0],
                               [0, 0.6, 1.2, 1.8, 2.4, 3.0], rtol=1e-6)
    np.testing.assert_allclose(ops.ResizeLinear1D("half_pixel")(line, (6,)).asnumpy()[0, 0],
                               [0, 0.5, 1.16667, 1.83333, 2.5, 3.0], rtol=1e-5)
    x5 = T(np.arange(24).reshape(1, 1, 2, 3, 4))
    near = ops.UpsampleNearest3D()(x5, None, [1.5, 1.5, 1.5])
    assert near.shape == (1, 1, 3, 4, 6)
    np.testing.assert_array_equal(near.asnumpy()[0, 0, 2, 0], [12, 12, 13, 14, 14, 15])
    tri = ops.UpsampleTrilinear3D()(x5, [3, 4, 5], None)
    np.testing.assert_allclose(tri.asnumpy()[0, 0, 1, 0], [6, 6.7, 7.5, 8.3, 9], rtol=1e-5)
    tri = ops.UpsampleTrilinear3D(True)(x5, [3, 4, 5])
    np.testing.assert_allclose(tri.asnumpy()[0, 0, 1, 1], [8.6667, 9.4167, 10.1667, 10.9167,
                                                           11.6667], rtol=1e-4)


def test_adaptive_max_pool3d_indices_match_mindspore():
    x = T(np.arange(2 * 3 * 4 * 4 * 4).reshape(2, 3, 4, 4, 4) % 7)
    values, index = ops.adaptive_max_pool3d(x, (2, 2, 3), True)
    assert index.dtype == ms.int32 and values.shape == (2, 3, 2, 2, 3)
    np.testing.assert_array_equal(values.asnumpy(), 6)
    np.testing.assert_array_equal(index.asnumpy()[0, 0], [[[20, 6, 6], [13, 13, 27]],
                                                          [[48, 34, 34], [41, 41, 62]]])
    v2, i2 = ops.AdaptiveMaxPool3D()(x, T([2, 2, 3], np.int32))
    np.testing.assert_array_equal(i2.asnumpy(), index.asnumpy())
    v3, i3 = nn.AdaptiveMaxPool3d((2, 2, 3), return_indices=True)(x)
    np.testing.assert_array_equal(i3.asnumpy(), index.asnumpy())
    assert ops.AdaptiveAvgPool3D((2, 2, 3))(x).shape == (2, 3, 2, 2, 3)
    np.testing.assert_allclose(ops.adaptive_avg_pool3d(x, (2, None, 3)).asnumpy()[0, 0, 0],
                               [[1.5, 2.5, 3.5], [3.75, 3, 2.25], [2.5, 3.5, 4.5],
                                [3, 2.25, 1.5]])


def test_grid_sampler3d_and_mint_grid_sample_match_mindspore():
    x5 = T(np.arange(24).reshape(1, 1, 2, 3, 4))
    grid = T(np.random.RandomState(0).uniform(-1, 1, (1, 2, 2, 2, 3)))
    want = [[[16.7438, 14.2648], [10.036, 15.2279]], [[4.5377, 4.7654], [10.9228, 17.121]]]
    np.testing.assert_allclose(ops.GridSampler3D()(x5, grid).asnumpy()[0, 0], want, rtol=1e-4)
    np.testing.assert_allclose(mint.nn.functional.grid_sample(x5, grid).asnumpy()[0, 0], want,
                               rtol=1e-4)
    x = T([[[[3, 1, 2, 5], [4, 0, 7, 6], [1, 8, 2, 2], [9, 1, 0, 3]]]])
    g2 = T(np.random.RandomState(0).uniform(-1, 1, (1, 2, 2, 2)))
    np.testing.assert_allclose(mint.nn.functional.grid_sample(x, g2).asnumpy()[0, 0],
                               [[2.5573, 3.7655], [6.3286, 0.6994]], rtol=1e-4)


X4 = T([[[[3, 1, 2, 5], [4, 0, 7, 6], [1, 8, 2, 2], [9, 1, 0, 3]]]])


def test_pooling_with_argmax_and_im2col_match_mindspore():
    v, i = ops.MaxPoolWithArgmax(2, 2)(X4)
    assert i.dtype == ms.int32
    np.testing.assert_array_equal(v.asnumpy()[0, 0], [[4, 7], [9, 3]])
    np.testing.assert_array_equal(i.asnumpy()[0, 0], [[4, 6], [12, 15]])
    v, i = ops.MaxPoolWithArgmax(3, 2, "same")(X4)
    np.testing.assert_array_equal(v.asnumpy()[0, 0], [[8, 7], [9, 3]])
    np.testing.assert_array_equal(i.asnumpy()[0, 0], [[9, 6], [12, 15]])
    v, i = ops.MaxPoolWithArgmaxV2(2, 2, 1)(X4)
    assert i.dtype == ms.int64
    np.testing.assert_array_equal(v.asnumpy()[0, 0], [[3, 2, 5], [4, 8, 6], [9, 1, 3]])
    np.testing.assert_array_equal(i.asnumpy()[0, 0], [[0, 2, 3], [4, 9, 7], [12, 13, 15]])
    v, i = ops.MaxPool3DWithArgmax(2, 2, 0)(X4.reshape((1, 1, 1, 4, 4)).tile((1, 1, 2, 1, 1)))
    np.testing.assert_array_equal(v.asnumpy()[0, 0, 0], [[4, 7], [9, 3]])
    np.testing.assert_array_equal(i.asnumpy()[0, 0, 0], [[4, 6], [12, 15]])
    cols = ops.Im2Col(2, 1)(X4)
    assert cols.shape == (1, 1, 4, 9)
    np.testing.assert_array_equal(cols.asnumpy()[0, 0, 0], [3, 1, 2, 4, 0, 7, 1, 8, 2])
    back = ops.Col2Im(2)(cols, T([4, 4], np.int32))
    np.testing.assert_array_equal(back.asnumpy()[0, 0], [[3, 2, 4, 5], [8, 0, 28, 12],
                                                         [2, 32, 8, 4], [9, 2, 0, 3]])
    np.testing.assert_array_equal(ops.col2im(cols, T([4, 4], np.int32), 2, 1, 0, 1).asnumpy(),
                                  back.asnumpy())


def test_data_format_maps_match_mindspore():
    dims = T([-4, -3, -2, -1, 0, 1, 2, 3], np.int32)
    np.testing.assert_array_equal(ops.DataFormatDimMap()(dims).asnumpy(), [0, 3, 1, 2] * 2)
    np.testing.assert_array_equal(ops.DataFormatDimMap("NCHW", "NHWC")(
        T([0, 1, 2, 3], np.int32)).asnumpy(), [0, 2, 3, 1])
    np.testing.assert_array_equal(ops.DataFormatVecPermute()(T([1, 2, 3, 4], np.int32))
                                  .asnumpy(), [1, 4, 2, 3])
    np.testing.assert_array_equal(ops.DataFormatVecPermute()(
        T([[1, 2], [3, 4], [5, 6], [7, 8]], np.int32)).asnumpy(), [[1, 2], [7, 8], [3, 4],
                                                                    [5, 6]])


def test_space_batch_round_trip():
    x = T(np.arange(32).reshape(2, 1, 4, 4))
    b = ops.SpaceToBatch(2, [[0, 0], [0, 0]])(x)
    assert b.shape == (8, 1, 2, 2)
    np.testing.assert_array_equal(b.asnumpy(), ops.space_to_batch_nd(x, 2, [[0, 0], [0, 0]])
                                  .asnumpy())
    np.testing.assert_array_equal(ops.BatchToSpace(2, [[0, 0], [0, 0]])(b).asnumpy(),
                                  x.asnumpy())
    np.testing.assert_array_equal(
        ops.BatchToSpaceNDV2()(b, T([2, 2], np.int32), [[0, 0], [0, 1]]).asnumpy(),
        x.asnumpy()[:, :, :, :3])


@pytest.mark.parametrize("cls,shape", [(ops.Dropout2D, (4, 6, 2, 3)),
                                       (ops.Dropout3D, (4, 6, 2, 1, 3))])
def test_channel_dropout_zeros_whole_channels(cls, shape):
    x = Tensor(np.ones(shape, np.float32))
    out, mask = cls(0.5)(x)
    assert mask.dtype == ms.bool_ and mask.shape == x.shape
    m = mask.asnumpy().reshape(shape[0], shape[1], -1)
    assert (m.all(-1) | ~m.any(-1)).all()                  # a channel is all kept or all dropped
    np.testing.assert_array_equal(out.asnumpy(), mask.asnumpy() * 2.0)
    out, mask = cls(1.0)(x)
    np.testing.assert_array_equal(out.asnumpy(), 1.0)


def test_fused_norms_follow_the_documented_formulas():
    x1 = T([[0.5, 1.0, 1.5], [0.5, 1.0, 1.5]])
    y, rstd, x = ops.add_rms_norm(x1, x1, T([1.0, 1.0, 1.0]))
    np.testing.assert_allclose(y.asnumpy(), [[0.46290997, 0.92581993, 1.3887299]] * 2,
                               rtol=1e-6)                 # MindSpore's documented example
    np.testing.assert_allclose(rstd.asnumpy(), [[0.46290997]] * 2, rtol=1e-6)
    np.testing.assert_array_equal(x.asnumpy(), (x1 + x1).asnumpy())
    y, rstd = ops.RmsNorm(1e-6)(x1, T([1.0, 2.0, 0.5]))
    assert rstd.shape == (2, 1)
    y, mean, rstd, x = ops.add_layer_norm(x1, x1, T([1.0, 1.0, 1.0]), T([0.0, 0.0, 0.0]))
    np.testing.assert_allclose(y.asnumpy(), [[-1.2247357, 0.0, 1.2247357]] * 2, rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [[2.0]] * 2)
    np.testing.assert_allclose(ops.mse_loss_ext(T([1, 2, 3]), T([[1, 1, 1], [1, 2, 2]]),
                                                reduction="none").asnumpy(),
                               [[0, 1, 4], [0, 0, 1]])


@pytest.mark.parametrize("call,err,words", [
    (lambda: ops.ResizeBilinearV2(True, True), ValueError, "half_pixel_centers"),
    (lambda: ops.ResizeBilinearV2()(IMG, (5,)), ValueError, "2 positive ints"),
    (lambda: ops.ResizeLinear1D("asymmetric"), ValueError, "coordinate_transformation_mode"),
    (lambda: ops.adaptive_max_pool3d(T(np.ones((2, 2, 2))), 2), ValueError, "4 or 5-D"),
    (lambda: ops.adaptive_avg_pool3d(T(np.ones((1, 1, 2, 2, 2))), (0, 1, 1)), ValueError,
     "output_size"),
    (lambda: ops.DataFormatDimMap("NHWC", "NCHX"), ValueError, "permutations"),
    (lambda: ops.DataFormatVecPermute()(T([1, 2, 3], np.int32)), ValueError, r"\(4,\)"),
    (lambda: ops.Dropout2D(2.0), ValueError, "keep_prob"),
    (lambda: ops.Dropout2D(0.5)(T(np.ones((2, 2, 2)))), ValueError, "4-D"),
    (lambda: ops.rotary_position_embedding(T(np.ones((1, 1, 2, 3))), T(np.ones((1, 1, 2, 3))),
                                           T(np.ones((1, 1, 2, 3)))), ValueError, "even"),
    (lambda: ops.mse_loss_ext(T([1.0]), T([1.0]), "avg"), ValueError, "reduction"),
    (lambda: ops.add_rms_norm(T([[1.0, 2.0]]), T([1.0, 2.0]), T([1.0, 1.0])), ValueError,
     "shapes of 'x1' and 'x2'"),
    (lambda: ops.MaxPoolWithArgmax(2, 2, "pad"), ValueError, "pad_mode"),
    (lambda: ops.GridSampler3D()(T(np.ones((1, 1, 2, 2, 2))), T(np.ones((1, 1, 1, 1, 2)))),
     ValueError, "grid"),
])
def test_bad_input_names_the_op_and_argument(call, err, words):
    with pytest.raises(err, match=words):
        call()
