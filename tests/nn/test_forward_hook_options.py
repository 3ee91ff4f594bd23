"""register_forward_pre_hook / register_forward_hook keyword options (prepend, with_kwargs,
always_call), as MindSpore 2.10 runs them (probed on the reference)."""
import numpy as np
import pytest

import spore as ms
from spore import nn

X = ms.Tensor(np.array([1.0, 2.0], np.float32))


class Scaled(nn.Cell):
    def construct(self, x, scale=1.0):
        return x * scale


def test_prepend_and_with_kwargs():
    cell, order, seen = Scaled(), [], []
    cell.register_forward_pre_hook(lambda c, a: order.append("a"))
    cell.register_forward_pre_hook(lambda c, a: order.append("b"), prepend=True)

    def pre(c, args, kwargs):
        seen.append((len(args), sorted(kwargs)))
        return args, {"scale": 10.0}
    cell.register_forward_pre_hook(pre, with_kwargs=True)

    def post(c, args, kwargs, out):
        seen.append(dict(kwargs))
        return out + 1
    cell.register_forward_hook(post, with_kwargs=True)
    cell.register_forward_hook(lambda c, a, o: order.append("f1"))
    cell.register_forward_hook(lambda c, a, o: order.append("f0"), prepend=True)
    assert cell(X, scale=2.0).asnumpy().tolist() == [11.0, 21.0]
    assert order == ["b", "a", "f0", "f1"]
    assert seen == [(1, ["scale"]), {"scale": 10.0}]


def test_always_call_runs_when_construct_raises():
    class Broken(nn.Cell):
        def construct(self, x):
            raise ValueError("boom")

    cell, calls = Broken(), []
    cell.register_forward_hook(lambda c, a, o: calls.append(("always", o)), always_call=True)
    cell.register_forward_hook(lambda c, a, o: calls.append(("plain", o)))
    with pytest.raises(ValueError, match="boom"):
        cell(X)
    assert calls == [("always", None)]


def test_with_kwargs_pre_hook_must_return_args_and_kwargs():
    cell = Scaled()
    cell.register_forward_pre_hook(lambda c, args, kwargs: args, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, "
                                           "new_kwargs\\)"):
        cell(X)


def test_removed_hooks_stop_running():
    cell, calls = Scaled(), []
    handle = cell.register_forward_hook(lambda c, a, k, o: calls.append(1), with_kwargs=True,
                                        prepend=True)
    cell(X)
    handle.remove()
    cell(X)
    assert calls == [1]
