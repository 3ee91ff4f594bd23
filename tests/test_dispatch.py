"""The single dispatch point: a capture context installed there sees every op."""
import numpy as np
import pytest

import spore as ms
from spore import nn, ops
from spore._core import primitive as P


class Recorder:
    """A handler that records (primitive, input shapes) and then runs the op."""

    def __init__(self):
        self.calls = []

    def __call__(self, below):
        def handler(prim, args, attrs):
            self.calls.append((prim.name, tuple(tuple(a.shape) for a in args
                                                if isinstance(a, ms.Tensor))))
            return below(prim, args, attrs)
        return handler


class TinyMLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones((3, 4), np.float32)), name="w")
        self.b = ms.Parameter(ms.Tensor(np.zeros((4,), np.float32)), name="b")

    def construct(self, x):
        h = ops.relu(ops.matmul(x, self.w) + self.b)
        return (h * h).mean()


def test_recording_context_sees_every_op_of_a_model():
    net = TinyMLP()
    x = ms.Tensor(np.ones((2, 3), np.float32))
    rec = Recorder()
    with P.handler_scope(rec):
        out = net(x)
    assert [name for name, _ in rec.calls] == ["MatMul", "Add", "ReLU", "Mul", "ReduceMean"]
    assert rec.calls[0][1] == ((2, 3), (3, 4))
    assert out.asnumpy() == pytest.approx(9.0)


def test_tensor_operators_and_primitive_forms_reach_the_same_primitive():
    rec = Recorder()
    a, b = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
    with P.handler_scope(rec):
        a + b
        ops.add(a, b)
        a.add(b)
        b.__radd__(a)
    assert [n for n, _ in rec.calls] == ["Add"] * 4


def test_eager_operators_take_the_eager_path_and_scopes_still_see_them(monkeypatch):
    """With no scope active, ``a + b`` calls the primitive's eager path directly (one
    frame less than ``Primitive.__call__``); with a scope active, in this thread or
    another, the operators go through ``__call__`` and this thread's handler."""
    calls = []
    real = P.Primitive.__call__
    monkeypatch.setattr(P.Primitive, "__call__",
                        lambda self, *a, **k: (calls.append(self.name), real(self, *a, **k))[1])
    a, b = ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])
    assert (a - b).asnumpy().tolist() == [-2.0, -2.0]
    assert (2.0 - a).asnumpy().tolist() == [1.0, 0.0]
    assert calls == []
    rec = Recorder()
    with P.handler_scope(rec):
        assert (a * b).asnumpy().tolist() == [3.0, 8.0]
        assert (1.0 / a).asnumpy().tolist() == [1.0, 0.5]
    assert calls == ["Mul", "Div"] and [n for n, _ in rec.calls] == ["Mul", "Div"]


def test_handler_is_removed_after_the_scope():
    rec = Recorder()
    with P.handler_scope(rec):
        ms.Tensor([1.0]) + 1
    ms.Tensor([1.0]) + 1
    assert len(rec.calls) == 1
    assert P.current_handler() is None


def test_handlers_nest_and_restore():
    outer, inner = Recorder(), Recorder()
    with P.handler_scope(outer):
        with P.handler_scope(inner):
            ops.exp(ms.Tensor([0.0]))
        ops.exp(ms.Tensor([0.0]))
    assert [n for n, _ in inner.calls] == ["Exp"]
    assert [n for n, _ in outer.calls] == ["Exp", "Exp"]


def test_every_primitive_declares_kind_and_infer_rule():
    missing = [p.name for p in P.REGISTRY.values() if p.infer is None]
    assert not missing, f"primitives without a shape/dtype rule: {missing}"
    assert all(p.kind in P.KINDS for p in P.REGISTRY.values())


def test_differentiable_primitives_have_gradient_rules():
    lacking = [p.name for p in P.REGISTRY.values()
               if p.grad is None and not p.nondiff and p.inplace_of is None
               and p.effect is None]
    assert not lacking, f"differentiable primitives without a gradient rule: {lacking}"


def test_defining_a_primitive_twice_is_an_error():
    with pytest.raises(ValueError, match="defined twice"):
        P.Primitive("Add", lambda xp: xp.add)


def test_handlers_are_per_thread():
    """Ops computed in another thread while this thread records are not recorded here."""
    import threading
    rec = Recorder()
    seen_in_thread = []

    def worker():
        seen_in_thread.append(P.current_handler())
        ops.exp(ms.Tensor([1.0]))
    with P.handler_scope(rec):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        ops.exp(ms.Tensor([0.0]))
    assert seen_in_thread == [None]
    assert [n for n, _ in rec.calls] == ["Exp"]


def test_gradient_tape_ignores_other_threads():
    import threading
    x = ms.Tensor([1.0, 2.0])
    out = {}

    def f(t):
        th = threading.Thread(target=lambda: out.setdefault("y", ops.exp(t)))
        th.start()
        th.join()
        return (t * t).sum() + out["y"].sum() * 0
    g = ops.grad(f)(x)
    assert g.tolist() == [2.0, 4.0]
