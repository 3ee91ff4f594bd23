"""ms.saved_tensors_hooks / register_saved_tensors_hooks (NOTE: [Saved-tensor hooks])."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops, Tensor


def _xy():
    return (Tensor(np.array([1., 2.], np.float32)), Tensor(np.array([3., 4.], np.float32)))


def test_mindspores_example_packs_saved_tensors_and_rules_read_the_unpacked_ones():
    log = []

    def pack_hook(x):
        log.append(("pack", x.asnumpy().tolist()))
        return x + 1

    def unpack_hook(x):
        log.append(("unpack", x.asnumpy().tolist()))
        return x

    def forward_fn(x, y):
        with ms.saved_tensors_hooks(pack_hook, unpack_hook):
            z = ops.sin(x * y)
        log.append("forward end")
        return z.sum()

    loss, (gx, gy) = ms.value_and_grad(forward_fn, grad_position=(0, 1))(*_xy())
    # the order and the values MindSpore 2.10 prints and returns for this program
    assert log == [("pack", [1., 2.]), ("pack", [3., 4.]), ("pack", [3., 8.]), "forward end",
                   ("unpack", [4., 9.]), ("unpack", [2., 3.]), ("unpack", [4., 5.])]
    np.testing.assert_allclose(loss.asnumpy(), 1.13048, rtol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), [-2.61457443, -4.55565119], rtol=1e-5)
    np.testing.assert_allclose(gy.asnumpy(), [-1.30728722, -2.73339081], rtol=1e-5)


def test_offloading_hooks_keep_gradients_and_apply_only_inside_the_scope():
    packed = []

    def pack(t):                     # keep a host copy, not the tensor itself
        packed.append(1)
        return t.asnumpy().copy()

    def unpack(a):
        return Tensor(a)

    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 1))
    x = Tensor(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
    vg = ms.value_and_grad(lambda t: (net(t) ** 2).mean(), None, net.trainable_params())
    want_loss, want = vg(x)

    def hooked(t):
        with ms.saved_tensors_hooks(pack, unpack):
            h = net(t)
        return (h ** 2).mean()              # outside the scope: not packed
    n_before = len(packed)
    loss, got = ms.value_and_grad(hooked, None, net.trainable_params())(x)
    assert len(packed) > n_before
    np.testing.assert_allclose(loss.asnumpy(), want_loss.asnumpy(), rtol=1e-6)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    count = len(packed)
    vg(x)
    assert len(packed) == count                  # no scope, no packing


def test_register_decorator_and_nesting_use_the_innermost_hooks():
    seen = []

    @ms.register_saved_tensors_hooks(lambda t: ("outer", t), lambda p: seen.append(p[0]) or p[1])
    def f(x, y):
        with ms.saved_tensors_hooks(lambda t: ("inner", t), lambda p: seen.append(p[0]) or p[1]):
            a = x * y
        return (a * x).sum()

    gx = ops.grad(f)(*_xy())
    x, y = (t.asnumpy() for t in _xy())
    np.testing.assert_allclose(gx.asnumpy(), 2 * x * y, rtol=1e-6)
    assert seen.count("inner") == 2 and seen.count("outer") == 2


def test_hooks_must_be_callable():
    with pytest.raises(TypeError, match="callable"):
        ms.saved_tensors_hooks(1, lambda p: p)
