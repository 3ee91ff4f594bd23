"""The optimizer-update primitive classes of ops (ApplyAdagrad, SparseApplyFtrl, Adam, ...):
in-place updates with MindSpore 2.10's argument orders; the expected values were probed on
the reference (CPU) or, where its CPU kernel departs from the documented formula
(docs/compatibility.md), computed from that formula."""
import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, ops


def T(x):
    return Tensor(np.array(x, np.float32))


def _state():
    return tuple(Parameter(T(v), name=n) for v, n in
                 (([1.0, 2.0], "var"), ([0.5, 0.3], "a"), ([0.1, 0.2], "b"), ([0.2, 0.1], "c")))


G = T([0.3, -0.4])

# (call on the state (var, a, b, c), number of updated state tensors, their values)
DENSE = {
    "ApplyAdaMax": (lambda v, a, b, c: ops.ApplyAdaMax()(v, a, b, T(0.9), T(0.01), T(0.9),
                                                        T(0.99), T(1e-7), G), 3,
                    [[0.84, 1.9425], [0.48, 0.23], [0.3, 0.4]]),
    "ApplyAdadelta": (lambda v, a, b, c: ops.ApplyAdadelta()(v, a, b, T(0.01), T(0.9),
                                                            T(1e-6), G), 3,
                      [[0.9985997, 2.003345], [0.459, 0.286], [0.0919608, 0.1911888]]),
    "ApplyAdagrad": (lambda v, a, b, c: ops.ApplyAdagrad()(v, a, T(0.01), G), 2,
                     [[0.99609435, 2.0058978], [0.59, 0.46]]),
    "ApplyAdagradV2": (lambda v, a, b, c: ops.ApplyAdagradV2(epsilon=0.1, update_slots=False)(
        v, a, T(0.01), G), 2, [[0.996283, 2.006176], [0.5, 0.3]]),
    "ApplyAddSign": (lambda v, a, b, c: ops.ApplyAddSign()(v, a, T(0.01), T(1.0), T(0.5),
                                                          T(0.9), G), 2,
                     [[0.9955, 2.002], [0.48, 0.23]]),
    "ApplyPowerSign": (lambda v, a, b, c: ops.ApplyPowerSign()(v, a, T(0.01), T(np.e), T(0.5),
                                                              T(0.9), G), 2,
                       [[0.9883215, 2.0010276], [0.48, 0.23]]),
    "ApplyGradientDescent": (lambda v, a, b, c: ops.ApplyGradientDescent()(v, T(0.01), G), 1,
                             [[0.997, 2.004]]),
    "ApplyProximalAdagrad": (lambda v, a, b, c: ops.ApplyProximalAdagrad()(
        v, a, T(0.01), T(0.001), T(0.002), G), 2, [[0.9960554, 2.0058238], [0.59, 0.46]]),
    "ApplyProximalGradientDescent": (lambda v, a, b, c: ops.ApplyProximalGradientDescent()(
        v, T(0.01), T(0.1), T(0.2), G), 1, [[0.994012, 1.999002]]),
    "ApplyAdamWithAmsgrad": (lambda v, a, b, c: ops.ApplyAdamWithAmsgrad()(
        v, a, b, c, T(0.9), T(0.999), T(0.01), G), 4,
        [[0.996606, 1.9983735], [0.48, 0.23], [0.09999, 0.19996], [0.2, 0.19996]]),
    "ApplyAdamWithAmsgradV2": (lambda v, a, b, c: ops.ApplyAdamWithAmsgradV2()(
        v, a, b, c, T(0.9), T(0.999), T(0.01), T(0.9), T(0.999), T(1e-8), G), 4,
        [[0.996606, 1.9983735], [0.48, 0.23], [0.09999, 0.19996], [0.2, 0.19996]]),
    # the documented formulas (no CPU kernel / a CPU kernel that departs from them):
    "ApplyKerasMomentum": (lambda v, a, b, c: ops.ApplyKerasMomentum()(v, a, T(0.01), G,
                                                                      T(0.9)), 2,
                           [[1.447, 2.274], [0.447, 0.274]]),
    "ApplyKerasMomentumNesterov": (lambda v, a, b, c: ops.ApplyKerasMomentum(
        use_nesterov=True)(v, a, T(0.01), G, T(0.9)), 2, [[1.3993, 2.2506], [0.447, 0.274]]),
    "ApplyAdagradNoSlots": (lambda v, a, b, c: ops.ApplyAdagrad(update_slots=False)(
        v, a, T(0.01), G), 2, [[0.9957574, 2.0073030], [0.5, 0.3]]),
}


