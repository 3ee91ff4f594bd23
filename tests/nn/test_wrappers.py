"""Wrapper cells: return values, parameter names, sens, loss scaling with a forced overflow.

Expected numbers for the small network below (y = x @ w + b, mean-squared loss) were
printed by MindSpore 2.10 (CPU) for the same inputs and weights.
"""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Parameter, Tensor

X = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
Y = np.array([[0.5, 0.5], [1.0, 0.0]], np.float32)
X_INF = np.array([[np.inf, 2.0], [3.0, -1.0]], np.float32)
W = np.array([[0.5, -0.2], [0.1, 0.3]], np.float32)
B = np.array([0.1, 0.0], np.float32)


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")
        self.b = Parameter(Tensor(B), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


class MSE(nn.Cell):
    def construct(self, logits, labels):
        return ops.mean(ops.square(logits - labels))


def numpy_grads(w, b):
    """d mean((xw + b - y)^2) / d(w, b), by hand."""
    d = 2 * (X @ w + b - Y) / Y.size
    return X.T @ d, d.sum(axis=0)


def test_with_loss_cell():
    net = Linear()
    with_loss = nn.WithLossCell(net, MSE())
    loss = with_loss(Tensor(X), Tensor(Y))
    assert loss.shape == () and float(loss) == pytest.approx(0.29)      # MindSpore: 0.29000002
    assert with_loss.backbone_network is net
    assert [p.name for p in with_loss.trainable_params()] == ["w", "b"]  # auto_prefix=False


def test_train_one_step_returns_loss_before_update():
    net = Linear()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()), opt)
    assert step.sens == 1.0 and not step.reducer_flag and step.weights is opt.parameters
    assert not step.training
    assert float(step(Tensor(X), Tensor(Y))) == pytest.approx(0.29)
    gw, gb = numpy_grads(W, B)
    np.testing.assert_allclose(net.w.asnumpy(), W - 0.1 * gw, rtol=1e-6)
    np.testing.assert_allclose(net.b.asnumpy(), B - 0.1 * gb, rtol=1e-6)
    second = float(step(Tensor(X), Tensor(Y)))
    assert second < 0.29
    names = [p.name for p in step.get_parameters()]
    assert names[:2] == ["w", "b"] and "moments.w" in names and "global_step" in names


def test_train_one_step_sens_scales_gradients():
    net = Linear()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=2.0)
    assert float(step(Tensor(X), Tensor(Y))) == pytest.approx(0.29)
    # MindSpore 2.10: w after one step with sens=2.0
    np.testing.assert_allclose(net.w.asnumpy(), [[0.32, 0.08000003], [0.09, 0.22999999]],
                               rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="can not be 0"):
        nn.TrainOneStepCell(nn.WithLossCell(Linear(), MSE()),
                            nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=0)


def test_train_one_step_return_grad():
    net = Linear()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()),
                               nn.Momentum(net.trainable_params(), 0.1, 0.9), return_grad=True)
    loss, grads = step(Tensor(X), Tensor(Y))
    assert float(loss) == pytest.approx(0.29) and list(grads) == ["w", "b"]
    # MindSpore 2.10 printed w: [[0.9, -1.4], [0.05, 0.35]], b: [0.4, -0.5]
    np.testing.assert_allclose(grads["w"].asnumpy(), [[0.9, -1.4], [0.05, 0.35]], atol=1e-6)
    np.testing.assert_allclose(grads["b"].asnumpy(), [0.4, -0.5], atol=1e-6)


def test_grad_reducer_is_applied():
    net = Linear()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, MSE()), nn.SGD(net.trainable_params(), 1.0))
    seen = []

    class Halve(nn.Cell):
        def construct(self, grads):
            seen.append(len(grads))
            return tuple(g * 0.5 for g in grads)
    step.grad_reducer = Halve()
    step(Tensor(X), Tensor(Y))
    gw, _ = numpy_grads(W, B)
    assert seen == [2]
    np.testing.assert_allclose(net.w.asnumpy(), W - 0.5 * gw, rtol=1e-6)


