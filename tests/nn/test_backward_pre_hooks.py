"""Cell.register_backward_pre_hook and ops.HookBackward, against MindSpore 2.10's
PyNative results (probed on the reference; the numbers are constants here)."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops

X = ms.Tensor(np.array([[1.0, 2.0]], np.float32))
Y = ms.Tensor(np.array([[3.0, 4.0]], np.float32))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.d = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x, y):
        return self.d(x) * y


class Triple(nn.Cell):
    def construct(self, x):
        return x * 3


def _np(values):
    return [None if v is None else v.asnumpy().tolist() for v in values]


def test_pre_hook_sees_and_replaces_the_output_gradient():
    net, seen = Net(), []

    def double(cell, grad_output):
        seen.append((cell, _np(grad_output)))
        return (grad_output[0] * 2,)

    handle = net.register_backward_pre_hook(double)
    grads = ms.grad(net, grad_position=(0, 1))(X, Y)
    assert seen == [(net, [[[1.0, 1.0]]])]
    assert _np(grads) == [[[14.0, 14.0]], [[6.0, 6.0]]]
    handle.remove()
    assert _np(ms.grad(net, grad_position=(0, 1))(X, Y)) == [[[7.0, 7.0]], [[3.0, 3.0]]]


def test_pre_hook_on_a_sub_cell():
    net = Net()
    net.d.register_backward_pre_hook(lambda cell, g: (g[0] * 2,))
    grads = ms.grad(net, grad_position=(0, 1))(X, Y)
    assert _np(grads) == [[[14.0, 14.0]], [[3.0, 3.0]]]


def test_pre_hooks_chain_then_backward_hooks_see_their_result():
    net, order = Triple(), []
    net.register_backward_pre_hook(lambda c, g: order.append("pre1") or (g[0] * 2,))
    net.register_backward_pre_hook(lambda c, g: order.append("pre2") or (g[0] * 5,))
    seen = {}

    def hook(cell, grad_input, grad_output):
        order.append("bh")
        seen["in"], seen["out"] = _np(grad_input), _np(grad_output)

    net.register_backward_hook(hook)
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert ms.grad(lambda x: net(x).sum())(x).asnumpy().tolist() == [30.0, 30.0]
    assert order == ["pre1", "pre2", "bh"]
    assert seen == {"in": [[30.0, 30.0]], "out": [[10.0, 10.0]]}


def test_pre_hook_may_return_a_tensor_and_none():
    net = Triple()
    net.register_backward_pre_hook(lambda c, g: g[0] * 2)
    net.register_backward_pre_hook(lambda c, g: None)
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    assert ms.grad(lambda x: (net(x) * x).sum())(x).asnumpy().tolist() == [9.0, 18.0]


def test_pre_hook_with_tuple_outputs_and_weights_only():
    class Two(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.t = Two()

        def construct(self, x):
            a, b = self.t(x)
            return (a * b).sum()

    outer, seen = Outer(), []
    outer.t.register_backward_pre_hook(lambda c, g: seen.append(_np(g)) or (g[0], g[1] * 0))
    assert ms.grad(outer)(X).asnumpy().tolist() == [[6.0, 12.0]]
    assert seen == [[[[3.0, 6.0]], [[2.0, 4.0]]]]

    class W(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")

        def construct(self, x):
            return x * self.w

    w = W()
    w.register_backward_pre_hook(lambda c, g: (g[0] * 10,))
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    grads = ms.grad(lambda x: w(x).sum(), grad_position=None, weights=w.trainable_params())(x)
    assert grads[0].asnumpy().tolist() == [10.0, 20.0]


def test_pre_hook_errors():
    class Two(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

    two = Two()
    two.register_backward_pre_hook(lambda c, g: (g[0],))
    with pytest.raises(TypeError, match="backward pre hook return value size is 1 not equal "
                                        "to expect output size 2"):
        ms.grad(lambda x: sum(o.sum() for o in two(x)))(X)
    with pytest.raises(TypeError, match="Expected a callable hook function, but got int"):
        Net().register_backward_pre_hook(3)


# ------------------------------------------------------------------ ops.HookBackward
def test_hook_backward_sees_and_replaces_gradients():
    seen = []

    def triple(grads):
        seen.append(_np(grads))
        return (grads[0] * 3,)

    hook = ops.HookBackward(triple)

    def f(x, y):
        z = hook(x * y)
        return (z * z).sum()

    grads = ms.grad(f, grad_position=(0, 1))(X, Y)
    assert seen == [[[[6.0, 16.0]]]]
    assert _np(grads) == [[[54.0, 192.0]], [[18.0, 96.0]]]


def test_hook_backward_forward_and_return_forms():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    keep = ops.HookBackward(lambda g: None)
    out = keep(x)
    assert isinstance(out, ms.Tensor) and out.asnumpy().tolist() == [1.0, 2.0]
    assert ms.grad(lambda x: (keep(x) * 2).sum())(x).asnumpy().tolist() == [2.0, 2.0]
    as_tensor = ops.HookBackward(lambda g: g[0] * 2)
    assert ms.grad(lambda x: as_tensor(x * 1).sum())(x).asnumpy().tolist() == [2.0, 2.0]
    seen = []
    two = ops.HookBackward(lambda g: seen.append(_np(g)))
    y = ms.Tensor(np.array([3.0, 4.0], np.float32))
    a, b = two(x, y)
    grads = ms.grad(lambda x, y: (lambda a, b: (a * b).sum())(*two(x, y)),
                    grad_position=(0, 1))(x, y)
    assert _np(grads) == [[3.0, 4.0], [1.0, 2.0]] and seen == [[[3.0, 4.0], [1.0, 2.0]]]


def test_hook_backward_errors():
    with pytest.raises(TypeError, match="Expected a callable hook function, but got int"):
        ops.HookBackward(3)
    with pytest.raises(TypeError, match="For 'HookBackward', the element of 'input' must be "
                                        "Tensor"):
        ops.HookBackward(lambda g: None)(1.0)
    wrong = ops.HookBackward(lambda g: (g[0] * 2, g[0]))

    def f(x):
        return wrong(x * 1).sum()
    with pytest.raises(TypeError, match="should be a tensor but got tuple"):
        ms.grad(f)(ms.Tensor(np.array([1.0, 2.0], np.float32)))
    assert "HookBackward" in repr(ops.HookBackward(lambda g: None))


# ------------------------------------------------------------------ Tensor.from_numpy
def test_tensor_from_numpy_shares_memory():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ms.Tensor.from_numpy(a)
    a[0, 0] = 100
    assert t.asnumpy()[0, 0] == 100 and t.dtype == ms.float32
    t[0, 1] = 5
    assert a[0, 1] == 5
    assert ms.from_numpy(np.array([1, 2], np.float16)).dtype == ms.float16
    strided = ms.Tensor.from_numpy(np.arange(4)[::2])
    assert strided.asnumpy().tolist() == [0, 2] and strided.dtype == ms.int64
    assert ms.Tensor.from_numpy(np.array(True)).shape == ()
    for bad in ([1, 2], np.float32(3)):
        with pytest.raises(TypeError, match="Expected a NumPy array"):
            ms.Tensor.from_numpy(bad)
