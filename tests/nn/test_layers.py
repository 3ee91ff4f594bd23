"""nn layers: forward values against NumPy or MindSpore-generated numbers, gradients w.r.t.
inputs and parameters against finite differences, defaults, repr and error messages.

Numbers marked "MindSpore 2.10" were produced by the reference install (CPU) running the
same layer on the same input and weights; the other references are NumPy formulas.
"""
import warnings

import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor
from tests.nn.layer_checks import check_grads


def t32(a):
    return Tensor(np.asarray(a, np.float32))


RNG = np.random.default_rng(0)

# ---------------------------------------------------------------- activations
ACT_X = [-3.5, -1.0, -0.2, 0.0, 0.7, 2.0, 4.0]
# MindSpore 2.10: getattr(nn, name)()(Tensor(ACT_X)) for each name
ACT_WANT = {
    "ReLU": [0.0, 0.0, 0.0, 0.0, 0.7, 2.0, 4.0],
    "ReLU6": [0.0, 0.0, 0.0, 0.0, 0.7, 2.0, 4.0],
    "LeakyReLU": [-0.7, -0.2, -0.04, 0.0, 0.7, 2.0, 4.0],
    "ELU": [-0.9698026, -0.6321212, -0.1812693, 0.0, 0.7, 2.0, 4.0],
    "CELU": [-0.9698026, -0.6321205, -0.1812692, 0.0, 0.7, 2.0, 4.0],
    "SeLU": [-1.7050093, -1.1113307, -0.3186893, 0.0, 0.7354907, 2.101402, 4.202804],
    "GELU": [-0.0006161, -0.158808, -0.0841486, 0.0, 0.5305701, 1.9545977, 3.9999299],
    "FastGelu": [-0.0090334, -0.1542042, -0.0831425, 0.0, 0.5368939, 1.9356586, 3.995585],
    "SiLU": [-0.1025927, -0.2689416, -0.0900332, 0.0, 0.4677314, 1.7615943, 3.928055],
    "Mish": [-0.1040957, -0.303401, -0.1071448, 0.0, 0.5611484, 1.943959, 3.997413],
    "Sigmoid": [0.0293122, 0.2689416, 0.450166, 0.5, 0.6681878, 0.8807971, 0.982014],
    "LogSigmoid": [-3.5297503, -1.3132608, -0.7981385, -0.693147, -0.403186, -0.1269279,
                   -0.01815],
    "Tanh": [-0.9981822, -0.7615942, -0.1973753, 0.0, 0.6043678, 0.9640276, 0.9993442],
    "Tanhshrink": [-2.5018177, -0.2384058, -0.0026247, 0.0, 0.0956322, 1.0359724, 3.0006557],
    "Hardtanh": [-1.0, -1.0, -0.2, 0.0, 0.7, 1.0, 1.0],
    "HSwish": [0.0, -0.3333333, -0.0933333, 0.0, 0.4316666, 1.6666666, 4.0],
    "HSigmoid": [0.0, 0.3333333, 0.4666667, 0.5, 0.6166667, 0.8333333, 1.0],
    "Softsign": [-0.7777778, -0.5, -0.1666667, 0.0, 0.4117647, 0.6666667, 0.8],
    "Softmax": [0.000456, 0.0055556, 0.0123642, 0.0151017, 0.030411, 0.1115872, 0.8245243],
    "LogSoftmax": [-7.6929474, -5.1929474, -4.3929472, -4.1929474, -3.4929473, -2.1929474,
                   -0.1929473],
    "Softmin": [0.8555778, 0.07023, 0.0315564, 0.0258362, 0.0128299, 0.0034965, 0.0004732],
}


@pytest.mark.parametrize("name", sorted(ACT_WANT))
def test_activation_values(name):
    got = getattr(nn, name)()(t32(ACT_X)).asnumpy()
    np.testing.assert_allclose(got, ACT_WANT[name], rtol=2e-5, atol=2e-6)


def test_activation_arguments():
    x = t32(ACT_X)
    # MindSpore 2.10 values
    np.testing.assert_allclose(nn.GELU(approximate=False)(x).asnumpy(),
                               [-0.0008142, -0.1586553, -0.0841481, 0.0, 0.5306255, 1.9544997,
                                3.9998732], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(x).asnumpy(),
                               [-0.35, -0.1, -0.02, 0.0, 0.7, 2.0, 4.0], rtol=1e-6)
    np.testing.assert_allclose(nn.SoftShrink()(x).asnumpy(), [-3.0, -0.5, 0, 0, 0.2, 1.5, 3.5],
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(nn.HShrink()(x).asnumpy(), [-3.5, -1.0, 0, 0, 0.7, 2.0, 4.0])
    np.testing.assert_allclose(nn.Softmax(0)(t32([[1, 2], [3, 5]])).asnumpy(),
                               [[0.1192029, 0.0474259], [0.880797, 0.9525741]], rtol=1e-5)
    assert nn.ReLU()(Tensor(np.array([-1, 2], np.int32))).dtype == ms.int32
    with pytest.raises(TypeError, match="For 'GELU', the 'approximate' must be a bool"):
        nn.GELU(1)


def test_prelu():
    # MindSpore 2.10 values
    np.testing.assert_allclose(nn.PReLU()(t32(ACT_X)).asnumpy(),
                               [-0.875, -0.25, -0.05, 0.0, 0.7, 2.0, 4.0], rtol=1e-6)
    out = nn.PReLU(2, [0.1, 0.3])(t32([[[-1, 2], [-3, 4]]]))
    np.testing.assert_allclose(out.asnumpy(), [[[-0.1, 2.0], [-0.9, 4.0]]], rtol=1e-6)
    assert [(p.name, p.shape) for p in nn.PReLU(2).get_parameters()] == [("a", (2,))]
    layer = nn.PReLU(3, Tensor(np.array([0.1, 0.2, 0.3])))
    check_grads(layer, [RNG.standard_normal((2, 3, 4))], layer.trainable_params())


@pytest.mark.parametrize("name", ["GELU", "SiLU", "Mish", "ELU", "Sigmoid", "Tanh", "Softmax",
                                  "LogSoftmax", "LeakyReLU", "HSwish", "Softsign"])
def test_activation_gradients(name):
    x = np.random.default_rng(2).uniform(-2.5, 2.5, (3, 4))
    check_grads(getattr(nn, name)(), [x], rtol=1e-4, atol=1e-7)


def test_get_activation():
    assert isinstance(nn.get_activation("relu"), nn.ReLU)
    assert nn.get_activation(None) is None
    with pytest.raises(KeyError, match="The 'name' must be in"):
        nn.get_activation("foo")


# ---------------------------------------------------------------- Dense
def test_dense_forward_and_default_init():
    ms.set_seed(1)
    d = nn.Dense(100, 50)
    assert d.weight.shape == (50, 100) and d.bias.shape == (50,)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    assert 0.09 < np.abs(w).max() <= 0.1 and np.abs(b).max() <= 0.1       # U(±1/√in)
    assert 0.05 < w.std() < 0.065                                          # 0.1/√3 = 0.0577
    x = RNG.standard_normal((4, 100)).astype(np.float32)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)