def test_with_eval_cell():
    net = Linear()
    loss, out, label = nn.WithEvalCell(net, MSE())(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(out.asnumpy(), X @ W + B, rtol=1e-6)
    assert float(loss) == pytest.approx(0.29) and label.asnumpy().tolist() == Y.tolist()
    half = nn.WithEvalCell(net, MSE(), add_cast_fp32=True)
    _, out, label = half(Tensor(X), Tensor(Y.astype(np.float16)))
    assert out.dtype == ms.float32 and label.dtype == ms.float32
    with pytest.raises(TypeError, match="add_cast_fp32"):
        nn.WithEvalCell(net, MSE(), add_cast_fp32=1)


def test_with_grad_cell():
    net = Linear()
    gw, gb = nn.WithGradCell(net, MSE())(Tensor(X), Tensor(Y))
    want_w, want_b = numpy_grads(W, B)
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), want_b, rtol=1e-6)
    with_loss = nn.WithLossCell(net, MSE())
    gw2, _ = nn.WithGradCell(with_loss, None, sens=Tensor(2.0))(Tensor(X), Tensor(Y))
    np.testing.assert_allclose(gw2.asnumpy(), 2 * want_w, rtol=1e-6)


def test_forward_value_and_grad():
    net = Linear()
    with_loss = nn.WithLossCell(net, MSE())
    x, y = Tensor(X), Tensor(Y)
    loss, (gw, gb) = nn.ForwardValueAndGrad(with_loss, weights=with_loss.trainable_params(),
                                            get_by_list=True)(x, y)
    want_w, want_b = numpy_grads(W, B)
    assert float(loss) == pytest.approx(0.29)
    np.testing.assert_allclose(gw.asnumpy(), want_w, rtol=1e-6)
    loss, (dx, dy) = nn.ForwardValueAndGrad(with_loss, get_all=True)(x, y)
    d = 2 * (X @ W + B - Y) / Y.size
    np.testing.assert_allclose(dx.asnumpy(), d @ W.T, rtol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), -d, rtol=1e-6)
    loss, dx_only = nn.ForwardValueAndGrad(with_loss)(x, y)
    np.testing.assert_allclose(dx_only.asnumpy(), d @ W.T, rtol=1e-6)
    loss, (dxs, ws) = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_all=True,
                                             get_by_list=True, sens_param=True)(
        x, Tensor(np.ones((2, 2), np.float32)))
    assert len(dxs) == 1 and len(ws) == 2
    with pytest.raises(TypeError, match="weights"):
        nn.ForwardValueAndGrad(with_loss, get_by_list=True)
    with pytest.raises(TypeError, match="network"):
        nn.ForwardValueAndGrad(3)


def test_parameter_update():
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
    out = nn.ParameterUpdate(p)(Tensor(np.array([7.0, 8.0], np.float32)))
    assert out.asnumpy().tolist() == [7.0, 8.0] and p.asnumpy().tolist() == [7.0, 8.0]
    with pytest.raises(TypeError, match="Parameter"):
        nn.ParameterUpdate(Tensor(np.zeros(2, np.float32)))


# ------------------------------------------------------------------ loss scaling
def _scaled_step(scale_sense):
    net = Linear()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    return net, nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, MSE()), opt, scale_sense)