@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_updates_write_their_state_and_return_it(name):
    call, n, want = DENSE[name]
    state = _state()
    out = call(*state)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == n
    assert all(o is s for o, s in zip(outs, state))          # the Parameters themselves
    for s, w in zip(state, want):
        np.testing.assert_allclose(s.asnumpy(), w, rtol=2e-6, atol=1e-7)


def test_ftrl_and_adagrad_da_return_var_and_update_accumulators():
    v, a, b, _ = _state()
    assert ops.ApplyFtrl()(v, a, b, G, T(0.01), T(0.0), T(0.0), T(-0.5)) is v
    # MindSpore's CPU kernel, for l1 = 0 (where it agrees with the documented formula)
    np.testing.assert_allclose(v.asnumpy(), [0.07421783, 0.38780314], rtol=1e-5)
    np.testing.assert_allclose(b.asnumpy(), [-5.70078, -26.30209], rtol=1e-5)
    v, a, b, _ = _state()
    ops.ApplyFtrl()(v, a, b, G, T(0.01), T(0.5), T(0.3), T(-0.5))
    lin = np.array([-5.70077936, -26.30208816])
    q = np.sqrt([0.59, 0.46]) / 0.01 + 0.6
    np.testing.assert_allclose(v.asnumpy(), (np.sign(lin) * 0.5 - lin) / q, rtol=1e-5)
    v, a, b, _ = _state()
    assert ops.ApplyAdagradDA()(v, a, b, G, T(0.01), T(0.001), T(0.002),
                                Tensor(2, ms.int64)) is v
    np.testing.assert_allclose(a.asnumpy(), [0.8, -0.1], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.19, 0.36], rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), [-0.0183057, 0.098 * 0.01 / (4e-5 + 0.6)],
                               rtol=1e-5)


def _rows():
    return tuple(Parameter(T(v), name=n) for v, n in (
        ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "var"), ([[0.5, 0.3], [0.1, 0.2], [0.4, 0.6]], "a"),
        ([[0.1, 0.2], [0.3, 0.1], [0.2, 0.2]], "b")))