def test_dense_nd_and_1d_inputs():
    d = nn.Dense(3, 2)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    x = RNG.standard_normal((2, 7, 3)).astype(np.float32)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)
    assert d(Tensor(x[0, 0])).shape == (2,)


def test_dense_options_and_repr():
    d = nn.Dense(2, 3, weight_init="ones", bias_init="zeros", activation="relu")
    np.testing.assert_allclose(d(t32([[1, -2]])).asnumpy(), [[0, 0, 0]])
    assert isinstance(d.activation, nn.ReLU)
    assert [p.name for p in nn.Dense(2, 3, has_bias=False).get_parameters()] == ["weight"]
    d_prim = nn.Dense(2, 3, weight_init="ones", bias_init="zeros", activation=ops.ReLU())
    np.testing.assert_allclose(d_prim(t32([[1, -2]])).asnumpy(), [[0, 0, 0]])
    assert repr(nn.Dense(2, 3, has_bias=False)) == \
        "Dense(input_channels=2, output_channels=3, has_bias=False)"
    d2 = nn.Dense(2, 2, weight_init=t32([[1, 2], [3, 4]]), activation=nn.Sigmoid())
    np.testing.assert_allclose(d2(t32([[1, 1]])).asnumpy(),
                               1 / (1 + np.exp(-(np.array([[3, 7]]) + d2.bias.asnumpy()))),
                               rtol=1e-6)


def test_dense_gradients():
    d = nn.Dense(3, 2, dtype=ms.float64)
    check_grads(d, [RNG.standard_normal((4, 3))], d.trainable_params())


def test_dense_errors():
    with pytest.raises(ValueError, match="'in_channels' must be int and must > 0, but got '0'"):
        nn.Dense(0, 3)
    with pytest.raises(TypeError, match="'in_channels' must be int, but got 'float'"):
        nn.Dense(2.0, 3)
    with pytest.raises(TypeError, match="'has_bias' must be a bool, but got int"):
        nn.Dense(2, 3, has_bias=1)
    with pytest.raises(TypeError, match="'activation' must be str or Cell or Primitive"):
        nn.Dense(2, 3, activation=3)
    with pytest.raises(KeyError):
        nn.Dense(2, 3, activation="foo")
    with pytest.raises(ValueError, match="weight init shape error"):
        nn.Dense(2, 3, weight_init=t32(np.ones((2, 3))))
    with pytest.raises(TypeError, match="MatMul"):
        nn.Dense(2, 3)(Tensor(np.ones((4, 2), np.int32)))
    with pytest.raises(ValueError):
        nn.Dense(2, 3)(t32(np.ones((4, 5))))


# ---------------------------------------------------------------- Flatten / Identity
def test_flatten_and_identity():
    x = t32(np.arange(120).reshape(2, 3, 4, 5))
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0)(x).shape == (120,)
    assert nn.Flatten(1, 2)(x).shape == (2, 12, 5)
    np.testing.assert_array_equal(nn.Flatten()(x).asnumpy(), np.arange(120).reshape(2, 60))
    with pytest.raises(ValueError, match="'start_dim' or 'end_dim' out of range."):
        nn.Flatten()(t32([1, 2]))
    assert nn.Identity(3, a=2)(x) is x


# ---------------------------------------------------------------- Dropout
def test_dropout_is_identity_unless_training():
    x = t32(np.ones((100, 100)))
    assert nn.Dropout(p=0.5)(x) is x


def test_dropout_training_statistics():
    ms.set_seed(0)
    x = t32(np.ones((200, 200)))
    with pytest.warns(UserWarning, match="keep_prob"):
        by_keep_prob = nn.Dropout(keep_prob=0.5)
    for layer, keep in ((nn.Dropout(p=0.2), 0.8), (by_keep_prob, 0.5)):
        y = layer.set_train()(x).asnumpy()
        kept = y != 0
        assert abs(kept.mean() - keep) < 0.02
        np.testing.assert_allclose(y[kept], 1 / keep, rtol=1e-6)
    assert nn.Dropout(p=0.0).set_train()(x) is x


