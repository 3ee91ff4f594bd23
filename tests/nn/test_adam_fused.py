"""Adam's one-pass float32 update (NOTE: [Adam in one pass] in spore/nn/optim/_updates.py):
the bits of the NumPy kernel at every size (chunked on the pool or not), MindSpore's
formula within float32 rounding, and the NumPy kernel where the loop does not apply."""
import numpy as np
import pytest

import spore as ms
from spore import Tensor, _native, nn
from spore._core import threads
from spore._prims import vecmath as V
from spore.nn.optim import _updates as U

from ..test_threads import two_threads  # noqa: F401  (a fixture)

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not _native.enabled(), reason="Numba loops are off")

F32 = np.float32


@pytest.fixture(autouse=True)
def _compiled(monkeypatch):
    assert _native.wait(np.dtype(F32), 600) and V.usable()
    monkeypatch.setattr(threads, "_backoff", [0, 0])


@pytest.fixture
def loop_calls(monkeypatch):
    """The sizes of the parameter chunks ``adam_loop`` was called on."""
    a = np.zeros(8, F32)
    U.adam_loop(a, a.copy(), a.copy() + 1, a.copy(), F32(.1), F32(.1), F32(1e-8), F32(1e-3))
    calls, real = [], U.adam_loop._compiled

    def recording(var, *rest):
        calls.append(var.size)
        return real(var, *rest)
    monkeypatch.setattr(U.adam_loop, "_compiled", recording)
    return calls


def _state(n, seed=0, dtype=F32):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(dtype), (rng.standard_normal(n) * .1).astype(dtype),
            np.abs(rng.standard_normal(n) * .01).astype(dtype), rng.standard_normal(n).astype(dtype)]


SCALARS = [np.array(s, F32) for s in (0.9 ** 3, 0.999 ** 3, 1e-3, 0.9, 0.999, 1e-8)]


def _both(n, dtype=F32, **kw):
    """(fused, NumPy) results of three updates of the same state."""
    var, m, v, g = _state(n, dtype=dtype)
    runs = []
    for native in (True, False):
        s = [a.copy() for a in (var, m, v)]
        with (_native.disabled() if not native else _nullcontext()):
            for _ in range(3):
                U.adam_p._cpu(s[0], s[1], s[2], *SCALARS, g, **kw)
        runs.append(s)
    return runs


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("n", [V.MIN_FAST, 5000, V.MIN_SPLIT - 1, V.MIN_SPLIT, 3 * V.MIN_SPLIT + 17])
def test_fused_update_gives_the_bits_of_the_numpy_kernel(n, two_threads, loop_calls):
    fused, numpy = _both(n)
    for a, b in zip(fused, numpy):
        assert a.tobytes() == b.tobytes()
    assert sum(loop_calls) == 3 * n                     # every element went through the loop
    if n >= V.MIN_SPLIT:
        assert len(loop_calls) > 3                      # in chunks on the pool


def test_the_update_is_mindspores_formula():
    var, m, v, g = _state(10_000, seed=3)
    b1p, b2p, lr, b1, b2, eps = (float(s) for s in SCALARS)
    want_m = m + (g - m) * (1 - b1)
    want_v = v + (g.astype(np.float64) ** 2 - v) * (1 - b2)
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    want_var = var - lr_t * want_m / (np.sqrt(want_v) + eps)
    s = [a.copy() for a in (var, m, v)]
    U.adam_p._cpu(s[0], s[1], s[2], *SCALARS, g)
    np.testing.assert_allclose(s[1], want_m, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s[2], want_v, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(s[0], want_var, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["small", "float64", "nesterov", "amsgrad", "strided_grad"])
def test_the_numpy_kernel_serves_where_the_loop_does_not_apply(case, loop_calls):
    n = 100 if case == "small" else 8192
    dtype = np.float64 if case == "float64" else F32
    var, m, v, g = _state(n, dtype=dtype)
    kw, extra = {}, ()
    if case == "nesterov":
        kw = dict(use_nesterov=True)
    if case == "amsgrad":
        extra = (np.zeros(n, F32),)
    if case == "strided_grad":
        g = np.repeat(g, 2)[::2]
    scalars = SCALARS if dtype == F32 else [s.astype(dtype) for s in SCALARS]
    U.adam_p._cpu(var, m, v, *scalars, g, *extra, **kw)
    assert loop_calls == []


def test_adam_training_matches_with_numba_off():
    # a layer trained with nn.Adam: the same parameters with the loop and without
    def train(native):
        ms.set_seed(1)
        net = nn.Dense(128, 64)
        opt = nn.Adam(net.trainable_params(), learning_rate=1e-2)
        x = Tensor(np.random.default_rng(0).standard_normal((16, 128)).astype(F32))

        def loss(x):
            return (net(x) ** 2).mean()
        step = ms.value_and_grad(loss, None, opt.parameters)
        with (_nullcontext() if native else _native.disabled()):
            for _ in range(4):
                _, grads = step(x)
                opt(grads)
        return net.weight.asnumpy()
    assert train(True).tobytes() == train(False).tobytes()
