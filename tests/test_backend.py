"""A second backend plugs in without touching op definitions: kernels are built per backend
from each primitive's factory, and results stay on that backend."""
import numpy as np
import pytest

import spore as ms
from spore import ops
from spore._core import backend as B
from spore._core import primitive as P


class FakeArray(np.ndarray):
    """Stands in for a device array type (e.g. cupy.ndarray)."""


class CountingXP:
    """An array module that records which functions the kernels asked for."""

    def __init__(self):
        self.used = set()

    def __getattr__(self, name):
        self.used.add(name)
        return getattr(np, name)


@pytest.fixture
def fake_backend():
    xp = CountingXP()
    backend = B.Backend("FAKE", xp, FakeArray)
    B.register(backend)
    yield xp
    B._BY_ARRAY_TYPE.pop(FakeArray)
    B._BY_NAME.pop("FAKE")
    for prim in P.REGISTRY.values():
        prim._kernels.pop("FAKE", None)


def fake_tensor(values):
    return P.wrap(np.asarray(values, np.float32).view(FakeArray))


def test_ops_run_through_the_registered_backend(fake_backend):
    a = fake_tensor([1.0, 2.0])
    b = fake_tensor([3.0, 4.0])
    out = ops.tanh(a * b + 1.0)
    assert type(out._data) is FakeArray
    np.testing.assert_allclose(out.asnumpy(), np.tanh(np.array([4.0, 9.0])), rtol=1e-6)
    assert {"multiply", "add", "tanh"} <= fake_backend.used
    assert "FAKE" in P.REGISTRY["Tanh"]._kernels


def test_gradients_run_on_the_backend(fake_backend):
    x = fake_tensor([0.5, -1.0])
    g = ops.grad(lambda t: (t * t).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [1.0, -2.0])


def test_unknown_array_type_is_rejected():
    class Alien:
        shape = (2,)
        dtype = np.dtype(np.float32)
    with pytest.raises(TypeError, match="no Spore backend"):
        B.of_array(Alien())