def test_dropout_p_wins_and_repr_and_warning():
    with pytest.warns(UserWarning, match="this parameter `keep_prob` will be deprecated"):
        d = nn.Dropout()
    assert repr(d) == "Dropout(keep_prob=0.5)"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        d = nn.Dropout(keep_prob=0.9, p=0.3)
    assert repr(d) == "Dropout(p=0.3)" and d.p == 0.3


@pytest.mark.filterwarnings("ignore:For Dropout, this parameter")
def test_dropout_errors():
    with pytest.raises(TypeError, match="the type of 'keep_prob' should be 'float', but got type "
                                        "'int'"):
        nn.Dropout(keep_prob=0)
    with pytest.raises(ValueError, match=r"'keep_prob' must be a number in range \(0, 1\], but "
                                         r"got 0.0"):
        nn.Dropout(keep_prob=0.0)
    with pytest.raises(ValueError, match=r"'p' must be a number in range \[0, 1\), but got 1.0"):
        nn.Dropout(p=1.0)


# ---------------------------------------------------------------- Embedding
def test_embedding_lookup_and_init():
    ms.set_seed(0)
    e = nn.Embedding(1000, 8)
    table = e.embedding_table.asnumpy()
    assert e.embedding_table.name == "embedding_table" and table.dtype == np.float32
    assert 0.008 < table.std() < 0.012                      # N(0, 0.01)
    ids = np.array([[1, 5], [999, 0]], np.int32)
    np.testing.assert_array_equal(e(Tensor(ids)).asnumpy(), table[ids])
    np.testing.assert_array_equal(e(Tensor(ids.astype(np.int64))).asnumpy(), table[ids])
    one_hot = nn.Embedding(1000, 8, use_one_hot=True, embedding_table=Tensor(table))
    np.testing.assert_allclose(one_hot(Tensor(ids)).asnumpy(), table[ids], rtol=1e-6)


def test_embedding_padding_idx_and_gradient():
    e = nn.Embedding(4, 2, embedding_table="ones", padding_idx=0)
    np.testing.assert_array_equal(e.embedding_table.asnumpy()[0], [0, 0])
    grads = ms.grad(lambda i: e(i).sum(), grad_position=None, weights=e.trainable_params())(
        Tensor(np.array([0, 1, 1, 3], np.int32)))
    # MindSpore 2.10: the padding row still receives its gradient
    np.testing.assert_array_equal(grads[0].asnumpy(), [[1, 1], [2, 2], [0, 0], [1, 1]])


def test_embedding_errors_and_repr():
    with pytest.raises(ValueError, match=r"'padding_idx' must be in range of \[0, 5\), but got 7"):
        nn.Embedding(5, 3, padding_idx=7)
    with pytest.raises(TypeError):
        nn.Embedding(5, 3)(t32([[1.0, 2.0]]))
    assert repr(nn.Embedding(5, 3)).startswith(
        "Embedding(vocab_size=5, embedding_size=3, use_one_hot=False, embedding_table=Parameter "
        "(name=embedding_table, shape=(5, 3), dtype=Float32, requires_grad=True), dtype=Float32, "
        "padding_idx=None)")


# ---------------------------------------------------------------- convolution
def np_conv2d(x, w, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """Direct cross-correlation (N, C, H, W) * (O, C/groups, kh, kw)."""
    x = np.pad(x, ((0, 0), (0, 0), pads[:2], pads[2:]))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (wd - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch,
                                                         w[g * og:(g + 1) * og, :, i, j])
    return out


def test_conv2d_defaults_and_shapes():
    ms.set_seed(0)
    conv = nn.Conv2d(3, 8, 3)
    assert [(p.name, p.shape) for p in conv.get_parameters()] == [("weight", (8, 3, 3, 3))]
    bound = 1 / np.sqrt(27)                                          # HeUniform(√5)
    assert 0.9 * bound < np.abs(conv.weight.asnumpy()).max() <= bound
    x = t32(np.ones((1, 3, 10, 10)))
    assert conv(x).shape == (1, 8, 10, 10)
    assert nn.Conv2d(3, 8, 3, pad_mode="valid")(x).shape == (1, 8, 8, 8)
    assert nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1)(x).shape == (1, 8, 10, 10)
    assert nn.Conv2d(3, 8, 3, stride=2)(x).shape == (1, 8, 5, 5)
    assert nn.Conv2d(3, 8, 16, stride=16)(t32(np.ones((1, 3, 224, 224)))).shape == (1, 8, 14, 14)
    x5 = t32(np.ones((1, 3, 5, 5)))
    assert nn.Conv2d(3, 8, 3, pad_mode="pad", padding=(1, 1, 2, 2))(x5).shape == (1, 8, 5, 7)
    assert nn.Conv2d(3, 8, (3, 2), stride=(2, 1), dilation=2)(t32(np.ones((1, 3, 9, 9)))).shape \
        == (1, 8, 5, 9)
    biased = nn.Conv2d(3, 8, 3, has_bias=True)
    assert biased.bias.shape == (8,) and np.abs(biased.bias.asnumpy()).max() <= bound


def test_conv2d_same_padding_puts_the_odd_pixel_last():
    x = t32(np.arange(25).reshape(1, 1, 5, 5))
    w = t32([[[[1, 2], [3, 4]]]])
    # MindSpore 2.10
    np.testing.assert_allclose(nn.Conv2d(1, 1, 2, weight_init=w)(x).asnumpy()[0, 0], [
        [41, 51, 61, 71, 31], [91, 101, 111, 121, 51], [141, 151, 161, 171, 71],
        [191, 201, 211, 221, 91], [62, 65, 68, 71, 24]])
    np.testing.assert_allclose(nn.Conv2d(1, 1, 2, stride=2, weight_init=w)(x).asnumpy()[0, 0],
                               [[41, 61, 31], [141, 161, 71], [62, 68, 24]])


