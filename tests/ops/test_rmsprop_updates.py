"""ops.ApplyRMSProp / ops.ApplyCenteredRMSProp: in-place updates with MindSpore 2.10's
argument orders and values (probed on the reference, CPU)."""
import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, ops


def _state():
    return (Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="var"),
            Parameter(Tensor(np.array([0.5, 0.3], np.float32)), name="ms"),
            Parameter(Tensor(np.array([0.1, 0.2], np.float32)), name="mom"),
            Parameter(Tensor(np.array([0.05, -0.1], np.float32)), name="mg"))


G = Tensor(np.array([0.3, -0.4], np.float32))


def test_apply_rms_prop_updates_in_place():
    var, mean_square, moment, _ = _state()
    out = ops.ApplyRMSProp()(var, mean_square, moment, Tensor(0.01, ms.float32), G, 0.9, 0.8,
                             1e-6)
    assert out is var
    np.testing.assert_allclose(var.asnumpy(), [0.9155719, 1.8474796], rtol=1e-6)
    np.testing.assert_allclose(mean_square.asnumpy(), [0.459, 0.286], rtol=1e-6)
    np.testing.assert_allclose(moment.asnumpy(), [0.08442807, 0.15252045], rtol=1e-6)


def test_apply_centered_rms_prop_updates_in_place():
    var, mean_square, moment, mean_grad = _state()
    out = ops.ApplyCenteredRMSProp()(var, mean_grad, mean_square, moment, G,
                                     Tensor(0.01, ms.float32), 0.9, 0.8, 1e-6)
    assert out is var
    np.testing.assert_allclose(var.asnumpy(), [0.9155445, 1.8477108], rtol=1e-6)
    np.testing.assert_allclose(mean_grad.asnumpy(), [0.075, -0.13], rtol=1e-6)
    np.testing.assert_allclose(mean_square.asnumpy(), [0.459, 0.286], rtol=1e-6)
    np.testing.assert_allclose(moment.asnumpy(), [0.08445546, 0.15228915], rtol=1e-6)


def test_hyperparameters_may_be_python_numbers_or_tensors():
    want = _state()
    ops.ApplyCenteredRMSProp()(want[0], want[3], want[1], want[2], G, Tensor(0.01, ms.float32),
                               0.9, 0.8, 1e-6)
    got = _state()
    ops.ApplyCenteredRMSProp()(got[0], got[3], got[1], got[2], G, 0.01,
                               Tensor(0.9, ms.float32), Tensor(0.8, ms.float32),
                               Tensor(1e-6, ms.float32))
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-7)


def test_nn_rmsprop_is_the_fused_update():
    for centered in (False, True):
        w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        opt = ms.nn.RMSProp([w], learning_rate=0.01, decay=0.9, momentum=0.8, epsilon=1e-6,
                            centered=centered)
        opt((G,))
        var, mean_square, moment, mean_grad = _state()
        mean_grad[:] = 0
        mean_square[:] = 1
        moment[:] = 0
        if centered:
            ops.ApplyCenteredRMSProp()(var, mean_grad, mean_square, moment, G, 0.01, 0.9, 0.8,
                                       1e-6)
        else:
            ops.ApplyRMSProp()(var, mean_square, moment, 0.01, G, 0.9, 0.8, 1e-6)
        np.testing.assert_array_equal(w.asnumpy(), var.asnumpy())


@pytest.mark.parametrize("call,words", [
    (lambda s: ops.ApplyRMSProp()(s[0], s[1], s[2], 0.01, Tensor(np.ones(3, np.float32)), 0.9,
                                  0.8, 1e-6), "'grad' must be the same as the shape of 'var'"),
    (lambda s: ops.ApplyCenteredRMSProp()(s[0], Tensor(np.ones(3, np.float32)), s[1], s[2], G,
                                          0.01, 0.9, 0.8, 1e-6), "'mean_gradient'"),
    (lambda s: ops.ApplyRMSProp()(s[0], s[1], s[2], Tensor(np.ones(2, np.float32)), G, 0.9, 0.8,
                                  1e-6), "'learning_rate' must be a scalar"),
    (lambda s: ops.ApplyRMSProp()(Tensor(np.ones(2, np.int32)), s[1], s[2], 0.01, G, 0.9, 0.8,
                                  1e-6), "floating-point"),
])
def test_errors_name_the_op_and_argument(call, words):
    with pytest.raises((TypeError, ValueError), match=words):
        call(_state())