def test_loss_scale_step_matches_unscaled_step():
    net, step = _scaled_step(Tensor(np.float32(1024.0)))
    loss, overflow, scale = step(Tensor(X), Tensor(Y))
    assert float(loss) == pytest.approx(0.29) and not bool(overflow)
    assert overflow.dtype == ms.bool_ and overflow.shape == ()
    assert scale is step.scale_sense and float(scale) == 1024.0
    gw, _ = numpy_grads(W, B)
    np.testing.assert_allclose(net.w.asnumpy(), W - 0.1 * gw, rtol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf on purpose
def test_dynamic_loss_scale_with_forced_overflow():
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2 ** 12, scale_factor=2,
                                           scale_window=2)
    net, step = _scaled_step(update)
    assert [p.name for p in update.get_parameters()] == ["current_iterator_step",
                                                         "last_overflow_iterator_step"]
    assert step.scale_sense.name == "scale_sense" and update.get_loss_scale() == 4096
    scales, flags = [], []
    for x in (X, X, X, X_INF, X):
        before = net.w.asnumpy().copy()
        _, overflow, scale = step(Tensor(x), Tensor(Y))
        flags.append(bool(overflow))
        scales.append(float(scale))
        if overflow:      # the update is skipped, the parameters are unchanged
            np.testing.assert_array_equal(net.w.asnumpy(), before)
        else:
            assert not np.array_equal(net.w.asnumpy(), before)
    assert flags == [False, False, False, True, False]
    # grows after scale_window=2 clean steps, halves on overflow (MindSpore's update rule)
    assert scales == [4096.0, 8192.0, 8192.0, 4096.0, 4096.0]
    assert int(update.cur_iter) == 6 and int(update.last_overflow_iter) == 4
    assert np.isfinite(net.w.asnumpy()).all()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf on purpose
def test_loss_scale_never_drops_below_one():
    update = nn.DynamicLossScaleUpdateCell(loss_scale_value=2.0, scale_factor=4, scale_window=10)
    _, step = _scaled_step(update)
    step(Tensor(X_INF), Tensor(Y))
    assert float(step.scale_sense) == 1.0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # inf on purpose
def test_fixed_loss_scale_update_cell():
    update = nn.FixedLossScaleUpdateCell(1024.0)
    net, step = _scaled_step(update)
    assert update.get_loss_scale() == 1024.0
    assert bool(update(Tensor(3.0), Tensor(True)))
    _, overflow, scale = step(Tensor(X_INF), Tensor(Y))
    assert bool(overflow) and float(scale) == 1024.0
    np.testing.assert_array_equal(net.w.asnumpy(), W)


def test_loss_scale_keeps_float16_gradients_from_underflowing():
    class Tiny(nn.Cell):
        """A float16 computation whose gradient (1e-8 * x) is below float16's range."""

        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")

        def construct(self, x):
            h = ops.cast(x, ms.float16) * ops.cast(self.w, ms.float16)
            return ops.sum(h * 1e-4) * 1e-4

    x = Tensor(np.array([1.0, 2.0], np.float32))
    plain = Tiny()
    nn.TrainOneStepCell(plain, nn.SGD(plain.trainable_params(), 1.0))(x)
    np.testing.assert_array_equal(plain.w.asnumpy(), [0.0, 0.0])       # lost to underflow
    scaled = Tiny()
    step = nn.TrainOneStepWithLossScaleCell(scaled, nn.SGD(scaled.trainable_params(), 1.0),
                                            Tensor(np.float32(2 ** 12)))
    step(x)
    np.testing.assert_allclose(scaled.w.asnumpy(), [-1e-8, -2e-8], rtol=1e-2)


def test_loss_scale_cell_errors_and_helpers():
    net = Linear()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    with pytest.raises(ValueError, match="shape of 'scale_sense'"):
        nn.TrainOneStepWithLossScaleCell(net, opt, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="must be Cell or Tensor"):
        nn.TrainOneStepWithLossScaleCell(net, opt, 1024.0)
    _, step = _scaled_step(Tensor(np.float32(8.0)))
    step.set_sense_scale(Tensor(np.float32(16.0)))
    assert float(step.scale_sense) == 16.0
    with pytest.raises(TypeError, match="'sens' must be Tensor"):
        step.set_sense_scale(16.0)
    finite = (Tensor(np.ones(2, np.float32)), Tensor(np.ones(3, np.float32)))
    assert not bool(step.get_overflow_status(None, finite))
    nan = (finite[0], Tensor(np.array([1.0, np.nan, 0.0], np.float32)))
    assert bool(step.get_overflow_status(None, nan))
    status, same = step.start_overflow_check(None, finite[0])
    assert same is finite[0] and status.shape == (8,)