@pytest.mark.parametrize("kw", [dict(pad_mode="valid"),
                                dict(pad_mode="pad", padding=(1, 0, 2, 1), stride=2),
                                dict(pad_mode="pad", padding=1, dilation=2),
                                dict(pad_mode="valid", group=2, has_bias=True)])
def test_conv2d_matches_numpy(kw):
    conv = nn.Conv2d(4, 6, 3, **kw)
    x = RNG.standard_normal((2, 4, 7, 8)).astype(np.float32)
    w = conv.weight.asnumpy()
    pads = kw.get("padding", 0)
    pads = (pads,) * 4 if isinstance(pads, int) else pads
    s, d = kw.get("stride", 1), kw.get("dilation", 1)
    want = np_conv2d(x, w, (s, s), pads, (d, d), kw.get("group", 1))
    if kw.get("has_bias"):
        want = want + conv.bias.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(conv(Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_conv2d_gradients():
    conv = nn.Conv2d(2, 3, 3, stride=2, has_bias=True, dtype=ms.float64)
    check_grads(conv, [RNG.standard_normal((1, 2, 5, 5))], conv.trainable_params(), rtol=1e-4)


def test_conv2d_errors_and_repr():
    with pytest.raises(ValueError, match="'pad' must be zero when 'pad_mode' is not 'pad', but got "
                                         "'pad': 1 and 'pad_mode': same"):
        nn.Conv2d(3, 8, 3, padding=1)
    with pytest.raises(ValueError, match="'group' should be divisible by 'in_channels' and "
                                         "'out_channels'"):
        nn.Conv2d(3, 8, 3, group=2)
    with pytest.raises(ValueError, match="'kernel_size item' must be int and must > 0"):
        nn.Conv2d(3, 8, 0)
    with pytest.raises(ValueError, match=r"'pad_mode' must be str and must be in "
                                         r"'\['valid', 'same', 'pad'\]', but got 'PAD'"):
        nn.Conv2d(3, 8, 3, pad_mode="PAD")
    with pytest.raises(ValueError, match="'pad size' must be int and must = 4, but got '2'"):
        nn.Conv2d(3, 8, 3, pad_mode="pad", padding=(1, 2))
    with pytest.raises(ValueError, match="'padding' must be int and must >= 0, but got '-1'"):
        nn.Conv2d(3, 8, 3, pad_mode="pad", padding=-1)
    with pytest.raises(ValueError, match='"NHWC" format only support in GPU target'):
        nn.Conv2d(3, 8, 3, data_format="NHWC")
    with pytest.raises(ValueError, match="the x shape size must be equal to 4, but got 3"):
        nn.Conv2d(3, 8, 3)(t32(np.ones((3, 5, 5))))
    with pytest.raises(ValueError):
        nn.Conv2d(3, 8, 3)(t32(np.ones((1, 4, 5, 5))))
    assert repr(nn.Conv2d(3, 8, 3, weight_init="normal", bias_init="zeros", has_bias=True)) == (
        "Conv2d(input_channels=3, output_channels=8, kernel_size=(3, 3), stride=(1, 1), "
        "pad_mode=same, padding=0, dilation=(1, 1), group=1, has_bias=True, weight_init=normal, "
        "bias_init=zeros, format=NCHW)")


def test_conv1d():
    conv = nn.Conv1d(2, 4, 3)
    assert [(p.name, p.shape) for p in conv.get_parameters()] == [("weight", (4, 2, 1, 3))]
    x = t32(np.ones((1, 2, 10)))
    assert conv(x).shape == (1, 4, 10)
    assert nn.Conv1d(2, 4, 3, pad_mode="valid")(x).shape == (1, 4, 8)
    assert nn.Conv1d(2, 4, 3, has_bias=True, pad_mode="pad", padding=1, stride=2)(x).shape == \
        (1, 4, 5)
    w = t32([[[1, -1, 2]]])
    out = nn.Conv1d(1, 1, 3, stride=2, weight_init=w)(t32(np.arange(6).reshape(1, 1, 6)))
    np.testing.assert_allclose(out.asnumpy(), [[[3, 7, -1]]])          # MindSpore 2.10
    assert repr(nn.Conv1d(2, 4, 3, pad_mode="pad", padding=1)).startswith(
        "Conv1d(input_channels=2, output_channels=4, kernel_size=(1, 3), stride=(1, 1), "
        "pad_mode=pad, padding=(0, 0, 1, 1), dilation=(1, 1), group=1, has_bias=False")
    with pytest.raises(ValueError, match="the x shape size must be equal to 3"):
        conv(t32(np.ones((2, 10))))


def test_conv2d_transpose_shapes_and_values():
    ct = nn.Conv2dTranspose(2, 6, 3, group=2)
    assert [(p.name, p.shape) for p in ct.get_parameters()] == [("weight", (2, 3, 3, 3))]
    x = t32(np.ones((1, 2, 5, 5)))
    assert nn.Conv2dTranspose(2, 6, 3)(x).shape == (1, 6, 5, 5)
    assert nn.Conv2dTranspose(2, 6, 3, stride=2)(x).shape == (1, 6, 10, 10)
    assert nn.Conv2dTranspose(2, 6, 3, stride=2, pad_mode="valid")(x).shape == (1, 6, 11, 11)
    assert nn.Conv2dTranspose(2, 6, 3, stride=2, pad_mode="pad", padding=1)(x).shape == \
        (1, 6, 9, 9)
    assert nn.Conv2dTranspose(2, 6, 3, stride=2, pad_mode="pad", padding=1,
                              output_padding=1)(x).shape == (1, 6, 10, 10)
    assert nn.Conv2dTranspose(2, 6, 4, stride=2)(x).shape == (1, 6, 10, 10)
    w3 = t32(np.arange(9).reshape(1, 1, 3, 3) / 10)
    xs = t32(np.arange(9).reshape(1, 1, 3, 3))
    # MindSpore 2.10
    np.testing.assert_allclose(
        nn.Conv2dTranspose(1, 1, 3, stride=2, weight_init=w3)(xs).asnumpy()[0, 0],
        [[0, 0, 0, 0.1, 0.2, 0.2], [0, 0, 0.3, 0.4, 1.1, 0.8], [0, 0.3, 1.2, 1.1, 2.8, 1.9],
         [0.9, 1.2, 2.7, 1.6, 3.5, 2.0], [1.8, 2.7, 6.0, 3.5, 7.6, 4.3],
         [1.8, 2.4, 5.1, 2.8, 5.9, 3.2]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        nn.Conv2dTranspose(1, 1, 2, weight_init=t32([[[[1, 2], [3, 4]]]]))(xs).asnumpy()[0, 0],
        [[0, 1, 4], [3, 13, 23], [15, 43, 53]])
    np.testing.assert_allclose(
        nn.Conv2dTranspose(1, 1, 3, stride=2, pad_mode="pad", padding=(0, 1, 1, 0),
                           weight_init=w3)(xs).asnumpy()[0, 0],
        [[0, 0, 0.1, 0.2, 0.2, 0.4], [0, 0.3, 0.4, 1.1, 0.8, 1.0], [0.3, 1.2, 1.1, 2.8, 1.9, 2.6],
         [1.2, 2.7, 1.6, 3.5, 2.0, 2.5], [2.7, 6.0, 3.5, 7.6, 4.3, 5.6],
         [2.4, 5.1, 2.8, 5.9, 3.2, 4.0]], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="when output_padding is not zero, pad_mode must be 'pad'"):
        nn.Conv2dTranspose(2, 6, 3, stride=2, output_padding=1)


def test_conv_transpose_gradients_and_1d():
    ct = nn.Conv2dTranspose(2, 2, 3, stride=2, has_bias=True, dtype=ms.float64)
    check_grads(ct, [RNG.standard_normal((1, 2, 3, 3))], ct.trainable_params(), rtol=1e-4)
    out = nn.Conv1dTranspose(1, 1, 3, stride=2, weight_init=t32([[[1, -1, 2]]]))(
        t32(np.arange(6).reshape(1, 1, 6)))
    np.testing.assert_allclose(out.asnumpy(),                              # MindSpore 2.10
                               [[[0, 0, 1, -1, 4, -2, 7, -3, 10, -4, 13, -5]]])


# ---------------------------------------------------------------- pooling
X5 = t32(np.arange(50).reshape(1, 2, 5, 5))


def test_max_pool2d_values_and_shapes():
    # MindSpore 2.10 shapes and values
    assert nn.MaxPool2d(2)(X5).shape == (1, 2, 4, 4)                  # stride defaults to 1
    assert nn.MaxPool2d(2, 2)(X5).shape == (1, 2, 2, 2)
    assert nn.MaxPool2d(2, 2, pad_mode="same")(X5).shape == (1, 2, 3, 3)
    assert nn.MaxPool2d(2, 2, pad_mode="pad", ceil_mode=True)(X5).shape == (1, 2, 3, 3)
    assert nn.MaxPool2d(2, 2)(t32(np.ones((2, 5, 5)))).shape == (2, 2, 2)
    np.testing.assert_array_equal(nn.MaxPool2d(2, 2, pad_mode="same")(X5).asnumpy()[0, 0],
                                  [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    out, idx = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1, return_indices=True)(X5)
    np.testing.assert_array_equal(out.asnumpy()[0, 1], [[31, 33, 34], [41, 43, 44],
                                                        [46, 48, 49]])
    np.testing.assert_array_equal(idx.asnumpy()[0, 1], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(nn.MaxPool2d(3, 2, pad_mode="pad", padding=(1, 0))(X5)
                                  .asnumpy()[0, 0], [[7, 9], [17, 19], [22, 24]])
    np.testing.assert_array_equal(nn.MaxPool2d(3, 1, pad_mode="pad", dilation=2)(X5)
                                  .asnumpy()[0, 0], [[24]])
    assert repr(nn.MaxPool2d((2, 3), (1, 2))) == \
        "MaxPool2d(kernel_size=(2, 3), stride=(1, 2), pad_mode=VALID)"


def test_max_pool_errors():
    with pytest.raises(ValueError, match="can not be set to non-default value when pad_mode is "
                                         "not 'pad', but got pad_mode:valid"):
        nn.MaxPool2d(2, 2, ceil_mode=True)
    with pytest.raises(ValueError, match=r"'pad_mode' must be str and must be in "
                                         r"'\['VALID', 'SAME', 'PAD'\]', but got 'FOO'"):
        nn.MaxPool2d(2, 2, pad_mode="foo")
    with pytest.raises(ValueError, match="'kernel_size' must be an positive int number or a "
                                         "tuple, but got 0"):
        nn.MaxPool2d(0)
    with pytest.raises(ValueError):
        nn.MaxPool2d(2, 2)(t32(np.ones((5, 5))))


def test_avg_pool2d_values():
    # MindSpore 2.10
    np.testing.assert_allclose(nn.AvgPool2d(2, 2, pad_mode="same")(X5).asnumpy()[0, 0],
                               [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]])
    np.testing.assert_allclose(nn.AvgPool2d(3, 2, pad_mode="pad", padding=1)(X5).asnumpy()[0, 0],
                               [[1.3333334, 3, 2.6666667], [7, 12, 9], [8, 13, 9.333333]],
                               rtol=1e-6)
    np.testing.assert_allclose(nn.AvgPool2d(3, 2, pad_mode="pad", padding=1,
                                            count_include_pad=False)(X5).asnumpy()[0, 0],
                               [[3, 4.5, 6], [10.5, 12, 13.5], [18, 19.5, 21]])
    np.testing.assert_allclose(nn.AvgPool2d(3, 2, pad_mode="pad", padding=1,
                                            divisor_override=2)(X5).asnumpy()[0, 0],
                               [[6, 13.5, 12], [31.5, 54, 40.5], [36, 58.5, 42]])
    np.testing.assert_allclose(nn.AvgPool2d(2, 2, ceil_mode=True)(X5).asnumpy()[0, 0],
                               [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]])
    np.testing.assert_allclose(nn.AvgPool2d(2, 2, pad_mode="same", divisor_override=3)(X5)
                               .asnumpy()[0, 0], [[4, 6.6666665, 4.3333335],
                                                  [17.333334, 20, 11], [13.666667, 15, 8]],
                               rtol=1e-6)
    np.testing.assert_allclose(nn.AvgPool2d(2, 2, pad_mode="pad", padding=(1, 0))(X5)
                               .asnumpy()[0, 0], [[0.25, 1.25], [8, 10], [18, 20]])
    with pytest.raises(ValueError, match="contains 1 or 2 int, but got tuple/list with "
                                         "length:4"):
        nn.AvgPool2d(2, 2, pad_mode="pad", padding=(1, 0, 1, 0))
    with pytest.raises(ValueError, match="'pad' must be zero"):
        nn.AvgPool2d(3, 2, padding=1)


def test_pool1d_values():
    y = t32(np.arange(20).reshape(1, 2, 10))
    # MindSpore 2.10
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2)(y).asnumpy(),
                                  [[[2, 4, 6, 8], [12, 14, 16, 18]]])
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2, pad_mode="same")(y).asnumpy(),
                                  [[[2, 4, 6, 8, 9], [12, 14, 16, 18, 19]]])
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2, pad_mode="pad", padding=1)(y).asnumpy(),
                                  [[[1, 3, 5, 7, 9], [11, 13, 15, 17, 19]]])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2)(y).asnumpy(), [[[1, 3, 5, 7], [11, 13, 15, 17]]])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, pad_mode="same")(y).asnumpy(),
                               [[[1, 3, 5, 7, 8.5], [11, 13, 15, 17, 18.5]]])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, pad_mode="pad", padding=1)(y).asnumpy(),
                               [[[0.33333334, 2, 4, 6, 8], [7, 12, 14, 16, 18]]], rtol=1e-6)
    np.testing.assert_allclose(nn.AvgPool1d(2, 2, ceil_mode=True)(
        t32(np.arange(5).reshape(1, 1, 5))).asnumpy(), [[[0.5, 2.5, 4]]])
    out, idx = nn.MaxPool1d(2, 2, pad_mode="pad", return_indices=True)(t32([[[3, 1, 4, 1, 5, 9]]]))
    np.testing.assert_array_equal(out.asnumpy(), [[[3, 4, 9]]])
    np.testing.assert_array_equal(idx.asnumpy(), [[[0, 2, 5]]])
    assert nn.MaxPool1d(3, 2)(t32(np.ones((2, 10)))).shape == (2, 4)
    assert repr(nn.MaxPool1d(2)) == "MaxPool1d(kernel_size=(1, 2), stride=(1, 1), pad_mode=VALID)"