GR = T([[0.3, -0.4], [0.2, 0.1]])
IDX = Tensor(np.array([2, 0], np.int32))
ADAM_HYPER = (T([0.9]), T([0.999]), T([0.01]), T([0.9]), T([0.999]), T([1e-8]))
SPARSE = {
    "SparseApplyAdagrad": (lambda v, a, b: ops.SparseApplyAdagrad(lr=0.01)(v, a, GR, IDX), 2,
                           [[[0.997278, 1.998204], [3, 4], [4.995714, 6.004588]],
                            [[0.54, 0.31], [0.1, 0.2], [0.49, 0.76]]]),
    "SparseApplyFtrl": (lambda v, a, b: ops.SparseApplyFtrl(0.01, 0.001, 0.002, -0.5)(
        v, a, b, GR, IDX), 3,
        [[[0.033652, 0.027114], [3, 4], [0.475276, 0.671112]],
         [[0.54, 0.31], [0.1, 0.2], [0.49, 0.76]],
         [[-2.474018, -1.510777], [0.3, 0.1], [-33.272232, -58.509869]]]),
    "FusedSparseFtrl": (lambda v, a, b: ops.FusedSparseFtrl(0.01, 0.001, 0.002, -0.5)(
        v, a, b, GR, IDX), 3,
        [[[0.033652, 0.027114], [3, 4], [0.475276, 0.671112]],
         [[0.54, 0.31], [0.1, 0.2], [0.49, 0.76]],
         [[-2.474018, -1.510777], [0.3, 0.1], [-33.272232, -58.509869]]]),
    "FusedSparseAdam": (lambda v, a, b: ops.FusedSparseAdam()(v, a, b, *ADAM_HYPER, GR, IDX), 3,
                        [[[0.995299, 1.998019], [2.99948, 3.998199], [4.997242, 5.996464]],
                         [[0.47, 0.28], [0.09, 0.18], [0.39, 0.5]],
                         [[0.09994, 0.19981], [0.2997, 0.0999], [0.19989, 0.19996]]]),
    "FusedSparseLazyAdam": (lambda v, a, b: ops.FusedSparseLazyAdam()(
        v, a, b, *ADAM_HYPER, GR, IDX), 3,
        [[[0.995299, 1.998019], [3, 4], [4.997242, 5.996464]],
         [[0.47, 0.28], [0.1, 0.2], [0.39, 0.5]],
         [[0.09994, 0.19981], [0.3, 0.1], [0.19989, 0.19996]]]),
}


@pytest.mark.parametrize("name", sorted(SPARSE))
def test_sparse_updates_touch_the_indexed_rows(name):
    call, n, want = SPARSE[name]
    state = _rows()
    out = call(*state)
    assert len(out) == n and all(o is s for o, s in zip(out, state))
    for s, w in zip(state, want):
        np.testing.assert_allclose(s.asnumpy(), w, rtol=2e-6, atol=2e-6)


def test_sparse_updates_agree_with_the_dense_ones_on_their_rows():
    """Each sparse update is its dense update on the selected rows; duplicate indices add
    their gradient rows (SparseApplyAdadelta, SparseApplyRMSProp, SparseApplyProximalAdagrad,
    SparseApplyAdagradV2, SparseApplyFtrlV2)."""
    grad = T([[0.3, -0.4], [0.1, 0.1], [0.2, 0.1]])
    idx = Tensor(np.array([0, 2, 0], np.int64))
    summed = T([[0.5, -0.3], [0.0, 0.0], [0.1, 0.1]])

    def check(sparse, dense, n):
        s, d, initial = _rows(), _rows(), _rows()
        sparse(*s, grad, idx)
        dense(*d, summed)
        for a, b, before in zip(s[:n], d[:n], initial):
            got, want = a.asnumpy(), b.asnumpy()
            np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=1e-6)
            np.testing.assert_array_equal(got[1], before.asnumpy()[1])   # row 1: no index
    check(lambda v, a, b, g, i: ops.SparseApplyAdadelta(1e-6)(v, a, b, T(0.01), T(0.9), g, i),
          lambda v, a, b, g: ops.ApplyAdadelta()(v, a, b, T(0.01), T(0.9), T(1e-6), g), 3)
    check(lambda v, a, b, g, i: ops.SparseApplyProximalAdagrad()(v, a, T(0.01), T(0.001),
                                                                 T(0.002), g, i),
          lambda v, a, b, g: ops.ApplyProximalAdagrad()(v, a, T(0.01), T(0.001), T(0.002), g), 2)
    check(lambda v, a, b, g, i: ops.FusedSparseProximalAdagrad()(v, a, T([0.01]), T([0.001]),
                                                                 T([0.002]), g, i),
          lambda v, a, b, g: ops.ApplyProximalAdagrad()(v, a, T(0.01), T(0.001), T(0.002), g), 2)
    check(lambda v, a, b, g, i: ops.SparseApplyAdagradV2(0.01, 0.1)(v, a, g, i),
          lambda v, a, b, g: ops.ApplyAdagradV2(0.1)(v, a, T(0.01), g), 2)
    check(lambda v, a, b, g, i: ops.SparseApplyRMSProp(0.9, 0.8, 1e-6)(v, a, b, T(0.01), g, i),
          lambda v, a, b, g: ops.ApplyRMSProp()(v, a, b, T(0.01), g, 0.9, 0.8, 1e-6), 3)


