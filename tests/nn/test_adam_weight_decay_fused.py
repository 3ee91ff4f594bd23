"""AdamWeightDecay's one-pass float32 update (NOTE: [AdamWeightDecay in one pass] in
spore/_prims/optim_prims.py): MindSpore 2.10's CPU bits, the same bits from the Numba loop
(chunked on the pool or not) and from the NumPy kernel, the same bits in PyNative and O0,
and nn.AdamWeightDecay running the primitive as MindSpore does."""
import hashlib

import numpy as np
import pytest

import spore as ms
from spore import Parameter, Tensor, _native, nn, ops
from spore._core import threads
from spore._prims import optim_prims as O
from spore._prims import vecmath as V

from ..test_threads import two_threads  # noqa: F401  (a fixture)

F32 = np.float32
numba_on = pytest.mark.skipif(not (_native.installed() and _native.enabled()),
                              reason="Numba loops are off")


def _exact_inputs(n=5000):
    """State and gradient of exactly representable float32 values (no libm involved)."""
    i = np.arange(n)
    return [((i % 97 - 48) / 32).astype(F32), (((i * 7) % 101 - 50) / 1024).astype(F32),
            (((i * 13) % 89) / 4096).astype(F32), (((i * 5) % 83 - 41) / 64).astype(F32)]


# Probed: MindSpore 2.10 (CPU), three ops.AdamWeightDecay()(var, m, v, 1e-2, 0.9, 0.999,
# 1e-6, 0.05, g) steps on _exact_inputs(): sha256 prefixes of the new m and v, and the new
# var at some indices (the last five are the only ones where Spore's var differs, by 1 ulp).
MINDSPORE_M_V_SHA = ("c29e863865e5b720", "7b25a5258435d123")
MINDSPORE_VAR_AT = {0: -1.328566074371338, 1000: -0.5060339570045471,
                    2500: 0.8385282754898071, 4999: 0.1632993370294571,
                    1186: -0.7964093089103699, 1582: -0.5374029278755188,
                    4248: 0.8787393569946289, 4511: 0.01565575785934925,
                    4843: 1.2871336936950684}
EXACT_AT = (0, 1000, 2500, 4999)


def _three_steps(native, n=5000):
    var, m, v, g = _exact_inputs(n)
    with (_native.disabled() if not native else _nothing()):
        for _ in range(3):
            O.adam_weight_decay_p._cpu(var, m, v, F32(1e-2), F32(0.9), F32(0.999), F32(1e-6),
                                       F32(0.05), g)
    return var, m, v


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _sha(a):
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


def _assert_mindspores(var, m, v):
    assert (_sha(m), _sha(v)) == MINDSPORE_M_V_SHA
    for i, want in MINDSPORE_VAR_AT.items():
        ulps = abs(int(var[i:i + 1].view(np.int32)[0]) - int(np.array([want], F32).view(np.int32)[0]))
        assert ulps <= (0 if i in EXACT_AT else 1), (i, var[i], want)


def test_numpy_kernel_gives_mindspores_bits_for_the_moments():
    _assert_mindspores(*_three_steps(native=False))


@pytest.fixture
def loop_calls(monkeypatch):
    """The sizes of the parameter chunks the loop was called on (loaded first)."""
    if not _native.wait(np.dtype(F32), 600) or not V.usable():
        pytest.skip("float32 loops not compiled")
    monkeypatch.setattr(threads, "_backoff", [0, 0])
    a = np.ones(8, F32)
    O.adam_weight_decay_loop(a, a.copy(), a.copy(), a.copy(), .1, .1, 1e-6, 0., 1e-3)
    calls, real = [], O.adam_weight_decay_loop._compiled

    def recording(var, *rest):
        calls.append(var.size)
        return real(var, *rest)
    monkeypatch.setattr(O.adam_weight_decay_loop, "_compiled", recording)
    return calls


@numba_on
def test_loop_gives_the_numpy_kernels_bits(loop_calls):
    out = _three_steps(native=True)
    _assert_mindspores(*out)
    assert loop_calls == [5000] * 3
    with _native.disabled():
        numpy = _three_steps(native=False)
    assert [a.tobytes() for a in out] == [a.tobytes() for a in numpy]


def _random_state(n, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(n).astype(F32), (rng.standard_normal(n) * .1).astype(F32),
            np.abs(rng.standard_normal(n) * .01).astype(F32), rng.standard_normal(n).astype(F32)]


@numba_on
@pytest.mark.parametrize("n", [V.MIN_FAST, O.AWD_MIN_SPLIT - 1, O.AWD_MIN_SPLIT,
                               2 * O.AWD_MIN_SPLIT + 17])