def test_adaptive_pools():
    # MindSpore 2.10
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d(2)(X5).asnumpy()[0], [[[6, 8], [16, 18]],
                                                                          [[31, 33], [41, 43]]],
                               rtol=1e-6)
    assert nn.AdaptiveAvgPool2d((None, 2))(X5).shape == (1, 2, 5, 2)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((3, 2))(X5).asnumpy()[0, 0],
                               [[3.5, 5.5], [11, 13], [18.5, 20.5]], rtol=1e-6)
    np.testing.assert_array_equal(nn.AdaptiveMaxPool2d(2)(X5).asnumpy()[0, 0], [[12, 14],
                                                                                [22, 24]])
    _, idx = nn.AdaptiveMaxPool2d(2, return_indices=True)(X5)
    np.testing.assert_array_equal(idx.asnumpy()[0, 1], [[12, 14], [22, 24]])
    np.testing.assert_allclose(nn.AdaptiveAvgPool1d(2)(t32(np.arange(6).reshape(1, 1, 6)))
                               .asnumpy(), [[[1, 4]]], rtol=1e-6)
    np.testing.assert_array_equal(nn.AdaptiveMaxPool1d(3)(t32(np.arange(6).reshape(1, 1, 6)))
                                  .asnumpy(), [[[1, 3, 5]]])