def test_ftrl_v2_shrinks_the_linear_gradient():
    v, a, b = _rows()
    ops.SparseApplyFtrlV2(0.01, 0.0, 0.0, 0.5, -0.5)(v, a, b, T([[0.3, -0.4]]),
                                                    Tensor(np.array([1], np.int32)))
    g = np.array([0.3, -0.4]) + 2 * 0.5 * np.array([3.0, 4.0])
    acc = np.array([0.1, 0.2]) + np.array([0.09, 0.16])
    lin = np.array([0.3, 0.1]) + g - (np.sqrt(acc) - np.sqrt([0.1, 0.2])) / 0.01 * [3.0, 4.0]
    np.testing.assert_allclose(b.asnumpy()[1], lin, rtol=1e-5)
    np.testing.assert_allclose(v.asnumpy()[1], -lin / (np.sqrt(acc) / 0.01), rtol=1e-5)


def test_adam_family_and_sgd():
    g = T([[0.3, -0.4], [0.2, 0.1], [0.1, 0.1]])
    v, m, s = _rows()
    out = ops.Adam()(v, m, s, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, g)
    assert out[0] is v and out[1] is m and out[2] is s
    np.testing.assert_allclose(v.asnumpy(), [[0.9952, 1.998374], [2.999364, 3.998099],
                                             [4.997382, 5.996109]], rtol=1e-6)
    v, m, s = _rows()
    ops.AdamWeightDecay()(v, m, s, 0.01, 0.9, 0.999, 1e-8, 0.1, g)
    np.testing.assert_allclose(v.asnumpy(), [[0.98382, 1.992856], [2.994991, 3.989989],
                                             [4.986722, 5.981696]], rtol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), [[0.48, 0.23], [0.11, 0.19], [0.37, 0.55]],
                               rtol=1e-6)
    _, m, s = _rows()
    step = ops.AdamNoUpdateParam()(m, s, T(0.9), T(0.999), T(0.01), T(0.9), T(0.999), T(1e-8), g)
    np.testing.assert_allclose(step.asnumpy(), [[-0.0048, -0.001626], [-0.000635, -0.001901],
                                                [-0.002618, -0.003891]], atol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), [[0.48, 0.23], [0.11, 0.19], [0.37, 0.55]],
                               rtol=1e-6)
    v, a, b = _rows()
    assert ops.SGD(0.1, 0.01, False)(v, g, T(0.01), a, T(0.9), b) is v
    np.testing.assert_allclose(v.asnumpy(), [[0.9969, 2.0038], [2.9977, 3.9986],
                                             [4.9985, 5.9984]], rtol=1e-6)
    np.testing.assert_array_equal(b.asnumpy(), 0)


def test_updates_inside_jit_write_their_parameters():
    v, a, _, _ = _state()

    @ms.jit
    def step(g):
        ops.ApplyAdagrad()(v, a, T(0.01), g)
        return v * 1

    out = step(G)
    np.testing.assert_allclose(out.asnumpy(), [0.99609435, 2.0058978], rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), [0.59, 0.46], rtol=1e-6)
    step(G)
    np.testing.assert_allclose(a.asnumpy(), [0.68, 0.62], rtol=1e-6)