def test_loop_and_chunks_give_the_numpy_kernels_bits(n, two_threads, loop_calls):
    var, m, v, g = _random_state(n)
    runs = []
    for native in (True, False):
        s = [a.copy() for a in (var, m, v)]
        with (_native.disabled() if not native else _nothing()):
            for wd in (0.01, 0.0):
                O.adam_weight_decay_p._cpu(*s, F32(1e-3), F32(0.9), F32(0.999), F32(1e-6),
                                           F32(wd), g)
        runs.append(s)
    for a, b in zip(*runs):
        assert a.tobytes() == b.tobytes()
    assert sum(loop_calls) == 2 * n
    assert (len(loop_calls) > 2) == (n >= O.AWD_MIN_SPLIT)      # chunked from the threshold


@pytest.mark.parametrize("case", ["small", "float64", "strided_grad"])
def test_the_loop_serves_only_where_it_applies(case, monkeypatch):
    calls = []
    monkeypatch.setattr(O, "adam_weight_decay_loop", lambda *a: calls.append(a))
    n = 100 if case == "small" else 8192
    dtype = np.float64 if case == "float64" else F32
    var, m, v, g = [a.astype(dtype) for a in _random_state(n)]
    if case == "strided_grad":
        g = np.repeat(g, 2)[::2]
    want_m = m + (g - m) * (dtype(1) - dtype(0.9))
    O.adam_weight_decay_p._cpu(var, m, v, *(dtype(s) for s in (1e-3, .9, .999, 1e-6, .01)), g)
    assert calls == []
    np.testing.assert_allclose(m, want_m, rtol=1e-6, atol=1e-7)


def test_float64_follows_the_formula():
    var, m, v, g = [a.astype(np.float64) for a in _random_state(64, seed=2)]
    want_m = m + (g - m) * (1 - 0.9)
    want_v = v + (g * g - v) * (1 - 0.999)
    want_var = var - 1e-3 * (want_m / (np.sqrt(want_v) + 1e-6) + 0.01 * var)
    O.adam_weight_decay_p._cpu(var, m, v, 1e-3, 0.9, 0.999, 1e-6, 0.01, g)
    np.testing.assert_allclose(m, want_m, rtol=1e-15)
    np.testing.assert_allclose(v, want_v, rtol=1e-15)
    np.testing.assert_allclose(var, want_var, rtol=1e-15)


def _awd_training(step_of):
    """Four nn.AdamWeightDecay steps of a Dense(128, 64) (a 8192-element weight, the
    loop's size; its bias is below it), run through ``step_of(train_step)``."""
    ms.set_seed(1)
    net = nn.Dense(128, 64)
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-2, weight_decay=0.1)
    x = Tensor(np.random.default_rng(0).standard_normal((16, 128)).astype(F32))
    grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).mean(), None, opt.parameters)

    def train_step(x):
        loss, grads = grad_fn(x)
        return ops.depend(loss, opt(grads))
    step = step_of(train_step)
    for _ in range(4):
        step(x)
    return net.weight.asnumpy(), net.bias.asnumpy(), opt.moments2[0].asnumpy()


def test_pynative_and_O0_give_the_same_bits():
    eager = _awd_training(lambda f: f)
    graph = _awd_training(lambda f: ms.jit(f, jit_level="O0"))
    for a, b in zip(eager, graph):
        assert a.tobytes() == b.tobytes()


def test_numba_off_gives_the_same_training():
    with _native.disabled():
        off = _awd_training(lambda f: f)
    on = _awd_training(lambda f: f)
    for a, b in zip(on, off):
        assert a.tobytes() == b.tobytes()


def test_nn_adam_weight_decay_runs_the_primitive_with_decay_flags(monkeypatch):
    from spore.nn.optim import adam
    seen = []

    def recording(var, m, v, lr, b1, b2, eps, decay, grad):
        seen.append(float(np.asarray(decay)))
        return O.adam_weight_decay_p(var, m, v, lr, b1, b2, eps, decay, grad)
    monkeypatch.setattr(adam, "adam_weight_decay_p", recording)
    w = Parameter(Tensor(np.ones(3, F32)), name="w")
    gamma = Parameter(Tensor(np.ones(2, F32)), name="ln.gamma")
    opt = nn.AdamWeightDecay([w, gamma], learning_rate=0.1, weight_decay=0.5)
    opt((Tensor(np.full(3, 0.1, F32)), Tensor(np.full(2, 0.1, F32))))
    assert seen == [0.5, 0.0]                     # gamma is not decayed (MindSpore: 0.0)
    # the spot values of the reference: decayed 0.633870, plain 0.683870
    np.testing.assert_allclose(w.asnumpy(), 0.633870, atol=2e-6)
    np.testing.assert_allclose(gamma.asnumpy(), 0.683870, atol=2e-6)