def test_pool_gradients():
    x = RNG.standard_normal((1, 2, 5, 5))
    check_grads(nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), [x])
    check_grads(nn.AvgPool2d(2, 2, pad_mode="same"), [x])
    check_grads(nn.AvgPool1d(3, 2, pad_mode="pad", padding=1), [x[0]])
    check_grads(nn.AdaptiveAvgPool2d((3, 2)), [x])


# ---------------------------------------------------------------- normalisation
BN_X = t32([[1, 2], [3, 8], [5, 5]])


def test_batchnorm_training_updates_moving_statistics():
    bn = nn.BatchNorm1d(2).set_train()
    # MindSpore 2.10
    np.testing.assert_allclose(bn(BN_X).asnumpy(), [[-1.2247427, -1.2247438], [0, 1.2247438],
                                                    [1.2247427, 0]], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.3, 0.5], rtol=1e-6)  # 0.9·0+0.1·μ
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.3, 1.8], rtol=1e-6)  # unbiased
    assert bn.momentum == pytest.approx(0.1)
    bn.set_train(False)
    mean, var = np.array([0.3, 0.5]), np.array([1.3, 1.8])
    np.testing.assert_allclose(bn(BN_X).asnumpy(), (BN_X.asnumpy() - mean) / np.sqrt(var + 1e-5),
                               rtol=1e-5)