@pytest.mark.parametrize("call,err,words", [
    (lambda s: ops.ApplyAdagrad()(s[0], s[1], T(0.01), T([1.0, 2.0, 3.0])), ValueError,
     "ApplyAdagrad.*'grad'"),
    (lambda s: ops.ApplyAdagrad()(s[0], T([1.0]), T(0.01), G), ValueError,
     "ApplyAdagrad.*'accum'"),
    (lambda s: ops.ApplyAddSign()(s[0], s[1], T([0.01, 0.1]), 1.0, 0.5, 0.9, G), ValueError,
     "'lr' must be a scalar"),
    (lambda s: ops.ApplyGradientDescent()(Tensor(np.ones(2, np.int32)), 0.1, G), TypeError,
     "floating-point"),
    (lambda s: ops.SparseApplyAdagrad(0.1)(s[0], s[1], T([[0.1, 0.2]]),
                                           Tensor(np.array([0], np.int32))), ValueError,
     "SparseApplyAdagrad.*'grad'"),
    (lambda s: ops.SparseApplyAdagrad(0.1)(s[0], s[1], G, Tensor(np.array([0.0, 1.0],
                                                                          np.float32))),
     TypeError, "'indices' must be a 1-D integer"),
    (lambda s: ops.SparseApplyAdagrad(0.1)(s[0], s[1], G, Tensor(np.array([0, 5], np.int32))),
     ValueError, "'indices' must be in"),
    (lambda s: ops.SparseApplyAdagrad("0.1"), TypeError, "'lr' must be a float"),
    (lambda s: ops.SparseApplyFtrl(0.1, -1.0, 0.0, -0.5), ValueError, "non-negative"),
    (lambda s: ops.ApplyAdagrad(update_slots=1), TypeError, "'update_slots' must be a bool"),
    (lambda s: ops.ApplyAdagrad()(s[0], s[1], T(0.01)), TypeError, "4 inputs"),
])
def test_bad_input_names_the_op_and_argument(call, err, words):
    state = _state()
    before = state[0].asnumpy().copy()
    with pytest.raises(err, match=words):
        call(state)
    np.testing.assert_array_equal(state[0].asnumpy(), before)     # nothing written


def test_lars_update_and_nn_lars_follow_the_documented_formula():
    w, g = np.array([1.0, 2.0, 3.0]), np.array([0.1, -0.2, 0.3])
    ratio = 0.001 * np.sqrt(14) / (np.sqrt(0.14) + 0.01 * np.sqrt(14) + 1e-5)
    got = ops.LARSUpdate()(T(w), T(g), T(14.0), T(0.14), 0.01, 0.1)
    np.testing.assert_allclose(got.asnumpy(), (g + 0.01 * w) * ratio, rtol=1e-5)
    got = ops.LARSUpdate(use_clip=True)(T(w), T(g), T(14.0), T(0.14), T(0.01), T(0.1))
    np.testing.assert_allclose(got.asnumpy(), (g + 0.01 * w) * min(ratio / 0.1, 1), rtol=1e-5)
    got = ops.LARSUpdate()(T(w), T(g), T(0.0), T(0.14), 0.01, 0.1)       # zero norm: ratio 1
    np.testing.assert_allclose(got.asnumpy(), g + 0.01 * w, rtol=1e-6)
    weight = Parameter(T(w), name="w")
    bias = Parameter(T([0.5]), name="bias")
    opt = ms.nn.LARS(ms.nn.Momentum([weight, bias], 0.1, 0.9, weight_decay=0.01),
                     coefficient=0.5)
    opt((T(g), T([1.0])))
    ratio = 0.5 * np.sqrt(14) / (np.sqrt(0.14) + 0.01 * np.sqrt(14) + 1e-5)
    np.testing.assert_allclose(weight.asnumpy(), w - 0.1 * (g + 0.01 * w) * ratio, rtol=1e-5)
    np.testing.assert_allclose(bias.asnumpy(), [0.4], rtol=1e-6)     # 'bias': plain Momentum
    with pytest.raises(TypeError, match="LARS.*optimizer"):
        ms.nn.LARS(object())
    with pytest.raises(TypeError, match="LARSUpdate.*'use_clip'"):
        ops.LARSUpdate(use_clip=1)