def test_batchnorm_modes():
    fresh = nn.BatchNorm1d(2)
    np.testing.assert_allclose(fresh(BN_X).asnumpy(), BN_X.asnumpy() / np.sqrt(1 + 1e-5),
                               rtol=1e-6)
    forced = nn.BatchNorm1d(2, use_batch_statistics=True)
    forced(BN_X)
    np.testing.assert_allclose(forced.moving_mean.asnumpy(), [0.3, 0.5], rtol=1e-6)
    frozen = nn.BatchNorm1d(2, use_batch_statistics=False).set_train()
    np.testing.assert_allclose(frozen(BN_X).asnumpy(), BN_X.asnumpy() / np.sqrt(1 + 1e-5),
                               rtol=1e-6)
    np.testing.assert_array_equal(frozen.moving_mean.asnumpy(), [0, 0])
    assert [(p.name, p.requires_grad) for p in nn.BatchNorm1d(2, affine=False)
            .get_parameters()] == [("mean", False), ("variance", False), ("gamma", False),
                                   ("beta", False)]


def test_batchnorm2d_matches_numpy_and_gradients():
    x = RNG.standard_normal((4, 3, 2, 2))
    bn = nn.BatchNorm2d(3, momentum=0.8, gamma_init="normal", beta_init="normal",
                        dtype=ms.float64).set_train()
    g, b = bn.gamma.asnumpy(), bn.beta.asnumpy()
    mu, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    want = (x - mu[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) * g[:, None, None] + \
        b[:, None, None]
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.2 * mu, rtol=1e-6)
    check_grads(bn, [x], bn.trainable_params(), rtol=1e-4)
    assert nn.BatchNorm1d(3)(t32(np.ones((2, 3, 4)))).shape == (2, 3, 4)


def test_batchnorm_errors_and_repr():
    with pytest.raises(ValueError, match="must have 2 dims or 3 dims, but got 4"):
        nn.BatchNorm1d(3)(t32(np.ones((2, 3, 4, 5))))
    with pytest.raises(ValueError, match="the in_shape must have 4 dims, but got 2"):
        nn.BatchNorm2d(3)(t32(np.ones((2, 3))))
    with pytest.raises(ValueError, match="'num_features' must be at least 1, but got 0"):
        nn.BatchNorm1d(0)
    with pytest.raises(ValueError, match=r"'momentum' must be a number in range \[0, 1\]"):
        nn.BatchNorm1d(3, momentum=1.5)
    with pytest.raises(ValueError, match="'use_batch_statistics' must be a boolean value or None"):
        nn.BatchNorm2d(3, use_batch_statistics=1)
    with pytest.raises(ValueError):
        nn.BatchNorm1d(3)(t32(np.ones((2, 4))))
    assert repr(nn.BatchNorm1d(3)) == (
        "BatchNorm1d(num_features=3, eps=1e-05, momentum=0.9, gamma=Parameter (name=gamma, "
        "shape=(3,), dtype=Float32, requires_grad=True), beta=Parameter (name=beta, shape=(3,), "
        "dtype=Float32, requires_grad=True), moving_mean=Parameter (name=mean, shape=(3,), "
        "dtype=Float32, requires_grad=False), moving_variance=Parameter (name=variance, "
        "shape=(3,), dtype=Float32, requires_grad=False))")


def test_batchnorm3d_is_a_batchnorm2d_child_as_in_mindspore():
    # MindSpore 2.10: BatchNorm3d holds BatchNorm2d 'bn2d', so its checkpoint names are
    # bn2d.moving_mean, ...; it normalises (N, C, D*H, W) with that child
    bn = nn.BatchNorm3d(2, momentum=0.7).set_train()
    assert [p.name for p in bn.get_parameters()] == [
        "bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma", "bn2d.beta"]
    x = RNG.standard_normal((2, 2, 3, 2, 2)).astype(np.float32)
    mu, var = x.mean((0, 2, 3, 4)), x.var((0, 2, 3, 4))
    want = (x - mu[:, None, None, None]) / np.sqrt(var[:, None, None, None] + 1e-5)
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.bn2d.moving_mean.asnumpy(), 0.3 * mu, rtol=1e-5)
    with pytest.raises(ValueError, match="'BatchNorm3d', the in_shape must have 5 dims, but got 4"):
        bn(t32(np.ones((2, 2, 3, 3))))


def test_layernorm():
    x = t32(np.arange(48).reshape(2, 3, 8))
    ln = nn.LayerNorm((3, 8), begin_norm_axis=1, begin_params_axis=1)
    # MindSpore 2.10 (both configurations give the same with gamma=1, beta=0)
    np.testing.assert_allclose(ln(x).asnumpy()[0, 0, :3], [-1.6613247, -1.5168617, -1.3723986],
                               rtol=1e-5)
    np.testing.assert_allclose(nn.LayerNorm((8,), begin_norm_axis=1)(x).asnumpy()[0, 0, :3],
                               [-1.6613247, -1.5168617, -1.3723986], rtol=1e-5)
    tiny = t32([[0, 0, 0, 0, 0, 0, 0, 1e-3]])                 # epsilon 1e-7 matters here
    np.testing.assert_allclose(nn.LayerNorm((8,))(tiny).asnumpy(),
                               [[-0.2731792] * 7 + [1.9122543]], rtol=1e-4)
    assert [p.name for p in ln.get_parameters()] == ["gamma", "beta"]


def test_layernorm_params_axis_and_gradients():
    x = RNG.standard_normal((2, 3, 4))
    ln = nn.LayerNorm((4,), begin_norm_axis=1, gamma_init="normal", beta_init="normal",
                      dtype=ms.float64)
    g, b = ln.gamma.asnumpy(), ln.beta.asnumpy()
    mu, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(ln(Tensor(x)).asnumpy(), (x - mu) / np.sqrt(var + 1e-7) * g + b,
                               rtol=1e-6, atol=1e-8)
    check_grads(ln, [x], ln.trainable_params(), rtol=1e-4)
    ln2 = nn.LayerNorm((4,), dtype=ms.float64)
    check_grads(ln2, [x], ln2.trainable_params(), rtol=1e-4)


def test_layernorm_errors_and_repr():
    with pytest.raises(TypeError, match="the type of 'normalized_shape' must be tuple\\[int\\] or "
                                        "list\\[int\\], but got 8"):
        nn.LayerNorm(8)
    with pytest.raises(ValueError, match="gamma or beta shape must match input shape"):
        nn.LayerNorm((3, 8))(t32(np.ones((2, 3, 8))))
    assert repr(nn.LayerNorm((4,))) == (
        "LayerNorm(normalized_shape=(4,), begin_norm_axis=-1, begin_params_axis=-1, "
        "gammaParameter (name=gamma, shape=(4,), dtype=Float32, requires_grad=True), "
        "beta=Parameter (name=beta, shape=(4,), dtype=Float32, requires_grad=True))")


def test_groupnorm():
    # MindSpore 2.10
    out = nn.GroupNorm(2, 4)(t32(np.arange(16).reshape(1, 4, 2, 2)))
    np.testing.assert_allclose(out.asnumpy()[0, :, 0, 0], [-1.5275238, 0.2182177, -1.5275238,
                                                           0.2182177], rtol=1e-5)
    np.testing.assert_allclose(nn.GroupNorm(2, 4)(t32(np.arange(8).reshape(2, 4))).asnumpy(),
                               [[-0.99998, 0.99998, -0.99998, 0.99998]] * 2, rtol=1e-5)
    assert nn.GroupNorm(2, 4)(t32(np.ones((2, 4, 3)))).shape == (2, 4, 3)
    assert [(p.name, p.shape) for p in nn.GroupNorm(2, 4).get_parameters()] == [
        ("gamma", (4,)), ("beta", (4,))]
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(num_groups=2, num_channels=4)"
    gn = nn.GroupNorm(2, 4, gamma_init="normal", beta_init="normal", dtype=ms.float64)
    check_grads(gn, [RNG.standard_normal((2, 4, 3))], gn.trainable_params(), rtol=1e-4)
    with pytest.raises(ValueError, match="'num_channels' must be divided by 'num_groups'"):
        nn.GroupNorm(3, 4)
    with pytest.raises(ValueError):
        nn.GroupNorm(2, 4)(t32(np.ones((1, 3, 2, 2))))


def test_to_float_conv_batchnorm_net():
    net = nn.SequentialCell(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2),
                            nn.Flatten()).to_float(ms.float16)
    net.set_train()
    x = t32(RNG.uniform(0, 1, (2, 3, 6, 6)))
    y = net(x)
    assert y.dtype == ms.float16 and y.shape == (2, 36)
    bn = net[1]
    assert bn.moving_mean.dtype == ms.float32
    conv_out = net[0](x).asnumpy().astype(np.float32)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.1 * conv_out.mean((0, 2, 3)),
                               rtol=2e-2, atol=1e-4)
    grads = ms.grad(lambda v: net(v).sum(), grad_position=None,
                    weights=net.trainable_params())(x)
    assert [g.dtype for g in grads] == [ms.float32] * 3


def test_channel_dropout_zeroes_whole_channels():
    ms.set_seed(0)
    x = t32(np.ones((4, 50, 3, 3)))
    y = nn.Dropout2d(p=0.5).set_train()(x).asnumpy()
    per_channel = y.reshape(4, 50, 9)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert np.all(per_channel.min(-1) == per_channel.max(-1))      # a channel is all or nothing
    assert 0.35 < (per_channel[..., 0] == 0).mean() < 0.65
    y1 = nn.Dropout1d(p=0.5).set_train()(t32(np.ones((4, 50, 7)))).asnumpy()
    assert np.all(y1.min(-1) == y1.max(-1))
    assert nn.Dropout2d(p=0.5)(x) is x


def test_clip_by_norm_cell_follows_the_documented_formula():
    """With an axis, x * clip / max(norm(x, axis), clip) per row (MindSpore 2.10's CPU kernel
    misplaces the row norms: it gives [[0.9, 1.2], [0.3638, 0], [6, 8]] here)."""
    x = np.array([[3.0, 4.0, 0, 0], [1.0, 0, 0, 0], [6, 8, 0, 0]], np.float32)
    got = nn.ClipByNorm(axis=1)(ms.Tensor(x), ms.Tensor(np.float32(1.5))).asnumpy()
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    np.testing.assert_allclose(got, x * 1.5 / np.maximum(norm, 1.5), rtol=1e-6)


def test_softmax_cross_entropy_gives_labels_no_gradient():
    logits = ms.Tensor([[2.0, 1.0, 0.1]])
    labels = ms.Tensor([[0.7, 0.2, 0.1]])
    loss = nn.SoftmaxCrossEntropyWithLogits(reduction="mean")
    g = ms.ops.grad(lambda a, b: loss(a, b), (0, 1))(logits, labels)
    assert np.abs(g[0].asnumpy()).sum() > 0 and not g[1].asnumpy().any()
